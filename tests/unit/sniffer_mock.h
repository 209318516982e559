/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sniffer_mock.h - a fake RDMA device for test_sniffer.c: every verb the sniffer
 * source calls, replaced at link time (-Wl,--wrap). Each wrapper appends its
 * name to call_log and fails with fail_errno when it is fail_call.
 */
#ifndef ROCESHARK_VERBS_MOCK_H
#define ROCESHARK_VERBS_MOCK_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdint.h>

#define LOG_MAX 4096
#define MAX_CQE 256

struct fake_cqe {
    uint64_t wr_id;
    int status;
    uint32_t len;
    uint64_t ts;
};

extern char call_log[LOG_MAX];
extern const char *fail_call;           /* the verb to fail, NULL none */
extern bool check_args;                 /* create_qp/flow/cq_ex use check_expected */
extern int n_cqe, cqe_pos, cqe_visible; /* visible: completions released by events */
extern struct ibv_sge posted_sge[64];   /* the sges of the first post, by wr_id */
extern bool holding;                    /* a polled completion not yet consumed */
extern int fail_errno;
extern int n_devices;
extern const char *device_names[];
extern struct ibv_device devices[3];
extern struct ibv_device *device_list[4];
extern struct ibv_context ctx;
extern struct ibv_comp_channel channel;
extern struct ibv_pd pd;
extern struct ibv_mr mr;
extern struct ibv_cq_ex cq;
extern struct ibv_qp qp;
extern struct ibv_flow flow;
extern int event_pipe[2];
extern int max_qp_wr;
extern uint8_t link_layer;
extern uint64_t ts_mask, core_clock_khz;
extern struct fake_cqe cqes[MAX_CQE];
extern bool gate_on_events;
extern uint64_t posted[4 * MAX_CQE];
extern int n_posted, n_post_calls;

#endif /* ROCESHARK_VERBS_MOCK_H */
