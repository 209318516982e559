/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * udp_baseline.c - what plain UDP on this machine's loopback can do, as the
 * ceiling for any RoCEv2-over-UDP stack measured in the same run:
 *
 *   udp_baseline bw SECONDS    4096-byte datagrams, batched (sendmmsg and
 *                              recvmmsg), received bytes per second
 *   udp_baseline lat COUNT     2-byte ping-pong between two busy-polling
 *                              threads: the median half round trip
 *
 * Both print one JSON line. No RDMA semantics at all: no ICRC, no copy into
 * a region, no acknowledgements.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64
#define DGRAM 4096

static atomic_bool stop;
static atomic_ullong received;

static double
now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int
udp_bound(const char *ip, int port, struct sockaddr_in *sa)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0), big = 64 << 20;

    memset(sa, 0, sizeof(*sa));
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)port);
    inet_pton(AF_INET, ip, &sa->sin_addr);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
    if (fd < 0 || bind(fd, (struct sockaddr *)sa, sizeof(*sa)) < 0) {
        perror("udp_baseline: bind");
        exit(1);
    }
    return fd;
}

static void *
bw_receiver(void *arg)
{
    int fd = *(int *)arg;
    static char buf[BATCH][DGRAM];
    struct mmsghdr m[BATCH];
    struct iovec iov[BATCH];
    /* recvmmsg()'s own timeout is looked at only after a datagram arrives: waiting for
     * the first one, it blocked for good once the sender had stopped and the socket was
     * drained. The socket's receive timeout bounds that wait, so stop is seen. */
    struct timeval to = {0, 100000};

    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &to, sizeof(to));
    for (int i = 0; i < BATCH; i++) {
        iov[i] = (struct iovec){buf[i], DGRAM};
        memset(&m[i], 0, sizeof(m[i]));
        m[i].msg_hdr.msg_iov = &iov[i];
        m[i].msg_hdr.msg_iovlen = 1;
    }
    while (!atomic_load(&stop)) {
        int n = recvmmsg(fd, m, BATCH, MSG_WAITFORONE, NULL);
        for (int i = 0; i < n; i++)
            atomic_fetch_add(&received, m[i].msg_len);
    }
    return NULL;
}

static int
run_bw(double seconds)
{
    struct sockaddr_in ra, sa;
    int rfd = udp_bound("127.0.88.2", 40001, &ra);
    int sfd = udp_bound("127.0.88.1", 40001, &sa);
    static char buf[DGRAM];
    struct mmsghdr m[BATCH];
    struct iovec iov = {buf, DGRAM};
    pthread_t th;

    for (int i = 0; i < BATCH; i++) {
        memset(&m[i], 0, sizeof(m[i]));
        m[i].msg_hdr.msg_name = &ra;
        m[i].msg_hdr.msg_namelen = sizeof(ra);
        m[i].msg_hdr.msg_iov = &iov;
        m[i].msg_hdr.msg_iovlen = 1;
    }
    pthread_create(&th, NULL, bw_receiver, &rfd);
    double t0 = now();
    unsigned long long start = atomic_load(&received);
    while (now() - t0 < seconds)
        sendmmsg(sfd, m, BATCH, 0);
    double el = now() - t0;
    unsigned long long got = atomic_load(&received) - start;
    atomic_store(&stop, true);
    pthread_join(th, NULL);
    printf("{\"udp_bytes_per_second\": %.0f, \"datagram\": %d}\n", (double)got / el, DGRAM);
    return 0;
}

struct pong {
    int fd;
    struct sockaddr_in peer;
};

static void *
lat_echo(void *arg)
{
    struct pong *p = arg;
    char b[16];

    while (!atomic_load(&stop)) {
        ssize_t n = recv(p->fd, b, sizeof(b), MSG_DONTWAIT);
        if (n > 0)
            sendto(p->fd, b, (size_t)n, 0, (struct sockaddr *)&p->peer, sizeof(p->peer));
    }
    return NULL;
}

static int
cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static int
run_lat(int count)
{
    struct pong echo;
    struct sockaddr_in me;
    int fd = udp_bound("127.0.88.3", 40002, &me);
    echo.fd = udp_bound("127.0.88.4", 40002, &echo.peer);
    echo.peer = me;
    struct sockaddr_in to;
    memset(&to, 0, sizeof(to));
    to.sin_family = AF_INET;
    to.sin_port = htons(40002);
    inet_pton(AF_INET, "127.0.88.4", &to.sin_addr);
    double *lat = malloc(sizeof(double) * (size_t)count);
    pthread_t th;
    char b[2] = {1, 2};

    pthread_create(&th, NULL, lat_echo, &echo);
    for (int i = 0; i < count + 100; i++) {
        double t0 = now();
        sendto(fd, b, 2, 0, (struct sockaddr *)&to, sizeof(to));
        while (recv(fd, b, sizeof(b), MSG_DONTWAIT) < 0)
            ;
        if (i >= 100)
            lat[i - 100] = (now() - t0) / 2 * 1e6;
    }
    atomic_store(&stop, true);
    pthread_join(th, NULL);
    qsort(lat, (size_t)count, sizeof(double), cmp);
    printf("{\"udp_half_rtt_p50_us\": %.3f, \"udp_half_rtt_min_us\": %.3f}\n", lat[count / 2],
           lat[0]);
    free(lat);
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "bw") == 0)
        return run_bw(atof(argv[2]));
    if (argc == 3 && strcmp(argv[1], "lat") == 0)
        return run_lat(atoi(argv[2]) > 0 ? atoi(argv[2]) : 10000);
    fprintf(stderr, "usage: udp_baseline bw SECONDS | lat COUNT\n");
    return 1;
}
