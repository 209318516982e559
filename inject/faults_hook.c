/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faults_hook.c - the fault engine in the RC transport's UDP port (see faults.h): the
 * one adapter between struct rs_rc_hook and the engine, for the commands that take
 * --faults and for scenario scripts, which also record what was on the wire.
 */
#include <roceshark/inject/faults.h>
#include <roceshark/dissectors/packet.h>

/* What the engine lets go: on to the port, and (tx) to the recorder as it leaves. */
static void
hook_emit(void *arg, enum rs_fault_dir dir, const uint8_t *pkt, uint32_t len)
{
    struct rs_faults_hook *h = arg;

    if (dir == RS_FAULT_TX && h->wire != NULL)
        h->wire(h->ctx, false, pkt, len, rs_rc_now_ns());
    h->pass(h->port, dir == RS_FAULT_RX, pkt, len);
}

static void
hook_packet(void *arg, bool rx, const uint8_t *pkt, uint32_t len, uint64_t now,
            rs_rc_pass_fn pass, void *port)
{
    struct rs_faults_hook *h = arg;

    h->pass = pass;
    h->port = port;
    if (rx && h->wire != NULL)
        h->wire(h->ctx, true, pkt, len, now);   /* as it came off the wire: before the faults */
    if (h->faults == NULL) {
        hook_emit(h, rx ? RS_FAULT_RX : RS_FAULT_TX, pkt, len);
        return;
    }
    rs_faults_packet(h->faults, rx ? RS_FAULT_RX : RS_FAULT_TX, RS_DLT_IPV4, pkt, len, now,
                     hook_emit, h);
}

static uint64_t
hook_poll(void *arg, uint64_t now, rs_rc_pass_fn pass, void *port)
{
    struct rs_faults_hook *h = arg;

    h->pass = pass;
    h->port = port;
    /* RS_FAULTS_NEVER is RS_RC_INFINITE */
    return h->faults != NULL ? rs_faults_poll(h->faults, now, hook_emit, h) : RS_RC_INFINITE;
}

/* A QP of ours connected: whom an injected NAK or CNP answers. */
static void
hook_connected(void *arg, const uint8_t local_gid[16], uint32_t qpn, const uint8_t peer_gid[16],
               uint32_t peer_qpn)
{
    struct rs_faults_hook *h = arg;

    if (h->connected != NULL)
        h->connected(h->ctx, qpn);
    if (h->faults != NULL) {
        rs_faults_own_qp(h->faults, qpn);
        rs_faults_pair(h->faults, local_gid, qpn, peer_gid, peer_qpn);
    }
}

const struct rs_rc_hook *
rs_faults_hook_init(struct rs_faults_hook *h, struct rs_faults *faults)
{
    *h = (struct rs_faults_hook){.faults = faults};
    h->hook = (struct rs_rc_hook){hook_packet, hook_poll, h, hook_connected};
    return &h->hook;
}
