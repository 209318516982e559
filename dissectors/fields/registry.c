/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * registry.c - one index over every field table: ids, lookup by name, and
 * value extraction.
 *
 * The tables are static, listed in field_tables.c; the index is built once at
 * start-up. Ids follow table order, which is wire order, so walking ids walks a
 * frame's tree.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/icmp.h>

#include "fields/fields_int.h"

#define MAX_FIELDS 2048    /* about 1,000 now: room for protocols and MAD classes added */

static const struct rs_field *fields[MAX_FIELDS];
static int n_fields;
static int by_name[MAX_FIELDS];     /* ids sorted by abbrev, then id */
static int next_alias[MAX_FIELDS];  /* next id with the same abbrev, or -1 */
static bool first_of_name[MAX_FIELDS];

static int
compare_by_name(const void *a, const void *b)
{
    int ia = *(const int *)a, ib = *(const int *)b;
    int c = strcmp(fields[ia]->abbrev, fields[ib]->abbrev);

    return c != 0 ? c : ia - ib;
}

__attribute__((constructor)) static void
registry_init(void)
{
    for (size_t t = 0; t < rs_field_n_tables; t++)
        for (const struct rs_field *f = rs_field_tables[t]; f->abbrev != NULL; f++)
            if (n_fields < MAX_FIELDS)
                fields[n_fields++] = f;
    for (int i = 0; i < n_fields; i++)
        by_name[i] = i;
    qsort(by_name, (size_t)n_fields, sizeof(by_name[0]), compare_by_name);
    for (int i = 0; i < n_fields; i++) {
        bool same = i + 1 < n_fields &&
                    strcmp(fields[by_name[i]]->abbrev, fields[by_name[i + 1]]->abbrev) == 0;
        next_alias[by_name[i]] = same ? by_name[i + 1] : -1;
        first_of_name[by_name[i]] = i == 0 || strcmp(fields[by_name[i - 1]]->abbrev,
                                                     fields[by_name[i]]->abbrev) != 0;
    }
}

int
rs_field_count(void)
{
    return n_fields;
}

const struct rs_field *
rs_field_by_id(int id)
{
    return id >= 0 && id < n_fields ? fields[id] : NULL;
}

int
rs_field_lookup(const char *abbrev)
{
    int lo = 0, hi = n_fields;

    /* Lower bound: the first entry not below abbrev is the lowest id. */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (strcmp(fields[by_name[mid]]->abbrev, abbrev) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n_fields && strcmp(fields[by_name[lo]]->abbrev, abbrev) == 0)
        return by_name[lo];
    return RS_ENOENT;
}

int
rs_field_next_alias(int id)
{
    return id >= 0 && id < n_fields ? next_alias[id] : -1;
}

bool
rs_field_is_first_of_name(int id)
{
    return id >= 0 && id < n_fields && first_of_name[id];
}

bool
rs_field_read_uint(const struct rs_packet *pkt, const struct rs_field *f, uint8_t layer,
                   struct rs_value *out)
{
    if (layer >= RS_LAYER_COUNT || !rs_packet_has(pkt, (enum rs_layer)layer))
        return false;
    const struct rs_span *s = &pkt->span[layer];
    if ((uint32_t)f->offset + f->width > s->len)
        return false;
    uint64_t v = rs_load_be(pkt->frame->data + s->off + f->offset, f->width);
    if (f->mask != 0)
        v = (v & f->mask) >> rs_mask_shift(f->mask);
    out->type = f->type;
    out->v.u = v;
    return true;
}

void
rs_field_store(const struct rs_field *f, uint8_t *at, uint64_t v)
{
    uint64_t word = v;

    if (f->mask != 0)
        word = (rs_load_be(at, f->width) & ~f->mask) | ((v << rs_mask_shift(f->mask)) & f->mask);
    for (unsigned i = f->width; i-- > 0;) {
        at[i] = (uint8_t)word;
        word >>= 8;
    }
}

bool
rs_field_get_generic(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                     struct rs_value *out)
{
    if (occ != 0 || f->layer >= RS_LAYER_COUNT || !rs_packet_has(pkt, (enum rs_layer)f->layer))
        return false;
    const struct rs_span *s = &pkt->span[f->layer];

    switch (f->type) {
    case RS_FT_PROTOCOL:
    case RS_FT_BYTES:
    case RS_FT_ETHER:
    case RS_FT_IPV4:
    case RS_FT_IPV6: {
        uint32_t len = f->width != 0 ? f->width : s->len - f->offset;
        if (f->offset > s->len || len > s->len - f->offset)
            return false;
        out->type = f->type;
        out->v.bytes.ptr = pkt->frame->data + s->off + f->offset;
        out->v.bytes.len = len;
        return true;
    }
    default:
        return rs_field_read_uint(pkt, f, f->layer, out);
    }
}

#define TCP_PORTS_LEN 4
#define TCP_FIXED_LEN 20

/* Whether a UDP or TCP header cut short (RS_PKT_L4_PART) holds f: a field of its bytes
 * that are there (of TCP's, the ports: tshark reads up to the window before it shows
 * more), its protocol item, or an item placed after bytes that are there (the hidden
 * _ws.malformed under a bad UDP length); none the header's end or the analysis gives. */
static bool
in_partial_l4(const struct rs_packet *pkt, const struct rs_field *f)
{
    uint32_t len = pkt->span[f->layer].len;

    /* to the window, in its conversation: the stage's view (streams.c) says what it
     * gives, the getters what the bytes hold */
    if (f->layer == RS_LAYER_TCP && rs_packet_tcp_cut(pkt))
        return f->width == 0 || len >= TCP_FIXED_LEN ||
               (uint32_t)f->offset + f->width <= RS_TCP_CUT_READ;
    if (f->layer == RS_LAYER_TCP && len > TCP_PORTS_LEN)
        len = TCP_PORTS_LEN;

    if (f->width != 0)
        return (uint32_t)f->offset + f->width <= len;
    return f->type == RS_FT_PROTOCOL && (f->offset == 0 || (uint32_t)f->offset + 2 <= len);
}

/* Occurrence occ of f in the view pkt alone. */
static bool
value_in_view(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
              struct rs_value *out)
{
    struct rs_packet view;

    if (f->layer != RS_NO_LAYER && f->layer == rs_packet_part_layer(pkt)) {
        if (f->layer != RS_LAYER_IPV4 && !in_partial_l4(pkt, f))
            return false;
        pkt = rs_packet_fields_view(pkt, &view);
    }
    /* No bytes unless the getter says where they are: a protocol generated from the
     * analysis (roceshark, frame, _ws.expert) sets only its type, and a walk's value
     * otherwise kept the last field's bytes, which PDML gave as the protocol's place. */
    out->v.bytes.ptr = NULL;
    out->v.bytes.len = 0;
    if (f->get != NULL)
        return f->get(pkt, f, occ, out);
    return rs_field_get_generic(pkt, f, occ, out);
}

bool
rs_field_in_quote(const struct rs_field *f)
{
    return f->layer < RS_LAYER_COUNT || (f->flags & RS_FIELD_QUOTABLE);
}

/* Whether id or one of its aliases has values in an ICMP error's quote. */
static bool
some_alias_in_quote(int id)
{
    for (int a = id; a >= 0 && a < n_fields; a = next_alias[a])
        if (rs_field_in_quote(fields[a]))
            return true;
    return false;
}

bool
rs_field_value(const struct rs_packet *pkt, int id, unsigned occ, struct rs_value *out)
{
    const struct rs_field *f = fields[id];
    struct rs_icmp_quote q;

    if (value_in_view(pkt, f, occ, out))
        return true;
    /* The frame's own occurrences first, then the quote's, as Wireshark lists them. */
    if (!(pkt->flags & RS_PKT_ICMP_QUOTE) || !rs_field_in_quote(f) ||
        !rs_field_quote_view(pkt, &q))
        return false;
    unsigned own = 0;
    while (own < occ && value_in_view(pkt, f, own, out))
        own++;
    return value_in_view(&q.pkt, f, occ - own, out);
}

/* Frames some consumer cut at RS_MAX_OCCURRENCES, each counted once however many
 * consumers stop on it (the filter and a printer) and however many passes read it
 * (`read -2`): a bit per frame number, in pages of 2^16 frames (8 KiB) made at the
 * first cut among them, so a capture with no cut allocates nothing and one that cuts
 * every frame holds a bit each. One count for the process, not per pipeline, since
 * the printers that cut know of none; `read` runs one pipeline at a time. Locked: the
 * TUI prints on one thread while its pipeline filters on another. Touched only at the
 * bound, so the walks cost nothing more. */
#define CUT_PAGE_SHIFT 16
#define CUT_PAGE_WORDS ((1u << CUT_PAGE_SHIFT) / 64)

static pthread_mutex_t cut_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t **cut_pages;    /* by frame number >> CUT_PAGE_SHIFT, NULL until a cut */
static size_t n_cut_pages;
static _Atomic uint64_t frames_cut;

/* Whether frame number was cut before, marking it now; a frame without the page its
 * bit needs (out of memory) counts as new. */
static bool
cut_before(uint64_t number)
{
    size_t page = (size_t)(number >> CUT_PAGE_SHIFT);
    uint32_t bit = (uint32_t)(number & ((1u << CUT_PAGE_SHIFT) - 1));

    if (page >= n_cut_pages) {
        size_t n = page + 1;
        uint64_t **pages = realloc(cut_pages, n * sizeof(*pages));
        if (pages == NULL)
            return false;
        memset(pages + n_cut_pages, 0, (n - n_cut_pages) * sizeof(*pages));
        cut_pages = pages;
        n_cut_pages = n;
    }
    if (cut_pages[page] == NULL &&
        (cut_pages[page] = calloc(CUT_PAGE_WORDS, sizeof(uint64_t))) == NULL)
        return false;
    uint64_t *w = &cut_pages[page][bit / 64], mask = (uint64_t)1 << (bit % 64);
    bool before = (*w & mask) != 0;
    *w |= mask;
    return before;
}

static void
count_cut(const struct rs_packet *pkt)
{
    const struct rs_frame *f = pkt->frame;
    /* The frame's number in the file: a second pass renumbers the frames it keeps. */
    uint64_t number = f == NULL ? 0 : f->original != 0 ? f->original : f->number;

    /* Frame 0 is a frame without a number (the fault engine's): each counts. */
    pthread_mutex_lock(&cut_lock);
    bool before = number != 0 && cut_before(number);
    pthread_mutex_unlock(&cut_lock);
    if (!before)
        atomic_fetch_add_explicit(&frames_cut, 1, memory_order_relaxed);
}

void
rs_field_note_cut(const struct rs_packet *pkt, int id, unsigned walked)
{
    struct rs_value v;

    if (walked >= RS_MAX_OCCURRENCES && rs_field_value(pkt, id, walked, &v))
        count_cut(pkt);
}

uint64_t
rs_field_frames_cut(void)
{
    return atomic_load_explicit(&frames_cut, memory_order_relaxed);
}

/* Every value of id and its aliases in the view pkt alone; in an ICMP error's quote
 * (quote), of those that have values there. */
static unsigned
foreach_in_view(const struct rs_packet *pkt, int id, bool quote, rs_value_fn fn, void *ctx)
{
    unsigned n = 0;
    struct rs_value v;

    for (int a = id; a >= 0 && a < n_fields; a = next_alias[a]) {
        unsigned occ = 0;
        if (quote && !rs_field_in_quote(fields[a]))
            continue;
        for (; occ < RS_MAX_OCCURRENCES && value_in_view(pkt, fields[a], occ, &v); occ++) {
            fn(ctx, fields[a], &v);
            n++;
        }
        if (occ == RS_MAX_OCCURRENCES && value_in_view(pkt, fields[a], occ, &v))
            count_cut(pkt);
    }
    return n;
}

unsigned
rs_field_foreach_layers(const struct rs_packet *pkt, int id, unsigned lo, unsigned hi,
                        rs_value_fn fn, void *ctx)
{
    struct rs_icmp_quote q;
    struct rs_value v;
    unsigned n = 0;

    for (int a = id; a >= 0 && a < n_fields; a = next_alias[a]) {
        const struct rs_field *f = fields[a];
        /* a VLAN tag's or an iWARP PDU's occurrences are one layer each */
        bool repeats = (f->flags & RS_FIELD_PER_PDU) || strncmp(f->abbrev, "vlan", 4) == 0 ||
                       strncmp(f->abbrev, "ieee8021ad", 10) == 0;
        for (unsigned occ = 0; occ < RS_MAX_OCCURRENCES && value_in_view(pkt, f, occ, &v);
             occ++) {
            unsigned layer = repeats ? occ + 1 : 1;
            if (layer >= lo && layer <= hi) {
                fn(ctx, f, &v);
                n++;
            }
        }
    }
    if (lo <= 2 && hi >= 2 && (pkt->flags & RS_PKT_ICMP_QUOTE) && some_alias_in_quote(id) &&
        rs_field_quote_view(pkt, &q))
        n += foreach_in_view(&q.pkt, id, true, fn, ctx);
    return n;
}

unsigned
rs_field_foreach(const struct rs_packet *pkt, int id, rs_value_fn fn, void *ctx)
{
    struct rs_icmp_quote q;
    unsigned n = foreach_in_view(pkt, id, false, fn, ctx);

    /* ip.addr: the frame's source and destination, then the quote's; _ws.expert: the
     * frame's items, then the quoted TCP header's (one name, many kinds: some of them) */
    if ((pkt->flags & RS_PKT_ICMP_QUOTE) && some_alias_in_quote(id) &&
        rs_field_quote_view(pkt, &q))
        n += foreach_in_view(&q.pkt, id, true, fn, ctx);
    return n;
}

size_t
rs_show_bytes_count(const struct rs_field *f, const struct rs_value *v, char *buf, size_t size)
{
    (void)f;
    return (size_t)snprintf(buf, size, "%llu bytes", (unsigned long long)v->v.u);
}

size_t
rs_text_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
              char *buf, size_t size)
{
    (void)pkt;
    (void)v;
    size_t n = strlen(f->name);
    if (size > 0) {
        size_t k = n < size - 1 ? n : size - 1;
        memcpy(buf, f->name, k);
        buf[k] = '\0';
    }
    return n;
}

bool
rs_locate_layer_start(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                      uint32_t *offset, uint32_t *length)
{
    (void)occ;
    if (f->layer >= RS_LAYER_COUNT || !rs_packet_has(pkt, (enum rs_layer)f->layer))
        return false;
    *offset = pkt->span[f->layer].off;
    *length = 0;
    return true;
}

bool
rs_field_get_never(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                   struct rs_value *out)
{
    (void)pkt;
    (void)f;
    (void)occ;
    (void)out;
    return false;
}

bool
rs_value_set_reassembled(struct rs_value *out, const struct rs_field *f, uint32_t count,
                         const uint8_t *data, uint32_t len)
{
    switch (f->offset) {
    case 0:
        return rs_value_set_uint(out, RS_FT_NONE, 1);
    case 1:
        return rs_value_set_uint(out, f->type, count);
    case 2:
        return rs_value_set_uint(out, f->type, len);
    default:
        out->type = RS_FT_BYTES;
        out->v.bytes.ptr = data;
        out->v.bytes.len = len;
        return true;
    }
}
