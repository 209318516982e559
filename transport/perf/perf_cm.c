/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_cm.c - the tests' connections through RDMA CM, in two protocols,
 * which the client chooses by its target (the CM cannot tell them apart: a
 * REP's private data is whatever the application put there, so guessing
 * from it could take a third party's bytes for ours):
 *
 * cm:// (our responder, `roceshark responder --cm`): one connection, the
 * test's QP. The responder names the region to READ and WRITE in the REP's
 * private data (RS_CM_REGION_LEN bytes, include/roceshark/transport/cm.h); each side
 * takes its size and iterations from its own command line. A client only.
 *
 * perftest -R (-R, perftest+cm://), as perftest 4.5 (6.06) to 6.28 do it
 * (src/perftest_communication.c, src/perftest_resources.c): a first
 * connection carries perftest's exchange, each step one SEND on an RC QP of
 * its own (the "channel"); a second one, on the same port, connects the test
 * QP. The order: channel (REQ, REP, RTU); version, page size, cache line and
 * MTU as SENDs; a barrier of all-zero key messages; the test QP's REQ, REP,
 * RTU; another zero barrier; then the real key messages, the traffic and
 * the end of perftest's exchange, all over the channel
 * (perf_perftest.c). Both sides, client and server.
 *
 * No private data travels beyond rdma_cm's header in perftest -R, and each
 * side's QP takes READs and atomics only for read_bw, read_lat and
 * atomic_bw (rdma_conn_param's responder resources and initiator depth are
 * perftest's out_reads only for those).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/wire.h>

#include "perf_int.h"

/* Our answers' timeout and retries: 1.07 s each, 3 retries, so a server that
 * is not there is reported within 5 s rather than rdma_cm's minute. */
#define CM_RESPONSE_TIMEOUT 18
#define CM_RETRIES 3
#define CM_WAIT_NS 10000000ull
/* perftest -R's client tries its test QP's connection 10 times, 100 ms apart
 * (rdma_cm_client_connection()): its server listens for it only after the
 * first barrier, so a REQ may find no listener and be rejected. */
#define CM_CONNECT_TRIES 10
#define CM_CONNECT_GAP_NS 100000000ull
#define CHAN_STEP_NS 10000000000ull     /* one step of the exchange: 10 s */
#define CLOSE_WAIT_NS 2000000000ull     /* for the peer's DREQ at the end */
#define CHAN_MSG_MAX 64                 /* perftest 6.29's key message is the largest */

enum conn_state {
    CONN_NONE = 0,
    CONN_PENDING,       /* REQ sent, or REQ accepted and REP sent */
    CONN_UP,            /* REP received (active) or RTU received (passive) */
    CONN_DOWN,          /* DREQ or DREP: gone */
    CONN_FAILED         /* rejected or timed out */
};

struct perf_conn {
    uint32_t id;
    enum conn_state state;
    enum rs_cm_event_type ev;   /* CONN_FAILED: why */
    uint16_t reason;
    const char *unanswered;
    struct rs_cm_params peer;
};

struct rs_perf_cm {
    struct rs_cm *engine;
    struct perf_conn chan, test;
    bool listening;             /* server: the test QP's REQ is welcome */
    /* The channel: its QP, a buffer to send from and one to receive into. */
    struct rs_rc_qp *qp;
    struct rs_rc_mr mr;
    bool mr_registered;
    uint8_t buf[2][CHAN_MSG_MAX];
    bool sent;                  /* our SEND completed */
    bool received;              /* a message waits in buf[1] */
    uint32_t received_len;
    char failure[RS_ERRBUF_SIZE];   /* what failed inside a callback */
};

static struct perf_conn *
conn_of(struct rs_perf_cm *c, uint32_t id)
{
    if (c->chan.state != CONN_NONE && c->chan.id == id)
        return &c->chan;
    if (c->test.state != CONN_NONE && c->test.id == id)
        return &c->test;
    return NULL;
}

static void
on_event(void *arg, const struct rs_cm_event *ev)
{
    struct rs_perf *p = arg;
    struct perf_conn *k = conn_of(p->cm, ev->id);

    if (k == NULL)
        return;         /* an attempt we gave up on */
    k->ev = ev->type;
    k->reason = ev->reason;
    k->unanswered = ev->unanswered;
    switch (ev->type) {
    case RS_CM_EV_CONNECTED:
        k->state = CONN_UP;
        k->peer = *ev->peer;
        break;
    case RS_CM_EV_DISCONNECTED:
        k->state = CONN_DOWN;
        break;
    default:
        k->state = CONN_FAILED;
        break;
    }
}

/* Fills what our REQ or REP says of a QP. */
static void
our_params(const struct rs_perf *p, uint32_t qpn, uint32_t psn, bool reads,
           struct rs_cm_params *o)
{
    memset(o, 0, sizeof(*o));
    /* rdma_cm's source port: an ephemeral one, another for each QP, as each
     * rdma_cm_id of an active side has its own. */
    o->port = (uint16_t)(0xc000 | ((p->psn + (qpn - p->qpn)) & 0x3fff));
    o->qpn = qpn;
    o->psn = psn;
    o->pmtu = p->attr.pmtu;
    o->pkey = p->attr.pkey;
    o->responder_resources = reads ? p->attr.max_dest_rd_atomic : 0;
    o->initiator_depth = reads ? p->attr.max_rd_atomic : 0;
    o->retry_count = p->attr.retry_cnt;
    o->rnr_retry_count = p->attr.rnr_retry;
    o->ack_timeout = p->attr.timeout;
}

/* perftest's test QPs take READs and atomics only in the tests that send them. */
static bool
test_reads(const struct rs_perf *p)
{
    return p->test->opcode == RS_RC_WR_RDMA_READ ||
           p->test->opcode == RS_RC_WR_ATOMIC_FETCH_AND_ADD;
}

static uint32_t
chan_qpn(const struct rs_perf *p)
{
    return p->qpn == 0xffffff ? 2 : p->qpn + 1;
}

static uint32_t
chan_psn(const struct rs_perf *p)
{
    return (p->psn ^ 0x5a5a5a) & 0xffffff;
}

static int
chan_post_recv(struct rs_perf_cm *c, char *err)
{
    struct rs_rc_recv_wr wr = {1, {c->mr.va + CHAN_MSG_MAX, CHAN_MSG_MAX, c->mr.lkey}};

    return rs_rc_post_recv(c->qp, &wr, err) < 0 ? RS_ENOMEM : 0;
}

/* The channel's QP towards peer, with its receive posted before the REQ or
 * REP that lets the peer send (perftest posts it before rdma_connect() and
 * rdma_accept()). */
static int
chan_create(struct rs_perf *p, const struct rs_cm_params *peer, char *err)
{
    struct rs_perf_cm *c = p->cm;
    struct rs_rc_conn_info info;
    struct rs_rc_qp_attr a = p->attr;

    memset(&info, 0, sizeof(info));
    memcpy(info.gid, peer->gid, 16);
    info.qpn = peer->qpn;
    info.psn = peer->psn;
    info.pmtu = peer->pmtu != 0 ? peer->pmtu : p->attr.pmtu;
    rs_rc_qp_attr_connect(&a, chan_qpn(p), chan_psn(p), &info);
    if (!p->client && peer->ack_timeout != 0)
        a.timeout = peer->ack_timeout;      /* rdma_cm's passive side: the REQ's */
    a.sq_depth = 4;
    a.rq_depth = 2;
    a.max_rd_atomic = a.max_dest_rd_atomic = 0;
    if (rs_rc_qp_create(p->ctx, &a, &c->qp, err) < 0)
        return RS_EIO;
    return chan_post_recv(c, err);
}

/* The test QP's peer as the CM gave it; the region comes otherwise (cm://'s REP,
 * perftest -R's key message). */
static void
peer_from_cm(struct rs_perf *p, const struct rs_cm_params *peer)
{
    memset(&p->peer, 0, sizeof(p->peer));
    memcpy(p->peer.gid, peer->gid, 16);
    p->peer.qpn = peer->qpn;
    p->peer.psn = peer->psn;
    p->peer.pmtu = p->attr.pmtu;
}

/* Server: a REQ for our port. The first makes the channel; the second, once
 * the exchange has come that far, the test QP. Any other is refused as a host
 * refuses a port nobody listens on. */
static uint16_t
on_request(void *arg, uint32_t id, uint16_t port, const struct rs_cm_params *peer,
           struct rs_cm_params *ours)
{
    struct rs_perf *p = arg;
    struct rs_perf_cm *c = p->cm;
    uint8_t gid[16];
    uint16_t local_port = ours->port;

    memcpy(gid, ours->gid, 16);
    if (port != p->port)
        return RS_CM_REJ_INVALID_SERVICE_ID;
    if (c->qp == NULL) {
        if (chan_create(p, peer, c->failure) < 0)
            return RS_CM_REJ_NO_QP;
        our_params(p, chan_qpn(p), chan_psn(p), false, ours);
        c->chan = (struct perf_conn){id, CONN_PENDING, RS_CM_EV_CONNECTED, 0, NULL, *peer};
    } else if (c->listening && p->qp == NULL && memcmp(peer->gid, c->chan.peer.gid, 16) == 0) {
        if (peer->pmtu < p->attr.pmtu)
            p->attr.pmtu = peer->pmtu;
        if (peer->ack_timeout != 0)
            p->attr.timeout = peer->ack_timeout;    /* rdma_cm's passive side: the REQ's */
        peer_from_cm(p, peer);
        if (rs_perf_create_qp(p, c->failure) < 0)
            return RS_CM_REJ_NO_QP;
        our_params(p, p->qpn, p->psn, test_reads(p), ours);
        /* As perftest 6.x's server: no more READs than the client sends at once,
         * and no more sent than it takes (rdma_cm_connection_request_handler()). */
        if (ours->responder_resources > peer->initiator_depth)
            ours->responder_resources = peer->initiator_depth;
        if (ours->initiator_depth > peer->responder_resources)
            ours->initiator_depth = peer->responder_resources;
        c->test = (struct perf_conn){id, CONN_PENDING, RS_CM_EV_CONNECTED, 0, NULL, *peer};
    } else {
        return RS_CM_REJ_INVALID_SERVICE_ID;
    }
    memcpy(ours->gid, gid, 16);
    ours->port = local_port;
    return 0;
}

static int
engine_create(struct rs_perf *p, bool passive, char *err)
{
    struct rs_cm_opts o;

    if ((p->cm = calloc(1, sizeof(*p->cm))) == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    rs_cm_opts_init(&o);
    rs_cm_opts_set_gid(&o, p->local_gid);
    o.response_timeout = CM_RESPONSE_TIMEOUT;
    o.max_retries = CM_RETRIES;
    o.id_seed = p->psn + 1;
    o.ops.event = on_event;
    o.ops.request = passive ? on_request : NULL;
    o.ops.arg = p;
    if (rs_cm_create(&p->cm->engine, &o, err) < 0)
        return RS_ENOMEM;
    rs_cm_rc_attach(p->cm->engine, p->ctx);
    return 0;
}

/* Runs the transport and the CM's timers once. */
static int
cm_turn(struct rs_perf *p, char *err)
{
    if (p->stopped != NULL && p->stopped())
        return rs_error(err, RS_EINVAL, "interrupted");
    if (rs_rc_udp_poll(p->udp, p->ctx, CM_WAIT_NS, err) < 0)
        return RS_EIO;
    rs_cm_progress(p->cm->engine, rs_rc_now_ns());
    rs_rc_udp_flush(p->udp);
    if (p->cm->failure[0] != '\0')
        return rs_error(err, RS_EIO, "%s", p->cm->failure);
    return 0;
}

/* Waits until k leaves PENDING (and, given, UP), or until deadline_ns: then
 * returns 1. */
static int
conn_wait(struct rs_perf *p, const struct perf_conn *k, bool past_up, uint64_t deadline_ns,
          char *err)
{
    while (k->state == CONN_PENDING || (past_up && k->state == CONN_UP)) {
        if (rs_rc_now_ns() >= deadline_ns)
            return 1;
        int rc = cm_turn(p, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int
failed(const struct perf_conn *k, const char *what, char *err)
{
    if (k->ev == RS_CM_EV_REJECTED)
        return rs_error(err, RS_EIO, "CM: the server rejected the %s: %s (reason %u)", what,
                        rs_cm_rej_reason_name(k->reason), k->reason);
    return rs_error(err, RS_EIO, "CM: no answer to our %s after %d tries",
                    k->unanswered != NULL ? k->unanswered : "MAD", CM_RETRIES + 1);
}

/* Active side: REQ, and REP or REJ; a REJ for a service nobody listens on is
 * tried again tries times, 100 ms apart. */
static int
conn_connect(struct rs_perf *p, struct perf_conn *k, const struct rs_cm_params *ours,
             unsigned tries, const char *what, char *err)
{
    for (unsigned i = 0;; i++) {
        memset(k, 0, sizeof(*k));
        int rc = rs_cm_connect(p->cm->engine, p->server_gid, p->port, ours, rs_rc_now_ns(),
                               &k->id, err);
        if (rc != 0)
            return rc;
        k->state = CONN_PENDING;
        if ((rc = conn_wait(p, k, false, UINT64_MAX, err)) != 0)
            return rc;
        if (k->state == CONN_UP)
            return 0;
        if (k->ev != RS_CM_EV_REJECTED || k->reason != RS_CM_REJ_INVALID_SERVICE_ID ||
            i + 1 >= tries)
            return failed(k, what, err);
        uint64_t until = rs_rc_now_ns() + CM_CONNECT_GAP_NS;
        while (rs_rc_now_ns() < until)
            if ((rc = cm_turn(p, err)) != 0)
                return rc;
    }
}

/* Our side of the test QP, connected to what the CM said of the peer's. */
static int
test_qp_create(struct rs_perf *p, char *err)
{
    const struct rs_cm_params *peer = &p->cm->test.peer;

    peer_from_cm(p, peer);
    /* As many READs and atomics outstanding as the server said it takes. */
    if (peer->responder_resources > 0 && peer->responder_resources < p->attr.max_rd_atomic)
        p->attr.max_rd_atomic = peer->responder_resources;
    return rs_perf_create_qp(p, err);
}

static int
conn_disconnect(struct rs_perf *p, struct perf_conn *k, const char *what, char *err)
{
    if (k->state != CONN_UP)
        return 0;
    int rc = rs_cm_disconnect(p->cm->engine, k->id, rs_rc_now_ns(), err);
    if (rc != 0)
        return rc;
    /* Our DREQ crossing theirs ends it as well as their DREP does. */
    if ((rc = conn_wait(p, k, true, UINT64_MAX, err)) != 0)
        return rc;
    return k->state == CONN_DOWN ? 0 : failed(k, what, err);
}

/* --- cm://: our responder --- */

int
rs_perf_cm_connect(struct rs_perf *p, char *err)
{
    struct rs_cm_params ours;
    int rc;

    if ((rc = engine_create(p, false, err)) != 0)
        return rc;
    our_params(p, p->qpn, p->psn, true, &ours);
    rs_cm_region_write(p->mr.rkey, p->mr.va + p->half, p->half, ours.private_data);
    ours.private_len = RS_CM_REGION_LEN;
    if ((rc = conn_connect(p, &p->cm->test, &ours, 1, "REQ", err)) != 0)
        return rc;
    const struct rs_cm_params *peer = &p->cm->test.peer;
    uint32_t rkey = 0;
    uint64_t va = 0, length = 0;
    if (!rs_cm_region_read(peer->private_data, peer->private_len, &rkey, &va, &length) &&
        p->test->opcode != RS_RC_WR_SEND) {
        conn_disconnect(p, &p->cm->test, "DREQ", err);     /* the server need not wait */
        return rs_error(err, RS_EINVAL, "CM: the server's REP names no region to %s (only our "
                        "responder does; for perftest -R's server use -R); send_bw needs none",
                        p->test->opcode == RS_RC_WR_RDMA_READ ? "READ" : "WRITE");
    }
    if ((rc = test_qp_create(p, err)) != 0)
        return rc;
    p->peer.rkey = rkey;
    p->peer.va = va;
    p->peer.length = length;
    return 0;
}

int
rs_perf_cm_disconnect(struct rs_perf *p, char *err)
{
    return conn_disconnect(p, &p->cm->test, "DREQ", err);
}

/* cm:// for a client loop of its own (rping's): runs the CM's timers; says
 * whether the test's connection is still up: NULL, "ended" (the server's
 * DREQ) or "lost" (it failed). */
const char *
rs_perf_cm_progress(struct rs_perf *p)
{
    rs_cm_progress(p->cm->engine, rs_rc_now_ns());
    rs_rc_udp_flush(p->udp);
    return p->cm->test.state == CONN_DOWN ? "ended"
           : p->cm->test.state == CONN_FAILED ? "lost" : NULL;
}

/* Our DREQ without waiting for its DREP, as a client that failed sends it. */
void
rs_perf_cm_abort(struct rs_perf *p)
{
    char why[RS_ERRBUF_SIZE];

    if (p->cm != NULL && p->cm->test.state == CONN_UP &&
        rs_cm_disconnect(p->cm->engine, p->cm->test.id, rs_rc_now_ns(), why) == 0)
        rs_rc_udp_flush(p->udp);
}

/* --- perftest -R --- */

int
rs_perf_cm_chan_open(struct rs_perf *p, char *err)
{
    struct rs_perf_cm *c;
    int rc;

    if ((rc = engine_create(p, !p->client, err)) != 0)
        return rc;
    c = p->cm;
    if (rs_rc_mr_reg(p->ctx, c->buf, sizeof(c->buf), 0, 0, RS_RC_ACCESS_LOCAL_WRITE, &c->mr,
                     err) < 0)
        return RS_ENOMEM;
    c->mr_registered = true;
    if (!p->client) {
        /* perftest's server waits for its client as long as it takes. */
        while (c->qp == NULL)
            if ((rc = cm_turn(p, err)) != 0)
                return rc;
        return 0;
    }
    struct rs_cm_params ours;
    our_params(p, chan_qpn(p), chan_psn(p), false, &ours);
    if ((rc = conn_connect(p, &c->chan, &ours, 1, "REQ", err)) != 0)
        return rc;
    /* Our responder names its region in its REP; perftest's server sends
     * nothing there. Said at once, rather than after a step that times out. */
    const struct rs_cm_params *peer = &c->chan.peer;
    uint32_t rkey;
    uint64_t va, length;
    if (rs_cm_region_read(peer->private_data, peer->private_len, &rkey, &va, &length)) {
        conn_disconnect(p, &c->chan, "DREQ", err);
        return rs_error(err, RS_EINVAL, "CM: the server is `roceshark responder --cm`, which "
                        "speaks cm://, not perftest -R");
    }
    return chan_create(p, peer, err);
}

void
rs_perf_cm_listen(struct rs_perf *p)
{
    p->cm->listening = true;
}

int
rs_perf_cm_test_connect(struct rs_perf *p, char *err)
{
    struct rs_perf_cm *c = p->cm;
    int rc;

    if (!p->client) {
        /* The client sends it as soon as it has our barrier. */
        uint64_t deadline = rs_rc_now_ns() + CHAN_STEP_NS;
        while (p->qp == NULL) {
            if (rs_rc_now_ns() >= deadline || c->chan.state == CONN_DOWN)
                return rs_error(err, RS_EIO, "CM: no REQ for the test QP within %llu s",
                                CHAN_STEP_NS / 1000000000ull);
            if ((rc = cm_turn(p, err)) != 0)
                return rc;
        }
        c->listening = false;
        return 0;
    }
    struct rs_cm_params ours;
    our_params(p, p->qpn, p->psn, test_reads(p), &ours);
    if ((rc = conn_connect(p, &c->test, &ours, CM_CONNECT_TRIES, "test QP's REQ", err)) != 0)
        return rc;
    return test_qp_create(p, err);
}

/* Takes the channel's completions: a SEND done, or a message received. */
static int
chan_poll(struct rs_perf *p, char *err)
{
    struct rs_perf_cm *c = p->cm;
    struct rs_rc_wc wc[4];
    int n = rs_rc_poll_cq(c->qp, wc, 4);

    for (int i = 0; i < n; i++) {
        if (wc[i].status != RS_RC_WC_SUCCESS)
            return rs_error(err, RS_EIO, "perftest -R exchange: %s completed with %s",
                            rs_rc_wc_opcode_name(wc[i].opcode),
                            rs_rc_wc_status_name(wc[i].status));
        if (wc[i].opcode == RS_RC_WC_RECV) {
            c->received = true;
            c->received_len = wc[i].byte_len;
        } else {
            c->sent = true;
        }
    }
    return 0;
}

bool
rs_perf_cm_chan_ready(struct rs_perf *p)
{
    /* A failed completion is reported by the read that follows. */
    return chan_poll(p, p->cm->failure) < 0 || p->cm->received;
}

static int
chan_wait(struct rs_perf *p, const bool *flag, const char *what, char *err)
{
    uint64_t deadline = rs_rc_now_ns() + CHAN_STEP_NS;
    int rc;

    for (;;) {
        if ((rc = chan_poll(p, err)) != 0)
            return rc;
        if (*flag)
            return 0;
        if (rs_rc_qp_state(p->cm->qp) == RS_RC_QP_ERROR)
            return rs_error(err, RS_EIO, "%s: the channel's QP failed", what);
        if (p->cm->chan.state == CONN_DOWN)
            return rs_error(err, RS_EIO, "%s: the peer disconnected", what);
        if (rs_rc_now_ns() >= deadline)
            return rs_error(err, RS_EIO, "%s: no answer within %llu s", what,
                            CHAN_STEP_NS / 1000000000ull);
        if ((rc = cm_turn(p, err)) != 0)
            return rc;
    }
}

static int
chan_send(struct rs_perf *p, const void *msg, size_t n, const char *what, char *err)
{
    struct rs_perf_cm *c = p->cm;
    struct rs_rc_send_wr wr;

    memcpy(c->buf[0], msg, n);
    memset(&wr, 0, sizeof(wr));
    wr.opcode = RS_RC_WR_SEND;
    wr.flags = RS_RC_SEND_SIGNALED;
    wr.sge = (struct rs_rc_sge){c->mr.va, (uint32_t)n, c->mr.lkey};
    c->sent = false;
    if (rs_rc_post_send(c->qp, &wr, err) < 0)
        return RS_ENOMEM;
    return chan_wait(p, &c->sent, what, err);
}

/* One message of n bytes (min..n for the key message's forms). */
static int
chan_recv(struct rs_perf *p, void *msg, size_t n, const char *what, char *err)
{
    struct rs_perf_cm *c = p->cm;
    int rc = chan_wait(p, &c->received, what, err);

    if (rc != 0)
        return rc;
    c->received = false;
    if (c->received_len != n)
        return rs_error(err, RS_EFORMAT, "%s: %u bytes, expected %zu", what, c->received_len, n);
    memcpy(msg, c->buf[1], n);
    return chan_post_recv(c, err);
}

int
rs_perf_cm_chan_xchg(struct rs_perf *p, const void *mine, void *theirs, size_t n,
                     const char *what, char *err)
{
    int rc;

    if (p->client) {
        if ((rc = chan_send(p, mine, n, what, err)) == 0)
            rc = chan_recv(p, theirs, n, what, err);
    } else if ((rc = chan_recv(p, theirs, n, what, err)) == 0) {
        rc = chan_send(p, mine, n, what, err);
    }
    return rc;
}

/* The end: the server disconnects the test QP, as perftest 6.x's server does
 * (rdma_cm_disconnect_nodes()), and its client waits for that, then
 * disconnects the channel, as its exit does. Whoever waits in vain
 * disconnects itself: perftest 4.5's client sends its own DREQs, which may
 * cross ours (the CM ends a connection either way). */
int
rs_perf_cm_close(struct rs_perf *p, char *err)
{
    struct rs_perf_cm *c = p->cm;
    int rc;

    if (c == NULL)
        return 0;
    if (p->client) {
        if ((rc = conn_wait(p, &c->test, true, rs_rc_now_ns() + CLOSE_WAIT_NS, err)) < 0 ||
            (rc = conn_disconnect(p, &c->test, "test QP's DREQ", err)) != 0 ||
            (rc = conn_disconnect(p, &c->chan, "DREQ", err)) != 0)
            return rc;
        return 0;
    }
    if ((rc = conn_disconnect(p, &c->test, "test QP's DREQ", err)) != 0 ||
        (rc = conn_wait(p, &c->chan, true, rs_rc_now_ns() + CLOSE_WAIT_NS, err)) < 0 ||
        (rc = conn_disconnect(p, &c->chan, "DREQ", err)) != 0)
        return rc;
    return 0;
}

void
rs_perf_cm_release(struct rs_perf *p)
{
    struct rs_perf_cm *c = p->cm;

    if (c == NULL)
        return;
    rs_rc_gsi_register(p->ctx, NULL, NULL);
    if (c->qp != NULL)
        rs_rc_qp_destroy(c->qp);
    if (c->mr_registered)
        rs_rc_mr_dereg(p->ctx, c->mr.lkey);
    rs_cm_destroy(c->engine);
    free(c);
    p->cm = NULL;
}
