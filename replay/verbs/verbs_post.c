/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_post.c - posting work: ibv_post_send(), ibv_post_recv() and the
 * ibv_wr_*() builders of struct ibv_qp_ex, which perftest uses by default.
 *
 * A work request carries at most one scatter/gather element, as the RC stack
 * does (the device says max_sge 1). Inline data is copied at post time into
 * the QP's slot for that send queue entry, in a region of the QP's own, so
 * the application may reuse its buffer at once and retransmissions still
 * find the bytes: the RC queue holds at most as many sends as there are
 * slots, and the slot of send n is n modulo the queue's depth, as its entry is.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "verbs_int.h"

int
vb_post_one(struct vb_qp *qp, struct rs_rc_send_wr *wr, const void *inline_data)
{
    char err[RS_ERRBUF_SIZE];

    if (qp->rc == NULL)
        return EINVAL;      /* in error before it ever had a peer */
    if (qp->sq_sig_all)
        wr->flags |= RS_RC_SEND_SIGNALED;
    if (inline_data != NULL && wr->sge.length > 0) {
        uint64_t off = (qp->sends % qp->attr.sq_depth) * qp->cap.max_inline_data;
        memcpy(qp->inline_buf + off, inline_data, wr->sge.length);
        wr->sge.addr = qp->inline_mr.va + off;
        wr->sge.lkey = qp->inline_mr.lkey;
    }
    int rc = rs_rc_post_send(qp->rc, wr, err);
    if (rc < 0)
        return rc == RS_ENOMEM ? ENOMEM : EINVAL;
    qp->sends++;
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
convert(const struct vb_qp *qp, const struct ibv_send_wr *in, struct rs_rc_send_wr *w,
        const void **inline_data)
{
    if (!opcode_served(in->opcode) || in->num_sge > 1 || (in->num_sge > 0 && in->sg_list == NULL))
        return EINVAL;
    memset(w, 0, sizeof(*w));
    w->wr_id = in->wr_id;
    w->opcode = (uint8_t)in->opcode;
    w->flags = (uint8_t)(in->send_flags & (IBV_SEND_FENCE | IBV_SEND_SIGNALED |
                                           IBV_SEND_SOLICITED));
    if (in->num_sge == 1)
        w->sge = (struct rs_rc_sge){in->sg_list[0].addr, in->sg_list[0].length,
                                    in->sg_list[0].lkey};
    *inline_data = NULL;
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
    if ((in->send_flags & IBV_SEND_INLINE) && w->sge.length > 0 &&
        in->opcode != IBV_WR_RDMA_READ && in->opcode != IBV_WR_ATOMIC_CMP_AND_SWP &&
        in->opcode != IBV_WR_ATOMIC_FETCH_AND_ADD) {
        if (w->sge.length > qp->cap.max_inline_data)
            return EINVAL;
        *inline_data = (const void *)(uintptr_t)w->sge.addr;
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
        rc = EINVAL;
    for (; rc == 0 && wr != NULL; wr = wr->next) {
        struct rs_rc_send_wr w;
        const void *data;
        rc = convert(qp, wr, &w, &data);
        if (rc == 0)
            rc = vb_post_one(qp, &w, data);
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
    char err[RS_ERRBUF_SIZE];
    int rc = 0;

    pthread_mutex_lock(&port->lock);
    if (ibqp->state == IBV_QPS_RESET)
        rc = EINVAL;
    for (; rc == 0 && wr != NULL; wr = wr->next) {
        if (wr->num_sge > 1 || (wr->num_sge > 0 && wr->sg_list == NULL)) {
            rc = EINVAL;
            break;
        }
        struct rs_rc_recv_wr w = {wr->wr_id, {0, 0, 0}};
        if (wr->num_sge == 1)
            w.sge = (struct rs_rc_sge){wr->sg_list[0].addr, wr->sg_list[0].length,
                                       wr->sg_list[0].lkey};
        if (qp->rc != NULL) {
            if (rs_rc_post_recv(qp->rc, &w, err) < 0)
                rc = ENOMEM;
        } else if (ibqp->state == IBV_QPS_ERR) {
            struct ibv_wc wc = {.wr_id = w.wr_id, .status = IBV_WC_WR_FLUSH_ERR,
                                .opcode = IBV_WC_RECV, .qp_num = ibqp->qp_num};
            vb_cq_push(VB_CONTAINER(ibqp->recv_cq, struct vb_cq, cq), &wc);
        } else if (qp->n_early < qp->attr.rq_depth) {
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
    out->src_qp = src_qp;
    out->wc_flags = in->flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV);
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
        rc = EINVAL;
    /* Inline data is in its slots already (wr_set_inline_data). */
    for (uint32_t i = 0; rc == 0 && i < qp->n_batch; i++)
        rc = vb_post_one(qp, &qp->batch[i], NULL);
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
wr_set_sge(struct ibv_qp_ex *x, uint32_t lkey, uint64_t addr, uint32_t length)
{
    struct rs_rc_send_wr *w = batch_last(x);

    if (w != NULL)
        w->sge = (struct rs_rc_sge){addr, length, lkey};
}

static void
wr_set_sge_list(struct ibv_qp_ex *x, size_t n, const struct ibv_sge *sge)
{
    if (n > 1) {
        qpx_of(x)->batch_err = EINVAL;
        return;
    }
    if (n == 1)
        wr_set_sge(x, sge->lkey, sge->addr, sge->length);
    else
        wr_set_sge(x, 0, 0, 0);
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
        qp->batch_err = EINVAL;
        return;
    }
    /* The slot of this request: the sends posted, and those before it in the batch. */
    uint64_t off = ((qp->sends + qp->n_batch - 1) % qp->attr.sq_depth) * qp->cap.max_inline_data;
    w->sge = (struct rs_rc_sge){qp->inline_mr.va + off, (uint32_t)len, qp->inline_mr.lkey};
    for (size_t i = 0; i < n; i++) {
        if (buf[i].length > 0)
            memcpy(qp->inline_buf + off, buf[i].addr, buf[i].length);
        off += buf[i].length;
    }
}

static void
wr_set_inline_data(struct ibv_qp_ex *x, void *addr, size_t length)
{
    struct ibv_data_buf b = {addr, length};

    wr_set_inline_data_list(x, 1, &b);
}

/* What an RC QP of ours cannot do: memory windows, local invalidation, TSO,
 * UD and XRC addressing, atomic write. The batch fails with EOPNOTSUPP. */
static void
unsupported(struct ibv_qp_ex *x)
{
    qpx_of(x)->batch_err = EOPNOTSUPP;
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
wr_set_ud_addr(struct ibv_qp_ex *x, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey)
{
    (void)ah;
    (void)qpn;
    (void)qkey;
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
