/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_counters.c - the NIC's own counters beside the capture's view: each
 * counter of the port's counters/ and hw_counters/ with its value and its
 * rate over the last second, and, where the capture counts the same thing
 * (PSN gaps, NAKs, RNR, CNPs, CE marks), the capture's figure next to it.
 * The port is read once a second, whichever view is shown, so the rates
 * are ready when the user comes here.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>

#include <roceshark/dissectors/nstime.h>

#include "screen_int.h"

#define SAMPLE_NS 1000000000ull

void
view_counters_tick(struct tui *t)
{
    uint64_t now = rs_monotonic_ns();

    if (t->nic == NULL || now < t->nic_next_ns)
        return;
    rs_tui_nic_sample(t->nic, now);
    t->nic_next_ns = now + SAMPLE_NS;
}

void
view_counters_draw(struct tui *t, int y, int rows, int cols)
{
    char line[256];

    if (t->nic == NULL) {
        tui_put(t, y, 0, cols, "No RDMA port: start with --counters DEV[:PORT] to see its "
                "counters here (--sysfs ROOT reads another tree)", A_DIM);
        return;
    }
    /* The table's rows, in its order (sums need none), as often as it builds them. */
    const struct rs_tui_conv_row *conv = NULL;
    size_t n_conv = 0;
    char err[RS_ERRBUF_SIZE];
    if (view_convs_rows(t, false, &conv, &n_conv, err) != 0)
        n_conv = 0;
    size_t n = rs_tui_nic_count(t->nic);
    snprintf(line, sizeof(line), "%-30s %-11s %16s %12s   %-16s %12s", t->nic_name,
             "Group", "Value", "/s", "Capture", "Value");
    tui_put(t, y, 0, cols, line, A_BOLD | A_UNDERLINE);
    if (t->cnt_sel >= n)
        t->cnt_sel = n > 0 ? n - 1 : 0;
    tui_scroll_into_view(&t->cnt_top, t->cnt_sel, n, rows - 1);
    for (int i = 0; i < rows - 1 && t->cnt_top + (uint64_t)i < n; i++) {
        uint64_t pos = t->cnt_top + (uint64_t)i;
        const struct rs_tui_nic_counter *c = rs_tui_nic_get(t->nic, pos);
        enum rs_tui_capture_figure fig = rs_tui_nic_capture_figure(c->name);
        char value[24] = "?", rate[24] = "", mine[24] = "";
        if (c->readable) {
            snprintf(value, sizeof(value), "%llu", (unsigned long long)c->value);
            /* After a reset there is no rate: "-", not 0. */
            snprintf(rate, sizeof(rate), c->have_rate ? "%.0f" : "-", c->rate);
        }
        if (fig != RS_TUI_FIG_NONE)
            snprintf(mine, sizeof(mine), "%llu", (unsigned long long)
                     rs_tui_capture_figure_value(conv, n_conv, fig));
        snprintf(line, sizeof(line), "%-30s %-11s %16s %12s   %-16s %12s", c->name,
                 c->hw ? "hw_counters" : "counters", value, rate,
                 rs_tui_capture_figure_name(fig), mine);
        /* A counter that moves is drawn bold, one that names trouble in the NIC's colour. */
        unsigned attr = c->rate > 0 ? A_BOLD : A_NORMAL;
        tui_put(t, y + 1 + i, 0, cols, line, attr | (pos == t->cnt_sel ? A_REVERSE : 0));
    }
}

bool
view_counters_key(struct tui *t, int key)
{
    return t->nic != NULL &&
           tui_move_selection(&t->cnt_sel, rs_tui_nic_count(t->nic), key, LINES - 4);
}
