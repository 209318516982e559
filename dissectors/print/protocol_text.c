/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * protocol_text.c - what -e writes for a protocol (-T fields, and -e under -T json and ek):
 * tshark 4.0's item representation, which a dissector has only where it set or added to the
 * item's text ("User Datagram Protocol, Src Port: 4791, Dst Port: 4791"), else the
 * protocol's abbreviation ("infiniband"); Data's bytes in hex. A tree line that is the
 * protocol's name alone is the text tshark makes for an item without one.
 */
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/icmp.h>
#include <roceshark/dissectors/print.h>

bool
rs_protocol_field_is_data(const struct rs_field *f)
{
    return strcmp(f->abbrev, "data") == 0;
}

size_t
rs_protocol_field_text(const struct rs_packet *pkt, const struct rs_field *f,
                       const struct rs_value *v, char *buf, size_t size)
{
    size_t n = 0;

    if (strcmp(f->abbrev, "frame") == 0) {
        uint32_t len = rs_packet_wire_len(pkt), caplen = rs_packet_cap_len(pkt);
        char name[256];
        n = (size_t)snprintf(buf, size, "Frame %llu: %u byte%s on wire (%u bits), %u byte%s "
                             "captured (%u bits)", (unsigned long long)pkt->frame->number,
                             len, len == 1 ? "" : "s", len * 8, caplen, caplen == 1 ? "" : "s",
                             caplen * 8);
        int id = rs_frame_interface(pkt, name, sizeof(name));
        if (id >= 0 && n < size)
            n += (size_t)snprintf(buf + n, size - n, " on interface %s, id %d", name, id);
        return n;
    }
    /* a hidden item's text is never added to (_ws.malformed's second) */
    if (f->label != NULL && !(f->flags & RS_FIELD_HIDDEN))
        n = f->label(pkt, f, v, buf, size);
    if (n == 0 || n >= size || strcmp(buf, f->name) == 0)
        n = (size_t)snprintf(buf, size, "%s", f->abbrev);
    return n;
}

const struct rs_packet *
rs_field_occurrence_view(const struct rs_packet *pkt, int id, unsigned occ,
                         struct rs_icmp_quote *q)
{
    struct rs_value v;

    if (!(pkt->flags & RS_PKT_ICMP_QUOTE))
        return pkt;
    /* the frame's own occurrences come first, of the name and its aliases (_ws.expert's
     * kinds), as rs_field_foreach() lists them */
    struct rs_packet own = *pkt;
    own.flags &= (uint16_t)~RS_PKT_ICMP_QUOTE;
    unsigned n = 0;
    for (int a = id; a >= 0 && n <= occ; a = rs_field_next_alias(a))
        for (unsigned i = 0; n <= occ && rs_field_value(&own, a, i, &v); i++)
            n++;
    if (n <= occ)
        return rs_icmp_quote_view(pkt, q) ? &q->pkt : pkt;
    return pkt;
}
