/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cm_xfer.c - the RDMA CM client/server a tutorial has a user write after
 * perftest: two processes, connected by librdmacm's synchronous calls
 * (rdma_getaddrinfo, rdma_create_ep, rdma_listen, rdma_get_request,
 * rdma_accept, rdma_connect). The server offers a buffer in the REP's private
 * data; the client RDMA WRITEs a pattern into it, READs it back into another
 * buffer and compares the two, then SENDs "done"; the server checks that its
 * buffer holds the pattern. Run through `roceshark run` by
 * tests/integration/test_rdmacm.py.
 *
 *   usage: cm_xfer server BIND_IP PORT
 *          cm_xfer client SERVER_IP PORT
 *
 * Exit 0 when the buffers match, 1 otherwise, with a line that says which
 * step failed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define LEN (64 * 1024)

/* What the server's REP carries: where its buffer is. */
struct offer {
    uint64_t addr;
    uint32_t rkey;
    uint32_t len;
};

static int
fail(const char *side, const char *step)
{
    fprintf(stderr, "cm_xfer %s: %s: %s\n", side, step, strerror(errno));
    return 1;
}

static uint8_t
pattern(size_t i)
{
    return (uint8_t)(i * 31 + 7);
}

/* An RC QP of a few WRs, each completion signalled (the rdma_get_*_comp helpers wait). */
static struct ibv_qp_init_attr
qp_attr(void)
{
    return (struct ibv_qp_init_attr){.cap = {.max_send_wr = 4, .max_recv_wr = 4,
                                             .max_send_sge = 1, .max_recv_sge = 1},
                                     .qp_type = IBV_QPT_RC, .sq_sig_all = 1};
}

static struct rdma_cm_id *
endpoint(const char *ip, const char *port, int passive)
{
    struct rdma_addrinfo hints = {.ai_port_space = RDMA_PS_TCP}, *rai;
    struct ibv_qp_init_attr qa = qp_attr();
    struct rdma_cm_id *id;

    if (passive)
        hints.ai_flags = RAI_PASSIVE;
    if (rdma_getaddrinfo(ip, port, &hints, &rai) != 0)
        return NULL;
    int rc = rdma_create_ep(&id, rai, NULL, passive ? NULL : &qa);
    rdma_freeaddrinfo(rai);
    return rc == 0 ? id : NULL;
}

static int
server(const char *ip, const char *port)
{
    struct ibv_qp_init_attr qa = qp_attr();
    struct rdma_cm_id *listen_id = endpoint(ip, port, 1), *id;
    static uint8_t buf[LEN];
    char msg[16] = "";
    struct ibv_wc wc;

    if (listen_id == NULL || rdma_listen(listen_id, 1) != 0)
        return fail("server", "rdma_listen");
    printf("server: listening on %s port %s\n", ip, port);
    fflush(stdout);
    if (rdma_get_request(listen_id, &id) != 0 || rdma_create_qp(id, NULL, &qa) != 0)
        return fail("server", "rdma_get_request, rdma_create_qp");
    struct ibv_mr *mr = ibv_reg_mr(id->pd, buf, LEN, IBV_ACCESS_LOCAL_WRITE |
                                   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
    struct ibv_mr *msg_mr = rdma_reg_msgs(id, msg, sizeof(msg));
    if (mr == NULL || msg_mr == NULL || rdma_post_recv(id, NULL, msg, sizeof(msg), msg_mr))
        return fail("server", "ibv_reg_mr, rdma_post_recv");
    struct offer o = {(uintptr_t)buf, mr->rkey, LEN};
    struct rdma_conn_param p = {.private_data = &o, .private_data_len = sizeof(o),
                                .responder_resources = 1, .initiator_depth = 1};
    if (rdma_accept(id, &p) != 0)
        return fail("server", "rdma_accept");
    printf("server: connected; offered %u bytes\n", LEN);
    if (rdma_get_recv_comp(id, &wc) <= 0 || wc.status != IBV_WC_SUCCESS)
        return fail("server", "the client's message");
    size_t bad = 0;
    for (size_t i = 0; i < LEN; i++)
        bad += buf[i] != pattern(i);
    printf("server: the client says \"%s\"; %zu of %u bytes differ from the pattern\n", msg,
           bad, LEN);
    rdma_disconnect(id);
    rdma_dereg_mr(msg_mr);
    rdma_dereg_mr(mr);
    rdma_destroy_ep(id);
    rdma_destroy_ep(listen_id);
    return bad == 0 && strcmp(msg, "done") == 0 ? 0 : 1;
}

static int
client(const char *ip, const char *port)
{
    struct rdma_cm_id *id = endpoint(ip, port, 0);
    static uint8_t src[LEN], dst[LEN];
    char msg[16] = "done";
    struct ibv_wc wc;
    struct offer o;

    if (id == NULL)
        return fail("client", "rdma_create_ep");
    struct ibv_mr *src_mr = rdma_reg_write(id, src, LEN);
    struct ibv_mr *dst_mr = rdma_reg_read(id, dst, LEN);
    struct ibv_mr *msg_mr = rdma_reg_msgs(id, msg, sizeof(msg));
    if (src_mr == NULL || dst_mr == NULL || msg_mr == NULL)
        return fail("client", "rdma_reg_*");
    struct rdma_conn_param p = {.responder_resources = 1, .initiator_depth = 1,
                                .retry_count = 7, .rnr_retry_count = 7};
    if (rdma_connect(id, &p) != 0)
        return fail("client", "rdma_connect");
    if (id->event == NULL || id->event->param.conn.private_data_len < sizeof(o)) {
        errno = EPROTO;
        return fail("client", "the server's offer");
    }
    memcpy(&o, id->event->param.conn.private_data, sizeof(o));
    printf("client: connected; the server offers %u bytes\n", o.len);
    for (size_t i = 0; i < LEN; i++)
        src[i] = pattern(i);
    if (rdma_post_write(id, NULL, src, LEN, src_mr, 0, o.addr, o.rkey) != 0 ||
        rdma_get_send_comp(id, &wc) <= 0 || wc.status != IBV_WC_SUCCESS)
        return fail("client", "rdma_post_write");
    if (rdma_post_read(id, NULL, dst, LEN, dst_mr, 0, o.addr, o.rkey) != 0 ||
        rdma_get_send_comp(id, &wc) <= 0 || wc.status != IBV_WC_SUCCESS)
        return fail("client", "rdma_post_read");
    int same = memcmp(src, dst, LEN) == 0;
    printf(same ? "SUCCESS, source and destination buffers match\n"
                : "FAILURE, source and destination buffers differ\n");
    if (rdma_post_send(id, NULL, msg, sizeof(msg), msg_mr, 0) != 0 ||
        rdma_get_send_comp(id, &wc) <= 0 || wc.status != IBV_WC_SUCCESS)
        return fail("client", "rdma_post_send");
    rdma_disconnect(id);
    rdma_dereg_mr(msg_mr);
    rdma_dereg_mr(dst_mr);
    rdma_dereg_mr(src_mr);
    rdma_destroy_ep(id);
    return same ? 0 : 1;
}

int
main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "server") != 0 && strcmp(argv[1], "client") != 0)) {
        fprintf(stderr, "usage: cm_xfer server BIND_IP PORT | cm_xfer client SERVER_IP PORT\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    return strcmp(argv[1], "server") == 0 ? server(argv[2], argv[3]) : client(argv[2], argv[3]);
}
