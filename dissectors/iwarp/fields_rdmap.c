/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_rdmap.c - the DDP and RDMAP headers of each FPDU: Wireshark 4.0's
 * iwarp_ddp.* and iwarp_rdma.* fields (names, types, formats, and on which
 * messages it shows them), and ours under roceshark.iwarp.*.
 *
 * Offsets are from the start of the ULPDU (the DDP header). Fields of the
 * RDMAP headers that follow DDP (Read Request, Terminate, Atomics,
 * Immediate Data) are from the end of the DDP header, 14 octets tagged and
 * 18 untagged. A field shows only when all its octets lie inside the ULPDU
 * and were captured, as Wireshark stops at the end of the ULPDU.
 *
 * Where Wireshark 4.0 reads an RFC 7306 Atomic Request with an operation
 * code other than FetchAdd (0) or CmpSwap (2), it puts Compare Data and
 * Compare Mask right after the Remote Tagged Offset; so does this, for the
 * fields to print as tshark prints them.
 */
#include <stdio.h>

#include "iwarp/fields_iwarp_int.h"

#define HDRCT_D 0x40
#define HDRCT_R 0x20
#define TERM_LAYER_RDMA 0
#define TERM_LAYER_DDP 1
#define TERM_LAYER_LLP 2
#define TERM_ETYPE_DDP_TAGGED 1
#define TERM_ETYPE_DDP_UNTAGGED 2
#define TERM_DDP_SEG_LEN_AT 4
#define ATOMIC_FETCH_ADD 0
#define ATOMIC_CMP_SWAP 2
#define TERMINATED_RDMA_HDR_LEN 28

static const struct rs_value_string opcode_vals[] = {
    {RS_RDMAP_WRITE, "Write"},
    {RS_RDMAP_READ_REQUEST, "Read Request"},
    {RS_RDMAP_READ_RESPONSE, "Read Response"},
    {RS_RDMAP_SEND, "Send"},
    {RS_RDMAP_SEND_INVALIDATE, "Send with Invalidate"},
    {RS_RDMAP_SEND_SE, "Send with SE"},
    {RS_RDMAP_SEND_SE_INVALIDATE, "Send with SE and Invalidate"},
    {RS_RDMAP_TERMINATE, "Terminate"},
    {RS_RDMAP_ATOMIC_REQUEST, "Atomic Request"},
    {RS_RDMAP_ATOMIC_RESPONSE, "Atomic Response"},
    {0, NULL},
};

static const struct rs_value_string layer_vals[] = {
    {TERM_LAYER_RDMA, "RDMA"}, {TERM_LAYER_DDP, "DDP"}, {TERM_LAYER_LLP, "LLP"}, {0, NULL},
};

static const struct rs_value_string rdma_etype_vals[] = {
    {0, "Local Catastrophic Error"}, {1, "Remote Protection Error"},
    {2, "Remote Operation Error"}, {0, NULL},
};

static const struct rs_value_string ddp_etype_vals[] = {
    {0, "Local Catastrophic Error"}, {1, "Tagged Buffer Error"}, {2, "Untagged Buffer Error"},
    {3, "Reserved for the use by the LLP"}, {0, NULL},
};

static const struct rs_value_string llp_etype_vals[] = {{0, "MPA Error"}, {0, NULL}};

static const struct rs_value_string rdma_errcode_vals[] = {
    {0x00, "Invalid STag"}, {0x01, "Base or bounds violation"},
    {0x02, "Access rights violation"}, {0x03, "STag not associated with RDMAP Stream"},
    {0x04, "TO wrap"}, {0x05, "Invalid RDMAP version"}, {0x06, "Unexpected OpCode"},
    {0x07, "Catastrophic error, localized to RDMAP Stream"},
    {0x08, "Catastrophic error, global"}, {0x09, "STag cannot be Invalidated"},
    {0xff, "Unspecific Error"}, {0, NULL},
};

static const struct rs_value_string ddp_tagged_errcode_vals[] = {
    {0x00, "Invalid STag"}, {0x01, "Base or bounds violation"},
    {0x02, "STag not associated with DDP Stream"}, {0x03, "TO wrap"},
    {0x04, "Invalid DDP version"}, {0, NULL},
};

static const struct rs_value_string ddp_untagged_errcode_vals[] = {
    {0x01, "Invalid QN"}, {0x02, "Invalid MSN - no buffer available"},
    {0x03, "Invalid MSN - MSN range is not valid"}, {0x04, "Invalid MO"},
    {0x05, "DDP Message too long for available buffer"}, {0x06, "Invalid DDP version"},
    {0, NULL},
};

static const struct rs_value_string llp_errcode_vals[] = {
    {0x01, "TCP connection closed, terminated or lost"}, {0x02, "MPA CRC Error"},
    {0x03, "MPA Marker and ULPDU Length field mismatch"},
    {0x04, "Invalid MPA Request Frame or MPA Response Frame"},
    {0x05, "Local Catastrophic Error"}, {0x06, "Insufficient IRD Resources"},
    {0x07, "No Matching RTR Option"}, {0, NULL},
};

static const struct rs_value_string atomic_op_vals[] = {
    {ATOMIC_FETCH_ADD, "FetchAdd"}, {ATOMIC_CMP_SWAP, "CmpSwap"}, {0, NULL},
};

/* A field that only some Terminate layers or error types carry names its
 * values with a table of its own, so the table says which it is. Plain
 * term_etype and term_errcode have none: */
static const struct rs_value_string term_etype_any[] = {{0, NULL}};
static const struct rs_value_string term_errcode_any[] = {{0, NULL}};

/* --- which FPDUs carry a field --- */

static bool
in_ddp(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    return iw_fits(f, 0, iw_ulpdu_avail(p));
}

static bool
in_untagged(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    return in_ddp(p, f) && !(iw_ulpdu(p)[0] & IW_DDP_TAGGED);
}

static bool
in_tagged(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    return in_ddp(p, f) && (iw_ulpdu(p)[0] & IW_DDP_TAGGED);
}

static bool
in_rdmap_ctrl(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    return iw_ulpdu_avail(p) >= 2 && in_ddp(p, f);
}

/* RsvdULP as RDMAP reads it: reserved for Read Request, Send, Send with SE
 * and Terminate; the STag to invalidate for the Invalidate variants. */
static bool
in_rsvd(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    if (!in_rdmap_ctrl(p, f))
        return false;
    uint8_t op = iw_rdmap_opcode(p);
    return op == RS_RDMAP_READ_REQUEST || op == RS_RDMAP_SEND || op == RS_RDMAP_SEND_SE ||
           op == RS_RDMAP_TERMINATE;
}

static bool
in_inval(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    if (!in_rdmap_ctrl(p, f))
        return false;
    uint8_t op = iw_rdmap_opcode(p);
    return op == RS_RDMAP_SEND_INVALIDATE || op == RS_RDMAP_SEND_SE_INVALIDATE;
}

/* An RDMAP header after DDP's, of the opcode in the field's offset's
 * header: the field lies at iw_ddp_len + f->offset. */
static bool
after_ddp(const struct rs_iwarp_pdu *p, const struct rs_field *f, uint8_t op)
{
    uint32_t avail = iw_ulpdu_avail(p);
    return avail >= 2 && iw_rdmap_opcode(p) == op && iw_fits(f, iw_ddp_len(p), avail);
}

static bool
in_read_req(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    return after_ddp(p, f, RS_RDMAP_READ_REQUEST);
}

static bool
in_atomic_resp(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    return after_ddp(p, f, RS_RDMAP_ATOMIC_RESPONSE);
}

static bool
in_immediate(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    return after_ddp(p, f, RS_RDMAP_IMMEDIATE) || after_ddp(p, f, RS_RDMAP_IMMEDIATE_SE);
}

static const uint8_t *
term_hdr(const struct rs_iwarp_pdu *p)
{
    return iw_ulpdu(p) + iw_ddp_len(p);
}

/* Terminate fields by layer and error type, as Wireshark picks them. */
static bool
in_terminate(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    uint32_t avail = iw_ulpdu_avail(p);
    if (avail < 2 || iw_rdmap_opcode(p) != RS_RDMAP_TERMINATE ||
        !iw_fits(f, iw_ddp_len(p), avail) || avail < iw_ddp_len(p) + 1)
        return false;
    uint8_t layer = term_hdr(p)[0] >> 4, etype = term_hdr(p)[0] & 0x0f;
    const struct rs_value_string *v = f->vals;
    if (v == rdma_etype_vals)
        return layer == TERM_LAYER_RDMA;
    if (v == ddp_etype_vals)
        return layer == TERM_LAYER_DDP;
    if (v == llp_etype_vals)
        return layer == TERM_LAYER_LLP;
    if (v == term_etype_any)
        return layer > TERM_LAYER_LLP;
    if (v == rdma_errcode_vals)
        return layer == TERM_LAYER_RDMA && etype != 0;
    if (v == ddp_tagged_errcode_vals)
        return layer == TERM_LAYER_DDP && etype == TERM_ETYPE_DDP_TAGGED;
    if (v == ddp_untagged_errcode_vals)
        return layer == TERM_LAYER_DDP && etype == TERM_ETYPE_DDP_UNTAGGED;
    if (v == llp_errcode_vals)
        return layer == TERM_LAYER_LLP && etype == 0;
    if (v == term_errcode_any)
        return (layer == TERM_LAYER_RDMA && etype == 0) ||
               (layer == TERM_LAYER_DDP && etype != TERM_ETYPE_DDP_TAGGED &&
                etype != TERM_ETYPE_DDP_UNTAGGED) ||
               (layer == TERM_LAYER_LLP && etype != 0) || layer > TERM_LAYER_LLP;
    return true;
}

/* The terminated headers: the D bit brings the DDP segment length and the
 * DDP header (14 octets when the error type is 1, else 18), the R bit the
 * 28 octets of the RDMAP header. */
static bool
term_span(const struct rs_iwarp_pdu *p, const struct rs_field *f, uint32_t *at, uint32_t *len)
{
    if (!in_terminate(p, f) || iw_ulpdu_avail(p) < iw_ddp_len(p) + 3)
        return false;
    const uint8_t *t = term_hdr(p);
    bool d = t[2] & HDRCT_D, r = t[2] & HDRCT_R;
    uint32_t ddp_h = (t[0] & 0x0f) == TERM_ETYPE_DDP_TAGGED ? RS_DDP_TAGGED_HDR_LEN
                                                           : RS_DDP_UNTAGGED_HDR_LEN;
    switch (f->offset) {
    case 0:     /* the segment length */
        *at = TERM_DDP_SEG_LEN_AT;
        *len = 2;
        if (!d)
            return false;
        break;
    case 1:     /* the DDP header */
        *at = TERM_DDP_SEG_LEN_AT + 2;
        *len = ddp_h;
        if (!d)
            return false;
        break;
    default:    /* the RDMAP header */
        *at = TERM_DDP_SEG_LEN_AT + (d ? 2 + ddp_h : 0);
        *len = TERMINATED_RDMA_HDR_LEN;
        if (!r)
            return false;
        break;
    }
    return iw_ddp_len(p) + *at + *len <= iw_ulpdu_avail(p);
}

static bool
in_term_span(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    uint32_t at, len;
    return term_span(p, f, &at, &len);
}

/* Atomic Request operands. The offset's high byte names the operations a data or
 * mask operand belongs to (bit op), 0 for Compare Data and Mask, which
 * every request shows: after the operands for FetchAdd and CmpSwap, right
 * after the Remote Tagged Offset for any other operation. (Not the mask: that is
 * tshark's, 0, and the tree formats a value by it.) */
#define OPERAND_OPS_SHIFT 8
static uint32_t
atomic_op(const struct rs_iwarp_pdu *p)
{
    return rs_load_be32(iw_ulpdu(p) + iw_ddp_len(p)) & 0x0f;
}

static bool
in_atomic_req(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    uint32_t avail = iw_ulpdu_avail(p);
    return avail >= 2 && iw_rdmap_opcode(p) == RS_RDMAP_ATOMIC_REQUEST &&
           avail >= iw_ddp_len(p) + 4 && iw_fits(f, iw_ddp_len(p), avail);
}

/* Where Wireshark puts an operand for this operation, or -1. */
static int
atomic_operand_at(const struct rs_field *f, uint32_t op)
{
    bool known = op == ATOMIC_FETCH_ADD || op == ATOMIC_CMP_SWAP;
    unsigned ops = f->offset >> OPERAND_OPS_SHIFT;
    int at = f->offset & ((1u << OPERAND_OPS_SHIFT) - 1);

    if (ops != 0)
        return known && ((ops >> op) & 1) ? at : -1;
    return known ? at : at - 16;
}

static bool
in_atomic_operand(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    uint32_t avail = iw_ulpdu_avail(p);
    if (avail < 2 || iw_rdmap_opcode(p) != RS_RDMAP_ATOMIC_REQUEST || avail < iw_ddp_len(p) + 4)
        return false;
    int at = atomic_operand_at(f, atomic_op(p));
    return at >= 0 && iw_ddp_len(p) + (uint32_t)at + 8 <= avail;
}

/* --- getters --- */

static bool
read_at(const struct rs_iwarp_pdu *p, const struct rs_field *f, uint32_t base,
        struct rs_value *out)
{
    return p != NULL && iw_field_read(f, iw_ulpdu(p) + base, out);
}

/* A getter and its locator (name_at): the field at base + its offset in the ULPDU, which
 * follows the FPDU's ULPDU_Length. */
#define GETTER(name, pred, base)                                                       \
    static bool name(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ, \
                     struct rs_value *out)                                             \
    {                                                                                  \
        const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, pred);                \
        return read_at(p, f, p != NULL ? (base) : 0, out);                              \
    }                                                                                  \
    IW_LOCATOR(name##_at, pred, 2 + (base))

GETTER(get_ddp, in_ddp, 0)
GETTER(get_untagged, in_untagged, 0)
GETTER(get_tagged, in_tagged, 0)
GETTER(get_rdmap_ctrl, in_rdmap_ctrl, 0)
GETTER(get_rsvd, in_rsvd, 0)
GETTER(get_inval, in_inval, 0)
GETTER(get_read_req, in_read_req, iw_ddp_len(p))
GETTER(get_terminate, in_terminate, iw_ddp_len(p))
GETTER(get_atomic_req, in_atomic_req, iw_ddp_len(p))
GETTER(get_atomic_resp, in_atomic_resp, iw_ddp_len(p))
GETTER(get_immediate, in_immediate, iw_ddp_len(p))

/* The Terminate's item, as Wireshark 4.0 sizes it: its header and the terminated
 * headers after it, to the ULPDU's end. */
static bool
locate_terminate(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 uint32_t *offset, uint32_t *length)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, in_terminate);

    return p != NULL && iw_ulpdu_avail(p) > iw_ddp_len(p) &&
           iw_pdu_place(pkt, p, 2 + iw_ddp_len(p), iw_ulpdu_avail(p) - iw_ddp_len(p), offset,
                        length);
}

static bool
get_term_span(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
              struct rs_value *out)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, in_term_span);
    uint32_t at, len;

    if (p == NULL || !term_span(p, f, &at, &len))
        return false;
    out->type = RS_FT_BYTES;
    out->v.bytes.ptr = term_hdr(p) + at;
    out->v.bytes.len = len;
    return true;
}

static bool
get_atomic_operand(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                   struct rs_value *out)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, in_atomic_operand);

    if (p == NULL)
        return false;
    int at = atomic_operand_at(f, atomic_op(p));
    return rs_value_set_uint(out, f->type, rs_load_be64(iw_ulpdu(p) + iw_ddp_len(p) + at));
}

static bool
get_term_span_at(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 uint32_t *offset, uint32_t *length)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, in_term_span);
    uint32_t at, len;

    return p != NULL && term_span(p, f, &at, &len) &&
           iw_pdu_place(pkt, p, 2 + iw_ddp_len(p) + at, len, offset, length);
}

static bool
get_atomic_operand_at(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                      uint32_t *offset, uint32_t *length)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, in_atomic_operand);

    return p != NULL && iw_pdu_place(pkt, p, 2 + iw_ddp_len(p) + (uint32_t)atomic_operand_at(
                                                 f, atomic_op(p)), 8, offset, length);
}

/* The protocol's item and the DDP header's, as Wireshark 4.0 sizes them: the DDP header,
 * or the whole ULPDU for a Read Request and a Terminate, whose RDMAP headers it reads
 * within them. */
static bool
locate_ddp_header(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                  uint32_t *offset, uint32_t *length)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, in_ddp);

    if (p == NULL)
        return false;
    uint32_t avail = iw_ulpdu_avail(p), n = iw_ddp_len(p);
    if (avail >= 2 && (iw_rdmap_opcode(p) == RS_RDMAP_READ_REQUEST ||
                       iw_rdmap_opcode(p) == RS_RDMAP_TERMINATE))
        n = avail;
    return iw_pdu_place(pkt, p, 2, n < avail ? n : avail, offset, length);
}

/* The RDMAP header's item: its control octet, and in an untagged segment the four octets
 * after it (reserved, or the STag to invalidate). */
static bool
locate_rdmap_header(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                    uint32_t *offset, uint32_t *length)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, in_rdmap_ctrl);

    return p != NULL && iw_pdu_place(pkt, p, 3, (iw_ulpdu(p)[0] & IW_DDP_TAGGED) ? 1 : 5,
                                     offset, length);
}

/* --- what we add --- */

static bool
is_msg_last(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    (void)f;
    return p->flags & RS_IWARP_PDU_MSG_LAST;
}

static bool
get_msg_len(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, is_msg_last);

    return p != NULL && rs_value_set_uint(out, f->type, p->msg_len);
}

static bool
has_payload_len(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    uint32_t len;

    (void)f;
    return iw_payload_len(p, &len);
}

static bool
get_payload_len(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                struct rs_value *out)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, has_payload_len);
    uint32_t len;

    return p != NULL && iw_payload_len(p, &len) && rs_value_set_uint(out, f->type, len);
}

/* Where ours lie (the Immediate Data's octets by its getter's locator): a payload length,
 * the payload; a message's length, the MO and payload of its last segment, which it adds
 * up. */
static bool
locate_payload_len(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                   uint32_t *offset, uint32_t *length)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, has_payload_len);
    uint32_t len;

    return p != NULL && iw_payload_len(p, &len) &&
           iw_pdu_place(pkt, p, 2 + iw_ddp_len(p), len, offset, length);
}

#define DDP_MO 14   /* the untagged header's MO, which the payload follows */

static bool
locate_msg_len(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
               uint32_t *offset, uint32_t *length)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, is_msg_last);

    return p != NULL && p->ulpdu_len >= RS_DDP_UNTAGGED_HDR_LEN &&
           iw_pdu_place(pkt, p, 2 + DDP_MO, p->ulpdu_len - DDP_MO, offset, length);
}

/* --- Send reassembly, as Wireshark shows it on the FPDU that ends the
 * message (one pass: no reassembled_in on the earlier fragments) --- */

static bool
is_send_reasm(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    (void)f;
    return p->flags & RS_IWARP_PDU_SEND_REASM;
}

static bool
is_send_reasm_data(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    return is_send_reasm(p, f) && p->send_data != NULL;
}

/* The offset column: 0 the node, 1 the count, 2 the length, 3 the data. */
static bool
get_send(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
         struct rs_value *out)
{
    const struct rs_iwarp_pdu *p =
        iw_field_pdu(pkt, f, occ, f->offset == 3 ? is_send_reasm_data : is_send_reasm);

    return p != NULL &&
           rs_value_set_reassembled(out, f, p->send_fragments, p->send_data, p->send_len);
}

/* The message's fragments, as Wireshark's fragment tree titles them: how many, the
 * message's octets, and each one's frame and octets. */
static size_t
label_send_fragments(const struct rs_packet *pkt, const struct rs_field *f,
                     const struct rs_value *v, char *buf, size_t size)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, 0, is_send_reasm);
    const struct rs_iwarp_view *view = pkt->iwarp;
    size_t n;

    (void)v;
    if (p == NULL)
        return 0;
    int k = snprintf(buf, size, "%u Reassembled SMB Direct Fragments (%u bytes):",
                     (unsigned)p->send_fragments, p->send_len);
    n = k > 0 ? (size_t)k : 0;
    for (unsigned i = 0; i < p->send_fragments && n < size; i++) {
        k = snprintf(buf + n, size - n, "%s #%u(%u)", i == 0 ? "" : ",",
                     view->send_frames[p->send_first_frame + i],
                     view->send_lens[p->send_first_frame + i]);
        n += k > 0 ? (size_t)k : 0;
    }
    return n;
}

/* The PDU that ends the Send fragment occ belongs to, and that fragment's index in the
 * view's send_frames[] and send_lens[]; NULL past the last. */
static const struct rs_iwarp_pdu *
send_fragment(const struct rs_iwarp_view *v, unsigned occ, uint32_t *at)
{
    for (unsigned i = 0; v != NULL && i < v->n_pdus; i++) {
        const struct rs_iwarp_pdu *p = &v->pdus[i];
        if (!(p->flags & RS_IWARP_PDU_SEND_REASM))
            continue;
        if (occ < p->send_fragments) {
            *at = p->send_first_frame + occ;
            return p;
        }
        occ -= p->send_fragments;
    }
    return NULL;
}

/* Each fragment's frame number, message after message. */
static bool
get_send_fragment(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                  struct rs_value *out)
{
    uint32_t at;

    (void)f;
    return send_fragment(pkt->iwarp, occ, &at) != NULL &&
           rs_value_set_uint(out, RS_FT_FRAMENUM, pkt->iwarp->send_frames[at]);
}

/* A fragment's octets in the message: after those of the fragments before it. */
static bool
locate_send_fragment(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                     uint32_t *offset, uint32_t *length)
{
    const struct rs_iwarp_view *v = pkt->iwarp;
    uint32_t at;
    const struct rs_iwarp_pdu *p = send_fragment(v, occ, &at);

    (void)f;
    if (p == NULL)
        return false;
    *offset = 0;
    for (uint32_t i = p->send_first_frame; i < at; i++)
        *offset += v->send_lens[i];
    *length = v->send_lens[at];
    return true;
}

/* The whole message, for the fragments' node. */
static bool
locate_send_message(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                    uint32_t *offset, uint32_t *length)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, is_send_reasm_data);

    if (p == NULL)
        return false;
    *offset = 0;
    *length = p->send_len;
    return true;
}

/* Placed by its getter's locator, get_*_at. */
#define F(abbrev, name, type, base, mask, vals, blurb, off, width, get, depth) \
    {abbrev, name, type, base, mask, vals, blurb, RS_NO_LAYER, off, width, get, depth, \
     RS_FIELD_PER_PDU, .locate = get##_at}
/* Wireshark's Send reassembly, of the message rather than of this FPDU's octets: generated,
 * and placed in the reassembled message (the data by its bytes, the node and fragments by
 * RS_FIELD_REASSEMBLED), or nowhere. */
#define F_MSG(abbrev, name, type, base, mask, vals, blurb, off, width, get, depth) \
    {abbrev, name, type, base, mask, vals, blurb, RS_NO_LAYER, off, width, get, depth, \
     RS_FIELD_PER_PDU | RS_FIELD_GENERATED}
/* One of ours, placed by `at`. */
#define F_AT(abbrev, name, type, base, mask, vals, blurb, off, width, get, depth, at) \
    {abbrev, name, type, base, mask, vals, blurb, RS_NO_LAYER, off, width, get, depth, \
     RS_FIELD_PER_PDU, .locate = at}
#define NODE(abbrev, name, blurb, off, width, get, depth) \
    F(abbrev, name, RS_FT_NONE, RS_BASE_NONE, 0, NULL, blurb, off, width, get, depth)
#define ATOMIC_OPERAND(abbrev, name, base, ops, blurb, off) \
    F(abbrev, name, RS_FT_UINT64, base, 0, NULL, blurb, (off) | (ops) << OPERAND_OPS_SHIFT, 8, \
      get_atomic_operand, 2)

const struct rs_field rs_fields_rdmap[] = {
    F_AT("iwarp_ddp_rdmap",
         "iWARP Direct Data Placement and Remote Direct Memory Access Protocol",
         RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL, "DDP and RDMAP", 0, 0, get_ddp, 0,
         locate_ddp_header),
    F_AT("iwarp_ddp", "DDP header", RS_FT_NONE, RS_BASE_NONE, 0, NULL, "DDP header", 0, 0,
         get_ddp, 1, locate_ddp_header),
    NODE("iwarp_ddp.control_field", "DDP control field", "DDP control field", 0, 1, get_ddp,
         2),
    F("iwarp_ddp.tagged_flag", "Tagged flag", RS_FT_BOOLEAN, RS_BASE_NONE, 0x80, NULL,
      "T: tagged buffer model", 0, 1, get_ddp, 3),
    F("iwarp_ddp.last_flag", "Last flag", RS_FT_BOOLEAN, RS_BASE_NONE, 0x40, NULL,
      "L: last segment of the message", 0, 1, get_ddp, 3),
    F("iwarp_ddp.rsvd", "Reserved", RS_FT_UINT8, RS_BASE_HEX, 0x3c, NULL, "Reserved bits", 0, 1,
      get_ddp, 3),
    F("iwarp_ddp.dv", "DDP protocol version", RS_FT_UINT8, RS_BASE_DEC, 0x03, NULL,
      "DDP version (1)", 0, 1, get_ddp, 3),
    F("iwarp_ddp.rsvdulp", "Reserved for use by the ULP", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
      "RsvdULP of an untagged segment (RDMAP control and reserved or STag)", 1, 5,
      get_untagged, 2),
    NODE("iwarp_ddp.tagged", "Tagged buffer model", "DDP Tagged Buffer Model Header", 2, 12,
         get_tagged, 2),
    F("iwarp_ddp.stag", "(Data Sink) Steering Tag", RS_FT_UINT32, RS_BASE_HEX, 0, NULL,
      "STag of the sink buffer", 2, 4, get_tagged, 3),
    F("iwarp_ddp.tagged_offset", "(Data Sink) Tagged offset", RS_FT_UINT64, RS_BASE_HEX, 0,
      NULL, "Tagged offset in the sink buffer", 6, 8, get_tagged, 3),
    NODE("iwarp_ddp.untagged", "Untagged buffer model", "DDP Untagged Buffer Model Header", 6,
         12, get_untagged, 2),
    F("iwarp_ddp.qn", "Queue number", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
      "QN: 0 Send, 1 Read Request, 2 Terminate, 3 Atomic", 6, 4, get_untagged, 3),
    F("iwarp_ddp.msn", "Message sequence number", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
      "MSN of the message on its queue", 10, 4, get_untagged, 3),
    F("iwarp_ddp.mo", "Message offset", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
      "MO: offset of this segment's payload in the message", 14, 4, get_untagged, 3),
    F_AT("iwarp_rdma", "RDMAP header", RS_FT_NONE, RS_BASE_NONE, 0, NULL, "RDMAP header", 1, 1,
         get_rdmap_ctrl, 1, locate_rdmap_header),
    NODE("iwarp_rdma.control_field", "RDMAP control field", "RDMA Control Field", 1, 1,
         get_rdmap_ctrl, 2),
    F("iwarp_rdma.version", "Version", RS_FT_UINT8, RS_BASE_DEC, 0xc0, NULL,
      "RDMA Version Field", 1, 1, get_rdmap_ctrl, 3),
    F("iwarp_rdma.rsv", "Reserved", RS_FT_UINT8, RS_BASE_HEX, 0x30, NULL,
      "RDMA Control Field Reserved", 1, 1, get_rdmap_ctrl, 3),
    F("iwarp_rdma.opcode", "OpCode", RS_FT_UINT8, RS_BASE_HEX, 0x0f, opcode_vals,
      "RDMA OpCode Field", 1, 1, get_rdmap_ctrl, 3),
    F("iwarp_rdma.reserved", "Reserved", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
      "RsvdULP of Read Request, Send, Send with SE and Terminate", 2, 4, get_rsvd, 2),
    F("iwarp_rdma.inval_stag", "Invalidate STag", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
      "RDMA Invalidate STag", 2, 4, get_inval, 2),
    NODE("iwarp_rdma.rr", "Read request", "RDMA Read Request Header", 0, 28, get_read_req, 2),
    F("iwarp_rdma.sinkstag", "Data Sink STag", RS_FT_UINT32, RS_BASE_HEX, 0, NULL,
      "STag the Read Response writes to", 0, 4, get_read_req, 3),
    F("iwarp_rdma.sinkto", "Data Sink Tagged Offset", RS_FT_UINT64, RS_BASE_HEX, 0, NULL,
      "Where in the sink buffer", 4, 8, get_read_req, 3),
    {"iwarp_rdma.rdmardsz", "RDMA Read Message Size", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "Octets to read", RS_NO_LAYER, 12, 4, get_read_req, 3, RS_FIELD_PER_PDU,
     .show = rs_show_bytes_count, .locate = get_read_req_at},
    F("iwarp_rdma.srcstag", "Data Source STag", RS_FT_UINT32, RS_BASE_HEX, 0, NULL,
      "STag of the buffer read", 16, 4, get_read_req, 3),
    F("iwarp_rdma.srcto", "Data Source Tagged Offset", RS_FT_UINT64, RS_BASE_HEX, 0, NULL,
      "Where in the source buffer", 20, 8, get_read_req, 3),
    F_AT("iwarp_rdma.terminate", "Terminate", RS_FT_NONE, RS_BASE_NONE, 0, NULL,
         "RDMA Terminate Header", 0, 4, get_terminate, 2, locate_terminate),
    NODE("iwarp_rdma.term_ctrl", "Terminate Control", "RDMA Terminate Control Field", 0, 3,
         get_terminate, 3),
    F("iwarp_rdma.term_layer", "Layer", RS_FT_UINT8, RS_BASE_HEX, 0xf0, layer_vals,
      "Terminate Control Field: Layer", 0, 1, get_terminate, 4),
    F("iwarp_rdma.term_etype_rdma", "Error Types for RDMA layer", RS_FT_UINT8, RS_BASE_HEX,
      0x0f, rdma_etype_vals, "Terminate Control Field: Error Type", 0, 1, get_terminate, 4),
    F("iwarp_rdma.term_etype_ddp", "Error Types for DDP layer", RS_FT_UINT8, RS_BASE_HEX, 0x0f,
      ddp_etype_vals, "Terminate Control Field: Error Type", 0, 1, get_terminate, 4),
    F("iwarp_rdma.term_etype_llp", "Error Types for LLP layer", RS_FT_UINT8, RS_BASE_HEX, 0x0f,
      llp_etype_vals, "Terminate Control Field: Error Type", 0, 1, get_terminate, 4),
    F("iwarp_rdma.term_etype", "Error Types", RS_FT_UINT8, RS_BASE_HEX, 0x0f, term_etype_any,
      "Terminate Control Field: Error Type", 0, 1, get_terminate, 4),
    F("iwarp_rdma.term_errcode_rdma", "Error Code for RDMA layer", RS_FT_UINT8, RS_BASE_HEX, 0,
      rdma_errcode_vals, "Terminate Control Field: Error Code", 1, 1, get_terminate, 4),
    F("iwarp_rdma.term_errcode_ddp_tagged", "Error Code for DDP Tagged Buffer", RS_FT_UINT8,
      RS_BASE_HEX, 0, ddp_tagged_errcode_vals, "Terminate Control Field: Error Code", 1, 1,
      get_terminate, 4),
    F("iwarp_rdma.term_errcode_ddp_untagged", "Error Code for DDP Untagged Buffer",
      RS_FT_UINT8, RS_BASE_HEX, 0, ddp_untagged_errcode_vals,
      "Terminate Control Field: Error Code", 1, 1, get_terminate, 4),
    F("iwarp_rdma.term_errcode", "Error Code", RS_FT_UINT8, RS_BASE_HEX, 0, term_errcode_any,
      "Terminate Control Field: Error Code", 1, 1, get_terminate, 4),
    F("iwarp_rdma.term_errcode_llp", "Error Code for LLP layer", RS_FT_UINT8, RS_BASE_HEX, 0,
      llp_errcode_vals, "Terminate Control Field: Lower Layer Protocol Error Code", 1, 1,
      get_terminate, 4),
    NODE("iwarp_rdma.term_hdrct", "Header control bits",
         "Terminate Control Field: Header control bits", 2, 1, get_terminate, 4),
    F("iwarp_rdma.term_hdrct_m", "M bit", RS_FT_BOOLEAN, RS_BASE_NONE, 0x80, rs_set_vals,
      "Header control bit m: DDP Segment Length valid", 2, 1, get_terminate, 5),
    F("iwarp_rdma.hdrct_d", "D bit", RS_FT_BOOLEAN, RS_BASE_NONE, 0x40, rs_set_vals,
      "Header control bit d: DDP Header Included", 2, 1, get_terminate, 5),
    F("iwarp_rdma.hdrct_r", "R bit", RS_FT_BOOLEAN, RS_BASE_NONE, 0x20, rs_set_vals,
      "Header control bit r: RDMAP Header Included", 2, 1, get_terminate, 5),
    F("iwarp_rdma.term_rsvd", "Reserved", RS_FT_UINT16, RS_BASE_HEX, 0x1fff, NULL,
      "Reserved", 2, 2, get_terminate, 3),
    F("iwarp_rdma.term_ddp_seg_len", "DDP Segment Length", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
      "Length of the terminated DDP segment", 0, 0, get_term_span, 3),
    F("iwarp_rdma.term_ddp_h", "Terminated DDP Header", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
      "The DDP header of the segment that failed", 1, 0, get_term_span, 3),
    F("iwarp_rdma.term_rdma_h", "Terminated RDMA Header", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
      "The RDMAP header of the message that failed", 2, 0, get_term_span, 3),
    F("iwarp_rdma.atomic.reserved", "Reserved", RS_FT_UINT32, RS_BASE_DEC, 0xfffffff0, NULL,
      "Reserved", 0, 4, get_atomic_req, 2),
    F("iwarp_rdma.atomic.opcode", "OpCode", RS_FT_UINT32, RS_BASE_DEC, 0x0000000f,
      atomic_op_vals, "Atomic operation: 0 FetchAdd, 2 CmpSwap", 0, 4, get_atomic_req, 2),
    F("iwarp_rdma.atomic.request_identifier", "Request Identifier", RS_FT_UINT32, RS_BASE_DEC,
      0, NULL, "Matches the response to the request", 4, 4, get_atomic_req, 2),
    F("iwarp_rdma.atomic.remote_stag", "Remote STag", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
      "STag of the remote buffer", 8, 4, get_atomic_req, 2),
    F("iwarp_rdma.atomic.remote_tagged_offset", "Remote Tagged Offset", RS_FT_UINT64,
      RS_BASE_DEC, 0, NULL, "Offset of the operand in the remote buffer", 12, 8,
      get_atomic_req, 2),
    ATOMIC_OPERAND("iwarp_rdma.atomic.add_data", "Add Data", RS_BASE_DEC,
                   1u << ATOMIC_FETCH_ADD, "FetchAdd: what to add", 20),
    ATOMIC_OPERAND("iwarp_rdma.atomic.add_mask", "Add Mask", RS_BASE_HEX,
                   1u << ATOMIC_FETCH_ADD, "FetchAdd: carry boundaries", 28),
    ATOMIC_OPERAND("iwarp_rdma.atomic.swap_data", "Swap Data", RS_BASE_DEC,
                   1u << ATOMIC_CMP_SWAP, "CmpSwap: what to swap in", 20),
    ATOMIC_OPERAND("iwarp_rdma.atomic.swap_mask", "Swap Mask", RS_BASE_HEX,
                   1u << ATOMIC_CMP_SWAP, "CmpSwap: which bits to swap", 28),
    ATOMIC_OPERAND("iwarp_rdma.atomic.compare_data", "Compare Data", RS_BASE_DEC, 0,
                   "CmpSwap: what to compare with", 36),
    ATOMIC_OPERAND("iwarp_rdma.atomic.compare_mask", "Compare Mask", RS_BASE_HEX, 0,
                   "CmpSwap: which bits to compare", 44),
    F("iwarp_rdma.atomic.original_request_identifier", "Original Request Identifier",
      RS_FT_UINT32, RS_BASE_DEC, 0, NULL, "The request this answers", 0, 4, get_atomic_resp,
      2),
    F("iwarp_rdma.atomic.original_remote_data_value", "Original Request Identifier",
      RS_FT_UINT64, RS_BASE_DEC, 0, NULL, "The value before the operation", 4, 8,
      get_atomic_resp, 2),
    F("roceshark.iwarp.immediate", "Immediate Data", RS_FT_UINT64, RS_BASE_HEX, 0, NULL,
      "RFC 7306: the 8 octets of an Immediate Data message", 0, 8, get_immediate, 2),
    F_AT("roceshark.iwarp.payload.len", "Payload length", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
         "Octets of the ULPDU after the DDP header", 0, 0, get_payload_len, 2,
         locate_payload_len),
    F_AT("roceshark.iwarp.msg.len", "Message length", RS_FT_UINT64, RS_BASE_DEC, 0, NULL,
         "On the last segment (L) of an untagged message: its length (MO + payload)", 0, 0,
         get_msg_len, 2, locate_msg_len),
    /* Wireshark's fragment tree: a generated item of its own after DDP/RDMAP's (depth 0,
     * not a protocol), placed in the reassembled message, its fragments' items over their
     * octets there, the count, length and data under it. */
    {"iwarp_rdma.send.fragments", "Reassembled SMB Direct Fragments", RS_FT_NONE, RS_BASE_NONE,
     0, NULL, "The Send's fragments (on the FPDU that ends it)", RS_NO_LAYER, 0, 0, get_send, 0,
     RS_FIELD_PER_PDU | RS_FIELD_GENERATED | RS_FIELD_REASSEMBLED,
     .label = label_send_fragments, .locate = locate_send_message},
    {"iwarp_rdma.send.fragment", "iWarp RDMA Send Fragment", RS_FT_FRAMENUM, RS_BASE_NONE, 0,
     NULL, "Frame of each fragment", RS_NO_LAYER, 0, 0, get_send_fragment, 1,
     RS_FIELD_PER_PDU | RS_FIELD_GENERATED | RS_FIELD_REASSEMBLED,
     .locate = locate_send_fragment},
    F_MSG("iwarp_rdma.send.fragment.count", "Fragment count", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
      "FPDUs of the Send", 1, 0, get_send, 1),
    F_MSG("iwarp_rdma.send.reassembled.length", "Reassembled iWarp RDMA Send length",
      RS_FT_UINT32, RS_BASE_DEC, 0, NULL, "Octets of the Send's payload", 2, 0, get_send, 1),
    F_MSG("iwarp_rdma.send.reassembled.data", "Reassembled iWarp RDMA Send data", RS_FT_BYTES,
      RS_BASE_NONE, 0, NULL, "The Send's payload (kept up to 256 KiB)", 3, 0, get_send, 1),
    F_MSG("iwarp_rdma.send.reassembled_in", "Reassembled PDU in frame", RS_FT_FRAMENUM,
      RS_BASE_NONE, 0, NULL, "Shown by a second pass only: never in one pass", 0, 0, rs_field_get_never,
      2),
    F_MSG("iwarp_rdma.send.fragment.overlap", "Fragment overlap", RS_FT_BOOLEAN, RS_BASE_NONE, 0,
      NULL, "Send fragments never overlap", 0, 0, rs_field_get_never, 2),
    F_MSG("iwarp_rdma.send.fragment.overlap.conflict", "Conflicting data in fragment overlap",
      RS_FT_BOOLEAN, RS_BASE_NONE, 0, NULL, "Send fragments never overlap", 0, 0, rs_field_get_never, 2),
    F_MSG("iwarp_rdma.send.fragment.multipletails", "Multiple tail fragments found", RS_FT_BOOLEAN,
      RS_BASE_NONE, 0, NULL, "Send fragments never overlap", 0, 0, rs_field_get_never, 2),
    F_MSG("iwarp_rdma.send.fragment.toolongfragment", "Fragment too long", RS_FT_BOOLEAN,
      RS_BASE_NONE, 0, NULL, "Send fragments never overlap", 0, 0, rs_field_get_never, 2),
    F_MSG("iwarp_rdma.send.fragment.error", "Defragmentation error", RS_FT_FRAMENUM, RS_BASE_NONE, 0,
      NULL, "Send fragments never overlap", 0, 0, rs_field_get_never, 2),
    RS_F_END,
};
