/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_qp.c - QPs of the RC, UC and UD services and their state machine (RESET,
 * INIT, RTR, RTS, ERR), driven by ibv_modify_qp()'s attributes.
 *
 * The RC stack's QP is connected from birth, while a verbs QP learns its peer
 * in steps: INIT gives the access flags (UD: the Q_Key), RTR the peer (its GID in
 * the address vector, its QPN, its first PSN) and the path MTU, RTS our first PSN
 * and the requester's timers. So the stack's QP is created at RTR, under the QP
 * number ibv_create_qp() already handed out (the peer has it by then), the receives
 * posted in INIT are handed to it then, and RTS gives it its requester's parameters
 * (rs_rc_qp_set_requester). A UD QP has no peer: RTR makes it receive, and each send
 * names its destination through an address handle. SQD and SQE are not served: a QP
 * in error stays there until it is reset or destroyed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/addr.h>

#include "verbs_int.h"

/* What each transition must and may carry, per service (IBTA Vol 1 11.2.5, Table 96;
 * the kernel's qp_state_table). */
struct transition {
    int req, opt;
};

#define OPT_ANY IBV_QP_CUR_STATE

/* The five transitions between RESET and RTS of one service. */
struct service_table {
    struct transition to_init, init_init, init_rtr, rtr_rts, rts_rts;
};

static const struct service_table rc_table = {
    .to_init = {IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0},
    .init_init = {0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS},
    .init_rtr = {IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
                 IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX},
    .rtr_rts = {IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                    IBV_QP_MAX_QP_RD_ATOMIC,
                IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER |
                    IBV_QP_PATH_MIG_STATE},
    .rts_rts = {0, IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE |
                       IBV_QP_MIN_RNR_TIMER},
};

/* UC: RC's path without the requester's timers and READ/atomic resources. */
static const struct service_table uc_table = {
    .to_init = {IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0},
    .init_init = {0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS},
    .init_rtr = {IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
                 IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX},
    .rtr_rts = {IBV_QP_SQ_PSN, IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PATH_MIG_STATE},
    .rts_rts = {0, IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE},
};

/* UD: the Q_Key at INIT, nothing of a peer. */
static const struct service_table ud_table = {
    .to_init = {IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY, 0},
    .init_init = {0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY},
    .init_rtr = {0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY},
    .rtr_rts = {IBV_QP_SQ_PSN, IBV_QP_QKEY},
    .rts_rts = {0, IBV_QP_QKEY},
};

static const struct transition *
transition(const struct service_table *t, enum ibv_qp_state cur, enum ibv_qp_state next)
{
    switch (cur) {
    case IBV_QPS_RESET:
        return next == IBV_QPS_INIT ? &t->to_init : NULL;
    case IBV_QPS_INIT:
        return next == IBV_QPS_INIT ? &t->init_init : next == IBV_QPS_RTR ? &t->init_rtr : NULL;
    case IBV_QPS_RTR:
        return next == IBV_QPS_RTS ? &t->rtr_rts : NULL;
    case IBV_QPS_RTS:
        return next == IBV_QPS_RTS ? &t->rts_rts : NULL;
    default:
        return NULL;
    }
}

int
vb_qp_transition_check(enum ibv_qp_type type, enum ibv_qp_state cur, enum ibv_qp_state next,
                       int mask)
{
    static const struct transition none = {0, 0};
    const struct transition *t = next == IBV_QPS_RESET || next == IBV_QPS_ERR
                                     ? &none    /* from any state, with no attribute */
                                     : transition(type == IBV_QPT_UD   ? &ud_table
                                                  : type == IBV_QPT_UC ? &uc_table
                                                                       : &rc_table,
                                                  cur, next);
    int given = mask & ~IBV_QP_STATE;

    if (t == NULL || (given & t->req) != t->req || (given & ~(t->req | t->opt | OPT_ANY)))
        return EINVAL;
    return 0;
}

static int
cap_check(const struct ibv_qp_init_attr *ia)
{
    const struct ibv_qp_cap *cap = &ia->cap;

    if (cap->max_send_wr > VB_MAX_QP_WR || (ia->srq == NULL && cap->max_recv_wr > VB_MAX_QP_WR))
        return vb_fail(EINVAL, "ibv_create_qp: %u send and %u receive work requests, at most "
                       "%u each", cap->max_send_wr, cap->max_recv_wr, VB_MAX_QP_WR);
    if (cap->max_send_sge > VB_MAX_SGE || cap->max_recv_sge > VB_MAX_SGE)
        return vb_fail(EINVAL, "ibv_create_qp: %u send and %u receive scatter/gather "
                       "elements, at most %u", cap->max_send_sge, cap->max_recv_sge,
                       VB_MAX_SGE);
    if (cap->max_inline_data > VB_MAX_INLINE)
        return vb_fail(EINVAL, "ibv_create_qp: %u bytes of inline data, at most %u",
                       cap->max_inline_data, VB_MAX_INLINE);
    return 0;
}

static void
qp_free(struct vb_qp *qp)
{
    free(qp->early);
    free(qp->early_sge);
    free(qp->batch);
    free(qp->batch_sge);
    free(qp->batch_inline);
    free(qp);
}

/* QP numbers are the port's: the contexts of a device share its RC context. */
static uint32_t
next_qpn(struct vb_port *p)
{
    for (;;) {
        uint32_t n = p->next_qpn;
        p->next_qpn = p->next_qpn >= 0xffffff ? 0x11 : p->next_qpn + 1;
        bool used = false;
        for (struct vb_qp *q = p->qps; q != NULL && !used; q = q->next)
            used = q->qpx.qp_base.qp_num == n;
        if (!used)
            return n;
    }
}

static enum rs_rc_qp_type
service(enum ibv_qp_type t)
{
    return t == IBV_QPT_UD ? RS_RC_QPT_UD : t == IBV_QPT_UC ? RS_RC_QPT_UC : RS_RC_QPT_RC;
}

static int
type_check(struct vb_context *c, const struct ibv_qp_init_attr *ia)
{
    switch (ia->qp_type) {
    case IBV_QPT_RC:
    case IBV_QPT_UC:
    case IBV_QPT_UD:
        break;
    case IBV_QPT_XRC_SEND:
    case IBV_QPT_XRC_RECV:
        return vb_fail(EOPNOTSUPP, "ibv_create_qp(%s): XRC QPs are not served",
                       c->dev->ibdev.name);
    default:
        return vb_fail(EOPNOTSUPP, "ibv_create_qp(%s): QP type %d is not served (RC, UC "
                       "and UD are)", c->dev->ibdev.name, ia->qp_type);
    }
    if (ia->send_cq == NULL || ia->recv_cq == NULL)
        return vb_fail(EINVAL, "ibv_create_qp(%s): a send and a receive CQ are needed",
                       c->dev->ibdev.name);
    return cap_check(ia);
}

/* The storage of the receives posted in INIT and of a batch of ibv_wr_*(). */
static int
qp_alloc(struct vb_qp *qp)
{
    uint32_t rq = qp->srq != NULL ? 1 : qp->attr.rq_depth, sq = qp->attr.sq_depth;
    uint32_t rsge = qp->cap.max_recv_sge > 0 ? qp->cap.max_recv_sge : 1;
    uint32_t ssge = qp->cap.max_send_sge > 0 ? qp->cap.max_send_sge : 1;

    qp->early = calloc(rq, sizeof(*qp->early));
    qp->early_sge = calloc((size_t)rq * rsge, sizeof(*qp->early_sge));
    qp->batch = calloc(sq, sizeof(*qp->batch));
    qp->batch_sge = calloc((size_t)sq * ssge, sizeof(*qp->batch_sge));
    if (qp->cap.max_inline_data > 0)
        qp->batch_inline = malloc((size_t)sq * qp->cap.max_inline_data);
    if (qp->early == NULL || qp->early_sge == NULL || qp->batch == NULL ||
        qp->batch_sge == NULL || (qp->cap.max_inline_data > 0 && qp->batch_inline == NULL))
        return ENOMEM;
    return 0;
}

static struct ibv_qp *
create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *ia, bool ex)
{
    struct vb_context *c = vb_ctx(pd->context);

    if (type_check(c, ia) != 0)
        return NULL;
    struct vb_qp *qp = calloc(1, sizeof(*qp));
    if (qp == NULL) {
        vb_fail(ENOMEM, "ibv_create_qp: out of memory");
        return NULL;
    }
    qp->ctx = c;
    qp->cap = ia->cap;
    qp->srq = ia->srq != NULL ? vb_srq(ia->srq) : NULL;
    if (qp->srq != NULL)
        qp->cap.max_recv_wr = qp->cap.max_recv_sge = 0;
    qp->sq_sig_all = ia->sq_sig_all != 0;
    qp->ex = ex;
    rs_rc_qp_attr_init(&qp->attr);
    qp->attr.type = (uint8_t)service(ia->qp_type);
    qp->attr.access = 0;        /* none until INIT says */
    qp->attr.sq_depth = ia->cap.max_send_wr > 0 ? ia->cap.max_send_wr : 1;
    qp->attr.rq_depth = qp->cap.max_recv_wr > 0 ? qp->cap.max_recv_wr : 1;
    qp->attr.max_sge = qp->cap.max_send_sge > qp->cap.max_recv_sge ? qp->cap.max_send_sge
                                                                   : qp->cap.max_recv_sge;
    qp->attr.max_inline = qp->cap.max_inline_data;
    qp->attr.max_inflight = 2048;
    qp->attr.srq = qp->srq != NULL ? qp->srq->rc : NULL;
    qp->port = 1;
    if (qp_alloc(qp) != 0) {
        qp_free(qp);
        vb_fail(ENOMEM, "ibv_create_qp: out of memory");
        return NULL;
    }
    struct vb_port *port = c->port;
    pthread_mutex_lock(&port->lock);
    struct ibv_qp *q = &qp->qpx.qp_base;
    q->context = pd->context;
    q->qp_context = ia->qp_context;
    q->pd = pd;
    q->send_cq = ia->send_cq;
    q->recv_cq = ia->recv_cq;
    q->srq = ia->srq;
    q->qp_num = next_qpn(port);
    q->handle = q->qp_num;
    q->state = IBV_QPS_RESET;
    q->qp_type = ia->qp_type;
    pthread_mutex_init(&q->mutex, NULL);
    pthread_cond_init(&q->cond, NULL);
    vb_qpx_init(qp);
    qp->next = port->qps;
    port->qps = qp;
    vb_pd(pd)->users++;
    if (qp->srq != NULL)
        qp->srq->users++;
    pthread_mutex_unlock(&port->lock);
    ia->cap = qp->cap;
    return q;
}

struct ibv_qp *
ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *ia)
{
    return create_qp(pd, ia, false);
}

/* The context's create_qp_ex: ibv_create_qp_ex() comes here unless only a PD is given. */
static struct ibv_qp *
create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *ax)
{
    const uint64_t served = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
                            IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
                            IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
                            IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
                            IBV_QP_EX_WITH_SEND_WITH_INV;
    uint32_t known = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS |
                     IBV_QP_INIT_ATTR_CREATE_FLAGS;

    if (!(ax->comp_mask & IBV_QP_INIT_ATTR_PD) || ax->pd == NULL ||
        ax->pd->context != context) {
        vb_fail(EINVAL, "ibv_create_qp_ex: no PD of this device");
        return NULL;
    }
    if ((ax->comp_mask & ~known) || ((ax->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
                                     ax->create_flags != 0) ||
        ((ax->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) && (ax->send_ops_flags & ~served))) {
        vb_fail(EOPNOTSUPP, "ibv_create_qp_ex: attributes (0x%x), create flags or send "
                "operations that are not served", ax->comp_mask);
        return NULL;
    }
    struct ibv_qp_init_attr ia = {
        .qp_context = ax->qp_context, .send_cq = ax->send_cq, .recv_cq = ax->recv_cq,
        .srq = ax->srq, .cap = ax->cap, .qp_type = ax->qp_type, .sq_sig_all = ax->sq_sig_all};
    struct ibv_qp *qp = create_qp(ax->pd, &ia, (ax->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) != 0);
    if (qp != NULL)
        ax->cap = ia.cap;
    return qp;
}

void
vb_qp_ops_init(struct verbs_context *vctx)
{
    vctx->create_qp_ex = create_qp_ex;
}

struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
    struct vb_qp *q = vb_qp(qp);

    return q->ex ? &q->qpx : NULL;
}

/* The attributes that are numbers the RC QP takes as they are: where each is in
 * ibverbs' struct and in ours (the same size in both: one byte, or four for QP
 * numbers and PSNs, which are 24 bits), and its largest value. */
struct number_attr {
    int mask;
    size_t from, to, size;
    uint32_t max;
};

#define NUMBER(m, f, t, max)                                                           \
    {m, offsetof(struct ibv_qp_attr, f), offsetof(struct rs_rc_qp_attr, t),              \
     sizeof(((struct ibv_qp_attr *)0)->f), max}

static const struct number_attr numbers[] = {
    NUMBER(IBV_QP_DEST_QPN, dest_qp_num, dest_qpn, 0xffffff),
    NUMBER(IBV_QP_RQ_PSN, rq_psn, rq_psn, UINT32_MAX),      /* taken modulo 2^24 */
    NUMBER(IBV_QP_SQ_PSN, sq_psn, sq_psn, UINT32_MAX),
    NUMBER(IBV_QP_MAX_DEST_RD_ATOMIC, max_dest_rd_atomic, max_dest_rd_atomic,
           VB_MAX_RD_ATOMIC),
    NUMBER(IBV_QP_MAX_QP_RD_ATOMIC, max_rd_atomic, max_rd_atomic, VB_MAX_RD_ATOMIC),
    NUMBER(IBV_QP_MIN_RNR_TIMER, min_rnr_timer, min_rnr_timer, 31),
    NUMBER(IBV_QP_TIMEOUT, timeout, timeout, 31),
    NUMBER(IBV_QP_RETRY_CNT, retry_cnt, retry_cnt, 7),
    NUMBER(IBV_QP_RNR_RETRY, rnr_retry, rnr_retry, 7),
};

_Static_assert(sizeof(((struct rs_rc_qp_attr *)0)->dest_qpn) == 4 &&
                   sizeof(((struct rs_rc_qp_attr *)0)->timeout) == 1,
               "the number attributes have ibverbs' sizes");

static uint32_t
number_get(const void *base, const struct number_attr *n, size_t off)
{
    uint8_t b;
    uint32_t w;

    if (n->size == 1) {
        memcpy(&b, (const uint8_t *)base + off, 1);
        return b;
    }
    memcpy(&w, (const uint8_t *)base + off, 4);
    return w;
}

/* The address vector of an RC or UC QP: our address is GID index sgid_index, the
 * peer's must be of its IP version. 0 or an errno, with its one line. */
static int
gather_av(struct vb_qp *qp, const struct ibv_ah_attr *ah)
{
    struct rs_rc_qp_attr *r = &qp->attr;
    const char *dev = qp->ctx->dev->ibdev.name;
    char text[RS_ADDR_TEXT_MAX];

    /* RoCE routes by the GRH: an address vector without one names no peer. */
    if (!ah->is_global || ah->port_num > 1)
        return vb_fail(EINVAL, "ibv_modify_qp(%s): RoCE needs a global address vector "
                       "(is_global, a GRH; ibv_rc_pingpong -g, perftest -x)", dev);
    int rc = vb_gid_source(qp->ctx->port, ah->grh.sgid_index, r->local_gid);
    if (rc != 0)
        return rc;
    if (rs_addr_family(ah->grh.dgid.raw) != rs_addr_family(r->local_gid))
        return vb_fail(EINVAL, "ibv_modify_qp(%s): the peer %s is not of the IP version of "
                       "GID index %u", dev, rs_addr_format(ah->grh.dgid.raw, 0, text,
                                                           sizeof(text)),
                       ah->grh.sgid_index);
    memcpy(r->peer_gid, ah->grh.dgid.raw, 16);
    r->flow_label = ah->grh.flow_label;
    r->tclass = ah->grh.traffic_class;
    r->hop_limit = ah->grh.hop_limit;
    qp->ah = *ah;
    return 0;
}

/* Reads the attributes of mask into qp->attr; EINVAL, with nothing changed that
 * matters, for a value we cannot serve. */
static int
gather(struct vb_qp *qp, const struct ibv_qp_attr *a, int mask)
{
    struct rs_rc_qp_attr *r = &qp->attr;
    const char *dev = qp->ctx->dev->ibdev.name;

    if ((mask & IBV_QP_PORT) && a->port_num != 1)
        return vb_fail(EINVAL, "ibv_modify_qp(%s): port %u: the device has port 1 only", dev,
                       a->port_num);
    if ((mask & IBV_QP_PKEY_INDEX) && a->pkey_index != 0)
        return vb_fail(EINVAL, "ibv_modify_qp(%s): P_Key index %u: the table has one entry",
                       dev, a->pkey_index);
    if ((mask & IBV_QP_PATH_MTU) && (a->path_mtu < IBV_MTU_256 || a->path_mtu > VB_PORT_MTU))
        return vb_fail(EINVAL, "ibv_modify_qp(%s): path MTU %d", dev, a->path_mtu);
    for (size_t i = 0; i < RS_ARRAY_SIZE(numbers); i++)
        if ((mask & numbers[i].mask) && number_get(a, &numbers[i], numbers[i].from) >
                                            numbers[i].max)
            return vb_fail(EINVAL, "ibv_modify_qp(%s): an attribute out of range (mask "
                           "0x%x)", dev, numbers[i].mask);
    if (mask & IBV_QP_AV) {
        int rc = gather_av(qp, &a->ah_attr);
        if (rc != 0)
            return rc;
    }
    if (mask & IBV_QP_ACCESS_FLAGS)
        r->access = a->qp_access_flags & RS_RC_ACCESS_REMOTE_ALL;
    if (mask & IBV_QP_PATH_MTU)
        r->pmtu = 128u << a->path_mtu;
    if (mask & IBV_QP_QKEY)
        r->qkey = a->qkey;
    for (size_t i = 0; i < RS_ARRAY_SIZE(numbers); i++) {
        const struct number_attr *n = &numbers[i];
        if (!(mask & n->mask))
            continue;
        uint32_t v = number_get(a, n, n->from);
        if (n->size == 1) {
            uint8_t b = (uint8_t)v;
            memcpy((uint8_t *)r + n->to, &b, 1);
        } else {
            v &= 0xffffff;
            memcpy((uint8_t *)r + n->to, &v, 4);
        }
    }
    return 0;
}

/* Completes every receive posted in INIT with WR_FLUSH_ERR (INIT to ERR). */
static void
flush_early(struct vb_qp *qp)
{
    struct vb_cq *rcq = VB_CONTAINER(qp->qpx.qp_base.recv_cq, struct vb_cq, cq);

    for (uint32_t i = 0; i < qp->n_early; i++) {
        struct ibv_wc wc = {.wr_id = qp->early[i].wr_id, .status = IBV_WC_WR_FLUSH_ERR,
                            .opcode = IBV_WC_RECV, .qp_num = qp->qpx.qp_base.qp_num};
        vb_cq_push(rcq, &wc);
    }
    qp->n_early = 0;
}

static int
to_rtr(struct vb_qp *qp)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_rc_qp_attr a = qp->attr;

    struct vb_port *port = qp->ctx->port;
    a.qpn = qp->qpx.qp_base.qp_num;
    /* The path MTU the application set (from what its peer said) is accepted up to
     * max_mtu, as rxe accepts it, but packets go at most at the active MTU of the
     * address's interface: larger ones would not fit. The peer, on the same link, does
     * the same, so the two segment alike. A UD message is one packet of that MTU. */
    uint32_t active = vb_link_mtu(port, a.type == RS_RC_QPT_UD ? NULL : a.local_gid);
    a.pmtu = a.type == RS_RC_QPT_UD ? active : rs_rc_path_mtu(active, a.pmtu, 0);
    if (rs_rc_qp_create(port->rc, &a, &qp->rc, err) < 0)
        return vb_fail(EINVAL, "ibv_modify_qp(%s) to RTR: %s", qp->ctx->dev->ibdev.name, err);
    qp->attr.pmtu = a.pmtu;
    for (uint32_t i = 0; i < qp->n_early; i++)
        rs_rc_post_recv(qp->rc, &qp->early[i], err);
    qp->n_early = 0;
    return 0;
}

static const char *
state_name(enum ibv_qp_state s)
{
    static const char *const names[] = {"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"};

    return (unsigned)s < RS_ARRAY_SIZE(names) ? names[s] : "?";
}

int
ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
    struct vb_qp *qp = vb_qp(ibqp);
    struct vb_context *c = qp->ctx;
    struct vb_port *port = c->port;
    char err[RS_ERRBUF_SIZE];
    int rc = 0;

    pthread_mutex_lock(&port->lock);
    enum ibv_qp_state cur = ibqp->state;
    enum ibv_qp_state next = (mask & IBV_QP_STATE) ? attr->qp_state : cur;
    if ((mask & IBV_QP_CUR_STATE) && attr->cur_qp_state != cur)
        rc = vb_fail(EINVAL, "ibv_modify_qp: the QP is in %s, not %s", state_name(cur),
                     state_name(attr->cur_qp_state));
    if (rc == 0 && vb_qp_transition_check(ibqp->qp_type, cur, next, mask) != 0)
        rc = vb_fail(EINVAL, "ibv_modify_qp(%s): %s to %s with attributes 0x%x: not what "
                     "the QP's service takes there", c->dev->ibdev.name, state_name(cur),
                     state_name(next), mask);
    if (rc == 0)
        rc = gather(qp, attr, mask);
    if (rc != 0)
        goto out;
    switch (next) {
    case IBV_QPS_RESET:
        if (qp->rc != NULL)
            rs_rc_qp_destroy(qp->rc);
        qp->rc = NULL;
        qp->n_early = 0;
        qp->has_held = false;
        break;
    case IBV_QPS_ERR:
        if (qp->rc != NULL)
            rs_rc_qp_flush(qp->rc);
        else
            flush_early(qp);
        vb_progress(port);
        break;
    case IBV_QPS_RTR:
        if (cur == IBV_QPS_INIT)
            rc = to_rtr(qp);
        break;
    case IBV_QPS_RTS:
        if (cur == IBV_QPS_RTR && rs_rc_qp_set_requester(qp->rc, &qp->attr, err) < 0)
            rc = vb_fail(EINVAL, "ibv_modify_qp(%s) to RTS: %s", c->dev->ibdev.name, err);
        break;
    default:
        break;
    }
    if (rc == 0)
        ibqp->state = next;
out:
    pthread_mutex_unlock(&port->lock);
    return rc;
}

static enum ibv_mtu
mtu_enum(uint32_t pmtu)
{
    return pmtu == 256 ? IBV_MTU_256 : pmtu == 512 ? IBV_MTU_512 : pmtu == 1024 ? IBV_MTU_1024
                                     : pmtu == 2048 ? IBV_MTU_2048 : IBV_MTU_4096;
}

int
ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask,
             struct ibv_qp_init_attr *init)
{
    struct vb_qp *qp = vb_qp(ibqp);
    const struct rs_rc_qp_attr *r = &qp->attr;

    (void)mask;     /* everything is filled in, which the man page allows */
    memset(attr, 0, sizeof(*attr));
    pthread_mutex_lock(&qp->ctx->port->lock);
    /* A QP the transport put in error (retries spent, a NAK) is in error. */
    if (qp->rc != NULL && rs_rc_qp_state(qp->rc) == RS_RC_QP_ERROR)
        ibqp->state = IBV_QPS_ERR;
    attr->qp_state = attr->cur_qp_state = ibqp->state;
    attr->path_mtu = mtu_enum(r->pmtu);
    attr->qp_access_flags = (int)r->access;
    attr->qkey = r->qkey;
    attr->pkey_index = 0;
    attr->port_num = qp->port;
    attr->ah_attr = qp->ah;
    for (size_t i = 0; i < RS_ARRAY_SIZE(numbers); i++)
        memcpy((uint8_t *)attr + numbers[i].from, (const uint8_t *)r + numbers[i].to,
               numbers[i].size);
    attr->cap = qp->cap;
    pthread_mutex_unlock(&qp->ctx->port->lock);
    if (init != NULL) {
        memset(init, 0, sizeof(*init));
        init->qp_context = ibqp->qp_context;
        init->send_cq = ibqp->send_cq;
        init->recv_cq = ibqp->recv_cq;
        init->srq = ibqp->srq;
        init->cap = qp->cap;
        init->qp_type = ibqp->qp_type;
        init->sq_sig_all = qp->sq_sig_all;
    }
    return 0;
}

int
ibv_destroy_qp(struct ibv_qp *ibqp)
{
    struct vb_qp *qp = vb_qp(ibqp);
    struct vb_port *port = qp->ctx->port;

    pthread_mutex_lock(&port->lock);
    for (struct vb_qp **pp = &port->qps; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == qp) {
            *pp = qp->next;
            break;
        }
    }
    if (qp->rc != NULL) {
        rs_rc_qp_ack_now(qp->rc);
        vb_links_flush(port);
        rs_rc_qp_destroy(qp->rc);
    }
    vb_pd(ibqp->pd)->users--;
    if (qp->srq != NULL)
        qp->srq->users--;
    pthread_mutex_unlock(&port->lock);
    pthread_mutex_destroy(&ibqp->mutex);
    pthread_cond_destroy(&ibqp->cond);
    qp_free(qp);
    return 0;
}
