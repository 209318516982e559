/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_diff.c - --diff: the two conversations side by side, as diff -y
 * shows two files, so that where the target went another way is seen at a
 * glance and in its context.
 */
#include <stdio.h>
#include <string.h>

#include <roceshark/replay/replay.h>

#include "replay_int.h"

#define LOOK_AHEAD 32
#define COLUMN 46

/* What a row says of a packet, and what aligns two rows. */
struct row {
    const struct rs_replay_frame *f;
    bool response;
    uint32_t rel;           /* PSN from the trace's first */
};

static bool
aligned(const struct row *a, const struct row *b)
{
    return a->response == b->response && a->rel == b->rel && a->f->opcode == b->f->opcode;
}

/* Same opcode and PSN, and the same ACK/NAK if it is one. */
static bool
same(const struct row *a, const struct row *b)
{
    return aligned(a, b) && a->f->has_aeth == b->f->has_aeth &&
           (!a->f->has_aeth || (a->f->syndrome & 0xe0) == (b->f->syndrome & 0xe0) ||
            ((a->f->syndrome >> 5) == 3 && a->f->syndrome == b->f->syndrome));
}

static void
cell(const struct row *r, char *buf, size_t size)
{
    const struct rs_ib_opcode *op;
    const char *what = "";

    if (r == NULL) {
        buf[0] = '\0';
        return;
    }
    op = rs_ib_opcode_info(r->f->opcode);
    if (r->f->has_aeth && op->op == RS_OP_ACK)
        what = rs_aeth_kind(r->f->syndrome) == RS_AETH_ACK ? " ACK"
               : rs_aeth_kind(r->f->syndrome) == RS_AETH_RNR_NAK ? " RNR NAK" : " NAK";
    snprintf(buf, size, "%5llu %c %s%s PSN %u", (unsigned long long)r->f->number,
             r->response ? '<' : '>', op->name != NULL ? op->name + 3 : "reserved", what,
             r->rel);
}

static void
print_row(FILE *f, const struct row *a, const struct row *b, char mark)
{
    char x[96], y[96];

    cell(a, x, sizeof(x));
    cell(b, y, sizeof(y));
    fprintf(f, "%-*.*s %c %s\n", COLUMN, COLUMN, x, mark, y);
}

static GArray *
trace_rows(const struct rs_replay_trace *t, uint32_t first)
{
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(struct row));
    unsigned q = 0, r = 0;

    /* The two streams, merged back into capture order. */
    while (q < t->requests->len || r < t->responses->len) {
        const struct rs_replay_frame *a = q < t->requests->len ?
            &g_array_index(t->requests, struct rs_replay_frame, q) : NULL;
        const struct rs_replay_frame *b = r < t->responses->len ?
            &g_array_index(t->responses, struct rs_replay_frame, r) : NULL;
        bool take_response = a == NULL || (b != NULL && b->number < a->number);
        const struct rs_replay_frame *f = take_response ? b : a;
        struct row row = {f, take_response, (f->psn - first) & 0xffffff};
        g_array_append_val(rows, row);
        take_response ? r++ : q++;
    }
    return rows;
}

struct sides {
    const struct row *a, *b;
    FILE *f;
};

static bool
match(void *ctx, size_t i, size_t j)
{
    const struct sides *s = ctx;

    return aligned(&s->a[i], &s->b[j]);
}

static void
pair(void *ctx, size_t i, size_t j)
{
    const struct sides *s = ctx;
    const struct row *a = i != REPLAY_NONE ? &s->a[i] : NULL;
    const struct row *b = j != REPLAY_NONE ? &s->b[j] : NULL;

    print_row(s->f, a, b, a == NULL ? '>' : b == NULL ? '<' : same(a, b) ? '|' : '!');
}

void
rs_replay_print_diff(FILE *f, const struct rs_replay_trace *trace, const GArray *wire,
                     uint32_t psn_offset)
{
    uint32_t first = rs_replay_first_psn(trace);
    GArray *left = trace_rows(trace, first);
    GArray *right = g_array_new(FALSE, FALSE, sizeof(struct row));

    for (unsigned k = 0; k < wire->len; k++) {
        const struct rs_replay_frame *w = &g_array_index(wire, struct rs_replay_frame, k);
        bool response = rs_ib_op_is_response(rs_ib_opcode_info(w->opcode)->op);
        struct row row = {w, response, (w->psn - psn_offset - first) & 0xffffff};
        g_array_append_val(right, row);
    }
    struct sides s = {(const struct row *)(void *)left->data,
                      (const struct row *)(void *)right->data, f};
    fprintf(f, "%-*s   %s\n", COLUMN, "capture", "replay");
    replay_align(left->len, right->len, LOOK_AHEAD, match, pair, &s);
    g_array_free(left, TRUE);
    g_array_free(right, TRUE);
}
