/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inject_packets.c - `roceshark inject`'s packets: the specs of the command line and -F,
 * the interface's addresses, the sender, the pacing.
 */
#include <math.h>
#include <time.h>
#include <unistd.h>

#include <roceshark/dissectors/addr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inject_cli.h"

/* The words of the command line, then (with -F) each line of the file on top of them. */
int
inject_read_packets(struct inject_opts *io, int argc, char **argv, int first)
{
    char err[RS_ERRBUF_SIZE], line[4096];
    struct rs_inject_packet *base = &io->pkts[0];

    rs_inject_packet_init(base);
    /* The words as one line, "command line:1:COL", with a value holding spaces (an
     * opcode's name) quoted again as it was typed. */
    size_t len = 0;
    line[0] = '\0';
    for (int i = first; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        int n = eq != NULL && strchr(argv[i], ' ') != NULL && strchr(argv[i], '(') == NULL &&
                        strchr(argv[i], '"') == NULL && strchr(eq + 1, '=') == NULL
                    ? snprintf(line + len, sizeof(line) - len, "%s%.*s\"%s\"", len ? " " : "",
                               (int)(eq - argv[i] + 1), argv[i], eq + 1)
                    : snprintf(line + len, sizeof(line) - len, "%s%s", len ? " " : "", argv[i]);
        if (n < 0 || (size_t)n >= sizeof(line) - len)
            return cli_fail(CLI_EXIT_USAGE, "inject: the packet spec is longer than %zu "
                            "characters", sizeof(line) - 1);
        len += (size_t)n;
    }
    if (rs_inject_spec_parse(base, line, "command line", 1, err) != 0)
        return cli_fail(CLI_EXIT_USAGE, "inject: %s", err);
    if (io->spec_file == NULL) {
        io->n_pkts = 1;
        return 0;
    }
    FILE *f = strcmp(io->spec_file, "-") == 0 ? stdin : fopen(io->spec_file, "r");
    if (f == NULL)
        return cli_fail(CLI_EXIT_INPUT, "inject: %s: %m", io->spec_file);
    unsigned n = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
        n++;
        line[strcspn(line, "\n")] = '\0';
        const char *p = line + strspn(line, " \t");
        if (*p == '\0' || *p == '#')
            continue;
        if (io->n_pkts + 1 >= MAX_TEMPLATES) {
            rc = cli_fail(CLI_EXIT_USAGE, "inject: %s:%u:1: more than %d packet specs",
                          io->spec_file, n, MAX_TEMPLATES - 1);
            break;
        }
        struct rs_inject_packet *pk = &io->pkts[1 + io->n_pkts];
        *pk = *base;
        if (rs_inject_spec_parse(pk, line, io->spec_file, n, err) != 0)
            rc = cli_fail(CLI_EXIT_USAGE, "inject: %s", err);
        else
            io->n_pkts++;
    }
    if (f != stdin)
        fclose(f);
    if (rc == 0 && io->n_pkts == 0)
        rc = cli_fail(CLI_EXIT_USAGE, "inject: %s: no packet spec in the file", io->spec_file);
    /* The file's packets follow the base in the array; shift them down. */
    if (rc == 0)
        memmove(&io->pkts[0], &io->pkts[1], io->n_pkts * sizeof(io->pkts[0]));
    return rc;
}

/* -i: the interface's MAC and the neighbour's, where the spec did not give them. */
int
inject_iface_macs(const struct inject_opts *io)
{
    char err[RS_ERRBUF_SIZE];

    for (size_t i = 0; i < io->n_pkts; i++) {
        struct rs_inject_packet *p = &io->pkts[i];
        if (p->encap == RS_INJECT_IB)
            continue;
        if (!(p->given & RS_INJECT_GAVE_ETH_SRC) &&
            rs_inject_iface_mac(io->iface, p->eth_src, err) != 0)
            return cli_fail(CLI_EXIT_CAPTURE, "inject: -i %s", err);
        if (p->given & RS_INJECT_GAVE_ETH_DST)
            continue;
        /* RoCEv2: the IP destination; RoCEv1: the DGID (IPv4-mapped or IPv6). */
        uint8_t gid[16];
        if (p->encap == RS_INJECT_ROCEV1)
            memcpy(gid, p->grh.dgid, 16);
        else
            rs_addr_from_ip(p->route.family, p->route.dst, gid);
        uint8_t family = rs_addr_family(gid);
        const uint8_t *ip = family == 4 ? gid + 12 : gid;
        int rc = rs_inject_neighbour_mac(io->iface, family, ip, p->eth_dst, err);
        if (rc == RS_ENOENT) {
            char addr[RS_ADDR_TEXT_MAX];
            rs_addr_format(gid, 0, addr, sizeof(addr));
            return cli_fail(CLI_EXIT_CAPTURE, "inject: -i %s: no neighbour entry for %s (ping "
                            "it first, or give eth.dst)", io->iface, addr);
        }
        if (rc != 0)
            return cli_fail(CLI_EXIT_CAPTURE, "inject: -i %s", err);
    }
    return 0;
}

int
inject_open_sender(const struct inject_opts *io, struct rs_inject_sender **s)
{
    char err[RS_ERRBUF_SIZE];
    bool ib = io->pkts[0].encap == RS_INJECT_IB;

    if (io->udp) {
        const struct rs_inject_packet *p = &io->pkts[0];
        if (rs_inject_open_udp(p->route.family, p->route.src, p->route.sport, s, err) != 0)
            return cli_fail(CLI_EXIT_CAPTURE, "inject: --udp: %s", err);
        return 0;
    }
    if (io->iface != NULL) {
        if (rs_inject_open_iface(io->iface, s, err) != 0)
            return cli_fail(CLI_EXIT_CAPTURE, "inject: -i %s", err);
        return 0;
    }
    for (size_t i = 1; i < io->n_pkts; i++)
        if ((io->pkts[i].encap == RS_INJECT_IB) != ib)
            return cli_fail(CLI_EXIT_USAGE, "inject: -w: native InfiniBand packets go in a "
                            "file of their own (ERF type 21), not with Ethernet frames");
    if (rs_inject_open_file(io->file, io->pcapng ? RS_INJECT_PCAPNG : RS_INJECT_PCAP, ib, s,
                            err) != 0)
        return cli_fail(CLI_EXIT_OUTPUT, "inject: -w %s", err);
    return 0;
}


/* Waits until the packet of len bytes is due, then moves the due time on. */
void
inject_pace(struct pacer *pc, const struct inject_opts *io, uint32_t len)
{
    if (!pc->on)
        return;
    double now = cli_seconds_since(&pc->t0) * 1e9;
    if (pc->due_ns > now + 20000) {
        double wait = pc->due_ns - now;
        struct timespec ts = {(time_t)(wait / 1e9), (long)fmod(wait, 1e9)};
        nanosleep(&ts, NULL);
    }
    if (io->pps != 0)
        pc->due_ns += 1e9 / (double)io->pps;
    else if (io->mbps > 0)
        pc->due_ns += (double)len * 8.0 * 1000.0 / io->mbps;
    else
        pc->due_ns += (double)io->gap_us * 1000.0;
}

