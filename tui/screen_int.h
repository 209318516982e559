/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * screen_int.h - what the screens share: the state of every view, the
 * colours, and the helpers that draw clipped text. screen.c runs the loop;
 * each view_*.c draws one view and takes its keys; prompt.c is the one-line
 * input bar (filter, go to packet, write to file).
 */
#ifndef ROCESHARK_TUI_SCREEN_INT_H
#define ROCESHARK_TUI_SCREEN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <roceshark/tui/tui.h>

#define TREE_SEL_NONE (-2)

enum tui_view {
    VIEW_CONVS, VIEW_PACKETS, VIEW_ANOMALIES, VIEW_GRAPH, VIEW_COUNTERS,
    VIEW_SEGMENTS,          /* with several -r only */
    VIEW_COUNT
};

/* Colour pairs; without colour each falls back to an attribute (tui_attr). */
enum tui_pair { PAIR_NONE, PAIR_NAK, PAIR_RETX, PAIR_CONGESTION, PAIR_BAR, PAIR_OK, PAIR_BAD };

enum tui_prompt_kind {
    PROMPT_FILTER, PROMPT_GOTO, PROMPT_WRITE, PROMPT_WRITE_TAGGED, PROMPT_SORT, PROMPT_SEARCH,
    PROMPT_CLEAR_FILTER     /* y or n: clear the filter that hides the packet asked for */
};

/* A search or a write running on its own thread (jobs.c). */
enum tui_job { JOB_NONE, JOB_SEARCH, JOB_WRITE };

#define TUI_PROMPT_MAX 1024
#define TUI_HISTORY 16          /* filters Up and Down recall */

struct tui_prompt {
    bool active;
    enum tui_prompt_kind kind;
    char text[TUI_PROMPT_MAX];
    size_t len;
    char error[RS_ERRBUF_SIZE];     /* the filter as typed does not compile: why */
    char history[TUI_HISTORY][TUI_PROMPT_MAX];  /* filters applied, oldest first */
    int n_history;
    int recall;                     /* position Up and Down reached; n_history: none */
};

struct tui {
    struct rs_tui_model *model;
    char source[160];               /* what the title shows: the file, or the interface */
    bool color;
    bool utf8;                      /* the terminal's locale draws UTF-8 */
    enum tui_view view;
    bool help;
    int help_top;                   /* the help's first line shown (it scrolls) */
    bool quit;
    bool quit_asked;                /* q once while capturing: the next q quits */
    char message[RS_ERRBUF_SIZE + 64];  /* shown in the status line until the next key */
    struct tui_prompt prompt;
    char search[TUI_PROMPT_MAX];    /* the text `s` looked for last; `n` looks again */
    /* The job running (jobs.c): a search or a write, which Esc stops. */
    enum tui_job job;
    struct rs_tui_task *task;
    char job_what[TUI_PROMPT_MAX + 32];     /* "finding \"x\"", "writing to f.pcap" */
    char job_done[TUI_PROMPT_MAX + 32];     /* a write's "tagged packets to f.pcap" */
    char job_text[TUI_PROMPT_MAX];  /* what the running search looks for (search changes) */
    bool search_again;              /* a search asked for while one ran: it follows */
    /* A filter the user applied whose pass is still running: Esc puts the one before
     * back. */
    bool filtering;
    char filter_before[TUI_PROMPT_MAX];
    uint64_t confirm_frame;         /* PROMPT_CLEAR_FILTER: the packet asked for */

    /* QP conversations */
    int col_width[RS_TUI_COL_COUNT];    /* as wide as their content has been (never less) */
    enum rs_tui_col sort_col;
    bool sort_desc;
    uint32_t conv_id;               /* the selected row, by conversation id */
    int conv_hscroll;               /* columns hidden after the endpoints (Left, Right) */
    uint32_t *frozen_rank;          /* `o`: each conversation's place (from 1) by id, or
                                       NULL when the order follows the sort column */
    size_t n_frozen;
    size_t conv_top;
    /* The rows as last built (view_convs_rows), and for which order. */
    struct {
        struct rs_tui_conv_row *rows;
        size_t n;
        bool valid;
        enum rs_tui_col col;
        bool desc;
        uint64_t built_ns, cost_ns;
        bool complete;              /* built after the pass ended: nothing more will come */
    } conv_rows;

    /* Packets: positions in the list of shown frames */
    uint64_t pkt_sel, pkt_top;
    bool follow;                    /* keep the newest frame selected (End) */
    uint64_t want_frame;            /* go to this frame once it is indexed; 0 none */
    int tree_top;
    int tree_sel;                   /* the tree's cursor, among the lines not folded away */
    int tree_sel_node;              /* the node under it (rs_tui_tree_line.node), kept
                                       across packets; TREE_SEL_NONE: none yet */
    uint8_t *folds;                 /* a flag per node (rs_tui_tree_line.node): folded */
    size_t n_folds;
    struct rs_tui_decoded dec;
    struct rs_tui_tree tree;        /* the selected packet's */
    uint8_t time_col;               /* the packet list's time column (enum rs_time_col) */

    /* Anomalies: positions counted from the newest */
    uint64_t an_sel, an_top;

    /* Graph: the followed conversation's points, built as the index grows */
    struct rs_tui_graph *graph;

    /* NIC counters: the port (NULL without --counters), read once a second */
    struct rs_tui_nic *nic;
    char nic_name[64];              /* "DEV port N" */
    uint64_t nic_next_ns;
    uint64_t cnt_sel, cnt_top;

    /* Segments (several -r): the correlated packets, the caller's */
    const struct rs_tui_corr *corr;
    uint64_t seg_sel, seg_top;
    unsigned seg_hscroll;           /* the first segment column shown (Left, Right) */
    bool seg_only_notable;          /* x: lost, CE marked or missed ones only */
    size_t *seg_notable;            /* their indexes in corr->rows, made at the first x */
    size_t seg_n_notable;

    /* Packets tagged with Space, a bit per frame number: they outlive filters. */
    uint8_t *tags;
    size_t tags_bytes;
    uint64_t n_tagged;
};

/* The attribute of a colour pair, or its monochrome stand-in. */
unsigned tui_attr(const struct tui *t, enum tui_pair pair);
/* Draws s at (y, x) clipped or padded to width columns. */
void tui_put(const struct tui *t, int y, int x, int width, const char *s, unsigned attr);
void tui_message(struct tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Applies a display filter and reports the outcome in the status line; Esc puts the
 * filter before back while its pass runs. */
void tui_apply_filter(struct tui *t, const char *text);
/* Switches to the packet list at frame number; when the filter hides it, asks whether
 * to clear the filter (never clears it unasked). */
void tui_show_frame(struct tui *t, uint64_t number);
/* y to PROMPT_CLEAR_FILTER: clears the filter and goes to the packet. */
void tui_clear_filter_and_show(struct tui *t);
/* The keys that stop what runs (Esc): a job, or a filter's pass. True when one ran. */
bool tui_jobs_escape(struct tui *t);
/* Takes the outcome of a job that has ended (at each redraw). */
void tui_jobs_poll(struct tui *t);
/* What the status line says of a job or a filter pass running ("" for none). */
void tui_jobs_status(struct tui *t, char *buf, size_t size);
/* Starts writing the packets numbers[0..n) (taken over) to path: what they are ("the
 * tagged packets"), and what they are once written ("tagged packets"). */
void tui_write_start(struct tui *t, const char *path, uint64_t *numbers, size_t n,
                     const char *what, const char *noun);
/* Waits for a running job (quitting). */
void tui_jobs_end(struct tui *t);
/* Draws the top bar (views, source) and the status line. */
void tui_draw_top(struct tui *t, int cols);
void tui_draw_status(struct tui *t, int y, int cols, const struct rs_tui_progress *progress);
/* Bytes per second or any quantity with SI prefixes: "48.3 G" (3 digits) and unit. */
void tui_si(double v, const char *unit, char *buf, size_t size);
/* Keeps *sel visible in a window of rows lines starting at *top, below n. */
void tui_scroll_into_view(uint64_t *top, uint64_t sel, uint64_t n, int rows);
/* Moves a selection by a cursor key; true when the key was one. */
bool tui_move_selection(uint64_t *sel, uint64_t n, int key, int page);

/* The conversation table's rows in the order shown, kept by the view until
 * due again (or fresh, built now); NULL rows and an error when out of
 * memory. */
int view_convs_rows(struct tui *t, bool fresh, const struct rs_tui_conv_row **rows, size_t *n,
                    char *err);
/* The next call builds the rows again (the filter changed). */
void view_convs_invalidate(struct tui *t);
void view_convs_draw(struct tui *t, int y, int rows, int cols);
bool view_convs_key(struct tui *t, int key);
/* Moves the conversation selection by a cursor key over the table's order. */
bool view_convs_move(struct tui *t, int key);
void view_graph_draw(struct tui *t, int y, int rows, int cols);
bool view_graph_key(struct tui *t, int key);
void view_packets_draw(struct tui *t, int y, int rows, int cols);
bool view_packets_key(struct tui *t, int key);
void view_anomalies_draw(struct tui *t, int y, int rows, int cols);
bool view_anomalies_key(struct tui *t, int key);
void view_counters_draw(struct tui *t, int y, int rows, int cols);
bool view_counters_key(struct tui *t, int key);
void view_segments_draw(struct tui *t, int y, int rows, int cols);
bool view_segments_key(struct tui *t, int key);
/* Whether view v is there to show (Segments needs several -r). */
bool tui_view_present(const struct tui *t, enum tui_view v);
/* Reads the NIC's counters when a second has passed since the last time. */
void view_counters_tick(struct tui *t);

/* Tags (tags.c). */
bool tui_tagged(const struct tui *t, uint64_t number);
void tui_tag_toggle(struct tui *t, uint64_t number);
void tui_tags_write(struct tui *t, const char *path);
void tui_tags_free(struct tui *t);

void prompt_open(struct tui *t, enum tui_prompt_kind kind, const char *initial);
/* Remembers a filter applied, for Up and Down. */
void prompt_remember(struct tui *t, const char *filter);
/* Takes a key while the prompt is open. */
void prompt_key(struct tui *t, int key);
void prompt_draw(struct tui *t, int y, int cols);
/* Starts looking for the next shown packet whose line holds t->search (n, and s's Enter),
 * on a thread of its own; the status line shows its progress, Esc stops it. */
void tui_search_next(struct tui *t);

#endif /* ROCESHARK_TUI_SCREEN_INT_H */
