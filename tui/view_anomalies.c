/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_anomalies.c - every expert item the capture shows (gaps,
 * retransmissions, NAKs, RNR, CNPs, CE marks, violations, bad CRCs), the
 * newest first, with its severity, group and conversation, under a line
 * that counts them by kind; Enter shows the packet. In a live capture, a
 * gap or violation that follows a frame the capture itself lost (the
 * kernel's, the interface's or the sniffer ring's drops) says "capture
 * loss" instead: the network lost nothing there.
 */
#include <curses.h>
#include <stdio.h>

#include <roceshark/dissectors/expert.h>

#include "screen_int.h"

static enum tui_pair
severity_pair(uint8_t severity)
{
    return severity == RS_SEV_ERROR ? PAIR_NAK : severity == RS_SEV_WARN ? PAIR_RETX
                                                                          : PAIR_CONGESTION;
}

/* Position from the newest to the item's index. */
static bool
item(struct tui *t, uint64_t n, uint64_t pos, struct rs_tui_anomaly *a)
{
    return pos < n && rs_tui_model_anomaly(t->model, n - 1 - pos, a);
}

/* The counts of each kind, and of the gaps and violations a capture loss explains. */
static void
draw_counts(struct tui *t, int y, int cols, uint64_t n)
{
    uint64_t count[RS_EXPERT_MAX_KINDS] = {0}, lost = 0;
    struct rs_tui_anomaly a;
    char line[1024];
    size_t len = 0;

    /* A gap or violation the capture's loss explains counts as that alone. */
    for (uint64_t i = 0; i < n && rs_tui_model_anomaly(t->model, i, &a); i++) {
        count[a.expert] += !a.capture_loss;
        lost += a.capture_loss;
    }
    len += (size_t)snprintf(line, sizeof(line), "%llu expert items", (unsigned long long)n);
    for (int k = 0; rs_experts[k].field != NULL && len < sizeof(line) - 80; k++)
        if (count[k] > 0)
            len += (size_t)snprintf(line + len, sizeof(line) - len, ", %s %llu",
                                    rs_experts[k].summary, (unsigned long long)count[k]);
    snprintf(line + len, sizeof(line) - len, "; capture loss %llu", (unsigned long long)lost);
    tui_put(t, y, 0, cols, line, A_BOLD);
}

void
view_anomalies_draw(struct tui *t, int y, int rows, int cols)
{
    uint64_t n = rs_tui_model_anomaly_count(t->model);
    char line[320];

    draw_counts(t, y, cols, n);
    snprintf(line, sizeof(line), "%8s  %-8s  %-10s  %5s  %s", "Frame", "Severity", "Group",
             "Conv", "Summary");
    tui_put(t, y + 1, 0, cols, line, A_BOLD | A_UNDERLINE);
    if (n == 0) {
        tui_put(t, y + 2, 0, cols, "(no expert items)", A_DIM);
        return;
    }
    if (t->an_sel >= n)
        t->an_sel = n - 1;
    tui_scroll_into_view(&t->an_top, t->an_sel, n, rows - 2);
    for (int i = 0; i < rows - 2; i++) {
        struct rs_tui_anomaly a;
        uint64_t pos = t->an_top + (uint64_t)i;
        if (!item(t, n, pos, &a))
            break;
        const struct rs_expert *e = &rs_experts[a.expert];
        char conv[16];
        snprintf(conv, sizeof(conv), a.conv != 0 ? "%u" : "-", a.conv);
        snprintf(line, sizeof(line), "%8llu  %-8s  %-10s  %5s  %s (%s)%s",
                 (unsigned long long)a.frame, rs_severity_name(e->severity), e->group, conv,
                 a.capture_loss ? "Capture loss" : e->summary, e->field,
                 a.capture_loss ? ": frames the capture dropped, not the network" : "");
        tui_put(t, y + 2 + i, 0, cols, line,
                tui_attr(t, a.capture_loss ? PAIR_CONGESTION : severity_pair(e->severity)) |
                (pos == t->an_sel ? A_REVERSE : 0));
    }
}

bool
view_anomalies_key(struct tui *t, int key)
{
    uint64_t n = rs_tui_model_anomaly_count(t->model);
    struct rs_tui_anomaly a;

    if (key == '\n' || key == '\r' || key == KEY_ENTER) {
        if (item(t, n, t->an_sel, &a))
            tui_show_frame(t, a.frame);
        return true;
    }
    return tui_move_selection(&t->an_sel, n, key, LINES - 5);
}
