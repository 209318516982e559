/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_replay.c - `roceshark replay`: the options and the wiring; the trace,
 * the rewriting, the run and the comparison are replay/.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/inject/inject.h>
#include <roceshark/transport/rc.h>
#include <roceshark/replay/replay.h>

#include "cli.h"

#define SIDE_PORT 18515

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
    OPT_PRELOAD_FILE
};

struct replay_opts {
    const char *file, *junit, *preload_file;
    struct rs_replay_pick pick;
    struct rs_replay_rewrite rw;
    struct rs_replay_run_opts run;
    bool have_target, have_dst, have_va_offset, validate, tap, lenient_rnr, payloads;
    bool messages, side_responder, diff, preload;
    uint16_t listen;
    uint8_t target[16], dst_family;     /* target: --target's address as a GID */
    uint32_t target_scope;
    uint16_t target_port;
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

static int
parse_args(struct replay_opts *ro, int argc, char **argv)
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
    return 0;
}

/* What --target's side channel says of the target, announcing us at --bind. */
static int
learn(const struct replay_opts *ro, const struct rs_replay_trace *t, struct rs_replay_target *tg,
      char *err)
{
    uint8_t src[16];

    rs_addr_from_ip(ro->rw.family, ro->rw.src, src);
    return rs_replay_learn(t, src, ro->target, ro->target_scope, ro->target_port, tg, err);
}

/* What a target needs that the options must give once a conversation is picked. */
static int
check_target(const struct replay_opts *ro, const struct rs_replay_trace *t)
{
    if (!ro->rw.set_src)
        return cli_fail(CLI_EXIT_USAGE, "replay: give our address: --bind IP");
    if (ro->side_responder) {
        if (ro->have_target || ro->have_dst)
            return cli_fail(CLI_EXIT_USAGE, "replay: --side responder waits for the "
                            "requester: no --target or --dst");
        return 0;
    }
    if (!ro->have_target && !ro->have_dst)
        return cli_fail(CLI_EXIT_USAGE, "replay: give the target: --target IP[:PORT] or "
                        "--dst IP");
    if (ro->have_target && ro->have_dst)
        return cli_fail(CLI_EXIT_USAGE, "replay: --target and --dst both name the target");
    if (ro->dst_family != ro->rw.family)
        return cli_fail(CLI_EXIT_USAGE, "replay: --bind is IPv%u and --%s IPv%u",
                        ro->rw.family, ro->have_dst ? "dst" : "target", ro->dst_family);
    if ((ro->messages || ro->preload) && !ro->have_target)
        return cli_fail(CLI_EXIT_USAGE, "replay: %s connects our requester to the target: "
                        "give --target IP[:PORT]", ro->messages ? "--messages" : "--preload");
    if (ro->messages && ro->run.iface != NULL)
        return cli_fail(CLI_EXIT_USAGE, "replay: --messages sends from our RC transport's "
                        "UDP port, not with -i");
    if (t->conv.family != 0 && t->conv.family != ro->rw.family)
        return cli_fail(CLI_EXIT_USAGE, "replay: the conversation is IPv%u, --bind IPv%u",
                        t->conv.family, ro->rw.family);
    return 0;
}

/* -i: frames leave with the interface's MAC, to the neighbour's for the target (when the
 * kernel knows it; else the captured one stays). */
static int
iface_macs(struct replay_opts *ro)
{
    char err[RS_ERRBUF_SIZE];

    if (!ro->rw.set_eth_src) {
        if (rs_inject_iface_mac(ro->run.iface, ro->rw.eth_src, err) != 0)
            return cli_fail(CLI_EXIT_CAPTURE, "replay: -i %s", err);
        ro->rw.set_eth_src = true;
    }
    if (!ro->rw.set_eth_dst &&
        rs_inject_neighbour_mac(ro->run.iface, ro->rw.family, ro->rw.dst, ro->rw.eth_dst,
                                err) == 0)
        ro->rw.set_eth_dst = true;
    return 0;
}

static void
describe(const struct rs_replay_trace *t, const struct replay_opts *ro,
         const struct rs_replay_target *tg)
{
    char a[RS_ADDR_TEXT_MAX], b[RS_ADDR_TEXT_MAX], d[RS_ADDR_TEXT_MAX];
    uint8_t gid[16];

    rs_addr_from_ip(t->conv.family, t->conv.requester, gid);
    rs_addr_format(gid, 0, a, sizeof(a));
    rs_addr_from_ip(t->conv.family, t->conv.responder, gid);
    rs_addr_format(gid, 0, b, sizeof(b));
    rs_addr_from_ip(ro->rw.family, ro->side_responder ? ro->rw.src : ro->rw.dst, gid);
    rs_addr_format(gid, 0, d, sizeof(d));
    printf("replay: conversation %u, %s:0x%06x -> %s:0x%06x, %u requests and %u responses; "
           "%s %s", t->conv.id, a, t->conv.requester_qp & 0xffffff, b,
           t->conv.responder_qp & 0xffffff, t->requests->len, t->responses->len,
           ro->side_responder ? "serving a requester at" : "target", d);
    if (ro->side_responder)
        printf(" (side channel port %u)", ro->listen);
    if (tg != NULL)
        printf(" QP 0x%06x R_Key 0x%08x VA 0x%llx PMTU %u", tg->qpn, tg->rkey,
               (unsigned long long)tg->va, tg->pmtu);
    printf("\n");
    fflush(stdout);
}

static int
validate(const struct replay_opts *ro, const struct rs_replay_trace *t,
         const struct rs_replay_target *tg, GArray *got, GByteArray *got_bytes)
{
    struct rs_replay_compare_opts co = {
        .lenient_rnr = ro->lenient_rnr, .payloads = ro->payloads, .messages = ro->messages,
        .first_psn = rs_replay_first_psn(t), .psn_offset = ro->rw.psn_offset,
        .psn_span = ro->run.psn_span, .trace_pmtu = t->conv.pmtu,
        .target_pmtu = tg != NULL ? (uint16_t)tg->pmtu : 0,
        .requests = (const struct rs_replay_frame *)(void *)t->requests->data,
        .n_requests = t->requests->len};
    struct rs_replay_result res;
    char err[RS_ERRBUF_SIZE];
    int rc = 0;

    const struct rs_replay_frame *g = (const struct rs_replay_frame *)(void *)got->data;
    if (ro->side_responder) {
        rs_replay_result_init(&res);
        rs_replay_compare_requests(ro->rw.psn_offset,
                                   (const struct rs_replay_frame *)(void *)t->requests->data,
                                   t->requests->len, g, got->len, &res);
        res.expected = t->requests->len;
        res.got = got->len;
    } else {
        rs_replay_compare(&co, (const struct rs_replay_frame *)(void *)t->responses->data,
                          t->responses->len, t->bytes->data, g, got->len, got_bytes->data,
                          ro->run.loop, &res);
    }
    if (ro->tap)
        rs_replay_print_tap(stdout, &res);
    else
        rs_replay_print(stdout, &res);
    if (ro->junit != NULL && rs_replay_write_junit(ro->junit, ro->file, &res, err) != 0)
        rc = cli_fail(CLI_EXIT_OUTPUT, "replay: --junit %s", err);
    if (rc == 0)
        rc = res.divergences->len > 0 ? CLI_EXIT_DIVERGED : CLI_EXIT_OK;
    rs_replay_result_free(&res);
    return rc;
}

/* --preload: WRITEs by our requester on a QP of their own, before the replay's. */
static int
preload(const struct replay_opts *ro, const struct rs_replay_trace *t,
        const struct rs_decode_opts *dopts)
{
    GArray *msgs = g_array_new(FALSE, FALSE, sizeof(struct rs_replay_msg));
    GByteArray *data = g_byte_array_new(), *none_bytes = g_byte_array_new();
    GArray *none = g_array_new(FALSE, FALSE, sizeof(struct rs_replay_frame));
    struct rs_replay_rewrite rw = ro->rw;
    struct rs_replay_run_opts quiet = {0};
    struct rs_replay_run_stats st;
    struct rs_replay_target tg = {.fd = -1};
    char err[RS_ERRBUF_SIZE];
    int rc = rs_replay_preload(t, ro->preload_file, msgs, data, err);

    if (rc != 0) {
        rc = cli_fail(rc == RS_EIO ? CLI_EXIT_INPUT : CLI_EXIT_USAGE, "replay: %s", err);
    } else if (learn(ro, t, &tg, err) != 0) {
        rc = cli_fail(CLI_EXIT_CAPTURE, "replay: --target: %s", err);
    } else {
        rs_replay_apply_target(t, &tg, ro->have_va_offset, &rw);
        quiet.loop = 1;
        rc = rs_replay_run_messages(t, msgs, data, &rw, &tg, &quiet, dopts, none, none_bytes,
                                    &st, err);
        if (rc != 0)
            rc = cli_fail(CLI_EXIT_CAPTURE, "replay: --preload: %s", err);
        else if (st.completed != msgs->len || st.failed != 0)
            rc = cli_fail(CLI_EXIT_CAPTURE, "replay: --preload: %llu of %u WRITEs completed, "
                          "%llu failed (%s): is the target's region large enough?",
                          (unsigned long long)st.completed, msgs->len,
                          (unsigned long long)st.failed,
                          st.failed != 0 ? rs_rc_wc_status_name(st.first_failure) : "none");
        else
            printf("replay: preloaded %u bytes in %u WRITEs\n", data->len, msgs->len);
    }
    rs_replay_target_release(&tg);
    g_array_free(msgs, TRUE);
    g_byte_array_free(data, TRUE);
    g_array_free(none, TRUE);
    g_byte_array_free(none_bytes, TRUE);
    return rc;
}

/* --messages: the trace's work, done by our requester (one pass). */
static int
run_messages(struct replay_opts *ro, const struct rs_replay_trace *t,
             const struct rs_replay_target *tg, const struct rs_decode_opts *dopts, GArray *got,
             GByteArray *got_bytes, struct rs_replay_run_stats *st, char *err)
{
    GArray *msgs = g_array_new(FALSE, FALSE, sizeof(struct rs_replay_msg));
    GByteArray *data = g_byte_array_new();
    int rc = rs_replay_messages(t, msgs, data, err);

    if (rc == 0) {
        printf("replay: %u messages, %u bytes of SEND and WRITE data\n", msgs->len, data->len);
        fflush(stdout);
        ro->run.loop = 1;
        rc = rs_replay_run_messages(t, msgs, data, &ro->rw, tg, &ro->run, dopts, got,
                                    got_bytes, st, err);
    }
    g_array_free(msgs, TRUE);
    g_byte_array_free(data, TRUE);
    return rc;
}

int
cmd_replay(int argc, char **argv)
{
    struct replay_opts ro;
    struct rs_replay_trace t;
    struct rs_replay_target tg = {.fd = -1}, *have_tg = NULL;
    struct rs_decode_opts dopts;
    char err[RS_ERRBUF_SIZE], iface[RS_IFACE_NAME_MAX];
    int rc;

    memset(&ro, 0, sizeof(ro));
    ro.validate = true;
    ro.run.loop = 1;
    ro.listen = SIDE_PORT;
    if ((rc = parse_args(&ro, argc, argv)) != 0)
        return rc < 0 ? CLI_EXIT_OK : rc;
    cli_catch_stop_signals();
    rs_decode_opts_init(&dopts);
    rc = rs_replay_trace_load(ro.file, &ro.pick, &dopts, stdout, &t, err);
    if (rc == RS_ENOENT)
        return cli_fail(CLI_EXIT_USAGE, "replay: %s", err);
    if (rc != 0)
        return cli_fail(CLI_EXIT_INPUT, "replay: %s", err);
    if ((rc = check_target(&ro, &t)) != 0)
        goto out;
    if (ro.preload && (rc = preload(&ro, &t, &dopts)) != 0)
        goto out;
    if (ro.have_target) {
        if (learn(&ro, &t, &tg, err) != 0) {
            rc = cli_fail(CLI_EXIT_CAPTURE, "replay: --target: %s", err);
            goto out;
        }
        rs_replay_apply_target(&t, &tg, ro.have_va_offset, &ro.rw);
        have_tg = &tg;
    }
    if (ro.run.capture_iface == NULL && (ro.validate || ro.run.write != NULL || ro.diff)) {
        if (rs_replay_iface_for(ro.rw.family, ro.rw.src, iface, sizeof(iface), err) != 0) {
            rc = cli_fail(CLI_EXIT_USAGE, "replay: %s: say where with --capture-iface", err);
            goto out;
        }
        ro.run.capture_iface = iface;
    }
    ro.rw.udp_socket = ro.run.iface == NULL;
    if (ro.run.iface != NULL && (rc = iface_macs(&ro)) != 0)
        goto out;
    if (!ro.rw.set_sport && t.requests->len != 0) {
        /* Over UDP every packet leaves from one port: the first request's. */
        const struct rs_replay_frame *f = &g_array_index(t.requests, struct rs_replay_frame, 0);
        ro.rw.sport = f->sport;
        ro.rw.set_sport = ro.rw.udp_socket;
    }
    ro.run.psn_span = rs_replay_psn_span(&t);
    ro.run.progress = isatty(STDERR_FILENO);
    describe(&t, &ro, have_tg);

    GArray *got = g_array_new(FALSE, FALSE, sizeof(struct rs_replay_frame));
    GByteArray *got_bytes = g_byte_array_new();
    if (ro.diff)
        ro.run.wire = g_array_new(FALSE, FALSE, sizeof(struct rs_replay_frame));
    struct rs_replay_run_stats st;
    if (ro.side_responder) {
        struct rs_replay_serve_opts so = {ro.listen, 60000000000ull, 5000000000ull};
        rc = rs_replay_serve(&t, &ro.rw, &so, &ro.run, &dopts, got, got_bytes, &st, err);
    } else if (ro.messages)
        rc = run_messages(&ro, &t, &tg, &dopts, got, got_bytes, &st, err);
    else
        rc = rs_replay_run_packets(&t, &ro.rw, &ro.run, &dopts, got, got_bytes, &st, err);
    if (rc != 0) {
        rc = cli_fail(rc == RS_EIO && ro.run.write != NULL && strstr(err, ro.run.write)
                      ? CLI_EXIT_OUTPUT : cli_exit_code(rc, CLI_EXIT_CAPTURE),
                      "replay: %s", err);
    } else {
        fprintf(stderr, "replay: %llu packets sent in %.3f s (%.0f a second)",
                (unsigned long long)st.sent, st.seconds,
                st.seconds > 0 ? (double)st.sent / st.seconds : 0.0);
        if (ro.run.capture_iface != NULL)
            fprintf(stderr, ", %llu frames captured on %s (%llu dropped)",
                    (unsigned long long)st.captured, ro.run.capture_iface,
                    (unsigned long long)st.capture_drops);
        fputc('\n', stderr);
        if (ro.diff)
            rs_replay_print_diff(stdout, &t, ro.run.wire, ro.rw.psn_offset);
        if (ro.validate)
            rc = validate(&ro, &t, have_tg, got, got_bytes);
    }
    g_array_free(got, TRUE);
    g_byte_array_free(got_bytes, TRUE);
    if (ro.run.wire != NULL)
        g_array_free(ro.run.wire, TRUE);
out:
    rs_replay_target_release(&tg);
    rs_replay_trace_free(&t);
    return rc;
}
