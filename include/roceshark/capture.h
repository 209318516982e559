/*
 * capture.h - packet sources: where frames come from.
 *
 * A source hands out one frame at a time; the frame's bytes stay valid until
 * the next call. Sources are files (pcap, pcapng, with any link type libpcap
 * reads, ERF included) and, later, live interfaces and RDMA sniffer QPs.
 */
#ifndef ROCESHARK_CAPTURE_H
#define ROCESHARK_CAPTURE_H

#include <stdint.h>

#include <roceshark/common.h>
#include <roceshark/packet.h>

struct rs_source;

/* Opens a capture file ("-" reads standard input). */
int rs_source_open_file(const char *path, struct rs_source **out, char *err);

/* Reads the next frame: returns 1 with *frame filled, 0 at the end, or a
 * negative RS_E* code with err filled. */
int rs_source_next(struct rs_source *src, struct rs_frame *frame, char *err);

/* The link type (RS_DLT_*) of the frames the source delivers. */
int rs_source_linktype(const struct rs_source *src);

/* Stops a blocking read from another thread or a signal handler. */
void rs_source_break(struct rs_source *src);

void rs_source_close(struct rs_source *src);

#endif /* ROCESHARK_CAPTURE_H */
