/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * links.c - the links from a request to what answered it: "Response in
 * frame" on a READ or atomic request, "Acknowledged in frame" on a request
 * packet an ACK or NAK covers, the other ends of the analysis's request_frame
 * and acked_frame (as Wireshark's rpc links a call to its reply).
 *
 * The analysis reads once, in frame order, so a request's answer is unknown
 * when the request is read. The plugin keeps every frame's facts after its
 * first pass; when an answer comes by, the request's kept facts gain the
 * link, and every later pass (the GUI's tree, tshark -2) shows it.
 *
 * Kept per capture file, in its scope: the facts of each request frame by its
 * number, and per RC conversation the request frames no ACK has covered yet,
 * in frame order. That is one entry per request frame, as the kept facts are;
 * the file's scope frees both.
 */
#include <epan/packet.h>
#include <epan/wmem_scopes.h>

#include "ws_plugin.h"

/* Request frames by number, and the unacknowledged ones of each conversation
 * (struct pending) by conversation id: emptied when the file closes. */
static wmem_map_t *requests;
static wmem_map_t *pending_by_conv;

struct pending_request {
    guint32 number;
    struct rs_facts *facts;
};

/* A conversation's request frames not yet covered, oldest at head. */
struct pending {
    wmem_array_t *frames;       /* struct pending_request */
    guint head;
};

void
roceshark_links_register(void)
{
    requests = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_direct_hash,
                                      g_direct_equal);
    pending_by_conv = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
                                             g_direct_hash, g_direct_equal);
}

/* RC and XRC requests are acknowledged; UC's never are, so they wait for nothing. */
static bool
acknowledged_service(uint8_t opcode)
{
    uint8_t service = opcode >> 5;

    return service == 0 || service == 5;
}

static struct pending *
pending_of(guint32 conv)
{
    struct pending *p = wmem_map_lookup(pending_by_conv, GUINT_TO_POINTER(conv));

    if (p == NULL) {
        p = wmem_new0(wmem_file_scope(), struct pending);
        p->frames = wmem_array_new(wmem_file_scope(), sizeof(struct pending_request));
        wmem_map_insert(pending_by_conv, GUINT_TO_POINTER(conv), p);
    }
    return p;
}

/* The answer: the request's first response. */
static void
link_response(guint32 number, const struct rs_facts *f)
{
    struct rs_facts *req = wmem_map_lookup(requests, GUINT_TO_POINTER((guint32)f->request_frame));

    if (req != NULL && !(req->flags & RS_FACT_RESPONSE_FRAME)) {
        req->flags |= RS_FACT_RESPONSE_FRAME;
        req->response_frame = number;
    }
}

/* An ACK or NAK covers every request of its conversation up to acked_frame: each
 * waiting one gains the link, but for a READ or atomic its response answered
 * already (and linked). */
static void
link_ack(guint32 number, const struct rs_facts *f)
{
    struct pending *p = wmem_map_lookup(pending_by_conv, GUINT_TO_POINTER(f->conv));

    if (p == NULL)
        return;
    guint n = wmem_array_get_count(p->frames);
    while (p->head < n) {
        struct pending_request *r = wmem_array_index(p->frames, p->head);
        if (r->number > f->acked_frame)
            break;
        if (!(r->facts->flags & (RS_FACT_RESPONSE_FRAME | RS_FACT_ACK_FRAME))) {
            r->facts->flags |= RS_FACT_ACK_FRAME;
            r->facts->ack_frame = number;
        }
        p->head++;
    }
}

void
roceshark_links_note(guint32 number, uint8_t opcode, struct rs_facts *f)
{
    if (!(f->flags & RS_FACT_CONV))
        return;
    if (!(f->flags & RS_FACT_RESPONSE)) {
        wmem_map_insert(requests, GUINT_TO_POINTER(number), f);
        if (acknowledged_service(opcode)) {
            struct pending_request r = {number, f};
            wmem_array_append_one(pending_of(f->conv)->frames, r);
        }
        return;
    }
    if (f->flags & RS_FACT_REQUEST_FRAME)
        link_response(number, f);
    if (f->flags & RS_FACT_ACKED_FRAME)
        link_ack(number, f);
}
