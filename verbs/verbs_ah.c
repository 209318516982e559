/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_ah.c - address handles: where a UD SEND goes (ibv_create_ah), and the way
 * back to the sender of a received one (ibv_init_ah_from_wc, ibv_create_ah_from_wc).
 *
 * On RoCE an address handle is global: the GRH's destination GID is the peer's
 * address, its source GID index the address we send from, which must be one of our
 * RoCE v2 entries with a port here. A received UD SEND leaves its network header in
 * the first 40 bytes of the buffer (rc_ud.c): an IPv6 header, or 20 zero bytes and an
 * IPv4 header; the way back swaps its addresses and finds our address's RoCE v2 index.
 * libibverbs would do that too, but its own ibv_init_ah_from_wc() asks the device's
 * sysfs for GID types, which these devices do not have.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/addr.h>

#include "verbs_int.h"

struct ibv_ah *
ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
    struct vb_context *c = vb_ctx(pd->context);
    struct vb_ah *ah = calloc(1, sizeof(*ah));
    char text[RS_ADDR_TEXT_MAX];

    if (ah == NULL) {
        vb_fail(ENOMEM, "ibv_create_ah: out of memory");
        return NULL;
    }
    int rc = 0;
    if (!attr->is_global || attr->port_num != 1)
        rc = vb_fail(EINVAL, "ibv_create_ah(%s): RoCE needs a global address (is_global, "
                     "a GRH) on port 1", c->dev->ibdev.name);
    pthread_mutex_lock(&c->port->lock);
    if (rc == 0)
        rc = vb_gid_source(c->port, attr->grh.sgid_index, ah->sgid);
    if (rc == 0 && rs_addr_family(ah->sgid) != rs_addr_family(attr->grh.dgid.raw))
        rc = vb_fail(EINVAL, "ibv_create_ah(%s): %s is not of the IP version of GID index %u",
                     c->dev->ibdev.name,
                     rs_addr_format(attr->grh.dgid.raw, 0, text, sizeof(text)),
                     attr->grh.sgid_index);
    if (rc == 0)
        vb_pd(pd)->users++;
    pthread_mutex_unlock(&c->port->lock);
    if (rc != 0) {
        free(ah);
        errno = rc;
        return NULL;
    }
    ah->attr = *attr;
    ah->ah.context = pd->context;
    ah->ah.pd = pd;
    return &ah->ah;
}

int
ibv_destroy_ah(struct ibv_ah *ibah)
{
    struct vb_ah *ah = VB_CONTAINER(ibah, struct vb_ah, ah);
    struct vb_context *c = vb_ctx(ibah->context);

    pthread_mutex_lock(&c->port->lock);
    vb_pd(ibah->pd)->users--;
    pthread_mutex_unlock(&c->port->lock);
    free(ah);
    return 0;
}

int
vb_ud_dest(struct ibv_ah *ibah, uint32_t qpn, uint32_t qkey, struct rs_rc_ud_dest *d)
{
    const struct vb_ah *ah = VB_CONTAINER(ibah, struct vb_ah, ah);

    memset(d, 0, sizeof(*d));
    memcpy(d->gid, ah->attr.grh.dgid.raw, 16);
    memcpy(d->local_gid, ah->sgid, 16);
    d->qpn = qpn;
    d->qkey = qkey;
    d->flow_label = ah->attr.grh.flow_label;
    d->tclass = ah->attr.grh.traffic_class;
    d->hop_limit = ah->attr.grh.hop_limit;
    return 0;
}

/* The index of our RoCE v2 entry for gid; -1 when there is none. */
static int
v2_index(const struct vb_device *d, const uint8_t gid[16])
{
    for (unsigned i = 0; i < d->n_gids; i++)
        if (d->gids[i].type == VB_GID_ROCE_V2 && memcmp(d->gids[i].raw, gid, 16) == 0)
            return (int)i;
    return -1;
}

int
ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port, struct ibv_wc *wc,
                    struct ibv_grh *grh, struct ibv_ah_attr *attr)
{
    const struct vb_device *d = vb_ctx(context)->dev;
    const uint8_t *h = (const uint8_t *)grh;
    uint8_t src[16], dst[16];

    memset(attr, 0, sizeof(*attr));
    attr->dlid = wc->slid;
    attr->sl = wc->sl;
    attr->port_num = port;
    if (!(wc->wc_flags & IBV_WC_GRH)) {
        vb_fail(EINVAL, "ibv_init_ah_from_wc: the completion has no GRH (RoCE always "
                "gives one)");
        return -1;
    }
    attr->is_global = 1;
    if (h[0] >> 4 == 6) {
        memcpy(src, h + 8, 16);
        memcpy(dst, h + 24, 16);
        uint32_t vtf = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
        attr->grh.flow_label = vtf & 0xfffff;
        attr->grh.traffic_class = (uint8_t)(vtf >> 20);
        attr->grh.hop_limit = h[7];
    } else if (h[20] >> 4 == 4) {
        rs_addr_from_ipv4(h + 20 + 12, src);
        rs_addr_from_ipv4(h + 20 + 16, dst);
        attr->grh.traffic_class = h[21];
        attr->grh.hop_limit = h[20 + 8];
    } else {
        vb_fail(EPROTONOSUPPORT, "ibv_init_ah_from_wc: the 40 bytes before the payload "
                "hold neither an IPv6 nor an IPv4 header");
        return -1;
    }
    int i = v2_index(d, dst);
    if (i < 0) {
        vb_fail(EINVAL, "ibv_init_ah_from_wc(%s): the packet's destination is no RoCE v2 "
                "GID of the port", d->ibdev.name);
        return -1;
    }
    memcpy(attr->grh.dgid.raw, src, 16);
    attr->grh.sgid_index = (uint8_t)i;
    return 0;
}

struct ibv_ah *
ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh, uint8_t port)
{
    struct ibv_ah_attr attr;

    if (ibv_init_ah_from_wc(pd->context, port, wc, grh, &attr) != 0)
        return NULL;
    return ibv_create_ah(pd, &attr);
}
