/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read_tshark_prefs.c - -G defaultprefs and -G currentprefs: tshark's preferences file
 * with the preferences read takes (read_tshark_prefs_table.c), in tshark's order, under
 * its section lines, each after its comment. One at its default is commented out, as
 * tshark writes one not changed; with currentprefs, one -o set to another value is written
 * as tshark writes it then: uncommented, a boolean in capitals (anything but true is
 * FALSE), a number in its base, a choice as its list spells it (one it does not list
 * leaves the default), the column list a pair a line. -o given after -G counts:
 * the options are read before anything is printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "read_int.h"

#define PREF_VALUE_MAX 4096

/* The choice of the comment's "# One of: A, B, C" line that value names, whatever its
 * case, as the list spells it: a choice may hold ", " itself ("8 Priorities, 0 Drop
 * Eligible"), so value is tried at each choice's start. NULL when none. */
static const char *
spelled_choice(const char *comment, const char *value, size_t *len)
{
    const char *list = strstr(comment, "# One of: ");
    size_t n = strlen(value);

    if (list == NULL || n == 0)
        return NULL;
    list += 10;
    const char *end = strchr(list, '\n');
    for (const char *at = list; at != NULL && at < end;) {
        if ((size_t)(end - at) >= n && strncasecmp(at, value, n) == 0 &&
            (at + n == end || strncmp(at + n, ", ", 2) == 0)) {
            *len = n;
            return at;
        }
        at = strstr(at, ", ");
        at = at != NULL ? at + 2 : NULL;
    }
    return NULL;
}

static bool
column_code_known(const char *code, size_t n)
{
    if (n >= 4 && strncmp(code, "%Cus", 4) == 0)     /* a custom column: its fields follow */
        return true;
    for (const char *const *c = read_tshark_column_codes; *c != NULL; c++)
        if (strlen(*c) == n && strncmp(*c, code, n) == 0)
            return true;
    return false;
}

bool
read_column_list(const char *value, char *buf, size_t size)
{
    size_t used = 0, items = 0, len = strlen(value);
    const char *p = value;

    buf[0] = '\0';
    if (len > 0 && (value[len - 1] == ' ' || value[len - 1] == '\t'))
        return false;   /* tshark refuses blanks at the end */
    while (*p != '\0') {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '"')
            return false;
        const char *close = strchr(p + 1, '"');
        if (close == NULL || close == p + 1 ||
            (items % 2 == 1 && !column_code_known(p + 1, (size_t)(close - p - 1))))
            return false;
        int w = snprintf(buf + used, size - used, "%s\"%.*s\"",
                         items % 2 == 0 ? (items == 0 ? "\n\t" : ",\n\t") : ", ",
                         (int)(close - p - 1), p + 1);
        if (w < 0 || (size_t)w >= size - used)
            return false;
        used += (size_t)w;
        items++;
        p = close + 1;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == ',')
            p++;
        else if (*p != '\0')
            return false;
    }
    return items > 0 && items % 2 == 0;
}

/* The value as tshark writes it, in buf (as given where it is not one tshark would take). */
static const char *
written_value(const struct read_tshark_pref *pref, const char *value, char *buf, size_t size)
{
    char *end;
    unsigned long long n;
    size_t len;
    const char *choice;

    switch (pref->kind) {
    case READ_PREF_BOOL:        /* tshark takes anything but "true" for FALSE */
        return strcasecmp(value, "TRUE") == 0 ? "TRUE" : "FALSE";
    case READ_PREF_DECIMAL:
    case READ_PREF_HEX:
        n = strtoull(value, &end, pref->kind == READ_PREF_HEX ? 16 : 10);
        if (end == value || *end != '\0' || value[0] == '-')
            return value;
        snprintf(buf, size, pref->kind == READ_PREF_HEX ? "0x%llx" : "%llu", n);
        return buf;
    case READ_PREF_LIST:
        return read_column_list(value, buf, size) ? buf : value;
    case READ_PREF_TEXT:
    default:
        if ((choice = spelled_choice(pref->comment, value, &len)) == NULL)
            /* a choice tshark does not know leaves the default; free text is kept */
            return strstr(pref->comment, "# One of: ") != NULL ? pref->value : value;
        snprintf(buf, size, "%.*s", (int)len, choice);
        return buf;
    }
}

/* "name: value", a list's lines after it; each line after a '#' when commented. */
static void
print_pref_line(struct rs_out *o, const char *name, const char *value, bool commented)
{
    const char *mark = commented ? "#" : "";

    rs_out_printf(o, "%s%s: ", mark, name);
    for (const char *nl; (nl = strchr(value, '\n')) != NULL; value = nl + 1)
        rs_out_printf(o, "%.*s\n%s", (int)(nl - value), value, mark);
    rs_out_printf(o, "%s\n", value);
}

/* The value of read_tshark_prefs[i] to write (in buf, or the default), and whether -o
 * changed it from the default (currentprefs only). */
static const char *
pref_value(const struct read_opts *ro, size_t i, bool current, char *buf, size_t size,
           bool *changed)
{
    const struct read_tshark_pref *pref = &read_tshark_prefs[i];
    const char *value = pref->value;

    *changed = false;
    if (current && ro->tshark_prefs[i] != NULL) {
        value = written_value(pref, ro->tshark_prefs[i], buf, size);
        *changed = strcmp(value, pref->value) != 0;
    }
    return value;
}

/* Whether -o set the column list: tshark then writes the hidden columns uncommented too. */
static bool
columns_set(const struct read_opts *ro, bool current)
{
    static char buf[PREF_VALUE_MAX];
    bool changed = false;

    for (size_t i = 0; i < read_tshark_n_prefs; i++)
        if (strcmp(read_tshark_prefs[i].name, "gui.column.format") == 0)
            pref_value(ro, i, current, buf, sizeof(buf), &changed);
    return changed;
}

void
read_print_prefs(struct rs_out *o, const struct read_opts *ro, bool current)
{
    static char buf[PREF_VALUE_MAX];
    const char *section = NULL;
    bool columns = columns_set(ro, current);

    rs_out_str(o, read_tshark_prefs_head);
    for (size_t i = 0; i < read_tshark_n_prefs; i++) {
        const struct read_tshark_pref *pref = &read_tshark_prefs[i];
        bool changed;
        const char *value = pref_value(ro, i, current, buf, sizeof(buf), &changed);
        if (columns && strcmp(pref->name, "gui.column.hidden") == 0)
            changed = true;
        if (section == NULL || strcmp(section, pref->section) != 0)
            rs_out_printf(o, "\n####### %s ########\n", pref->section);
        section = pref->section;
        rs_out_printf(o, "\n%s", pref->comment);
        print_pref_line(o, pref->name, value, !changed);
    }
}
