/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sniffer_list.c - the RDMA devices, their ports, link layers and states.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "source_int.h"
#include "sniffer_sys.h"

static const char *
link_layer_name(uint8_t ll)
{
    return ll == IBV_LINK_LAYER_ETHERNET ? "ethernet" : "infiniband";
}

static void
describe_device(struct ibv_device *dev, struct rs_rdma_dev *out)
{
    struct ibv_device_attr_ex attr;
    struct ibv_context *ctx;

    memset(out, 0, sizeof(*out));
    snprintf(out->name, sizeof(out->name), "%s", ibv_get_device_name(dev));
    ctx = ibv_open_device(dev);
    if (ctx == NULL) {
        snprintf(out->fw, sizeof(out->fw), "(cannot open: %s)", strerror(errno));
        return;
    }
    memset(&attr, 0, sizeof(attr));
    if (rs_vsys_query_device_ex(ctx, &attr) == 0) {
        snprintf(out->fw, sizeof(out->fw), "%s", attr.orig_attr.fw_ver);
        for (unsigned p = 1; p <= attr.orig_attr.phys_port_cnt && out->n_ports < RS_RDMA_PORT_MAX;
             p++) {
            struct ibv_port_attr pa;
            memset(&pa, 0, sizeof(pa));
            if (rs_vsys_query_port(ctx, (uint8_t)p, &pa) != 0)
                continue;
            struct rs_rdma_port *port = &out->ports[out->n_ports++];
            port->num = p;
            snprintf(port->link, sizeof(port->link), "%s", link_layer_name(pa.link_layer));
            snprintf(port->state, sizeof(port->state), "%s", ibv_port_state_str(pa.state));
            port->mtu = 128u << pa.active_mtu;
        }
    }
    ibv_close_device(ctx);
}

int
rs_capture_list_rdma(struct rs_rdma_dev *out, size_t max, size_t *n, char *note, char *err)
{
    int count = 0;
    struct ibv_device **list;

    *n = 0;
    errno = 0;
    list = rs_vsys_get_device_list(&count);
    if (list == NULL) {
        if (errno == ENOSYS || errno == 0) {
            rs_error(note, 0, "no RDMA support in the kernel (no ib_uverbs)");
            return 0;
        }
        if (errno == ELIBACC) {
            rs_error(note, 0, "no RDMA devices listed: libibverbs cannot be loaded");
            return 0;
        }
        return rs_error(err, RS_EIO, "listing RDMA devices: %s", strerror(errno));
    }
    for (int i = 0; i < count && *n < max; i++)
        describe_device(list[i], &out[(*n)++]);
    ibv_free_device_list(list);
    if (*n == 0)
        rs_error(note, 0, "no RDMA devices");
    return 0;
}
