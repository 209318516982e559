/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * screen.c - the terminal side of `roceshark tui`: checks the terminal,
 * runs the loop that takes keys and redraws, and draws what every view
 * shares (the bar of views at the top, the status line, the keys).
 *
 * The screen is redrawn on a timer, ten times a second at most, whatever
 * arrives: keys are taken as they come but only change state, so a burst
 * of input or a fast capture never costs more drawing. The ingest thread
 * never waits for the screen.
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

#include "screen_int.h"

#define FRAME_MS 100            /* at most ten redraws a second */

static const char *const view_names[VIEW_COUNT] = {
    [VIEW_CONVS] = "F2 QP conversations", [VIEW_PACKETS] = "F3 Packets",
    [VIEW_ANOMALIES] = "F5 Anomalies", [VIEW_GRAPH] = "F6 Graph",
    [VIEW_COUNTERS] = "F7 NIC counters"};

static const char help_text[] =
    "Keys\n"
    "  Tab, Shift-Tab     next, previous view\n"
    "  F2, F3, F5         QP conversations, Packets, Anomalies\n"
    "  F6, F7             Graph of the selected conversation, NIC counters\n"
    "  Up, Down, PgUp, PgDn, Home, End\n"
    "                     move; End in Packets follows the newest packet\n"
    "  Enter              Conversations: that QP's packets; Anomalies: the packet\n"
    "  < >                Conversations: sort by the column to the left, right\n"
    "  i                  Conversations: invert the order\n"
    "  1-9 ... Enter      Conversations: sort by the column of that number (from 1)\n"
    "  Left, Right        Conversations: scroll the columns after the endpoints\n"
    "  J, K               Packets: move the cursor in the detail tree (its bytes are\n"
    "                     highlighted below)\n"
    "  Left, Right        Packets: fold, unfold the node under the tree's cursor\n"
    "  C, E               Packets: fold, unfold every node of the tree\n"
    "  Space              Packets: tag or untag the packet (a * in the margin)\n"
    "  o                  Conversations: freeze the order of the rows, or free it\n"
    "  / or F4            display filter (Wireshark syntax); Enter applies, Esc cancels\n"
    "  g or :             go to packet number\n"
    "  s, n               find the next packet whose line holds a text (any case); again\n"
    "  w, W               write the packets shown, or the tagged ones, to a pcap file\n"
    "  Up, Down           in the filter bar: the filters applied before\n"
    "  ? or F1            this help (any key closes it)\n"
    "  q                  quit\n";

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

/* One character of s as the terminal can show it; the number of bytes used. */
static size_t
next_char(const struct tui *t, const char *s, mbstate_t *ps, wchar_t *out)
{
    size_t n = mbrtowc(out, s, MB_CUR_MAX, ps);

    if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
        memset(ps, 0, sizeof(*ps));
        *out = '?';
        return 1;
    }
    if (!t->utf8 && *out > 0x7e)
        *out = *out == 0x2192 ? '>' : '?';     /* "a → b" reads "a > b", as tcpdump's */
    if (*out == '\t' || *out < 0x20)
        *out = ' ';
    return n;
}

void
tui_put(const struct tui *t, int y, int x, int width, const char *s, unsigned attr)
{
    wchar_t line[512];
    mbstate_t ps;
    int n = 0;

    if (width <= 0)
        return;
    if (width > (int)(sizeof(line) / sizeof(line[0])))
        width = (int)(sizeof(line) / sizeof(line[0]));
    memset(&ps, 0, sizeof(ps));
    while (*s != '\0' && n < width) {
        wchar_t wc;
        s += next_char(t, s, &ps, &wc);
        line[n++] = wc;
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
tui_apply_filter(struct tui *t, const char *text)
{
    char err[RS_ERRBUF_SIZE];

    if (rs_tui_model_set_filter(t->model, text, err) != 0) {
        tui_message(t, "filter: %s", err);
        return;
    }
    prompt_remember(t, text);
    view_convs_invalidate(t);
    t->pkt_sel = t->pkt_top = 0;
    t->an_sel = t->an_top = 0;
    t->follow = false;
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
    /* Not shown: either not indexed yet, or the filter hides it. */
    t->want_frame = number;
    struct rs_tui_progress p;
    rs_tui_model_progress(t->model, &p);
    if (number <= p.frames && rs_tui_model_filter(t->model)[0] != '\0')
        tui_apply_filter(t, "");
}

/* Packets looked at per search: a few seconds' reading at most on a slow disk. */
#define SEARCH_BUDGET 1000000u

void
tui_search_next(struct tui *t)
{
    char err[RS_ERRBUF_SIZE];
    uint64_t found, looked;

    if (rs_tui_model_shown_count(t->model) == 0) {
        tui_message(t, "no packets shown to search");
        return;
    }
    uint64_t from = t->view == VIEW_PACKETS ? t->pkt_sel : rs_tui_model_shown_count(t->model) - 1;
    int rc = rs_tui_model_search(t->model, from, t->search, SEARCH_BUDGET, &found, &looked, err);
    if (rc != 0) {
        tui_message(t, "find: %s", err);
        return;
    }
    t->view = VIEW_PACKETS;
    t->follow = false;
    t->want_frame = 0;
    t->pkt_sel = found;
    tui_message(t, "found \"%s\" in packet %llu (n: the next)", t->search,
                (unsigned long long)rs_tui_model_shown_frame(t->model, found));
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

static void
draw_tabs(struct tui *t, int cols)
{
    int x = 0;

    tui_put(t, 0, 0, cols, "", tui_attr(t, PAIR_BAR));
    for (int v = 0; v < VIEW_COUNT && x < cols; v++) {
        char label[48];
        snprintf(label, sizeof(label), v == (int)t->view ? "[%s]" : " %s ", view_names[v]);
        int w = (int)strlen(label);
        tui_put(t, 0, x, w < cols - x ? w : cols - x, label,
                v == (int)t->view ? A_BOLD | A_REVERSE : tui_attr(t, PAIR_BAR));
        x += w + 1;
    }
}

/* p was taken before the views were drawn: "loaded" is never shown beside figures read
 * before the pass ended. */
static void
draw_status(struct tui *t, int y, int cols, const struct rs_tui_progress *progress)
{
    struct rs_tui_progress p = *progress;
    char line[RS_ERRBUF_SIZE * 3 + 512], state[RS_ERRBUF_SIZE + 32];
    const char *filter = rs_tui_model_filter(t->model);

    if (p.failed)
        snprintf(state, sizeof(state), "error: %s", p.error);
    else if (p.live && !p.done)
        snprintf(state, sizeof(state), "capturing to %s", rs_tui_model_path(t->model));
    else if (!p.done)
        snprintf(state, sizeof(state), "loading %3.0f%%",
                 p.file_size ? 100.0 * (double)p.file_done / (double)p.file_size : 0.0);
    else
        snprintf(state, sizeof(state), "loaded in %.3f s", (double)p.elapsed_ns / 1e9);
    /* A message takes the place of the key hints until the next key. */
    char tagged[32] = "";
    if (t->n_tagged > 0)
        snprintf(tagged, sizeof(tagged), ", %llu tagged", (unsigned long long)t->n_tagged);
    snprintf(line, sizeof(line), " %s | %llu frames, %llu shown%s | filter: %s | %s", state,
             (unsigned long long)p.frames, (unsigned long long)p.shown, tagged,
             filter[0] != '\0' ? filter : "none",
             t->message[0] != '\0' ? t->message : "?: keys  q: quit");
    tui_put(t, y, 0, cols, line, tui_attr(t, p.failed ? PAIR_BAD : PAIR_BAR));
}

static void
draw_help(struct tui *t, int lines, int cols)
{
    const char *s = help_text;
    int y = 2;

    while (*s != '\0' && y < lines - 1) {
        const char *nl = strchr(s, '\n');
        size_t len = nl != NULL ? (size_t)(nl - s) : strlen(s);
        char row[160];
        snprintf(row, sizeof(row), "%.*s", (int)len, s);
        tui_put(t, y++, 0, cols, row, A_NORMAL);
        s += len + (nl != NULL);
    }
    while (y < lines - 1)
        tui_put(t, y++, 0, cols, "", A_NORMAL);
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
    draw_tabs(t, cols);
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
    else
        view_counters_draw(t, 1, body, cols);
    draw_status(t, lines - 1, cols, &progress);
    /* The prompt last: it leaves the cursor where typing goes. */
    curs_set(t->prompt.active ? 1 : 0);
    if (t->prompt.active)
        prompt_draw(t, lines - 2, cols);
    refresh();
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
        t->help = false;
        return;
    }
    bool confirming = t->quit_asked;
    t->quit_asked = false;
    switch (key) {
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
        t->view = (t->view + 1) % VIEW_COUNT;
        return;
    case KEY_BTAB:
        t->view = (t->view + VIEW_COUNT - 1) % VIEW_COUNT;
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
    case '?':
    case KEY_F(1):
        t->help = true;
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
        if (key != ERR)
            handle_key(t, key);
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
    if (opts->nic != NULL) {
        t.nic = opts->nic;
        snprintf(t.nic_name, sizeof(t.nic_name), "%.40s port %u", opts->nic_dev,
                 opts->nic_port);
        t.view = VIEW_COUNTERS;
    }
    setlocale(LC_ALL, "");
    t.utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    t.sort_col = RS_TUI_COL_CONV;
    t.tree_sel_field = -2;
    start_curses(&t, opts->no_color);
    run_loop(&t, opts->stop_requested);
    endwin();
    if (rs_tui_model_opts_live(&opts->model)) {
        result->live = true;
        rs_tui_model_stop_capture(t.model, &result->stats, &result->written,
                                  result->capture_error);
    }
    rs_tui_decoded_free(&t.dec);
    rs_tui_graph_free(t.graph);
    free(t.folds);
    tui_tags_free(&t);
    free(t.frozen_rank);
    free(t.conv_rows.rows);
    rs_tui_model_close(t.model);
    return 0;
}
