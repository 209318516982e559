/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * send.c - where injected packets go: a pcap file (libpcap's dumper) or a
 * UDP socket on which the kernel adds the IP and UDP headers. UDP sends go
 * out BATCH at a time with sendmmsg(), one system call for many packets.
 */
#include <errno.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <roceshark/inject.h>

#define FRAME_MAX (RS_INJECT_MAX_PAYLOAD + 256)
#define BATCH 64

struct rs_inject_sender {
    pcap_t *dead;
    pcap_dumper_t *dump;
    int fd;                     /* the UDP socket, or -1 */
    uint8_t family;
    uint8_t src[16];
    uint16_t sport;
    uint64_t sent;
    uint8_t buf[FRAME_MAX];
    /* Datagrams waiting for sendmmsg(): their payloads and destinations. */
    unsigned queued;
    uint8_t qbuf[BATCH][FRAME_MAX];
    struct iovec iov[BATCH];
    struct sockaddr_storage qdst[BATCH];
    struct mmsghdr msg[BATCH];
};

static struct rs_inject_sender *
sender_new(void)
{
    struct rs_inject_sender *s = calloc(1, sizeof(*s));

    if (s != NULL)
        s->fd = -1;
    return s;
}

int
rs_inject_open_file(const char *path, struct rs_inject_sender **out, char *err)
{
    struct rs_inject_sender *s = sender_new();

    *out = NULL;
    if (s == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    s->dead = pcap_open_dead(DLT_EN10MB, FRAME_MAX);
    if (s->dead == NULL || (s->dump = pcap_dump_open(s->dead, path)) == NULL) {
        rs_error(err, RS_EIO, "%s: %s", path, s->dead ? pcap_geterr(s->dead) : "no memory");
        if (s->dead != NULL)
            pcap_close(s->dead);
        free(s);
        return RS_EIO;
    }
    *out = s;
    return 0;
}

/* The address and port of an IPv4 or IPv6 endpoint. */
static socklen_t
sockaddr_of(uint8_t family, const uint8_t *ip, uint16_t port, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof(*ss));
    if (family == 6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(port);
        memcpy(&a->sin6_addr, ip, 16);
        return sizeof(*a);
    }
    struct sockaddr_in *a = (struct sockaddr_in *)ss;
    a->sin_family = AF_INET;
    a->sin_port = htons(port);
    memcpy(&a->sin_addr, ip, 4);
    return sizeof(*a);
}

int
rs_inject_open_udp(const struct rs_inject_packet *first, struct rs_inject_sender **out,
                   char *err)
{
    struct rs_inject_sender *s = sender_new();
    struct sockaddr_storage ss;
    int pmtu = IP_PMTUDISC_DO, tos = first->route.tos;

    *out = NULL;
    if (s == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    s->family = first->route.family;
    memcpy(s->src, first->route.src, 16);
    s->sport = first->route.sport;
    socklen_t len = sockaddr_of(s->family, s->src, s->sport, &ss);
    s->fd = socket(s->family == 6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&ss, len) != 0) {
        int e = errno;
        if (s->fd >= 0)
            close(s->fd);
        free(s);
        return rs_error(err, RS_EIO, "binding the source address and UDP port %u: %s",
                        first->route.sport, strerror(e));
    }
    /* DF: Linux then writes IP identification 0 on an unconnected socket, which is
     * what the ICRC was computed over. */
    if (s->family == 4) {
        setsockopt(s->fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
        setsockopt(s->fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
    } else {
        setsockopt(s->fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos));
    }
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
send_udp(struct rs_inject_sender *s, const struct rs_inject_packet *p, char *err)
{

    if (p->route.family != s->family || memcmp(p->route.src, s->src, 16) != 0 ||
        p->route.sport != s->sport)
        return rs_error(err, RS_EINVAL, "over UDP every packet comes from the first one's "
                        "address and port");
    if (p->route.family == 4 && (p->route.ip_id != 0 || !p->route.df))
        return rs_error(err, RS_EINVAL, "over UDP the kernel writes ip.id 0 with DF: a packet "
                        "with another ip.id or without DF would carry a wrong ICRC");
    unsigned q = s->queued;
    uint32_t n = rs_inject_build(p, false, s->qbuf[q], FRAME_MAX);
    uint32_t ip = p->route.family == 6 ? RS_IPV6_HDR_LEN : RS_IPV4_HDR_LEN;
    if (n == 0)
        return rs_error(err, RS_EINVAL, "the packet does not fit in an IP packet");
    /* The kernel writes IP and UDP: the datagram is what follows them. */
    s->iov[q] = (struct iovec){s->qbuf[q] + ip + RS_UDP_HDR_LEN, n - ip - RS_UDP_HDR_LEN};
    memset(&s->msg[q], 0, sizeof(s->msg[q]));
    s->msg[q].msg_hdr.msg_iov = &s->iov[q];
    s->msg[q].msg_hdr.msg_iovlen = 1;
    s->msg[q].msg_hdr.msg_name = &s->qdst[q];
    s->msg[q].msg_hdr.msg_namelen =
        sockaddr_of(p->route.family, p->route.dst, p->route.dport, &s->qdst[q]);
    s->queued++;
    return s->queued == BATCH ? flush_udp(s, err) : 0;
}

int
rs_inject_flush(struct rs_inject_sender *s, char *err)
{
    return s->fd >= 0 ? flush_udp(s, err) : 0;
}

int
rs_inject_send(struct rs_inject_sender *s, const struct rs_inject_packet *p, char *err)
{
    struct pcap_pkthdr h;

    if (s->fd >= 0)
        return send_udp(s, p, err);     /* counted when they go */
    uint32_t n = rs_inject_build(p, true, s->buf, sizeof(s->buf));
    if (n == 0)
        return rs_error(err, RS_EINVAL, "the packet does not fit in an IP packet");
    gettimeofday(&h.ts, NULL);
    h.caplen = h.len = n;
    pcap_dump((u_char *)s->dump, &h, s->buf);
    s->sent++;
    return 0;
}

int
rs_inject_close(struct rs_inject_sender *s, uint64_t *sent, char *err)
{
    int rc = 0;

    if (s == NULL)
        return 0;
    if (s->fd >= 0)
        rc = flush_udp(s, err);
    if (sent != NULL)
        *sent = s->sent;
    if (s->dump != NULL) {
        if (pcap_dump_flush(s->dump) != 0 && rc == 0)
            rc = rs_error(err, RS_EIO, "writing the file: %s", strerror(errno));
        pcap_dump_close(s->dump);
    }
    if (s->dead != NULL)
        pcap_close(s->dead);
    if (s->fd >= 0)
        close(s->fd);
    free(s);
    return rc;
}
