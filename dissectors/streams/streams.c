/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * streams.c - TCP and UDP conversations numbered as Wireshark numbers them
 * (tcp.stream, udp.stream), with TCP's relative sequence numbers and window
 * scaling.
 *
 * Wireshark's rules, as tshark 4.0 shows them on the real captures:
 *  - each protocol counts its conversations from 0, in order of first frame;
 *  - a SYN (without ACK) whose sequence number is not the direction's
 *    initial one starts a new TCP conversation on the same addresses and
 *    ports: the port was reused (tshark 4.4 also starts one for a SYN after
 *    a reset or both FINs: opts.restart_after_close);
 *  - a direction's base is its SYN's sequence number, or, when no SYN was
 *    seen, one less than its first segment's (so that segment reads 1); an
 *    ACK sets the other direction's base likewise when that one has sent
 *    nothing yet;
 *  - a direction's windows are scaled by its SYN's shift; "unknown" (-1)
 *    while its SYN is unseen, and "no scaling" (-2) for both directions as
 *    soon as one SYN lacks the option. A SYN's own window is never scaled.
 *
 * Entries come from one array, allocated when the stage is made, so a new
 * conversation allocates nothing; an open-addressing index (ptr_index.h)
 * finds them by the key's hash, computed once per packet and kept in the
 * entry for taking it out. The least recently seen entry is reused when the
 * array is full. On traffic where every packet is a new conversation, GLib's
 * table hashed each key three times (lookup, insert, and the evicted one's
 * remove) and was most of the stage: 1M SYNs to distinct ports numbered by
 * tcp.stream took 1.33 s against 0.51 s without the stage.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/icmp.h>
#include <roceshark/dissectors/identify.h>
#include <roceshark/dissectors/ptr_index.h>
#include <roceshark/dissectors/recency.h>
#include <roceshark/dissectors/streams.h>
#include <roceshark/dissectors/wire.h>

#include "streams/echo_int.h"
#include "streams/tcp_reasm_int.h"
#include "streams/tcp_seq_int.h"

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_ACK 0x10
#define TCP_OPT_EOL 0
#define TCP_OPT_NOP 1
#define TCP_OPT_WSCALE 3
#define TCP_QUOTE_DECODED 16u   /* a quote tshark decodes to the window: its stream too */
#define UDP_HDR_LEN 8u
#define WSCALE_MAX_SHIFT 14     /* RFC 7323: larger shifts are taken as 14 */

/* What one direction of a TCP conversation has shown. */
struct tcp_dir {
    uint32_t base;
    bool base_set;
    int8_t shift;           /* its SYN's window scale, or RS_WIN_SCALE_UNKNOWN/_NONE */
    bool fin;               /* it sent a FIN */
    uint32_t pdu_left;      /* bytes of an HTTP message or TLS record still to come (0:
                               none), */
    uint32_t pdu_next;      /* from this sequence number */
    uint8_t pdu_proto;      /* enum rs_pdu_proto */
    struct tcp_msg *msg;    /* and its bytes so far (tcp_reasm.c); NULL while pdu_left is
                               not: not kept, over a bound, so not desegmented, or */
    bool pdu_broken;        /* a segment went missing: its later ones are shown as parts of
                               a message that never completes, as tshark's */
};

struct stream {
    struct rs_flow_key key;
    uint32_t hash;          /* the key's, as the index files it */
    uint32_t index;
    struct rs_recency_link recency;
    struct tcp_dir dir[2];  /* by side of the key */
    bool reset;             /* an RST was seen */
    bool timed;             /* first and prev hold times */
    bool fresh;             /* no segment seen since it started */
    struct tcp_seq seq;     /* TCP's sequence analysis */
    struct rs_time first;   /* the conversation's first frame's time */
    struct rs_time prev;    /* and its last one's */
};

struct rs_streams {
    struct stream *entries;
    uint32_t max, used;
    struct rs_recency recency;  /* of the entries, by position */
    struct rs_ptr_index table;  /* key's hash -> entry */
    struct rs_streams_counts counts;
    uint32_t next_index[2]; /* TCP, UDP */
    bool tcp_only;
    bool restart_after_close;
    uint64_t unacked_budget;    /* unacknowledged TCP segments all conversations may hold */
    uint64_t unacked_untracked; /* segments not held for want of it */
    struct echoes echoes;   /* ICMP echo requests awaiting their replies (echo.c) */
    struct tcp_reasm reasm; /* the messages' bytes (tcp_reasm.c) */
    struct rs_stream_view view;
};

void
rs_streams_opts_init(struct rs_streams_opts *opts)
{
    opts->max_streams = 65536;
    opts->tcp_only = false;
    opts->restart_after_close = false;
    opts->max_echoes = 4096;
    opts->max_pdu_bytes = RS_STREAMS_PDU_BYTES;
    opts->max_pdu_memory = RS_STREAMS_PDU_MEMORY;
}

int
rs_streams_new(const struct rs_streams_opts *opts, struct rs_streams **out, char *err)
{
    struct rs_streams *s;

    *out = NULL;
    if (opts->max_streams == 0 || opts->max_echoes == 0)
        return rs_error(err, RS_EINVAL, "streams: max_streams and max_echoes must be at least 1");
    s = calloc(1, sizeof(*s));
    if (s == NULL ||
        (s->entries = rs_zalloc_lazy((size_t)opts->max_streams * sizeof(*s->entries))) == NULL) {
        free(s);
        return rs_error(err, RS_ENOMEM, "streams: out of memory for %u conversations",
                        opts->max_streams);
    }
    int rc = echoes_init(&s->echoes, opts->max_echoes, err);
    if (rc != 0) {
        rs_zalloc_lazy_free(s->entries, (size_t)opts->max_streams * sizeof(*s->entries));
        free(s);
        return rc;
    }
    s->max = opts->max_streams;
    s->unacked_budget = RS_STREAMS_UNACKED_MAX;
    s->tcp_only = opts->tcp_only;
    s->restart_after_close = opts->restart_after_close;
    tcp_reasm_init(&s->reasm, opts->max_pdu_bytes, opts->max_pdu_memory);
    rs_recency_init(&s->recency);
    *out = s;
    return 0;
}

void
rs_streams_free(struct rs_streams *s)
{
    if (s == NULL)
        return;
    rs_ptr_index_free(&s->table);
    for (uint32_t i = 0; i < s->used; i++) {
        tcp_seq_free(&s->entries[i].seq, &s->unacked_budget);
        tcp_msg_free(&s->reasm, s->entries[i].dir[0].msg);
        tcp_msg_free(&s->reasm, s->entries[i].dir[1].msg);
    }
    tcp_reasm_free(&s->reasm);
    echoes_free(&s->echoes);
    rs_zalloc_lazy_free(s->entries, (size_t)s->max * sizeof(*s->entries));
    free(s);
}

struct rs_streams_counts
rs_streams_counts(const struct rs_streams *s)
{
    struct rs_streams_counts c = s->counts;

    c.echoes_evicted = s->echoes.evicted;
    c.unacked_untracked = s->unacked_untracked;
    c.pdus_unkept = s->reasm.unkept;
    c.pdu_memory_peak = s->reasm.peak;
    return c;
}

const char *const rs_streams_fields[] = {
    "tcp.stream", "tcp.len", "tcp.seq", "tcp.nxtseq", "tcp.ack", "tcp.window_size",
    "tcp.window_size_scalefactor", "udp.stream", "icmp.resp_to", "icmp.resptime",
    "icmpv6.resp_to", "icmpv6.resptime", "tcp.time_relative", "tcp.time_delta",
    "udp.time_relative", "udp.time_delta", "tcp.analysis", "tcp.options.sack_le",
    "tcp.options.sack_re", "tcp.options.sack.dsack_le", "tcp.options.sack.dsack_re", NULL,
};

const char *const rs_streams_tcp_fields[] = {"data", "http", "frame.protocols",
                                             "tcp.segment_data", "tcp.segments",
                                             "tcp.segment", "tcp.reassembled", NULL};

/* A name of names or a field below it (tcp.analysis.flags): a filter asks by prefix too. */
static bool
names_field(const char *const *names, const char *abbrev)
{
    for (size_t i = 0; names[i] != NULL; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(abbrev, names[i], n) == 0 && (abbrev[n] == '\0' || abbrev[n] == '.'))
            return true;
    }
    return false;
}

bool
rs_streams_field(const char *abbrev)
{
    return names_field(rs_streams_fields, abbrev);
}

bool
rs_streams_tcp_field(const char *abbrev)
{
    return names_field(rs_streams_tcp_fields, abbrev);
}

static void
unlink_entry(struct rs_streams *s, uint32_t i)
{
    rs_recency_unlink(&s->recency, &s->entries->recency, sizeof(*s->entries), i);
}

static void
push_newest(struct rs_streams *s, uint32_t i)
{
    rs_recency_push(&s->recency, &s->entries->recency, sizeof(*s->entries), i);
}

/* A conversation forgotten or started afresh: its messages over segments are let go. */
static void
drop_messages(struct rs_streams *s, struct stream *e)
{
    for (int d = 0; d < 2; d++) {
        s->counts.pdus_cut += e->dir[d].pdu_left != 0;
        tcp_msg_free(&s->reasm, e->dir[d].msg);
        e->dir[d].msg = NULL;
        e->dir[d].pdu_left = 0;
    }
}

/* The next index of the entry's protocol, and nothing seen yet. */
static void
stream_start(struct rs_streams *s, struct stream *e)
{
    bool tcp = e->key.proto == 6;

    drop_messages(s, e);
    memset(e->dir, 0, sizeof(e->dir));
    e->reset = false;
    e->timed = false;
    e->fresh = true;
    tcp_seq_reset(&e->seq, &s->unacked_budget);
    e->dir[0].shift = e->dir[1].shift = RS_WIN_SCALE_UNKNOWN;
    e->index = s->next_index[!tcp]++;
    if (tcp)
        s->counts.tcp_streams++;
    else
        s->counts.udp_streams++;
}

_Static_assert(offsetof(struct stream, key) == 0, "the key leads, as the index's match takes it");

/* The entry of key, which hashes to hash, or NULL. */
static struct stream *
stream_find(const struct rs_streams *s, const struct rs_flow_key *key, uint32_t hash)
{
    return rs_ptr_index_find(&s->table, hash, rs_flow_key_entry_match, key);
}

/* A fresh entry for key (hashing to hash) with the next index of its protocol:
 * a free one, or the least recently seen, forgotten. */
static struct stream *
stream_new(struct rs_streams *s, const struct rs_flow_key *key, uint32_t hash)
{
    uint32_t i;

    if (s->used < s->max) {
        i = s->used++;
    } else {
        i = s->recency.oldest;
        unlink_entry(s, i);
        rs_ptr_index_remove(&s->table, s->entries[i].hash, &s->entries[i]);
        tcp_seq_free(&s->entries[i].seq, &s->unacked_budget);
        s->counts.evicted++;
        drop_messages(s, &s->entries[i]);
    }
    struct stream *e = &s->entries[i];
    memset(e, 0, sizeof(*e));
    e->key = *key;
    e->hash = hash;
    stream_start(s, e);
    push_newest(s, i);
    rs_ptr_index_insert(&s->table, hash, e);
    return e;
}

static void
touch(struct rs_streams *s, struct stream *e)
{
    rs_recency_touch(&s->recency, &s->entries->recency, sizeof(*s->entries),
                     (uint32_t)(e - s->entries));
}

/* The window scale option's shift in a SYN's options, or -1. */
static int8_t
syn_window_shift(const uint8_t *opt, uint32_t len)
{
    for (uint32_t i = 0; i < len;) {
        if (opt[i] == TCP_OPT_EOL)
            break;
        if (opt[i] == TCP_OPT_NOP) {
            i++;
            continue;
        }
        if (i + 1 >= len || opt[i + 1] < 2 || i + opt[i + 1] > len)
            break;      /* a malformed option ends the walk */
        if (opt[i] == TCP_OPT_WSCALE && opt[i + 1] == 3)
            return (int8_t)(opt[i + 2] > WSCALE_MAX_SHIFT ? WSCALE_MAX_SHIFT : opt[i + 2]);
        i += opt[i + 1];
    }
    return -1;
}

/* TLS records from d[0..n) on, whole ones skipped: when one runs past n, true with where
 * it starts in *at and the bytes of it still to come in *left; false when they end at n
 * or at what is no record. */
static bool
tls_rest(const uint8_t *d, uint32_t n, uint32_t *at, uint32_t *left)
{
    uint32_t len;

    for (*at = 0; *at < n && rs_ident_tls_header(d + *at, n - *at, &len);) {
        if (len > n - *at) {
            *left = len - (n - *at);
            return true;
        }
        *at += len;
    }
    return false;
}

/* A message of len bytes starts at d[0..n) of the direction's segment: its bytes are
 * kept (me->msg) when the bounds allow, else it is followed but not desegmented. */
static void
message_start(struct rs_streams *s, struct tcp_dir *me, const struct rs_packet *pkt,
              uint64_t len, const uint8_t *d, uint32_t n, uint32_t next, uint8_t proto)
{
    me->pdu_left = (uint32_t)(len - n);
    me->pdu_next = next;
    me->pdu_proto = proto;
    me->pdu_broken = false;
    me->msg = tcp_msg_start(&s->reasm, len > UINT32_MAX ? UINT32_MAX : (uint32_t)len,
                            pkt->frame->number, d, n);
}

/* The view of a segment in which a kept message begins, at byte at of its payload. */
static void
note_begin(const struct tcp_dir *me, struct rs_stream_view *v, uint32_t at)
{
    v->pdu_begins = me->msg != NULL;
    v->pdu_begin = at;
}

/* The direction's message ends here, out of order or cut short: tshark's reassembly
 * would take it on, ours lets it go (counted). */
static void
message_cut(struct rs_streams *s, struct tcp_dir *me)
{
    me->pdu_left = 0;
    tcp_msg_free(&s->reasm, me->msg);
    me->msg = NULL;
    s->counts.pdus_cut += !me->pdu_broken;
    me->pdu_broken = false;
}

/* A segment past a gap that ends within the direction's message: tshark holds it for the
 * message, which can never complete; its bytes are let go (counted once). */
static uint8_t
message_broken(struct rs_streams *s, struct tcp_dir *me, uint32_t seq, uint32_t len)
{
    uint32_t end = me->pdu_next + me->pdu_left;

    if (!me->pdu_broken) {
        tcp_msg_free(&s->reasm, me->msg);
        me->msg = NULL;
        me->pdu_broken = true;
        s->counts.pdus_cut++;
    }
    me->pdu_next = seq + len;
    me->pdu_left = end - me->pdu_next;
    if (me->pdu_left == 0)
        message_cut(s, me);
    return RS_PDU_MIDDLE;
}

/* The segment's part in an HTTP message or TLS record spread over segments (enum
 * rs_pdu_part, *proto what it is), as tshark desegments an HTTP message whose headers the
 * first segment holds whole, with a Content-Length, and TLS records by their lengths; the
 * message's bytes kept to the segment that completes it (v->reasm). A segment captured
 * short ends the message, as a gap does. */
static uint8_t
pdu_part(struct rs_streams *s, struct tcp_dir *me, const struct rs_packet *pkt, uint32_t seq,
         uint32_t len, uint8_t *proto, struct rs_stream_view *v)
{
    struct rs_span sp;
    uint64_t total;
    uint32_t left, at;

    if (len == 0 || pkt->iwarp != NULL || !rs_tcp_payload(pkt, &sp))
        return RS_PDU_NONE;
    /* a retransmission or a segment out of order goes to no protocol above TCP, as tshark
     * keeps it from its reassembly: the message waits for the segments in order, and its
     * bytes show as "Retransmitted TCP segment data" */
    if (v->analysis.flags & RS_TCPA_NOT_HANDED_ON) {
        v->pdu_resent = me->pdu_left != 0 && (me->msg != NULL || me->pdu_broken);
        return RS_PDU_NONE;
    }
    const uint8_t *d = pkt->frame->data + sp.off;
    bool whole = sp.len >= len;
    if (me->pdu_left != 0) {
        *proto = me->pdu_proto;
        if (seq == me->pdu_next && whole) {
            if (len < me->pdu_left) {
                me->pdu_left -= len;
                me->pdu_next += len;
                if (me->pdu_broken)
                    return RS_PDU_MIDDLE;
                if (me->msg == NULL || !tcp_msg_add(&s->reasm, &me->msg, pkt->frame->number,
                                                    d, len))
                    return RS_PDU_NONE;     /* not kept: not desegmented */
                return RS_PDU_MIDDLE;
            }
            if (me->pdu_broken) {
                /* the end of a message that cannot complete: its part here is one of it */
                message_cut(s, me);
                return RS_PDU_MIDDLE;
            }
            /* a TLS record may end where the next begins, to end in a later segment */
            uint32_t used = me->pdu_left;
            uint8_t part = RS_PDU_NONE;
            me->pdu_left = 0;
            if (me->msg != NULL &&
                tcp_msg_add(&s->reasm, &me->msg, pkt->frame->number, d, used)) {
                v->reasm = tcp_msg_complete(&s->reasm, me->msg);
                v->pdu_end = used;
                part = RS_PDU_LAST;
            }
            me->msg = NULL;
            if (*proto == RS_PDU_TLS && tls_rest(d + used, len - used, &at, &left)) {
                message_start(s, me, pkt, (uint64_t)len - used - at + left, d + used + at,
                              len - used - at, seq + len, RS_PDU_TLS);
                note_begin(me, v, used + at);
            }
            return part;
        }
        if (whole && (me->msg != NULL || me->pdu_broken) && seq - me->pdu_next < me->pdu_left &&
            len <= me->pdu_left - (seq - me->pdu_next))
            return message_broken(s, me, seq, len);
        message_cut(s, me);
    }
    if (!whole)
        return RS_PDU_NONE;
    if (tls_rest(d, len, &at, &left)) {
        /* the segment's first record whole is TLS; one that starts here waits */
        message_start(s, me, pkt, (uint64_t)len - at + left, d + at, len - at, seq + len,
                      RS_PDU_TLS);
        note_begin(me, v, at);
        *proto = RS_PDU_TLS;
        return at == 0 && me->msg != NULL ? RS_PDU_FIRST : RS_PDU_NONE;
    }
    if (!rs_ident_http_length(pkt, &total) || total <= len || total - len > UINT32_MAX)
        return RS_PDU_NONE;
    message_start(s, me, pkt, total, d, len, seq + len, RS_PDU_HTTP);
    *proto = RS_PDU_HTTP;
    return me->msg != NULL ? RS_PDU_FIRST : RS_PDU_NONE;
}

static void
tcp_segment(struct rs_streams *s, struct stream *e, int side, const struct rs_packet *pkt,
            bool reused, struct rs_stream_view *v)
{
    const struct rs_span *ts = &pkt->span[RS_LAYER_TCP];
    const uint8_t *t = pkt->frame->data + ts->off;
    bool cut = rs_packet_tcp_cut(pkt);
    uint32_t seq = rs_load_be32(t + 4), ack = rs_load_be32(t + 8);
    uint8_t flags = t[13];
    uint16_t window = rs_load_be16(t + 14);
    struct tcp_dir *me = &e->dir[side], *peer = &e->dir[!side];
    struct tcp_seq_in in = {.side = side, .seq = seq, .ack = ack,
                            .flags = (uint16_t)(rs_load_be16(t + 12) & 0x0fff),
                            .window = window, .fresh = e->fresh, .reused = reused};

    /* what tshark's SYN handling notes before it analyses: a SYN again, or a SYN+ACK
     * with another initial sequence number */
    in.syn_repeat = (flags & (TCP_SYN | TCP_ACK)) == TCP_SYN && !reused && me->base_set &&
                    seq == me->base;
    in.base_fwd_moved = (flags & (TCP_SYN | TCP_ACK)) == (TCP_SYN | TCP_ACK) && me->base_set &&
                        seq != me->base;
    if (flags & TCP_SYN) {
        /* a SYN read in part: tshark stops before its options set the scaling */
        int8_t shift = cut ? 0 : syn_window_shift(t + 20, ts->len - 20);
        if (cut)
            ;
        else if (shift < 0)      /* a SYN without the option: neither side scales */
            me->shift = peer->shift = RS_WIN_SCALE_NONE;
        else if (me->shift != RS_WIN_SCALE_NONE)
            me->shift = shift;
        me->base = seq;
        me->base_set = true;
    } else if (!me->base_set) {
        me->base = seq - 1;
        me->base_set = true;
    }
    me->fin |= (flags & TCP_FIN) != 0;
    e->reset |= (flags & TCP_RST) != 0;
    if ((flags & TCP_ACK) && !peer->base_set) {
        peer->base = ack - 1;
        peer->base_set = true;
    }
    v->len = cut ? 0 : rs_tcp_payload_len(pkt);
    v->cut = cut;
    /* the numbers shown; the analysis below keeps the bases whichever way they show */
    bool absolute = rs_display_get()->tcp_absolute;
    v->seq = absolute ? seq : seq - me->base;
    v->ack = (flags & TCP_ACK) && !absolute ? ack - peer->base : ack;
    v->peer_base = absolute ? 0 : peer->base;
    v->nxtseq = v->seq + v->len + !!(flags & TCP_SYN) + !!(flags & TCP_FIN);
    v->window = window;
    if (flags & TCP_SYN) {
        v->win_scale = 0;       /* a SYN's window is never scaled */
    } else if (me->shift < 0) {
        v->win_scale = me->shift;
    } else {
        v->win_scale = 1 << me->shift;
        v->window = (uint32_t)window << me->shift;
    }
    in.seglen = v->len;
    in.shift[side] = me->shift;
    in.shift[!side] = peer->shift;
    in.base[side] = me->base;
    in.base[!side] = peer->base;
    e->fresh = false;
    if (cut)
        return;     /* tshark's exception comes before its analysis */
    tcp_seq_segment(&e->seq, &in, pkt, v, &s->unacked_budget, &s->unacked_untracked);
    v->pdu_part = pdu_part(s, me, pkt, seq, v->len, &v->pdu_proto, v);
}

/* The conversation of the datagram an ICMP error quotes, numbered with the
 * frame's own as Wireshark numbers it, when the quote holds its UDP header
 * or its TCP header to the window; nothing of a segment's numbers is followed. */
static void
quote_stream(struct rs_streams *s, const struct rs_packet *pkt, struct rs_stream_view *v)
{
    struct rs_icmp_quote q;
    struct rs_flow_key key;
    int side;

    if (!rs_icmp_quote_view(pkt, &q) || (q.pkt.flags & RS_PKT_IP_FRAGMENT))
        return;
    bool tcp = rs_packet_has(&q.pkt, RS_LAYER_TCP);
    enum rs_layer l4 = tcp ? RS_LAYER_TCP : RS_LAYER_UDP;
    uint32_t need = tcp ? TCP_QUOTE_DECODED : UDP_HDR_LEN;
    if (!rs_packet_has(&q.pkt, l4) || q.pkt.span[l4].len < need || (s->tcp_only && !tcp) ||
        !rs_flow_key_of(&q.pkt, &key, &side))
        return;
    uint32_t hash = rs_flow_key_index_hash(&key);
    struct stream *e = stream_find(s, &key, hash);
    if (e == NULL)
        e = stream_new(s, &key, hash);
    else
        touch(s, e);
    v->quote_index = e->index + 1;
}

/* The packet the stage reads: pkt, or where a TCP header is cut short past its window
 * (RS_PKT_L4_PART), the view holding it as its layer, in its conversation as tshark's. */
static const struct rs_packet *
stage_view(const struct rs_packet *pkt, struct rs_packet *view)
{
    return rs_packet_tcp_cut(pkt) ? rs_packet_fields_view(pkt, view) : pkt;
}

void
rs_streams_process(struct rs_streams *s, struct rs_packet *whole)
{
    struct rs_flow_key key;
    struct rs_packet view;
    int side;
    const struct rs_packet *pkt = stage_view(whole, &view);

    whole->stream = NULL;
    tcp_reasm_next(&s->reasm);  /* the message the last frame completed is shown */
    /* Echoes are matched even when the stage follows TCP alone: the summary
     * line's "(request in N)" needs them, and they are few. */
    if (rs_packet_has(pkt, RS_LAYER_ICMP) || rs_packet_has(pkt, RS_LAYER_ICMPV6)) {
        memset(&s->view, 0, sizeof(s->view));
        echoes_process(&s->echoes, pkt, &s->view);
        quote_stream(s, pkt, &s->view);
        whole->stream = &s->view;
        return;
    }
    if ((pkt->flags & RS_PKT_IP_FRAGMENT) || (s->tcp_only && !rs_packet_has(pkt, RS_LAYER_TCP)) ||
        !rs_flow_key_of(pkt, &key, &side))
        return;
    bool tcp = key.proto == 6;
    uint32_t hash = rs_flow_key_index_hash(&key);
    struct stream *e = stream_find(s, &key, hash);
    bool reused = false;
    if (e != NULL && tcp) {
        /* A new connection on the same ports: a SYN with another initial
         * sequence number, or (restart_after_close, as tshark 4.4) any SYN
         * once the old one was reset or closed both ways. */
        const uint8_t *t = rs_packet_at(pkt, RS_LAYER_TCP);
        const struct tcp_dir *me = &e->dir[side];
        bool closed = e->reset || (e->dir[0].fin && e->dir[1].fin);
        if ((t[13] & (TCP_SYN | TCP_ACK)) == TCP_SYN && me->base_set &&
            (rs_load_be32(t + 4) != me->base || (s->restart_after_close && closed))) {
            stream_start(s, e);
            e->fresh = false;   /* found, not made: tshark keeps the reuse's own rules */
            reused = true;
        }
    }
    if (e == NULL)
        e = stream_new(s, &key, hash);
    else
        touch(s, e);
    struct rs_stream_view *v = &s->view;
    struct rs_time t = rs_frame_time(pkt->frame);
    memset(v, 0, sizeof(*v));
    v->index = e->index;
    v->tcp = tcp;
    if (!e->timed) {
        e->first = e->prev = t;
        e->timed = true;
    }
    v->rel = rs_time_sub(t, e->first);
    v->delta = rs_time_sub(t, e->prev);
    e->prev = t;
    if (tcp)
        tcp_segment(s, e, side, pkt, reused, v);
    whole->stream = v;
}
