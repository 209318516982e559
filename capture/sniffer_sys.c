/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sniffer_sys.c - the seams of sniffer_sys.h: each forwards to one inline or
 * macro verb, so that tests can replace it at link time.
 */
#include "sniffer_sys.h"

struct ibv_device **
rs_vsys_get_device_list(int *num)
{
    return ibv_get_device_list(num);
}

int
rs_vsys_query_device_ex(struct ibv_context *ctx, struct ibv_device_attr_ex *attr)
{
    return ibv_query_device_ex(ctx, NULL, attr);
}

int
rs_vsys_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
    return ibv_query_port(ctx, port, attr);
}

struct ibv_cq_ex *
rs_vsys_create_cq_ex(struct ibv_context *ctx, struct ibv_cq_init_attr_ex *attr)
{
    return ibv_create_cq_ex(ctx, attr);
}

struct ibv_mr *
rs_vsys_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
    return ibv_reg_mr(pd, addr, len, access);
}

struct ibv_flow *
rs_vsys_create_flow(struct ibv_qp *qp, struct ibv_flow_attr *attr)
{
    return ibv_create_flow(qp, attr);
}

int
rs_vsys_destroy_flow(struct ibv_flow *flow)
{
    return ibv_destroy_flow(flow);
}

int
rs_vsys_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
    return ibv_post_recv(qp, wr, bad);
}

int
rs_vsys_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
    return ibv_req_notify_cq(cq, solicited_only);
}

int
rs_vsys_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
    return ibv_start_poll(cq, attr);
}

int
rs_vsys_next_poll(struct ibv_cq_ex *cq)
{
    return ibv_next_poll(cq);
}

void
rs_vsys_end_poll(struct ibv_cq_ex *cq)
{
    ibv_end_poll(cq);
}

uint32_t
rs_vsys_wc_read_byte_len(struct ibv_cq_ex *cq)
{
    return ibv_wc_read_byte_len(cq);
}

uint64_t
rs_vsys_wc_read_completion_ts(struct ibv_cq_ex *cq)
{
    return ibv_wc_read_completion_ts(cq);
}

uint64_t
rs_vsys_wc_read_completion_wallclock_ns(struct ibv_cq_ex *cq)
{
    return ibv_wc_read_completion_wallclock_ns(cq);
}
