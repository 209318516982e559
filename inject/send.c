/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * send.c - where injected packets go:
 *   - a capture file, through the capture writer (pcap or pcapng; a full disk
 *     keeps every whole record); native IB as ERF type 21 records, which
 *     Wireshark and our reader decode, since DLT 247 is one tshark cannot read;
 *   - a UDP socket, on which the kernel adds the IP and UDP headers, sent
 *     BATCH at a time with sendmmsg(), one system call for many packets;
 *   - an interface, through libpcap's pcap_inject(), byte for byte.
 */
#include <errno.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/encode.h>
#include <roceshark/inject/inject.h>
#include <roceshark/capture/pcapio.h>
#include <roceshark/dissectors/wire.h>

#define BATCH 64

struct rs_inject_sender {
    struct rs_writer *writer;   /* a file */
    bool erf;                   /* its records are ERF */
    pcap_t *live;               /* an interface */
    int link;                   /* its link type */
    int fd;                     /* the UDP socket, or -1 */
    uint8_t family;
    uint8_t src[16];
    uint16_t sport;
    int tos;                    /* the socket's traffic class, -1 before the first packet */
    uint64_t sent;
    uint8_t erf_buf[RS_INJECT_MAX_FRAME + RS_ERF_HDR_LEN];
    /* Datagrams waiting for sendmmsg(): their payloads and destinations. */
    unsigned queued;
    uint8_t qbuf[BATCH][RS_INJECT_MAX_FRAME];
    struct iovec iov[BATCH];
    struct sockaddr_storage qdst[BATCH];
    struct mmsghdr msg[BATCH];
};

static struct rs_inject_sender *
sender_new(void)
{
    struct rs_inject_sender *s = calloc(1, sizeof(*s));

    if (s != NULL) {
        s->fd = -1;
        s->tos = -1;
    }
    return s;
}

int
rs_inject_open_file(const char *path, enum rs_inject_format format, bool ib,
                    struct rs_inject_sender **out, char *err)
{
    struct rs_inject_sender *s = sender_new();
    struct rs_writer_opts wo;

    *out = NULL;
    if (s == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    memset(&wo, 0, sizeof(wo));
    wo.path = path;
    wo.linktype = ib ? RS_DLT_ERF : RS_DLT_EN10MB;
    wo.snaplen = RS_INJECT_MAX_FRAME + RS_ERF_HDR_LEN;
    wo.ts_hardware = true;      /* nanosecond stamps: packets are nanoseconds apart */
    wo.pcapng = format == RS_INJECT_PCAPNG;
    s->erf = ib;
    int rc = rs_writer_open(&wo, &s->writer, err);
    if (rc != 0) {
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* The address and port of an IPv4 or IPv6 endpoint. */
static socklen_t
sockaddr_of(uint8_t family, const uint8_t *ip, uint16_t port, struct sockaddr_storage *ss)
{
    uint8_t gid[16];

    rs_addr_from_ip(family, ip, gid);
    return rs_addr_to_sockaddr(gid, 0, port, ss);
}

int
rs_inject_open_udp(uint8_t family, const uint8_t *src, uint16_t sport,
                   struct rs_inject_sender **out, char *err)
{
    struct rs_inject_sender *s = sender_new();
    struct sockaddr_storage ss;
    int pmtu = IP_PMTUDISC_DO;

    *out = NULL;
    if (s == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    uint8_t gid[16];
    rs_addr_from_ip(family, src, gid);
    if (rs_addr_is_link_local(gid)) {
        free(s);
        return rs_error(err, RS_EINVAL, "a link-local source (%s) names no interface: "
                        "send with -i IFACE", rs_addr_format(gid, 0, (char[RS_ADDR_TEXT_MAX]){0},
                                                             RS_ADDR_TEXT_MAX));
    }
    s->family = family;
    memcpy(s->src, src, family == 6 ? 16 : 4);
    s->sport = sport;
    socklen_t len = sockaddr_of(family, s->src, sport, &ss);
    s->fd = socket(family == 6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&ss, len) != 0) {
        int e = errno;
        if (s->fd >= 0)
            close(s->fd);
        free(s);
        char where[RS_ADDR_TEXT_MAX];
        return rs_error_errno(err, e, rs_addr_format_port(gid, 0, sport, where, sizeof(where)));
    }
    /* DF: Linux then writes IP identification 0 on an unconnected socket, which is
     * what the ICRC was computed over. */
    if (family == 4)
        setsockopt(s->fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
    *out = s;
    return 0;
}

int
rs_inject_open_iface(const char *ifname, struct rs_inject_sender **out, char *err)
{
    struct rs_inject_sender *s = sender_new();
    char perr[PCAP_ERRBUF_SIZE] = "";

    *out = NULL;
    if (s == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    /* A handle that only sends: no buffer to speak of, no packets kept. */
    s->live = pcap_create(ifname, perr);
    int act = 0;
    if (s->live == NULL || pcap_set_snaplen(s->live, 64) != 0 ||
        pcap_set_buffer_size(s->live, 1 << 16) != 0 || (act = pcap_activate(s->live)) < 0) {
        int rc = rs_capture_pcap_error(err, ifname, act,
                                       s->live != NULL ? pcap_geterr(s->live) : perr);
        if (s->live != NULL)
            pcap_close(s->live);
        free(s);
        return rc;
    }
    if (pcap_setdirection(s->live, PCAP_D_IN) != 0) {
        /* What we send is not read back where the interface can say so; where it
         * cannot, this handle (which never reads) only buffers a little more. */
    }
    s->link = pcap_datalink(s->live);
    *out = s;
    return 0;
}

/* Sends what is queued. */
static int
flush_udp(struct rs_inject_sender *s, char *err)
{
    unsigned done = 0;

    while (done < s->queued) {
        int n = sendmmsg(s->fd, s->msg + done, s->queued - done, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            s->queued = 0;
            return rs_error(err, RS_EIO, "sending: %s", strerror(errno));
        }
        done += (unsigned)n;
    }
    s->sent += s->queued;
    s->queued = 0;
    return 0;
}

static int
send_udp(struct rs_inject_sender *s, const struct rs_inject_frame *fr, char *err)
{
    const uint8_t *ip = fr->data + fr->l3;
    uint32_t ip_len = fr->len - fr->l3;
    uint8_t family = fr->encap == RS_INJECT_ROCEV2 ? (uint8_t)(ip[0] >> 4) : 0;
    uint32_t hl = family == 6 ? RS_IPV6_HDR_LEN : RS_IPV4_HDR_LEN;

    if (family != 4 && family != 6)
        return rs_error(err, RS_EINVAL, "over UDP only RoCEv2 packets go");
    const uint8_t *src = ip + (family == 6 ? 8 : 12), *dst = ip + (family == 6 ? 24 : 16);
    const uint8_t *udp = ip + hl;
    if (family != s->family || memcmp(src, s->src, family == 6 ? 16 : 4) != 0 ||
        rs_load_be16(udp) != s->sport)
        return rs_error(err, RS_EINVAL, "over UDP every packet comes from the first one's "
                        "address and port");
    if (family == 4 && (rs_load_be16(ip + 4) != 0 || (rs_load_be16(ip + 6) & 0xbfff) != 0 ||
                        !(ip[6] & 0x40)))
        return rs_error(err, RS_EINVAL, "over UDP the kernel writes ip.id 0 with DF: a packet "
                        "with another ip.id or without DF would carry a wrong ICRC");
    /* The traffic class (DSCP and ECN) is the socket's: the ICRC does not cover it,
     * but the packet should carry what the spec says. */
    int tos = family == 6 ? (rs_load_be16(ip) >> 4) & 0xff : ip[1];
    if (tos != s->tos) {
        int rc = flush_udp(s, err);
        if (rc != 0)
            return rc;
        setsockopt(s->fd, family == 6 ? IPPROTO_IPV6 : IPPROTO_IP,
                   family == 6 ? IPV6_TCLASS : IP_TOS, &tos, sizeof(tos));
        s->tos = tos;
    }
    unsigned q = s->queued;
    uint32_t n = ip_len - hl - RS_UDP_HDR_LEN;
    /* The kernel writes IP and UDP: the datagram is what follows them. */
    memcpy(s->qbuf[q], udp + RS_UDP_HDR_LEN, n);
    s->iov[q] = (struct iovec){s->qbuf[q], n};
    memset(&s->msg[q], 0, sizeof(s->msg[q]));
    s->msg[q].msg_hdr.msg_iov = &s->iov[q];
    s->msg[q].msg_hdr.msg_iovlen = 1;
    s->msg[q].msg_hdr.msg_name = &s->qdst[q];
    s->msg[q].msg_hdr.msg_namelen = sockaddr_of(family, dst, rs_load_be16(udp + 2), &s->qdst[q]);
    s->queued++;
    return s->queued == BATCH ? flush_udp(s, err) : 0;
}

/* An ERF record around a native IB packet. */
static uint32_t
erf_wrap(struct rs_inject_sender *s, const struct rs_inject_frame *fr, const struct timespec *ts)
{
    rs_encode_erf_header(s->erf_buf, RS_ERF_TYPE_INFINIBAND, RS_ERF_FLAG_VLEN, ts->tv_sec,
                         (uint32_t)ts->tv_nsec, fr->len);
    memcpy(s->erf_buf + RS_ERF_HDR_LEN, fr->data, fr->len);
    return RS_ERF_HDR_LEN + fr->len;
}

int
rs_inject_flush(struct rs_inject_sender *s, char *err)
{
    if (s->fd >= 0)
        return flush_udp(s, err);
    if (s->writer != NULL)
        return rs_writer_flush(s->writer, err);
    return 0;
}

int
rs_inject_send(struct rs_inject_sender *s, const struct rs_inject_frame *fr, char *err)
{
    if (s->fd >= 0)
        return send_udp(s, fr, err);     /* counted when they go */
    if (s->live != NULL) {
        if (fr->encap == RS_INJECT_IB && s->link != DLT_INFINIBAND)
            return rs_error(err, RS_EINVAL, "a native InfiniBand packet needs an InfiniBand "
                            "interface");
        if (fr->encap != RS_INJECT_IB && s->link != DLT_EN10MB)
            return rs_error(err, RS_EINVAL, "the interface's link type (%s) is not Ethernet",
                            pcap_datalink_val_to_name(s->link));
        if (pcap_inject(s->live, fr->data, fr->len) < 0)
            return rs_error(err, RS_EIO, "sending: %s", pcap_geterr(s->live));
        s->sent++;
        return 0;
    }
    if ((fr->encap == RS_INJECT_IB) != s->erf)
        return rs_error(err, RS_EINVAL, "native InfiniBand packets go in a file of their own "
                        "(ERF type 21), not with Ethernet frames");
    struct timespec ts;
    struct rs_frame frame;
    clock_gettime(CLOCK_REALTIME, &ts);
    memset(&frame, 0, sizeof(frame));
    frame.data = fr->data;
    frame.caplen = frame.len = fr->len;
    if (s->erf) {
        frame.data = s->erf_buf;
        frame.caplen = frame.len = erf_wrap(s, fr, &ts);
    }
    frame.ts_sec = ts.tv_sec;
    frame.ts_nsec = (uint32_t)ts.tv_nsec;
    int rc = rs_writer_write(s->writer, &frame, err);
    if (rc == 0)
        s->sent++;
    return rc;
}

int
rs_inject_close(struct rs_inject_sender *s, uint64_t *sent, char *err)
{
    int rc = 0;

    if (s == NULL)
        return 0;
    if (s->fd >= 0) {
        rc = flush_udp(s, err);
        close(s->fd);
    }
    if (s->writer != NULL) {
        uint64_t written = 0;
        rc = rs_writer_close(s->writer, &written, err);
        s->sent = written;
    }
    if (s->live != NULL)
        pcap_close(s->live);
    if (sent != NULL)
        *sent = s->sent;
    free(s);
    return rc;
}
