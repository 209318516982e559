/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats_expert_ws.c - the rows of `-z expert`: Wireshark's own expert items of the layers
 * we dissect as it does (Ethernet padding, IP's and IPv6's lengths, ICMPv6's options, TCP's
 * flags, options and sequence analysis, HTTP's start lines, a malformed packet) and, in
 * our form, the roceshark items beside them (stats_expert.c), counted by severity,
 * protocol and summary with the first frames of each, rows in the order each was first
 * seen. In tshark's form (rs_stat_set_tshark(): --compat tshark) printed as tshark 4.0's
 * tap-expert prints them:
 *
 *   Notes (2)
 *   =============
 *      Frequency      Group           Protocol  Summary
 *              1   Sequence                TCP  This frame initiates the connection closing
 *
 * A summary may hold a number (a SYN's server port, the how manieth duplicate ACK), so the
 * rows are keyed by their text, and bounded (WS_EXPERT_MAX_ROWS). The rows, their texts
 * and the index on them are three arrays that double when full, so a frame allocates
 * nothing but where one of them grows (some 35 times up to the bound, whatever the frames).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/expert.h>
#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/identify.h>

#include "stats/stats_int.h"

struct ws_row {
    size_t protocol, summary;   /* where their texts start in the table's text */
    const char *group;          /* a static name: "Sequence", "Checksum", ... */
    uint32_t hash;              /* of level, protocol and summary */
    uint8_t level;              /* enum expert_level */
    uint64_t count;
    uint64_t first[EXPERT_FIRST_FRAMES];
};

struct ws_expert_table {
    struct ws_row *rows;        /* in the order first seen, every level's */
    size_t n_rows, cap_rows;    /* WS_EXPERT_MAX_ROWS at most */
    char *text;                 /* the rows' protocols and summaries, each ending in NUL */
    size_t text_len, text_cap;
    uint32_t *slots;            /* open addressing on hash: row number + 1, 0 free */
    size_t n_slots;             /* a power of two, more than twice n_rows */
    uint64_t past_bound[EL_COUNT];      /* items whose row the bound kept out */
};

/* The TCP items in the order tshark's TCP dissector raises them (its tap's order): the
 * flags' items, the options', then the sequence analysis'. */
static const enum rs_ws_expert_kind tcp_order[] = {
    RS_WSX_TCP_ACK_NONZERO, RS_WSX_TCP_SYN, RS_WSX_TCP_SYNACK, RS_WSX_TCP_FIN,
    RS_WSX_TCP_FIN_ACTIVE, RS_WSX_TCP_FIN_PASSIVE, RS_WSX_TCP_RST,
    RS_WSX_TCP_URGENT_NONZERO, RS_WSX_TCP_MSS_PRESENT, RS_WSX_TCP_DSACK,
    RS_WSX_TCP_MSS_ABSENT, RS_WSX_TCP_REUSED_PORTS, RS_WSX_TCP_RETRANSMISSION,
    RS_WSX_TCP_FAST_RETRANSMISSION, RS_WSX_TCP_RETRANSMISSION_FAST,
    RS_WSX_TCP_SPURIOUS_RETRANSMISSION, RS_WSX_TCP_RETRANSMISSION_SPURIOUS,
    RS_WSX_TCP_OUT_OF_ORDER, RS_WSX_TCP_LOST_SEGMENT, RS_WSX_TCP_ACK_LOST_SEGMENT,
    RS_WSX_TCP_WINDOW_UPDATE, RS_WSX_TCP_WINDOW_FULL, RS_WSX_TCP_KEEP_ALIVE,
    RS_WSX_TCP_KEEP_ALIVE_ACK, RS_WSX_TCP_ZERO_WINDOW_PROBE, RS_WSX_TCP_ZERO_WINDOW,
    RS_WSX_TCP_ZERO_WINDOW_PROBE_ACK, RS_WSX_TCP_DUPLICATE_ACK,
};

static enum expert_level
level_of(uint32_t severity)
{
    switch (severity) {
    case RS_WS_ERROR:
        return EL_ERROR;
    case RS_WS_WARN:
        return EL_WARN;
    case RS_WS_NOTE:
        return EL_NOTE;
    case RS_WS_CHAT:
        return EL_CHAT;
    default:
        return EL_COMMENT;
    }
}

int
stats_expert_ws_start(struct rs_stat *st, char *err)
{
    if (st->ws != NULL)
        return 0;
    st->ws = calloc(1, sizeof(*st->ws));
    if (st->ws == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    return 0;
}

/* FNV-1a over the level, then each text with its NUL. */
static uint32_t
row_hash(enum expert_level lv, const char *protocol, const char *summary)
{
    uint32_t h = 2166136261u ^ (uint32_t)lv;

    h *= 16777619u;
    for (const char *s = protocol;; s++) {
        h = (h ^ (uint8_t)*s) * 16777619u;
        if (*s == '\0')
            break;
    }
    for (const char *s = summary;; s++) {
        h = (h ^ (uint8_t)*s) * 16777619u;
        if (*s == '\0')
            break;
    }
    return h;
}

/* The slot of the row with these level and texts, or the free slot where it would go. */
static uint32_t *
find_slot(const struct ws_expert_table *t, uint32_t hash, enum expert_level lv,
          const char *protocol, const char *summary)
{
    size_t mask = t->n_slots - 1;

    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        uint32_t *slot = &t->slots[i];
        if (*slot == 0)
            return slot;
        const struct ws_row *r = &t->rows[*slot - 1];
        if (r->hash == hash && r->level == lv && strcmp(t->text + r->protocol, protocol) == 0 &&
            strcmp(t->text + r->summary, summary) == 0)
            return slot;
    }
}

/* Room for one more row: its row, its texts (n bytes) and its slot. False when out of
 * memory. */
static bool
make_room(struct ws_expert_table *t, size_t n)
{
    if (t->n_rows == t->cap_rows) {
        size_t cap = t->cap_rows ? 2 * t->cap_rows : 64;
        struct ws_row *rows = realloc(t->rows, cap * sizeof(*rows));
        if (rows == NULL)
            return false;
        t->rows = rows;
        t->cap_rows = cap;
    }
    if (t->text_len + n > t->text_cap) {
        size_t cap = t->text_cap ? 2 * t->text_cap : 4096;
        while (cap < t->text_len + n)
            cap *= 2;
        char *text = realloc(t->text, cap);
        if (text == NULL)
            return false;
        t->text = text;
        t->text_cap = cap;
    }
    if (2 * (t->n_rows + 1) < t->n_slots)
        return true;
    size_t n_slots = t->n_slots ? 2 * t->n_slots : 256;
    uint32_t *slots = calloc(n_slots, sizeof(*slots));
    if (slots == NULL)
        return false;
    free(t->slots);
    t->slots = slots;
    t->n_slots = n_slots;
    for (size_t i = 0; i < t->n_rows; i++) {
        const struct ws_row *r = &t->rows[i];
        *find_slot(t, r->hash, (enum expert_level)r->level, t->text + r->protocol,
                   t->text + r->summary) = (uint32_t)(i + 1);
    }
    return true;
}

static size_t
keep_text(struct ws_expert_table *t, const char *s)
{
    size_t at = t->text_len, n = strlen(s) + 1;

    memcpy(t->text + at, s, n);
    t->text_len += n;
    return at;
}

/* Counts one item of frame: its row's count, or a new row at the end of its level's. */
void
stats_expert_count(struct rs_stat *st, enum expert_level lv, const char *group,
                   const char *protocol, const char *summary, uint64_t frame)
{
    struct ws_expert_table *t = st->ws;

    if ((int)lv < st->ws_min_level)
        return;
    uint32_t hash = row_hash(lv, protocol, summary);
    uint32_t *slot = t->n_slots > 0 ? find_slot(t, hash, lv, protocol, summary) : NULL;
    if (slot != NULL && *slot != 0) {
        struct ws_row *r = &t->rows[*slot - 1];
        if (r->count < EXPERT_FIRST_FRAMES)
            r->first[r->count] = frame;
        r->count++;
        return;
    }
    /* counted past the bound, and so where memory runs out */
    if (t->n_rows >= WS_EXPERT_MAX_ROWS ||
        !make_room(t, strlen(protocol) + strlen(summary) + 2)) {
        t->past_bound[lv]++;
        return;
    }
    struct ws_row *r = &t->rows[t->n_rows];
    r->protocol = keep_text(t, protocol);
    r->summary = keep_text(t, summary);
    r->group = group;
    r->hash = hash;
    r->level = (uint8_t)lv;
    r->count = 1;
    r->first[0] = frame;
    t->n_rows++;
    *find_slot(t, hash, lv, protocol, summary) = (uint32_t)t->n_rows;
}

static void
count_kind(struct rs_stat *st, const struct rs_packet *pkt, enum rs_ws_expert_kind kind)
{
    char message[256];
    unsigned n = rs_ws_expert_count(pkt, kind);

    if (n > 0)
        rs_ws_expert_message(pkt, kind, message, sizeof(message));
    for (unsigned i = 0; i < n; i++)
        stats_expert_count(st, level_of(rs_ws_experts[kind].severity),
                           rs_ws_group_name(rs_ws_experts[kind].group),
                           rs_ws_experts[kind].protocol, message, pkt->frame->number);
}

/* An item each option may carry, with its own message: option by option. */
static void
count_options(struct rs_stat *st, const struct rs_packet *pkt, enum rs_ws_expert_kind kind)
{
    unsigned left = rs_ws_expert_count(pkt, kind);
    struct rs_packet p = *pkt;

    for (unsigned i = 1; left > 0 && i <= UINT8_MAX; i++) {
        p.item = (uint8_t)i;
        unsigned n = rs_ws_expert_count(&p, kind);
        count_kind(st, &p, kind);
        left -= n < left ? n : left;
    }
}

/* HTTP's chat item: the request or status line, its CR LF written as tshark's
 * format_text() writes them ("GET / HTTP/1.1\r\n"), other unprintable bytes as \xNN. */
static void
count_http(struct rs_stat *st, const struct rs_packet *pkt)
{
    struct rs_span sp;
    char line[256];
    size_t k = 0;

    /* the segment's bytes: a message's first segment hands none on to data */
    if (!rs_tcp_payload(pkt, &sp))
        return;
    const uint8_t *d = pkt->frame->data + sp.off;
    uint32_t n = sp.len;
    const uint8_t *eol = memchr(d, '\n', n);
    if (eol == NULL)
        return;
    for (const uint8_t *c = d; c <= eol && k + 5 < sizeof(line); c++) {
        if (*c == '\r' || *c == '\n')
            k += (size_t)snprintf(line + k, sizeof(line) - k, "\\%c", *c == '\r' ? 'r' : 'n');
        else if (*c >= 0x20 && *c < 0x7f)
            line[k++] = (char)*c;
        else
            k += (size_t)snprintf(line + k, sizeof(line) - k, "\\x%02x", *c);
    }
    line[k] = '\0';
    stats_expert_count(st, EL_CHAT, rs_ws_group_name(RS_WS_SEQUENCE), "HTTP", line,
                       pkt->frame->number);
}

void
stats_expert_ws_packet(struct rs_stat *st, const struct rs_packet *pkt)
{
    if (st->ws == NULL)
        return;
    count_kind(st, pkt, RS_WSX_ETH_PADDING_BAD);
    count_kind(st, pkt, RS_WSX_IP_BOGUS_LENGTH);
    count_kind(st, pkt, RS_WSX_IP_TTL_TOO_SMALL);
    count_kind(st, pkt, RS_WSX_IP_TTL_LNCB);
    count_kind(st, pkt, RS_WSX_IPV6_PLEN_EXCEEDS);
    count_kind(st, pkt, RS_WSX_UDP_LENGTH_BAD);
    if (rs_packet_has(pkt, RS_LAYER_ICMPV6)) {
        count_options(st, pkt, RS_WSX_ICMPV6_OPT_UNDECODED);
        count_options(st, pkt, RS_WSX_ICMPV6_OPT_LEN_ZERO);
        count_options(st, pkt, RS_WSX_ICMPV6_OPT_UNKNOWN_DATA);
        count_kind(st, pkt, RS_WSX_ICMPV6_UNKNOWN_DATA);
    }
    if (rs_packet_tcp_cut(pkt)) {   /* a header cut short: what tshark read of it */
        struct rs_packet view;
        const struct rs_packet *cut = rs_packet_fields_view(pkt, &view);
        count_kind(st, cut, RS_WSX_TCP_SHORT_SEGMENT);
        for (size_t i = 0; i < RS_ARRAY_SIZE(tcp_order); i++)
            count_kind(st, cut, tcp_order[i]);
    } else if (rs_packet_has(pkt, RS_LAYER_TCP)) {
        for (size_t i = 0; i < RS_ARRAY_SIZE(tcp_order); i++)
            count_kind(st, pkt, tcp_order[i]);
        /* a message spread over segments too, from its first: tshark counts it once
         * reassembled, at its last */
        if (rs_ident_http_start(pkt))
            count_http(st, pkt);
    }
    /* tshark names the protocol whose dissector stopped ("[Malformed Packet: IB]"), as
     * our tree's line does; a frame the capture cut short has no item */
    if (rs_ws_malformed(pkt))
        stats_expert_count(st, EL_ERROR, rs_ws_group_name(RS_WS_MALFORMED),
                           pkt->stopped != NULL ? pkt->stopped : "",
                           "Malformed Packet (Exception occurred)", pkt->frame->number);
}

/* The rows of each level, most severe first, as tshark prints them; with first_frames, each
 * row's first frames after its summary (padded to 40 characters, then two spaces). */
void
stats_expert_ws_print(struct rs_stat *st, struct rs_out *o, bool first_frames)
{
    static const char *const labels[EL_COUNT] = {"Comments", "Chats", "Notes", "Warns",
                                                  "Errors"};
    const struct ws_expert_table *t = st->ws;

    for (int lv = EL_ERROR; t != NULL && lv >= EL_COMMENT; lv--) {
        uint64_t total = t->past_bound[lv];
        for (size_t i = 0; i < t->n_rows; i++)
            total += t->rows[i].level == lv ? t->rows[i].count : 0;
        if (total == 0)
            continue;
        rs_out_printf(o, "\n%s (%llu)\n=============\n", labels[lv],
                      (unsigned long long)total);
        if (first_frames)
            rs_out_printf(o, "   Frequency      Group           Protocol  Summary%33s  "
                          "First frames\n", "");
        else
            rs_out_str(o, "   Frequency      Group           Protocol  Summary\n");
        for (size_t i = 0; i < t->n_rows; i++) {
            const struct ws_row *r = &t->rows[i];
            if (r->level != lv)
                continue;
            rs_out_printf(o, "%12llu %10s %18s  ", (unsigned long long)r->count, r->group,
                          t->text + r->protocol);
            if (!first_frames) {
                rs_out_printf(o, "%s\n", t->text + r->summary);
                continue;
            }
            rs_out_printf(o, "%-40s ", t->text + r->summary);
            for (uint64_t k = 0; k < r->count && k < EXPERT_FIRST_FRAMES; k++)
                rs_out_printf(o, " %llu", (unsigned long long)r->first[k]);
            rs_out_str(o, r->count > EXPERT_FIRST_FRAMES ? " ...\n" : "\n");
        }
        if (t->past_bound[lv] > 0)
            rs_out_printf(o, "%12llu %10s %18s  (items of summaries past the %d rows kept)\n",
                          (unsigned long long)t->past_bound[lv], "", "", WS_EXPERT_MAX_ROWS);
    }
}

void
stats_expert_ws_free(struct rs_stat *st)
{
    struct ws_expert_table *t = st->ws;

    if (t == NULL)
        return;
    free(t->rows);
    free(t->text);
    free(t->slots);
    free(t);
    st->ws = NULL;
}
