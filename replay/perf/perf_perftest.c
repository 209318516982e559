/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_perftest.c - perftest's out-of-band exchange, as client or server,
 * so that ib_write_bw and its family run against us and we against them.
 *
 * The steps follow perftest 6.20 as captured (tests/captures/real/): the
 * version, the system data, the MTU, then the key message as many times as
 * the test syncs before its traffic, and after it a BW report or a closing
 * handshake (struct rs_perf_test says which). The messages themselves are
 * replay/oob/'s. We announce 6.20: perftest 6.28 and later negotiate their
 * parameters only with peers of 6.28 or more, so with us they skip it, as
 * we do; as in perftest before 6.28, both sides are given the same -s and
 * -n. Peers before 5.70 are refused, as perftest 6.x refuses them.
 *
 * With -R the same steps go as SENDs on a QP that RDMA CM connected (the
 * channel, perf_cm.c), the key message as perftest's struct rather than
 * text, and two barriers of zero keys surround the test QP's connection.
 */
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "perf_int.h"

#define STEP_TIMEOUT_MS 10000       /* one step of the exchange */
#define PAGE_SIZE_ANNOUNCED 4096
#define CACHE_LINE_ANNOUNCED 64

/* One step of the exchange in perftest's order, the client first: over TCP,
 * or as one SEND each way on perftest -R's channel. */
static int
step(struct rs_perf *p, const void *mine, void *theirs, size_t n, const char *what, char *err)
{
    if (p->setup == RS_OOB_SETUP_PERFTEST_CM)
        return rs_perf_cm_chan_xchg(p, mine, theirs, n, what, err);
    return rs_oob_xchg(p->fd, p->client, mine, theirs, n, STEP_TIMEOUT_MS, what, err);
}

/* perftest -R's key message: its struct as bytes, on the channel. */
static int
xchg_cm_key(struct rs_perf *p, const struct rs_oob_dest *mine, struct rs_oob_dest *theirs,
            char *err)
{
    uint8_t out[RS_OOB_PERFTEST_CM_KEY_SIZE], in[RS_OOB_PERFTEST_CM_KEY_SIZE];
    int rc;

    rs_oob_perftest_cm_key_format(mine, out);
    if ((rc = step(p, out, in, sizeof(in), "perftest -R key message", err)) < 0)
        return rc;
    return rs_oob_perftest_cm_key_parse(in, sizeof(in), theirs, err);
}

/* One key message each way in perftest's order; over TCP the server answers
 * in the form (with or without GID) its client used. */
static int
xchg_key(struct rs_perf *p, char *err)
{
    uint8_t mine[RS_OOB_PERFTEST_KEY_GID_SIZE], theirs[RS_OOB_PERFTEST_KEY_GID_SIZE];
    size_t n;
    int rc;

    if (p->setup == RS_OOB_SETUP_PERFTEST_CM)
        return xchg_cm_key(p, &p->mine, &p->theirs, err);
    if (p->client && (rc = rs_oob_write(p->fd, mine, rs_oob_perftest_key_format(&p->mine, mine),
                                        "perftest key message", err)) < 0)
        return rc;
    if ((rc = rs_oob_read(p->fd, theirs, RS_OOB_PERFTEST_KEY_SIZE, STEP_TIMEOUT_MS,
                          "perftest key message", err)) < 0 ||
        (rc = rs_oob_perftest_key_size(theirs, err)) < 0)
        return rc;
    n = (size_t)rc;
    if (n > RS_OOB_PERFTEST_KEY_SIZE &&
        (rc = rs_oob_read(p->fd, theirs + RS_OOB_PERFTEST_KEY_SIZE, n - RS_OOB_PERFTEST_KEY_SIZE,
                          STEP_TIMEOUT_MS, "perftest key message", err)) < 0)
        return rc;
    if ((rc = rs_oob_perftest_key_parse(theirs, n, &p->theirs, err)) < 0)
        return rc;
    if (!p->client) {
        p->mine.has_gid = p->theirs.has_gid;
        if ((rc = rs_oob_write(p->fd, mine, rs_oob_perftest_key_format(&p->mine, mine),
                               "perftest key message", err)) < 0)
            return rc;
    }
    return 0;
}

/* Version, system data and MTU: what perftest settles before the keys. */
static int
xchg_preamble(struct rs_perf *p, char *err)
{
    uint8_t mine[16], theirs[16];
    uint32_t page, line, pmtu;
    int rc;

    rs_oob_perftest_version_format(mine);
    if ((rc = step(p, mine, theirs, RS_OOB_PERFTEST_VERSION_SIZE, "perftest version",
                   err)) < 0 ||
        (rc = rs_oob_perftest_version_parse(theirs, &p->peer_version, err)) < 0)
        return rc;
    if (p->peer_version < RS_OOB_PERFTEST_MIN_VERSION)
        return rs_error(err, RS_ENOTSUP, "perftest %u.%02u is older than 5.70, which 6.x peers "
                        "need", p->peer_version / 100, p->peer_version % 100);
    /* Two steps of 4 bytes each: the page size, then the cache line size. */
    rs_oob_perftest_sysdata_format(PAGE_SIZE_ANNOUNCED, CACHE_LINE_ANNOUNCED, mine);
    if ((rc = step(p, mine, theirs, 4, "perftest page size", err)) < 0 ||
        (rc = step(p, mine + 4, theirs + 4, 4, "perftest cache line size", err)) < 0 ||
        (rc = rs_oob_perftest_sysdata_parse(theirs, &page, &line, err)) < 0)
        return rc;
    rs_oob_perftest_mtu_format(p->attr.pmtu, mine);
    if ((rc = step(p, mine, theirs, RS_OOB_PERFTEST_MTU_SIZE, "perftest MTU", err)) < 0 ||
        (rc = rs_oob_perftest_mtu_parse(theirs, &pmtu, err)) < 0)
        return rc;
    if (pmtu < p->attr.pmtu)
        p->attr.pmtu = pmtu;
    /* perftest walks its peer's buffer up to its page size past the VA. */
    if (page > p->page) {
        p->page = page;
        return rs_perf_resetup(p, err);
    }
    return 0;
}

/* The peer's RoCE address: its GID (IPv4-mapped for IPv4, as perftest sends
 * it), or without a GID (the 59-byte form) the address it reached us from
 * over TCP. */
static int
peer_address(struct rs_perf *p, uint8_t gid[16], char *err)
{
    if (p->theirs.has_gid) {
        memcpy(gid, p->theirs.gid, 16);
        return 0;
    }
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    if (getpeername(p->fd, (struct sockaddr *)&ss, &len) < 0 ||
        !rs_addr_from_sockaddr((struct sockaddr *)&ss, gid, NULL, NULL))
        return rs_error(err, RS_ENOTSUP, "perftest key message without GID from a peer that is "
                        "neither IPv4 nor IPv6");
    return 0;
}

/* Over TCP: the first keys carry everything; then the QP. */
static int
tcp_connect_test(struct rs_perf *p, char *err)
{
    int rc;

    if ((rc = xchg_key(p, err)) < 0 || (rc = peer_address(p, p->peer.gid, err)) < 0)
        return rc;
    p->peer.qpn = p->theirs.qpn;
    p->peer.psn = p->theirs.psn;
    p->peer.rkey = p->theirs.rkey;
    p->peer.va = p->theirs.vaddr;
    p->peer.length = p->size;
    p->peer.pmtu = p->attr.pmtu;
    return rs_perf_create_qp(p, err);
}

/* perftest -R: a barrier of all-zero keys, the test QP's connection, another
 * barrier (create_rdma_cm_connection()), then the first real keys, which
 * carry the region; the QP numbers and PSNs came with the CM. */
static int
cm_connect_test(struct rs_perf *p, char *err)
{
    struct rs_oob_dest zero, ignored;
    int rc;

    memset(&zero, 0, sizeof(zero));
    if (!p->client)
        rs_perf_cm_listen(p);
    if ((rc = xchg_cm_key(p, &zero, &ignored, err)) < 0 ||
        (rc = rs_perf_cm_test_connect(p, err)) < 0 ||
        (rc = xchg_cm_key(p, &zero, &ignored, err)) < 0 || (rc = xchg_key(p, err)) < 0)
        return rc;
    if (p->theirs.qpn != p->peer.qpn)
        return rs_error(err, RS_EFORMAT, "perftest -R key message: QPN %#x, but the CM "
                        "connected QPN %#x", p->theirs.qpn, p->peer.qpn);
    p->peer.rkey = p->theirs.rkey;
    p->peer.va = p->theirs.vaddr;
    p->peer.length = p->size;
    return 0;
}

int
rs_perf_perftest_exchange(struct rs_perf *p, char *err)
{
    struct rs_rc_conn_info info;
    int rc;

    if (p->setup == RS_OOB_SETUP_PERFTEST_CM && (rc = rs_perf_cm_chan_open(p, err)) < 0)
        return rc;
    if ((rc = xchg_preamble(p, err)) < 0)
        return rc;
    rs_perf_our_info(p, &info);
    memset(&p->mine, 0, sizeof(p->mine));
    p->mine.out_reads = p->attr.max_dest_rd_atomic;
    p->mine.qpn = info.qpn;
    p->mine.psn = info.psn;
    p->mine.rkey = info.rkey;
    p->mine.vaddr = info.va;
    p->mine.has_gid = true;
    memcpy(p->mine.gid, info.gid, 16);
    if (p->setup == RS_OOB_SETUP_PERFTEST_CM)
        rc = cm_connect_test(p, err);
    else
        rc = tcp_connect_test(p, err);
    if (rc < 0)
        return rc;
    /* The other syncs carry the same keys: perftest uses them as barriers
     * (printing, RTR, posted receives). */
    for (unsigned i = 1; i < p->test->syncs; i++)
        if ((rc = xchg_key(p, err)) < 0)
            return rc;
    return 0;
}

int
rs_perf_perftest_end(struct rs_perf *p, const struct rs_oob_bw_report *mine,
                     struct rs_oob_bw_report *theirs, char *err)
{
    uint8_t out[40], in[40];
    size_t off[RS_OOB_PERFTEST_REPORT_FIELDS], len[RS_OOB_PERFTEST_REPORT_FIELDS];
    int rc;

    if (p->test->end == RS_PERF_END_NONE)
        return 0;
    if (p->test->end == RS_PERF_END_REPORT) {
        if ((rc = xchg_key(p, err)) < 0)
            return rc;
        struct rs_oob_bw_report zero;
        memset(&zero, 0, sizeof(zero));
        rs_oob_perftest_report_format(mine != NULL ? mine : &zero, p->peer_version, out);
        rs_oob_perftest_report_layout(p->peer_version, off, len);
        for (int i = 0; i < RS_OOB_PERFTEST_REPORT_FIELDS; i++)
            if ((rc = step(p, out + off[i], in + off[i], len[i], "perftest BW report",
                           err)) < 0)
                return rc;
        if (theirs != NULL && (rc = rs_oob_perftest_report_parse(in, p->peer_version, theirs,
                                                                 err)) < 0)
            return rc;
    }
    return xchg_key(p, err);    /* the closing handshake */
}
