/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model.c - opening and closing the model, changing its filter, and what
 * the views read of it: the conversation rows with their rates, the list
 * of frames shown, the expert items, the progress of the pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <roceshark/dissectors/filter.h>
#include <roceshark/capture/pcapio.h>

#include "model_int.h"

void
rs_tui_model_opts_init(struct rs_tui_model_opts *opts)
{
    memset(opts, 0, sizeof(*opts));
    rs_decode_opts_init(&opts->decode);
}

/* A file name for a capture nobody named: in TMPDIR, removed on close. */
static int
temporary_path(struct rs_tui_model *m, char *err)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];

    snprintf(path, sizeof(path), "%s/roceshark-tui-XXXXXX.pcap",
             dir != NULL && dir[0] != '\0' ? dir : "/tmp");
    int fd = mkstemps(path, 5);
    if (fd < 0)
        return rs_error(err, RS_EIO, "%s: %s", path, strerror(errno));
    close(fd);
    m->remove_path = true;
    if ((m->path = strdup(path)) == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    return 0;
}

/* Activates the interface with the default RDMA filter (and the -d ports), or
 * the RDMA device's sniffer QP, opens the file the capture goes to, and starts
 * capture's engine on its own thread: the same writer as `roceshark capture`,
 * a larger kernel ring (LIVE_BUFFER_MB), and nothing else on that thread. The
 * ingest thread reads the file as it grows. */
static int
open_capture(struct rs_tui_model *m, const struct rs_tui_model_opts *opts, char *err)
{
    struct rs_live_opts live = opts->live;
    int rc;

    live.roce_ports = opts->decode.roce_ports;
    live.n_roce_ports = opts->decode.n_roce_ports;
    live.iwarp_ports = opts->decode.iwarp_ports;
    live.n_iwarp_ports = opts->decode.n_iwarp_ports;
    /* The kernel hands its ring's blocks over when full or this old, and the engine
     * flushes the file this often: a frame shows within about twice that. */
    live.idle_ms = LIVE_FLUSH_MS;
    if (live.buffer_mb == 0)
        live.buffer_mb = LIVE_BUFFER_MB;
    if ((rc = opts->iface != NULL ? rs_source_create_iface(opts->iface, &m->live, err)
                                  : rs_source_create_rdma(opts->rdma, &m->live, err)) != 0)
        return rc;
    if ((rc = rs_source_activate(m->live, &live, err)) != 0)
        return rc;
    if (opts->path == NULL ? (rc = temporary_path(m, err)) != 0 :
                             (m->path = strdup(opts->path)) == NULL)
        return rc != 0 ? rc : rs_error(err, RS_ENOMEM, "out of memory");
    struct rs_writer_opts wo = {.path = m->path, .linktype = rs_source_linktype(m->live),
                                .snaplen = rs_source_snaplen(m->live),
                                .ts_hardware = rs_source_ts_hardware(m->live)};
    struct rs_capture_opts co;
    rs_capture_opts_init(&co);
    co.flush_ms = LIVE_FLUSH_MS;
    if ((rc = rs_writer_open(&wo, &m->writer, err)) != 0 ||
        (rc = rs_capture_start(m->live, m->writer, &co, &m->capture, err)) != 0)
        return rc;
    m->capturing = true;
    return 0;
}

bool
rs_tui_model_opts_live(const struct rs_tui_model_opts *opts)
{
    return opts->iface != NULL || opts->rdma != NULL;
}

/* Rates are kept for as many conversations as the analysis follows: those
 * with traffic most recently, as its table keeps them (the pipeline's are
 * the analysis' defaults). */
static uint32_t
rates_bound(void)
{
    struct rs_analysis_opts ao;

    rs_analysis_opts_init(&ao);
    return ao.max_convs;
}

int
rs_tui_model_open(const struct rs_tui_model_opts *opts, struct rs_tui_model **out, char *err)
{
    struct rs_tui_model *m = calloc(1, sizeof(*m));
    struct rs_pipeline *pipe = NULL;
    const char *filter = opts->filter != NULL ? opts->filter : "";
    int rc;

    if (m == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    m->fd = -1;
    pthread_mutex_init(&m->mu, NULL);
    pthread_cond_init(&m->pass_done, NULL);
    m->decode = opts->decode;
    m->search_threads = opts->search_threads;
    m->threads = opts->threads > 0 ? opts->threads : rs_pipeline_threads_available();
    if (m->threads > RS_PIPELINE_THREADS_MAX)
        m->threads = RS_PIPELINE_THREADS_MAX;
    if ((m->filter = strdup(filter)) == NULL) {
        rc = rs_error(err, RS_ENOMEM, "out of memory");
        goto fail;
    }
    /* Frames are read back by offset: standard input cannot be. */
    if (opts->path != NULL && strcmp(opts->path, "-") == 0) {
        rc = rs_error(err, RS_EINVAL, "-%c -: the TUI reads frames back, so it needs a file",
                      rs_tui_model_opts_live(opts) ? 'w' : 'r');
        goto fail;
    }
    if (rs_tui_model_opts_live(opts)) {
        if ((rc = open_capture(m, opts, err)) != 0)
            goto fail;
    } else if ((m->path = strdup(opts->path)) == NULL) {
        rc = rs_error(err, RS_ENOMEM, "out of memory");
        goto fail;
    }
    if ((m->fd = open(m->path, O_RDONLY | O_CLOEXEC)) < 0) {
        rc = rs_error(err, RS_EIO, "%s: %s", m->path, strerror(errno));
        goto fail;
    }
    if ((rc = store_open(&m->store, err)) != 0 ||
        (rc = rs_tui_index_new(&m->index, opts->max_frames, err)) != 0 ||
        (rc = rs_tui_rates_new(rates_bound(), &m->rates, err)) != 0 ||
        (rc = model_new_pipeline(m, filter, &pipe, err)) != 0 ||
        (rc = model_start_pass(m, pipe, err)) != 0)
        goto fail;
    *out = m;
    return 0;
fail:
    rs_tui_model_close(m);
    return rc;
}

void
rs_tui_model_close(struct rs_tui_model *m)
{
    if (m == NULL)
        return;
    if (m->capturing)
        rs_capture_stop(m->capture, NULL);
    /* The pass's source reads what the capture wrote: it goes before the capture. */
    model_stop_pass(m);
    rs_capture_free(m->capture);
    if (m->writer != NULL)
        rs_writer_close(m->writer, NULL, NULL);
    rs_source_close(m->live);
    if (m->fd >= 0)
        close(m->fd);
    if (m->remove_path)
        unlink(m->path);
    rs_tui_index_free(m->index);
    rs_tui_rates_free(m->rates);
    free(m->shown);
    free(m->conv_shown);
    free(m->anomalies);
    store_close(m->store);
    free(m->path);
    free(m->filter);
    pthread_mutex_destroy(&m->mu);
    pthread_cond_destroy(&m->pass_done);
    free(m);
}

int
rs_tui_model_stop_capture(struct rs_tui_model *m, struct rs_source_stats *stats,
                          uint64_t *written, char *err)
{
    struct rs_capture_status st;
    int rc;

    if (m->live == NULL)
        return rs_error(err, RS_EINVAL, "not capturing");
    /* The engine stops; the pass goes on to read what it wrote, and what it indexed
     * stays, the pipeline with it. */
    if (m->capturing) {
        rs_capture_stop(m->capture, &st);
        m->capturing = false;
    } else {
        rs_capture_get_status(m->capture, &st);
    }
    rc = rs_source_stats(m->live, stats, err);
    int wrc = rs_writer_close(m->writer, written, rc == 0 ? err : NULL);
    m->writer = NULL;
    rs_source_close(m->live);
    m->live = NULL;
    if (rc == 0 && st.rc != 0)
        return rs_error(err, st.rc, "%s", st.err);
    return rc != 0 ? rc : wrc;
}

bool
rs_tui_model_capture_status(struct rs_tui_model *m, struct rs_capture_status *out)
{
    if (m->capture == NULL)
        return false;
    rs_capture_get_status(m->capture, out);
    return true;
}

const char *
rs_tui_model_path(const struct rs_tui_model *m)
{
    return m->path;
}

void
rs_tui_model_progress(struct rs_tui_model *m, struct rs_tui_progress *out)
{
    pthread_mutex_lock(&m->mu);
    *out = m->progress;
    pthread_mutex_unlock(&m->mu);
}

void
rs_tui_model_wait(struct rs_tui_model *m)
{
    pthread_mutex_lock(&m->mu);
    while (m->running && !m->progress.done)
        pthread_cond_wait(&m->pass_done, &m->mu);
    pthread_mutex_unlock(&m->mu);
}

int
rs_tui_model_check_filter(const char *text, char *err)
{
    struct rs_filter *f = NULL;
    int rc;

    if (text[0] == '\0')
        return 0;
    rc = rs_filter_compile(text, &f, err);
    rs_filter_free(f);
    return rc;
}

int
rs_tui_model_set_filter(struct rs_tui_model *m, const char *text, char *err)
{
    struct rs_pipeline *pipe;
    char *copy;
    int rc;

    /* Built first, so that a filter that does not compile changes nothing. */
    if ((rc = model_new_pipeline(m, text, &pipe, err)) != 0)
        return rc;
    if ((copy = strdup(text)) == NULL) {
        rs_pipeline_free(pipe);
        return rs_error(err, RS_ENOMEM, "out of memory");
    }
    model_stop_pass(m);
    free(m->filter);
    m->filter = copy;
    return model_start_pass(m, pipe, err);
}

const char *
rs_tui_model_filter(const struct rs_tui_model *m)
{
    return m->filter;
}

struct rows_ctx {
    struct rs_tui_conv_row *rows;
    size_t n, cap;
    bool failed;
};

static void
collect_row(void *ctx, const struct rs_conv_stats *st)
{
    struct rows_ctx *c = ctx;

    /* As -z conv,qp: a conversation the CM set up that carried nothing is left out. */
    if (st->req_packets + st->resp_packets + st->cnps == 0 || c->failed)
        return;
    struct rs_tui_conv_row *rows = model_grow_array(c->rows, &c->cap, c->n + 1, sizeof(*rows));
    if (rows == NULL) {
        c->failed = true;
        return;
    }
    c->rows = rows;
    memset(&c->rows[c->n], 0, sizeof(c->rows[c->n]));
    c->rows[c->n++].st = *st;
}

int
rs_tui_model_conv_rows(struct rs_tui_model *m, enum rs_tui_col col, bool descending,
                       struct rs_tui_conv_row **rows, size_t *n, char *err)
{
    struct rows_ctx c = {NULL, 0, 0, false};

    /* The pipeline's lock holds up ingest: under it the rows are only copied,
     * in no order (sorted below, without it), into room made and faulted in
     * before, as many as last time and an eighth more. With 131,073 rows that
     * took the lock's time from 40 to 34 ms; the rest is reading them, which
     * is why the view keeps the rows between refreshes (view_convs.c). */
    pthread_mutex_lock(&m->mu);
    size_t room = m->conv_rows_last + m->conv_rows_last / 8 + 64;
    pthread_mutex_unlock(&m->mu);
    if ((c.rows = malloc(room * sizeof(*c.rows))) != NULL) {
        memset(c.rows, 0, room * sizeof(*c.rows));
        c.cap = room;
    }
    if (m->pipe != NULL && rs_pipeline_analyzer(m->pipe) != NULL) {
        rs_pipeline_lock(m->pipe);
        rs_analyzer_foreach_conv_unordered(rs_pipeline_analyzer(m->pipe), collect_row, &c);
        rs_pipeline_unlock(m->pipe);
    }
    if (c.failed) {
        free(c.rows);
        return rs_error(err, RS_ENOMEM, "conversation table: out of memory");
    }
    pthread_mutex_lock(&m->mu);
    m->conv_rows_last = c.n;
    struct rs_time now = m->newest;
    /* A live capture's rates fall when traffic stops, as iftop's do: its clock is the
     * host's (or the NIC's, which runs with it) whenever that is ahead of the frames. */
    if (m->progress.live && !m->progress.done) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        struct rs_time wall = {ts.tv_sec, (int32_t)ts.tv_nsec};
        if (rs_time_cmp(wall, now) > 0)
            now = wall;
    }
    /* Under a filter, only the conversations with a frame it shows, as Wireshark's
     * conversation table limited to the display filter lists them. */
    if (m->filter[0] != '\0') {
        size_t kept = 0;
        for (size_t i = 0; i < c.n; i++) {
            uint32_t id = c.rows[i].st.id;
            if (id / 8 < m->conv_shown_bytes && (m->conv_shown[id / 8] >> (id % 8)) & 1)
                c.rows[kept++] = c.rows[i];
        }
        c.n = kept;
    }
    rs_tui_rates_advance(m->rates, m->index, m->progress.frames, now);
    for (size_t i = 0; i < c.n; i++) {
        rs_tui_rates_get(m->rates, c.rows[i].st.id, c.rows[i].rate);
        /* An evicted conversation keeps no time of its last packet. */
        c.rows[i].have_last = c.rows[i].st.id != 0 &&
                              (c.rows[i].st.last.sec != 0 || c.rows[i].st.last.nsec != 0);
        c.rows[i].last_seen = rs_time_sub(c.rows[i].st.last, m->first);
    }
    pthread_mutex_unlock(&m->mu);
    rs_tui_rows_sort(c.rows, c.n, col, descending);
    *rows = c.rows;
    *n = c.n;
    return 0;
}

/* One of the counts the ingest thread moves, read under the lock. */
static uint64_t
locked_count(struct rs_tui_model *m, const size_t *count)
{
    pthread_mutex_lock(&m->mu);
    uint64_t n = *count;
    pthread_mutex_unlock(&m->mu);
    return n;
}

uint64_t
rs_tui_model_shown_count(struct rs_tui_model *m)
{
    return locked_count(m, &m->n_shown);
}

uint64_t
rs_tui_model_shown_frame(struct rs_tui_model *m, uint64_t i)
{
    pthread_mutex_lock(&m->mu);
    uint64_t number = i >= m->n_shown ? 0 : m->all_shown ? i + 1 : m->shown[i];
    pthread_mutex_unlock(&m->mu);
    return number;
}

uint64_t
rs_tui_model_shown_find(struct rs_tui_model *m, uint64_t number)
{
    pthread_mutex_lock(&m->mu);
    size_t lo = 0, hi = m->n_shown;
    /* The list is in frame order: the first entry >= number. */
    if (m->all_shown && number > 0)
        lo = hi = number - 1 < m->n_shown ? number - 1 : m->n_shown;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->shown[mid] < number)
            lo = mid + 1;
        else
            hi = mid;
    }
    pthread_mutex_unlock(&m->mu);
    return lo;
}

bool
rs_tui_model_frame(struct rs_tui_model *m, uint64_t number, struct rs_tui_frame *out)
{
    const struct rs_tui_frame *f = rs_tui_index_get(m->index, number);

    if (f == NULL)
        return false;
    *out = *f;
    return true;
}

uint64_t
rs_tui_model_frame_count(struct rs_tui_model *m)
{
    return rs_tui_index_count(m->index);
}

uint64_t
rs_tui_model_anomaly_count(struct rs_tui_model *m)
{
    return locked_count(m, &m->n_anomalies);
}

bool
rs_tui_model_anomaly(struct rs_tui_model *m, uint64_t i, struct rs_tui_anomaly *out)
{
    pthread_mutex_lock(&m->mu);
    bool have = i < m->n_anomalies;
    if (have)
        *out = m->anomalies[i];
    pthread_mutex_unlock(&m->mu);
    return have;
}
