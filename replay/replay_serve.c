/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_serve.c - the responder side: a live requester is answered with
 * the capture's responses, so that it meets what the captured requester
 * met (the NAKs, the RNR NAKs, the READ data), and what it sends back is
 * compared with what the captured requester sent.
 *
 * Each response of the capture is tied to the request it followed: the
 * request's PSN and how many times that PSN had come by then (a
 * retransmission is the second time). When the live requester sends that
 * PSN for that time, the responses tied to it go out at once, rewritten.
 * The packets move through the RC transport's UDP port (raw receive with
 * the IP header, sends from port 4791 with IP identification 0), with a
 * hook of ours in place of a context's QPs.
 */
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include <roceshark/dissectors/ib_headers.h>
#include <roceshark/inject/inject.h>
#include <roceshark/transport/rc.h>
#include <roceshark/replay/replay.h>
#include <roceshark/dissectors/wire.h>

#include "replay_int.h"

#define ROCEV2_PORT 4791
#define SIDE_LINE_MS 5000

/* The responses that followed one (PSN, time) of a request: consecutive in the trace. */
struct tie {
    uint32_t first, count;
};

struct server {
    const struct rs_replay_trace *trace;
    const struct rs_replay_rewrite *rw;
    const struct rs_decode_opts *dopts;
    uint32_t first_psn;             /* the trace's */
    GHashTable *ties;               /* key(rel PSN, time) -> struct tie */
    GHashTable *seen;               /* rel PSN -> times the live requester sent it */
    uint8_t *buf;
    uint64_t sent, last_rx;
    char err[RS_ERRBUF_SIZE];
    int rc;
};

static guint64
tie_key(uint32_t rel, uint32_t time)
{
    return (guint64)rel << 32 | time;
}

/* Which request each response of the trace followed, in capture order. */
static GHashTable *
make_ties(const struct rs_replay_trace *t, uint32_t first_psn)
{
    GHashTable *ties = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    GHashTable *times = g_hash_table_new(g_direct_hash, g_direct_equal);
    guint64 last = G_MAXUINT64;
    unsigned q = 0;

    for (unsigned r = 0; r < t->responses->len; r++) {
        const struct rs_replay_frame *resp = &g_array_index(t->responses,
                                                            struct rs_replay_frame, r);
        for (; q < t->requests->len; q++) {
            const struct rs_replay_frame *req = &g_array_index(t->requests,
                                                               struct rs_replay_frame, q);
            if (req->number > resp->number)
                break;
            uint32_t rel = (req->psn - first_psn) & 0xffffff;
            guint n = GPOINTER_TO_UINT(g_hash_table_lookup(times, GUINT_TO_POINTER(rel))) + 1;
            g_hash_table_insert(times, GUINT_TO_POINTER(rel), GUINT_TO_POINTER(n));
            last = tie_key(rel, n);
        }
        if (last == G_MAXUINT64)
            continue;               /* an answer to something before the capture began */
        struct tie *tie = g_hash_table_lookup(ties, &last);
        if (tie == NULL) {
            guint64 *k = g_new(guint64, 1);
            *k = last;
            tie = g_new0(struct tie, 1);
            tie->first = r;
            g_hash_table_insert(ties, k, tie);
        }
        tie->count++;
    }
    g_hash_table_destroy(times);
    return ties;
}

/* The responses tied to this time of this PSN, rewritten to the live requester. */
static void
answer(struct server *s, uint32_t rel, uint32_t time, rs_rc_pass_fn pass, void *port)
{
    guint64 key = tie_key(rel, time);
    const struct tie *tie = g_hash_table_lookup(s->ties, &key);

    for (uint32_t i = 0; tie != NULL && i < tie->count && s->rc == 0; i++) {
        const struct rs_replay_frame *f = &g_array_index(s->trace->responses,
                                                         struct rs_replay_frame, tie->first + i);
        if (f->len > RS_RC_MAX_PACKET + f->l3)
            continue;
        memcpy(s->buf, s->trace->bytes->data + f->off, f->len);
        if ((s->rc = rs_replay_rewrite(s->rw, s->buf, f->len, s->trace->linktype, s->dopts,
                                       s->err)) != 0)
            return;
        pass(port, false, s->buf + f->l3, f->len - f->l3);
        s->sent++;
    }
}

static void
hook_packet(void *arg, bool rx, const uint8_t *pkt, uint32_t len, uint64_t now,
            rs_rc_pass_fn pass, void *port)
{
    struct server *s = arg;
    struct rs_frame fr = {.data = pkt, .caplen = len, .len = len, .linktype = RS_DLT_IPV4};
    struct rs_packet p;

    if (!rx) {
        pass(port, rx, pkt, len);
        return;
    }
    rs_decode_frame(&fr, s->dopts, &p);
    if (!rs_packet_has(&p, RS_LAYER_BTH) || !replay_from_peer(&p, s->rw))
        return;
    s->last_rx = now;
    uint32_t psn = rs_bth_psn(rs_packet_at(&p, RS_LAYER_BTH));
    uint32_t rel = (psn - s->rw->psn_offset - s->first_psn) & 0xffffff;
    guint n = GPOINTER_TO_UINT(g_hash_table_lookup(s->seen, GUINT_TO_POINTER(rel))) + 1;
    g_hash_table_insert(s->seen, GUINT_TO_POINTER(rel), GUINT_TO_POINTER(n));
    answer(s, rel, n, pass, port);
}

static uint64_t
hook_poll(void *arg, uint64_t now, rs_rc_pass_fn pass, void *port)
{
    (void)arg;
    (void)now;
    (void)pass;
    (void)port;
    return RS_RC_INFINITE;
}

/* The side channel: the requester's line in, the capture's responder out. */
static int
meet_requester(const struct rs_replay_trace *t, struct rs_replay_rewrite *rw,
               const struct rs_replay_serve_opts *so, uint32_t first_psn, char *err)
{
    struct rs_rc_conn_info peer, ours;
    struct pollfd pfd;
    char line[RS_RC_SIDE_LINE_MAX];
    int lfd, fd, rc;
    uint8_t src[16];

    rs_addr_from_ip(rw->family, rw->src, src);
    if (rs_rc_side_listen(src, 0, so->listen, &lfd, err) < 0)
        return RS_EIO;
    pfd = (struct pollfd){lfd, POLLIN, 0};
    int waited = poll(&pfd, 1, (int)(so->timeout_ns / 1000000));
    if (waited <= 0) {
        close(lfd);
        return rs_error(err, RS_EIO, "side channel: no requester came in %llu s",
                        (unsigned long long)(so->timeout_ns / 1000000000ull));
    }
    rc = rs_rc_side_accept(lfd, &fd, err);
    close(lfd);
    if (rc < 0)
        return RS_EIO;
    if (rs_rc_side_recv(fd, line, sizeof(line), SIDE_LINE_MS, err) < 0 ||
        rs_rc_conn_parse(line, &peer, err) != 0) {
        close(fd);
        return RS_EIO;
    }
    struct replay_remote remote = replay_remote_of(t);
    memset(&ours, 0, sizeof(ours));
    rs_addr_from_ip(rw->family, rw->src, ours.gid);
    ours.qpn = t->conv.responder_qp & 0xffffff;
    ours.rkey = remote.rkey;
    ours.va = remote.lowest != UINT64_MAX ? remote.lowest : 0;
    ours.length = remote.lowest != UINT64_MAX ? remote.end - remote.lowest : 0;
    ours.pmtu = t->conv.pmtu;
    rs_rc_conn_format(&ours, line, sizeof(line));
    rc = rs_rc_side_send(fd, line, err);
    close(fd);
    if (rc < 0)
        return RS_EIO;
    /* Answers go to it: its address, its QPN, its PSNs. */
    if (rs_addr_family(peer.gid) != rw->family)
        return rs_error(err, RS_EINVAL, "the requester's side channel named an address of "
                        "another IP version than ours");
    memcpy(rw->dst, rw->family == 6 ? peer.gid : peer.gid + 12, rw->family == 6 ? 16 : 4);
    rw->set_dst = rw->set_src = true;
    rw->n_qpmap = 0;
    rw->qpmap[rw->n_qpmap++] = (struct rs_replay_map){t->conv.requester_qp & 0xffffff,
                                                      peer.qpn};
    rw->psn_offset = (peer.psn - first_psn) & 0xffffff;
    rw->udp_socket = true;
    rw->set_sport = true;
    rw->sport = ROCEV2_PORT;
    return 0;
}

int
rs_replay_serve(const struct rs_replay_trace *trace, struct rs_replay_rewrite *rw,
                const struct rs_replay_serve_opts *so, const struct rs_replay_run_opts *o,
                const struct rs_decode_opts *dopts, GArray *got, GByteArray *got_bytes,
                struct rs_replay_run_stats *st, char *err)
{
    struct server s = {trace, rw, dopts, rs_replay_first_psn(trace), NULL, NULL, NULL, 0, 0,
                       {0}, 0};
    struct rs_rc_hook hook = {hook_packet, hook_poll, &s, NULL};
    struct rs_rc_udp_opts uo;
    struct rs_rc_ctx_opts co;
    struct rs_rc_udp *udp = NULL;
    struct rs_rc_ctx *ctx = NULL;
    struct replay_capture c;
    int rc;

    memset(st, 0, sizeof(*st));
    memset(&c, 0, sizeof(c));
    rs_rc_udp_opts_init(&uo);
    rs_addr_from_ip(rw->family, rw->src, uo.gid);
    uo.hook = &hook;
    if ((rc = rs_rc_udp_open(&udp, &uo, err)) < 0)
        return rc;
    rs_rc_ctx_opts_init(&co);
    rs_addr_from_ip(rw->family, rw->src, co.local_gid);
    if ((rc = rs_rc_ctx_create(&ctx, &co, rs_rc_udp_link(udp), err)) < 0)
        goto out;
    /* Capturing before the requester comes: it may send at once after the side channel. */
    rw->set_dst = false;
    if ((rc = replay_capture_start(trace, rw, o->capture_iface, 0, NULL, &c, err)) < 0)
        goto out;
    c.want_requests = true;
    if ((rc = meet_requester(trace, rw, so, s.first_psn, err)) != 0)
        goto out;
    s.ties = make_ties(trace, s.first_psn);
    s.seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    s.buf = g_malloc(RS_INJECT_MAX_FRAME);
    uint64_t start = rs_rc_now_ns(), linger = o->linger_ns != 0 ? o->linger_ns : 200000000ull;
    s.last_rx = start;
    /* Until every response went and the requester is quiet, or it went quiet with
     * responses left (it gave up, or waits for what the capture does not have). */
    while (s.rc == 0) {
        if ((rc = rs_rc_udp_poll(udp, ctx, 5000000, err)) < 0)
            break;
        rc = 0;
        uint64_t now = rs_rc_now_ns();
        bool all = s.sent >= trace->responses->len;
        if ((all && now - s.last_rx > linger) || now - s.last_rx > so->idle_ns ||
            now - start > so->timeout_ns)
            break;
    }
    if (rc == 0 && s.rc != 0)
        rc = rs_error(err, s.rc, "%s", s.err);
    st->sent = s.sent;
    st->seconds = (double)(rs_rc_now_ns() - start) / 1e9;
out:
    if (c.src != NULL) {
        int crc = replay_capture_finish(&c, rw, o, dopts, got, got_bytes, st,
                                        rc == 0 ? err : NULL);
        if (rc == 0)
            rc = crc;
    }
    if (s.ties != NULL)
        g_hash_table_destroy(s.ties);
    if (s.seen != NULL)
        g_hash_table_destroy(s.seen);
    g_free(s.buf);
    if (ctx != NULL)
        rs_rc_ctx_destroy(ctx);
    rs_rc_udp_close(udp);
    return rc;
}
