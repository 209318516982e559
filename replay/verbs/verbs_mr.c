/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_mr.c - protection domains and memory regions.
 *
 * A region is registered in the RC context of the device's port, whose keys
 * the responder checks. All PDs of a device share that context: the RC stack has
 * no protection domains, so a key of one PD is honoured on a QP of another,
 * which a NIC would refuse (a limit README.md states).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_int.h"

struct ibv_pd *
ibv_alloc_pd(struct ibv_context *context)
{
    struct vb_context *c = vb_ctx(context);
    struct ibv_pd *pd = calloc(1, sizeof(*pd));

    if (pd == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    int rc = 0;
    pthread_mutex_lock(&c->pd_lock);
    if (!c->holds_port && (rc = vb_port_acquire(c->port)) == 0)
        c->holds_port = true;
    if (rc == 0)
        c->n_pd++;
    pthread_mutex_unlock(&c->pd_lock);
    if (rc != 0) {
        free(pd);
        errno = rc;
        return NULL;
    }
    pd->context = context;
    pd->handle = c->n_pd;
    return pd;
}

int
ibv_dealloc_pd(struct ibv_pd *pd)
{
    struct vb_context *c = vb_ctx(pd->context);

    pthread_mutex_lock(&c->pd_lock);
    c->n_pd--;
    pthread_mutex_unlock(&c->pd_lock);
    free(pd);
    return 0;
}

struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
                 unsigned int access)
{
    struct vb_context *c = vb_ctx(pd->context);
    char err[RS_ERRBUF_SIZE];

    /* Remote write and atomics need local write, as the verbs spec says. */
    if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
        !(access & IBV_ACCESS_LOCAL_WRITE)) {
        errno = EINVAL;
        return NULL;
    }
    if (access & (IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED | IBV_ACCESS_ON_DEMAND)) {
        errno = EOPNOTSUPP;
        return NULL;
    }
    struct vb_mr *m = calloc(1, sizeof(*m));
    if (m == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    unsigned rs_access = access & (RS_RC_ACCESS_LOCAL_WRITE | RS_RC_ACCESS_REMOTE_ALL);
    pthread_mutex_lock(&c->port->lock);
    /* The RC stack reads va 0 as "the address itself". */
    int rc = rs_rc_mr_reg(c->port->rc, addr, length, iova, 0, rs_access, &m->rc, err);
    pthread_mutex_unlock(&c->port->lock);
    if (rc < 0) {
        free(m);
        errno = rc == RS_ENOMEM ? ENOMEM : EINVAL;
        return NULL;
    }
    m->mr.context = pd->context;
    m->mr.pd = pd;
    m->mr.addr = addr;
    m->mr.length = length;
    m->mr.handle = m->rc.lkey;
    m->mr.lkey = m->rc.lkey;
    m->mr.rkey = m->rc.rkey;
    return &m->mr;
}

struct ibv_mr *
ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
    return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, (unsigned)access);
}

struct ibv_mr *
ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, int access)
{
    return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned)access);
}

int
ibv_dereg_mr(struct ibv_mr *mr)
{
    struct vb_mr *m = VB_CONTAINER(mr, struct vb_mr, mr);
    struct vb_context *c = vb_ctx(mr->context);

    pthread_mutex_lock(&c->port->lock);
    rs_rc_mr_dereg(c->port->rc, m->rc.lkey);
    pthread_mutex_unlock(&c->port->lock);
    free(m);
    return 0;
}

int
ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length,
             int access)
{
    (void)mr;
    (void)flags;
    (void)pd;
    (void)addr;
    (void)length;
    (void)access;
    errno = EOPNOTSUPP;
    return IBV_REREG_MR_ERR_INPUT;
}
