/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_anomalies.c - every expert item the capture shows (gaps,
 * retransmissions, NAKs, RNR, CNPs, CE marks, violations, bad CRCs), the
 * newest first, with its severity, group and conversation; Enter shows the
 * packet.
 */
#include <curses.h>
#include <stdio.h>

#include <roceshark/expert.h>

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

void
view_anomalies_draw(struct tui *t, int y, int rows, int cols)
{
    uint64_t n = rs_tui_model_anomaly_count(t->model);
    char line[256];

    snprintf(line, sizeof(line), "%8s  %-8s  %-10s  %5s  %s", "Frame", "Severity", "Group",
             "Conv", "Summary");
    tui_put(t, y, 0, cols, line, A_BOLD | A_UNDERLINE);
    if (n == 0) {
        tui_put(t, y + 1, 0, cols, "(no expert items)", A_DIM);
        return;
    }
    if (t->an_sel >= n)
        t->an_sel = n - 1;
    tui_scroll_into_view(&t->an_top, t->an_sel, n, rows - 1);
    for (int i = 0; i < rows - 1; i++) {
        struct rs_tui_anomaly a;
        uint64_t pos = t->an_top + (uint64_t)i;
        if (!item(t, n, pos, &a))
            break;
        const struct rs_expert *e = &rs_experts[a.expert];
        char conv[16];
        snprintf(conv, sizeof(conv), a.conv != 0 ? "%u" : "-", a.conv);
        snprintf(line, sizeof(line), "%8llu  %-8s  %-10s  %5s  %s (%s)",
                 (unsigned long long)a.frame, rs_severity_name(e->severity), e->group, conv,
                 e->summary, e->field);
        tui_put(t, y + 1 + i, 0, cols, line,
                tui_attr(t, severity_pair(e->severity)) | (pos == t->an_sel ? A_REVERSE : 0));
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
    return tui_move_selection(&t->an_sel, n, key, LINES - 4);
}
