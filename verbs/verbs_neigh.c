/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_neigh.c - whether the next hop to an address answers ARP (or IPv6's
 * neighbour discovery), as the kernel's RDMA CM waits for it before
 * ADDR_RESOLVED (rdma_resolve_ip(): a neighbour that stays unresolved for the
 * program's timeout is ADDR_ERROR, -ETIMEDOUT).
 *
 * Three rtnetlink requests, each answered by one message: the route to the
 * address (RTM_GETROUTE, as `ip route get`: its interface, its gateway, whether
 * it is local), the neighbour entry of the next hop (RTM_GETNEIGH for one
 * address, as `ip neigh get`), and, while it is not resolved, a request that the
 * kernel resolve it (RTM_NEWNEIGH with NTF_USE, as `ip neigh replace ... use`),
 * which sends ARP and nothing else. libnl would be a dependency for three
 * queries. Without rtnetlink, or without the right to ask for a resolution
 * (NTF_USE needs CAP_NET_ADMIN), the hop counts as resolved: a REQ that nobody
 * answers then finds it out, as before.
 */
#include <errno.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "verbs_ucma.h"

#define NL_BUF 4096
/* The kernel's NUD_VALID (include/net/neighbour.h, not exported to user space): an
 * entry with an address to send to. */
#define NEIGH_VALID (NUD_PERMANENT | NUD_NOARP | NUD_REACHABLE | NUD_PROBE | NUD_STALE | \
                     NUD_DELAY)

struct nl_req {
    struct nlmsghdr h;
    union {
        struct rtmsg rt;
        struct ndmsg nd;
    } u;
    uint8_t attrs[64];
};

static void
attr_put(struct nl_req *r, uint16_t type, const void *data, size_t len)
{
    struct rtattr *a = (struct rtattr *)(void *)((uint8_t *)r + NLMSG_ALIGN(r->h.nlmsg_len));

    a->rta_type = type;
    a->rta_len = (unsigned short)RTA_LENGTH(len);
    memcpy(RTA_DATA(a), data, len);
    r->h.nlmsg_len = NLMSG_ALIGN(r->h.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

/* Sends r and reads its one answer into buf: its length, or a negative errno (the
 * kernel's, from an NLMSG_ERROR that is not an acknowledgement). */
static int
talk(struct nl_req *r, uint8_t *buf)
{
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    struct timeval tv = {1, 0};
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

    if (fd < 0)
        return -errno;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    ssize_t sent = sendto(fd, r, r->h.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel));
    int n = sent < 0 ? -1 : (int)recv(fd, buf, NL_BUF, 0);
    if (n < 0)
        n = -errno;
    close(fd);
    if (n < (int)sizeof(struct nlmsghdr))
        return n < 0 ? n : -EIO;
    const struct nlmsghdr *h = (const struct nlmsghdr *)(void *)buf;
    if (h->nlmsg_type == NLMSG_ERROR) {
        const struct nlmsgerr *e = NLMSG_DATA(h);
        return e->error;
    }
    return n;
}

static void
addr_of(const uint8_t gid[16], int *family, const uint8_t **bytes, size_t *len)
{
    bool v4 = rs_addr_is_v4mapped(gid);

    *family = v4 ? AF_INET : AF_INET6;
    *bytes = v4 ? gid + 12 : gid;
    *len = v4 ? 4 : 16;
}

/* Whether the interface sends ARP at all (loopback and point-to-point ones do not). */
static bool
iface_resolves(int ifindex)
{
    char name[IF_NAMESIZE];
    struct ifreq ifr;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    bool arp = false;

    if (fd < 0 || if_indextoname((unsigned)ifindex, name) == NULL) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    memset(&ifr, 0, sizeof(ifr));
    memcpy(ifr.ifr_name, name, sizeof(ifr.ifr_name) < sizeof(name) ? sizeof(ifr.ifr_name)
                                                                    : sizeof(name));
    if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0)
        arp = (ifr.ifr_flags & (IFF_LOOPBACK | IFF_NOARP)) == 0;
    close(fd);
    return arp;
}

bool
vb_neigh_hop(const uint8_t dst[16], struct vb_neigh_hop *hop)
{
    struct nl_req r;
    uint8_t buf[NL_BUF];
    int family;
    const uint8_t *a;
    size_t alen;

    memset(hop, 0, sizeof(*hop));
    addr_of(dst, &family, &a, &alen);
    memset(&r, 0, sizeof(r));
    r.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
    r.h.nlmsg_type = RTM_GETROUTE;
    r.h.nlmsg_flags = NLM_F_REQUEST;
    r.u.rt.rtm_family = (uint8_t)family;
    r.u.rt.rtm_dst_len = (uint8_t)(alen * 8);
    attr_put(&r, RTA_DST, a, alen);
    int n = talk(&r, buf);
    const struct nlmsghdr *h = (const struct nlmsghdr *)(void *)buf;
    if (n <= 0 || h->nlmsg_type != RTM_NEWROUTE)
        return false;
    const struct rtmsg *rt = NLMSG_DATA(h);
    if (rt->rtm_type != RTN_UNICAST)
        return false;       /* local, or not reachable: no neighbour to wait for */
    memcpy(hop->addr, dst, 16);
    int len = (int)RTM_PAYLOAD(h);
    for (const struct rtattr *at = RTM_RTA(rt); RTA_OK(at, len); at = RTA_NEXT(at, len)) {
        if (at->rta_type == RTA_OIF && RTA_PAYLOAD(at) >= sizeof(int))
            memcpy(&hop->ifindex, RTA_DATA(at), sizeof(int));
        else if (at->rta_type == RTA_GATEWAY && RTA_PAYLOAD(at) == alen)
            memcpy(hop->addr + (alen == 4 ? 12 : 0), RTA_DATA(at), alen);
    }
    return hop->ifindex > 0 && iface_resolves(hop->ifindex);
}

enum vb_neigh_state
vb_neigh_probe(const struct vb_neigh_hop *hop)
{
    struct nl_req r;
    uint8_t buf[NL_BUF];
    int family;
    const uint8_t *a;
    size_t alen;

    addr_of(hop->addr, &family, &a, &alen);
    memset(&r, 0, sizeof(r));
    r.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct ndmsg));
    r.h.nlmsg_type = RTM_GETNEIGH;
    r.h.nlmsg_flags = NLM_F_REQUEST;
    r.u.nd.ndm_family = (uint8_t)family;
    r.u.nd.ndm_ifindex = hop->ifindex;
    attr_put(&r, NDA_DST, a, alen);
    int n = talk(&r, buf);
    const struct nlmsghdr *h = (const struct nlmsghdr *)(void *)buf;
    if (n > 0 && h->nlmsg_type == RTM_NEWNEIGH) {
        const struct ndmsg *nd = NLMSG_DATA(h);
        if (nd->ndm_state & NEIGH_VALID)
            return VB_NEIGH_VALID;
        if (nd->ndm_state & NUD_INCOMPLETE)
            return VB_NEIGH_WAIT;   /* ARP on its way */
    } else if (n != -ENOENT) {
        return VB_NEIGH_VALID;      /* no answer we can read: not ours to judge */
    }
    /* None yet, or failed: ask for one. */
    r.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct ndmsg));
    r.h.nlmsg_type = RTM_NEWNEIGH;
    r.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE;
    r.u.nd.ndm_state = NUD_NONE;
    r.u.nd.ndm_flags = NTF_USE;
    attr_put(&r, NDA_DST, a, alen);
    n = talk(&r, buf);
    return n == 0 || n > 0 ? VB_NEIGH_WAIT : VB_NEIGH_VALID;
}
