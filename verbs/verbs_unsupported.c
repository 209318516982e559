/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_unsupported.c - the verbs the stack does not serve: multicast groups (which
 * would need the host's multicast routing of UDP port 4791) and memory windows.
 *
 * They fail as a provider without the feature does: the error code EOPNOTSUPP, with
 * one line under ROCESHARK_VERBS_DEBUG. They are defined here rather than left to
 * libibverbs because its own would take our objects for its and crash. Memory windows
 * (ibv_alloc_mw, ibv_bind_mw) need nothing here: they are inlines that fail with
 * EOPNOTSUPP when the context's alloc_mw is NULL, as ours is. Verbs that touch no
 * object (ibv_wc_status_str(), ibv_event_type_str(), ibv_port_state_str(),
 * ibv_rate_to_mult(), ...) are left to libibverbs, which every verbs program loads
 * anyway: nothing of ours would differ.
 */
#include <errno.h>

#include "verbs_int.h"

int
ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
    (void)gid;
    (void)lid;
    return vb_fail(EOPNOTSUPP, "ibv_attach_mcast(%s): multicast groups are not served",
                   vb_qp(qp)->ctx->dev->ibdev.name);
}

int
ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
    (void)gid;
    (void)lid;
    return vb_fail(EOPNOTSUPP, "ibv_detach_mcast(%s): multicast groups are not served",
                   vb_qp(qp)->ctx->dev->ibdev.name);
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
