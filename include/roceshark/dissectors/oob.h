/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oob.h - the out-of-band exchanges other RDMA tools run over TCP before
 * their first RoCE packet: perftest's (ib_write_bw and its family) and
 * ibv_rc_pingpong's, and the --connect targets that choose one.
 *
 * The codecs build and parse single messages and do no I/O; oob_io.c moves
 * them over a blocking socket in exact sizes, as the tools read and write
 * them. Parsers take untrusted bytes: they check every byte, never read past
 * the length given, and fail with RS_EFORMAT and "<what>: <why>" in err.
 *
 * GIDs are kept as 16 bytes. A RoCEv2 GID of an IPv4 address is the
 * IPv4-mapped IPv6 address ::ffff:a.b.c.d, which is what perftest and
 * ibv_rc_pingpong put on the wire and print.
 */
#ifndef ROCESHARK_OOB_H
#define ROCESHARK_OOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <roceshark/dissectors/common.h>

/* --- perftest ---
 *
 * After the TCP connect (port 18515), in this order, each step a fixed-size
 * message each way, the client writing first:
 *   version     16 bytes, "6.20" and NULs
 *   system data 4 + 4 bytes: page ("cycle buffer") and cache line size, big-endian
 *   MTU         2 bytes: the ibv_mtu enum as a decimal string ("3" and a NUL)
 *   keys        59 bytes (no GID) or 108 (with GID), repeated as a barrier
 *               ("handshake") a number of times that depends on the test
 *   BW report   8-byte fields, big-endian: size, iterations, peak, average,
 *               message rate (the last three doubles)
 * perftest 6.28 and later add a parameter negotiation after the MTU step
 * when the peer announces 6.28 or more; announcing 6.20 skips it on both
 * sides. perftest before 5.70 refuses 6.x peers, and we refuse it. */

#define RS_OOB_PERFTEST_PORT 18515
#define RS_OOB_PERFTEST_VERSION_SIZE 16
#define RS_OOB_PERFTEST_VERSION "6.20"      /* what we announce */
#define RS_OOB_PERFTEST_MIN_VERSION 570     /* in hundredths: 5.70 */
#define RS_OOB_PERFTEST_MTU_SIZE 2
#define RS_OOB_PERFTEST_KEY_SIZE 59
#define RS_OOB_PERFTEST_KEY_GID_SIZE 108
#define RS_OOB_PERFTEST_REPORT_FIELDS 5

/* One side's QP as perftest's key message carries it (its pingpong_dest). */
struct rs_oob_dest {
    uint16_t lid;           /* 0 on RoCE */
    uint16_t out_reads;     /* READs and atomics it accepts outstanding */
    uint32_t qpn;           /* 24 bits */
    uint32_t psn;           /* 24 bits */
    uint32_t rkey;
    uint64_t vaddr;
    uint32_t srqn;
    bool has_gid;           /* the 108-byte form */
    uint8_t gid[16];
};

/* A bandwidth test's results as the client reports them to the server. The
 * rates are in the unit the reporter prints (MB/s of 2^20 bytes, or Gb/s
 * with --report_gbits), as perftest sends them. */
struct rs_oob_bw_report {
    uint64_t size;
    uint64_t iters;
    double bw_peak;
    double bw_avg;
    double msg_rate;        /* millions of messages per second */
};

/* Writes our version message: the string and NULs. */
void rs_oob_perftest_version_format(uint8_t out[RS_OOB_PERFTEST_VERSION_SIZE]);
/* Parses a peer's version "M.m" (NUL-terminated within the 16 bytes) into
 * hundredths, as perftest compares versions with atof(): "6.20" is 620,
 * "5.1" is 510. */
int rs_oob_perftest_version_parse(const uint8_t in[RS_OOB_PERFTEST_VERSION_SIZE],
                                  unsigned *hundredths, char *err);

/* The system data step: two big-endian ints. */
void rs_oob_perftest_sysdata_format(uint32_t page, uint32_t cache_line, uint8_t out[8]);
int rs_oob_perftest_sysdata_parse(const uint8_t in[8], uint32_t *page, uint32_t *cache_line,
                                  char *err);

/* The MTU step: pmtu in bytes (256..4096) to and from the ibv_mtu digit. */
void rs_oob_perftest_mtu_format(uint32_t pmtu, uint8_t out[RS_OOB_PERFTEST_MTU_SIZE]);
int rs_oob_perftest_mtu_parse(const uint8_t in[RS_OOB_PERFTEST_MTU_SIZE], uint32_t *pmtu,
                              char *err);

/* The key message: writes 59 or 108 bytes (by d->has_gid) into out, which
 * holds RS_OOB_PERFTEST_KEY_GID_SIZE; returns the length. */
size_t rs_oob_perftest_key_format(const struct rs_oob_dest *d, uint8_t *out);
/* Which form a key message has, from its first 59 bytes: the short form
 * ends there with a NUL, the GID form has a ':' there. Returns its length,
 * or RS_EFORMAT. */
int rs_oob_perftest_key_size(const uint8_t first[RS_OOB_PERFTEST_KEY_SIZE], char *err);
/* Parses a whole key message of len bytes (59 or 108). */
int rs_oob_perftest_key_parse(const uint8_t *in, size_t len, struct rs_oob_dest *d, char *err);

/* --- perftest -R: the same steps over RDMA CM ---
 *
 * With -R, perftest opens no TCP connection: it connects an RC QP of its own
 * through RDMA CM (rdma_cm's TCP port space, its -p port, no private data) and
 * sends each step above as one SEND of the same bytes on it, the client first
 * (src/perftest_communication.c: rdma_client_connect(), rdma_server_connect(),
 * ctx_xchg_data_rdma()). Only the key message changes: its struct
 * pingpong_dest, 56 bytes on 64-bit hosts, every int big-endian (htobe32):
 *   0 LID, 4 out_reads, 8 QPN, 12 PSN, 16 R_Key, 20 four bytes of padding
 *   (whatever was on perftest's stack), 24 VA (8 bytes), 32 GID (16, as the
 *   device has it), 48 SRQN, 52 GID index
 * (rdma_write_keys(), rdma_read_keys()). perftest 6.29 adds a VA of its own
 * after the VA (64 bytes); perftest 4.5-0.17 (6.06) to 6.28 send 56. */
#define RS_OOB_PERFTEST_CM_KEY_SIZE 56

/* Writes d as perftest -R's key message (has_gid is ignored: the GID is always
 * there); the padding is zero. */
void rs_oob_perftest_cm_key_format(const struct rs_oob_dest *d,
                                   uint8_t out[RS_OOB_PERFTEST_CM_KEY_SIZE]);
/* Parses len bytes (56) of perftest -R's key message. All-zero keys are
 * valid: perftest -R sends them as barriers before its QPs exist. */
int rs_oob_perftest_cm_key_parse(const uint8_t *in, size_t len, struct rs_oob_dest *d,
                                 char *err);

/* The BW report's fields: their offsets in a buffer of 40 bytes and their
 * sizes, which depend on the peer's version (iterations are 4 bytes before
 * 5.33). */
void rs_oob_perftest_report_layout(unsigned peer_version, size_t off[RS_OOB_PERFTEST_REPORT_FIELDS],
                                   size_t len[RS_OOB_PERFTEST_REPORT_FIELDS]);
void rs_oob_perftest_report_format(const struct rs_oob_bw_report *r, unsigned peer_version,
                                   uint8_t out[40]);
/* Rejects rates that are not finite or are negative, and a size past 4 GiB. */
int rs_oob_perftest_report_parse(const uint8_t in[40], unsigned peer_version,
                                 struct rs_oob_bw_report *r, char *err);
/* True when n bytes read where a binary field belongs are text of a key message (hex
 * digits and colons): the peer is at another step of the exchange than we are. */
bool rs_oob_perftest_looks_like_key(const uint8_t *in, size_t n);

/* --- ibv_rc_pingpong ---
 *
 * The client sends "LID:QPN:PSN:GID" (%04x:%06x:%06x: and 32 hex digits of
 * the GID, a NUL: 52 bytes), the server answers with its own, and the
 * client sends "done" and a NUL once it has read it. */

#define RS_OOB_PINGPONG_PORT 18515
#define RS_OOB_PINGPONG_SIZE 52
#define RS_OOB_PINGPONG_DONE_SIZE 5

struct rs_oob_pingpong_dest {
    uint16_t lid;
    uint32_t qpn;
    uint32_t psn;
    uint8_t gid[16];
};

void rs_oob_pingpong_format(const struct rs_oob_pingpong_dest *d,
                            uint8_t out[RS_OOB_PINGPONG_SIZE]);
int rs_oob_pingpong_parse(const uint8_t in[RS_OOB_PINGPONG_SIZE], struct rs_oob_pingpong_dest *d,
                          char *err);
int rs_oob_pingpong_done_parse(const uint8_t in[RS_OOB_PINGPONG_DONE_SIZE], char *err);

/* --- rping (librdmacm/examples/rping.c) ---
 *
 * rping exchanges no setup over TCP: after RDMA CM connects (rdma_cm port
 * 7174 by default), its buffers are advertised in band, in SENDs of one
 * 16-byte struct rping_rdma_info: the buffer's address (8 bytes), R_Key (4)
 * and size (4), all big-endian. Per ping, the client sends its source
 * buffer, the server READs it and SENDs a "go ahead" (16 bytes it never
 * fills: zeros), the client sends its sink buffer, the server WRITEs the
 * ping back into it and SENDs another go ahead (rping_test_server(),
 * rping_test_client()). The codec is here with the other tools' messages,
 * though these ride on the RC connection rather than beside it. */

#define RS_OOB_RPING_PORT 7174
#define RS_OOB_RPING_INFO_SIZE 16
/* rping -S: at least room for "rdma-ping-2147483647: " (its RPING_MIN_BUFSIZE),
 * at most RPING_BUFSIZE - 1; its default is 64. */
#define RS_OOB_RPING_MIN_SIZE 26
#define RS_OOB_RPING_MAX_SIZE 65535
#define RS_OOB_RPING_DEFAULT_SIZE 64

struct rs_oob_rping_info {
    uint64_t buf;           /* the VA the peer READs from or WRITEs to */
    uint32_t rkey;
    uint32_t size;
};

void rs_oob_rping_info_format(const struct rs_oob_rping_info *info,
                              uint8_t out[RS_OOB_RPING_INFO_SIZE]);
/* Parses a SEND's len bytes: anything but 16 is refused, as rping refuses it
 * ("Received bogus data"), and so is a size outside rping's MIN..MAX. An
 * R_Key or address that names nothing is for the READ or WRITE to find. */
int rs_oob_rping_info_parse(const uint8_t *in, size_t len, struct rs_oob_rping_info *info,
                            char *err);
/* The data of ping number ping, as rping's client writes it into its
 * source buffer of size bytes: "rdma-ping-<ping>: ", then the letters 'A'
 * to 'z' in a cycle starting ping places after 'A', and a NUL in the last
 * byte. size is at least RS_OOB_RPING_MIN_SIZE. */
void rs_oob_rping_fill(uint8_t *buf, uint32_t size, uint32_t ping);

/* --- GIDs --- */

/* A GID is an endpoint address as addr.h holds it (IPv4 IPv4-mapped).
 * As inet_ntop() prints it ("::ffff:10.1.16.62"); size >= 46. */
void rs_oob_gid_format(const uint8_t gid[16], char *out, size_t size);

/* --- Moving messages over a blocking TCP socket --- */

/* Reads exactly n bytes within timeout_ms (-1: forever). A peer that closes
 * or stalls part way is an RS_EIO error naming what was read ("<what>: the
 * peer closed after 12 of 108 bytes"). */
int rs_oob_read(int fd, void *buf, size_t n, int timeout_ms, const char *what, char *err);
int rs_oob_write(int fd, const void *buf, size_t n, const char *what, char *err);
/* One step of an exchange in perftest's order: the client writes, then
 * reads; the server reads, then writes. mine and theirs are n bytes. */
int rs_oob_xchg(int fd, bool client, const void *mine, void *theirs, size_t n, int timeout_ms,
                const char *what, char *err);

/* --- Where to connect: the one place that names a connection setup --- */

enum rs_oob_setup {
    RS_OOB_SETUP_ROCESHARK = 0,     /* our side channel: JSON lines (transport/rc/rc_side.c) */
    RS_OOB_SETUP_PERFTEST,
    RS_OOB_SETUP_PINGPONG,
    RS_OOB_SETUP_CM,                /* RDMA CM over QP 1, to our responder: its region in
                                       the REP (transport/cm/; perf as a client) */
    RS_OOB_SETUP_PERFTEST_CM        /* perftest -R: RDMA CM, then perftest's steps as SENDs */
};

struct rs_oob_target {
    enum rs_oob_setup setup;
    uint8_t gid[16];        /* IPv4: IPv4-mapped */
    uint32_t scope;         /* the interface of a link-local address */
    uint16_t port;          /* 0 when the target named none */
};

/* Parses "roceshark://ADDR", "perftest://ADDR", "pingpong://ADDR",
 * "cm://ADDR", "perftest+cm://ADDR" or a bare "ADDR" (our own side channel), where ADDR is what
 * rs_addr_parse_port() reads: "10.0.0.1", "10.0.0.1:PORT", "fe80::1%eth0",
 * "[2001:db8::1]:PORT", ... */
int rs_oob_target_parse(const char *s, struct rs_oob_target *t, char *err);
/* "roceshark", "perftest", "pingpong", "cm", "perftest+cm" */
const char *rs_oob_setup_name(enum rs_oob_setup setup);

#endif /* ROCESHARK_OOB_H */
