/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conv_table.c - the bounded conversation table: lookup by stream, pairing
 * of request and response streams, least-recently-used eviction.
 *
 * How streams are paired (packets name only their destination QP):
 *  1. From the IB CM: a REQ names the active side's QP and a REP, which
 *     answers it by communication id, the passive side's. That pins down
 *     both conversations of the QP pair (cm.c calls conv_pair_cm()).
 *  2. From what is already known: an RC QP is connected to exactly one
 *     remote QP, so once a conversation has both its QPs, requests to one
 *     of them come from the other and responses to the other go back to
 *     it. The peer table remembers every QP pair seen.
 *  3. Otherwise by inference when a stream first appears. A response from
 *     host B to host A's QP Qa belongs to a conversation whose requests go
 *     from A to B and whose response stream is still unknown; among those,
 *     the one that sent the PSN the response carries. Likewise a request
 *     stream can adopt responses seen before any of its requests (a capture
 *     that starts mid-flow) when their PSNs line up. PSNs are random 24-bit
 *     numbers per QP, so a PSN match between unrelated QPs is rare; when
 *     nothing matches, a single candidate between the two hosts is taken.
 *     Candidates whose QP is known to be connected elsewhere are skipped;
 *     this matters where QPs start at the same small PSNs (NCCL over rxe).
 * The table holds at most opts.max_convs conversations; the least recently
 * used is evicted to make room (counted), and its statistics are archived.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/common.h>

#include "analyzer_int.h"

/* A response PSN this close to what a request stream has sent still pairs
 * with it when no remembered request covers it exactly. */
#define PAIR_PSN_WINDOW 4096
#define CONV_SLAB_MIN 16            /* conversations in the first slab */
/* and at most in one: what fills 4 MiB, two huge pages (rs_zalloc_populated) */
#define CONV_SLAB_MAX (((4u << 20) - sizeof(struct conv_slab)) / sizeof(struct conv))

static uint32_t
key_hash(const struct stream_key *key)
{
    G_STATIC_ASSERT(sizeof(*key) % 4 == 0);
    return rs_ptr_index_hash_key(key, sizeof(*key));
}

/* A conversation's streams have no keys of their own: its statistics name both
 * ends and both QPs (QPN_UNKNOWN until a stream shows one), and the keys are those.
 * Two stored keys were 88 bytes more per conversation to fault in and evict. */
static bool
addr_is(const struct rs_addr *a, const struct rs_conv_stats *st, const uint8_t *bytes)
{
    return a->family == st->addr_family && memcmp(a->bytes, bytes, sizeof(a->bytes)) == 0;
}

/* c's requester and responder as addresses. */
static void
conv_ends(const struct conv *c, struct rs_addr *requester, struct rs_addr *responder)
{
    requester->family = responder->family = c->stats.addr_family;
    memcpy(requester->bytes, c->stats.requester, sizeof(requester->bytes));
    memcpy(responder->bytes, c->stats.responder, sizeof(responder->bytes));
}

/* The key of c's request stream (requester to the responder's QP), or of its
 * response stream (responder to the requester's QP). */
static void
conv_key(const struct conv *c, bool response, struct stream_key *k)
{
    struct rs_addr requester, responder;

    conv_ends(c, &requester, &responder);
    if (response)
        stream_key_make(k, &responder, &requester, c->stats.requester_qp, true);
    else
        stream_key_make(k, &requester, &responder, c->stats.responder_qp, false);
}

/* Whether conversation ptr is indexed under stream key `key`. */
static bool
stream_match(const void *ptr, const void *key)
{
    const struct rs_conv_stats *st = &((const struct conv *)ptr)->stats;
    const struct stream_key *k = key;

    if (k->response)
        return k->qpn == st->requester_qp && addr_is(&k->src, st, st->responder) &&
               addr_is(&k->dst, st, st->requester);
    return k->qpn == st->responder_qp && addr_is(&k->src, st, st->requester) &&
           addr_is(&k->dst, st, st->responder);
}

/* The host pair of a conversation: requester and responder. */
struct host_pair {
    const struct rs_addr *requester, *responder;
};

static uint32_t
host_pair_hash(const struct rs_addr *requester, const struct rs_addr *responder)
{
    struct stream_key k;

    stream_key_make(&k, requester, responder, 0, false);
    return key_hash(&k);
}

/* Whether conversation ptr, a list head, is between the hosts of `key`. */
static bool
host_pair_match(const void *ptr, const void *key)
{
    const struct conv *c = ptr;
    const struct host_pair *hp = key;

    return addr_is(hp->requester, &c->stats, c->stats.requester) &&
           addr_is(hp->responder, &c->stats, c->stats.responder);
}

struct archive_key {
    const struct rs_analyzer *an;
    uint32_t id;
};

static bool
archive_match(const void *ptr, const void *key)
{
    const struct archive_key *k = key;

    return k->an->archive[GPOINTER_TO_UINT(ptr) - 1].id == k->id;
}

struct conv *
conv_by_id(const struct rs_analyzer *an, uint32_t id)
{
    return live_ids_find(&an->live_by_id, id);
}

uint32_t
archive_index_of(const struct rs_analyzer *an, uint32_t id)
{
    struct archive_index *ai = an->archive_by_id;
    struct archive_key k = {an, id};

    /* Entries are only ever appended: index those archived since last time. */
    for (; ai->upto < an->n_archive; ai->upto++)
        rs_ptr_index_insert(&ai->ids, conv_id_hash(an->archive[ai->upto].id),
                            GUINT_TO_POINTER(ai->upto + 1));
    return GPOINTER_TO_UINT(rs_ptr_index_find(&ai->ids, conv_id_hash(id), archive_match, &k));
}

void
conv_table_init(struct rs_analyzer *an)
{
    an->next_id = 1;
    an->archive_by_id = g_new0(struct archive_index, 1);
}

static size_t
conv_slab_size(uint32_t cap)
{
    return sizeof(struct conv_slab) + (size_t)cap * sizeof(struct conv);
}

/* Memory for a new conversation, zeroed: the newest slab's next, or a new
 * slab twice the last one's size (from CONV_SLAB_MIN to CONV_SLAB_MAX), so
 * that a capture of a few QPs holds a few, and a large table few slabs. */
static struct conv *
conv_alloc(struct rs_analyzer *an)
{
    struct conv_slab *s = an->slabs;

    if (s == NULL || s->used == s->cap) {
        uint32_t cap = s == NULL ? CONV_SLAB_MIN : MIN(2 * s->cap, CONV_SLAB_MAX);
        struct conv_slab *n = rs_zalloc_ahead_take(&an->slab_ahead, conv_slab_size(cap));
        n->cap = cap;
        n->next = s;
        an->slabs = s = n;
        an->slab_convs += cap;
        /* The next slab, if the table's bound leaves room for one: it is at its
         * largest from here on. */
        uint32_t next = MIN(2 * cap, CONV_SLAB_MAX);
        if (an->slab_convs < an->opts.max_convs)
            rs_zalloc_ahead_start(&an->slab_ahead, conv_slab_size(next));
    }
    return &s->convs[s->used++];
}

void
conv_table_free(struct rs_analyzer *an)
{
    for (struct conv_slab *s = an->slabs, *next; s != NULL; s = next) {
        next = s->next;
        for (uint32_t i = 0; i < s->used; i++) {
            req_stream_free(&s->convs[i].req);
            g_free(s->convs[i].lat);
        }
        rs_zalloc_free(s, conv_slab_size(s->cap));
    }
    an->slabs = NULL;
    conv_side_pool_free(&an->sides);
    rs_zalloc_ahead_free(&an->slab_ahead);
    rs_ptr_index_free(&an->streams);
    rs_ptr_index_free(&an->host_pairs);
    peer_table_free(&an->peers);
    live_ids_free(&an->live_by_id);
    rs_ptr_index_free(&an->archive_by_id->ids);
    g_free(an->archive_by_id);
    g_free(an->archive);
}

/* The lookup cache's slot for a stream to qpn between two addresses, of
 * which it takes the fourth bytes. */
static unsigned
cache_slot_of(uint32_t qpn, bool response, const uint8_t *src, const uint8_t *dst)
{
    return (qpn ^ qpn >> 8 ^ (unsigned)response << 7 ^ src[3] ^ dst[3]) & (CONV_CACHE_SIZE - 1);
}

static unsigned
cache_slot(const struct stream_key *key)
{
    return cache_slot_of(key->qpn, key->response, key->src.bytes, key->dst.bytes);
}

/* The conversation the lookup cache holds for key in its slot, or NULL. */
static struct conv *
cache_get(const struct rs_analyzer *an, const struct stream_key *key, unsigned slot)
{
    if (an->cache[slot].conv != NULL && memcmp(key, &an->cache[slot].key, sizeof(*key)) == 0)
        return an->cache[slot].conv;
    return NULL;
}

/* key's conversation from the stream index (hash, key's), kept in the cache's slot; or
 * NULL. */
static struct conv *
index_get(struct rs_analyzer *an, const struct stream_key *key, uint32_t hash, unsigned slot)
{
    struct conv *c = rs_ptr_index_find(&an->streams, hash, stream_match, key);

    if (c != NULL) {
        an->cache[slot].key = *key;
        an->cache[slot].conv = c;
    }
    return c;
}

struct conv *
conv_find(struct rs_analyzer *an, const struct stream_key *key)
{
    unsigned slot = cache_slot(key);
    struct conv *c = cache_get(an, key, slot);

    return c != NULL ? c : index_get(an, key, key_hash(key), slot);
}

/* The host pair's hash of a packet's stream: requester and responder, whichever way
 * the packet goes. */
static uint32_t
key_host_hash(const struct stream_key *key)
{
    return key->response ? host_pair_hash(&key->dst, &key->src)
                         : host_pair_hash(&key->src, &key->dst);
}

void
conv_key_hashes(const struct stream_key *key, struct key_hashes *h)
{
    struct endpoint ep;

    endpoint_make(&ep, &key->dst, key->qpn);
    h->stream = key_hash(key);
    h->host = key_host_hash(key);
    h->peer = peer_table_hash(&ep);
}

static void
lru_unlink(struct rs_analyzer *an, struct conv *c)
{
    if (c->lru_prev != NULL)
        c->lru_prev->lru_next = c->lru_next;
    else
        an->lru_head = c->lru_next;
    if (c->lru_next != NULL)
        c->lru_next->lru_prev = c->lru_prev;
    else
        an->lru_tail = c->lru_prev;
    c->lru_prev = c->lru_next = NULL;
}

static void
lru_push_head(struct rs_analyzer *an, struct conv *c)
{
    c->lru_next = an->lru_head;
    c->lru_prev = NULL;
    if (an->lru_head != NULL)
        an->lru_head->lru_prev = c;
    an->lru_head = c;
    if (an->lru_tail == NULL)
        an->lru_tail = c;
}

void
conv_touch(struct rs_analyzer *an, struct conv *c, uint64_t frame)
{
    c->last_frame = frame;
    if (an->lru_head != c) {
        lru_unlink(an, c);
        lru_push_head(an, c);
    }
}

/* The unpaired conversations between two hosts, most recent first: a list
 * through cand_next, whose head host_pairs holds while it is not empty. */
static struct conv *
candidates_of(struct rs_analyzer *an, const struct rs_addr *requester,
              const struct rs_addr *responder, uint32_t host_hash)
{
    struct host_pair hp = {requester, responder};

    return rs_ptr_index_find(&an->host_pairs, host_hash, host_pair_match, &hp);
}

/* Puts c at the head of its host pair's list; host_hash is the pair's. */
static void
cand_link(struct rs_analyzer *an, struct conv *c, uint32_t host_hash)
{
    struct rs_addr requester, responder;

    conv_ends(c, &requester, &responder);
    struct host_pair hp = {&requester, &responder};

    c->host_hash = host_hash;
    struct conv *head = rs_ptr_index_put(&an->host_pairs, host_hash, c, host_pair_match, &hp);
    c->cand_prev = NULL;
    c->cand_next = head;
    if (head != NULL)
        head->cand_prev = c;
    c->is_candidate = true;
}

static void
cand_unlink(struct rs_analyzer *an, struct conv *c)
{
    if (!c->is_candidate)
        return;
    c->is_candidate = false;
    if (c->cand_next != NULL)
        c->cand_next->cand_prev = c->cand_prev;
    if (c->cand_prev != NULL) {
        c->cand_prev->cand_next = c->cand_next;
        return;
    }
    /* The head: the list starts at the next one, or is gone. */
    if (c->cand_next != NULL)
        rs_ptr_index_repoint(&an->host_pairs, c->host_hash, c, c->cand_next);
    else
        rs_ptr_index_remove(&an->host_pairs, c->host_hash, c);
}

static void
archive_stats(struct rs_analyzer *an, const struct conv *c)
{
    struct rs_conv_stats st;

    if (!an->opts.keep_evicted)
        return;
    conv_final_stats(c, &st);
    if (an->n_archive < an->opts.max_convs) {
        if (an->n_archive == an->cap_archive) {
            an->cap_archive = an->cap_archive ? an->cap_archive * 2 : 64;
            an->archive = g_realloc_n(an->archive, an->cap_archive, sizeof(*an->archive));
        }
        an->archive[an->n_archive++] = st;
        return;
    }
    /* The archive is full as well: only totals survive. */
    struct rs_conv_stats *r = &an->evicted_rest;
    r->req_packets += st.req_packets;
    r->req_bytes += st.req_bytes;
    r->resp_packets += st.resp_packets;
    r->resp_bytes += st.resp_bytes;
    r->msgs_send += st.msgs_send;
    r->msgs_write += st.msgs_write;
    r->msgs_read += st.msgs_read;
    r->msgs_atomic += st.msgs_atomic;
    r->retransmissions += st.retransmissions;
    r->psn_gaps += st.psn_gaps;
    for (int i = 0; i < 5; i++)
        r->naks[i] += st.naks[i];
    r->rnr_naks += st.rnr_naks;
    r->cnps += st.cnps;
    r->ecn_ce += st.ecn_ce;
    r->violations += st.violations;
    an->evicted_rest_convs++;
}

/* Clears the lookup cache's slot if c is what it holds. */
static void
cache_drop_slot(struct rs_analyzer *an, unsigned slot, const struct conv *c)
{
    if (an->cache[slot].conv == c)
        an->cache[slot].conv = NULL;
}

/* Clears the lookup cache's slot for key if c is what it holds. */
static void
cache_drop(struct rs_analyzer *an, const struct stream_key *key, const struct conv *c)
{
    cache_drop_slot(an, cache_slot(key), c);
}

/* Clears the lookup cache's slots that hold c. */
static void
cache_forget(struct rs_analyzer *an, const struct conv *c)
{
    const struct rs_conv_stats *st = &c->stats;

    if (c->reindexed) {
        for (unsigned i = 0; i < CONV_CACHE_SIZE; i++)
            cache_drop_slot(an, i, c);
        return;
    }
    /* c is cached only under its keys (conv_key), in their slots. */
    cache_drop_slot(an, cache_slot_of(st->responder_qp, false, st->requester, st->responder), c);
    cache_drop_slot(an, cache_slot_of(st->requester_qp, true, st->responder, st->requester), c);
}

/* Takes c out of every index and archives its statistics; the caller reuses
 * its memory. */
static void
conv_unlink(struct rs_analyzer *an, struct conv *c)
{
    cache_forget(an, c);
    if (c->req_indexed)
        rs_ptr_index_remove(&an->streams, c->req_hash, c);
    if (c->resp_indexed)
        rs_ptr_index_remove(&an->streams, c->resp_hash, c);
    cand_unlink(an, c);
    lru_unlink(an, c);
    live_ids_remove(&an->live_by_id, c);
    archive_stats(an, c);
    an->n_live--;
}

/* At its bound, the table evicts a conversation for each new one: the least recently
 * used, a random place in memory, as are its slots in the indexes, and each taken out
 * of memory only when the one before it came (its hashes are in it). It is known long
 * before: the conversation before it in the LRU list is asked of memory when it is
 * evicted, and its slots when a packet next misses the lookup cache (conv_find_or_peer),
 * so that they come while that packet is looked up. */
static void
victim_prefetch(const struct conv *v)
{
    if (v == NULL)
        return;
    for (const char *p = (const char *)v; p < (const char *)v->ring0; p += 64)
        __builtin_prefetch(p, 1);
}

static void
victim_prefetch_slots(const struct rs_analyzer *an)
{
    const struct conv *v = an->lru_tail;

    if (an->retired != NULL || v == NULL || an->n_live < an->opts.max_convs)
        return;
    if (v->req_indexed)
        __builtin_prefetch(&an->streams.slots[v->req_hash & (an->streams.cap - 1)], 1);
    if (v->resp_indexed)
        __builtin_prefetch(&an->streams.slots[v->resp_hash & (an->streams.cap - 1)], 1);
    if (v->is_candidate)
        __builtin_prefetch(&an->host_pairs.slots[v->host_hash & (an->host_pairs.cap - 1)], 1);
}

static void
conv_evict(struct rs_analyzer *an, struct conv *c)
{
    victim_prefetch(c->lru_prev);
    conv_unlink(an, c);
    an->evictions++;
}

void
conv_retire(struct rs_analyzer *an, struct conv *c)
{
    conv_unlink(an, c);
    c->lru_next = an->retired;
    an->retired = c;
}

/* A cleared conversation in the memory of evicted c: its request ring and
 * latency reservoir are kept, emptied, and its side goes back to the pool,
 * so that a table at its bound allocates nothing for a new conversation. The ring only grows, up to
 * REQ_RING_MAX, so a larger one than a new conversation would have had
 * holds the same requests. */
static void
conv_recycle(struct rs_analyzer *an, struct conv *c)
{
    struct req_entry *ring = c->req.ring;
    uint32_t ring_cap = c->req.ring_cap;
    bool ring_allocated = c->req.ring_allocated;
    struct rs_latency_samples *lat = c->lat;

    conv_side_release(an, c);
    memset(c, 0, offsetof(struct conv, ring0));
    c->req.ring = ring;
    c->req.ring_cap = ring_cap;
    c->req.ring_allocated = ring_allocated;
    if (lat != NULL) {
        lat->seen = 0;
        lat->n = 0;
    }
    c->lat = lat;
}

/* A new conversation from requester to responder, whose host pair hashes
 * to host_hash. */
static struct conv *
conv_new(struct rs_analyzer *an, const struct rs_addr *requester,
         const struct rs_addr *responder, uint32_t host_hash, uint64_t frame)
{
    struct conv *c;

    if (an->retired != NULL) {
        c = an->retired;
        an->retired = c->lru_next;
        conv_recycle(an, c);
    } else if (an->n_live >= an->opts.max_convs && an->lru_tail != NULL) {
        c = an->lru_tail;
        conv_evict(an, c);
        conv_recycle(an, c);
    } else {
        c = conv_alloc(an);
        c->req.ring = c->ring0;
        c->req.ring_cap = REQ_RING_MIN;
    }

    c->stats.id = an->next_id++;
    live_ids_add(&an->live_by_id, c, an->n_live + 1, an->opts.max_convs);
    c->stats.requester_qp = QPN_UNKNOWN;
    c->stats.responder_qp = QPN_UNKNOWN;
    c->stats.addr_family = requester->family;
    memcpy(c->stats.requester, requester->bytes, 16);
    memcpy(c->stats.responder, responder->bytes, 16);
    c->pmtu = pmtu_default(an);
    c->pmtu_known = an->opts.pmtu != 0;
    c->last_frame = frame;
    cand_link(an, c, host_hash);
    lru_push_head(an, c);
    an->n_live++;
    return c;
}

/* --- The peer table: which QP each QP is connected to --- */

/* The QP endpoint addr:qpn is connected to, or NULL when unknown. */
static const struct endpoint *
peer_of(struct rs_analyzer *an, const struct rs_addr *addr, uint32_t qpn)
{
    struct endpoint k;

    endpoint_make(&k, addr, qpn);
    return peer_table_find(&an->peers, &k);
}

/* The conversation of the stream key names, as conv_find(). When the stream is not
 * among the last ones seen, the slots of the peer table (for the QP the packet goes
 * to) and of the host pairs (for its requester and responder) are asked of memory
 * first: a stream not in the table (most of them, where many QPs are new) is looked
 * up in both next, and the three slots, each at a random place in a large table,
 * then come from memory together rather than one after another. On 150,000 QPs of
 * a SEND and an ACK each, -T fields went from 232 to 178 ms. *peer is the QP's peer
 * when the stream is new, NULL otherwise; *host_hash, the host pair's hash when the
 * stream is new. */
static struct conv *
conv_find_or_peer(struct rs_analyzer *an, const struct stream_key *key,
                  const struct key_hashes *h, const struct endpoint **peer,
                  uint32_t *host_hash)
{
    unsigned slot = cache_slot(key);
    struct conv *c = cache_get(an, key, slot);
    struct key_hashes mine;

    *peer = NULL;
    if (c != NULL)
        return c;
    struct endpoint ep;
    endpoint_make(&ep, &key->dst, key->qpn);
    if (h == NULL) {            /* not prepared on a decoding thread: worked out here */
        conv_key_hashes(key, &mine);
        h = &mine;
    }
    peer_table_prefetch_hashed(&an->peers, h->peer);
    *host_hash = h->host;
    if (an->host_pairs.n > 0)
        __builtin_prefetch(&an->host_pairs.slots[*host_hash & (an->host_pairs.cap - 1)]);
    victim_prefetch_slots(an);
    if ((c = index_get(an, key, h->stream, slot)) == NULL)
        *peer = peer_table_find_hashed(&an->peers, &ep, h->peer);
    return c;
}

void
conv_peers_pair(struct rs_analyzer *an, const struct endpoint *a, const struct endpoint *b)
{
    /* Bounded like the table itself: twice as many pairs as conversations
     * (and so at most four times as many endpoints). */
    if (an->peers.n_records >= 2 * (uint64_t)an->opts.max_convs)
        peer_table_clear(&an->peers);
    peer_table_pair(&an->peers, a, b);
}

static void
peer_learn(struct rs_analyzer *an, const struct conv *c)
{
    struct endpoint a, b;
    struct rs_addr requester, responder;

    conv_ends(c, &requester, &responder);
    endpoint_make(&a, &requester, c->stats.requester_qp);
    endpoint_make(&b, &responder, c->stats.responder_qp);
    conv_peers_pair(an, &a, &b);
}

/* True when addr:qpn is known to be connected to something other than
 * peer_addr:peer_qpn. */
static bool
connected_elsewhere(struct rs_analyzer *an, const struct rs_addr *addr, uint32_t qpn,
                    const struct rs_addr *peer_addr, uint32_t peer_qpn)
{
    const struct endpoint *p = peer_of(an, addr, qpn);

    return p != NULL &&
           (p->qpn != peer_qpn || memcmp(&p->addr, peer_addr, sizeof(*peer_addr)) != 0);
}

/* Makes one stream of c findable under qpn; with both streams known, the
 * QP pair is remembered and c stops being a pairing candidate. */
static void
index_stream(struct rs_analyzer *an, struct conv *c, bool response, uint32_t qpn)
{
    uint32_t *hash = response ? &c->resp_hash : &c->req_hash;
    struct stream_key k;

    /* Indexed before under another QP: the cache may still hold c under
     * that key, which is not c's any more. */
    if (response ? c->resp_indexed : c->req_indexed) {
        c->reindexed = true;
        rs_ptr_index_remove(&an->streams, *hash, c);
        conv_key(c, response, &k);
        cache_drop(an, &k, c);
    }
    if (response) {
        c->stats.requester_qp = qpn;
        c->resp_indexed = true;
    } else {
        c->stats.responder_qp = qpn;
        c->req_indexed = true;
    }
    conv_key(c, response, &k);
    *hash = key_hash(&k);
    /* Another conversation indexed under this key gives it up: the key
     * names one stream, and the newest claim on it wins. */
    struct conv *other = rs_ptr_index_put(&an->streams, *hash, c, stream_match, &k);
    if (other != NULL)
        cache_drop(an, &k, other);
    if (c->req_indexed && c->resp_indexed) {
        peer_learn(an, c);
        cand_unlink(an, c);
    }
}

static void
index_request(struct rs_analyzer *an, struct conv *c, uint32_t qpn)
{
    index_stream(an, c, false, qpn);
}

static void
index_response(struct rs_analyzer *an, struct conv *c, uint32_t qpn)
{
    index_stream(an, c, true, qpn);
}

/* How well PSN psn, carried by a response, fits what c's requester sent:
 * 2 a remembered request covers it, 1 it lies just behind the next
 * expected PSN, 0 no sign. */
static int
response_fit(const struct conv *c, uint32_t psn)
{
    if (!c->req.started)
        return 0;
    if (req_ring_find_covering(&c->req, psn) >= 0)
        return 2;
    int32_t d = psn_diff(psn, c->req.e_hi);
    return d < 0 && d >= -PAIR_PSN_WINDOW ? 1 : 0;
}

/* How well a first request PSN fits responses already seen on c. */
static int
request_fit(const struct conv *c, uint32_t psn)
{
    const struct resp_stream *rs = conv_resp(c);

    if (!rs->started)
        return 0;
    int32_t d = psn_diff(psn, rs->high);
    return d > 0 && d <= PAIR_PSN_WINDOW ? 2 : d > -PAIR_PSN_WINDOW && d <= 0 ? 1 : 0;
}

/* The candidate between the two hosts whose missing stream best fits psn:
 * the best score wins; with no evidence, a lone candidate does. */
static struct conv *
best_candidate(struct rs_analyzer *an, const struct rs_addr *requester,
               const struct rs_addr *responder, uint32_t host_hash, uint32_t qpn, uint32_t psn,
               bool want_response)
{
    struct conv *best = NULL, *only = NULL;
    int best_fit = 0, candidates = 0, looked = 0;

    /* The most recent unpaired conversations only: a capture where thousands
     * wait at once cannot be paired by evidence anyway. */
    for (struct conv *c = candidates_of(an, requester, responder, host_hash);
         c != NULL && looked < MAX_CANDIDATES; c = c->cand_next, looked++) {
        if (want_response ? c->resp_indexed : c->req_indexed)
            continue;
        /* qpn is the requester's QP for a response, the responder's for a
         * request: skip candidates whose other end is connected elsewhere. */
        if (want_response
                ? connected_elsewhere(an, responder, c->stats.responder_qp, requester, qpn)
                : connected_elsewhere(an, requester, c->stats.requester_qp, responder, qpn))
            continue;
        candidates++;
        only = c;
        int fit = want_response ? response_fit(c, psn) : request_fit(c, psn);
        if (fit > best_fit) {
            best_fit = fit;
            best = c;
        }
    }
    if (best != NULL)
        return best;
    return candidates == 1 ? only : NULL;
}

struct conv *
conv_for_request(struct rs_analyzer *an, const struct stream_key *key,
                 const struct key_hashes *h, uint32_t psn, uint64_t frame)
{
    const struct endpoint *peer;
    uint32_t host_hash;
    struct conv *c = conv_find_or_peer(an, key, h, &peer, &host_hash);

    if (c != NULL)
        return c;
    /* The responder QP's peer sends these requests and takes the responses. */
    if (peer != NULL && memcmp(&peer->addr, &key->src, sizeof(key->src)) == 0) {
        struct stream_key rk;
        stream_key_make(&rk, &key->dst, &key->src, peer->qpn, true);
        c = conv_find(an, &rk);
        if (c != NULL && c->req_indexed)
            c = NULL;       /* that response stream belongs to another request stream */
        if (c == NULL) {
            c = conv_new(an, &key->src, &key->dst, host_hash, frame);
            if (conv_find(an, &rk) == NULL)
                index_response(an, c, peer->qpn);
        }
        index_request(an, c, key->qpn);
        return c;
    }
    c = best_candidate(an, &key->src, &key->dst, host_hash, key->qpn, psn, false);
    if (c == NULL)
        c = conv_new(an, &key->src, &key->dst, host_hash, frame);
    index_request(an, c, key->qpn);
    return c;
}

struct conv *
conv_for_response(struct rs_analyzer *an, const struct stream_key *key,
                  const struct key_hashes *h, uint32_t psn, uint64_t frame)
{
    const struct endpoint *peer;
    uint32_t host_hash;
    struct conv *c = conv_find_or_peer(an, key, h, &peer, &host_hash);

    if (c != NULL)
        return c;
    /* The response goes responder -> requester; the requester QP's peer is
     * the responder QP its requests went to. */
    if (peer != NULL && memcmp(&peer->addr, &key->src, sizeof(key->src)) == 0) {
        struct stream_key qk;
        stream_key_make(&qk, &key->dst, &key->src, peer->qpn, false);
        c = conv_find(an, &qk);
        if (c != NULL && !c->resp_indexed) {
            index_response(an, c, key->qpn);
            return c;
        }
    }
    c = best_candidate(an, &key->dst, &key->src, host_hash, key->qpn, psn, true);
    if (c == NULL)
        c = conv_new(an, &key->dst, &key->src, host_hash, frame);
    index_response(an, c, key->qpn);
    return c;
}

struct conv *
conv_for_cnp(struct rs_analyzer *an, const struct stream_key *key, bool *to_requester)
{
    struct stream_key k = *key;
    struct conv *c;

    k.response = 1;     /* to a requester's QP: it travels like the responses */
    if ((c = conv_find(an, &k)) != NULL) {
        *to_requester = true;
        return c;
    }
    k.response = 0;
    if ((c = conv_find(an, &k)) != NULL) {
        *to_requester = false;
        return c;
    }
    /* A CNP can precede every response of its conversation. A CNP carries no
     * PSN to correlate, so only a lone candidate is taken. */
    struct conv *only = NULL;
    int n = 0, looked = 0;
    for (c = candidates_of(an, &key->dst, &key->src, host_pair_hash(&key->dst, &key->src));
         c != NULL && looked < MAX_CANDIDATES;
         c = c->cand_next, looked++) {
        if (!c->resp_indexed) {
            only = c;
            n++;
        }
    }
    if (n != 1)
        return NULL;
    k.response = 1;
    index_response(an, only, key->qpn);
    *to_requester = true;
    return only;
}

/* One direction of a CM-established QP pair: requests from (a, qpn_a) to
 * qpn_b, responses back to qpn_a. */
static void
pair_direction(struct rs_analyzer *an, const struct rs_addr *a, uint32_t qpn_a,
               const struct rs_addr *b, uint32_t qpn_b, uint64_t frame)
{
    struct stream_key req, resp;

    stream_key_make(&req, a, b, qpn_b, false);
    stream_key_make(&resp, b, a, qpn_a, true);
    struct conv *c = conv_find(an, &req);
    struct conv *r = conv_find(an, &resp);
    uint32_t reused = 0;

    /* A life of these QPs that this exchange ended (lifetime.c): the new one starts
     * here, paired. */
    if (c != NULL && c->ended) {
        reused = c->stats.id;
        r = r == c ? NULL : r;
        conv_retire(an, c);
        c = NULL;
    }
    if (r != NULL && r->ended) {
        reused = reused != 0 ? reused : r->stats.id;
        conv_retire(an, r);
        r = NULL;
    }
    if (c != NULL && r != NULL)
        return;     /* both streams known already (paired or not, leave them) */
    if (c == NULL && r == NULL) {
        c = conv_new(an, a, b, host_pair_hash(a, b), frame);
        index_request(an, c, qpn_b);
        index_response(an, c, qpn_a);
        c->reused_from = reused;
        c->reuse_note = reused != 0;
    } else if (c != NULL) {
        index_response(an, c, qpn_a);
    } else {
        index_request(an, r, qpn_b);
        c = r;
    }
    c->stats.paired_by_cm = true;
}

void
conv_pair_cm(struct rs_analyzer *an, const struct rs_addr *a, uint32_t qpn_a,
             const struct rs_addr *b, uint32_t qpn_b, uint64_t frame)
{
    pair_direction(an, a, qpn_a, b, qpn_b, frame);
    pair_direction(an, b, qpn_b, a, qpn_a, frame);
}
