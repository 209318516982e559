/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_ucma_id.c - the RDMA CM's IDs: their handles, addresses (bind, the
 * port spaces' ports), address and route resolution, the queries librdmacm
 * makes, the QP attributes it asks for, and options (verbs_ucma.h).
 *
 * Addresses are resolved from the host's own routing: the device is the one
 * whose address the host would send from (a UDP socket connected to the
 * destination says which), else the first of the destination's IP version.
 * A destination the host has no route to is an ADDR_ERROR with the errno the
 * routing gave, as the kernel's resolution reports it; one whose next hop
 * must answer ARP first waits for it (verbs_neigh.c) up to the program's
 * timeout, then ADDR_ERROR (-ETIMEDOUT), as the kernel's; one that resolves
 * but does not answer is found out by the REQ's timeouts, as over a NIC.
 * Routes are the device's: its path MTU, hop limit 64, the packet lifetime
 * of Linux's RDMA CM over RoCE.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <unistd.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/dissectors/dissect.h>

#include "verbs_ucma.h"

#define PORT_MIN 32768      /* ip_local_port_range's defaults, which the kernel's uses */
#define PORT_MAX 60999

static struct vb_ucma_id **ids;
static uint32_t ids_cap;

struct vb_ucma_id *
vb_ucma_id_get(uint32_t handle)
{
    return handle < ids_cap ? ids[handle] : NULL;
}

struct vb_ucma_id *
vb_ucma_id_new(struct vb_ucma_file *file, uint16_t ps, uint8_t qp_type)
{
    uint32_t h = 0;

    while (h < ids_cap && ids[h] != NULL)
        h++;
    if (h >= VB_UCMA_MAX_IDS)
        return NULL;
    if (h == ids_cap) {
        uint32_t cap = ids_cap == 0 ? 64 : ids_cap * 2;
        struct vb_ucma_id **grown = realloc(ids, cap * sizeof(*grown));
        if (grown == NULL)
            return NULL;
        memset(grown + ids_cap, 0, (cap - ids_cap) * sizeof(*grown));
        ids = grown;
        ids_cap = cap;
    }
    struct vb_ucma_id *id = calloc(1, sizeof(*id));
    if (id == NULL)
        return NULL;
    id->handle = h;
    id->file = file;
    id->ps = ps;
    id->qp_type = qp_type;
    id->dev = -1;
    id->ack_timeout = VB_UCMA_ACK_TIMEOUT;
    ids[h] = id;
    return id;
}

/* Drops the events of id that wait on its file; the children of the
 * CONNECT_REQUESTs among them go too (nobody was told of them). */
static void
events_drop(struct vb_ucma_id *id)
{
    struct vb_ucma_file *f = id->file;
    bool had = f->first != NULL;
    struct vb_ucma_event *gone = NULL;

    f->last = NULL;
    for (struct vb_ucma_event **pp = &f->first; *pp != NULL;) {
        struct vb_ucma_event *e = *pp;
        if (e->id == id) {
            *pp = e->next;
            e->next = gone;
            gone = e;
        } else {
            f->last = e;
            pp = &e->next;
        }
    }
    if (had && f->first == NULL) {
        eventfd_t v;
        eventfd_read(f->fd, &v);
    }
    while (gone != NULL) {
        struct vb_ucma_event *next = gone->next;
        if (gone->child != NULL)
            vb_ucma_id_destroy(gone->child);
        free(gone);
        gone = next;
    }
}

uint32_t
vb_ucma_id_destroy(struct vb_ucma_id *id)
{
    uint32_t reported = id->events_reported;
    int n;

    if (id->has_conn && vb_cm_engine(id->dev) != NULL) {
        rs_cm_abandon(vb_cm_engine(id->dev), id->conn, vb_cm_now());
        vb_cm_kick();
    }
    events_drop(id);
    vb_devices(&n);
    for (int d = 0; d < n; d++) {
        if (id->ports_held & (1u << d)) {
            vb_cm_unuse(d);
            vb_port_release(&vb_devices(&n)[d].port);
        }
    }
    ids[id->handle] = NULL;
    free(id);
    return reported;
}

void
vb_ucma_ids_of_file_destroy(struct vb_ucma_file *file)
{
    for (uint32_t h = 0; h < ids_cap; h++)
        if (ids[h] != NULL && ids[h]->file == file)
            vb_ucma_id_destroy(ids[h]);
}

struct vb_ucma_id *
vb_ucma_id_by_conn(int dev, uint32_t conn)
{
    for (uint32_t h = 0; h < ids_cap; h++)
        if (ids[h] != NULL && ids[h]->has_conn && ids[h]->dev == dev && ids[h]->conn == conn)
            return ids[h];
    return NULL;
}

int
vb_ucma_id_hold_port(struct vb_ucma_id *id, int dev)
{
    int n;
    struct vb_device *d = vb_devices(&n);

    if (id->ports_held & (1u << dev))
        return 0;
    int rc = vb_port_acquire(&d[dev].port);
    if (rc != 0)
        return rc;
    if ((rc = vb_cm_use(dev)) != 0) {
        vb_port_release(&d[dev].port);
        return rc;
    }
    id->ports_held |= 1u << dev;
    return 0;
}

/* --- addresses --- */

static socklen_t
addr_len(const struct sockaddr_storage *a)
{
    return a->ss_family == AF_INET    ? sizeof(struct sockaddr_in)
           : a->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                      : 0;
}

uint16_t
vb_ucma_addr_port(const struct sockaddr_storage *a)
{
    return a->ss_family == AF_INET ? ((const struct sockaddr_in *)(const void *)a)->sin_port
                                   : ((const struct sockaddr_in6 *)(const void *)a)->sin6_port;
}

static void
addr_set_port(struct sockaddr_storage *a, uint16_t port_be)
{
    if (a->ss_family == AF_INET)
        ((struct sockaddr_in *)(void *)a)->sin_port = port_be;
    else
        ((struct sockaddr_in6 *)(void *)a)->sin6_port = port_be;
}

void
vb_ucma_addr_gid(const struct sockaddr_storage *a, uint8_t gid[16], uint32_t *scope)
{
    *scope = 0;
    if (a->ss_family == AF_INET) {
        rs_addr_from_ipv4((const uint8_t *)&((const struct sockaddr_in *)(const void *)a)->sin_addr,
                          gid);
        return;
    }
    const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(const void *)a;
    memcpy(gid, &s6->sin6_addr, 16);
    *scope = s6->sin6_scope_id;
}

static bool
addr_any(const struct sockaddr_storage *a)
{
    static const uint8_t zero[16];
    uint8_t gid[16];
    uint32_t scope;

    vb_ucma_addr_gid(a, gid, &scope);
    return a->ss_family == AF_INET ? memcmp(gid + 12, zero, 4) == 0 : memcmp(gid, zero, 16) == 0;
}

/* The device whose address a is, or -1. */
static int
dev_of_addr(const struct sockaddr_storage *a)
{
    uint8_t gid[16];
    uint32_t scope;
    int n;
    struct vb_device *d = vb_devices(&n);

    vb_ucma_addr_gid(a, gid, &scope);
    for (int i = 0; i < n; i++)
        if (memcmp(d[i].gid, gid, 16) == 0 && (scope == 0 || d[i].scope == 0 ||
                                               scope == d[i].scope))
            return i;
    return -1;
}

void
vb_ucma_gid_sockaddr(const uint8_t gid[16], uint16_t port_be, uint32_t scope,
                     struct sockaddr_storage *out)
{
    memset(out, 0, sizeof(*out));
    if (rs_addr_is_v4mapped(gid)) {
        struct sockaddr_in *s = (struct sockaddr_in *)(void *)out;
        s->sin_family = AF_INET;
        s->sin_port = port_be;
        memcpy(&s->sin_addr, gid + 12, 4);
    } else {
        struct sockaddr_in6 *s = (struct sockaddr_in6 *)(void *)out;
        s->sin6_family = AF_INET6;
        s->sin6_port = port_be;
        memcpy(&s->sin6_addr, gid, 16);
        s->sin6_scope_id = scope;
    }
}

void
vb_ucma_dev_sockaddr(int dev, uint16_t port_be, struct sockaddr_storage *out)
{
    int n;
    const struct vb_device *d = &vb_devices(&n)[dev];

    vb_ucma_gid_sockaddr(d->gid, port_be, d->scope, out);
}

struct vb_ucma_id *
vb_ucma_listener_find(int dev, uint16_t ps, uint16_t port_be, int ipv)
{
    struct vb_ucma_id *wild = NULL;

    for (uint32_t h = 0; h < ids_cap; h++) {
        struct vb_ucma_id *id = ids[h];
        if (id == NULL || id->state != UCMA_LISTEN || id->ps != ps ||
            vb_ucma_addr_port(&id->src) != port_be || !(id->ports_held & (1u << dev)))
            continue;
        if (id->dev == dev)
            return id;      /* bound to the device's address: first choice */
        if (id->dev < 0 && wild == NULL &&
            (id->src.ss_family == AF_INET ? ipv == 4 : ipv == 6 || !id->afonly))
            wild = id;
    }
    return wild;
}

/* Whether the host has address a on an interface (an address that is not a
 * device's is then ENODEV, as the kernel says of one without RDMA, rather
 * than EADDRNOTAVAIL). */
static bool
addr_on_host(const struct sockaddr_storage *a)
{
    struct ifaddrs *all;
    uint8_t want[16], gid[16];
    uint32_t scope;
    bool found = false;

    if (getifaddrs(&all) != 0)
        return false;
    vb_ucma_addr_gid(a, want, &scope);
    for (struct ifaddrs *i = all; i != NULL && !found; i = i->ifa_next) {
        if (i->ifa_addr == NULL || (i->ifa_addr->sa_family != AF_INET &&
                                    i->ifa_addr->sa_family != AF_INET6))
            continue;
        struct sockaddr_storage s;
        memset(&s, 0, sizeof(s));
        memcpy(&s, i->ifa_addr, i->ifa_addr->sa_family == AF_INET ? sizeof(struct sockaddr_in)
                                                                   : sizeof(struct sockaddr_in6));
        vb_ucma_addr_gid(&s, gid, &scope);
        found = memcmp(gid, want, 16) == 0;
    }
    freeifaddrs(all);
    return found;
}

/* Whether another ID holds port of space ps on an address that overlaps a's. */
static bool
port_taken(const struct vb_ucma_id *self, const struct sockaddr_storage *a, uint16_t port_be)
{
    for (uint32_t h = 0; h < ids_cap; h++) {
        const struct vb_ucma_id *o = ids[h];
        /* A connection accepted on a listener's port holds none of its own (as
         * the kernel's, which a new listener may bind once the old one is gone). */
        if (o == NULL || o == self || o->ps != self->ps || o->state == UCMA_IDLE ||
            o->accepted || o->src.ss_family == 0 || vb_ucma_addr_port(&o->src) != port_be)
            continue;
        if (self->reuseaddr && o->reuseaddr && o->state != UCMA_LISTEN)
            continue;
        if (addr_any(a) || addr_any(&o->src) || dev_of_addr(a) == dev_of_addr(&o->src))
            return true;
    }
    return false;
}

static uint32_t
random32(void)
{
    uint32_t v;

    if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v))
        v = (uint32_t)rs_rc_now_ns() * 2654435761u;
    return v;
}

uint32_t
vb_ucma_random_psn(void)
{
    return random32() & 0xffffff;
}

int
vb_ucma_bind(struct vb_ucma_id *id, const struct sockaddr_storage *a)
{
    if (a->ss_family != AF_INET && a->ss_family != AF_INET6)
        return -EAFNOSUPPORT;
    if (id->state != UCMA_IDLE)
        return -EINVAL;
    int dev = -1;
    if (!addr_any(a)) {
        dev = dev_of_addr(a);
        if (dev < 0)
            return addr_on_host(a) ? -ENODEV : -EADDRNOTAVAIL;
    }
    uint16_t port = vb_ucma_addr_port(a);
    if (port == 0) {
        uint32_t start = random32();
        for (uint32_t i = 0; i <= PORT_MAX - PORT_MIN; i++) {
            uint16_t p = htons((uint16_t)(PORT_MIN + (start + i) % (PORT_MAX - PORT_MIN + 1)));
            if (!port_taken(id, a, p)) {
                port = p;
                break;
            }
        }
        if (port == 0)
            return -EADDRNOTAVAIL;
    } else if (port_taken(id, a, port)) {
        return -EADDRINUSE;
    }
    if (dev >= 0) {
        int rc = vb_ucma_id_hold_port(id, dev);
        if (rc != 0)
            return -rc;
    }
    memcpy(&id->src, a, addr_len(a));
    addr_set_port(&id->src, port);
    id->dev = dev;
    id->state = UCMA_BOUND;
    return 0;
}

/* --- the commands --- */

int
vb_ucma_cmd_create_id(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    struct ucma_abi_create_id cmd;
    struct ucma_abi_create_id_resp resp;

    memcpy(&cmd, in, sizeof(cmd));
    if (out < sizeof(resp))
        return -ENOSPC;
    if (cmd.ps != RDMA_PS_TCP && cmd.ps != RDMA_PS_UDP && cmd.ps != RDMA_PS_IPOIB &&
        cmd.ps != RDMA_PS_IB)
        return -EINVAL;
    struct vb_ucma_id *id = vb_ucma_id_new(f, cmd.ps, cmd.qp_type);
    if (id == NULL)
        return -ENOMEM;
    id->uid = cmd.uid;
    resp.id = id->handle;
    memcpy((void *)(uintptr_t)cmd.response, &resp, sizeof(resp));
    return 0;
}

int
vb_ucma_cmd_destroy_id(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    struct ucma_abi_destroy_id cmd;
    struct ucma_abi_destroy_id_resp resp;

    memcpy(&cmd, in, sizeof(cmd));
    if (out < sizeof(resp))
        return -ENOSPC;
    struct vb_ucma_id *id = vb_ucma_id_get(cmd.id);
    if (id == NULL || id->file != f)
        return -ENOENT;
    resp.events_reported = vb_ucma_id_destroy(id);
    memcpy((void *)(uintptr_t)cmd.response, &resp, sizeof(resp));
    return 0;
}

/* A sockaddr from a command (of size bytes at most) into storage. An IPv4
 * address IPv4-mapped in an IPv6 one (getaddrinfo() gives those with
 * AI_V4MAPPED on a host whose only addresses beside loopback are IPv6) is
 * taken as the IPv4 address it is. */
static int
addr_in(const void *sa, size_t size, struct sockaddr_storage *out)
{
    memset(out, 0, sizeof(*out));
    memcpy(out, sa, size < sizeof(*out) ? size : sizeof(*out));
    if (addr_len(out) == 0 || addr_len(out) > size)
        return -EAFNOSUPPORT;
    const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(const void *)out;
    if (out->ss_family == AF_INET6 && rs_addr_is_v4mapped(s6->sin6_addr.s6_addr)) {
        uint8_t gid[16];
        memcpy(gid, s6->sin6_addr.s6_addr, 16);
        vb_ucma_gid_sockaddr(gid, s6->sin6_port, 0, out);
    }
    return 0;
}

static struct vb_ucma_id *
id_of(struct vb_ucma_file *f, uint32_t handle)
{
    struct vb_ucma_id *id = vb_ucma_id_get(handle);

    return id != NULL && id->file == f ? id : NULL;
}

int
vb_ucma_cmd_bind_ip(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    struct ucma_abi_bind_ip cmd;
    struct sockaddr_storage a;

    (void)out;
    memcpy(&cmd, in, sizeof(cmd));
    struct vb_ucma_id *id = id_of(f, cmd.id);
    if (id == NULL)
        return -ENOENT;
    if (addr_in(&cmd.addr, sizeof(cmd.addr), &a) < 0)
        return -EINVAL;
    return vb_ucma_bind(id, &a);
}

int
vb_ucma_cmd_bind(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    struct ucma_abi_bind cmd;
    struct sockaddr_storage a;

    (void)out;
    memcpy(&cmd, in, sizeof(cmd));
    struct vb_ucma_id *id = id_of(f, cmd.id);
    if (id == NULL)
        return -ENOENT;
    /* AF_IB (native InfiniBand addressing) has no device here: librdmacm
     * asks once, and then uses the IP commands. */
    if (cmd.addr_size > sizeof(cmd.addr) || addr_in(&cmd.addr, cmd.addr_size, &a) < 0)
        return -EAFNOSUPPORT;
    return vb_ucma_bind(id, &a);
}

/* The address the host sends from to reach dst: 0 or an errno (ENETUNREACH). */
static int
route_src(const struct sockaddr_storage *dst, struct sockaddr_storage *src)
{
    struct sockaddr_storage to = *dst;
    socklen_t len = sizeof(*src);
    int s = socket(dst->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

    if (s < 0)
        return errno;
    addr_set_port(&to, htons(RS_ROCEV2_UDP_PORT));
    int rc = connect(s, (const struct sockaddr *)&to, addr_len(&to)) != 0 ||
                     getsockname(s, (struct sockaddr *)src, &len) != 0
                 ? errno
                 : 0;
    close(s);
    return rc;
}

static bool
addr_multicast(const struct sockaddr_storage *a)
{
    uint8_t gid[16];
    uint32_t scope;

    vb_ucma_addr_gid(a, gid, &scope);
    return rs_addr_is_v4mapped(gid) ? (gid[12] & 0xf0) == 0xe0 : gid[0] == 0xff;
}

/* The device to reach dst from: the one whose address the host would send
 * from, else the first of dst's IP version; -1 for none. */
static int
dev_for(const struct sockaddr_storage *dst, const struct sockaddr_storage *route)
{
    int dev = dev_of_addr(route);
    uint8_t gid[16];
    uint32_t scope;
    int n;
    struct vb_device *d = vb_devices(&n);

    if (dev >= 0)
        return dev;
    vb_ucma_addr_gid(dst, gid, &scope);
    for (int i = 0; i < n; i++)
        if (rs_addr_is_v4mapped(d[i].gid) == rs_addr_is_v4mapped(gid))
            return i;
    return -1;
}

/* How often an address resolution waiting for its neighbour looks again. */
#define RESOLVE_POLL_NS (10ull * 1000000)

static int
resolve(struct vb_ucma_id *id, const struct sockaddr_storage *src,
        const struct sockaddr_storage *dst, uint32_t timeout_ms)
{
    struct sockaddr_storage route;
    struct vb_ucma_event *e;

    if (addr_len(dst) == 0)
        return -EAFNOSUPPORT;
    if (id->state != UCMA_IDLE && id->state != UCMA_BOUND && id->state != UCMA_ADDR_RESOLVED)
        return -EINVAL;
    memset(&route, 0, sizeof(route));
    /* A multicast group needs no route: the device is the bound one, or the
     * first of the group's IP version. The join fails; the line says why now,
     * before the program's UD QP or its join fails with a bare errno. */
    bool group = addr_multicast(dst);
    if (group)
        vb_ucma_multicast_refused();
    int err = group ? 0 : route_src(dst, &route);
    if (id->state == UCMA_IDLE && src != NULL && src->ss_family != 0) {
        int rc = vb_ucma_bind(id, src);
        if (rc != 0)
            return rc;
    }
    if (err == 0 && id->dev < 0) {
        /* Not bound, or bound to the wildcard: the device the route says. */
        int dev = dev_for(dst, &route);
        struct sockaddr_storage a;
        if (dev < 0) {
            err = ENODEV;
        } else {
            vb_ucma_dev_sockaddr(dev, id->state == UCMA_BOUND ? vb_ucma_addr_port(&id->src) : 0, &a);
            id->state = UCMA_IDLE;
            int rc = vb_ucma_bind(id, &a);
            if (rc != 0)
                return rc;
        }
    }
    if (err == 0 && id->src.ss_family != dst->ss_family)
        err = EAFNOSUPPORT;
    if (err != 0) {
        e = vb_ucma_event_new(id, RDMA_CM_EVENT_ADDR_ERROR, -err);
    } else {
        memcpy(&id->dst, dst, addr_len(dst));
        /* As the kernel's: a next hop that must answer ARP first is waited for, up to
         * the program's timeout (vb_ucma_resolve_progress()). */
        uint8_t gid[16];
        uint32_t scope;
        vb_ucma_addr_gid(dst, gid, &scope);
        if (!group && vb_neigh_hop(gid, &id->hop) && vb_neigh_probe(&id->hop) == VB_NEIGH_WAIT) {
            id->state = UCMA_ADDR_QUERY;
            id->resolve_deadline = vb_cm_now() + (uint64_t)timeout_ms * 1000000;
            vb_cm_kick();
            return 0;
        }
        id->state = UCMA_ADDR_RESOLVED;
        e = vb_ucma_event_new(id, RDMA_CM_EVENT_ADDR_RESOLVED, 0);
    }
    if (e == NULL)
        return -ENOMEM;
    vb_ucma_event_post(e);
    return 0;
}

int
vb_ucma_cmd_resolve_ip(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    struct ucma_abi_resolve_ip cmd;
    struct sockaddr_storage src, dst;

    (void)out;
    memcpy(&cmd, in, sizeof(cmd));
    struct vb_ucma_id *id = id_of(f, cmd.id);
    if (id == NULL)
        return -ENOENT;
    addr_in(&cmd.src_addr, sizeof(cmd.src_addr), &src);
    addr_in(&cmd.dst_addr, sizeof(cmd.dst_addr), &dst);
    return resolve(id, &src, &dst, cmd.timeout_ms);
}

int
vb_ucma_cmd_resolve_addr(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    struct ucma_abi_resolve_addr cmd;
    struct sockaddr_storage src, dst;

    (void)out;
    memcpy(&cmd, in, sizeof(cmd));
    struct vb_ucma_id *id = id_of(f, cmd.id);
    if (id == NULL)
        return -ENOENT;
    if (cmd.src_size > sizeof(cmd.src_addr) || cmd.dst_size > sizeof(cmd.dst_addr))
        return -EINVAL;
    memset(&src, 0, sizeof(src));
    if (cmd.src_size > 0 && addr_in(&cmd.src_addr, cmd.src_size, &src) < 0)
        return -EAFNOSUPPORT;
    if (addr_in(&cmd.dst_addr, cmd.dst_size, &dst) < 0)
        return -EAFNOSUPPORT;
    return resolve(id, &src, &dst, cmd.timeout_ms);
}

uint64_t
vb_ucma_resolve_progress(uint64_t now)
{
    uint64_t next = UINT64_MAX;

    for (uint32_t h = 0; h < ids_cap; h++) {
        struct vb_ucma_id *id = ids[h];
        if (id == NULL || id->state != UCMA_ADDR_QUERY)
            continue;
        bool resolved = vb_neigh_probe(&id->hop) == VB_NEIGH_VALID;
        if (!resolved && now < id->resolve_deadline) {
            uint64_t again = now + RESOLVE_POLL_NS;
            again = again < id->resolve_deadline ? again : id->resolve_deadline;
            next = again < next ? again : next;
            continue;
        }
        /* Given up: the ID is bound again, as the kernel's (ADDR_QUERY -> ADDR_BOUND). */
        id->state = resolved ? UCMA_ADDR_RESOLVED : UCMA_BOUND;
        struct vb_ucma_event *e =
            resolved ? vb_ucma_event_new(id, RDMA_CM_EVENT_ADDR_RESOLVED, 0)
                     : vb_ucma_event_new(id, RDMA_CM_EVENT_ADDR_ERROR, -ETIMEDOUT);
        if (e != NULL)
            vb_ucma_event_post(e);
    }
    return next;
}

int
vb_ucma_cmd_resolve_route(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    struct ucma_abi_resolve_route cmd;

    (void)out;
    memcpy(&cmd, in, sizeof(cmd));
    struct vb_ucma_id *id = id_of(f, cmd.id);
    if (id == NULL)
        return -ENOENT;
    if (id->state != UCMA_ADDR_RESOLVED && id->state != UCMA_ROUTE_RESOLVED)
        return -EINVAL;
    struct vb_ucma_event *e = vb_ucma_event_new(id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
    if (e == NULL)
        return -ENOMEM;
    id->state = UCMA_ROUTE_RESOLVED;
    vb_ucma_event_post(e);
    return 0;
}

uint32_t
vb_ucma_dev_mtu(int dev)
{
    int n;

    return vb_active_mtu(&vb_devices(&n)[dev]);
}

static bool
has_route(const struct vb_ucma_id *id)
{
    return id->state == UCMA_ROUTE_RESOLVED || id->state >= UCMA_CONNECT;
}

/* The path to the peer as the kernel's RoCE route gives it (cma_resolve_iboe_route). */
static void
path_fill(const struct vb_ucma_id *id, struct ib_user_path_rec *p)
{
    int n;
    const struct vb_device *d = &vb_devices(&n)[id->dev];
    uint32_t scope;

    memset(p, 0, sizeof(*p));
    memcpy(p->sgid, d->gid, 16);
    if (id->has_conn)
        memcpy(p->dgid, id->peer_gid, 16);
    else if (id->dst.ss_family != 0)
        vb_ucma_addr_gid(&id->dst, p->dgid, &scope);
    p->pkey = htons(0xffff);
    p->reversible = 1;
    p->numb_path = 1;
    p->hop_limit = VB_UCMA_HOP_LIMIT;
    p->traffic_class = id->tos;
    p->mtu = rs_cm_mtu_code(id->pmtu != 0 ? id->pmtu : vb_ucma_dev_mtu(id->dev));
    p->mtu_selector = 2;                /* exactly */
    p->rate = 3;                        /* 10 Gb/s: the port's 4X SDR */
    p->rate_selector = 2;
    p->packet_life_time = VB_UCMA_PACKET_LIFETIME;
    p->packet_life_time_selector = 2;
}

int
vb_ucma_cmd_query_route(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    struct ucma_abi_query cmd;
    struct ucma_abi_query_route_resp resp;
    int n;

    memcpy(&cmd, in, sizeof(cmd));
    if (out < sizeof(resp))
        return -ENOSPC;
    struct vb_ucma_id *id = id_of(f, cmd.id);
    if (id == NULL)
        return -ENOENT;
    memset(&resp, 0, sizeof(resp));
    memcpy(&resp.src_addr, &id->src, addr_len(&id->src));
    memcpy(&resp.dst_addr, &id->dst, addr_len(&id->dst));
    if (id->dev >= 0) {
        resp.node_guid = vb_devices(&n)[id->dev].guid;
        resp.port_num = 1;
        resp.ibdev_index = (uint32_t)id->dev;
        path_fill(id, &resp.ib_route[0]);
        resp.num_paths = has_route(id) ? 1 : 0;
    }
    memcpy((void *)(uintptr_t)cmd.response, &resp, sizeof(resp));
    return 0;
}

int
vb_ucma_cmd_query(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    struct ucma_abi_query cmd;
    int n;

    memcpy(&cmd, in, sizeof(cmd));
    struct vb_ucma_id *id = id_of(f, cmd.id);
    if (id == NULL)
        return -ENOENT;
    if (cmd.option == UCMA_QUERY_ADDR || cmd.option == UCMA_QUERY_GID) {
        struct ucma_abi_query_addr_resp resp;
        if (out < sizeof(resp))
            return -ENOSPC;
        memset(&resp, 0, sizeof(resp));
        if (cmd.option == UCMA_QUERY_ADDR) {
            resp.src_size = (uint16_t)addr_len(&id->src);
            resp.dst_size = (uint16_t)addr_len(&id->dst);
            memcpy(&resp.src_addr, &id->src, resp.src_size);
            memcpy(&resp.dst_addr, &id->dst, resp.dst_size);
        }
        if (id->dev >= 0) {
            resp.node_guid = vb_devices(&n)[id->dev].guid;
            resp.port_num = 1;
            resp.pkey = 0xffff;
            resp.ibdev_index = (uint32_t)id->dev;
        }
        memcpy((void *)(uintptr_t)cmd.response, &resp, sizeof(resp));
        return 0;
    }
    if (cmd.option == UCMA_QUERY_PATH) {
        struct ucma_abi_query_path_resp resp;
        if (out < sizeof(resp))
            return -ENOSPC;
        memset(&resp, 0, sizeof(resp));     /* no path record of InfiniBand's SA here */
        memcpy((void *)(uintptr_t)cmd.response, &resp, sizeof(resp));
        return 0;
    }
    return -ENOSYS;
}

void
vb_ucma_ah_fill(const struct vb_ucma_id *id, struct ib_uverbs_ah_attr *ah)
{
    int n;
    const struct vb_device *d = &vb_devices(&n)[id->dev];
    int index = vb_device_gid_index(d, d->gid);

    memset(ah, 0, sizeof(*ah));
    memcpy(ah->grh.dgid, id->peer_gid, 16);
    ah->grh.sgid_index = (uint8_t)(index < 0 ? 0 : index);
    ah->grh.hop_limit = VB_UCMA_HOP_LIMIT;
    ah->grh.traffic_class = id->tos;
    ah->is_global = 1;
    ah->port_num = 1;
}

/* What a QP of id takes to reach state (ib_cm_init_qp_attr() and
 * cma_ib_init_qp_attr() of Linux, for RoCE). */
static int
qp_attr(const struct vb_ucma_id *id, uint32_t state, struct ib_uverbs_qp_attr *a)
{
    bool ud = id->qp_type == IBV_QPT_UD;

    memset(a, 0, sizeof(*a));
    a->qp_state = state;
    switch (state) {
    case IBV_QPS_INIT:
        a->qp_attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
        a->port_num = 1;
        if (ud) {
            a->qp_attr_mask |= IBV_QP_QKEY;
            a->qkey = VB_UCMA_UDP_QKEY;
        } else {
            a->qp_attr_mask |= IBV_QP_ACCESS_FLAGS;
            /* Before a connection, none; with one, what its responder resources allow. */
            if (id->has_conn)
                a->qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
                                     (id->resp_res > 0 ? IBV_ACCESS_REMOTE_READ |
                                                             IBV_ACCESS_REMOTE_ATOMIC
                                                       : 0);
        }
        return 0;
    case IBV_QPS_RTR:
        a->qp_attr_mask = IBV_QP_STATE;
        if (ud)
            return 0;
        if (!id->has_conn || id->peer_qpn == 0)
            return -EINVAL;
        a->qp_attr_mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                           IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
        vb_ucma_ah_fill(id, &a->ah_attr);
        a->path_mtu = rs_cm_mtu_code(id->pmtu);
        a->dest_qp_num = id->peer_qpn;
        a->rq_psn = id->peer_psn;
        a->max_dest_rd_atomic = id->resp_res;
        a->min_rnr_timer = 0;       /* Linux's CM's: 655 ms */
        return 0;
    case IBV_QPS_RTS:
        a->qp_attr_mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
        a->sq_psn = ud ? 0 : id->psn;
        if (ud)
            return 0;
        if (!id->has_conn)
            return -EINVAL;
        a->qp_attr_mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                           IBV_QP_MAX_QP_RD_ATOMIC;
        a->timeout = id->ack_timeout;
        a->retry_cnt = id->retry_count;
        a->rnr_retry = id->rnr_retry_count;
        a->max_rd_atomic = id->init_depth;
        return 0;
    default:
        return -EINVAL;
    }
}

int
vb_ucma_cmd_init_qp_attr(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    struct ucma_abi_init_qp_attr cmd;
    struct ib_uverbs_qp_attr resp;

    memcpy(&cmd, in, sizeof(cmd));
    if (out < sizeof(resp))
        return -ENOSPC;
    struct vb_ucma_id *id = id_of(f, cmd.id);
    if (id == NULL)
        return -ENOENT;
    if (id->dev < 0)
        return -EINVAL;     /* no device yet: the kernel's answer too */
    int rc = qp_attr(id, cmd.qp_state, &resp);
    if (rc != 0)
        return rc;
    memcpy((void *)(uintptr_t)cmd.response, &resp, sizeof(resp));
    return 0;
}

int
vb_ucma_cmd_set_option(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    struct ucma_abi_set_option cmd;
    const void *v;

    (void)out;
    memcpy(&cmd, in, sizeof(cmd));
    struct vb_ucma_id *id = id_of(f, cmd.id);
    if (id == NULL)
        return -ENOENT;
    v = (const void *)(uintptr_t)cmd.optval;
    if (cmd.level == RDMA_OPTION_ID) {
        int i = 0;
        uint8_t b = 0;
        if (cmd.optlen == sizeof(int))
            memcpy(&i, v, sizeof(i));
        else if (cmd.optlen == 1)
            memcpy(&b, v, 1);
        switch (cmd.optname) {
        case RDMA_OPTION_ID_TOS:
            if (cmd.optlen != 1)
                return -EINVAL;
            id->tos = b;
            return 0;
        case RDMA_OPTION_ID_REUSEADDR:
            if (cmd.optlen != sizeof(int))
                return -EINVAL;
            id->reuseaddr = i != 0;
            return 0;
        case RDMA_OPTION_ID_AFONLY:
            if (cmd.optlen != sizeof(int) || id->state != UCMA_IDLE)
                return -EINVAL;
            id->afonly = i != 0;
            return 0;
        case RDMA_OPTION_ID_ACK_TIMEOUT:
            if (cmd.optlen != 1)
                return -EINVAL;
            id->ack_timeout = b < 31 ? b : 31;
            return 0;
        default:
            return -ENOSYS;
        }
    }
    if (cmd.level == RDMA_OPTION_IB && cmd.optname == RDMA_OPTION_IB_PATH) {
        /* A path from ibacm: RoCE's route is the device's; the route is resolved. */
        if (id->state != UCMA_ADDR_RESOLVED && id->state != UCMA_ROUTE_RESOLVED)
            return -EINVAL;
        struct vb_ucma_event *e = vb_ucma_event_new(id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
        if (e == NULL)
            return -ENOMEM;
        id->state = UCMA_ROUTE_RESOLVED;
        vb_ucma_event_post(e);
        return 0;
    }
    return -ENOSYS;
}
