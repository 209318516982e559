/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_read.c - `roceshark read`: decode frames from a capture and print
 * them as summary lines, a full tree, JSON or selected fields.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/filter.h>
#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/pipeline.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/dissectors/stats.h>

#include "cli.h"
#include "read_int.h"

#define MAX_FIELDS_ARGS 1024
#define MAX_EXPANDED 64         /* -O protocols */
/* -a duration on a live read: how often an idle source comes back to look at the clock. */
#define AUTOSTOP_IDLE_MS 100
#define MAX_STATS 16
#define MAX_PROTOS 64
#define OUT_BUFFER_SIZE (1u << 20)
/* A filter's text (-Y, -z io,stat) is echoed in its error up to this many
 * characters: the message names the position, and a generated filter can
 * be megabytes. */
#define FILTER_ECHO_MAX 60

enum read_format { FORMAT_TEXT, FORMAT_TREE, FORMAT_JSON, FORMAT_JSONRAW, FORMAT_EK,
                   FORMAT_JSONFLAT, FORMAT_FIELDS, FORMAT_PSML, FORMAT_PDML };

#define MAX_FILES 256

struct read_opts {
    const char *file;                   /* -r: the first, or the one */
    const char *files[MAX_FILES];       /* every -r, merged in time order */
    size_t n_files;
    const char *iface;                  /* -i: live decoding */
    struct rs_live_opts live;
    unsigned long long count;           /* 0: all */
    enum read_format format;
    bool verbose;
    bool hex;                           /* -x: the bytes after each frame */
    bool summary;                       /* -P: the summary line too (with -V or -x) */
    uint8_t time_col;                   /* -t: enum rs_time_col */
    bool line_buffered;
    const char *field_names[MAX_FIELDS_ARGS];
    int field_ids[MAX_FIELDS_ARGS];
    size_t n_fields;
    struct rs_fields_fmt fields_fmt;
    struct rs_json_opts json;           /* -T json, jsonraw, ek: -x, -j/-J, -e */
    char *protos_text;                  /* -j/-J's list, split in place */
    const char *protos[MAX_PROTOS];
    struct rs_pipeline_opts pipe;       /* -d, -o, -Y */
    bool iwarp_stats;                   /* -z iwarp */
    struct rs_stat *stats[MAX_STATS];
    const char *stat_specs[MAX_STATS];  /* their -z arguments */
    size_t n_stats;
    bool quiet;
    unsigned long long shown;           /* frames printed */
    enum rs_value_style style;          /* -o compat: */
    const char *write_path;             /* -w */
    enum read_save_format write_format; /* -F */
    const char *separator;              /* -S */
    const char *expand[MAX_EXPANDED];   /* -O */
    size_t n_expand;
    char *expand_list;                  /* -O's argument, split in place */
    bool two_pass;                      /* -2 */
    const char *read_filter;            /* -R */
    struct read_pass pass;
    unsigned long long stop_seconds;    /* -a duration: (live) */
    uint64_t stop_bytes;                /* -a filesize: (with -w) */
    const char *glossary;               /* -G */
    struct rs_display display;          /* -n, -N, --compat, -o roceshark.info: */
    unsigned threads;                   /* --threads; 0 until given */
};

enum read_long_option { OPT_DISABLE_PROTOCOL = 0x100, OPT_ENABLE_PROTOCOL, OPT_NO_DUPLICATE_KEYS,
                        OPT_COMPAT, OPT_THREADS };

static const char read_usage[] =
    "usage: roceshark read -r FILE | -i IFACE [options]\n"
    "  -r FILE          capture to read (pcap or pcapng; '-' for standard input); given\n"
    "                   again, the files are read as one, in time order (as mergecap\n"
    "                   merges them)\n"
    "  -i IFACE         decode live traffic of a network interface (SIGINT stops)\n"
    "  -f BPF           with -i: capture filter replacing the default RDMA one\n"
    "  -s SNAPLEN, -B MiB, -p\n"
    "                   with -i: as for 'roceshark capture'\n"
    "  -c N             stop after reading N frames (shown or not, as tshark)\n"
    "  -a packets:N     the same; -a duration:S stops a live read (-i) after S seconds,\n"
    "                   -a filesize:KB once -w's file holds KB kB (1 kB = 1000 bytes)\n"
    "  -w FILE          write the frames that pass -Y (and -R, -c) to FILE ('-': standard\n"
    "                   output), with their link types and times. Summary lines are then\n"
    "                   printed only with -P; -V, -O, -x, -T and -z print as usual (but\n"
    "                   not with -w -)\n"
    "  -F pcap|pcapng   -w's format (default: pcapng for a pcapng input, else pcap; a\n"
    "                   pcap file holds one link type)\n"
    "  -V               print the full tree of every frame\n"
    "  -O PROTO[,PROTO] the tree with only these protocols expanded (frame, eth, ip,\n"
    "                   udp, tcp, infiniband, iwarp_mpa, iwarp_ddp_rdmap, roceshark ...)\n"
    "  -S SEPARATOR     with -V, -O or -x: the line that ends each frame (default empty)\n"
    "  -2 [-R FILTER]   two passes; with -R, the first keeps only the frames the read\n"
    "                   filter takes, and the second decodes those alone, numbered from 1\n"
    "  -G fields|protocols|values\n"
    "                   list the fields, protocols or value names as tshark -G does\n"
    "  --disable-protocol PROTO, --enable-protocol PROTO\n"
    "                   infiniband (RoCE and IB payloads stay UDP or link data),\n"
    "                   iwarp_mpa or iwarp_ddp_rdmap (TCP payloads stay undecoded: MPA,\n"
    "                   DDP and RDMAP go together); other protocols cannot be turned off\n"
    "  -x               print each frame's bytes in hex and ASCII (alone: only those);\n"
    "                   with -T json or ek: each field's bytes too, as name_raw\n"
    "  -P               with -V or -x: print the summary line too\n"
    "  -t r|a|ad|u|ud|e|d|dd\n"
    "                   the time column, as tshark's -t: relative (default), local time\n"
    "                   [and date], UTC time [and date], epoch, delta, delta shown\n"
    "  -T text|json|jsonraw|ek|jsonflat|fields|psml|pdml\n"
    "                   output format (default text: one summary line per frame; psml:\n"
    "                   its columns, pdml: the -V tree, in tshark's XML; json, jsonraw,\n"
    "                   ek: that tree in tshark's JSON, its bytes, Elasticsearch's bulk\n"
    "                   lines; jsonflat: one flat object per frame, keyed by field name)\n"
    "  -e FIELD         with -T fields or a JSON format: a field to print (repeatable)\n"
    "  -j PROTOS        with -T json, jsonraw, ek or pdml: write only the subtrees of these\n"
    "                   names (space-separated, as \"ip ip.dsfield\"; the others say\n"
    "                   \"filtered\")\n"
    "  -J PROTOS        the same, with everything below a name written\n"
    "  --no-duplicate-keys\n"
    "                   with -T json: a name met twice in an object becomes one array\n"
    "  -E header=y|n, separator=/t|/s|C, aggregator=,|/s|C, occurrence=a|f|l,\n"
    "     quote=d|s|n, bom=y|n\n"
    "                   with -T fields: layout, as tshark's -E\n"
    "  -Y FILTER        show only frames that match a display filter (Wireshark syntax;\n"
    "                   times in seconds, as frame.time_delta > 1.5e-3; '(' nests 100 deep)\n"
    "  -z conv,qp[,FILTER]\n"
    "                   per-conversation statistics (packets, messages, NAKs, READ times),\n"
    "                   with FILTER of the frames it takes\n"
    "  -z conv,TYPE[,FILTER], -z endpoints,TYPE[,FILTER]\n"
    "                   tshark's conversation and endpoint tables, TYPE eth, ip, ipv6,\n"
    "                   udp or tcp; FILTER counts only the frames it takes\n"
    "  -z expert        expert items by severity, with the first frames of each\n"
    "  -z io,phs[,FILTER] the protocol hierarchy, as tshark prints it\n"
    "  -z io,stat,INTERVAL[,FILTER]...\n"
    "                   frames and bytes per interval of seconds (0: the whole\n"
    "                   capture), per filter\n"
    "  -z iwarp         iWARP connections, FPDUs, bad CRCs, retransmissions, bytes lost,\n"
    "                   and the reassembly memory held against its bounds\n"
    "  -q               print only the statistics\n"
    "  -d udp.port==N,roce\n"
    "                   also decode UDP port N as RoCEv2 (repeatable)\n"
    "  -d tcp.port==N,iwarp\n"
    "                   decode TCP port N as iWARP even without an MPA exchange (repeatable);\n"
    "                   other TCP connections are iWARP when their MPA exchange or FPDUs show it\n"
    "  -o rc.pmtu:N     path MTU to assume until a conversation shows its own\n"
    "  -o analysis.max_convs:N\n"
    "                   conversations the analysis keeps at once (default 65536)\n"
    "  -o analysis:off  decode only, no transport analysis\n"
    "  -o iwarp.buffer:BYTES\n"
    "                   octets held per TCP direction for reassembly (default 1 MiB)\n"
    "  -o iwarp.memory:BYTES\n"
    "                   octets held for reassembly in all (default 256 MiB; less than\n"
    "                   iwarp.buffer lowers that)\n"
    "  -o iwarp.max_conns:N\n"
    "                   TCP connections followed at once (default 65536)\n"
    "  -o iwarp.heuristics:off\n"
    "                   find iWARP only by MPA exchanges and -d ports\n"
    "  -o compat:4.0|4.4|4.6\n"
    "                   print -T fields values as that tshark does (default 4.0; 4.4 and\n"
    "                   4.6 print booleans as True/False and give a SYN after a reset\n"
    "                   a new tcp.stream)\n"
    "  -o roceshark.info:tshark|roceshark\n"
    "                   the Info column as tshark 4.0 writes it, or roceshark's own\n"
    "                   (the default: PSN, flags, extended headers, payload, analysis)\n"
    "  --compat tshark  print as tshark 4.0 does: its Info column, and trees and JSON\n"
    "                   without roceshark's own layers (roceshark.*)\n"
    "  --threads N      run on N threads (default: the CPUs this process may use, at\n"
    "                   most 64; one for -T fields with 10 fields or fewer): decoding\n"
    "                   and formatting in parallel, the analysis in capture order; the\n"
    "                   output is that of --threads 1 byte for byte. -i, -l and\n"
    "                   -a filesize: run on one\n"
    "  -l               flush output after every frame\n"
    "  -n               resolve no names\n"
    "  -N FLAGS         resolve the names FLAGS ask for, as tshark's -N: m for MAC\n"
    "                   addresses (by Wireshark's manuf file; the default), t for ports\n"
    "                   (n, d, N, v and g are accepted; those names are never resolved)\n";

static int
parse_format(const char *arg, struct read_opts *ro)
{
    static const struct {
        const char *name;
        enum read_format format;
    } formats[] = {
        {"text", FORMAT_TEXT},     {"json", FORMAT_JSON},     {"jsonraw", FORMAT_JSONRAW},
        {"ek", FORMAT_EK},         {"jsonflat", FORMAT_JSONFLAT}, {"fields", FORMAT_FIELDS},
        {"psml", FORMAT_PSML},     {"pdml", FORMAT_PDML},
    };

    for (size_t i = 0; i < RS_ARRAY_SIZE(formats); i++) {
        if (strcmp(arg, formats[i].name) == 0) {
            ro->format = formats[i].format;
            return 0;
        }
    }
    return cli_fail(CLI_EXIT_USAGE, "-T %s: unknown format (text, json, jsonraw, ek, "
                    "jsonflat, fields, psml or pdml)", arg);
}

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

static int
parse_fields_option(const char *arg, struct rs_fields_fmt *fmt)
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

static int
parse_pref(const char *arg, struct read_opts *ro)
{
    unsigned long long v;
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
    } else {
        return cli_fail(CLI_EXIT_USAGE, "-o %s: unknown preference (rc.pmtu:N, "
                        "analysis.max_convs:N, analysis:on|off, iwarp.buffer:N, "
                        "iwarp.memory:N, iwarp.max_conns:N, iwarp.heuristics:on|off, "
                        "compat:4.0|4.4|4.6)", arg);
    }
    return 0;
}

/* -c N and -a packets:N: the smaller count wins. */
static void
limit_count(struct read_opts *ro, unsigned long long n)
{
    ro->count = ro->count == 0 || n < ro->count ? n : ro->count;
}

static int
parse_autostop(const char *arg, struct read_opts *ro)
{
    unsigned long long v;

    if (cli_parse_kv(arg, "packets", ~0ull, &v))
        limit_count(ro, v);
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
static int
parse_expand(const char *arg, struct read_opts *ro)
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
static int
parse_protocol_switch(const char *arg, bool on, struct read_opts *ro)
{
    const char *opt = on ? "--enable-protocol" : "--disable-protocol";

    if (strcmp(arg, "infiniband") == 0)
        ro->pipe.decode.disable_infiniband = !on;
    else if (strcmp(arg, "iwarp_mpa") == 0 || strcmp(arg, "iwarp_ddp_rdmap") == 0)
        ro->pipe.decode.disable_iwarp = !on;
    else if (!on && rs_field_lookup(arg) >= 0)
        return cli_fail(CLI_EXIT_USAGE, "%s %s: only infiniband, iwarp_mpa and "
                        "iwarp_ddp_rdmap can be turned off", opt, arg);
    return 0;
}

/* What -w, -F, -a, -2, -R and -O ask for, and what goes with what. */
/* Few -e fields: formatting them costs less than handing each batch between threads, so
 * the default is one thread. Measured on 2 CPUs, 300k frames of mixed traffic: 5 fields
 * took 0.27 s on one thread and 0.32 s on two, 40 fields 0.75 s and 0.52 s; the lines
 * through those points cross near 11. --threads N still runs on N. */
#define FEW_FIELDS 10

static bool
few_fields(const struct read_opts *ro)
{
    return ro->format == FORMAT_FIELDS && ro->n_fields <= FEW_FIELDS;
}

static int
check_new_options(struct read_opts *ro)
{
    if (ro->read_filter != NULL && !ro->two_pass)
        return cli_fail(CLI_EXIT_USAGE, "read: -R without -2: use -Y for a one-pass filter "
                        "(as tshark 4.0 says)");
    if (ro->two_pass && (ro->iface != NULL || (ro->file != NULL && strcmp(ro->file, "-") == 0)))
        return cli_fail(CLI_EXIT_USAGE, "read: -2 reads a file twice: not -i or -r -");
    if (ro->two_pass && ro->n_files > 1)
        return cli_fail(CLI_EXIT_USAGE, "read: -2 reads one file twice: give one -r");
    if (ro->write_path == NULL && ro->write_format != READ_SAVE_AS_INPUT)
        return cli_fail(CLI_EXIT_USAGE, "read: -F goes with -w");
    if (ro->write_path == NULL && ro->stop_bytes != 0)
        return cli_fail(CLI_EXIT_USAGE, "read: -a filesize:KB goes with -w");
    if (ro->iface == NULL && ro->stop_seconds != 0)
        return cli_fail(CLI_EXIT_USAGE, "read: -a duration:S stops a live read (-i); a file "
                        "is read to its end");
    if (ro->n_expand > 0 && ro->format != FORMAT_TEXT)
        return cli_fail(CLI_EXIT_USAGE, "read: -O goes with the text output");
    if (ro->n_expand > 0)
        ro->verbose = true;
    /* tshark's rule: raw frames and dissected text never share standard output. */
    if (ro->write_path != NULL && strcmp(ro->write_path, "-") == 0 &&
        (ro->summary || ro->verbose || ro->hex || ro->format != FORMAT_TEXT ||
         ro->n_stats > 0 || ro->iwarp_stats))
        return cli_fail(CLI_EXIT_USAGE, "read: -w - writes the frames to standard output: "
                        "-P, -V, -O, -x, -T and -z cannot print there too");
    if (ro->stop_seconds != 0)
        ro->live.idle_ms = AUTOSTOP_IDLE_MS;
    /* A live read frame by frame, -l's flush per frame and -a filesize's look at -w's
     * file between frames are the one thread's. */
    if (ro->threads == 0)
        ro->threads = few_fields(ro) ? 1 : read_threads_available();
    if (ro->iface != NULL || ro->line_buffered || ro->stop_bytes != 0)
        ro->threads = 1;
    return 0;
}

/* -j/-J "ip ip.flags": the names, split at spaces; given again, the last list counts. */
static int
parse_protos(const char *arg, bool whole, struct read_opts *ro)
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

static int
parse_read_args(int argc, char **argv, struct read_opts *ro)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"disable-protocol", required_argument, NULL, OPT_DISABLE_PROTOCOL},
        {"enable-protocol", required_argument, NULL, OPT_ENABLE_PROTOCOL},
        {"no-duplicate-keys", no_argument, NULL, OPT_NO_DUPLICATE_KEYS},
        {"compat", required_argument, NULL, OPT_COMPAT},
        {"threads", required_argument, NULL, OPT_THREADS},
        {NULL, 0, NULL, 0},
    };
    int c, rc;
    unsigned long long n;

    rs_fields_fmt_init(&ro->fields_fmt);
    rs_pipeline_opts_init(&ro->pipe);
    ro->display = *rs_display_get();
    optind = 1;
    while ((c = cli_getopt("read", argc, argv, "r:i:f:s:B:pc:a:w:F:VO:S:2R:G:xPt:T:e:E:j:J:d:o:Y:z:"
                           "qlnN:hv", longopts, read_usage)) != CLI_OPT_END) {
        switch (c) {
        case 'a':
            if ((rc = parse_autostop(optarg, ro)) != 0)
                return rc;
            break;
        case 'w':
            ro->write_path = optarg;
            break;
        case 'F':
            if (strcmp(optarg, "pcap") == 0)
                ro->write_format = READ_SAVE_PCAP;
            else if (strcmp(optarg, "pcapng") == 0)
                ro->write_format = READ_SAVE_PCAPNG;
            else
                return cli_fail(CLI_EXIT_USAGE, "-F %s: expected pcap or pcapng", optarg);
            break;
        case 'O':
            if ((rc = parse_expand(optarg, ro)) != 0)
                return rc;
            break;
        case 'S':
            ro->separator = optarg;
            break;
        case '2':
            ro->two_pass = true;
            break;
        case 'R':
            ro->read_filter = optarg;
            break;
        case 'G':
            ro->glossary = optarg;
            break;
        case OPT_DISABLE_PROTOCOL:
        case OPT_ENABLE_PROTOCOL:
            if ((rc = parse_protocol_switch(optarg, c == OPT_ENABLE_PROTOCOL, ro)) != 0)
                return rc;
            break;
        case 'r':
            if (ro->n_files == MAX_FILES)
                return cli_fail(CLI_EXIT_USAGE, "-r: at most %d files", MAX_FILES);
            ro->files[ro->n_files++] = optarg;
            ro->file = ro->files[0];
            break;
        case 'i':
            ro->iface = optarg;
            break;
        case 'f':
            ro->live.filter = optarg;
            break;
        case 's':
            if (!cli_parse_uint(optarg, 64, 262144, &n))
                return cli_fail(CLI_EXIT_USAGE, "-s %s: expected a snapshot length, 64-262144",
                                optarg);
            ro->live.snaplen = (unsigned)n;
            break;
        case 'B':
            if (!cli_parse_uint(optarg, 1, 65536, &n))
                return cli_fail(CLI_EXIT_USAGE, "-B %s: expected a size in MiB, 1-65536",
                                optarg);
            ro->live.buffer_mb = (unsigned)n;
            break;
        case 'p':
            ro->live.no_promisc = true;
            break;
        case 'c':
            if (!cli_parse_uint(optarg, 1, ~0ull, &n))
                return cli_fail(CLI_EXIT_USAGE, "-c %s: expected a positive count", optarg);
            limit_count(ro, n);
            break;
        case 'V':
            ro->verbose = true;
            break;
        case 'x':
            ro->hex = true;
            break;
        case 'P':
            ro->summary = true;
            break;
        case 't': {
            static const char *const names[] = {"r", "a", "ad", "u", "ud", "e", "d", "dd"};
            size_t k = 0;
            while (k < RS_ARRAY_SIZE(names) && strcmp(names[k], optarg) != 0)
                k++;
            if (k == RS_ARRAY_SIZE(names))
                return cli_fail(CLI_EXIT_USAGE, "-t %s: expected r, a, ad, u, ud, e, d or dd",
                                optarg);
            ro->time_col = (uint8_t)k;      /* in the order of enum rs_time_col */
            break;
        }
        case 'T':
            if ((rc = parse_format(optarg, ro)) != 0)
                return rc;
            break;
        case 'e':
            if (ro->n_fields == MAX_FIELDS_ARGS)
                return cli_fail(CLI_EXIT_USAGE, "-e: at most %d fields", MAX_FIELDS_ARGS);
            ro->field_names[ro->n_fields++] = optarg;
            break;
        case 'E':
            if ((rc = parse_fields_option(optarg, &ro->fields_fmt)) != 0)
                return rc;
            break;
        case 'j':
        case 'J':
            if ((rc = parse_protos(optarg, c == 'J', ro)) != 0)
                return rc;
            break;
        case OPT_NO_DUPLICATE_KEYS:
            ro->json.no_duplicate_keys = true;
            break;
        case 'd':
            if ((rc = cli_parse_decode_as(optarg, &ro->pipe.decode)) != 0)
                return rc;
            break;
        case 'Y':
            ro->pipe.filter = optarg;
            break;
        case 'z': {
            char err[RS_ERRBUF_SIZE];
            if (strcmp(optarg, "iwarp") == 0) {
                ro->iwarp_stats = true;
                break;
            }
            if (ro->n_stats == MAX_STATS)
                return cli_fail(CLI_EXIT_USAGE, "-z: at most %d statistics", MAX_STATS);
            if (rs_stat_new(optarg, &ro->stats[ro->n_stats], err) != 0)
                return cli_fail(CLI_EXIT_USAGE, "-z %.*s%s: %s", FILTER_ECHO_MAX, optarg,
                                strlen(optarg) > FILTER_ECHO_MAX ? "..." : "", err);
            ro->stat_specs[ro->n_stats++] = optarg;
            break;
        }
        case 'q':
            ro->quiet = true;
            break;
        case 'o':
            if ((rc = parse_pref(optarg, ro)) != 0)
                return rc;
            break;
        case 'l':
            ro->line_buffered = true;
            break;
        case 'n':
            ro->display.resolve_mac = ro->display.resolve_transport = false;
            break;
        case 'N':
            if (!rs_display_parse_resolve(&ro->display, optarg))
                return cli_fail(CLI_EXIT_USAGE, "-N %s: expected letters of m, t, n, d, N, v "
                                "and g", optarg);
            break;
        case OPT_THREADS:
            if (!cli_parse_uint(optarg, 1, READ_THREADS_MAX, &n))
                return cli_fail(CLI_EXIT_USAGE, "--threads %s: expected 1 to %d", optarg,
                                READ_THREADS_MAX);
            ro->threads = (unsigned)n;
            break;
        case OPT_COMPAT:
            if (strcmp(optarg, "tshark") != 0)
                return cli_fail(CLI_EXIT_USAGE, "--compat %s: expected tshark", optarg);
            ro->display.info_tshark = ro->display.tree_tshark = true;
            break;
        case 'v':   /* tshark prints its version wherever -v stands */
            cmd_version();
            return -1;
        case CLI_OPT_HELP:
            return -1;
        default:    /* CLI_OPT_BAD */
            return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc)
        return cli_fail(CLI_EXIT_USAGE, "read: unexpected argument '%s'", argv[optind]);
    rs_display_set(&ro->display);
    if (ro->glossary != NULL)
        return 0;   /* the registry alone: no input */
    if ((rc = check_new_options(ro)) != 0)
        return rc;
    if (ro->file == NULL && ro->iface == NULL)
        return cli_fail(CLI_EXIT_USAGE, "read: no input (use -r FILE or -i IFACE)");
    if (ro->file != NULL && ro->iface != NULL)
        return cli_fail(CLI_EXIT_USAGE, "read: give -r FILE or -i IFACE, not both");
    if (ro->file != NULL && (ro->live.filter != NULL || ro->live.snaplen != 0 ||
                             ro->live.buffer_mb != 0))
        return cli_fail(CLI_EXIT_USAGE, "read: -f, -s and -B apply to -i");
    if (ro->format == FORMAT_FIELDS && ro->n_fields == 0)
        return cli_fail(CLI_EXIT_USAGE, "read: -T fields needs at least one -e FIELD");
    bool json = ro->format == FORMAT_JSON || ro->format == FORMAT_JSONRAW ||
                ro->format == FORMAT_EK;
    if (ro->format != FORMAT_FIELDS && !json && ro->format != FORMAT_JSONFLAT &&
        ro->n_fields > 0)
        return cli_fail(CLI_EXIT_USAGE, "read: -e needs -T fields, json, jsonraw, ek or "
                        "jsonflat");
    if (ro->hex && (ro->format == FORMAT_JSONFLAT || ro->format == FORMAT_FIELDS ||
                    ro->format == FORMAT_PSML || ro->format == FORMAT_PDML))
        return cli_fail(CLI_EXIT_USAGE, "read: -x goes with the text output, -V, -T json or "
                        "-T ek");
    if (ro->json.n_protos > 0 && !json && ro->format != FORMAT_PDML)
        return cli_fail(CLI_EXIT_USAGE, "read: -j and -J go with -T json, jsonraw, ek or "
                        "pdml");
    if (ro->json.no_duplicate_keys && ro->format != FORMAT_JSON &&
        ro->format != FORMAT_JSONRAW)
        return cli_fail(CLI_EXIT_USAGE, "read: --no-duplicate-keys goes with -T json or "
                        "jsonraw");
    ro->json.text = ro->format != FORMAT_JSONRAW;
    ro->json.raw = ro->hex || ro->format == FORMAT_JSONRAW;
    if (ro->verbose && ro->format == FORMAT_TEXT)
        ro->format = FORMAT_TREE;
    for (size_t i = 0; i < ro->n_stats && !ro->pipe.analyze; i++)
        if (rs_stat_needs_analysis(ro->stats[i]))
            return cli_fail(CLI_EXIT_USAGE, "-z needs the analysis: drop -o analysis:off");
    /* Archiving an evicted conversation's statistics is a copy per new
     * conversation past the bound: only -z conv,qp reads them. */
    ro->pipe.analysis.keep_evicted = false;
    for (size_t i = 0; i < ro->n_stats; i++)
        ro->pipe.analysis.keep_evicted |= rs_stat_lists_conversations(ro->stats[i]);
    bool info = false;      /* the summary line's Info shows */
    for (size_t i = 0; i < ro->n_fields; i++) {
        ro->field_ids[i] = rs_field_lookup(ro->field_names[i]);
        if (ro->field_ids[i] < 0)
            return cli_fail(CLI_EXIT_USAGE, "-e %s: unknown field (see 'roceshark fields')",
                            ro->field_names[i]);
        ro->pipe.streams |= rs_streams_field(ro->field_names[i]);
        info |= strcmp(ro->field_names[i], "_ws.col.Info") == 0;
    }
    ro->json.fields = ro->field_ids;
    ro->json.n_fields = ro->n_fields;
    /* outputs of every field show tcp.stream, tcp.seq, ... as tshark's do */
    if (ro->format == FORMAT_TREE || ro->format == FORMAT_PDML ||
        ((ro->format == FORMAT_JSON || ro->format == FORMAT_JSONRAW || ro->format == FORMAT_EK ||
          ro->format == FORMAT_JSONFLAT) && ro->n_fields == 0))
        ro->pipe.streams = true;
    /* the summary line's TCP Info has Seq, Ack and Win as tshark's: TCP alone will do */
    info |= ro->summary || ro->format == FORMAT_PSML || ro->format == FORMAT_TEXT;
    if (info && !ro->pipe.streams) {
        ro->pipe.streams = true;
        ro->pipe.streams_opts.tcp_only = true;
    }
    return 0;
}

/* Checksums cost time; -T fields and -q compute them only when a field or a
 * statistic shows them (the pipeline checks them when the filter reads them). */
static bool
fields_need_crc(const struct read_opts *ro)
{
    static const char *const crc_fields[] = {"roceshark.icrc", "roceshark.vcrc",
                                             "roceshark.mpa.crc"};

    for (size_t i = 0; i < ro->n_stats; i++)
        if (rs_stat_needs_crc(ro->stats[i]))
            return true;
    for (size_t k = 0; k < RS_ARRAY_SIZE(crc_fields); k++) {
        for (size_t i = 0; i < ro->n_fields; i++)
            if (strncmp(ro->field_names[i], crc_fields[k], strlen(crc_fields[k])) == 0)
                return true;
    }
    return false;
}

static void
print_frame(struct rs_out *out, const struct read_opts *ro, const struct rs_packet *pkt,
            bool first)
{
    /* As tshark: -x alone prints the bytes only; -P puts the summary line first, with a
     * blank line before the bytes when no tree comes between. */
    if ((ro->summary && ro->format != FORMAT_PSML && ro->format != FORMAT_PDML &&
         ro->format != FORMAT_JSON && ro->format != FORMAT_JSONRAW &&
         ro->format != FORMAT_EK) ||
        (ro->format == FORMAT_TEXT && !ro->hex && ro->write_path == NULL))
        rs_print_summary(out, pkt);
    if (ro->summary && ro->hex && ro->format == FORMAT_TEXT)
        rs_out_char(out, '\n');
    switch (ro->format) {
    case FORMAT_TEXT:
        break;
    case FORMAT_TREE:
        /* -S ends the frame: after the bytes when they follow the tree. */
        out->gap = ro->hex ? NULL : ro->separator;
        if (ro->n_expand > 0)
            rs_print_tree_only(out, pkt, ro->expand, ro->n_expand);
        else
            rs_print_tree(out, pkt);
        break;
    case FORMAT_JSON:
    case FORMAT_JSONRAW:
        rs_print_json(out, pkt, first, &ro->json);
        return;             /* -x is in the JSON (_raw) */
    case FORMAT_EK:
        rs_print_ek(out, pkt, &ro->json);
        return;
    case FORMAT_JSONFLAT:
        if (ro->n_fields > 0)
            rs_print_jsonflat_fields(out, pkt, first, ro->field_ids, ro->n_fields);
        else
            rs_print_jsonflat(out, pkt, first);
        break;
    case FORMAT_FIELDS:
        rs_print_fields(out, &ro->fields_fmt, pkt, ro->field_ids, ro->n_fields);
        break;
    case FORMAT_PSML:
        rs_print_psml(out, pkt);
        break;
    case FORMAT_PDML:
        rs_print_pdml(out, pkt, &ro->json);
        break;
    }
    if (ro->hex) {
        out->gap = ro->separator;
        rs_print_hex(out, pkt);
    }
}

static void
read_opts_free(struct read_opts *ro)
{
    free(ro->protos_text);
    for (size_t i = 0; i < ro->n_stats; i++)
        rs_stat_free(ro->stats[i]);
    read_pass_free(&ro->pass);
    free(ro->expand_list);
    free(ro);
}

/* -a: whether a stop condition other than the count has come. */
static bool
autostop_due(const struct read_opts *ro, struct rs_writer *w, const struct timespec *t0)
{
    return (ro->stop_bytes != 0 && rs_writer_file_size(w) >= ro->stop_bytes) ||
           (ro->stop_seconds != 0 && cli_seconds_since(t0) >= (double)ro->stop_seconds);
}

/* The bounds of docs/limits.md that lose something no -z line shows, said on stderr
 * only when hit: stdout keeps tshark's formats, which scripts parse, and the exit code
 * stays 0, since what was read was read. "read:" as capture's counts begin "capture:";
 * "roceshark:" begins errors (the CLI contract). */
static void
print_bounds_hit(const struct read_opts *ro, const struct rs_pipeline *pipe,
                 const struct rs_pipeline_opts *opts)
{
    for (size_t i = 0; i < ro->n_stats; i++) {
        uint64_t merged = rs_stat_rows_merged(ro->stats[i]);
        if (merged > 0)
            fprintf(stderr, "read: -z %s: the capture spans %llu intervals more than the "
                    "%llu rows io,stat prints: their frames are counted in the last row\n",
                    ro->stat_specs[i], (unsigned long long)merged,
                    (unsigned long long)RS_STAT_IO_MAX_ROWS);
    }
    uint64_t cut = rs_field_frames_cut();
    const struct rs_streams *streams = rs_pipeline_streams(pipe);
    uint64_t forgotten = streams != NULL ? rs_streams_counts(streams).evicted : 0;

    if (cut > 0)
        fprintf(stderr, "read: %llu %s a field with more than %d occurrences: those after "
                "the %dth were not printed or filtered on\n", (unsigned long long)cut,
                cut == 1 ? "frame had" : "frames had", RS_MAX_OCCURRENCES, RS_MAX_OCCURRENCES);
    if (forgotten > 0)
        fprintf(stderr, "read: %llu %s forgotten by the TCP and UDP stream table (it holds "
                "%u): one that came back got a new tcp.stream or udp.stream\n",
                (unsigned long long)forgotten, forgotten == 1 ? "conversation" : "conversations",
                opts->streams_opts.max_streams);
}

/* What one read's loop keeps, whichever runs it: the serial loop or the threads. */
struct read_run {
    struct read_opts *ro;
    struct rs_source *src;
    struct rs_writer *w;
    struct cli_progress pg;
    double size;                /* the file's, for the progress line; 0 unknown */
    struct timespec t0;
    unsigned long long read;
    int rc;                     /* the source's last answer */
    int save_rc;
    char err[RS_ERRBUF_SIZE];
};

/* The next frame to run through the pipeline: 1, or 0 at the end (-c, -a, the source's
 * end or error in run->rc). */
static int
run_next(void *ctx, struct rs_frame *frame)
{
    struct read_run *run = ctx;
    struct read_opts *ro = run->ro;

    while ((ro->count == 0 || run->read < ro->count) &&
           !autostop_due(ro, run->w, &run->t0) &&
           (run->rc = rs_source_next(run->src, frame, run->err)) >= 1) {
        if (run->rc == RS_SOURCE_IDLE)
            continue;       /* a live read with -a duration: the clock is looked at */
        run->read++;
        if ((run->read & 0xfff) == 0 && cli_progress_due(&run->pg, false) >= 0) {
            int64_t at = rs_source_offset(run->src);
            if (run->size > 0 && at >= 0)
                cli_progress_line(&run->pg, "read: %llu frames, %.0f%% of %s", run->read,
                                  100.0 * (double)at / run->size, ro->file);
            else
                cli_progress_line(&run->pg, "read: %llu frames", run->read);
        }
        /* -2 alone decodes every frame, as tshark's second pass does */
        if (ro->two_pass && ro->read_filter != NULL && !read_pass_keep(&ro->pass, frame))
            continue;
        return 1;
    }
    return 0;
}

/* Every frame, once analyzed, in capture order: the statistics, and -w for those shown.
 * Non-zero when -w failed. */
static int
run_tally(void *ctx, const struct rs_frame *frame, const struct rs_pipeline_result *r)
{
    struct read_run *run = ctx;
    struct read_opts *ro = run->ro;

    for (size_t i = 0; i < ro->n_stats; i++)
        rs_stat_packet(ro->stats[i], &r->pkt);
    if (r->match && run->w != NULL)
        run->save_rc = read_save_frame(run->w, frame);
    return run->save_rc;
}

static void
run_format(void *ctx, struct rs_out *out, const struct rs_packet *pkt, bool first)
{
    print_frame(out, ((struct read_run *)ctx)->ro, pkt, first);
}

/* --threads 1: each frame through the pipeline, printed and written at once. */
static unsigned long long
read_serial(struct read_run *run, struct rs_pipeline *pipe, struct rs_out *out)
{
    struct rs_frame frame;
    unsigned long long shown = 0;

    while (!out->failed && run->save_rc == 0 && run_next(run, &frame) == 1) {
        const struct rs_pipeline_result *r = rs_pipeline_process(pipe, &frame);
        run_tally(run, &frame, r);
        if (!r->match)
            continue;
        if (!run->ro->quiet)
            print_frame(out, run->ro, &r->pkt, shown == 0);
        shown++;
    }
    return shown;
}

static int
read_frames(struct rs_source *src, struct read_opts *ro, struct rs_pipeline *pipe,
            struct rs_out *out, struct rs_writer *w)
{
    struct read_run run = {.ro = ro, .src = src, .w = w, .rc = 0};
    unsigned long long shown = 0;
    int rc = 0;

    bool json = ro->format == FORMAT_JSON || ro->format == FORMAT_JSONRAW;
    if (json && !ro->quiet)
        rs_print_json_begin(out);
    if (ro->format == FORMAT_JSONFLAT && !ro->quiet)
        rs_print_jsonflat_begin(out);
    if (ro->format == FORMAT_FIELDS && !ro->quiet)
        rs_print_fields_header(out, &ro->fields_fmt, ro->field_names, ro->n_fields);
    if (ro->format == FORMAT_PSML && !ro->quiet)
        rs_print_psml_begin(out);
    if (ro->format == FORMAT_PDML && !ro->quiet)
        rs_print_pdml_begin(out, ro->file);
    /* -q and -z print nothing until the end: on a terminal, a long run says how far it is. */
    struct stat sb;
    cli_progress_start(&run.pg, 1.0);
    run.pg.tty = run.pg.tty && ro->quiet;
    run.size = ro->file != NULL && stat(ro->file, &sb) == 0 && S_ISREG(sb.st_mode)
                   ? (double)sb.st_size : 0;
    clock_gettime(CLOCK_MONOTONIC, &run.t0);
    if (ro->threads > 1) {
        struct read_threads_ops ops = {.ctx = &run, .next = run_next, .tally = run_tally,
                                       .format = run_format};
        rc = read_threads_run(pipe, ro->threads, !ro->quiet, &ops, out, &shown);
    } else {
        shown = read_serial(&run, pipe, out);
    }
    cli_progress_end(&run.pg, false);
    ro->shown = shown;
    if (json && !ro->quiet)
        rs_print_json_end(out, shown > 0);
    if (ro->format == FORMAT_JSONFLAT && !ro->quiet)
        rs_print_jsonflat_end(out);
    if (ro->format == FORMAT_PSML && !ro->quiet)
        rs_print_psml_end(out);
    if (ro->format == FORMAT_PDML && !ro->quiet)
        rs_print_pdml_end(out);
    for (size_t i = 0; i < ro->n_stats; i++)
        rs_stat_print(ro->stats[i], rs_pipeline_analyzer(pipe), out);
    if (ro->iwarp_stats)
        rs_iwarp_print_stats(rs_pipeline_iwarp(pipe), out);
    if (rs_out_flush(out) != 0)
        return cli_fail(CLI_EXIT_OUTPUT, "writing output: write error");
    print_bounds_hit(ro, pipe, &ro->pipe);
    if (rc != 0)
        return cli_fail(CLI_EXIT_INTERNAL, "out of memory");
    if (run.save_rc != 0)
        return run.save_rc;
    if (run.rc < 0)
        return ro->iface != NULL ? cli_fail(CLI_EXIT_CAPTURE, "%s", run.err) :
                                   cli_fail(CLI_EXIT_INPUT, "%s: %s", ro->file, run.err);
    return CLI_EXIT_OK;
}

/* -i: a live source with the default RDMA filter (plus the -d ports), each
 * frame delivered at once when the output is line-buffered. */
static int
open_live(struct read_opts *ro, struct rs_source **src)
{
    char err[RS_ERRBUF_SIZE];
    int rc;

    ro->live.roce_ports = ro->pipe.decode.roce_ports;
    ro->live.n_roce_ports = ro->pipe.decode.n_roce_ports;
    ro->live.iwarp_ports = ro->pipe.decode.iwarp_ports;
    ro->live.n_iwarp_ports = ro->pipe.decode.n_iwarp_ports;
    ro->live.immediate = ro->line_buffered;
    if ((rc = rs_source_create_iface(ro->iface, src, err)) != 0)
        return cli_fail(cli_exit_code(rc, CLI_EXIT_CAPTURE), "read: %s", err);
    if ((rc = rs_source_activate(*src, &ro->live, err)) != 0) {
        rs_source_close(*src);
        *src = NULL;
        return cli_fail(cli_exit_code(rc, CLI_EXIT_CAPTURE), "read: %s", err);
    }
    cli_break_on_signals(*src);
    /* Said once the capture runs: scripts wait for this line before sending. */
    fprintf(stderr, "capture: %s (%s timestamps) -> decoding\n", ro->iface,
            rs_source_ts_hardware(*src) ? "hardware" : "system");
    return 0;
}

/* -G: the registry as tshark -G lists Wireshark's. */
static int
print_glossary(const char *report)
{
    struct rs_out out;
    int rc = 0;

    if (rs_out_init(&out, stdout, OUT_BUFFER_SIZE) != 0)
        return cli_fail(CLI_EXIT_INTERNAL, "out of memory");
    if (rs_print_glossary(&out, report) != 0)
        rc = cli_fail(CLI_EXIT_USAGE, "-G %s: expected fields, protocols or values", report);
    else if (rs_out_flush(&out) != 0)
        rc = cli_fail(CLI_EXIT_OUTPUT, "standard output: write error");
    rs_out_free(&out);
    return rc;
}

/* Everything is released through one path, whichever step fails. */
int
cmd_read(int argc, char **argv)
{
    struct read_opts *ro = calloc(1, sizeof(*ro));
    char err[RS_ERRBUF_SIZE];
    struct rs_source *src = NULL;
    struct rs_pipeline *pipe = NULL;
    struct rs_writer *w = NULL;
    struct rs_out out;
    bool have_out = false;
    int rc;

    if (ro == NULL)
        return cli_fail(CLI_EXIT_INTERNAL, "out of memory");
    if ((rc = parse_read_args(argc, argv, ro)) != 0) {
        rc = rc < 0 ? CLI_EXIT_OK : rc;
        goto done;
    }
    if (ro->glossary != NULL) {
        rc = print_glossary(ro->glossary);
        goto done;
    }
    if (ro->format == FORMAT_FIELDS || ro->quiet)
        ro->pipe.decode.verify_crc = fields_need_crc(ro);
    /* Before the input is opened, so a bad filter is a usage error whatever the input. */
    if ((rc = rs_pipeline_new(&ro->pipe, &pipe, err)) != 0) {
        const char *text = ro->pipe.filter;
        rc = rc == RS_EINVAL ?
            cli_fail(READ_EXIT_FILTER, "-Y %.*s%s: %s", FILTER_ECHO_MAX, text,
                     strlen(text) > FILTER_ECHO_MAX ? "..." : "", err) :
            cli_fail(CLI_EXIT_INTERNAL, "%s", err);
        goto done;
    }
    if (ro->two_pass && ro->read_filter != NULL &&
        (rc = read_pass_first(ro->file, &ro->pipe, ro->read_filter, ro->count, &ro->pass)) != 0)
        goto done;
    if (ro->iface != NULL) {
        if ((rc = open_live(ro, &src)) != 0)
            goto done;
    } else if (rs_source_open_files(ro->files, ro->n_files, &src, err) != 0) {
        rc = cli_fail(CLI_EXIT_INPUT, "%s", err);
        goto done;
    }
    if (ro->write_path != NULL &&
        (rc = read_save_open(ro->write_path, ro->iface != NULL ? NULL : ro->file,
                             ro->write_format, src, &w)) != 0)
        goto done;
    if (rs_out_init(&out, stdout, OUT_BUFFER_SIZE) != 0) {
        rc = cli_fail(CLI_EXIT_INTERNAL, "out of memory");
        goto done;
    }
    have_out = true;
    out.line_buffered = ro->line_buffered;
    out.style = ro->style;
    out.time_col = ro->time_col;
    out.data_hex = !ro->hex;
    rc = read_frames(src, ro, pipe, &out, w);
    if (ro->iface != NULL)
        cli_print_capture_counts(src, ro->shown, "decoded");
done:
    if (w != NULL) {
        int save_rc = read_save_close(w);
        rc = rc != 0 ? rc : save_rc;
    }
    if (ro->iface != NULL && src != NULL)
        cli_break_on_signals(NULL);
    rs_pipeline_free(pipe);
    if (have_out)
        rs_out_free(&out);
    rs_source_close(src);
    read_opts_free(ro);
    return rc;
}
