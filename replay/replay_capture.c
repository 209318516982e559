/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_capture.c - what passes between us and the target, captured with
 * libpcap on a thread of its own while the replay sends, then written (-w)
 * and read through the pipeline: the target's answers are judged from the
 * wire, as the capture's were.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/capture/pcapio.h>
#include <roceshark/dissectors/pipeline.h>
#include <roceshark/transport/rc.h>
#include <roceshark/dissectors/wire.h>

#include "replay_int.h"

#define ROCEV2_PORT 4791
#define QUIET_CHECK_NS 5000000ull

/* A captured frame: this header, then caplen bytes. */
struct rec {
    int64_t sec;
    uint32_t nsec;
    uint32_t caplen, len;
};

/* --until-answered: a response from the peer; the last one wanted (at or past last_psn),
 * or the NAK after which it answers no more (a responder's QP errs at any NAK but a PSN
 * sequence error's, IBTA 9.9.3). */
static void
look_at_answer(struct replay_capture *c, const struct rs_frame *fr)
{
    struct rs_packet pkt;
    struct rs_replay_frame f;

    rs_decode_frame(fr, &c->dopts, &pkt);
    if (!rs_packet_has(&pkt, RS_LAYER_BTH) || !replay_from_peer(&pkt, c->rw) ||
        !rs_ib_op_is_response(rs_ib_opcode_info(pkt.opcode)->op))
        return;
    rs_replay_frame_of(&pkt, 0, &f);
    if (f.has_aeth && rs_aeth_kind(f.syndrome) == RS_AETH_NAK &&
        (f.syndrome & 0x1f) != RS_NAK_PSN_SEQ_ERROR)
        atomic_store(&c->refused, true);
    else if (((f.psn - c->last_psn) & 0xffffff) < 0x800000)
        atomic_store(&c->answered, true);
    atomic_fetch_add(&c->answers, 1);
}

static gpointer
catch_frames(gpointer arg)
{
    struct replay_capture *c = arg;
    struct rs_frame fr;
    int rc;

    while ((rc = rs_source_next(c->src, &fr, c->err)) > 0) {
        if (rc == RS_SOURCE_IDLE)
            continue;
        struct rec h = {fr.ts_sec, fr.ts_nsec, fr.caplen, fr.len};
        g_byte_array_append(c->frames, (const guint8 *)&h, sizeof(h));
        g_byte_array_append(c->frames, fr.data, fr.caplen);
        c->count++;
        if (c->until_answered)
            look_at_answer(c, &fr);
        atomic_store(&c->last_ns, rs_rc_now_ns());
    }
    c->rc = rc;
    return NULL;
}

static void
addr_text(uint8_t family, const uint8_t *a, char *buf, size_t size)
{
    uint8_t gid[16];

    rs_addr_from_ip(family, a, gid);
    rs_addr_format(gid, 0, buf, size);
}

int
replay_capture_start(const struct rs_replay_trace *trace, const struct rs_replay_rewrite *rw,
                     const char *iface, const uint32_t *last_psn,
                     const struct rs_decode_opts *dopts, struct replay_capture *c, char *err)
{
    struct rs_live_opts lo;
    char filter[256], a[64], b[64];
    int rc;

    memset(c, 0, sizeof(*c));
    atomic_init(&c->last_ns, 0);
    atomic_init(&c->answers, 0);
    atomic_init(&c->answered, false);
    atomic_init(&c->refused, false);
    if (last_psn != NULL) {
        c->until_answered = true;
        c->last_psn = *last_psn & 0xffffff;
        c->rw = rw;
        c->dopts = *dopts;
    }
    if (iface == NULL)
        return 0;
    memset(&lo, 0, sizeof(lo));
    if ((trace->conv.family == 4 || trace->conv.family == 6) && rw->set_dst) {
        addr_text(rw->family, rw->src, a, sizeof(a));
        addr_text(rw->family, rw->dst, b, sizeof(b));
        snprintf(filter, sizeof(filter), "udp port %d and host %s and host %s", ROCEV2_PORT,
                 a, b);
    } else if (trace->conv.family == 4 || trace->conv.family == 6) {
        /* The peer is not known yet (a requester still to come): all that reaches us. */
        addr_text(rw->family, rw->src, a, sizeof(a));
        snprintf(filter, sizeof(filter), "udp port %d and host %s", ROCEV2_PORT, a);
    } else {
        snprintf(filter, sizeof(filter), "ether proto 0x8915");
    }
    lo.filter = filter;
    lo.immediate = true;
    lo.idle_ms = 20;
    if ((rc = rs_source_create_iface(iface, &c->src, err)) < 0)
        return rc;
    if ((rc = rs_source_activate(c->src, &lo, err)) < 0) {
        rs_source_close(c->src);
        c->src = NULL;
        return rc;
    }
    c->frames = g_byte_array_new();
    c->thread = g_thread_new("replay-capture", catch_frames, c);
    return 0;
}

/* Waits until the wire has been quiet for linger (answers come later than requests), or
 * with --until-answered the last answer is in. */
static void
wait_quiet(struct replay_capture *c, uint64_t linger)
{
    uint64_t sent_done = rs_rc_now_ns();

    for (;;) {
        uint64_t now = rs_rc_now_ns(), last = atomic_load(&c->last_ns);
        uint64_t since = last > sent_done ? last : sent_done;
        if (now >= since + linger || atomic_load(&c->answered) || atomic_load(&c->refused))
            return;
        replay_sleep_until(now + QUIET_CHECK_NS);
    }
}

bool
replay_from_peer(const struct rs_packet *pkt, const struct rs_replay_rewrite *rw)
{
    if (rs_packet_has(pkt, RS_LAYER_IPV4))
        return memcmp(rs_packet_at(pkt, RS_LAYER_IPV4) + 12, rw->dst, 4) == 0;
    if (rs_packet_has(pkt, RS_LAYER_IPV6))
        return memcmp(rs_packet_at(pkt, RS_LAYER_IPV6) + 8, rw->dst, 16) == 0;
    return true;        /* RoCEv1 on its own wire: the opcode tells */
}

/* -w, and the target's answers (or, serving a requester, its requests) through the
 * pipeline. */
static int
digest(const struct replay_capture *c, int linktype, const struct rs_replay_rewrite *rw,
       const struct rs_replay_run_opts *o, const struct rs_decode_opts *dopts, GArray *got,
       GByteArray *got_bytes, char *err)
{
    struct rs_writer *w = NULL;
    struct rs_pipeline_opts po;
    struct rs_pipeline *pipe;
    int rc;

    if (o->write != NULL) {
        struct rs_writer_opts wo = {.path = o->write, .linktype = linktype,
                                    .snaplen = RS_CAPTURE_SNAPLEN};
        if ((rc = rs_writer_open(&wo, &w, err)) < 0)
            return rc;
    }
    rs_pipeline_opts_init(&po);
    po.decode = *dopts;
    if ((rc = rs_pipeline_new(&po, &pipe, err)) < 0) {
        if (w != NULL)
            rs_writer_close(w, NULL, NULL);
        return rc;
    }
    uint64_t number = 0;
    for (size_t at = 0; at + sizeof(struct rec) <= c->frames->len && rc == 0;) {
        struct rec h;
        memcpy(&h, c->frames->data + at, sizeof(h));
        const uint8_t *data = c->frames->data + at + sizeof(h);
        at += sizeof(h) + h.caplen;
        struct rs_frame fr = {.data = data, .caplen = h.caplen, .len = h.len,
                              .linktype = linktype, .number = ++number, .ts_sec = h.sec,
                              .ts_nsec = h.nsec, .ts_digits = 6};
        if (w != NULL && (rc = rs_writer_write(w, &fr, err)) < 0)
            break;
        const struct rs_pipeline_result *r = rs_pipeline_process(pipe, &fr);
        if (o->wire != NULL && rs_packet_has(&r->pkt, RS_LAYER_BTH)) {
            struct rs_replay_frame seen;
            rs_replay_frame_of(&r->pkt, 0, &seen);
            g_array_append_val(o->wire, seen);
        }
        if (!rs_packet_has(&r->pkt, RS_LAYER_BTH) || !replay_from_peer(&r->pkt, rw) ||
            rs_ib_op_is_response(rs_ib_opcode_info(r->pkt.opcode)->op) == c->want_requests)
            continue;
        struct rs_replay_frame g;
        rs_replay_frame_of(&r->pkt, got_bytes->len, &g);
        g_byte_array_append(got_bytes, data, h.caplen);
        g_array_append_val(got, g);
    }
    rs_pipeline_free(pipe);
    if (w != NULL) {
        int wrc = rs_writer_close(w, NULL, rc == 0 ? err : NULL);
        if (rc == 0)
            rc = wrc;
    }
    return rc < 0 ? rc : 0;
}


int
replay_capture_finish(struct replay_capture *c, const struct rs_replay_rewrite *rw,
                      const struct rs_replay_run_opts *o, const struct rs_decode_opts *dopts,
                      GArray *got, GByteArray *got_bytes, struct rs_replay_run_stats *st,
                      char *err)
{
    struct rs_source_stats ss;
    int rc = 0;

    if (c->src == NULL)
        return 0;
    wait_quiet(c, o->linger_ns != 0 ? o->linger_ns : 200000000ull);
    rs_source_break(c->src);
    g_thread_join(c->thread);
    if (rs_source_stats(c->src, &ss, NULL) == 0)
        st->capture_drops = ss.kernel_drops + ss.iface_drops;
    int linktype = rs_source_linktype(c->src);
    rs_source_close(c->src);
    c->src = NULL;
    st->captured = c->count;
    st->answers = atomic_load(&c->answers);
    st->until_answered = c->until_answered;
    st->answered = atomic_load(&c->answered);
    st->refused = atomic_load(&c->refused);
    if (c->rc < 0)
        rc = rs_error(err, c->rc, "%s", c->err);
    if (rc == 0)
        rc = digest(c, linktype, rw, o, dopts, got, got_bytes, err);
    g_byte_array_free(c->frames, TRUE);
    c->frames = NULL;
    return rc;
}

int
rs_replay_iface_for(uint8_t family, const uint8_t *addr, char *name, size_t size, char *err)
{
    static const uint8_t loopback6[16] = {[15] = 1};
    struct ifaddrs *list;

    if ((family == 4 && addr[0] == 127) || (family == 6 && memcmp(addr, loopback6, 16) == 0)) {
        snprintf(name, size, "lo");
        return 0;
    }
    if (getifaddrs(&list) != 0)
        return rs_error(err, RS_EIO, "the interfaces: %s", strerror(errno));
    int rc = RS_ENOENT;
    for (struct ifaddrs *i = list; i != NULL && rc != 0; i = i->ifa_next) {
        if (i->ifa_addr == NULL)
            continue;
        const void *a = NULL;
        if (family == 4 && i->ifa_addr->sa_family == AF_INET)
            a = &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr;
        else if (family == 6 && i->ifa_addr->sa_family == AF_INET6)
            a = &((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr;
        if (a != NULL && memcmp(a, addr, family == 6 ? 16 : 4) == 0) {
            snprintf(name, size, "%s", i->ifa_name);
            rc = 0;
        }
    }
    freeifaddrs(list);
    if (rc != 0) {
        char text[RS_ADDR_TEXT_MAX];
        addr_text(family, addr, text, sizeof(text));
        return rs_error(err, RS_ENOENT, "no interface of this host has %s", text);
    }
    return 0;
}
