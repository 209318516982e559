/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields.h - the field registry: every named value roceshark can show.
 *
 * Each field is declared once, in the table of the header it belongs to,
 * with Wireshark's abbreviation, type, base, mask and value names where
 * Wireshark has the field, and under "roceshark." where it does not. The
 * printers, the display filter, `roceshark fields` and the Wireshark plugin
 * all read this one registry.
 */
#ifndef ROCESHARK_FIELDS_H
#define ROCESHARK_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <roceshark/dissectors/packet.h>

/* Field types, named after Wireshark's FT_* so the mapping is evident. */
enum rs_ftype {
    RS_FT_PROTOCOL,     /* a protocol: present or not */
    RS_FT_BOOLEAN,
    RS_FT_UINT8,
    RS_FT_UINT16,
    RS_FT_UINT24,
    RS_FT_UINT32,
    RS_FT_UINT64,
    RS_FT_INT16,        /* signed, held in value.u as int64_t (frame.encap_type) */
    RS_FT_INT32,        /* signed, held in value.u as int64_t (tcp.window_size_scalefactor) */
    RS_FT_FRAMENUM,
    RS_FT_DOUBLE,
    RS_FT_RELTIME,      /* a duration, value.t */
    RS_FT_ABSTIME,      /* time since the epoch, value.t */
    RS_FT_BYTES,
    RS_FT_ETHER,
    RS_FT_IPV4,
    RS_FT_IPV6,
    RS_FT_STRING,
    RS_FT_NONE,         /* a text label with no value: present or not (tshark prints 1) */
    RS_FT_COUNT         /* how many types there are; tables indexed by type assert it */
};

enum rs_fbase {
    RS_BASE_NONE,
    RS_BASE_DEC,
    RS_BASE_HEX,
    RS_BASE_DEC_HEX,
    RS_BASE_HEX_DEC,
    RS_BASE_UTC,        /* an absolute time shown as a UTC date ("May 14, 2008
                           19:48:07.000000000 UTC"), as Wireshark's ABSOLUTE_TIME_UTC */
    RS_BASE_LOCAL,      /* the same in the local time zone, with its abbreviation
                           ("... 04:22:15.815013000 EDT"), as ABSOLUTE_TIME_LOCAL */
    RS_BASE_OUI         /* a 24-bit vendor prefix, shown "00:50:56 (VMware, Inc.)" */
};

/* A field's value. Bytes point into the frame or into static storage. */
struct rs_value {
    uint8_t type;       /* enum rs_ftype */
    union {
        uint64_t u;     /* integers, booleans, frame numbers */
        double d;       /* doubles */
        struct rs_time t;   /* times */
        struct {
            const uint8_t *ptr;
            uint32_t len;
        } bytes;        /* bytes, addresses */
        const char *str;
    } v;
};

/* Name of one enumerated value; tables end with {0, NULL}. */
struct rs_value_string {
    uint64_t value;
    const char *name;
};

struct rs_field;

/* Produces occurrence `occ` (0 for the first) of field f in pkt. Returns false
 * when the packet does not carry that occurrence. */
typedef bool (*rs_field_get_fn)(const struct rs_packet *pkt, const struct rs_field *f,
                                unsigned occ, struct rs_value *out);

/* Writes value v of f for humans (the tree's line after "Name: ") where
 * Wireshark writes more than the value and its name ("31, Ack"); returns
 * the length the text needs, as snprintf does. */
typedef size_t (*rs_field_show_fn)(const struct rs_field *f, const struct rs_value *v,
                                   char *buf, size_t size);

/* Writes the whole tree line of f, whose value in pkt is v, where Wireshark writes its
 * own text in place of "Name: value" ("CM ConnectRequest", "Frame Length: 74 bytes (592
 * bits)"); returns its length, as snprintf does, or 0 for the usual line. */
typedef size_t (*rs_field_label_fn)(const struct rs_packet *pkt, const struct rs_field *f,
                                    const struct rs_value *v, char *buf, size_t size);

/* Where occurrence occ of f lies in pkt's frame, for a field whose place the packet
 * decides (a MAD attribute's, which moves with the class and attribute): true with the
 * bytes' offset and length, false where the field's layer, offset and width say. */
typedef bool (*rs_field_locate_fn)(const struct rs_packet *pkt, const struct rs_field *f,
                                   unsigned occ, uint32_t *offset, uint32_t *length);

/* The levels occurrence occ of f sits below its depth in pkt's tree, for a field whose
 * nesting the packet decides (an SMP attribute's fields nest under the SMP's attribute
 * item, where an SA record's do not): 0 for none. */
typedef unsigned (*rs_field_nest_fn)(const struct rs_packet *pkt, const struct rs_field *f,
                                     unsigned occ);

#define RS_NO_LAYER 0xff

struct rs_field {
    const char *abbrev;     /* "infiniband.bth.psn" */
    const char *name;       /* "Packet Sequence Number" */
    uint8_t type;           /* enum rs_ftype */
    uint8_t base;           /* enum rs_fbase */
    uint64_t mask;          /* bits of the read value that form the field */
    const struct rs_value_string *vals;
    const char *blurb;      /* one-line description */
    /* Where the value comes from, when get is NULL: `width` bytes at
     * `offset` into `layer`, big-endian (width 0: the whole layer span). */
    uint8_t layer;          /* enum rs_layer, or RS_NO_LAYER */
    uint16_t offset;
    uint8_t width;
    rs_field_get_fn get;
    uint8_t depth;          /* nesting under its header, for tree output */
    uint16_t flags;         /* RS_FIELD_* */
    /* Other names of the values, accepted in filters and scripts but never
     * printed: `vals` are Wireshark's ("Reliable Connection (RC) - SEND
     * Only"), these our shorter ones ("RC Send Only"). */
    const struct rs_value_string *aliases;
    rs_field_show_fn show;  /* NULL: the value and its name, as value.c writes them */
    rs_field_label_fn label;    /* NULL: "Name: value" */
    rs_field_locate_fn locate;  /* NULL: its layer's offset plus its own */
    rs_field_nest_fn nest;      /* NULL: its depth alone */
};

#define RS_FIELD_HEADER 0x01    /* the bytes of a whole header: a tree node */
#define RS_FIELD_PER_PDU 0x02   /* one per iWARP PDU: the tree prints them PDU by PDU */
#define RS_FIELD_HIDDEN 0x04    /* for filters and -e only (ip.addr: the source, then the
                                   destination), hidden from the tree as Wireshark hides it
                                   (tshark's JSON shows it); never a field to set */
#define RS_FIELD_PSEUDO 0x08    /* no item of Wireshark's tree (the _ws.col.* columns, the
                                   bare frame protocol): for filters and -e only, never in
                                   any tree or JSON */
#define RS_FIELD_QUOTABLE 0x10  /* of no header, but with values in the datagram an ICMP
                                   error quotes as in a frame (data.*); a header's fields
                                   always have */
#define RS_FIELD_PER_ITEM 0x20  /* one per ICMPv6 ND option or MLDv2 record: the tree
                                   prints them item by item (rs_packet.item) */
#define RS_FIELD_ROWS 0x40      /* a column of a table whose entries are occurrences (a MAD's
                                   forwarding table): the tree prints the run of columns
                                   with the same getter entry by entry, as Wireshark does */
#define RS_FIELD_GENERATED 0x80 /* Wireshark's generated item: a value it computed rather
                                   than read, shown in brackets in the tree */
#define RS_FIELD_BITS 0x100     /* the mask picks the value's bits and the tree shows them,
                                   but Wireshark registers no mask (it adds the item with
                                   proto_tree_add_bits_item): -G shows 0x0 and PDML the
                                   whole bytes as the value */
#define RS_FIELD_NO_BYTES 0x200 /* covers no bytes: at `offset` into its layer, length 0
                                   (a generated item in PDML: size="0") */
#define RS_FIELD_TEXT 0x400     /* a line of text and no field (Wireshark's text items,
                                   "Timestamps"): abbrev "", the text from `label`; a
                                   node when fields nest below it */
#define RS_FIELD_REASSEMBLED 0x800 /* its bytes lie in a message reassembled from several
                                   frames (an iWARP Send), not in the frame: `locate`
                                   places it in that message, Wireshark's data source
                                   ("Reassembled SMB Direct") */

/* Number of registered fields; ids run from 0 to count-1 in tree order. */
int rs_field_count(void);
const struct rs_field *rs_field_by_id(int id);
/* Lowest id of the field named abbrev, or RS_ENOENT. A name can have
 * several ids when one value can come from several headers (Wireshark
 * shows an AtomicETH's VA as infiniband.reth.va); rs_field_next_alias()
 * walks them in id order and returns -1 after the last. */
int rs_field_lookup(const char *abbrev);
int rs_field_next_alias(int id);
/* True when id is the lowest id of its name: the one lists and JSON show. */
bool rs_field_is_first_of_name(int id);

/* The bytes of pkt's frame that value v, occurrence occ of f, comes from (what the tree
 * and PDML show as its place): true with their offset and length; false, with both 0,
 * when it covers none (a value computed, or from bytes not in the frame). */
bool rs_field_span(const struct rs_packet *pkt, const struct rs_field *f,
                   const struct rs_value *v, unsigned occ, uint32_t *offset, uint32_t *length);

/* Whether f can have values in the datagram an ICMP error quotes: the
 * fields of a header (the quote's view holds only IP and what is above),
 * and those that ask for it (RS_FIELD_QUOTABLE), never the frame's own
 * (frame.*, columns). */
bool rs_field_in_quote(const struct rs_field *f);

/* Produces occurrence occ of field id; see rs_field_get_fn. When an ICMP
 * error quotes a datagram (RS_PKT_ICMP_QUOTE), the quote's values follow the
 * frame's own (ip.src: the error's source, then the quoted datagram's). */
bool rs_field_value(const struct rs_packet *pkt, int id, unsigned occ, struct rs_value *out);

/* Writes v as the numeric field f whose first byte is at: its width's bytes,
 * big-endian, under its mask (the other bits kept). The other direction of
 * the layer, offset, width and mask a value is read with. */
void rs_field_store(const struct rs_field *f, uint8_t *at, uint64_t v);

/* Most occurrences of one field in one frame that consumers will walk. */
#define RS_MAX_OCCURRENCES 64

/* For a consumer that walked the first `walked` occurrences of field id in pkt: when
 * that is RS_MAX_OCCURRENCES and the field has more, the frame is counted as cut. A
 * frame counts once however many fields and consumers stop at the bound on it, as long
 * as they look at it one after another (as the filter and the printers do). */
void rs_field_note_cut(const struct rs_packet *pkt, int id, unsigned walked);
/* Frames counted by rs_field_note_cut() (and rs_field_foreach()) in this process. */
uint64_t rs_field_frames_cut(void);

typedef void (*rs_value_fn)(void *ctx, const struct rs_field *f, const struct rs_value *v);

/* Calls fn for every value of the field id and of its aliases, in id then
 * occurrence order, the frame's and then a quoted datagram's (as
 * rs_field_value); returns how many there were. */
unsigned rs_field_foreach(const struct rs_packet *pkt, int id, rs_value_fn fn, void *ctx);
/* The same for the values of protocol layers lo to hi (from 1), as a filter's
 * field#N counts them: the frame's own headers are layer 1, except that each VLAN tag
 * and each iWARP PDU is a layer of its own, in order; the datagram an ICMP error quotes
 * is layer 2 (ip.src#2 is its source). */
unsigned rs_field_foreach_layers(const struct rs_packet *pkt, int id, unsigned lo, unsigned hi,
                                 rs_value_fn fn, void *ctx);

/* Formats v as `tshark -T fields` would print it; returns the length that
 * the full text needs (as snprintf does). */
size_t rs_value_format(const struct rs_field *f, const struct rs_value *v, char *buf,
                       size_t size);

/* Whose tshark -T fields to print as, where versions differ
 * (docs/wireshark-versions.md). */
enum rs_value_style {
    RS_STYLE_TSHARK_4_0 = 0,    /* the contract: booleans as 1 and 0 */
    RS_STYLE_TSHARK_4_4,        /* booleans as True and False (4.4 and 4.6) */
};

/* rs_value_format() in the style of another tshark. */
size_t rs_value_format_style(const struct rs_field *f, const struct rs_value *v,
                             enum rs_value_style style, char *buf, size_t size);

/* Formats v for humans (tree and summary lines): value names and both
 * bases where Wireshark shows them. */
size_t rs_value_format_display(const struct rs_field *f, const struct rs_value *v, char *buf,
                               size_t size);

/* "FT_UINT32" for RS_FT_UINT32: Wireshark's name of a field type. */
const char *rs_field_type_name(uint8_t type);

/* A show function (rs_field.show) for a field of flags whose bits are the entries after
 * it in its table, a level deeper, as Wireshark's bitmask items read: the value in hex,
 * then ", Name" for each boolean set and ", Name: value name" for each named value
 * ("0xc0, Managed address configuration, Prf (Default Router Preference): Medium"). */
size_t rs_show_flags(const struct rs_field *f, const struct rs_value *v, char *buf,
                     size_t size);
/* A show function for a number whose value names stand for a few special values only, as
 * Wireshark's BASE_SPECIAL_VALS: "Infinity (4294967295)" for a named value, the bare
 * number for any other (not "Unknown (1800)"). */
size_t rs_show_special_vals(const struct rs_field *f, const struct rs_value *v, char *buf,
                            size_t size);
/* For a show function: the value in hex as the tree writes it, then ", " and a note
 * ("0x4, Active"), as a Wireshark dissector writes a field it adds in hex and then
 * appends its own text to, with no value names registered (-T fields, filters and -G
 * know only the number). */
size_t rs_show_noted(const struct rs_field *f, const struct rs_value *v, const char *note,
                     char *buf, size_t size);
/* Name of value in vals, or NULL. */
const char *rs_value_name(const struct rs_value_string *vals, uint64_t value);
/* The value that name stands for in f's value names or their aliases, compared
 * without regard to case as Wireshark's filters compare them; false when
 * neither has it. */
bool rs_value_by_name(const struct rs_field *f, const char *name, uint64_t *out);

#define RS_U64_TEXT_MAX 20     /* the digits of UINT64_MAX */
/* Writes v in decimal at buf, unterminated; returns the number of digits. Without
 * printf: the outputs and the statistics format millions of numbers. */
size_t rs_format_u64(char buf[RS_U64_TEXT_MAX], uint64_t v);

/* Writes the n bytes at src as 2n lowercase hex digits at dst, unterminated:
 * how byte fields are formatted, and what the outputs write of a byte run.
 * Inline: the outputs' separated runs call it a byte at a time. */
static inline void
rs_hex_pairs(char *dst, const uint8_t *src, size_t n)
{
    static const char digits[] = "0123456789abcdef";

    for (size_t i = 0; i < n; i++) {
        dst[2 * i] = digits[src[i] >> 4];
        dst[2 * i + 1] = digits[src[i] & 0xf];
    }
}

/* "0100 .... = ": the low `bits` bits of word that mask keeps, the others as dots, a
 * space every four, as Wireshark's tree writes a bit field before its name; returns the
 * length (snprintf's rule). */
size_t rs_format_bits(char *buf, size_t size, uint64_t word, uint64_t mask, unsigned bits);

/* The lowest set bit of mask, as a shift count (0 for no mask). */
unsigned rs_mask_shift(uint64_t mask);

#endif /* ROCESHARK_FIELDS_H */
