/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * summary_icmp.h - the summary line's Info for ICMP and ICMPv6 messages;
 * private to the printers.
 */
#ifndef ROCESHARK_SUMMARY_ICMP_H
#define ROCESHARK_SUMMARY_ICMP_H

#include <stddef.h>

#include <roceshark/icmp.h>

/* Writes m's Info as tshark's into buf; returns its length (at most size - 1). */
size_t summary_icmp_info(const struct rs_packet *pkt, const struct rs_icmp *m, char *buf,
                         size_t size);

#endif /* ROCESHARK_SUMMARY_ICMP_H */
