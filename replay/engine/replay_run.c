/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_run.c - packets mode: the trace's requests, rewritten and paced,
 * go out through a sender of inject/, while a libpcap capture on its own
 * thread keeps what passes between us and the target. The capture is what
 * -w writes and what the pipeline then reads for the comparison: the
 * target's answers are judged from the wire, as the capture's were.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <roceshark/capture.h>
#include <roceshark/inject.h>
#include <roceshark/pcapio.h>
#include <roceshark/pipeline.h>
#include <roceshark/rc.h>
#include <roceshark/replay.h>
#include <roceshark/wire.h>

#define ROCEV2_PORT 4791
#define QUIET_CHECK_NS 5000000ull

/* A captured frame: this header, then caplen bytes. */
struct rec {
    int64_t sec;
    uint32_t nsec;
    uint32_t caplen, len;
};

struct catcher {
    struct rs_source *src;
    GByteArray *frames;
    uint64_t count;
    atomic_uint_fast64_t last_ns;   /* CLOCK_MONOTONIC of the last frame; 0 none */
    int rc;
    char err[RS_ERRBUF_SIZE];
};

static gpointer
catch_frames(gpointer arg)
{
    struct catcher *c = arg;
    struct rs_frame fr;
    int rc;

    while ((rc = rs_source_next(c->src, &fr, c->err)) > 0) {
        if (rc == RS_SOURCE_IDLE)
            continue;
        struct rec h = {fr.ts_sec, fr.ts_nsec, fr.caplen, fr.len};
        g_byte_array_append(c->frames, (const guint8 *)&h, sizeof(h));
        g_byte_array_append(c->frames, fr.data, fr.caplen);
        c->count++;
        atomic_store(&c->last_ns, rs_rc_now_ns());
    }
    c->rc = rc;
    return NULL;
}

static void
addr_text(uint8_t family, const uint8_t *a, char *buf, size_t size)
{
    inet_ntop(family == 6 ? AF_INET6 : AF_INET, a, buf, (socklen_t)size);
}

static int
start_capture(const struct rs_replay_trace *trace, const struct rs_replay_rewrite *rw,
              const char *iface, struct catcher *c, char *err)
{
    struct rs_live_opts lo;
    char filter[256], a[64], b[64];
    int rc;

    memset(&lo, 0, sizeof(lo));
    if (trace->conv.family == 4 || trace->conv.family == 6) {
        addr_text(rw->family, rw->src, a, sizeof(a));
        addr_text(rw->family, rw->dst, b, sizeof(b));
        snprintf(filter, sizeof(filter), "udp port %d and host %s and host %s", ROCEV2_PORT,
                 a, b);
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
    return 0;
}

static int
open_sender(const struct rs_replay_trace *trace, const struct rs_replay_rewrite *rw,
            const struct rs_replay_run_opts *o, struct rs_inject_sender **s, char *err)
{
    if (o->iface != NULL) {
        if (trace->linktype != RS_DLT_EN10MB)
            return rs_error(err, RS_EINVAL, "-i %s sends Ethernet frames, and the capture's "
                            "frames are not Ethernet: send over UDP without -i", o->iface);
        return rs_inject_open_iface(o->iface, s, err);
    }
    if (trace->conv.family != 4 && trace->conv.family != 6)
        return rs_error(err, RS_EINVAL, "over UDP only RoCEv2 goes: give -i IFACE");
    return rs_inject_open_udp(rw->family, rw->src, rw->sport, s, err);
}

/* A socket on our port 4791, so that the target's answers to it are taken (a host
 * would otherwise answer each with an ICMP port unreachable). -1 when the port is
 * ours already (the sender's) or someone else's. */
static int
open_answer_port(const struct rs_replay_rewrite *rw)
{
    if (rw->sport == ROCEV2_PORT)
        return -1;
    int fd = socket(rw->family == 6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_storage ss;
    socklen_t n;
    memset(&ss, 0, sizeof(ss));
    if (rw->family == 6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons(ROCEV2_PORT);
        memcpy(&s6->sin6_addr, rw->src, 16);
        n = sizeof(*s6);
    } else {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
        s4->sin_family = AF_INET;
        s4->sin_port = htons(ROCEV2_PORT);
        memcpy(&s4->sin_addr, rw->src, 4);
        n = sizeof(*s4);
    }
    if (bind(fd, (struct sockaddr *)&ss, n) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void
sleep_until(uint64_t t)
{
    struct timespec ts = {(time_t)(t / 1000000000ull), (long)(t % 1000000000ull)};

    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static int64_t
time_ns(const struct rs_time *t)
{
    return t->sec * 1000000000ll + t->nsec;
}

/* When packet i of pass `pass` is due, from the start of sending. */
static uint64_t
due_ns(const struct rs_replay_trace *trace, const struct rs_replay_run_opts *o, uint64_t index,
       unsigned i)
{
    if (o->topspeed)
        return 0;
    if (o->pps != 0)
        return index * 1000000000ull / o->pps;
    const struct rs_replay_frame *f0 = &g_array_index(trace->requests, struct rs_replay_frame, 0);
    const struct rs_replay_frame *last = &g_array_index(trace->requests, struct rs_replay_frame,
                                                        trace->requests->len - 1);
    const struct rs_replay_frame *f = &g_array_index(trace->requests, struct rs_replay_frame, i);
    int64_t span = time_ns(&last->ts) - time_ns(&f0->ts);
    int64_t at = time_ns(&f->ts) - time_ns(&f0->ts);
    uint64_t pass = index / trace->requests->len;
    double speed = o->speed > 0 ? o->speed : 1.0;
    if (at < 0)
        at = 0;
    /* Passes follow one another with the trace's mean gap between them. */
    int64_t gap = trace->requests->len > 1 ? span / (int64_t)(trace->requests->len - 1) : 0;
    return (uint64_t)(((double)pass * (double)(span + gap) + (double)at) / speed);
}

static int
send_all(const struct rs_replay_trace *trace, const struct rs_replay_rewrite *rw,
         const struct rs_replay_run_opts *o, const struct rs_decode_opts *dopts,
         struct rs_inject_sender *s, struct rs_replay_run_stats *st, char *err)
{
    static const uint8_t encap[] = {[RS_ENCAP_ROCEV2] = RS_INJECT_ROCEV2,
                                    [RS_ENCAP_ROCEV1] = RS_INJECT_ROCEV1,
                                    [RS_ENCAP_IB] = RS_INJECT_IB};
    uint8_t *buf = g_malloc(RS_INJECT_MAX_FRAME);
    struct rs_replay_rewrite pass_rw = *rw;
    uint64_t start = rs_rc_now_ns(), index = 0, next_progress = start;
    uint32_t loop = o->loop != 0 ? o->loop : 1;
    int rc = 0;

    for (uint32_t pass = 0; pass < loop && rc == 0; pass++) {
        pass_rw.psn_offset = (rw->psn_offset + pass * o->psn_span) & 0xffffff;
        for (unsigned i = 0; i < trace->requests->len; i++, index++) {
            const struct rs_replay_frame *f = &g_array_index(trace->requests,
                                                             struct rs_replay_frame, i);
            if (f->len > RS_INJECT_MAX_FRAME || f->encap >= RS_ARRAY_SIZE(encap) ||
                f->encap == RS_ENCAP_NONE) {
                rc = rs_error(err, RS_EINVAL, "capture frame %llu: not a packet to replay",
                              (unsigned long long)f->number);
                break;
            }
            memcpy(buf, trace->bytes->data + f->off, f->len);
            if ((rc = rs_replay_rewrite(&pass_rw, buf, f->len, trace->linktype, dopts, err)) != 0)
                break;
            if (!o->topspeed)
                sleep_until(start + due_ns(trace, o, index, i));
            struct rs_inject_frame fr = {buf, f->len, f->l3, encap[f->encap]};
            if ((rc = rs_inject_send(s, &fr, err)) != 0)
                break;
            st->sent++;
            if (o->progress && rs_rc_now_ns() >= next_progress) {
                fprintf(stderr, "\rroceshark: replay: %llu of %llu packets sent",
                        (unsigned long long)st->sent,
                        (unsigned long long)loop * trace->requests->len);
                next_progress = rs_rc_now_ns() + 250000000ull;
            }
        }
    }
    if (rc == 0)
        rc = rs_inject_flush(s, err);
    st->seconds = (double)(rs_rc_now_ns() - start) / 1e9;
    if (o->progress)
        fprintf(stderr, "\rroceshark: replay: %llu packets sent in %.3f s\n",
                (unsigned long long)st->sent, st->seconds);
    g_free(buf);
    return rc;
}

/* Waits until the wire has been quiet for linger (answers come later than requests). */
static void
wait_quiet(struct catcher *c, uint64_t linger)
{
    uint64_t sent_done = rs_rc_now_ns();

    for (;;) {
        uint64_t now = rs_rc_now_ns(), last = atomic_load(&c->last_ns);
        uint64_t since = last > sent_done ? last : sent_done;
        if (now >= since + linger)
            return;
        sleep_until(now + QUIET_CHECK_NS);
    }
}

static bool
from_target(const struct rs_packet *pkt, const struct rs_replay_rewrite *rw)
{
    if (rs_packet_has(pkt, RS_LAYER_IPV4))
        return memcmp(rs_packet_at(pkt, RS_LAYER_IPV4) + 12, rw->dst, 4) == 0;
    if (rs_packet_has(pkt, RS_LAYER_IPV6))
        return memcmp(rs_packet_at(pkt, RS_LAYER_IPV6) + 8, rw->dst, 16) == 0;
    return true;        /* RoCEv1 on its own wire: the opcode tells */
}

static bool
is_response(uint8_t opcode)
{
    uint8_t op = rs_ib_opcode_info(opcode)->op;

    return op == RS_OP_READ_RESP || op == RS_OP_ACK || op == RS_OP_ATOMIC_ACK;
}

/* -w, and the target's answers through the pipeline. */
static int
digest(const struct catcher *c, int linktype, const struct rs_replay_rewrite *rw,
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
        if (!rs_packet_has(&r->pkt, RS_LAYER_BTH) || !is_response(r->pkt.opcode) ||
            !from_target(&r->pkt, rw))
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
rs_replay_run_packets(const struct rs_replay_trace *trace, const struct rs_replay_rewrite *rw,
                      const struct rs_replay_run_opts *o, const struct rs_decode_opts *dopts,
                      GArray *got, GByteArray *got_bytes, struct rs_replay_run_stats *st,
                      char *err)
{
    struct rs_inject_sender *s = NULL;
    struct catcher c;
    int rc;

    memset(st, 0, sizeof(*st));
    memset(&c, 0, sizeof(c));
    atomic_init(&c.last_ns, 0);
    if (trace->requests->len == 0)
        return rs_error(err, RS_EINVAL, "the conversation has no requests to replay");
    /* Without a capture (no validation, no -w) the run only sends, as tcpreplay does. */
    if (o->capture_iface != NULL && (rc = start_capture(trace, rw, o->capture_iface, &c, err)) < 0)
        return rc;
    if ((rc = open_sender(trace, rw, o, &s, err)) < 0) {
        if (c.src != NULL) {
            rs_source_close(c.src);
            g_byte_array_free(c.frames, TRUE);
        }
        return rc;
    }
    int answers = o->iface == NULL ? open_answer_port(rw) : -1;
    GThread *th = c.src != NULL ? g_thread_new("replay-capture", catch_frames, &c) : NULL;

    rc = send_all(trace, rw, o, dopts, s, st, err);
    int crc = rs_inject_close(s, NULL, rc == 0 ? err : NULL);
    if (rc == 0)
        rc = crc;
    if (th != NULL) {
        wait_quiet(&c, o->linger_ns != 0 ? o->linger_ns : 200000000ull);
        rs_source_break(c.src);
        g_thread_join(th);
    }
    if (answers >= 0)
        close(answers);
    if (th == NULL)
        return rc;
    struct rs_source_stats ss;
    if (rs_source_stats(c.src, &ss, NULL) == 0)
        st->capture_drops = ss.kernel_drops + ss.iface_drops;
    int linktype = rs_source_linktype(c.src);
    rs_source_close(c.src);
    st->captured = c.count;
    if (rc == 0 && c.rc < 0)
        rc = rs_error(err, c.rc, "%s", c.err);
    if (rc == 0)
        rc = digest(&c, linktype, rw, o, dopts, got, got_bytes, err);
    g_byte_array_free(c.frames, TRUE);
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
        char text[64];
        inet_ntop(family == 6 ? AF_INET6 : AF_INET, addr, text, sizeof(text));
        return rs_error(err, RS_ENOENT, "no interface of this host has %s", text);
    }
    return 0;
}
