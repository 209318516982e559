/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_preload.c - --preload: the target's memory made to hold what the
 * capture shows was there, so that its READ data can be compared.
 *
 * The capture shows memory three ways: in the READ responses (what was
 * there when read), in the atomic ACKs (the 8 bytes before the operation)
 * and in the WRITEs (what was put there). The image takes what a READ or an
 * atomic saw first, and the WRITE data where neither looked; or, given a
 * file, the file's bytes from the trace's lowest VA. It goes to the target
 * as RDMA WRITEs, one per stretch of known bytes, before the replay.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <roceshark/transport/rc.h>
#include <roceshark/replay/replay.h>

#include "replay_int.h"

#define PRELOAD_MAX (1ull << 30)        /* bytes of image: more is no capture's memory */

/* Marks [off, off + len) of the image with bytes, where keep says a byte is not known. */
static void
put(uint8_t *image, uint8_t *known, uint64_t size, uint64_t off, const uint8_t *bytes,
    uint32_t len, bool keep)
{
    for (uint32_t i = 0; i < len && off + i < size; i++) {
        if (keep && known[off + i])
            continue;
        image[off + i] = bytes[i];
        known[off + i] = 1;
    }
}

/* The READ request each READ response answers: the one whose PSNs hold it. */
static const struct rs_replay_frame *
read_of(const struct rs_replay_trace *t, const struct rs_replay_frame *resp, uint32_t pmtu)
{
    for (unsigned i = 0; i < t->requests->len; i++) {
        const struct rs_replay_frame *q = &g_array_index(t->requests, struct rs_replay_frame, i);
        uint32_t n = q->dmalen > pmtu ? (q->dmalen + pmtu - 1) / pmtu : 1;
        if (rs_ib_opcode_info(q->opcode)->op == RS_OP_READ_REQ &&
            ((resp->psn - q->psn) & 0xffffff) < n)
            return q;
    }
    return NULL;
}

static int
image_of_trace(const struct rs_replay_trace *t, uint8_t *image, uint8_t *known, uint64_t size,
               char *err)
{
    GArray *msgs = g_array_new(FALSE, FALSE, sizeof(struct rs_replay_msg));
    GByteArray *data = g_byte_array_new();
    uint32_t pmtu = t->conv.pmtu != 0 ? t->conv.pmtu : 1024;
    uint64_t base = replay_remote_of(t).lowest;
    int rc = 0;

    for (unsigned i = 0; i < t->responses->len; i++) {
        const struct rs_replay_frame *r = &g_array_index(t->responses, struct rs_replay_frame, i);
        const struct rs_replay_frame *q;
        if (rs_ib_opcode_info(r->opcode)->op != RS_OP_READ_RESP || r->payload_len == 0 ||
            (q = read_of(t, r, pmtu)) == NULL)
            continue;
        uint64_t off = q->va - base + (uint64_t)((r->psn - q->psn) & 0xffffff) * pmtu;
        put(image, known, size, off, t->bytes->data + r->payload_off, r->payload_len, true);
    }
    /* An atomic ACK tells the 8 bytes before the operation, in the target's own order
     * (a responder loads them as a native integer, as rxe and ours do). */
    for (unsigned i = 0; i < t->responses->len; i++) {
        const struct rs_replay_frame *r = &g_array_index(t->responses, struct rs_replay_frame, i);
        if (!r->has_atomic_ack)
            continue;
        for (unsigned k = 0; k < t->requests->len; k++) {
            const struct rs_replay_frame *q = &g_array_index(t->requests,
                                                             struct rs_replay_frame, k);
            uint8_t op = rs_ib_opcode_info(q->opcode)->op;
            if ((op == RS_OP_CMP_SWAP || op == RS_OP_FETCH_ADD) && q->psn == r->psn) {
                put(image, known, size, q->va - base, (const uint8_t *)&r->orig, 8, true);
                break;
            }
        }
    }
    if ((rc = rs_replay_messages(t, msgs, data, err)) == 0)
        for (unsigned i = 0; i < msgs->len; i++) {
            const struct rs_replay_msg *m = &g_array_index(msgs, struct rs_replay_msg, i);
            if (m->opcode == RS_RC_WR_RDMA_WRITE || m->opcode == RS_RC_WR_RDMA_WRITE_WITH_IMM)
                put(image, known, size, m->remote_offset, data->data + m->data_off, m->length,
                    true);
        }
    g_array_free(msgs, TRUE);
    g_byte_array_free(data, TRUE);
    return rc;
}

static int
image_of_file(const char *path, uint8_t *image, uint8_t *known, uint64_t size, char *err)
{
    FILE *f = fopen(path, "rb");

    if (f == NULL)
        return rs_error(err, RS_EIO, "--preload %s: %s", path, strerror(errno));
    size_t n = fread(image, 1, size, f);
    bool failed = ferror(f);
    fclose(f);
    if (failed)
        return rs_error(err, RS_EIO, "--preload %s: a read failed", path);
    memset(known, 1, n);
    return 0;
}

int
rs_replay_preload(const struct rs_replay_trace *trace, const char *file, GArray *msgs,
                  GByteArray *data, char *err)
{
    struct replay_remote remote = replay_remote_of(trace);
    int rc;

    if (remote.lowest == UINT64_MAX)
        return 0;                       /* no RDMA: nothing in memory to compare */
    uint64_t size = remote.end - remote.lowest;
    if (size > PRELOAD_MAX)
        return rs_error(err, RS_EINVAL, "--preload: the capture's RDMA spans %llu bytes, more "
                        "than %llu", (unsigned long long)size,
                        (unsigned long long)PRELOAD_MAX);
    uint8_t *image = g_malloc0(size + 1), *known = g_malloc0(size + 1);
    rc = file != NULL ? image_of_file(file, image, known, size, err)
                      : image_of_trace(trace, image, known, size, err);
    /* A WRITE for every stretch of known bytes, with the trace's first R_Key (mapped as
     * the replay maps it). */
    for (uint64_t at = 0; rc == 0 && at < size;) {
        if (!known[at]) {
            at++;
            continue;
        }
        uint64_t end = at;
        while (end < size && known[end] && end - at < (1u << 20))
            end++;
        struct rs_replay_msg m = {.opcode = RS_RC_WR_RDMA_WRITE, .length = (uint32_t)(end - at),
                                  .remote_offset = at, .rkey = remote.rkey, .data_off = data->len};
        g_byte_array_append(data, image + at, (guint)(end - at));
        g_array_append_val(msgs, m);
        at = end;
    }
    g_free(image);
    g_free(known);
    return rc;
}
