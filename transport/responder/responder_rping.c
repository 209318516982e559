/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * responder_rping.c - rping's server loop on a connection RDMA CM made, so
 * that `rping -c` runs against the responder as against `rping -s`.
 *
 * The client drives (librdmacm/examples/rping.c, rping_test_server()):
 *
 *   WAIT_SOURCE --SEND: source buffer--> READING   (we READ it)
 *   READING     --READ done-->           WAIT_SINK (we SEND a go-ahead)
 *   WAIT_SINK   --SEND: sink buffer-->   WRITING   (we WRITE the ping back)
 *   WRITING     --WRITE done-->          WAIT_SOURCE (we SEND a go-ahead)
 *
 * until the client's DREQ. The go-ahead is 16 bytes rping never fills:
 * zeros. We WRITE what we READ up to its first NUL and the NUL, as rping
 * does (strlen() + 1), which is the whole buffer for rping's own data.
 * Anything else fails the connection as rping's server fails it (it then
 * disconnects): an advertisement that does not parse, one that comes
 * before the go-ahead, a sink too small for the ping, or a READ or WRITE
 * the client's NIC refuses. We then send the DREQ ourselves and say why
 * in a JSON line and on the log; the QP goes when the DREP (or the DREQ's
 * timeout) ends the connection. Unlike rping -s, whose buffer is its own
 * -S, ours takes any size rping allows (up to 65535 bytes).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/oob.h>
#include <roceshark/dissectors/print.h>

#include "responder_int.h"

/* Receives kept posted: rping sends one advertisement at a time, so two
 * leave room for a client that runs ahead and is then told why. */
#define RPING_RECVS 2
/* Our region: the go-ahead (zeros) first, the ping a page further on. */
#define GO_AHEAD_OFF 0
#define DATA_OFF 4096
#define REGION_SIZE (DATA_OFF + RS_OOB_RPING_MAX_SIZE + 1)

enum rping_state {
    RPING_WAIT_SOURCE,
    RPING_READING,
    RPING_WAIT_SINK,
    RPING_WRITING,
    RPING_FAILED        /* said why; the DREQ is sent, or will be once connected */
};

struct resp_rping {
    enum rping_state state;
    bool connected;             /* the RTU came */
    bool dreq_pending;          /* failed before the RTU: the DREQ waits for it */
    uint8_t *mem;
    struct rs_rc_mr mr;
    struct rs_oob_rping_info source, sink;
    uint64_t pings;             /* WRITEs completed */
    char why[RS_ERRBUF_SIZE];
};

static void
send_dreq(struct rs_responder *r, struct resp_qp *q)
{
    char err[RS_ERRBUF_SIZE];

    q->rping->dreq_pending = rs_cm_disconnect(r->cm, q->cm_id, rs_rc_now_ns(), err) != 0;
}

/* The connection failed: said once, then disconnected. */
static void
fail(struct rs_responder *r, struct resp_qp *q, const char *why)
{
    struct resp_rping *p = q->rping;

    if (p->state == RPING_FAILED)
        return;
    p->state = RPING_FAILED;
    /* The reason may be longer than we keep: the precision says so to the compiler. */
    snprintf(p->why, sizeof(p->why), "%.*s", (int)sizeof(p->why) - 1, why);
    fprintf(resp_log(r), "roceshark: responder: rping: QP %#" PRIx32 ": %s; disconnecting\n",
            rs_rc_qp_num(q->qp), why);
    send_dreq(r, q);
}

static int
post(struct resp_qp *q, uint8_t opcode, uint64_t local_off, uint32_t len,
     const struct rs_oob_rping_info *remote, char *err)
{
    const struct resp_rping *p = q->rping;
    const struct rs_rc_send_wr wr = {
        .wr_id = opcode,
        .opcode = opcode,
        .flags = RS_RC_SEND_SIGNALED,
        .sge = {p->mr.va + local_off, len, p->mr.lkey},
        .remote_addr = remote != NULL ? remote->buf : 0,
        .rkey = remote != NULL ? remote->rkey : 0,
    };

    return rs_rc_post_send(q->qp, &wr, err);
}

/* A buffer advertisement arrived: READ the source, or WRITE into the sink. */
static void
advertised(struct rs_responder *r, struct resp_qp *q, const uint8_t *data, uint32_t len)
{
    struct resp_rping *p = q->rping;
    struct rs_oob_rping_info info;
    char err[RS_ERRBUF_SIZE], why[RS_ERRBUF_SIZE + 64];

    if (rs_oob_rping_info_parse(data, len, &info, err) < 0) {
        fail(r, q, err);
        return;
    }
    if (p->state == RPING_WAIT_SOURCE) {
        p->source = info;
        if (post(q, RS_RC_WR_RDMA_READ, DATA_OFF, info.size, &info, err) < 0) {
            snprintf(why, sizeof(why), "the READ of the client's buffer: %s", err);
            fail(r, q, why);
            return;
        }
        p->state = RPING_READING;
    } else if (p->state == RPING_WAIT_SINK) {
        p->sink = info;
        /* rping WRITEs strlen() + 1 bytes of what it read. */
        uint32_t n = (uint32_t)strnlen((const char *)p->mem + DATA_OFF, p->source.size);
        n = n < p->source.size ? n + 1 : n;
        if (n > info.size) {
            snprintf(why, sizeof(why), "the client's sink of %" PRIu32 " bytes cannot take "
                     "the %" PRIu32 "-byte ping", info.size, n);
            fail(r, q, why);
            return;
        }
        if (post(q, RS_RC_WR_RDMA_WRITE, DATA_OFF, n, &info, err) < 0) {
            snprintf(why, sizeof(why), "the WRITE into the client's buffer: %s", err);
            fail(r, q, why);
            return;
        }
        p->state = RPING_WRITING;
    } else if (p->state != RPING_FAILED) {
        fail(r, q, p->state == RPING_READING
                       ? "a buffer advertisement while our READ was under way: the client "
                         "did not wait for the go-ahead"
                       : "a buffer advertisement while our WRITE was under way: the client "
                         "did not wait for the go-ahead");
    }
}

static void
go_ahead(struct rs_responder *r, struct resp_qp *q, enum rping_state next)
{
    char err[RS_ERRBUF_SIZE], why[RS_ERRBUF_SIZE + 32];

    if (post(q, RS_RC_WR_SEND, GO_AHEAD_OFF, RS_OOB_RPING_INFO_SIZE, NULL, err) < 0) {
        snprintf(why, sizeof(why), "the go-ahead: %s", err);
        fail(r, q, why);
        return;
    }
    q->rping->state = next;
}

/* The ping as rping -s -v prints it ("server ping data: ..."), as a JSON line. */
static void
print_ping(const struct rs_responder *r, const struct resp_qp *q)
{
    const struct resp_rping *p = q->rping;
    FILE *f = r->o.cm_out;

    if (f == NULL || r->o.wc_out == NULL)
        return;
    fprintf(f, "{\"rping\": \"ping\", \"id\": %" PRIu32 ", \"qpn\": %" PRIu32 ", \"ping\": %"
            PRIu64 ", \"data\": \"", q->cm_id, rs_rc_qp_num(q->qp), p->pings);
    rs_json_fput_text(f, (const char *)p->mem + DATA_OFF, p->source.size);
    fputs("\"}\n", f);
    fflush(f);
}

static const char *
step_name(enum rping_state s)
{
    return s == RPING_READING ? "the READ of the client's source buffer"
           : s == RPING_WRITING ? "the WRITE into the client's sink buffer"
                                : "a SEND";
}

void
resp_rping_wc(struct rs_responder *r, struct resp_qp *q, const struct rs_rc_wc *wc,
              const uint8_t *data)
{
    struct resp_rping *p = q->rping;
    char why[RS_ERRBUF_SIZE];

    if (p->state == RPING_FAILED)
        return;     /* what follows a failure (flushed work) says nothing new */
    if (wc->status != RS_RC_WC_SUCCESS) {
        const struct rs_oob_rping_info *b = p->state == RPING_WRITING ? &p->sink : &p->source;
        if (p->state == RPING_READING || p->state == RPING_WRITING)
            snprintf(why, sizeof(why), "%s (%" PRIu32 " bytes at %#" PRIx64 ", R_Key %#" PRIx32
                     ") failed: %s", step_name(p->state), b->size, b->buf, b->rkey,
                     rs_rc_wc_status_name(wc->status));
        else
            snprintf(why, sizeof(why), "a %s completed with %s",
                     rs_rc_wc_opcode_name(wc->opcode), rs_rc_wc_status_name(wc->status));
        fail(r, q, why);
        return;
    }
    switch (wc->opcode) {
    case RS_RC_WC_RECV:
        advertised(r, q, data, wc->byte_len);
        break;
    case RS_RC_WC_RDMA_READ:
        print_ping(r, q);
        go_ahead(r, q, RPING_WAIT_SINK);
        break;
    case RS_RC_WC_RDMA_WRITE:
        p->pings++;
        go_ahead(r, q, RPING_WAIT_SOURCE);
        break;
    default:
        break;      /* our go-aheads */
    }
}

int
resp_rping_start(struct rs_responder *r, struct resp_qp *q, char *err)
{
    struct resp_rping *p = calloc(1, sizeof(*p));

    if (p == NULL)
        return rs_error(err, RS_ENOMEM, "rping: out of memory");
    q->rping = p;
    p->mem = rs_rc_mem_alloc(REGION_SIZE);
    if (p->mem == NULL)
        return rs_error(err, RS_ENOMEM, "rping: out of memory for its buffer");
    if (rs_rc_mr_reg(r->ctx, p->mem, REGION_SIZE, 0, 0, RS_RC_ACCESS_LOCAL_WRITE, &p->mr,
                     err) < 0)
        return RS_ENOMEM;
    if (resp_post_recvs(r, q, RPING_RECVS, false, err) < RPING_RECVS)
        return RS_ENOMEM;
    return 0;
}

void
resp_rping_connected(struct rs_responder *r, struct resp_qp *q)
{
    q->rping->connected = true;
    if (q->rping->dreq_pending)
        send_dreq(r, q);
}

void
resp_rping_stop(struct rs_responder *r, struct resp_qp *q)
{
    struct resp_rping *p = q->rping;
    FILE *f = r->o.cm_out;

    if (p == NULL)
        return;
    /* A connection that never was (refused, or its REP unanswered) has
     * nothing to tell beyond the CM's own line. */
    if (f != NULL && (p->connected || p->state == RPING_FAILED)) {
        fprintf(f, "{\"rping\": \"%s\", \"id\": %" PRIu32 ", \"qpn\": %" PRIu32 ", \"pings\": %"
                PRIu64, p->state == RPING_FAILED ? "failed" : "done", q->cm_id,
                rs_rc_qp_num(q->qp), p->pings);
        if (p->state == RPING_FAILED) {
            fputs(", \"error\": \"", f);
            rs_json_fput_text(f, p->why, sizeof(p->why));
            fputc('"', f);
        }
        fputs("}\n", f);
        fflush(f);
    }
    if (p->mr.lkey != 0)
        rs_rc_mr_dereg(r->ctx, p->mr.lkey);
    rs_rc_mem_free(p->mem, REGION_SIZE);
    free(p);
    q->rping = NULL;
}
