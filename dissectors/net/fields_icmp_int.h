/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_icmp_int.h - what the icmp.* and icmpv6.* field tables share; not
 * part of the API.
 */
#ifndef ROCESHARK_NET_FIELDS_ICMP_INT_H
#define ROCESHARK_NET_FIELDS_ICMP_INT_H

#include <roceshark/dissectors/icmp.h>

/* The message of pkt when f is of its kind (ICMP or ICMPv6) and occ is 0. */
bool icmp_message_of(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                     struct rs_icmp *m);

/* f read at its offset and width when the message is of the given type. */
bool icmp_read_if_type(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                       struct rs_value *out, uint8_t type);

#endif /* ROCESHARK_NET_FIELDS_ICMP_INT_H */
