/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iwarp_want.h - what an FPDU built from struct rs_iwarp_fields must show,
 * field by field under Wireshark's names (roceshark.* where Wireshark has
 * none): test_encode_iwarp.c reads them back through our decoder, and
 * tests/gen/encode_iwarp_pcap.c prints them for tshark to be held to.
 */
#ifndef ROCESHARK_IWARP_WANT_H
#define ROCESHARK_IWARP_WANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <roceshark/dissectors/encode_iwarp.h>

#define IWARP_WANT_MAX 24

struct want {
    const char *name;
    uint64_t v;
};

/* Appends a field and its value to w[n]. */
#define WANT(name_, v_) (w[n++] = (struct want){(name_), (v_)})

/* Terminate's error type and code fields, named by layer and type as
 * Wireshark picks them. */
static inline void
iwarp_want_term(const struct rs_rdmap_terminate *t, const char **etype, const char **errcode)
{
    static const char *const etypes[] = {"iwarp_rdma.term_etype_rdma", "iwarp_rdma.term_etype_ddp",
                                         "iwarp_rdma.term_etype_llp"};

    *etype = t->layer < 3 ? etypes[t->layer] : "iwarp_rdma.term_etype";
    *errcode = "iwarp_rdma.term_errcode";
    if (t->layer == 0 && t->etype != 0)
        *errcode = "iwarp_rdma.term_errcode_rdma";
    else if (t->layer == 1 && (t->etype == 1 || t->etype == 2))
        *errcode = t->etype == 1 ? "iwarp_rdma.term_errcode_ddp_tagged"
                                 : "iwarp_rdma.term_errcode_ddp_untagged";
    else if (t->layer == 2 && t->etype == 0)
        *errcode = "iwarp_rdma.term_errcode_llp";
}

/* Appends count fields, names[i] reading values[i], to w[n]; returns the new n. */
static inline size_t
want_run(struct want *w, size_t n, const char *const *names, const uint64_t *values,
         size_t count)
{
    for (size_t i = 0; i < count; i++)
        w[n++] = (struct want){names[i], values[i]};
    return n;
}

/* The RDMAP header after DDP's, into w; returns the count. */
static inline size_t
iwarp_want_rdmap(const struct rs_iwarp_fields *f, struct want *w)
{
    static const char *const read_req[] = {"iwarp_rdma.sinkstag", "iwarp_rdma.sinkto",
                                           "iwarp_rdma.rdmardsz", "iwarp_rdma.srcstag",
                                           "iwarp_rdma.srcto"};
    const struct rs_rdmap_read_req *rr = &f->read_req;
    const struct rs_rdmap_terminate *t = &f->term;
    const struct rs_rdmap_atomic_req *aq = &f->atomic_req;
    const char *etype, *errcode;
    bool add = aq->opcode == 0;     /* FetchAdd; else CmpSwap's names */
    size_t n = 0;

    switch (f->opcode) {
    case RS_RDMAP_SEND_INVALIDATE:
    case RS_RDMAP_SEND_SE_INVALIDATE:
        WANT("iwarp_rdma.inval_stag", f->inval_stag);
        break;
    case RS_RDMAP_READ_REQUEST:
        return want_run(w, 0, read_req, (const uint64_t[]){rr->sink_stag, rr->sink_to, rr->size,
                                                           rr->src_stag, rr->src_to}, 5);
    case RS_RDMAP_TERMINATE: {
        iwarp_want_term(t, &etype, &errcode);
        const char *const names[] = {"iwarp_rdma.term_layer", etype, errcode,
                                     "iwarp_rdma.term_hdrct_m", "iwarp_rdma.hdrct_d",
                                     "iwarp_rdma.hdrct_r", "iwarp_rdma.term_rsvd"};
        return want_run(w, 0, names, (const uint64_t[]){t->layer, t->etype, t->errcode,
                                                        t->hdrct_m, t->hdrct_d, t->hdrct_r, 0},
                        7);
    }
    case RS_RDMAP_IMMEDIATE:
    case RS_RDMAP_IMMEDIATE_SE:
        WANT("roceshark.iwarp.immediate", f->immediate);
        break;
    case RS_RDMAP_ATOMIC_REQUEST: {
        const char *const names[] = {
            "iwarp_rdma.atomic.opcode", "iwarp_rdma.atomic.reserved",
            "iwarp_rdma.atomic.request_identifier", "iwarp_rdma.atomic.remote_stag",
            "iwarp_rdma.atomic.remote_tagged_offset",
            add ? "iwarp_rdma.atomic.add_data" : "iwarp_rdma.atomic.swap_data",
            add ? "iwarp_rdma.atomic.add_mask" : "iwarp_rdma.atomic.swap_mask",
            "iwarp_rdma.atomic.compare_data", "iwarp_rdma.atomic.compare_mask"};
        return want_run(w, 0, names, (const uint64_t[]){aq->opcode, 0, aq->req_id, aq->stag,
                                                        aq->to, aq->add_swap, aq->add_swap_mask,
                                                        aq->compare, aq->compare_mask},
                        9);
    }
    case RS_RDMAP_ATOMIC_RESPONSE:
        WANT("iwarp_rdma.atomic.original_request_identifier", f->atomic_resp.orig_req_id);
        WANT("iwarp_rdma.atomic.original_remote_data_value", f->atomic_resp.orig_value);
        break;
    default:
        break;
    }
    return n;
}

/* Every field of the FPDU of f whose ULPDU is ulpdu_len octets long (the
 * Atomic Request's operands as FetchAdd or CmpSwap lay them out), into w
 * (IWARP_WANT_MAX entries); returns the count. */
static inline size_t
iwarp_want(const struct rs_iwarp_fields *f, uint16_t ulpdu_len, struct want *w)
{
    size_t n = 0;

    WANT("iwarp_mpa.ulpdulength", ulpdu_len);
    WANT("iwarp_ddp.tagged_flag", f->tagged);
    WANT("iwarp_ddp.last_flag", f->last);
    WANT("iwarp_ddp.rsvd", 0);
    WANT("iwarp_ddp.dv", f->ddp_version);
    WANT("iwarp_rdma.version", f->rdmap_version);
    WANT("iwarp_rdma.rsv", 0);
    WANT("iwarp_rdma.opcode", f->opcode);
    if (f->tagged) {
        WANT("iwarp_ddp.stag", f->stag);
        WANT("iwarp_ddp.tagged_offset", f->to);
    } else {
        WANT("iwarp_ddp.qn", f->qn);
        WANT("iwarp_ddp.msn", f->msn);
        WANT("iwarp_ddp.mo", f->mo);
    }
#undef WANT
    return n + iwarp_want_rdmap(f, w + n);
}

#endif /* ROCESHARK_IWARP_WANT_H */
