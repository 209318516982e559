/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * script_report.c - a script's results as TAP lines and as JUnit XML (script.h).
 */
#include <stdio.h>

#include <roceshark/inject/script.h>

unsigned
rs_script_failures(const struct rs_script_result *r, unsigned n)
{
    unsigned k = 0;

    for (unsigned i = 0; i < n; i++)
        k += !r[i].ok && !r[i].note;
    return k;
}

void
rs_script_print_tap(FILE *out, const struct rs_script_result *r, unsigned n)
{
    unsigned tests = 0, k = 0;

    for (unsigned i = 0; i < n; i++)
        tests += !r[i].note;
    fprintf(out, "1..%u\n", tests);
    for (unsigned i = 0; i < n; i++) {
        if (r[i].note)
            fprintf(out, "# %s: %s\n", r[i].text, r[i].evidence);
        else
            fprintf(out, "%s %u - %s: %s\n", r[i].ok ? "ok" : "not ok", ++k, r[i].text,
                    r[i].evidence);
    }
}

/* Text in XML attributes. */
static void
xml_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out); break;
        }
    }
}

void
rs_script_print_junit(FILE *out, const char *suite, const struct rs_script_result *r,
                      unsigned n, double seconds)
{
    unsigned failures = rs_script_failures(r, n), tests = 0;

    for (unsigned i = 0; i < n; i++)
        tests += !r[i].note;
    fprintf(out, "<testsuite name=\"");
    xml_text(out, suite);
    fprintf(out, "\" tests=\"%u\" failures=\"%u\" time=\"%.3f\">\n", tests, failures,
            seconds);
    for (unsigned i = 0; i < n; i++) {
        if (r[i].note) {
            fprintf(out, "  <system-out>");
            xml_text(out, r[i].text);
            fprintf(out, ": ");
            xml_text(out, r[i].evidence);
            fprintf(out, "</system-out>\n");
            continue;
        }
        fprintf(out, "  <testcase classname=\"");
        xml_text(out, suite);
        fprintf(out, "\" name=\"");
        xml_text(out, r[i].text);
        fprintf(out, "\">");
        if (!r[i].ok) {
            fprintf(out, "<failure message=\"");
            xml_text(out, r[i].evidence);
            fprintf(out, "\"/>");
        } else {
            fprintf(out, "<system-out>");
            xml_text(out, r[i].evidence);
            fprintf(out, "</system-out>");
        }
        fprintf(out, "</testcase>\n");
    }
    fprintf(out, "</testsuite>\n");
}
