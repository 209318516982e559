/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sniffer_sys.h - one-line seams over the libibverbs calls that are inline
 * functions or macros in <infiniband/verbs.h>.
 *
 * `-Wl,--wrap` replaces only real calls into another object file. These
 * verbs are expanded into the caller, so the sniffer source calls them
 * through this file and the unit tests wrap rs_vsys_* instead. The exported
 * verbs (ibv_open_device, ibv_create_qp, ...) are called directly and
 * wrapped under their own names.
 */
#ifndef ROCESHARK_VERBS_SYS_H
#define ROCESHARK_VERBS_SYS_H

#include <infiniband/verbs.h>

struct ibv_device **rs_vsys_get_device_list(int *num);
int rs_vsys_query_device_ex(struct ibv_context *ctx, struct ibv_device_attr_ex *attr);
int rs_vsys_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr);
struct ibv_cq_ex *rs_vsys_create_cq_ex(struct ibv_context *ctx,
                                       struct ibv_cq_init_attr_ex *attr);
struct ibv_mr *rs_vsys_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access);
struct ibv_flow *rs_vsys_create_flow(struct ibv_qp *qp, struct ibv_flow_attr *attr);
int rs_vsys_destroy_flow(struct ibv_flow *flow);
int rs_vsys_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int rs_vsys_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int rs_vsys_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr);
int rs_vsys_next_poll(struct ibv_cq_ex *cq);
void rs_vsys_end_poll(struct ibv_cq_ex *cq);
uint32_t rs_vsys_wc_read_byte_len(struct ibv_cq_ex *cq);
uint64_t rs_vsys_wc_read_completion_ts(struct ibv_cq_ex *cq);
uint64_t rs_vsys_wc_read_completion_wallclock_ns(struct ibv_cq_ex *cq);

#endif /* ROCESHARK_VERBS_SYS_H */
