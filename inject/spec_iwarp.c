/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spec_iwarp.c - the fields of iWARP specs: tcp(...), mpareq(...) and
 * mparep(...), mpa(...), ddp(...) and rdmap(...).
 *
 * Unlike the InfiniBand headers, the decoder reads iWARP fields out of the
 * stream stage (an FPDU may span segments), not at a fixed place in the
 * frame, so the registry cannot say where to write them. They are named
 * here, by Wireshark's names, and set in the builder's structures
 * (encode_iwarp.h) before the packet is built; value names still come from
 * the registry (rdmap(opcode="Read Request")).
 */
#include <stddef.h>
#include <string.h>

#include "inject_int.h"

#define PK(m) RS_INJECT_T_MEMBER, offsetof(struct rs_inject_packet, m), \
    sizeof(((struct rs_inject_packet *)0)->m)
#define IW(m) RS_INJECT_T_IWARP, offsetof(struct rs_iwarp_fields, m), \
    sizeof(((struct rs_iwarp_fields *)0)->m)

/* layer, short name, full name, where it goes, its largest value, a bool set with it */
static const struct inject_member_key keys[] = {
    {"tcp", "srcport", "tcp.srcport", PK(tcp.sport), 0xffff, -1},
    {"tcp", "dstport", "tcp.dstport", PK(tcp.dport), 0xffff, -1},
    {"tcp", "seq", "tcp.seq_raw", PK(tcp.seq), 0xffffffff,
     offsetof(struct rs_inject_packet, tcp_seq_given)},
    {"tcp", "ack", "tcp.ack_raw", PK(tcp.ack), 0xffffffff,
     offsetof(struct rs_inject_packet, tcp_ack_given)},
    {"tcp", "flags", "tcp.flags", PK(tcp.flags), 0xff, -1},
    {"tcp", "window_size_value", "tcp.window_size_value", PK(tcp.window), 0xffff, -1},
    {"mpareq", "crc_flag", "iwarp_mpa.crc_flag", PK(mpa_crc_flag), 1, -1},
    {"mpareq", "marker_flag", "iwarp_mpa.marker_flag", PK(mpa_marker_flag), 1, -1},
    {"mpareq", "rej_flag", "iwarp_mpa.rej_flag", PK(mpa_rej_flag), 1, -1},
    {"mpareq", "rev", "iwarp_mpa.rev", PK(mpa_rev), 0xff, -1},
    {"mpa", "ulpdulength", "iwarp_mpa.ulpdulength", IW(mpa.ulpdu_len), 0xffff,
     offsetof(struct rs_iwarp_fields, mpa.force_ulpdu_len)},
    {"mpa", "crc", "iwarp_mpa.crc", IW(mpa.crc_value), 0xffffffff,
     offsetof(struct rs_iwarp_fields, mpa.force_crc)},
    {"ddp", "tagged_flag", "iwarp_ddp.tagged_flag", IW(tagged), 1, -1},
    {"ddp", "last_flag", "iwarp_ddp.last_flag", IW(last), 1, -1},
    {"ddp", "dv", "iwarp_ddp.dv", IW(ddp_version), 3, -1},
    {"ddp", "stag", "iwarp_ddp.stag", IW(stag), 0xffffffff, -1},
    {"ddp", "tagged_offset", "iwarp_ddp.tagged_offset", IW(to), UINT64_MAX, -1},
    {"ddp", "rsvdulp", "iwarp_ddp.rsvdulp", IW(inval_stag), 0xffffffff, -1},
    {"ddp", "qn", "iwarp_ddp.qn", IW(qn), 0xffffffff, -1},
    {"ddp", "msn", "iwarp_ddp.msn", IW(msn), 0xffffffff, -1},
    {"ddp", "mo", "iwarp_ddp.mo", IW(mo), 0xffffffff, -1},
    {"rdmap", "opcode", "iwarp_rdma.opcode", IW(opcode), 0xf, -1},
    {"rdmap", "version", "iwarp_rdma.version", IW(rdmap_version), 3, -1},
    {"rdmap", "inval_stag", "iwarp_rdma.inval_stag", IW(inval_stag), 0xffffffff, -1},
    {"rdmap", "sinkstag", "iwarp_rdma.sinkstag", IW(read_req.sink_stag), 0xffffffff, -1},
    {"rdmap", "sinkto", "iwarp_rdma.sinkto", IW(read_req.sink_to), UINT64_MAX, -1},
    {"rdmap", "rdmardsz", "iwarp_rdma.rdmardsz", IW(read_req.size), 0xffffffff, -1},
    {"rdmap", "srcstag", "iwarp_rdma.srcstag", IW(read_req.src_stag), 0xffffffff, -1},
    {"rdmap", "srcto", "iwarp_rdma.srcto", IW(read_req.src_to), UINT64_MAX, -1},
    {"rdmap", "term_layer", "iwarp_rdma.term_layer", IW(term.layer), 0xf, -1},
    {"rdmap", "term_etype", "iwarp_rdma.term_etype", IW(term.etype), 0xf, -1},
    {"rdmap", "term_errcode", "iwarp_rdma.term_errcode", IW(term.errcode), 0xff, -1},
    {"rdmap", "immediate", "roceshark.rdmap.immediate", IW(immediate), UINT64_MAX, -1},
    {"rdmap", "atomic.opcode", "iwarp_rdma.atomic.opcode", IW(atomic_req.opcode), 0xf, -1},
    {"rdmap", "atomic.request_identifier", "iwarp_rdma.atomic.request_identifier",
     IW(atomic_req.req_id), 0xffffffff, -1},
    {"rdmap", "atomic.remote_stag", "iwarp_rdma.atomic.remote_stag", IW(atomic_req.stag),
     0xffffffff, -1},
    {"rdmap", "atomic.remote_tagged_offset", "iwarp_rdma.atomic.remote_tagged_offset",
     IW(atomic_req.to), UINT64_MAX, -1},
    {"rdmap", "atomic.add_data", "iwarp_rdma.atomic.add_data", IW(atomic_req.add_swap),
     UINT64_MAX, -1},
    {"rdmap", "atomic.swap_data", "iwarp_rdma.atomic.swap_data", IW(atomic_req.add_swap),
     UINT64_MAX, -1},
    {"rdmap", "atomic.add_mask", "iwarp_rdma.atomic.add_mask", IW(atomic_req.add_swap_mask),
     UINT64_MAX, -1},
    {"rdmap", "atomic.swap_mask", "iwarp_rdma.atomic.swap_mask", IW(atomic_req.add_swap_mask),
     UINT64_MAX, -1},
    {"rdmap", "atomic.compare_data", "iwarp_rdma.atomic.compare_data", IW(atomic_req.compare),
     UINT64_MAX, -1},
    {"rdmap", "atomic.compare_mask", "iwarp_rdma.atomic.compare_mask",
     IW(atomic_req.compare_mask), UINT64_MAX, -1},
    {"rdmap", "atomic.original_request_identifier",
     "iwarp_rdma.atomic.original_request_identifier", IW(atomic_resp.orig_req_id), 0xffffffff,
     -1},
    {"rdmap", "atomic.original_remote_data_value",
     "iwarp_rdma.atomic.original_remote_data_value", IW(atomic_resp.orig_value), UINT64_MAX,
     -1},
};

const struct inject_member_key *
inject_member_key(const char *layer, const char *name)
{
    /* mparep(...) takes what mpareq(...) takes. */
    if (layer != NULL && strcmp(layer, "mparep") == 0)
        layer = "mpareq";
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const struct inject_member_key *k = &keys[i];
        if (layer == NULL ? strcmp(k->full, name) == 0
                          : strcmp(k->layer, layer) == 0 &&
                                (strcmp(k->name, name) == 0 || strcmp(k->full, name) == 0))
            return k;
    }
    return NULL;
}

const char *
inject_member_suggest(const char *layer, const char *name)
{
    const char *best = NULL;
    unsigned best_d = INJECT_NEAR(strlen(name)) + 1;

    if (layer != NULL && strcmp(layer, "mparep") == 0)
        layer = "mpareq";
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const char *cand = layer != NULL ? keys[i].name : keys[i].full;
        if (layer != NULL && strcmp(keys[i].layer, layer) != 0)
            continue;
        unsigned d = inject_distance(name, cand, best_d);
        if (d < best_d) {
            best_d = d;
            best = cand;
        }
    }
    return best;
}

void
inject_member_store(void *base, const struct inject_member_key *k, uint64_t v)
{
    uint8_t *at = (uint8_t *)base + k->off;

    switch (k->width) {
    case 1:
        if (k->max == 1)
            *(bool *)at = v != 0;
        else
            *at = (uint8_t)v;
        break;
    case 2: {
        uint16_t x = (uint16_t)v;
        memcpy(at, &x, 2);
        break;
    }
    case 4: {
        uint32_t x = (uint32_t)v;
        memcpy(at, &x, 4);
        break;
    }
    default:
        memcpy(at, &v, 8);
        break;
    }
    if (k->flag_off >= 0)
        *(bool *)((uint8_t *)base + k->flag_off) = true;
}
