/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_cm.c - the CM MAD layout and the CM engine: the MADs of the real
 * rping capture (tests/captures/real/linlinw5_rdma_ib_tutorial__pcap_rping.pcap,
 * frames 1, 2, 3, 64, 65) read to the values tshark 4.0 shows and are
 * written back byte for byte; two engines connect and disconnect through a
 * queue that can lose MADs, on a virtual clock; retries, giving up, REJ,
 * duplicates and hostile MADs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <roceshark/transport/cm.h>

/* The MADs with their trailing zeros left off. */
static const char *const captured[] = {
    /* REQ (frame 1) */
    ("0107020300000000000000026dc5c06e00100000000000006ec0c56d000000000000000001061c06025056"
     "fffea77d03000000000000000000002c0100000001000000a0003da6a7ffff37f0ffffffff000000000000"
     "00000000ffff0a01103e00000000000000000000ffff0a01103d70bbd00000400088000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000000040bd6900000000"
     "00000000000000000a01103e0000000000000000000000000a01103d"),
    /* REP (frame 2) */
    ("0107020300000000000000026dc5c06e00130000000000009d88f4566ec0c56d0000000000002b00000000"
     "00febd3d00010178e0025056fffea7129f"),
    /* RTU (frame 3) */
    "0107020300000000000000026dc5c06e00140000000000006ec0c56d9d88f456",
    /* DREQ (frame 64) */
    "0107020300000000000000026dc5c06e00150000000000006ec0c56d9d88f45600002b",
    /* DREP (frame 65) */
    "0107020300000000000000026dc5c06e00160000000000009d88f4566ec0c56d",
};

static void
mad_from_hex(const char *hex, uint8_t mad[RS_CM_MAD_LEN])
{
    memset(mad, 0, RS_CM_MAD_LEN);
    for (size_t i = 0; hex[2 * i] != '\0'; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        mad[i] = (uint8_t)v;
    }
}

/* Reads every field of the message into a copy through the table: what
 * the table knows must give the same bytes (the captured MADs have zeros
 * wherever the table has no field). */
static void
rewrite(const struct rs_cm_layout *l, const uint8_t *mad, uint8_t *out)
{
    memset(out, 0, RS_CM_MAD_LEN);
    memcpy(out, mad, RS_CM_MAD_HDR_LEN);
    for (int f = 0; f < RS_CMF_COUNT; f++) {
        size_t n;
        const uint8_t *b = rs_cm_bytes(l, mad + RS_CM_MAD_HDR_LEN, f, &n);
        if (b != NULL)
            memcpy(rs_cm_bytes_w(l, out + RS_CM_MAD_HDR_LEN, f, &n), b, n);
        else
            rs_cm_set(l, out + RS_CM_MAD_HDR_LEN, f, rs_cm_get(l, mad + RS_CM_MAD_HDR_LEN, f));
    }
}

static void
test_layout_captured(void **state)
{
    static const uint16_t attrs[] = {RS_CM_REQ, RS_CM_REP, RS_CM_RTU, RS_CM_DREQ, RS_CM_DREP};
    static const char *const names[] = {"ConnectRequest", "ConnectReply", "ReadyToUse",
                                        "DisconnectRequest", "DisconnectReply"};
    uint8_t mad[RS_CM_MAD_LEN], again[RS_CM_MAD_LEN];
    struct rs_cm_mad_hdr h;
    const struct rs_cm_layout *l;

    (void)state;
    for (size_t i = 0; i < 5; i++) {
        mad_from_hex(captured[i], mad);
        assert_int_equal(rs_cm_parse(mad, sizeof(mad), &h, &l), RS_CM_OK);
        assert_int_equal(h.attr_id, attrs[i]);
        assert_int_equal(h.tid, 0x000000026dc5c06eull);
        assert_string_equal(l->name, names[i]);
        rewrite(l, mad, again);
        assert_memory_equal(mad, again, RS_CM_MAD_LEN);
    }
    /* The REQ, as tshark 4.0 shows it. */
    mad_from_hex(captured[0], mad);
    rs_cm_parse(mad, sizeof(mad), &h, &l);
    const uint8_t *m = mad + RS_CM_MAD_HDR_LEN;
    assert_int_equal(rs_cm_get(l, m, RS_CMF_LOCAL_COMM_ID), 0x6ec0c56d);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_SERVICE_ID), 0x0000000001061c06ull);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_LOCAL_CA_GUID), 0x025056fffea77d03ull);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_LOCAL_QPN), 0x2c);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_RESPONDER_RESOURCES), 1);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_INITIATOR_DEPTH), 1);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_REMOTE_CM_TIMEOUT), 0x14);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_TRANSPORT_TYPE), 0);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_STARTING_PSN), 0x3da6);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_LOCAL_CM_TIMEOUT), 0x14);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_RETRY_COUNT), 7);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_PKEY), 0xffff);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_PATH_MTU), 3);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_RNR_RETRY_COUNT), 7);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_MAX_CM_RETRIES), 15);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_SRQ), 0);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_PRIMARY_LOCAL_LID), 65535);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_PRIMARY_HOP_LIMIT), 0x40);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_PRIMARY_ACK_TIMEOUT), 0x11);
    uint16_t port;
    assert_true(rs_cm_service_port(rs_cm_get(l, m, RS_CMF_SERVICE_ID), RS_CM_PS_TCP, &port));
    assert_int_equal(port, 7174);      /* rping's default port */
    size_t n;
    const uint8_t *priv = rs_cm_bytes(l, m, RS_CMF_PRIVATE_DATA, &n);
    assert_int_equal(n, 92);
    struct rs_cm_ip_hdr ip;
    static const uint8_t src[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 1, 16, 62};
    static const uint8_t dst[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 1, 16, 61};
    assert_true(rs_cm_ip_hdr_read(priv, &ip));
    assert_int_equal(ip.ip_version, 4);
    assert_int_equal(ip.src_port, 0xbd69);
    assert_memory_equal(ip.src, src, 16);
    assert_memory_equal(ip.dst, dst, 16);
    uint8_t back[RS_CM_IP_HDR_LEN];
    rs_cm_ip_hdr_write(&ip, back);
    assert_memory_equal(back, priv, RS_CM_IP_HDR_LEN);
    /* The REP. */
    mad_from_hex(captured[1], mad);
    rs_cm_parse(mad, sizeof(mad), &h, &l);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_LOCAL_COMM_ID), 0x9d88f456);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_REMOTE_COMM_ID), 0x6ec0c56d);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_LOCAL_QPN), 0x2b);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_STARTING_PSN), 0xfebd3d);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_TARGET_ACK_DELAY), 0x0f);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_RNR_RETRY_COUNT), 7);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_LOCAL_CA_GUID), 0x025056fffea7129full);
    /* The DREQ names the QP it ends. */
    mad_from_hex(captured[3], mad);
    rs_cm_parse(mad, sizeof(mad), &h, &l);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_REMOTE_QPN), 0x2b);
}

static void
test_hostile_parse(void **state)
{
    uint8_t mad[RS_CM_MAD_LEN];
    struct rs_cm_mad_hdr h;
    const struct rs_cm_layout *l;

    (void)state;
    mad_from_hex(captured[0], mad);
    assert_int_equal(rs_cm_parse(mad, 10, &h, &l), RS_CM_SHORT);
    assert_int_equal(rs_cm_parse(mad, 255, &h, &l), RS_CM_SHORT);
    mad[1] = 0x04;  /* performance management */
    assert_int_equal(rs_cm_parse(mad, sizeof(mad), &h, &l), RS_CM_NOT_CM);
    mad[1] = RS_CM_CLASS;
    mad[2] = 1;
    assert_int_equal(rs_cm_parse(mad, sizeof(mad), &h, &l), RS_CM_BAD_VERSION);
    mad[2] = RS_CM_CLASS_VERSION;
    mad[3] = 0x81;  /* a GetResp */
    assert_int_equal(rs_cm_parse(mad, sizeof(mad), &h, &l), RS_CM_BAD_METHOD);
    mad[3] = RS_CM_METHOD_SEND;
    mad[17] = 0x19; /* LAP: not ours */
    assert_int_equal(rs_cm_parse(mad, sizeof(mad), &h, &l), RS_CM_BAD_ATTR);
    assert_null(l);
    assert_string_equal(rs_cm_check_name(RS_CM_BAD_ATTR), "an attribute the CM has not");
}

/* --- two engines and the wire between them --- */

#define QMAX 64

struct side {
    struct rs_cm *cm;
    uint8_t gid[16];
    struct rs_cm_event last;
    struct rs_cm_params last_peer;  /* a copy: the event's goes with a freed connection */
    int events[7];
    uint16_t refuse;        /* the REJ reason request() gives (SIDR: its status); 0 accepts */
    int requests;
    uint32_t request_id;    /* the last request's */
};

struct wire {
    struct side a, b;
    struct {
        int to;             /* 0: a, 1: b */
        uint8_t src[16];
        uint8_t mad[RS_CM_MAD_LEN];
    } q[QMAX];
    int n;
    int drop_next;          /* MADs to lose */
    int sent;
    uint64_t now;
};

static void
wire_send(void *arg, const uint8_t *gid, uint32_t qp, const uint8_t *mad)
{
    struct side *s = arg;
    struct wire *w = (struct wire *)((char *)s - (s->gid[15] == 1 ? offsetof(struct wire, a)
                                                                   : offsetof(struct wire, b)));

    assert_int_equal(qp, 1);
    w->sent++;
    if (w->drop_next > 0) {
        w->drop_next--;
        return;
    }
    assert_true(w->n < QMAX);
    w->q[w->n].to = gid[15] == 1 ? 0 : 1;
    memcpy(w->q[w->n].src, s->gid, 16);
    memcpy(w->q[w->n].mad, mad, RS_CM_MAD_LEN);
    w->n++;
}

static uint16_t
side_request(void *arg, uint32_t id, uint16_t port, const struct rs_cm_params *peer,
             struct rs_cm_params *ours)
{
    struct side *s = arg;

    s->request_id = id;
    s->requests++;
    assert_int_equal(port, 18515);
    assert_int_equal(peer->qpn, 0x11);
    assert_int_equal(peer->psn, 0x123456);
    assert_int_equal(peer->pmtu, 1024);
    assert_int_equal(peer->port, 40000);
    if (s->refuse != 0)
        return s->refuse;
    ours->qpn = 0x22;
    ours->psn = 0x654321;
    ours->pmtu = peer->pmtu;
    ours->responder_resources = 4;
    ours->initiator_depth = 2;
    rs_cm_region_write(0x1234, 0x10000, 4096, ours->private_data);
    ours->private_len = RS_CM_REGION_LEN;
    return 0;
}

/* A SIDR_REQ for UDP port 4791 with a's header and "who?" after it. */
static uint16_t
side_sidr_request(void *arg, uint32_t id, uint16_t port, const struct rs_cm_params *peer)
{
    struct side *s = arg;

    s->request_id = id;
    s->requests++;
    assert_int_equal(port, 4791);
    assert_int_equal(peer->port, 40001);
    assert_int_equal(peer->private_len, RS_CM_SIDR_REQ_PRIVATE_MAX);
    assert_memory_equal(peer->private_data, "who?", 4);
    return s->refuse;
}

static void
side_event(void *arg, const struct rs_cm_event *ev)
{
    struct side *s = arg;

    s->last = *ev;
    s->last_peer = *ev->peer;
    s->events[ev->type]++;
}

/* An engine whose RTU waits for rs_cm_confirm() (hold_rtu) and whose disconnected
 * connections wait timewait_ns, as the verbs library's are. */
/* Half-open connections allowed from one source, for the next side opened. */
static unsigned next_half_open_max = RS_CM_MAX_HALF_OPEN_PER_PEER;

static void
side_open_opts(struct side *s, uint8_t last, bool hold_rtu, uint64_t timewait_ns)
{
    struct rs_cm_opts o;
    char err[RS_ERRBUF_SIZE];

    memset(s, 0, sizeof(*s));
    s->gid[10] = s->gid[11] = 0xff;
    s->gid[12] = 127;
    s->gid[15] = last;
    rs_cm_opts_init(&o);
    memcpy(o.gid, s->gid, 16);
    o.response_timeout = 10;        /* 4 ms */
    o.max_retries = 3;
    o.id_seed = last * 1000u;
    o.hold_rtu = hold_rtu;
    o.timewait_ns = timewait_ns;
    o.max_half_open_per_peer = next_half_open_max;
    o.ops = (struct rs_cm_ops){wire_send, s, side_request, side_event, s, side_sidr_request};
    assert_int_equal(rs_cm_create(&s->cm, &o, err), 0);
}

static void
side_open(struct side *s, uint8_t last)
{
    side_open_opts(s, last, false, 0);
}

static int
wire_setup(void **state)
{
    static struct wire w;

    memset(&w, 0, sizeof(w));
    side_open(&w.a, 1);
    side_open(&w.b, 2);
    *state = &w;
    return 0;
}

static int
wire_teardown(void **state)
{
    struct wire *w = *state;

    rs_cm_destroy(w->a.cm);
    rs_cm_destroy(w->b.cm);
    return 0;
}

/* Delivers what is queued, and what that makes them send, until quiet. */
static void
wire_run(struct wire *w)
{
    for (int i = 0; i < w->n; i++) {
        struct side *s = w->q[i].to == 0 ? &w->a : &w->b;
        rs_cm_input(s->cm, w->q[i].src, 1, w->q[i].mad, RS_CM_MAD_LEN, w->now);
    }
    w->n = 0;
}

/* Lets time pass in steps, delivering as it goes. */
static void
wire_wait(struct wire *w, uint64_t ns)
{
    for (uint64_t end = w->now + ns; w->now < end; w->now += 1000000) {
        rs_cm_progress(w->a.cm, w->now);
        rs_cm_progress(w->b.cm, w->now);
        wire_run(w);
    }
}

static uint32_t
connect_a_to_b(struct wire *w)
{
    struct rs_cm_params ours;
    char err[RS_ERRBUF_SIZE];
    uint32_t id;

    memset(&ours, 0, sizeof(ours));
    ours.qpn = 0x11;
    ours.psn = 0x123456;
    ours.pmtu = 1024;
    ours.port = 40000;
    ours.responder_resources = 16;
    ours.initiator_depth = 16;
    assert_int_equal(rs_cm_connect(w->a.cm, w->b.gid, 18515, &ours, w->now, &id, err), 0);
    return id;
}

static void
test_connect_disconnect(void **state)
{
    struct wire *w = *state;
    char err[RS_ERRBUF_SIZE];
    uint32_t rkey;
    uint64_t va, len;

    uint32_t id = connect_a_to_b(w);
    wire_run(w);    /* REQ -> b, REP -> a, RTU -> b */
    assert_int_equal(w->a.events[RS_CM_EV_CONNECTED], 1);
    assert_int_equal(w->b.events[RS_CM_EV_CONNECTED], 1);
    assert_true(w->a.last.active);
    assert_false(w->b.last.active);
    assert_int_equal(w->a.last.id, id);
    assert_int_equal(w->a.last.peer->qpn, 0x22);
    assert_int_equal(w->a.last.peer->psn, 0x654321);
    assert_int_equal(w->a.last.peer->responder_resources, 4);
    assert_true(rs_cm_region_read(w->a.last.peer->private_data, w->a.last.peer->private_len,
                                  &rkey, &va, &len));
    assert_int_equal(rkey, 0x1234);
    assert_int_equal(va, 0x10000);
    assert_int_equal(len, 4096);
    assert_memory_equal(w->b.last.peer->gid, w->a.gid, 16);
    assert_int_equal(w->b.last.peer->qpn, 0x11);
    assert_int_equal(rs_cm_next_deadline(w->a.cm), UINT64_MAX);
    assert_int_equal(rs_cm_next_deadline(w->b.cm), UINT64_MAX);
    /* The passive side ends it: DREQ -> a, DREP -> b. */
    assert_int_equal(rs_cm_disconnect(w->b.cm, w->b.last.id, w->now, err), 0);
    wire_run(w);
    assert_int_equal(w->a.events[RS_CM_EV_DISCONNECTED], 1);
    assert_int_equal(w->b.events[RS_CM_EV_DISCONNECTED], 1);
    assert_int_equal(rs_cm_disconnect(w->a.cm, id, w->now, err), RS_ENOENT);
    assert_int_equal(w->sent, 5);
}

/* Both ends disconnect at once, as perftest -R's do at the end of a test
 * (4.5's client and 6.x's server each send a DREQ for the test QP): each
 * answers the other's DREQ with a DREP, each is told once, the late DREPs
 * find nothing, and nothing is sent again. */
static void
test_crossing_dreqs(void **state)
{
    struct wire *w = *state;
    char err[RS_ERRBUF_SIZE];

    uint32_t id = connect_a_to_b(w);
    wire_run(w);
    assert_int_equal(w->b.events[RS_CM_EV_CONNECTED], 1);
    assert_int_equal(rs_cm_disconnect(w->a.cm, id, w->now, err), 0);
    assert_int_equal(rs_cm_disconnect(w->b.cm, w->b.last.id, w->now, err), 0);
    wire_run(w);
    wire_wait(w, 100000000);    /* past every response timeout */
    assert_int_equal(w->a.events[RS_CM_EV_DISCONNECTED], 1);
    assert_int_equal(w->b.events[RS_CM_EV_DISCONNECTED], 1);
    assert_int_equal(w->a.events[RS_CM_EV_TIMEOUT] + w->b.events[RS_CM_EV_TIMEOUT], 0);
    assert_int_equal(w->sent, 3 + 4);   /* REQ, REP, RTU; two DREQs, two DREPs */
    assert_int_equal(rs_cm_counters_get(w->a.cm)->drop_unknown, 1);
    assert_int_equal(rs_cm_counters_get(w->b.cm)->drop_unknown, 1);
    assert_int_equal(rs_cm_next_deadline(w->a.cm), UINT64_MAX);
    assert_int_equal(rs_cm_next_deadline(w->b.cm), UINT64_MAX);
}

static void
test_lost_req_and_rep(void **state)
{
    struct wire *w = *state;

    w->drop_next = 1;           /* the REQ */
    connect_a_to_b(w);
    wire_run(w);
    assert_int_equal(w->b.requests, 0);
    wire_wait(w, 10000000);     /* past 4.096 us * 2^10 */
    assert_int_equal(rs_cm_counters_get(w->a.cm)->retries, 1);
    assert_int_equal(w->a.events[RS_CM_EV_CONNECTED], 1);
    assert_int_equal(w->b.requests, 1);
}

static void
test_duplicate_req_gets_rep_again(void **state)
{
    struct wire *w = *state;

    connect_a_to_b(w);
    uint8_t req[RS_CM_MAD_LEN];
    memcpy(req, w->q[0].mad, sizeof(req));
    w->drop_next = 1;           /* b's REP */
    wire_run(w);
    assert_int_equal(w->b.requests, 1);
    /* a's REQ again, before a's own timer: b answers with its REP again. */
    rs_cm_input(w->b.cm, w->a.gid, 1, req, RS_CM_MAD_LEN, w->now);
    assert_int_equal(rs_cm_counters_get(w->b.cm)->dup_req, 1);
    assert_int_equal(w->b.requests, 1);
    wire_run(w);
    assert_int_equal(w->a.events[RS_CM_EV_CONNECTED], 1);
    assert_int_equal(w->b.events[RS_CM_EV_CONNECTED], 1);
}

static void
test_lost_rtu_then_dreq(void **state)
{
    struct wire *w = *state;
    char err[RS_ERRBUF_SIZE];

    uint32_t id = connect_a_to_b(w);
    rs_cm_input(w->b.cm, w->a.gid, 1, w->q[0].mad, RS_CM_MAD_LEN, w->now);    /* REQ */
    rs_cm_input(w->a.cm, w->b.gid, 1, w->q[1].mad, RS_CM_MAD_LEN, w->now);    /* REP */
    w->n = 0;                                                                   /* RTU lost */
    assert_int_equal(w->a.events[RS_CM_EV_CONNECTED], 1);
    assert_int_equal(w->b.events[RS_CM_EV_CONNECTED], 0);
    assert_int_equal(rs_cm_disconnect(w->a.cm, id, w->now, err), 0);
    wire_run(w);
    assert_int_equal(w->a.events[RS_CM_EV_DISCONNECTED], 1);
    assert_int_equal(w->b.events[RS_CM_EV_DISCONNECTED], 1);
    assert_int_equal(rs_cm_next_deadline(w->b.cm), UINT64_MAX);
}

/* docs/limits.md: RS_CM_MAX_CONNS connections at once; the next connect is refused. */
static void
test_connection_bound(void **state)
{
    struct wire *w = *state;
    struct rs_cm_params ours;
    char err[RS_ERRBUF_SIZE];
    uint32_t id;

    w->drop_next = RS_CM_MAX_CONNS + 1;     /* the REQs go nowhere: every one stays open */
    for (int i = 0; i < RS_CM_MAX_CONNS; i++)
        connect_a_to_b(w);
    memset(&ours, 0, sizeof(ours));
    ours.qpn = 0x11;
    ours.pmtu = 1024;
    assert_int_equal(rs_cm_connect(w->a.cm, w->b.gid, 18515, &ours, w->now, &id, err),
                     RS_ENOMEM);
    assert_string_equal(err, "CM: all 256 connections are in use");
    assert_int_equal(w->sent, RS_CM_MAX_CONNS);
}

/* docs/limits.md: the passive side holds RS_CM_MAX_CONNS connections too. A REQ past
 * them is refused with a REJ, reason No resources (IBTA Table 112: 3), before the
 * application is asked; once one connection ends, the same REQ is accepted. */
static void
test_passive_connection_bound(void **state)
{
    struct wire *w = *state;
    uint8_t req[RS_CM_MAD_LEN];
    struct rs_cm_mad_hdr h;
    const struct rs_cm_layout *l;
    char err[RS_ERRBUF_SIZE];

    for (int i = 0; i < RS_CM_MAX_CONNS; i++) {
        connect_a_to_b(w);
        if (i == 0)
            memcpy(req, w->q[0].mad, sizeof(req));
        wire_run(w);    /* REQ, REP, RTU */
    }
    assert_int_equal(w->b.events[RS_CM_EV_CONNECTED], RS_CM_MAX_CONNS);
    /* A 257th connection's REQ: a's first one under a communication ID not in use
     * (a has no room left to make one of its own). */
    rs_cm_set(rs_cm_layout(RS_CM_REQ), req + RS_CM_MAD_HDR_LEN, RS_CMF_LOCAL_COMM_ID,
              0xabcd0001);
    rs_cm_input(w->b.cm, w->a.gid, 1, req, RS_CM_MAD_LEN, w->now);
    assert_int_equal(w->b.requests, RS_CM_MAX_CONNS);
    assert_int_equal(w->n, 1);
    assert_int_equal(rs_cm_parse(w->q[0].mad, RS_CM_MAD_LEN, &h, &l), RS_CM_OK);
    assert_int_equal(h.attr_id, RS_CM_REJ);
    const uint8_t *msg = w->q[0].mad + RS_CM_MAD_HDR_LEN;
    assert_int_equal(rs_cm_get(l, msg, RS_CMF_REJ_REASON), RS_CM_REJ_NO_RESOURCES);
    assert_int_equal(RS_CM_REJ_NO_RESOURCES, 3);
    assert_int_equal(rs_cm_get(l, msg, RS_CMF_MSG_REJECTED), 0);      /* the REQ */
    assert_int_equal(rs_cm_get(l, msg, RS_CMF_REMOTE_COMM_ID), 0xabcd0001);
    assert_int_equal(rs_cm_get(l, msg, RS_CMF_LOCAL_COMM_ID), 0);
    assert_int_equal(rs_cm_counters_get(w->b.cm)->rej_sent, 1);
    w->n = 0;           /* the REJ names no connection of a's */
    /* b ends its newest connection (DREQ, DREP): the REQ now finds room. */
    assert_int_equal(rs_cm_disconnect(w->b.cm, w->b.last.id, w->now, err), 0);
    wire_run(w);
    assert_int_equal(w->b.events[RS_CM_EV_DISCONNECTED], 1);
    rs_cm_input(w->b.cm, w->a.gid, 1, req, RS_CM_MAD_LEN, w->now);
    assert_int_equal(w->b.requests, RS_CM_MAX_CONNS + 1);
    assert_int_equal(w->n, 1);
    assert_int_equal(rs_cm_parse(w->q[0].mad, RS_CM_MAD_LEN, &h, &l), RS_CM_OK);
    assert_int_equal(h.attr_id, RS_CM_REP);
    assert_int_equal(rs_cm_get(l, w->q[0].mad + RS_CM_MAD_HDR_LEN, RS_CMF_REMOTE_COMM_ID),
                     0xabcd0001);
    assert_int_equal(rs_cm_counters_get(w->b.cm)->rej_sent, 1);
    w->n = 0;
}

/* A flood of REQs from one source, each asking 4.096 us * 2^31 per answer and 15 retries
 * (39 hours of holding a slot): the first RS_CM_MAX_HALF_OPEN_PER_PEER get a REP, the
 * rest a REJ (no resources) before the application is asked; another source is still
 * served; and the flood's connections are given up after rdma_cm's 16 tries of 4.3 s,
 * after which the source is served again. */
static void
test_req_flood_capped(void **state)
{
    struct wire *w = *state;
    uint8_t req[RS_CM_MAD_LEN], spoof[16];
    const struct rs_cm_layout *l = rs_cm_layout(RS_CM_REQ);
    uint8_t *msg = req + RS_CM_MAD_HDR_LEN;

    connect_a_to_b(w);                  /* its REQ stays queued through the flood */
    memcpy(req, w->q[0].mad, sizeof(req));
    memcpy(spoof, w->a.gid, 16);
    spoof[15] = 9;
    rs_cm_set(l, msg, RS_CMF_LOCAL_CM_TIMEOUT, 31);
    rs_cm_set(l, msg, RS_CMF_MAX_CM_RETRIES, 15);
    w->drop_next = 1000000;             /* the answers to the spoofed source go nowhere */
    for (uint32_t i = 0; i < 300; i++) {
        rs_cm_set(l, msg, RS_CMF_LOCAL_COMM_ID, 0x55000000u + i);
        rs_cm_input(w->b.cm, spoof, 1, req, RS_CM_MAD_LEN, w->now);
    }
    const struct rs_cm_counters *c = rs_cm_counters_get(w->b.cm);
    assert_int_equal(w->b.requests, RS_CM_MAX_HALF_OPEN_PER_PEER);
    assert_int_equal(c->rej_half_open, 300 - RS_CM_MAX_HALF_OPEN_PER_PEER);
    assert_int_equal(c->rej_sent, 300 - RS_CM_MAX_HALF_OPEN_PER_PEER);
    /* Another source: served. */
    w->drop_next = 0;
    wire_run(w);                        /* a's own REQ, queued before the flood */
    assert_int_equal(w->b.requests, RS_CM_MAX_HALF_OPEN_PER_PEER + 1);
    wire_run(w);
    wire_run(w);
    assert_int_equal(w->a.events[RS_CM_EV_CONNECTED], 1);
    /* The flood's REPs: 16 tries of 4.3 s (rdma_cm's), not of 2.4 hours. */
    uint64_t try_ns = rs_cm_timeout_ns(RS_CM_MAX_PEER_TIMEOUT);
    w->drop_next = 1000000;
    wire_wait(w, 15 * try_ns);
    assert_int_equal(w->b.events[RS_CM_EV_TIMEOUT], 0);
    wire_wait(w, try_ns + 10000000);
    assert_int_equal(w->b.events[RS_CM_EV_TIMEOUT], RS_CM_MAX_HALF_OPEN_PER_PEER);
    w->drop_next = 0;
    w->n = 0;
    rs_cm_set(l, msg, RS_CMF_LOCAL_COMM_ID, 0x56000000u);
    rs_cm_input(w->b.cm, spoof, 1, req, RS_CM_MAD_LEN, w->now);
    assert_int_equal(w->b.requests, RS_CM_MAX_HALF_OPEN_PER_PEER + 2);
    w->n = 0;
}

/* The verbs library's engines leave the bound to each listener's backlog, as Linux's CM
 * does: 40 REQs at once from one source all reach the application. */
static void
test_half_open_bound_lifted(void **state)
{
    struct wire *w = *state;
    uint8_t req[RS_CM_MAD_LEN];
    const struct rs_cm_layout *l = rs_cm_layout(RS_CM_REQ);

    rs_cm_destroy(w->b.cm);
    next_half_open_max = RS_CM_MAX_CONNS;
    side_open(&w->b, 2);
    next_half_open_max = RS_CM_MAX_HALF_OPEN_PER_PEER;
    connect_a_to_b(w);
    memcpy(req, w->q[0].mad, sizeof(req));
    w->n = 0;
    for (uint32_t i = 0; i < 40; i++) {
        rs_cm_set(l, req + RS_CM_MAD_HDR_LEN, RS_CMF_LOCAL_COMM_ID, 0x57000000u + i);
        rs_cm_input(w->b.cm, w->a.gid, 1, req, RS_CM_MAD_LEN, w->now);
    }
    assert_int_equal(w->b.requests, 40);
    assert_int_equal(rs_cm_counters_get(w->b.cm)->rej_half_open, 0);
    assert_int_equal(rs_cm_counters_get(w->b.cm)->rej_sent, 0);
    w->n = 0;
}

static void
test_give_up(void **state)
{
    struct wire *w = *state;

    w->drop_next = 100;
    connect_a_to_b(w);
    wire_wait(w, 100000000);    /* 4 tries of 4 ms */
    assert_int_equal(rs_cm_counters_get(w->a.cm)->retries, 3);
    assert_int_equal(rs_cm_counters_get(w->a.cm)->timeouts, 1);
    assert_int_equal(w->a.events[RS_CM_EV_TIMEOUT], 1);
    assert_string_equal(w->a.last.unanswered, "REQ");
    assert_int_equal(w->sent, 1 + 3 + 1);     /* REQ, 3 retries, REJ (timeout) */
    assert_int_equal(rs_cm_next_deadline(w->a.cm), UINT64_MAX);
}

static void
test_rep_unanswered(void **state)
{
    struct wire *w = *state;

    connect_a_to_b(w);
    w->drop_next = 100;         /* b's REP is lost, and every MAD after */
    wire_run(w);
    wire_wait(w, 100000000);
    assert_int_equal(w->b.events[RS_CM_EV_TIMEOUT], 1);
    assert_string_equal(w->b.last.unanswered, "REP");
}

static void
test_reject(void **state)
{
    struct wire *w = *state;

    w->b.refuse = RS_CM_REJ_CONSUMER;
    connect_a_to_b(w);
    wire_run(w);
    assert_int_equal(w->a.events[RS_CM_EV_REJECTED], 1);
    assert_int_equal(w->a.last.reason, RS_CM_REJ_CONSUMER);
    assert_int_equal(rs_cm_counters_get(w->b.cm)->rej_sent, 1);
    assert_string_equal(rs_cm_rej_reason_name(RS_CM_REJ_CONSUMER), "consumer reject");
    assert_int_equal(rs_cm_next_deadline(w->a.cm), UINT64_MAX);
}

static void
test_reject_foreign_service(void **state)
{
    struct wire *w = *state;
    uint8_t mad[RS_CM_MAD_LEN];

    mad_from_hex(captured[0], mad);
    mad[24 + 8 + 3] = 0x3f;     /* service ID of another port space */
    rs_cm_input(w->b.cm, w->a.gid, 1, mad, RS_CM_MAD_LEN, 0);
    assert_int_equal(w->b.requests, 0);
    assert_int_equal(w->n, 1);
    struct rs_cm_mad_hdr h;
    const struct rs_cm_layout *l;
    assert_int_equal(rs_cm_parse(w->q[0].mad, RS_CM_MAD_LEN, &h, &l), RS_CM_OK);
    assert_int_equal(h.attr_id, RS_CM_REJ);
    assert_int_equal(h.tid, 0x000000026dc5c06eull);
    assert_int_equal(rs_cm_get(l, w->q[0].mad + 24, RS_CMF_REJ_REASON),
                     RS_CM_REJ_INVALID_SERVICE_ID);
    assert_int_equal(rs_cm_get(l, w->q[0].mad + 24, RS_CMF_REMOTE_COMM_ID), 0x6ec0c56d);
}

/* The attribute IDs of the n MADs queued, in order. */
static void
queued_kinds(const struct wire *w, uint16_t *kinds, int n)
{
    assert_int_equal(w->n, n);
    for (int i = 0; i < n; i++)
        kinds[i] = (uint16_t)(w->q[i].mad[16] << 8 | w->q[i].mad[17]);
}

static struct rs_cm_params
b_params(void)
{
    struct rs_cm_params ours;

    memset(&ours, 0, sizeof(ours));
    ours.qpn = 0x33;
    ours.psn = 0x777;
    ours.pmtu = 1024;
    ours.responder_resources = 1;
    ours.initiator_depth = 1;
    memcpy(ours.private_data, "accepted", 8);
    ours.private_len = 8;
    return ours;
}

/* rdma_cm's consumer: b holds the REQ (a repeat of it gets an MRA, as Linux's delayed
 * MRA), accepts it later with its QP; a holds the REP until it confirms, and only then
 * goes the RTU, which connects b. */
static void
test_hold_accept_confirm(void **state)
{
    struct wire *w = *state;
    char err[RS_ERRBUF_SIZE];
    uint16_t k[4];

    rs_cm_destroy(w->a.cm);
    side_open_opts(&w->a, 1, true, 0);
    w->b.refuse = RS_CM_HOLD;
    uint32_t id = connect_a_to_b(w);
    uint8_t req[RS_CM_MAD_LEN];
    memcpy(req, w->q[0].mad, sizeof(req));
    wire_run(w);
    assert_int_equal(w->b.requests, 1);
    assert_int_equal(w->n, 0);              /* nothing yet from b */
    /* Its repeat gets an MRA (service timeout 24: 69 s). */
    rs_cm_input(w->b.cm, w->a.gid, 1, req, RS_CM_MAD_LEN, w->now);
    assert_int_equal(rs_cm_counters_get(w->b.cm)->dup_req, 1);
    assert_int_equal(w->b.requests, 1);
    queued_kinds(w, k, 1);
    assert_int_equal(k[0], RS_CM_MRA);
    const struct rs_cm_layout *ml = rs_cm_layout(RS_CM_MRA);
    assert_int_equal(rs_cm_get(ml, w->q[0].mad + 24, RS_CMF_SERVICE_TIMEOUT), 24);
    assert_int_equal(rs_cm_get(ml, w->q[0].mad + 24, RS_CMF_MSG_MRAED), 0);
    assert_int_equal(rs_cm_get(ml, w->q[0].mad + 24, RS_CMF_REMOTE_COMM_ID), id);
    wire_run(w);
    assert_int_equal(rs_cm_counters_get(w->a.cm)->mra_received, 1);
    /* a waits the MRA's service timeout more, up to rdma_cm's own timeout. */
    assert_true(rs_cm_next_deadline(w->a.cm) >=
                w->now + rs_cm_timeout_ns(RS_CM_MAX_PEER_TIMEOUT));
    /* Only a held REQ can be accepted. */
    struct rs_cm_params ours = b_params();
    assert_int_equal(rs_cm_accept(w->b.cm, w->b.request_id + 1, &ours, w->now, err), RS_ENOENT);
    assert_int_equal(rs_cm_accept(w->b.cm, w->b.request_id, &ours, w->now, err), 0);
    queued_kinds(w, k, 1);
    assert_int_equal(k[0], RS_CM_REP);
    wire_run(w);
    assert_int_equal(w->a.events[RS_CM_EV_REPLY], 1);
    assert_int_equal(w->a.events[RS_CM_EV_CONNECTED], 0);
    assert_int_equal(w->a.last.peer->qpn, 0x33);
    assert_int_equal(w->a.last.peer->psn, 0x777);
    assert_memory_equal(w->a.last.peer->private_data, "accepted", 8);
    assert_int_equal(w->n, 0);              /* no RTU until a confirms */
    assert_int_equal(w->b.events[RS_CM_EV_CONNECTED], 0);
    assert_int_equal(rs_cm_disconnect(w->a.cm, id, w->now, err), RS_ENOENT);
    assert_int_equal(rs_cm_confirm(w->a.cm, id, w->now, err), 0);
    assert_int_equal(rs_cm_confirm(w->a.cm, id, w->now, err), RS_ENOENT);
    queued_kinds(w, k, 1);
    assert_int_equal(k[0], RS_CM_RTU);
    wire_run(w);
    assert_int_equal(w->b.events[RS_CM_EV_CONNECTED], 1);
    assert_int_equal(rs_cm_next_deadline(w->a.cm), UINT64_MAX);
    assert_int_equal(rs_cm_next_deadline(w->b.cm), UINT64_MAX);
}

/* rdma_reject(): a held REQ refused with the consumer's reason and private data, which the
 * active side is told in full (a REJ's private data is 148 bytes). */
static void
test_hold_reject_private(void **state)
{
    struct wire *w = *state;
    char err[RS_ERRBUF_SIZE];
    uint16_t k[1];

    w->b.refuse = RS_CM_HOLD;
    connect_a_to_b(w);
    wire_run(w);
    assert_int_equal(rs_cm_reject(w->b.cm, w->b.request_id, RS_CM_REJ_CONSUMER,
                                  (const uint8_t *)"not today", 9, w->now, err), 0);
    queued_kinds(w, k, 1);
    assert_int_equal(k[0], RS_CM_REJ);
    assert_int_equal(rs_cm_reject(w->b.cm, w->b.request_id, RS_CM_REJ_CONSUMER, NULL, 0,
                                  w->now, err), RS_ENOENT);
    wire_run(w);
    assert_int_equal(w->a.events[RS_CM_EV_REJECTED], 1);
    assert_int_equal(w->a.last.reason, RS_CM_REJ_CONSUMER);
    assert_int_equal(w->a.last_peer.private_len, RS_CM_REJ_PRIVATE_MAX);
    assert_memory_equal(w->a.last_peer.private_data, "not today", 9);
    assert_int_equal(w->a.last_peer.private_data[9], 0);
    assert_int_equal(rs_cm_next_deadline(w->a.cm), UINT64_MAX);
}

/* Time wait after a disconnect: both sides report DISCONNECTED once, answer a repeated
 * DREQ with a DREP and no second event, and report TIMEWAIT_EXIT when it runs out. */
static void
test_timewait(void **state)
{
    struct wire *w = *state;
    char err[RS_ERRBUF_SIZE];
    uint16_t k[1];

    rs_cm_destroy(w->a.cm);
    rs_cm_destroy(w->b.cm);
    side_open_opts(&w->a, 1, false, 50000000);
    side_open_opts(&w->b, 2, false, 50000000);
    uint32_t id = connect_a_to_b(w);
    wire_run(w);
    assert_int_equal(rs_cm_disconnect(w->a.cm, id, w->now, err), 0);
    uint8_t dreq[RS_CM_MAD_LEN];
    memcpy(dreq, w->q[0].mad, sizeof(dreq));
    wire_run(w);
    assert_int_equal(w->a.events[RS_CM_EV_DISCONNECTED], 1);
    assert_int_equal(w->b.events[RS_CM_EV_DISCONNECTED], 1);
    assert_int_equal(rs_cm_next_deadline(w->b.cm), w->now + 50000000);
    rs_cm_input(w->b.cm, w->a.gid, 1, dreq, RS_CM_MAD_LEN, w->now);
    queued_kinds(w, k, 1);
    assert_int_equal(k[0], RS_CM_DREP);
    wire_run(w);
    assert_int_equal(w->b.events[RS_CM_EV_DISCONNECTED], 1);
    assert_int_equal(w->a.events[RS_CM_EV_TIMEWAIT_EXIT] + w->b.events[RS_CM_EV_TIMEWAIT_EXIT],
                     0);
    wire_wait(w, 60000000);
    assert_int_equal(w->a.events[RS_CM_EV_TIMEWAIT_EXIT], 1);
    assert_int_equal(w->b.events[RS_CM_EV_TIMEWAIT_EXIT], 1);
    assert_int_equal(rs_cm_next_deadline(w->a.cm), UINT64_MAX);
    assert_int_equal(rs_cm_next_deadline(w->b.cm), UINT64_MAX);
    /* Gone: a DREQ now gets the DREP of a connection unknown. */
    rs_cm_input(w->b.cm, w->a.gid, 1, dreq, RS_CM_MAD_LEN, w->now);
    assert_int_equal(rs_cm_counters_get(w->b.cm)->drop_unknown, 1);
    w->n = 0;
}

/* rdma_destroy_id() of each state, as Linux's CM tells the peer: an established
 * connection gets one DREQ and its consumer hears nothing more; a held REQ a REJ
 * (consumer); an active side that gives up while the passive holds its REQ a REJ
 * (timeout) naming only its own ID, which the passive side still finds. */
static void
test_abandon(void **state)
{
    struct wire *w = *state;
    uint16_t k[1];
    struct rs_cm_mad_hdr h;
    const struct rs_cm_layout *l;

    uint32_t id = connect_a_to_b(w);
    wire_run(w);
    assert_int_equal(w->a.events[RS_CM_EV_CONNECTED], 1);
    rs_cm_abandon(w->a.cm, id, w->now);
    queued_kinds(w, k, 1);
    assert_int_equal(k[0], RS_CM_DREQ);
    wire_run(w);        /* DREQ -> b, DREP -> a (which has forgotten it) */
    assert_int_equal(w->b.events[RS_CM_EV_DISCONNECTED], 1);
    assert_int_equal(w->a.events[RS_CM_EV_DISCONNECTED], 0);
    wire_wait(w, 100000000);
    assert_int_equal(w->sent, 3 + 2);       /* no DREQ again */
    assert_int_equal(rs_cm_next_deadline(w->a.cm), UINT64_MAX);

    /* b holds a REQ, then its consumer goes. */
    w->b.refuse = RS_CM_HOLD;
    connect_a_to_b(w);
    wire_run(w);
    rs_cm_abandon(w->b.cm, w->b.request_id, w->now);
    queued_kinds(w, k, 1);
    assert_int_equal(rs_cm_parse(w->q[0].mad, RS_CM_MAD_LEN, &h, &l), RS_CM_OK);
    assert_int_equal(rs_cm_get(l, w->q[0].mad + 24, RS_CMF_REJ_REASON), RS_CM_REJ_CONSUMER);
    assert_int_equal(rs_cm_get(l, w->q[0].mad + 24, RS_CMF_MSG_REJECTED), 0);
    wire_run(w);
    assert_int_equal(w->a.events[RS_CM_EV_REJECTED], 1);
    assert_int_equal(w->a.last.reason, RS_CM_REJ_CONSUMER);

    /* a gives up on a REQ b holds. */
    id = connect_a_to_b(w);
    wire_run(w);
    rs_cm_abandon(w->a.cm, id, w->now);
    queued_kinds(w, k, 1);
    assert_int_equal(rs_cm_parse(w->q[0].mad, RS_CM_MAD_LEN, &h, &l), RS_CM_OK);
    assert_int_equal(rs_cm_get(l, w->q[0].mad + 24, RS_CMF_REJ_REASON), RS_CM_REJ_TIMEOUT);
    assert_int_equal(rs_cm_get(l, w->q[0].mad + 24, RS_CMF_REMOTE_COMM_ID), 0);
    wire_run(w);
    assert_int_equal(w->b.events[RS_CM_EV_REJECTED], 1);
    assert_int_equal(w->b.last.reason, RS_CM_REJ_TIMEOUT);
    assert_int_equal(w->a.events[RS_CM_EV_REJECTED], 1);
    assert_int_equal(rs_cm_next_deadline(w->b.cm), UINT64_MAX);
}

static void
test_hostile_dropped(void **state)
{
    struct wire *w = *state;
    uint8_t mad[RS_CM_MAD_LEN];

    mad_from_hex(captured[0], mad);
    rs_cm_input(w->b.cm, w->a.gid, 1, mad, 100, 0);
    mad[2] = 3;
    rs_cm_input(w->b.cm, w->a.gid, 1, mad, RS_CM_MAD_LEN, 0);
    mad[2] = 2;
    mad[17] = 0x77;
    rs_cm_input(w->b.cm, w->a.gid, 1, mad, RS_CM_MAD_LEN, 0);
    mad_from_hex(captured[2], mad);     /* an RTU for no connection */
    rs_cm_input(w->b.cm, w->a.gid, 1, mad, RS_CM_MAD_LEN, 0);
    mad_from_hex(captured[1], mad);     /* a REP for no REQ */
    rs_cm_input(w->b.cm, w->a.gid, 1, mad, RS_CM_MAD_LEN, 0);
    const struct rs_cm_counters *c = rs_cm_counters_get(w->b.cm);
    assert_int_equal(c->drop_short, 1);
    assert_int_equal(c->drop_version, 1);
    assert_int_equal(c->drop_attr, 1);
    assert_int_equal(c->drop_unknown, 2);
    assert_int_equal(w->n, 0);
    /* A DREQ for a connection gone: answered, as Linux answers it. */
    mad_from_hex(captured[3], mad);
    rs_cm_input(w->b.cm, w->a.gid, 1, mad, RS_CM_MAD_LEN, 0);
    assert_int_equal(w->n, 1);
    assert_int_equal(w->q[0].mad[17], RS_CM_DREP);
}

/* a resolves b's UD service (SIDR_REQ with rdma_cm's header and its private data)
 * from its own port. Returns a's request ID. */
static uint32_t
sidr_a_to_b(struct wire *w)
{
    struct rs_cm_params ours;
    char err[RS_ERRBUF_SIZE];
    uint32_t id;
    uint16_t k[1];

    memset(&ours, 0, sizeof(ours));
    ours.port = 40001;
    memcpy(ours.private_data, "who?", 4);
    ours.private_len = 4;
    assert_int_equal(rs_cm_sidr_resolve(w->a.cm, w->b.gid, 4791, &ours, w->now, &id, err), 0);
    queued_kinds(w, k, 1);
    assert_int_equal(k[0], RS_CM_SIDR_REQ);
    const struct rs_cm_layout *l = rs_cm_layout(RS_CM_SIDR_REQ);
    const uint8_t *m = w->q[0].mad + RS_CM_MAD_HDR_LEN;
    uint16_t port;
    assert_true(rs_cm_service_port(rs_cm_get(l, m, RS_CMF_SERVICE_ID), RS_CM_PS_UDP, &port));
    assert_int_equal(port, 4791);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_REQUEST_ID), id);
    assert_int_equal(rs_cm_get(l, m, RS_CMF_PKEY), 0xffff);
    return id;
}

/* SIDR: b holds the request (a repeat is dropped while held), answers it with its
 * QPN, Q_Key and private data; a is told them once, and a late copy of the answer
 * is dropped. */
static void
test_sidr_hold_answer(void **state)
{
    struct wire *w = *state;
    char err[RS_ERRBUF_SIZE];
    uint16_t k[1];

    w->b.refuse = RS_CM_HOLD;
    sidr_a_to_b(w);
    uint8_t req[RS_CM_MAD_LEN];
    memcpy(req, w->q[0].mad, sizeof(req));
    wire_run(w);
    assert_int_equal(w->b.requests, 1);
    assert_int_equal(w->n, 0);
    rs_cm_input(w->b.cm, w->a.gid, 1, req, RS_CM_MAD_LEN, w->now);
    assert_int_equal(w->b.requests, 1);
    assert_int_equal(rs_cm_counters_get(w->b.cm)->dup_req, 1);
    assert_int_equal(w->n, 0);
    struct rs_cm_params ours;
    memset(&ours, 0, sizeof(ours));
    ours.qpn = 0x44;
    ours.qkey = 0x01234567;
    memcpy(ours.private_data, "here", 4);
    ours.private_len = 4;
    assert_int_equal(rs_cm_sidr_answer(w->b.cm, w->b.request_id + 1, RS_CM_SIDR_VALID, &ours,
                                       err), RS_ENOENT);
    assert_int_equal(rs_cm_sidr_answer(w->b.cm, w->b.request_id, RS_CM_SIDR_VALID, &ours, err),
                     0);
    assert_int_equal(rs_cm_sidr_answer(w->b.cm, w->b.request_id, RS_CM_SIDR_VALID, &ours, err),
                     RS_ENOENT);
    queued_kinds(w, k, 1);
    assert_int_equal(k[0], RS_CM_SIDR_REP);
    uint8_t rep[RS_CM_MAD_LEN];
    memcpy(rep, w->q[0].mad, sizeof(rep));
    wire_run(w);
    assert_int_equal(w->a.events[RS_CM_EV_SIDR_REPLY], 1);
    assert_int_equal(w->a.last.reason, RS_CM_SIDR_VALID);
    assert_int_equal(w->a.last_peer.qpn, 0x44);
    assert_int_equal(w->a.last_peer.qkey, 0x01234567);
    assert_int_equal(w->a.last_peer.private_len, RS_CM_SIDR_REP_PRIVATE_MAX);
    assert_memory_equal(w->a.last_peer.private_data, "here", 4);
    assert_int_equal(rs_cm_next_deadline(w->a.cm), UINT64_MAX);
    rs_cm_input(w->a.cm, w->b.gid, 1, rep, RS_CM_MAD_LEN, w->now);
    assert_int_equal(w->a.events[RS_CM_EV_SIDR_REPLY], 1);
    assert_int_equal(rs_cm_counters_get(w->a.cm)->drop_unknown, 1);
}

/* SIDR refused: at once by the callback's status, by the consumer going away
 * (rejected), and with no callback (service ID not supported); unanswered, a's
 * request is resent max_retries times and then times out. */
static void
test_sidr_refused_and_unanswered(void **state)
{
    struct wire *w = *state;

    w->b.refuse = RS_CM_SIDR_NO_QP;
    sidr_a_to_b(w);
    wire_run(w);
    assert_int_equal(w->a.events[RS_CM_EV_SIDR_REPLY], 1);
    assert_int_equal(w->a.last.reason, RS_CM_SIDR_NO_QP);

    w->b.refuse = RS_CM_HOLD;
    sidr_a_to_b(w);
    wire_run(w);
    rs_cm_abandon(w->b.cm, w->b.request_id, w->now);
    wire_run(w);
    assert_int_equal(w->a.events[RS_CM_EV_SIDR_REPLY], 2);
    assert_int_equal(w->a.last.reason, RS_CM_SIDR_REJECT);

    w->b.refuse = RS_CM_IGNORE;
    sidr_a_to_b(w);
    wire_run(w);
    assert_int_equal(w->a.events[RS_CM_EV_SIDR_REPLY], 2);
    wire_wait(w, 100000000);
    assert_int_equal(w->a.events[RS_CM_EV_TIMEOUT], 1);
    assert_string_equal(w->a.last.unanswered, "SIDR_REQ");
    assert_int_equal(w->b.requests, 2 + 4);     /* the last, and its 3 retries */
    assert_int_equal(rs_cm_next_deadline(w->a.cm), UINT64_MAX);
    assert_int_equal(rs_cm_next_deadline(w->b.cm), UINT64_MAX);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_captured),
        cmocka_unit_test(test_hostile_parse),
        cmocka_unit_test_setup_teardown(test_connect_disconnect, wire_setup, wire_teardown),
        cmocka_unit_test_setup_teardown(test_crossing_dreqs, wire_setup, wire_teardown),
        cmocka_unit_test_setup_teardown(test_lost_req_and_rep, wire_setup, wire_teardown),
        cmocka_unit_test_setup_teardown(test_duplicate_req_gets_rep_again, wire_setup,
                                        wire_teardown),
        cmocka_unit_test_setup_teardown(test_lost_rtu_then_dreq, wire_setup, wire_teardown),
        cmocka_unit_test_setup_teardown(test_give_up, wire_setup, wire_teardown),
        cmocka_unit_test_setup_teardown(test_req_flood_capped, wire_setup, wire_teardown),
        cmocka_unit_test_setup_teardown(test_half_open_bound_lifted, wire_setup,
                                        wire_teardown),
        cmocka_unit_test_setup_teardown(test_rep_unanswered, wire_setup, wire_teardown),
        cmocka_unit_test_setup_teardown(test_reject, wire_setup, wire_teardown),
        cmocka_unit_test_setup_teardown(test_connection_bound, wire_setup, wire_teardown),
        cmocka_unit_test_setup_teardown(test_passive_connection_bound, wire_setup,
                                        wire_teardown),
        cmocka_unit_test_setup_teardown(test_reject_foreign_service, wire_setup,
                                        wire_teardown),
        cmocka_unit_test_setup_teardown(test_hostile_dropped, wire_setup, wire_teardown),
        cmocka_unit_test_setup_teardown(test_hold_accept_confirm, wire_setup, wire_teardown),
        cmocka_unit_test_setup_teardown(test_hold_reject_private, wire_setup, wire_teardown),
        cmocka_unit_test_setup_teardown(test_timewait, wire_setup, wire_teardown),
        cmocka_unit_test_setup_teardown(test_abandon, wire_setup, wire_teardown),
        cmocka_unit_test_setup_teardown(test_sidr_hold_answer, wire_setup, wire_teardown),
        cmocka_unit_test_setup_teardown(test_sidr_refused_and_unanswered, wire_setup,
                                        wire_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
