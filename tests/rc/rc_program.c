/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_program.c - one fuzz input against the receive path of the RC
 * transport: the header checks, the responder and the completer
 * (rc_program.h).
 *
 * Each input is read as a program of packets. A packet starts from a valid
 * request or response built by the encoder (so that most of them get past
 * the ICRC and reach the state machines), with fields steered towards the
 * edges that matter: PSNs around the expected one, R_Keys of every region
 * and of none, VAs at region boundaries and near 2^64, lengths around the
 * PMTU and 2^31. Then its bytes are flipped, the packet is cut or grown,
 * and its ICRC is usually fixed again. Memory safety is checked three ways:
 * AddressSanitizer sees any access outside an allocation and any access to
 * the guards around every region, which it holds poisoned; the guard bytes
 * must never change; and regions that grant no remote write (a read-only
 * one, a local-only one) must keep their contents. Every packet the
 * transport sends must decode as RoCEv2 with a good ICRC.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/encode.h>
#include <roceshark/dissectors/ib_headers.h>
#include <roceshark/transport/rc.h>
#include <roceshark/dissectors/wire.h>

#include "rc_program.h"

#include "../sanitizer.h"
#ifdef HAVE_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define GUARD 4096
#define GUARD_BYTE 0xa5
#define PMTU 256
#define N_REGIONS 5

struct region {
    uint64_t size;
    unsigned access;
    uint8_t *mem;           /* GUARD bytes, size bytes, GUARD bytes */
    uint8_t *snapshot;      /* contents that must not change, or NULL */
    struct rs_rc_mr mr;
};

static const uint8_t local_ip[4] = {10, 0, 0, 1}, peer_ip[4] = {10, 0, 0, 2};
static const uint8_t local_gid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1};
static const uint8_t peer_gid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 2};

static struct rc_program_totals total;

static struct {
    struct rs_rc_ctx *ctx;
    struct rs_rc_qp *qp[2];
    struct region reg[N_REGIONS];
    uint8_t txbuf[RS_RC_MAX_PACKET];
    uint64_t now;
    uint64_t sent, bad_sent, packets, reached_resp;
    uint32_t expected[2];   /* the PSN each QP seems to expect, learnt from its replies */
} F;

static uint8_t *
fuzz_tx_buf(void *arg)
{
    (void)arg;
    return F.txbuf;
}

/* Everything the transport sends must be a well-formed RoCEv2 packet. */
static void
fuzz_tx_send(void *arg, uint32_t len)
{
    struct rs_frame frame = {.data = F.txbuf, .caplen = len, .len = len,
                             .linktype = RS_DLT_IPV4};
    struct rs_decode_opts opts;
    struct rs_packet pkt;

    (void)arg;
    rs_decode_opts_init(&opts);
    rs_decode_frame(&frame, &opts, &pkt);
    F.sent++;
    if (pkt.encap != RS_ENCAP_ROCEV2 || (pkt.flags & RS_PKT_MALFORMED) ||
        pkt.icrc_status != RS_CKSUM_GOOD) {
        fprintf(stderr, "rc_fuzz: the transport sent a bad packet (%s)\n",
                pkt.problem != NULL ? pkt.problem : "ICRC");
        abort();
    }
    /* Steer later packets to the PSN the responder expects: a sequence NAK
     * names it, an ACK or the last response acknowledges the one before. */
    const uint8_t *bth = F.txbuf + pkt.span[RS_LAYER_BTH].off;
    uint32_t qi = rs_bth_destqp(bth) - 0x22, psn = rs_bth_psn(bth);
    if (qi < 2 && rs_packet_has(&pkt, RS_LAYER_AETH)) {
        uint8_t syn = rs_aeth_syndrome(F.txbuf + pkt.span[RS_LAYER_AETH].off);
        if (syn == 0x60)
            F.expected[qi] = psn;
        else if (rs_aeth_kind(syn) == RS_AETH_ACK && pkt.opcode != 0x0d)
            F.expected[qi] = (psn + 1) & 0xffffff;
    }
}

static void
region_init(struct region *r, uint64_t size, unsigned access, bool frozen, uint64_t va,
            uint32_t rkey)
{
    r->size = size;
    r->access = access;
    r->mem = malloc(size + 2 * GUARD);
    if (r->mem == NULL)
        abort();
    memset(r->mem, GUARD_BYTE, GUARD);
    memset(r->mem + GUARD + size, GUARD_BYTE, GUARD);
    for (uint64_t i = 0; i < size; i++)
        r->mem[GUARD + i] = (uint8_t)(i * 13 + 1);
    r->snapshot = NULL;
    if (frozen) {
        r->snapshot = malloc(size);
        if (r->snapshot == NULL)
            abort();
        memcpy(r->snapshot, r->mem + GUARD, size);
    }
    if (rs_rc_mr_reg(F.ctx, r->mem + GUARD, size, va, rkey, access, &r->mr, NULL) < 0)
        abort();
    /* Under ASan any read or write of a guard is reported where it happens;
     * without, check_regions() finds the writes. */
    POISON(r->mem, GUARD);
    POISON(r->mem + GUARD + size, GUARD);
}

static void
check_regions(void)
{
    for (int i = 0; i < N_REGIONS; i++) {
        struct region *r = &F.reg[i];
        UNPOISON(r->mem, GUARD);
        UNPOISON(r->mem + GUARD + r->size, GUARD);
        for (uint64_t k = 0; k < GUARD; k++) {
            if (r->mem[k] != GUARD_BYTE || r->mem[GUARD + r->size + k] != GUARD_BYTE) {
                fprintf(stderr, "rc_fuzz: a guard of region %d changed\n", i);
                abort();
            }
        }
        POISON(r->mem, GUARD);
        POISON(r->mem + GUARD + r->size, GUARD);
        if (r->snapshot != NULL && memcmp(r->snapshot, r->mem + GUARD, r->size) != 0) {
            fprintf(stderr, "rc_fuzz: region %d without remote write changed\n", i);
            abort();
        }
    }
}

static void
make_qp(int i)
{
    struct rs_rc_qp_attr a;

    rs_rc_qp_attr_init(&a);
    a.pmtu = PMTU;
    memcpy(a.peer_gid, peer_gid, 16);
    a.max_dest_rd_atomic = 4;
    a.max_rd_atomic = 4;
    a.sq_depth = a.rq_depth = 16;
    a.timeout = 10;
    a.qpn = 0x11 + (uint32_t)i;
    a.dest_qpn = 0x22 + (uint32_t)i;
    if (rs_rc_qp_create(F.ctx, &a, &F.qp[i], NULL) < 0)
        abort();
}

/* An error class moves a QP to the error state, where it drops everything:
 * start it over, so that the rest of the input reaches a live QP. */
static void
revive_qps(void)
{
    for (int i = 0; i < 2; i++) {
        if (rs_rc_qp_state(F.qp[i]) == RS_RC_QP_ERROR) {
            rs_rc_qp_destroy(F.qp[i]);
            make_qp(i);
            F.expected[i] = 0;
        }
    }
}

static void
setup(void)
{
    struct rs_rc_ctx_opts o;
    struct rs_rc_link link = {fuzz_tx_buf, fuzz_tx_send, NULL};

    memset(&F, 0, sizeof(F));
    F.now = 1000000;
    rs_rc_ctx_opts_init(&o);
    memcpy(o.local_gid, local_gid, 16);
    if (rs_rc_ctx_create(&F.ctx, &o, &link, NULL) < 0)
        abort();
    /* 0: all remote access; 1: remote read only; 2: local only; 3: may be
     * invalidated; 4: receive buffers and the requester's local buffers. */
    region_init(&F.reg[0], 8192, RS_RC_ACCESS_LOCAL_WRITE | RS_RC_ACCESS_REMOTE_ALL, false,
                0x10000, 0x100);
    region_init(&F.reg[1], 4096, RS_RC_ACCESS_REMOTE_READ, true, 0x20000, 0x200);
    region_init(&F.reg[2], 4096, RS_RC_ACCESS_LOCAL_WRITE, true, 0x30000, 0x300);
    region_init(&F.reg[3], 4096, RS_RC_ACCESS_REMOTE_ALL | RS_RC_ACCESS_REMOTE_INVALIDATE,
                false, 0xffffffffffffe000ull, 0x400);
    region_init(&F.reg[4], 65536, RS_RC_ACCESS_LOCAL_WRITE, false, 0x50000, 0x500);
    for (int i = 0; i < 2; i++)
        make_qp(i);
}

static void
teardown(void)
{
    const struct rs_rc_counters *c = rs_rc_counters_get(F.ctx);

    total.packets += c->rx_packets;
    total.executed += c->exec_send + c->exec_write + c->exec_read + c->exec_atomic;
    total.naks += c->nak_invalid_request + c->nak_remote_access + c->nak_remote_op +
                  c->nak_psn_seq + c->rnr_nak;
    total.icrc_drops += c->drop_icrc;
    total.responses += c->dup_response + c->ghost_response + c->bad_response;
    if (getenv("RC_FUZZ_COUNTERS") != NULL)
        for (unsigned i = 0; i < rs_rc_n_counter_names; i++)
            total.by_name[i] += *(const uint64_t *)((const char *)c +
                                                    rs_rc_counter_names[i].offset);
    rs_rc_ctx_destroy(F.ctx);
    for (int i = 0; i < N_REGIONS; i++) {
        UNPOISON(F.reg[i].mem, F.reg[i].size + 2 * GUARD);
        free(F.reg[i].mem);
        free(F.reg[i].snapshot);
    }
}

/* A cursor over the input; past its end it reads zeros. */
struct input {
    const uint8_t *p;
    size_t n, at;
};

static uint64_t
take(struct input *in, unsigned bytes)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < bytes; i++)
        v = v << 8 | (in->at < in->n ? in->p[in->at++] : 0);
    return v;
}

static const uint8_t opcodes[] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d,
    0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x81, 0x24, 0x15, 0x18, 0x1f,
};

static uint32_t
pick_rkey(uint8_t sel)
{
    switch (sel % 7) {
    case 0:
    case 1:
        return F.reg[0].mr.rkey;
    case 2:
        return F.reg[1].mr.rkey;
    case 3:
        return F.reg[2].mr.rkey;
    case 4:
        return F.reg[3].mr.rkey;
    case 5:
        return F.reg[4].mr.rkey;
    default:
        return 0xdead0000u | sel;
    }
}

/* A VA near the interesting places of the region r names. */
static uint64_t
pick_va(uint8_t sel, uint16_t off, int reg)
{
    const struct rs_rc_mr *m = &F.reg[reg].mr;

    switch (sel % 6) {
    case 0:
        return m->va + off % (m->length + 1);
    case 1:
        return m->va + m->length - off % 64;
    case 2:
        return m->va - off % 64;
    case 3:
        return UINT64_MAX - off;
    case 4:
        return m->va + (off & ~7u) % m->length;
    default:
        return (uint64_t)off << 20;
    }
}

static uint32_t
pick_len(uint8_t sel, uint16_t v)
{
    static const uint32_t edges[] = {0, 1, 3, 4, PMTU - 1, PMTU, PMTU + 1, 2 * PMTU,
                                     0x80000000u, 0x80000001u, 0xffffffffu, 8};
    return sel & 1 ? edges[(sel >> 1) % 12] : v % (3 * PMTU);
}

/* One packet from the input: a template, steered fields, then damage. */
static void
one_packet(struct input *in)
{
    static uint8_t buf[RS_RC_MAX_PACKET + 64], payload[4 * PMTU];
    struct rs_ib_fields f;
    struct rs_roce_route r;
    uint8_t sel = (uint8_t)take(in, 1);
    struct rs_rc_qp *qp = F.qp[sel >> 7];
    uint32_t expected = F.expected[sel >> 7];
    int reg = (int)(take(in, 1) % 5);

    memset(&f, 0, sizeof(f));
    f.opcode = opcodes[sel % sizeof(opcodes)];
    f.pkey = take(in, 1) == 0xff ? 0x1234 : 0xffff;
    f.dest_qp = rs_rc_qp_num(qp);
    uint8_t psnsel = (uint8_t)take(in, 1);
    /* The QP expects its peer's PSN 0 first; stay near it and near the wrap. */
    f.psn = psnsel < 180   ? (expected + psnsel % 4 + 0xffffff) & 0xffffff
            : psnsel < 230 ? psnsel % 16
                           : (uint32_t)take(in, 3);
    f.ackreq = take(in, 1) & 1;
    uint32_t len = pick_len((uint8_t)take(in, 1), (uint16_t)take(in, 2));
    f.reth.rkey = f.atomic.rkey = f.ieth_rkey = pick_rkey((uint8_t)take(in, 1));
    f.reth.va = f.atomic.va = pick_va((uint8_t)take(in, 1), (uint16_t)take(in, 2), reg);
    f.reth.len = pick_len((uint8_t)take(in, 1), (uint16_t)take(in, 2));
    f.atomic.swap_add = take(in, 8);
    f.atomic.compare = take(in, 8);
    f.aeth.syndrome = (uint8_t)take(in, 1);
    f.aeth.msn = (uint32_t)take(in, 3);
    f.atomic_ack_orig = take(in, 8);
    f.imm = (uint32_t)take(in, 4);
    if (!(rs_ib_opcode_info(f.opcode)->hdrs & RS_HDR_PAYLOAD) || len > sizeof(payload))
        len = len > sizeof(payload) ? PMTU : 0;
    uint8_t edge = (uint8_t)take(in, 1);
    if (edge < 60) {
        /* Right at a region's end: a range one byte too long, exactly long
         * enough, or one short; an atomic straddling the end. */
        const struct rs_rc_mr *m = &F.reg[reg].mr;
        uint32_t room = 1 + edge % (PMTU - 1);
        f.reth.va = m->va + m->length - room;
        f.reth.len = room + (uint32_t)(edge % 3) - 1;
        f.reth.rkey = f.atomic.rkey = m->rkey;
        f.atomic.va = m->va + m->length - 8 + (edge % 3) * 4;
        len = f.reth.len <= PMTU ? f.reth.len : PMTU;
    } else if (edge < 140) {
        /* A coherent request, so that execution (and memory) is reached
         * often, not only the checks: lengths that add up, a region that
         * allows the access, a VA inside it. */
        const struct rs_rc_mr *m = &F.reg[reg == 1 || reg == 2 ? 0 : reg].mr;
        len = len > PMTU ? PMTU : len;
        f.reth.rkey = f.atomic.rkey = m->rkey;
        f.reth.len = f.opcode == 0x0c ? len * 3 : len;
        f.reth.va = m->va + (len * 7u) % (m->length - 3 * PMTU);
        f.atomic.va = m->va + ((uint64_t)len * 8) % m->length;
    }
    for (uint32_t i = 0; i < len; i++)
        payload[i] = (uint8_t)(i + sel);

    memset(&r, 0, sizeof(r));
    r.family = 4;
    memcpy(r.src, take(in, 1) == 0x42 ? local_ip : peer_ip, 4);
    memcpy(r.dst, local_ip, 4);
    r.sport = 49152;
    r.dport = RS_ROCEV2_UDP_PORT;
    r.tos = (uint8_t)(take(in, 1) & 3);
    r.ttl = 64;
    r.ip_id = (uint16_t)take(in, 2);
    r.df = true;
    uint32_t n = rs_encode_rocev2(buf, RS_RC_MAX_PACKET, &r, &f, payload, len, NULL, NULL);
    if (n == 0)
        return;

    /* Damage: byte flips anywhere, a changed length, then usually a fixed ICRC. */
    uint8_t damage = (uint8_t)take(in, 1);
    unsigned flips = damage < 160 ? 0 : damage % 4;
    for (unsigned i = 0; i < flips; i++) {
        uint16_t at = (uint16_t)take(in, 2);
        buf[at % n] ^= (uint8_t)take(in, 1);
    }
    uint8_t cut = (uint8_t)take(in, 1);
    if (cut < 16 && n > cut)
        n -= cut;
    else if (cut > 250)
        n += cut - 250;     /* trailing bytes past the IP length */
    if (take(in, 1) < 230)
        rs_encode_fix_icrc(buf, n);
    F.packets++;
    F.now += 1000 * (take(in, 1) % 64);
    rs_rc_input(F.ctx, buf, n, F.now);
}

/* Work for the completer to match fuzzed responses against. */
static void
post_work(struct input *in)
{
    struct rs_rc_qp *qp = F.qp[1];
    const struct rs_rc_mr *local = &F.reg[4].mr;
    struct rs_rc_send_wr wr;
    struct rs_rc_recv_wr rwr;
    uint8_t k = (uint8_t)take(in, 1);

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = k;
    wr.flags = RS_RC_SEND_SIGNALED;
    wr.sge = (struct rs_rc_sge){local->va + (uint64_t)(k % 8) * 4096, 1 + k * 23u % 2000,
                                local->lkey};
    static const uint8_t ops[] = {RS_RC_WR_RDMA_READ, RS_RC_WR_RDMA_WRITE, RS_RC_WR_SEND,
                                  RS_RC_WR_ATOMIC_FETCH_AND_ADD};
    wr.opcode = ops[k % 4];
    if (wr.opcode == RS_RC_WR_ATOMIC_FETCH_AND_ADD)
        wr.sge.length = 8;
    wr.remote_addr = 0x1000;
    wr.rkey = 7;
    rs_rc_post_send(qp, &wr, NULL);
    for (int i = 0; i < 2; i++) {
        rwr.wr_id = k;
        rwr.sge = (struct rs_rc_sge){local->va + 32768 + (uint64_t)(k % 4) * 4096,
                                     k & 1 ? 4096u : 100u, (k % 16) == 3 ? 0xbad : local->lkey};
        rs_rc_post_recv(F.qp[i], &rwr, NULL);
    }
}

void
rc_program_run(const uint8_t *data, size_t size)
{
    struct input in = {data, size, 0};
    struct rs_rc_wc wc[32];

    setup();
    for (int step = 0; step < 64 && in.at < in.n; step++) {
        if (take(&in, 1) < 40)
            post_work(&in);
        one_packet(&in);
        rs_rc_progress(F.ctx, F.now);
        for (int i = 0; i < 2; i++) {
            int got;
            while ((got = rs_rc_poll_cq(F.qp[i], wc, 32)) > 0)
                total.completions += (uint64_t)got;
        }
        check_regions();
        revive_qps();
    }
    F.now += 100000000;     /* let every timer fire */
    rs_rc_progress(F.ctx, F.now);
    check_regions();
    teardown();
}

const struct rc_program_totals *
rc_program_totals(void)
{
    return &total;
}
