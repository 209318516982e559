/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * responder.c - the responder's regions, QPs and receives, and what can be
 * asked of it while it runs (state, receives, memory).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <roceshark/dissectors/dissect.h>

#include "responder_int.h"

void
rs_responder_opts_init(struct rs_responder_opts *o)
{
    memset(o, 0, sizeof(*o));
    rs_rc_qp_attr_init(&o->attr);
    o->qpn0 = 0x11;
    o->n_static = 1;
    o->recv_size = 65536;
    o->listen_port = RS_RESPONDER_DEFAULT_LISTEN;
    o->side_idle_ns = RS_RESPONDER_DEFAULT_IDLE_NS;
}

static int
register_mrs(struct rs_responder *r, char *err)
{
    uint64_t va = r->o.va0;

    for (unsigned i = 0; i < r->o.n_mr; i++) {
        const struct rs_responder_mr_spec *s = &r->o.mr[i];
        struct resp_mr *m = &r->mr[i];
        m->mem = rs_rc_mem_alloc(s->size);
        if (m->mem == NULL)
            return rs_error(err, RS_ENOMEM, "out of memory for a %" PRIu64 "-byte region",
                            s->size);
        uint32_t rkey = r->o.rkey0 != 0 ? r->o.rkey0 + i : 0;
        if (rs_rc_mr_reg(r->ctx, m->mem, s->size, va, rkey, s->access, &m->mr, err) < 0)
            return RS_EINVAL;
        if (va != 0)    /* the next region starts on the next page after this one */
            va = m->mr.va + ((s->size + 4095) & ~4095ull) + 4096;
    }
    return 0;
}

uint32_t
resp_post_recvs(struct rs_responder *r, struct resp_qp *q, uint32_t n, bool bad, char *err)
{
    uint32_t i;

    for (i = 0; i < n; i++) {
        uint32_t slot = (uint32_t)(q->posted % r->o.attr.rq_depth);
        struct rs_rc_recv_wr wr = {slot, {q->rmr.va + (uint64_t)slot * r->o.recv_size,
                                          r->o.recv_size, q->rmr.lkey}};
        if (bad)
            wr.sge.lkey = 0xbad0bad;    /* names no region: Remote Operational Error */
        if (rs_rc_post_recv(q->qp, &wr, err) < 0)
            break;
        q->posted++;
    }
    return i;
}

int
resp_add_qp(struct rs_responder *r, uint32_t qpn, const uint8_t peer[16], uint32_t peer_qpn,
            uint32_t peer_psn, uint32_t pmtu, uint8_t timeout, char *err)
{
    struct rs_rc_qp_attr a = r->o.attr;

    if (r->n_qp == RS_RESPONDER_MAX_QPS)
        return rs_error(err, RS_EINVAL, "at most %d QPs", RS_RESPONDER_MAX_QPS);
    struct resp_qp *q = &r->qp[r->n_qp];
    a.qpn = qpn;
    a.dest_qpn = peer_qpn;
    memcpy(a.peer_gid, peer, 16);
    a.sq_psn = r->o.psn;
    a.rq_psn = peer_psn;
    a.pmtu = pmtu;
    a.timeout = timeout;
    memset(q, 0, sizeof(*q));
    if (rs_rc_qp_create(r->ctx, &a, &q->qp, err) < 0)
        return RS_EINVAL;
    r->n_qp++;      /* from here on close() releases what the QP has */
    q->rbuf = rs_rc_mem_alloc((uint64_t)a.rq_depth * r->o.recv_size);
    if (q->rbuf == NULL)
        return rs_error(err, RS_ENOMEM, "receive buffers: out of memory");
    if (rs_rc_mr_reg(r->ctx, q->rbuf, (uint64_t)a.rq_depth * r->o.recv_size, 0, 0,
                     RS_RC_ACCESS_LOCAL_WRITE, &q->rmr, err) < 0)
        return RS_ENOMEM;
    /* rq_depth is at least recv_n: these all fit. */
    resp_post_recvs(r, q, r->o.recv_n, false, err);
    return 0;
}

void
resp_remove_qp(struct rs_responder *r, unsigned i)
{
    struct resp_qp *q = &r->qp[i];

    resp_rping_stop(r, q);
    rs_rc_qp_destroy(q->qp);
    if (q->rmr.lkey != 0)
        rs_rc_mr_dereg(r->ctx, q->rmr.lkey);
    rs_rc_mem_free(q->rbuf, (uint64_t)r->o.attr.rq_depth * r->o.recv_size);
    r->qp[i] = r->qp[--r->n_qp];
}

uint32_t
resp_next_qpn(struct rs_responder *r)
{
    uint32_t qpn;

    do {
        qpn = r->next_qpn;
        r->next_qpn = qpn >= 0xffffff ? r->o.qpn0 : qpn + 1;
    } while (rs_rc_qp_find(r->ctx, qpn) != NULL);
    return qpn;
}

FILE *
resp_log(const struct rs_responder *r)
{
    return r->o.log != NULL ? r->o.log : stderr;
}

void
rs_responder_get_info(const struct rs_responder *r, uint32_t qpn, struct rs_rc_conn_info *info)
{
    memcpy(info->gid, r->o.local_gid, 16);
    info->qpn = qpn;
    info->psn = r->o.psn;
    info->rkey = r->mr[0].mr.rkey;
    info->va = r->mr[0].mr.va;
    info->length = r->mr[0].mr.length;
    info->pmtu = r->o.attr.pmtu;
}

void
resp_format_info(const struct rs_responder *r, uint32_t qpn, char *buf, size_t size)
{
    struct rs_rc_conn_info info;

    rs_responder_get_info(r, qpn, &info);
    rs_rc_conn_format(&info, buf, size);
}

int
rs_responder_open(const struct rs_responder_opts *o, struct rs_rc_udp *udp,
                  struct rs_rc_ctx *ctx, struct rs_responder **out, char *err)
{
    struct rs_responder *r = calloc(1, sizeof(*r));
    int rc;

    *out = NULL;
    if (o->n_static > RS_RESPONDER_MAX_QPS || o->n_mr > RS_RESPONDER_MAX_MRS) {
        free(r);
        return rs_error(err, RS_EINVAL, "at most %d QPs and %d regions", RS_RESPONDER_MAX_QPS,
                        RS_RESPONDER_MAX_MRS);
    }
    if (o->have_peer && (o->qpn0 < 2 || o->qpn0 + o->n_static - 1 > 0xffffff)) {
        free(r);
        return rs_error(err, RS_EINVAL, "QPs %u.. (%u of them): QPs 0 and 1 are special, "
                        "numbers end at 0xffffff", o->qpn0, o->n_static);
    }
    if (r == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    r->o = *o;
    r->udp = udp;
    r->ctx = ctx;
    r->listen_fd = -1;
    r->next_qpn = o->qpn0 >= 2 && o->qpn0 <= 0xffffff ? o->qpn0 : 0x11;
    for (unsigned i = 0; i < RS_RESPONDER_MAX_CONNS; i++)
        r->conn[i].fd = -1;
    if (r->o.n_mr == 0) {
        r->o.mr[0] = (struct rs_responder_mr_spec){
            1 << 20, RS_RC_ACCESS_LOCAL_WRITE | RS_RC_ACCESS_REMOTE_ALL};
        r->o.n_mr = 1;
    }
    if (r->o.attr.rq_depth < r->o.recv_n)
        r->o.attr.rq_depth = r->o.recv_n;
    if ((rc = register_mrs(r, err)) != 0)
        goto fail;
    for (unsigned i = 0; r->o.have_peer && i < r->o.n_static; i++)
        if ((rc = resp_add_qp(r, r->o.qpn0 + i, r->o.peer_gid, r->o.peer_qpn + i, r->o.peer_psn,
                              r->o.attr.pmtu, r->o.attr.timeout, err)) != 0)
            goto fail;
    if (r->o.have_peer)
        r->next_qpn = r->o.qpn0 + r->o.n_static;
    if (r->o.listen_port != 0 &&
        rs_rc_side_listen(r->o.local_gid, r->o.local_scope, r->o.listen_port, &r->listen_fd,
                          err) < 0) {
        rc = RS_EIO;
        goto fail;
    }
    if (r->o.cm && (rc = resp_cm_open(r, err)) != 0)
        goto fail;
    /* poll() says when to accept; a peer that gives up in between must not
     * leave accept() waiting. */
    if (r->listen_fd >= 0)
        fcntl(r->listen_fd, F_SETFL, fcntl(r->listen_fd, F_GETFL) | O_NONBLOCK);
    *out = r;
    return 0;
fail:
    rs_responder_close(r);
    return rc;
}

void
rs_responder_close(struct rs_responder *r)
{
    if (r == NULL)
        return;
    if (r->cm != NULL) {
        rs_rc_gsi_register(r->ctx, NULL, NULL);
        rs_cm_destroy(r->cm);
    }
    for (unsigned i = 0; i < RS_RESPONDER_MAX_CONNS; i++)
        rs_rc_side_conn_close(&r->conn[i]);
    if (r->listen_fd >= 0)
        close(r->listen_fd);
    /* QPs and regions go before their memory: the context, which stays the
     * caller's, must not keep a region over unmapped pages. */
    for (unsigned i = 0; i < r->n_qp; i++) {
        struct resp_qp *q = &r->qp[i];
        resp_rping_stop(r, q);
        if (q->qp != NULL)
            rs_rc_qp_destroy(q->qp);
        if (q->rmr.lkey != 0)
            rs_rc_mr_dereg(r->ctx, q->rmr.lkey);
        rs_rc_mem_free(q->rbuf, (uint64_t)r->o.attr.rq_depth * r->o.recv_size);
    }
    for (unsigned i = 0; i < r->o.n_mr; i++) {
        if (r->mr[i].mr.lkey != 0)
            rs_rc_mr_dereg(r->ctx, r->mr[i].mr.lkey);
        rs_rc_mem_free(r->mr[i].mem, r->o.mr[i].size);
    }
    free(r);
}

void
rs_responder_print_start(const struct rs_responder *r, FILE *f)
{
    char info[512];

    resp_format_info(r, r->n_qp > 0 ? rs_rc_qp_num(r->qp[0].qp) : r->o.qpn0, info,
                     sizeof(info));
    info[strlen(info) - 1] = '\0';  /* reopen the object to add fields */
    fprintf(f, "%s, \"port\": %d, \"listen\": %u, \"icrc_check\": %s, \"qps\": [", info,
            RS_ROCEV2_UDP_PORT, r->o.listen_port,
            rs_rc_udp_checks_icrc(r->udp) ? "true" : "false");
    for (unsigned i = 0; i < r->n_qp; i++)
        fprintf(f, "%s%" PRIu32, i ? ", " : "", rs_rc_qp_num(r->qp[i].qp));
    fprintf(f, "], \"mrs\": [");
    for (unsigned i = 0; i < r->o.n_mr; i++)
        fprintf(f, "%s{\"rkey\": %" PRIu32 ", \"va\": %" PRIu64 ", \"length\": %" PRIu64
                ", \"access\": %u}",
                i ? ", " : "", r->mr[i].mr.rkey, r->mr[i].mr.va, r->mr[i].mr.length,
                r->o.mr[i].access);
    fprintf(f, "]}\n");
    fflush(f);
}

void
rs_responder_print_state(const struct rs_responder *r, FILE *f)
{
    fprintf(f, "{\"qps\": [");
    for (unsigned i = 0; i < r->n_qp; i++)
        fprintf(f, "%s{\"qpn\": %" PRIu32 ", \"state\": \"%s\", \"recv_posted\": %" PRIu32 "}",
                i ? ", " : "", rs_rc_qp_num(r->qp[i].qp),
                rs_rc_qp_state(r->qp[i].qp) == RS_RC_QP_RTS ? "RTS" : "ERROR",
                rs_rc_recv_posted(r->qp[i].qp));
    fprintf(f, "]}\n");
}

uint64_t
rs_responder_post_recvs(struct rs_responder *r, uint32_t n, int64_t qpn, bool bad, char *why,
                        size_t why_size)
{
    char err[RS_ERRBUF_SIZE];
    uint64_t posted = 0;
    unsigned matched = 0;

    why[0] = '\0';
    for (unsigned i = 0; i < r->n_qp; i++) {
        uint32_t num = rs_rc_qp_num(r->qp[i].qp);
        if (qpn >= 0 && num != qpn)
            continue;
        matched++;
        uint32_t k = resp_post_recvs(r, &r->qp[i], n, bad, err);
        posted += k;
        if (k < n && why[0] == '\0')
            snprintf(why, why_size, "QP %" PRIu32 ": %s", num, err);
    }
    if (matched == 0) {
        if (qpn >= 0)
            snprintf(why, why_size, "no QP %" PRId64, qpn);
        else
            snprintf(why, why_size, "no QP yet");
    }
    return posted;
}

const uint8_t *
rs_responder_memory(const struct rs_responder *r, uint64_t offset, uint64_t length)
{
    uint64_t size = r->o.mr[0].size;

    if (offset > size || length > size - offset)
        return NULL;
    return (const uint8_t *)r->mr[0].mem + offset;
}

struct rs_rc_ctx *
rs_responder_ctx(const struct rs_responder *r)
{
    return r->ctx;
}
