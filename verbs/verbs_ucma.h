/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_ucma.h - the RDMA CM of libroceshark-verbs, shared by its files; not
 * part of any API.
 *
 * librdmacm talks to the kernel through /dev/infiniband/rdma_cm: each call
 * is a write() of a command (the ucma ABI, as librdmacm's own
 * <rdma/rdma_cma_abi.h> lays it out: each command with its header) whose
 * answer the kernel writes back to an address the command names, and events
 * are read with the GET_EVENT command, the descriptor polling readable while
 * one waits. The library serves that ABI in the process: open() of that path
 * hands out an eventfd (readable while events wait), and write() on it runs
 * the command here (verbs_interpose.c). So Debian's own librdmacm, rsockets
 * included, runs unchanged on top, and the CM exchange is real CM MADs on
 * each port's QP 1 (transport/cm's engine, one per port in use).
 *
 *   verbs_interpose.c  open/fstat/write/close/socket of the program, to here
 *   verbs_ucma.c       the files (event channels), their events, the commands
 *   verbs_ucma_id.c    the CM IDs: addresses, routes, QP attributes
 *   verbs_neigh.c      whether an address's next hop answers ARP (rtnetlink)
 *   verbs_ucma_conn.c  the connections: connect, listen, accept, reject, and
 *                      what the engines report
 *   verbs_cm.c         the engines on the ports' QP 1, and the thread that
 *                      feeds them MADs and time
 *
 * One mutex (vb_ucma_lock) guards all of it, engines included. It is taken
 * before a port's (an engine sends under it); a port's progress thread only
 * queues the MADs it receives (verbs_cm.c's inbox) and never takes it.
 */
#ifndef ROCESHARK_VERBS_UCMA_H
#define ROCESHARK_VERBS_UCMA_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_cma_abi.h>

#include <roceshark/transport/cm.h>

#include "verbs_int.h"

#define VB_UCMA_PATH "/dev/infiniband/rdma_cm"
/* librdmacm keeps IDs in an index map of 2^16 handles. */
#define VB_UCMA_MAX_IDS 65535
/* Linux's net.rdma_ucm.max_backlog. */
#define VB_UCMA_MAX_BACKLOG 1024
/* What the kernel's RDMA CM uses over RoCE: a packet lifetime of 16
 * (CMA_IBOE_PACKET_LIFETIME), so a local ACK timeout of 17 (cm_ack_timeout(),
 * as rxe's REQs carry it) and a time wait of 2^(17-8) ms (cm_convert_to_ms()). */
#define VB_UCMA_PACKET_LIFETIME 16
#define VB_UCMA_ACK_TIMEOUT 17
#define VB_UCMA_TIMEWAIT_NS (512ull * 1000000)
#define VB_UCMA_HOP_LIMIT 64
#define VB_UCMA_UDP_QKEY 0x01234567u     /* librdmacm's RDMA_UDP_QKEY */
#define VB_UCMA_LISTEN_GRACE_NS (500ull * 1000000)

extern pthread_mutex_t vb_ucma_lock;

/* --- the next hop's neighbour entry (verbs_neigh.c) --- */

struct vb_neigh_hop {
    int ifindex;
    uint8_t addr[16];               /* the gateway, or the destination on its link */
};
enum vb_neigh_state { VB_NEIGH_VALID, VB_NEIGH_WAIT };

/* The hop to dst (a GID) when reaching it needs a neighbour resolved (a unicast route
 * through an interface that does ARP), else false. */
bool vb_neigh_hop(const uint8_t dst[16], struct vb_neigh_hop *hop);
/* Whether hop is resolved; when not, asks the kernel to resolve it (ARP). */
enum vb_neigh_state vb_neigh_probe(const struct vb_neigh_hop *hop);

/* --- event channels (verbs_ucma.c) --- */

struct vb_ucma_id;

struct vb_ucma_event {
    struct ucma_abi_event_resp resp;
    struct vb_ucma_id *id;          /* whose: it moves and goes with it */
    struct vb_ucma_id *child;       /* CONNECT_REQUEST: the new ID it hands out */
    struct vb_ucma_event *next;
};

struct vb_ucma_file {
    int fd;                         /* the eventfd the program holds */
    struct vb_ucma_event *first, *last;
    pthread_cond_t cond;            /* GET_EVENT waits on it */
    unsigned waiters;
    bool closed;
    /* Once closed: whether it was non-blocking, and whether it is still
     * remembered for its descriptor's number (verbs_ucma.c). */
    bool closed_nonblock;
    bool remembered;
    /* Closed, but its eventfd still open and its number still ours, so that a
     * GET_EVENT written just after the close waits (verbs_ucma.c, held). The
     * eventfd's inode tells it from a file the program dup2()s there. */
    bool held;
    unsigned long ino;
    struct vb_ucma_file *next;
};

/* Queues ev on its ID's file and makes the descriptor readable. Lock held. */
void vb_ucma_event_post(struct vb_ucma_event *ev);
/* A new event of id (uid, handle, type and status filled), NULL without memory. */
struct vb_ucma_event *vb_ucma_event_new(struct vb_ucma_id *id, uint32_t type, int32_t status);

/* --- CM IDs (verbs_ucma_id.c) --- */

enum vb_ucma_state {
    UCMA_IDLE,
    UCMA_BOUND,             /* an address, maybe the wildcard */
    UCMA_ADDR_QUERY,        /* waiting for the next hop's neighbour entry */
    UCMA_ADDR_RESOLVED,
    UCMA_ROUTE_RESOLVED,
    UCMA_LISTEN,
    UCMA_CONNECT,           /* REQ sent */
    UCMA_REP_HELD,          /* the REP came; the RTU waits for the ACCEPT that follows */
    UCMA_REQ_HELD,          /* a child: its REQ waits for ACCEPT or REJECT */
    UCMA_ACCEPTED,          /* REP sent, waiting for the RTU */
    UCMA_CONNECTED,
    UCMA_DISCONNECTED       /* or refused, or unreachable */
};

struct vb_ucma_id {
    uint32_t handle;
    uint64_t uid;                   /* librdmacm's pointer to its own */
    struct vb_ucma_file *file;
    uint16_t ps;                    /* enum rdma_ucm_port_space */
    uint8_t qp_type;
    enum vb_ucma_state state;
    struct sockaddr_storage src, dst;
    int dev;                        /* index of the device; -1: none (the wildcard) */
    uint32_t ports_held;            /* one bit per device whose port it holds */
    uint32_t events_reported;
    int backlog;                    /* a listener's room for CONNECT_REQUESTs not taken */
    struct vb_ucma_id *listener;    /* a child's, until it is handed out */
    bool accepted;                  /* a child: its port is its listener's */
    bool disconnecting;             /* DISCONNECT was written */
    bool sidr;                      /* a UD ID's: conn is a SIDR request, not a connection */
    /* UCMA_ADDR_QUERY: the hop, and when the resolution gives up (-ETIMEDOUT). */
    struct vb_neigh_hop hop;
    uint64_t resolve_deadline;
    /* Options. */
    uint8_t tos, ack_timeout;
    bool reuseaddr, afonly;
    /* The connection, on the engine of dev's port. */
    bool has_conn;
    uint32_t conn;
    uint8_t peer_gid[16];
    uint32_t qpn, psn, peer_qpn, peer_psn;
    uint32_t pmtu;                  /* bytes */
    uint8_t resp_res, init_depth;   /* this end's, as the RTR and RTS take them */
    uint8_t retry_count, rnr_retry_count;
};

/* The ID of a handle, or NULL. Lock held. */
struct vb_ucma_id *vb_ucma_id_get(uint32_t handle);
/* A new ID on file, or NULL (no memory, or no handle left). Lock held. */
struct vb_ucma_id *vb_ucma_id_new(struct vb_ucma_file *file, uint16_t ps, uint8_t qp_type);
/* Tells the peer what it must be told, drops the ID's events, releases its
 * ports and frees it; the events it reported. Lock held. */
uint32_t vb_ucma_id_destroy(struct vb_ucma_id *id);
/* Every ID of file (its close). Lock held. */
void vb_ucma_ids_of_file_destroy(struct vb_ucma_file *file);
/* The ID whose connection is conn on the engine of device dev, or NULL. */
struct vb_ucma_id *vb_ucma_id_by_conn(int dev, uint32_t conn);
/* The listener for a REQ of port space ps and port (network order) to
 * device dev, of IP version ipv (4 or 6), or NULL: one bound to the device's
 * address before one bound to the wildcard. */
struct vb_ucma_id *vb_ucma_listener_find(int dev, uint16_t ps, uint16_t port_be, int ipv);
/* Binds id to address a (port 0: one of the ephemeral range, as the kernel
 * picks): 0 or a negative errno. */
int vb_ucma_bind(struct vb_ucma_id *id, const struct sockaddr_storage *a);
/* The port of a (network order); a as a GID (IPv4 IPv4-mapped) and its scope. */
uint16_t vb_ucma_addr_port(const struct sockaddr_storage *a);
void vb_ucma_addr_gid(const struct sockaddr_storage *a, uint8_t gid[16], uint32_t *scope);
/* gid and port (network order) as a sockaddr: IPv4 for an IPv4-mapped GID. */
void vb_ucma_gid_sockaddr(const uint8_t gid[16], uint16_t port_be, uint32_t scope,
                          struct sockaddr_storage *out);
/* Takes the port of device dev for id (once): 0 or an errno. */
int vb_ucma_id_hold_port(struct vb_ucma_id *id, int dev);
/* The device's address as a sockaddr with port (network order). */
void vb_ucma_dev_sockaddr(int dev, uint16_t port_be, struct sockaddr_storage *out);
/* A starting PSN, as the kernel picks one: random, 24 bits. */
uint32_t vb_ucma_random_psn(void);
/* Says once on stderr why multicast fails (rdma_join_multicast: EOPNOTSUPP). */
void vb_ucma_multicast_refused(void);
/* The address vector to id's peer, as the kernel's RoCE route gives it. */
void vb_ucma_ah_fill(const struct vb_ucma_id *id, struct ib_uverbs_ah_attr *ah);
/* The path MTU of device dev's port, in bytes. */
uint32_t vb_ucma_dev_mtu(int dev);

/* The commands on IDs: each takes the command as written (its header first,
 * zeros after what was written) and the room for its answer (out), and
 * returns 0 or a negative errno. Lock held. */
int vb_ucma_cmd_create_id(struct vb_ucma_file *f, const void *in, uint16_t out);
int vb_ucma_cmd_destroy_id(struct vb_ucma_file *f, const void *in, uint16_t out);
int vb_ucma_cmd_bind_ip(struct vb_ucma_file *f, const void *in, uint16_t out);
int vb_ucma_cmd_bind(struct vb_ucma_file *f, const void *in, uint16_t out);
int vb_ucma_cmd_resolve_ip(struct vb_ucma_file *f, const void *in, uint16_t out);
int vb_ucma_cmd_resolve_addr(struct vb_ucma_file *f, const void *in, uint16_t out);
int vb_ucma_cmd_resolve_route(struct vb_ucma_file *f, const void *in, uint16_t out);
int vb_ucma_cmd_query_route(struct vb_ucma_file *f, const void *in, uint16_t out);
int vb_ucma_cmd_query(struct vb_ucma_file *f, const void *in, uint16_t out);
int vb_ucma_cmd_init_qp_attr(struct vb_ucma_file *f, const void *in, uint16_t out);
int vb_ucma_cmd_set_option(struct vb_ucma_file *f, const void *in, uint16_t out);

/* Address resolutions waiting for their neighbour: those resolved or timed out are
 * reported; when to look again (UINT64_MAX: none waits). Lock held. */
uint64_t vb_ucma_resolve_progress(uint64_t now);

/* --- connections (verbs_ucma_conn.c) --- */

int vb_ucma_cmd_listen(struct vb_ucma_file *f, const void *in, uint16_t out);
int vb_ucma_cmd_connect(struct vb_ucma_file *f, const void *in, uint16_t out);
int vb_ucma_cmd_accept(struct vb_ucma_file *f, const void *in, uint16_t out);
int vb_ucma_cmd_reject(struct vb_ucma_file *f, const void *in, uint16_t out);
int vb_ucma_cmd_disconnect(struct vb_ucma_file *f, const void *in, uint16_t out);
/* REQs that came before their listener: handed to it when it listens, else
 * refused (invalid service ID) VB_UCMA_LISTEN_GRACE_NS after they came.
 * vb_ucma_early_expire refuses those due and says when the next is due
 * (UINT64_MAX: none); vb_ucma_early_drop forgets device dev's (its engine
 * goes). */
uint64_t vb_ucma_early_expire(uint64_t now);
void vb_ucma_early_drop(int dev);
/* The engines' callbacks, for device dev's engine. */
uint16_t vb_ucma_on_request(int dev, uint32_t conn, uint16_t port,
                            const struct rs_cm_params *peer, struct rs_cm_params *ours);
void vb_ucma_on_event(int dev, const struct rs_cm_event *ev);
uint16_t vb_ucma_on_sidr_request(int dev, uint32_t conn, uint16_t port,
                                 const struct rs_cm_params *peer);

/* --- the engines and their thread (verbs_cm.c) --- */

/* Device dev's engine, created with its first user (the ID that takes the port);
 * NULL when it has none. */
struct rs_cm *vb_cm_engine(int dev);
/* An ID took or let go device dev's port: the engine comes and goes with the
 * first and last. 0 or an errno. */
int vb_cm_use(int dev);
void vb_cm_unuse(int dev);
/* The service thread, counted by event channel: started with the first,
 * stopped with the last. Lock not held. */
int vb_cm_start(void);
void vb_cm_stop(void);
/* The engines' deadlines may have moved: the thread looks again. */
void vb_cm_kick(void);
/* The time the engines run on. */
uint64_t vb_cm_now(void);

/* --- the descriptor (verbs_ucma.c), from verbs_interpose.c --- */

/* A new event channel: its descriptor, or -1 with errno. */
int vb_ucma_open(int flags);
/* Whether fd is one of ours (cheap: every write() of the program asks). */
bool vb_ucma_owns(int fd);
/* A command written to fd: len, or -1 with errno, as the kernel's write(). */
ssize_t vb_ucma_write(int fd, const void *buf, size_t len);
/* Closes channel fd as the kernel's release does: its IDs are destroyed, and
 * the descriptor is closed with release (the C library's close()) before it
 * stops being ours, so that a write() under way meanwhile finds the closed
 * channel rather than the eventfd. release's answer. */
int vb_ucma_close(int fd, int (*release)(int));

#endif /* ROCESHARK_VERBS_UCMA_H */
