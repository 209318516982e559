/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * summary_int.h - what the summary line's files share: the Info text being
 * built, and the Info of ICMP and ICMPv6 messages (summary_icmp.c). Private
 * to the printers.
 */
#ifndef ROCESHARK_SUMMARY_INT_H
#define ROCESHARK_SUMMARY_INT_H

#include <stddef.h>

#include <roceshark/dissectors/icmp.h>

/* Appends to a fixed buffer, dropping what does not fit. */
struct info {
    char *buf;
    size_t size;
    size_t len;
};

void info_add(struct info *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The common parts of an Info without printf, whose parsing was a third of the summary
 * lines' time: s; label and v in decimal; label and v in hex, zero-padded to digits
 * (label ends in "0x"). Truncated as info_add() truncates. */
void info_str(struct info *in, const char *s);
void info_dec(struct info *in, const char *label, uint64_t v);
void info_hex(struct info *in, const char *label, uint64_t v, unsigned digits);

/* Appends m's Info as tshark writes it. */
void summary_icmp_info(struct info *in, const struct rs_packet *pkt, const struct rs_icmp *m);

#endif /* ROCESHARK_SUMMARY_INT_H */
