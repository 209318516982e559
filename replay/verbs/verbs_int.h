/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_int.h - what the files of libroceshark-verbs share; not part of any API.
 *
 * The library is a verbs provider and libibverbs' front end in one: loaded with
 * LD_PRELOAD, its ibv_* functions take the place of libibverbs' (with the same
 * symbol versions, verbs.map), and the contexts it opens carry an ops table, so
 * the inline ibv_post_send(), ibv_post_recv(), ibv_poll_cq() and
 * ibv_req_notify_cq() of <infiniband/verbs.h> call into it too. Each device
 * is an address of this host, RoCEv2 over UDP port 4791 on our RC stack
 * (replay/rc).
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
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <roceshark/rc.h>

/* <infiniband/verbs.h> makes these macros around inlines; the library
 * defines the exported functions behind them. */
#undef ibv_query_port
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

#define VB_MAX_DEVICES 16
#define VB_MAX_INLINE 1024      /* bytes of inline data a send may carry */
#define VB_MAX_QP_WR 16384      /* work requests per queue */
#define VB_MAX_CQE (1 << 20)
#define VB_CQ_MIN 64            /* entries a CQ has at least */
#define VB_MAX_RD_ATOMIC 16
#define VB_PORT_MTU IBV_MTU_4096     /* max_mtu; active_mtu is the interface's */

/* The environment variable that names the devices: "rs0=127.0.0.2,rs1=::1". */
#define VB_ENV_DEVICES "ROCESHARK_VERBS_DEVICES"

#define VB_CONTAINER(ptr, type, member) \
    ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* --- the port of a device (verbs_progress.c) --- */

struct vb_qp;
struct vb_device;

/* RoCEv2 on UDP port 4791 of the device's address, which one socket of the
 * host can hold: so one per device in the process, opened by its first user (a
 * context's first PD, or the CM) and closed with its last. */
struct vb_port {
    pthread_mutex_t lock;       /* the RC context, the QPs, their CQs */
    pthread_mutex_t open_lock;  /* opening and closing; taken before lock */
    struct vb_device *dev;
    unsigned users;
    struct rs_rc_udp *udp;
    struct rs_rc_ctx *rc;
    struct vb_qp *qps;          /* of every context of the device */
    uint32_t next_qpn;
    /* The progress thread. */
    pthread_t thread;
    bool thread_started;
    bool stop;
    uint64_t app_active_ns;     /* when an application thread last called in (atomic) */
    bool standing_by;           /* sleeping on wake_fd alone while it calls (atomic) */
    bool wake_on_leave;         /* it goes quiet after a completion (vb_app_leaves) */
    bool sleeping;              /* in ppoll(), until sleep_until */
    uint64_t sleep_until;
    int wake_fd;                /* eventfd that ends its sleep */
};

/* Takes a reference on the port, opening it (the socket, the RC context, the
 * progress thread) for the first: 0 or an errno (bind()'s EADDRINUSE, ...).
 * Neither lock held. */
int vb_port_acquire(struct vb_port *p);
/* Drops a reference; the last stops the thread and closes the port. */
void vb_port_release(struct vb_port *p);
/* Receives what arrived, transmits what is due and moves the completions into
 * the CQs; returns the packets received. Lock held. */
int vb_progress(struct vb_port *p);
/* An application thread's calls. While it keeps calling, its calls do the
 * work and the thread stands by. Lock held.
 * vb_app_poll: from ibv_poll_cq(): progress.
 * vb_app_post: after a post: transmits, at once if it is the first call in a
 *   while, else with the next call.
 * vb_app_leaves: it may stop calling (it polled a completion), or blocks (on
 *   its completion channel): sends what waits, and the thread watches the
 *   socket again. */
void vb_app_poll(struct vb_port *p);
void vb_app_post(struct vb_port *p);
void vb_app_leaves(struct vb_port *p, bool blocks);

/* --- devices (verbs_device.c) --- */

struct vb_device {
    struct ibv_device ibdev;    /* what ibv_get_device_list() hands out */
    uint8_t gid[16];            /* the address: IPv4 ones IPv4-mapped */
    uint32_t scope;             /* interface index of a link-local address */
    uint64_t guid;              /* network order, from the address */
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
 * do not parse are left out. Returns how many. Pure: for the unit tests. */
int vb_devices_parse(const char *spec, struct vb_device *out, int max);
/* The port's active MTU in bytes: the MTU of the interface holding the device's address,
 * as rxe derives it (1500 -> 1024, 9000 -> 4096); 1024 when no interface holds it. */
uint32_t vb_active_mtu(const struct vb_device *dev);

/* --- an opened device --- */

struct vb_context {
    struct verbs_context vctx;  /* the application's struct ibv_context is its last member */
    struct vb_device *dev;
    struct vb_port *port;       /* the device's */
    /* The port is taken with the first PD (ibv_devinfo opens devices only to ask about
     * them, and must not take port 4791 of an address a running program uses). */
    pthread_mutex_t pd_lock;
    unsigned n_pd;
    bool holds_port;
};

static inline struct vb_context *
vb_ctx(struct ibv_context *c)
{
    return VB_CONTAINER(c, struct vb_context, vctx.context);
}

/* --- PDs and MRs (verbs_mr.c) --- */

struct vb_mr {
    struct ibv_mr mr;
    struct rs_rc_mr rc;
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

/* Whether a QP may go from cur to next with the attributes in mask (enum
 * ibv_qp_attr_mask), as IBTA's QP state table and the kernel's
 * ib_modify_qp_is_ok() say for RC: 0 or EINVAL. Pure: for the unit tests. */
int vb_qp_transition_check(enum ibv_qp_state cur, enum ibv_qp_state next, int mask);

struct vb_qp {
    struct ibv_qp_ex qpx;       /* qpx.qp_base is the application's struct ibv_qp */
    struct vb_context *ctx;
    struct rs_rc_qp *rc;        /* from RTR on */
    struct rs_rc_qp_attr attr;  /* gathered by ibv_modify_qp */
    struct ibv_qp_cap cap;
    struct ibv_ah_attr ah;
    uint8_t port;
    uint16_t pkey_index;
    bool sq_sig_all;
    bool ex;                    /* created with ibv_create_qp_ex's send ops */
    /* Receives posted in INIT, handed to the RC QP at RTR. */
    struct rs_rc_recv_wr *early;
    uint32_t n_early;
    /* A completion the CQ it goes to had no room for. */
    struct ibv_wc held;
    bool has_held;
    /* Inline data: one slot per send work request, in a region of its own. */
    uint8_t *inline_buf;
    struct rs_rc_mr inline_mr;
    uint64_t sends;             /* sends posted: the slot of the next */
    /* ibv_wr_start() .. ibv_wr_complete(): the batch being built. */
    struct rs_rc_send_wr *batch;
    uint32_t n_batch;
    int batch_err;
    struct vb_qp *next;         /* the context's list */
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
/* Posts one work request to the RC QP (inline data copied to its slot): 0 or an errno. */
int vb_post_one(struct vb_qp *qp, struct rs_rc_send_wr *wr, const void *inline_data);
/* Converts an RC completion to ibverbs'. */
void vb_wc_from_rc(const struct rs_rc_wc *in, uint32_t src_qp, struct ibv_wc *out);

#endif /* ROCESHARK_VERBS_INT_H */
