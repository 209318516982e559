/*
 * source.c - the generic half of a packet source: dispatch through the ops
 * table, frame numbering and relative time.
 */
#include <stdlib.h>

#include "source_int.h"

void
source_stamp_frame(struct rs_source *src, struct rs_frame *frame)
{
    int64_t ns = frame->ts_sec * 1000000000 + frame->ts_nsec;

    if (src->count == 0)
        src->first_ns = ns;
    frame->number = ++src->count;
    frame->rel_ns = ns - src->first_ns;
    frame->linktype = src->linktype;
    frame->ts_digits = src->ts_digits;
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
