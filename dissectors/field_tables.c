/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * field_tables.c - what the field registry is made of: every protocol's field
 * table, in wire order, and the one decoder call it needs, for the datagram an
 * ICMP error quotes (whose values are more occurrences of the frame's fields).
 *
 * Gathered here, at the top of the core as decode.c gathers the decoders, so
 * that fields/ stays below the protocols whose tables use its helpers.
 */
#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/icmp.h>

#include "fields/fields_int.h"

const struct rs_field *const rs_field_tables[] = {
    /* frame.protocols closes the frame's fields, where tshark's JSON has it. */
    rs_fields_frame,   rs_fields_protocols, rs_fields_erf,      rs_fields_link,
    rs_fields_arp,
    rs_fields_ip,      rs_fields_l4,        rs_fields_tcp,      rs_fields_tcp_reasm,
    rs_fields_icmp,
    rs_fields_icmpv6_nd,
    rs_fields_icmpv6_trailer,   /* after the packet a redirect's option holds */
    rs_fields_mpa,
    rs_fields_rdmap,   rs_fields_ib_lrh,    rs_fields_ib_grh,   rs_fields_ib_bth,
    rs_fields_ib_ext,  rs_fields_ib_aeth,   rs_fields_ib_ext_after_aeth, rs_fields_ib_mad,
    rs_fields_ib_sa_head, rs_fields_ib_smp, rs_fields_ib_sa,    rs_fields_ib_perf,
    rs_fields_ib_cm,
    rs_fields_ipoib,   rs_fields_ib_tail,   rs_fields_data,     rs_fields_roceshark,
    rs_fields_iwarp_view, rs_fields_analysis, rs_fields_corr, rs_fields_columns,
    rs_fields_ident,
    /* what ends the tree of a frame tshark could not dissect whole */
    rs_fields_malformed,
};

const size_t rs_field_n_tables = RS_ARRAY_SIZE(rs_field_tables);

bool
rs_field_quote_view(const struct rs_packet *pkt, struct rs_icmp_quote *out)
{
    return rs_icmp_quote_view(pkt, out);
}
