/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_args.c - `roceshark replay`'s command line into struct replay_opts.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/inject/inject.h>
#include <roceshark/transport/rc.h>

#include "cli.h"
#include "replay_cli.h"

static const char usage[] =
    "usage: roceshark replay -r CAPTURE (--conv N | --qp QPN) --bind IP\n"
    "                        (--target IP[:PORT] | --dst IP) [options]\n"
    "\n"
    "Plays one RC conversation of CAPTURE again against a live target: the requester's\n"
    "packets, rewritten to the target, then compares the target's answers with the\n"
    "capture's, and names every difference. With no conversation picked it lists them\n"
    "(the ids of -z conv,qp) and exits 1.\n"
    "Pick:\n"
    "  --conv N          the conversation with id N       --qp QPN   the one with this QP\n"
    "  --side requester  we play the captured requester (the default)\n"
    "  --side responder  we play the captured responder: a live requester connects to our\n"
    "                    side channel (--listen PORT, 18515) and is answered with the\n"
    "                    capture's responses, NAKs and RNR NAKs included; its packets are\n"
    "                    compared with the captured requester's, retransmissions included\n"
    "Target:\n"
    "  --bind IP         our address: the capture's requester becomes it (required;\n"
    "                    --src is its old name)\n"
    "  --target IP[:PORT] a target with a roceshark side channel (port 18515): its QP,\n"
    "                    R_Key and VA are learned, and it starts at the capture's PSN;\n"
    "                    IPv6: ADDR or [ADDR]:PORT (fe80::1%eth0 for a link-local one)\n"
    "  --dst IP          a target set up by other means: give the maps yourself\n"
    "Rewriting (the ICRC is recomputed):\n"
    "  --qpmap OLD:NEW   destination QP    --rkey-map OLD:NEW   R_Key (repeatable)\n"
    "  --psn-offset N    added to PSNs     --va-offset [-]N     added to VAs\n"
    "  --pkey P          the P_Key         --sport N            the UDP source port\n"
    "  --keep-icrc       keep the captured ICRCs (a bad one is replayed bad)\n"
    "Modes:\n"
    "  --packets         the packets as captured, rewritten (the default; stateless)\n"
    "  --messages        the requester's messages (SEND, WRITE, READ, atomics, with their\n"
    "                    lengths, immediates, data and offsets) done again by our requester\n"
    "                    with its own retries and timers (needs --target); the capture's\n"
    "                    sequence NAKs and retries are then not expected again\n"
    "Sending (--packets):\n"
    "  -i IFACE          send with libpcap (Ethernet frames); default a UDP socket from --bind\n"
    "  --capture-iface IFACE  where the answers are captured (default: the interface of\n"
    "                    --bind; lo for 127.0.0.0/8 and ::1)\n"
    "  -x MULT           as recorded, MULT times as fast    --pps N    N packets a second\n"
    "  --topspeed        as fast as they go                 --loop N   N passes (PSNs go on)\n"
    "Validation (on unless --no-validate):\n"
    "  --payloads        compare READ and atomic data too (the target must hold the capture's)\n"
    "  --preload         first give the target's memory what the capture shows was there\n"
    "                    (what its READs saw, its WRITE data elsewhere), then compare READ\n"
    "                    data; --preload-file FILE: the file's bytes from the lowest VA\n"
    "  --lenient rnr     RNR timer values may differ\n"
    "  --linger MS       wait this long after the last packet for answers (default 200)\n"
    "  --until-answered  end that wait once the target answers the last request the capture\n"
    "                    shows answered, or with a NAK that ends its QP (packets mode)\n"
    "  -w FILE           keep the replay's capture      --tap   TAP instead of the table\n"
    "  --diff            the two conversations side by side (| same, ! different, < > one\n"
    "                    side only)\n"
    "  --junit FILE      JUnit XML, a testcase per rule\n"
    "Exit code: 0 the target behaves as recorded, 7 it diverged (the count is on the last\n"
    "line), or an error's (1 usage or no conversation picked, 2 unreadable capture, 4 target\n"
    "or capture interface unreachable).\n";

enum {
    OPT_CONV = 0x100, OPT_QP, OPT_SIDE, OPT_SRC, OPT_TARGET, OPT_DST, OPT_QPMAP, OPT_RKEYMAP,
    OPT_PSN_OFFSET, OPT_VA_OFFSET, OPT_PKEY, OPT_SPORT, OPT_KEEP_ICRC, OPT_CAPTURE_IFACE,
    OPT_PPS, OPT_TOPSPEED, OPT_LOOP, OPT_NO_VALIDATE, OPT_PAYLOADS, OPT_LENIENT, OPT_LINGER,
    OPT_TAP, OPT_JUNIT, OPT_PACKETS, OPT_MESSAGES, OPT_LISTEN, OPT_DIFF, OPT_PRELOAD,
    OPT_PRELOAD_FILE, OPT_UNTIL_ANSWERED
};


/* An address into out as the rewriting holds it: four bytes for IPv4, sixteen for IPv6. */
static int
parse_ip(const char *what, const char *s, uint8_t *family, uint8_t *out)
{
    uint8_t gid[16];
    char err[RS_ERRBUF_SIZE];

    if (rs_addr_parse(s, gid, NULL, err) != 0)
        return cli_fail(CLI_EXIT_USAGE, "replay: %s %s", what, err);
    *family = rs_addr_family(gid);
    memcpy(out, *family == 4 ? gid + 12 : gid, *family == 4 ? 4 : 16);
    return 0;
}

static int
parse_target(const char *arg, struct replay_opts *ro)
{
    char err[RS_ERRBUF_SIZE];

    ro->target_port = SIDE_PORT;
    if (rs_addr_parse_port(arg, ro->target, &ro->target_scope, &ro->target_port, err) != 0)
        return cli_fail(CLI_EXIT_USAGE, "replay: --target %s", err);
    ro->dst_family = rs_addr_family(ro->target);
    memcpy(ro->rw.dst, ro->dst_family == 4 ? ro->target + 12 : ro->target,
           ro->dst_family == 4 ? 4 : 16);
    ro->rw.set_dst = true;
    ro->have_target = true;
    return 0;
}

int
replay_parse_args(struct replay_opts *ro, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"conv", required_argument, NULL, OPT_CONV},
        {"qp", required_argument, NULL, OPT_QP},
        {"side", required_argument, NULL, OPT_SIDE},
        {"bind", required_argument, NULL, OPT_SRC},
        {"src", required_argument, NULL, OPT_SRC},      /* the old name of --bind */
        {"target", required_argument, NULL, OPT_TARGET},
        {"dst", required_argument, NULL, OPT_DST},
        {"qpmap", required_argument, NULL, OPT_QPMAP},
        {"rkey-map", required_argument, NULL, OPT_RKEYMAP},
        {"psn-offset", required_argument, NULL, OPT_PSN_OFFSET},
        {"va-offset", required_argument, NULL, OPT_VA_OFFSET},
        {"pkey", required_argument, NULL, OPT_PKEY},
        {"sport", required_argument, NULL, OPT_SPORT},
        {"keep-icrc", no_argument, NULL, OPT_KEEP_ICRC},
        {"capture-iface", required_argument, NULL, OPT_CAPTURE_IFACE},
        {"pps", required_argument, NULL, OPT_PPS},
        {"topspeed", no_argument, NULL, OPT_TOPSPEED},
        {"loop", required_argument, NULL, OPT_LOOP},
        {"no-validate", no_argument, NULL, OPT_NO_VALIDATE},
        {"validate", no_argument, NULL, 'V'},
        {"payloads", no_argument, NULL, OPT_PAYLOADS},
        {"lenient", required_argument, NULL, OPT_LENIENT},
        {"linger", required_argument, NULL, OPT_LINGER},
        {"until-answered", no_argument, NULL, OPT_UNTIL_ANSWERED},
        {"tap", no_argument, NULL, OPT_TAP},
        {"junit", required_argument, NULL, OPT_JUNIT},
        {"packets", no_argument, NULL, OPT_PACKETS},
        {"messages", no_argument, NULL, OPT_MESSAGES},
        {"listen", required_argument, NULL, OPT_LISTEN},
        {"diff", no_argument, NULL, OPT_DIFF},
        {"preload", no_argument, NULL, OPT_PRELOAD},
        {"preload-file", required_argument, NULL, OPT_PRELOAD_FILE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    unsigned long long v;
    uint8_t family = 0;
    char err[RS_ERRBUF_SIZE];
    int c;

    optind = 1;
    while ((c = cli_getopt("replay", argc, argv, "r:i:x:w:h", longopts, usage)) != CLI_OPT_END) {
        switch (c) {
        case 'r':
            ro->file = optarg;
            break;
        case OPT_CONV:
            if (!cli_parse_uint(optarg, 1, UINT32_MAX, &v))
                return cli_fail(CLI_EXIT_USAGE, "replay: --conv %s: expected an id from 1",
                                optarg);
            ro->pick.conv = (uint32_t)v;
            break;
        case OPT_QP:
            if (!cli_parse_uint(optarg, 0, 0xffffff, &v))
                return cli_fail(CLI_EXIT_USAGE, "replay: --qp %s: expected a QPN (24 bits)",
                                optarg);
            ro->pick.by_qp = true;
            ro->pick.qp = (uint32_t)v;
            break;
        case OPT_SIDE:
            if (strcmp(optarg, "requester") != 0 && strcmp(optarg, "responder") != 0)
                return cli_fail(CLI_EXIT_USAGE, "replay: --side %s: requester or responder",
                                optarg);
            ro->side_responder = strcmp(optarg, "responder") == 0;
            break;
        case OPT_LISTEN:
            if (!cli_parse_uint(optarg, 1, 65535, &v))
                return cli_fail(CLI_EXIT_USAGE, "replay: --listen %s: expected a TCP port",
                                optarg);
            ro->listen = (uint16_t)v;
            break;
        case OPT_SRC:
            if (parse_ip("--bind", optarg, &family, ro->rw.src) != 0)
                return CLI_EXIT_USAGE;
            ro->rw.set_src = true;
            ro->rw.family = family;
            break;
        case OPT_TARGET:
            if (parse_target(optarg, ro) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_DST:
            if (parse_ip("--dst", optarg, &family, ro->rw.dst) != 0)
                return CLI_EXIT_USAGE;
            ro->rw.set_dst = true;
            ro->have_dst = true;
            ro->dst_family = family;
            break;
        case OPT_QPMAP:
        case OPT_RKEYMAP: {
            bool qp = c == OPT_QPMAP;
            if (rs_replay_map_add(qp ? ro->rw.qpmap : ro->rw.rkeymap,
                                  qp ? &ro->rw.n_qpmap : &ro->rw.n_rkeymap, optarg,
                                  qp ? 0xffffff : UINT32_MAX, err) != 0)
                return cli_fail(CLI_EXIT_USAGE, "replay: %s %s: %s", qp ? "--qpmap" :
                                "--rkey-map", optarg, err);
            break;
        }
        case OPT_PSN_OFFSET:
            if (!cli_parse_uint(optarg, 0, 0xffffff, &v))
                return cli_fail(CLI_EXIT_USAGE, "replay: --psn-offset %s: expected 0 to "
                                "0xffffff", optarg);
            ro->rw.psn_offset = (uint32_t)v;
            break;
        case OPT_VA_OFFSET:
            /* Signed: the target's region may lie below the capture's. VAs are added
             * to modulo 2^64, so a negative offset is its two's complement. */
            if (!cli_parse_uint(optarg + (optarg[0] == '-'), 0, UINT64_MAX, &v))
                return cli_fail(CLI_EXIT_USAGE, "replay: --va-offset %s: expected a number, "
                                "negative or not", optarg);
            ro->rw.va_offset = optarg[0] == '-' ? 0 - (uint64_t)v : v;
            ro->have_va_offset = true;
            break;
        case OPT_PKEY:
            if (!cli_parse_uint(optarg, 0, 0xffff, &v))
                return cli_fail(CLI_EXIT_USAGE, "replay: --pkey %s: expected 0 to 0xffff",
                                optarg);
            ro->rw.set_pkey = true;
            ro->rw.pkey = (uint16_t)v;
            break;
        case OPT_SPORT:
            if (!cli_parse_uint(optarg, 1, 65535, &v))
                return cli_fail(CLI_EXIT_USAGE, "replay: --sport %s: expected 1 to 65535",
                                optarg);
            ro->rw.set_sport = true;
            ro->rw.sport = (uint16_t)v;
            break;
        case OPT_KEEP_ICRC:
            ro->rw.keep_icrc = true;
            break;
        case 'i':
            ro->run.iface = optarg;
            break;
        case OPT_CAPTURE_IFACE:
            ro->run.capture_iface = optarg;
            break;
        case 'x': {
            char *end;
            ro->run.speed = strtod(optarg, &end);
            if (*end != '\0' || !(ro->run.speed > 0 && ro->run.speed < 1e6))
                return cli_fail(CLI_EXIT_USAGE, "replay: -x %s: expected a multiplier above 0",
                                optarg);
            break;
        }
        case OPT_PPS:
            if (!cli_parse_uint(optarg, 1, 1000000000, &v))
                return cli_fail(CLI_EXIT_USAGE, "replay: --pps %s: expected 1 or more", optarg);
            ro->run.pps = v;
            break;
        case OPT_TOPSPEED:
            ro->run.topspeed = true;
            break;
        case OPT_LOOP:
            if (!cli_parse_uint(optarg, 1, 1000000, &v))
                return cli_fail(CLI_EXIT_USAGE, "replay: --loop %s: expected 1 or more",
                                optarg);
            ro->run.loop = (uint32_t)v;
            break;
        case OPT_NO_VALIDATE:
            ro->validate = false;
            break;
        case 'V':
            ro->validate = true;
            break;
        case OPT_PAYLOADS:
            ro->payloads = true;
            break;
        case OPT_LENIENT:
            if (strcmp(optarg, "rnr") != 0)
                return cli_fail(CLI_EXIT_USAGE, "replay: --lenient %s: only rnr is known",
                                optarg);
            ro->lenient_rnr = true;
            break;
        case OPT_LINGER:
            if (!cli_parse_uint(optarg, 1, 600000, &v))
                return cli_fail(CLI_EXIT_USAGE, "replay: --linger %s: expected milliseconds",
                                optarg);
            ro->run.linger_ns = v * 1000000ull;
            break;
        case OPT_UNTIL_ANSWERED:
            ro->run.until_answered = true;
            break;
        case 'w':
            ro->run.write = optarg;
            break;
        case OPT_TAP:
            ro->tap = true;
            break;
        case OPT_DIFF:
            ro->diff = true;
            break;
        case OPT_PRELOAD_FILE:
            ro->preload_file = optarg;
            /* fall through */
        case OPT_PRELOAD:
            ro->preload = true;
            ro->payloads = true;
            break;
        case OPT_JUNIT:
            ro->junit = optarg;
            break;
        case OPT_PACKETS:
            ro->messages = false;
            break;
        case OPT_MESSAGES:
            ro->messages = true;
            break;
        case CLI_OPT_HELP:
            return -1;
        default:    /* CLI_OPT_BAD */
            return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc)
        return cli_fail(CLI_EXIT_USAGE, "replay: %s: unexpected argument", argv[optind]);
    if (ro->file == NULL)
        return cli_fail(CLI_EXIT_USAGE, "replay: give the capture: -r FILE");
    if (ro->run.until_answered && (ro->messages || ro->side_responder))
        return cli_fail(CLI_EXIT_USAGE, "replay: --until-answered goes with packets mode, "
                        "not %s", ro->messages ? "--messages" : "--side responder");
    return 0;
}

