/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sniffer_mock.c - the fake RDMA device of sniffer_mock.h.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sniffer_mock.h"

/* --- The fake device --------------------------------------------------------------- */

char call_log[LOG_MAX];
const char *fail_call;            /* the verb to fail, NULL none */
int fail_errno;
int n_devices = 2;
const char *device_names[] = {"mlx5_0", "mlx5_1", "mlx5_2"};
struct ibv_device devices[3];
struct ibv_device *device_list[4];
struct ibv_context ctx;
struct ibv_comp_channel channel;
struct ibv_pd pd;
struct ibv_mr mr;
struct ibv_cq_ex cq;
struct ibv_qp qp;
struct ibv_flow flow;
int event_pipe[2];
int max_qp_wr = 16;
uint8_t link_layer = IBV_LINK_LAYER_ETHERNET;
uint64_t ts_mask, core_clock_khz;
bool check_args;                    /* create_qp/create_flow/create_cq_ex check_expected */

struct fake_cqe cqes[MAX_CQE];
int n_cqe, cqe_pos, cqe_visible;           /* visible: released by get_cq_event */
bool gate_on_events;
uint64_t posted[4 * MAX_CQE];
int n_posted, n_post_calls;
struct ibv_sge posted_sge[64];              /* sges of the first post, by wr_id */

static void
logcall(const char *name)
{
    strncat(call_log, name, LOG_MAX - strlen(call_log) - 2);
    strncat(call_log, " ", LOG_MAX - strlen(call_log) - 1);
}

/* Logs the call; returns the errno to fail with, 0 to succeed. */
static int
step(const char *name)
{
    logcall(name);
    return fail_call != NULL && strcmp(fail_call, name) == 0 ? fail_errno : 0;
}

struct ibv_device **__wrap_rs_vsys_get_device_list(int *num);
struct ibv_device **
__wrap_rs_vsys_get_device_list(int *num)
{
    int e = step("get_device_list");
    if (e != 0) {
        errno = e;
        return NULL;
    }
    for (int i = 0; i < n_devices; i++)
        device_list[i] = &devices[i];
    device_list[n_devices] = NULL;
    *num = n_devices;
    return device_list;
}

const char *__wrap_ibv_get_device_name(struct ibv_device *dev);
const char *
__wrap_ibv_get_device_name(struct ibv_device *dev)
{
    return device_names[dev - devices];
}

void __wrap_ibv_free_device_list(struct ibv_device **list);
void
__wrap_ibv_free_device_list(struct ibv_device **list)
{
    assert_ptr_equal(list, device_list);
    step("free_device_list");
}

struct ibv_context *__wrap_ibv_open_device(struct ibv_device *dev);
struct ibv_context *
__wrap_ibv_open_device(struct ibv_device *dev)
{
    int e = step("open_device");
    assert_string_equal(device_names[dev - devices], "mlx5_0");
    errno = e;
    return e != 0 ? NULL : &ctx;
}

int __wrap_ibv_close_device(struct ibv_context *c);
int
__wrap_ibv_close_device(struct ibv_context *c)
{
    assert_ptr_equal(c, &ctx);
    return step("close_device");
}

int __wrap_rs_vsys_query_device_ex(struct ibv_context *c, struct ibv_device_attr_ex *attr);
int
__wrap_rs_vsys_query_device_ex(struct ibv_context *c, struct ibv_device_attr_ex *attr)
{
    (void)c;
    attr->orig_attr.phys_port_cnt = 2;
    attr->orig_attr.max_qp_wr = max_qp_wr;
    attr->orig_attr.max_cqe = 4096;
    attr->completion_timestamp_mask = ts_mask;
    attr->hca_core_clock = core_clock_khz;
    snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver), "16.35.1012");
    return step("query_device_ex");
}

int __wrap_rs_vsys_query_port(struct ibv_context *c, uint8_t port, struct ibv_port_attr *attr);
int
__wrap_rs_vsys_query_port(struct ibv_context *c, uint8_t port, struct ibv_port_attr *attr)
{
    (void)c, (void)port;
    attr->link_layer = link_layer;
    attr->state = IBV_PORT_ACTIVE;
    attr->active_mtu = IBV_MTU_4096;
    return step("query_port");
}

struct ibv_comp_channel *__wrap_ibv_create_comp_channel(struct ibv_context *c);
struct ibv_comp_channel *
__wrap_ibv_create_comp_channel(struct ibv_context *c)
{
    (void)c;
    errno = step("create_comp_channel");
    channel.fd = event_pipe[0];
    return errno != 0 ? NULL : &channel;
}

int __wrap_ibv_destroy_comp_channel(struct ibv_comp_channel *ch);
int
__wrap_ibv_destroy_comp_channel(struct ibv_comp_channel *ch)
{
    assert_ptr_equal(ch, &channel);
    return step("destroy_comp_channel");
}

struct ibv_pd *__wrap_ibv_alloc_pd(struct ibv_context *c);
struct ibv_pd *
__wrap_ibv_alloc_pd(struct ibv_context *c)
{
    (void)c;
    errno = step("alloc_pd");
    return errno != 0 ? NULL : &pd;
}

int __wrap_ibv_dealloc_pd(struct ibv_pd *p);
int
__wrap_ibv_dealloc_pd(struct ibv_pd *p)
{
    assert_ptr_equal(p, &pd);
    return step("dealloc_pd");
}

struct ibv_mr *__wrap_rs_vsys_reg_mr(struct ibv_pd *p, void *addr, size_t len, int access);
struct ibv_mr *
__wrap_rs_vsys_reg_mr(struct ibv_pd *p, void *addr, size_t len, int access)
{
    (void)p, (void)addr, (void)len;
    assert_true(access & IBV_ACCESS_LOCAL_WRITE);
    errno = step("reg_mr");
    mr.lkey = 0x1234;
    return errno != 0 ? NULL : &mr;
}

int __wrap_ibv_dereg_mr(struct ibv_mr *m);
int
__wrap_ibv_dereg_mr(struct ibv_mr *m)
{
    assert_ptr_equal(m, &mr);
    return step("dereg_mr");
}

struct ibv_cq_ex *__wrap_rs_vsys_create_cq_ex(struct ibv_context *c,
                                              struct ibv_cq_init_attr_ex *attr);
struct ibv_cq_ex *
__wrap_rs_vsys_create_cq_ex(struct ibv_context *c, struct ibv_cq_init_attr_ex *attr)
{
    (void)c;
    assert_ptr_equal(attr->channel, &channel);
    if (check_args) {
        uint64_t wc_flags = attr->wc_flags;
        check_expected(wc_flags);
        errno = (int)mock();
        logcall("create_cq_ex");
    } else {
        errno = step("create_cq_ex");
    }
    return errno != 0 ? NULL : &cq;
}

int __wrap_ibv_destroy_cq(struct ibv_cq *c);
int
__wrap_ibv_destroy_cq(struct ibv_cq *c)
{
    assert_ptr_equal(c, ibv_cq_ex_to_cq(&cq));
    return step("destroy_cq");
}

struct ibv_qp *__wrap_ibv_create_qp(struct ibv_pd *p, struct ibv_qp_init_attr *attr);
struct ibv_qp *
__wrap_ibv_create_qp(struct ibv_pd *p, struct ibv_qp_init_attr *attr)
{
    assert_ptr_equal(p, &pd);
    if (check_args) {
        int qp_type = attr->qp_type;
        unsigned max_recv_wr = attr->cap.max_recv_wr;
        check_expected(qp_type);
        check_expected(max_recv_wr);
    }
    errno = step("create_qp");
    return errno != 0 ? NULL : &qp;
}

int __wrap_ibv_destroy_qp(struct ibv_qp *q);
int
__wrap_ibv_destroy_qp(struct ibv_qp *q)
{
    assert_ptr_equal(q, &qp);
    return step("destroy_qp");
}

int __wrap_ibv_modify_qp(struct ibv_qp *q, struct ibv_qp_attr *attr, int mask);
int
__wrap_ibv_modify_qp(struct ibv_qp *q, struct ibv_qp_attr *attr, int mask)
{
    (void)q;
    if (attr->qp_state == IBV_QPS_INIT) {
        assert_int_equal(mask, IBV_QP_STATE | IBV_QP_PORT);
        assert_int_equal(attr->port_num, 1);
        return step("modify_qp_init");
    }
    assert_int_equal(attr->qp_state, IBV_QPS_RTR);
    return step("modify_qp_rtr");
}

int __wrap_rs_vsys_post_recv(struct ibv_qp *q, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int
__wrap_rs_vsys_post_recv(struct ibv_qp *q, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
    (void)q, (void)bad;
    n_post_calls++;
    for (; wr != NULL; wr = wr->next) {
        assert_int_equal(wr->num_sge, 1);
        assert_int_equal(wr->sg_list->lkey, 0x1234);
        if (n_post_calls == 1 && wr->wr_id < 64)
            posted_sge[wr->wr_id] = *wr->sg_list;
        posted[n_posted++] = wr->wr_id;
    }
    return step("post_recv");
}

struct ibv_flow *__wrap_rs_vsys_create_flow(struct ibv_qp *q, struct ibv_flow_attr *attr);
struct ibv_flow *
__wrap_rs_vsys_create_flow(struct ibv_qp *q, struct ibv_flow_attr *attr)
{
    assert_ptr_equal(q, &qp);
    if (check_args) {
        int type = attr->type;
        int port = attr->port;
        check_expected(type);
        check_expected(port);
    }
    errno = step("create_flow");
    return errno != 0 ? NULL : &flow;
}

int __wrap_rs_vsys_destroy_flow(struct ibv_flow *f);
int
__wrap_rs_vsys_destroy_flow(struct ibv_flow *f)
{
    assert_ptr_equal(f, &flow);
    return step("destroy_flow");
}

int __wrap_rs_vsys_req_notify_cq(struct ibv_cq *c, int solicited_only);
int
__wrap_rs_vsys_req_notify_cq(struct ibv_cq *c, int solicited_only)
{
    (void)c;
    assert_int_equal(solicited_only, 0);
    return step("req_notify_cq");
}

int __wrap_ibv_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **c, void **cq_ctx);
int
__wrap_ibv_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **c, void **cq_ctx)
{
    char b;

    assert_ptr_equal(ch, &channel);
    if (read(event_pipe[0], &b, 1) != 1)
        return -1;
    *c = ibv_cq_ex_to_cq(&cq);
    *cq_ctx = NULL;
    cqe_visible++;
    return 0;
}

void __wrap_ibv_ack_cq_events(struct ibv_cq *c, unsigned n);
void
__wrap_ibv_ack_cq_events(struct ibv_cq *c, unsigned n)
{
    char name[32];

    (void)c;
    snprintf(name, sizeof(name), "ack_cq_events:%u", n);
    logcall(name);
}

static bool
cqe_ready(void)
{
    return cqe_pos < n_cqe && (!gate_on_events || cqe_pos < cqe_visible);
}

static void
load_cqe(void)
{
    cq.wr_id = cqes[cqe_pos].wr_id;
    cq.status = cqes[cqe_pos].status;
}

bool holding;            /* start_poll/next_poll returned an entry not yet consumed */

int __wrap_rs_vsys_start_poll(struct ibv_cq_ex *c, struct ibv_poll_cq_attr *attr);
int
__wrap_rs_vsys_start_poll(struct ibv_cq_ex *c, struct ibv_poll_cq_attr *attr)
{
    (void)c, (void)attr;
    assert_false(holding);
    if (!cqe_ready())
        return ENOENT;
    holding = true;
    load_cqe();
    return 0;
}

int __wrap_rs_vsys_next_poll(struct ibv_cq_ex *c);
int
__wrap_rs_vsys_next_poll(struct ibv_cq_ex *c)
{
    (void)c;
    assert_true(holding);
    cqe_pos++;
    if (!cqe_ready()) {
        holding = false;
        return ENOENT;
    }
    load_cqe();
    return 0;
}

void __wrap_rs_vsys_end_poll(struct ibv_cq_ex *c);
void
__wrap_rs_vsys_end_poll(struct ibv_cq_ex *c)
{
    (void)c;
    if (holding)
        cqe_pos++;
    holding = false;
}

uint32_t __wrap_rs_vsys_wc_read_byte_len(struct ibv_cq_ex *c);
uint32_t
__wrap_rs_vsys_wc_read_byte_len(struct ibv_cq_ex *c)
{
    (void)c;
    return cqes[cqe_pos].len;
}

uint64_t __wrap_rs_vsys_wc_read_completion_ts(struct ibv_cq_ex *c);
uint64_t
__wrap_rs_vsys_wc_read_completion_ts(struct ibv_cq_ex *c)
{
    (void)c;
    return cqes[cqe_pos].ts;
}

uint64_t __wrap_rs_vsys_wc_read_completion_wallclock_ns(struct ibv_cq_ex *c);
uint64_t
__wrap_rs_vsys_wc_read_completion_wallclock_ns(struct ibv_cq_ex *c)
{
    (void)c;
    return cqes[cqe_pos].ts;
}

