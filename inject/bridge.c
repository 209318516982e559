/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bridge.c - two libpcap ports and the fault engine between them (see
 * bridge.h). Each port reads in immediate mode, non-blocking, and only what
 * comes in (PCAP_D_IN), so a frame the bridge sends out of a port is never
 * read back from it. One poll() waits on both ports and on the next held
 * packet's time.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <roceshark/bridge.h>
#include <roceshark/packet.h>
#include <roceshark/pcapio.h>

#define SNAPLEN 65535
#define BURST 64                /* frames taken from one port before looking at the other */

struct port {
    const char *name;
    pcap_t *pcap;
    int fd;
    struct rs_writer *writer;
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
        return rs_error(err, RS_EIO, "%s: %s", name, perr);
    if (pcap_set_snaplen(p->pcap, SNAPLEN) != 0 || pcap_set_promisc(p->pcap, 1) != 0 ||
        pcap_set_immediate_mode(p->pcap, 1) != 0 ||
        pcap_set_buffer_size(p->pcap, 8 << 20) != 0 || pcap_activate(p->pcap) < 0 ||
        pcap_setdirection(p->pcap, PCAP_D_IN) != 0 || pcap_setnonblock(p->pcap, 1, perr) != 0)
        return rs_error(err, RS_EIO, "%s: %s", name, perr[0] ? perr : pcap_geterr(p->pcap));
    if (pcap_datalink(p->pcap) != DLT_EN10MB)
        return rs_error(err, RS_EIO, "%s: not an Ethernet interface (%s)", name,
                        pcap_datalink_val_to_name(pcap_datalink(p->pcap)));
    p->fd = pcap_get_selectable_fd(p->pcap);
    if (p->fd < 0)
        return rs_error(err, RS_EIO, "%s: no descriptor to wait on", name);
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
}

/* The engine hands on a frame: tx goes out of B, rx out of A. */
static void
forward(void *arg, enum rs_fault_dir dir, const uint8_t *pkt, uint32_t len)
{
    struct bridge *b = arg;
    int to = dir == RS_FAULT_TX ? 1 : 0;

    if (pcap_inject(b->port[to].pcap, pkt, len) < 0)
        b->st->failed++;
    else
        b->st->out[to]++;
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
        struct pollfd pfd[2] = {{b.port[0].fd, POLLIN, 0}, {b.port[1].fd, POLLIN, 0}};
        if (poll(pfd, 2, wait_ms) < 0 && errno != EINTR) {
            b.rc = rs_error(err, RS_EIO, "poll: %s", strerror(errno));
            break;
        }
        for (unsigned i = 0; i < 2 && b.rc == 0; i++)
            drain(&b, i, o->faults, &left);
    }
    /* What is held goes out before the end: a bridge loses only what the rules drop. */
    if (o->faults != NULL)
        rs_faults_poll(o->faults, RS_FAULTS_NEVER - 1, forward, &b);
    for (unsigned i = 0; i < 2; i++) {
        if (b.port[i].writer != NULL && rs_writer_close(b.port[i].writer, NULL, err) != 0 &&
            b.rc == 0)
            b.rc = RS_EIO;
        b.port[i].writer = NULL;
        pcap_close(b.port[i].pcap);
    }
    return b.rc;
}
