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
 * rows are keyed by their text, and bounded (WS_EXPERT_MAX_ROWS). A frame whose items all
 * have rows allocates nothing: a row's texts are copied once, when it is made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <roceshark/dissectors/expert.h>
#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/identify.h>

#include "stats/stats_int.h"

struct ws_row {
    char *protocol;
    char *summary;
    const char *group;          /* a static name: "Sequence", "Checksum", ... */
    uint64_t count;
    uint64_t first[EXPERT_FIRST_FRAMES];
};

struct ws_expert_table {
    GHashTable *index;          /* "LEVEL\x1fPROTOCOL\x1fSUMMARY" -> row number + 1 */
    struct ws_row *rows[EL_COUNT];
    size_t n[EL_COUNT], cap[EL_COUNT];
    size_t n_rows;              /* over every level: WS_EXPERT_MAX_ROWS at most */
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
    st->ws->index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    return 0;
}

/* Counts one item of frame: its row's count, or a new row at the end of its level's. */
void
stats_expert_count(struct rs_stat *st, enum expert_level lv, const char *group,
                   const char *protocol, const char *summary, uint64_t frame)
{
    struct ws_expert_table *t = st->ws;
    char key[512];

    if ((int)lv < st->ws_min_level)
        return;
    snprintf(key, sizeof(key), "%d\x1f%s\x1f%s", (int)lv, protocol, summary);
    size_t at = GPOINTER_TO_SIZE(g_hash_table_lookup(t->index, key));
    if (at != 0) {
        struct ws_row *r = &t->rows[lv][at - 1];
        if (r->count < EXPERT_FIRST_FRAMES)
            r->first[r->count] = frame;
        r->count++;
        return;
    }
    if (t->n_rows >= WS_EXPERT_MAX_ROWS) {
        t->past_bound[lv]++;
        return;
    }
    if (t->n[lv] == t->cap[lv]) {
        size_t cap = t->cap[lv] ? 2 * t->cap[lv] : 16;
        struct ws_row *rows = realloc(t->rows[lv], cap * sizeof(*rows));
        if (rows == NULL) {
            t->past_bound[lv]++;        /* counted, as the bound's are */
            return;
        }
        t->rows[lv] = rows;
        t->cap[lv] = cap;
    }
    struct ws_row *r = &t->rows[lv][t->n[lv]];
    r->protocol = g_strdup(protocol);
    r->summary = g_strdup(summary);
    r->group = group;
    r->count = 1;
    r->first[0] = frame;
    t->n[lv]++;
    t->n_rows++;
    g_hash_table_insert(t->index, g_strdup(key), GSIZE_TO_POINTER(t->n[lv]));
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
    count_kind(st, pkt, RS_WSX_IPV6_PLEN_EXCEEDS);
    if (rs_packet_has(pkt, RS_LAYER_ICMPV6)) {
        count_options(st, pkt, RS_WSX_ICMPV6_OPT_UNDECODED);
        count_options(st, pkt, RS_WSX_ICMPV6_OPT_LEN_ZERO);
        count_options(st, pkt, RS_WSX_ICMPV6_OPT_UNKNOWN_DATA);
        count_kind(st, pkt, RS_WSX_ICMPV6_UNKNOWN_DATA);
    }
    if (rs_packet_has(pkt, RS_LAYER_TCP)) {
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
        for (size_t i = 0; i < t->n[lv]; i++)
            total += t->rows[lv][i].count;
        if (total == 0)
            continue;
        rs_out_printf(o, "\n%s (%llu)\n=============\n", labels[lv],
                      (unsigned long long)total);
        if (first_frames)
            rs_out_printf(o, "   Frequency      Group           Protocol  Summary%33s  "
                          "First frames\n", "");
        else
            rs_out_str(o, "   Frequency      Group           Protocol  Summary\n");
        for (size_t i = 0; i < t->n[lv]; i++) {
            const struct ws_row *r = &t->rows[lv][i];
            rs_out_printf(o, "%12llu %10s %18s  ", (unsigned long long)r->count, r->group,
                          r->protocol);
            if (!first_frames) {
                rs_out_printf(o, "%s\n", r->summary);
                continue;
            }
            rs_out_printf(o, "%-40s ", r->summary);
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
    for (int lv = 0; lv < EL_COUNT; lv++) {
        for (size_t i = 0; i < t->n[lv]; i++) {
            g_free(t->rows[lv][i].protocol);
            g_free(t->rows[lv][i].summary);
        }
        free(t->rows[lv]);
    }
    g_hash_table_destroy(t->index);
    free(t);
    st->ws = NULL;
}
