/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oob_perftest.c - perftest's out-of-band messages, built and parsed.
 *
 * The layouts are perftest's (src/perftest_communication.c: the version,
 * check_sys_data(), check_mtu(), the key message of ethernet_write_keys()
 * and xchg_bw_reports(); -R's key message of rdma_write_keys()), checked
 * against the TCP payloads of perftest 6.20 in tests/captures/real/ (the -R
 * key message against its struct, as no capture holds one). Which steps
 * run, in which order and how often is the session's business
 * (transport/perf/perf_perftest.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/oob.h>
#include <roceshark/dissectors/wire.h>

#include "oob_hex.h"

void
rs_oob_perftest_version_format(uint8_t out[RS_OOB_PERFTEST_VERSION_SIZE])
{
    memset(out, 0, RS_OOB_PERFTEST_VERSION_SIZE);
    memcpy(out, RS_OOB_PERFTEST_VERSION, strlen(RS_OOB_PERFTEST_VERSION));
}

int
rs_oob_perftest_version_parse(const uint8_t in[RS_OOB_PERFTEST_VERSION_SIZE],
                              unsigned *hundredths, char *err)
{
    unsigned major = 0, minor = 0, digits = 0, i = 0;

    for (; i < RS_OOB_PERFTEST_VERSION_SIZE && in[i] >= '0' && in[i] <= '9'; i++, digits++)
        major = major * 10 + (unsigned)(in[i] - '0');
    if (digits == 0 || digits > 3)
        goto bad;
    if (i < RS_OOB_PERFTEST_VERSION_SIZE && in[i] == '.') {
        /* Hundredths as atof() orders them: "5.1" is 5.10, "5.31" 5.31. */
        unsigned frac = 0;
        for (i++; i < RS_OOB_PERFTEST_VERSION_SIZE && in[i] >= '0' && in[i] <= '9'; i++, frac++)
            if (frac < 2)
                minor = minor * 10 + (unsigned)(in[i] - '0');
        if (frac == 0)
            goto bad;
        if (frac == 1)
            minor *= 10;
    }
    if (i >= RS_OOB_PERFTEST_VERSION_SIZE || in[i] != '\0')
        goto bad;
    *hundredths = major * 100 + minor;
    return 0;
bad:
    return rs_error(err, RS_EFORMAT,
                    "perftest version: expected a version such as \"6.20\" and a NUL in 16 bytes, "
                    "got %02x %02x %02x %02x ...", in[0], in[1], in[2], in[3]);
}

void
rs_oob_perftest_sysdata_format(uint32_t page, uint32_t cache_line, uint8_t out[8])
{
    rs_store_be32(out, page);
    rs_store_be32(out + 4, cache_line);
}

int
rs_oob_perftest_sysdata_parse(const uint8_t in[8], uint32_t *page, uint32_t *cache_line,
                              char *err)
{
    uint32_t pg = rs_load_be32(in), cl = rs_load_be32(in + 4);

    /* perftest sizes its buffers from the larger page size of the two
     * sides; a peer that claims more than 1 GiB is not a real host. */
    if (pg == 0 || pg > (1u << 30) || (pg & (pg - 1)) != 0)
        return rs_error(err, RS_EFORMAT, "perftest system data: page size %u is not a power "
                        "of two up to 1 GiB", pg);
    if (cl == 0 || cl > 4096 || (cl & (cl - 1)) != 0)
        return rs_error(err, RS_EFORMAT, "perftest system data: cache line size %u is not a "
                        "power of two up to 4096", cl);
    *page = pg;
    *cache_line = cl;
    return 0;
}

void
rs_oob_perftest_mtu_format(uint32_t pmtu, uint8_t out[RS_OOB_PERFTEST_MTU_SIZE])
{
    unsigned e = 1;

    while (e < 5 && (256u << e) <= pmtu)
        e++;
    out[0] = (uint8_t)('0' + e);    /* IBV_MTU_256 is 1 ... IBV_MTU_4096 is 5 */
    out[1] = '\0';
}

int
rs_oob_perftest_mtu_parse(const uint8_t in[RS_OOB_PERFTEST_MTU_SIZE], uint32_t *pmtu, char *err)
{
    if (in[0] < '1' || in[0] > '5' || in[1] != '\0')
        return rs_error(err, RS_EFORMAT, "perftest MTU: expected an ibv_mtu digit 1..5 and a "
                        "NUL, got %02x %02x", in[0], in[1]);
    *pmtu = 128u << (in[0] - '0');
    return 0;
}

size_t
rs_oob_perftest_key_format(const struct rs_oob_dest *d, uint8_t *out)
{
    char *s = (char *)out;
    int n = sprintf(s, "%04x:%04x:%06x:%06x:%08x:%016llx:", d->lid, d->out_reads,
                    d->qpn & 0xffffff, d->psn & 0xffffff, d->rkey, (unsigned long long)d->vaddr);

    if (!d->has_gid) {
        sprintf(s + n, "%08x", d->srqn);    /* and its NUL: 59 bytes */
        return RS_OOB_PERFTEST_KEY_SIZE;
    }
    for (int i = 0; i < 16; i++)
        n += sprintf(s + n, "%02x:", d->gid[i]);
    sprintf(s + n, "%08x:", d->srqn);
    return RS_OOB_PERFTEST_KEY_GID_SIZE;
}

int
rs_oob_perftest_key_size(const uint8_t first[RS_OOB_PERFTEST_KEY_SIZE], char *err)
{
    if (first[RS_OOB_PERFTEST_KEY_SIZE - 1] == '\0')
        return RS_OOB_PERFTEST_KEY_SIZE;
    if (first[RS_OOB_PERFTEST_KEY_SIZE - 1] == ':')
        return RS_OOB_PERFTEST_KEY_GID_SIZE;
    return rs_error(err, RS_EFORMAT, "perftest key message: byte 58 is 0x%02x, neither the end "
                    "of a message without GID nor a separator inside a GID",
                    first[RS_OOB_PERFTEST_KEY_SIZE - 1]);
}

int
rs_oob_perftest_key_parse(const uint8_t *in, size_t len, struct rs_oob_dest *d, char *err)
{
    static const char msg[] = "perftest key message";
    static const struct {
        const char *name;
        unsigned width;
    } head[] = {{"LID", 4}, {"out_reads", 4}, {"QPN", 6}, {"PSN", 6}, {"R_Key", 8}, {"VA", 16}};
    uint64_t v[6], x;
    size_t pos = 0;
    int rc;

    if (len != RS_OOB_PERFTEST_KEY_SIZE && len != RS_OOB_PERFTEST_KEY_GID_SIZE)
        return rs_error(err, RS_EFORMAT, "%s: %zu bytes, expected 59 or 108", msg, len);
    memset(d, 0, sizeof(*d));
    for (size_t i = 0; i < 6; i++)
        if ((rc = rs_oob_hex_field(in, len, &pos, head[i].width, ':', &v[i], msg, head[i].name,
                                   err)) < 0)
            return rc;
    d->lid = (uint16_t)v[0];
    d->out_reads = (uint16_t)v[1];
    d->qpn = (uint32_t)v[2];
    d->psn = (uint32_t)v[3];
    d->rkey = (uint32_t)v[4];
    d->vaddr = v[5];
    d->has_gid = len == RS_OOB_PERFTEST_KEY_GID_SIZE;
    for (int i = 0; d->has_gid && i < 16; i++) {
        if ((rc = rs_oob_hex_field(in, len, &pos, 2, ':', &x, msg, "GID", err)) < 0)
            return rc;
        d->gid[i] = (uint8_t)x;
    }
    if ((rc = rs_oob_hex_field(in, len, &pos, 8, d->has_gid ? ':' : '\0', &x, msg, "SRQN",
                               err)) < 0)
        return rc;
    d->srqn = (uint32_t)x;
    if (d->has_gid && in[pos] != '\0')
        return rs_error(err, RS_EFORMAT, "%s: no NUL at its end", msg);
    if (d->qpn == 0 || d->qpn == 1)
        return rs_error(err, RS_EFORMAT, "%s: QPN %u is a special QP, not an RC QP", msg, d->qpn);
    return 0;
}

void
rs_oob_perftest_cm_key_format(const struct rs_oob_dest *d, uint8_t out[RS_OOB_PERFTEST_CM_KEY_SIZE])
{
    memset(out, 0, RS_OOB_PERFTEST_CM_KEY_SIZE);
    rs_store_be32(out, d->lid);
    rs_store_be32(out + 4, d->out_reads);
    rs_store_be32(out + 8, d->qpn & 0xffffff);
    rs_store_be32(out + 12, d->psn & 0xffffff);
    rs_store_be32(out + 16, d->rkey);
    rs_store_be64(out + 24, d->vaddr);
    memcpy(out + 32, d->gid, 16);
    rs_store_be32(out + 48, d->srqn);
    /* 52: the GID index, which rdma_read_keys() does not read; ours is 0. */
}

int
rs_oob_perftest_cm_key_parse(const uint8_t *in, size_t len, struct rs_oob_dest *d, char *err)
{
    static const char msg[] = "perftest -R key message";
    static const struct {
        const char *name;
        size_t off;
        uint32_t max;
    } ints[] = {{"LID", 0, 0xffff}, {"out_reads", 4, 0xffff}, {"QPN", 8, 0xffffff},
                {"PSN", 12, 0xffffff}};

    if (len != RS_OOB_PERFTEST_CM_KEY_SIZE)
        return rs_error(err, RS_EFORMAT, "%s: %zu bytes, expected %d (perftest 4.5 to 6.28's "
                        "struct pingpong_dest)", msg, len, RS_OOB_PERFTEST_CM_KEY_SIZE);
    /* perftest's ints are signed: a value past the field's width is a
     * negative or garbled one, not a QP. */
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        uint32_t v = rs_load_be32(in + ints[i].off);
        if (v > ints[i].max)
            return rs_error(err, RS_EFORMAT, "%s: %s 0x%08x is wider than 0x%x", msg,
                            ints[i].name, v, ints[i].max);
    }
    memset(d, 0, sizeof(*d));
    d->lid = (uint16_t)rs_load_be32(in);
    d->out_reads = (uint16_t)rs_load_be32(in + 4);
    d->qpn = rs_load_be32(in + 8);
    d->psn = rs_load_be32(in + 12);
    d->rkey = rs_load_be32(in + 16);
    d->vaddr = rs_load_be64(in + 24);
    d->has_gid = true;
    memcpy(d->gid, in + 32, 16);
    d->srqn = rs_load_be32(in + 48);
    if (d->qpn == 1)
        return rs_error(err, RS_EFORMAT, "%s: QPN 1 is the GSI, not an RC QP", msg);
    return 0;
}

void
rs_oob_perftest_report_layout(unsigned peer_version, size_t off[RS_OOB_PERFTEST_REPORT_FIELDS],
                              size_t len[RS_OOB_PERFTEST_REPORT_FIELDS])
{
    size_t at = 0;

    for (int i = 0; i < RS_OOB_PERFTEST_REPORT_FIELDS; i++) {
        len[i] = (i == 1 && peer_version < 533) ? 4 : 8;
        off[i] = at;
        at += len[i];
    }
}

static uint64_t
double_bits(double d)
{
    uint64_t u;

    memcpy(&u, &d, sizeof(u));
    return u;
}

static double
bits_double(uint64_t u)
{
    double d;

    memcpy(&d, &u, sizeof(d));
    return d;
}

void
rs_oob_perftest_report_format(const struct rs_oob_bw_report *r, unsigned peer_version,
                              uint8_t out[40])
{
    size_t off[RS_OOB_PERFTEST_REPORT_FIELDS], len[RS_OOB_PERFTEST_REPORT_FIELDS];

    memset(out, 0, 40);
    rs_oob_perftest_report_layout(peer_version, off, len);
    rs_store_be64(out + off[0], r->size);
    if (len[1] == 4)
        rs_store_be32(out + off[1], (uint32_t)r->iters);
    else
        rs_store_be64(out + off[1], r->iters);
    rs_store_be64(out + off[2], double_bits(r->bw_peak));
    rs_store_be64(out + off[3], double_bits(r->bw_avg));
    rs_store_be64(out + off[4], double_bits(r->msg_rate));
}

int
rs_oob_perftest_report_parse(const uint8_t in[40], unsigned peer_version,
                             struct rs_oob_bw_report *r, char *err)
{
    size_t off[RS_OOB_PERFTEST_REPORT_FIELDS], len[RS_OOB_PERFTEST_REPORT_FIELDS];

    rs_oob_perftest_report_layout(peer_version, off, len);
    r->size = rs_load_be64(in + off[0]);
    r->iters = len[1] == 4 ? rs_load_be32(in + off[1]) : rs_load_be64(in + off[1]);
    r->bw_peak = bits_double(rs_load_be64(in + off[2]));
    r->bw_avg = bits_double(rs_load_be64(in + off[3]));
    r->msg_rate = bits_double(rs_load_be64(in + off[4]));
    if (r->size > (1ull << 32))
        return rs_error(err, RS_EFORMAT, "perftest BW report: message size %llu is past 4 GiB",
                        (unsigned long long)r->size);
    double rates[3] = {r->bw_peak, r->bw_avg, r->msg_rate};
    for (int i = 0; i < 3; i++)
        if (!isfinite(rates[i]) || rates[i] < 0)
            return rs_error(err, RS_EFORMAT, "perftest BW report: a rate is %g", rates[i]);
    return 0;
}

bool
rs_oob_perftest_looks_like_key(const uint8_t *in, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((in[i] >= '0' && in[i] <= '9') || (in[i] >= 'a' && in[i] <= 'f') || in[i] == ':'))
            return false;
    return n > 0;
}
