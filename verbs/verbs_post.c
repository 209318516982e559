/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_post.c - posting work: ibv_post_send(), ibv_post_recv() and the
 * ibv_wr_*() builders of struct ibv_qp_ex, which perftest uses by default.
 *
 * A work request carries up to the QP's max_send_sge (max_recv_sge) elements, up
 * to 32, handed to the RC stack as they are (ibverbs' struct ibv_sge is the stack's
 * struct rs_rc_sge), which copies them. Inline data is copied by the stack when it
 * takes the request, after every check, so that a post refused changes nothing, and
 * the application may reuse its buffer at once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "verbs_int.h"

int
vb_post_one(struct vb_qp *qp, struct rs_rc_send_wr *wr)
{
    char err[RS_ERRBUF_SIZE];

    if (qp->rc == NULL)
        return EINVAL;      /* in error before it ever had a peer */
    if (qp->sq_sig_all)
        wr->flags |= RS_RC_SEND_SIGNALED;
    int rc = rs_rc_post_send(qp->rc, wr, err);
    if (rc < 0)
        return rc == RS_ENOMEM ? ENOMEM : vb_fail(EINVAL, "ibv_post_send: %s", err);
    return 0;
}

static bool
opcode_served(enum ibv_wr_opcode op)
{
    switch (op) {
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM:
    case IBV_WR_SEND:
    case IBV_WR_SEND_WITH_IMM:
    case IBV_WR_RDMA_READ:
    case IBV_WR_ATOMIC_CMP_AND_SWP:
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
    case IBV_WR_SEND_WITH_INV:
        return true;
    default:
        return false;
    }
}

/* ibverbs' struct into the RC stack's (their opcode and flag values are the same). */
static int
convert(const struct vb_qp *qp, const struct ibv_send_wr *in, struct rs_rc_send_wr *w)
{
    if (!opcode_served(in->opcode))
        return vb_fail(EINVAL, "ibv_post_send: opcode %d is not served (memory windows, "
                       "local invalidation, TSO and atomic write are not)", in->opcode);
    if (in->num_sge < 0 || (uint32_t)in->num_sge > (qp->cap.max_send_sge > 0 ? qp->cap.max_send_sge : 1) ||
        (in->num_sge > 0 && in->sg_list == NULL))
        return vb_fail(EINVAL, "ibv_post_send: %d scatter/gather elements, the QP takes %u",
                       in->num_sge, qp->cap.max_send_sge);
    memset(w, 0, sizeof(*w));
    w->wr_id = in->wr_id;
    w->opcode = (uint8_t)in->opcode;
    w->flags = (uint8_t)(in->send_flags & (IBV_SEND_FENCE | IBV_SEND_SIGNALED |
                                           IBV_SEND_SOLICITED | IBV_SEND_INLINE));
    w->sg_list = (const struct rs_rc_sge *)(const void *)in->sg_list;
    w->num_sge = (uint32_t)in->num_sge;
    switch (in->opcode) {
    case IBV_WR_RDMA_WRITE_WITH_IMM:
        w->imm = ntohl(in->imm_data);
        /* fall through */
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_READ:
        w->remote_addr = in->wr.rdma.remote_addr;
        w->rkey = in->wr.rdma.rkey;
        break;
    case IBV_WR_SEND_WITH_IMM:
        w->imm = ntohl(in->imm_data);
        break;
    case IBV_WR_SEND_WITH_INV:
        w->invalidate_rkey = in->invalidate_rkey;
        break;
    case IBV_WR_ATOMIC_CMP_AND_SWP:
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
        w->remote_addr = in->wr.atomic.remote_addr;
        w->rkey = in->wr.atomic.rkey;
        w->compare_add = in->wr.atomic.compare_add;
        w->swap = in->wr.atomic.swap;
        break;
    default:
        break;
    }
    if (qp->qpx.qp_base.qp_type == IBV_QPT_UD) {
        if (in->wr.ud.ah == NULL)
            return vb_fail(EINVAL, "ibv_post_send: a UD work request without an address "
                           "handle");
        vb_ud_dest(in->wr.ud.ah, in->wr.ud.remote_qpn, in->wr.ud.remote_qkey, &w->ud);
    }
    return 0;
}

int
vb_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    struct vb_qp *qp = vb_qp(ibqp);
    struct vb_port *port = qp->ctx->port;
    int rc = 0;

    pthread_mutex_lock(&port->lock);
    if (ibqp->state != IBV_QPS_RTS && ibqp->state != IBV_QPS_ERR)
        rc = vb_fail(EINVAL, "ibv_post_send: the QP is in state %d, not RTS", ibqp->state);
    for (; rc == 0 && wr != NULL; wr = wr->next) {
        struct rs_rc_send_wr w;
        rc = convert(qp, wr, &w);
        if (rc == 0)
            rc = vb_post_one(qp, &w);
        if (rc != 0)
            break;
    }
    if (rc != 0 && bad != NULL)
        *bad = wr;
    vb_app_post(port);
    pthread_mutex_unlock(&port->lock);
    return rc;
}

int
vb_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
    struct vb_qp *qp = vb_qp(ibqp);
    struct vb_port *port = qp->ctx->port;
    uint32_t max = qp->cap.max_recv_sge > 0 ? qp->cap.max_recv_sge : 1;
    char err[RS_ERRBUF_SIZE];
    int rc = 0;

    pthread_mutex_lock(&port->lock);
    if (ibqp->state == IBV_QPS_RESET)
        rc = vb_fail(EINVAL, "ibv_post_recv: the QP is in RESET");
    else if (qp->srq != NULL)
        rc = vb_fail(EINVAL, "ibv_post_recv: the QP takes its receives from an SRQ");
    for (; rc == 0 && wr != NULL; wr = wr->next) {
        struct rs_rc_recv_wr w;
        rc = vb_recv_wr(wr, max, &w);
        if (rc != 0) {
            vb_fail(rc, "ibv_post_recv: %d scatter/gather elements, the QP takes %u",
                    wr->num_sge, max);
        } else if (qp->rc != NULL) {
            if (rs_rc_post_recv(qp->rc, &w, err) < 0)
                rc = ENOMEM;
        } else if (ibqp->state == IBV_QPS_ERR) {
            struct ibv_wc wc = {.wr_id = w.wr_id, .status = IBV_WC_WR_FLUSH_ERR,
                                .opcode = IBV_WC_RECV, .qp_num = ibqp->qp_num};
            vb_cq_push(VB_CONTAINER(ibqp->recv_cq, struct vb_cq, cq), &wc);
        } else if (qp->n_early < qp->attr.rq_depth) {
            /* Kept, elements and all, until RTR gives the QP to the stack. */
            struct rs_rc_sge *sg = qp->early_sge + (size_t)qp->n_early * max;
            if (w.num_sge > 0)
                memcpy(sg, w.sg_list, w.num_sge * sizeof(*sg));
            w.sg_list = sg;
            qp->early[qp->n_early++] = w;
        } else {
            rc = ENOMEM;
        }
        if (rc != 0)
            break;
    }
    if (rc != 0 && bad != NULL)
        *bad = wr;
    pthread_mutex_unlock(&port->lock);
    return rc;
}

void
vb_wc_from_rc(const struct rs_rc_wc *in, uint32_t src_qp, struct ibv_wc *out)
{
    memset(out, 0, sizeof(*out));
    out->wr_id = in->wr_id;
    out->status = (enum ibv_wc_status)in->status;
    out->opcode = (enum ibv_wc_opcode)in->opcode;
    out->byte_len = in->byte_len;
    out->qp_num = in->qpn;
    out->src_qp = (in->flags & RS_RC_WC_GRH) ? in->src_qp : src_qp;
    out->wc_flags = in->flags & (IBV_WC_GRH | IBV_WC_WITH_IMM | IBV_WC_WITH_INV);
    if (in->flags & RS_RC_WC_WITH_INV)
        out->invalidated_rkey = in->invalidated_rkey;
    else
        out->imm_data = htonl(in->imm);
}

/* --- struct ibv_qp_ex: the work request builders --- */

static struct vb_qp *
qpx_of(struct ibv_qp_ex *x)
{
    return VB_CONTAINER(x, struct vb_qp, qpx);
}

/* A new work request in the batch, from the wr_id and flags the application
 * set in the struct; NULL (and the batch fails) when it is full. */
static struct rs_rc_send_wr *
batch_add(struct ibv_qp_ex *x, uint8_t opcode)
{
    struct vb_qp *qp = qpx_of(x);

    if (qp->n_batch >= qp->attr.sq_depth) {
        qp->batch_err = ENOMEM;
        return NULL;
    }
    struct rs_rc_send_wr *w = &qp->batch[qp->n_batch++];
    memset(w, 0, sizeof(*w));
    w->wr_id = x->wr_id;
    w->opcode = opcode;
    w->flags = (uint8_t)(x->wr_flags & (IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED));
    return w;
}

static uint32_t
send_sge_max(const struct vb_qp *qp)
{
    return qp->cap.max_send_sge > 0 ? qp->cap.max_send_sge : 1;
}

static struct rs_rc_send_wr *
batch_last(struct ibv_qp_ex *x)
{
    struct vb_qp *qp = qpx_of(x);

    if (qp->n_batch == 0) {
        qp->batch_err = EINVAL;
        return NULL;
    }
    return &qp->batch[qp->n_batch - 1];
}

static void
wr_start(struct ibv_qp_ex *x)
{
    struct vb_qp *qp = qpx_of(x);

    qp->n_batch = 0;
    qp->batch_err = 0;
}

static void
wr_abort(struct ibv_qp_ex *x)
{
    qpx_of(x)->n_batch = 0;
}

static int
wr_complete(struct ibv_qp_ex *x)
{
    struct vb_qp *qp = qpx_of(x);
    struct vb_port *port = qp->ctx->port;
    int rc = qp->batch_err;

    pthread_mutex_lock(&port->lock);
    if (rc == 0 && x->qp_base.state != IBV_QPS_RTS && x->qp_base.state != IBV_QPS_ERR)
        rc = vb_fail(EINVAL, "ibv_wr_complete: the QP is in state %d, not RTS",
                     x->qp_base.state);
    for (uint32_t i = 0; rc == 0 && i < qp->n_batch; i++)
        rc = vb_post_one(qp, &qp->batch[i]);
    vb_app_post(port);
    pthread_mutex_unlock(&port->lock);
    qp->n_batch = 0;
    qp->batch_err = 0;
    return rc;
}

static void
wr_send(struct ibv_qp_ex *x)
{
    batch_add(x, RS_RC_WR_SEND);
}

static void
wr_send_imm(struct ibv_qp_ex *x, __be32 imm)
{
    struct rs_rc_send_wr *w = batch_add(x, RS_RC_WR_SEND_WITH_IMM);

    if (w != NULL)
        w->imm = ntohl(imm);
}

static void
wr_send_inv(struct ibv_qp_ex *x, uint32_t rkey)
{
    struct rs_rc_send_wr *w = batch_add(x, RS_RC_WR_SEND_WITH_INV);

    if (w != NULL)
        w->invalidate_rkey = rkey;
}

static void
remote(struct rs_rc_send_wr *w, uint32_t rkey, uint64_t addr)
{
    if (w != NULL) {
        w->rkey = rkey;
        w->remote_addr = addr;
    }
}

static void
wr_rdma_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
    remote(batch_add(x, RS_RC_WR_RDMA_WRITE), rkey, addr);
}

static void
wr_rdma_write_imm(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr, __be32 imm)
{
    struct rs_rc_send_wr *w = batch_add(x, RS_RC_WR_RDMA_WRITE_WITH_IMM);

    remote(w, rkey, addr);
    if (w != NULL)
        w->imm = ntohl(imm);
}

static void
wr_rdma_read(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
    remote(batch_add(x, RS_RC_WR_RDMA_READ), rkey, addr);
}

static void
wr_atomic_cmp_swp(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr, uint64_t compare,
                  uint64_t swap)
{
    struct rs_rc_send_wr *w = batch_add(x, RS_RC_WR_ATOMIC_CMP_AND_SWP);

    remote(w, rkey, addr);
    if (w != NULL) {
        w->compare_add = compare;
        w->swap = swap;
    }
}

static void
wr_atomic_fetch_add(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr, uint64_t add)
{
    struct rs_rc_send_wr *w = batch_add(x, RS_RC_WR_ATOMIC_FETCH_AND_ADD);

    remote(w, rkey, addr);
    if (w != NULL)
        w->compare_add = add;
}

static void
wr_set_sge_list(struct ibv_qp_ex *x, size_t n, const struct ibv_sge *sge)
{
    struct vb_qp *qp = qpx_of(x);
    struct rs_rc_send_wr *w = batch_last(x);

    if (w == NULL)
        return;
    if (n > send_sge_max(qp)) {
        qp->batch_err = vb_fail(EINVAL, "ibv_wr_set_sge_list: %zu elements, the QP takes %u",
                                n, send_sge_max(qp));
        return;
    }
    /* Copied: the application's list need not outlive the call. */
    struct rs_rc_sge *sg = qp->batch_sge + (size_t)(qp->n_batch - 1) * send_sge_max(qp);
    if (n > 0)
        memcpy(sg, sge, n * sizeof(*sg));
    w->sg_list = sg;
    w->num_sge = (uint32_t)n;
    w->flags &= (uint8_t)~RS_RC_SEND_INLINE;
}

static void
wr_set_sge(struct ibv_qp_ex *x, uint32_t lkey, uint64_t addr, uint32_t length)
{
    struct ibv_sge s = {addr, length, lkey};

    wr_set_sge_list(x, 1, &s);
}

static void
wr_set_inline_data_list(struct ibv_qp_ex *x, size_t n, const struct ibv_data_buf *buf)
{
    struct vb_qp *qp = qpx_of(x);
    struct rs_rc_send_wr *w = batch_last(x);
    size_t len = 0;

    if (w == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        len += buf[i].length;
    if (len > qp->cap.max_inline_data) {
        qp->batch_err = vb_fail(EINVAL, "ibv_wr_set_inline_data: %zu bytes, the QP takes %u",
                                len, qp->cap.max_inline_data);
        return;
    }
    /* The data is copied now (the verbs say the buffers may be reused at once), into
     * the batch's own room for this request; the stack copies it again when it takes
     * the request, as for any inline post. */
    uint8_t *room = qp->batch_inline + (size_t)(qp->n_batch - 1) * qp->cap.max_inline_data;
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        if (buf[i].length > 0)
            memcpy(room + off, buf[i].addr, buf[i].length);
        off += buf[i].length;
    }
    w->sge = (struct rs_rc_sge){(uintptr_t)room, (uint32_t)len, 0};
    w->sg_list = NULL;
    w->num_sge = 0;
    w->flags |= RS_RC_SEND_INLINE;
}

static void
wr_set_inline_data(struct ibv_qp_ex *x, void *addr, size_t length)
{
    struct ibv_data_buf b = {addr, length};

    wr_set_inline_data_list(x, 1, &b);
}

static void
wr_set_ud_addr(struct ibv_qp_ex *x, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey)
{
    struct vb_qp *qp = qpx_of(x);
    struct rs_rc_send_wr *w = batch_last(x);

    if (w == NULL)
        return;
    if (x->qp_base.qp_type != IBV_QPT_UD || ah == NULL) {
        qp->batch_err = vb_fail(EINVAL, "ibv_wr_set_ud_addr: not a UD QP, or no address "
                                "handle");
        return;
    }
    vb_ud_dest(ah, qpn, qkey, &w->ud);
}

/* What a QP of ours cannot do: memory windows, local invalidation, TSO, XRC
 * addressing, atomic write. The batch fails with EOPNOTSUPP. */
static void
unsupported(struct ibv_qp_ex *x)
{
    qpx_of(x)->batch_err = vb_fail(EOPNOTSUPP, "ibv_wr_*: memory windows, local "
                                   "invalidation, TSO, XRC and atomic write are not served");
}

static void
wr_bind_mw(struct ibv_qp_ex *x, struct ibv_mw *mw, uint32_t rkey,
           const struct ibv_mw_bind_info *info)
{
    (void)mw;
    (void)rkey;
    (void)info;
    unsupported(x);
}

static void
wr_local_inv(struct ibv_qp_ex *x, uint32_t rkey)
{
    (void)rkey;
    unsupported(x);
}

static void
wr_send_tso(struct ibv_qp_ex *x, void *hdr, uint16_t hdr_sz, uint16_t mss)
{
    (void)hdr;
    (void)hdr_sz;
    (void)mss;
    unsupported(x);
}

static void
wr_set_xrc_srqn(struct ibv_qp_ex *x, uint32_t srqn)
{
    (void)srqn;
    unsupported(x);
}

static void
wr_atomic_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr, const void *data)
{
    (void)rkey;
    (void)addr;
    (void)data;
    unsupported(x);
}

void
vb_qpx_init(struct vb_qp *qp)
{
    struct ibv_qp_ex *x = &qp->qpx;

    x->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
    x->wr_atomic_fetch_add = wr_atomic_fetch_add;
    x->wr_bind_mw = wr_bind_mw;
    x->wr_local_inv = wr_local_inv;
    x->wr_rdma_read = wr_rdma_read;
    x->wr_rdma_write = wr_rdma_write;
    x->wr_rdma_write_imm = wr_rdma_write_imm;
    x->wr_send = wr_send;
    x->wr_send_imm = wr_send_imm;
    x->wr_send_inv = wr_send_inv;
    x->wr_send_tso = wr_send_tso;
    x->wr_set_ud_addr = wr_set_ud_addr;
    x->wr_set_xrc_srqn = wr_set_xrc_srqn;
    x->wr_set_inline_data = wr_set_inline_data;
    x->wr_set_inline_data_list = wr_set_inline_data_list;
    x->wr_set_sge = wr_set_sge;
    x->wr_set_sge_list = wr_set_sge_list;
    x->wr_start = wr_start;
    x->wr_complete = wr_complete;
    x->wr_abort = wr_abort;
    x->wr_atomic_write = wr_atomic_write;
}
