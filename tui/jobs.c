/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jobs.c - what may take long, kept off the screen's thread: a search (s, n)
 * and a write (w, W) run as tasks (task.c) whose progress the status line
 * shows at each redraw, and a new display filter runs as the ingest
 * thread's pass; Esc stops a task, or puts back the filter before while its
 * pass runs. Going to a packet the filter hides asks before clearing it.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "screen_int.h"

void
tui_apply_filter(struct tui *t, const char *text)
{
    char err[RS_ERRBUF_SIZE], before[TUI_PROMPT_MAX];

    snprintf(before, sizeof(before), "%s", rs_tui_model_filter(t->model));
    if (rs_tui_model_set_filter(t->model, text, err) != 0) {
        tui_message(t, "filter: %s", err);
        return;
    }
    prompt_remember(t, text);
    view_convs_invalidate(t);
    t->pkt_sel = t->pkt_top = 0;
    t->an_sel = t->an_top = 0;
    t->follow = false;
    t->filtering = true;
    snprintf(t->filter_before, sizeof(t->filter_before), "%s", before);
    tui_message(t, text[0] != '\0' ? "filter applied: %s" : "filter cleared%s", text);
}

void
tui_show_frame(struct tui *t, uint64_t number)
{
    uint64_t pos = rs_tui_model_shown_find(t->model, number);

    t->view = VIEW_PACKETS;
    t->follow = false;
    if (rs_tui_model_shown_frame(t->model, pos) == number) {
        t->pkt_sel = pos;
        t->want_frame = 0;
        return;
    }
    /* Not shown: either not indexed yet (it is selected when it is), or the filter hides
     * it, which is the user's to clear. */
    struct rs_tui_progress p;
    rs_tui_model_progress(t->model, &p);
    if (number <= p.frames && rs_tui_model_filter(t->model)[0] != '\0') {
        t->confirm_frame = number;
        prompt_open(t, PROMPT_CLEAR_FILTER, "");
        return;
    }
    t->want_frame = number;
}

void
tui_clear_filter_and_show(struct tui *t)
{
    uint64_t number = t->confirm_frame;

    tui_apply_filter(t, "");
    t->want_frame = number;
    t->view = VIEW_PACKETS;
}

void
tui_search_next(struct tui *t)
{
    char err[RS_ERRBUF_SIZE];

    if (t->job == JOB_SEARCH) {
        /* A new search replaces the one under way (an n whose answer is late, say): it is
         * stopped, and this one starts when it has (tui_jobs_poll). */
        rs_tui_task_cancel(t->task);
        t->search_again = true;
        return;
    }
    if (t->job != JOB_NONE) {
        tui_message(t, "%s is running: Esc stops it", t->job_what);
        return;
    }
    uint64_t n = rs_tui_model_shown_count(t->model);
    if (n == 0) {
        tui_message(t, "no packets shown to search");
        return;
    }
    uint64_t from = t->view == VIEW_PACKETS ? t->pkt_sel : n - 1;
    struct rs_tui_time_opts time = {.col = t->time_col};
    if (rs_tui_task_search(t->model, from, t->search, &time, &t->task, err) != 0) {
        tui_message(t, "find: %s", err);
        return;
    }
    t->job = JOB_SEARCH;
    snprintf(t->job_text, sizeof(t->job_text), "%s", t->search);
    snprintf(t->job_what, sizeof(t->job_what), "finding \"%s\"", t->search);
}

void
tui_write_start(struct tui *t, const char *path, uint64_t *numbers, size_t n, const char *what,
                const char *noun)
{
    char err[RS_ERRBUF_SIZE];

    if (t->job != JOB_NONE) {
        free(numbers);
        tui_message(t, "%s is running: Esc stops it", t->job_what);
        return;
    }
    if (rs_tui_task_write(t->model, path, numbers, n, &t->task, err) != 0) {
        tui_message(t, "write: %s", err);
        return;
    }
    t->job = JOB_WRITE;
    snprintf(t->job_what, sizeof(t->job_what), "writing %s to %s", what, path);
    snprintf(t->job_done, sizeof(t->job_done), "%s to %s", noun, path);
}

bool
tui_jobs_escape(struct tui *t)
{
    if (t->job != JOB_NONE) {
        rs_tui_task_cancel(t->task);
        t->search_again = false;
        return true;
    }
    if (t->filtering) {
        struct rs_tui_progress p;
        rs_tui_model_progress(t->model, &p);
        if (!p.done || p.live) {
            char before[TUI_PROMPT_MAX];
            snprintf(before, sizeof(before), "%s", t->filter_before);
            tui_apply_filter(t, before);
            t->filtering = false;
            tui_message(t, "filter stopped: %s", before[0] != '\0' ? before : "none again");
            return true;
        }
    }
    return false;
}

static void
job_done(struct tui *t, const struct rs_tui_task_result *r)
{
    if (t->job == JOB_SEARCH && r->rc == 0) {
        t->view = VIEW_PACKETS;
        t->follow = false;
        t->want_frame = 0;
        t->pkt_sel = r->found;
        tui_message(t, "found \"%s\" in packet %llu (n: the next)", t->job_text,
                    (unsigned long long)rs_tui_model_shown_frame(t->model, r->found));
    } else if (r->rc == RS_ECANCELED) {
        /* How long the stop took, from Esc to the task's end, and how much it did then. */
        tui_message(t, "%s: stopped in %llu ms, %llu packets after Esc (%s)", t->job_what,
                    (unsigned long long)(r->stop_ns / 1000000u),
                    (unsigned long long)r->after_cancel, r->err);
    } else if (t->job == JOB_SEARCH && r->rc == RS_ENOENT) {
        /* How long the whole list took, as bench/bench_tui.py --search compares it. */
        tui_message(t, "find: %s (searched in %.3f s)", r->err, (double)r->elapsed_ns / 1e9);
    } else if (t->job == JOB_SEARCH) {
        tui_message(t, "find: %s", r->err);
    } else if (r->rc == 0) {
        tui_message(t, "wrote %llu %s", (unsigned long long)r->written, t->job_done);
    } else {
        tui_message(t, "write: %s", r->err);
    }
}

void
tui_jobs_poll(struct tui *t)
{
    uint64_t done, total;
    struct rs_tui_task_result r;

    if (t->filtering) {
        struct rs_tui_progress p;
        rs_tui_model_progress(t->model, &p);
        t->filtering = !p.done && !p.live;
    }
    if (t->job == JOB_NONE || !rs_tui_task_done(t->task, &done, &total))
        return;
    rs_tui_task_finish(t->task, &r);
    if (!t->search_again)
        job_done(t, &r);
    t->task = NULL;
    t->job = JOB_NONE;
    if (t->search_again) {      /* the search that replaced this one: its answer only */
        t->search_again = false;
        tui_search_next(t);
    }
}

void
tui_jobs_status(struct tui *t, char *buf, size_t size)
{
    uint64_t done, total;

    buf[0] = '\0';
    if (t->job != JOB_NONE) {
        rs_tui_task_done(t->task, &done, &total);
        snprintf(buf, size, "%s: %llu of %llu packets (Esc stops)", t->job_what,
                 (unsigned long long)done, (unsigned long long)total);
    } else if (t->filtering) {
        snprintf(buf, size, "filtering (Esc puts back %s)",
                 t->filter_before[0] != '\0' ? t->filter_before : "no filter");
    }
}

void
tui_jobs_end(struct tui *t)
{
    struct rs_tui_task_result r;

    if (t->job == JOB_NONE)
        return;
    rs_tui_task_cancel(t->task);
    rs_tui_task_finish(t->task, &r);
    t->task = NULL;
    t->job = JOB_NONE;
    t->search_again = false;
}
