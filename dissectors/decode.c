/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode.c - rs_decode_frame(): the entry point, dispatching on link type.
 */
#include <string.h>

#include "decode_int.h"

void
rs_decode_opts_init(struct rs_decode_opts *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->verify_crc = true;
}

void
rs_decode_frame(const struct rs_frame *frame, const struct rs_decode_opts *opts,
                struct rs_packet *pkt)
{
    /* Only the fields below need resetting: spans are read only where the
     * layer bit is set. This keeps the per-frame cost a few stores. */
    pkt->frame = frame;
    pkt->layers = 0;
    pkt->encap = RS_ENCAP_NONE;
    pkt->opcode = 0;
    pkt->ip_proto = 0;
    pkt->ecn = 0;
    pkt->ethertype = 0;
    pkt->flags = 0;
    pkt->problem = NULL;
    pkt->stopped = NULL;
    pkt->payload_len = 0;
    pkt->icrc_status = RS_CKSUM_NOT_PRESENT;
    pkt->vcrc_status = RS_CKSUM_NOT_PRESENT;
    pkt->icrc_computed = 0;
    pkt->vcrc_computed = 0;
    pkt->facts = NULL;
    pkt->iwarp = NULL;
    pkt->stream = NULL;
    pkt->corr = NULL;
    pkt->item = 0;
    pkt->delta_shown = frame->delta;

    /* The frame's wire length bounds everything; a capture that claims to
     * hold more than was on the wire is inconsistent. */
    uint32_t end = frame->len;
    if (frame->caplen > frame->len) {
        decode_malformed(pkt, "Frame", "captured length exceeds the wire length");
        end = frame->caplen;
    }

    switch (frame->linktype) {
    case RS_DLT_EN10MB:
        decode_ethernet(pkt, opts, 0, end);
        break;
    case RS_DLT_LINUX_SLL:
        if (decode_need(pkt, 0, 16, end, "SLL", "Linux cooked header too short")) {
            decode_set_layer(pkt, RS_LAYER_SLL, 0, 16);
            decode_ethertype(pkt, opts, rs_load_be16(frame->data + 14), 16, end);
        }
        break;
    case RS_DLT_LINUX_SLL2:
        if (decode_need(pkt, 0, 20, end, "SLL", "Linux cooked v2 header too short")) {
            decode_set_layer(pkt, RS_LAYER_SLL, 0, 20);
            decode_ethertype(pkt, opts, rs_load_be16(frame->data), 20, end);
        }
        break;
    case RS_DLT_RAW:
    case RS_DLT_RAW_BSD:
    case RS_DLT_LINKTYPE_RAW:
        if (frame->caplen > 0 && frame->data[0] >> 4 == 6)
            decode_ipv6(pkt, opts, 0, end);
        else
            decode_ipv4(pkt, opts, 0, end);
        break;
    case RS_DLT_IPV4:
        decode_ipv4(pkt, opts, 0, end);
        break;
    case RS_DLT_IPV6:
        decode_ipv6(pkt, opts, 0, end);
        break;
    case RS_DLT_INFINIBAND:
        if (!opts->disable_infiniband)
            decode_lrh(pkt, 0, end);
        break;
    case RS_DLT_ERF:
        decode_erf(pkt, opts, end);
        break;
    default:
        break;
    }
    decode_ipoib(pkt, opts);
    if (opts->verify_crc)
        decode_check_crcs(pkt);
    else if (rs_packet_has(pkt, RS_LAYER_ICRC))
        pkt->icrc_status = RS_CKSUM_UNVERIFIED;
}
