/*
 * source_int.h - what every packet source implements (libpcap's pattern:
 * a private struct behind an ops table, set once the source is open).
 */
#ifndef ROCESHARK_SOURCE_INT_H
#define ROCESHARK_SOURCE_INT_H

#include <stdbool.h>

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

/* Numbers and relative-times a frame the backend has filled (taking an ERF
 * record's own, finer timestamp when there is one). */
void source_stamp_frame(struct rs_source *src, struct rs_frame *frame);

/* tshark shows times with the precision the file offers: nanosecond pcap
 * files and ERF records have nine digits, the rest six. */
uint8_t source_ts_digits(int linktype, bool nsec);

/* Maps path when it is a classic pcap file: 1 done, 0 not that format. */
int source_mmap_try(const char *path, struct rs_source *src, char *err);

#endif /* ROCESHARK_SOURCE_INT_H */
