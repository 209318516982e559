/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pipeline_threads.c - a pipeline on N threads (`read --threads N`, the TUI's ingest):
 * the frames in batches through five steps, on N threads that each take whichever step
 * is ready, but for the analyze step, which is the caller's thread's alone (pick()):
 *
 *     read (in order) -> decode (any batch) -> analyze (in order) -> format (any batch)
 *                                                       -> write (in order)
 *
 * The steps that carry state across frames (reading the source, the pipeline's streams,
 * iWARP and analysis stages with the filter, the caller's tally (read's statistics and
 * -w, the TUI's index), the output) run on one thread at a time and in capture order, so
 * what they produce cannot depend on the number of threads; decoding and formatting,
 * which read one frame alone, run on any thread. What a frame's formatting reads of the
 * stateful stages is in its slot once it is analyzed: its facts, its TCP/UDP stream view
 * (copied), whether it is the first frame shown, and the time since the frame shown
 * before it (the packet's delta_shown, which the analysis computes). An iWARP view points
 * into the reassembly buffers, which the next frame changes, and so does the view of a TCP
 * segment that completes an HTTP message or TLS record (its segments and bytes): such a
 * frame is formatted in the analyze step, into a buffer of the batch's own, and copied
 * into place later.
 *
 * Memory is bounded: at most 2 * N + 2 batches are in flight, each of at most
 * BATCH_FRAMES frames and BATCH_BYTES of their bytes (one larger frame takes a batch of
 * its own) and the text formatted from them.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/dissectors/streams.h>

#include <roceshark/dissectors/pipeline_threads.h>

/* 128 frames: a lock and a wake-up per batch and step cost nothing beside formatting
 * 128 frames, and a batch's text stays a few hundred kilobytes even with -V. */
#define BATCH_FRAMES 128
#define BATCH_BYTES (512u << 10)
#define BATCH_TEXT (64u << 10)          /* initial size of a batch's text; it grows */

enum batch_state {
    BATCH_FREE,         /* its next use is reading the batch of seq + n_batches */
    BATCH_READ,         /* frames copied in, not decoded */
    BATCH_DECODED,
    BATCH_ANALYZED,     /* the stateful stages ran; which frames are shown is known */
    BATCH_FORMATTED,    /* its text is ready to be written */
    BATCH_BUSY          /* a thread works on it */
};

struct slot {
    struct rs_frame frame;
    uint64_t cookie;                    /* the caller's, from ops->next */
    struct rs_pipeline_result result;
    struct rs_stream_view stream;       /* the streams stage's view, copied */
    bool shown;                         /* passed the filter (and came before a stop) */
    bool first;                         /* the first frame shown */
    bool early;                         /* formatted in the analyze step: early_len bytes */
    size_t early_len;                   /* of the batch's early text, in slot order */
};

struct batch {
    uint64_t seq;
    enum batch_state state;
    size_t n;
    bool idle;                          /* the source had nothing more for now */
    struct slot *slots;
    uint8_t *bytes;
    size_t bytes_cap, bytes_len;
    struct rs_out text;                 /* what the frames print, in order */
    struct rs_out early;                /* frames formatted in the analyze step */
};

struct engine {
    const struct rs_pipeline_threads_ops *ops;
    struct rs_pipeline *pipe;
    struct rs_out *out;
    bool print;                         /* format the frames shown (not -q) */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct batch *batches;
    size_t n_batches;
    uint64_t next_read, next_analyze, next_write;   /* the batch each ordered step takes */
    bool reading, analyzing, writing;
    bool input_done;                    /* the source ended, failed, or a stop came */
    atomic_bool stop;                   /* the tally or the output failed */
    struct rs_frame pending;            /* read but not in the last batch: no room */
    uint64_t pending_cookie;
    bool have_pending;
    /* The analyze step's own. */
    uint64_t shown;
    bool failed_alloc;
};

unsigned
rs_pipeline_threads_available(void)
{
    cpu_set_t set;
    long n = 0;

    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        n = CPU_COUNT(&set);
    if (n <= 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    return n <= 0 ? 1 : n > RS_PIPELINE_THREADS_MAX ? RS_PIPELINE_THREADS_MAX : (unsigned)n;
}

static struct batch *
batch_of(struct engine *e, uint64_t seq)
{
    return &e->batches[seq % e->n_batches];
}

/* Copies frames from the source until the batch is full, the source is idle or the
 * input ends (then false); a frame that does not fit waits as pending (its bytes stay
 * the source's until the next read, which only this step makes). */
static bool
step_read(struct engine *e, struct batch *b)
{
    b->n = 0;
    b->bytes_len = 0;
    b->idle = false;
    while (b->n < BATCH_FRAMES && !atomic_load(&e->stop)) {
        if (!e->have_pending) {
            int got = e->ops->next(e->ops->ctx, &e->pending, &e->pending_cookie);
            if (got == RS_PIPELINE_THREADS_IDLE) {
                b->idle = true;
                return true;
            }
            if (got != 1)
                return false;
            e->have_pending = true;
        }
        const struct rs_frame *f = &e->pending;
        if (b->bytes_len + f->caplen > b->bytes_cap) {
            if (b->n > 0)
                return true;
            uint8_t *bigger = realloc(b->bytes, f->caplen);
            if (bigger == NULL) {
                e->failed_alloc = true;
                return false;
            }
            b->bytes = bigger;
            b->bytes_cap = f->caplen;
        }
        struct slot *s = &b->slots[b->n++];
        s->frame = *f;
        s->cookie = e->pending_cookie;
        s->frame.data = b->bytes + b->bytes_len;
        if (f->caplen > 0)
            memcpy(b->bytes + b->bytes_len, f->data, f->caplen);
        b->bytes_len += f->caplen;
        e->have_pending = false;
    }
    return !atomic_load(&e->stop);
}

/* Decoding, and what the analysis can work out from each packet alone, which the
 * serial analyze step then finds done. */
static void
step_decode(struct engine *e, struct batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        rs_pipeline_decode(e->pipe, &b->slots[i].frame, &b->slots[i].result);
        rs_pipeline_prepare(e->pipe, &b->slots[i].result);
    }
}

static void
format_slot(struct engine *e, struct rs_out *o, struct slot *s)
{
    e->ops->format(e->ops->ctx, o, &s->result.pkt, s->first);
}

/* In capture order: the stateful stages, the statistics and -w, and what each frame
 * shown needs of them to be formatted on another thread. */
static void
step_analyze(struct engine *e, struct batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        struct slot *s = &b->slots[i];
        s->shown = s->early = false;
        if (atomic_load(&e->stop))
            continue;
        rs_pipeline_analyze(e->pipe, &s->result);
        if (e->ops->tally(e->ops->ctx, &s->frame, &s->result, s->cookie) != 0)
            atomic_store(&e->stop, true);
        if (!s->result.match)
            continue;
        s->shown = true;
        s->first = e->shown == 0;
        e->shown++;
        if (!e->print)
            continue;       /* nothing formats it: the views need not outlive the tally */
        if (s->result.pkt.stream != NULL) {
            s->stream = *s->result.pkt.stream;
            s->result.pkt.stream = &s->stream;
        }
        if (s->result.pkt.iwarp != NULL || s->stream.reasm != NULL) {
            size_t before = b->early.len;
            format_slot(e, &b->early, s);
            s->early = true;
            s->early_len = b->early.len - before;
            s->result.pkt.iwarp = NULL;     /* the stage's: gone at the next frame */
            s->stream.reasm = NULL;
        }
    }
    if (b->idle && e->ops->idle != NULL)
        e->ops->idle(e->ops->ctx);
}

static void
step_format(struct engine *e, struct batch *b)
{
    size_t early_at = 0;

    b->text.len = 0;
    for (size_t i = 0; i < b->n && e->print; i++) {
        struct slot *s = &b->slots[i];
        if (!s->shown)
            continue;
        if (s->early) {
            rs_out_write(&b->text, b->early.buf + early_at, s->early_len);
            early_at += s->early_len;
        } else {
            format_slot(e, &b->text, s);
        }
    }
    b->early.len = 0;
}

static void
step_write(struct engine *e, struct batch *b)
{
    if (e->out == NULL)
        return;
    if (b->text.len > 0) {
        rs_out_write_block(e->out, b->text.buf, b->text.len);
        rs_out_end_frame(e->out);
    }
    if (e->out->failed || b->text.failed)
        atomic_store(&e->stop, true);
}

/* What a thread does next, under the lock; NULL with *done when nothing is left.
 *
 * One thread, the analyst, runs every analyze step: the stateful stages' tables stay in
 * its core's caches (taken by whichever thread was free, they moved between the cores,
 * and on the mixed traffic of bench_read.py the step cost more than on one thread). It
 * takes the step first, since every frame waits on it, and helps with the rest in
 * between. The others keep it fed: the batches it will take next are decoded first, so
 * that it decodes none itself, then read ahead, then formatted. */
enum step { STEP_READ, STEP_DECODE, STEP_ANALYZE, STEP_FORMAT, STEP_WRITE };

static struct batch *
pick_analyze(struct engine *e)
{
    if (e->analyzing || e->next_analyze == e->next_read)
        return NULL;
    struct batch *b = batch_of(e, e->next_analyze);
    return b->state == BATCH_DECODED || b->state == BATCH_READ ? b : NULL;
}

static struct batch *
pick_write(struct engine *e)
{
    if (e->writing || e->next_write == e->next_analyze)
        return NULL;
    struct batch *b = batch_of(e, e->next_write);
    return b->state == BATCH_FORMATTED ? b : NULL;
}

static struct batch *
pick_read(struct engine *e)
{
    if (e->reading || e->input_done)
        return NULL;
    struct batch *b = batch_of(e, e->next_read);
    return b->state == BATCH_FREE ? b : NULL;
}

/* The oldest batch in [from, to) in state want. */
static struct batch *
pick_oldest(struct engine *e, uint64_t from, uint64_t to, enum batch_state want)
{
    for (uint64_t seq = from; seq < to; seq++)
        if (batch_of(e, seq)->state == want)
            return batch_of(e, seq);
    return NULL;
}

static struct batch *
pick(struct engine *e, bool analyst, enum step *step, bool *done)
{
    struct batch *b;

    *done = false;
    if (atomic_load(&e->stop))
        e->input_done = true;   /* the frames read go through; no more are read */
    if (analyst && (b = pick_analyze(e)) != NULL) {
        e->analyzing = true;
        *step = STEP_ANALYZE;
    } else if ((b = pick_write(e)) != NULL) {
        e->writing = true;
        *step = STEP_WRITE;
    } else if (!analyst &&
               (b = pick_oldest(e, e->next_analyze, e->next_read, BATCH_READ)) != NULL) {
        *step = STEP_DECODE;
    } else if ((b = pick_read(e)) != NULL) {
        e->reading = true;
        *step = STEP_READ;
    } else if ((b = pick_oldest(e, e->next_write, e->next_analyze, BATCH_ANALYZED)) != NULL) {
        *step = STEP_FORMAT;
    } else if ((b = pick_oldest(e, e->next_analyze + 1, e->next_read, BATCH_READ)) != NULL) {
        *step = STEP_DECODE;    /* the analyst's: not the batch it takes next */
    } else {
        *done = e->input_done && !e->reading && e->next_write == e->next_read;
    }
    return b;
}

static void
worker(struct engine *e, bool analyst)
{
    enum step step;
    bool done, more = true;

    pthread_mutex_lock(&e->lock);
    for (;;) {
        struct batch *b = pick(e, analyst, &step, &done);
        if (b == NULL) {
            if (done)
                break;
            pthread_cond_wait(&e->cond, &e->lock);
            continue;
        }
        enum batch_state was = b->state;
        b->state = BATCH_BUSY;
        pthread_mutex_unlock(&e->lock);
        switch (step) {
        case STEP_READ:
            more = step_read(e, b);
            break;
        case STEP_DECODE:
            step_decode(e, b);
            break;
        case STEP_ANALYZE:
            if (was == BATCH_READ)
                step_decode(e, b);
            step_analyze(e, b);
            break;
        case STEP_FORMAT:
            step_format(e, b);
            break;
        case STEP_WRITE:
            step_write(e, b);
            break;
        }
        pthread_mutex_lock(&e->lock);
        switch (step) {
        case STEP_READ:
            e->reading = false;
            e->input_done |= !more;
            if (b->n > 0 || b->idle) {     /* an idle batch takes the idle call along */
                b->seq = e->next_read++;
                b->state = BATCH_READ;
            } else {
                b->state = BATCH_FREE;
            }
            break;
        case STEP_DECODE:
            b->state = BATCH_DECODED;
            break;
        case STEP_ANALYZE:
            e->analyzing = false;
            e->next_analyze++;
            b->state = BATCH_ANALYZED;
            break;
        case STEP_FORMAT:
            b->state = BATCH_FORMATTED;
            break;
        case STEP_WRITE:
            e->writing = false;
            e->next_write++;
            b->state = BATCH_FREE;
            break;
        }
        pthread_cond_broadcast(&e->cond);
    }
    pthread_cond_broadcast(&e->cond);
    pthread_mutex_unlock(&e->lock);
}

/* A thread of our own: the printers' buffers of this thread go with it. */
static void *
worker_thread(void *arg)
{
    worker(arg, false);
    rs_print_thread_end();
    return NULL;
}

static void
batches_free(struct engine *e)
{
    for (size_t i = 0; i < e->n_batches && e->batches != NULL; i++) {
        struct batch *b = &e->batches[i];
        free(b->slots);
        free(b->bytes);
        rs_out_free(&b->text);
        rs_out_free(&b->early);
    }
    free(e->batches);
}

static int
batches_new(struct engine *e, unsigned threads)
{
    e->n_batches = 2 * (size_t)threads + 2;
    if ((e->batches = calloc(e->n_batches, sizeof(*e->batches))) == NULL)
        return RS_ENOMEM;
    for (size_t i = 0; i < e->n_batches; i++) {
        struct batch *b = &e->batches[i];
        b->slots = calloc(BATCH_FRAMES, sizeof(*b->slots));
        b->bytes = malloc(BATCH_BYTES);
        b->bytes_cap = BATCH_BYTES;
        int rc_text = e->print ? rs_out_init(&b->text, NULL, BATCH_TEXT) : 0;
        int rc_early = e->print ? rs_out_init(&b->early, NULL, BATCH_TEXT) : 0;
        if (b->slots == NULL || b->bytes == NULL || rc_text != 0 || rc_early != 0)
            return RS_ENOMEM;
        if (!e->print)
            continue;
        /* The printers read the output's settings. */
        b->text.style = b->early.style = e->out->style;
        b->text.time_col = b->early.time_col = e->out->time_col;
        b->text.tabs = b->early.tabs = e->out->tabs;
        b->text.data_hex = b->early.data_hex = e->out->data_hex;
    }
    return 0;
}

int
rs_pipeline_run_threads(struct rs_pipeline *pipe, unsigned threads,
                        const struct rs_pipeline_threads_ops *ops, struct rs_out *out,
                        unsigned long long *shown)
{
    struct engine e;
    pthread_t tid[RS_PIPELINE_THREADS_MAX];
    unsigned started = 0;
    int rc = 0;

    memset(&e, 0, sizeof(e));
    e.ops = ops;
    e.pipe = pipe;
    e.out = out;
    e.print = ops->format != NULL && out != NULL;
    atomic_init(&e.stop, false);
    pthread_mutex_init(&e.lock, NULL);
    pthread_cond_init(&e.cond, NULL);
    if (batches_new(&e, threads) != 0) {
        rc = RS_ENOMEM;
        goto done;
    }
    /* The calling thread is one of the N, and the analyst. */
    while (started + 1 < threads && pthread_create(&tid[started], NULL, worker_thread, &e) == 0)
        started++;
    worker(&e, true);
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    rc = e.failed_alloc ? RS_ENOMEM : 0;
done:
    *shown = e.shown;
    batches_free(&e);
    pthread_cond_destroy(&e.cond);
    pthread_mutex_destroy(&e.lock);
    return rc;
}
