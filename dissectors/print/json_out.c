/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json_out.c - JSON written into an rs_out: the string escaper every JSON
 * printer uses, and a writer that places commas, newlines and indentation
 * as tshark's JSON dumper does (pretty for -T json, compact for -T ek), so
 * that its output compares line by line with tshark's.
 */
#include <string.h>

#include <roceshark/print.h>

void
rs_out_json_string(struct rs_out *o, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";

    rs_out_char(o, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            rs_out_char(o, '\\');
            rs_out_char(o, (char)c);
        } else if (c < 0x20) {
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf]};
            rs_out_write(o, esc, sizeof(esc));
        } else {
            rs_out_char(o, (char)c);    /* UTF-8 passes as it is, as JSON allows */
        }
    }
    rs_out_char(o, '"');
}

void
rs_json_init(struct rs_json *j, struct rs_out *o, bool pretty, unsigned depth, bool any)
{
    memset(j, 0, sizeof(*j));
    j->o = o;
    j->pretty = pretty;
    j->depth = depth < RS_JSON_MAX_DEPTH ? depth : RS_JSON_MAX_DEPTH - 1;
    j->any[j->depth] = any;
}

static void
newline(struct rs_json *j)
{
    rs_out_char(j->o, '\n');
    for (unsigned i = 0; i < j->depth; i++)
        rs_out_str(j->o, "  ");
}

/* What goes before an element: nothing after a member's name, else a comma after
 * the element before, and in the pretty form a new line. */
static void
element(struct rs_json *j)
{
    if (j->named) {
        j->named = false;
        return;
    }
    if (j->any[j->depth])
        rs_out_char(j->o, ',');
    j->any[j->depth] = true;
    if (j->pretty && j->depth > 0)
        newline(j);
}

static void
open_container(struct rs_json *j, char c)
{
    element(j);
    rs_out_char(j->o, c);
    if (j->depth + 1 < RS_JSON_MAX_DEPTH)
        j->depth++;
    j->any[j->depth] = false;
}

static void
close_container(struct rs_json *j, char c)
{
    bool any = j->any[j->depth];

    if (j->depth > 0)
        j->depth--;
    if (any && j->pretty)
        newline(j);
    rs_out_char(j->o, c);
}

void
rs_json_begin_object(struct rs_json *j)
{
    open_container(j, '{');
}

void
rs_json_end_object(struct rs_json *j)
{
    close_container(j, '}');
}

void
rs_json_begin_array(struct rs_json *j)
{
    open_container(j, '[');
}

void
rs_json_end_array(struct rs_json *j)
{
    close_container(j, ']');
}

void
rs_json_name(struct rs_json *j, const char *name, const char *suffix)
{
    element(j);
    rs_out_char(j->o, '"');
    for (const char *p = name; *p != '\0'; p++) {
        char c = j->dot_to_underscore && *p == '.' ? '_' : *p;
        if (c == '"' || c == '\\')
            rs_out_char(j->o, '\\');
        rs_out_char(j->o, c);
    }
    if (suffix != NULL)
        rs_out_str(j->o, suffix);
    rs_out_str(j->o, j->pretty ? "\": " : "\":");
    j->named = true;
}

void
rs_json_string(struct rs_json *j, const char *s, size_t n)
{
    element(j);
    rs_out_json_string(j->o, s, n);
}

void
rs_json_literal(struct rs_json *j, const char *text)
{
    element(j);
    rs_out_str(j->o, text);
}
