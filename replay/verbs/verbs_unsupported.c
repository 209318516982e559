/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_unsupported.c - the verbs the RC stack does not serve (SRQs, address
 * handles for UD, multicast) and asynchronous events, which never come.
 *
 * They fail as a provider without the feature does: NULL with errno, or the
 * error code, EOPNOTSUPP. They are defined here rather than left to
 * libibverbs because its own would take our objects for its and crash.
 * Verbs that touch no object (ibv_wc_status_str(), ibv_event_type_str(),
 * ibv_port_state_str(), ibv_rate_to_mult(), ...) are left to libibverbs,
 * which every verbs program loads anyway: nothing of ours would differ.
 */
#include <errno.h>
#include <unistd.h>

#include "verbs_int.h"

struct ibv_srq *
ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
    (void)pd;
    (void)attr;
    errno = EOPNOTSUPP;
    return NULL;
}

int
ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
    (void)srq;
    (void)attr;
    (void)mask;
    return EOPNOTSUPP;
}

int
ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
    (void)srq;
    (void)attr;
    return EOPNOTSUPP;
}

int
ibv_destroy_srq(struct ibv_srq *srq)
{
    (void)srq;
    return EOPNOTSUPP;
}

struct ibv_ah *
ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
    (void)pd;
    (void)attr;
    errno = EOPNOTSUPP;
    return NULL;
}

int
ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port, struct ibv_wc *wc,
                    struct ibv_grh *grh, struct ibv_ah_attr *attr)
{
    (void)context;
    (void)port;
    (void)wc;
    (void)grh;
    (void)attr;
    errno = EOPNOTSUPP;
    return -1;
}

struct ibv_ah *
ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh, uint8_t port)
{
    (void)pd;
    (void)wc;
    (void)grh;
    (void)port;
    errno = EOPNOTSUPP;
    return NULL;
}

int
ibv_destroy_ah(struct ibv_ah *ah)
{
    (void)ah;
    return EOPNOTSUPP;
}

int
ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
    (void)qp;
    (void)gid;
    (void)lid;
    return EOPNOTSUPP;
}

int
ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
    (void)qp;
    (void)gid;
    (void)lid;
    return EOPNOTSUPP;
}

/* The port never changes and no QP or CQ fails asynchronously: the
 * descriptor (an eventfd that is never written) never becomes readable, and
 * a blocking read waits for ever, as it would on a quiet device. */
int
ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
    uint64_t v;

    (void)event;
    if (read(context->async_fd, &v, sizeof(v)) < 0)
        return -1;
    errno = EIO;
    return -1;
}

void
ibv_ack_async_event(struct ibv_async_event *event)
{
    (void)event;
}

/* Enhanced Connection Establishment (vendor options a CM REQ may carry):
 * none. librdmacm asks for it on every QP it creates. */
int
ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
    (void)qp;
    (void)ece;
    return EOPNOTSUPP;
}

int
ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
    (void)qp;
    (void)ece;
    return EOPNOTSUPP;
}

/* Nothing of ours needs fork() protection: regions are plain memory. */
int
ibv_fork_init(void)
{
    return 0;
}
