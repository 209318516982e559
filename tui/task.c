/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * task.c - a search or a write on a thread of its own, so that the screen
 * never waits for one: the screen looks at its progress at each redraw,
 * Esc asks it to stop (it looks at the flag every thousand packets or so),
 * and its outcome is taken once it has ended.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_int.h"

struct rs_tui_task {
    struct rs_tui_model *m;
    pthread_t thread;
    struct rs_tui_work work;
    _Atomic bool done;
    _Atomic uint64_t cancel_ns;     /* when rs_tui_task_cancel was called, 0: not */
    _Atomic uint64_t cancel_done;   /* and the work done by then */
    bool write;
    /* search */
    uint64_t after;
    char *text;
    struct rs_tui_time_opts time;
    /* write */
    char *path;
    uint64_t *numbers;
    size_t n;
    struct rs_tui_task_result result;
};

static void *
task_main(void *arg)
{
    struct rs_tui_task *t = arg;
    struct rs_tui_task_result *r = &t->result;
    uint64_t start = rs_monotonic_ns();

    pthread_setname_np(pthread_self(), t->write ? "rs-write" : "rs-search");
    if (t->write)
        r->rc = rs_tui_model_write_frames(t->m, t->path, t->numbers, t->n, &t->work,
                                          &r->written, r->err);
    else
        r->rc = rs_tui_model_search(t->m, t->after, t->text, &t->time, &t->work, &r->found,
                                    &r->looked, r->err);
    uint64_t end = rs_monotonic_ns(), asked = atomic_load(&t->cancel_ns);
    r->elapsed_ns = end - start;
    r->stop_ns = asked != 0 && end > asked ? end - asked : 0;
    uint64_t done = atomic_load(&t->work.done), then = atomic_load(&t->cancel_done);
    r->after_cancel = asked != 0 && done > then ? done - then : 0;
    atomic_store(&t->done, true);
    return NULL;
}

static void
task_free(struct rs_tui_task *t)
{
    free(t->text);
    free(t->path);
    free(t->numbers);
    free(t);
}

static int
task_start(struct rs_tui_task *t, char *err)
{
    atomic_init(&t->work.done, 0);
    atomic_init(&t->work.total, 0);
    atomic_init(&t->work.cancel, false);
    atomic_init(&t->done, false);
    atomic_init(&t->cancel_ns, 0);
    atomic_init(&t->cancel_done, 0);
    if (pthread_create(&t->thread, NULL, task_main, t) != 0) {
        task_free(t);
        return rs_error(err, RS_ENOMEM, "cannot start a thread");
    }
    return 0;
}

int
rs_tui_task_search(struct rs_tui_model *m, uint64_t after, const char *text,
                   const struct rs_tui_time_opts *time, struct rs_tui_task **out, char *err)
{
    struct rs_tui_task *t = calloc(1, sizeof(*t));

    if (t == NULL || (t->text = strdup(text)) == NULL) {
        free(t);
        return rs_error(err, RS_ENOMEM, "out of memory");
    }
    t->m = m;
    t->after = after;
    if (time != NULL)
        t->time = *time;
    int rc = task_start(t, err);
    if (rc == 0)
        *out = t;
    return rc;
}

int
rs_tui_task_write(struct rs_tui_model *m, const char *path, uint64_t *numbers, size_t n,
                  struct rs_tui_task **out, char *err)
{
    struct rs_tui_task *t = calloc(1, sizeof(*t));

    if (t == NULL || (t->path = strdup(path)) == NULL) {
        free(t);
        free(numbers);
        return rs_error(err, RS_ENOMEM, "out of memory");
    }
    t->m = m;
    t->write = true;
    t->numbers = numbers;
    t->n = n;
    int rc = task_start(t, err);
    if (rc == 0)
        *out = t;
    return rc;
}

bool
rs_tui_task_done(struct rs_tui_task *t, uint64_t *done, uint64_t *total)
{
    *done = atomic_load(&t->work.done);
    *total = atomic_load(&t->work.total);
    return atomic_load(&t->done);
}

void
rs_tui_task_cancel(struct rs_tui_task *t)
{
    uint64_t none = 0;

    /* The progress first, then the time: the task's end reads them after the flag. */
    if (atomic_load(&t->cancel_ns) == 0)
        atomic_store(&t->cancel_done, atomic_load(&t->work.done));
    atomic_compare_exchange_strong(&t->cancel_ns, &none, rs_monotonic_ns());
    atomic_store(&t->work.cancel, true);
}

void
rs_tui_task_finish(struct rs_tui_task *t, struct rs_tui_task_result *out)
{
    pthread_join(t->thread, NULL);
    *out = t->result;
    task_free(t);
}
