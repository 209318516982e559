/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * analyzer_int.h - the analyzer's state: conversations, their request and
 * response streams, and the table that holds them. Not part of the API.
 *
 * A conversation is one direction of work on an RC (or UC, or XRC) queue
 * pair: the request stream from the requester to the responder's QP, and
 * the response stream (ACKs, NAKs, READ responses, atomic ACKs) back to
 * the requester's QP. RC QPs work both ways, so a QP pair that sends in
 * both directions is two conversations. Packets only name their
 * destination QP, so the two streams are paired from the IB CM REQ/REP
 * when the capture has them, else by addresses and PSN correlation (see
 * conv_table.c).
 */
#ifndef ROCESHARK_ANALYZER_INT_H
#define ROCESHARK_ANALYZER_INT_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/packet.h>
#include <roceshark/dissectors/wire.h>

#include <roceshark/dissectors/ptr_index.h>

#define PSN_MASK 0xffffffu
#define QPN_UNKNOWN 0xffffffffu
#define MIN_PMTU 256
#define MAX_PMTU 4096
#define REQ_RING_MIN 4           /* the ring doubles from this: a power of two */
#define REQ_RING_MAX RS_ANALYSIS_REQUESTS_KEPT   /* requests remembered per conversation */
#define LATENCY_RESERVOIR 512
#define CONV_CACHE_SIZE 256      /* a power of two */
#define MAX_CANDIDATES 64        /* unpaired conversations a pairing looks at */

/* Signed distance a - b between two 24-bit PSNs, in [-2^23, 2^23). */
static inline int32_t
psn_diff(uint32_t a, uint32_t b)
{
    return (int32_t)((a - b) << 8) >> 8;
}

static inline uint32_t
psn_add(uint32_t a, uint32_t n)
{
    return (a + n) & PSN_MASK;
}

/* Where a packet came from and went to: IP addresses, GIDs or LIDs. */
struct rs_addr {
    uint8_t family;         /* 4, 6 (also GIDs), 1 (LIDs) */
    uint8_t bytes[16];
};

/* A stream as the packets address it: source, destination, destination QP,
 * and whether it carries requests or responses. */
struct stream_key {
    struct rs_addr src, dst;
    uint32_t qpn;
    uint8_t response;
};

/* Keys are hashed as raw bytes: build them only through this, which
 * clears the padding. */
static inline void
stream_key_make(struct stream_key *k, const struct rs_addr *src, const struct rs_addr *dst,
                uint32_t qpn, bool response)
{
    memset(k, 0, sizeof(*k));
    k->src = *src;
    k->dst = *dst;
    k->qpn = qpn;
    k->response = response;
}

/* A request remembered for matching responses to it. Packed into 32
 * bytes, as it was with a nanosecond timestamp: the ring holds up to 1024
 * per conversation, and the time is a whole struct rs_time (as two
 * members, so that dmalen fills what would be its padding). */
struct req_entry {
    uint32_t psn : 24;      /* first PSN */
    uint32_t op : 8;        /* enum rs_ib_op */
    uint32_t span : 31;     /* PSNs it occupies (a READ: its response packets) */
    uint32_t answered : 1;  /* a response sequence has been matched to it */
    uint64_t frame;
    int64_t ts_sec;         /* when it was seen */
    uint32_t ts_nsec;
    uint32_t dmalen;
};

/* The streams' members are ordered so that they leave no padding: a
 * conversation's size is what a table at its bound keeps in memory, and on
 * traffic of new conversations what each one faults in and evicts. */
struct req_stream {
    uint32_t e_lo, e_hi;    /* next expected PSN; an interval while a READ's span is unknown */
    uint32_t last_psn;      /* PSN of the last new request */
    uint32_t last_dmalen;   /* and, when it was a READ, its DMA length */
    uint32_t hole;          /* first PSN a gap left missing */
    bool started;
    bool last_was_read;
    bool has_hole;
    /* The message being received (SEND or WRITE), for msg.* facts. */
    bool msg_open;
    bool msg_unknown;       /* a gap broke the message: no sequence checks until FIRST/ONLY */
    bool msg_has_dmalen;
    uint8_t msg_op;
    bool ring_allocated;    /* ring is on the heap, not conv.ring0 (below) */
    uint32_t msg_packets;
    uint32_t msg_dmalen;
    /* Requests remembered, oldest first, in a ring that grows as needed:
     * it starts as the REQ_RING_MIN entries at the end of the conversation
     * (conv.ring0), and only a longer one is allocated. */
    uint32_t ring_cap, ring_start, ring_count;
    struct req_entry *ring;
    /* The message's length and first frame. */
    uint64_t msg_len;
    uint64_t msg_first_frame;
};

struct resp_stream {
    uint32_t high;          /* highest PSN any response has covered */
    uint32_t ack_psn;       /* highest PSN acknowledged by an ACK or NAK */
    uint32_t msn;
    bool started;
    bool have_ack;
    bool have_msn;
    /* The READ response sequence in progress. */
    bool read_open;
    bool read_dup;          /* it replays responses already seen */
    bool read_broken;       /* a gap inside it: no count/length verdict */
    bool read_have_req;     /* read_req_frame/ts name the READ (answered or covering) */
    uint32_t read_next;     /* PSN the next MIDDLE/LAST should carry */
    uint32_t read_packets;
    int32_t read_req;       /* ring index of the READ it answers, -1 if unknown */
    uint32_t read_req_dmalen;
    uint64_t read_bytes;
    uint64_t read_req_frame;
    struct rs_time read_req_ts;
};

/* One end of a QP pair: an address and a QP number there. Hashed and
 * compared as raw bytes: build it only through endpoint_make(). */
struct endpoint {
    struct rs_addr addr;
    uint32_t qpn;
};

/* A QP pair: two endpoints connected to each other. */
struct peer_record {
    struct endpoint end[2];
};

/* An endpoint's entry in the peer table's index: its hash, and its record
 * and which end of it the endpoint is. */
struct peer_entry {
    uint32_t hash;              /* RS_PTR_INDEX_EMPTY while the entry is free */
    uint32_t ref;               /* record << 1 | end */
};

/* Live conversations by id (live_ids.c). */
struct live_ids {
    struct conv **slots;        /* the one whose id is the index modulo cap, or NULL */
    uint32_t cap;               /* a power of two, at least twice the live ones */
    struct rs_ptr_index overflow;   /* ids whose slot an older live one holds */
};

/* The archive's index by conversation id, as far as it has been built. */
struct archive_index {
    struct rs_ptr_index ids;
    uint32_t upto;              /* archive entries indexed */
};

/* QP endpoint -> the endpoint it is connected to (peer_table.c): a record
 * per pair, in the order learnt, and an index from each endpoint to its
 * pair's record. */
struct peer_table {
    struct peer_entry *index;
    uint32_t cap, n;            /* index slots, and endpoints indexed */
    struct peer_record *records;
    uint32_t n_records, cap_records;
};

struct rs_latency_samples {
    uint64_t seen;          /* for reservoir sampling */
    uint32_t n;
    int64_t v[LATENCY_RESERVOIR];
};

/* What a conversation keeps of its responses and CE marks (conv_side.c). On
 * traffic of many conversations about two in three see neither, so these are
 * not part of struct conv, which a table at its bound holds max_convs times. */
struct conv_side {
    struct resp_stream resp;
    struct rs_time last_ce_req, last_ce_resp;   /* when the last CE mark was, each way */
    bool ce_req_seen, ce_resp_seen;             /* a CE mark in either direction */
    struct conv_side *next_free;                /* on the pool's free list */
};

struct conv_side_chunk;
struct conv_side_pool {
    struct conv_side_chunk *chunks;     /* the newest first; only it has room */
    struct conv_side *free;
    uint32_t in_use;                    /* sides held by conversations */
    uint32_t held;                      /* sides the chunks hold */
    struct rs_zalloc_ahead ahead;       /* the next large chunk, made ready on a thread */
};

struct conv {
    struct req_stream req;
    struct rs_conv_stats stats;
    struct conv_side *side;             /* from the first response or CE mark; else NULL */
    struct rs_latency_samples *lat;    /* allocated on the first READ completion */
    /* LRU list, most recent at the head. While only one of its streams is
     * known, the conversation also waits on its host pair's candidate list,
     * whose head the host_pairs index holds. */
    struct conv *lru_prev, *lru_next;
    struct conv *cand_prev, *cand_next;
    uint64_t last_frame;
    /* The hashes its keys are indexed under, so that they are not computed
     * again to take them out. */
    uint32_t req_hash, resp_hash, host_hash;
    /* The conversation's first PSN (request or response), which psn_rel counts
     * from; and reuse_note while its first packet has yet to say that it is a new
     * life of QPs that conversation reused_from had (lifetime.c). */
    uint32_t psn_base : 24;
    uint32_t psn_base_set : 1;
    uint32_t reuse_note : 1;
    uint32_t ended : 1;         /* a setup named one of its QPs again: over at its next packet */
    uint32_t reused_from;
    uint16_t pmtu;
    bool pmtu_known;
    bool is_candidate;
    /* The request stream (requester -> responder QP) and the response stream
     * (responder -> requester QP) are keyed by the ends and QPs the statistics
     * name (conv_table.c): indexed once the stream's QP is known. */
    bool req_indexed, resp_indexed;
    bool reindexed;                 /* a stream was indexed again under another QP */
    /* The request ring's first home, last, so that recycling a conversation
     * need not clear it: a conversation of a few requests (on hostile
     * traffic, most) costs no allocation and no cache line far from the
     * rest of it. */
    struct req_entry ring0[REQ_RING_MIN];
};

/* Conversations are carved from slabs and never freed one by one: an
 * evicted one is recycled in place (conv_recycle), so a slab lives as long
 * as the analyzer. A table of 65,536 is some 70 slabs, not 65,536 mallocs,
 * and frees in as many calls. */
struct conv_slab {
    struct conv_slab *next;
    uint32_t used, cap;
    struct conv convs[];
};

/* A setup message (perftest's key message, ibv_rc_pingpong's address) seen on one
 * direction of a TCP connection, so that the repeats perftest sends as barriers are
 * told from a new setup, and the two sides' messages pair their QPs. */
struct setup_seen {
    struct rs_flow_key conn;    /* the TCP connection */
    int side;                   /* which of its sides sent the message */
    struct endpoint qp;         /* the QP the message names */
    bool paired;                /* the other side's message has been matched to it */
    bool ended;                 /* it ended a conversation of that QP */
};
#define SETUPS_KEPT 64

struct rs_analyzer {
    struct rs_analysis_opts opts;
    struct conv_slab *slabs;        /* the newest first; only it has room */
    uint64_t slab_convs;            /* conversations the slabs hold, used or not */
    struct rs_zalloc_ahead slab_ahead;  /* the next slab, made ready while this one fills */
    struct conv *retired;           /* conversations whose QPs began a new life: reused first */
    struct conv_side_pool sides;    /* what conversations keep of responses and CE marks */
    struct rs_ptr_index streams;    /* stream key -> struct conv * */
    struct rs_ptr_index host_pairs; /* requester and responder -> newest unpaired conv */
    struct peer_table peers;
    struct live_ids live_by_id;     /* conversation id -> struct conv * */
    /* conversation id -> index in archive + 1, built when an archived
     * conversation is first asked for (rarely), not at every eviction */
    struct archive_index *archive_by_id;
    struct conv *lru_head, *lru_tail;
    uint32_t n_live;
    uint32_t next_id;
    uint64_t evictions;
    uint64_t requests_forgotten;    /* dropped from full request rings (REQ_RING_MAX) */
    uint64_t cm_reqs_dropped;       /* CM REQs dropped unpaired from a full table (cm.c) */
    /* Statistics of evicted conversations, kept up to max_convs rows, then
     * summed into `evicted_rest`. */
    struct rs_conv_stats *archive;
    uint32_t n_archive, cap_archive;
    struct rs_conv_stats evicted_rest;
    uint64_t evicted_rest_convs;
    /* A direct-mapped cache in front of `streams`: most packets belong to a
     * stream seen a moment ago, and a compare is cheaper than a hash lookup. */
    struct {
        struct stream_key key;
        struct conv *conv;
    } cache[CONV_CACHE_SIZE];
    /* CM REQs waiting for their REP: comm id -> requester endpoint (cm.c). */
    struct cm_pending *cm_pending;
    /* The last SETUPS_KEPT setup messages, a ring (lifetime.c). */
    struct setup_seen *setups;
    uint32_t n_setups;
};

/* conv_table.c */
void conv_table_init(struct rs_analyzer *an);
void conv_table_free(struct rs_analyzer *an);
struct conv *conv_find(struct rs_analyzer *an, const struct stream_key *key);
/* The hashes a packet's stream key is looked up by (conv_key_hashes()): of the key, of
 * its host pair (requester, responder) and of the endpoint it goes to. */
struct key_hashes {
    uint32_t stream, host, peer;
};
void conv_key_hashes(const struct stream_key *key, struct key_hashes *h);
/* The conversation a request on key belongs to, created when new; h, key's hashes when
 * known (NULL: computed as needed). */
struct conv *conv_for_request(struct rs_analyzer *an, const struct stream_key *key,
                              const struct key_hashes *h, uint32_t psn, uint64_t frame);
/* The conversation a response on key belongs to, paired when possible;
 * NULL when no request stream can be tied to it yet. */
struct conv *conv_for_response(struct rs_analyzer *an, const struct stream_key *key,
                               const struct key_hashes *h, uint32_t psn, uint64_t frame);
/* The conversation a CNP from src to dst's QP qpn throttles: one whose
 * requester or responder QP that is, or else the only conversation between
 * the two hosts whose requester QP is still unknown. NULL when unsure. */
struct conv *conv_for_cnp(struct rs_analyzer *an, const struct stream_key *key, bool *to_requester);
/* Pairs the two QPs of a CM-established connection (both directions). */
void conv_pair_cm(struct rs_analyzer *an, const struct rs_addr *a, uint32_t qpn_a,
                  const struct rs_addr *b, uint32_t qpn_b, uint64_t frame);
void conv_touch(struct rs_analyzer *an, struct conv *c, uint64_t frame);
/* Stats of a live conversation with its latency percentile filled in. */
void conv_final_stats(const struct conv *c, struct rs_conv_stats *out);
/* The live conversation with that id, and the index + 1 of an archived
 * one's statistics (0: not archived). */
struct conv *conv_by_id(const struct rs_analyzer *an, uint32_t id);
uint32_t archive_index_of(const struct rs_analyzer *an, uint32_t id);

/* The hash of a conversation id for a ptr_index: scattered, since ids are
 * given in order and sequential hashes would make one run of slots that
 * every removal (a backward shift) walks to its end. */
static inline uint32_t
conv_id_hash(uint32_t id)
{
    return rs_ptr_index_hash(id * 0x9e3779b97f4a7c15ull);
}

/* live_ids.c; n_live counts c, bound is the most there can be (the first slots' size). */
void live_ids_add(struct live_ids *t, struct conv *c, uint32_t n_live, uint32_t bound);
void live_ids_remove(struct live_ids *t, struct conv *c);
struct conv *live_ids_find(const struct live_ids *t, uint32_t id);
void live_ids_free(struct live_ids *t);

/* peer_table.c */
void endpoint_make(struct endpoint *ep, const struct rs_addr *addr, uint32_t qpn);
const struct endpoint *peer_table_find(const struct peer_table *t, const struct endpoint *ep);
/* peer_table_find() in steps: the endpoint's hash; its index slot asked of memory
 * under that hash, so that the slot arrives while other lookups wait for theirs; then
 * the lookup under that hash. */
uint32_t peer_table_hash(const struct endpoint *ep);
void peer_table_prefetch_hashed(const struct peer_table *t, uint32_t hash);
const struct endpoint *peer_table_find_hashed(const struct peer_table *t,
                                              const struct endpoint *ep, uint32_t hash);
/* Learns that a and b are connected to each other: what either was
 * connected to before is replaced (for the two of them; a QP once paired
 * with one of them still finds it). */
void peer_table_pair(struct peer_table *t, const struct endpoint *a, const struct endpoint *b);
void peer_table_clear(struct peer_table *t);
void peer_table_free(struct peer_table *t);

/* Ends c's life: it leaves every index, its statistics are archived (as an
 * evicted one's, but not counted as evicted), and its memory waits on the
 * retired list for the next conversation. */
void conv_retire(struct rs_analyzer *an, struct conv *c);
/* Learns that QPs a and b are connected (the peer table, at its bound). */
void conv_peers_pair(struct rs_analyzer *an, const struct endpoint *a, const struct endpoint *b);
/* Whether c carried any packet. */
static inline bool
conv_has_traffic(const struct conv *c)
{
    return c->stats.req_packets + c->stats.resp_packets != 0;
}

/* lifetime.c: a QP pair's conversations end where a new life of one of its QPs begins. */
/* Marks ended the conversations in which QP ep takes part and that carried traffic
 * (a setup names it again); peer, when known (other than NULL), is the QP the setup
 * connects it to. Returns how many were marked. */
unsigned lifetime_setup(struct rs_analyzer *an, const struct endpoint *ep,
                        const struct endpoint *peer);
/* perftest's key messages and ibv_rc_pingpong's address messages in TCP segments. */
void lifetime_tcp(struct rs_analyzer *an, const struct rs_packet *pkt);
/* Whether c's life may be over at a packet at time now (a request unless response): a
 * setup named its QPs again, or its requests were quiet for LIFETIME_QUIET_NS. Inline:
 * every packet asks. */
#define LIFETIME_QUIET_NS 100000000ll
static inline bool
lifetime_may_end(const struct conv *c, bool response, struct rs_time now)
{
    /* Saturated: a capture's times may be anything (pcapng_tsresol_seconds). */
    return c->ended || (!response && c->req.started &&
                        rs_time_to_ns(rs_time_sub(now, c->stats.last)) >= LIFETIME_QUIET_NS);
}
/* After lifetime_may_end(): the conversation the packet of c at psn belongs to, c or a
 * new one (lifetime.c says when). */
struct conv *lifetime_check(struct rs_analyzer *an, struct conv *c, const struct stream_key *key,
                            uint32_t psn, bool response, const struct rs_ib_opcode *info,
                            uint64_t frame);
void lifetime_free(struct rs_analyzer *an);

/* cm.c: pairs QPs from IB CM REQ/REP MADs on QP 1. */
void cm_process(struct rs_analyzer *an, const struct rs_packet *pkt,
                const struct stream_key *key);
void cm_free(struct rs_analyzer *an);

/* request_stream.c */
void request_process(struct rs_analyzer *an, struct conv *c, const struct rs_packet *pkt,
                     struct rs_facts *facts);
uint16_t pmtu_default(const struct rs_analyzer *an);
void conv_learn_pmtu(struct conv *c, uint32_t pmtu);
/* Newest-first or oldest-first search of remembered requests. */
int32_t req_ring_find_covering(const struct req_stream *rs, uint32_t psn);
int32_t req_ring_find_unanswered(const struct req_stream *rs, uint32_t psn, uint8_t op);
struct req_entry *req_ring_at(struct req_stream *rs, int32_t i);
void req_ring_prune(struct req_stream *rs, uint32_t ack_psn);
void req_stream_free(struct req_stream *rs);

/* conv_side.c: c's side, taken from the pool at its first use. */
struct conv_side *conv_side_of(struct rs_analyzer *an, struct conv *c);
/* Gives c's side (if any) back to the pool. */
void conv_side_release(struct rs_analyzer *an, struct conv *c);
void conv_side_pool_free(struct conv_side_pool *p);

/* The response stream as far as c has one: all zeroes (not started) before
 * its first response. For reading only. */
static inline const struct resp_stream *
conv_resp(const struct conv *c)
{
    static const struct resp_stream none;
    return c->side != NULL ? &c->side->resp : &none;
}

/* response_stream.c */
void response_process(struct rs_analyzer *an, struct conv *c, const struct rs_packet *pkt,
                      struct rs_facts *facts);

/* congestion.c */
void congestion_mark(struct rs_analyzer *an, struct conv *c, bool response, struct rs_time when);
/* The conversation a CNP throttles (NULL when unsure), with its facts set. */
struct conv *congestion_cnp(struct rs_analyzer *an, const struct rs_packet *pkt,
                            const struct stream_key *key, struct rs_facts *facts);

/* stats.c: adds one analysed frame to a conversation's counts (and its READ
 * completion time to *lat). */
void conv_count(struct rs_conv_stats *st, struct rs_latency_samples **lat,
                const struct rs_facts *f, uint8_t opcode, uint32_t wire_len,
                struct rs_time when);

static inline struct rs_time
frame_time(const struct rs_packet *pkt)
{
    return rs_frame_time(pkt->frame);
}

static inline struct rs_time
req_entry_time(const struct req_entry *e)
{
    return (struct rs_time){e->ts_sec, (int32_t)e->ts_nsec};
}

#endif /* ROCESHARK_ANALYZER_INT_H */
