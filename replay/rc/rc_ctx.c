/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_ctx.c - the context: QPs, the header checks every received packet
 * passes before a state machine sees it, ECN, and the progress loop.
 *
 * Header checks (IBTA chapter 9 packet validation, Annex A17) drop a packet silently and count
 * it by reason: a malformed or fragmented packet, a bad ICRC, a transport
 * header version other than 0, an opcode outside RC, an unknown
 * destination QP, a P_Key that does not match the QP's, a source other
 * than the connected peer, and a QP in the error state.
 */
#include <stdlib.h>
#include <string.h>

#include "rc_int.h"

#define TX_BUDGET 128   /* packets one QP may send per progress call */

void
rs_rc_ctx_opts_init(struct rs_rc_ctx_opts *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->udp_sport = RS_ROCEV2_UDP_PORT;
    opts->verify_icrc = true;
    opts->cnp_interval_ns = 50000;
    opts->ack_delay_ns = 10000;
}

void
rs_rc_qp_attr_init(struct rs_rc_qp_attr *a)
{
    memset(a, 0, sizeof(*a));
    a->pmtu = 1024;
    a->pkey = 0xffff;
    a->access = RS_RC_ACCESS_REMOTE_ALL;
    a->timeout = 14;
    a->retry_cnt = 7;
    a->rnr_retry = 7;
    a->min_rnr_timer = 12;
    a->max_rd_atomic = 16;
    a->max_dest_rd_atomic = 16;
    a->sq_depth = 1024;
    a->rq_depth = 1024;
    a->ack_req_every = 64;
    a->max_inflight = 1024;
}

uint32_t
rs_rc_pmtu_valid(uint32_t pmtu)
{
    return pmtu == 256 || pmtu == 512 || pmtu == 1024 || pmtu == 2048 || pmtu == 4096 ? pmtu
                                                                                      : 0;
}

uint64_t
rs_rc_timeout_ns(uint8_t timeout)
{
    if (timeout == 0)
        return RS_RC_INFINITE;
    /* The local ACK timeout: 4.096 us * 2^timeout, timeout at most 31. */
    return 4096ull << (timeout & 31);
}

void
rs_rc_qp_attr_connect(struct rs_rc_qp_attr *a, uint32_t qpn, uint32_t psn,
                      const struct rs_rc_conn_info *peer)
{
    a->qpn = qpn;
    a->dest_qpn = peer->qpn;
    memcpy(a->peer_gid, peer->gid, 16);
    a->sq_psn = psn;
    a->rq_psn = peer->psn;
    if (peer->pmtu != 0 && peer->pmtu < a->pmtu)
        a->pmtu = peer->pmtu;
}

int
rs_rc_ctx_create(struct rs_rc_ctx **out, const struct rs_rc_ctx_opts *opts,
                 const struct rs_rc_link *link, char *err)
{
    struct rs_rc_ctx *ctx = calloc(1, sizeof(*ctx));

    if (ctx == NULL)
        return rs_error(err, RS_ENOMEM, "RC context: out of memory");
    ctx->opts = *opts;
    ctx->link = *link;
    rs_decode_opts_init(&ctx->dopts);
    ctx->dopts.verify_crc = opts->verify_icrc;
    ctx->ip_layer = rs_addr_is_v4mapped(opts->local_gid) ? RS_LAYER_IPV4 : RS_LAYER_IPV6;
    ctx->next_qpn = 0x11;
    ctx->next_rkey = 1;
    if (link->tx_errors_to != NULL)
        link->tx_errors_to(link->arg, &ctx->cnt.tx_errors);
    *out = ctx;
    return 0;
}

void
rs_rc_ctx_destroy(struct rs_rc_ctx *ctx)
{
    if (ctx == NULL)
        return;
    while (ctx->qps != NULL)
        rs_rc_qp_destroy(ctx->qps);
    if (ctx->link.tx_errors_to != NULL)
        ctx->link.tx_errors_to(ctx->link.arg, NULL);
    free(ctx);
}

struct rs_rc_qp *
rs_rc_qp_find(struct rs_rc_ctx *ctx, uint32_t qpn)
{
    struct rs_rc_qp *qp = ctx->qp_hash[qpn % RC_QP_BUCKETS];

    while (qp != NULL && qp->attr.qpn != qpn)
        qp = qp->hash_next;
    return qp;
}

static int
check_attr(const struct rs_rc_qp_attr *a, char *err)
{
    if (rs_rc_pmtu_valid(a->pmtu) == 0)
        return rs_error(err, RS_EINVAL, "PMTU %u: must be 256, 512, 1024, 2048 or 4096",
                        a->pmtu);
    if (a->qpn > RC_PSN_MASK || a->dest_qpn > RC_PSN_MASK || a->qpn == 1)
        return rs_error(err, RS_EINVAL, "QP number out of range (2..0xffffff)");
    if (a->retry_cnt > 7 || a->rnr_retry > 7 || a->min_rnr_timer > 31 || a->timeout > 31)
        return rs_error(err, RS_EINVAL, "retry_cnt and rnr_retry are 0..7, timers 0..31");
    if (a->sq_depth == 0 || a->rq_depth == 0 || a->sq_depth > (1u << 20) ||
        a->rq_depth > (1u << 20))
        return rs_error(err, RS_EINVAL, "queue depths must be 1..1048576");
    if (a->max_inflight == 0 || a->ack_req_every == 0 || a->max_inflight > (1u << 22))
        return rs_error(err, RS_EINVAL, "max_inflight and ack_req_every must be positive");
    return 0;
}

int
rs_rc_qp_create(struct rs_rc_ctx *ctx, const struct rs_rc_qp_attr *attr,
                struct rs_rc_qp **out, char *err)
{
    int rc = check_attr(attr, err);
    if (rc < 0)
        return rc;
    /* One context speaks one IP version: its packets' headers are of its address. */
    if (rs_addr_family(attr->peer_gid) != rs_addr_family(ctx->opts.local_gid)) {
        char peer[RS_ADDR_TEXT_MAX], local[RS_ADDR_TEXT_MAX];
        return rs_error(err, RS_EINVAL, "peer %s: not of the IP version of our address %s",
                        rs_addr_format(attr->peer_gid, 0, peer, sizeof(peer)),
                        rs_addr_format(ctx->opts.local_gid, 0, local, sizeof(local)));
    }
    uint32_t qpn = attr->qpn;
    if (qpn == 0) {
        while (rs_rc_qp_find(ctx, ctx->next_qpn) != NULL)
            ctx->next_qpn = (ctx->next_qpn + 1) & RC_PSN_MASK;
        qpn = ctx->next_qpn++;
    } else if (rs_rc_qp_find(ctx, qpn) != NULL) {
        return rs_error(err, RS_EINVAL, "QP 0x%06x exists already", qpn);
    }
    struct rs_rc_qp *qp = calloc(1, sizeof(*qp));
    if (qp == NULL)
        return rs_error(err, RS_ENOMEM, "QP: out of memory");
    qp->ctx = ctx;
    qp->attr = *attr;
    qp->attr.qpn = qpn;
    qp->cq_size = attr->sq_depth + attr->rq_depth;
    uint32_t nres = attr->max_dest_rd_atomic > 0 ? attr->max_dest_rd_atomic : 1;
    qp->sq = calloc(attr->sq_depth, sizeof(*qp->sq));
    qp->rq = calloc(attr->rq_depth, sizeof(*qp->rq));
    qp->cq = calloc(qp->cq_size, sizeof(*qp->cq));
    qp->resp.res = calloc(nres, sizeof(*qp->resp.res));
    if (qp->sq == NULL || qp->rq == NULL || qp->cq == NULL || qp->resp.res == NULL) {
        free(qp->sq);
        free(qp->rq);
        free(qp->cq);
        free(qp->resp.res);
        free(qp);
        return rs_error(err, RS_ENOMEM, "QP: out of memory for its queues");
    }
    rc_resp_reset(qp);
    rc_req_reset(qp);
    qp->state = RS_RC_QP_RTS;
    qp->hash_next = ctx->qp_hash[qpn % RC_QP_BUCKETS];
    ctx->qp_hash[qpn % RC_QP_BUCKETS] = qp;
    qp->next = ctx->qps;
    ctx->qps = qp;
    *out = qp;
    if (ctx->link.connected != NULL)
        ctx->link.connected(ctx->link.arg, qpn, attr->peer_gid, attr->dest_qpn);
    return 0;
}

void
rs_rc_qp_destroy(struct rs_rc_qp *qp)
{
    struct rs_rc_ctx *ctx = qp->ctx;
    struct rs_rc_qp **pp;

    for (pp = &ctx->qp_hash[qp->attr.qpn % RC_QP_BUCKETS]; *pp != qp; pp = &(*pp)->hash_next)
        ;
    *pp = qp->hash_next;
    for (pp = &ctx->qps; *pp != qp; pp = &(*pp)->next)
        ;
    *pp = qp->next;
    free(qp->sq);
    free(qp->rq);
    free(qp->cq);
    free(qp->resp.res);
    free(qp);
}

uint32_t
rs_rc_qp_num(const struct rs_rc_qp *qp)
{
    return qp->attr.qpn;
}

int
rs_rc_qp_set_requester(struct rs_rc_qp *qp, const struct rs_rc_qp_attr *attr, char *err)
{
    struct rs_rc_qp_attr a = qp->attr;

    if (qp->req.tail != 0)
        return rs_error(err, RS_EINVAL, "QP 0x%06x has sent already", qp->attr.qpn);
    a.sq_psn = attr->sq_psn & RC_PSN_MASK;
    a.timeout = attr->timeout;
    a.retry_cnt = attr->retry_cnt;
    a.rnr_retry = attr->rnr_retry;
    a.max_rd_atomic = attr->max_rd_atomic;
    int rc = check_attr(&a, err);
    if (rc < 0)
        return rc;
    qp->attr = a;
    rc_req_reset(qp);
    return 0;
}

void
rs_rc_qp_ack_now(struct rs_rc_qp *qp)
{
    rc_resp_flush_ack(qp);
}

void
rs_rc_qp_flush(struct rs_rc_qp *qp)
{
    rc_qp_error(qp);
}

enum rs_rc_qp_state
rs_rc_qp_state(const struct rs_rc_qp *qp)
{
    return (enum rs_rc_qp_state)qp->state;
}

uint64_t
rs_rc_qp_last_rx(const struct rs_rc_qp *qp)
{
    return qp->last_rx_ns;
}

const struct rs_rc_counters *
rs_rc_counters_get(const struct rs_rc_ctx *ctx)
{
    return &ctx->cnt;
}

void
rc_trace(struct rs_rc_qp *qp, const char *machine, const char *state, uint32_t psn)
{
    struct rs_rc_ctx *ctx = qp->ctx;

    ctx->opts.trace(ctx->opts.trace_arg, qp->attr.qpn, machine, state, psn);
}

/* Partition keys match when their low 15 bits agree and at
 * least one of the two is a full member. */
static bool
pkey_match(uint16_t a, uint16_t b)
{
    return (a & 0x7fff) == (b & 0x7fff) && ((a | b) & 0x8000) && (a & 0x7fff) != 0;
}

/* Reads the fields the state machines use out of the decoded packet. */
static void
parse(const struct rs_packet *p, struct rc_pkt *pkt)
{
    const uint8_t *bth = rs_packet_at(p, RS_LAYER_BTH);

    memset(pkt, 0, sizeof(*pkt));
    pkt->p = p;
    pkt->opcode = p->opcode;
    pkt->info = rs_ib_opcode_info(p->opcode);
    pkt->op = pkt->info->op;
    pkt->seg = pkt->info->seg;
    pkt->ackreq = bth[8] >> 7;
    pkt->ecn = p->ecn;
    pkt->psn = rs_load_be24(bth + 9);
    pkt->dqpn = rs_load_be24(bth + 5);
    pkt->paylen = p->payload_len;
    pkt->payload = rs_packet_has(p, RS_LAYER_PAYLOAD) ? rs_packet_at(p, RS_LAYER_PAYLOAD)
                                                       : NULL;
    if (rs_packet_has(p, RS_LAYER_RETH)) {
        const uint8_t *h = rs_packet_at(p, RS_LAYER_RETH);
        pkt->va = rs_load_be64(h);
        pkt->rkey = rs_load_be32(h + 8);
        pkt->dmalen = rs_load_be32(h + 12);
    }
    if (rs_packet_has(p, RS_LAYER_ATOMICETH)) {
        const uint8_t *h = rs_packet_at(p, RS_LAYER_ATOMICETH);
        pkt->va = rs_load_be64(h);
        pkt->rkey = rs_load_be32(h + 8);
        pkt->swap_add = rs_load_be64(h + 12);
        pkt->compare = rs_load_be64(h + 20);
    }
    if (rs_packet_has(p, RS_LAYER_AETH)) {
        const uint8_t *h = rs_packet_at(p, RS_LAYER_AETH);
        pkt->syndrome = h[0];
        pkt->msn = rs_load_be24(h + 1);
    }
    if (rs_packet_has(p, RS_LAYER_ATOMICACKETH))
        pkt->orig = rs_load_be64(rs_packet_at(p, RS_LAYER_ATOMICACKETH));
    if (rs_packet_has(p, RS_LAYER_IMMDT))
        pkt->imm = rs_load_be32(rs_packet_at(p, RS_LAYER_IMMDT));
    if (rs_packet_has(p, RS_LAYER_IETH))
        pkt->ieth = rs_load_be32(rs_packet_at(p, RS_LAYER_IETH));
}

/* True when the packet's IP source is the peer's GID: the IPv4 source (at
 * 12) against a mapped GID's last four bytes, or the IPv6 source (at 8). */
static bool
from_peer(const struct rs_packet *p, enum rs_layer ip_layer, const uint8_t peer_gid[16])
{
    const uint8_t *ip = rs_packet_at(p, ip_layer);

    return ip_layer == RS_LAYER_IPV4 ? memcmp(ip + 12, peer_gid + 12, 4) == 0
                                     : memcmp(ip + 8, peer_gid, 16) == 0;
}

/* The header checks, in the order a NIC applies them; returns the QP or
 * NULL after counting the drop. */
static struct rs_rc_qp *
header_check(struct rs_rc_ctx *ctx, const struct rs_packet *p)
{
    struct rs_rc_counters *cnt = &ctx->cnt;

    if (p->encap != RS_ENCAP_ROCEV2 || !rs_packet_has(p, ctx->ip_layer) ||
        !rs_packet_has(p, RS_LAYER_ICRC) || (p->flags & RS_PKT_IP_FRAGMENT)) {
        cnt->drop_malformed++;
        return NULL;
    }
    if (ctx->opts.verify_icrc && p->icrc_status != RS_CKSUM_GOOD) {
        cnt->drop_icrc++;
        return NULL;
    }
    const uint8_t *bth = rs_packet_at(p, RS_LAYER_BTH);
    if ((bth[1] & 0x0f) != 0) {
        cnt->drop_tver++;
        return NULL;
    }
    /* QP 1 is the GSI's, a UD QP: its MADs go to the CM, not to an RC QP. */
    if (rs_load_be24(bth + 5) == RC_GSI_QP) {
        rc_gsi_input(ctx, p);
        return NULL;
    }
    /* The opcode must be one of the RC service (or a CNP): another
     * service's, a vendor's or a reserved one (0x15, 0x18-0x1f) is not. It
     * comes before the length checks, which need the header layout only a
     * defined opcode has: the decoder calls a reserved opcode malformed for
     * that reason, but for a QP it is an opcode check that failed, as the
     * TVer check above is. rxe's check_type_state() likewise judges the
     * opcode before anything that depends on its headers. */
    const struct rs_ib_opcode *info = rs_ib_opcode_info(p->opcode);
    if (info->name == NULL ||
        (rs_ib_opcode_transport(p->opcode) != RS_IB_RC && p->opcode != 0x81)) {
        cnt->drop_transport++;
        return NULL;
    }
    /* Headers that do not fit, a pad longer than the payload, or a length
     * that is no multiple of four (IBTA packets are whole words). */
    if ((p->flags & RS_PKT_MALFORMED) ||
        (p->span[RS_LAYER_ICRC].off - p->span[RS_LAYER_BTH].off) % 4 != 0) {
        cnt->drop_malformed++;
        return NULL;
    }
    struct rs_rc_qp *qp = rs_rc_qp_find(ctx, rs_load_be24(bth + 5));
    if (qp == NULL) {
        cnt->drop_qpn++;
        return NULL;
    }
    if (!pkey_match(rs_load_be16(bth + 2), qp->attr.pkey)) {
        cnt->drop_pkey++;
        return NULL;
    }
    /* RC is connected: only the peer may talk to this QP. */
    if (!from_peer(p, ctx->ip_layer, qp->attr.peer_gid)) {
        cnt->drop_source++;
        return NULL;
    }
    if (qp->state != RS_RC_QP_RTS) {
        cnt->drop_qp_error++;
        return NULL;
    }
    return qp;
}

/* Annex A17.9: a CE-marked packet makes the notification point send a CNP
 * to the sender, at most one per cnp_interval for the QP. */
static void
congestion_notify(struct rs_rc_qp *qp)
{
    struct rs_rc_ctx *ctx = qp->ctx;
    struct rc_resp *r = &qp->resp;

    if (r->cnp_ever && ctx->now - r->last_cnp_ns < ctx->opts.cnp_interval_ns) {
        ctx->cnt.cnp_paced++;
        return;
    }
    r->cnp_ever = true;
    r->last_cnp_ns = ctx->now;
    rc_resp_flush_ack(qp);
    rc_tx_cnp(qp);
    ctx->cnt.cnp_sent++;
}

void
rs_rc_input(struct rs_rc_ctx *ctx, const uint8_t *packet, uint32_t len, uint64_t now_ns)
{
    struct rs_frame frame;
    struct rs_packet p;
    struct rc_pkt pkt;

    ctx->now = now_ns;
    ctx->cnt.rx_packets++;
    memset(&frame, 0, sizeof(frame));
    frame.data = packet;
    frame.caplen = frame.len = len;
    frame.linktype = ctx->ip_layer == RS_LAYER_IPV4 ? RS_DLT_IPV4 : RS_DLT_IPV6;
    rs_decode_frame(&frame, &ctx->dopts, &p);
    struct rs_rc_qp *qp = header_check(ctx, &p);
    if (qp == NULL)
        return;
    qp->last_rx_ns = now_ns;
    parse(&p, &pkt);
    if (pkt.ecn == 3)
        congestion_notify(qp);
    switch (pkt.op) {
    case RS_OP_CNP:
        ctx->cnt.cnp_received++;
        break;
    case RS_OP_READ_RESP:
    case RS_OP_ACK:
    case RS_OP_ATOMIC_ACK:
        rc_comp_handle(qp, &pkt);
        break;
    default:
        rc_resp_handle(qp, &pkt);
        break;
    }
}

static void
progress(struct rs_rc_ctx *ctx, uint64_t now_ns, bool timers)
{
    ctx->now = now_ns;
    /* Requests before held ACKs: the two directions have PSN spaces of
     * their own, so their order does not matter to the peer, and the
     * request is what a ping-pong waits for. */
    for (struct rs_rc_qp *qp = ctx->qps; qp != NULL; qp = qp->next) {
        if (timers)
            rc_req_timers(qp);
        rc_req_transmit(qp, TX_BUDGET);
        rc_resp_ack_timer(qp);
    }
}

void
rs_rc_progress(struct rs_rc_ctx *ctx, uint64_t now_ns)
{
    progress(ctx, now_ns, true);
}

void
rs_rc_transmit(struct rs_rc_ctx *ctx, uint64_t now_ns)
{
    progress(ctx, now_ns, false);
}

uint64_t
rs_rc_next_deadline(const struct rs_rc_ctx *ctx)
{
    uint64_t d = RS_RC_INFINITE;

    for (const struct rs_rc_qp *qp = ctx->qps; qp != NULL; qp = qp->next) {
        uint64_t q = rc_req_deadline(qp);
        if (qp->resp.ack_pending && qp->resp.ack_due_ns < q)
            q = qp->resp.ack_due_ns;
        if (q < d)
            d = q;
    }
    return d;
}
