/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ingest.c - the thread that reads the capture and feeds the pipeline,
 * filling the frame index, the list of frames the filter passes, the
 * expert items and the rates, while the screen draws what is there so far.
 *
 * A new display filter starts a new pass over the whole file: the
 * analysis facts a filter can test depend on every frame before, in
 * capture order, which is also how Wireshark refilters.
 *
 * From two CPUs on the frames go through read's stages (pipeline_threads.c):
 * decoded over batches on every thread, this one among them, and analyzed
 * and handed to the sink in capture order, one thread at a time. The
 * pipeline's sink does only what needs the decoded packet: it makes each
 * frame's index entry and notes its expert items, in a record of one cache
 * line, and a thread of its own (the indexer) puts the records into the
 * index and the views: on two cores a million-frame load went from 0.111 to
 * 0.093 s. When a live capture's file has nothing more for now, the views
 * get every frame so far, so that each shows as soon as it is in.
 *
 * A live capture is read the same way: capture's engine writes the file
 * on a thread of its own (model.c) and flushes it every LIVE_FLUSH_MS, and
 * this thread reads it as it grows (rs_source_open_capture), so that it is
 * indexed as a file is. The engine never waits for this thread: when
 * decoding falls behind, the file holds what is not indexed yet. A new
 * filter stops this thread alone and reads the file again from its start.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <roceshark/dissectors/expert.h>
#include <roceshark/capture/pcapio.h>
#include <roceshark/dissectors/ring.h>

#include "model_int.h"

static uint8_t
frame_kind(const struct rs_packet *pkt, const struct rs_facts *f)
{
    uint8_t kind = 0;

    if (f->flags & (RS_FACT_NAK | RS_FACT_RNR))
        kind |= RS_TUI_KIND_NAK;
    if (f->flags & (RS_FACT_RETRANSMISSION | RS_FACT_PSN_GAP))
        kind |= RS_TUI_KIND_RETX;
    if ((f->flags & RS_FACT_ECN_CE) || rs_packet_has(pkt, RS_LAYER_CNP))
        kind |= RS_TUI_KIND_CONGESTION;
    if ((f->flags & (RS_FACT_VIOLATION | RS_FACT_OPCODE_SEQ)) ||
        pkt->icrc_status == RS_CKSUM_BAD || (pkt->flags & RS_PKT_MALFORMED))
        kind |= RS_TUI_KIND_ERROR;
    return kind;
}

static void
index_entry(const struct rs_frame *frame, int64_t offset, const struct rs_pipeline_result *r,
            struct rs_tui_frame *e)
{
    memset(e, 0, sizeof(*e));
    e->offset = (uint64_t)offset;
    e->ts_sec = frame->ts_sec;
    e->ts_nsec = frame->ts_nsec;
    e->caplen = frame->caplen;
    e->len = frame->len;
    e->wire_len = rs_packet_wire_len(&r->pkt);
    e->linktype = (uint16_t)frame->linktype;
    e->ts_digits = frame->ts_digits;
    e->interface = frame->interface;
    e->section = frame->section;
    /* A row read back checks the CRCs again only where one was bad (frame_read.c). */
    if (r->pkt.icrc_status == RS_CKSUM_BAD || r->pkt.vcrc_status == RS_CKSUM_BAD)
        e->kind = RS_TUI_KIND_BAD_CRC;
    if (r->pkt.facts == NULL)
        return;
    e->conv = (r->facts.flags & RS_FACT_CONV) ? r->facts.conv : 0;
    e->kind |= frame_kind(&r->pkt, &r->facts);
}

void *
model_grow_array(void *arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return arr;
    size_t cap2 = *cap == 0 ? 1024 : *cap * 2;
    if (cap2 < need)
        cap2 = need;
    void *p = realloc(arr, cap2 * elem);
    if (p != NULL)
        *cap = cap2;
    return p;
}

/* What the indexer (or the sink, indexing in place) gathers between two
 * visits to the model's lock: taking it for every frame cost a fifth of the
 * thread's time. The index itself is appended at once (readers need no
 * lock for it); the rest is published every BATCH_FRAMES frames, at the
 * end of the pass, and after every frame of a live capture. */
#define BATCH_FRAMES 256
#define BATCH_ANOMALIES 1024

/* A frame as the sink hands it to the views: its index entry, its expert
 * items (a bit per index into rs_experts[]) and whether the filter passed it. */
struct index_rec {
    struct rs_tui_frame e;
    uint32_t experts;
    uint16_t psn_gap;       /* PSNs the gap it opens skips (at most 65535) */
    bool match;
};
_Static_assert(sizeof(struct index_rec) <= 64, "a record is one cache line");
_Static_assert(RS_EXPERT_MAX_KINDS <= 32, "a bit per expert kind");

/* The ring between the sink and the indexer: 32768 records, 2 MiB. The
 * indexer works in bursts (it wakes when half the ring waits, and stops
 * while the index's next 2 MiB are mapped); with 2048 records the ring
 * filled in its pauses and the sink waited, so that the two threads were
 * slower than one. */
#define INDEX_RING_SLOTS 32768

struct batch {
    struct rs_tui_model *m;
    struct rs_ring *ring;   /* to the indexer thread; NULL: the sink indexes in place */
    pthread_t indexer;
    struct index_rec local; /* the record, indexing in place */
    size_t n_frames;
    struct batch_shown { uint64_t number; uint32_t conv; } shown[BATCH_FRAMES];
    size_t n_shown;
    struct rs_tui_anomaly anomalies[BATCH_ANOMALIES];
    size_t n_anomalies;
    bool have_first;
    struct rs_time first, newest;
    bool have_newest;
    uint64_t last_number, file_done;
    uint32_t last_conv;
    atomic_bool failed;     /* out of memory or a full index (the feeding thread looks while
                               the sink runs) */
    bool index_full;        /* the index holds its most frames */
    uint64_t failed_at;     /* the frame it happened at */
    /* A live capture's drops, as its engine saw them (rs_capture_drops), each with what
     * is left of its count to explain gaps and violations with. */
    int gap_kind, violation_kind;   /* rs_experts[] of a PSN gap and a violation */
    struct rs_capture_drop *drops;
    uint64_t *drop_left;
    size_t n_drops, cap_drops, first_left;
    struct frame_state_buf state;   /* the sink's: the frame's state record */
    /* The state file refused a record (why in state_err): the sink takes no more frames,
     * and the indexer still indexes those it had. */
    atomic_bool state_failed;
    char state_err[RS_ERRBUF_SIZE];
    /* On read's stages: why the source ended, when it failed. */
    int next_rc;
    char next_err[RS_ERRBUF_SIZE];
};

/* Sets conv's bit in the set of conversations with a frame shown. */
static bool
mark_conv_shown(struct rs_tui_model *m, uint32_t conv)
{
    size_t byte = conv / 8;

    if (byte >= m->conv_shown_bytes) {
        size_t bytes = byte * 2 + 64;
        uint8_t *p = realloc(m->conv_shown, bytes);
        if (p == NULL)
            return false;
        memset(p + m->conv_shown_bytes, 0, bytes - m->conv_shown_bytes);
        m->conv_shown = p;
        m->conv_shown_bytes = bytes;
    }
    m->conv_shown[byte] |= (uint8_t)(1u << (conv % 8));
    return true;
}

/* Hands the batch to the views, under the model's lock, and empties it. */
static void
publish(struct batch *b)
{
    struct rs_tui_model *m = b->m;

    if (b->n_frames == 0 && b->n_anomalies == 0)
        return;
    pthread_mutex_lock(&m->mu);
    uint64_t *shown = m->all_shown ? m->shown :
        model_grow_array(m->shown, &m->cap_shown, m->n_shown + b->n_shown, sizeof(*shown));
    struct rs_tui_anomaly *an = model_grow_array(m->anomalies, &m->cap_anomalies,
                                                 m->n_anomalies + b->n_anomalies, sizeof(*an));
    if (shown != NULL)
        m->shown = shown;
    if (an != NULL)
        m->anomalies = an;
    if ((shown == NULL && b->n_shown > 0) || (an == NULL && b->n_anomalies > 0)) {
        b->failed = true;
    } else {
        for (size_t i = 0; i < b->n_shown; i++) {
            m->shown[m->n_shown++] = b->shown[i].number;
            if (b->shown[i].conv != 0 && !mark_conv_shown(m, b->shown[i].conv))
                b->failed = true;
        }
        if (b->n_anomalies > 0)
            memcpy(m->anomalies + m->n_anomalies, b->anomalies,
                   b->n_anomalies * sizeof(*b->anomalies));
        m->n_anomalies += b->n_anomalies;
        if (m->all_shown)
            m->n_shown += b->n_frames;
    }
    if (b->have_first)
        m->first = b->first;
    if (b->have_newest && (b->have_first || rs_time_cmp(b->newest, m->newest) > 0))
        m->newest = b->newest;
    if (b->n_frames > 0)
        rs_tui_rates_advance(m->rates, m->index, b->last_number, m->newest);
    if (b->n_frames > 0) {
        m->progress.frames = b->last_number;
        m->progress.file_done = b->file_done;
    }
    m->progress.shown = m->n_shown;
    pthread_mutex_unlock(&m->mu);
    b->n_frames = b->n_shown = b->n_anomalies = 0;
    b->have_first = b->have_newest = false;
}

/* The expert kinds a lost frame makes up: a PSN gap, and a violation (an ACK of a PSN
 * never seen, say); indexes into rs_experts[], or -1. */
static int
expert_kind(const char *field)
{
    for (int i = 0; rs_experts[i].field != NULL; i++)
        if (strcmp(rs_experts[i].field, field) == 0)
            return i;
    return -1;
}

/* The engine's drop events not yet seen, each with its count to explain with. */
static void
fetch_drops(struct batch *b)
{
    struct rs_capture_drop got[64];
    size_t n;

    while ((n = rs_capture_drops(b->m->capture, b->n_drops, got, RS_ARRAY_SIZE(got))) > 0) {
        struct rs_capture_drop *d = model_grow_array(b->drops, &b->cap_drops, b->n_drops + n,
                                                     sizeof(*d));
        size_t cap = b->cap_drops;
        uint64_t *left = d == NULL ? NULL : realloc(b->drop_left, cap * sizeof(*left));
        if (d != NULL)
            b->drops = d;
        if (left == NULL)
            return;     /* out of memory: the gaps stay unexplained */
        b->drop_left = left;
        for (size_t i = 0; i < n; i++) {
            b->drops[b->n_drops] = got[i];
            b->drop_left[b->n_drops++] = got[i].count;
        }
    }
}

/* Whether a live capture's own loss explains this gap (of psns PSNs) or violation on
 * frame number: a drop seen after fewer frames than number, with some of its count
 * left, which the gap then uses up. The engine records a drop before it hands the
 * frames after it to the file, so every drop before this frame is known here. */
static bool
capture_loss(struct batch *b, uint64_t number, uint64_t psns)
{
    if (b->m->capture == NULL)
        return false;
    fetch_drops(b);
    for (size_t i = b->first_left; i < b->n_drops && b->drops[i].after_frames < number; i++) {
        if (b->drop_left[i] == 0)
            continue;
        for (size_t k = i; k < b->n_drops && b->drops[k].after_frames < number && psns > 0;
             k++) {
            uint64_t take = psns < b->drop_left[k] ? psns : b->drop_left[k];
            b->drop_left[k] -= take;
            psns -= take;
        }
        while (b->first_left < b->n_drops && b->drop_left[b->first_left] == 0)
            b->first_left++;
        return true;
    }
    return false;
}

static void
add_anomaly(struct batch *b, uint8_t expert, uint16_t psn_gap)
{
    if (b->n_anomalies == BATCH_ANOMALIES)
        publish(b);
    bool gap = expert == b->gap_kind;
    bool lost = (gap || expert == b->violation_kind) &&
                capture_loss(b, b->last_number, gap && psn_gap > 0 ? psn_gap : 1);
    b->anomalies[b->n_anomalies++] =
        (struct rs_tui_anomaly){b->last_number, b->last_conv, expert, lost};
}

/* One record into the index and the batch, which is published when full;
 * false when out of memory. */
static bool
add_record(struct batch *b, const struct index_rec *rec)
{
    const struct rs_tui_frame *e = &rec->e;
    struct rs_time t = {e->ts_sec, (int32_t)e->ts_nsec};

    int rc = rs_tui_index_append(b->m->index, e);
    if (rc != 0) {
        b->index_full = rc == RS_ENOSPC;
        b->failed = true;
        b->failed_at = b->last_number + 1;
        return false;
    }
    /* The index holds every frame of the pass in order: its count is the number. */
    uint64_t number = rs_tui_index_count(b->m->index);
    /* Without a filter the list is implicit (model_int.h): nothing to keep. */
    if (rec->match && !b->m->all_shown)
        b->shown[b->n_shown++] = (struct batch_shown){number, e->conv};
    if (number == 1) {
        b->first = b->newest = t;
        b->have_first = b->have_newest = true;
    } else if (!b->have_newest || rs_time_cmp(t, b->newest) > 0) {
        b->newest = t;
        b->have_newest = true;
    }
    b->n_frames++;
    b->last_number = number;
    b->last_conv = e->conv;
    b->file_done = e->offset + e->caplen;
    for (uint32_t x = rec->experts; x != 0; x &= x - 1)
        add_anomaly(b, (uint8_t)__builtin_ctz(x), rec->psn_gap);
    if (b->n_frames == BATCH_FRAMES)
        publish(b);
    if (b->failed && b->failed_at == 0)
        b->failed_at = number;
    return !b->failed;
}

static void
finish_pass(struct rs_tui_model *m, int rc, const char *err)
{
    uint64_t now = rs_monotonic_ns();
    pthread_mutex_lock(&m->mu);
    m->progress.done = true;
    m->progress.elapsed_ns = now - m->pass_start_ns;
    if (rc < 0) {
        m->progress.failed = true;
        snprintf(m->progress.error, sizeof(m->progress.error), "%s", err);
    } else {
        m->progress.file_done = m->progress.file_size;
    }
    pthread_cond_broadcast(&m->pass_done);
    pthread_mutex_unlock(&m->mu);
}

/* The record the sink fills next: a ring slot, or the batch's own. */
static struct index_rec *
record_begin(struct batch *b)
{
    /* A ring without a byte area never fails to give a slot. */
    return b->ring != NULL ? rs_ring_claim(b->ring, 0, NULL) : &b->local;
}

static void
record_end(struct batch *b, struct index_rec *rec)
{
    if (b->ring != NULL)
        rs_ring_push(b->ring);
    else
        add_record(b, rec);
}

static void
record_expert(void *ctx, const struct rs_expert *e)
{
    *(uint32_t *)ctx |= 1u << (e - rs_experts);
}

/* The pipeline's sink: one frame's record, to the indexer or into the views
 * at once. It runs in the analyze step of read's stages (on the feeding
 * thread with one), without the pipeline's lock. */
static void
index_frame(void *ctx, const struct rs_frame *frame, const struct rs_pipeline_result *r,
            uint64_t offset)
{
    struct batch *b = ((struct rs_tui_model *)ctx)->batch;

    if (b->failed || b->state_failed)
        return;
    /* What the stateful stages gave the frame, to the state file while their views are
     * valid (until the next frame). */
    uint64_t state_off = 0;
    if (!frame_state_encode(&b->state, frame, &r->pkt)) {
        snprintf(b->state_err, sizeof(b->state_err), "out of memory for a frame's state");
        b->state_failed = true;
        return;
    }
    if (b->state.len > 0 &&
        store_append(b->m->store, b->state.p, b->state.len, &state_off, b->state_err) != 0) {
        b->state_failed = true;
        return;
    }
    struct index_rec *rec = record_begin(b);
    index_entry(frame, (int64_t)offset, r, &rec->e);
    rec->e.state_off = state_off;
    rec->e.state_len = (uint32_t)b->state.len;
    rec->match = r->match;
    rec->psn_gap = r->pkt.facts != NULL && r->facts.psn_gap > UINT16_MAX ? UINT16_MAX
                   : r->pkt.facts != NULL ? (uint16_t)r->facts.psn_gap : 0;
    rec->experts = 0;
    rs_expert_foreach(&r->pkt, record_expert, &rec->experts);
    record_end(b, rec);
}

/* The indexer thread: the records the ring holds into the index and the
 * views, published before they are released, so that a drained ring means
 * the views have every frame. */
static void *
indexer_main(void *arg)
{
    struct batch *b = arg;
    size_t n;

    pthread_setname_np(pthread_self(), "rs-index");        /* for top and perf */
    while ((n = rs_ring_wait(b->ring)) > 0) {
        for (size_t i = 0; i < n; i++)
            if (!b->failed)
                add_record(b, rs_ring_slot(b->ring, i));
        publish(b);
        rs_ring_release(b->ring, n);
    }
    return NULL;
}

/* Indexes on a thread of its own from now on; in place when no thread or
 * memory is to be had. */
static void
indexer_start(struct batch *b)
{
    if ((b->ring = rs_ring_new(INDEX_RING_SLOTS, sizeof(struct index_rec), 0)) == NULL)
        return;
    if (pthread_create(&b->indexer, NULL, indexer_main, b) != 0) {
        rs_ring_free(b->ring);
        b->ring = NULL;
    }
}

/* After the sink's last record: the indexer takes what is left, and the
 * sink indexes in place again. */
static void
indexer_stop(struct batch *b)
{
    if (b->ring == NULL)
        return;
    rs_ring_close(b->ring);
    pthread_join(b->indexer, NULL);
    rs_ring_free(b->ring);
    b->ring = NULL;
}

/* Every frame the sink has had to the views. */
static void
show_all(struct batch *b)
{
    if (b->ring != NULL)
        rs_ring_wait_empty(b->ring);    /* the indexer publishes before it releases */
    else
        publish(b);
}

/* After the sink has had every frame: the rest of the batch to the views,
 * and an error if memory ran out. */
static int
drain(struct batch *b, char *err)
{
    show_all(b);
    if (b->state_failed)
        return rs_error(err, RS_EIO, "%s", b->state_err);
    if (b->failed && b->index_full)
        return rs_error(err, RS_ENOSPC, "%s: the frame index holds at most %llu frames: "
                        "the frames after them are not shown", b->m->path,
                        (unsigned long long)rs_tui_index_count(b->m->index));
    if (b->failed)
        return rs_error(err, RS_ENOMEM, "%s: out of memory after %llu frames", b->m->path,
                        (unsigned long long)b->failed_at);
    return 0;
}

/* The next frame of the file and its offset, for read's stages (one call at a time). */
static int
stages_next(void *ctx, struct rs_frame *frame, uint64_t *cookie)
{
    struct batch *b = ctx;
    struct rs_tui_model *m = b->m;

    if (atomic_load(&m->stop) || b->failed || b->state_failed)
        return 0;
    int rc = rs_source_next(m->src, frame, b->next_err);
    if (rc == RS_SOURCE_IDLE)
        return RS_PIPELINE_THREADS_IDLE;
    if (rc < 1) {
        b->next_rc = rc;
        return 0;
    }
    int64_t offset = rs_source_offset(m->src);
    if (offset < 0) {
        b->next_rc = rs_error(b->next_err, RS_EFORMAT, "%s: frames cannot be read back from "
                              "this kind of file (pcap and pcapng can)", m->path);
        return 0;
    }
    *cookie = (uint64_t)offset;
    return 1;
}

/* Each frame analyzed, in capture order: the sink's. Non-zero stops the reading. */
static int
stages_tally(void *ctx, const struct rs_frame *frame, const struct rs_pipeline_result *r,
             uint64_t offset)
{
    struct batch *b = ctx;

    index_frame(b->m, frame, r, offset);
    return b->failed || b->state_failed;
}

/* A live capture's file has nothing more for now: show what came. */
static void
stages_idle(void *ctx)
{
    show_all(ctx);
}

/* Reads the file from its start on read's stages (m->threads of them); 0 at its end
 * (or when stopped). */
static int
read_file_stages(struct batch *b, char *err)
{
    struct rs_pipeline_threads_ops ops = {.ctx = b, .next = stages_next,
                                          .tally = stages_tally, .idle = stages_idle};
    unsigned long long shown;

    int rc = rs_pipeline_run_threads(b->m->pipe, b->m->threads, &ops, NULL, &shown);
    if (rc != 0)
        rc = rs_error(err, rc, "out of memory for the ingest's batches");
    else if (b->next_rc < 0)
        rc = rs_error(err, b->next_rc, "%s", b->next_err);
    int drained = drain(b, rc < 0 ? NULL : err);
    indexer_stop(b);
    return rc < 0 ? rc : drained;
}

/* Reads the file from its start; 0 at its end (or when stopped). */
static int
read_file(struct batch *b, char *err)
{
    struct rs_tui_model *m = b->m;
    struct rs_frame frame;
    int rc = 0;

    indexer_start(b);
    if (m->threads > 1)
        return read_file_stages(b, err);
    while (!atomic_load(&m->stop) && !b->failed && !b->state_failed &&
           (rc = rs_source_next(m->src, &frame, err)) >= 1) {
        if (rc == RS_SOURCE_IDLE) {
            /* A live capture's file has nothing more for now: show what came. */
            if ((rc = drain(b, err)) != 0)
                break;
            continue;
        }
        int64_t offset = rs_source_offset(m->src);
        if (offset < 0) {
            rc = rs_error(err, RS_EFORMAT, "%s: frames cannot be read back from this kind "
                          "of file (pcap and pcapng can)", m->path);
            break;
        }
        rs_pipeline_feed(m->pipe, &frame, (uint64_t)offset);
    }
    int drained = drain(b, rc < 0 ? NULL : err);
    indexer_stop(b);
    return rc < 0 ? rc : drained;
}

/* Beside a live capture, this thread and the indexer it starts yield the processor
 * to the capture's threads (nice 10 more than theirs; Linux's nice is per thread): on a
 * busy machine the decoding falls behind, the file holds what it has not read yet, and
 * the kernel's ring is still emptied in time. */
#define LIVE_INGEST_NICE 10

static void *
ingest_main(void *arg)
{
    struct rs_tui_model *m = arg;
    char err[RS_ERRBUF_SIZE] = "";
    int rc = 0;
    struct batch *b = calloc(1, sizeof(*b));

    pthread_setname_np(pthread_self(), "rs-ingest");       /* for top and perf */
    if (m->capture != NULL) {
        id_t self = (id_t)gettid();
        errno = 0;
        int nice = getpriority(PRIO_PROCESS, self);
        if (errno == 0)     /* best effort: a thread may always lower its own priority */
            (void)setpriority(PRIO_PROCESS, self, nice + LIVE_INGEST_NICE);
    }
    if (b == NULL) {
        finish_pass(m, RS_ENOMEM, "out of memory for the ingest thread");
        return NULL;
    }
    b->m = m;
    atomic_init(&b->failed, false);
    b->gap_kind = expert_kind("roceshark.analysis.psn_gap");
    b->violation_kind = expert_kind("roceshark.analysis.violation");
    atomic_init(&b->state_failed, false);
    m->batch = b;
    /* A live capture's file is read as it grows, as a file is read. */
    rc = read_file(b, err);
    m->batch = NULL;
    frame_state_buf_free(&b->state);
    free(b->drops);
    free(b->drop_left);
    free(b);
    finish_pass(m, rc, err);
    return NULL;
}

int
model_new_pipeline(struct rs_tui_model *m, const char *filter, struct rs_pipeline **out,
                   char *err)
{
    struct rs_pipeline_opts opts;

    rs_pipeline_opts_init(&opts);
    opts.decode = m->decode;
    opts.filter = filter;
    opts.shared = true;
    /* tcp.stream, udp.stream, TCP's relative Seq and Ack and scaled Win, the echo an
     * ICMP reply answers: what the packet list and the tree show as `read -V` does. */
    opts.streams = true;
    opts.sink = index_frame;
    opts.sink_ctx = m;
    return rs_pipeline_new(&opts, out, err);
}

int
model_start_pass(struct rs_tui_model *m, struct rs_pipeline *pipe, char *err)
{
    struct rs_source *src = NULL;
    struct stat st;
    int rc;

    /* Opened here, so that its errors come back at once: the file, or the file a live
     * capture is writing, followed as it grows. */
    if ((rc = m->capture != NULL ? rs_source_open_capture(m->capture, m->path, &src, err)
                                 : rs_source_open_file(m->path, &src, err)) != 0) {
        rs_pipeline_free(pipe);
        return rc;
    }
    pthread_mutex_lock(&m->mu);
    rs_tui_index_clear(m->index);
    m->n_shown = 0;
    m->all_shown = m->filter[0] == '\0';
    if (m->conv_shown != NULL)
        memset(m->conv_shown, 0, m->conv_shown_bytes);
    m->n_anomalies = 0;
    rs_tui_rates_clear(m->rates);
    store_clear(m->store);
    memset(&m->progress, 0, sizeof(m->progress));
    m->progress.file_size = fstat(m->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
    m->progress.live = m->capture != NULL;
    m->pass_start_ns = rs_monotonic_ns();
    m->pipe = pipe;
    m->src = src;
    pthread_mutex_unlock(&m->mu);
    atomic_store(&m->stop, false);
    if (pthread_create(&m->thread, NULL, ingest_main, m) != 0) {
        model_stop_pass(m);
        return rs_error(err, RS_ENOMEM, "cannot start the ingest thread");
    }
    m->running = true;
    return 0;
}

void
model_stop_pass(struct rs_tui_model *m)
{
    if (m->running) {
        atomic_store(&m->stop, true);
        rs_source_break(m->src);    /* a live capture's file may be waiting for more */
        pthread_join(m->thread, NULL);
        m->running = false;
    }
    rs_source_close(m->src);
    m->src = NULL;
    rs_pipeline_free(m->pipe);
    m->pipe = NULL;
}
