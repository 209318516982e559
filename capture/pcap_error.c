/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcap_error.c - what a libpcap handle that would not open says, worded as every command
 * words it: the capture sources, `inject -i` and `bridge` all open interfaces through
 * libpcap and report through here.
 */
#include <pcap/pcap.h>

#include <roceshark/capture/capture.h>

int
rs_capture_pcap_error(char *err, const char *name, int rc, const char *text)
{
    switch (rc) {
    case PCAP_ERROR_NO_SUCH_DEVICE:
        return rs_error_no_iface(err, name);
    case PCAP_ERROR_PERM_DENIED:
        return rs_error_permission(err, name, "capturing and sending need CAP_NET_RAW");
    case PCAP_ERROR_IFACE_NOT_UP:
        return rs_error(err, RS_ENOTSUP, "%s: the interface is down", name);
    default:
        return rs_error(err, RS_EIO, "%s: %s", name, text);
    }
}
