/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cm_rc.c - the CM engine on the software RC transport's QP 1: the only
 * file of this folder that knows the transport, kept thin so that the
 * engine stays pure (no I/O, no clock) and testable on its own.
 */
#include <roceshark/transport/cm.h>
#include <roceshark/transport/rc.h>

static void
rc_send(void *arg, const uint8_t *gid, uint32_t qp, const uint8_t *mad)
{
    char err[RS_ERRBUF_SIZE];

    /* A MAD that cannot go (an IPv6 peer on the IPv4 port) is as lost as a
     * dropped one: the engine's retries and timeout report it. */
    rs_rc_gsi_send(arg, gid, qp, mad, RS_CM_MAD_LEN, err);
}

static void
rc_receive(void *arg, const uint8_t src_gid[16], uint32_t src_qp, const uint8_t *mad,
           uint32_t len, uint64_t now_ns)
{
    rs_cm_input(arg, src_gid, src_qp, mad, len, now_ns);
}

void
rs_cm_rc_attach(struct rs_cm *cm, struct rs_rc_ctx *ctx)
{
    rs_cm_set_sender(cm, rc_send, ctx);
    rs_rc_gsi_register(ctx, rc_receive, cm);
}
