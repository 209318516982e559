/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capture_loop.c - the capture engine: a live source into the writer, until
 * a stop condition (-c, -a), a break or an error. `roceshark capture` runs it
 * on its main thread; the TUI runs it on a thread of its own, which does
 * nothing else, and reads the file it writes as it grows (the growing
 * source of source_pcap.c), as Wireshark reads what dumpcap writes. So the
 * TUI loses no more than `capture` would: neither decoding nor the screen
 * ever holds up the thread that empties the kernel's ring.
 *
 * What a reader of the file needs is published at each flush, under a mutex
 * with a condition to wait on: the bytes of whole records the operating
 * system has taken, the frames in them, and the source's counts as of the
 * flush. The counts are read just before the flush, so that a drop is known
 * before any frame after it is: each increase of the kernel's and the
 * interface's drops becomes an event that says after how many frames it was
 * seen first (the frames written at the flush before), which the TUI uses to
 * tell a gap the capture lost from one the network did.
 *
 * With flush_ms the writer is flushed that often while frames come, so that
 * a reader sees them within it; `capture` leaves it 0 and flushes when its
 * buffer is full or the source is idle.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/nstime.h>
#include <roceshark/capture/pcapio.h>

/* How often a busy capture looks at the clock for -a duration and flush_ms. */
#define CLOCK_CHECK_EVERY 256
/* Drop events kept; past them the newest is widened to hold the next. */
#define MAX_DROP_EVENTS 4096

struct rs_capture {
    struct rs_source *src;
    struct rs_writer *w;
    struct rs_capture_opts opts;
    pthread_t thread;
    bool threaded;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct rs_capture_status st;    /* published (under mu) */
    struct rs_capture_drop *drops;  /* under mu */
    size_t n_drops;
    uint64_t lost_seen;             /* drops counted in the last event (the loop's) */
    uint64_t written_at_flush;      /* frames in the file at the last flush (the loop's) */
};

static uint64_t
now_ms(void)
{
    return rs_monotonic_ns() / 1000000u;
}

/* The source's counts, a drop event when they grew, and the file as the writer has it;
 * the caller flushed the writer just before. */
static void
publish(struct rs_capture *c, bool done, int rc, bool write_failed, const char *err)
{
    struct rs_source_stats stats;
    char stats_err[RS_ERRBUF_SIZE];

    memset(&stats, 0, sizeof(stats));
    bool have_stats = rs_source_stats(c->src, &stats, stats_err) == 0;
    uint64_t lost = stats.kernel_drops + stats.iface_drops + stats.ring_drops;
    pthread_mutex_lock(&c->mu);
    if (have_stats) {
        if (lost > c->lost_seen) {
            struct rs_capture_drop e = {c->written_at_flush, lost - c->lost_seen};
            if (c->n_drops == MAX_DROP_EVENTS)
                c->drops[c->n_drops - 1].count += e.count;
            else
                c->drops[c->n_drops++] = e;
            c->lost_seen = lost;
        }
        c->st.stats = stats;
    }
    c->st.stats.received = stats.received;
    c->st.written = rs_writer_frames_flushed(c->w);
    c->st.durable = rs_writer_durable(c->w);
    c->written_at_flush = c->st.written;
    if (done) {
        c->st.done = true;
        c->st.rc = rc;
        c->st.write_failed = write_failed;
        snprintf(c->st.err, sizeof(c->st.err), "%s", rc != 0 && err != NULL ? err : "");
    }
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

/* Flushes and publishes; false (with the error published) when the flush failed. */
static bool
flush(struct rs_capture *c, char *err)
{
    int rc = rs_writer_flush(c->w, err);

    publish(c, rc != 0, rc, rc != 0, err);
    return rc == 0;
}

static void
loop(struct rs_capture *c)
{
    char err[RS_ERRBUF_SIZE] = "";
    struct rs_frame frame;
    uint64_t start = now_ms(), last_flush = start, since_check = 0;
    const struct rs_capture_opts *o = &c->opts;
    int rc;

    publish(c, false, 0, false, NULL);
    for (;;) {
        rc = rs_source_next(c->src, &frame, err);
        if (rc == 0)
            break;
        if (rc < 0) {
            rs_writer_flush(c->w, NULL);
            publish(c, true, rc, false, err);
            return;
        }
        if (rc == RS_SOURCE_IDLE) {
            if (!flush(c, err))
                return;
            last_flush = now_ms();
            since_check = CLOCK_CHECK_EVERY;
        } else {
            if ((rc = rs_writer_write(c->w, &frame, err)) != 0) {
                publish(c, true, rc, true, err);
                return;
            }
            if ((o->count != 0 && rs_writer_frames(c->w) >= o->count) ||
                (o->stop_bytes != 0 && rs_writer_file_size(c->w) >= o->stop_bytes))
                break;
            since_check++;
        }
        if (since_check >= CLOCK_CHECK_EVERY) {
            since_check = 0;
            if (o->tick != NULL)
                o->tick(o->tick_ctx, rs_writer_frames(c->w));
            uint64_t now = now_ms();
            if (o->stop_seconds != 0 && now - start >= o->stop_seconds * 1000)
                break;
            if (o->flush_ms != 0 && now - last_flush >= o->flush_ms) {
                if (!flush(c, err))
                    return;
                last_flush = now;
            }
        }
    }
    rc = rs_writer_flush(c->w, err);
    publish(c, true, rc, rc != 0, err);
}

void
rs_capture_opts_init(struct rs_capture_opts *opts)
{
    memset(opts, 0, sizeof(*opts));
}

static int
capture_new(struct rs_source *src, struct rs_writer *w, const struct rs_capture_opts *opts,
            struct rs_capture **out, char *err)
{
    struct rs_capture *c = calloc(1, sizeof(*c));

    if (c == NULL || (c->drops = calloc(MAX_DROP_EVENTS, sizeof(*c->drops))) == NULL) {
        free(c);
        return rs_error(err, RS_ENOMEM, "out of memory");
    }
    c->src = src;
    c->w = w;
    c->opts = *opts;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    *out = c;
    return 0;
}

static void
capture_free(struct rs_capture *c)
{
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
    free(c->drops);
    free(c);
}

int
rs_capture_run(struct rs_source *src, struct rs_writer *w, const struct rs_capture_opts *opts,
               struct rs_capture_status *status)
{
    struct rs_capture *c = NULL;     /* set on success (gcc -O3 cannot tell) */
    char err[RS_ERRBUF_SIZE];

    memset(status, 0, sizeof(*status));
    if (capture_new(src, w, opts, &c, err) != 0) {
        status->done = true;
        status->rc = RS_ENOMEM;
        snprintf(status->err, sizeof(status->err), "%s", err);
        return status->rc;
    }
    loop(c);
    *status = c->st;
    capture_free(c);
    return status->rc;
}

static void *
capture_main(void *arg)
{
    struct rs_capture *c = arg;

    pthread_setname_np(pthread_self(), "rs-capture");      /* for top and perf */
    loop(c);
    return NULL;
}

int
rs_capture_start(struct rs_source *src, struct rs_writer *w, const struct rs_capture_opts *opts,
                 struct rs_capture **out, char *err)
{
    struct rs_capture *c = NULL;     /* set on success (gcc -O3 cannot tell) */
    int rc;

    if ((rc = capture_new(src, w, opts, &c, err)) != 0)
        return rc;
    if (pthread_create(&c->thread, NULL, capture_main, c) != 0) {
        capture_free(c);
        return rs_error(err, RS_ENOMEM, "cannot start the capture thread");
    }
    c->threaded = true;
    *out = c;
    return 0;
}

void
rs_capture_get_status(struct rs_capture *c, struct rs_capture_status *out)
{
    pthread_mutex_lock(&c->mu);
    *out = c->st;
    pthread_mutex_unlock(&c->mu);
}

bool
rs_capture_wait(struct rs_capture *c, uint64_t durable_seen, unsigned timeout_ms,
                struct rs_capture_status *out)
{
    struct timespec until = rs_deadline_after(CLOCK_REALTIME, timeout_ms * 1000000ull);

    pthread_mutex_lock(&c->mu);
    while (c->st.durable == durable_seen && !c->st.done &&
           pthread_cond_timedwait(&c->cv, &c->mu, &until) == 0)
        ;
    *out = c->st;
    bool changed = c->st.durable != durable_seen || c->st.done;
    pthread_mutex_unlock(&c->mu);
    return changed;
}

size_t
rs_capture_drops(struct rs_capture *c, size_t from, struct rs_capture_drop *out, size_t max)
{
    size_t n = 0;

    pthread_mutex_lock(&c->mu);
    for (size_t i = from; i < c->n_drops && n < max; i++)
        out[n++] = c->drops[i];
    pthread_mutex_unlock(&c->mu);
    return n;
}

void
rs_capture_stop(struct rs_capture *c, struct rs_capture_status *status)
{
    if (c == NULL)
        return;
    if (c->threaded) {
        rs_source_break(c->src);
        pthread_join(c->thread, NULL);
        c->threaded = false;
    }
    if (status != NULL)
        rs_capture_get_status(c, status);
}

void
rs_capture_free(struct rs_capture *c)
{
    if (c == NULL)
        return;
    rs_capture_stop(c, NULL);
    capture_free(c);
}
