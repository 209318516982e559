/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * veth_blast.c - sends RoCEv2 frames out of an interface as fast as a packet
 * socket goes (sendmmsg batches, qdisc bypassed), for bench_capture.py.
 *
 * usage: veth_blast IFACE FRAMES [FRAME_LEN]
 * Prints "sent N frames in S s: R frames/s". Each frame carries its sequence
 * number as the BTH PSN, so a capture's losses can be located.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <roceshark/dissectors/wire.h>

#define BATCH 256
#define MAX_LEN 1500

static size_t
build_frame(uint8_t *f, size_t len)
{
    static const uint8_t macs[12] = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1};
    size_t ip_len = len - 14;

    memset(f, 0, len);
    memcpy(f, macs, 12);
    rs_store_be16(f + 12, 0x0800);
    f[14] = 0x45;
    rs_store_be16(f + 16, (uint16_t)ip_len);
    f[20] = 0x40;           /* DF */
    f[22] = 64;
    f[23] = 17;
    memcpy(f + 26, "\x0a\x09\x00\x01\x0a\x09\x00\x02", 8);
    rs_store_be16(f + 34, 49152);
    rs_store_be16(f + 36, 4791);
    rs_store_be16(f + 38, (uint16_t)(ip_len - 20));
    f[42] = 0x04;           /* BTH: RC Send Only */
    rs_store_be16(f + 44, 0xffff);
    rs_store_be24(f + 47, 0x11);
    return len;
}

int
main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: veth_blast IFACE FRAMES [FRAME_LEN]\n");
        return 1;
    }
    unsigned long long frames = strtoull(argv[2], NULL, 10);
    size_t len = argc > 3 ? strtoul(argv[3], NULL, 10) : 128;
    if (len < 64 || len > MAX_LEN) {
        fprintf(stderr, "veth_blast: FRAME_LEN must be 64-%d\n", MAX_LEN);
        return 1;
    }
    int fd = socket(AF_PACKET, SOCK_RAW, 0);
    if (fd < 0) {
        perror("veth_blast: socket");
        return 1;
    }
    int one = 1;
    setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
    struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_ifindex = (int)if_nametoindex(argv[1])};
    if (sll.sll_ifindex == 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) != 0) {
        perror("veth_blast: bind");
        return 1;
    }
    static uint8_t bufs[BATCH][MAX_LEN];
    struct iovec iov[BATCH];
    struct mmsghdr msgs[BATCH];
    for (int i = 0; i < BATCH; i++) {
        build_frame(bufs[i], len);
        iov[i] = (struct iovec){bufs[i], len};
        memset(&msgs[i], 0, sizeof(msgs[i]));
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long long sent = 0;
    while (sent < frames) {
        unsigned n = frames - sent < BATCH ? (unsigned)(frames - sent) : BATCH;
        for (unsigned i = 0; i < n; i++)
            rs_store_be24(bufs[i] + 51, (uint32_t)(sent + i) & 0xffffff);
        int r = sendmmsg(fd, msgs, n, 0);
        if (r < 0) {
            if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR)
                continue;
            perror("veth_blast: sendmmsg");
            return 1;
        }
        sent += (unsigned)r;    /* a short send: the rest go again, renumbered */
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("sent %llu frames in %.3f s: %.0f frames/s\n", sent, s, (double)sent / s);
    return 0;
}
