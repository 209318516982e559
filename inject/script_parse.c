/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * script_parse.c - scenario scripts (see script.h, docs/scripts.md), one
 * statement per line through GScanner. A fault line is kept at its own line
 * number, with the word "fault" blanked, so that the fault engine's errors
 * name the script's line and column.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/inject/faults.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/filter.h>
#include <roceshark/transport/perf.h>

#include "inject_int.h"
#include "script_int.h"

struct sparse {
    struct rs_script *s;
    GScanner *sc;
    struct inject_place place;
    const char *text;       /* the line */
};

#define FAIL(col, ...) inject_fail(&ps->place, (col), __VA_ARGS__)

/* The next word, copied (the scanner's value goes with its next token); "" at the end. */
static const char *
word(struct sparse *ps, char *buf, size_t size, unsigned *col)
{
    if (g_scanner_get_next_token(ps->sc) != G_TOKEN_IDENTIFIER) {
        *col = scan_col(ps->sc);
        buf[0] = '\0';
        return buf;
    }
    snprintf(buf, size, "%s", ps->sc->value.v_identifier);
    *col = scan_token_col(ps->sc, strlen(ps->sc->value.v_identifier));
    return buf;
}

static int
expect_end(struct sparse *ps, const char *what)
{
    if (g_scanner_get_next_token(ps->sc) == G_TOKEN_EOF)
        return 0;
    return FAIL(scan_col(ps->sc), "%s: unexpected words at the end of the line", what);
}

/* "name N" pairs after a statement's first words, into the table's slots. */
struct opt {
    const char *name;
    uint64_t max;
    uint64_t *out;
    bool *given;
};

static int
options(struct sparse *ps, const char *what, struct opt *opts, size_t n)
{
    char w[64];
    unsigned col;

    for (;;) {
        if (*word(ps, w, sizeof(w), &col) == '\0')
            return g_scanner_cur_token(ps->sc) == G_TOKEN_EOF
                       ? 0 : FAIL(col, "%s: expected an option", what);
        size_t i = 0;
        while (i < n && strcmp(opts[i].name, w) != 0)
            i++;
        if (i == n)
            return FAIL(col, "%s: unknown option '%s'", what, w);
        if (!scan_uint(ps->sc, opts[i].out) || *opts[i].out > opts[i].max)
            return FAIL(scan_col(ps->sc), "%s: %s: expected a number up to %llu", what, w,
                        (unsigned long long)opts[i].max);
        if (opts[i].given != NULL)
            *opts[i].given = true;
    }
}

/* An address or a target ("::1", "fe80::1%eth0", "perftest://[2001:db8::1]:18515"): for
 * this one word the scanner also takes the characters of addresses and URLs. */
static const char *
address_word(struct sparse *ps, char *buf, size_t size, unsigned *col)
{
    GScannerConfig *c = ps->sc->config;
    gchar *first = c->cset_identifier_first, *nth = c->cset_identifier_nth;

    c->cset_identifier_first = G_CSET_a_2_z G_CSET_A_2_Z G_CSET_DIGITS "_:[";
    c->cset_identifier_nth = G_CSET_a_2_z G_CSET_A_2_Z G_CSET_DIGITS "._:/[]%+-";
    word(ps, buf, size, col);
    c->cset_identifier_first = first;
    c->cset_identifier_nth = nth;
    return buf;
}

static int
parse_bind(struct sparse *ps)
{
    struct rs_script *s = ps->s;
    unsigned col;
    uint64_t qpn = s->qpn, psn = s->psn, pmtu = s->attr.pmtu, timeout = s->attr.timeout,
             retry = s->attr.retry_cnt, rnr = s->attr.rnr_retry;
    uint8_t gid[16];
    uint32_t scope;

    if (rs_addr_parse(address_word(ps, s->bind, sizeof(s->bind), &col), gid, &scope, NULL) < 0)
        return FAIL(col, "bind: expected an IPv4 or IPv6 address");
    struct opt o[] = {{"qpn", 0xffffff, &qpn, &s->qpn_given}, {"psn", 0xffffff, &psn, &s->psn_given},
                      {"pmtu", 4096, &pmtu, NULL},         {"timeout", 31, &timeout, NULL},
                      {"retry_cnt", 7, &retry, NULL},      {"rnr_retry", 7, &rnr, NULL}};
    int rc = options(ps, "bind", o, sizeof(o) / sizeof(o[0]));
    if (rc != 0)
        return rc;
    if (rs_rc_pmtu_valid((uint32_t)pmtu) == 0)
        return FAIL(col, "bind: pmtu %llu: expected 256, 512, 1024, 2048 or 4096",
                    (unsigned long long)pmtu);
    if (s->qpn_given && qpn < 2)
        return FAIL(col, "bind: qpn %llu: QPs 0 and 1 are special, not RC QPs",
                    (unsigned long long)qpn);
    s->qpn = (uint32_t)qpn;
    s->psn = (uint32_t)psn;
    s->attr.pmtu = (uint32_t)pmtu;
    s->attr.timeout = (uint8_t)timeout;
    s->attr.retry_cnt = (uint8_t)retry;
    s->attr.rnr_retry = (uint8_t)rnr;
    return 0;
}

/* connect SETUP://ADDR[:PORT] [test NAME]: the target's own connection setup, as
 * `perf --connect` names it (oob.h). Our requester connects as that setup's client. */
static int
parse_connect_url(struct sparse *ps, bool accept, const struct rs_oob_target *t)
{
    const char *what = accept ? "accept" : "connect";
    struct rs_script *s = ps->s;
    unsigned col;

    if (scan_next_is(ps->sc, "test")) {
        g_scanner_get_next_token(ps->sc);
        const struct rs_perf_test *test = rs_perf_test_find(word(ps, s->test, sizeof(s->test),
                                                                 &col));
        if (t->setup != RS_OOB_SETUP_PERFTEST && t->setup != RS_OOB_SETUP_PERFTEST_CM)
            return FAIL(col - 5, "%s: test: only a perftest:// or perftest+cm:// target runs a "
                        "named test", what);
        if (test == NULL || test->pingpong)
            return FAIL(col, "%s: test: expected one of perftest's tests (write_bw, read_bw, "
                        "send_bw, atomic_bw, send_lat, write_lat, read_lat)", what);
    }
    return expect_end(ps, what);
}

/* connect ADDR [side PORT] | connect ADDR qpn N [psn N] [rkey K] [va V] [length L] |
 * connect SETUP://ADDR[:PORT] [test NAME];
 * accept ADDR [side PORT] | accept ADDR qpn N [psn N] | accept roceshark://ADDR[:PORT] */
static int
parse_connect(struct sparse *ps, bool accept)
{
    const char *what = accept ? "accept" : "connect";
    struct rs_script *s = ps->s;
    unsigned col;
    uint64_t port = RS_OOB_PERFTEST_PORT, qpn = 0, psn = 0, rkey = 0, va = 0,
             length = UINT32_MAX;
    bool static_peer = false, side = false;
    char text[96], why[RS_ERRBUF_SIZE];
    struct rs_oob_target t;

    if (s->target[0] != '\0')
        return FAIL(1, "%s: the script has its target already (one connect or accept)", what);
    if (*address_word(ps, text, sizeof(text), &col) == '\0')
        return FAIL(col, "%s: expected the target's IPv4 or IPv6 address, or a URL "
                    "(roceshark://, perftest://, pingpong://, cm://, perftest+cm://)", what);
    if (rs_oob_target_parse(text, &t, why) < 0)
        return FAIL(col, "%s: %s", what, why);
    bool url = strstr(text, "://") != NULL;
    if (!url && t.port != 0)
        return FAIL(col, "%s: a port goes after side (side PORT), or in a URL "
                    "(roceshark://ADDR:PORT)", what);
    s->accept = accept;
    if (script_set_target(s, &t, url, why) < 0)
        return FAIL(col, "%s: %s", what, why);
    if (url)
        return parse_connect_url(ps, accept, &t);
    struct opt o[] = {{"side", 0xffff, &port, &side},      {"qpn", 0xffffff, &qpn, &static_peer},
                      {"psn", 0xffffff, &psn, NULL},       {"rkey", 0xffffffff, &rkey, NULL},
                      {"va", UINT64_MAX, &va, NULL},       {"length", UINT64_MAX, &length, NULL}};
    size_t n_opts = accept ? 3 : sizeof(o) / sizeof(o[0]);     /* a requester has no region */
    /* "side" alone takes the default port. */
    if (scan_next_is(ps->sc, "side")) {
        g_scanner_get_next_token(ps->sc);
        side = true;
        if (scan_peek_uint(ps->sc))
            scan_uint(ps->sc, &port);
    }
    int rc = options(ps, what, o, n_opts);
    if (rc != 0)
        return rc;
    if (side && static_peer)
        return FAIL(col, "%s: give side [PORT] or qpn N and the rest, not both", what);
    s->side = !static_peer;
    s->setup = RS_OOB_SETUP_ROCESHARK;
    s->port = (uint16_t)port;
    s->peer.qpn = (uint32_t)qpn;
    s->peer.psn = (uint32_t)psn;
    s->peer.rkey = (uint32_t)rkey;
    s->peer.va = va;
    s->peer.length = length;
    return 0;
}

/* post OP SIZE|VALUES [count N] [offset O] [imm X] */
static int
parse_post(struct sparse *ps)
{
    static const struct {
        const char *name;
        uint8_t op;
        unsigned values;    /* numbers after the name: size, or the atomic's operands */
    } ops[] = {{"write", P_WRITE, 1},  {"write_imm", P_WRITE_IMM, 1}, {"read", P_READ, 1},
               {"send", P_SEND, 1},    {"send_imm", P_SEND_IMM, 1},   {"cas", P_CAS, 2},
               {"faa", P_FAA, 1}};
    struct rs_script *s = ps->s;
    char w[32];
    unsigned col;
    uint64_t v[2] = {0, 0}, count = 1, offset = 0, imm = 0, rkey = 0, value = 0;
    bool has_rkey = false, has_value = false;

    if (s->n_posts == RS_SCRIPT_MAX_POSTS)
        return FAIL(1, "post: more than %d posts", RS_SCRIPT_MAX_POSTS);
    word(ps, w, sizeof(w), &col);
    size_t k = 0;
    while (k < sizeof(ops) / sizeof(ops[0]) && strcmp(ops[k].name, w) != 0)
        k++;
    if (k == sizeof(ops) / sizeof(ops[0]))
        return FAIL(col, "post: unknown operation '%s' (write, write_imm, read, send, send_imm, "
                    "cas, faa)", w);
    for (unsigned i = 0; i < ops[k].values; i++)
        if (!scan_uint(ps->sc, &v[i]) || (ops[k].values == 1 && ops[k].op != P_FAA &&
                                          (v[i] < 1 || v[i] > (1u << 30))))
            return FAIL(scan_col(ps->sc), "post %s: expected %s", w,
                        ops[k].op == P_CAS ? "COMPARE SWAP" : ops[k].op == P_FAA
                            ? "ADD" : "a size from 1 byte to 1 GiB");
    struct opt o[] = {{"count", 4096, &count, NULL}, {"offset", UINT64_MAX, &offset, NULL},
                      {"imm", 0xffffffff, &imm, NULL}, {"rkey", 0xffffffff, &rkey, &has_rkey},
                      {"value", UINT64_MAX, &value, &has_value}};
    int rc = options(ps, "post", o, sizeof(o) / sizeof(o[0]));
    if (rc != 0)
        return rc;
    if (has_value && ((ops[k].op != P_WRITE && ops[k].op != P_WRITE_IMM) || v[0] != 8))
        return FAIL(col, "post %s: value: only a write of 8 bytes carries a value", w);
    struct script_post *p = &s->posts[s->n_posts++];
    p->op = ops[k].op;
    p->size = p->op == P_CAS || p->op == P_FAA ? 8 : (uint32_t)v[0];
    p->compare_add = v[0];
    p->swap = v[1];
    p->count = (uint32_t)(count ? count : 1);
    p->offset = offset;
    p->imm = (uint32_t)imm;
    p->has_rkey = has_rkey;
    p->rkey = (uint32_t)rkey;
    p->has_value = has_value;
    p->value = value;
    return 0;
}

/* [psn P] [from P|nak] [within T] [after T] after an expectation's first words. */
static int
expect_options(struct sparse *ps, struct script_expect *e, bool psn_ok, bool from_ok)
{
    char w[32];
    unsigned col;
    uint64_t n;

    while (*word(ps, w, sizeof(w), &col) != '\0') {
        if (from_ok && strcmp(w, "from") == 0 && scan_next_is(ps->sc, "nak")) {
            g_scanner_get_next_token(ps->sc);
            e->from_nak = true;
        } else if ((psn_ok && strcmp(w, "psn") == 0) || (from_ok && strcmp(w, "from") == 0)) {
            if (!scan_uint(ps->sc, &n) || n > 0xffffff)
                return FAIL(scan_col(ps->sc), "expect: %s: expected a PSN", w);
            e->has_psn = true;
            e->psn = (uint32_t)n;
        } else if (strcmp(w, "within") == 0) {
            if (!scan_duration(ps->sc, &e->within_ns))
                return FAIL(scan_col(ps->sc), "expect: within: expected a time (1ms, 100us)");
        } else if (strcmp(w, "after") == 0) {
            if (!scan_duration(ps->sc, &e->after_ns))
                return FAIL(scan_col(ps->sc), "expect: after: expected a time (1ms, 100us)");
        } else {
            return FAIL(col, "expect: unknown word '%s'", w);
        }
    }
    return g_scanner_cur_token(ps->sc) == G_TOKEN_EOF ? 0 : FAIL(col, "expect: expected a word");
}

/* Cuts text at a '#' outside double quotes: the comment that may end the line. */
static void
strip_comment(char *text)
{
    bool quoted = false;

    for (char *c = text; *c != '\0'; c++) {
        if (*c == '"')
            quoted = !quoted;
        else if (*c == '#' && !quoted) {
            *c = '\0';
            return;
        }
    }
}

static int
parse_expect(struct sparse *ps)
{
    struct rs_script *s = ps->s;
    char w[64];
    unsigned col;

    if (s->n_expects == RS_SCRIPT_MAX_EXPECTS)
        return FAIL(1, "expect: more than %d expectations", RS_SCRIPT_MAX_EXPECTS);
    struct script_expect *e = &s->expects[s->n_expects];
    memset(e, 0, sizeof(*e));
    e->nak_code = EXPECT_ANY_CODE;
    /* The words after "expect", for the report (a copy: the scanner reads the line). */
    snprintf(e->text, sizeof(e->text), "%s", strstr(ps->text, "expect") + 6);
    strip_comment(e->text);
    g_strstrip(e->text);
    word(ps, w, sizeof(w), &col);
    int rc = 0;
    if (strcmp(w, "nak") == 0) {
        e->kind = E_NAK;
        if (g_scanner_peek_next_token(ps->sc) == G_TOKEN_IDENTIFIER &&
            rs_analysis_nak_code(ps->sc->next_value.v_identifier) >= 0) {
            e->nak_code = rs_analysis_nak_code(ps->sc->next_value.v_identifier);
            g_scanner_get_next_token(ps->sc);
        }
        rc = expect_options(ps, e, true, false);
    } else if (strcmp(w, "rnr") == 0 || strcmp(w, "cnp") == 0) {
        e->kind = w[0] == 'r' ? E_RNR : E_CNP;
        rc = expect_options(ps, e, false, false);
    } else if (strcmp(w, "retransmit") == 0) {
        e->kind = E_RETRANSMIT;
        rc = expect_options(ps, e, false, true);
    } else if (strcmp(w, "duplicate") == 0) {
        e->kind = E_DUPLICATE;
        char a[32];
        if (strcmp(word(ps, a, sizeof(a), &col), "answered") != 0)
            return FAIL(col, "expect duplicate: expected 'answered'");
        rc = expect_end(ps, "expect duplicate answered");
    } else if (strcmp(w, "memory") == 0) {
        e->kind = E_MEMORY;
        if (!scan_uint(ps->sc, &e->offset))
            return FAIL(scan_col(ps->sc), "expect memory: expected an offset into the "
                        "target's region");
        if (g_scanner_get_next_token(ps->sc) != G_TOKEN_EQUAL_SIGN ||
            g_scanner_get_next_token(ps->sc) != G_TOKEN_EQUAL_SIGN)
            return FAIL(scan_col(ps->sc), "expect memory OFFSET == VALUE: expected '=='");
        if (!scan_uint(ps->sc, &e->value))
            return FAIL(scan_col(ps->sc), "expect memory: expected the 64-bit word it holds");
        rc = expect_end(ps, "expect memory");
    } else if (strcmp(w, "exit") == 0) {
        e->kind = E_EXIT;
        if (!scan_uint(ps->sc, &e->count) || e->count > 255)
            return FAIL(scan_col(ps->sc), "expect exit: expected the run command's exit status, "
                        "0 to 255");
        rc = expect_end(ps, "expect exit");
    } else if (strcmp(w, "completion") == 0) {
        e->kind = E_COMPLETION;
        char st[32];
        word(ps, st, sizeof(st), &col);
        if (strcmp(st, "ok") == 0) {
            e->status = EXPECT_ALL_OK;
        } else {
            unsigned k = 0;
            while (k < 32 && strcmp(rs_rc_wc_status_name((uint8_t)k), st) != 0)
                k++;
            if (k == 32)
                return FAIL(col, "expect completion: ok or a status (RETRY_EXC_ERR, "
                            "REM_ACCESS_ERR, ...), not '%s'", st);
            e->status = (uint8_t)k;
        }
        rc = expect_end(ps, "expect completion");
    } else if (strcmp(w, "no") == 0 || strcmp(w, "field") == 0 || strcmp(w, "count") == 0 ||
               strcmp(w, "same") == 0) {
        bool no = w[0] == 'n';
        if (strcmp(w, "same") == 0) {
            char name[128];
            word(ps, name, sizeof(name), &col);
            e->field = rs_field_lookup(name);
            const struct rs_field *fd = e->field >= 0 ? rs_field_by_id(e->field) : NULL;
            if (fd == NULL)
                return FAIL(col, "expect same: no field '%s'", name);
            if (fd->type < RS_FT_BOOLEAN || fd->type > RS_FT_FRAMENUM)
                return FAIL(col, "expect same: %s is not a number", name);
        }
        if (w[0] == 'c' && (!scan_uint(ps->sc, &e->count) || e->count > UINT32_MAX))
            return FAIL(scan_col(ps->sc), "expect count: expected a number of frames, then a "
                        "display filter");
        if (no) {
            word(ps, w, sizeof(w), &col);
            if (strcmp(w, "violation") == 0) {
                e->kind = E_NO_VIOLATION;
                s->n_expects++;
                return expect_end(ps, "expect no violation");
            }
            if (strcmp(w, "field") != 0)
                return FAIL(col, "expect no: violation or field FILTER");
        }
        e->kind = no ? E_NO_FIELD : w[0] == 'c' ? E_COUNT : w[0] == 's' ? E_SAME : E_FIELD;
        const char *filter = ps->text + g_scanner_cur_position(ps->sc);
        struct rs_filter *f;
        char ferr[RS_ERRBUF_SIZE];
        if (rs_filter_compile(filter, &f, ferr) != 0) {
            unsigned pos = 0;
            int skip = 0;
            if (sscanf(ferr, "at position %u: %n", &pos, &skip) == 1 && skip > 0)
                return FAIL((unsigned)(filter - ps->text) + pos, "expect field: %s", ferr + skip);
            return FAIL(scan_col(ps->sc), "expect field: %s", ferr);
        }
        if (strspn(filter, " \t") == strlen(filter))
            return FAIL(scan_col(ps->sc), "expect %s: expected a display filter",
                        e->kind == E_COUNT ? "count" : e->kind == E_SAME ? "same" : "field");
        rs_filter_free(f);
        e->filter = g_strdup(filter);
    } else {
        return FAIL(col, "expect: unknown expectation '%s' (nak, rnr, cnp, retransmit, "
                    "completion, exit, no violation, field, no field, count, same, duplicate "
                    "answered, memory)", w);
    }
    if (rc == 0)
        s->n_expects++;
    return rc;
}

static int
parse_statement(struct sparse *ps, unsigned lineno)
{
    char w[32];
    unsigned col;

    scan_input(ps->sc, ps->text);
    if (g_scanner_peek_next_token(ps->sc) == G_TOKEN_EOF)
        return 0;
    word(ps, w, sizeof(w), &col);
    if (strcmp(w, "bind") == 0)
        return parse_bind(ps);
    if (strcmp(w, "connect") == 0 || strcmp(w, "accept") == 0)
        return parse_connect(ps, w[0] == 'a');
    if (strcmp(w, "run") == 0) {
        GTokenType t = g_scanner_get_next_token(ps->sc);
        if (t != G_TOKEN_STRING || ps->s->run != NULL)
            return FAIL(t == G_TOKEN_IDENTIFIER
                            ? scan_token_col(ps->sc, strlen(ps->sc->value.v_identifier))
                            : scan_col(ps->sc),
                        "run: expected one command, in double quotes");
        ps->s->run = g_strdup(ps->sc->value.v_string);
        return expect_end(ps, "run");
    }
    if (strcmp(w, "post") == 0)
        return parse_post(ps);
    if (strcmp(w, "expect") == 0)
        return parse_expect(ps);
    if (strcmp(w, "timeout") == 0) {
        if (!scan_duration(ps->sc, &ps->s->timeout_ns) || ps->s->timeout_ns == 0)
            return FAIL(scan_col(ps->sc), "timeout: expected a time (2s, 500ms)");
        return expect_end(ps, "timeout");
    }
    if (strcmp(w, "linger") == 0) {
        if (!scan_duration(ps->sc, &ps->s->linger_ns) || ps->s->linger_ns == 0)
            return FAIL(scan_col(ps->sc), "linger: expected a time (100ms, 1s)");
        return expect_end(ps, "linger");
    }
    if (strcmp(w, "fault") == 0) {
        /* Kept at its line, "fault" blanked: the engine's errors keep their place. */
        GString *f = ps->s->faults;
        unsigned have = 1;
        for (const char *c = f->str; *c; c++)
            have += *c == '\n';
        for (; have < lineno; have++)
            g_string_append_c(f, '\n');
        g_string_append_printf(f, "%*s%s\n", (int)(col + 4), "", ps->text + col + 4);
        return 0;
    }
    return FAIL(col, "unknown statement '%s' (bind, connect, accept, run, fault, post, expect, "
                "timeout, linger)", w);
}

/* What only one role can do: we post and see our completions as the requester; as the
 * responder, the target requester's completions are not on the wire. */
static int
check_roles(const struct rs_script *s, char *err)
{
    if (s->accept && s->n_posts > 0)
        return rs_error(err, RS_EINVAL, "%s: post: the target is the requester (accept): it "
                        "posts the work", s->where);
    for (unsigned i = 0; i < s->n_expects; i++) {
        if (s->accept && s->expects[i].kind == E_COMPLETION)
            return rs_error(err, RS_EINVAL, "%s: expect completion: the target is the "
                            "requester (accept); its completions are not on the wire (expect "
                            "exit checks what its command says)", s->where);
        if (s->accept && (s->expects[i].kind == E_DUPLICATE || s->expects[i].kind == E_MEMORY))
            return rs_error(err, RS_EINVAL, "%s: expect %s: the target is the requester "
                            "(accept): we answer its duplicates and hold the memory", s->where,
                            s->expects[i].kind == E_DUPLICATE ? "duplicate answered" : "memory");
        if (s->run == NULL && s->expects[i].kind == E_EXIT)
            return rs_error(err, RS_EINVAL, "%s: expect exit: no run statement", s->where);
    }
    return 0;
}

int
rs_script_parse(const char *text, const char *where, struct rs_script **out, char *err)
{
    struct rs_script *s = calloc(1, sizeof(*s));
    struct sparse ps;
    int rc = 0;

    *out = NULL;
    if (s == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    rs_rc_qp_attr_init(&s->attr);
    s->qpn = 0x11;
    s->timeout_ns = 5000000000ull;
    s->faults = g_string_new(NULL);
    snprintf(s->where, sizeof(s->where), "%s", where);
    memset(&ps, 0, sizeof(ps));
    ps.s = s;
    ps.sc = scan_new();
    ps.place = (struct inject_place){where, 0, err};
    gchar **lines = g_strsplit(text, "\n", -1);
    for (unsigned i = 0; rc == 0 && lines[i] != NULL; i++) {
        ps.place.line = i + 1;
        ps.text = lines[i];
        rc = parse_statement(&ps, i + 1);
    }
    scan_free(ps.sc);       /* before the lines: it reads what is left of the last one */
    g_strfreev(lines);
    if (rc == 0 && s->target[0] == '\0')
        rc = rs_error(err, RS_EINVAL, "%s: no connect or accept statement: the script has no "
                      "target", where);
    if (rc == 0)
        rc = check_roles(s, err);
    if (rc == 0 && s->faults->len > 0) {
        struct rs_faults *f;
        rc = rs_faults_parse(s->faults->str, where, &f, err);
        rs_faults_free(f);
    }
    if (rc != 0) {
        rs_script_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

int
rs_script_load(const char *path, struct rs_script **out, char *err)
{
    gchar *text;

    *out = NULL;
    if (scan_read_file(path, &text, err) != 0)
        return RS_EIO;
    int rc = rs_script_parse(text, path, out, err);
    g_free(text);
    return rc;
}

void
rs_script_free(struct rs_script *s)
{
    if (s == NULL)
        return;
    for (unsigned i = 0; i < s->n_expects; i++)
        g_free(s->expects[i].filter);
    g_string_free(s->faults, TRUE);
    g_free(s->run);
    free(s);
}

int
rs_script_target_file(const char *path, struct rs_rc_conn_info *out, char *err)
{
    gchar *text;
    char why[RS_ERRBUF_SIZE];
    int rc = RS_EINVAL;

    if (scan_read_file(path, &text, err) != 0)
        return RS_EIO;
    gchar **lines = g_strsplit(text, "\n", -1);
    unsigned i = 0;
    for (; lines[i] != NULL; i++) {
        const char *l = lines[i] + strspn(lines[i], " \t\r");
        if (*l == '\0' || *l == '#')
            continue;
        if (rs_rc_conn_parse(l, out, why) == 0)
            rc = 0;
        else
            rs_error(err, RS_EINVAL, "%s:%u: %s", path, i + 1, why);
        break;
    }
    if (lines[i] == NULL)
        rs_error(err, RS_EINVAL, "%s: no target: expected one JSON line as the side channel "
                 "answers", path);
    g_strfreev(lines);
    g_free(text);
    return rc;
}
