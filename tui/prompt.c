/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prompt.c - the one-line input bar above the status line: the display
 * filter (checked as it is typed: green when it compiles, red with the
 * compiler's message, which names the position, when not; Up and Down
 * recall the filters applied before), the packet number to go to, the text
 * of a packet to find, and the file to write the shown or the tagged
 * packets to.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "screen_int.h"

#define KEY_ESC 27

static const char *const labels[] = {[PROMPT_FILTER] = "Filter: ",
                                     [PROMPT_GOTO] = "Go to packet: ",
                                     [PROMPT_WRITE] = "Write shown packets to: ",
                                     [PROMPT_WRITE_TAGGED] = "Write tagged packets to: ",
                                     [PROMPT_SORT] = "Sort by column number: ",
                                     [PROMPT_SEARCH] = "Find packet (text of its line): ",
                                     [PROMPT_CLEAR_FILTER] = ""};

static void
check(struct tui *t)
{
    struct tui_prompt *p = &t->prompt;

    p->error[0] = '\0';
    if (p->kind == PROMPT_FILTER && rs_tui_model_check_filter(p->text, p->error) == 0)
        p->error[0] = '\0';
}

void
prompt_open(struct tui *t, enum tui_prompt_kind kind, const char *initial)
{
    struct tui_prompt *p = &t->prompt;

    p->active = true;
    p->kind = kind;
    p->recall = p->n_history;
    snprintf(p->text, sizeof(p->text), "%s", initial);
    p->len = strlen(p->text);
    check(t);
}

void
prompt_remember(struct tui *t, const char *filter)
{
    struct tui_prompt *p = &t->prompt;

    if (filter[0] == '\0' ||
        (p->n_history > 0 && strcmp(p->history[p->n_history - 1], filter) == 0))
        return;
    if (p->n_history == TUI_HISTORY) {
        memmove(p->history[0], p->history[1], sizeof(p->history[0]) * (TUI_HISTORY - 1));
        p->n_history--;
    }
    snprintf(p->history[p->n_history++], sizeof(p->history[0]), "%s", filter);
}

/* Up and Down in the filter bar: older and newer filters, then an empty line. */
static void
recall(struct tui *t, int step)
{
    struct tui_prompt *p = &t->prompt;
    int pos = p->recall + step;

    if (pos < 0 || pos > p->n_history)
        return;
    p->recall = pos;
    snprintf(p->text, sizeof(p->text), "%s", pos < p->n_history ? p->history[pos] : "");
    p->len = strlen(p->text);
}

static void
go_to(struct tui *t, const char *text)
{
    char *end;
    unsigned long long n = strtoull(text, &end, 10);
    struct rs_tui_progress pr;

    rs_tui_model_progress(t->model, &pr);
    if (end == text || *end != '\0' || n == 0 || n > pr.frames) {
        tui_message(t, "go to packet: %s: expected a number from 1 to %llu", text,
                    (unsigned long long)pr.frames);
        return;
    }
    tui_show_frame(t, n);
}

/* Columns are numbered from 1, as the help and the man page count them. */
static void
sort_by(struct tui *t, const char *text)
{
    char *end;
    unsigned long n = strtoul(text, &end, 10);

    if (end == text || *end != '\0' || n < 1 || n > RS_TUI_COL_COUNT) {
        tui_message(t, "sort: %s: expected a column number from 1 to %d", text,
                    RS_TUI_COL_COUNT);
        return;
    }
    t->sort_col = (enum rs_tui_col)(n - 1);
}

static void
write_shown(struct tui *t, const char *path)
{
    char err[RS_ERRBUF_SIZE];
    uint64_t *numbers;
    size_t n;

    if (path[0] == '\0')
        return;
    if (rs_tui_model_shown_numbers(t->model, &numbers, &n, err) != 0)
        tui_message(t, "write: %s", err);
    else
        tui_write_start(t, path, numbers, n, "the packets shown", "packets");
}

static void
submit(struct tui *t)
{
    struct tui_prompt *p = &t->prompt;

    if (p->kind == PROMPT_FILTER && p->error[0] != '\0')
        return;     /* stays open, red, until it compiles or Esc */
    p->active = false;
    if (!g_utf8_validate(p->text, -1, NULL)) {      /* a terminal that does not send UTF-8 */
        tui_message(t, "the text typed is not UTF-8");
        return;
    }
    switch (p->kind) {
    case PROMPT_FILTER:
        tui_apply_filter(t, p->text);
        break;
    case PROMPT_GOTO:
        go_to(t, p->text);
        break;
    case PROMPT_WRITE:
        write_shown(t, p->text);
        break;
    case PROMPT_WRITE_TAGGED:
        if (p->text[0] != '\0')
            tui_tags_write(t, p->text);
        break;
    case PROMPT_SORT:
        sort_by(t, p->text);
        break;
    case PROMPT_SEARCH:
        snprintf(t->search, sizeof(t->search), "%s", p->text);
        tui_search_next(t);
        break;
    case PROMPT_CLEAR_FILTER:   /* confirm_key takes its keys */
        break;
    }
}

/* y or n: clear the filter that hides the packet asked for. Anything but y keeps it. */
static void
confirm_key(struct tui *t, int key)
{
    t->prompt.active = false;
    if (key == 'y' || key == 'Y')
        tui_clear_filter_and_show(t);
    else
        tui_message(t, "packet %llu is hidden by the filter, which stays",
                    (unsigned long long)t->confirm_frame);
}

void
prompt_key(struct tui *t, int key)
{
    struct tui_prompt *p = &t->prompt;

    if (p->kind == PROMPT_CLEAR_FILTER) {
        confirm_key(t, key);
        return;
    }
    switch (key) {
    case KEY_ESC:
        p->active = false;
        return;
    case '\n':
    case '\r':
    case KEY_ENTER:
        submit(t);
        return;
    case KEY_BACKSPACE:
    case 127:
    case 8:
        /* A whole character: its UTF-8 continuation bytes, then its first. */
        while (p->len > 0 && ((unsigned char)p->text[p->len - 1] & 0xc0) == 0x80)
            p->len--;
        if (p->len > 0)
            p->len--;
        p->text[p->len] = '\0';
        break;
    case 21:        /* Ctrl-U, as a shell: clear the line */
        p->len = 0;
        p->text[0] = '\0';
        break;
    case KEY_UP:
    case KEY_DOWN:
        if (p->kind != PROMPT_FILTER)
            return;
        recall(t, key == KEY_UP ? -1 : 1);
        break;
    default:
        /* Printable ASCII, and the bytes of a character beyond it as the terminal sends it
         * in UTF-8 (getch() gives them one at a time): a search for an arrow or a name
         * with an accent. */
        if (key < 0x20 || key == 0x7f || key > 0xff || p->len + 1 >= sizeof(p->text))
            return;
        p->text[p->len++] = (char)key;
        p->text[p->len] = '\0';
        break;
    }
    check(t);
}

void
prompt_draw(struct tui *t, int y, int cols)
{
    struct tui_prompt *p = &t->prompt;
    char line[TUI_PROMPT_MAX + RS_ERRBUF_SIZE + 64];
    bool bad = p->error[0] != '\0';

    if (p->kind == PROMPT_CLEAR_FILTER) {
        snprintf(line, sizeof(line), "Packet %llu is hidden by the filter: clear the filter? "
                 "(y/n) ", (unsigned long long)t->confirm_frame);
        tui_put(t, y, 0, cols, line, tui_attr(t, PAIR_BAD));
        move(y, (int)strlen(line) < cols ? (int)strlen(line) : cols - 1);
        return;
    }
    snprintf(line, sizeof(line), "%s%s%s%s", labels[p->kind], p->text, bad ? "   <- " : "",
             bad ? p->error : "");
    tui_put(t, y, 0, cols, line,
            p->kind == PROMPT_FILTER ? tui_attr(t, bad ? PAIR_BAD : PAIR_OK) : A_NORMAL);
    /* The cursor sits at the end of what is typed: a column per character, not per byte. */
    int x = (int)(strlen(labels[p->kind]) + g_utf8_strlen(p->text, (gssize)p->len));
    move(y, x < cols ? x : cols - 1);
}
