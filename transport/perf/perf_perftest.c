/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_perftest.c - perftest's out-of-band exchange, as client or server,
 * so that ib_write_bw and its family run against us and we against them.
 *
 * The steps follow perftest 6.20 as captured (tests/captures/real/): the
 * version, the system data, the MTU, then the key message as many times as
 * the test syncs before its traffic, and after it a BW report or a closing
 * handshake (struct rs_perf_test says which). The messages themselves are
 * transport/oob/'s. We announce 6.20: perftest 6.28 and later negotiate their
 * parameters only with peers of 6.28 or more, so with us they skip it, as
 * we do; as in perftest before 6.28, both sides are given the same -s and
 * -n. Peers before 5.70 are refused, as perftest 6.x refuses them.
 *
 * With -R the same steps go as SENDs on a QP that RDMA CM connected (the
 * channel, perf_cm.c), the key message as perftest's struct rather than
 * text, and two barriers of zero keys surround the test QP's connection.
 */
#include <inttypes.h>
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
    int rc;

    if (p->setup == RS_OOB_SETUP_PERFTEST_CM)
        return rs_perf_cm_chan_xchg(p, mine, theirs, n, what, err);
    if (p->qp == NULL)
        return rs_oob_xchg(p->fd, p->client, mine, theirs, n, STEP_TIMEOUT_MS, what, err);
    /* Once the QPs exist the peer may still be running its test (-b, or a server that
     * serves): ours answers it while we wait, as a NIC would. */
    if (p->client && (rc = rs_oob_write(p->fd, mine, n, what, err)) < 0)
        return rc;
    if ((rc = rs_perf_serve_until_readable(p, err)) < 0 ||
        (rc = rs_oob_read(p->fd, theirs, n, STEP_TIMEOUT_MS, what, err)) < 0)
        return rc;
    return p->client ? 0 : rs_oob_write(p->fd, mine, n, what, err);
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

/* Our key message for QP i. */
static void
mine_of(struct rs_perf *p, uint32_t i)
{
    struct rs_rc_conn_info info;

    rs_perf_our_info_of(p, i, &info);
    memset(&p->mine, 0, sizeof(p->mine));
    p->mine.out_reads = p->attr.max_dest_rd_atomic;
    p->mine.qpn = info.qpn;
    p->mine.psn = info.psn;
    p->mine.rkey = info.rkey;
    p->mine.vaddr = info.va;
    p->mine.has_gid = true;
    memcpy(p->mine.gid, info.gid, 16);
}

/* One key message of QP i each way. In the first round (learn) the peer's names QP i's
 * peer; in later rounds it must name the same QP, which is where a peer with more QPs
 * than ours (-q) shows: refused by name rather than read as something else. */
static int
key_of_qp(struct rs_perf *p, uint32_t i, bool learn, char *err)
{
    struct rs_rc_conn_info *peer = rs_perf_peer(p, i);
    int rc;

    mine_of(p, i);
    if ((rc = xchg_key(p, err)) < 0)
        return rc;
    if (!learn) {
        if (p->theirs.qpn != peer->qpn)
            return rs_error(err, RS_ENOTSUP, "perftest key message: QP %#x where QP %#x was: "
                            "the peer runs more QPs (-q) than our %" PRIu32 "; give both sides "
                            "the same -q", p->theirs.qpn, peer->qpn, rs_perf_n_qps(p));
        return 0;
    }
    if ((rc = peer_address(p, peer->gid, err)) < 0)
        return rc;
    peer->qpn = p->theirs.qpn;
    peer->psn = p->theirs.psn;
    peer->rkey = p->theirs.rkey;
    peer->va = p->theirs.vaddr;
    peer->length = p->size;
    peer->pmtu = p->attr.pmtu;
    return 0;
}

/* The key messages perftest's tests exchange before their traffic (perftest 4.5 to 6.x:
 * the ctx_hand_shake() calls of each test's main()), as rounds: 'Q' one per QP (QP i's),
 * '1' one (QP 0's). The QPs are made after the first round. */
static const char *
key_rounds(const struct rs_perf *p)
{
    if (p->test->latency)
        return p->test->opcode == RS_RC_WR_SEND ? (p->all_sizes ? "Q1Q" : "Q1Q1") : "1QQ1";
    if (p->test->opcode == RS_RC_WR_SEND)
        return p->all_sizes ? "Q1Q" : "Q1Q1";   /* -a: the fourth is before each size */
    return "QQ1";
}

/* Over TCP: the rounds of key messages; the first carries everything, then the QPs. */
static int
tcp_connect_test(struct rs_perf *p, char *err)
{
    int rc;

    for (const char *r = key_rounds(p); *r != '\0'; r++) {
        uint32_t n = *r == 'Q' ? rs_perf_n_qps(p) : 1;
        for (uint32_t i = 0; i < n; i++)
            if ((rc = key_of_qp(p, i, r == key_rounds(p), err)) < 0)
                return rc;
        if (r == key_rounds(p) && (rc = rs_perf_create_qp(p, err)) < 0)
            return rc;
    }
    return 0;
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
    int rc;

    if (p->setup == RS_OOB_SETUP_PERFTEST_CM && (rc = rs_perf_cm_chan_open(p, err)) < 0)
        return rc;
    if ((rc = xchg_preamble(p, err)) < 0)
        return rc;
    mine_of(p, 0);
    if (p->setup != RS_OOB_SETUP_PERFTEST_CM)
        return tcp_connect_test(p, err);
    if ((rc = cm_connect_test(p, err)) < 0)
        return rc;
    /* The other rounds carry the same keys (one QP over CM): perftest uses them as
     * barriers (printing, RTR, posted receives). */
    for (size_t i = 1; i < strlen(key_rounds(p)); i++)
        if ((rc = xchg_key(p, err)) < 0)
            return rc;
    return 0;
}

int
rs_perf_perftest_sync(struct rs_perf *p, char *err)
{
    mine_of(p, 0);
    return xchg_key(p, err);
}

/* A BW report's fields each way, in perftest's order and widths. Before -b, a key
 * message in their place means the peer runs a step we do not (-b or -a on one side). */
static int
xchg_report(struct rs_perf *p, const struct rs_oob_bw_report *mine,
            struct rs_oob_bw_report *theirs, char *err)
{
    uint8_t out[40], in[40];
    size_t off[RS_OOB_PERFTEST_REPORT_FIELDS], len[RS_OOB_PERFTEST_REPORT_FIELDS];
    struct rs_oob_bw_report zero;
    int rc;

    memset(&zero, 0, sizeof(zero));
    rs_oob_perftest_report_format(mine != NULL ? mine : &zero, p->peer_version, out);
    rs_oob_perftest_report_layout(p->peer_version, off, len);
    for (int i = 0; i < RS_OOB_PERFTEST_REPORT_FIELDS; i++)
        if ((rc = step(p, out + off[i], in + off[i], len[i], "perftest BW report", err)) < 0)
            return rc;
    if (rs_oob_perftest_looks_like_key(in, len[0]))
        return rs_error(err, RS_ENOTSUP, "perftest BW report: a key message came in its place: "
                        "the peer runs %s where we do not; give both sides the same options",
                        p->duplex ? "without -b" : "-b (or -a)");
    if (theirs != NULL && (rc = rs_oob_perftest_report_parse(in, p->peer_version, theirs,
                                                             err)) < 0)
        return rc;
    return 0;
}

int
rs_perf_perftest_reports(struct rs_perf *p, const struct rs_oob_bw_report *mine,
                         struct rs_oob_bw_report *theirs, char *err)
{
    return xchg_report(p, mine, theirs, err);
}

int
rs_perf_perftest_end(struct rs_perf *p, const struct rs_oob_bw_report *mine,
                     struct rs_oob_bw_report *theirs, char *err)
{
    int rc;

    if (p->test->end == RS_PERF_END_NONE)
        return 0;
    /* Without -b, the server learns the client's results now; with -b both sides had
     * each other's after every size. */
    if (p->test->end == RS_PERF_END_REPORT && !p->duplex &&
        ((rc = rs_perf_perftest_sync(p, err)) < 0 || (rc = xchg_report(p, mine, theirs, err)) < 0))
        return rc;
    return rs_perf_perftest_sync(p, err);    /* the closing handshake */
}
