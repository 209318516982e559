/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_mtu.c - the path MTU: what an interface carries, as rxe reckons it, and
 * what the two ends and the user settle on.
 *
 * A RoCEv2 packet is its payload plus at most 80 bytes of headers (IPv6 40,
 * UDP 8, BTH 12, RETH 16, ICRC 4). rxe gives its port the largest IB MTU
 * that fits in the interface's MTU less those 80 bytes (rxe_param.h,
 * eth_mtu_int_to_enum()), 256 when not even 512 does: 1500 gives 1024, 9000
 * gives 4096. Our ports use the same rule, so a device of ours reports what
 * rxe would on the same link, and no packet is larger than the interface
 * takes: we send with DF set, and the kernel refuses such a datagram
 * (EMSGSIZE) rather than fragment it.
 *
 * The interface is the one holding the address, or for an address that none
 * holds itself (127.0.0.2 on loopback, whose lo has 127.0.0.1/8) the one
 * whose prefix contains it; for a link-local address, the scope names it.
 * getifaddrs() lists addresses with their prefixes, SIOCGIFMTU gives the
 * MTU; netlink would give both in one dump, at several times the code.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rc_int.h"

#define RC_ROCE_HDR_MAX 80      /* rxe's RXE_MAX_HDR_LENGTH: the headers a packet may carry */

uint32_t
rs_rc_mtu_for_if(uint32_t if_mtu)
{
    uint32_t room = if_mtu > RC_ROCE_HDR_MAX ? if_mtu - RC_ROCE_HDR_MAX : 0;

    for (uint32_t mtu = 4096; mtu >= 512; mtu /= 2)
        if (room >= mtu)
            return mtu;
    return 256;
}

uint32_t
rs_rc_path_mtu(uint32_t active, uint32_t peer, uint32_t limit)
{
    uint32_t mtu = active;

    if (peer != 0 && peer < mtu)
        mtu = peer;
    if (limit != 0 && limit < mtu)
        mtu = limit;
    return mtu;
}

/* The address of an interface entry as a GID (IPv4 mapped), and how many of its
 * leading bits the prefix covers; false for other families. */
static bool
entry_gid(const struct sockaddr *sa, const struct sockaddr *mask, uint8_t gid[16],
          unsigned *prefix_bits)
{
    static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    const uint8_t *m = NULL;
    unsigned n = 0, base = 0;

    if (sa == NULL)
        return false;
    if (sa->sa_family == AF_INET) {
        memcpy(gid, v4mapped, 12);
        memcpy(gid + 12, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
        if (mask != NULL)
            m = (const uint8_t *)&((const struct sockaddr_in *)(const void *)mask)->sin_addr;
        n = 4;
        base = 96;
    } else if (sa->sa_family == AF_INET6) {
        memcpy(gid, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
        if (mask != NULL)
            m = (const uint8_t *)&((const struct sockaddr_in6 *)(const void *)mask)->sin6_addr;
        n = 16;
    } else {
        return false;
    }
    unsigned bits = 0;
    for (unsigned i = 0; m != NULL && i < n; i++)
        bits += (unsigned)__builtin_popcount(m[i]);
    *prefix_bits = base + bits;
    return true;
}

static bool
same_prefix(const uint8_t a[16], const uint8_t b[16], unsigned bits)
{
    unsigned bytes = bits / 8, rest = bits % 8;

    if (memcmp(a, b, bytes) != 0)
        return false;
    return rest == 0 || ((a[bytes] ^ b[bytes]) >> (8 - rest)) == 0;
}

/* The name of the interface that holds gid, or whose prefix (the longest) contains it. */
static bool
find_interface(const uint8_t gid[16], char name[IF_NAMESIZE])
{
    struct ifaddrs *list, *best = NULL;
    unsigned best_bits = 0;
    bool exact = false;

    if (getifaddrs(&list) < 0)
        return false;
    for (struct ifaddrs *i = list; i != NULL && !exact; i = i->ifa_next) {
        uint8_t a[16];
        unsigned bits;
        if (!entry_gid(i->ifa_addr, i->ifa_netmask, a, &bits))
            continue;
        if (memcmp(a, gid, 16) == 0) {
            best = i;
            exact = true;
        } else if (bits > best_bits && same_prefix(a, gid, bits)) {
            best = i;
            best_bits = bits;
        }
    }
    if (best != NULL)
        snprintf(name, IF_NAMESIZE, "%s", best->ifa_name);
    freeifaddrs(list);
    return best != NULL;
}

int
rs_rc_if_mtu(const uint8_t gid[16], uint32_t scope, uint32_t *if_mtu, char *err)
{
    struct ifreq ifr;
    char where[RS_ADDR_TEXT_MAX];

    memset(&ifr, 0, sizeof(ifr));
    if (scope != 0 ? if_indextoname(scope, ifr.ifr_name) == NULL
                   : !find_interface(gid, ifr.ifr_name))
        return rs_error(err, RS_ENOENT, "%s: no interface holds this address",
                        rs_addr_format(gid, scope, where, sizeof(where)));
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return rs_error(err, RS_EIO, "socket: %s", strerror(errno));
    int rc = ioctl(fd, SIOCGIFMTU, &ifr);
    int e = errno;
    close(fd);
    if (rc < 0 || ifr.ifr_mtu <= 0)
        return rs_error(err, RS_EIO, "%s: interface MTU: %s", ifr.ifr_name, strerror(e));
    *if_mtu = (uint32_t)ifr.ifr_mtu;
    return 0;
}
