/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-roceshark.c - the roceshark postdissector for Wireshark 4.0.
 *
 * A thin adapter: every frame's bytes go through librsdissect's decoder
 * and analyzer, and every roceshark.* field of the registry is added to a
 * "roceshark" subtree under the same name, so that filters, columns and
 * `tshark -T fields` work as with `roceshark read`.
 *
 * Wireshark dissects frames more than once and, in the GUI, in any order.
 * The analysis therefore runs once per frame, on the first pass, in frame
 * order (!PINFO_FD_VISITED); its facts are kept with the frame
 * (p_add_proto_data) and read back on every later pass. Decoding is
 * stateless and simply runs again. iWARP is not: TCP reassembly and MPA
 * framing depend on the frames before. So the iWARP stage also runs only
 * on the first pass, and every roceshark.* value and expert item of an
 * iWARP frame is kept as it was found then.
 */
#include <string.h>

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/tap.h>
#include <wiretap/wtap.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/expert.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/pipeline.h>
#include <roceshark/dissectors/print.h>

#include "ws_compat.h"
#include "ws_plugin.h"

int proto_roceshark = -1;
int roceshark_tap = -1;
static int hf_analysis = -1;
static gint ett_roceshark = -1;
static gint ett_analysis = -1;

/* Our field id -> Wireshark hf id, for the roceshark.* fields. */
static int *hf_of;
static int n_fields;
static expert_field ei_of[RS_EXPERT_MAX_KINDS];

/* Preferences. */
static guint pref_pmtu = 0;
static range_t *pref_ports;
static rs_ws_pref_bool pref_analysis = TRUE;
static range_t *pref_iwarp_ports;

static struct rs_decode_opts decode_opts;
/* The stateful stages, run once per frame on the first pass. */
static struct rs_pipeline *pipeline;

/* One roceshark.* value of an iWARP frame, copied out of the stage's
 * buffers, which the next frame reuses, with the frame's bytes it covers
 * (found then: later passes have no iWARP view to place it with). */
struct kept_value {
    int id;
    struct rs_value v;
    uint32_t off, len;
};

/* What the first pass found about a frame. */
struct frame_facts {
    struct roceshark_tap_frame tap;     /* its facts, and what the tap counts */
    /* iWARP frames only (kept != NULL): their values and expert items. */
    struct kept_value *kept;
    unsigned n_kept;
    uint32_t experts;           /* bit i: rs_experts[i] */
};

const struct rs_analyzer *
roceshark_analyzer(void)
{
    return pipeline != NULL ? rs_pipeline_analyzer(pipeline) : NULL;
}

const struct roceshark_tap_frame *
roceshark_frame_facts(packet_info *pinfo)
{
    const struct frame_facts *ff = p_get_proto_data(wmem_file_scope(), pinfo, proto_roceshark, 0);

    return ff != NULL && roceshark_analyzer() != NULL ? &ff->tap : NULL;
}

/* --- Registration: the registry's roceshark.* fields as Wireshark fields --- */

static bool
is_ours(const struct rs_field *f)
{
    return strncmp(f->abbrev, "roceshark.", 10) == 0;
}

static enum ftenum
ws_type(const struct rs_field *f)
{
    switch (f->type) {
    case RS_FT_BOOLEAN: return FT_BOOLEAN;
    case RS_FT_UINT8: return FT_UINT8;
    case RS_FT_UINT16: return FT_UINT16;
    case RS_FT_UINT24: return FT_UINT24;
    case RS_FT_UINT32: return FT_UINT32;
    case RS_FT_UINT64: return FT_UINT64;
    case RS_FT_INT16: return FT_INT16;
    case RS_FT_INT32: return FT_INT32;
    case RS_FT_FRAMENUM: return FT_FRAMENUM;
    case RS_FT_RELTIME: return FT_RELATIVE_TIME;
    case RS_FT_ABSTIME: return FT_ABSOLUTE_TIME;
    case RS_FT_BYTES: return FT_BYTES;
    case RS_FT_IPV4: return FT_IPv4;
    case RS_FT_IPV6: return FT_IPv6;
    case RS_FT_ETHER: return FT_ETHER;
    case RS_FT_STRING: return FT_STRING;
    case RS_FT_DOUBLE: return FT_DOUBLE;
    default: return FT_NONE;
    }
}

static int
ws_display(const struct rs_field *f)
{
    bool integer = f->type >= RS_FT_UINT8 && f->type <= RS_FT_INT32;

    if (!integer)
        return f->type == RS_FT_ABSTIME ? ABSOLUTE_TIME_LOCAL : BASE_NONE;
    switch (f->base) {
    case RS_BASE_HEX: return BASE_HEX;
    case RS_BASE_DEC_HEX: return BASE_DEC_HEX;
    case RS_BASE_HEX_DEC: return BASE_HEX_DEC;
    default: return BASE_DEC;
    }
}

/* Value names in Wireshark's form, kept for the life of the process. */
static const void *
ws_strings(const struct rs_field *f)
{
    if (f->type == RS_FT_FRAMENUM) {
        /* The packet list's related-packet marks: an ACK's tick on what it acknowledges,
         * the arrows between a request and its response or ACK. */
        if (strstr(f->abbrev, "acked_frame") != NULL)
            return FRAMENUM_TYPE(FT_FRAMENUM_ACK);
        if (strstr(f->abbrev, "request_frame") != NULL)
            return FRAMENUM_TYPE(FT_FRAMENUM_REQUEST);
        if (strstr(f->abbrev, "response_frame") != NULL || strstr(f->abbrev, "ack_frame") != NULL)
            return FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE);
        return FRAMENUM_TYPE(FT_FRAMENUM_NONE);
    }
    /* A boolean's names would want a true_false_string: Wireshark's own
     * fields carry them, ours have none. */
    if (f->vals == NULL || ws_type(f) == FT_UINT64 || f->type == RS_FT_BOOLEAN)
        return NULL;
    size_t n = 0;
    while (f->vals[n].name != NULL)
        n++;
    value_string *vs = g_new0(value_string, n + 1);
    for (size_t i = 0; i < n; i++) {
        vs[i].value = (guint32)f->vals[i].value;
        vs[i].strptr = f->vals[i].name;
    }
    return vs;
}

static void
register_fields(void)
{
    int total = rs_field_count();
    hf_register_info *hf = g_new0(hf_register_info, total);
    int n = 0;

    hf_of = g_new(int, total);
    for (int id = 0; id < total; id++) {
        const struct rs_field *f = rs_field_by_id(id);
        hf_of[id] = -1;
        if (!is_ours(f))
            continue;
        int *slot = strcmp(f->abbrev, "roceshark.analysis") == 0 ? &hf_analysis : &hf_of[id];
        hf[n].p_id = slot;
        hf[n].hfinfo.name = f->name;
        hf[n].hfinfo.abbrev = f->abbrev;
        hf[n].hfinfo.type = ws_type(f);
        hf[n].hfinfo.display = ws_display(f);
        hf[n].hfinfo.strings = ws_strings(f);
        hf[n].hfinfo.bitmask = 0;
        hf[n].hfinfo.blurb = f->blurb;
        HFILL_INIT(hf[n]);
        n++;
    }
    n_fields = total;
    proto_register_field_array(proto_roceshark, hf, n);
}

/* Expert items, one per kind the library knows, with its severity and a
 * Wireshark group that matches ours. */
static int
ws_group(const char *group)
{
    if (strcmp(group, "Checksum") == 0)
        return PI_CHECKSUM;
    if (strcmp(group, "Sequence") == 0)
        return PI_SEQUENCE;
    if (strcmp(group, "Malformed") == 0)
        return PI_MALFORMED;
    if (strcmp(group, "Response") == 0)
        return PI_RESPONSE_CODE;
    return PI_PROTOCOL;
}

static int
ws_severity(uint8_t severity)
{
    return severity == RS_SEV_ERROR ? PI_ERROR : severity == RS_SEV_WARN ? PI_WARN : PI_NOTE;
}

/* Experts on fields that are Wireshark's own (iwarp_mpa.*) are raised by
 * Wireshark's dissectors; the plugin raises those on roceshark.* fields,
 * named after the field ("roceshark.expert.icrc.status"). */
static bool
expert_is_ours(const struct rs_expert *e)
{
    return strncmp(e->field, "roceshark.", 10) == 0;
}

static void
register_experts(void)
{
    int n = 0;

    while (rs_experts[n].field != NULL && n < RS_EXPERT_MAX_KINDS)
        n++;
    ei_register_info *ei = g_new0(ei_register_info, n);
    int m = 0;
    for (int i = 0; i < n; i++) {
        ei_of[i] = (expert_field)EI_INIT;
        if (!expert_is_ours(&rs_experts[i]))
            continue;
        ei[m].ids = &ei_of[i];
        ei[m].eiinfo.name = g_strdup_printf("roceshark.expert.%s", rs_experts[i].field + 10);
        ei[m].eiinfo.group = ws_group(rs_experts[i].group);
        ei[m].eiinfo.severity = ws_severity(rs_experts[i].severity);
        ei[m].eiinfo.summary = rs_experts[i].summary;
        HFILL_INIT(ei[m].eiinfo.hf_info);   /* what EXPFILL leaves set */
        /* The help of its filter field (roceshark.expert.*), as the field list and the
         * status bar show it; registering fills in the rest. */
        ei[m].eiinfo.hf_info.hfinfo.blurb = rs_experts[i].help;
        m++;
    }
    expert_register_field_array(expert_register_protocol(proto_roceshark), ei, m);
}

/* --- Per capture: the analyzer lives from init to cleanup --- */

/* The ports of a range preference, as many as fit, skipping `skip`. */
static unsigned
range_ports(const range_t *r, uint16_t skip, uint16_t *ports)
{
    unsigned n = 0;

    for (guint i = 0; r != NULL && i < r->nranges; i++)
        for (guint32 p = r->ranges[i].low; p <= r->ranges[i].high && n < RS_MAX_EXTRA_PORTS; p++)
            if (p != skip)
                ports[n++] = (uint16_t)p;
    return n;
}

static void
apply_prefs(void)
{
    rs_decode_opts_init(&decode_opts);
    decode_opts.verify_crc = true;
    decode_opts.n_roce_ports = range_ports(pref_ports, RS_ROCEV2_UDP_PORT, decode_opts.roce_ports);
    decode_opts.n_iwarp_ports = range_ports(pref_iwarp_ports, 0, decode_opts.iwarp_ports);
}

static void
capture_cleanup(void)
{
    rs_pipeline_free(pipeline);
    pipeline = NULL;
}

static void
capture_init(void)
{
    struct rs_pipeline_opts opts;

    capture_cleanup();
    apply_prefs();
    rs_pipeline_opts_init(&opts);
    opts.decode = decode_opts;
    opts.analysis.pmtu = (uint16_t)pref_pmtu;
    opts.analyze = pref_analysis;
    rs_pipeline_new(&opts, &pipeline, NULL);    /* NULL (no stages) only without memory */
}

/* --- The postdissector --- */

/* The link type of the frame's bytes as librsdissect names it. ERF records
 * reach postdissectors without their ERF header (and Ethernet pad). */
static int
frame_linktype(const packet_info *pinfo)
{
    const wtap_rec *rec = pinfo->rec;

    switch (rec->rec_header.packet_header.pkt_encap) {
    case WTAP_ENCAP_ETHERNET: return RS_DLT_EN10MB;
    case WTAP_ENCAP_SLL: return RS_DLT_LINUX_SLL;
    case WTAP_ENCAP_SLL2: return RS_DLT_LINUX_SLL2;
    case WTAP_ENCAP_RAW_IP: return RS_DLT_RAW;
    case WTAP_ENCAP_RAW_IP4: return RS_DLT_IPV4;
    case WTAP_ENCAP_RAW_IP6: return RS_DLT_IPV6;
    case WTAP_ENCAP_INFINIBAND: return RS_DLT_INFINIBAND;
    case WTAP_ENCAP_ERF: {
        uint8_t type = rec->rec_header.packet_header.pseudo_header.erf.phdr.type & 0x7f;
        if (type == 21)
            return RS_DLT_INFINIBAND;
        if (type == 2 || type == 10 || type == 16 || type == 22)
            return RS_DLT_EN10MB;
        return -1;
    }
    default: return -1;
    }
}

struct add_ctx {
    proto_tree *tree;
    tvbuff_t *tvb;
    const struct rs_packet *pkt;
    int hf;
    unsigned occ;       /* the occurrence of the field add_value is given next */
    bool placed;        /* the values' own places, as the tree and PDML of read show them */
    gint start, len;    /* else the bytes the field's items cover (field_bytes) */
};

/* The bytes of the frame that a field of ours speaks of, for the fields that
 * have no place of their own (rs_field_span), so that a click on its item
 * highlights them as a click on Wireshark's own does: the ICRC's checks cover
 * the ICRC, the VCRC's the VCRC, the payload length the payload, the analysis
 * of a request or response its BTH. */
static void
field_bytes(const struct rs_packet *pkt, const struct rs_field *f, gint *start, gint *len)
{
    static const struct {
        const char *prefix;
        enum rs_layer layer;
    } covers[] = {
        {"roceshark.icrc.", RS_LAYER_ICRC},
        {"roceshark.vcrc.", RS_LAYER_VCRC},
        {"roceshark.payload.len", RS_LAYER_PAYLOAD},
        {"roceshark.analysis.", RS_LAYER_BTH},
    };

    *start = *len = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(covers); i++) {
        if (strncmp(f->abbrev, covers[i].prefix, strlen(covers[i].prefix)) != 0)
            continue;
        const struct rs_span *sp = &pkt->span[covers[i].layer];
        if (rs_packet_has(pkt, covers[i].layer) &&
            (uint64_t)sp->off + sp->len <= pkt->frame->caplen) {
            *start = (gint)sp->off;
            *len = (gint)sp->len;
        }
        return;
    }
}

static void
add_value(void *ctx, const struct rs_field *f, const struct rs_value *v)
{
    struct add_ctx *a = ctx;
    proto_item *it = NULL;
    gint start = a->start, len = a->len;
    uint32_t off, n;

    if (a->placed && rs_field_span(a->pkt, f, v, a->occ, &off, &n)) {
        start = (gint)off;
        len = (gint)n;
    }
    a->occ++;

    switch (f->type) {
    case RS_FT_BOOLEAN:
        it = proto_tree_add_boolean(a->tree, a->hf, a->tvb, start, len, (guint32)v->v.u);
        break;
    case RS_FT_UINT8:
    case RS_FT_UINT16:
    case RS_FT_UINT24:
    case RS_FT_UINT32:
    case RS_FT_FRAMENUM:
        it = proto_tree_add_uint(a->tree, a->hf, a->tvb, start, len, (guint32)v->v.u);
        break;
    case RS_FT_UINT64:
        it = proto_tree_add_uint64(a->tree, a->hf, a->tvb, start, len, v->v.u);
        break;
    case RS_FT_INT16:
    case RS_FT_INT32:
        it = proto_tree_add_int(a->tree, a->hf, a->tvb, start, len, (gint32)(int64_t)v->v.u);
        break;
    case RS_FT_RELTIME: {
        /* Wireshark gives both parts the sign of the time: -0.25 s is
         * {0, -250000000} there, {-1, 750000000} here. */
        nstime_t t = {(time_t)v->v.t.sec, v->v.t.nsec};
        if (t.secs < 0 && t.nsecs > 0) {
            t.secs++;
            t.nsecs -= RS_NSEC_PER_SEC;
        }
        it = proto_tree_add_time(a->tree, a->hf, a->tvb, start, len, &t);
        break;
    }
    case RS_FT_STRING:
        it = proto_tree_add_string(a->tree, a->hf, a->tvb, start, len, v->v.str);
        break;
    case RS_FT_BYTES: {
        /* Bytes of the frame cover themselves (rs_field_span); bytes from
         * elsewhere (kept) cover nothing. */
        it = proto_tree_add_bytes_with_length(a->tree, a->hf, a->tvb, start, len,
                                              v->v.bytes.ptr, (gint)v->v.bytes.len);
        break;
    }
    default:
        break;
    }
    if (it != NULL && (f->type != RS_FT_BYTES || v->v.bytes.len == 0))
        proto_item_set_generated(it);
}

/* --- iWARP frames: values and experts kept from the first pass --- */

struct keep_ctx {
    const struct rs_packet *pkt;
    struct kept_value *vals;
    unsigned n, cap;
    int id;
    unsigned occ;       /* the occurrence of the field keep_value is given next */
};

static void
keep_value(void *ctx, const struct rs_field *f, const struct rs_value *v)
{
    struct keep_ctx *k = ctx;

    if (k->n == k->cap) {
        k->cap = k->cap ? k->cap * 2 : 32;
        k->vals = g_renew(struct kept_value, k->vals, k->cap);
    }
    struct kept_value *kv = &k->vals[k->n++];
    kv->id = k->id;
    kv->v = *v;
    rs_field_span(k->pkt, f, v, k->occ++, &kv->off, &kv->len);
    if (v->type == RS_FT_STRING)
        kv->v.v.str = wmem_strdup(wmem_file_scope(), v->v.str);
    else if (v->type == RS_FT_BYTES || v->type == RS_FT_IPV4 || v->type == RS_FT_IPV6 ||
             v->type == RS_FT_ETHER)
        kv->v.v.bytes.ptr = wmem_memdup(wmem_file_scope(), v->v.bytes.ptr, v->v.bytes.len);
}

static void
keep_expert(void *ctx, const struct rs_expert *e)
{
    *(uint32_t *)ctx |= 1u << (e - rs_experts);
}

/* Copies every roceshark.* value and the expert items of pkt into ff. */
static void
keep_frame(struct frame_facts *ff, const struct rs_packet *pkt)
{
    struct keep_ctx k = {pkt, NULL, 0, 0, 0, 0};

    for (k.id = 0; k.id < n_fields; k.id++) {
        k.occ = 0;
        if (is_ours(rs_field_by_id(k.id)))
            rs_field_foreach(pkt, k.id, keep_value, &k);
    }
    /* Never NULL: that marks a frame whose values are computed again. */
    ff->kept = k.n ? wmem_memdup(wmem_file_scope(), k.vals, k.n * sizeof(*k.vals))
                   : wmem_new0(wmem_file_scope(), struct kept_value);
    ff->n_kept = k.n;
    g_free(k.vals);
    rs_expert_foreach(pkt, keep_expert, &ff->experts);
}

/* --- The postdissector --- */

struct expert_ctx {
    packet_info *pinfo;
    proto_item *item;
};

static void
raise_expert(void *ctx, const struct rs_expert *e)
{
    struct expert_ctx *x = ctx;

    if (expert_is_ours(e))
        expert_add_info(x->pinfo, x->item, &ei_of[e - rs_experts]);
}

/* The tree a field goes in: the analysis subtree for roceshark.analysis.*. */
static proto_tree *
field_tree(const struct rs_field *f, proto_tree *rt, proto_tree *at)
{
    return strncmp(f->abbrev, "roceshark.analysis.", 19) == 0 && at != NULL ? at : rt;
}

/* Adds the fields of a decoded frame, computed now. */
static void
add_decoded(proto_tree *tree, proto_tree *rt, tvbuff_t *tvb, const struct rs_packet *pkt)
{
    struct add_ctx a = {rt, tvb, pkt, -1, 0, true, 0, 0};
    proto_tree *at = NULL;

    for (int id = 0; id < n_fields; id++) {
        const struct rs_field *f = rs_field_by_id(id);
        if (!is_ours(f))
            continue;
        if (f->type == RS_FT_PROTOCOL) {    /* roceshark.analysis: its subtree */
            struct rs_value v;
            if (proto_field_is_referenced(tree, hf_analysis) && rs_field_value(pkt, id, 0, &v)) {
                proto_item *ai = proto_tree_add_item(rt, hf_analysis, tvb, 0, 0, ENC_NA);
                proto_item_set_generated(ai);
                at = proto_item_add_subtree(ai, ett_analysis);
            }
            continue;
        }
        /* A tree built only to pull out some fields skips the others. */
        if (!proto_field_is_referenced(tree, hf_of[id]))
            continue;
        a.tree = field_tree(f, rt, at);
        a.hf = hf_of[id];
        a.occ = 0;
        field_bytes(pkt, f, &a.start, &a.len);
        rs_field_foreach(pkt, id, add_value, &a);
    }
}

/* Adds the fields kept from the first pass (iWARP frames). */
static void
add_kept(proto_tree *tree, proto_tree *rt, tvbuff_t *tvb, const struct rs_packet *pkt,
         const struct frame_facts *ff)
{
    /* The frame's view is the decoder's alone, without the iWARP stage's PDUs
     * the values came from: they cover the bytes found on the first pass. */
    struct add_ctx a = {rt, tvb, pkt, -1, 0, false, 0, 0};

    for (unsigned i = 0; i < ff->n_kept; i++) {
        const struct kept_value *kv = &ff->kept[i];
        const struct rs_field *f = rs_field_by_id(kv->id);
        if (f->type == RS_FT_PROTOCOL || !proto_field_is_referenced(tree, hf_of[kv->id]))
            continue;
        a.tree = rt;
        a.hf = hf_of[kv->id];
        a.start = (gint)kv->off;
        a.len = (gint)kv->len;
        if (kv->len == 0)
            field_bytes(pkt, f, &a.start, &a.len);
        add_value(&a, f, &kv->v);
    }
}

/* The first pass, in frame order: the whole pipeline, whose view replaces
 * the decode-only one in *pkt. NULL when the frame carries nothing of ours. */
static struct frame_facts *
first_pass(packet_info *pinfo, const struct rs_frame *frame, struct rs_packet *pkt)
{
    const struct rs_pipeline_result *r = rs_pipeline_process(pipeline, frame);
    *pkt = r->pkt;
    if (pkt->encap == RS_ENCAP_NONE)
        return NULL;
    struct frame_facts *ff = wmem_new0(wmem_file_scope(), struct frame_facts);
    if (pkt->facts != NULL)
        ff->tap.facts = *pkt->facts;
    ff->tap.opcode = pkt->opcode;
    ff->tap.wire_len = rs_packet_wire_len(pkt);
    ff->tap.when = rs_time_make(frame->ts_sec, frame->ts_nsec);
    if (pkt->iwarp != NULL)
        keep_frame(ff, pkt);
    else if (pkt->facts != NULL)
        roceshark_links_note(pinfo->num, pkt->opcode, &ff->tap.facts);
    p_add_proto_data(wmem_file_scope(), pinfo, proto_roceshark, 0, ff);
    return ff;
}

static int
dissect_roceshark(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    int linktype = frame_linktype(pinfo);
    struct rs_frame frame;
    struct rs_packet pkt;

    if (linktype < 0)
        return 0;
    memset(&frame, 0, sizeof(frame));
    frame.caplen = tvb_captured_length(tvb);
    frame.len = tvb_reported_length(tvb);
    frame.data = tvb_get_ptr(tvb, 0, (gint)frame.caplen);
    frame.linktype = linktype;
    frame.number = pinfo->num;
    /* Wireshark's nanoseconds take the sign of the time; ours are 0..1e9-1. */
    struct rs_time when = rs_time_make(pinfo->abs_ts.secs, pinfo->abs_ts.nsecs);
    frame.ts_sec = when.sec;
    frame.ts_nsec = (uint32_t)when.nsec;

    /* The pipeline in frame order on the first pass; afterwards the frame is
     * decoded again and the facts kept then are read back. */
    struct frame_facts *ff = p_get_proto_data(wmem_file_scope(), pinfo, proto_roceshark, 0);
    if (!PINFO_FD_VISITED(pinfo) && ff == NULL && pipeline != NULL)
        ff = first_pass(pinfo, &frame, &pkt);
    else
        rs_decode_frame(&frame, &decode_opts, &pkt);
    if (ff == NULL && pkt.encap == RS_ENCAP_NONE)
        return 0;
    pkt.facts = ff != NULL && roceshark_analyzer() != NULL ? &ff->tap.facts : NULL;
    if (pkt.facts != NULL && (ff->tap.facts.flags & RS_FACT_CONV))
        tap_queue_packet(roceshark_tap, pinfo, &ff->tap);

    /* The packet list shows what is wrong, as `roceshark read` prints it and
     * as Wireshark shows [TCP Retransmission]. */
    char marks[256];
    if (ff == NULL || ff->kept == NULL) {
        if (rs_print_info_marks(&pkt, marks, sizeof(marks)) > 0)
            col_append_str(pinfo->cinfo, COL_INFO, marks);
    }
    proto_item *ti = proto_tree_add_item(tree, proto_roceshark, tvb, 0, 0, ENC_NA);
    struct expert_ctx x = {pinfo, ti};
    if (ff != NULL && ff->kept != NULL) {
        for (unsigned i = 0; i < RS_EXPERT_MAX_KINDS; i++)
            if (ff->experts & (1u << i))
                raise_expert(&x, &rs_experts[i]);
    } else {
        rs_expert_foreach(&pkt, raise_expert, &x);
    }
    if (tree == NULL)
        return tvb_captured_length(tvb);    /* a pass that shows nothing */
    proto_item_set_generated(ti);
    proto_tree *rt = proto_item_add_subtree(ti, ett_roceshark);
    if (ff != NULL && ff->kept != NULL)
        add_kept(tree, rt, tvb, &pkt, ff);
    else
        add_decoded(tree, rt, tvb, &pkt);
    return tvb_captured_length(tvb);
}

void
proto_register_roceshark(void)
{
    static gint *ett[] = {&ett_roceshark, &ett_analysis};

    proto_roceshark = proto_register_protocol("roceshark RDMA checks and transport analysis",
                                              "roceshark", "roceshark");
    register_fields();
    proto_register_subtree_array(ett, G_N_ELEMENTS(ett));
    register_experts();

    module_t *m = prefs_register_protocol(proto_roceshark, apply_prefs);
    prefs_register_uint_preference(m, "pmtu", "Path MTU fallback",
                                   "Path MTU to assume until a conversation shows its own "
                                   "(256..4096; 0 bounds READ spans by every legal PMTU)",
                                   10, &pref_pmtu);
    pref_ports = range_empty(wmem_epan_scope());   /* prefs frees it in that scope */
    prefs_register_range_preference(m, "rocev2_ports", "Extra RoCEv2 UDP ports",
                                    "UDP destination ports to decode as RoCEv2 besides 4791",
                                    &pref_ports, 65535);
    pref_iwarp_ports = range_empty(wmem_epan_scope());
    prefs_register_range_preference(m, "iwarp_ports", "iWARP TCP ports",
                                    "TCP ports to decode as iWARP (MPA) even when the "
                                    "connection's MPA exchange was not captured",
                                    &pref_iwarp_ports, 65535);
    prefs_register_bool_preference(m, "analysis", "Transport analysis",
                                   "Follow RC/UC conversations: PSN gaps, retransmissions, "
                                   "response matching, NAKs, CNPs",
                                   &pref_analysis);
    register_init_routine(capture_init);
    register_cleanup_routine(capture_cleanup);
    roceshark_links_register();
    roceshark_tap = register_tap("roceshark");
    roceshark_register_qp_table();
    roceshark_register_conversations();
}

void
proto_reg_handoff_roceshark(void)
{
    register_postdissector(create_dissector_handle(dissect_roceshark, proto_roceshark));
}
