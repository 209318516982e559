/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print_tree.c - `-V`: every field present, indented under its protocol and
 * header, with bit patterns for fields that are parts of a byte, the way
 * `tshark -V` shows them.
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/expert.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/icmp.h>
#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/mad.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/dissectors/streams.h>

#define INDENT 4
#define TREE_BYTES_MAX 36     /* bytes a tree line shows before its ellipsis */

struct tree_ctx {
    struct rs_out *o;
    const struct rs_packet *pkt;
    const char *const *expand;      /* -O: the protocols whose lines are shown; NULL all */
    size_t n_expand;
    bool expanded;                  /* the protocol being walked is one of them */
};

static void
indent(struct rs_out *o, unsigned depth)
{
    size_t n = (size_t)depth * INDENT;
    char *p = n > 0 ? rs_out_reserve(o, n) : NULL;

    if (p != NULL) {
        memset(p, ' ', n);
        rs_out_commit(o, n);
    }
}

/* "0... .... = " for bit 7 of one byte: the mask's bits, the rest dotted. */
static void
bit_pattern(struct rs_out *o, const struct rs_field *f, uint64_t value)
{
    char text[96];
    size_t n = rs_format_bits(text, sizeof(text), value << rs_mask_shift(f->mask), f->mask,
                              f->width * 8u);

    rs_out_write(o, text, n < sizeof(text) ? n : sizeof(text) - 1);
}

/* Which items' bytes a walk works out (rs_field_span, place_in_source). */
enum spans {
    SPANS_NONE,
    /* -V's: the protocols' (Data's bytes are dumped under its line) and any on a reassembled
     * message (a fragment's line gives its place); the rest were 3% of -V's time. */
    SPANS_SHOWN,
    SPANS_ALL
};

struct walk_ctx {
    const struct rs_packet *pkt;    /* the packet the values are read from (a PDU's view) */
    rs_tree_fn fn;
    void *arg;
    uint8_t skip;                   /* fields with any of these RS_FIELD_* flags are left out */
    int data_id;                    /* the data protocol's id when it is walked apart, else -1 */
    bool data_nested;               /* and it nests under ICMP (else it follows each FPDU) */
    uint8_t shift;                  /* added to the depth: a quote's headers nest under ICMP */
    bool tshark;                    /* roceshark's own fields left out (--compat tshark) */
    enum spans spans;
    const uint8_t *source;          /* the PDU's reassembled message, where its items lie */
    uint32_t source_len;
    /* an FPDU that had markers: its octets without them, where Wireshark places DDP's and
     * RDMAP's items and the data (its "FPDU without Markers"), and a view of it whose
     * locators place there */
    const uint8_t *unmarked;
    uint32_t unmarked_len;
    const struct rs_packet *unmarked_view;
    uint32_t unmarked_last;         /* where the last bytes placed there start (data.len's) */
};

/* What the walk knows of each field id, made once (fields_init): the registry's entry
 * and where the walk may jump past it, so that its loop over a thousand ids asks a
 * getter only where a value can be. */
struct field_walk {
    const struct rs_field *f;
    int run_end;        /* see runs: 0 where the field cannot be passed by its layer */
    int proto;          /* see runs: the first field of its protocol, or -1 */
    uint16_t flags;     /* f's, here with its layer so that the walk's loop reads f only */
    uint8_t layer;      /* for a field it asks */
    int8_t guard;       /* the guarded range it lies in (enum guard), or GUARD_NONE */
    bool ours;          /* a roceshark.* field */
    bool icmp;          /* read from ICMP or ICMPv6 */
    bool plain;         /* walked by walk_field alone (no rows, PDUs, items, data) */
    /* Where a run of fields the walk does nothing for one by one ends, from id: */
    int left_out_end[2];    /* plain fields it leaves out, [0] those with RS_FIELD_PSEUDO
                               (the hidden walk's), [1] with RS_FIELD_HIDDEN too (-V's) */
    int pdu_end;            /* fields of each iWARP PDU, walked apart */
    /* An expert item's block (_ws.expert, its own line, message, severity, group): each
     * line has a value just when the packet has that kind of item, so the walk passes
     * the rest of the block when its first line has none. */
    int block_end;          /* at a block's first line: the id past the block, else 0 */
    int block_head;         /* at a line of a block after its first: the first, else -1 */
    uint32_t fact;          /* a roceshark.analysis field's RS_FACT_* flag, else 0 */
    uint16_t name_len;      /* strlen(f->name): a tree line's name is written often */
};

static struct field_walk *fw;   /* by id, one past the last id too (its f NULL) */

static const struct rs_field *field_at(int id);
static bool ours_at(int id);
static bool icmp_at(int id);

static bool
is_data_field(const struct walk_ctx *w, int id)
{
    return w->data_id >= 0 && id >= w->data_id && id <= w->data_id + 2;
}

/* Occurrence occ of f's depth in pkt's tree: its own, and the levels the packet nests it by. */
static unsigned
depth_of(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ)
{
    return f->depth + (f->nest != NULL ? f->nest(pkt, f, occ) : 0);
}

/* Whether f is placed in an FPDU's marker-free octets when it had markers: DDP's and
 * RDMAP's items and the data, as Wireshark's; MPA's stay in the frame, and so do ours
 * (roceshark.*, placed in the frame as the Wireshark plugin places them). */
static bool
in_unmarked(const struct rs_field *f)
{
    return strncmp(f->abbrev, "iwarp_mpa", 9) != 0 && strncmp(f->abbrev, "roceshark", 9) != 0;
}

/* Where occurrence occ of f lies when the walk is on a reassembled message: its bytes in
 * the message, or the message's place for it (RS_FIELD_REASSEMBLED). False where it is
 * placed as any field is, in the frame. */
static bool
place_in_source(struct walk_ctx *w, const struct rs_packet *pkt,
                const struct rs_field *f, const struct rs_value *v, unsigned occ,
                struct rs_tree_item *it)
{
    uint32_t off, len;

    if (w->unmarked != NULL && !(f->flags & RS_FIELD_REASSEMBLED) && in_unmarked(f)) {
        bool bytes = (v->type == RS_FT_BYTES || v->type == RS_FT_PROTOCOL) &&
                     v->v.bytes.ptr != NULL && v->v.bytes.ptr >= w->unmarked &&
                     v->v.bytes.len <= w->unmarked_len &&
                     (size_t)(v->v.bytes.ptr - w->unmarked) <= w->unmarked_len - v->v.bytes.len;
        if (bytes) {
            off = w->unmarked_last = (uint32_t)(v->v.bytes.ptr - w->unmarked);
            len = v->v.bytes.len;
        } else if (f->locate == NULL || !f->locate(w->unmarked_view, f, occ, &off, &len)) {
            off = w->unmarked_last;     /* a generated item after bytes: at them, as tshark's */
            len = 0;
        }
        it->source = w->unmarked;
        it->offset = off;
        it->length = len;
        return true;
    }
    if (w->source == NULL)
        return false;
    if (f->flags & RS_FIELD_REASSEMBLED) {
        if (f->locate == NULL || !f->locate(pkt, f, occ, &off, &len) ||
            off + (uint64_t)len > w->source_len)
            return true;        /* nowhere */
    } else if ((v->type == RS_FT_BYTES || v->type == RS_FT_PROTOCOL) &&
               v->v.bytes.ptr != NULL && v->v.bytes.ptr >= w->source &&
               v->v.bytes.len <= w->source_len &&
               (size_t)(v->v.bytes.ptr - w->source) <= w->source_len - v->v.bytes.len) {
        off = (uint32_t)(v->v.bytes.ptr - w->source);
        len = v->v.bytes.len;
    } else {
        return false;
    }
    it->source = w->source;
    it->offset = off;
    it->length = len;
    return true;
}

static bool
wants_span(const struct walk_ctx *w, const struct rs_value *v)
{
    return w->spans == SPANS_ALL ||
           (w->spans == SPANS_SHOWN && (v->type == RS_FT_PROTOCOL || w->source != NULL));
}

static bool
walk_field(struct walk_ctx *w, const struct rs_packet *pkt, int id)
{
    const struct rs_field *f = field_at(id);
    struct rs_value v;

    /* Cheap presence test first: most fields are absent from a frame. */
    if ((f->flags & w->skip) || (w->tshark && ours_at(id)) || !rs_field_value(pkt, id, 0, &v))
        return false;
    unsigned occ = 0;
    do {
        struct rs_tree_item it = {RS_TREE_FIELD, f, &v, depth_of(pkt, f, occ) + w->shift, 0, 0,
                                  false, pkt, id};
        if (w->data_nested && is_data_field(w, id))
            it.depth++;     /* data, data.data and data.len: one table, in this order */
        if (wants_span(w, &v) && !place_in_source(w, pkt, f, &v, occ, &it))
            rs_field_span(pkt, f, &v, occ, &it.offset, &it.length);
        it.node = v.type == RS_FT_PROTOCOL || v.type == RS_FT_NONE ||
                  (f->flags & (RS_FIELD_HEADER | RS_FIELD_TEXT));
        w->fn(w->arg, &it);
    } while (++occ < RS_MAX_OCCURRENCES && rs_field_value(pkt, id, occ, &v));
    rs_field_note_cut(pkt, id, occ);
    return true;
}

/* The end of the run of items' fields that starts at id: the fields after it with
 * RS_FIELD_PER_ITEM. */
static int
items_end(int id)
{
    int end = id + 1;

    while (end < rs_field_count() && (field_at(end)->flags & RS_FIELD_PER_ITEM))
        end++;
    return end;
}

/* A run of items' fields [id, end) (ICMPv6's options or MLDv2 records, TCP's options,
 * an IPv6 header's options) item by item, each with its parts, as tshark's tree shows
 * them: each pass sees a view of that item alone. */
static int rows_end(int id);
static bool walk_rows(struct walk_ctx *w, const struct rs_packet *pkt, int id, int end);

static void
walk_items(struct walk_ctx *w, const struct rs_packet *pkt, int id, int end)
{
    struct rs_packet p = *pkt;

    for (unsigned i = 1; i <= UINT8_MAX; i++) {
        bool any = false;
        p.item = (uint8_t)i;
        for (int f = id; f < end; f++) {
            if (field_at(f)->flags & RS_FIELD_ROWS) {
                int rend = rows_end(f);
                any |= walk_rows(w, &p, f, rend);
                f = rend - 1;
            } else {
                any |= walk_field(w, &p, f);
            }
        }
        if (!any)
            break;
    }
}

/* The end of the run of table columns that starts at id: the fields after it with
 * RS_FIELD_ROWS and its getter. */
static int
rows_end(int id)
{
    const struct rs_field *f = field_at(id);
    int end = id + 1;

    while (end < rs_field_count() && (field_at(end)->flags & RS_FIELD_ROWS) &&
           field_at(end)->get == f->get)
        end++;
    return end;
}

/* A table's columns [id, end) entry by entry: occurrence occ of each, then the next.
 * Returns whether there was any. */
static bool
walk_rows(struct walk_ctx *w, const struct rs_packet *pkt, int id, int end)
{
    struct rs_value v;

    if ((field_at(id)->flags & w->skip) || !rs_field_value(pkt, id, 0, &v))
        return false;
    for (unsigned occ = 0; occ < RS_MAX_OCCURRENCES; occ++) {
        bool any = false;
        for (int c = id; c < end; c++) {
            const struct rs_field *f = field_at(c);
            if (!rs_field_value(pkt, c, occ, &v))
                continue;
            struct rs_tree_item it = {RS_TREE_FIELD, f, &v, depth_of(pkt, f, occ), 0, 0, false,
                                      pkt, c};
            it.node = v.type == RS_FT_NONE || (f->flags & (RS_FIELD_HEADER | RS_FIELD_TEXT));
            if (wants_span(w, &v))
                rs_field_span(pkt, f, &v, occ, &it.offset, &it.length);
            w->fn(w->arg, &it);
            any = true;
        }
        if (!any)
            return true;
    }
    for (int c = id; c < end; c++)
        rs_field_note_cut(pkt, c, RS_MAX_OCCURRENCES);
    return true;
}

/* iWARP fields PDU by PDU, as tshark shows one MPA (and one DDP/RDMAP)
 * tree per FPDU, and the data the FPDU hands on after it: each pass sees a
 * view holding that PDU alone. */
static void
walk_iwarp_pdus(struct walk_ctx *w, const struct rs_packet *pkt)
{
    const struct rs_iwarp_view *v = pkt->iwarp;

    for (unsigned i = 0; i < v->n_pdus; i++) {
        struct rs_iwarp_view one = *v;
        struct rs_packet p = *pkt;
        one.pdus = &v->pdus[i];
        one.n_pdus = 1;
        one.markers = v->markers + v->pdus[i].first_marker;
        one.n_markers = v->pdus[i].n_markers;
        p.iwarp = &one;
        /* a Send of several FPDUs: Wireshark's items of the message lie in it */
        bool reasm = (v->pdus[i].flags & RS_IWARP_PDU_SEND_REASM) && v->pdus[i].send_data;
        w->source = reasm ? v->pdus[i].send_data : NULL;
        w->source_len = reasm ? v->pdus[i].send_len : 0;
        /* an FPDU that had markers: DDP's and RDMAP's items in its octets without them */
        struct rs_iwarp_view unmarked = one;
        struct rs_packet up = p;
        unmarked.flags |= RS_IWARP_VIEW_UNMARKED_PLACES;
        up.iwarp = &unmarked;
        bool marked = rs_iwarp_pdu_unmarked(&v->pdus[i]);
        w->unmarked = marked ? v->pdus[i].data : NULL;
        w->unmarked_len = marked ? v->pdus[i].caplen : 0;
        w->unmarked_view = marked ? &up : NULL;
        w->unmarked_last = 0;
        for (int id = 0; id < rs_field_count(); id++) {
            uint16_t flags = field_at(id)->flags;
            if (!(flags & RS_FIELD_PER_PDU))
                continue;
            if (flags & RS_FIELD_ROWS) {    /* the markers, each with its two halves */
                int end = rows_end(id);
                walk_rows(w, &p, id, end);
                id = end - 1;
            } else {
                walk_field(w, &p, id);
            }
        }
        for (int d = w->data_id; d <= w->data_id + 2; d++)
            walk_field(w, &p, d);
        w->source = w->unmarked = NULL;
        w->source_len = w->unmarked_len = 0;
        w->unmarked_view = NULL;
    }
}

/* Whether a field of the datagram an ICMP error quotes sits under the ICMP
 * item: its IP and transport headers do, as Wireshark shows them, with the items of
 * no layer of their own in their protocols (TCP's expert items); what they carry
 * (InfiniBand, data) comes after, where the frame's own would. */
static bool
under_icmp(int id)
{
    const struct rs_field *f = field_at(id);
    unsigned layer = f->layer;

    if (layer >= RS_LAYER_COUNT && (f->flags & RS_FIELD_QUOTABLE) && fw != NULL &&
        fw[id].proto >= 0)
        layer = fw[fw[id].proto].layer;
    switch (layer) {
    case RS_LAYER_IPV4:
    case RS_LAYER_IPV6:
    case RS_LAYER_UDP:
    case RS_LAYER_TCP:
    case RS_LAYER_ICMP:
    case RS_LAYER_ICMPV6:
        return true;
    default:
        return false;
    }
}

static void
walk_quote(struct walk_ctx *w, const struct rs_packet *pkt, const struct rs_packet *quote)
{
    struct rs_icmp m;

    /* a redirect's packet sits in its option, the last one (RFC 4861 8.2) */
    w->shift = rs_icmp_of(pkt, &m) && m.v6 && m.type == RS_ICMPV6_REDIRECT ? 2 : 1;
    for (int id = 0; id < rs_field_count(); id++) {
        if (!under_icmp(id))
            continue;
        const struct rs_field *f = field_at(id);
        if (f->flags & RS_FIELD_PER_ITEM) {     /* TCP's options, item by item */
            int end = items_end(id);
            if (f->layer >= RS_LAYER_COUNT || rs_packet_has(quote, f->layer))
                walk_items(w, quote, id, end);
            id = end - 1;
        } else {
            walk_field(w, quote, id);
        }
    }
    w->shift = 0;
}

/* The quote's values of a field that does not sit under the ICMP item. */
static bool
after_icmp(int id)
{
    return !under_icmp(id) && rs_field_in_quote(field_at(id));
}

/* Runs of fields read from one layer, so that a walk passes a layer the frame lacks in
 * one step rather than asking each of its fields: a field read from a layer has no value
 * without it (outside an ICMP error's quote, which is walked field by field).
 * fw[id].run_end is the id after the run that starts at id, or 0 where id cannot be
 * passed so: no layer of its own; ICMP's, whose end the walk marks; or one walked
 * specially (table rows, per iWARP PDU, per ICMPv6 item).
 *
 * A protocol read from a layer (Ethernet, IP, UDP, TCP, ...) is passed whole from its
 * first field: the fields after it up to the next protocol include some of no layer of
 * their own (TCP's sequence analysis, the expert items under a header) that are still
 * nothing without the protocol. fw[id].proto is that first field, or -1.
 *
 * Ranges passed whole on a test of the frame: the fields read from a MAD (some 470 of
 * them, all on the payload's layer, which nearly every frame has) when the frame is no
 * MAD; ICMP's and ICMPv6's (whose end the walk marks) when the frame has neither; the
 * iWARP stage's roceshark.iwarp.* when the frame has no iWARP view; TCP's reassembled
 * message's items when the segment completes none; and the malformed
 * and cut-short items that end a tree when the frame is neither. Besides, a
 * roceshark.analysis field is passed when the facts lack its flag, and an expert block
 * after its first line when that has no value (field_walk). On the mixed traffic of
 * bench_read.py those were some 40 of the 65 fields a frame's walk asked for in vain.
 * rs_tree_passes() says the same of one field; tests/robust/exercise.c checks on every
 * hostile frame that no field it passes has a value. */
enum guard {
    GUARD_MAD,
    GUARD_ICMP,
    GUARD_IWARP,
    GUARD_TCP_REASM,
    GUARD_END,
    GUARD_COUNT
};
#define GUARD_NONE (-1)

struct id_range {       /* field ids [from, to) */
    int from, to;
};

static struct id_range guarded[GUARD_COUNT];
static pthread_once_t fields_once = PTHREAD_ONCE_INIT;

static bool
passable(const struct rs_field *f)
{
    return f->layer < RS_LAYER_COUNT && f->layer != RS_LAYER_ICMP &&
           f->layer != RS_LAYER_ICMPV6 &&
           !(f->flags & (RS_FIELD_ROWS | RS_FIELD_PER_PDU | RS_FIELD_PER_ITEM));
}

static bool
icmp_layer(const struct rs_field *f)
{
    return f->layer == RS_LAYER_ICMP || f->layer == RS_LAYER_ICMPV6;
}

/* The ICMP range: the first run of fields read from ICMP or ICMPv6, and the rest of the
 * protocol it ends in (ICMPv6's option items, whose expert items have no layer of their
 * own). */
static struct id_range
icmp_range(void)
{
    int n = rs_field_count(), from = 0;

    while (from < n && !icmp_layer(rs_field_by_id(from)))
        from++;
    int to = from;
    while (to < n && icmp_layer(rs_field_by_id(to)))
        to++;
    while (to < n && rs_field_by_id(to)->depth != 0)
        to++;
    return (struct id_range){from, to};
}

/* The id past the last field of the protocol whose first field is head, where the walk
 * may pass it whole on head's layer: every field up to the next protocol is read from
 * that layer or from none, and none is one whose place the walk marks (ICMP's end, the
 * iWARP PDUs). 0 where it may not. */
static int
protocol_end(int head)
{
    const struct rs_field *h = rs_field_by_id(head);
    int n = rs_field_count(), end = head + 1;

    if (h->depth != 0 || !passable(h))
        return 0;
    for (; end < n; end++) {
        const struct rs_field *f = rs_field_by_id(end);
        if (f->depth == 0)
            break;
        if ((f->layer < RS_LAYER_COUNT && f->layer != h->layer) || icmp_layer(f) ||
            (f->flags & RS_FIELD_PER_PDU))
            return 0;
    }
    return end;
}

/* The run of fields from the one named first that share its getter: roceshark.iwarp.*,
 * all read from the frame's iWARP view. */
static struct id_range
getter_run(const char *first)
{
    int from = rs_field_lookup(first), to = from;

    if (from < 0)
        return (struct id_range){0, 0};
    while (to < rs_field_count() && rs_field_by_id(to)->get == rs_field_by_id(from)->get)
        to++;
    return (struct id_range){from, to};
}

/* TCP's reassembled message's fields, from its node to its bytes. */
static struct id_range
tcp_reasm_range(void)
{
    int from = rs_field_lookup("tcp.segments"), last = rs_field_lookup("tcp.reassembled.data");

    return from >= 0 && last >= from ? (struct id_range){from, last + 1}
                                     : (struct id_range){0, 0};
}

/* The items that end a malformed or cut-short frame's tree, the last fields of the
 * registry: the protocol _ws.malformed with its expert item, then _ws.short (other
 * protocols have items of that name of their own). */
static struct id_range
end_range(void)
{
    int last = rs_field_count() - 1, from = last;

    if (last < 0 || strcmp(rs_field_by_id(last)->abbrev, "_ws.short") != 0)
        return (struct id_range){0, 0};
    while (--from >= 0 && strncmp(rs_field_by_id(from)->abbrev, "_ws.", 4) == 0) {
        const struct rs_field *f = rs_field_by_id(from);
        if (f->depth == 0 && strcmp(f->abbrev, "_ws.malformed") == 0)
            return (struct id_range){from, last + 1};
    }
    return (struct id_range){0, 0};
}

/* Whether an expert block starts at id: the five lines RS_F_WS_EXPERT makes, of one
 * getter and one kind. */
static bool
expert_block_at(int id)
{
    const struct rs_field *head = rs_field_by_id(id);

    if (strcmp(head->abbrev, "_ws.expert") != 0 || id + 5 > rs_field_count())
        return false;
    for (int i = id + 1; i < id + 5; i++) {
        const struct rs_field *f = rs_field_by_id(i);
        if (f->get != head->get || f->offset != head->offset || f->depth <= head->depth)
            return false;
    }
    return true;
}

static void
fields_init(void)
{
    int n = rs_field_count();
    int mad = rs_field_lookup("infiniband.mad"), payload = rs_field_lookup("infiniband.payload");

    fw = calloc((size_t)n + 1, sizeof(*fw));
    if (fw == NULL)
        return;     /* every field is then asked (field_at) */
    guarded[GUARD_MAD] = mad >= 0 && payload > mad ? (struct id_range){mad, payload}
                                                   : (struct id_range){0, 0};
    guarded[GUARD_ICMP] = icmp_range();
    guarded[GUARD_IWARP] = getter_run("roceshark.iwarp.conn");
    guarded[GUARD_TCP_REASM] = tcp_reasm_range();
    guarded[GUARD_END] = end_range();
    for (int id = n - 1; id >= 0; id--) {
        const struct rs_field *f = rs_field_by_id(id);
        struct field_walk *w = &fw[id];
        w->f = f;
        w->name_len = (uint16_t)strnlen(f->name, UINT16_MAX);
        w->proto = -1;
        w->flags = f->flags;
        w->layer = f->layer;
        w->ours = strncmp(f->abbrev, "roceshark", 9) == 0;
        w->icmp = icmp_layer(f);
        w->plain = !w->icmp && !(f->flags & (RS_FIELD_ROWS | RS_FIELD_PER_PDU |
                                             RS_FIELD_PER_ITEM));
        const struct field_walk *after = &fw[id + 1];
        w->left_out_end[0] = !w->plain || !(f->flags & RS_FIELD_PSEUDO) ? 0
                             : after->left_out_end[0] != 0 ? after->left_out_end[0] : id + 1;
        w->left_out_end[1] = !w->plain || !(f->flags & (RS_FIELD_PSEUDO | RS_FIELD_HIDDEN)) ? 0
                             : after->left_out_end[1] != 0 ? after->left_out_end[1] : id + 1;
        w->pdu_end = w->icmp || !(f->flags & RS_FIELD_PER_PDU) ? 0
                     : after->pdu_end != 0 ? after->pdu_end : id + 1;
        w->guard = GUARD_NONE;
        for (int g = 0; g < GUARD_COUNT; g++)
            if (id >= guarded[g].from && id < guarded[g].to)
                w->guard = (int8_t)g;
        w->fact = rs_analysis_field_fact(f);
        w->block_head = -1;
        if (!passable(f))
            continue;
        const struct rs_field *next = fw[id + 1].f;
        w->run_end = next != NULL && fw[id + 1].run_end != 0 && next->layer == f->layer
                         ? fw[id + 1].run_end : id + 1;
    }
    for (int id = 0; id < n; id++) {
        if (!expert_block_at(id))
            continue;
        fw[id].block_end = id + 5;
        for (int in = id + 1; in < id + 5; in++)
            fw[in].block_head = id;
    }
    for (int id = 0; id < n; id++) {
        int end = protocol_end(id);
        if (end == 0)
            continue;
        fw[id].run_end = end > fw[id].run_end ? end : fw[id].run_end;
        for (int in = id; in < end; in++)
            fw[in].proto = id;
    }
}

/* The field of id, and whether it is ours or ICMP's, from fw (or, had fw no memory,
 * from the registry). */
static const struct rs_field *
field_at(int id)
{
    return fw != NULL ? fw[id].f : rs_field_by_id(id);
}

static bool
ours_at(int id)
{
    return fw != NULL ? fw[id].ours : strncmp(rs_field_by_id(id)->abbrev, "roceshark", 9) == 0;
}

static bool
icmp_at(int id)
{
    const struct rs_field *f = field_at(id);

    return fw != NULL ? fw[id].icmp : f != NULL && icmp_layer(f);
}

/* Which guarded ranges the frame's own view has nothing in. */
static void
guards_absent(const struct rs_packet *pkt, bool absent[GUARD_COUNT])
{
    size_t len;

    absent[GUARD_MAD] = rs_mad_shown(pkt, &len) == NULL;
    absent[GUARD_ICMP] = !rs_packet_has(pkt, RS_LAYER_ICMP) &&
                         !rs_packet_has(pkt, RS_LAYER_ICMPV6);
    absent[GUARD_IWARP] = pkt->iwarp == NULL;
    absent[GUARD_TCP_REASM] = rs_stream_reasm_of(pkt) == NULL;
    absent[GUARD_END] = !rs_ws_malformed(pkt) && !rs_ws_cut_short(pkt) &&
                        !rs_ws_expert_present(pkt, RS_WSX_MALFORMED);
}

/* Whether the facts lack what the field at id needs (not a fact's field: false). */
static bool
fact_absent(const struct rs_packet *pkt, int id)
{
    return fw[id].fact != 0 && (pkt->facts == NULL || !(pkt->facts->flags & fw[id].fact));
}

bool
rs_tree_passes(const struct rs_packet *pkt, int id)
{
    const struct rs_field *f = rs_field_by_id(id);
    bool absent[GUARD_COUNT];

    pthread_once(&fields_once, fields_init);
    if (f == NULL || fw == NULL)
        return false;
    if (fw[id].run_end != 0 && !rs_packet_has_fields_of(pkt, f->layer))
        return true;
    if (fw[id].proto >= 0 && !rs_packet_has_fields_of(pkt, fw[fw[id].proto].layer))
        return true;
    struct rs_value v;
    if (fact_absent(pkt, id) ||
        (fw[id].block_head >= 0 && !rs_field_value(pkt, fw[id].block_head, 0, &v)))
        return true;
    guards_absent(pkt, absent);
    return fw[id].guard != GUARD_NONE && absent[fw[id].guard];
}

/* The order of the tree: the registry's, but IPoIB's InfiniBand layers come before the IP
 * or ARP packet they carry (the registry lists link and network layers first, as
 * Ethernet frames have them). */
static pthread_once_t order_once = PTHREAD_ONCE_INIT;
static int link_id, ib_id, data_id;     /* the first ids of Ethernet, InfiniBand and data */

static void
order_init(void)
{
    link_id = rs_field_lookup("eth");
    ib_id = rs_field_lookup("infiniband");
    data_id = rs_field_lookup("data");
}

static unsigned
walk_order(const struct rs_packet *pkt, struct id_range order[4])
{
    int n = rs_field_count();

    pthread_once(&order_once, order_init);
    if (!rs_packet_has(pkt, RS_LAYER_IPOIB) || link_id < 0 || ib_id < 0 || data_id < 0 ||
        !(link_id < ib_id && ib_id < data_id)) {
        order[0] = (struct id_range){0, n};
        return 1;
    }
    order[0] = (struct id_range){0, link_id};
    order[1] = (struct id_range){ib_id, data_id};
    order[2] = (struct id_range){link_id, ib_id};
    order[3] = (struct id_range){data_id, n};
    return 4;
}

static void
walk(const struct rs_packet *pkt, uint8_t skip, enum spans spans, rs_tree_fn fn, void *arg)
{
    /* An ICMP echo's data sits in ICMP's tree, as Wireshark shows it: walked
     * after ICMP's last field (even over IPoIB, whose IB fields come later). */
    bool in_icmp = rs_packet_has(pkt, RS_LAYER_ICMP) || rs_packet_has(pkt, RS_LAYER_ICMPV6);
    bool in_iwarp = pkt->iwarp != NULL && pkt->iwarp->n_pdus > 0;
    struct rs_icmp_quote q;
    bool quoted = rs_icmp_quote_view(pkt, &q);
    /* The frame's own values, the quote's walked apart (rs_field_value would
     * list them as more occurrences of the frame's); a quote's data comes
     * where the frame's would, as in Wireshark's tree. */
    struct rs_packet own = *pkt;
    if (own.flags & RS_PKT_ICMP_QUOTE)
        own.flags = (uint16_t)((own.flags & ~RS_PKT_ICMP_QUOTE) | RS_PKT_QUOTE_APART);
    pkt = &own;
    bool nested = in_icmp && !quoted;
    struct walk_ctx w = {pkt, fn, arg, skip, nested || in_iwarp ? rs_field_lookup("data") : -1,
                         nested, 0, rs_display_get()->tree_tshark, spans};
    struct rs_tree_item frame = {RS_TREE_FRAME, NULL, NULL, 0, 0, 0};

    frame.node = true;
    frame.length = pkt->frame->caplen;
    pthread_once(&fields_once, fields_init);
    fn(arg, &frame);
    bool pdus_done = false, absent[GUARD_COUNT];
    /* the walks leave out RS_FIELD_PSEUDO, and -V's RS_FIELD_HIDDEN too */
    assert((skip & RS_FIELD_PSEUDO) && !(skip & ~(RS_FIELD_PSEUDO | RS_FIELD_HIDDEN)));
    unsigned left_out = (skip & RS_FIELD_HIDDEN) ? 1 : 0;
    guards_absent(pkt, absent);
    struct id_range order[4];
    unsigned n_ranges = walk_order(pkt, order);
    /* a TCP segment that completes a message: the message's items lie in it (the guard
     * passes them on other frames; on this one, items with bytes elsewhere stay there) */
    const struct rs_tcp_reasm *reasm = quoted ? NULL : rs_stream_reasm_of(pkt);
    if (reasm != NULL) {
        w.source = reasm->data;
        w.source_len = reasm->len;
    }
    for (unsigned r = 0; r < n_ranges; r++)
    for (int id = order[r].from; id < order[r].to; id++) {
        if (fw != NULL) {
            const struct field_walk *x = &fw[id];
            /* left out: walk_field would ask nothing */
            if (x->plain && w.tshark && x->ours)
                continue;
            int past = x->plain && (x->flags & skip) ? x->left_out_end[left_out]
                       : quoted ? 0
                       : x->run_end != 0 && !rs_packet_has_fields_of(pkt, x->layer) ? x->run_end
                       : x->guard != GUARD_NONE && absent[x->guard] ? guarded[x->guard].to
                       : fact_absent(pkt, id) ? id + 1
                       : 0;
            if (past != 0) {
                id = (past < order[r].to ? past : order[r].to) - 1;
                continue;
            }
        }
        const struct rs_field *f = field_at(id);
        if (is_data_field(&w, id))
            continue;
        if ((f->flags & RS_FIELD_ROWS) && !(f->flags & RS_FIELD_PER_PDU)) {
            int end = rows_end(id);
            walk_rows(&w, pkt, id, end);
            id = end - 1;
        } else if (f->flags & RS_FIELD_PER_PDU) {
            if (!pdus_done && pkt->iwarp != NULL)
                walk_iwarp_pdus(&w, pkt);
            pdus_done = true;
            if (fw != NULL && fw[id].pdu_end != 0)
                id = (fw[id].pdu_end < order[r].to ? fw[id].pdu_end : order[r].to) - 1;
        } else if (f->flags & RS_FIELD_PER_ITEM) {
            int end = items_end(id);
            if (f->layer >= RS_LAYER_COUNT || rs_packet_has_fields_of(pkt, f->layer))
                walk_items(&w, pkt, id, end);
            id = end - 1;
        } else if (!walk_field(&w, pkt, id) && !quoted && fw != NULL && fw[id].block_end != 0) {
            id = (fw[id].block_end < order[r].to ? fw[id].block_end : order[r].to) - 1;
        } else if (quoted && after_icmp(id)) {
            walk_field(&w, &q.pkt, id);
        }
        if (icmp_at(id) && !icmp_at(id + 1)) {
            if (quoted)
                walk_quote(&w, pkt, &q.pkt);
            for (int d = w.data_id; w.data_nested && d <= w.data_id + 2; d++)
                walk_field(&w, pkt, d);
        }
    }
}

const uint8_t *
rs_tree_item_bytes(const struct rs_packet *pkt, const struct rs_tree_item *it)
{
    return (it->source != NULL ? it->source : pkt->frame->data) + it->offset;
}

void
rs_tree_walk(const struct rs_packet *pkt, rs_tree_fn fn, void *arg)
{
    walk(pkt, RS_FIELD_HIDDEN | RS_FIELD_PSEUDO, SPANS_ALL, fn, arg);
}

void
rs_tree_walk_hidden(const struct rs_packet *pkt, rs_tree_fn fn, void *arg)
{
    walk(pkt, RS_FIELD_PSEUDO, SPANS_ALL, fn, arg);
}

void
rs_tree_walk_hidden_unplaced(const struct rs_packet *pkt, rs_tree_fn fn, void *arg)
{
    walk(pkt, RS_FIELD_PSEUDO, SPANS_NONE, fn, arg);
}

/* Bytes as Wireshark's tree shows them: in hex, the first 36 and an ellipsis after
 * (proto.c's hfinfo_format_bytes), or "<MISSING>" for none. */
static void
tree_bytes(struct rs_out *o, const struct rs_value *v)
{
    uint32_t n = v->v.bytes.len;

    if (n == 0) {
        rs_out_str(o, "<MISSING>");
        return;
    }
    rs_out_hex(o, v->v.bytes.ptr, n > TREE_BYTES_MAX ? TREE_BYTES_MAX : n, '\0');
    if (n > TREE_BYTES_MAX)
        rs_out_str(o, "\u2026");
}

/* Room a tree line's label or value is written into: the longer ones are cut (a label)
 * or written again in full (a value), as the buffer on the stack they replaced did. */
#define LINE_ROOM 512

/* f's own text for its line written straight into o's buffer (a copy through the stack
 * and its strlen were 3% of -V); false where f has none for this value. */
static bool
tree_label(struct rs_out *o, const struct rs_packet *pkt, const struct rs_field *f,
           const struct rs_value *v)
{
    char *p = rs_out_reserve(o, LINE_ROOM);

    if (p == NULL)
        return true;
    size_t n = f->label(pkt, f, v, p, LINE_ROOM);
    if (n == 0)
        return false;
    if (n >= LINE_ROOM)
        n = strnlen(p, LINE_ROOM - 1);      /* cut, as snprintf cuts */
    assert(n == strnlen(p, LINE_ROOM));     /* the length a label returns is its text's */
    rs_out_commit(o, n);
    return true;
}

/* The name of it's field, as long as fields_init measured it (its strlen was 2% of -V). */
static void
field_name(struct rs_out *o, const struct rs_tree_item *it)
{
    const struct rs_field *f = it->field;

    if (fw != NULL && it->id >= 0 && it->id < rs_field_count() && fw[it->id].f == f)
        rs_out_write(o, f->name, fw[it->id].name_len);
    else
        rs_out_str(o, f->name);
}

void
rs_print_tree_line(struct rs_out *o, const struct rs_packet *pkt, const struct rs_tree_item *it)
{
    const struct rs_field *f = it->field;
    const struct rs_value *v = it->value;
    char text[512];

    if (it->view != NULL)
        pkt = it->view;
    if (it->kind == RS_TREE_FRAME) {
        uint32_t len = rs_packet_wire_len(pkt), caplen = rs_packet_cap_len(pkt);
        /* "Frame %llu: %u byte%s on wire (%u bits), %u byte%s captured (%u bits)", piece
         * by piece: vsnprintf for every tree's first line was 1.5% of -V. */
        rs_out_str(o, "Frame ");
        rs_out_pad_u64(o, pkt->frame->number, 0);
        rs_out_str(o, ": ");
        rs_out_pad_u64(o, len, 0);
        rs_out_str(o, len == 1 ? " byte on wire (" : " bytes on wire (");
        rs_out_pad_u64(o, (uint32_t)(len * 8), 0);
        rs_out_str(o, " bits), ");
        rs_out_pad_u64(o, caplen, 0);
        rs_out_str(o, caplen == 1 ? " byte captured (" : " bytes captured (");
        rs_out_pad_u64(o, (uint32_t)(caplen * 8), 0);
        rs_out_str(o, " bits)");
        if (rs_frame_interface(pkt, text, sizeof(text)) >= 0)
            rs_out_printf(o, " on interface %s, id %d", text,
                          rs_frame_interface(pkt, NULL, 0));
    } else if (f->label != NULL && tree_label(o, pkt, f, v)) {
        /* written */
    } else if ((f->flags & RS_FIELD_REASSEMBLED) && f->type == RS_FT_FRAMENUM &&
               it->source != NULL) {
        /* a fragment of a reassembled message, as Wireshark's reassembly shows each */
        rs_out_printf(o, "Frame: %llu, payload: %u-%u (%u byte%s)",
                      (unsigned long long)v->v.u, it->offset,
                      it->offset + (it->length > 0 ? it->length - 1 : 0), it->length,
                      it->length == 1 ? "" : "s");
    } else if (it->node) {
        field_name(o, it);      /* a header's values are the lines under it */
    } else {
        if (f->mask != 0 && f->width > 0 && f->width <= 4)
            bit_pattern(o, f, v->v.u);
        field_name(o, it);
        rs_out_str(o, ": ");
        if (v->type == RS_FT_BYTES && f->show == NULL) {
            tree_bytes(o, v);
            return;
        }
        /* formatted in place, as the label is */
        char *p = rs_out_reserve(o, LINE_ROOM);
        if (p == NULL)
            return;
        size_t n = rs_value_format_display(f, v, p, LINE_ROOM);
        if (n < LINE_ROOM)
            rs_out_commit(o, n);
        else
            rs_out_value(o, f, v);      /* long text in full */
    }
}

void
rs_print_tree_row(struct rs_out *o, const struct rs_packet *pkt, const struct rs_tree_item *it)
{
    bool generated = it->kind == RS_TREE_FIELD && (it->field->flags & RS_FIELD_GENERATED);

    if (generated)
        rs_out_char(o, '[');
    rs_print_tree_line(o, pkt, it);
    if (generated)
        rs_out_char(o, ']');
}

/* Whether the top-level line it opens a protocol that -O expands. */
static bool
expands(const struct tree_ctx *t, const struct rs_tree_item *it)
{
    const char *name = it->kind == RS_TREE_FRAME ? "frame" :
                       it->kind == RS_TREE_FIELD ? it->field->abbrev : NULL;

    for (size_t i = 0; name != NULL && i < t->n_expand; i++)
        if (strcmp(t->expand[i], name) == 0)
            return true;
    return false;
}

static void
print_line(void *arg, const struct rs_tree_item *it)
{
    struct tree_ctx *t = arg;

    if (t->expand != NULL) {
        if (it->depth == 0)
            t->expanded = expands(t, it);
        else if (!t->expanded)
            return;
    }
    indent(t->o, it->depth);
    rs_print_tree_row(t->o, t->pkt, it);
    rs_out_char(t->o, '\n');
    /* tshark's -V without -x: the bytes no protocol took, in hex below their line. */
    if (t->o->data_hex && it->kind == RS_TREE_FIELD && it->field->type == RS_FT_PROTOCOL &&
        it->length > 0 && strcmp(it->field->abbrev, "data") == 0) {
        rs_out_char(t->o, '\n');
        rs_print_hex_bytes(t->o, rs_tree_item_bytes(t->pkt, it), it->length);
    }
}

static void
print_tree(struct tree_ctx *t)
{
    walk(t->pkt, RS_FIELD_HIDDEN | RS_FIELD_PSEUDO, SPANS_SHOWN, print_line, t);
    rs_out_gap(t->o);
    rs_out_end_frame(t->o);
}

void
rs_print_tree(struct rs_out *o, const struct rs_packet *pkt)
{
    struct tree_ctx t = {o, pkt, NULL, 0, false};

    print_tree(&t);
}

void
rs_print_tree_only(struct rs_out *o, const struct rs_packet *pkt,
                   const char *const *protocols, size_t n_protocols)
{
    struct tree_ctx t = {o, pkt, protocols, n_protocols, false};

    print_tree(&t);
}
