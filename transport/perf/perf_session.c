/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_session.c - a perftest session up to its first packet: the tests,
 * the buffers, the TCP exchange of QP parameters, the QP and the header.
 *
 * As with ib_write_bw and friends, the client connects to the server over
 * TCP (port 18515) and decides the size and the iterations; each side sends
 * one line with its address, QP, PSN, R_Key, VA and MTU.
 */
#include <inttypes.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "perf_int.h"

/* The ends are perftest 6.20's (its write_bw.c, send_bw.c, ... and the captures in
 * tests/captures/real/); the key messages before the traffic are perf_perftest.c's rounds. */
static const struct rs_perf_test tests[] = {
    {"write_bw", "RDMA_Write BW Test", false, RS_RC_WR_RDMA_WRITE, RS_PERF_END_REPORT, false,
     false},
    {"read_bw", "RDMA_Read BW Test", false, RS_RC_WR_RDMA_READ, RS_PERF_END_REPORT, false,
     false},
    {"send_bw", "Send BW Test", false, RS_RC_WR_SEND, RS_PERF_END_CLOSE, false, false},
    {"atomic_bw", "Atomic FETCH_AND_ADD BW Test", false, RS_RC_WR_ATOMIC_FETCH_AND_ADD,
     RS_PERF_END_REPORT, false, false},
    {"send_lat", "Send Latency Test", true, RS_RC_WR_SEND, RS_PERF_END_CLOSE, false, false},
    {"write_lat", "RDMA_Write Latency Test", true, RS_RC_WR_RDMA_WRITE, RS_PERF_END_NONE,
     false, false},
    {"read_lat", "RDMA_Read Latency Test", true, RS_RC_WR_RDMA_READ, RS_PERF_END_CLOSE, false,
     false},
    {"atomic_lat", "Atomic FETCH_AND_ADD Latency Test", true, RS_RC_WR_ATOMIC_FETCH_AND_ADD,
     RS_PERF_END_CLOSE, false, false},
    {"pingpong", "RC pingpong", true, RS_RC_WR_SEND, RS_PERF_END_NONE, true, false},
    /* rping advertises its buffers in SENDs; the server READs and WRITEs them. */
    {"rping", "rping", true, RS_RC_WR_SEND, RS_PERF_END_NONE, false, true},
};

const struct rs_perf_test *
rs_perf_test_find(const char *name)
{
    for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
        if (strcmp(tests[i].name, name) == 0)
            return &tests[i];
    return NULL;
}

const char *
rs_perf_test_names(void)
{
    return "write_bw, read_bw, send_bw, atomic_bw, send_lat, write_lat, read_lat, atomic_lat, "
           "pingpong, rping";
}

/* The receive slots: only the tests that receive SENDs post any. Each QP's area holds
 * rx_depth slots, or as many as RX_AREA_MAX takes (at least one), which the receives then
 * share, as perftest's do: a bandwidth test does not read what it received, and -a's
 * 8 MiB slots would otherwise make 4 GiB per QP. */
#define RX_AREA_MAX (8ull << 20)
#define REFUSED_LINGER_NS 2000000000ull     /* as the responder's refused connections */
static uint64_t
receive_bytes(const struct rs_perf *p, uint64_t size)
{
    uint64_t len = size > 0 ? size : 1, per = (uint64_t)p->rx_depth * len;

    if (p->test->opcode != RS_RC_WR_SEND)
        return 4096;
    if (per > RX_AREA_MAX)
        per = len > RX_AREA_MAX ? len : RX_AREA_MAX / len * len;
    return (uint64_t)rs_perf_n_qps(p) * per;
}

uint64_t
rs_perf_region_bytes(const struct rs_perf *p, uint64_t size)
{
    uint64_t page = p->page != 0 ? p->page : 4096;

    return 2 * rs_perf_n_qps(p) * (size > page ? size : page) + receive_bytes(p, size);
}

int
rs_perf_setup(struct rs_perf *p, char *err)
{
    uint64_t size = rs_perf_largest(p);

    if (p->page == 0)
        p->page = 4096;
    p->half = size > p->page ? size : p->page;
    p->buf = rs_rc_mem_alloc(2 * rs_perf_n_qps(p) * p->half);
    p->rbuf_len = receive_bytes(p, size);
    p->rbuf = rs_rc_mem_alloc(p->rbuf_len);
    if (p->buf == NULL || p->rbuf == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory for %" PRIu64 "-byte buffers", size);
    for (uint32_t q = 0; q < rs_perf_n_qps(p); q++)
        for (uint64_t i = 0; i < size; i++)
            rs_perf_send_area(p, q)[i] = (uint8_t)(i * 31 + 7);
    if (rs_rc_mr_reg(p->ctx, p->buf, 2 * rs_perf_n_qps(p) * p->half, 0, 0,
                     RS_RC_ACCESS_LOCAL_WRITE | RS_RC_ACCESS_REMOTE_ALL, &p->mr, err) < 0 ||
        rs_rc_mr_reg(p->ctx, p->rbuf, p->rbuf_len, 0, 0, RS_RC_ACCESS_LOCAL_WRITE, &p->rmr,
                     err) < 0)
        return RS_ENOMEM;
    return 0;
}

static void free_buffers(struct rs_perf *p);

int
rs_perf_resetup(struct rs_perf *p, char *err)
{
    free_buffers(p);
    rs_rc_mr_dereg(p->ctx, p->mr.lkey);
    rs_rc_mr_dereg(p->ctx, p->rmr.lkey);
    return rs_perf_setup(p, err);
}

static void
free_buffers(struct rs_perf *p)
{
    rs_rc_mem_free(p->buf, 2 * rs_perf_n_qps(p) * p->half);
    rs_rc_mem_free(p->rbuf, p->rbuf_len);
    p->buf = p->rbuf = NULL;
}

void
rs_perf_our_info_of(const struct rs_perf *p, uint32_t i, struct rs_rc_conn_info *info)
{
    memcpy(info->gid, p->local_gid, 16);
    info->qpn = p->qpn + i;
    info->psn = (p->psn + i * 0x1000) & 0xffffff;
    info->rkey = p->mr.rkey;
    /* the area the peer writes or reads */
    info->va = p->mr.va + (uint64_t)(rs_perf_peer_area(p, i) - p->buf);
    info->length = p->half;
    info->pmtu = p->attr.pmtu;
}

void
rs_perf_our_info(const struct rs_perf *p, struct rs_rc_conn_info *info)
{
    rs_perf_our_info_of(p, 0, info);
}

int
rs_perf_post_all_recvs(struct rs_perf *p, char *err)
{
    for (uint32_t i = 0; i < rs_perf_n_qps(p) * p->rx_depth; i++)
        if (rs_perf_post_recv(p, i, err) < 0)
            return RS_ENOMEM;
    return 0;
}

int
rs_perf_create_qp(struct rs_perf *p, char *err)
{
    for (uint32_t i = 0; i < rs_perf_n_qps(p); i++) {
        struct rs_rc_qp_attr a = p->attr;
        struct rs_rc_conn_info ours;
        rs_perf_our_info_of(p, i, &ours);
        rs_rc_qp_attr_connect(&a, ours.qpn, ours.psn, rs_perf_peer(p, i));
        a.sq_depth = p->tx_depth + 16;
        a.rq_depth = p->rx_depth;
        a.max_inflight = 2048;
        /* perftest's peer takes as many READs and atomics as it said (out_reads). */
        if (p->setup == RS_OOB_SETUP_PERFTEST && p->theirs.out_reads > 0 &&
            p->theirs.out_reads < a.max_rd_atomic)
            a.max_rd_atomic = (uint8_t)p->theirs.out_reads;
        struct rs_rc_qp **qp = i == 0 ? &p->qp : &p->more_qps[i];
        if (rs_rc_qp_create(p->ctx, &a, qp, err) < 0)    /* a peer of the other IP version */
            return rs_addr_family(a.peer_gid) != rs_addr_family(p->local_gid) ? RS_EIO
                                                                               : RS_EINVAL;
        if (i == 0)
            p->attr.pmtu = a.pmtu;
    }
    return p->test->opcode == RS_RC_WR_SEND ? rs_perf_post_all_recvs(p, err) : 0;
}

/* Our client's first line: QP 0 and the test, which the server takes as it is. */
static void
client_line(const struct rs_perf *p, char *line, size_t size)
{
    struct rs_rc_conn_info info;

    rs_perf_our_info(p, &info);
    int n = rs_rc_conn_format(&info, line, size);
    snprintf(line + n - 1, size - (size_t)n + 1,
             ", \"test\": \"%s\", \"size\": %" PRIu64 ", \"iters\": %" PRIu64 ", \"qps\": %" PRIu32
             ", \"duplex\": %d, \"all\": %d}",
             p->test->name, p->size, p->iters, rs_perf_n_qps(p), p->duplex, p->all_sizes);
}

static int
exchange_client(struct rs_perf *p, char *err)
{
    char line[1024];
    struct rs_rc_conn_info info;

    if (p->setup == RS_OOB_SETUP_CM)
        return rs_perf_cm_connect(p, err);
    if (p->setup == RS_OOB_SETUP_PERFTEST_CM)
        return rs_perf_perftest_exchange(p, err);
    if (rs_rc_side_connect(p->server_gid, p->server_scope, p->port, 5000, &p->fd, err) < 0)
        return RS_EIO;
    if (p->setup == RS_OOB_SETUP_PERFTEST)
        return rs_perf_perftest_exchange(p, err);
    if (p->setup == RS_OOB_SETUP_PINGPONG)
        return rs_perf_pingpong_exchange(p, err);
    client_line(p, line, sizeof(line));
    if (rs_rc_side_exchange(p->fd, line, &p->peer, err) != 0)
        return RS_EIO;
    /* -q: one more line each way per QP. */
    for (uint32_t i = 1; i < rs_perf_n_qps(p); i++) {
        rs_perf_our_info_of(p, i, &info);
        rs_rc_conn_format(&info, line, sizeof(line));
        if (rs_rc_side_exchange(p->fd, line, rs_perf_peer(p, i), err) != 0)
            return RS_EIO;
    }
    return rs_perf_create_qp(p, err);
}

/* The test our client's first line names, its size within --mr, and its options. */
static int
server_takes_test(struct rs_perf *p, const char *line, char *err)
{
    char name[32], why[RS_ERRBUF_SIZE];
    uint64_t v, size = p->size;
    struct rs_perf want = *p;

    if (!rs_rc_json_str(line, "test", name, sizeof(name)) || strcmp(name, p->test->name) != 0) {
        snprintf(why, sizeof(why), "this server runs %s, not %s", p->test->name, name);
        rs_rc_side_send_error(p->fd, why);
        return rs_error(err, RS_EINVAL, "the client runs %s, this server %s", name,
                        p->test->name);
    }
    if (rs_rc_json_u64(line, "size", &v))
        size = v;
    want.n_qps = 1;     /* a client that does not say runs one */
    if (rs_rc_json_u64(line, "qps", &v))
        want.n_qps = v >= 1 && v <= RS_PERF_MAX_QPS ? (uint32_t)v : 0;
    want.duplex = rs_rc_json_u64(line, "duplex", &v) && v != 0;
    want.all_sizes = rs_rc_json_u64(line, "all", &v) && v != 0;
    if (want.n_qps == 0) {
        snprintf(why, sizeof(why), "-q: at most %d QPs", RS_PERF_MAX_QPS);
        rs_rc_side_send_error(p->fd, why);
        return rs_error(err, RS_EINVAL, "the client asked for %s; refused", why);
    }
    want.size = size;
    /* A client names the size; what that makes us hold is ours to cap. */
    uint64_t max = p->mr_max != 0 ? p->mr_max : RS_PERF_DEFAULT_MR_MAX;
    uint64_t need = rs_perf_region_bytes(&want, rs_perf_largest(&want));
    if (size > (1u << 30) || need > max) {
        snprintf(why, sizeof(why), "%s of %" PRIu64 " bytes needs %" PRIu64 " bytes of "
                 "regions, more than this server's --mr %" PRIu64 " allows", p->test->name,
                 size, need, max);
        rs_rc_side_send_error(p->fd, why);
        return rs_error(err, RS_EINVAL, "the client asked for %s; refused", why);
    }
    free_buffers(p);    /* with the old sizes, before they change */
    rs_rc_mr_dereg(p->ctx, p->mr.lkey);
    rs_rc_mr_dereg(p->ctx, p->rmr.lkey);
    p->size = size;
    p->n_qps = want.n_qps;
    p->duplex = want.duplex;
    p->all_sizes = want.all_sizes;
    if (rs_rc_json_u64(line, "iters", &v) && v > 0 && v <= 100000000)
        p->iters = v;
    return rs_perf_setup(p, err);
}

static int
exchange_server(struct rs_perf *p, char *err)
{
    char line[1024];
    struct rs_rc_conn_info info;
    int listen_fd = -1, rc;

    if (p->setup == RS_OOB_SETUP_PERFTEST_CM)     /* -R: no TCP at all */
        return rs_perf_perftest_exchange(p, err);
    if (rs_rc_side_listen(p->local_gid, p->local_scope, p->port, &listen_fd, err) < 0 ||
        rs_rc_side_accept(listen_fd, &p->fd, err) < 0) {
        if (listen_fd >= 0)
            close(listen_fd);
        return RS_EIO;
    }
    close(listen_fd);
    if (p->test->pingpong) {
        p->setup = RS_OOB_SETUP_PINGPONG;
        return rs_perf_pingpong_exchange(p, err);
    }
    /* Our client opens with a JSON line, perftest's with its version. */
    uint8_t first;
    struct pollfd pfd = {p->fd, POLLIN, 0};
    if (poll(&pfd, 1, 5000) <= 0 || recv(p->fd, &first, 1, MSG_PEEK) != 1)
        return rs_error(err, RS_EIO, "the client sent nothing within 5 s");
    if (first != '{') {
        p->setup = RS_OOB_SETUP_PERFTEST;
        return rs_perf_perftest_exchange(p, err);
    }
    if (rs_rc_side_recv(p->fd, line, sizeof(line), 5000, err) < 0 ||
        rs_rc_conn_parse(line, &p->peer, err) < 0)
        return RS_EIO;
    if ((rc = server_takes_test(p, line, err)) != 0)
        return rc;
    for (uint32_t i = 0; i < rs_perf_n_qps(p); i++) {
        if (i > 0 && (rs_rc_side_recv(p->fd, line, sizeof(line), 5000, err) < 0 ||
                      rs_rc_conn_parse(line, rs_perf_peer(p, i), err) < 0))
            return RS_EIO;
        rs_perf_our_info_of(p, i, &info);
        info.pmtu = rs_rc_path_mtu(info.pmtu, rs_perf_peer(p, i)->pmtu, 0);
        rs_rc_conn_format(&info, line, sizeof(line));
        if (rs_rc_side_send(p->fd, line, err) < 0)
            return RS_EIO;
    }
    return rs_perf_create_qp(p, err);
}

int
rs_perf_side_sync(struct rs_perf *p, const char *what, char *err)
{
    char line[256];

    snprintf(line, sizeof(line), "{\"sync\": \"%s\"}", what);
    if (p->client && rs_rc_side_send(p->fd, line, err) < 0)
        return RS_EIO;
    if (rs_perf_serve_until_readable(p, err) < 0 ||
        rs_rc_side_recv(p->fd, line, sizeof(line), 10000, err) < 0)
        return RS_EIO;
    if (!p->client) {
        snprintf(line, sizeof(line), "{\"sync\": \"%s\"}", what);
        if (rs_rc_side_send(p->fd, line, err) < 0)
            return RS_EIO;
    }
    return 0;
}

int
rs_perf_exchange(struct rs_perf *p, char *err)
{
    if (p->client)
        return exchange_client(p, err);
    int rc = exchange_server(p, err);
    /* A client refused (its test, -q, its size, a damaged message) may have sent more than
     * we read: closed at once, the connection would answer with a reset, which the client
     * sees instead of our line's orderly end. */
    if (rc != 0 && p->fd >= 0) {
        rs_rc_side_close_lingering(p->fd, REFUSED_LINGER_NS);
        p->fd = -1;
    }
    return rc;
}

int
rs_perf_client_end(struct rs_perf *p, const struct rs_oob_bw_report *report, char *err)
{
    if (rs_perf_is_perftest(p) && rs_perf_perftest_end(p, report, NULL, err) < 0)
        return RS_EIO;
    return rs_perf_disconnect(p, err);
}

int
rs_perf_disconnect(struct rs_perf *p, char *err)
{
    if (p->setup == RS_OOB_SETUP_PERFTEST_CM)
        return rs_perf_cm_close(p, err);    /* perftest -R: both sides' DREQs */
    if (p->setup == RS_OOB_SETUP_CM && p->client)
        return rs_perf_cm_disconnect(p, err);
    return 0;
}

void
rs_perf_print_header(const struct rs_perf *p)
{
    const char *line = RS_PERF_RESULT_LINE;
    FILE *out = p->out != NULL ? p->out : stdout;
    char ip[RS_ADDR_TEXT_MAX];

    if (p->test->pingpong) {
        rs_perf_pingpong_header(p);
        return;
    }
    if (p->test->rping)
        return;     /* rping says nothing before its pings */
    fprintf(out, "%s", line);
    fprintf(out, "                    %s\n", p->test->title);
    fprintf(out, " Transport type : RoCEv2 over UDP (roceshark software RC)\n");
    fprintf(out, " Connection type : RC\t\tUsing SRQ      : OFF\n");
    fprintf(out, " Number of qps   : %" PRIu32 "\t\tDuplex         : %s\n", rs_perf_n_qps(p),
            p->duplex ? "ON" : "OFF");
    fprintf(out, " TX depth        : %u\t\tICRC checked   : %s\n", p->tx_depth,
            rs_rc_udp_checks_icrc(p->udp) ? "ON" : "OFF");
    fprintf(out, " Mtu             : %u[B]\tPolling        : %s\n", p->attr.pmtu,
            p->busy_poll ? "busy" : "blocking");
    fprintf(out, "%s", line);
    /* What we advertise, each QP's, then the peer's, as perftest prints them. */
    for (uint32_t i = 0; i < rs_perf_n_qps(p); i++) {
        struct rs_rc_conn_info ours;
        rs_perf_our_info_of(p, i, &ours);
        fprintf(out, " local address: IP %s QPN %#08x PSN %#08x RKey %#010x VAddr %#016"
                PRIx64 "\n", rs_addr_format(p->local_gid, 0, ip, sizeof(ip)), ours.qpn,
                ours.psn, ours.rkey, ours.va);
    }
    for (uint32_t i = 0; i < rs_perf_n_qps(p); i++) {
        const struct rs_rc_conn_info *peer = i == 0 ? &p->peer : &p->more_peers[i];
        fprintf(out, " remote address: IP %s QPN %#08x PSN %#08x RKey %#010x VAddr %#016"
                PRIx64 "\n", rs_addr_format(peer->gid, 0, ip, sizeof(ip)), peer->qpn,
                peer->psn, peer->rkey, peer->va);
    }
    fprintf(out, "%s", line);
    fflush(out);
}

void
rs_perf_release(struct rs_perf *p)
{
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
    rs_perf_rping_release(p);
    rs_perf_cm_release(p);
    free_buffers(p);
}
