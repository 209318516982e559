/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source.c - the generic half of a packet source: dispatch through the ops
 * table, frame numbering, and the times since the first and the previous
 * frame (struct rs_time: a pcapng file in seconds can span more than the
 * 292 years that 64 bits of nanoseconds hold).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/wire.h>

#include "source_int.h"

/* ERF records carry their own 32.32 fixed-point timestamp, finer than the
 * microseconds a pcap record header holds; rounded to nanoseconds. */
static void
erf_timestamp(struct rs_frame *frame)
{
    if (frame->caplen < 8)
        return;
    uint64_t ts = rs_load_le64(frame->data);
    uint64_t ns = ((ts & 0xffffffffu) * 1000000000u + 0x80000000u) >> 32;

    frame->ts_sec = (int64_t)(ts >> 32);
    if (ns >= 1000000000u) {
        ns -= 1000000000u;
        frame->ts_sec++;
    }
    frame->ts_nsec = (uint32_t)ns;
}

/* An ERF record's capture port (flags, byte 9, low two bits) is an interface, numbered
 * in the order ports first appear, as Wireshark's ERF reader numbers them. */
static void
erf_interface(struct rs_source *src, struct rs_frame *frame)
{
    if (frame->caplen < 10)
        return;
    unsigned port = frame->data[9] & 3;
    if (src->erf_port_iface[port] == 0)
        src->erf_port_iface[port] = ++src->erf_ifaces;
    frame->interface = src->erf_port_iface[port];
}

void
source_stamp(struct rs_source *src, struct rs_frame *frame, int linktype, uint8_t ts_digits)
{
    frame->linktype = linktype;
    frame->ts_digits = ts_digits;
    frame->interface = 0;
    frame->section = 0;
    frame->iface_name = frame->iface_desc = NULL;
    if (linktype == RS_DLT_ERF) {
        erf_timestamp(frame);
        erf_interface(src, frame);
    }
    source_number(src, frame);
}

void
source_number(struct rs_source *src, struct rs_frame *frame)
{
    /* A damaged pcap record can say 4294967295 microseconds: carried into
     * the seconds (tshark shows such a time as garbage). */
    if (frame->ts_nsec >= RS_NSEC_PER_SEC) {
        struct rs_time t = rs_time_make(frame->ts_sec, frame->ts_nsec);
        frame->ts_sec = t.sec;
        frame->ts_nsec = (uint32_t)t.nsec;
    }
    struct rs_time t = rs_frame_time(frame);

    if (src->count == 0)
        src->first = src->prev = t;
    frame->number = ++src->count;
    frame->original = 0;
    frame->rel = rs_time_sub(t, src->first);
    frame->delta = rs_time_sub(t, src->prev);
    src->prev = t;
}

void
source_stamp_frame(struct rs_source *src, struct rs_frame *frame)
{
    source_stamp(src, frame, src->linktype, src->ts_digits);
}

uint8_t
source_ts_digits(int linktype, bool nsec)
{
    return nsec || linktype == RS_DLT_ERF ? 9 : 6;
}

/* A created source reads nothing until activated (libpcap's initialize_ops). */
static int
inactive_next(struct rs_source *src, struct rs_frame *frame, char *err)
{
    (void)frame;
    return rs_error(err, RS_EINVAL, "%s: the capture is not active", src->name);
}

static void
inactive_break(struct rs_source *src)
{
    (void)src;
}

/* A backend may have allocated its private part at create time. */
static void
inactive_close(struct rs_source *src)
{
    free(src->priv);
    src->priv = NULL;
}

static int
inactive_stats(struct rs_source *src, struct rs_source_stats *stats, char *err)
{
    (void)stats;
    return rs_error(err, RS_EINVAL, "%s: the capture is not active", src->name);
}

const struct rs_source_ops source_inactive_ops = {
    inactive_next, inactive_break, inactive_close, inactive_stats
};

int
source_create(const char *name, struct rs_source **out, char *err)
{
    struct rs_source *src;

    if (strlen(name) >= sizeof(src->name))
        return rs_error(err, RS_EINVAL, "%.40s...: name too long", name);
    src = calloc(1, sizeof(*src));
    if (src == NULL)
        return rs_error(err, RS_ENOMEM, "%s: out of memory", name);
    src->ops = &source_inactive_ops;
    src->offset = -1;
    snprintf(src->name, sizeof(src->name), "%s", name);
    *out = src;
    return 0;
}

int
rs_source_activate(struct rs_source *src, const struct rs_live_opts *opts, char *err)
{
    static const struct rs_live_opts defaults;

    if (src->activate == NULL)
        return rs_error(err, RS_EINVAL, "%s: already active", src->name);
    int rc = src->activate(src, opts != NULL ? opts : &defaults, err);
    if (rc == 0)
        src->activate = NULL;
    return rc;
}

int
rs_source_next(struct rs_source *src, struct rs_frame *frame, char *err)
{
    return src->ops->next(src, frame, err);
}

size_t
rs_source_drop_spans(const struct rs_source *src, const struct rs_source_drop_span **out)
{
    *out = src->drop_span;
    return src->n_drop_spans;
}

void
source_add_drop_span(struct rs_source *src, int64_t from_ns, int64_t to_ns, uint64_t drops)
{
    if (src->n_drop_spans == RS_SOURCE_DROP_SPANS) {
        struct rs_source_drop_span *last = &src->drop_span[RS_SOURCE_DROP_SPANS - 1];
        last->from_ns = from_ns < last->from_ns ? from_ns : last->from_ns;
        last->to_ns = to_ns > last->to_ns ? to_ns : last->to_ns;
        last->drops += drops;
        return;
    }
    src->drop_span[src->n_drop_spans++] = (struct rs_source_drop_span){from_ns, to_ns, drops};
}

int
rs_source_stats(struct rs_source *src, struct rs_source_stats *stats, char *err)
{
    memset(stats, 0, sizeof(*stats));
    if (src->ops->stats != NULL) {
        int rc = src->ops->stats(src, stats, err);
        if (rc != 0)
            return rc;
    }
    stats->received = src->count;
    return 0;
}

unsigned
rs_source_snaplen(const struct rs_source *src)
{
    return src->snaplen;
}

bool
rs_source_is_pcapng(const struct rs_source *src)
{
    return src->pcapng;
}

uint8_t
rs_source_ts_digits(const struct rs_source *src)
{
    return src->ts_digits;
}

bool
rs_source_ts_hardware(const struct rs_source *src)
{
    return src->ts_hardware;
}

int64_t
rs_source_offset(const struct rs_source *src)
{
    return src->offset;
}

const char *
rs_source_name(const struct rs_source *src)
{
    return src->name;
}

int
rs_source_linktype(const struct rs_source *src)
{
    return src->linktype;
}

void
rs_source_break(struct rs_source *src)
{
    if (src->ops->brk != NULL)
        src->ops->brk(src);
}

void
rs_source_close(struct rs_source *src)
{
    if (src == NULL)
        return;
    src->ops->close(src);
    free(src);
}
