/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_gid.c - the GID table of a port, laid out as rxe lays it out, and the queries
 * of it (ibv_query_gid, ibv_query_gid_ex, ibv_query_gid_table, ibv_query_gid_type).
 *
 * rxe's port is RoCE v2 only (its port_immutable flags are RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP
 * alone), so the kernel lists each GID once, as RoCE v2: the link-local GID made from
 * the interface's MAC at index 0, then the interface's IPv4 addresses (IPv4-mapped),
 * then its IPv6 ones. Programs and tutorials count on the places: ibv_rc_pingpong -g 0
 * takes the link-local GID, -g 1 (perftest's -x 1) the first IPv4 address, and perftest
 * picks an IPv4 RoCE v2 GID by itself. A device named after an interface lists all its
 * addresses; one named after an address lists the link-local GID of the interface that
 * holds it, then that address (so -g 1 on loopback too).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netpacket/packet.h>
#include <string.h>
#include <sys/socket.h>

#include <roceshark/dissectors/addr.h>

#include "verbs_int.h"

/* fe80::/64 with the modified EUI-64 of a MAC (RFC 4291 2.5.1): its universal/local
 * bit flipped, ff:fe in the middle. */
static void
link_local_of(const uint8_t mac[6], uint8_t gid[16])
{
    memset(gid, 0, 16);
    gid[0] = 0xfe;
    gid[1] = 0x80;
    gid[8] = mac[0] ^ 0x02;
    gid[9] = mac[1];
    gid[10] = mac[2];
    gid[11] = 0xff;
    gid[12] = 0xfe;
    gid[13] = mac[3];
    gid[14] = mac[4];
    gid[15] = mac[5];
}

static bool
is_link_local(const uint8_t gid[16])
{
    return gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80;
}

/* Adds gid as RoCE v2, unless it is there already (the interface's own link-local
 * address is the MAC's GID when the kernel made it from the MAC). */
static unsigned
add_gid(struct vb_gid *out, unsigned n, unsigned max, const uint8_t gid[16], uint32_t scope)
{
    for (unsigned i = 0; i < n; i++)
        if (memcmp(out[i].raw, gid, 16) == 0)
            return n;
    if (n == max)
        return n;
    memcpy(out[n].raw, gid, 16);
    out[n].type = VB_GID_ROCE_V2;
    out[n].scope = is_link_local(gid) ? scope : 0;
    return n + 1;
}

unsigned
vb_gid_table_build(const struct vb_netdev *nd, const uint8_t *only, struct vb_gid *out,
                   unsigned max)
{
    uint8_t ll[16];
    unsigned n = 0;

    link_local_of(nd->mac, ll);
    n = add_gid(out, n, max, ll, nd->ifindex);
    if (only != NULL)
        return add_gid(out, n, max, only, nd->ifindex);
    /* IPv4 addresses before IPv6 ones, each family in the interface's order. */
    for (int v4 = 1; v4 >= 0; v4--)
        for (unsigned i = 0; i < nd->n_addrs; i++)
            if (rs_addr_is_v4mapped(nd->addrs[i]) == (v4 == 1))
                n = add_gid(out, n, max, nd->addrs[i], nd->ifindex);
    return n;
}

/* The address of an ifaddrs entry as a GID; false for another family. */
static bool
gid_of(const struct sockaddr *sa, uint8_t gid[16])
{
    if (sa == NULL)
        return false;
    if (sa->sa_family == AF_INET) {
        rs_addr_from_ipv4((const uint8_t *)&((const struct sockaddr_in *)(const void *)sa)
                              ->sin_addr,
                          gid);
        return true;
    }
    if (sa->sa_family == AF_INET6) {
        memcpy(gid, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
        return true;
    }
    return false;
}

/* addr lies in the prefix of the entry: 127.0.0.2 on lo's 127.0.0.1/8. */
static bool
in_prefix(const struct ifaddrs *ifa, const uint8_t addr[16])
{
    uint8_t a[16], m[16];

    if (!gid_of(ifa->ifa_addr, a) || !gid_of(ifa->ifa_netmask, m))
        return false;
    if (rs_addr_is_v4mapped(a))     /* the mask came out "mapped" too: compare the four */
        memset(m, 0xff, 12);
    for (int i = 0; i < 16; i++)
        if ((a[i] & m[i]) != (addr[i] & m[i]))
            return false;
    return true;
}

/* The interface that has addr: itself, else a loopback one whose prefix takes it in
 * (the whole of 127/8 is lo's, although lo lists 127.0.0.1 alone). */
static const char *
holder_of(const struct ifaddrs *all, const uint8_t addr[16])
{
    uint8_t g[16];
    const char *loop = NULL;

    for (const struct ifaddrs *ifa = all; ifa != NULL; ifa = ifa->ifa_next) {
        if (!gid_of(ifa->ifa_addr, g))
            continue;
        if (memcmp(g, addr, 16) == 0)
            return ifa->ifa_name;
        if ((ifa->ifa_flags & IFF_LOOPBACK) && loop == NULL && in_prefix(ifa, addr))
            loop = ifa->ifa_name;
    }
    return loop;
}

bool
vb_netdev_lookup(const char *name, const uint8_t *addr, struct vb_netdev *nd)
{
    struct ifaddrs *all;

    memset(nd, 0, sizeof(*nd));
    if (getifaddrs(&all) < 0)
        return false;
    if (name == NULL && addr != NULL)
        name = holder_of(all, addr);
    if (name == NULL || strlen(name) >= sizeof(nd->name)) {
        freeifaddrs(all);
        return false;
    }
    snprintf(nd->name, sizeof(nd->name), "%s", name);
    nd->ifindex = if_nametoindex(name);
    for (const struct ifaddrs *ifa = all; ifa != NULL; ifa = ifa->ifa_next) {
        if (strcmp(ifa->ifa_name, name) != 0 || ifa->ifa_addr == NULL)
            continue;
        if (ifa->ifa_addr->sa_family == AF_PACKET) {
            const struct sockaddr_ll *ll = (const struct sockaddr_ll *)(void *)ifa->ifa_addr;
            if (ll->sll_halen == 6)
                memcpy(nd->mac, ll->sll_addr, 6);
        } else if (nd->n_addrs < VB_MAX_GIDS && gid_of(ifa->ifa_addr, nd->addrs[nd->n_addrs])) {
            nd->n_addrs++;
        }
    }
    freeifaddrs(all);
    return nd->ifindex != 0;
}

/* --- the queries --- */

static const struct vb_gid *
entry(struct ibv_context *context, uint32_t port, uint32_t index)
{
    const struct vb_device *d = vb_ctx(context)->dev;

    return port == 1 && index < d->n_gids ? &d->gids[index] : NULL;
}

int
ibv_query_gid(struct ibv_context *context, uint8_t port, int index, union ibv_gid *gid)
{
    const struct vb_gid *g = index >= 0 ? entry(context, port, (uint32_t)index) : NULL;

    if (g == NULL)
        return -1;
    memcpy(gid->raw, g->raw, 16);
    return 0;
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port, uint32_t index,
                      struct ibv_gid_entry *entry, uint32_t flags, size_t size);
int
_ibv_query_gid_ex(struct ibv_context *context, uint32_t port, uint32_t index,
                  struct ibv_gid_entry *out, uint32_t flags, size_t size)
{
    const struct vb_gid *g = entry(context, port, index);
    struct ibv_gid_entry e;

    if (flags != 0 || size < offsetof(struct ibv_gid_entry, ndev_ifindex))
        return EINVAL;
    if (g == NULL)
        return ENODATA;
    memset(&e, 0, sizeof(e));
    memcpy(e.gid.raw, g->raw, 16);
    e.gid_index = index;
    e.port_num = port;
    e.gid_type = g->type == VB_GID_ROCE_V2 ? IBV_GID_TYPE_ROCE_V2 : IBV_GID_TYPE_ROCE_V1;
    e.ndev_ifindex = vb_ctx(context)->dev->netdev.ifindex;
    memcpy(out, &e, size < sizeof(e) ? size : sizeof(e));
    return 0;
}

ssize_t _ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries,
                             size_t max, uint32_t flags, size_t size);
ssize_t
_ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries, size_t max,
                     uint32_t flags, size_t size)
{
    const struct vb_device *d = vb_ctx(context)->dev;

    if (max < d->n_gids)
        return -EINVAL;
    for (unsigned i = 0; i < d->n_gids; i++) {
        int rc = _ibv_query_gid_ex(context, 1, i,
                                   (struct ibv_gid_entry *)(void *)((char *)entries + i * size),
                                   flags, size);
        if (rc != 0)
            return -rc;
    }
    return (ssize_t)d->n_gids;
}

int
ibv_query_gid_type(struct ibv_context *context, uint8_t port, unsigned index, int *type)
{
    const struct vb_gid *g = entry(context, port, index);

    if (g == NULL)
        return -1;
    *type = g->type;
    return 0;
}

int
vb_gid_source(struct vb_port *p, unsigned index, uint8_t gid[16])
{
    const struct vb_device *d = p->dev;
    char text[RS_ADDR_TEXT_MAX];

    if (index >= d->n_gids)
        return vb_fail(EINVAL, "%s: GID index %u: the table has %u entries", d->ibdev.name,
                       index, d->n_gids);
    const struct vb_gid *g = &d->gids[index];
    rs_addr_format(g->raw, 0, text, sizeof(text));
    if (p->rc == NULL)
        return vb_fail(EINVAL, "%s: the port is not open (no protection domain yet)",
                       d->ibdev.name);
    if (p->gid_link[index] < 0) {
        char what[RS_ADDR_TEXT_MAX + 64], err[RS_ERRBUF_SIZE];
        snprintf(what, sizeof(what), "GID index %u (%s)", index, text);
        rs_error_errno(err, p->gid_err[index], what);
        return vb_fail(p->gid_err[index], "%s: %s", d->ibdev.name, err);
    }
    memcpy(gid, g->raw, 16);
    return 0;
}
