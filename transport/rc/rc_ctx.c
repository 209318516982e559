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

#include <roceshark/dissectors/ib_headers.h>

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
    memcpy(ctx->addr[0].gid, opts->local_gid, 16);
    ctx->addr[0].link = *link;
    ctx->n_addr = 1;
    rs_decode_opts_init(&ctx->dopts);
    ctx->dopts.verify_crc = opts->verify_icrc;
    ctx->next_qpn = 0x11;
    ctx->next_rkey = 1;
    if (link->tx_errors_to != NULL)
        link->tx_errors_to(link->arg, &ctx->cnt.tx_errors);
    *out = ctx;
    return 0;
}

int
rs_rc_ctx_add_address(struct rs_rc_ctx *ctx, const uint8_t gid[16],
                      const struct rs_rc_link *link, char *err)
{
    char text[RS_ADDR_TEXT_MAX];

    if (rc_addr_find(ctx, gid) >= 0)
        return rs_error(err, RS_EINVAL, "RC context: %s is one of its addresses already",
                        rs_addr_format(gid, 0, text, sizeof(text)));
    if (ctx->n_addr >= RS_RC_MAX_ADDRS)
        return rs_error(err, RS_ENOSPC, "RC context: at most %d addresses", RS_RC_MAX_ADDRS);
    memcpy(ctx->addr[ctx->n_addr].gid, gid, 16);
    ctx->addr[ctx->n_addr].link = *link;
    ctx->n_addr++;
    if (link->tx_errors_to != NULL)
        link->tx_errors_to(link->arg, &ctx->cnt.tx_errors);
    return 0;
}

int
rc_addr_find(const struct rs_rc_ctx *ctx, const uint8_t gid[16])
{
    for (unsigned i = 0; i < ctx->n_addr; i++)
        if (memcmp(ctx->addr[i].gid, gid, 16) == 0)
            return (int)i;
    return -1;
}

static bool
link_local(const uint8_t gid[16])
{
    return gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80;
}

int
rc_addr_for(const struct rs_rc_ctx *ctx, const uint8_t peer[16])
{
    int first = -1;

    for (unsigned i = 0; i < ctx->n_addr; i++) {
        const uint8_t *g = ctx->addr[i].gid;
        if (rs_addr_family(g) != rs_addr_family(peer))
            continue;
        if (link_local(g) == link_local(peer))
            return (int)i;
        if (first < 0)
            first = (int)i;
    }
    return first;
}

void
rc_event(struct rs_rc_ctx *ctx, uint8_t type, uint32_t qpn, struct rs_rc_srq *srq)
{
    struct rs_rc_event ev = {type, qpn, srq};

    if (ctx->opts.event != NULL)
        ctx->opts.event(ctx->opts.event_arg, &ev);
}

void
rs_rc_ctx_destroy(struct rs_rc_ctx *ctx)
{
    if (ctx == NULL)
        return;
    while (ctx->qps != NULL)
        rs_rc_qp_destroy(ctx->qps);
    while (ctx->srqs != NULL)
        rs_rc_srq_destroy(ctx->srqs);
    for (unsigned i = 0; i < ctx->n_addr; i++)
        if (ctx->addr[i].link.tx_errors_to != NULL)
            ctx->addr[i].link.tx_errors_to(ctx->addr[i].link.arg, NULL);
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
    if (a->type > RS_RC_QPT_UD)
        return rs_error(err, RS_EINVAL, "QP type %u: must be RC, UC or UD", a->type);
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
    if (a->max_sge > RS_RC_MAX_SGE || a->max_inline > RS_RC_MAX_INLINE)
        return rs_error(err, RS_EINVAL, "max_sge is at most %d and max_inline %d",
                        RS_RC_MAX_SGE, RS_RC_MAX_INLINE);
    return 0;
}

/* The address the QP speaks from: local_gid, else the context's first. */
static int
qp_address(struct rs_rc_ctx *ctx, const struct rs_rc_qp_attr *attr, char *err)
{
    static const uint8_t none[16];
    char peer[RS_ADDR_TEXT_MAX], local[RS_ADDR_TEXT_MAX];
    int a = memcmp(attr->local_gid, none, 16) == 0 ? 0 : rc_addr_find(ctx, attr->local_gid);

    if (a < 0)
        return rs_error(err, RS_EINVAL, "%s: not an address of the context",
                        rs_addr_format(attr->local_gid, 0, local, sizeof(local)));
    /* A connected QP's packets carry the IP header of its address. */
    if (attr->type != RS_RC_QPT_UD &&
        rs_addr_family(attr->peer_gid) != rs_addr_family(ctx->addr[a].gid))
        return rs_error(err, RS_EINVAL, "peer %s: not of the IP version of our address %s",
                        rs_addr_format(attr->peer_gid, 0, peer, sizeof(peer)),
                        rs_addr_format(ctx->addr[a].gid, 0, local, sizeof(local)));
    return a;
}

static void
qp_free(struct rs_rc_qp *qp)
{
    free(qp->sq);
    free(qp->sq_sge);
    free(qp->sq_inline);
    rc_rq_free(&qp->rq);
    free(qp->resp.rwqe_sge);
    free(qp->cq);
    free(qp->resp.res);
    free(qp);
}

static int
qp_alloc(struct rs_rc_qp *qp)
{
    const struct rs_rc_qp_attr *a = &qp->attr;
    uint32_t nres = a->max_dest_rd_atomic > 0 ? a->max_dest_rd_atomic : 1;

    qp->cq_size = a->sq_depth + a->rq_depth;
    qp->sq = calloc(a->sq_depth, sizeof(*qp->sq));
    qp->sq_sge = calloc((size_t)a->sq_depth * a->max_sge, sizeof(*qp->sq_sge));
    if (a->max_inline > 0)
        qp->sq_inline = malloc((size_t)a->sq_depth * a->max_inline);
    uint32_t rsge = qp->srq != NULL && qp->srq->rq.max_sge > a->max_sge ? qp->srq->rq.max_sge
                                                                         : a->max_sge;
    qp->resp.rwqe_sge = calloc(rsge, sizeof(*qp->resp.rwqe_sge));
    qp->cq = calloc(qp->cq_size, sizeof(*qp->cq));
    qp->resp.res = calloc(nres, sizeof(*qp->resp.res));
    if (qp->sq == NULL || qp->sq_sge == NULL || (a->max_inline > 0 && qp->sq_inline == NULL) ||
        qp->resp.rwqe_sge == NULL || qp->cq == NULL || qp->resp.res == NULL)
        return RS_ENOMEM;
    /* With an SRQ the receives come from it: the QP's own queue stays empty. */
    return rc_rq_init(&qp->rq, qp->srq != NULL ? 1 : a->rq_depth, a->max_sge);
}

int
rs_rc_qp_create(struct rs_rc_ctx *ctx, const struct rs_rc_qp_attr *attr,
                struct rs_rc_qp **out, char *err)
{
    int rc = check_attr(attr, err);
    if (rc < 0)
        return rc;
    int addr = qp_address(ctx, attr, err);
    if (addr < 0)
        return addr;
    if (attr->srq != NULL && (attr->srq->ctx != ctx || attr->type == RS_RC_QPT_UD))
        return rs_error(err, RS_EINVAL, "SRQ: of another context, or for a UD QP");
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
    if (qp->attr.max_sge == 0)
        qp->attr.max_sge = 1;
    qp->srq = attr->srq;
    qp->addr = (unsigned)addr;
    if (qp_alloc(qp) < 0) {
        qp_free(qp);
        return rs_error(err, RS_ENOMEM, "QP: out of memory for its queues");
    }
    qp->flow_label = attr->flow_label != 0 ? attr->flow_label & 0xfffff
                                           : rc_flow_label(qpn, attr->dest_qpn);
    qp->sport = ctx->opts.sport_from_flow ? rc_flow_sport(qp->flow_label) : ctx->opts.udp_sport;
    rc_resp_reset(qp);
    rc_req_reset(qp);
    qp->state = RS_RC_QP_RTS;
    qp->hash_next = ctx->qp_hash[qpn % RC_QP_BUCKETS];
    ctx->qp_hash[qpn % RC_QP_BUCKETS] = qp;
    qp->next = ctx->qps;
    ctx->qps = qp;
    if (qp->srq != NULL)
        qp->srq->users++;
    *out = qp;
    const struct rs_rc_link *link = &ctx->addr[addr].link;
    if (attr->type != RS_RC_QPT_UD && link->connected != NULL)
        link->connected(link->arg, qpn, attr->peer_gid, attr->dest_qpn);
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
    if (qp->srq != NULL)
        qp->srq->users--;
    qp_free(qp);
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
    pkt->ackreq = rs_bth_ackreq(bth);
    pkt->ecn = p->ecn;
    pkt->psn = rs_bth_psn(bth);
    pkt->dqpn = rs_bth_destqp(bth);
    pkt->paylen = p->payload_len;
    pkt->payload = rs_packet_has(p, RS_LAYER_PAYLOAD) ? rs_packet_at(p, RS_LAYER_PAYLOAD)
                                                       : NULL;
    if (rs_packet_has(p, RS_LAYER_RETH)) {
        const uint8_t *reth = rs_packet_at(p, RS_LAYER_RETH);
        pkt->va = rs_reth_va(reth);
        pkt->rkey = rs_reth_rkey(reth);
        pkt->dmalen = rs_reth_dmalen(reth);
    }
    if (rs_packet_has(p, RS_LAYER_ATOMICETH)) {
        const uint8_t *a = rs_packet_at(p, RS_LAYER_ATOMICETH);
        pkt->va = rs_atomiceth_va(a);
        pkt->rkey = rs_atomiceth_rkey(a);
        pkt->swap_add = rs_atomiceth_swap(a);
        pkt->compare = rs_atomiceth_compare(a);
    }
    if (rs_packet_has(p, RS_LAYER_AETH)) {
        const uint8_t *aeth = rs_packet_at(p, RS_LAYER_AETH);
        pkt->syndrome = rs_aeth_syndrome(aeth);
        pkt->msn = rs_aeth_msn(aeth);
    }
    if (rs_packet_has(p, RS_LAYER_ATOMICACKETH))
        pkt->orig = rs_atomicacketh_orig(rs_packet_at(p, RS_LAYER_ATOMICACKETH));
    if (rs_packet_has(p, RS_LAYER_IMMDT))
        pkt->imm = rs_immdt_data(rs_packet_at(p, RS_LAYER_IMMDT));
    if (rs_packet_has(p, RS_LAYER_IETH))
        pkt->ieth = rs_ieth_rkey(rs_packet_at(p, RS_LAYER_IETH));
    if (rs_packet_has(p, RS_LAYER_DETH)) {
        const uint8_t *deth = rs_packet_at(p, RS_LAYER_DETH);
        pkt->qkey = rs_deth_qkey(deth);
        pkt->src_qp = rs_deth_srcqp(deth);
    }
}

void
rc_packet_source(const struct rs_packet *p, uint8_t gid[16])
{
    if (rs_packet_has(p, RS_LAYER_IPV4))
        rs_addr_from_ipv4(rs_packet_at(p, RS_LAYER_IPV4) + 12, gid);
    else
        memcpy(gid, rs_packet_at(p, RS_LAYER_IPV6) + 8, 16);
}

/* The transport service of an opcode, as the QP types name them; -1 for none. */
static int
service_of(uint8_t opcode)
{
    switch (rs_ib_opcode_transport(opcode)) {
    case RS_IB_RC:
        return RS_RC_QPT_RC;
    case RS_IB_UC:
        return RS_RC_QPT_UC;
    case RS_IB_UD:
        return RS_RC_QPT_UD;
    default:
        return -1;
    }
}

/* The header checks, in the order a NIC applies them; returns the QP or
 * NULL after counting the drop. */
static struct rs_rc_qp *
header_check(struct rs_rc_ctx *ctx, const struct rs_packet *p)
{
    struct rs_rc_counters *cnt = &ctx->cnt;

    if (p->encap != RS_ENCAP_ROCEV2 ||
        !(rs_packet_has(p, RS_LAYER_IPV4) || rs_packet_has(p, RS_LAYER_IPV6)) ||
        !rs_packet_has(p, RS_LAYER_ICRC) || (p->flags & RS_PKT_IP_FRAGMENT)) {
        cnt->drop_malformed++;
        return NULL;
    }
    if (ctx->opts.verify_icrc && p->icrc_status != RS_CKSUM_GOOD) {
        cnt->drop_icrc++;
        return NULL;
    }
    const uint8_t *bth = rs_packet_at(p, RS_LAYER_BTH);
    if (rs_bth_tver(bth) != 0) {
        cnt->drop_tver++;
        return NULL;
    }
    /* QP 1 is the GSI's, a UD QP: its MADs go to the CM, not to an RC QP. */
    if (rs_bth_destqp(bth) == RC_GSI_QP) {
        rc_gsi_input(ctx, p);
        return NULL;
    }
    /* The opcode must be one of a service we serve (or a CNP): a vendor's or a
     * reserved one (0x15, 0x18-0x1f in RC) is not. It comes before the length checks,
     * which need the header layout only a defined opcode has: the decoder calls a
     * reserved opcode malformed for that reason, but for a QP it is an opcode check
     * that failed, as the TVer check above is. rxe's check_type_state() likewise
     * judges the opcode before anything that depends on its headers. */
    const struct rs_ib_opcode *info = rs_ib_opcode_info(p->opcode);
    int service = service_of(p->opcode);
    if (info->name == NULL || (service < 0 && p->opcode != 0x81)) {
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
    struct rs_rc_qp *qp = rs_rc_qp_find(ctx, rs_bth_destqp(bth));
    if (qp == NULL) {
        cnt->drop_qpn++;
        return NULL;
    }
    /* A packet of another service than the QP's (a CNP is of any). */
    if (p->opcode != 0x81 && service != qp->attr.type) {
        cnt->drop_transport++;
        return NULL;
    }
    if (!pkey_match(rs_bth_pkey(bth), qp->attr.pkey)) {
        cnt->drop_pkey++;
        return NULL;
    }
    /* RC and UC are connected: only the peer may talk to the QP. */
    uint8_t src[16];
    rc_packet_source(p, src);
    if (qp->attr.type != RS_RC_QPT_UD && memcmp(src, qp->attr.peer_gid, 16) != 0) {
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
    frame.linktype = len > 0 && packet[0] >> 4 == 6 ? RS_DLT_IPV6 : RS_DLT_IPV4;
    rs_decode_frame(&frame, &ctx->dopts, &p);
    struct rs_rc_qp *qp = header_check(ctx, &p);
    if (qp == NULL)
        return;
    qp->last_rx_ns = now_ns;
    parse(&p, &pkt);
    if (pkt.ecn == 3 && qp->attr.type == RS_RC_QPT_RC)
        congestion_notify(qp);
    if (pkt.op == RS_OP_CNP) {
        ctx->cnt.cnp_received++;
        return;
    }
    /* The first packet a connected QP accepts (IBTA 11.6.3.1, Communication
     * Established): a QP still in RTR learns that its peer is in RTS. */
    if (!qp->resp.comm_est && qp->attr.type != RS_RC_QPT_UD) {
        qp->resp.comm_est = true;
        rc_event(ctx, RS_RC_EV_COMM_EST, qp->attr.qpn, NULL);
    }
    if (qp->attr.type == RS_RC_QPT_UD) {
        rc_ud_input(qp, &pkt);
        return;
    }
    if (qp->attr.type == RS_RC_QPT_UC) {
        rc_uc_handle(qp, &pkt);
        return;
    }
    switch (pkt.op) {
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
