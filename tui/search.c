/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * search.c - finding a packet by text, as Wireshark's "Find Packet" by
 * string in the packet list: the next shown packet, after a given place in
 * the list and wrapping at its end, whose summary line (the line `read`
 * prints) holds the text, in any case.
 *
 * Each candidate is read back and decoded; a search looks at a bounded
 * number of packets per call, so the screen stays responsive on a long
 * capture and the user can go on from where it stopped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <roceshark/print.h>

#include "model_int.h"

/* Prints the frame's summary line over the last one, at the start of the stream's
 * buffer: the text up to its first newline is this frame's. */
static bool
summary_line(struct rs_out *o, FILE *fp, const struct rs_packet *pkt)
{
    rewind(fp);
    rs_print_summary(o, pkt);
    return rs_out_flush(o) == 0 && fflush(fp) == 0;
}

int
rs_tui_model_search(struct rs_tui_model *m, uint64_t after, const char *text, uint64_t budget,
                    uint64_t *found, uint64_t *looked, char *err)
{
    uint64_t n = rs_tui_model_shown_count(m);
    char *needle = g_utf8_casefold(text, -1), *line = NULL;
    size_t size = 0;
    struct rs_tui_decoded d;
    struct rs_out o;
    int rc = RS_ENOENT;

    *looked = 0;
    memset(&d, 0, sizeof(d));
    FILE *fp = open_memstream(&line, &size);
    if (fp == NULL || rs_out_init(&o, fp, 4096) != 0) {
        if (fp != NULL)
            fclose(fp);
        free(line);
        g_free(needle);
        return rs_error(err, RS_ENOMEM, "search: out of memory");
    }
    for (uint64_t i = 1; i <= n && *looked < budget; i++) {
        uint64_t pos = (after + i) % n;
        (*looked)++;
        if ((rc = rs_tui_model_decode(m, rs_tui_model_shown_frame(m, pos), &d, err)) != 0)
            break;
        if (!summary_line(&o, fp, &d.pkt)) {
            rc = rs_error(err, RS_ENOMEM, "search: out of memory");
            break;
        }
        char *folded = g_utf8_casefold(line, (gssize)strcspn(line, "\n"));
        bool hit = strstr(folded, needle) != NULL;
        g_free(folded);
        if (hit) {
            *found = pos;
            rc = 0;
            break;
        }
        rc = RS_ENOENT;
    }
    rs_out_free(&o);
    fclose(fp);
    free(line);
    rs_tui_decoded_free(&d);
    g_free(needle);
    if (rc == RS_ENOENT)
        rs_error(err, RS_ENOENT, "\"%s\" is not in %s%llu packets", text,
                 *looked < n ? "the next " : "the ", (unsigned long long)*looked);
    return rc;
}
