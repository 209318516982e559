/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_client.c - a scriptable requester for the integration tests: it posts
 * the operations named on its command line over the UDP port, waits for
 * their completions and prints each as a JSON line, then the counters.
 *
 * usage: rc_client --bind IP --peer IP --peer-qpn N [--peer-psn N] [--qpn N]
 *                  [--psn N] [--pmtu N] [--timeout N] [--retry-cnt N]
 *                  [--rnr-retry N] [--max-rd-atomic N] [--ack-req-every N]
 *                  [--wait-ms N] [--serial] OP...
 * OP: send:LEN  send_imm:LEN:IMM  send_inv:LEN:RKEY  write:LEN:VA:RKEY
 *     write_imm:LEN:VA:RKEY:IMM  read:LEN:VA:RKEY  cas:VA:RKEY:COMPARE:SWAP
 *     faa:VA:RKEY:ADD     (numbers in decimal or 0x hex)
 * Data sent by op k is byte i = (i * 7 + k) & 0xff; a completion carries the
 * CRC-32 of the op's local buffer (what a READ brought back) and, for
 * atomics, the original value. --serial posts each op after the previous
 * one completed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/crc.h>
#include <roceshark/transport/rc.h>

#define MAX_OPS 256
#define SLOT (1u << 20)

struct op {
    struct rs_rc_send_wr wr;
    bool done;
};

static uint64_t
num(const char *s)
{
    return strtoull(s, NULL, 0);
}

static int
parse_op(const char *arg, unsigned k, struct op *op, const struct rs_rc_mr *mr, uint8_t *buf)
{
    char name[16];
    unsigned long long a[4] = {0, 0, 0, 0};
    const char *p = strchr(arg, ':');
    struct rs_rc_send_wr *wr = &op->wr;

    if (p == NULL || (size_t)(p - arg) >= sizeof(name))
        return -1;
    memcpy(name, arg, (size_t)(p - arg));
    name[p - arg] = '\0';
    int n = 0;
    for (; p != NULL && n < 4; n++) {
        a[n] = num(p + 1);
        p = strchr(p + 1, ':');
    }
    memset(wr, 0, sizeof(*wr));
    wr->wr_id = k;
    wr->flags = RS_RC_SEND_SIGNALED;
    wr->sge = (struct rs_rc_sge){mr->va + (uint64_t)k * SLOT, 0, mr->lkey};
    if (strcmp(name, "cas") == 0 || strcmp(name, "faa") == 0) {
        wr->opcode = name[0] == 'c' ? RS_RC_WR_ATOMIC_CMP_AND_SWP : RS_RC_WR_ATOMIC_FETCH_AND_ADD;
        wr->sge.length = 8;
        wr->remote_addr = a[0];
        wr->rkey = (uint32_t)a[1];
        wr->compare_add = a[2];
        wr->swap = a[3];
        return 0;
    }
    if (a[0] > SLOT)
        return -1;
    wr->sge.length = (uint32_t)a[0];
    for (uint32_t i = 0; i < wr->sge.length; i++)
        buf[(uint64_t)k * SLOT + i] = (uint8_t)(i * 7 + k);
    if (strcmp(name, "send") == 0) {
        wr->opcode = RS_RC_WR_SEND;
    } else if (strcmp(name, "send_imm") == 0) {
        wr->opcode = RS_RC_WR_SEND_WITH_IMM;
        wr->imm = (uint32_t)a[1];
    } else if (strcmp(name, "send_inv") == 0) {
        wr->opcode = RS_RC_WR_SEND_WITH_INV;
        wr->invalidate_rkey = (uint32_t)a[1];
    } else if (strcmp(name, "write") == 0 || strcmp(name, "write_imm") == 0 ||
               strcmp(name, "read") == 0) {
        wr->opcode = name[0] == 'r' ? RS_RC_WR_RDMA_READ
                     : name[5] == '_' ? RS_RC_WR_RDMA_WRITE_WITH_IMM
                                      : RS_RC_WR_RDMA_WRITE;
        wr->remote_addr = a[1];
        wr->rkey = (uint32_t)a[2];
        wr->imm = (uint32_t)a[3];
        if (wr->opcode == RS_RC_WR_RDMA_READ)
            memset(buf + (uint64_t)k * SLOT, 0, wr->sge.length);
    } else {
        return -1;
    }
    return 0;
}

static void
print_wc(const struct rs_rc_wc *wc, const struct op *ops, const uint8_t *buf)
{
    const struct op *op = &ops[wc->wr_id];
    const uint8_t *local = buf + wc->wr_id * SLOT;

    printf("{\"wr_id\": %" PRIu64 ", \"status\": \"%s\", \"opcode\": \"%s\", \"byte_len\": %u"
           ", \"crc32\": %u",
           wc->wr_id, rs_rc_wc_status_name(wc->status), rs_rc_wc_opcode_name(wc->opcode),
           wc->byte_len, rs_crc32(local, op->wr.sge.length));
    if (op->wr.opcode == RS_RC_WR_ATOMIC_CMP_AND_SWP ||
        op->wr.opcode == RS_RC_WR_ATOMIC_FETCH_AND_ADD) {
        uint64_t orig;
        memcpy(&orig, local, 8);
        printf(", \"orig\": %" PRIu64, orig);
    }
    printf("}\n");
    fflush(stdout);
}

int
main(int argc, char **argv)
{
    static struct op ops[MAX_OPS];
    struct rs_rc_udp_opts uo;
    struct rs_rc_ctx_opts co;
    struct rs_rc_qp_attr attr;
    struct rs_rc_udp *udp;
    struct rs_rc_ctx *ctx;
    struct rs_rc_qp *qp;
    struct rs_rc_mr mr;
    char err[RS_ERRBUF_SIZE];
    unsigned n_ops = 0, done = 0, posted = 0;
    uint64_t wait_ms = 5000;
    bool serial = false;
    const char *ops_arg[MAX_OPS];

    rs_rc_udp_opts_init(&uo);
    rs_rc_ctx_opts_init(&co);
    rs_rc_qp_attr_init(&attr);
    attr.qpn = 0x11;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "0";
        if (strcmp(a, "--bind") == 0 && rs_addr_parse(v, uo.gid, &uo.scope, NULL) == 0) {
            memcpy(co.local_gid, uo.gid, 16);
        } else if (strcmp(a, "--peer") == 0 && rs_addr_parse(v, attr.peer_gid, NULL, NULL) == 0) {
        } else if (strcmp(a, "--peer-qpn") == 0) {
            attr.dest_qpn = (uint32_t)num(v);
        } else if (strcmp(a, "--peer-psn") == 0) {
            attr.rq_psn = (uint32_t)num(v);
        } else if (strcmp(a, "--qpn") == 0) {
            attr.qpn = (uint32_t)num(v);
        } else if (strcmp(a, "--psn") == 0) {
            attr.sq_psn = (uint32_t)num(v);
        } else if (strcmp(a, "--pmtu") == 0) {
            attr.pmtu = (uint32_t)num(v);
        } else if (strcmp(a, "--timeout") == 0) {
            attr.timeout = (uint8_t)num(v);
        } else if (strcmp(a, "--retry-cnt") == 0) {
            attr.retry_cnt = (uint8_t)num(v);
        } else if (strcmp(a, "--rnr-retry") == 0) {
            attr.rnr_retry = (uint8_t)num(v);
        } else if (strcmp(a, "--max-rd-atomic") == 0) {
            attr.max_rd_atomic = (uint8_t)num(v);
        } else if (strcmp(a, "--ack-req-every") == 0) {
            attr.ack_req_every = (uint32_t)num(v);
        } else if (strcmp(a, "--wait-ms") == 0) {
            wait_ms = num(v);
        } else if (strcmp(a, "--serial") == 0) {
            serial = true;
            continue;
        } else if (a[0] != '-' && n_ops < MAX_OPS) {
            ops_arg[n_ops++] = a;
            continue;
        } else {
            fprintf(stderr, "rc_client: bad argument %s\n", a);
            return 1;
        }
        i++;
    }
    uint8_t *buf = calloc(MAX_OPS, SLOT);
    if (buf == NULL || rs_rc_udp_open(&udp, &uo, err) < 0) {
        fprintf(stderr, "rc_client: %s\n", buf == NULL ? "out of memory" : err);
        return 1;
    }
    co.verify_icrc = rs_rc_udp_checks_icrc(udp);
    if (rs_rc_ctx_create(&ctx, &co, rs_rc_udp_link(udp), err) < 0 ||
        rs_rc_mr_reg(ctx, buf, (uint64_t)MAX_OPS * SLOT, 0, 0, RS_RC_ACCESS_LOCAL_WRITE, &mr,
                     err) < 0 ||
        rs_rc_qp_create(ctx, &attr, &qp, err) < 0) {
        fprintf(stderr, "rc_client: %s\n", err);
        return 1;
    }
    for (unsigned k = 0; k < n_ops; k++) {
        if (parse_op(ops_arg[k], k, &ops[k], &mr, buf) < 0) {
            fprintf(stderr, "rc_client: bad operation %s\n", ops_arg[k]);
            return 1;
        }
    }
    uint64_t end = rs_rc_now_ns() + wait_ms * 1000000ull;
    while (done < n_ops && rs_rc_now_ns() < end) {
        while (posted < n_ops && (!serial || posted == done)) {
            if (rs_rc_post_send(qp, &ops[posted].wr, err) < 0) {
                fprintf(stderr, "rc_client: %s\n", err);
                return 1;
            }
            posted++;
        }
        if (rs_rc_udp_poll(udp, ctx, 1000000, err) < 0) {
            fprintf(stderr, "rc_client: %s\n", err);
            return 1;
        }
        struct rs_rc_wc wc[16];
        int n = rs_rc_poll_cq(qp, wc, 16);
        for (int i = 0; i < n; i++) {
            print_wc(&wc[i], ops, buf);
            done++;
        }
    }
    const struct rs_rc_counters *c = rs_rc_counters_get(ctx);
    printf("{\"counters\": {");
    for (unsigned i = 0; i < rs_rc_n_counter_names; i++)
        printf("%s\"%s\": %" PRIu64, i ? ", " : "", rs_rc_counter_names[i].name,
               *(const uint64_t *)((const char *)c + rs_rc_counter_names[i].offset));
    printf("}, \"state\": \"%s\", \"completed\": %u}\n",
           rs_rc_qp_state(qp) == RS_RC_QP_RTS ? "RTS" : "ERROR", done);
    rs_rc_ctx_destroy(ctx);
    rs_rc_udp_close(udp);
    free(buf);
    return 0;
}
