/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcapio.h - writing captures: pcap files through libpcap, one file or a
 * ring of files numbered as dumpcap numbers them.
 *
 * Frames are written with pcap_dump(); what we add is the guarantee that a
 * file stays readable when the disk fills up: the writer hands records to
 * the operating system only at record boundaries and, when a write fails,
 * cuts the file back to the last record that was written whole.
 *
 * Timestamp source: classic pcap has no field for it, so the file's
 * resolution says it, by our convention: a nanosecond pcap file (magic
 * a1b23c4d) holds the NIC's hardware timestamps, a microsecond one (magic
 * a1b2c3d4) the host's clock. Wireshark 4.0 reads both and shows which in
 * Capture File Properties ("nanosecond libpcap" or "libpcap").
 */
#ifndef ROCESHARK_PCAPIO_H
#define ROCESHARK_PCAPIO_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/packet.h>

struct rs_writer;

#define RS_WRITER_MAX_IFACES 16

struct rs_writer_opts {
    const char *path;           /* "-" writes standard output */
    int linktype;               /* RS_DLT_* */
    unsigned snaplen;
    bool ts_hardware;           /* nanosecond file, by the convention above */
    bool pcapng;                /* a pcapng file (one interface, nanosecond stamps) */
    bool frame_linktypes;       /* each frame's own link type: pcapng gets an interface per
                                 * link type (up to RS_WRITER_MAX_IFACES), pcap refuses a
                                 * frame whose type is not the file's */
    uint64_t ring_filesize;     /* -b filesize: switch files at this many bytes; 0 never */
    unsigned ring_duration;     /* -b duration: switch files after this many seconds */
    unsigned ring_files;        /* -b files: keep only the newest N files; 0 keeps all */
    const char *input;          /* the capture file being read ("-": standard input), or
                                 * NULL: a path naming it, by whatever name or link, is
                                 * refused, as Wireshark refuses to save over the file it
                                 * shows (opening it for writing would empty it first) */
};

/* Opens the first (or only) file. With a ring option the files are named
 * as dumpcap names them (see rs_writer_ring_name). RS_EINVAL for the file
 * being read (opts.input). */
int rs_writer_open(const struct rs_writer_opts *opts, struct rs_writer **out, char *err);

/* Writes one frame. On a write error the file is cut back to its last whole
 * record, the writer refuses further writes, and err says what happened. */
int rs_writer_write(struct rs_writer *w, const struct rs_frame *frame, char *err);

/* Hands buffered records to the operating system (and switches files when
 * a -b duration has passed): call it when the source is idle. */
int rs_writer_flush(struct rs_writer *w, char *err);

/* Flushes and closes; returns the error of the final write. Sets *written
 * (may be NULL) to the frames in the files. Frees w. */
int rs_writer_close(struct rs_writer *w, uint64_t *written, char *err);

/* Frames accepted so far, all files; after a write error, those the files hold. */
uint64_t rs_writer_frames(const struct rs_writer *w);
uint64_t rs_writer_file_size(const struct rs_writer *w);   /* bytes in the current file */
/* Of those, the bytes the operating system has taken (whole records), and the frames in
 * all files' whole records it has taken. */
uint64_t rs_writer_durable(const struct rs_writer *w);
uint64_t rs_writer_frames_flushed(const struct rs_writer *w);
/* Where the bytes of the frame last written start in the current file (after
 * its record or block header): what rs_source_offset() says of it when the
 * file is read. */
uint64_t rs_writer_frame_offset(const struct rs_writer *w);
const char *rs_writer_path(const struct rs_writer *w);     /* the current file */

/* dumpcap's ring file name: "dir/cap.pcap", number 7, time t ->
 * "dir/cap_00007_YYYYmmddHHMMSS.pcap" (local time; the extension is the
 * part of the file name after its last dot, kept at the end). */
int rs_writer_ring_name(const char *base, unsigned num, time_t t, char *out, size_t size);

#endif /* ROCESHARK_PCAPIO_H */
