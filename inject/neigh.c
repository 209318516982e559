/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * neigh.c - the Ethernet addresses -i gives a packet: the interface's own
 * (SIOCGIFHWADDR) and its neighbour's, from the kernel's neighbour table
 * (an RTM_GETNEIGH dump over rtnetlink, which holds IPv4 and IPv6 entries
 * alike, as `ip neigh` shows them). A plain netlink request is a few lines;
 * libnl would be a dependency for one query.
 */
#include <errno.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <roceshark/inject/inject.h>

int
rs_inject_iface_mac(const char *ifname, uint8_t mac[6], char *err)
{
    struct ifreq ifr;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return rs_error(err, RS_EIO, "%s: %s", ifname, strerror(errno));
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    int rc = ioctl(fd, SIOCGIFHWADDR, &ifr);
    int e = errno;
    close(fd);
    if (rc != 0)
        return rs_error_errno(err, e, ifname);
    memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
    return 0;
}

/* Looks for ip among the neighbour messages of one netlink reply. Returns 1 when
 * found, 0 to read on, -1 at the end of the dump. */
static int
scan_reply(const uint8_t *buf, size_t len, unsigned ifindex, uint8_t family, const uint8_t *ip,
           uint8_t mac[6])
{
    size_t alen = family == 6 ? 16 : 4;

    for (const struct nlmsghdr *h = (const struct nlmsghdr *)buf; NLMSG_OK(h, len);
         h = NLMSG_NEXT(h, len)) {
        if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
            return -1;
        if (h->nlmsg_type != RTM_NEWNEIGH)
            continue;
        const struct ndmsg *nd = NLMSG_DATA(h);
        if (nd->ndm_ifindex != (int)ifindex ||
            (nd->ndm_state & (NUD_INCOMPLETE | NUD_FAILED | NUD_NOARP)) != 0)
            continue;
        const uint8_t *dst = NULL, *lladdr = NULL;
        int rlen = (int)RTM_PAYLOAD(h);
        for (const struct rtattr *a = RTM_RTA(nd); RTA_OK(a, rlen); a = RTA_NEXT(a, rlen)) {
            if (a->rta_type == NDA_DST && RTA_PAYLOAD(a) == alen)
                dst = RTA_DATA(a);
            else if (a->rta_type == NDA_LLADDR && RTA_PAYLOAD(a) == 6)
                lladdr = RTA_DATA(a);
        }
        if (dst != NULL && lladdr != NULL && memcmp(dst, ip, alen) == 0) {
            memcpy(mac, lladdr, 6);
            return 1;
        }
    }
    return 0;
}

int
rs_inject_neighbour_mac(const char *ifname, uint8_t family, const uint8_t *ip, uint8_t mac[6],
                        char *err)
{
    unsigned ifindex = if_nametoindex(ifname);
    struct {
        struct nlmsghdr h;
        struct ndmsg nd;
    } req;
    uint8_t buf[16384];
    int found = 0;

    if (ifindex == 0)
        return rs_error(err, RS_EIO, "%s: %s", ifname, strerror(errno));
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0)
        return rs_error(err, RS_EIO, "the neighbour table: %s", strerror(errno));
    memset(&req, 0, sizeof(req));
    req.h.nlmsg_len = sizeof(req);
    req.h.nlmsg_type = RTM_GETNEIGH;
    req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    req.nd.ndm_family = family == 6 ? AF_INET6 : AF_INET;
    if (send(fd, &req, sizeof(req), 0) < 0) {
        int rc = rs_error(err, RS_EIO, "the neighbour table: %s", strerror(errno));
        close(fd);
        return rc;
    }
    while (found == 0) {
        ssize_t n = recv(fd, buf, sizeof(buf), 0);
        if (n <= 0)
            break;
        found = scan_reply(buf, (size_t)n, ifindex, family, ip, mac);
    }
    close(fd);
    return found == 1 ? 0 : RS_ENOENT;
}
