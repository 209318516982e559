/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter_lex.c - cutting a display filter into tokens as Wireshark 4.0's scanner
 * does: symbols (longest first), "strings" and r"raw strings", 'c'haracter
 * constants, keywords, and words (field names, numbers, addresses, byte strings).
 *
 * A word may hold '-' after its first character, so "frame.len-2" is one word, as in
 * Wireshark ("A-B must be written as A -B"), and a leading '-' is always a minus.
 * A '/' joins a word only as an address's prefix length ("10.0.0.0/8", "fe80::/10"),
 * so that "frame.len/2" divides.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "filter/filter_int.h"

bool
filter_fail(struct parser *p, size_t pos, const char *fmt, ...)
{
    char what[RS_ERRBUF_SIZE - 32];
    va_list ap;

    if (p->failed)
        return false;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    /* What the message quotes of the text stays on its line: control characters are
     * written as escapes (found by the filter fuzzer). */
    char line[sizeof(what)];
    size_t n = 0;
    for (const char *c = what; *c != '\0' && n + 5 < sizeof(line); c++) {
        if ((unsigned char)*c >= 0x20 && *c != 0x7f)
            line[n++] = *c;
        else if (*c == '\n')
            n += (size_t)snprintf(line + n, sizeof(line) - n, "\\n");
        else
            n += (size_t)snprintf(line + n, sizeof(line) - n, "\\x%02x", (unsigned char)*c);
    }
    line[n] = '\0';
    rs_error(p->err, RS_EINVAL, "at position %zu: %s", pos + 1, line);
    p->failed = true;
    return false;
}

static bool
word_start(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == ':';
}

static bool
word_char(char c)
{
    return word_start(c) || c == '-';
}

/* Whether t[0..len) can be the address a "/prefix" follows: hex digits, dots and
 * colons only (an IPv4 or IPv6 address), not a field name. */
static bool
address_like(const char *t, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!isxdigit((unsigned char)t[i]) && t[i] != '.' && t[i] != ':')
            return false;
    return len > 0;
}

static bool
starts(const char *s, const char *word)
{
    return strncmp(s, word, strlen(word)) == 0;
}

/* The closing quote of a string or character constant opened at t[i], or 0. */
static size_t
closing(const char *t, size_t i, char quote, bool raw)
{
    size_t j = i + 1;

    while (t[j] != '\0' && t[j] != quote)
        j += ((t[j] == '\\' && t[j + 1] != '\0') && (!raw || t[j + 1] == quote)) ? 2 : 1;
    return t[j] == quote ? j : 0;
}

static const struct {
    const char *s;
    enum tok tok;
    enum cmp_op op;
} symbols[] = {
    {"===", TOK_RELOP, CMP_ALL_EQ}, {"!==", TOK_RELOP, CMP_ANY_NE},
    {"&&", TOK_AND, 0},  {"||", TOK_OR, 0},  {"==", TOK_RELOP, CMP_EQ},
    {"!=", TOK_RELOP, CMP_NE}, {"~=", TOK_RELOP, CMP_ANY_NE}, {"<=", TOK_RELOP, CMP_LE},
    {">=", TOK_RELOP, CMP_GE}, {"..", TOK_RANGE, 0}, {"${", TOK_REF, 0},
    {"<", TOK_RELOP, CMP_LT}, {">", TOK_RELOP, CMP_GT}, {"!", TOK_NOT, 0},
    {"~", TOK_MATCHES, 0}, {"&", TOK_BITAND, 0}, {"(", TOK_LPAREN, 0}, {")", TOK_RPAREN, 0},
    {"{", TOK_LBRACE, 0}, {"}", TOK_RBRACE, 0}, {"[", TOK_LBRACKET, 0},
    {"]", TOK_RBRACKET, 0}, {",", TOK_COMMA, 0}, {"+", TOK_PLUS, 0}, {"-", TOK_MINUS, 0},
    {"*", TOK_STAR, 0}, {"/", TOK_SLASH, 0}, {"%", TOK_PERCENT, 0}, {"#", TOK_HASH, 0},
};

static const struct {
    const char *w;
    enum tok tok;
    enum cmp_op op;
} keywords[] = {
    {"and", TOK_AND, 0}, {"or", TOK_OR, 0}, {"not", TOK_NOT, 0},
    {"eq", TOK_RELOP, CMP_EQ}, {"any_eq", TOK_RELOP, CMP_EQ}, {"ne", TOK_RELOP, CMP_NE},
    {"all_ne", TOK_RELOP, CMP_NE}, {"all_eq", TOK_RELOP, CMP_ALL_EQ},
    {"any_ne", TOK_RELOP, CMP_ANY_NE}, {"lt", TOK_RELOP, CMP_LT}, {"le", TOK_RELOP, CMP_LE},
    {"gt", TOK_RELOP, CMP_GT}, {"ge", TOK_RELOP, CMP_GE}, {"contains", TOK_CONTAINS, 0},
    {"matches", TOK_MATCHES, 0}, {"in", TOK_IN, 0}, {"any", TOK_ANY, 0},
    {"all", TOK_ALL, 0}, {"bitwise_and", TOK_BITAND, 0},
};

static void
lex_quoted(struct parser *p, size_t i, bool raw)
{
    const char *t = p->text;
    char quote = t[i];
    size_t j = closing(t, i, quote, raw);

    if (j == 0) {
        filter_fail(p, i - raw, quote == '"' ? "unterminated string" :
                                              "unterminated character constant");
        p->tok = TOK_END;
        p->end = strlen(t);
        return;
    }
    p->tok = quote == '"' ? TOK_STRING : TOK_CHAR;
    p->raw = raw;
    p->end = j + 1;
}

void
filter_next(struct parser *p)
{
    const char *t = p->text;
    size_t i = p->end;

    while (isspace((unsigned char)t[i]))
        i++;
    p->pos = i;
    p->raw = false;
    if (t[i] == '\0') {
        p->tok = TOK_END;
        p->end = i;
        return;
    }
    if (t[i] == '"' || t[i] == '\'') {
        lex_quoted(p, i, false);
        return;
    }
    if (t[i] == 'r' && t[i + 1] == '"') {
        lex_quoted(p, i + 1, true);
        p->pos = i;
        return;
    }
    for (size_t k = 0; k < sizeof(symbols) / sizeof(symbols[0]); k++) {
        if (starts(t + i, symbols[k].s)) {
            p->tok = symbols[k].tok;
            p->relop = symbols[k].op;
            p->end = i + strlen(symbols[k].s);
            return;
        }
    }
    size_t j = i;
    if (word_start(t[j]))
        while (word_char(t[j]) && !(t[j] == '.' && t[j + 1] == '.'))
            j++;
    if (j == i) {
        if (isprint((unsigned char)t[i]))
            filter_fail(p, i, "unexpected character '%c'", t[i]);
        else
            filter_fail(p, i, "unexpected character '\\x%02x'", (unsigned char)t[i]);
        p->tok = TOK_END;
        p->end = i + 1;
        return;
    }
    if (t[j] == '/' && isdigit((unsigned char)t[j + 1]) && address_like(t + i, j - i))
        for (j++; isdigit((unsigned char)t[j]); j++)
            ;
    p->end = j;
    p->tok = TOK_WORD;
    for (size_t k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++) {
        if (strlen(keywords[k].w) == j - i && strncmp(t + i, keywords[k].w, j - i) == 0) {
            p->tok = keywords[k].tok;
            p->relop = keywords[k].op;
        }
    }
}

void
filter_next_range(struct parser *p)
{
    const char *t = p->text;
    size_t i = p->end;

    while (isspace((unsigned char)t[i]))
        i++;
    p->pos = i;
    size_t j = i;
    while (isdigit((unsigned char)t[j]) || t[j] == ':' || t[j] == '-')
        j++;
    if (j == i) {
        p->end = i;
        filter_next(p);
        if (!p->failed)
            filter_fail(p, p->pos, "expected a range such as 0:2 in [ ]");
        return;
    }
    p->tok = TOK_WORD;
    p->end = j;
}
