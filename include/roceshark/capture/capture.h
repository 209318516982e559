/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capture.h - packet sources: where frames come from.
 *
 * A source hands out one frame at a time; the frame's bytes stay valid until
 * the next call. Sources are files (pcap, pcapng, with any link type libpcap
 * reads, ERF included), live network interfaces through libpcap, and RDMA
 * devices through a sniffer QP (libibverbs).
 *
 * Live sources follow libpcap's lifecycle: create (cheap: claims the name),
 * activate (acquires everything, in order), read, close. A source that is
 * not active refuses to read.
 */
#ifndef ROCESHARK_CAPTURE_H
#define ROCESHARK_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/packet.h>

struct rs_source;

/* rs_source_next() returns this from a live source opened with idle_ms when
 * no frame came in that time: a chance to flush output or check a timer. */
#define RS_SOURCE_IDLE 2

/* Defaults of a live capture. */
#define RS_CAPTURE_SNAPLEN 262144u          /* libpcap's and dumpcap's */
#define RS_CAPTURE_VERBS_SNAPLEN 9216u      /* a 9000-byte MTU frame and its headers */
#define RS_CAPTURE_BUFFER_MB 32u            /* kernel ring or sniffer receive ring */

/* Options of a live source; zero means the default. */
struct rs_live_opts {
    unsigned snaplen;           /* bytes kept of each frame */
    unsigned buffer_mb;         /* -B: kernel ring (libpcap) or receive ring (verbs) */
    const char *filter;         /* -f: BPF replacing the default RDMA filter */
    const uint16_t *roce_ports; /* extra RoCEv2 UDP ports for the default filter */
    unsigned n_roce_ports;
    const uint16_t *iwarp_ports;/* iWARP TCP ports for the default filter */
    unsigned n_iwarp_ports;
    bool no_promisc;            /* -p */
    bool immediate;             /* deliver each frame at once (interactive decoding) */
    unsigned idle_ms;           /* > 0: rs_source_next returns RS_SOURCE_IDLE after it */
};

/* What a source counted. Counters a source cannot know stay 0. */
struct rs_source_stats {
    uint64_t received;          /* frames handed out */
    uint64_t kernel_drops;      /* dropped by the kernel ring (pcap_stats ps_drop) */
    uint64_t iface_drops;       /* dropped by the interface or driver (ps_ifdrop) */
    uint64_t ring_drops;        /* lost in our receive ring: failed completions, and the
                                 * port's out_of_buffer counter while we ran (verbs) */
};

/* Frames a pcapng file says its capturer dropped (Interface Statistics Blocks: isb_ifdrop
 * plus isb_osdrop), as the spans of time in which an interface's count rose: from its
 * previous ISB (or this one's isb_starttime; INT64_MIN when neither) to this ISB's time,
 * in ns since the epoch. Known as the file is read, so whole once it has been read to its
 * end; past RS_SOURCE_DROP_SPANS, the last span grows to hold the rest. */
#define RS_SOURCE_DROP_SPANS 32
struct rs_source_drop_span {
    int64_t from_ns, to_ns;
    uint64_t drops;
};
size_t rs_source_drop_spans(const struct rs_source *src, const struct rs_source_drop_span **out);

/* Opens a capture file ("-" reads standard input). */
int rs_source_open_file(const char *path, struct rs_source **out, char *err);
/* Opens n capture files as one source, in time order as mergecap merges them (on equal
 * times the earlier file's frame first), numbered across them; one file is
 * rs_source_open_file(). The source's link type is the first file's, its snapshot length
 * the largest, its clock the finest, pcapng if any file is. */
int rs_source_open_files(const char *const *paths, size_t n, struct rs_source **out,
                         char *err);

/* Creates an inactive live source on a network interface (libpcap). */
int rs_source_create_iface(const char *iface, struct rs_source **out, char *err);

/* Creates an inactive sniffer source on an RDMA device, "DEV" or "DEV:PORT"
 * (port 1 by default). RS_ENOTSUP when built without libibverbs. */
int rs_source_create_rdma(const char *dev, struct rs_source **out, char *err);

/* Activates a live source. Errors: RS_ENOENT no such device (the message
 * lists those there are), RS_EPERM missing privilege, RS_ENOTSUP no kernel
 * or device support, RS_EINVAL a bad filter or option. */
int rs_source_activate(struct rs_source *src, const struct rs_live_opts *opts, char *err);

/* Reads the next frame: returns 1 with *frame filled, 0 at the end (or after
 * rs_source_break), RS_SOURCE_IDLE (live sources with idle_ms), or a negative
 * RS_E* code with err filled. */
int rs_source_next(struct rs_source *src, struct rs_frame *frame, char *err);

/* The link type (RS_DLT_*) of the frames the source delivers. */
int rs_source_linktype(const struct rs_source *src);

/* True for a pcapng file read by our reader (a file libpcap reads says false). */
bool rs_source_is_pcapng(const struct rs_source *src);

/* The decimals of its frames' times (9 for a nanosecond file; a pcapng file's first
 * interface's), as struct rs_frame's ts_digits. */
uint8_t rs_source_ts_digits(const struct rs_source *src);

/* The snapshot length frames are cut to. */
unsigned rs_source_snaplen(const struct rs_source *src);

/* True when timestamps come from the NIC's clock rather than the host's. */
bool rs_source_ts_hardware(const struct rs_source *src);

/* Where the bytes of the frame last handed out start in the file, so that a
 * viewer can keep an index of offsets and read a frame again on demand (as
 * Wireshark's frame data does); -1 when the source cannot say (standard
 * input, files libpcap reads, live sources). */
int64_t rs_source_offset(const struct rs_source *src);

/* The device or file name the source was created with. */
const char *rs_source_name(const struct rs_source *src);

/* Fills the counters (received is always known). */
int rs_source_stats(struct rs_source *src, struct rs_source_stats *stats, char *err);

/* Stops a blocking read from another thread or a signal handler
 * (async-signal-safe). A live source then hands out the frames it already
 * holds and returns 0. */
void rs_source_break(struct rs_source *src);

void rs_source_close(struct rs_source *src);

/* Writes the default capture filter for a link type (DLT_*) into buf: RoCEv2
 * (UDP destination port 4791 and the extra ports), RoCEv1 (Ethertype 0x8915)
 * and the iWARP TCP ports; on Ethernet also 802.1Q/802.1ad tagged and double
 * tagged. Other links (Linux cooked, `-i any`) carry no tags in the frame, and
 * BPF has no `vlan` for them. */
int rs_capture_default_filter(const struct rs_live_opts *opts, int linktype, char *buf,
                              size_t size, char *err);

/* --- The capture engine: a live source into a writer (capture_loop.c) --- */

struct rs_writer;

struct rs_capture_opts {
    uint64_t count;             /* -c: stop once this many frames are written; 0 none */
    uint64_t stop_seconds;      /* -a duration: stop after this long; 0 none */
    uint64_t stop_bytes;        /* -a filesize: stop once the file holds this much; 0 none */
    unsigned flush_ms;          /* hand what is buffered to the operating system this often
                                 * while frames come, for a reader of the growing file;
                                 * 0: when the buffer is full or the source idle */
    /* Called now and then with the frames written so far (every few hundred frames and
     * when the source is idle), on the loop's thread: a progress line; may be NULL. */
    void (*tick)(void *ctx, uint64_t frames);
    void *tick_ctx;
};

void rs_capture_opts_init(struct rs_capture_opts *opts);

/* Where a capture stands, as of its last flush. */
struct rs_capture_status {
    uint64_t written;           /* frames in the file's whole records, up to durable */
    uint64_t durable;           /* bytes of the file the operating system has taken */
    struct rs_source_stats stats;   /* the source's counts, read just before that flush */
    bool done;                  /* the loop has ended */
    int rc;                     /* how: 0, or the RS_E* code of the error in err */
    bool write_failed;          /* the error was the writer's (else the source's) */
    char err[RS_ERRBUF_SIZE];
};

/* The source's drops (kernel, interface, ring) grew by count, first seen once the file
 * held after_frames frames: the frames lost came after those. */
struct rs_capture_drop {
    uint64_t after_frames;
    uint64_t count;
};

struct rs_capture;

/* Runs the loop on the calling thread until a stop condition, a break
 * (rs_source_break, from a signal handler say), the source's end or an
 * error: 0, or the error's code (status says which side failed). The
 * writer stays open, flushed; the caller closes it. */
int rs_capture_run(struct rs_source *src, struct rs_writer *w, const struct rs_capture_opts *opts,
                   struct rs_capture_status *status);
/* The same loop on a thread of its own, which does nothing else. */
int rs_capture_start(struct rs_source *src, struct rs_writer *w, const struct rs_capture_opts *opts,
                     struct rs_capture **out, char *err);
void rs_capture_get_status(struct rs_capture *c, struct rs_capture_status *out);
/* Waits up to timeout_ms for durable to move past durable_seen or the loop to end;
 * true when it did. */
bool rs_capture_wait(struct rs_capture *c, uint64_t durable_seen, unsigned timeout_ms,
                     struct rs_capture_status *out);
/* Drop events from the from-th on, at most max of them; returns how many. */
size_t rs_capture_drops(struct rs_capture *c, size_t from, struct rs_capture_drop *out,
                        size_t max);
/* Breaks the source and waits for the thread to end; gives the last status (may be
 * NULL). c stays readable (a growing source may still be reading its file) until
 * rs_capture_free, after any such source is closed; the caller closes the writer and
 * the source. */
void rs_capture_stop(struct rs_capture *c, struct rs_capture_status *status);
void rs_capture_free(struct rs_capture *c);
/* Opens the pcap file c is writing, to be read as it grows: frames come as c hands
 * them to the operating system, and the source ends once c has ended and every frame
 * is read (or at once on rs_source_break). Its offsets are those of the file. */
int rs_source_open_capture(struct rs_capture *c, const char *path, struct rs_source **out,
                           char *err);

/* --- Listing what can be captured (`roceshark ifaces`) --- */

#define RS_IFACE_NAME_MAX 64
#define RS_IFACE_MAX 128
#define RS_RDMA_PORT_MAX 4

struct rs_netif {
    char name[RS_IFACE_NAME_MAX];
    char link[16];              /* "ethernet", "loopback", "infiniband", "other" */
    bool up;
    bool running;               /* carrier: the link is up */
    char rdma_dev[RS_IFACE_NAME_MAX];  /* the RDMA device behind it, when there is one */
};

struct rs_rdma_port {
    unsigned num;
    char link[16];              /* "ethernet" (RoCE), "infiniband" */
    char state[16];             /* "active", "down", ... as ibv_port_state_str says */
    unsigned mtu;               /* active MTU, bytes */
};

struct rs_rdma_dev {
    char name[RS_IFACE_NAME_MAX];
    char fw[64];
    unsigned n_ports;
    struct rs_rdma_port ports[RS_RDMA_PORT_MAX];
};

/* Lists the network interfaces libpcap can open. */
int rs_capture_list_netifs(struct rs_netif *out, size_t max, size_t *n, char *err);

/* Lists the RDMA devices. Returns 0 with *n == 0 and why in note when there
 * are none (no kernel support, no device, or built without libibverbs). */
int rs_capture_list_rdma(struct rs_rdma_dev *out, size_t max, size_t *n, char *note,
                         char *err);

/* The error of a libpcap handle that would not open or activate on the interface name: rc is
 * pcap_activate()'s code (0 when pcap_create() failed), text libpcap's message. No such
 * interface and no permission are worded as every command words them (rs_error_no_iface,
 * rs_error_permission); a down interface says so; anything else is "NAME: text". */
int rs_capture_pcap_error(char *err, const char *name, int rc, const char *text);

#endif /* ROCESHARK_CAPTURE_H */
