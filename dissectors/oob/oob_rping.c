/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oob_rping.c - rping's buffer advertisement (struct rping_rdma_info) and
 * the data its client pings with.
 *
 * The layout and the pattern are rdma-core's (librdmacm/examples/rping.c:
 * rping_format_send(), server_recv(), rping_test_client()), checked against
 * the SENDs, READs and WRITEs of the rping capture in tests/captures/real/.
 */
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/oob.h>
#include <roceshark/dissectors/wire.h>

/* The letters rping cycles through after its header: 'A' (65) to 'z' (122). */
#define FIRST_LETTER 'A'
#define LAST_LETTER 'z'

void
rs_oob_rping_info_format(const struct rs_oob_rping_info *info,
                         uint8_t out[RS_OOB_RPING_INFO_SIZE])
{
    rs_store_be64(out, info->buf);
    rs_store_be32(out + 8, info->rkey);
    rs_store_be32(out + 12, info->size);
}

int
rs_oob_rping_info_parse(const uint8_t *in, size_t len, struct rs_oob_rping_info *info,
                        char *err)
{
    memset(info, 0, sizeof(*info));
    if (len != RS_OOB_RPING_INFO_SIZE)
        return rs_error(err, RS_EFORMAT, "rping buffer advertisement: %zu bytes, not %d",
                        len, RS_OOB_RPING_INFO_SIZE);
    info->buf = rs_load_be64(in);
    info->rkey = rs_load_be32(in + 8);
    info->size = rs_load_be32(in + 12);
    if (info->size < RS_OOB_RPING_MIN_SIZE || info->size > RS_OOB_RPING_MAX_SIZE)
        return rs_error(err, RS_EFORMAT, "rping buffer advertisement: size %u outside rping's "
                        "%d..%d", info->size, RS_OOB_RPING_MIN_SIZE, RS_OOB_RPING_MAX_SIZE);
    return 0;
}

void
rs_oob_rping_fill(uint8_t *buf, uint32_t size, uint32_t ping)
{
    char head[32];
    int n = snprintf(head, sizeof(head), "rdma-ping-%u: ", ping);
    uint32_t i = (uint32_t)n < size ? (uint32_t)n : size;
    unsigned c = FIRST_LETTER + ping % (LAST_LETTER - FIRST_LETTER + 1);

    memcpy(buf, head, i);
    for (; i < size; i++) {
        buf[i] = (uint8_t)c;
        c = c == LAST_LETTER ? FIRST_LETTER : c + 1;
    }
    if (size > 0)
        buf[size - 1] = '\0';
}
