/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * generate.c - values that change packet after packet: inc, dec, rand,
 * list and seq over a field's range (2^k values, by its mask or width), and
 * the payload's fill patterns.
 *
 * Random values come from GLib's GRand, seeded by --seed, so that a run
 * repeats exactly. Values wrap at the field's width, so psn=inc(16777214)
 * gives 16777214, 16777215, 0, 1, ... as a PSN does.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "inject_int.h"

/* A uniform value in [lo, hi] from two 32-bit draws. */
static uint64_t
rand_between(GRand *rng, uint64_t lo, uint64_t hi)
{
    uint64_t r = (uint64_t)g_rand_int(rng) << 32 | g_rand_int(rng);

    if (lo == 0 && hi == UINT64_MAX)
        return r;
    return lo + r % (hi - lo + 1);
}

uint64_t
inject_gen_value(const struct rs_inject_gen *g, uint64_t index, GRand *rng)
{
    switch (g->kind) {
    /* Every field's range is 2^k values (its mask or width), so arithmetic modulo
     * 2^64 and then the field's bits is arithmetic modulo 2^k. */
    case RS_GEN_INC:
        return (g->a + index * g->b) & g->max;
    case RS_GEN_DEC:
        return (g->a - index * g->b) & g->max;
    case RS_GEN_RAND:
        return rand_between(rng, g->a, g->b);
    case RS_GEN_LIST:
        return g->list[index % g->n];
    case RS_GEN_SEQ:
        return g->a + index % (g->b - g->a + 1);
    default:
        return g->a;
    }
}

/* One number or value name of the field, within 0..max. */
static bool
parse_value(const char *s, uint64_t max, inject_name_fn name_value, const void *ctx,
            uint64_t *out)
{
    char *end;

    while (isspace((unsigned char)*s))
        s++;
    if (*s == '"') {
        char name[128];
        size_t n = strcspn(s + 1, "\"");
        if (s[1 + n] != '"' || n >= sizeof(name))
            return false;
        memcpy(name, s + 1, n);
        name[n] = '\0';
        for (const char *t = s + 2 + n; *t; t++)
            if (!isspace((unsigned char)*t))
                return false;
        return name_value != NULL && name_value(ctx, name, out) && *out <= max;
    }
    if (isdigit((unsigned char)*s)) {
        errno = 0;
        unsigned long long v = strtoull(s, &end, 0);
        while (isspace((unsigned char)*end))
            end++;
        if (errno != 0 || *end != '\0' || v > max)
            return false;
        *out = v;
        return true;
    }
    char name[128];
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    if (n == 0 || n >= sizeof(name))
        return false;
    memcpy(name, s, n);
    name[n] = '\0';
    if (strcasecmp(name, "true") == 0 || strcasecmp(name, "false") == 0) {
        *out = strcasecmp(name, "true") == 0;
        return *out <= max;
    }
    return name_value != NULL && name_value(ctx, name, out) && *out <= max;
}

/* The arguments of "name(a, b, ...)": up to max_args, split at commas outside quotes. */
static int
split_args(char *args, char **argv, int max_args)
{
    int n = 0;
    bool quoted = false;
    char *start = args;

    for (char *p = args;; p++) {
        if (*p == '"')
            quoted = !quoted;
        if ((*p == ',' && !quoted) || *p == '\0') {
            if (n == max_args)
                return -1;
            bool end = *p == '\0';
            *p = '\0';
            argv[n++] = start;
            start = p + 1;
            if (end)
                break;
        }
    }
    return n;
}

bool
inject_gen_parse(const char *text, uint64_t max, inject_name_fn name_value, const void *ctx,
                 struct rs_inject_gen *out, const char **why)
{
    char buf[1024], *argv[RS_INJECT_MAX_LIST + 1];
    const char *open = strchr(text, '(');
    size_t len = strlen(text);

    memset(out, 0, sizeof(*out));
    out->max = max;
    if (strcmp(text, "rand") == 0) {
        out->kind = RS_GEN_RAND;
        out->b = max;
        return true;
    }
    if (open == NULL || text[len - 1] != ')' || len >= sizeof(buf)) {
        out->kind = RS_GEN_CONST;
        *why = "out of range, or not a number or a value name";
        return parse_value(text, max, name_value, ctx, &out->a);
    }
    size_t fn = (size_t)(open - text);
    memcpy(buf, open + 1, len - fn - 2);
    buf[len - fn - 2] = '\0';
    int n = split_args(buf, argv, RS_INJECT_MAX_LIST);
    bool ok = n > 0;
    if (strncmp(text, "inc(", fn + 1) == 0 || strncmp(text, "dec(", fn + 1) == 0) {
        out->kind = text[0] == 'i' ? RS_GEN_INC : RS_GEN_DEC;
        out->b = 1;
        *why = "expected inc(START) or inc(START,STEP) (dec alike), within the field";
        ok = ok && n <= 2 && parse_value(argv[0], max, name_value, ctx, &out->a) &&
             (n == 1 || parse_value(argv[1], max, NULL, NULL, &out->b));
    } else if (strncmp(text, "rand(", fn + 1) == 0) {
        out->kind = RS_GEN_RAND;
        *why = "expected rand(LO,HI) with LO <= HI, within the field";
        ok = ok && n == 2 && parse_value(argv[0], max, name_value, ctx, &out->a) &&
             parse_value(argv[1], max, name_value, ctx, &out->b) && out->a <= out->b;
    } else if (strncmp(text, "list(", fn + 1) == 0) {
        out->kind = RS_GEN_LIST;
        *why = "expected list(A,B,...) of 1 to 32 values within the field";
        for (int i = 0; ok && i < n; i++)
            ok = parse_value(argv[i], max, name_value, ctx, &out->list[i]);
        out->n = (uint8_t)(n > 0 ? n : 0);
    } else if (strncmp(text, "seq(", fn + 1) == 0) {
        out->kind = RS_GEN_SEQ;
        *why = "expected seq(LO..HI) with LO <= HI, within the field";
        char *dots = strstr(buf, "..");
        ok = n == 1 && dots != NULL;
        if (ok) {
            *dots = '\0';
            ok = parse_value(buf, max, name_value, ctx, &out->a) &&
                 parse_value(dots + 2, max, name_value, ctx, &out->b) && out->a <= out->b;
        }
    } else {
        *why = "unknown generator (inc, dec, rand, list, seq)";
        return false;
    }
    return ok;
}

void
inject_fill(struct rs_inject_packet *p, uint32_t from, uint32_t to, GRand *rng)
{
    uint8_t *d = p->payload;

    switch (p->fill) {
    case RS_FILL_ZERO:
        memset(d + from, 0, to - from);
        break;
    case RS_FILL_ONES:
        memset(d + from, 0xff, to - from);
        break;
    case RS_FILL_RAND: {
        uint32_t i = from;
        for (; i + 4 <= to; i += 4) {
            uint32_t r = g_rand_int(rng);
            memcpy(d + i, &r, 4);
        }
        for (; i < to; i++)
            d[i] = (uint8_t)g_rand_int(rng);
        break;
    }
    case RS_FILL_PATTERN:
        for (uint32_t i = from; i < to; i++)
            d[i] = p->pattern[i % p->pattern_len];
        break;
    default:
        for (uint32_t i = from; i < to; i++)
            d[i] = (uint8_t)i;
        break;
    }
}

uint64_t
inject_field_max(const struct rs_field *f)
{
    if (f->type == RS_FT_BOOLEAN)
        return 1;
    if (f->mask != 0)
        return f->mask >> __builtin_ctzll(f->mask);
    return f->width >= 8 ? UINT64_MAX : (1ull << (8 * f->width)) - 1;
}

unsigned
inject_distance(const char *a, const char *b, unsigned limit)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned d[32][32];

    /* Edits, with a swap of neighbours as one (optimal string alignment). Each edit
     * changes the length by one at most, so the lengths alone may settle it. */
    if ((la > lb ? la - lb : lb - la) >= limit)
        return limit;
    if (la >= 31 || lb >= 31)
        return limit < 9 ? limit : 9;
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (unsigned)j;
    /* A row's entries come from the row before (at least its smallest) and, by a swap,
     * from the one before that (at least its smallest plus one): once both are at the
     * limit, so is every row after them. */
    unsigned prev_min = 0, min = 0;
    for (size_t i = 1; i <= la; i++) {
        unsigned row_min = d[i][0];
        for (size_t j = 1; j <= lb; j++) {
            unsigned best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
            if (best < row_min)
                row_min = best;
        }
        prev_min = min;
        min = row_min;
        if (min >= limit && prev_min + 1 >= limit)
            return limit;
    }
    return d[la][lb] < limit ? d[la][lb] : limit;
}
