/*
 * source_int.h - what every packet source implements (libpcap's pattern:
 * a private struct behind an ops table, set once the source is open).
 */
#ifndef ROCESHARK_SOURCE_INT_H
#define ROCESHARK_SOURCE_INT_H

#include <roceshark/capture.h>

struct rs_source_ops {
    int (*next)(struct rs_source *src, struct rs_frame *frame, char *err);
    void (*brk)(struct rs_source *src);
    void (*close)(struct rs_source *src);
};

struct rs_source {
    const struct rs_source_ops *ops;
    int linktype;
    uint64_t count;         /* frames handed out so far */
    int64_t first_ns;       /* time of the first frame, for rel_ns */
    uint8_t ts_digits;
    void *priv;
};

/* Numbers and relative-times a frame the backend has filled. */
void source_stamp_frame(struct rs_source *src, struct rs_frame *frame);

#endif /* ROCESHARK_SOURCE_INT_H */
