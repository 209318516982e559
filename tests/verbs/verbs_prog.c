/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_prog.c - a verbs program of the tests' own, linked against libibverbs and run
 * through `roceshark run`, for what no Debian program does: scatter/gather lists of a
 * given length, and misuses a safe provider must survive. On loopback devices, whose
 * GID index 1 is their address (RoCE v2, as on rxe).
 *
 *   verbs_prog sge N               two devices of this process; a SEND from N elements
 *                                  into a receive of N, a WRITE from N, a READ into N,
 *                                  each checked byte for byte
 *   verbs_prog dereg-read IP PORT  against `roceshark responder` losing the READ request
 *                                  once: a READ whose sink is deregistered, and made
 *                                  inaccessible (PROT_NONE), before it is asked again
 *   verbs_prog dereg-write IP PORT against a responder losing the first transmission (PSNs
 *                                  0-3): a WRITE whose source is deregistered, and made
 *                                  inaccessible, before its retransmission
 *   verbs_prog inline-slot IP PORT against the same: four inline WRITEs fill the send
 *                                  queue, a fifth is refused, the four are retransmitted
 *
 * Against the responder the local ACK timeout is about a second (code 18), so that the
 * retransmission comes long after the misuse, however loaded the machine.
 *
 * It prints what happened, one line each, and exits 0 when the provider behaved: the
 * bytes arrived where they should, a request naming deregistered memory failed with
 * "local protection error" (an access to the memory would have crashed it), a refused
 * post left the others alone. Exit 1 for a misbehaviour, 2 for a set-up failure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define GID_INDEX 1     /* the address, RoCE v2, on a device named after an address */
#define BUF 65536

struct end {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    uint8_t *buf;
    union ibv_gid gid;
};

static int
fail(int code, const char *what)
{
    fprintf(stderr, "verbs_prog: %s: %s\n", what, strerror(errno));
    exit(code);
}

static void
end_open(struct end *e, struct ibv_device *dev, int sge)
{
    e->ctx = ibv_open_device(dev);
    if (e->ctx == NULL || (e->pd = ibv_alloc_pd(e->ctx)) == NULL ||
        (e->cq = ibv_create_cq(e->ctx, 64, NULL, NULL, 0)) == NULL)
        fail(2, "device");
    e->buf = calloc(1, BUF);
    e->mr = ibv_reg_mr(e->pd, e->buf, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                               IBV_ACCESS_REMOTE_READ);
    struct ibv_qp_init_attr ia = {.send_cq = e->cq, .recv_cq = e->cq, .qp_type = IBV_QPT_RC,
                                  .sq_sig_all = 1,
                                  .cap = {.max_send_wr = 8, .max_recv_wr = 8,
                                          .max_send_sge = (uint32_t)sge,
                                          .max_recv_sge = (uint32_t)sge,
                                          .max_inline_data = 64}};
    if (e->buf == NULL || e->mr == NULL || (e->qp = ibv_create_qp(e->pd, &ia)) == NULL)
        fail(2, "QP");
    if (ibv_query_gid(e->ctx, 1, GID_INDEX, &e->gid) != 0)
        fail(2, "GID");
}

static void
connect_qp(struct ibv_qp *qp, const union ibv_gid *peer, uint32_t dest_qpn, uint8_t timeout)
{
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1,
                            .qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
                                               IBV_ACCESS_REMOTE_READ |
                                               IBV_ACCESS_LOCAL_WRITE};
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                                  IBV_QP_ACCESS_FLAGS))
        fail(2, "INIT");
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = dest_qpn;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.is_global = 1;
    a.ah_attr.port_num = 1;
    a.ah_attr.grh.sgid_index = GID_INDEX;
    a.ah_attr.grh.hop_limit = 64;
    a.ah_attr.grh.dgid = *peer;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                                  IBV_QP_MIN_RNR_TIMER))
        fail(2, "RTR");
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = timeout;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.max_rd_atomic = 1;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
        fail(2, "RTS");
}

/* Up to want completions within 10 s (of a loaded machine). */
static int
wait_cq(struct ibv_cq *cq, int want, struct ibv_wc *wc)
{
    struct timespec t0, t;
    int got = 0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (got < want) {
        int n = ibv_poll_cq(cq, want - got, wc + got);
        if (n < 0)
            return -1;
        got += n;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 10)
            break;
    }
    return got;
}

static void
two_ends(struct end *a, struct end *b, int sge)
{
    int n;
    struct ibv_device **list = ibv_get_device_list(&n);

    if (list == NULL || n < 2) {
        fprintf(stderr, "verbs_prog: two devices needed\n");
        exit(2);
    }
    end_open(a, list[0], sge);
    end_open(b, list[1], sge);
    ibv_free_device_list(list);
    connect_qp(a->qp, &b->gid, b->qp->qp_num, 14);
    connect_qp(b->qp, &a->gid, a->qp->qp_num, 14);
}

/* n elements of len bytes each, every other one skipped, from base. */
static void
elements(struct end *e, size_t base, int n, uint32_t len, struct ibv_sge *sg)
{
    for (int i = 0; i < n; i++)
        sg[i] = (struct ibv_sge){(uintptr_t)e->buf + base + 2 * (size_t)i * len, len,
                                 e->mr->lkey};
}

/* The bytes of n elements laid end to end equal those at dst. */
static int
same(const struct ibv_sge *sg, int n, const uint8_t *dst)
{
    size_t off = 0;

    for (int i = 0; i < n; i++) {
        if (memcmp((const void *)(uintptr_t)sg[i].addr, dst + off, sg[i].length) != 0)
            return 0;
        off += sg[i].length;
    }
    return 1;
}

static int
run_sge(int n)
{
    struct end a, b;
    struct ibv_sge src[32], dst[32], back[32];
    struct ibv_wc wc[4];
    struct ibv_send_wr *bad;
    struct ibv_recv_wr *rbad;
    uint32_t len = 700;     /* n * 700 bytes: several packets at 1024 */
    int ok = 1;

    if (n < 1 || n > 32)
        return 2;
    two_ends(&a, &b, n);
    for (int i = 0; i < BUF; i++)
        a.buf[i] = (uint8_t)(i * 13 + 7);
    /* SEND: a's elements at 0.., into b's at 0.. */
    elements(&a, 0, n, len, src);
    elements(&b, 0, n, len, dst);
    struct ibv_recv_wr r = {.wr_id = 1, .sg_list = dst, .num_sge = n};
    struct ibv_send_wr s = {.wr_id = 2, .sg_list = src, .num_sge = n, .opcode = IBV_WR_SEND};
    if (ibv_post_recv(b.qp, &r, &rbad) || ibv_post_send(a.qp, &s, &bad))
        fail(2, "post SEND");
    if (wait_cq(a.cq, 1, wc) != 1 || wc[0].status != IBV_WC_SUCCESS ||
        wait_cq(b.cq, 1, wc) != 1 || wc[0].status != IBV_WC_SUCCESS ||
        wc[0].byte_len != (uint32_t)n * len)
        ok = 0;
    uint8_t *flat = malloc((size_t)n * len);
    for (int i = 0; i < n; i++)
        memcpy(flat + (size_t)i * len, (void *)(uintptr_t)src[i].addr, len);
    int send_ok = ok && same(dst, n, flat);
    printf("sge %d: send %s\n", n, send_ok ? "ok" : "WRONG");
    /* WRITE: the same elements of a, into b's contiguous 32768.. */
    s.opcode = IBV_WR_RDMA_WRITE;
    s.wr_id = 3;
    s.wr.rdma.remote_addr = (uintptr_t)b.buf + 32768;
    s.wr.rdma.rkey = b.mr->rkey;
    int write_ok = ibv_post_send(a.qp, &s, &bad) == 0 && wait_cq(a.cq, 1, wc) == 1 &&
                   wc[0].status == IBV_WC_SUCCESS && memcmp(b.buf + 32768, flat,
                                                            (size_t)n * len) == 0;
    printf("sge %d: write %s\n", n, write_ok ? "ok" : "WRONG");
    /* READ: b's 32768.. back into n other elements of a. */
    elements(&a, 4096 * 8, n, len, back);
    s.opcode = IBV_WR_RDMA_READ;
    s.wr_id = 4;
    s.sg_list = back;
    int read_ok = ibv_post_send(a.qp, &s, &bad) == 0 && wait_cq(a.cq, 1, wc) == 1 &&
                  wc[0].status == IBV_WC_SUCCESS && same(back, n, flat);
    printf("sge %d: read %s\n", n, read_ok ? "ok" : "WRONG");
    free(flat);
    return send_ok && write_ok && read_ok ? 0 : 1;
}

/* A page of its own, so that it can be made inaccessible. */
static uint8_t *
page_buffer(size_t len, int fill)
{
    uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED)
        fail(2, "mmap");
    memset(p, fill, len);
    return p;
}

/* Our line to the responder's side channel, its answer: QPN, R_Key and VA. */
static int
side_channel(const char *ip, int port, const char *my_ip, uint32_t qpn, uint32_t *rqpn,
             uint32_t *rkey, uint64_t *va)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    char line[512], buf[4096];
    size_t got = 0;

    inet_pton(AF_INET, ip, &sa.sin_addr);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
        fail(2, "side channel");
    int n = snprintf(line, sizeof(line),
                     "{\"ip\": \"%s\", \"qpn\": %u, \"psn\": 0, \"pmtu\": 1024}\n", my_ip, qpn);
    if (write(fd, line, (size_t)n) != n)
        fail(2, "side channel");
    while (got < sizeof(buf) - 1 && memchr(buf, '\n', got) == NULL) {
        ssize_t k = read(fd, buf + got, sizeof(buf) - 1 - got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    buf[got] = '\0';
    const char *q = strstr(buf, "\"qpn\": "), *k = strstr(buf, "\"rkey\": "),
               *v = strstr(buf, "\"va\": ");
    if (q == NULL || k == NULL || v == NULL) {
        fprintf(stderr, "verbs_prog: the responder said %s\n", buf);
        exit(2);
    }
    *rqpn = (uint32_t)strtoul(q + 7, NULL, 10);
    *rkey = (uint32_t)strtoul(k + 8, NULL, 10);
    *va = strtoull(v + 6, NULL, 10);
    return fd;      /* kept open: the responder keeps the QP while it is */
}

static void
one_end(struct end *e, const char *ip, int port, uint32_t *rkey, uint64_t *va, int depth)
{
    int n;
    struct ibv_device **list = ibv_get_device_list(&n);
    uint32_t rqpn;
    union ibv_gid peer;

    if (list == NULL || n < 1)
        fail(2, "no device");
    e->ctx = ibv_open_device(list[0]);
    ibv_free_device_list(list);
    if (e->ctx == NULL || (e->pd = ibv_alloc_pd(e->ctx)) == NULL ||
        (e->cq = ibv_create_cq(e->ctx, 64, NULL, NULL, 0)) == NULL)
        fail(2, "device");
    struct ibv_qp_init_attr ia = {.send_cq = e->cq, .recv_cq = e->cq, .qp_type = IBV_QPT_RC,
                                  .sq_sig_all = 1,
                                  .cap = {.max_send_wr = (uint32_t)depth, .max_recv_wr = 4,
                                          .max_send_sge = 1, .max_recv_sge = 1,
                                          .max_inline_data = 64}};
    if ((e->qp = ibv_create_qp(e->pd, &ia)) == NULL ||
        ibv_query_gid(e->ctx, 1, GID_INDEX, &e->gid) != 0)
        fail(2, "QP");
    char my_ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, e->gid.raw + 12, my_ip, sizeof(my_ip));
    side_channel(ip, port, my_ip, e->qp->qp_num, &rqpn, rkey, va);
    memset(&peer, 0, sizeof(peer));
    peer.raw[10] = peer.raw[11] = 0xff;
    inet_pton(AF_INET, ip, peer.raw + 12);
    connect_qp(e->qp, &peer, rqpn, 18);
}

/* A READ (into_local) or a WRITE of a page deregistered, then made inaccessible, right
 * after the post: the request must fail with "local protection error" when its data
 * moves again, without touching the page (which would crash us). */
static int
run_dereg(const char *ip, int port, int read)
{
    struct end e;
    uint32_t rkey;
    uint64_t va;
    struct ibv_wc wc[2];
    struct ibv_send_wr *bad;

    one_end(&e, ip, port, &rkey, &va, 8);
    uint8_t *page = page_buffer(4096, read ? 't' : 'S');
    struct ibv_mr *mr = ibv_reg_mr(e.pd, page, 4096, IBV_ACCESS_LOCAL_WRITE);
    struct ibv_sge sg = {(uintptr_t)page, 4096, mr->lkey};
    struct ibv_send_wr w = {.wr_id = 1, .sg_list = &sg, .num_sge = 1,
                            .opcode = read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE};
    w.wr.rdma.remote_addr = va;
    w.wr.rdma.rkey = rkey;
    if (ibv_post_send(e.qp, &w, &bad))
        fail(2, "post");
    int rc = ibv_dereg_mr(mr);
    /* No longer the provider's: any access of it now is a crash. */
    mprotect(page, 4096, PROT_NONE);
    int got = wait_cq(e.cq, 1, wc);
    printf("dereg %d, %s: %s\n", rc, read ? "READ" : "WRITE",
           got == 1 ? ibv_wc_status_str(wc[0].status) : "no completion");
    return got == 1 && wc[0].status == IBV_WC_LOC_PROT_ERR ? 0 : 1;
}

static int
run_inline_slot(const char *ip, int port)
{
    struct end e;
    uint32_t rkey;
    uint64_t va;
    struct ibv_wc wc[8];
    struct ibv_send_wr *bad;
    char data[5][16];
    int posted = 0, refused = 0;

    one_end(&e, ip, port, &rkey, &va, 4);
    for (int i = 0; i < 5; i++) {
        memset(data[i], i < 4 ? 'A' + i : 'Z', 16);
        struct ibv_sge sg = {(uintptr_t)data[i], 16, 0};
        struct ibv_send_wr w = {.wr_id = (uint64_t)i, .sg_list = &sg, .num_sge = 1,
                                .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_INLINE};
        w.wr.rdma.remote_addr = va + 16u * (unsigned)i;
        w.wr.rdma.rkey = rkey;
        int rc = ibv_post_send(e.qp, &w, &bad);
        posted += rc == 0;
        refused += rc == ENOMEM;
        memset(data[i], '?', 16);       /* inline: the buffer is ours again at once */
    }
    int got = wait_cq(e.cq, posted, wc), good = 0;
    for (int i = 0; i < got; i++)
        good += wc[i].status == IBV_WC_SUCCESS;
    printf("inline: %d posted, %d refused (ENOMEM), %d of %d completed with success\n",
           posted, refused, good, got);
    return posted == 4 && refused == 1 && good == 4 ? 0 : 1;
}

int
main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 3 && strcmp(argv[1], "sge") == 0)
        return run_sge(atoi(argv[2]));
    if (argc == 4 && strcmp(argv[1], "dereg-read") == 0)
        return run_dereg(argv[2], atoi(argv[3]), 1);
    if (argc == 4 && strcmp(argv[1], "dereg-write") == 0)
        return run_dereg(argv[2], atoi(argv[3]), 0);
    if (argc == 4 && strcmp(argv[1], "inline-slot") == 0)
        return run_inline_slot(argv[2], atoi(argv[3]));
    fprintf(stderr, "usage: verbs_prog sge N | dereg-read IP PORT | dereg-write IP PORT | "
                    "inline-slot IP PORT\n");
    return 2;
}
