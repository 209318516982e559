/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_run.c - packets mode: the trace's requests, rewritten and paced
 * (as recorded, -x, --pps or --topspeed), go out through a sender of
 * inject/ while replay_capture.c keeps what comes back.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <roceshark/capture/capture.h>
#include <roceshark/inject/inject.h>
#include <roceshark/transport/rc.h>
#include <roceshark/replay/replay.h>
#include <roceshark/dissectors/wire.h>

#include "replay_int.h"

#define ROCEV2_PORT 4791

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

/* A UDP socket on our port 4791 (an inject sender that sends nothing), so that the
 * target's answers to it are taken: a host would otherwise answer each with an ICMP port
 * unreachable. NULL when the port is ours already (the sender's) or someone else's. */
static struct rs_inject_sender *
open_answer_port(const struct rs_replay_rewrite *rw)
{
    struct rs_inject_sender *s = NULL;

    if (rw->sport == ROCEV2_PORT || rs_inject_open_udp(rw->family, rw->src, ROCEV2_PORT, &s,
                                                       NULL) != 0)
        return NULL;
    return s;
}

void
replay_sleep_until(uint64_t t)
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
                replay_sleep_until(start + due_ns(trace, o, index, i));
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

int
rs_replay_run_packets(const struct rs_replay_trace *trace, const struct rs_replay_rewrite *rw,
                      const struct rs_replay_run_opts *o, const struct rs_decode_opts *dopts,
                      GArray *got, GByteArray *got_bytes, struct rs_replay_run_stats *st,
                      char *err)
{
    struct rs_inject_sender *s = NULL;
    struct replay_capture c;
    int rc;

    memset(st, 0, sizeof(*st));
    if (trace->requests->len == 0)
        return rs_error(err, RS_EINVAL, "the conversation has no requests to replay");
    if ((rc = open_sender(trace, rw, o, &s, err)) < 0)
        return rc;
    /* Without a capture (no validation, no -w) the run only sends, as tcpreplay does. */
    /* --until-answered: the capture's last response, as the last pass's PSNs have it. */
    uint32_t last_psn = 0;
    bool until = o->until_answered && trace->responses->len > 0;
    if (until)
        last_psn = g_array_index(trace->responses, struct rs_replay_frame,
                                 trace->responses->len - 1).psn + rw->psn_offset +
                   ((o->loop != 0 ? o->loop : 1) - 1) * o->psn_span;
    if ((rc = replay_capture_start(trace, rw, o->capture_iface, until ? &last_psn : NULL, dopts,
                                   &c, err)) < 0) {
        rs_inject_close(s, NULL, NULL);
        return rc;
    }
    struct rs_inject_sender *answers = o->iface == NULL ? open_answer_port(rw) : NULL;
    rc = send_all(trace, rw, o, dopts, s, st, err);
    int crc = rs_inject_close(s, NULL, rc == 0 ? err : NULL);
    if (rc == 0)
        rc = crc;
    crc = replay_capture_finish(&c, rw, o, dopts, got, got_bytes, st, rc == 0 ? err : NULL);
    if (rc == 0)
        rc = crc;
    if (answers != NULL)
        rs_inject_close(answers, NULL, NULL);
    return rc;
}
