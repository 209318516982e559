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
#include <sys/mman.h>
#include <unistd.h>

#include "verbs_int.h"

struct ibv_pd *
ibv_alloc_pd(struct ibv_context *context)
{
    struct vb_context *c = vb_ctx(context);
    struct vb_pd *pd = calloc(1, sizeof(*pd));

    if (pd == NULL) {
        vb_fail(ENOMEM, "ibv_alloc_pd(%s): out of memory", c->dev->ibdev.name);
        return NULL;
    }
    int rc = 0;
    pthread_mutex_lock(&c->pd_lock);
    if (!c->holds_port && (rc = vb_port_acquire(c->port)) == 0)     /* says why itself */
        c->holds_port = true;
    if (rc == 0)
        c->n_pd++;
    pthread_mutex_unlock(&c->pd_lock);
    if (rc != 0) {
        free(pd);
        errno = rc;
        return NULL;
    }
    pd->pd.context = context;
    pd->pd.handle = c->n_pd;
    return &pd->pd;
}

int
ibv_dealloc_pd(struct ibv_pd *ibpd)
{
    struct vb_pd *pd = vb_pd(ibpd);
    struct vb_context *c = vb_ctx(ibpd->context);

    pthread_mutex_lock(&c->port->lock);
    unsigned users = pd->users;
    pthread_mutex_unlock(&c->port->lock);
    if (users > 0)
        return vb_fail(EBUSY, "ibv_dealloc_pd: %u QPs, SRQs, MRs or AHs still use it", users);
    pthread_mutex_lock(&c->pd_lock);
    c->n_pd--;
    pthread_mutex_unlock(&c->pd_lock);
    free(pd);
    return 0;
}

/* Whether every page of [addr, addr+length) is mapped: a NIC's driver pins the pages
 * of a region (get_user_pages) and refuses, with EFAULT, what is not there. mincore()
 * fails with ENOMEM on a range with a hole, without touching a page. */
static bool
mapped(const void *addr, size_t length)
{
    static long page;
    unsigned char vec[4096];

    if (page == 0)
        page = sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)addr & ~((uintptr_t)page - 1);
    uintptr_t end = (uintptr_t)addr + length;
    const uintptr_t chunk = (uintptr_t)page * sizeof(vec);
    for (uintptr_t p = start; p < end; p += chunk) {
        size_t n = end - p < chunk ? end - p : chunk;
        if (mincore((void *)p, n, vec) < 0)
            return false;
    }
    return true;
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
        vb_fail(EINVAL, "ibv_reg_mr: remote write or atomic access without local write");
        return NULL;
    }
    if (access & (IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED | IBV_ACCESS_ON_DEMAND)) {
        vb_fail(EOPNOTSUPP, "ibv_reg_mr: memory windows, zero-based and on-demand regions "
                "are not served");
        return NULL;
    }
    if (length == 0 || length > VB_MAX_MR_SIZE || (uintptr_t)addr + length < (uintptr_t)addr) {
        vb_fail(EINVAL, "ibv_reg_mr: a length of %zu bytes (1 to %llu)", length,
                (unsigned long long)VB_MAX_MR_SIZE);
        return NULL;
    }
    if (!mapped(addr, length)) {
        vb_fail(EFAULT, "ibv_reg_mr: %p+%zu is not all mapped memory", addr, length);
        return NULL;
    }
    struct vb_mr *m = calloc(1, sizeof(*m));
    if (m == NULL) {
        vb_fail(ENOMEM, "ibv_reg_mr: out of memory");
        return NULL;
    }
    unsigned rs_access = access & (RS_RC_ACCESS_LOCAL_WRITE | RS_RC_ACCESS_REMOTE_ALL);
    pthread_mutex_lock(&c->port->lock);
    /* The RC stack reads va 0 as "the address itself". */
    int rc = rs_rc_mr_reg(c->port->rc, addr, length, iova, 0, rs_access, &m->rc, err);
    if (rc == 0)
        vb_pd(pd)->users++;
    pthread_mutex_unlock(&c->port->lock);
    if (rc < 0) {
        free(m);
        vb_fail(rc == RS_ENOMEM ? ENOMEM : EINVAL, "ibv_reg_mr: %s", err);
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

    /* Under the port's lock, which every access of the transport takes: once this
     * returns, no packet and no work request reaches the memory (they look the region up
     * each time). */
    pthread_mutex_lock(&c->port->lock);
    rs_rc_mr_dereg(c->port->rc, m->rc.lkey);
    vb_pd(mr->pd)->users--;
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
    vb_fail(EOPNOTSUPP, "ibv_rereg_mr: not served (deregister and register again)");
    return IBV_REREG_MR_ERR_INPUT;
}
