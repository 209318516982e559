/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats_io.c - `-z io,stat,INTERVAL[,FILTER]...`: frames and bytes per
 * interval of capture time, overall and for each display filter given.
 */
#include <stdlib.h>
#include <string.h>

#include "stats/stats_int.h"

int
stats_io_init(struct rs_stat *st, const char *args, char *err)
{
    char *copy = strdup(args), *save = NULL, *tok, *end;
    int rc = 0;

    if (copy == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    tok = strtok_r(copy, ",", &save);
    double secs = tok != NULL ? strtod(tok, &end) : 0;
    /* 0 is tshark's "the whole capture": one row, as long as the capture */
    if (tok == NULL || *end != '\0' || !(secs >= 0.000001 || secs == 0) || secs > 1e6) {
        rc = rs_error(err, RS_EINVAL,
                      "io,stat: the interval is a number of seconds (0: the whole capture)");
        goto done;
    }
    st->interval_ns = (int64_t)(secs * 1e9 + 0.5);
    while ((tok = strtok_r(NULL, ",", &save)) != NULL) {
        char ferr[RS_ERRBUF_SIZE];
        if (st->n_filters == IO_MAX_FILTERS) {
            rc = rs_error(err, RS_EINVAL, "io,stat: at most %d filters", IO_MAX_FILTERS);
            goto done;
        }
        if (rs_filter_compile(tok, &st->filters[st->n_filters], ferr) != 0) {
            /* The position in ferr matters more than the whole text. */
            rc = rs_error(err, RS_EINVAL, "io,stat filter %.32s%s: %s", tok,
                          strlen(tok) > 32 ? "..." : "", ferr);
            goto done;
        }
        st->filter_text[st->n_filters++] = strdup(tok);
    }
done:
    free(copy);
    return rc;
}

bool
stats_io_uses_analysis(const struct rs_stat *st)
{
    for (unsigned i = 0; i < st->n_filters; i++)
        if (rs_filter_uses(st->filters[i], "roceshark.analysis"))
            return true;
    return false;
}

void
stats_io_packet(struct rs_stat *st, const struct rs_packet *pkt)
{
    /* In nanoseconds, exactly, up to 292 years after the first frame (the
     * conversion saturates there); past that, where rows are at least
     * 292 years / IO_MAX_ROWS long, in floating point. */
    int64_t rel = rs_time_to_ns(pkt->frame->rel);
    size_t row;
    if (rel > st->last_rel_ns)
        st->last_rel_ns = rel;
    if (st->interval_ns == 0) {
        row = 0;
    } else if (rel < INT64_MAX) {
        row = (size_t)((rel < 0 ? 0 : rel) / st->interval_ns);
    } else {
        double r = rs_time_to_double(pkt->frame->rel) / (st->interval_ns / 1e9);
        row = r >= (double)IO_MAX_ROWS ? IO_MAX_ROWS : (size_t)r;
    }
    size_t cols = 1 + st->n_filters;

    if (row >= IO_MAX_ROWS)
        return;     /* an interval far too fine for the capture's length */
    if (row >= st->cap_rows) {
        size_t cap = st->cap_rows ? st->cap_rows : 64;
        while (cap <= row)
            cap *= 2;
        struct io_cell *cells = realloc(st->cells, cap * cols * sizeof(*cells));
        if (cells == NULL)
            return;     /* the statistic stays short of this row */
        memset(cells + st->cap_rows * cols, 0, (cap - st->cap_rows) * cols * sizeof(*cells));
        st->cells = cells;
        st->cap_rows = cap;
    }
    if (row + 1 > st->n_rows)
        st->n_rows = row + 1;
    uint32_t bytes = rs_packet_wire_len(pkt);
    for (size_t c = 0; c < cols; c++) {
        if (c > 0 && !rs_filter_match(st->filters[c - 1], pkt))
            continue;
        st->cells[row * cols + c].frames++;
        st->cells[row * cols + c].bytes += bytes;
    }
}

void
stats_io_print(struct rs_stat *st, struct rs_out *o)
{
    size_t cols = 1 + st->n_filters;
    /* interval 0: one row over the whole capture, as tshark's */
    int64_t interval = st->interval_ns != 0 ? st->interval_ns : st->last_rel_ns;

    rs_out_str(o, "\n===================================\n| IO Statistics\n");
    rs_out_printf(o, "| Interval: %.6f secs\n| Col 1: Frames and bytes\n", interval / 1e9);
    for (unsigned i = 0; i < st->n_filters; i++)
        rs_out_printf(o, "| Col %u: %s\n", i + 2, st->filter_text[i]);
    rs_out_printf(o, "|-----------------------------------\n| %27s", "Interval");
    for (size_t c = 0; c < cols; c++)
        rs_out_printf(o, " | %10s %12s", "Frames", "Bytes");
    rs_out_char(o, '\n');
    for (size_t r = 0; r < st->n_rows; r++) {
        double from = (double)r * interval / 1e9;
        rs_out_printf(o, "| %12.6f <> %12.6f", from, from + interval / 1e9);
        for (size_t c = 0; c < cols; c++)
            rs_out_printf(o, " | %10llu %12llu",
                          (unsigned long long)st->cells[r * cols + c].frames,
                          (unsigned long long)st->cells[r * cols + c].bytes);
        rs_out_char(o, '\n');
    }
    rs_out_str(o, "===================================\n");
}

void
stats_io_free(struct rs_stat *st)
{
    for (unsigned i = 0; i < st->n_filters; i++) {
        rs_filter_free(st->filters[i]);
        free(st->filter_text[i]);
    }
    free(st->cells);
}
