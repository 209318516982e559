/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * screen.c - the terminal side of `roceshark tui`: checks the terminal,
 * runs the loop that takes keys and redraws, and draws what every view
 * shares (the bar of views at the top, the status line, the keys).
 *
 * The screen is redrawn on a timer, ten times a second at most, whatever
 * arrives: keys are taken as they come but only change state, so a burst
 * of input or a fast capture never costs more drawing. Only a search or a
 * write that starts is drawn at once, so that it is seen to run. The ingest thread
 * never waits for the screen, nor the screen for anything long: searches
 * and writes run on threads of their own (jobs.c), and Esc stops them.
 *
 * Text is drawn from UTF-8 whatever the locale: under LC_ALL=C each
 * character beyond ASCII that the views draw has an ASCII stand-in (the
 * summary line's arrow "->", a tree's fold marks "+" and "-", block and
 * braille glyphs in the graph), and any other shows as one '?'.
 */
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include <roceshark/dissectors/print.h>

#include "screen_int.h"

#define FRAME_MS 100            /* at most ten redraws a second */
#define KEY_ESC 27
#define TIME_FORMATS 8          /* -t's: enum rs_time_col */

static const char help_text[] =
    "Keys (Up, Down, PgUp, PgDn scroll this help; any other key closes it)\n"
    "  Tab, Shift-Tab     next, previous view\n"
    "  F2, F3, F5         QP conversations, Packets, Anomalies\n"
    "  F6, F7             Graph of the selected conversation, NIC counters\n"
    "  F8                 Segments (with several -r): each packet across the points\n"
    "  Up, Down, j, k, PgUp, PgDn, Home, End\n"
    "                     move; End in Packets follows the newest packet\n"
    "  Enter              Conversations: that QP's packets; Anomalies: the packet\n"
    "  < >                Conversations: sort by the column to the left, right\n"
    "  i                  Conversations: invert the order\n"
    "  1-9 ... Enter      Conversations: sort by the column of that number (from 1)\n"
    "  Left, Right, h, l  Conversations: scroll the columns after the endpoints\n"
    "  J, K               Packets: move the cursor in the detail tree (its bytes are\n"
    "                     highlighted below)\n"
    "  Left, Right, h, l  Packets: fold, unfold the node under the tree's cursor\n"
    "  C, E               Packets: fold, unfold every node of the tree\n"
    "  Space              Packets: tag or untag the packet (a * in the margin)\n"
    "  t                  Packets: the next time format, as read -t: relative,\n"
    "                     absolute, absolute with date, UTC, UTC with date, epoch,\n"
    "                     delta, delta displayed\n"
    "  o                  Conversations: freeze the order of the rows, or free it\n"
    "  x                  Segments: only the packets lost, CE marked or missed, or all\n"
    "  Left, Right, h, l  Segments: scroll the segment columns\n"
    "  Enter              Segments: the packet, when A (the file shown) saw it\n"
    "  / or F4            display filter (Wireshark syntax); Enter applies, Esc cancels\n"
    "  g or :             go to packet number (asks before clearing a filter hiding it)\n"
    "  s, n               find the next packet whose line holds a text (any case); again\n"
    "  w, W               write the packets shown, or the tagged ones, to a pcap file\n"
    "  Esc                stop a search or a write; while a new filter loads, put the\n"
    "                     filter before back\n"
    "  Up, Down           in the filter bar: the filters applied before\n"
    "  ? or F1            this help\n"
    "  q                  quit (twice while capturing)\n";

unsigned
tui_attr(const struct tui *t, enum tui_pair pair)
{
    static const unsigned mono[] = {[PAIR_NONE] = A_NORMAL, [PAIR_NAK] = A_BOLD,
                               [PAIR_RETX] = A_UNDERLINE, [PAIR_CONGESTION] = A_DIM,
                               [PAIR_BAR] = A_REVERSE, [PAIR_OK] = A_NORMAL,
                               [PAIR_BAD] = A_REVERSE};

    if (!t->color || pair == PAIR_NONE)
        return mono[pair];
    return (unsigned)COLOR_PAIR(pair) | (pair == PAIR_BAR ? A_BOLD : 0u);
}

/* The code point of the UTF-8 sequence at s and its length; an invalid byte is U+FFFD,
 * one byte long. Decoded here rather than by mbrtowc(), which follows the locale: under
 * LC_ALL=C it turned the arrow's three bytes into "???". */
static size_t
utf8_next(const char *s, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = u[0] < 0x80 ? 1 : (u[0] >> 5) == 6 ? 2 : (u[0] >> 4) == 14 ? 3 : (u[0] >> 3) == 30 ? 4
                                                                                                 : 0;
    if (n == 0) {
        *cp = 0xfffd;
        return 1;
    }
    uint32_t c = n == 1 ? u[0] : u[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((u[i] & 0xc0) != 0x80) {
            *cp = 0xfffd;
            return 1;
        }
        c = c << 6 | (u[i] & 0x3f);
    }
    *cp = c;
    return n;
}

/* What a terminal without UTF-8 shows for a character beyond ASCII. */
static const char *
ascii_stand_in(uint32_t cp)
{
    switch (cp) {
    case 0x2192: return "->";       /* the summary line's arrow, as tcpdump's */
    case 0x25b8: return "+";        /* a folded node */
    case 0x25be: return "-";        /* an unfolded node */
    case 0x2026: return "...";
    case 0x00b5: return "u";        /* micro */
    default:
        /* Blocks of the throughput panel by height, braille dots of the graph. */
        if (cp >= 0x2581 && cp <= 0x2588)
            return cp >= 0x2585 ? "#" : cp >= 0x2583 ? ":" : ".";
        if (cp >= 0x2800 && cp <= 0x28ff)
            return cp == 0x2800 ? " " : ":";
        return "?";
    }
}

void
tui_put(const struct tui *t, int y, int x, int width, const char *s, unsigned attr)
{
    wchar_t line[512];
    int n = 0;

    if (width <= 0)
        return;
    if (width > (int)(sizeof(line) / sizeof(line[0])))
        width = (int)(sizeof(line) / sizeof(line[0]));
    while (*s != '\0' && n < width) {
        uint32_t cp;
        s += utf8_next(s, &cp);
        if (cp == '\t' || cp < 0x20)
            cp = ' ';
        if (cp < 0x7f || t->utf8) {
            line[n++] = (wchar_t)cp;
            continue;
        }
        for (const char *a = ascii_stand_in(cp); *a != '\0' && n < width; a++)
            line[n++] = (wchar_t)*a;
    }
    while (n < width)
        line[n++] = ' ';
    attron((int)attr);
    mvaddnwstr(y, x, line, n);
    attroff((int)attr);
}

void
tui_message(struct tui *t, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(t->message, sizeof(t->message), fmt, ap);
    va_end(ap);
}

void
tui_scroll_into_view(uint64_t *top, uint64_t sel, uint64_t n, int rows)
{
    if (rows <= 0)
        return;
    if (sel < *top)
        *top = sel;
    if (sel >= *top + (uint64_t)rows)
        *top = sel - (uint64_t)rows + 1;
    if (n <= (uint64_t)rows)
        *top = 0;
    else if (*top > n - (uint64_t)rows)
        *top = n - (uint64_t)rows;
}

bool
tui_move_selection(uint64_t *sel, uint64_t n, int key, int page)
{
    uint64_t step = page > 1 ? (uint64_t)page - 1 : 1;

    switch (key) {
    case KEY_UP:
        if (*sel > 0)
            (*sel)--;
        break;
    case KEY_DOWN:
        if (*sel + 1 < n)
            (*sel)++;
        break;
    case KEY_PPAGE:
        *sel = *sel > step ? *sel - step : 0;
        break;
    case KEY_NPAGE:
        *sel = *sel + step < n ? *sel + step : (n > 0 ? n - 1 : 0);
        break;
    case KEY_HOME:
        *sel = 0;
        break;
    case KEY_END:
        *sel = n > 0 ? n - 1 : 0;
        break;
    default:
        return false;
    }
    return true;
}

static int
help_lines(void)
{
    int n = 0;

    for (const char *s = help_text; *s != '\0'; s++)
        n += *s == '\n';
    return n;
}

/* The help from its line help_top on: it scrolls when the terminal is too short for it
 * (at 80x24 it is). */
static void
draw_help(struct tui *t, int lines, int cols)
{
    const char *s = help_text;
    int rows = lines - 2, total = help_lines();

    if (t->help_top > total - rows)
        t->help_top = total - rows > 0 ? total - rows : 0;
    for (int skip = t->help_top; skip > 0 && *s != '\0'; skip--)
        s = strchr(s, '\n') + 1;
    int y = 1;
    while (*s != '\0' && y < lines - 1) {
        const char *nl = strchr(s, '\n');
        size_t len = nl != NULL ? (size_t)(nl - s) : strlen(s);
        char row[160];
        snprintf(row, sizeof(row), "%.*s", (int)len, s);
        tui_put(t, y, 0, cols, row, y == 1 && t->help_top == 0 ? A_BOLD : A_NORMAL);
        y++;
        s += len + (nl != NULL);
    }
    while (y < lines - 1)
        tui_put(t, y++, 0, cols, "", A_NORMAL);
    if (total > rows) {
        char more[64];
        snprintf(more, sizeof(more), "(lines %d-%d of %d)", t->help_top + 1,
                 t->help_top + rows < total ? t->help_top + rows : total, total);
        tui_put(t, lines - 2, cols - (int)strlen(more) - 1, (int)strlen(more), more, A_DIM);
    }
}

/* Keys while the help shows: scrolling, or back. */
static void
help_key(struct tui *t, int key)
{
    int rows = LINES - 2;

    switch (key) {
    case KEY_UP: case 'k':
        t->help_top -= t->help_top > 0;
        return;
    case KEY_DOWN: case 'j':
        t->help_top++;
        return;
    case KEY_PPAGE:
        t->help_top = t->help_top > rows ? t->help_top - rows : 0;
        return;
    case KEY_NPAGE: case ' ':
        t->help_top += rows;
        return;
    case KEY_HOME:
        t->help_top = 0;
        return;
    case KEY_END:
        t->help_top = help_lines();
        return;
    default:
        t->help = false;
        if (key == 'q')
            t->quit_asked = false;      /* q closes the help; the next q quits */
        return;
    }
}

static void
draw(struct tui *t)
{
    int lines = LINES, cols = COLS;

    erase();
    if (lines < RS_TUI_MIN_LINES || cols < RS_TUI_MIN_COLS) {
        char msg[96];
        snprintf(msg, sizeof(msg), "terminal too small: %dx%d, need %dx%d", cols, lines,
                 RS_TUI_MIN_COLS, RS_TUI_MIN_LINES);
        tui_put(t, 0, 0, cols, msg, A_BOLD);
        refresh();
        return;
    }
    struct rs_tui_progress progress;
    rs_tui_model_progress(t->model, &progress);
    tui_jobs_poll(t);
    tui_draw_top(t, cols);
    int body = lines - 2 - (t->prompt.active ? 1 : 0);
    if (t->help)
        draw_help(t, lines, cols);
    else if (t->view == VIEW_CONVS)
        view_convs_draw(t, 1, body, cols);
    else if (t->view == VIEW_PACKETS)
        view_packets_draw(t, 1, body, cols);
    else if (t->view == VIEW_ANOMALIES)
        view_anomalies_draw(t, 1, body, cols);
    else if (t->view == VIEW_GRAPH)
        view_graph_draw(t, 1, body, cols);
    else if (t->view == VIEW_SEGMENTS)
        view_segments_draw(t, 1, body, cols);
    else
        view_counters_draw(t, 1, body, cols);
    tui_draw_status(t, lines - 1, cols, &progress);
    /* The prompt last: it leaves the cursor where typing goes. */
    curs_set(t->prompt.active ? 1 : 0);
    if (t->prompt.active)
        prompt_draw(t, lines - 2, cols);
    refresh();
}

bool
tui_view_present(const struct tui *t, enum tui_view v)
{
    return v != VIEW_SEGMENTS || t->corr != NULL;
}

static void
handle_key(struct tui *t, int key)
{
    if (key == KEY_RESIZE)
        return;
    if (t->prompt.active) {
        prompt_key(t, key);
        return;
    }
    t->message[0] = '\0';
    if (t->help) {
        help_key(t, key);
        return;
    }
    bool confirming = t->quit_asked;
    t->quit_asked = false;
    /* vi's keys as htop and termshark take them; J and K stay the tree's cursor. */
    if (key == 'j')
        key = KEY_DOWN;
    else if (key == 'k')
        key = KEY_UP;
    switch (key) {
    case KEY_ESC:
        if (!tui_jobs_escape(t))
            tui_message(t, "nothing to stop");
        return;
    case 't':
        t->time_col = (uint8_t)((t->time_col + 1) % TIME_FORMATS);
        return;
    case 'q': {
        struct rs_tui_progress p;
        rs_tui_model_progress(t->model, &p);
        /* A running capture is not ended by one stray key. */
        if (p.live && !p.done && !confirming) {
            t->quit_asked = true;
            tui_message(t, "the capture is running: q again stops it and quits");
            return;
        }
        t->quit = true;
        return;
    }
    case '\t':
        do
            t->view = (t->view + 1) % VIEW_COUNT;
        while (!tui_view_present(t, t->view));
        return;
    case KEY_BTAB:
        do
            t->view = (t->view + VIEW_COUNT - 1) % VIEW_COUNT;
        while (!tui_view_present(t, t->view));
        return;
    case KEY_F(2):
        t->view = VIEW_CONVS;
        return;
    case KEY_F(3):
        t->view = VIEW_PACKETS;
        return;
    case KEY_F(5):
        t->view = VIEW_ANOMALIES;
        return;
    case KEY_F(6):
        t->view = VIEW_GRAPH;
        return;
    case KEY_F(7):
        t->view = VIEW_COUNTERS;
        return;
    case KEY_F(8):
        if (tui_view_present(t, VIEW_SEGMENTS))
            t->view = VIEW_SEGMENTS;
        else
            tui_message(t, "F8 Segments needs the captures of several points: tui -r A.pcap "
                        "-r B.pcap");
        return;
    case '?':
    case KEY_F(1):
        t->help = true;
        t->help_top = 0;
        return;
    case '/':
    case KEY_F(4):
        prompt_open(t, PROMPT_FILTER, rs_tui_model_filter(t->model));
        return;
    case 'g':
    case ':':
        prompt_open(t, PROMPT_GOTO, "");
        return;
    case 's':
        prompt_open(t, PROMPT_SEARCH, t->search);
        return;
    case 'n':
        if (t->search[0] == '\0')
            tui_message(t, "nothing to find yet: s asks for the text");
        else
            tui_search_next(t);
        return;
    case 'w':
        prompt_open(t, PROMPT_WRITE, "");
        return;
    case 'W':
        if (t->n_tagged == 0)
            tui_message(t, "no packets tagged (Space tags one in the packet list)");
        else
            prompt_open(t, PROMPT_WRITE_TAGGED, "");
        return;
    default:
        break;
    }
    if (t->view == VIEW_CONVS)
        view_convs_key(t, key);
    else if (t->view == VIEW_PACKETS)
        view_packets_key(t, key);
    else if (t->view == VIEW_ANOMALIES)
        view_anomalies_key(t, key);
    else if (t->view == VIEW_GRAPH)
        view_graph_key(t, key);
    else if (t->view == VIEW_SEGMENTS)
        view_segments_key(t, key);
    else
        view_counters_key(t, key);
}

static int64_t
now_ms(void)
{
    return (int64_t)(rs_monotonic_ns() / 1000000u);
}

static void
run_loop(struct tui *t, bool (*stop_requested)(void))
{
    int64_t next_draw = now_ms();

    while (!t->quit && (stop_requested == NULL || !stop_requested())) {
        int64_t wait = next_draw - now_ms();
        if (wait <= 0) {
            view_counters_tick(t);
            draw(t);
            next_draw = now_ms() + FRAME_MS;
            continue;
        }
        timeout((int)wait);
        int key = getch();
        if (key == ERR)
            continue;
        enum tui_job before = t->job;
        handle_key(t, key);
        /* A search or a write just started shows at once that it runs, with its progress:
         * a short one was over before the next frame and never seen to run. */
        if (t->job != before && t->job != JOB_NONE)
            next_draw = now_ms();
    }
}

/* The terminal's size, from the terminal itself: curses is not started yet. */
static int
check_terminal(char *err)
{
    struct winsize ws;

    if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
        return rs_error(err, RS_EINVAL, "standard %s is not a terminal",
                        isatty(STDOUT_FILENO) ? "input" : "output");
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 &&
        (ws.ws_col < RS_TUI_MIN_COLS || ws.ws_row < RS_TUI_MIN_LINES))
        return rs_error(err, RS_EINVAL, "the terminal is %ux%u, smaller than %dx%d",
                        ws.ws_col, ws.ws_row, RS_TUI_MIN_COLS, RS_TUI_MIN_LINES);
    return 0;
}

static void
start_curses(struct tui *t, bool no_color)
{
    const char *nc = getenv("NO_COLOR");

    initscr();
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    t->color = !no_color && (nc == NULL || nc[0] == '\0') && has_colors();
    if (t->color) {
        start_color();
        use_default_colors();
        init_pair(PAIR_NAK, COLOR_RED, -1);
        init_pair(PAIR_RETX, COLOR_YELLOW, -1);
        init_pair(PAIR_CONGESTION, COLOR_BLUE, -1);
        init_pair(PAIR_BAR, COLOR_BLACK, COLOR_CYAN);
        init_pair(PAIR_OK, COLOR_GREEN, -1);
        init_pair(PAIR_BAD, COLOR_WHITE, COLOR_RED);
    }
}

/* The title: the file shown, or what is captured and where it goes. */
static void
source_title(struct tui *t, const struct rs_tui_model_opts *o)
{
    const char *live = o->iface != NULL ? o->iface : o->rdma;

    if (live != NULL)
        snprintf(t->source, sizeof(t->source), "%s -> %s", live,
                 o->path != NULL ? o->path : rs_tui_model_path(t->model));
    else
        snprintf(t->source, sizeof(t->source), "%s", o->path);
}

int
rs_tui_run(const struct rs_tui_run_opts *opts, struct rs_tui_run_result *result, char *err)
{
    struct tui t;
    int rc;

    memset(result, 0, sizeof(*result));
    memset(&t, 0, sizeof(t));
    if ((rc = check_terminal(err)) != 0 ||
        (rc = rs_tui_model_open(&opts->model, &t.model, err)) != 0)
        return rc;
    t.corr = opts->corr;
    if (opts->nic != NULL) {
        t.nic = opts->nic;
        snprintf(t.nic_name, sizeof(t.nic_name), "%.40s port %u", opts->nic_dev,
                 opts->nic_port);
        t.view = VIEW_COUNTERS;
    }
    setlocale(LC_ALL, "");
    t.utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    /* iftop's order: the busiest over the last 2 s first. */
    t.sort_col = RS_TUI_COL_RATE2;
    t.sort_desc = true;
    source_title(&t, &opts->model);
    t.tree_sel_node = TREE_SEL_NONE;
    start_curses(&t, opts->no_color);
    run_loop(&t, opts->stop_requested);
    endwin();
    if (rs_tui_model_opts_live(&opts->model)) {
        result->live = true;
        rs_tui_model_stop_capture(t.model, &result->stats, &result->written,
                                  result->capture_error);
    }
    tui_jobs_end(&t);
    rs_tui_decoded_free(&t.dec);
    rs_tui_tree_free(&t.tree);
    rs_tui_graph_free(t.graph);
    free(t.folds);
    tui_tags_free(&t);
    free(t.frozen_rank);
    free(t.seg_notable);
    free(t.conv_rows.rows);
    rs_tui_model_close(t.model);
    return 0;
}
