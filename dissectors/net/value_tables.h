/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * value_tables.h - Wireshark's names for the values of fields any frame may carry
 * (value_tables.c, written from tshark -G values). rs_icmpv6_type_vals is there too,
 * declared in icmp.h.
 */
#ifndef ROCESHARK_NET_VALUE_TABLES_H
#define ROCESHARK_NET_VALUE_TABLES_H

#include <roceshark/dissectors/fields.h>

extern const struct rs_value_string rs_etype_vals[];
extern const struct rs_value_string rs_ipproto_vals[];
extern const struct rs_value_string rs_ipv6_opt_type_vals[];
extern const struct rs_value_string rs_tcp_option_kind_vals[];
extern const struct rs_value_string rs_arp_hw_type_vals[];
extern const struct rs_value_string rs_arp_opcode_vals[];

#endif
