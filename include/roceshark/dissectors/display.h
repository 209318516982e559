/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * display.h - how values and columns are shown, for the whole process: which names are
 * resolved (tshark's -n and -N) and whether the Info column and the trees are tshark's
 * own (--compat tshark, -o roceshark.info:tshark) or roceshark's richer ones.
 *
 * Process-wide, as Wireshark's name resolution flags are: the field getters that write
 * a resolved name (eth.src_resolved, the Source column) are called from every printer,
 * the filter and the statistics, none of which has a place for options. Set once by the
 * command line before any frame is read; read-only after.
 */
#ifndef ROCESHARK_DISPLAY_H
#define ROCESHARK_DISPLAY_H

#include <stdbool.h>

struct rs_display {
    bool info_tshark;       /* Info (summary line, _ws.col.Info, PSML) as tshark 4.0's */
    bool tree_tshark;       /* trees and JSON without roceshark's own layers */
    bool resolve_mac;       /* MAC addresses by Wireshark's manuf file (tshark's -N m,
                               its default) */
    bool resolve_transport; /* port numbers by name (-N t) */
    bool tcp_absolute;      /* TCP's sequence and acknowledgment numbers as sent, not
                               relative to the initial ones (tshark's -o
                               tcp.relative_sequence_numbers:FALSE) */
};

/* The settings in force: roceshark's Info and trees, MAC names resolved. */
const struct rs_display *rs_display_get(void);
void rs_display_set(const struct rs_display *d);

/* Parses tshark's -N letters ("mt"): m MAC, t transport, n network, d, N, v, g (accepted:
 * those we never resolve). Returns false on another letter. */
bool rs_display_parse_resolve(struct rs_display *d, const char *letters);

#endif /* ROCESHARK_DISPLAY_H */
