/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_int.h - what the files of libroceshark-verbs share; not part of any API.
 *
 * The library is a verbs provider and libibverbs' front end in one: loaded with
 * LD_PRELOAD, its ibv_* functions take the place of libibverbs' (with the same
 * symbol versions, verbs.map), and the contexts it opens carry an ops table, so
 * the inline ibv_post_send(), ibv_post_recv(), ibv_poll_cq() and
 * ibv_req_notify_cq() of <infiniband/verbs.h> call into it too. Each device
 * is an address or an interface of this host, RoCEv2 over UDP port 4791 of its
 * addresses on our RC stack (transport/rc).
 *
 * Every object (struct vb_*) begins with the ibverbs struct the application
 * sees, so a pointer converts both ways. Each device has one port in the
 * process (struct vb_port), shared by every context opened on it and by the
 * RDMA CM, as a NIC's port is: one mutex, the port's, guards its RC context,
 * the QPs of all those contexts and their CQs; the application's threads and
 * the progress thread (verbs_progress.c) take it in turn.
 */
#ifndef ROCESHARK_VERBS_INT_H
#define ROCESHARK_VERBS_INT_H

#include <infiniband/verbs.h>
#include <net/if.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <roceshark/transport/rc.h>

/* <infiniband/verbs.h> makes these macros around inlines; the library
 * defines the exported functions behind them. */
#undef ibv_query_port
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

#define VB_MAX_DEVICES 16
#define VB_MAX_GIDS 16          /* GID table entries of a port */
#define VB_MAX_INLINE RS_RC_MAX_INLINE  /* bytes of inline data a send may carry */
#define VB_MAX_SGE RS_RC_MAX_SGE        /* scatter/gather elements per work request */
#define VB_MAX_QP_WR 16384      /* work requests per queue */
#define VB_MAX_CQE (1 << 20)
#define VB_CQ_MIN 64            /* entries a CQ has at least */
#define VB_MAX_RD_ATOMIC 16
#define VB_MAX_MR_SIZE (1ull << 40)     /* what a region may cover: 1 TiB */
#define VB_PORT_MTU IBV_MTU_4096     /* max_mtu; active_mtu is the interface's */

/* The environment variable that names the devices: "rs0=127.0.0.2,rs1=::1,rxe0=veth0". */
#define VB_ENV_DEVICES "ROCESHARK_VERBS_DEVICES"
/* Set to 1: every failure of ours gets one line on stderr saying why. */
#define VB_ENV_DEBUG "ROCESHARK_VERBS_DEBUG"
/* "normal": the progress thread rescues the port at the program's priority, not under
 * SCHED_FIFO (verbs_progress.c) */
#define VB_ENV_PRIORITY "ROCESHARK_VERBS_PRIORITY"

#define VB_CONTAINER(ptr, type, member) \
    ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* --- diagnostics (verbs_debug.c) --- */

/* Sets errno to err and, with ROCESHARK_VERBS_DEBUG=1, prints one line on stderr:
 * "roceshark-verbs: <what>: <why> (<errno name>)". Returns err. */
int vb_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* --- the port of a device (verbs_progress.c) --- */

struct vb_qp;
struct vb_srq;
struct vb_device;

/* One RoCEv2 address of a port: its UDP socket pair, and its place in the RC
 * context's addresses. */
struct vb_link {
    struct rs_rc_udp *udp;
    uint8_t gid[16];
};

/* RoCEv2 on UDP port 4791 of the device's addresses, each of which one socket of the
 * host can hold: so one port per device in the process, opened by its first user (a
 * context's first PD, or the CM) and closed with its last. A link per RoCEv2 address
 * of the GID table this host has: gid_link[i] is the link of GID index i, -1 when it
 * has none (an address not here, or held), and gid_err[i] the errno why. */
struct vb_port {
    pthread_mutex_t lock;       /* the RC context, the QPs, their CQs */
    pthread_mutex_t open_lock;  /* opening and closing; taken before lock */
    struct vb_device *dev;
    unsigned users;
    struct vb_link links[VB_MAX_GIDS];
    unsigned n_links;
    int gid_link[VB_MAX_GIDS];
    int gid_err[VB_MAX_GIDS];
    struct rs_rc_ctx *rc;
    struct vb_qp *qps;          /* of every context of the device */
    struct vb_srq *srqs;
    uint32_t next_qpn;
    /* The progress thread. */
    pthread_t thread;
    bool thread_started;
    bool stop;
    uint64_t app_active_ns;     /* when an application thread last called in (atomic) */
    bool standing_by;           /* sleeping on wake_fd alone while it calls (atomic) */
    bool wake_on_leave;         /* it goes quiet after a completion (vb_app_leaves; atomic) */
    unsigned vain_wakes;        /* such wakes that found it calling again, less the needed */
    uint64_t app_calls;         /* its posts and polls that did progress (lock) */
    uint64_t leave_calls;       /* app_calls when a leave last woke the thread (lock) */
    bool judging;               /* whether that wake was needed is not known yet (lock) */
    unsigned cq_waiters;        /* threads blocked in ibv_get_cq_event() on it (atomic) */
    uint64_t app_got_ns;        /* when an application's call last got somewhere: a post,
                                 * or a poll that returned a completion */
    uint64_t rx_packets;        /* received on the port, by either (lock) */
    uint64_t rx_at_got;         /* rx_packets at app_got_ns (lock) */
    bool app_idle;              /* its polls have long found nothing (vb_app_idle; atomic) */
    unsigned idle_pollers;      /* threads waiting in vb_app_idle_wait() */
    pthread_cond_t completed;   /* a completion came to a CQ (monotonic clock) */
    bool sleeping;              /* in ppoll(), until sleep_until */
    uint64_t sleep_until;
    int wake_fd;                /* eventfd that ends its sleep */
    /* Times the thread waited for the port's lock while the application held it
     * without calling in (off the processor inside the library), and the longest
     * such wait: told with the counters (ROCESHARK_VERBS_DEBUG). */
    uint64_t held_off, held_off_max_ns;
    /* Rescues: the thread serving the port while the application is off the processor,
     * under SCHED_FIFO where it may (verbs_progress.c); rescuing: now. */
    bool may_fifo, rescuing;
    uint64_t rescues;
    pid_t app_tid;              /* the application's thread that called last (atomic) */
};

/* A mutex the progress thread takes: priority-inheriting, so that an application
 * thread holding it runs at the thread's rescuing priority until it lets go. */
void vb_mutex_init_pi(pthread_mutex_t *m);

/* Takes a reference on the port, opening it (the sockets, the RC context, the
 * progress thread) for the first: 0 or an errno (bind()'s EADDRINUSE, ...), with its
 * one line. Neither lock held. */
int vb_port_acquire(struct vb_port *p);
/* Drops a reference; the last stops the thread and closes the port. */
void vb_port_release(struct vb_port *p);
/* Receives what arrived, transmits what is due and moves the completions into
 * the CQs; returns the packets received. Lock held. */
int vb_progress(struct vb_port *p);
/* Sends what every link of the port has built. Lock held. */
void vb_links_flush(struct vb_port *p);
/* The active MTU of the link of address gid (NULL: the smallest of all), from its
 * interface's MTU as rxe derives it. Lock held. */
uint32_t vb_link_mtu(struct vb_port *p, const uint8_t *gid);
/* An application thread's calls. While it keeps calling, its calls do the
 * work and the thread stands by. Lock held.
 * vb_app_poll: from ibv_poll_cq(): progress.
 * vb_app_post: after a post: transmits, at once if it is the first call in a
 *   while, else with the next call.
 * vb_app_leaves: it may stop calling (it polled a completion), or blocks (on
 *   its completion channel): sends what waits, and the thread watches the
 *   sockets again.
 * vb_app_got: its poll returned a completion.
 * vb_app_idle (no lock needed): its polls have found nothing for a while (it waits
 *   on a CQ the traffic does not reach): they leave the port to the thread, as an
 *   application that blocks does.
 * vb_app_idle_wait: such a poll found its CQ empty: waits a little for a completion
 *   to come to any CQ of the port (vb_cq_push rings), the lock released meanwhile.
 * vb_app_completed: a completion came (from vb_cq_push). */
void vb_app_poll(struct vb_port *p);
void vb_app_post(struct vb_port *p);
void vb_app_leaves(struct vb_port *p, bool blocks);
void vb_app_got(struct vb_port *p);
bool vb_app_idle(struct vb_port *p);
void vb_app_idle_wait(struct vb_port *p);
void vb_app_completed(struct vb_port *p);
/* The address GID index i of the port stands for, for a QP or an address handle: 0
 * with gid filled, or an errno (with its one line under ROCESHARK_VERBS_DEBUG): EINVAL
 * for an index past the table, or why its address has no link here. Lock held (the port is open). */
int vb_gid_source(struct vb_port *p, unsigned index, uint8_t gid[16]);
/* The RC context's events, turned into ibverbs' and queued on the context of the QP
 * or SRQ (verbs_async.c). arg: the port. Lock held. */
void vb_async_from_rc(void *arg, const struct rs_rc_event *ev);

/* --- devices and their GID tables (verbs_device.c, verbs_gid.c) --- */

/* libibverbs' enum ibv_gid_type_sysfs (its driver.h, not installed): what
 * ibv_query_gid_type() says. */
enum vb_gid_type { VB_GID_ROCE_V1 = 0, VB_GID_ROCE_V2 = 1 };

struct vb_gid {
    uint8_t raw[16];
    uint8_t type;               /* enum vb_gid_type */
    uint32_t scope;             /* interface index of a link-local address */
};

/* What the GID table is made from: an interface's hardware address and addresses. */
struct vb_netdev {
    char name[IF_NAMESIZE];     /* "" when no interface holds the address */
    uint32_t ifindex;
    uint8_t mac[6];
    uint8_t addrs[VB_MAX_GIDS][16]; /* IPv4 ones IPv4-mapped */
    unsigned n_addrs;
};

struct vb_device {
    struct ibv_device ibdev;    /* what ibv_get_device_list() hands out */
    bool by_netdev;             /* named after an interface (rxe0=veth0), not an address */
    uint8_t gid[16];            /* named after an address: it (IPv4 ones IPv4-mapped); after
                                 * an interface: the one its RDMA CM speaks from */
    uint32_t scope;             /* its interface index, for a link-local one */
    struct vb_netdev netdev;
    struct vb_gid gids[VB_MAX_GIDS];
    unsigned n_gids;
    uint64_t guid;              /* network order */
    struct vb_port port;
};

/* The devices of ROCESHARK_VERBS_DEVICES (read once); how many in *n. */
struct vb_device *vb_devices(int *n);
/* The index of gid in the device's GID table, or -1 (the CM's address vectors name it). */
int vb_device_gid_index(const struct vb_device *d, const uint8_t gid[16]);

/* QP 1's MADs, for the RDMA CM (verbs_cm.c): every port's GSI handler. */
void vb_cm_mad_in(void *port, const uint8_t src_gid[16], uint32_t src_qp, const uint8_t *mad,
                  uint32_t len, uint64_t now_ns);

/* Parses a ROCESHARK_VERBS_DEVICES value into up to max devices; entries that
 * do not parse are left out. Returns how many. Reads the interfaces' addresses. */
int vb_devices_parse(const char *spec, struct vb_device *out, int max);
/* The port's active MTU in bytes: from the MTU of the device's interface, as rxe
 * derives it (1500 -> 1024, 9000 -> 4096); 1024 when no interface holds it. */
uint32_t vb_active_mtu(const struct vb_device *dev);

/* The GID table of a port, as rxe lays it out: the link-local GID made from the
 * hardware address (fe80::/64 and its modified EUI-64), then each address, IPv4
 * before IPv6, every entry RoCE v2 (rxe serves no other). only: the addresses to list (a device named after
 * an address lists that one), or NULL for all the interface's. Returns how many.
 * Pure: for the unit tests. */
unsigned vb_gid_table_build(const struct vb_netdev *nd, const uint8_t *only,
                            struct vb_gid *out, unsigned max);
/* libibverbs' private export (no header declares it), which ibv_devinfo and perftest
 * call: the type of GID index in enum vb_gid_type. */
int ibv_query_gid_type(struct ibv_context *context, uint8_t port, unsigned index, int *type);
/* Whether the device's interface is up and running: its port is ACTIVE then. */
bool vb_port_up(const struct vb_device *d);
/* Fills nd from the interface of that name, or (name NULL) the one that holds addr
 * (or, for a loopback address, whose prefix takes it in); false when there is none. */
bool vb_netdev_lookup(const char *name, const uint8_t *addr, struct vb_netdev *nd);

/* --- an opened device --- */

#define VB_ASYNC_MAX 256        /* events queued at most; more are counted and lost */

struct vb_context {
    struct verbs_context vctx;  /* the application's struct ibv_context is its last member */
    struct vb_device *dev;
    struct vb_port *port;       /* the device's */
    /* The port is taken with the first PD (ibv_devinfo opens devices only to ask about
     * them, and must not take port 4791 of an address a running program uses). */
    pthread_mutex_t pd_lock;
    unsigned n_pd;
    bool holds_port;
    /* Asynchronous events: a ring read by ibv_get_async_event(). Its own lock: the
     * application blocks on it, and the port's lock is held when events come. */
    pthread_mutex_t async_lock;
    struct ibv_async_event async[VB_ASYNC_MAX];
    unsigned async_head, async_n;
    uint64_t async_lost;
    int async_ready_fd;         /* eventfd: readable while events wait */
    int async_link_fd;          /* netlink: the interface's link changes; -1 without one */
    bool port_was_up;
};

static inline struct vb_context *
vb_ctx(struct ibv_context *c)
{
    return VB_CONTAINER(c, struct vb_context, vctx.context);
}

/* The context's asynchronous event descriptor, async_fd (verbs_async.c): 0 or an errno. */
int vb_async_open(struct vb_context *c);
void vb_async_close(struct vb_context *c);
/* Queues an asynchronous event on the context (verbs_async.c). Any lock but its own. */
void vb_async_push(struct vb_context *c, const struct ibv_async_event *ev);

/* --- PDs, MRs and address handles (verbs_mr.c, verbs_ah.c) --- */

struct vb_pd {
    struct ibv_pd pd;
    unsigned users;             /* QPs, SRQs, MRs and AHs made in it: EBUSY to dealloc */
};

static inline struct vb_pd *
vb_pd(struct ibv_pd *pd)
{
    return VB_CONTAINER(pd, struct vb_pd, pd);
}

struct vb_mr {
    struct ibv_mr mr;
    struct rs_rc_mr rc;
};

struct vb_ah {
    struct ibv_ah ah;
    struct ibv_ah_attr attr;
    uint8_t sgid[16];           /* the address of GID index attr.grh.sgid_index */
};

/* --- CQs and completion channels (verbs_cq.c) --- */

/* A ring of work completions: one per entry the application asked for. */
struct vb_ring {
    struct ibv_wc *wc;
    uint32_t size;
    uint64_t head, tail;
};

int vb_ring_init(struct vb_ring *r, uint32_t size);
void vb_ring_free(struct vb_ring *r);
static inline uint32_t
vb_ring_count(const struct vb_ring *r)
{
    return (uint32_t)(r->tail - r->head);
}
/* False when the ring is full (the entry is left where it was). */
bool vb_ring_push(struct vb_ring *r, const struct ibv_wc *wc);
/* Takes up to n entries; returns how many. */
int vb_ring_pop(struct vb_ring *r, struct ibv_wc *wc, int n);

struct vb_cq;

struct vb_channel {
    struct ibv_comp_channel ch;     /* ch.fd: an eventfd counting the events queued */
    pthread_mutex_t lock;
    struct vb_cq *first, *last;     /* CQs with an event not yet taken */
};

struct vb_cq {
    struct ibv_cq cq;
    struct vb_ring ring;
    bool armed;                 /* the next completion makes an event */
    bool queued;                /* on its channel's list */
    bool overflow_told;         /* IBV_EVENT_CQ_ERR went out */
    struct vb_cq *ev_next;
};

/* Adds a completion; false when the CQ is full. Raises the channel's event when
 * the CQ is armed. Lock held. */
bool vb_cq_push(struct vb_cq *cq, const struct ibv_wc *wc);
/* Queues an event for cq on its channel (ibv_req_notify_cq fired). */
void vb_channel_raise(struct vb_cq *cq);

int vb_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int vb_req_notify_cq(struct ibv_cq *cq, int solicited_only);

/* --- QPs (verbs_qp.c, verbs_post.c) --- */

/* Whether a QP of the service type may go from cur to next with the attributes in
 * mask (enum ibv_qp_attr_mask), as IBTA's QP state table and the kernel's
 * ib_modify_qp_is_ok() say: 0 or EINVAL. Pure: for the unit tests. */
int vb_qp_transition_check(enum ibv_qp_type type, enum ibv_qp_state cur,
                           enum ibv_qp_state next, int mask);

struct vb_qp {
    struct ibv_qp_ex qpx;       /* qpx.qp_base is the application's struct ibv_qp */
    struct vb_context *ctx;
    struct rs_rc_qp *rc;        /* from RTR on */
    struct rs_rc_qp_attr attr;  /* gathered by ibv_modify_qp */
    struct ibv_qp_cap cap;
    struct ibv_ah_attr ah;
    struct vb_srq *srq;
    uint8_t port;
    uint16_t pkey_index;
    bool sq_sig_all;
    bool ex;                    /* created with ibv_create_qp_ex's send ops */
    /* Receives posted in INIT, handed to the RC QP at RTR, with their elements. */
    struct rs_rc_recv_wr *early;
    struct rs_rc_sge *early_sge;
    uint32_t n_early;
    /* A completion the CQ it goes to had no room for. */
    struct ibv_wc held;
    bool has_held;
    /* ibv_wr_start() .. ibv_wr_complete(): the batch being built, with the elements and
     * inline data of each of its requests. */
    struct rs_rc_send_wr *batch;
    struct rs_rc_sge *batch_sge;
    uint8_t *batch_inline;
    uint32_t n_batch;
    int batch_err;
    struct vb_qp *next;         /* the port's list */
};

static inline struct vb_qp *
vb_qp(struct ibv_qp *qp)
{
    return VB_CONTAINER(qp, struct vb_qp, qpx.qp_base);
}

/* Sets the context's create_qp_ex, which ibv_create_qp_ex() calls. */
void vb_qp_ops_init(struct verbs_context *vctx);
int vb_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int vb_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
/* Fills the ibv_wr_*() function pointers of qp's struct ibv_qp_ex. */
void vb_qpx_init(struct vb_qp *qp);
/* Posts one work request to the RC QP: 0 or an errno. Lock held. */
int vb_post_one(struct vb_qp *qp, struct rs_rc_send_wr *wr);
/* Converts an RC completion to ibverbs'. */
void vb_wc_from_rc(const struct rs_rc_wc *in, uint32_t src_qp, struct ibv_wc *out);
/* Where a UD work request goes, from its address handle: 0 or an errno. */
int vb_ud_dest(struct ibv_ah *ah, uint32_t qpn, uint32_t qkey, struct rs_rc_ud_dest *d);

/* --- SRQs (verbs_srq.c) --- */

struct vb_srq {
    struct ibv_srq srq;
    struct vb_context *ctx;
    struct rs_rc_srq *rc;
    uint32_t max_wr, max_sge;
    unsigned users;             /* QPs made with it: EBUSY to destroy */
    struct vb_srq *next;        /* the port's list */
};

static inline struct vb_srq *
vb_srq(struct ibv_srq *srq)
{
    return VB_CONTAINER(srq, struct vb_srq, srq);
}

int vb_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
/* An ibv_recv_wr as the RC stack takes it (sg_list points at the application's
 * elements, which are layout-compatible): 0, or EINVAL for more than max elements. */
int vb_recv_wr(const struct ibv_recv_wr *in, uint32_t max, struct rs_rc_recv_wr *out);

#endif /* ROCESHARK_VERBS_INT_H */
