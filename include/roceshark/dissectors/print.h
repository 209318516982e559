/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print.h - the output formats of `roceshark read`: one summary line per
 * frame, the full tree (-V), JSON (-T json) and tab-separated fields
 * (-T fields), all drawn from the field registry.
 */
#ifndef ROCESHARK_PRINT_H
#define ROCESHARK_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/packet.h>

/* A growable output buffer in front of a FILE: the printers append to it
 * and it writes in large blocks, which matters at millions of lines a
 * second. */
/* What the summary line's time column shows (tshark's -t). */
enum rs_time_col {
    RS_TIME_COL_RELATIVE,       /* r: since the first frame (the default) */
    RS_TIME_COL_ABSOLUTE,       /* a: local time of day */
    RS_TIME_COL_ABSOLUTE_DATE,  /* ad: local date and time */
    RS_TIME_COL_UTC,            /* u: UTC time of day */
    RS_TIME_COL_UTC_DATE,       /* ud: UTC date and time */
    RS_TIME_COL_EPOCH,          /* e: seconds since 1970 */
    RS_TIME_COL_DELTA,          /* d: since the frame before */
    RS_TIME_COL_DELTA_SHOWN,    /* dd: since the frame shown before */
    RS_TIME_COL_ABSOLUTE_DOY,   /* adoy: local year/day of the year and time */
    RS_TIME_COL_UTC_DOY         /* udoy: the same in UTC */
};

struct rs_out {
    FILE *fp;
    char *buf;
    size_t len;
    size_t cap;
    bool line_buffered;     /* flush after every frame (-l) */
    enum rs_value_style style;  /* whose tshark's values (-o compat:), 4.0's by default */
    bool failed;            /* a write failed: stop producing output */
    uint8_t time_col;       /* enum rs_time_col */
    bool tabs;              /* -T tabs: the summary's padded columns split by tabs */
    const char *gap;        /* -S: the line that ends a frame's tree or bytes (NULL: an
                               empty one) */
    bool data_hex;          /* the tree shows the bytes of each Data item in hex, as
                               tshark's -V does when -x does not print them after */
};

/* fp NULL: a buffer in memory alone, which grows and is never written (o->buf,
 * o->len hold what was appended). */
int rs_out_init(struct rs_out *o, FILE *fp, size_t cap);
void rs_out_free(struct rs_out *o);
/* Writes what is buffered; returns 0 or RS_EIO. */
int rs_out_flush(struct rs_out *o);
/* Makes room for n more bytes, flushing a FILE's buffer or growing a memory one:
 * the slow path of the appenders below; false after a failure. */
bool rs_out_room(struct rs_out *o, size_t n);

/* The appenders every printer calls for each piece of a line, inline: as calls they
 * were some 7% of -T json and 4% of -V. */
static inline void
rs_out_write(struct rs_out *o, const char *s, size_t n)
{
    if (o->len + n <= o->cap || rs_out_room(o, n)) {
        memcpy(o->buf + o->len, s, n);
        o->len += n;
    }
}

/* The same for a large block of text made elsewhere (a batch's frames, formatted on
 * another thread): written to the FILE as it is, after what is buffered, rather than
 * copied into the buffer first. */
void rs_out_write_block(struct rs_out *o, const char *s, size_t n);
/* Room for n bytes at the end of the buffer (NULL after a failure); the
 * caller fills some of it and then calls rs_out_commit() with the count. */
static inline char *
rs_out_reserve(struct rs_out *o, size_t n)
{
    return o->len + n <= o->cap || rs_out_room(o, n) ? o->buf + o->len : NULL;
}

static inline void
rs_out_commit(struct rs_out *o, size_t n)
{
    o->len += n;
}

/* Appends v formatted as -T fields prints it. */
struct rs_field;
struct rs_value;
void rs_out_value(struct rs_out *o, const struct rs_field *f, const struct rs_value *v);
static inline void
rs_out_str(struct rs_out *o, const char *s)
{
    rs_out_write(o, s, strlen(s));
}

static inline void
rs_out_char(struct rs_out *o, char c)
{
    if (o->len < o->cap || rs_out_room(o, 1))
        o->buf[o->len++] = c;
}

/* s, padded with spaces to width: on the right when left (printf's "%-*s"), on the
 * left otherwise ("%*s"). For the statistics' tables, which are printed row by row
 * for every conversation, and printf's parsing was most of their time. */
void rs_out_pad(struct rs_out *o, const char *s, int width, bool left);
/* v in decimal, right-aligned to width ("%*llu"). */
void rs_out_pad_u64(struct rs_out *o, uint64_t v, int width);
void rs_out_printf(struct rs_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* This thread's buffer in memory for one line or value at a time, emptied, printing values
 * in like's style (like may be NULL); NULL when out of memory. The next call reuses it. */
struct rs_out *rs_out_scratch(const struct rs_out *like);
/* Frees what the printers hold for the calling thread (rs_out_scratch's buffer, the tree
 * of the JSON and PDML printers): for a thread that printed, before it ends. */
void rs_print_thread_end(void);
/* Appends p's n bytes in lower-case hex, sep between bytes unless it is '\0'. */
void rs_out_hex(struct rs_out *o, const uint8_t *p, size_t n, char sep);
/* Appends n bytes of s with XML's five special characters as entities. */
void rs_out_xml(struct rs_out *o, const char *s, size_t n);
/* Called after each frame: flushes when full or line-buffered. */
void rs_out_end_frame(struct rs_out *o);

/* Fills buf with the frame's Info column; returns its length. */
size_t rs_print_info(const struct rs_packet *pkt, char *buf, size_t size);
/* The bracketed marks at the end of that Info ("[Bad ICRC]", "[Retransmission]", "[PSN gap
 * N]", "[CNP for conversation N]", ...), each after a space, after an RNR NAK's "RNR NAK
 * [delay 0.02 ms]": what the Wireshark plugin appends to the Info of Wireshark's own
 * dissectors, which shows a NAK's code but not an RNR NAK. */
size_t rs_print_info_marks(const struct rs_packet *pkt, char *buf, size_t size);
/* "RoCE", "RRoCE", "IB", or the outermost protocol we know otherwise. */
const char *rs_print_protocol(const struct rs_packet *pkt);
/* The frame's protocols, outermost first, as Wireshark's frame.protocols names them
 * ("eth:ethertype:ip:udp:infiniband:data"); returns the length. */
size_t rs_print_protocols(const struct rs_packet *pkt, char *buf, size_t size);
/* The summary line's source and destination: the innermost network addresses present
 * (IP, GID, LID, MAC by its name as the display settings say), size bytes each; sizes of
 * RS_PRINT_ADDRESS_MAX hold any of them whole. */
#define RS_PRINT_ADDRESS_MAX 80
void rs_print_addresses(const struct rs_packet *pkt, char *src, char *dst, size_t size);

/* One line: number, time, source, destination, protocol, length, info. */
void rs_print_summary(struct rs_out *o, const struct rs_packet *pkt);
/* The same columns as tshark -T psml lays them out: the header with the columns'
 * names, a <packet> of <section>s per frame, the end. */
void rs_print_psml_begin(struct rs_out *o);
void rs_print_psml(struct rs_out *o, const struct rs_packet *pkt);
void rs_print_psml_end(struct rs_out *o);

/* The full tree of every field present, as `tshark -V` lays it out. */
void rs_print_tree(struct rs_out *o, const struct rs_packet *pkt);
/* -O: the tree with only the named protocols (filter names: "infiniband", "frame")
 * expanded; every other protocol shows its top line alone. */
void rs_print_tree_only(struct rs_out *o, const struct rs_packet *pkt,
                        const char *const *protocols, size_t n_protocols);
/* Ends a frame's tree or bytes: the -S separator line (o->gap), else an empty line. */
void rs_out_gap(struct rs_out *o);

/* tshark -G's glossaries of the field registry, in its tab-separated layout: "fields"
 * (P and F lines), "protocols" (name, short name, filter name) or "values" (V lines
 * of value strings). RS_EINVAL for another report. */
int rs_print_glossary(struct rs_out *o, const char *report);
/* The same tree in tshark's -T pdml XML: the header (capture_file may be NULL), a
 * <packet> per frame, the end. */
void rs_print_pdml_begin(struct rs_out *o, const char *capture_file);
/* opts: -j/-J (the protocol filter alone is read), or NULL. */
struct rs_json_opts;
void rs_print_pdml(struct rs_out *o, const struct rs_packet *pkt, const struct rs_json_opts *opts);
void rs_print_pdml_end(struct rs_out *o);

/* The tree's lines one by one, for consumers that lay them out otherwise. */
enum rs_tree_kind {
    RS_TREE_FRAME,          /* "Frame N: ... bytes on wire ..." */
    RS_TREE_FIELD           /* a protocol, a header or a field ("[Malformed Packet: IB]"
                               too: fields_malformed.c) */
};

struct rs_tree_item {
    uint8_t kind;                   /* enum rs_tree_kind */
    const struct rs_field *field;   /* RS_TREE_FIELD: the field and its value */
    const struct rs_value *value;
    unsigned depth;                 /* indentation level; deeper lines below a node are
                                       its children */
    uint32_t offset, length;        /* the bytes of the frame it covers (length 0: none) */
    bool node;                      /* a frame, protocol or header line */
    const struct rs_packet *view;   /* the view the value came from (one PDU, one item,
                                       an ICMP error's quote); NULL for the frame's own */
    int id;                         /* RS_TREE_FIELD: the field's id */
    const uint8_t *source;          /* the bytes offset and length count in: NULL the
                                       frame's, else a message reassembled from several
                                       frames (Wireshark's other data sources) */
};

typedef void (*rs_tree_fn)(void *arg, const struct rs_tree_item *item);
/* The first of the bytes item covers: in its source, else in pkt's frame. */
const uint8_t *rs_tree_item_bytes(const struct rs_packet *pkt, const struct rs_tree_item *it);
/* Calls fn for each line of rs_print_tree's tree, in order; the item is valid
 * during the call. */
void rs_tree_walk(const struct rs_packet *pkt, rs_tree_fn fn, void *arg);
/* The same with the hidden fields of Wireshark's tree too, each where it is declared
 * (ip.addr after ip.src and ip.dst), as tshark's JSON shows them. */
void rs_tree_walk_hidden(const struct rs_packet *pkt, rs_tree_fn fn, void *arg);
/* The same without the bytes each field's item covers (offset and length 0, but for the
 * frame line's): for a printer that writes no positions (-T json without -x), working
 * them out for every item was some 4% of its time. */
void rs_tree_walk_hidden_unplaced(const struct rs_packet *pkt, rs_tree_fn fn, void *arg);
/* Whether the walks pass field id of the frame pkt (its own view, no ICMP quote) without
 * asking it: it is read from a layer or a MAD the frame lacks, so it has no value. */
bool rs_tree_passes(const struct rs_packet *pkt, int id);
/* One line's text, without indentation, newline or the brackets of a generated item
 * (PDML's showname, JSON's text keys). */
void rs_print_tree_line(struct rs_out *o, const struct rs_packet *pkt,
                        const struct rs_tree_item *item);
/* What -e writes for protocol f (print/protocol_text.c): tshark 4.0's text of its item
 * where the item has its own (its tree line: "Internet Protocol Version 4, Src: ..."), else
 * its abbreviation ("infiniband"); the length, as snprintf gives it. Data is its bytes in
 * hex instead (rs_protocol_field_is_data). pkt is the view the value came from. */
size_t rs_protocol_field_text(const struct rs_packet *pkt, const struct rs_field *f,
                              const struct rs_value *v, char *buf, size_t size);
bool rs_protocol_field_is_data(const struct rs_field *f);
/* The view occurrence occ of field id comes from: pkt, or the datagram an ICMP error of pkt
 * quotes (in q), whose occurrences rs_field_value() gives after the frame's own. */
struct rs_icmp_quote;
const struct rs_packet *rs_field_occurrence_view(const struct rs_packet *pkt, int id,
                                                 unsigned occ, struct rs_icmp_quote *q);
/* One line as rs_print_tree prints it, without indentation or newline: a generated
 * item in brackets, as tshark's -V shows it. */
void rs_print_tree_row(struct rs_out *o, const struct rs_packet *pkt,
                       const struct rs_tree_item *it);
/* The frame's bytes, as tshark -x prints them (offset, hex, ASCII), then a blank line. */
void rs_print_hex(struct rs_out *o, const struct rs_packet *pkt);
/* n bytes at p in the same lines, offsets from 0, without the blank line. */
void rs_print_hex_bytes(struct rs_out *o, const uint8_t *p, uint32_t n);

/* How -T fields joins things, tshark's -E options. */
struct rs_fields_fmt {
    char separator;         /* between fields, default tab */
    char aggregator;        /* between occurrences, default ',' */
    char occurrence;        /* 'a' all, 'f' first, 'l' last */
    bool header;            /* print the field names first */
    char quote;             /* around each value that is there: '"', '\'' or 0 (none) */
    bool bom;               /* a UTF-8 byte order mark before everything */
};

void rs_fields_fmt_init(struct rs_fields_fmt *fmt);
/* What comes before the first line: the byte order mark and the header, as fmt asks. */
void rs_print_fields_header(struct rs_out *o, const struct rs_fields_fmt *fmt,
                            const char *const *names, size_t n);
/* One line with the values of the fields ids[] (lowest alias ids). */
void rs_print_fields(struct rs_out *o, const struct rs_fields_fmt *fmt,
                     const struct rs_packet *pkt, const int *ids, size_t n);

/* s (n bytes) as a JSON string, quotes included. */
void rs_out_json_string(struct rs_out *o, const char *s, size_t n);
/* s, up to its NUL or n bytes, as a JSON string's contents (no quotes) in
 * ASCII: for text that need not be UTF-8, such as a peer's message. */
void rs_json_fput_text(FILE *f, const char *s, size_t n);

/* A JSON writer that places the commas, new lines and indentation (two spaces a level)
 * as tshark's does; compact (no white space) unless pretty. */
#define RS_JSON_MAX_DEPTH 64
struct rs_json {
    struct rs_out *o;
    bool pretty;
    bool dot_to_underscore;         /* member names with '_' for '.' (-T ek) */
    bool named;                     /* a member's name is out: its value comes next */
    unsigned depth;                 /* containers open */
    bool any[RS_JSON_MAX_DEPTH];    /* something is written at this depth */
};

/* Starts writing inside depth containers opened before (any: which hold an element). */
void rs_json_init(struct rs_json *j, struct rs_out *o, bool pretty, unsigned depth, bool any);
void rs_json_begin_object(struct rs_json *j);
void rs_json_end_object(struct rs_json *j);
void rs_json_begin_array(struct rs_json *j);
void rs_json_end_array(struct rs_json *j);
/* A member's name (name then suffix; suffix may be NULL); its value comes next. */
void rs_json_name(struct rs_json *j, const char *name, const char *suffix);
/* name's len bytes as rs_json_name writes them without dot_to_underscore, from the
 * opening quote up to the closing one (left out), into quoted (room for 2 * len + 1);
 * returns the length. A name written often can be quoted once. */
size_t rs_json_quote_name(char *quoted, const char *name, size_t len);
/* The same as rs_json_name(j, name, suffix), from name quoted by rs_json_quote_name (len
 * bytes); j has no dot_to_underscore. */
void rs_json_quoted_name(struct rs_json *j, const char *quoted, size_t len, const char *suffix);
void rs_json_string(struct rs_json *j, const char *s, size_t n);
/* v of field f as a string, as rs_out_value() formats it in j's style. */
void rs_json_value(struct rs_json *j, const struct rs_field *f, const struct rs_value *v);
/* n bytes at p as a string of hex pairs, as rs_out_hex() writes them. */
void rs_json_hex_string(struct rs_json *j, const uint8_t *p, size_t n, char sep);
/* A value written as it is: a number, true, false or null. */
void rs_json_literal(struct rs_json *j, const char *text);

/* What -T json, jsonraw and ek print of each frame, as tshark's options ask (-T pdml reads
 * -j/-J from it too). */
struct rs_json_opts {
    bool text;                      /* the values (false: jsonraw) */
    bool raw;                       /* name_raw: [hex, pos, len, mask, type] (-x, jsonraw) */
    bool no_duplicate_keys;         /* a name met twice in an object: one array */
    const char *const *protos;      /* -j/-J: the names whose subtrees are written, */
    size_t n_protos;                /* or n_protos 0 for all */
    bool protos_whole;              /* -J: a name written has all below it written */
    const int *fields;              /* -e: these fields alone (lowest alias ids) */
    size_t n_fields;
};

/* -T json and jsonraw: tshark's array of {"_index", "_type", "_score", "_source":
 * {"layers": {protocol: {field: value, field_tree: {...}}}}}. Call begin once, frame per
 * frame (first for the first frame written), end once (any: a frame was written). */
void rs_print_json_begin(struct rs_out *o);
void rs_print_json(struct rs_out *o, const struct rs_packet *pkt, bool first,
                   const struct rs_json_opts *opts);
void rs_print_json_end(struct rs_out *o, bool any);
/* -T ek: two lines a frame, the bulk index line and the document, with the fields of
 * each protocol in one object, named protocol_field with '_' for '.'. */
void rs_print_ek(struct rs_out *o, const struct rs_packet *pkt, const struct rs_json_opts *opts);

/* -T jsonflat: a JSON array holding one object per frame, one line each, keyed by field
 * name: call begin once, frame per frame, end once. */
void rs_print_jsonflat_begin(struct rs_out *o);
void rs_print_jsonflat(struct rs_out *o, const struct rs_packet *pkt, bool first);
/* The same object with only the fields ids[] (lowest alias ids), hidden ones included:
 * -T jsonflat -e FIELD. */
void rs_print_jsonflat_fields(struct rs_out *o, const struct rs_packet *pkt, bool first,
                              const int *ids, size_t n);
void rs_print_jsonflat_end(struct rs_out *o);

#endif /* ROCESHARK_PRINT_H */
