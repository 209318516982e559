/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * frame_read.c - frames read back from the file at their indexed offset:
 * decoded again for the packet list and the detail and hex panes, or
 * written out (`w`).
 *
 * Only the decoder runs on a frame read back. The pipeline's other stages
 * (iWARP reassembly, the analysis, the streams) keep state that needs every
 * frame once and in capture order; what they gave the frame at ingest is
 * read back from the state file (frame_state.c), so that the frame prints
 * as `roceshark read` printed it: its line, and its -V tree.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <roceshark/capture/pcapio.h>

#include "model_int.h"

/* Fills f (number, times since the first and the previous frame) from the index, and e
 * with the frame's entry. The first and the previous entry are read where they lie
 * (entries never move): copies of them were a twentieth of a search's time. */
static bool
frame_from_index(struct rs_tui_model *m, uint64_t number, struct rs_frame *f,
                 struct rs_tui_frame *e)
{
    const struct rs_tui_frame *first = rs_tui_index_get(m->index, 1);
    const struct rs_tui_frame *prev = rs_tui_index_get(m->index, number > 1 ? number - 1 : 1);

    if (first == NULL || prev == NULL || !rs_tui_model_frame(m, number, e))
        return false;
    memset(f, 0, sizeof(*f));
    f->caplen = e->caplen;
    f->len = e->len;
    f->linktype = e->linktype;
    f->number = number;
    f->ts_sec = e->ts_sec;
    f->ts_nsec = e->ts_nsec;
    f->ts_digits = e->ts_digits;
    f->interface = e->interface;
    f->section = e->section;
    struct rs_time t = rs_frame_time(f);
    f->rel = rs_time_sub(t, (struct rs_time){first->ts_sec, (int32_t)first->ts_nsec});
    f->delta = rs_time_sub(t, (struct rs_time){prev->ts_sec, (int32_t)prev->ts_nsec});
    return true;
}

/* A window of a file read ahead, for frames taken in increasing order (a search, a
 * write): a few large reads in place of two small ones a frame. 256 KiB, so that the
 * frames are still in the cache when they are decoded (with 1 MiB a search of 1M
 * frames took 1.2-1.9x the time of read | grep, with 256 KiB 0.98-1.06x). */
#define WINDOW (1u << 18)

struct window {
    uint8_t *buf;
    size_t len;
    uint64_t off;           /* where buf[0] is in its file */
};

struct rs_tui_cursor {
    struct window frames;   /* the capture file */
    struct window state;    /* the state file */
};

int
rs_tui_cursor_new(struct rs_tui_cursor **out, char *err)
{
    struct rs_tui_cursor *c = calloc(1, sizeof(*c));

    if (c == NULL || (c->frames.buf = malloc(WINDOW)) == NULL ||
        (c->state.buf = malloc(WINDOW)) == NULL) {
        if (c != NULL)
            free(c->frames.buf);
        free(c);
        return rs_error(err, RS_ENOMEM, "out of memory");
    }
    *out = c;
    return 0;
}

void
rs_tui_cursor_free(struct rs_tui_cursor *c)
{
    if (c == NULL)
        return;
    free(c->frames.buf);
    free(c->state.buf);
    free(c);
}

static bool
in_window(const struct window *w, uint64_t off, size_t n)
{
    return off >= w->off && off - w->off + n <= w->len;
}

/* n bytes at off of the capture file in the window (read again from off when they are
 * not in it): valid until the window's next read. NULL when there is no window or they
 * are not in the file or larger than it. */
static const uint8_t *
frames_view(struct rs_tui_model *m, struct window *w, uint64_t off, size_t n)
{
    if (w != NULL && n <= WINDOW && !in_window(w, off, n)) {
        ssize_t got = pread(m->fd, w->buf, WINDOW, (off_t)off);
        w->off = off;
        w->len = got > 0 ? (size_t)got : 0;
    }
    return w != NULL && in_window(w, off, n) ? w->buf + (off - w->off) : NULL;
}

/* n bytes at off of the capture file into out. */
static int
read_at(struct rs_tui_model *m, uint64_t off, void *out, size_t n, char *err)
{
    ssize_t got = pread(m->fd, out, n, (off_t)off);
    if (got != (ssize_t)n)
        return rs_error(err, RS_EIO, "%s: reading a frame back: %s", m->path,
                        got < 0 ? strerror(errno) : "the file is shorter than it was");
    return 0;
}

/* The same for the state file: the record in the window, or NULL. */
static const uint8_t *
state_view(struct rs_tui_model *m, struct window *w, uint64_t off, size_t n)
{
    if (w != NULL && n <= WINDOW && !in_window(w, off, n)) {
        size_t got = store_read_ahead(m->store, off, w->buf, WINDOW);
        w->off = off;
        w->len = got;
    }
    return w != NULL && in_window(w, off, n) ? w->buf + (off - w->off) : NULL;
}

/* Room for n bytes in *buf. */
static int
make_room(uint8_t **buf, size_t *cap, size_t n, char *err)
{
    if (n <= *cap)
        return 0;
    uint8_t *b = realloc(*buf, n);
    if (b == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory for a %zu-byte frame", n);
    *buf = b;
    *cap = n;
    return 0;
}

/* The frame as the source handed it out, without decoding it. */
static int
read_frame(struct rs_tui_model *m, uint64_t number, struct rs_tui_decoded *d,
           struct rs_tui_frame *e, struct rs_tui_cursor *c, char *err)
{
    int rc;

    if (!frame_from_index(m, number, &d->frame, e))
        return rs_error(err, RS_EINVAL, "frame %llu: no such frame",
                        (unsigned long long)number);
    /* Through a cursor, the frame is read where the window holds it: a search copied each
     * frame's bytes a second time, a sixth of its time. */
    const uint8_t *in = frames_view(m, c != NULL ? &c->frames : NULL, e->offset, e->caplen);
    if (in != NULL) {
        d->frame.data = in;
        return 0;
    }
    if ((rc = make_room(&d->data, &d->cap, e->caplen, err)) != 0 ||
        (rc = read_at(m, e->offset, d->data, e->caplen, err)) != 0)
        return rc;
    d->frame.data = d->data;
    return 0;
}

/* frame.time_delta_displayed under a filter: the time since the shown frame before this
 * one (0 for the first), as read -Y gives it; without a filter the frame's own delta. */
void
rs_tui_model_delta_shown(struct rs_tui_model *m, uint64_t number, struct rs_tui_decoded *d)
{
    struct rs_tui_frame prev;

    if (rs_tui_model_filter(m)[0] == '\0')
        return;
    uint64_t pos = rs_tui_model_shown_find(m, number);
    if (pos >= rs_tui_model_shown_count(m) || rs_tui_model_shown_frame(m, pos) != number)
        return;
    if (pos == 0 || !rs_tui_model_frame(m, rs_tui_model_shown_frame(m, pos - 1), &prev)) {
        d->pkt.delta_shown = (struct rs_time){0, 0};
        return;
    }
    d->pkt.delta_shown = rs_time_sub(rs_frame_time(&d->frame),
                                     (struct rs_time){prev.ts_sec, (int32_t)prev.ts_nsec});
}

int
rs_tui_model_decode_at(struct rs_tui_model *m, uint64_t number, struct rs_tui_decoded *d,
                       struct rs_tui_cursor *c, char *err)
{
    struct rs_tui_frame e;
    int rc;

    if ((rc = read_frame(m, number, d, &e, c, err)) != 0)
        return rc;
    /* A row shows a CRC only when it is bad, which the ingest marked: checking every
     * frame's again was a fifteenth of a search's time. */
    if (c != NULL && !(e.kind & RS_TUI_KIND_BAD_CRC) && m->decode.verify_crc) {
        struct rs_decode_opts row = m->decode;
        row.verify_crc = false;
        rs_decode_frame(&d->frame, &row, &d->pkt);
    } else {
        rs_decode_frame(&d->frame, &m->decode, &d->pkt);
    }
    if (e.state_len == 0) {
        rc = frame_state_apply(d, NULL, 0, err);
    } else {
        const uint8_t *state = state_view(m, c != NULL ? &c->state : NULL, e.state_off,
                                          e.state_len);
        if (state == NULL) {
            if ((rc = make_room(&d->state, &d->state_cap, e.state_len, err)) != 0 ||
                (rc = store_read(m->store, e.state_off, d->state, e.state_len, err)) != 0)
                return rc;
            state = d->state;
        }
        rc = frame_state_apply(d, state, e.state_len, err);
    }
    /* A search (c) asks for it only when its rows show it (-t dd). */
    if (rc == 0 && c == NULL)
        rs_tui_model_delta_shown(m, number, d);
    return rc;
}

int
rs_tui_model_decode(struct rs_tui_model *m, uint64_t number, struct rs_tui_decoded *d,
                    char *err)
{
    return rs_tui_model_decode_at(m, number, d, NULL, err);
}

void
rs_tui_decoded_free(struct rs_tui_decoded *d)
{
    free(d->data);
    free(d->state);
    free(d->pdus);
    free(d->words);
    free(d->segments);
    d->data = d->state = NULL;
    d->pdus = NULL;
    d->words = NULL;
    d->segments = NULL;
    d->cap = d->state_cap = d->pdus_cap = d->words_cap = d->segments_cap = 0;
}

int
rs_tui_model_write_frames(struct rs_tui_model *m, const char *path, const uint64_t *numbers,
                          size_t n, struct rs_tui_work *work, uint64_t *written, char *err)
{
    struct rs_tui_decoded d = {0};
    struct rs_tui_cursor *c = NULL;
    struct rs_writer *w = NULL;
    struct rs_tui_frame first, e;
    int rc = 0;

    *written = 0;
    if (n == 0 || !rs_tui_model_frame(m, numbers[0], &first))
        return rs_error(err, RS_EINVAL, "no packets to write");
    /* The file being shown is refused, as Wireshark refuses to save over it. */
    struct rs_writer_opts wo = {.path = path, .linktype = first.linktype,
                                .snaplen = RS_CAPTURE_SNAPLEN,
                                /* A nanosecond file keeps nanosecond times whole. */
                                .ts_hardware = first.ts_digits == 9, .input = m->path};
    if ((rc = rs_tui_cursor_new(&c, err)) != 0)
        return rc;
    if ((rc = rs_writer_open(&wo, &w, err)) != 0) {
        rs_tui_cursor_free(c);
        return rc;
    }
    if (work != NULL)
        atomic_store(&work->total, n);
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (work != NULL && atomic_load(&work->cancel)) {
            rc = rs_error(err, RS_ECANCELED, "stopped after %zu of %zu packets", i, n);
            break;
        }
        if ((rc = read_frame(m, numbers[i], &d, &e, c, err)) == 0)
            rc = rs_writer_write(w, &d.frame, err);
        if (work != NULL)
            atomic_store(&work->done, i + 1);
    }
    char close_err[RS_ERRBUF_SIZE];
    int crc = rs_writer_close(w, written, close_err);
    if (rc == 0 && crc != 0) {
        rc = crc;
        snprintf(err, RS_ERRBUF_SIZE, "%s", close_err);
    }
    /* A write stopped half-way leaves no half file behind. */
    if (rc == RS_ECANCELED)
        unlink(path);
    rs_tui_decoded_free(&d);
    rs_tui_cursor_free(c);
    return rc;
}

int
rs_tui_model_shown_numbers(struct rs_tui_model *m, uint64_t **numbers, size_t *n, char *err)
{
    uint64_t count = rs_tui_model_shown_count(m);

    *numbers = NULL;
    *n = 0;
    if (count == 0)
        return rs_error(err, RS_EINVAL, "no packets shown: nothing to write");
    if ((*numbers = malloc(count * sizeof(**numbers))) == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    /* A copy: the ingest thread may grow the list meanwhile. */
    for (uint64_t i = 0; i < count; i++)
        (*numbers)[i] = rs_tui_model_shown_frame(m, i);
    *n = count;
    return 0;
}

int
rs_tui_model_write_shown(struct rs_tui_model *m, const char *path, uint64_t *written,
                         char *err)
{
    uint64_t *numbers;
    size_t n;
    int rc;

    *written = 0;
    if ((rc = rs_tui_model_shown_numbers(m, &numbers, &n, err)) != 0)
        return rc;
    rc = rs_tui_model_write_frames(m, path, numbers, n, NULL, written, err);
    free(numbers);
    return rc;
}
