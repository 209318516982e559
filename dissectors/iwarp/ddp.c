/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ddp.c - what the DDP (RFC 5041) and RDMAP (RFC 5040, RFC 7306) headers of
 * a ULPDU say, as far as framing and message accounting need it.
 *
 * DDP tagged (14 octets):     | T L Rsvd DV | RDMAP ctrl | STag (32) | TO (64) |
 * DDP untagged (18 octets):   | T L Rsvd DV | RDMAP ctrl | RsvdULP (32) |
 *                             | QN (32) | MSN (32) | MO (32) |
 * RDMAP control octet:        | RV (2) | Rsvd (2) | Opcode (4) |
 *
 * Tagged messages (RDMA Write, Read Response) place data by STag and TO;
 * untagged ones (Send and its variants, Read Request, Terminate, Immediate
 * Data, Atomics) go to a queue (QN) as message MSN at offset MO. Read
 * Request, Terminate, Immediate Data and the Atomics are single segments.
 */
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/wire.h>

#include "iwarp_int.h"

#define DDP_TAGGED 0x80
#define DDP_LAST 0x40
#define DDP_RSVD 0x3c
#define DDP_VERSION 0x01
#define RDMAP_VERSION 0x40
#define MAX_QN 3            /* Send, Read Request, Terminate, Atomic (RFC 7306 8) */

/* Smallest ULPDU of each opcode: DDP header plus RDMAP header. */
static const uint8_t min_ulpdu[12] = {
    [RS_RDMAP_WRITE] = RS_DDP_TAGGED_HDR_LEN,
    [RS_RDMAP_READ_REQUEST] = RS_DDP_UNTAGGED_HDR_LEN + RS_RDMAP_READ_REQ_LEN,
    [RS_RDMAP_READ_RESPONSE] = RS_DDP_TAGGED_HDR_LEN,
    [RS_RDMAP_SEND] = RS_DDP_UNTAGGED_HDR_LEN,
    [RS_RDMAP_SEND_INVALIDATE] = RS_DDP_UNTAGGED_HDR_LEN,
    [RS_RDMAP_SEND_SE] = RS_DDP_UNTAGGED_HDR_LEN,
    [RS_RDMAP_SEND_SE_INVALIDATE] = RS_DDP_UNTAGGED_HDR_LEN,
    [RS_RDMAP_TERMINATE] = RS_DDP_UNTAGGED_HDR_LEN + 4,
    [RS_RDMAP_IMMEDIATE] = RS_DDP_UNTAGGED_HDR_LEN + RS_RDMAP_IMMEDIATE_LEN,
    [RS_RDMAP_IMMEDIATE_SE] = RS_DDP_UNTAGGED_HDR_LEN + RS_RDMAP_IMMEDIATE_LEN,
    [RS_RDMAP_ATOMIC_REQUEST] = RS_DDP_UNTAGGED_HDR_LEN + RS_RDMAP_ATOMIC_REQ_LEN,
    [RS_RDMAP_ATOMIC_RESPONSE] = RS_DDP_UNTAGGED_HDR_LEN + RS_RDMAP_ATOMIC_RESP_LEN,
};

static bool
is_tagged_opcode(uint8_t op)
{
    return op == RS_RDMAP_WRITE || op == RS_RDMAP_READ_RESPONSE;
}

static bool
is_single_segment(uint8_t op)
{
    return op == RS_RDMAP_READ_REQUEST || op >= RS_RDMAP_TERMINATE;
}

static bool
is_send(uint8_t op)
{
    return op >= RS_RDMAP_SEND && op <= RS_RDMAP_SEND_SE_INVALIDATE;
}

bool
iw_ddp_sane(const uint8_t *u, uint32_t avail, uint32_t ulen)
{
    if (avail < 2)
        return true;
    uint8_t c0 = u[0], c1 = u[1], op = c1 & 0x0f;
    if ((c0 & DDP_RSVD) != 0 || (c0 & 0x03) != DDP_VERSION)
        return false;
    if ((c1 & 0xc0) != RDMAP_VERSION || (c1 & 0x30) != 0 || op >= RS_ARRAY_SIZE(min_ulpdu))
        return false;
    if (((c0 & DDP_TAGGED) != 0) != is_tagged_opcode(op) || ulen < min_ulpdu[op])
        return false;
    if ((c0 & DDP_TAGGED) || avail < RS_DDP_UNTAGGED_HDR_LEN)
        return true;
    if (rs_load_be32(u + 6) > MAX_QN)
        return false;
    if (is_single_segment(op) && (!(c0 & DDP_LAST) || rs_load_be32(u + 14) != 0))
        return false;
    return true;
}

bool
iw_rdmap_tagged(uint8_t op)
{
    return is_tagged_opcode(op);
}

uint32_t
iw_rdmap_hdr_len(uint8_t op)
{
    if (op >= RS_ARRAY_SIZE(min_ulpdu))
        return 0;
    uint32_t ddp = is_tagged_opcode(op) ? RS_DDP_TAGGED_HDR_LEN : RS_DDP_UNTAGGED_HDR_LEN;
    return min_ulpdu[op] - ddp;
}

/* Appends a Send fragment's payload; drops the data (not the count) once
 * the message is longer than what we keep. */
static void
send_append(struct rs_iwarp *iw, struct iw_send *sd, const uint8_t *p, uint32_t n)
{
    if (sd->data_lost || n == 0)
        return;
    if (sd->len + n > IW_SEND_MAX_DATA) {
        sd->data_lost = true;
        return;
    }
    if (sd->len + n > sd->cap) {
        uint32_t cap = sd->cap ? sd->cap : 4096;
        while (cap < sd->len + n)
            cap *= 2;
        if (cap > IW_SEND_MAX_DATA)
            cap = IW_SEND_MAX_DATA;
        uint8_t *b = iw_memory_fits(iw, cap - sd->cap) ? realloc(sd->buf, cap) : NULL;
        if (b == NULL) {
            sd->data_lost = true;
            return;
        }
        iw_memory_add(iw, cap - sd->cap);
        sd->buf = b;
        sd->cap = cap;
    }
    memcpy(sd->buf + sd->len, p, n);
}

/* Wireshark reassembles the payloads of untagged Send messages in arrival
 * order per direction, and shows the fragments on the FPDU that ends the
 * message (iwarp_rdma.send.*); so does this. */
static void
send_account(struct rs_iwarp *iw, struct iw_dir *d, struct rs_iwarp_pdu *p, const uint8_t *u,
             uint32_t ulen)
{
    struct iw_view_build *vb = &iw->vb;
    uint32_t plen = ulen - RS_DDP_UNTAGGED_HDR_LEN;
    struct iw_send *sd = d->send;

    if ((sd == NULL || sd->frags == 0) && (u[0] & DDP_LAST))
        return;     /* a Send of one FPDU: nothing to reassemble, nothing shown */
    if (sd == NULL) {
        if (!iw_memory_fits(iw, sizeof(*sd)) || (sd = calloc(1, sizeof(*sd))) == NULL)
            return;     /* not shown: Wireshark's fields are a courtesy, not a must */
        iw_memory_add(iw, sizeof(*sd));
        d->send = sd;
    }
    if (sd->frags < IW_SEND_FRAMES) {
        sd->frames[sd->frags] = (uint32_t)vb->frame;
        sd->lens[sd->frags] = (uint16_t)plen;
    }
    sd->frags++;
    send_append(iw, sd, u + RS_DDP_UNTAGGED_HDR_LEN, plen);
    sd->len += plen;
    if (!(u[0] & DDP_LAST))
        return;
    uint32_t n = sd->frags < IW_SEND_FRAMES ? sd->frags : IW_SEND_FRAMES;
    if (vb->n_send_frames + n <= IW_SEND_FRAMES) {
        memcpy(vb->send_frames + vb->n_send_frames, sd->frames, n * sizeof(uint32_t));
        for (uint32_t i = 0; i < n; i++)
            vb->send_lens[vb->n_send_frames + i] = sd->lens[i];
        p->send_first_frame = vb->n_send_frames;
        p->send_fragments = (uint16_t)n;
        vb->n_send_frames = (uint16_t)(vb->n_send_frames + n);
        p->send_len = sd->len;
        p->flags |= RS_IWARP_PDU_SEND_REASM;
        if (!sd->data_lost) {
            /* A Send of empty FPDUs has no buffer (sd->buf NULL, len 0). */
            uint8_t *copy = iw_arena_alloc(iw, sd->len ? sd->len : 1);
            if (copy != NULL) {
                if (sd->len > 0)
                    memcpy(copy, sd->buf, sd->len);
                p->send_data = copy;
            }
        }
    }
    sd->frags = 0;
    sd->len = 0;
    sd->data_lost = false;
}

static void
account(struct rs_iwarp *iw, struct iw_dir *d, struct rs_iwarp_pdu *p)
{
    if (p->caplen < 2u + RS_DDP_UNTAGGED_HDR_LEN || p->ulpdu_len < RS_DDP_UNTAGGED_HDR_LEN)
        return;
    const uint8_t *u = p->data + 2;
    uint8_t op = u[1] & 0x0f;
    if (u[0] & DDP_TAGGED)
        return;
    if (u[0] & DDP_LAST) {
        p->msg_len = (uint64_t)rs_load_be32(u + 14) + p->ulpdu_len - RS_DDP_UNTAGGED_HDR_LEN;
        p->flags |= RS_IWARP_PDU_MSG_LAST;
    }
    if (is_send(op) && !(p->flags & RS_IWARP_PDU_TRUNCATED))
        send_account(iw, d, p, u, p->ulpdu_len);
}

/* The bytes FPDU p hands on to "data" (rs_iwarp_pdu_data() in iwarp.h). */
static bool
hands_on(const struct rs_iwarp_pdu *p, const uint8_t **data, uint32_t *len)
{
    /* ULPDU_Length, then the DDP and RDMAP control octets */
    if (p->kind != RS_MPA_FPDU || p->caplen < 4)
        return false;
    const uint8_t *u = p->data + 2;
    uint8_t op = u[1] & 0x0f;
    bool tagged = u[0] & DDP_TAGGED;
    uint32_t hdr = tagged ? RS_DDP_TAGGED_HDR_LEN : RS_DDP_UNTAGGED_HDR_LEN;

    /* Wireshark goes by the T bit: a Write sent untagged has no payload to it. */
    if (tagged ? !is_tagged_opcode(op) : (!is_send(op) || !(u[0] & DDP_LAST)))
        return false;
    if (p->flags & RS_IWARP_PDU_SEND_REASM) {
        *data = p->send_data;
        *len = p->send_len;
        return p->send_data != NULL && p->send_len > 0;
    }
    uint32_t avail = p->caplen - 2 < p->ulpdu_len ? p->caplen - 2 : p->ulpdu_len;
    if (p->ulpdu_len < hdr || avail <= hdr)
        return false;
    *data = u + hdr;
    *len = avail - hdr;
    return true;
}

void
iw_ddp_account(struct rs_iwarp *iw, struct iw_dir *d, struct rs_iwarp_pdu *p)
{
    const uint8_t *data;
    uint32_t len;

    account(iw, d, p);
    /* An offset, not a pointer: the view's PDUs move to copies of their own when the
     * window moves (stream.c), a reassembled Send's bytes never do. */
    p->data_off = p->data_len = 0;
    if (hands_on(p, &data, &len)) {
        p->data_off = (p->flags & RS_IWARP_PDU_SEND_REASM) ? 0 : (uint32_t)(data - p->data);
        p->data_len = len;
    }
}
