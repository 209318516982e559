/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * error_kinds.c - the errors every command meets alike (no such interface, no such RDMA
 * device, permission, address in use), worded once with what the user can do about them.
 * The interface list comes from the C library, not libpcap, so that every library of ours
 * can word it. (No such RDMA device is capture/sniffer_open.c's, which has libibverbs' list.)
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/common.h>

/* Appends name to the list "a, b, c" in buf, while it fits. */
static void
join(char *buf, size_t size, const char *name, size_t *len)
{
    int n = snprintf(buf + *len, size - *len, "%s%s", *len > 0 ? ", " : "", name);

    if (n > 0 && (size_t)n < size - *len)
        *len += (size_t)n;
}

int
rs_error_no_iface(char *err, const char *name)
{
    char names[160] = "";
    size_t len = 0;
    struct if_nameindex *all = if_nameindex();

    for (struct if_nameindex *i = all; i != NULL && i->if_index != 0; i++)
        join(names, sizeof(names), i->if_name, &len);
    if (all != NULL)
        if_freenameindex(all);
    return rs_error(err, RS_ENOENT, "%s: no such interface (interfaces: %s)", name,
                    len > 0 ? names : "none");
}

int
rs_error_permission(char *err, const char *what, const char *needs)
{
    return rs_error(err, RS_EPERM, "%s: permission denied (%s: run as root, or setcap "
                    "cap_net_raw,cap_net_admin+eip on roceshark)", what, needs);
}

int
rs_error_errno(char *err, int e, const char *what)
{
    switch (e) {
    case ENODEV:
    case ENXIO:
        return rs_error_no_iface(err, what);
    case EPERM:
    case EACCES:
        return rs_error_permission(err, what, "raw sockets need CAP_NET_RAW");
    case EADDRINUSE:
        return rs_error(err, RS_EIO, "%s: address in use (another program holds it: stop "
                        "it, or give another address or port)", what);
    case EADDRNOTAVAIL:
        return rs_error(err, RS_ENOENT, "%s: address not on this host (give one of its "
                        "addresses, or add it: ip addr add)", what);
    default:
        return rs_error(err, RS_EIO, "%s: %s", what, strerror(e));
    }
}
