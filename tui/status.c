/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * status.c - the two bars every view shares: at the top the views (F-keys)
 * and what is shown (the file, or the interface and the file it goes to),
 * at the bottom the state of the load or the capture, its drops as they
 * happen, the filter, and the keys, which always end with "q: quit"
 * however narrow the terminal: the rest is cut first.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/print.h>

#include "screen_int.h"

/* Each view's key and name, and a shorter name for a narrow terminal. */
static const struct {
    const char *name, *brief;
} views[VIEW_COUNT] = {
    [VIEW_CONVS] = {"F2 QP conversations", "F2 Convs"},
    [VIEW_PACKETS] = {"F3 Packets", "F3 Pkts"},
    [VIEW_ANOMALIES] = {"F5 Anomalies", "F5 Anom"},
    [VIEW_GRAPH] = {"F6 Graph", "F6 Graph"},
    [VIEW_COUNTERS] = {"F7 NIC counters", "F7 NIC"},
    [VIEW_SEGMENTS] = {"F8 Segments", "F8 Segs"},
};

/* The names of -t's time formats, as the status line gives them. */
static const char *const time_names[] = {
    [RS_TIME_COL_RELATIVE] = "relative", [RS_TIME_COL_ABSOLUTE] = "absolute",
    [RS_TIME_COL_ABSOLUTE_DATE] = "absolute with date", [RS_TIME_COL_UTC] = "UTC",
    [RS_TIME_COL_UTC_DATE] = "UTC with date", [RS_TIME_COL_EPOCH] = "epoch",
    [RS_TIME_COL_DELTA] = "delta", [RS_TIME_COL_DELTA_SHOWN] = "delta displayed"};

void
tui_si(double v, const char *unit, char *buf, size_t size)
{
    static const char prefixes[] = " kMGTP";
    int p = 0;

    while ((v >= 999.5 || v <= -999.5) && p < 5) {
        v /= 1000;
        p++;
    }
    int decimals = v >= 99.95 || v <= -99.95 ? 0 : v >= 9.995 || v <= -9.995 ? 1 : 2;
    if (p == 0 && v == (double)(long long)v)
        decimals = 0;
    if (p == 0)
        snprintf(buf, size, "%.*f %s", decimals, v, unit);
    else
        snprintf(buf, size, "%.*f %c%s", decimals, v, prefixes[p], unit);
}

void
tui_draw_top(struct tui *t, int cols)
{
    char label[48];
    int width = 0;

    /* The full names when they fit beside the source, else the brief ones. */
    bool brief = false;
    for (int v = 0; v < VIEW_COUNT; v++)
        width += tui_view_present(t, (enum tui_view)v) ? (int)strlen(views[v].name) + 3 : 0;
    if (width + (int)strlen(t->source) + 3 > cols)
        brief = true;
    tui_put(t, 0, 0, cols, "", tui_attr(t, PAIR_BAR));
    int x = 0;
    for (int v = 0; v < VIEW_COUNT && x < cols; v++) {
        if (!tui_view_present(t, (enum tui_view)v))
            continue;
        const char *name = brief ? views[v].brief : views[v].name;
        snprintf(label, sizeof(label), v == (int)t->view ? "[%s]" : " %s ", name);
        int w = (int)strlen(label);
        tui_put(t, 0, x, w < cols - x ? w : cols - x, label,
                v == (int)t->view ? A_BOLD | A_REVERSE : tui_attr(t, PAIR_BAR));
        x += w;
    }
    /* What is shown, right-aligned; cut at its start (the file's name is at the end). */
    int room = cols - x - 2;
    int len = (int)strlen(t->source);
    if (room > 3) {
        const char *s = t->source;
        char cut[sizeof(t->source) + 4];
        if (len > room) {
            snprintf(cut, sizeof(cut), "...%s", s + len - (room - 3));
            s = cut;
            len = room;
        }
        tui_put(t, 0, cols - len - 1, len, s, tui_attr(t, PAIR_BAR) | A_BOLD);
    }
}

/* A live capture's drops as they happen: the kernel's and the interface's, the sniffer
 * ring's, and ours (frames received that the file did not take: a full disk). */
static void
live_drops(struct tui *t, char *buf, size_t size)
{
    struct rs_capture_status st;

    buf[0] = '\0';
    if (!rs_tui_model_capture_status(t->model, &st))
        return;
    uint64_t ours = st.done && st.stats.received > st.written ? st.stats.received - st.written
                                                              : 0;
    snprintf(buf, size, " | drops: kernel %llu, interface %llu, ring %llu, ours %llu",
             (unsigned long long)st.stats.kernel_drops,
             (unsigned long long)st.stats.iface_drops,
             (unsigned long long)st.stats.ring_drops, (unsigned long long)ours);
    if (st.done && st.rc != 0) {
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, " | capture stopped: %s", st.err);
    }
}

/* p was taken before the views were drawn: "loaded" is never shown beside figures read
 * before the pass ended. */
void
tui_draw_status(struct tui *t, int y, int cols, const struct rs_tui_progress *progress)
{
    struct rs_tui_progress p = *progress;
    char line[RS_ERRBUF_SIZE * 4 + 1024], state[RS_ERRBUF_SIZE + 64], drops[RS_ERRBUF_SIZE + 160];
    char job[TUI_PROMPT_MAX + 128], tagged[32] = "", time[40] = "";
    const char *filter = rs_tui_model_filter(t->model);

    if (p.failed)
        snprintf(state, sizeof(state), "error: %s", p.error);
    else if (p.live && !p.done)
        snprintf(state, sizeof(state), "capturing");
    else if (!p.done)
        snprintf(state, sizeof(state), "loading %3.0f%%",
                 p.file_size ? 100.0 * (double)p.file_done / (double)p.file_size : 0.0);
    else
        snprintf(state, sizeof(state), "loaded in %.3f s", (double)p.elapsed_ns / 1e9);
    live_drops(t, drops, sizeof(drops));
    tui_jobs_status(t, job, sizeof(job));
    if (t->n_tagged > 0)
        snprintf(tagged, sizeof(tagged), ", %llu tagged", (unsigned long long)t->n_tagged);
    if (t->time_col != RS_TIME_COL_RELATIVE)
        snprintf(time, sizeof(time), " | time: %s", time_names[t->time_col]);
    /* What matters now first (a message, a job), then the state of things. */
    const char *now = t->message[0] != '\0' ? t->message : job;
    snprintf(line, sizeof(line), " %s%s%s | %llu frames, %llu shown%s%s | filter: %s%s",
             now, now[0] != '\0' ? " | " : "", state, (unsigned long long)p.frames,
             (unsigned long long)p.shown, tagged, drops, filter[0] != '\0' ? filter : "none",
             time);
    const char *keys = t->help ? " Up, Down: scroll  any other key: back  q: quit "
                               : " ?: keys  q: quit ";
    int keys_w = (int)strlen(keys);
    unsigned attr = tui_attr(t, p.failed ? PAIR_BAD : PAIR_BAR);
    tui_put(t, y, 0, cols - keys_w > 0 ? cols - keys_w : 0, line, attr);
    tui_put(t, y, cols - keys_w > 0 ? cols - keys_w : 0, keys_w < cols ? keys_w : cols, keys,
            attr | A_BOLD);
}
