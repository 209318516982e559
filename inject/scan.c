/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scan.c - what the line-oriented languages (fault rules, scenario scripts)
 * share on top of GLib's GScanner: one configuration, columns, and words
 * read as numbers and durations.
 */
#include <errno.h>
#include <string.h>

#include <roceshark/inject/script.h>

#include "inject_int.h"

GScanner *
scan_new(void)
{
    GScanner *sc = g_scanner_new(NULL);

    /* Words start with a letter or a digit and may hold dots: field names, and numbers
     * with their units ("2ms", "0.01", "0x1f") read as words and converted here;
     * '#' starts a comment to the end of the line; "..." strings carry value names. */
    sc->config->cset_identifier_first = G_CSET_a_2_z G_CSET_A_2_Z G_CSET_DIGITS "_";
    sc->config->cset_identifier_nth = G_CSET_a_2_z G_CSET_A_2_Z G_CSET_DIGITS "._";
    sc->config->cpair_comment_single = "#\n";
    sc->config->scan_identifier_1char = TRUE;
    sc->config->scan_string_sq = FALSE;
    g_scanner_input_text(sc, "", 0);
    return sc;
}

/* Reads what is left of the current text: GScanner frees a token's value only when the
 * next token is read, and g_scanner_input_text() and g_scanner_destroy() forget the value
 * of the last token read (or peeked) without freeing it. */
static void
scan_drain(GScanner *sc)
{
    GTokenType t;

    do
        t = g_scanner_get_next_token(sc);
    while (t != G_TOKEN_EOF && t != G_TOKEN_ERROR);
}

void
scan_input(GScanner *sc, const char *text)
{
    scan_drain(sc);
    g_scanner_input_text(sc, text, (guint)strlen(text));
}

void
scan_free(GScanner *sc)
{
    scan_drain(sc);
    g_scanner_destroy(sc);
}

/* The column where the token just read starts (GScanner gives the one after it). */
unsigned
scan_token_col(GScanner *sc, size_t token_len)
{
    unsigned pos = g_scanner_cur_position(sc);
    return pos > token_len ? pos - (unsigned)token_len + 1 : 1;
}

unsigned
scan_col(GScanner *sc)
{
    return g_scanner_cur_position(sc) + 1;
}

/* The next token as an identifier equal to word. */
bool
scan_next_is(GScanner *sc, const char *word)
{
    return g_scanner_peek_next_token(sc) == G_TOKEN_IDENTIFIER &&
           strcmp(sc->next_value.v_identifier, word) == 0;
}

/* Numbers, durations and names are all words to the scanner (so that "2ms" is one
 * token); these read the word as what it must be. */
bool
scan_word_uint(const char *w, uint64_t *out)
{
    char *end;

    if (!g_ascii_isdigit(w[0]))
        return false;
    errno = 0;
    *out = g_ascii_strtoull(w, &end, 0);
    return errno == 0 && *end == '\0';
}

bool
scan_peek_uint(GScanner *sc)
{
    uint64_t n = 0;

    return g_scanner_peek_next_token(sc) == G_TOKEN_IDENTIFIER &&
           scan_word_uint(sc->next_value.v_identifier, &n);
}

bool
scan_uint(GScanner *sc, uint64_t *out)
{
    return g_scanner_get_next_token(sc) == G_TOKEN_IDENTIFIER &&
           scan_word_uint(sc->value.v_identifier, out);
}

bool
scan_double(GScanner *sc, double *out)
{
    char *end;

    if (g_scanner_get_next_token(sc) != G_TOKEN_IDENTIFIER ||
        !g_ascii_isdigit(sc->value.v_identifier[0]))
        return false;
    *out = g_ascii_strtod(sc->value.v_identifier, &end);
    return *end == '\0';
}

/* A duration: a number and its unit in one word (2ms, 500us, 1.5s, 100ns). */
static bool
word_duration(const char *w, uint64_t *ns)
{
    static const struct {
        const char *unit;
        double ns;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    char *end;

    if (!g_ascii_isdigit(w[0]))
        return false;
    double v = g_ascii_strtod(w, &end);
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(end, units[i].unit) == 0) {
            double x = v * units[i].ns;
            if (!(x >= 0 && x <= 3600e9))
                return false;
            *ns = (uint64_t)x;
            return true;
        }
    }
    return false;
}

bool
scan_duration(GScanner *sc, uint64_t *ns)
{
    return g_scanner_get_next_token(sc) == G_TOKEN_IDENTIFIER &&
           word_duration(sc->value.v_identifier, ns);
}

bool
rs_script_parse_duration(const char *text, uint64_t *ns)
{
    return word_duration(text, ns);
}

int
scan_read_file(const char *path, gchar **text, char *err)
{
    GError *gerr = NULL;

    if (g_file_get_contents(path, text, NULL, &gerr))
        return 0;
    int rc = rs_error(err, RS_EIO, "%s: %s", path, gerr->message);
    g_error_free(gerr);
    return rc;
}
