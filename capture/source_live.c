/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source_live.c - network interfaces through libpcap (TPACKET_V3 on Linux).
 *
 * Frames come straight out of libpcap's memory-mapped ring: no copy. The
 * handle is non-blocking and we poll its descriptor ourselves, beside an
 * eventfd that rs_source_break writes: that gives an idle timeout that works
 * with no traffic at all (an empty TPACKET_V3 block never times out), and a
 * break that cannot lose a frame (pcap_breakloop may end a read that already
 * took one). After a break the source hands out what the ring holds, waiting
 * once for the kernel to retire the block it was filling, then ends.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "source_int.h"

/* Without immediate mode the kernel hands a ring block over when it is full
 * or this old; dumpcap uses the same order of magnitude. */
#define LIVE_TIMEOUT_MS 250
#define DEFAULT_FILTER_MAX 2048

struct live_source {
    pcap_t *pcap;
    int pcap_fd;
    int break_fd;
    bool immediate;
    bool report_idle;
    int idle_ms;
    bool draining;          /* broken: emptying the ring */
    bool drain_waited;      /* waited for the last block */
};

/* Waits for frames, a break or the idle timeout: 1 woken, 0 timed out. */
static int
wait_frames(struct live_source *ls, int timeout_ms, bool with_break)
{
    struct pollfd fds[2] = {
        {.fd = ls->pcap_fd, .events = POLLIN},
        {.fd = ls->break_fd, .events = POLLIN},
    };
    int n = poll(fds, with_break ? 2 : 1, timeout_ms);

    if (n > 0 && with_break && fds[1].revents != 0)
        ls->draining = true;
    return n > 0 || (n < 0 && errno == EINTR);
}

static int
live_next(struct rs_source *src, struct rs_frame *frame, char *err)
{
    struct live_source *ls = src->priv;
    struct pcap_pkthdr *hdr;
    const u_char *data;

    for (;;) {
        int rc = pcap_next_ex(ls->pcap, &hdr, &data);
        if (rc == 1) {
            frame->data = data;
            frame->caplen = hdr->caplen;
            frame->len = hdr->len;
            frame->ts_sec = hdr->ts.tv_sec;
            frame->ts_nsec = (uint32_t)hdr->ts.tv_usec * (src->ts_digits == 9 ? 1u : 1000u);
            source_stamp_frame(src, frame);
            return 1;
        }
        if (rc < 0)
            return rs_error(err, RS_EIO, "%s: %s", src->name, pcap_geterr(ls->pcap));
        if (ls->draining) {
            if (ls->drain_waited || ls->immediate)
                return 0;
            ls->drain_waited = true;
            wait_frames(ls, LIVE_TIMEOUT_MS + 100, false);
            continue;
        }
        if (!wait_frames(ls, ls->idle_ms, true) && ls->report_idle)
            return RS_SOURCE_IDLE;
    }
}

static void
live_break(struct rs_source *src)
{
    uint64_t one = 1;

    /* write() is async-signal-safe; live_next sees the eventfd in poll(). */
    if (write(((struct live_source *)src->priv)->break_fd, &one, sizeof(one)) < 0)
        ((struct live_source *)src->priv)->draining = true;
}

static int
live_stats(struct rs_source *src, struct rs_source_stats *stats, char *err)
{
    struct live_source *ls = src->priv;
    struct pcap_stat ps;

    if (pcap_stats(ls->pcap, &ps) != 0)
        return rs_error(err, RS_EIO, "%s: statistics: %s", src->name, pcap_geterr(ls->pcap));
    stats->kernel_drops = ps.ps_drop;
    stats->iface_drops = ps.ps_ifdrop;
    return 0;
}

static void
live_close(struct rs_source *src)
{
    struct live_source *ls = src->priv;

    pcap_close(ls->pcap);
    close(ls->break_fd);
    free(ls);
}

static const struct rs_source_ops live_ops = {live_next, live_break, live_close, live_stats};

/* Maps pcap_activate's codes to ours, with what the user can do about it. */
static int
activate_error(struct rs_source *src, pcap_t *pcap, int rc, char *err)
{
    return rs_capture_pcap_error(err, src->name, rc, pcap_geterr(pcap));
}

static int
set_filter(struct rs_source *src, pcap_t *pcap, const struct rs_live_opts *opts, char *err)
{
    char deflt[DEFAULT_FILTER_MAX];
    const char *expr = opts->filter;
    struct bpf_program prog;
    int rc;

    if (expr == NULL) {
        if ((rc = rs_capture_default_filter(opts, pcap_datalink(pcap), deflt, sizeof(deflt),
                                            err)) != 0)
            return rc;
        expr = deflt;
    }
    if (pcap_compile(pcap, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) != 0)
        return rs_error(err, RS_EINVAL, "-f %s: %s", expr, pcap_geterr(pcap));
    rc = pcap_setfilter(pcap, &prog);
    pcap_freecode(&prog);
    if (rc != 0)
        return rs_error(err, RS_EIO, "%s: setting the filter: %s", src->name, pcap_geterr(pcap));
    return 0;
}

int
source_live_activate(struct rs_source *src, const struct rs_live_opts *opts, char *err)
{
    char pcap_err[PCAP_ERRBUF_SIZE];
    struct live_source *ls;
    pcap_t *pcap;
    unsigned mb = opts->buffer_mb != 0 ? opts->buffer_mb : RS_CAPTURE_BUFFER_MB;
    int rc;

    ls = calloc(1, sizeof(*ls));
    if (ls == NULL)
        return rs_error(err, RS_ENOMEM, "%s: out of memory", src->name);
    ls->break_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (ls->break_fd < 0) {
        rc = rs_error(err, RS_EIO, "%s: eventfd: %s", src->name, strerror(errno));
        goto fail_alloc;
    }
    pcap = pcap_create(src->name, pcap_err);
    if (pcap == NULL) {
        rc = rs_error(err, RS_EIO, "%s: %s", src->name, pcap_err);
        goto fail_eventfd;
    }
    src->snaplen = opts->snaplen != 0 ? opts->snaplen : RS_CAPTURE_SNAPLEN;
    /* These fail only on a handle already activated, which this one is not; a
     * failure would still mean a capture other than the one asked for. */
    if (pcap_set_snaplen(pcap, (int)src->snaplen) != 0 ||
        pcap_set_promisc(pcap, !opts->no_promisc) != 0 ||
        pcap_set_buffer_size(pcap, (int)((mb > 2047 ? 2047 : mb) << 20)) != 0 ||
        (opts->immediate && pcap_set_immediate_mode(pcap, 1) != 0) ||
        pcap_set_timeout(pcap, opts->idle_ms != 0 ? (int)opts->idle_ms : LIVE_TIMEOUT_MS) != 0) {
        rc = rs_error(err, RS_EIO, "%s: cannot set the capture's options", src->name);
        goto fail_pcap;
    }
    bool nsec = pcap_set_tstamp_precision(pcap, PCAP_TSTAMP_PRECISION_NANO) == 0;
    rc = pcap_activate(pcap);
    if (rc < 0) {
        rc = activate_error(src, pcap, rc, err);
        goto fail_pcap;
    }
    if ((rc = set_filter(src, pcap, opts, err)) != 0)
        goto fail_pcap;
    ls->pcap_fd = pcap_get_selectable_fd(pcap);
    if (ls->pcap_fd < 0 || pcap_setnonblock(pcap, 1, pcap_err) != 0) {
        rc = rs_error(err, RS_EIO, "%s: cannot poll the capture: %s", src->name,
                      ls->pcap_fd < 0 ? "no descriptor" : pcap_err);
        goto fail_pcap;
    }
    ls->pcap = pcap;
    ls->immediate = opts->immediate;
    ls->report_idle = opts->idle_ms != 0;
    ls->idle_ms = opts->idle_ms != 0 ? (int)opts->idle_ms : -1;
    src->linktype = pcap_datalink(pcap);
    nsec = nsec && pcap_get_tstamp_precision(pcap) == PCAP_TSTAMP_PRECISION_NANO;
    src->ts_digits = source_ts_digits(src->linktype, nsec);
    src->ts_hardware = false;
    src->priv = ls;
    src->ops = &live_ops;
    return 0;

fail_pcap:
    pcap_close(pcap);
fail_eventfd:
    close(ls->break_fd);
fail_alloc:
    free(ls);
    return rc;
}

int
rs_source_create_iface(const char *iface, struct rs_source **out, char *err)
{
    int rc = source_create(iface, out, err);

    if (rc == 0)
        (*out)->activate = source_live_activate;
    return rc;
}
