/*
 * source.c - the generic half of a packet source: dispatch through the ops
 * table, frame numbering and relative time.
 */
#include <stdlib.h>

#include <roceshark/wire.h>

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

void
source_stamp_frame(struct rs_source *src, struct rs_frame *frame)
{
    if (src->linktype == RS_DLT_ERF)
        erf_timestamp(frame);
    int64_t ns = frame->ts_sec * 1000000000 + frame->ts_nsec;

    if (src->count == 0)
        src->first_ns = ns;
    frame->number = ++src->count;
    frame->rel_ns = ns - src->first_ns;
    frame->linktype = src->linktype;
    frame->ts_digits = src->ts_digits;
}

uint8_t
source_ts_digits(int linktype, bool nsec)
{
    return nsec || linktype == RS_DLT_ERF ? 9 : 6;
}

int
rs_source_next(struct rs_source *src, struct rs_frame *frame, char *err)
{
    return src->ops->next(src, frame, err);
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
