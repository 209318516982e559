/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faults_parse.c - rules files (see faults.h), one line at a time through
 * GLib's GScanner; the display filter after "if" is the rest of the line,
 * handed to the filter compiler as written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/fields.h>

#include "faults_int.h"
#include "inject_int.h"

/* An error at column col of the line at hand. */
#define FAIL(col, ...) inject_fail(&ps->place, (col), __VA_ARGS__)

struct parse {
    struct rs_faults *f;
    GScanner *sc;
    struct inject_place place;
    bool needs_analysis;    /* an inject rule, or a filter on roceshark.analysis.* */
    bool needs_streams;     /* a filter on tcp.stream, udp.stream, tcp.seq ... */
};

/* A value of registry field id: a number, or a value name (or its alias) as a string. */
static bool
read_field_value(struct parse *ps, int id, uint64_t *out)
{
    const struct rs_field *fd = rs_field_by_id(id);
    GTokenType t = g_scanner_get_next_token(ps->sc);

    if (t == G_TOKEN_IDENTIFIER && scan_word_uint(ps->sc->value.v_identifier, out))
        return *out <= inject_field_max(fd);
    if (t != G_TOKEN_STRING && t != G_TOKEN_IDENTIFIER)
        return false;
    const char *name = t == G_TOKEN_STRING ? ps->sc->value.v_string : ps->sc->value.v_identifier;
    return rs_value_by_name(fd, name, out);
}

/* set FIELD=VALUE and add FIELD+=VALUE. */
static int
parse_field_action(struct parse *ps, struct fault_rule *r, bool add)
{
    if (g_scanner_get_next_token(ps->sc) != G_TOKEN_IDENTIFIER)
        return FAIL(scan_col(ps->sc), "%s: expected a field name", add ? "add" : "set");
    char name[128];
    snprintf(name, sizeof(name), "%s", ps->sc->value.v_identifier);
    unsigned col = scan_token_col(ps->sc, strlen(ps->sc->value.v_identifier));
    int id = rs_field_lookup(name);
    while (id >= 0 && (rs_field_by_id(id)->flags & (RS_FIELD_HEADER | RS_FIELD_HIDDEN)))
        id = rs_field_next_alias(id);
    const struct rs_field *fd = id >= 0 ? rs_field_by_id(id) : NULL;
    if (fd == NULL)
        return FAIL(col, "%s: no field '%s'", add ? "add" : "set", name);
    if (fd->get != NULL || fd->layer == RS_NO_LAYER || fd->width == 0 || fd->width > 8 ||
        fd->type == RS_FT_ETHER || fd->type == RS_FT_IPV4 || fd->type == RS_FT_IPV6)
        return FAIL(col, "%s: %s is not a number at a fixed place in the packet",
                    add ? "add" : "set", name);
    r->field = id;
    if (add && g_scanner_get_next_token(ps->sc) != '+')
        return FAIL(scan_token_col(ps->sc, 1), "add: expected %s+=VALUE", name);
    if (g_scanner_get_next_token(ps->sc) != '=')
        return FAIL(scan_col(ps->sc), "%s: expected %s%s=VALUE", add ? "add" : "set", name,
                    add ? "+" : "");
    if (!read_field_value(ps, id, &r->value))
        return FAIL(scan_col(ps->sc), "%s: a value of %s (a number up to %llu or a value name)",
                    add ? "add" : "set", name, (unsigned long long)inject_field_max(fd));
    return 0;
}

/* An RNR NAK's timer: IBTA's 5-bit code as a number, or a time, which takes the code of
 * the shortest timer at least that long. */
static bool
read_rnr_timer(struct parse *ps, uint8_t *code)
{
    uint64_t ns, n;

    if (scan_peek_uint(ps->sc)) {
        if (!scan_uint(ps->sc, &n) || n > 31)
            return false;
        *code = (uint8_t)n;
        return true;
    }
    if (!scan_duration(ps->sc, &ns) || ns > 655360000ull)
        return false;
    uint8_t best = 0;           /* code 0 is the longest, 655.36 ms */
    for (uint8_t c = 31; c >= 1; c--)
        if ((uint64_t)rs_aeth_rnr_timer_us(c) * 1000 >= ns)
            best = c;
    *code = best;
    return true;
}

/* inject nak CODE | rnr TIMER | ack | cnp | read response [first|middle|last|only]. */
static int
parse_inject(struct parse *ps, struct fault_inject *in)
{
    static const char *const parts[] = {"first", "middle", "last", "only"};

    if (g_scanner_get_next_token(ps->sc) != G_TOKEN_IDENTIFIER)
        return FAIL(scan_col(ps->sc), "inject: expected nak, rnr, ack, cnp or read response");
    char what[32];
    snprintf(what, sizeof(what), "%s", ps->sc->value.v_identifier);
    unsigned col = scan_token_col(ps->sc, strlen(what));
    if (strcmp(what, "nak") == 0) {
        in->kind = FI_NAK;
        int code = -1;
        unsigned at = scan_col(ps->sc);
        if (g_scanner_get_next_token(ps->sc) == G_TOKEN_IDENTIFIER) {
            code = rs_analysis_nak_code(ps->sc->value.v_identifier);
            at = scan_token_col(ps->sc, strlen(ps->sc->value.v_identifier));
        }
        if (code < 0)
            return FAIL(at, "inject nak: expected a code (psn_seq_error, "
                        "invalid_request, remote_access_error, remote_operational_error, "
                        "invalid_rd_request, or 0 to 31)");
        in->code = (uint8_t)code;
    } else if (strcmp(what, "rnr") == 0) {
        in->kind = FI_RNR;
        if (!read_rnr_timer(ps, &in->code))
            return FAIL(scan_col(ps->sc), "inject rnr: expected the timer, a code from 0 to "
                        "31 or a time up to 655.36ms");
    } else if (strcmp(what, "ack") == 0) {
        in->kind = FI_ACK;
    } else if (strcmp(what, "cnp") == 0) {
        in->kind = FI_CNP;
    } else if (strcmp(what, "read") == 0) {
        in->kind = FI_READ_RESPONSE;
        if (!scan_next_is(ps->sc, "response"))
            return FAIL(scan_col(ps->sc), "inject read: expected response");
        g_scanner_get_next_token(ps->sc);
        in->opcode = 0x10;      /* Only */
        for (unsigned i = 0; i < 4; i++) {
            if (scan_next_is(ps->sc, parts[i])) {
                g_scanner_get_next_token(ps->sc);
                in->opcode = (uint8_t)(0x0d + i);
                break;
            }
        }
    } else {
        return FAIL(col, "inject: unknown packet '%s' (nak, rnr, ack, cnp, read response)",
                    what);
    }
    return 0;
}

/* An inject rule's own options: psn, msn, qp, len, fill. Returns 1 when opt is none. */
static int
parse_inject_option(struct parse *ps, struct fault_rule *r, const char *opt)
{
    static const struct {
        const char *name;
        uint64_t max;
    } opts[] = {{"psn", 0xffffff}, {"msn", 0xffffff}, {"qp", 0xffffff}, {"len", 4096},
                {"fill", 0xff}};
    struct fault_inject *in = &r->inject;
    uint64_t n;

    if (r->action != FA_INJECT)
        return 1;
    for (unsigned i = 0; i < RS_ARRAY_SIZE(opts); i++) {
        if (strcmp(opt, opts[i].name) != 0)
            continue;
        if (!scan_uint(ps->sc, &n) || n > opts[i].max)
            return FAIL(scan_col(ps->sc), "%s: expected a number up to %llu", opt,
                        (unsigned long long)opts[i].max);
        switch (i) {
        case 0: in->has_psn = true, in->psn = (uint32_t)n; break;
        case 1: in->has_msn = true, in->msn = (uint32_t)n; break;
        case 2: in->has_qpn = true, in->qpn = (uint32_t)n; break;
        case 3: in->has_len = true, in->len = (uint32_t)n; break;
        default: in->fill = (uint8_t)n; break;
        }
        return 0;
    }
    return 1;
}

/* The action word and its arguments. */
static int
parse_action(struct parse *ps, struct fault_rule *r, const char *word, unsigned col)
{
    uint64_t n = 0;

    if (strcmp(word, "drop") == 0) {
        r->action = FA_DROP;
        if (!scan_next_is(ps->sc, "pattern"))
            return 0;
        g_scanner_get_next_token(ps->sc);
        if (g_scanner_get_next_token(ps->sc) != G_TOKEN_IDENTIFIER ||
            strlen(ps->sc->value.v_identifier) > FAULT_PATTERN_MAX ||
            strspn(ps->sc->value.v_identifier, "XO") != strlen(ps->sc->value.v_identifier))
            return FAIL(scan_col(ps->sc), "drop pattern: expected X (drop) and O (pass), up to "
                        "%d of them", FAULT_PATTERN_MAX);
        r->action = FA_DROP_PATTERN;
        snprintf(r->pattern, sizeof(r->pattern), "%s", ps->sc->value.v_identifier);
        return 0;
    }
    if (strcmp(word, "duplicate") == 0) {
        r->action = FA_DUPLICATE;
        r->count = 1;
        if (scan_peek_uint(ps->sc)) {
            scan_uint(ps->sc, &n);
            if (n < 1 || n > 16)
                return FAIL(scan_col(ps->sc), "duplicate: 1 to 16 copies");
            r->count = (unsigned)n;
        }
        return 0;
    }
    if (strcmp(word, "reorder") == 0) {
        r->action = FA_REORDER;
        if (!scan_next_is(ps->sc, "gap"))
            return FAIL(scan_col(ps->sc), "reorder: expected gap N");
        g_scanner_get_next_token(ps->sc);
        if (!scan_uint(ps->sc, &n) || n < 1 || n > 1000)
            return FAIL(scan_col(ps->sc), "reorder gap: 1 to 1000 packets");
        r->count = (unsigned)n;
        return 0;
    }
    if (strcmp(word, "delay") == 0) {
        r->action = FA_DELAY;
        if (!scan_duration(ps->sc, &r->delay_ns))
            return FAIL(scan_col(ps->sc), "delay: expected a time (2ms, 500us, 1s) up to an hour");
        if (scan_next_is(ps->sc, "jitter")) {
            g_scanner_get_next_token(ps->sc);
            if (!scan_duration(ps->sc, &r->jitter_ns) || r->jitter_ns > r->delay_ns)
                return FAIL(scan_col(ps->sc), "jitter: expected a time no longer than the delay");
        }
        return 0;
    }
    if (strcmp(word, "corrupt") == 0) {
        r->action = FA_CORRUPT_ICRC;
        if (!scan_next_is(ps->sc, "icrc"))
            return FAIL(scan_col(ps->sc), "corrupt: expected icrc");
        g_scanner_get_next_token(ps->sc);
        return 0;
    }
    if (strcmp(word, "set") == 0 || strcmp(word, "add") == 0) {
        r->action = word[0] == 's' ? FA_SET : FA_ADD;
        return parse_field_action(ps, r, r->action == FA_ADD);
    }
    if (strcmp(word, "stall") == 0) {
        r->action = FA_STALL;
        if (!scan_duration(ps->sc, &r->delay_ns) || r->delay_ns == 0)
            return FAIL(scan_col(ps->sc), "stall: expected a time (2ms, 1s)");
        return 0;
    }
    if (strcmp(word, "mark") == 0) {
        r->action = FA_MARK_CE;
        if (!scan_next_is(ps->sc, "ecn"))
            return FAIL(scan_col(ps->sc), "mark: expected ecn ce");
        g_scanner_get_next_token(ps->sc);
        if (!scan_next_is(ps->sc, "ce"))
            return FAIL(scan_col(ps->sc), "mark ecn: expected ce");
        g_scanner_get_next_token(ps->sc);
        return 0;
    }
    if (strcmp(word, "inject") == 0) {
        r->action = FA_INJECT;
        return parse_inject(ps, &r->inject);
    }
    return FAIL(col, "unknown action '%s' (drop, duplicate, reorder, delay, corrupt, set, "
                "add, mark, stall, inject)", word);
}

/* The options after the action, then "if FILTER" or the end of the line. */
static int
parse_options(struct parse *ps, struct fault_rule *r, const char *text)
{
    for (;;) {
        GTokenType t = g_scanner_get_next_token(ps->sc);
        if (t == G_TOKEN_EOF)
            return 0;
        if (t != G_TOKEN_IDENTIFIER)
            return FAIL(scan_col(ps->sc), "expected an option (dir, times, skip, every, prob, "
                        "keep icrc) or if FILTER");
        /* A copy: the scanner's value goes with its next token. */
        char opt[32];
        snprintf(opt, sizeof(opt), "%s", ps->sc->value.v_identifier);
        unsigned col = scan_token_col(ps->sc, strlen(ps->sc->value.v_identifier));
        uint64_t n;
        if (strcmp(opt, "if") == 0) {
            const char *filter = text + g_scanner_cur_position(ps->sc);
            char ferr[RS_ERRBUF_SIZE];
            if (rs_filter_compile(filter, &r->filter, ferr) != 0) {
                /* "at position N: why" counts in the filter: count in the line. */
                unsigned pos = 0;
                int skip = 0;
                if (sscanf(ferr, "at position %u: %n", &pos, &skip) == 1 && skip > 0)
                    return FAIL((unsigned)(filter - text) + pos, "if: %s", ferr + skip);
                return FAIL(col + 3, "if: %s", ferr);
            }
            if (rs_filter_uses(r->filter, "roceshark.icrc") ||
                rs_filter_uses(r->filter, "roceshark.vcrc") ||
                rs_filter_uses(r->filter, "roceshark.mpa.crc"))
                ps->f->needs_crc = true;
            if (rs_filter_uses(r->filter, "roceshark.analysis"))
                ps->needs_analysis = true;
            for (size_t k = 0; rs_streams_fields[k] != NULL; k++)
                ps->needs_streams |= rs_filter_uses(r->filter, rs_streams_fields[k]);
            return 0;
        }
        int io = parse_inject_option(ps, r, opt);
        if (io <= 0) {
            if (io < 0)
                return io;
            continue;
        }
        if (strcmp(opt, "dir") == 0) {
            if (g_scanner_get_next_token(ps->sc) != G_TOKEN_IDENTIFIER)
                return FAIL(scan_col(ps->sc), "dir: expected tx, rx or both");
            const char *d = ps->sc->value.v_identifier;
            r->dirs = strcmp(d, "tx") == 0 ? RS_FAULT_TX : strcmp(d, "rx") == 0 ? RS_FAULT_RX
                      : strcmp(d, "both") == 0 ? RS_FAULT_TX | RS_FAULT_RX : 0;
            if (r->dirs == 0)
                return FAIL(scan_col(ps->sc), "dir: expected tx, rx or both");
        } else if (strcmp(opt, "times") == 0 || strcmp(opt, "skip") == 0 ||
                   strcmp(opt, "every") == 0) {
            if (!scan_uint(ps->sc, &n) || (opt[0] != 's' && n == 0))
                return FAIL(scan_col(ps->sc), "%s: expected a count%s", opt,
                            opt[0] == 's' ? "" : " of 1 or more");
            *(opt[0] == 't' ? &r->times : opt[0] == 's' ? &r->skip : &r->every) = n;
        } else if (strcmp(opt, "prob") == 0) {
            double p = -1;
            if (!scan_double(ps->sc, &p) || !(p >= 0 && p <= 1))
                return FAIL(scan_col(ps->sc), "prob: expected a probability from 0 to 1");
            r->prob = p;
        } else if (strcmp(opt, "keep") == 0) {
            if (!scan_next_is(ps->sc, "icrc"))
                return FAIL(scan_col(ps->sc), "keep: expected icrc");
            g_scanner_get_next_token(ps->sc);
            r->keep_icrc = true;
        } else {
            return FAIL(col, "unknown option '%s' (dir, times, skip, every, prob, keep icrc, "
                        "if)", opt);
        }
    }
}

static int
parse_line(struct parse *ps, const char *text)
{
    struct rs_faults *f = ps->f;

    scan_input(ps->sc, text);
    GTokenType t = g_scanner_get_next_token(ps->sc);
    if (t == G_TOKEN_EOF)
        return 0;
    if (t != G_TOKEN_IDENTIFIER)
        return FAIL(scan_col(ps->sc), "expected an action or seed");
    char word[32];
    snprintf(word, sizeof(word), "%s", ps->sc->value.v_identifier);
    unsigned col = scan_token_col(ps->sc, strlen(ps->sc->value.v_identifier));
    if (strcmp(word, "seed") == 0) {
        uint64_t n;
        if (!scan_uint(ps->sc, &n) || n > UINT32_MAX)
            return FAIL(scan_col(ps->sc), "seed: expected 0 to 4294967295");
        f->seed = (uint32_t)n;
        f->seeded = true;
        return g_scanner_get_next_token(ps->sc) == G_TOKEN_EOF
                   ? 0 : FAIL(scan_col(ps->sc), "seed: one number, then the end of the line");
    }
    if (f->n_rules == RS_FAULTS_MAX_RULES)
        return FAIL(col, "more than %d rules", RS_FAULTS_MAX_RULES);
    struct fault_rule *r = &f->rules[f->n_rules];
    memset(r, 0, sizeof(*r));
    r->dirs = RS_FAULT_TX | RS_FAULT_RX;
    r->prob = 1;
    r->field = -1;
    int rc = parse_action(ps, r, word, col);
    ps->needs_analysis |= rc == 0 && r->action == FA_INJECT;
    if (rc == 0)
        rc = parse_options(ps, r, text);
    if (rc != 0) {
        rs_filter_free(r->filter);
        r->filter = NULL;
        return rc;
    }
    r->text = g_strstrip(g_strdup(text));
    f->n_rules++;
    return 0;
}

/* The one pipeline every consumer runs, with the stages the rules read: the analysis
 * when one needs it, the stream stage when a filter reads its fields, checksums checked
 * when a filter reads their status; the iWARP stage always, as for read. */
static int
pipeline_new(struct rs_faults *f, const struct parse *ps, char *err)
{
    struct rs_pipeline_opts po;

    rs_pipeline_opts_init(&po);
    po.decode.verify_crc = f->needs_crc;
    po.streams = ps->needs_streams;
    po.streams_opts.tcp_only = false;
    po.analyze = ps->needs_analysis;
    po.analysis.max_convs = RS_FAULTS_MAX_CONVS;
    po.analysis.keep_evicted = false;   /* rules ask live conversations only */
    int rc = rs_pipeline_new(&po, &f->pipe, err);
    if (rc == 0)
        f->an = rs_pipeline_analyzer(f->pipe);
    return rc;
}

int
rs_faults_parse(const char *text, const char *where, struct rs_faults **out, char *err)
{
    struct rs_faults *f = calloc(1, sizeof(*f));
    struct parse ps = {f, NULL, {where, 0, err}};
    int rc = 0;

    *out = NULL;
    if (f == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    ps.sc = scan_new();
    ps.sc->input_name = where;
    gchar **lines = g_strsplit(text, "\n", -1);
    for (unsigned i = 0; rc == 0 && lines[i] != NULL; i++) {
        ps.place.line = i + 1;
        rc = parse_line(&ps, lines[i]);
    }
    scan_free(ps.sc);       /* before the lines: it reads what is left of the last one */
    g_strfreev(lines);
    f->rng = g_rand_new_with_seed(f->seeded ? f->seed : 0);
    if (rc == 0)
        rc = pipeline_new(f, &ps, err);
    if (rc != 0) {
        rs_faults_free(f);
        return rc;
    }
    *out = f;
    return 0;
}

int
rs_faults_load(const char *path, struct rs_faults **out, char *err)
{
    gchar *text;

    *out = NULL;
    if (scan_read_file(path, &text, err) != 0)
        return RS_EIO;
    int rc = rs_faults_parse(text, path, out, err);
    g_free(text);
    return rc;
}

void
rs_faults_free(struct rs_faults *f)
{
    if (f == NULL)
        return;
    for (unsigned i = 0; i < f->n_rules; i++) {
        rs_filter_free(f->rules[i].filter);
        g_free(f->rules[i].text);
    }
    for (unsigned i = 0; i < RS_FAULTS_MAX_HELD; i++)
        free(f->held[i]);
    if (f->rng != NULL)
        g_rand_free(f->rng);
    rs_pipeline_free(f->pipe);
    free(f);
}
