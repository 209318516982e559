/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cm.h - an InfiniBand Communication Manager (IBTA Vol 1, chapter 12) for
 * RC connections over RoCEv2, with rdma_cm's conventions, so that
 * librdmacm's peers (rping, ib_write_bw -R) and our own connect.
 *
 * The engine (transport/cm, librscm) keeps one state machine per connection,
 * passive (REQ in, REP out, RTU in) and active (REQ out, REP in, RTU out),
 * and the disconnect both ways (DREQ, DREP). It does no I/O and reads no
 * clock: the caller hands it every MAD received on QP 1 with the sender's
 * address, and the time; it sends MADs and reports connections through the
 * callbacks in struct rs_cm_ops. MADs that go unanswered are sent again
 * after the response timeout the REQ announced, up to its "max CM retries"
 * times; then the connection fails with RS_CM_EV_TIMEOUT.
 *
 * Addresses are 16-byte GIDs: an IPv4 address as ::ffff:a.b.c.d.
 *
 * Two ways to serve a connection. A program of ours answers a REQ from its
 * request callback and is told CONNECTED when the RTU comes; rdma_cm's
 * consumer (the verbs library's CM, for librdmacm's programs) decides later:
 * the callback holds the REQ (RS_CM_HOLD) until rs_cm_accept() or
 * rs_cm_reject(), and with opts.hold_rtu a REP waits for rs_cm_confirm()
 * (RS_CM_EV_REPLY), so that the RTU goes once the consumer's QP can receive.
 * opts.timewait_ns keeps a disconnected connection in time wait (IBTA
 * 12.9.7), answering a repeated DREQ, and then reports TIMEWAIT_EXIT.
 *
 * A repeated REQ still held is answered with an MRA (Linux's delayed MRA);
 * an MRA received extends our wait.
 *
 * SIDR (IBTA 12.11), how rdma_cm finds a UD QP (RDMA_PS_UDP): the active side
 * sends a SIDR_REQ for a port (rs_cm_sidr_resolve()), resent as a REQ is, and is
 * told the SIDR_REP's status, QPN, Q_Key and private data (RS_CM_EV_SIDR_REPLY);
 * the passive side hands a SIDR_REQ to ops.sidr_request, which answers at once or
 * holds it for rs_cm_sidr_answer(). Nothing is kept once answered, as Linux's CM.
 *
 * Not done: alternate paths (LAP/APR). Without time wait, a DREQ for a connection
 * we no longer know is answered with a DREP, as Linux does.
 */
#ifndef ROCESHARK_CM_H
#define ROCESHARK_CM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <roceshark/dissectors/cm_mad.h>
#include <roceshark/dissectors/common.h>

#define RS_CM_MAX_CONNS 256             /* connections at once; more are rejected */
#define RS_CM_DEFAULT_TIMEOUT 20        /* rdma_cm's response timeout code: 4.3 s */
#define RS_CM_DEFAULT_RETRIES 15        /* rdma_cm's max CM retries */
/* The local ACK timeout of a QP rdma_cm connects over RoCE: the path's packet lifetime
 * (Linux's CMA_IBOE_PACKET_LIFETIME, 16) plus one, 4.096 us * 2^17 = 537 ms. The passive
 * side's QP takes the REQ's Local ACK Timeout. */
#define RS_CM_DEFAULT_ACK_TIMEOUT 17
/* A peer's REQ says how long its answers may take (Local CM Response Timeout) and how
 * often we resend our REP waiting for them (Max CM Retries); we honour at most rdma_cm's
 * own values, 4.3 s and 15 retries (69 s in all), where the field allows 2.4 hours
 * times 16. */
#define RS_CM_MAX_PEER_TIMEOUT RS_CM_DEFAULT_TIMEOUT
#define RS_CM_MAX_PEER_RETRIES RS_CM_DEFAULT_RETRIES
/* Passive connections not yet established (REQ held, or REP sent and no RTU yet) from one
 * address: more are rejected (no resources), so that one source cannot take every slot.
 * The default of rs_cm_opts.max_half_open_per_peer. */
#define RS_CM_MAX_HALF_OPEN_PER_PEER 16
#define RS_CM_REQ_PRIVATE_MAX (92 - RS_CM_IP_HDR_LEN)   /* after rdma_cm's header */
#define RS_CM_REP_PRIVATE_MAX 196
#define RS_CM_REJ_PRIVATE_MAX 148
#define RS_CM_SIDR_REQ_PRIVATE_MAX (216 - RS_CM_IP_HDR_LEN)  /* after rdma_cm's header */
#define RS_CM_SIDR_REP_PRIVATE_MAX 136
/* From the request callback: the REQ waits for rs_cm_accept() or rs_cm_reject(). */
#define RS_CM_HOLD 0xffff
/* From the request callback: the REQ is forgotten unanswered (no room: its
 * repeat may find some), as Linux's CM drops one its consumer cannot take. */
#define RS_CM_IGNORE 0xfffe
/* The service timeout of the MRA that answers a repeated REQ held (Linux's
 * CMA_CM_MRA_SETTING): 4.096 us * 2^24, 69 s. */
#define RS_CM_MRA_SERVICE_TIMEOUT 24

/* One end of a connection, as the REQ or the REP describes it. */
struct rs_cm_params {
    uint8_t gid[16];
    uint16_t port;                  /* rdma_cm: the active side's source port, or the service's */
    uint32_t qpn, psn;
    uint32_t pmtu;                  /* bytes, 256..4096 */
    uint16_t pkey;
    uint8_t responder_resources;    /* READs and atomics this end takes at once */
    uint8_t initiator_depth;        /* READs and atomics this end sends at once */
    uint8_t retry_count, rnr_retry_count;
    uint8_t ack_timeout;            /* the QP's local ACK timeout code */
    uint32_t qkey;                  /* SIDR: the UD QP's Q_Key */
    uint8_t private_len;
    uint8_t private_data[RS_CM_REP_PRIVATE_MAX];  /* the application's bytes */
};

enum rs_cm_event_type {
    RS_CM_EV_CONNECTED,         /* REP received (active) or RTU received (passive) */
    RS_CM_EV_DISCONNECTED,      /* DREQ received or DREP received */
    RS_CM_EV_REJECTED,          /* REJ received; reason says why, peer->private_data what */
    RS_CM_EV_TIMEOUT,           /* a REQ, REP or DREQ unanswered after every retry */
    RS_CM_EV_REPLY,             /* hold_rtu: a REP waits for rs_cm_confirm() */
    RS_CM_EV_TIMEWAIT_EXIT,     /* time wait is over; the connection is forgotten */
    RS_CM_EV_SIDR_REPLY         /* SIDR_REP received: reason is its status, peer its QP */
};

struct rs_cm_event {
    enum rs_cm_event_type type;
    uint32_t id;                /* our local communication ID */
    bool active;                /* we sent the REQ */
    const struct rs_cm_params *ours, *peer;
    uint16_t reason;            /* REJECTED: enum rs_cm_rej_reason */
    const char *unanswered;     /* TIMEOUT: "REQ", "REP", "DREQ" or "SIDR_REQ" */
};

struct rs_cm_ops {
    /* Sends the 256-byte MAD to QP peer_qp (1) at peer_gid. */
    void (*send)(void *send_arg, const uint8_t peer_gid[16], uint32_t peer_qp,
                 const uint8_t *mad);
    void *send_arg;
    /* Passive side: a REQ for port arrived from peer. Return 0 after filling
     * ours (gid and port are filled) to accept; the REP goes out at once, so
     * the QP must exist by then. Or return a REJ reason to refuse,
     * RS_CM_HOLD to answer later, or RS_CM_IGNORE. NULL: every REQ is refused
     * (RS_CM_REJ_INVALID_SERVICE_ID). */
    uint16_t (*request)(void *arg, uint32_t id, uint16_t port, const struct rs_cm_params *peer,
                        struct rs_cm_params *ours);
    void (*event)(void *arg, const struct rs_cm_event *ev);
    void *arg;
    /* Passive side: a SIDR_REQ for rdma_cm's UDP port arrived from peer (its
     * private data after rdma_cm's header). Return RS_CM_HOLD to answer later
     * with rs_cm_sidr_answer(), RS_CM_IGNORE, or a status other than
     * RS_CM_SIDR_VALID to refuse at once. NULL: every SIDR_REQ is answered
     * RS_CM_SIDR_UNSUPPORTED. */
    uint16_t (*sidr_request)(void *arg, uint32_t id, uint16_t port,
                             const struct rs_cm_params *peer);
};

struct rs_cm_opts {
    uint8_t gid[16];                /* our address */
    uint64_t ca_guid;               /* what REQ and REP name as our CA */
    uint8_t response_timeout;       /* the code we announce (4.096 us * 2^code) */
    uint8_t max_retries;            /* what we announce, and our own limit */
    uint32_t id_seed;               /* first local communication ID (0: 1) */
    bool hold_rtu;                  /* a REP waits for rs_cm_confirm() */
    uint64_t timewait_ns;           /* time wait after a disconnect; 0: none */
    /* Half-open passive connections from one address (RS_CM_MAX_HALF_OPEN_PER_PEER);
     * RS_CM_MAX_CONNS where something else bounds them, as a listener's backlog does. */
    unsigned max_half_open_per_peer;
    struct rs_cm_ops ops;
};

/* rdma_cm's values: timeout 20, 15 retries. */
void rs_cm_opts_init(struct rs_cm_opts *o);
/* Our address, and the CA GUID made from it (IPv4: 0x02000000 and the address; IPv6:
 * its interface identifier). */
void rs_cm_opts_set_gid(struct rs_cm_opts *o, const uint8_t gid[16]);

/* Every MAD dropped has a counter. */
struct rs_cm_counters {
    uint64_t rx, tx, retries, timeouts;
    uint64_t drop_short, drop_not_cm, drop_version, drop_method, drop_attr;
    uint64_t drop_unknown, drop_state, drop_bad_field;
    uint64_t dup_req, dup_rep, rej_sent, rej_received, mra_received, mra_sent;
    /* REQs rejected because their source held max_half_open_per_peer half-open
     * connections already (counted in rej_sent too). */
    uint64_t rej_half_open;
};

struct rs_cm;

int rs_cm_create(struct rs_cm **cm, const struct rs_cm_opts *opts, char *err);
void rs_cm_destroy(struct rs_cm *cm);
/* The sender, set after creation (by rs_cm_rc_attach()). */
void rs_cm_set_sender(struct rs_cm *cm,
                      void (*send)(void *, const uint8_t *, uint32_t, const uint8_t *),
                      void *send_arg);

/* One MAD received on QP 1: len bytes from src_qp at src_gid. */
void rs_cm_input(struct rs_cm *cm, const uint8_t src_gid[16], uint32_t src_qp,
                 const uint8_t *mad, uint32_t len, uint64_t now_ns);
/* Active side: sends a REQ for rdma_cm's port to peer_gid, from ours (its
 * qpn, psn and the rest; gid is filled); our local ID in *id. RS_ENOMEM
 * when every connection slot is taken. */
int rs_cm_connect(struct rs_cm *cm, const uint8_t peer_gid[16], uint16_t port,
                  const struct rs_cm_params *ours, uint64_t now_ns, uint32_t *id, char *err);
/* Active side: sends a SIDR_REQ for rdma_cm's UDP port to peer_gid, from ours
 * (its port and private data); our ID in *id. RS_CM_EV_SIDR_REPLY, or
 * RS_CM_EV_TIMEOUT ("SIDR_REQ") after every retry. */
int rs_cm_sidr_resolve(struct rs_cm *cm, const uint8_t peer_gid[16], uint16_t port,
                       const struct rs_cm_params *ours, uint64_t now_ns, uint32_t *id,
                       char *err);
/* A held SIDR_REQ: answers it with status, and for RS_CM_SIDR_VALID ours's
 * qpn and qkey, with ours's private data (at most RS_CM_SIDR_REP_PRIVATE_MAX);
 * the request is forgotten. RS_ENOENT for none held under id. */
int rs_cm_sidr_answer(struct rs_cm *cm, uint32_t id, uint8_t status,
                      const struct rs_cm_params *ours, char *err);
/* Sends a DREQ for an established connection; RS_ENOENT for no such one. */
int rs_cm_disconnect(struct rs_cm *cm, uint32_t id, uint64_t now_ns, char *err);
/* A held REQ: accepts it with ours (gid and port are filled), the REP goes
 * out; CONNECTED when the RTU comes. RS_ENOENT for no REQ held under id. */
int rs_cm_accept(struct rs_cm *cm, uint32_t id, const struct rs_cm_params *ours,
                 uint64_t now_ns, char *err);
/* A held REQ or REP: refuses it with a REJ of reason and len bytes of private
 * data (at most RS_CM_REJ_PRIVATE_MAX); the connection is forgotten. */
int rs_cm_reject(struct rs_cm *cm, uint32_t id, uint16_t reason, const uint8_t *priv,
                 uint8_t len, uint64_t now_ns, char *err);
/* A held REQ or SIDR_REQ is forgotten unanswered (its repeat is asked again). */
void rs_cm_forget(struct rs_cm *cm, uint32_t id);
/* A held REP: sends the RTU; the connection is established. */
int rs_cm_confirm(struct rs_cm *cm, uint32_t id, uint64_t now_ns, char *err);
/* The consumer is gone: tells the peer as Linux's CM does when a CM ID is
 * destroyed (a REJ for a connection not yet established, one DREQ for an
 * established one, which then waits out its time wait, a SIDR_REP "rejected"
 * for a SIDR_REQ held) and reports nothing more of it. An unknown id is
 * ignored. */
void rs_cm_abandon(struct rs_cm *cm, uint32_t id, uint64_t now_ns);
/* Resends what is overdue and fails what has run out of retries. */
void rs_cm_progress(struct rs_cm *cm, uint64_t now_ns);
/* When rs_cm_progress() next has work: an absolute time, or UINT64_MAX. */
uint64_t rs_cm_next_deadline(const struct rs_cm *cm);
const struct rs_cm_counters *rs_cm_counters_get(const struct rs_cm *cm);
/* "connected", "disconnected", "rejected", "timeout", "reply", "timewait exit",
 * "sidr reply" */
const char *rs_cm_event_name(enum rs_cm_event_type t);

/* As inet_ntop() prints a GID ("::ffff:10.1.16.62"); size >= 46. */
void rs_cm_gid_format(const uint8_t gid[16], char *out, size_t size);

/* Path MTU in bytes to and from IBTA's code (1: 256 ... 5: 4096; 0 for others). */
uint8_t rs_cm_mtu_code(uint32_t pmtu);
uint32_t rs_cm_mtu_bytes(uint8_t code);

/* --- roceshark's private data: a region to READ and WRITE ---
 *
 * Our passive side names the region its peer may use in the REP's private
 * data: "RSMR", then R_Key (4), VA (8) and length (8), big-endian. rdma_cm's
 * applications ignore the REP's private data they did not ask for (rping
 * sends its region in a SEND), so this costs them nothing. */
#define RS_CM_REGION_LEN 24

void rs_cm_region_write(uint32_t rkey, uint64_t va, uint64_t length,
                        uint8_t out[RS_CM_REGION_LEN]);
/* False when the bytes do not start with our region. */
bool rs_cm_region_read(const uint8_t *in, size_t len, uint32_t *rkey, uint64_t *va,
                       uint64_t *length);

/* --- The engine over the software RC transport (cm_rc.c, librscmrc) --- */

struct rs_rc_ctx;
/* Sets cm's sender to ctx's QP 1 and makes ctx hand QP 1's MADs to cm. */
void rs_cm_rc_attach(struct rs_cm *cm, struct rs_rc_ctx *ctx);

#endif /* ROCESHARK_CM_H */
