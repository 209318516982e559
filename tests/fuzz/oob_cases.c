/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oob_cases.c - the parsers of the out-of-band exchanges (perftest's version,
 * system data, MTU, key messages (text, and -R's struct) and BW report;
 * ibv_rc_pingpong's address message and "done"; --connect targets; rping's
 * buffer advertisement) against generated messages (oob_cases.h).
 *
 * Each case builds a valid message of one kind from random values (or
 * takes a captured one), then mutates it the way a hostile or broken peer
 * would: bytes flipped, replaced by separators, NULs, digits past 'f' and
 * upper-case hex, fields shifted by one, a GID of another family, the two
 * key forms mixed up. Each parser reads from a heap buffer of exactly the
 * message's size, so AddressSanitizer sees any read past it. Checks:
 *  - an unmutated message parses, and building it again gives its bytes;
 *  - whatever parses builds into a message that parses to the same values;
 *  - a refusal fills err with one line that names the message.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/dissectors/oob.h>

#include "oob_cases.h"

#include "splitmix.h"

enum kind { K_VERSION, K_SYSDATA, K_MTU, K_KEY, K_KEY_GID, K_REPORT, K_PINGPONG, K_DONE,
            K_TARGET, K_CM_KEY, K_RPING, K_COUNT };

static const char *const kind_names[K_COUNT] = {"version", "sysdata", "mtu", "key59", "key108",
                                                 "report", "pingpong", "done", "target",
                                                 "cmkey56", "rping"};

static struct {
    uint64_t cases, accepted[K_COUNT], refused[K_COUNT];
} stats;


static void
die(const char *what, enum kind k, const uint8_t *msg, size_t len)
{
    fprintf(stderr, "oob_fuzz: %s: %s:", kind_names[k], what);
    for (size_t i = 0; i < len; i++)
        fprintf(stderr, " %02x", msg[i]);
    fputc('\n', stderr);
    abort();    /* a test's own invariant, so the sanitizers' report and a core */
}

static void
check_err(const char *err, enum kind k, const uint8_t *msg, size_t len)
{
    if (err[0] == '\0' || strchr(err, '\n') != NULL || strlen(err) >= RS_ERRBUF_SIZE)
        die("a refusal without one line of error", k, msg, len);
}

/* Runs the parser of kind k on len bytes (copied into a buffer of exactly
 * that size) and checks what came out. Returns whether it parsed. */
static bool
run_parser(enum kind k, const uint8_t *in, size_t len)
{
    uint8_t *m = malloc(len > 0 ? len : 1), out[RS_OOB_PERFTEST_KEY_GID_SIZE + 64];
    char err[RS_ERRBUF_SIZE] = "";
    int rc = RS_EFORMAT;

    if (m == NULL)
        abort();
    memcpy(m, in, len);
    switch (k) {
    case K_VERSION: {
        unsigned v;
        if (len == RS_OOB_PERFTEST_VERSION_SIZE &&
            (rc = rs_oob_perftest_version_parse(m, &v, err)) == 0 && v > 99999)
            die("a version past 999.99", k, m, len);
        break;
    }
    case K_SYSDATA: {
        uint32_t pg, cl, pg2, cl2;
        if (len == 8 && (rc = rs_oob_perftest_sysdata_parse(m, &pg, &cl, err)) == 0) {
            rs_oob_perftest_sysdata_format(pg, cl, out);
            if (memcmp(out, m, 8) != 0 || rs_oob_perftest_sysdata_parse(out, &pg2, &cl2, err))
                die("system data does not round-trip", k, m, len);
        }
        break;
    }
    case K_MTU: {
        uint32_t pmtu, back;
        if (len == 2 && (rc = rs_oob_perftest_mtu_parse(m, &pmtu, err)) == 0) {
            rs_oob_perftest_mtu_format(pmtu, out);
            if (memcmp(out, m, 2) != 0 || rs_oob_perftest_mtu_parse(out, &back, err) ||
                back != pmtu)
                die("the MTU does not round-trip", k, m, len);
        }
        break;
    }
    case K_KEY:
    case K_KEY_GID: {
        struct rs_oob_dest d, back;
        if (len >= RS_OOB_PERFTEST_KEY_SIZE) {
            int size = rs_oob_perftest_key_size(m, err);
            if (size < 0) {
                rc = size;
                break;
            }
        }
        if ((rc = rs_oob_perftest_key_parse(m, len, &d, err)) == 0) {
            size_t n = rs_oob_perftest_key_format(&d, out);
            if (n != len || rs_oob_perftest_key_parse(out, n, &back, err) != 0 ||
                memcmp(&d, &back, sizeof(d)) != 0)
                die("a key message does not round-trip", k, m, len);
        }
        break;
    }
    case K_CM_KEY: {
        struct rs_oob_dest d, back;
        if ((rc = rs_oob_perftest_cm_key_parse(m, len, &d, err)) == 0) {
            /* Ours has zero padding and GID index; the rest is the peer's bytes. */
            rs_oob_perftest_cm_key_format(&d, out);
            if (memcmp(out, m, 20) != 0 || memcmp(out + 24, m + 24, 28) != 0 ||
                rs_oob_perftest_cm_key_parse(out, RS_OOB_PERFTEST_CM_KEY_SIZE, &back, err) != 0
                || memcmp(&d, &back, sizeof(d)) != 0)
                die("a -R key message does not round-trip", k, m, len);
        }
        break;
    }
    case K_REPORT: {
        struct rs_oob_bw_report r, back;
        unsigned version = len == 36 ? 532 : 620;
        if ((len == 36 || len == 40) &&
            (rc = rs_oob_perftest_report_parse(m, version, &r, err)) == 0) {
            rs_oob_perftest_report_format(&r, version, out);
            if (rs_oob_perftest_report_parse(out, version, &back, err) != 0 ||
                back.size != r.size || back.iters != r.iters ||
                memcmp(&back.bw_avg, &r.bw_avg, sizeof(double)) != 0)
                die("a BW report does not round-trip", k, m, len);
        }
        break;
    }
    case K_PINGPONG: {
        struct rs_oob_pingpong_dest d, back;
        if (len == RS_OOB_PINGPONG_SIZE && (rc = rs_oob_pingpong_parse(m, &d, err)) == 0) {
            rs_oob_pingpong_format(&d, out);
            if (rs_oob_pingpong_parse(out, &back, err) != 0 || memcmp(&d, &back, sizeof(d)))
                die("a pingpong message does not round-trip", k, m, len);
        }
        break;
    }
    case K_DONE:
        if (len == RS_OOB_PINGPONG_DONE_SIZE)
            rc = rs_oob_pingpong_done_parse(m, err);
        break;
    case K_TARGET: {
        struct rs_oob_target tg;
        char *s = malloc(len + 1);
        if (s == NULL)
            abort();
        memcpy(s, m, len);
        s[len] = '\0';
        rc = rs_oob_target_parse(s, &tg, err);
        if (rc == 0 && (unsigned)tg.setup > RS_OOB_SETUP_PERFTEST_CM)
            die("a target of no setup", k, m, len);
        free(s);
        break;
    }
    case K_RPING: {
        struct rs_oob_rping_info info, back;
        if ((rc = rs_oob_rping_info_parse(m, len, &info, err)) == 0) {
            rs_oob_rping_info_format(&info, out);
            if (memcmp(out, m, len) != 0 || rs_oob_rping_info_parse(out, len, &back, err) != 0 ||
                memcmp(&info, &back, sizeof(info)) != 0 || info.size < RS_OOB_RPING_MIN_SIZE ||
                info.size > RS_OOB_RPING_MAX_SIZE)
                die("an rping advertisement does not build back", k, m, len);
        } else if (err[0] == '\0') {
            die("an rping advertisement refused without a reason", k, m, len);
        }
        break;
    }
    default:
        abort();
    }
    if (rc < 0 && err[0] != '\0')
        check_err(err, k, m, len);
    free(m);
    if (rc == 0)
        stats.accepted[k]++;
    else
        stats.refused[k]++;
    return rc == 0;
}

static const char hexchars[] = "0123456789abcdefABCDEF:g/ \0\xff";

/* A valid message of kind k with random values; returns its length. */
static size_t
build(enum kind k, uint8_t *m)
{
    switch (k) {
    case K_VERSION:
        memset(m, 0, 16);
        snprintf((char *)m, 16, "%u.%02u", (unsigned)(rnd() % 10), (unsigned)(rnd() % 100));
        return 16;
    case K_SYSDATA:
        rs_oob_perftest_sysdata_format(1u << (rnd() % 31), 1u << (rnd() % 13), m);
        return 8;
    case K_MTU:
        rs_oob_perftest_mtu_format(256u << (rnd() % 5), m);
        return 2;
    case K_KEY:
    case K_KEY_GID: {
        struct rs_oob_dest d;
        uint8_t ip[4];
        memset(&d, 0, sizeof(d));
        d.lid = (uint16_t)rnd();
        d.out_reads = (uint16_t)rnd();
        d.qpn = 2 + (uint32_t)(rnd() % 0xfffffe);
        d.psn = (uint32_t)rnd() & 0xffffff;
        d.rkey = (uint32_t)rnd();
        d.vaddr = rnd();
        d.srqn = (uint32_t)rnd();
        d.has_gid = k == K_KEY_GID;
        for (int i = 0; i < 4; i++)
            ip[i] = (uint8_t)rnd();
        rs_addr_from_ipv4(ip, d.gid);
        if (rnd() % 4 == 0)
            for (int i = 0; i < 16; i++)
                d.gid[i] = (uint8_t)rnd();
        return rs_oob_perftest_key_format(&d, m);
    }
    case K_CM_KEY: {
        struct rs_oob_dest d;
        memset(&d, 0, sizeof(d));
        d.lid = (uint16_t)rnd();
        d.out_reads = (uint16_t)rnd();
        d.qpn = rnd() % 8 == 0 ? 0 : 2 + (uint32_t)(rnd() % 0xfffffe);
        d.psn = (uint32_t)rnd() & 0xffffff;
        d.rkey = (uint32_t)rnd();
        d.vaddr = rnd();
        d.srqn = (uint32_t)rnd();
        d.has_gid = true;
        for (int i = 0; i < 16; i++)
            d.gid[i] = (uint8_t)rnd();
        rs_oob_perftest_cm_key_format(&d, m);
        if (rnd() % 2)      /* perftest's padding: whatever its stack held */
            for (int i = 20; i < 24; i++)
                m[i] = (uint8_t)rnd();
        return RS_OOB_PERFTEST_CM_KEY_SIZE;
    }
    case K_REPORT: {
        struct rs_oob_bw_report r = {rnd() % (1ull << 32), rnd() % (1ull << 32), (double)(rnd() % 100000) / 7,
                                     (double)(rnd() % 100000) / 3, (double)(rnd() % 1000) / 9};
        unsigned version = rnd() % 2 ? 532 : 620;
        rs_oob_perftest_report_format(&r, version, m);
        return version == 532 ? 36 : 40;
    }
    case K_PINGPONG: {
        struct rs_oob_pingpong_dest d;
        d.lid = (uint16_t)rnd();
        d.qpn = 2 + (uint32_t)(rnd() % 0xfffffe);
        d.psn = (uint32_t)rnd() & 0xffffff;
        for (int i = 0; i < 16; i++)
            d.gid[i] = (uint8_t)rnd();
        rs_oob_pingpong_format(&d, m);
        return RS_OOB_PINGPONG_SIZE;
    }
    case K_DONE:
        memcpy(m, "done", 5);
        return 5;
    case K_RPING: {
        struct rs_oob_rping_info info = {rnd(), (uint32_t)rnd(),
                                         RS_OOB_RPING_MIN_SIZE +
                                             (uint32_t)(rnd() % (RS_OOB_RPING_MAX_SIZE -
                                                                 RS_OOB_RPING_MIN_SIZE + 1))};
        rs_oob_rping_info_format(&info, m);
        return RS_OOB_RPING_INFO_SIZE;
    }
    case K_TARGET: {
        static const char *const pre[] = {"", "perftest://", "pingpong://", "cm://",
                                          "roceshark://", "rdma://", "perftest:/",
                                          "perftest+cm://"};
        int n = snprintf((char *)m, 64, "%s%u.%u.%u.%u", pre[rnd() % 8], (unsigned)(rnd() % 300),
                         (unsigned)(rnd() % 256), (unsigned)(rnd() % 256),
                         (unsigned)(rnd() % 256));
        if (rnd() % 2)
            n += snprintf((char *)m + n, 16, ":%u", (unsigned)(rnd() % 70000));
        return (size_t)n;
    }
    default:
        abort();
    }
}

static void
mutate(uint8_t *m, size_t *len, size_t cap)
{
    unsigned n = 1 + (unsigned)(rnd() % 4);

    for (unsigned i = 0; i < n && *len > 0; i++) {
        size_t at = rnd() % *len;
        switch (rnd() % 6) {
        case 0:
            m[at] ^= (uint8_t)(1u << (rnd() % 8));
            break;
        case 1:
            m[at] = (uint8_t)hexchars[rnd() % (sizeof(hexchars) - 1)];
            break;
        case 2:     /* shift the rest by one: a field one digit too long */
            if (*len < cap) {
                memmove(m + at + 1, m + at, *len - at);
                (*len)++;
            }
            break;
        case 3:     /* a field one digit short */
            memmove(m + at, m + at + 1, *len - at - 1);
            (*len)--;
            break;
        case 4:
            m[at] = (uint8_t)rnd();
            break;
        default:    /* cut */
            *len = at;
            break;
        }
    }
}

static void
run_case(void)
{
    uint8_t m[256];
    enum kind k = (enum kind)(rnd() % K_COUNT);
    size_t len = build(k, m);

    stats.cases++;
    if (rnd() % 4 == 0) {
        bool ok = run_parser(k, m, len);
        /* What we build must parse (targets are built wrong on purpose). */
        if (!ok && k != K_TARGET)
            die("a message we built is refused", k, m, len);
        return;
    }
    mutate(m, &len, sizeof(m) - 1);
    /* Mix the key forms up: a long message read as short and back. */
    if ((k == K_KEY || k == K_KEY_GID) && rnd() % 8 == 0)
        len = rnd() % 2 ? RS_OOB_PERFTEST_KEY_SIZE : RS_OOB_PERFTEST_KEY_GID_SIZE;
    run_parser(k, m, len);
}

void
oob_cases_seed(uint64_t seed)
{
    rng_state = seed;
}

void
oob_cases_run(void)
{
    run_case();
}

bool
oob_cases_captured(void)
{
    /* perftest 6.20's key, ibv_rc_pingpong's address, as captured. */
    static const char key[] =
        "0000:0001:00001d:533a2f:00000e1c:00005e135cf9b000:00:00:00:00:00:00:00:00:00:00:ff:ff:"
        "0a:01:10:3e:00000000:";
    static const char pp[] = "0000:000021:59dfd7:00000000000000000000ffff0a01103e";

    return run_parser(K_KEY_GID, (const uint8_t *)key, sizeof(key)) &&
           run_parser(K_PINGPONG, (const uint8_t *)pp, sizeof(pp));
}

void
oob_cases_input(const uint8_t *data, size_t size)
{
    if (size >= 1)
        run_parser((enum kind)(data[0] % K_COUNT), data + 1, size - 1);
}

void
oob_cases_report(void)
{
    printf("cases=%" PRIu64 "\n", stats.cases);
    for (int k = 0; k < K_COUNT; k++)
        printf("%-9s accepted %" PRIu64 " refused %" PRIu64 "\n", kind_names[k],
               stats.accepted[k], stats.refused[k]);
}
