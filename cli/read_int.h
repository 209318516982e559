/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read_int.h - the parts of `roceshark read`: saving the frames shown (-w), the first
 * pass of -2 -R, the threads, the options (read_args.c, read_prefs.c), the printers -T
 * chooses (read_printers.c) and the loop (read_run.c). cmd_read.c wires them.
 */
#ifndef ROCESHARK_CLI_READ_INT_H
#define ROCESHARK_CLI_READ_INT_H

/* read exits as tshark does where tshark has its own code: 2 for a display filter it
 * cannot compile (tshark's INVALID_FILTER) and for a -w file it cannot write. */
#define READ_EXIT_FILTER 2
#define READ_EXIT_WRITE 2

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/capture/capture.h>
#include <roceshark/capture/pcapio.h>
#include <roceshark/dissectors/pipeline.h>
#include <roceshark/dissectors/pipeline_threads.h>

/* -F: the format -w writes. */
enum read_save_format {
    READ_SAVE_AS_INPUT = 0,     /* pcapng for a pcapng input, else pcap */
    READ_SAVE_PCAP,
    READ_SAVE_PCAPNG
};

/* Opens -w's file for the frames of src: its link type, snapshot length and time
 * resolution (nanosecond pcap for a nanosecond input). A pcapng file takes frames of
 * several link types, one interface each. The file input (-r, NULL when live) is refused
 * as the output (a usage error). Returns 0 or the exit code, reported. */
int read_save_open(const char *path, const char *input, enum read_save_format format,
                   struct rs_source *src, struct rs_writer **w);
/* Writes one frame; 0 or the exit code, reported. */
int read_save_frame(struct rs_writer *w, const struct rs_frame *frame);
/* Flushes and closes (w may be NULL); 0 or the exit code, reported. */
int read_save_close(struct rs_writer *w);

/* -2 -R: the frames the read filter keeps, found by a first pass over the file. As
 * tshark's, the second pass sees only those, numbered from 1; their times since the
 * first frame stay those of the file, and the delta is from the previous frame kept. */
struct read_pass {
    uint64_t *kept;             /* a bit per frame of the first pass */
    uint64_t frames;            /* frames the first pass read */
    uint64_t number;            /* frames handed on in the second pass */
    struct rs_time prev;        /* the time of the last of them */
};

/* Runs the first pass over file with the pipeline options opts and filter as its
 * display filter, reading up to count frames (0: all). Returns 0 or the exit code,
 * reported. */
int read_pass_first(const char *file, const struct rs_pipeline_opts *opts,
                    const char *filter, unsigned long long count, struct read_pass *pass);
/* In the second pass: false for a frame the read filter dropped; else true, with the
 * frame renumbered and its delta recomputed. */
bool read_pass_keep(struct read_pass *pass, struct rs_frame *frame);
void read_pass_free(struct read_pass *pass);



#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/dissectors/stats.h>

/* Well above the 1,065 fields `roceshark fields` lists: -e with every field must work. */
#define MAX_FIELDS_ARGS 4096
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

#define MAX_FILES 256

/* tshark's preferences read takes (read_tshark_prefs_table.c, written from tshark's
 * -G defaultprefs): its section, name, the kind of value, the default as tshark writes it
 * after "name: " (a list's lines after a newline, without their '#') and the comment lines
 * it writes before. */
enum read_pref_kind { READ_PREF_BOOL, READ_PREF_DECIMAL, READ_PREF_HEX, READ_PREF_TEXT,
                      READ_PREF_LIST };

struct read_tshark_pref {
    const char *section, *name;
    enum read_pref_kind kind;
    const char *value, *comment;
};

#define READ_TSHARK_PREFS_MAX 128
extern const char read_tshark_prefs_head[];     /* the lines that open tshark's file */
extern const struct read_tshark_pref read_tshark_prefs[];
extern const size_t read_tshark_n_prefs;
extern const char *const read_tshark_column_codes[];    /* "%m", ...; NULL ends it */

struct read_opts {
    const char *file;                   /* -r: the first, or the one */
    const char *files[MAX_FILES];       /* every -r, merged in time order */
    size_t n_files;
    const char *iface;                  /* -i: live decoding */
    struct rs_live_opts live;
    unsigned long long count;           /* 0: all */
    const struct read_printer *printer; /* -T, -V */
    bool verbose;
    bool hex;                           /* -x: the bytes after each frame */
    bool summary;                       /* -P: the summary line too (with -V or -x) */
    uint8_t time_col;                   /* -t: enum rs_time_col */
    bool tabs;                          /* -T tabs */
    bool group_readable;                /* -g: -w's file readable by its group */
    bool line_buffered;
    const char *field_names[MAX_FIELDS_ARGS];
    int field_ids[MAX_FIELDS_ARGS];
    size_t n_fields;
    struct rs_fields_fmt fields_fmt;
    struct rs_json_opts json;           /* -T json, jsonraw, ek: -x, -j/-J, -e */
    char *protos_text;                  /* -j/-J's list, split in place */
    const char *protos[MAX_PROTOS];
    struct rs_pipeline_opts pipe;       /* -d, -o, -Y */
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
    unsigned long long session_frames;  /* -M: the frames of a session; 0 none */
    /* iWARP is off when its protocol is or its one heuristic (iwarp_mpa_tcp) is, as in
     * tshark: --enable-protocol does not bring back what --disable-heuristic took. */
    bool iwarp_protocol_off, iwarp_heuristic_off;
    /* -o's value of each of read_tshark_prefs[], the last given; NULL: not given. */
    const char *tshark_prefs[READ_TSHARK_PREFS_MAX];
};

enum read_long_option { OPT_DISABLE_PROTOCOL = 0x100, OPT_ENABLE_PROTOCOL, OPT_NO_DUPLICATE_KEYS,
                        OPT_COMPAT, OPT_THREADS, OPT_COLOR, OPT_LOG_LEVEL, OPT_EXPORT_OBJECTS,
                        OPT_DISABLE_HEURISTIC, OPT_ENABLE_HEURISTIC };

extern const char read_usage[];

/* read_args.c: argv into ro; 0, -1 for -h and -v (done), or the exit code, reported. */
int read_parse_args(int argc, char **argv, struct read_opts *ro);
/* Whether -T fields or -q must compute checksums: a field or a statistic shows them. */
bool read_fields_need_crc(const struct read_opts *ro);

/* read_prefs.c: each returns 0 or the exit code, reported. */
int read_parse_fields_option(const char *arg, struct rs_fields_fmt *fmt);  /* -E */
int read_parse_pref(const char *arg, struct read_opts *ro);                /* -o */
void read_limit_count(struct read_opts *ro, unsigned long long n);          /* -c, -a packets: */
int read_parse_autostop(const char *arg, struct read_opts *ro);            /* -a */
int read_parse_expand(const char *arg, struct read_opts *ro);              /* -O */
int read_parse_protocol_switch(const char *arg, bool on, struct read_opts *ro);
/* --enable-heuristic (on) and --disable-heuristic NAME, NAME one of tshark's (read_prefs.c). */
void read_heuristic_switch(const char *name, bool on, struct read_opts *ro);
int read_parse_protos(const char *arg, bool whole, struct read_opts *ro);  /* -j, -J */
/* -o NAME:VALUE when NAME is a tshark preference of a protocol read dissects
 * (read_tshark_compat.c): 0 when taken, an exit status when its value is bad, -1 when NAME
 * is none of them. */
int read_tshark_pref(const char *arg, struct read_opts *ro);
/* -G defaultprefs (current false) and currentprefs: tshark's file of preferences, with
 * the ones read takes, each as -o set it (read_tshark_prefs.c). */
void read_print_prefs(struct rs_out *o, const struct read_opts *ro, bool current);
/* -o gui.column.format's value, "T1","F1",...: true when tshark takes it (titles not empty,
 * formats of read_tshark_column_codes[] or custom ones), with the list in buf as tshark
 * writes it (read_tshark_prefs.c). */
bool read_column_list(const char *value, char *buf, size_t size);
/* tshark's option c (-u, -Q, -H, -C, -K, -X, -g, -M, -W, -I, --color, --log-level,
 * --export-objects, --disable/--enable-heuristic): 0 when taken, its exit status when its
 * value is bad, -1 when c is another. */
int read_tshark_option(int c, const char *arg, struct read_opts *ro);
/* read_heuristic_names.c: whether name is one of tshark's heuristic dissectors. */
bool read_heuristic_known(const char *name);

/* read_run.c: the frames of src through pipe, printed to out, written to w (may be NULL),
 * the statistics at the end; 0 or the exit code, reported. */
int read_run_frames(struct rs_source *src, struct read_opts *ro, struct rs_pipeline *pipe,
                    struct rs_out *out, struct rs_writer *w);

/* A printer, as -T names it (read_printers.c). The flags say which options go with it and
 * what it prints, so that no code outside the table asks which printer it is. */
enum read_printer_flags {
    READ_TAKES_FIELDS = 1 << 0,     /* -e */
    READ_NEEDS_FIELDS = 1 << 1,     /* -e at least once */
    READ_TAKES_HEX = 1 << 2,        /* -x */
    READ_HEX_INSIDE = 1 << 3,       /* -x's bytes are in its own output (JSON's _raw) */
    READ_TAKES_PROTOS = 1 << 4,     /* -j, -J */
    READ_TAKES_NO_DUP = 1 << 5,     /* --no-duplicate-keys */
    READ_P_SUMMARY = 1 << 6,        /* -P puts the summary line before each frame */
    READ_ALL_FIELDS = 1 << 7,       /* every field (without -e): tcp.stream and the like too */
    READ_SHOWS_INFO = 1 << 8,       /* the summary line's columns, Info among them */
    READ_CRC_ASKED = 1 << 9,        /* checksums only when a field or statistic shows them */
    READ_JSON_RAW = 1 << 10,        /* the JSON tree's bytes, not its values */
    READ_EXPANDS = 1 << 11,         /* -O: the tree of some protocols */
    READ_CHEAP_FIELDS = 1 << 12     /* a few -e fields cost less than threads (one thread) */
};

struct read_opts;
struct read_printer {
    const char *name;               /* -T NAME; NULL: not chosen by -T (the -V tree) */
    unsigned flags;                 /* enum read_printer_flags */
    void (*begin)(struct rs_out *out, const struct read_opts *ro);   /* NULL: nothing */
    void (*frame)(struct rs_out *out, const struct read_opts *ro, const struct rs_packet *pkt,
                  bool first);
    void (*end)(struct rs_out *out, const struct read_opts *ro, bool any);   /* NULL: nothing */
};

/* The printer -T name chooses; NULL for a name not in the table. */
const struct read_printer *read_printer_find(const char *name);
/* -T text, which -V makes the tree. */
const struct read_printer *read_printer_text(void);
const struct read_printer *read_printer_tree(void);
/* "text, json, ..., or pdml": the names, for an error. */
const char *read_printer_names(void);
/* One frame that passed the filter, as the printer and -P, -x, -S say. */
void read_print_frame(struct rs_out *out, const struct read_opts *ro, const struct rs_packet *pkt,
                      bool first);


#endif /* ROCESHARK_CLI_READ_INT_H */
