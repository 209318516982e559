/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read_prefs.c - the arguments of read's options that have a little language of their
 * own: -o preferences, -E, -a, -O, -j/-J, --disable-protocol.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "read_int.h"

#include <roceshark/dissectors/fields.h>

/* "/t" is a tab, "/s" a space, anything else its first character. */
static char
separator_char(const char *v)
{
    if (strcmp(v, "/t") == 0)
        return '\t';
    if (strcmp(v, "/s") == 0)
        return ' ';
    return v[0];
}

int
read_parse_fields_option(const char *arg, struct rs_fields_fmt *fmt)
{
    const char *eq = strchr(arg, '=');

    if (eq == NULL || eq[1] == '\0')
        return cli_fail(CLI_EXIT_USAGE, "-E %s: expected name=value", arg);
    size_t klen = (size_t)(eq - arg);
    const char *v = eq + 1;
    if (strncmp(arg, "header", klen) == 0 && klen == 6) {
        if (strcmp(v, "y") != 0 && strcmp(v, "n") != 0)
            return cli_fail(CLI_EXIT_USAGE, "-E %s: header takes y or n", arg);
        fmt->header = v[0] == 'y';
    } else if (strncmp(arg, "separator", klen) == 0 && klen == 9) {
        fmt->separator = separator_char(v);
    } else if (strncmp(arg, "aggregator", klen) == 0 && klen == 10) {
        fmt->aggregator = separator_char(v);
    } else if (strncmp(arg, "occurrence", klen) == 0 && klen == 10) {
        if (strcmp(v, "a") != 0 && strcmp(v, "f") != 0 && strcmp(v, "l") != 0)
            return cli_fail(CLI_EXIT_USAGE, "-E %s: occurrence takes a, f or l", arg);
        fmt->occurrence = v[0];
    } else if (strncmp(arg, "quote", klen) == 0 && klen == 5) {
        if (strcmp(v, "d") != 0 && strcmp(v, "s") != 0 && strcmp(v, "n") != 0)
            return cli_fail(CLI_EXIT_USAGE, "-E %s: quote takes d, s or n", arg);
        fmt->quote = v[0] == 'd' ? '"' : v[0] == 's' ? '\'' : 0;
    } else if (strncmp(arg, "bom", klen) == 0 && klen == 3) {
        if (strcmp(v, "y") != 0 && strcmp(v, "n") != 0)
            return cli_fail(CLI_EXIT_USAGE, "-E %s: bom takes y or n", arg);
        fmt->bom = v[0] == 'y';
    } else {
        return cli_fail(CLI_EXIT_USAGE, "-E %s: unknown option (header, separator, "
                        "aggregator, occurrence, quote, bom)", arg);
    }
    return 0;
}

static int
parse_iwarp_pref(const char *arg, struct rs_iwarp_opts *o)
{
    unsigned long long v;

    if (strncmp(arg, "iwarp.buffer:", 13) == 0) {
        if (!cli_parse_uint(arg + 13, 131072, 1u << 30, &v))
            return cli_fail(CLI_EXIT_USAGE, "-o %s: expected 131072 to %u octets", arg, 1u << 30);
        o->max_buffer = (uint32_t)v;
    } else if (strncmp(arg, "iwarp.memory:", 13) == 0) {
        if (!cli_parse_uint(arg + 13, 131072, 1ull << 40, &v))
            return cli_fail(CLI_EXIT_USAGE, "-o %s: expected 131072 to %llu octets", arg,
                            1ull << 40);
        o->max_memory = v;
    } else if (strncmp(arg, "iwarp.max_conns:", 16) == 0) {
        if (!cli_parse_uint(arg + 16, 1, 1u << 26, &v))
            return cli_fail(CLI_EXIT_USAGE, "-o %s: expected 1 to %u connections", arg,
                            1u << 26);
        o->max_conns = (uint32_t)v;
    } else if (strcmp(arg, "iwarp.heuristics:off") == 0 ||
               strcmp(arg, "iwarp.heuristics:on") == 0) {
        o->heuristics = arg[17] == 'n';
    } else {
        return cli_fail(CLI_EXIT_USAGE, "-o %s: unknown iWARP preference (iwarp.buffer:N, "
                        "iwarp.memory:N, iwarp.max_conns:N, iwarp.heuristics:on|off)", arg);
    }
    return 0;
}

int
read_parse_pref(const char *arg, struct read_opts *ro)
{
    unsigned long long v;
    int rc;
    /* roceshark.pmtu is the plugin's name for the same preference. */
    const char *pmtu = strncmp(arg, "rc.pmtu:", 8) == 0           ? arg + 8
                       : strncmp(arg, "roceshark.pmtu:", 15) == 0 ? arg + 15
                                                                  : NULL;

    if (pmtu != NULL) {
        if (!cli_parse_uint(pmtu, 256, 4096, &v) || (v & (v - 1)) != 0)
            return cli_fail(CLI_EXIT_USAGE, "-o %s: the PMTU is 256, 512, 1024, 2048 or 4096",
                            arg);
        ro->pipe.analysis.pmtu = (uint16_t)v;
    } else if (strncmp(arg, "analysis.max_convs:", 19) == 0) {
        if (!cli_parse_uint(arg + 19, 1, 1u << 26, &v))
            return cli_fail(CLI_EXIT_USAGE, "-o %s: expected 1 to %u conversations", arg,
                            1u << 26);
        ro->pipe.analysis.max_convs = (uint32_t)v;
    } else if (strcmp(arg, "analysis:off") == 0 || strcmp(arg, "analysis:on") == 0) {
        ro->pipe.analyze = arg[10] == 'n';
    } else if (strncmp(arg, "tcp_reassembly.message:", 23) == 0) {
        if (!cli_parse_uint(arg + 23, 1024, 1u << 30, &v))
            return cli_fail(CLI_EXIT_USAGE, "-o %s: expected 1024 to %u bytes", arg, 1u << 30);
        ro->pipe.streams_opts.max_pdu_bytes = (uint32_t)v;
    } else if (strncmp(arg, "tcp_reassembly.memory:", 22) == 0) {
        if (!cli_parse_uint(arg + 22, 1024, 1ull << 40, &v))
            return cli_fail(CLI_EXIT_USAGE, "-o %s: expected 1024 to %llu bytes", arg,
                            1ull << 40);
        ro->pipe.streams_opts.max_pdu_memory = v;
    } else if (strncmp(arg, "iwarp.", 6) == 0) {
        return parse_iwarp_pref(arg, &ro->pipe.iwarp);
    } else if (strcmp(arg, "roceshark.info:tshark") == 0 ||
               strcmp(arg, "roceshark.info:roceshark") == 0) {
        ro->display.info_tshark = arg[15] == 't';
    } else if (strncmp(arg, "compat:", 7) == 0) {
        if (strcmp(arg + 7, "4.0") == 0)
            ro->style = RS_STYLE_TSHARK_4_0;
        else if (strcmp(arg + 7, "4.4") == 0 || strcmp(arg + 7, "4.6") == 0)
            ro->style = RS_STYLE_TSHARK_4_4;
        else
            return cli_fail(CLI_EXIT_USAGE, "-o %s: expected compat:4.0, compat:4.4 or "
                            "compat:4.6", arg);
        /* tshark 4.4 numbers a SYN after a reset or both FINs as a new TCP stream, and
         * reads an echo's timestamp as a 16-byte timeval first (RS_PKT_ICMP_4_4) */
        ro->pipe.streams_opts.restart_after_close = ro->style != RS_STYLE_TSHARK_4_0;
        ro->pipe.decode.icmp_4_4 = ro->style != RS_STYLE_TSHARK_4_0;
    } else if ((rc = read_tshark_pref(arg, ro)) >= 0) {
        return rc;
    } else {
        return cli_fail(CLI_EXIT_USAGE, "-o %s: unknown preference (tshark's of the "
                        "protocols read dissects, rc.pmtu:N, "
                        "analysis.max_convs:N, analysis:on|off, tcp_reassembly.message:N, "
                        "tcp_reassembly.memory:N, iwarp.buffer:N, "
                        "iwarp.memory:N, iwarp.max_conns:N, iwarp.heuristics:on|off, "
                        "compat:4.0|4.4|4.6)", arg);
    }
    return 0;
}

/* -c N and -a packets:N: the smaller count wins. */
void
read_limit_count(struct read_opts *ro, unsigned long long n)
{
    ro->count = ro->count == 0 || n < ro->count ? n : ro->count;
}

int
read_parse_autostop(const char *arg, struct read_opts *ro)
{
    unsigned long long v;

    if (cli_parse_kv(arg, "packets", ~0ull, &v))
        read_limit_count(ro, v);
    else if (cli_parse_kv(arg, "duration", 1ull << 31, &v))
        ro->stop_seconds = v;
    else if (cli_parse_kv(arg, "filesize", 1ull << 40, &v))
        ro->stop_bytes = v * 1000;
    else
        return cli_fail(CLI_EXIT_USAGE, "-a %s: expected packets:N, duration:S or "
                        "filesize:KB", arg);
    return 0;
}

/* -O a,b: the list is split in a copy of the argument, which the options keep. */
int
read_parse_expand(const char *arg, struct read_opts *ro)
{
    char *copy = strdup(arg), *save = NULL;

    if (copy == NULL)
        return cli_fail(CLI_EXIT_INTERNAL, "out of memory");
    free(ro->expand_list);
    ro->expand_list = copy;
    ro->n_expand = 0;
    for (char *p = strtok_r(copy, ",", &save); p != NULL; p = strtok_r(NULL, ",", &save)) {
        if (ro->n_expand == MAX_EXPANDED)
            return cli_fail(CLI_EXIT_USAGE, "-O: at most %d protocols", MAX_EXPANDED);
        ro->expand[ro->n_expand++] = p;
    }
    if (ro->n_expand == 0)
        return cli_fail(CLI_EXIT_USAGE, "-O %s: expected PROTO[,PROTO...]", arg);
    return 0;
}

/* tshark accepts any protocol name and turns off those it has. The protocols we decode
 * past the transport layer can be turned off; a name we never decode is off already,
 * but one of ours that cannot be is refused rather than silently kept. */
int
read_parse_protocol_switch(const char *arg, bool on, struct read_opts *ro)
{
    const char *opt = on ? "--enable-protocol" : "--disable-protocol";

    if (strcmp(arg, "infiniband") == 0)
        ro->pipe.decode.disable_infiniband = !on;
    else if (strcmp(arg, "iwarp_mpa") == 0 || strcmp(arg, "iwarp_ddp_rdmap") == 0)
        ro->iwarp_protocol_off = !on;
    else if (!on && rs_field_lookup(arg) >= 0)
        return cli_fail(CLI_EXIT_USAGE, "%s %s: only infiniband, iwarp_mpa and "
                        "iwarp_ddp_rdmap can be turned off", opt, arg);
    ro->pipe.decode.disable_iwarp = ro->iwarp_protocol_off || ro->iwarp_heuristic_off;
    return 0;
}

/* tshark's heuristic dissectors that are ours too: iwarp_mpa_tcp finds MPA on TCP (off, no
 * iWARP is decoded: TCP and its data, as tshark shows it), eth_over_ib IPoIB in a native IB
 * payload. Both are on by default, and tshark applies --disable-heuristic after
 * --enable-heuristic whatever their order: enabling changes nothing. The other names decode
 * what we do not (SMB Direct, RPC-over-RDMA, ...): known (read_heuristic_known()), no effect. */
void
read_heuristic_switch(const char *name, bool on, struct read_opts *ro)
{
    if (on)
        return;
    if (strcmp(name, "iwarp_mpa_tcp") == 0) {
        ro->iwarp_heuristic_off = true;
        ro->pipe.decode.disable_iwarp = true;
    } else if (strcmp(name, "eth_over_ib") == 0) {
        ro->pipe.decode.disable_ipoib = true;
    }
}

/* -j/-J "ip ip.flags": the names, split at spaces; given again, the last list counts. */
int
read_parse_protos(const char *arg, bool whole, struct read_opts *ro)
{
    free(ro->protos_text);
    ro->protos_text = strdup(arg);
    if (ro->protos_text == NULL)
        return cli_fail(CLI_EXIT_USAGE, "-%c: out of memory", whole ? 'J' : 'j');
    ro->json.n_protos = 0;
    ro->json.protos = ro->protos;
    ro->json.protos_whole = whole;
    char *save = NULL;
    for (char *w = strtok_r(ro->protos_text, " ", &save); w != NULL;
         w = strtok_r(NULL, " ", &save)) {
        if (ro->json.n_protos == MAX_PROTOS)
            return cli_fail(CLI_EXIT_USAGE, "-%c: at most %d names", whole ? 'J' : 'j',
                            MAX_PROTOS);
        ro->protos[ro->json.n_protos++] = w;
    }
    if (ro->json.n_protos == 0)
        return cli_fail(CLI_EXIT_USAGE, "-%c: expected protocol or field names",
                        whole ? 'J' : 'j');
    return 0;
}
