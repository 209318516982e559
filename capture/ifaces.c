/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ifaces.c - the network interfaces libpcap can open, with their link type
 * and state, and the RDMA device behind each when there is one.
 */
#include <dirent.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#include "source_int.h"

#define ARPHRD_ETHER_ 1
#define ARPHRD_INFINIBAND_ 32
#define ARPHRD_LOOPBACK_ 772

static const char *
link_name(const char *iface)
{
    char path[128];
    unsigned type = 0;
    FILE *f;

    snprintf(path, sizeof(path), "/sys/class/net/%s/type", iface);
    f = fopen(path, "r");
    if (f == NULL)
        return "other";
    if (fscanf(f, "%u", &type) != 1)
        type = 0;
    fclose(f);
    switch (type) {
    case ARPHRD_ETHER_:
        return "ethernet";
    case ARPHRD_INFINIBAND_:
        return "infiniband";
    case ARPHRD_LOOPBACK_:
        return "loopback";
    default:
        return "other";
    }
}

/* /sys/class/net/IF/device/infiniband/ names the RDMA device of a NIC port. */
static void
rdma_behind(const char *iface, char *out, size_t size)
{
    char path[160];
    DIR *d;
    struct dirent *e;

    out[0] = '\0';
    snprintf(path, sizeof(path), "/sys/class/net/%s/device/infiniband", iface);
    d = opendir(path);
    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] != '.' && strlen(e->d_name) < size) {
            memcpy(out, e->d_name, strlen(e->d_name) + 1);
            break;
        }
    }
    closedir(d);
}

int
rs_capture_list_netifs(struct rs_netif *out, size_t max, size_t *n, char *err)
{
    char pcap_err[PCAP_ERRBUF_SIZE];
    pcap_if_t *all, *d;

    *n = 0;
    if (pcap_findalldevs(&all, pcap_err) != 0)
        return rs_error(err, RS_EIO, "listing interfaces: %s", pcap_err);
    for (d = all; d != NULL && *n < max; d = d->next) {
        /* Pseudo-devices (any, bluetooth-monitor, nflog, ...) have no sysfs entry. */
        char path[128];
        snprintf(path, sizeof(path), "/sys/class/net/%s", d->name);
        DIR *probe = opendir(path);
        if (probe == NULL)
            continue;
        closedir(probe);
        struct rs_netif *nif = &out[(*n)++];
        memset(nif, 0, sizeof(*nif));
        snprintf(nif->name, sizeof(nif->name), "%s", d->name);
        snprintf(nif->link, sizeof(nif->link), "%s", link_name(d->name));
        nif->up = (d->flags & PCAP_IF_UP) != 0;
        nif->running = (d->flags & PCAP_IF_RUNNING) != 0;
        rdma_behind(d->name, nif->rdma_dev, sizeof(nif->rdma_dev));
    }
    pcap_freealldevs(all);
    return 0;
}
