/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bridge.c - two libpcap ports and the fault engine between them (see
 * bridge.h). Each port reads in immediate mode, non-blocking, and only what
 * comes in (PCAP_D_IN), so a frame the bridge sends out of a port is never
 * read back from it. One poll() waits on both ports and on the next held
 * packet's time.
 *
 * Frames go out through a packet socket of our own, a batch per sendmmsg():
 * libpcap's pcap_inject() is one system call per frame, which halves what a
 * port can forward; reading stays libpcap's.
 */
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <roceshark/inject/bridge.h>
#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/packet.h>
#include <roceshark/capture/pcapio.h>

#define SNAPLEN 65535
#define BURST 64                /* frames taken from one port before looking at the other */
#define RING_BYTES (8 << 20)    /* each port's kernel ring */
/* Frames read from a port after a stop at most: more than its ring holds (a frame takes
 * 64 bytes of it or more), so that a port that never goes quiet still ends. */
#define DRAIN_MAX (RING_BYTES / 64 * 2)

struct port {
    const char *name;
    pcap_t *pcap;
    int fd;
    struct rs_writer *writer;
    /* Frames to send out of this port, a batch for sendmmsg(). */
    int tx_fd;
    unsigned queued;
    uint8_t (*buf)[SNAPLEN];
    struct iovec iov[BURST];
    struct mmsghdr msg[BURST];
};

struct bridge {
    struct port port[2];
    struct rs_bridge_stats *st;
    char *err;
    int rc;
};

static uint64_t
now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int
port_open(struct port *p, const char *name, const char *write, char *err)
{
    char perr[PCAP_ERRBUF_SIZE] = "";

    p->name = name;
    p->pcap = pcap_create(name, perr);
    if (p->pcap == NULL)
        return rs_capture_pcap_error(err, name, 0, perr);
    int rc = 0;
    if (pcap_set_snaplen(p->pcap, SNAPLEN) != 0 || pcap_set_promisc(p->pcap, 1) != 0 ||
        pcap_set_immediate_mode(p->pcap, 1) != 0 ||
        pcap_set_buffer_size(p->pcap, RING_BYTES) != 0 || (rc = pcap_activate(p->pcap)) < 0)
        return rs_capture_pcap_error(err, name, rc, pcap_geterr(p->pcap));
    if (pcap_setdirection(p->pcap, PCAP_D_IN) != 0 || pcap_setnonblock(p->pcap, 1, perr) != 0)
        return rs_error(err, RS_EIO, "%s: %s", name, perr[0] ? perr : pcap_geterr(p->pcap));
    if (pcap_datalink(p->pcap) != DLT_EN10MB)
        return rs_error(err, RS_EIO, "%s: not an Ethernet interface (%s)", name,
                        pcap_datalink_val_to_name(pcap_datalink(p->pcap)));
    p->fd = pcap_get_selectable_fd(p->pcap);
    if (p->fd < 0)
        return rs_error(err, RS_EIO, "%s: no descriptor to wait on", name);
    struct sockaddr_ll sll;
    int one = 1;
    memset(&sll, 0, sizeof(sll));
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = 0;                   /* sends only */
    sll.sll_ifindex = (int)if_nametoindex(name);
    p->tx_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    p->buf = malloc((size_t)BURST * SNAPLEN);
    if (p->tx_fd < 0 || p->buf == NULL || bind(p->tx_fd, (struct sockaddr *)&sll, sizeof(sll)) != 0)
        return rs_error(err, RS_EIO, "%s: packet socket: %s", name,
                        p->buf == NULL ? "out of memory" : strerror(errno));
    /* The frames already went through one link's queue. */
    setsockopt(p->tx_fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
    if (write != NULL) {
        struct rs_writer_opts wo;
        memset(&wo, 0, sizeof(wo));
        wo.path = write;
        wo.linktype = RS_DLT_EN10MB;
        wo.snaplen = SNAPLEN;
        wo.ts_hardware = true;
        if (rs_writer_open(&wo, &p->writer, err) != 0)
            return RS_EIO;
    }
    return 0;
}

static void
port_close(struct port *p)
{
    if (p->writer != NULL)
        rs_writer_close(p->writer, NULL, NULL);
    if (p->pcap != NULL)
        pcap_close(p->pcap);
    if (p->tx_fd >= 0)
        close(p->tx_fd);
    free(p->buf);
}

/* Sends the batch waiting for port p; what the socket refuses is counted as failed. */
static void
port_flush(struct port *p, struct rs_bridge_stats *st, unsigned i)
{
    unsigned done = 0;

    while (done < p->queued) {
        int n = sendmmsg(p->tx_fd, p->msg + done, p->queued - done, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            st->failed++;           /* this frame; the rest are tried again */
            done++;
            continue;
        }
        st->out[i] += (unsigned)n;
        done += (unsigned)n;
    }
    p->queued = 0;
}

/* The engine hands on a frame: tx goes out of B, rx out of A. */
static void
forward(void *arg, enum rs_fault_dir dir, const uint8_t *pkt, uint32_t len)
{
    struct bridge *b = arg;
    unsigned to = dir == RS_FAULT_TX ? 1 : 0;
    struct port *p = &b->port[to];

    if (len > SNAPLEN)
        return;
    if (p->queued == BURST)
        port_flush(p, b->st, to);
    unsigned q = p->queued++;
    memcpy(p->buf[q], pkt, len);
    p->iov[q] = (struct iovec){p->buf[q], len};
    memset(&p->msg[q], 0, sizeof(p->msg[q]));
    p->msg[q].msg_hdr.msg_iov = &p->iov[q];
    p->msg[q].msg_hdr.msg_iovlen = 1;
}

/* Reads what port i has (up to a burst) and hands it to the engine. */
static int
drain(struct bridge *b, unsigned i, struct rs_faults *faults, uint64_t *left)
{
    struct pcap_pkthdr *h;
    const u_char *data;
    int n = 0, r;

    while (n < BURST && *left > 0 && (r = pcap_next_ex(b->port[i].pcap, &h, &data)) == 1) {
        n++;
        b->st->in[i]++;
        (*left)--;
        if (b->port[i].writer != NULL) {
            struct rs_frame f;
            memset(&f, 0, sizeof(f));
            f.data = data;
            f.caplen = h->caplen;
            f.len = h->len;
            f.ts_sec = h->ts.tv_sec;
            f.ts_nsec = (uint32_t)h->ts.tv_usec * 1000u;
            if (rs_writer_write(b->port[i].writer, &f, b->err) != 0)
                return b->rc = RS_EIO;
        }
        enum rs_fault_dir dir = i == 0 ? RS_FAULT_TX : RS_FAULT_RX;
        if (faults != NULL)
            rs_faults_packet(faults, dir, RS_DLT_EN10MB, data, h->caplen, now_ns(), forward, b);
        else
            forward(b, dir, data, h->caplen);
    }
    if (n < BURST && *left > 0 && r == PCAP_ERROR)
        return b->rc = rs_error(b->err, RS_EIO, "%s: %s", b->port[i].name,
                                pcap_geterr(b->port[i].pcap));
    return 0;
}

int
rs_bridge_run(const struct rs_bridge_opts *o, struct rs_bridge_stats *st, char *err)
{
    struct bridge b;
    uint64_t left = o->count != 0 ? o->count : UINT64_MAX;

    memset(&b, 0, sizeof(b));
    memset(st, 0, sizeof(*st));
    b.port[0].tx_fd = b.port[1].tx_fd = -1;
    b.st = st;
    b.err = err;
    if (port_open(&b.port[0], o->iface_a, o->write_a, err) != 0 ||
        port_open(&b.port[1], o->iface_b, o->write_b, err) != 0) {
        port_close(&b.port[0]);
        port_close(&b.port[1]);
        return RS_EIO;
    }
    if (o->ready != NULL)
        o->ready(o->arg);
    while (b.rc == 0 && left > 0 && (o->stopped == NULL || !o->stopped())) {
        uint64_t now = now_ns();
        uint64_t due = o->faults != NULL ? rs_faults_poll(o->faults, now, forward, &b)
                                         : RS_FAULTS_NEVER;
        int wait_ms = 100;              /* so that the stop flag is seen soon */
        if (due != RS_FAULTS_NEVER)
            wait_ms = due <= now ? 0 : (int)((due - now + 999999) / 1000000);
        if (wait_ms > 100)
            wait_ms = 100;
        if (o->busy_poll)
            wait_ms = 0;    /* a sleeping process takes tens of microseconds to wake */
        /* Everything queued goes out before the wait: what the last turn read and what
         * the engine just released (delayed frames now due). Left queued, a frame would
         * sit until the next one comes in or the wait ends, up to 100 ms past its time. */
        for (unsigned i = 0; i < 2; i++)
            port_flush(&b.port[i], st, i);
        struct pollfd pfd[2] = {{b.port[0].fd, POLLIN, 0}, {b.port[1].fd, POLLIN, 0}};
        if (poll(pfd, 2, wait_ms) < 0 && errno != EINTR) {
            b.rc = rs_error(err, RS_EIO, "poll: %s", strerror(errno));
            break;
        }
        for (unsigned i = 0; i < 2 && b.rc == 0; i++)
            drain(&b, i, o->faults, &left);
    }
    /* What the ports' rings hold was taken in before the stop: it goes through the rules
     * and out like the rest (a bridge that lags under load holds a lot there), then what
     * the rules hold, so that a bridge loses only what the rules drop. New frames keep
     * coming to a busy port: a port is read until it has nothing waiting, for at most
     * what its ring can hold. */
    for (unsigned i = 0; i < 2 && b.rc == 0; i++) {
        uint64_t before = st->in[i];
        for (uint64_t was = UINT64_MAX; b.rc == 0 && left > 0 && was != st->in[i] &&
                                        st->in[i] - before < DRAIN_MAX;) {
            was = st->in[i];
            drain(&b, i, o->faults, &left);
            port_flush(&b.port[1 - i], st, 1 - i);
        }
    }
    if (o->faults != NULL)
        rs_faults_poll(o->faults, RS_FAULTS_NEVER - 1, forward, &b);
    for (unsigned i = 0; i < 2; i++)
        port_flush(&b.port[i], st, i);
    for (unsigned i = 0; i < 2; i++) {
        struct pcap_stat ps;
        if (pcap_stats(b.port[i].pcap, &ps) == 0)
            st->dropped[i] = ps.ps_drop;
        if (b.port[i].writer != NULL && rs_writer_close(b.port[i].writer, NULL, err) != 0 &&
            b.rc == 0)
            b.rc = RS_EIO;
        b.port[i].writer = NULL;
        port_close(&b.port[i]);
    }
    return b.rc;
}
