/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_messages.c - the requester's work out of a trace: its messages,
 * as work requests would post them.
 *
 * A packet's PSN says where it belongs, not the order the capture saw it
 * in: after a loss the requester resends from the lost PSN, so the first
 * packet of each PSN is taken, and the messages are read in PSN order.
 */
#include <string.h>

#include <roceshark/transport/rc.h>
#include <roceshark/replay/replay.h>

#include "replay_int.h"

/* The first request packet of every PSN from the trace's first, by PSN. */
static const struct rs_replay_frame **
by_psn(const struct rs_replay_trace *trace, uint32_t first, uint32_t span)
{
    const struct rs_replay_frame **at = g_new0(const struct rs_replay_frame *, span + 1);

    for (unsigned i = 0; i < trace->requests->len; i++) {
        const struct rs_replay_frame *f = &g_array_index(trace->requests,
                                                         struct rs_replay_frame, i);
        uint32_t rel = (f->psn - first) & 0xffffff;
        if (rel < span && at[rel] == NULL && !f->malformed)
            at[rel] = f;
    }
    return at;
}

static uint8_t
write_or_send(uint8_t op, const struct rs_replay_frame *last)
{
    if (op == RS_OP_WRITE)
        return last->has_imm ? RS_RC_WR_RDMA_WRITE_WITH_IMM : RS_RC_WR_RDMA_WRITE;
    if (last->has_ieth)
        return RS_RC_WR_SEND_WITH_INV;
    return last->has_imm ? RS_RC_WR_SEND_WITH_IMM : RS_RC_WR_SEND;
}

int
rs_replay_messages(const struct rs_replay_trace *trace, GArray *msgs, GByteArray *data,
                   char *err)
{
    uint32_t first = rs_replay_first_psn(trace), span = rs_replay_psn_span(trace);
    uint32_t pmtu = trace->conv.pmtu != 0 ? trace->conv.pmtu : 1024;
    uint64_t base = replay_remote_of(trace).lowest;
    const struct rs_replay_frame **at = by_psn(trace, first, span);
    struct rs_replay_msg m;
    bool open = false;
    int rc = 0;

    for (uint32_t rel = 0; rel < span && rc == 0; rel++) {
        const struct rs_replay_frame *f = at[rel];
        if (f == NULL) {
            rc = rs_error(err, RS_EINVAL, "PSN %u: the capture has no packet of it, so its "
                          "message is unknown", (first + rel) & 0xffffff);
            break;
        }
        const struct rs_ib_opcode *info = rs_ib_opcode_info(f->opcode);
        if (!open) {
            memset(&m, 0, sizeof(m));
            m.frame = f->number;
            m.rkey = f->rkey;
            m.remote_offset = f->has_reth ? f->va - base : 0;
            m.data_off = data->len;
        }
        switch (info->op) {
        case RS_OP_SEND:
        case RS_OP_WRITE:
            if (open != (info->seg == RS_SEG_MIDDLE || info->seg == RS_SEG_LAST)) {
                rc = rs_error(err, RS_EINVAL, "capture frame %llu: %s %s a message",
                              (unsigned long long)f->number, info->name,
                              open ? "interrupts" : "does not start");
                break;
            }
            g_byte_array_append(data, trace->bytes->data + f->payload_off, f->payload_len);
            open = info->seg == RS_SEG_FIRST || info->seg == RS_SEG_MIDDLE;
            if (open)
                continue;
            m.opcode = write_or_send(info->op, f);
            m.imm = f->imm;
            m.length = data->len - m.data_off;
            g_array_append_val(msgs, m);
            break;
        case RS_OP_READ_REQ:
            m.opcode = RS_RC_WR_RDMA_READ;
            m.length = f->dmalen;
            g_array_append_val(msgs, m);
            /* Its responses take a PSN each. */
            if (f->dmalen > pmtu)
                rel += (f->dmalen + pmtu - 1) / pmtu - 1;
            break;
        case RS_OP_CMP_SWAP:
        case RS_OP_FETCH_ADD:
            m.opcode = info->op == RS_OP_CMP_SWAP ? RS_RC_WR_ATOMIC_CMP_AND_SWP
                                                  : RS_RC_WR_ATOMIC_FETCH_AND_ADD;
            m.length = 8;
            m.compare_add = info->op == RS_OP_CMP_SWAP ? f->compare : f->swap_add;
            m.swap = f->swap_add;
            g_array_append_val(msgs, m);
            break;
        default:
            rc = rs_error(err, RS_EINVAL, "capture frame %llu: %s is no RC work to replay",
                          (unsigned long long)f->number,
                          info->name != NULL ? info->name : "a reserved opcode");
        }
    }
    if (rc == 0 && open)
        rc = rs_error(err, RS_EINVAL, "the capture ends inside a message (from frame %llu)",
                      (unsigned long long)m.frame);
    g_free(at);
    return rc;
}
