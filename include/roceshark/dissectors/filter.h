/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter.h - display filters (-Y): the Wireshark syntax, over every field in
 * the registry, ours and Wireshark's.
 *
 * Supported: a field alone (present), == != < <= > >= (and eq ne lt le gt
 * ge), `contains`, `in {a b c d..e}`, && || ! (and, or, not), parentheses,
 * and literals: decimal, hex (0x...), times in seconds, "strings", value
 * names ("RC Send Only" for an opcode), IPv4 and IPv6 addresses with an
 * optional /prefix, MAC addresses and byte strings (aa:bb:cc).
 * Also Wireshark 4.0's `matches "regex"` (GRegex, compiled here), slices
 * (field[i:j], [i-j], [i], [:j], [i:], negative from the end; protocols
 * such as frame or udp as their bytes), the functions len(), count(),
 * lower(), upper(), and a field compared with a field (ip.src < ip.dst:
 * some pair satisfies it; != when no pair is equal).
 * As in Wireshark 4.0: == and the orderings hold when any occurrence of the
 * field satisfies them, != when every occurrence differs; a test on an
 * absent field is false.
 */
#ifndef ROCESHARK_FILTER_H
#define ROCESHARK_FILTER_H

#include <stdbool.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/packet.h>

struct rs_filter;

/* Parentheses may nest this deep. Wireshark 4.0's parser has a stack of 100
 * entries, which admits 97 nested parentheses and fails past that; every
 * filter it accepts is accepted here. A longer one is refused with its
 * position rather than overflowing the stack. Runs of "!" and chains of &&
 * and || have no limit: they add no depth. */
#define RS_FILTER_MAX_DEPTH 100

/* Compiles text; on error fills err with "at position N: what" (N counts
 * characters from 1) and returns RS_EINVAL. */
int rs_filter_compile(const char *text, struct rs_filter **out, char *err);
bool rs_filter_match(const struct rs_filter *f, const struct rs_packet *pkt);
/* True when the filter reads a field whose name starts with prefix (false for
 * no filter). */
bool rs_filter_uses(const struct rs_filter *f, const char *prefix);
void rs_filter_free(struct rs_filter *f);

#endif /* ROCESHARK_FILTER_H */
