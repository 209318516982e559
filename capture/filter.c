/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter.c - the default capture filter: RDMA traffic only.
 *
 * RoCEv2 is UDP to port 4791 (IBTA Annex A17 names the destination port),
 * RoCEv1 is Ethertype 0x8915, iWARP runs on whatever TCP ports the user
 * names. RoCE fabrics run PFC on tagged VLANs, so the filter matches frames
 * with no tag, one tag (802.1Q or 802.1ad) and two (QinQ).
 *
 * BPF's `vlan` keyword moves the offsets of every primitive after it on the
 * assumption that the frame is tagged, for the rest of the expression. So
 * the untagged test comes first and each deeper level nests inside the
 * previous one:  U or (vlan and (U or (vlan and U))).
 */
#include <stdarg.h>
#include <stdio.h>

#include <pcap/dlt.h>

#include <roceshark/dissectors/dissect.h>

#include "source_int.h"

struct strbuf {
    char *buf;
    size_t size;
    size_t len;
    bool overflow;
};

static void
sb_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
sb_printf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;

    if (sb->overflow)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(sb->buf + sb->len, sb->size - sb->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sb->size - sb->len)
        sb->overflow = true;
    else
        sb->len += (size_t)n;
}

/* The RDMA primitives of one tagging level. */
static void
untagged_terms(struct strbuf *sb, const struct rs_live_opts *opts)
{
    sb_printf(sb, "udp dst port %u", RS_ROCEV2_UDP_PORT);
    for (unsigned i = 0; i < opts->n_roce_ports; i++)
        sb_printf(sb, " or udp dst port %u", opts->roce_ports[i]);
    sb_printf(sb, " or ether proto 0x8915");
    for (unsigned i = 0; i < opts->n_iwarp_ports; i++)
        sb_printf(sb, " or tcp port %u", opts->iwarp_ports[i]);
}

int
rs_capture_default_filter(const struct rs_live_opts *opts, int linktype, char *buf,
                          size_t size, char *err)
{
    struct strbuf sb = {buf, size, 0, false};

    if (size == 0)
        return rs_error(err, RS_EINVAL, "default filter: no room");
    untagged_terms(&sb, opts);
    if (linktype == DLT_EN10MB) {
        sb_printf(&sb, " or (vlan and (");
        untagged_terms(&sb, opts);
        sb_printf(&sb, " or (vlan and (");
        untagged_terms(&sb, opts);
        sb_printf(&sb, "))))");
    }
    if (sb.overflow)
        return rs_error(err, RS_EINVAL, "default filter: too many ports");
    return 0;
}
