/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats_io.c - `-z io,stat,INTERVAL[,FILTER]...`: frames and bytes per
 * interval of capture time, one column per filter given (an empty one, or
 * none at all, takes every frame), in tshark's box: its widths, its
 * rounding of the duration to the interval's decimals, and "Dur" ending
 * the last whole-second interval.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats_int.h"

#define US_PER_SEC 1000000

/* Decimals of the interval as written ("0.01": 2), at most 6. */
static unsigned
interval_digits(const char *text)
{
    const char *dot = strchr(text, '.');
    unsigned n = 0;

    while (dot != NULL && dot[1 + n] >= '0' && dot[1 + n] <= '9' && n < 6)
        n++;
    return n;
}

/* One column: its filter (NULL for every frame) and its heading's text. */
static int
add_column(struct rs_stat *st, const char *text, char *err)
{
    char ferr[RS_ERRBUF_SIZE];

    if (st->n_filters == IO_MAX_FILTERS)
        return rs_error(err, RS_EINVAL, "io,stat: at most %d columns", IO_MAX_FILTERS);
    if (text[0] != '\0' && rs_filter_compile(text, &st->filters[st->n_filters], ferr) != 0)
        /* The position in ferr matters more than the whole text. */
        return rs_error(err, RS_EINVAL, "io,stat filter %.32s%s: %s", text,
                        strlen(text) > 32 ? "..." : "", ferr);
    if ((st->filter_text[st->n_filters++] = strdup(text)) == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    return 0;
}

int
stats_io_init(struct rs_stat *st, const char *args, char *err)
{
    char *copy = strdup(args), *end;
    int rc = 0;

    if (copy == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    char *rest = strchr(copy, ',');
    if (rest != NULL)
        *rest++ = '\0';
    double secs = strtod(copy, &end);
    /* 0 is tshark's "the whole capture": one row, as long as the capture */
    if (copy[0] == '\0' || *end != '\0' || !(secs >= 0.000001 || secs == 0) || secs > 1e6) {
        rc = rs_error(err, RS_EINVAL,
                      "io,stat: the interval is a number of seconds (0: the whole capture)");
        goto done;
    }
    st->interval_ns = (int64_t)(secs * 1e9 + 0.5);
    st->interval_digits = interval_digits(copy);
    /* Filters are split at commas, as tshark splits them; an empty one counts. */
    for (char *f = rest; f != NULL && rc == 0;) {
        char *next = strchr(f, ',');
        if (next != NULL)
            *next++ = '\0';
        rc = add_column(st, f, err);
        f = next;
    }
    if (rc == 0 && st->n_filters == 0)
        rc = add_column(st, "", err);
    st->max_rows = st->n_filters <= RS_STAT_IO_FULL_COLUMNS ? IO_MAX_ROWS
                                                             : IO_MAX_CELLS / st->n_filters;
done:
    free(copy);
    return rc;
}

/* A time in whole microseconds, as tshark's io,stat counts, with the seconds apart: a
 * capture may span more seconds than 64 bits of microseconds hold (a pcapng timestamp
 * of 2^64-1 microseconds is 584,942 years after the epoch). Never negative. */
struct io_us {
    uint64_t sec;
    uint32_t us;
};

static struct io_us
io_us_of(struct rs_time t)
{
    struct io_us u = {(uint64_t)t.sec, ((uint32_t)t.nsec + 500) / 1000};

    if (u.us == US_PER_SEC) {
        u.sec++;
        u.us = 0;
    }
    return u;
}

/* a + us, for us below a second's worth of microseconds times a few. */
static struct io_us
io_us_add(struct io_us a, int64_t us)
{
    a.sec += (uint64_t)(us / US_PER_SEC);
    a.us += (uint32_t)(us % US_PER_SEC);
    if (a.us >= US_PER_SEC) {
        a.sec++;
        a.us -= US_PER_SEC;
    }
    return a;
}

static struct io_us
io_us_from(int64_t us)
{
    return io_us_add((struct io_us){0, 0}, us);
}

/* Whole intervals in t, at most max_rows (the bound rows end at, IO_MAX_ROWS or fewer):
 * seconds past max_rows intervals are compared before anything is multiplied, so that the
 * microseconds below stay under 2^20 * (10^12 + 10^6), far from overflowing. */
static uint64_t
io_intervals(struct io_us t, int64_t interval_us, size_t max_rows, bool *exact)
{
    uint64_t limit = (uint64_t)max_rows * ((uint64_t)interval_us / US_PER_SEC + 1);

    *exact = false;
    if (t.sec >= limit)
        return max_rows;
    uint64_t us = t.sec * US_PER_SEC + t.us;
    *exact = us % (uint64_t)interval_us == 0;
    uint64_t n = us / (uint64_t)interval_us;
    return n > max_rows ? max_rows : n;
}

void
stats_io_packet(struct rs_stat *st, const struct rs_packet *pkt)
{
    /* A frame before the first counts in the first row, as tshark counts it. */
    struct rs_time rel = rs_time_is_negative(pkt->frame->rel) ? RS_TIME_ZERO : pkt->frame->rel;
    int64_t interval = (st->interval_ns + 500) / 1000;
    size_t row = 0;
    bool exact;

    if (rs_time_cmp(rel, st->last_rel) > 0)
        st->last_rel = rel;
    /* in microseconds, rounded, as tshark places frames in its rows; every frame past
     * the last row the table prints is counted in that row */
    if (interval != 0) {
        uint64_t n = io_intervals(io_us_of(rel), interval, st->max_rows, &exact);
        row = n >= st->max_rows ? st->max_rows - 1 : (size_t)n;
    }
    size_t cols = st->n_filters;

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
        if (st->filters[c] != NULL && !rs_filter_match(st->filters[c], pkt))
            continue;
        st->cells[row * cols + c].frames++;
        st->cells[row * cols + c].bytes += bytes;
    }
}

/* Digits of v (1 for 0), at most max: how tshark sizes its columns. */
static int
magnitude(uint64_t v, int max)
{
    int mag = 0;

    do {
        mag++;
        v /= 10;
    } while (v != 0 && mag < max);
    return mag;
}

/* A line of the box: "|", text padded to the box's inside, "|". */
static void
box_line(struct rs_out *o, int width, const char *text)
{
    rs_out_printf(o, "|%-*s|\n", width - 2, text);
}

/* A column heading centred in w characters and its border, as tshark centres
 * it: one space more on the left when the spare space is odd. */
static void
heading(struct rs_out *o, const char *label, int w)
{
    int spare = w - (int)strlen(label);

    if (spare < 0)
        spare = 0;
    rs_out_printf(o, "%*s%s%*s|", spare / 2 + 1 + spare % 2, "", label, spare / 2 + 1, "");
}

/* A column's filter after " Col N: ", wrapped at the last space that fits. */
static void
filter_lines(struct rs_out *o, int width, const char *prefix, const char *text)
{
    char line[512];
    size_t max = width > 11 ? (size_t)width - 11 : 1, len = strlen(text);

    while (len > max) {
        size_t cut = max, next = max;
        for (size_t i = max; i > 0; i--) {
            if (text[i - 1] == ' ') {
                cut = i - 1;
                next = i;
                break;
            }
        }
        snprintf(line, sizeof(line), "%s%.*s", prefix, (int)cut, text);
        box_line(o, width, line);
        prefix = "        ";
        text += next;
        len -= next;
    }
    snprintf(line, sizeof(line), "%s%s", prefix, text);
    box_line(o, width, line);
}

/* The table's right border when the box is wider than the table. */
static void
filler(struct rs_out *o, int tabrow_w, int width)
{
    if (tabrow_w < width)
        rs_out_printf(o, "%*s|", width - tabrow_w - 1, "");
    rs_out_char(o, '\n');
}

void
stats_io_print(struct rs_stat *st, const struct rs_stat_stages *at, struct rs_out *o)
{
    (void)at;
    size_t cols = st->n_filters;
    /* tshark works in microseconds: the capture's duration rounded to them, shown
     * rounded to the interval's decimals (a whole-capture row: to 1, 3 or 6 by the
     * duration's size). */
    struct io_us dur = io_us_of(st->last_rel);
    int64_t interval = (st->interval_ns + 500) / 1000;
    struct io_us step = io_us_from(interval);
    bool whole = interval == 0 || dur.sec < step.sec || (dur.sec == step.sec && dur.us < step.us);
    int prec = (int)st->interval_digits;
    if (whole) {
        int mag = magnitude(dur.sec, 5);
        prec = mag >= 2 ? 1 : mag == 1 ? 3 : 6;
    }
    int64_t dv = US_PER_SEC;
    for (int i = 0; i < prec; i++)
        dv /= 10;
    struct io_us shown = io_us_add(dur, 5 * (dv / 10));
    if (whole)
        step = shown.sec > 0 || shown.us > 0 ? shown : io_us_from(1);
    int dur_mag = magnitude(shown.sec, 5);
    int natural = prec == 0 ? 2 * dur_mag + 8 : 2 * dur_mag + 2 * prec + 10;
    int invl_w = natural > 12 ? natural : 12;
    int lpad = (invl_w - natural) / 2, rpad = invl_w - natural - lpad;

    /* Each column: frames at least 6 wide, bytes 5, as their largest value needs. */
    int fr_w[IO_MAX_FILTERS], val_w[IO_MAX_FILTERS], tabrow_w = invl_w, width, filters_w = 0;
    for (size_t c = 0; c < cols; c++) {
        uint64_t max_frames = 0, max_bytes = 0;
        for (size_t r = 0; r < st->n_rows; r++) {
            const struct io_cell *cell = &st->cells[r * cols + c];
            max_frames = cell->frames > max_frames ? cell->frames : max_frames;
            max_bytes = cell->bytes > max_bytes ? cell->bytes : max_bytes;
        }
        fr_w[c] = magnitude(max_frames, 15) > 6 ? magnitude(max_frames, 15) : 6;
        val_w[c] = magnitude(max_bytes, 15) > 5 ? magnitude(max_bytes, 15) : 5;
        tabrow_w += fr_w[c] + 3 + val_w[c] + 3;
        int fw = st->filters[c] != NULL ? (int)strlen(st->filter_text[c]) + 11 : 26;
        filters_w = fw > filters_w ? fw : filters_w;
    }
    /* A filter wider than the table widens the box up to 102, and wraps beyond. */
    width = tabrow_w;
    if (filters_w > width && width < 102)
        width = filters_w < 102 ? filters_w : 102;
    if (width - tabrow_w == 1)
        width++;    /* no double border on the right */

    char text[128];
    rs_out_char(o, '\n');
    for (int i = 0; i < width; i++)
        rs_out_char(o, '=');
    rs_out_char(o, '\n');
    box_line(o, width, " IO Statistics");
    box_line(o, width, "");
    if (prec == 0)
        snprintf(text, sizeof(text), " Duration: %*llu.%06lu secs", dur_mag,
                 (unsigned long long)dur.sec, (unsigned long)dur.us);
    else
        snprintf(text, sizeof(text), " Duration: %*llu.%0*llu secs", dur_mag,
                 (unsigned long long)shown.sec, prec, (unsigned long long)(shown.us / dv));
    box_line(o, width, text);
    if (prec == 0)
        snprintf(text, sizeof(text), " Interval: %*llu secs", dur_mag,
                 (unsigned long long)step.sec);
    else
        snprintf(text, sizeof(text), " Interval: %*llu.%0*llu secs", dur_mag,
                 (unsigned long long)step.sec, prec, (unsigned long long)(step.us / dv));
    box_line(o, width, text);
    box_line(o, width, "");
    for (size_t c = 0; c < cols; c++) {
        snprintf(text, sizeof(text), c == 0 ? " Col%2zu: " : "    %2zu: ", c + 1);
        filter_lines(o, width, text,
                     st->filters[c] != NULL ? st->filter_text[c] : "Frames and bytes");
    }
    rs_out_str(o, "|-");
    for (int i = 0; i < width - 3; i++)
        rs_out_char(o, '-');
    rs_out_str(o, "|\n");

    rs_out_printf(o, "|%*s|", invl_w - 2, "");
    for (size_t c = 0; c < cols; c++)
        rs_out_printf(o, "%-2zu%*s|", c + 1, fr_w[c] + val_w[c] + 3, "");
    filler(o, tabrow_w, width);
    rs_out_printf(o, "| Interval%*s|", invl_w - 11, "");
    for (size_t c = 0; c < cols; c++) {
        heading(o, "Frames", fr_w[c]);
        heading(o, "Bytes", val_w[c]);
    }
    filler(o, tabrow_w, width);
    rs_out_str(o, "|-");
    for (int i = 0; i < tabrow_w - 3; i++)
        rs_out_char(o, '-');
    rs_out_char(o, '|');
    filler(o, tabrow_w, width);

    /* Every interval the capture spans, up to max_rows: the last row printed runs to
     * the end of the capture (stats_io_packet() counted every later frame there). */
    bool exact = false;
    size_t rows = whole ? 1 : (size_t)io_intervals(dur, interval, st->max_rows, &exact);
    if (!whole && !exact && rows < st->max_rows)
        rows++;
    st->rows_merged = 0;
    if (rows == st->max_rows) {
        /* how many more the capture spans, in floating point: only told, never used */
        double extra = ceil(((double)dur.sec + dur.us / 1e6) / ((double)interval / US_PER_SEC)) -
                       (double)st->max_rows;
        st->rows_merged = extra <= 0 ? 0 : extra >= 0x1p64 ? UINT64_MAX : (uint64_t)extra;
    }
    for (size_t r = 0; r < rows; r++) {
        bool last = r + 1 == rows;
        struct io_us from = io_us_from((int64_t)r * interval);
        struct io_us to = last ? shown : io_us_from((int64_t)(r + 1) * interval);
        if (prec == 0) {
            rs_out_printf(o, "| %*s%*llu <> ", lpad, "", dur_mag, (unsigned long long)from.sec);
            if (last)       /* tshark ends the last whole-second interval at "Dur" */
                rs_out_printf(o, "%-*s|", dur_mag + 1 + rpad, "Dur");
            else
                rs_out_printf(o, "%*llu%*s |", dur_mag, (unsigned long long)to.sec, rpad, "");
        } else {
            rs_out_printf(o, "| %*llu.%0*llu <> %*llu.%0*llu |", dur_mag,
                          (unsigned long long)from.sec, prec,
                          (unsigned long long)(from.us / dv), dur_mag,
                          (unsigned long long)to.sec, prec, (unsigned long long)(to.us / dv));
        }
        for (size_t c = 0; c < cols; c++) {
            const struct io_cell *cell = r < st->n_rows ? &st->cells[r * cols + c] : NULL;
            rs_out_printf(o, " %*llu | %*llu |", fr_w[c],
                          (unsigned long long)(cell != NULL ? cell->frames : 0), val_w[c],
                          (unsigned long long)(cell != NULL ? cell->bytes : 0));
        }
        filler(o, tabrow_w, width);
    }
    for (int i = 0; i < width; i++)
        rs_out_char(o, '=');
    rs_out_char(o, '\n');
}

void
stats_io_free(struct rs_stat *st)
{
    free(st->cells);
}
