/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_host.c - host-side helpers for programs over the RC stack: region
 * memory and waiting for packets or timers.
 */
#include <poll.h>
#include <sys/mman.h>
#include <time.h>

#include <roceshark/transport/rc.h>

static size_t
alloc_len(uint64_t size)
{
    size_t n = (size_t)((size + 4095) & ~4095ull);

    return n == 0 ? 4096 : n;
}

/* Anonymous mappings: zeroed, page-aligned, and only the pages touched
 * cost memory, so generous receive areas are cheap. */
void *
rs_rc_mem_alloc(uint64_t size)
{
    void *p = mmap(NULL, alloc_len(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);

    return p == MAP_FAILED ? NULL : p;
}

void
rs_rc_mem_free(void *p, uint64_t size)
{
    if (p != NULL)
        munmap(p, alloc_len(size));
}

int
rs_rc_wait(struct pollfd *pfd, unsigned n, const struct rs_rc_ctx *ctx,
           const struct rs_rc_udp *udp, bool busy)
{
    uint64_t now = rs_rc_now_ns(), d = rs_rc_next_deadline(ctx);

    if (udp != NULL && rs_rc_udp_next_due(udp) < d)
        d = rs_rc_udp_next_due(udp);
    uint64_t wait = busy || d <= now ? 0 : d - now;

    if (wait > 100000000)
        wait = 100000000;   /* so that a signal's flag is seen soon */
    struct timespec ts = {(time_t)(wait / 1000000000), (long)(wait % 1000000000)};
    return ppoll(pfd, n, &ts, NULL);
}
