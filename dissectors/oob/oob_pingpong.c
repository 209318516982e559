/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oob_pingpong.c - ibv_rc_pingpong's address message and its "done", and
 * the GID helpers both tools' messages use.
 *
 * The layout is rdma-core's (libibverbs/examples/rc_pingpong.c,
 * pp_client_exch_dest(); the GID as gid_to_wire_gid() writes it: its 16
 * bytes in order as hex on a little-endian host), checked against the
 * payloads of the pingpong_rc capture in tests/captures/real/.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/oob.h>

#include "oob_hex.h"

void
rs_oob_pingpong_format(const struct rs_oob_pingpong_dest *d, uint8_t out[RS_OOB_PINGPONG_SIZE])
{
    char *s = (char *)out;
    int n = sprintf(s, "%04x:%06x:%06x:", d->lid, d->qpn & 0xffffff, d->psn & 0xffffff);

    for (int i = 0; i < 16; i++)
        n += sprintf(s + n, "%02x", d->gid[i]);     /* and the NUL: 52 bytes */
}

int
rs_oob_pingpong_parse(const uint8_t in[RS_OOB_PINGPONG_SIZE], struct rs_oob_pingpong_dest *d,
                      char *err)
{
    static const char msg[] = "pingpong address message";
    uint64_t v[3], x;
    size_t pos = 0;
    int rc;

    memset(d, 0, sizeof(*d));
    if ((rc = rs_oob_hex_field(in, RS_OOB_PINGPONG_SIZE, &pos, 4, ':', &v[0], msg, "LID",
                               err)) < 0 ||
        (rc = rs_oob_hex_field(in, RS_OOB_PINGPONG_SIZE, &pos, 6, ':', &v[1], msg, "QPN",
                               err)) < 0 ||
        (rc = rs_oob_hex_field(in, RS_OOB_PINGPONG_SIZE, &pos, 6, ':', &v[2], msg, "PSN",
                               err)) < 0)
        return rc;
    /* The GID's 32 digits run on without separators, then the NUL. */
    for (int i = 0; i < 16; i++) {
        if ((rc = rs_oob_hex_digits(in, RS_OOB_PINGPONG_SIZE, &pos, 2, &x, msg, "GID", err)) < 0)
            return rc;
        d->gid[i] = (uint8_t)x;
    }
    if (in[pos] != '\0')
        return rs_error(err, RS_EFORMAT, "%s: no NUL after the GID", msg);
    d->lid = (uint16_t)v[0];
    d->qpn = (uint32_t)v[1];
    d->psn = (uint32_t)v[2];
    if (d->qpn == 0 || d->qpn == 1)
        return rs_error(err, RS_EFORMAT, "%s: QPN %u is a special QP, not an RC QP", msg, d->qpn);
    return 0;
}

int
rs_oob_pingpong_done_parse(const uint8_t in[RS_OOB_PINGPONG_DONE_SIZE], char *err)
{
    if (memcmp(in, "done", RS_OOB_PINGPONG_DONE_SIZE) != 0)
        return rs_error(err, RS_EFORMAT, "pingpong: expected \"done\" and a NUL, got "
                        "%02x %02x %02x %02x %02x", in[0], in[1], in[2], in[3], in[4]);
    return 0;
}

void
rs_oob_gid_format(const uint8_t gid[16], char *out, size_t size)
{
    if (inet_ntop(AF_INET6, gid, out, (socklen_t)size) == NULL && size > 0)
        out[0] = '\0';
}
