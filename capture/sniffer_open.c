/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sniffer_open.c - activating an RDMA sniffer: a raw-packet QP fed by an
 * IBV_FLOW_ATTR_SNIFFER flow, which sees every frame of the port, offloaded
 * RoCE included (which never reaches the kernel, so libpcap cannot see it).
 *
 * Resources are acquired in one order (device, completion channel, PD, MR,
 * CQ, QP, flow) and released in the reverse one by verbs_teardown(), from
 * every failure and from close. The device is opened before the device
 * list is freed: the list owns the struct ibv_device we open.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "sniffer_int.h"
#include "sniffer_sys.h"

#define SLOT_ALIGN 64u

void
verbs_teardown(struct verbs_source *vs)
{
    if (vs->flow != NULL)
        rs_vsys_destroy_flow(vs->flow);
    if (vs->qp != NULL)
        ibv_destroy_qp(vs->qp);
    if (vs->cq != NULL) {
        /* ibv_destroy_cq waits for every event it handed out to be acked. */
        if (vs->unacked > 0)
            ibv_ack_cq_events(ibv_cq_ex_to_cq(vs->cq), vs->unacked);
        ibv_destroy_cq(ibv_cq_ex_to_cq(vs->cq));
    }
    if (vs->mr != NULL)
        ibv_dereg_mr(vs->mr);
    if (vs->pd != NULL)
        ibv_dealloc_pd(vs->pd);
    if (vs->channel != NULL)
        ibv_destroy_comp_channel(vs->channel);
    if (vs->ctx != NULL)
        ibv_close_device(vs->ctx);
    if (vs->break_fd >= 0)
        close(vs->break_fd);
    free(vs->buf);
    free(vs->wr);
    free(vs->sge);
    free(vs->repost);
    vs->flow = NULL, vs->qp = NULL, vs->cq = NULL, vs->mr = NULL, vs->pd = NULL;
    vs->channel = NULL, vs->ctx = NULL, vs->buf = NULL, vs->wr = NULL, vs->sge = NULL;
    vs->repost = NULL, vs->break_fd = -1, vs->unacked = 0;
}

static int
perm_error(const char *dev, char *err)
{
    return rs_error_permission(err, dev, "a sniffer QP needs CAP_NET_RAW");
}

/* Finds the device and opens it; "no kernel support" and "no device" get
 * their own codes and messages, as libpcap's rdmasniff does. */
static int
open_device(struct rs_source *src, const char *dev, struct verbs_source *vs, char *err)
{
    int n = 0, rc = 0;
    struct ibv_device **list;
    char names[160] = "";
    size_t len = 0;

    errno = 0;
    list = rs_vsys_get_device_list(&n);
    if (list == NULL) {
        if (errno == ENOSYS || errno == 0)
            return rs_error(err, RS_ENOTSUP, "%s: no such RDMA device: this kernel has no "
                            "RDMA support (load ib_uverbs and the NIC's RDMA driver, e.g. "
                            "mlx5_ib)", dev);
        if (errno == EPERM || errno == EACCES)
            return perm_error(dev, err);
        if (errno == ELIBACC)
            return rs_error(err, RS_ENOTSUP, "%s: capture from an RDMA device needs "
                            "libibverbs, which cannot be loaded", dev);
        return rs_error(err, RS_EIO, "%s: listing RDMA devices: %s", dev, strerror(errno));
    }
    struct ibv_device *found = NULL;
    for (int i = 0; i < n; i++) {
        const char *name = ibv_get_device_name(list[i]);
        if (name != NULL && strcmp(name, dev) == 0)
            found = list[i];
        if (name != NULL && len + 1 < sizeof(names)) {
            int w = snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "", name);
            if (w > 0 && (size_t)w < sizeof(names) - len)
                len += (size_t)w;
        }
    }
    if (found == NULL) {
        rc = rs_error(err, RS_ENOENT, "%s: no such RDMA device (%s%s)", dev,
                      n > 0 ? "devices: " : "no RDMA devices on this machine", names);
    } else {
        vs->ctx = ibv_open_device(found);
        if (vs->ctx == NULL)
            rc = errno == EPERM || errno == EACCES ? perm_error(dev, err) :
                 rs_error(err, RS_EIO, "%s: opening: %s", dev, strerror(errno));
    }
    ibv_free_device_list(list);
    (void)src;
    return rc;
}

/* Port, link layer, clock and queue limits. */
static int
query_device(struct rs_source *src, struct verbs_source *vs, struct ibv_device_attr_ex *attr,
             char *err)
{
    struct ibv_port_attr port;
    int e;

    memset(attr, 0, sizeof(*attr));
    if ((e = rs_vsys_query_device_ex(vs->ctx, attr)) != 0)
        return rs_error(err, RS_EIO, "%s: querying the device: %s", src->name, strerror(e));
    if (vs->port == 0 || vs->port > attr->orig_attr.phys_port_cnt)
        return rs_error(err, RS_ENOENT, "%s: no port %u (the device has %u)", src->name,
                        vs->port, attr->orig_attr.phys_port_cnt);
    memset(&port, 0, sizeof(port));
    if ((e = rs_vsys_query_port(vs->ctx, vs->port, &port)) != 0)
        return rs_error(err, RS_EIO, "%s: querying port %u: %s", src->name, vs->port,
                        strerror(e));
    vs->ib_link = port.link_layer != IBV_LINK_LAYER_ETHERNET;
    return 0;
}

/* A CQ with the best clock the device offers: the NIC's real-time clock,
 * else its free-running counter, else none (the host's clock). */
static int
create_cq(struct rs_source *src, struct verbs_source *vs, const struct ibv_device_attr_ex *dev,
          char *err)
{
    static const uint64_t ts_flags[] = {
        IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
        IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
        0
    };
    static const enum verbs_clock clocks[] = {
        VERBS_CLOCK_WALLCLOCK, VERBS_CLOCK_RAW, VERBS_CLOCK_SYSTEM
    };

    for (size_t i = 0; i < RS_ARRAY_SIZE(ts_flags); i++) {
        if (clocks[i] == VERBS_CLOCK_RAW && dev->hca_core_clock == 0)
            continue;
        if (clocks[i] != VERBS_CLOCK_SYSTEM && dev->completion_timestamp_mask == 0)
            continue;
        struct ibv_cq_init_attr_ex attr = {
            .cqe = vs->slots,
            .channel = vs->channel,
            .wc_flags = IBV_WC_EX_WITH_BYTE_LEN | ts_flags[i],
        };
        errno = 0;
        vs->cq = rs_vsys_create_cq_ex(vs->ctx, &attr);
        if (vs->cq != NULL) {
            vs->clock = clocks[i];
            vs->core_clock_khz = dev->hca_core_clock;
            vs->ts_mask = dev->completion_timestamp_mask;
            return 0;
        }
        if (errno != EOPNOTSUPP && errno != EINVAL)
            break;
    }
    return rs_error(err, RS_EIO, "%s: creating the completion queue: %s", src->name,
                    strerror(errno != 0 ? errno : EIO));
}

static int
create_qp(struct rs_source *src, struct verbs_source *vs, char *err)
{
    struct ibv_qp_init_attr attr = {
        .send_cq = ibv_cq_ex_to_cq(vs->cq),
        .recv_cq = ibv_cq_ex_to_cq(vs->cq),
        .cap = {.max_recv_wr = vs->slots, .max_recv_sge = 1},
        .qp_type = IBV_QPT_RAW_PACKET,
    };
    struct ibv_qp_attr mod = {.qp_state = IBV_QPS_INIT, .port_num = vs->port};
    int e;

    errno = 0;
    vs->qp = ibv_create_qp(vs->pd, &attr);
    if (vs->qp == NULL) {
        e = errno;
        if (e == EPERM || e == EACCES)
            return perm_error(src->name, err);
        if (e == EOPNOTSUPP || e == EINVAL || e == ENXIO)
            return rs_error(err, RS_ENOTSUP, "%s: port %u: no raw packet QP support (%s)%s",
                            src->name, vs->port, strerror(e), vs->ib_link ?
                            "; InfiniBand ports need a NIC that sniffs IB" : "");
        return rs_error(err, RS_EIO, "%s: creating the QP: %s", src->name, strerror(e));
    }
    if ((e = ibv_modify_qp(vs->qp, &mod, IBV_QP_STATE | IBV_QP_PORT)) != 0)
        return rs_error(err, RS_EIO, "%s: QP to INIT: %s", src->name, strerror(e));
    mod.qp_state = IBV_QPS_RTR;
    if ((e = ibv_modify_qp(vs->qp, &mod, IBV_QP_STATE)) != 0)
        return rs_error(err, RS_EIO, "%s: QP to RTR: %s", src->name, strerror(e));
    return 0;
}

static int
create_flow(struct rs_source *src, struct verbs_source *vs, char *err)
{
    struct ibv_flow_attr attr = {
        .type = IBV_FLOW_ATTR_SNIFFER,
        .size = sizeof(attr),
        .num_of_specs = 0,
        .port = vs->port,
    };

    errno = 0;
    vs->flow = rs_vsys_create_flow(vs->qp, &attr);
    if (vs->flow != NULL)
        return 0;
    int e = errno != 0 ? errno : EOPNOTSUPP;
    if (e == EPERM || e == EACCES)
        return perm_error(src->name, err);
    if (e == ENXIO || e == EOPNOTSUPP)
        return rs_error(err, RS_ENOTSUP, "%s: no sniffer support in the device or its firmware "
                        "(%s); enable flow steering (mlx4_core log_num_mgm_entry_size=-1) or "
                        "update the firmware", src->name, strerror(e));
    return rs_error(err, RS_EIO, "%s: creating the sniffer flow: %s", src->name, strerror(e));
}

/* Sizes the ring from -B and the snapshot length, within the device's limits. */
static int
size_ring(struct rs_source *src, struct verbs_source *vs, const struct rs_live_opts *opts,
          const struct ibv_device_attr_ex *dev, char *err)
{
    unsigned mb = opts->buffer_mb != 0 ? opts->buffer_mb : RS_CAPTURE_BUFFER_MB;
    uint64_t slots;

    src->snaplen = opts->snaplen != 0 ? opts->snaplen : RS_CAPTURE_VERBS_SNAPLEN;
    /* A receive buffer holds a whole frame, and an ERF record counts 16 bits of length. */
    if (src->snaplen > 0xffff - VERBS_ERF_HDR)
        return rs_error(err, RS_EINVAL, "-s %u: a sniffer QP's receive buffers hold at most "
                        "%u bytes", src->snaplen, 0xffff - VERBS_ERF_HDR);
    vs->recv_len = src->snaplen;
    vs->slot_size = (VERBS_ERF_HDR + vs->recv_len + SLOT_ALIGN - 1) & ~(SLOT_ALIGN - 1);
    slots = ((uint64_t)mb << 20) / vs->slot_size;
    if (dev->orig_attr.max_qp_wr > 0 && slots > (uint64_t)dev->orig_attr.max_qp_wr)
        slots = (uint64_t)dev->orig_attr.max_qp_wr;
    if (dev->orig_attr.max_cqe > 0 && slots > (uint64_t)dev->orig_attr.max_cqe)
        slots = (uint64_t)dev->orig_attr.max_cqe;
    if (slots < VERBS_MIN_SLOTS)
        return rs_error(err, RS_EINVAL, "%s: -B %u MiB holds %llu receive buffers of %u bytes; "
                        "at least %u are needed", src->name, mb, (unsigned long long)slots,
                        vs->slot_size, VERBS_MIN_SLOTS);
    vs->slots = (uint32_t)slots;
    vs->repost_batch = vs->slots / 4 < VERBS_REPOST_BATCH ? vs->slots / 4 : VERBS_REPOST_BATCH;
    vs->buf = aligned_alloc(4096, ((size_t)vs->slots * vs->slot_size + 4095) & ~(size_t)4095);
    vs->wr = calloc(vs->slots, sizeof(*vs->wr));
    vs->sge = calloc(vs->slots, sizeof(*vs->sge));
    vs->repost = calloc(vs->slots, sizeof(*vs->repost));
    if (vs->buf == NULL || vs->wr == NULL || vs->sge == NULL || vs->repost == NULL)
        return rs_error(err, RS_ENOMEM, "%s: out of memory for %u receive buffers", src->name,
                        vs->slots);
    return 0;
}

static void
prepare_ring(struct verbs_source *vs)
{
    for (uint32_t i = 0; i < vs->slots; i++) {
        vs->sge[i].addr = (uintptr_t)(vs->buf + (size_t)i * vs->slot_size + VERBS_ERF_HDR);
        vs->sge[i].length = vs->recv_len;
        vs->sge[i].lkey = vs->mr->lkey;
        vs->wr[i].wr_id = i;
        vs->wr[i].sg_list = &vs->sge[i];
        vs->wr[i].num_sge = 1;
    }
}

/* The port's out_of_buffer counter counts frames the NIC dropped for want of
 * a posted receive buffer: the drops of our ring. */
static void
start_counters(struct rs_source *src, struct verbs_source *vs)
{
    snprintf(vs->oob_path, sizeof(vs->oob_path),
             "/sys/class/infiniband/%s/ports/%u/hw_counters/out_of_buffer", src->name, vs->port);
    if (!verbs_read_counter(vs->oob_path, &vs->oob_base))
        vs->oob_path[0] = '\0';
}

int
source_verbs_activate(struct rs_source *src, const struct rs_live_opts *opts, char *err)
{
    struct verbs_source *vs = src->priv;
    struct ibv_device_attr_ex dev;
    int rc, e;

    if (opts->filter != NULL)
        return rs_error(err, RS_EINVAL, "-f: capture filters apply to network interfaces, "
                        "not to RDMA devices (the sniffer takes every frame of the port)");
    vs->break_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (vs->break_fd < 0)
        return rs_error(err, RS_EIO, "%s: eventfd: %s", src->name, strerror(errno));
    if ((rc = open_device(src, src->name, vs, err)) != 0 ||
        (rc = query_device(src, vs, &dev, err)) != 0 ||
        (rc = size_ring(src, vs, opts, &dev, err)) != 0)
        goto fail;
    vs->channel = ibv_create_comp_channel(vs->ctx);
    if (vs->channel == NULL) {
        rc = rs_error(err, RS_EIO, "%s: completion channel: %s", src->name, strerror(errno));
        goto fail;
    }
    fcntl(vs->channel->fd, F_SETFL, fcntl(vs->channel->fd, F_GETFL) | O_NONBLOCK);
    vs->pd = ibv_alloc_pd(vs->ctx);
    if (vs->pd == NULL) {
        rc = rs_error(err, RS_EIO, "%s: protection domain: %s", src->name, strerror(errno));
        goto fail;
    }
    vs->mr = rs_vsys_reg_mr(vs->pd, vs->buf, (size_t)vs->slots * vs->slot_size,
                            IBV_ACCESS_LOCAL_WRITE);
    if (vs->mr == NULL) {
        rc = rs_error(err, RS_EIO, "%s: registering %u receive buffers: %s", src->name,
                      vs->slots, strerror(errno));
        goto fail;
    }
    prepare_ring(vs);
    if ((rc = create_cq(src, vs, &dev, err)) != 0 || (rc = create_qp(src, vs, err)) != 0 ||
        (rc = verbs_post_all(src, err)) != 0 || (rc = create_flow(src, vs, err)) != 0)
        goto fail;
    if ((e = rs_vsys_req_notify_cq(ibv_cq_ex_to_cq(vs->cq), 0)) != 0) {
        rc = rs_error(err, RS_EIO, "%s: arming the completion queue: %s", src->name,
                      strerror(e));
        goto fail;
    }
    vs->armed = true;
    vs->held = -1;
    vs->report_idle = opts->idle_ms != 0;
    vs->idle_ms = opts->idle_ms != 0 ? (int)opts->idle_ms : -1;
    start_counters(src, vs);
    src->linktype = vs->ib_link ? RS_DLT_ERF : RS_DLT_EN10MB;
    src->ts_hardware = vs->clock != VERBS_CLOCK_SYSTEM;
    src->ts_digits = 9;
    src->ops = &verbs_ops;
    return 0;

fail:
    verbs_teardown(vs);
    return rc;
}

int
rs_source_create_rdma(const char *spec, struct rs_source **out, char *err)
{
    char name[RS_IFACE_NAME_MAX];
    const char *colon = strchr(spec, ':');
    unsigned long port = 1;
    struct verbs_source *vs;
    int rc;

    if (colon != NULL) {
        char *end;
        errno = 0;
        port = strtoul(colon + 1, &end, 10);
        if (errno != 0 || *end != '\0' || end == colon + 1 || port == 0 || port > 255)
            return rs_error(err, RS_EINVAL, "-d %s: expected DEV or DEV:PORT (port 1-255)",
                            spec);
    }
    size_t len = colon != NULL ? (size_t)(colon - spec) : strlen(spec);
    if (len == 0 || len >= sizeof(name))
        return rs_error(err, RS_EINVAL, "-d %s: bad device name", spec);
    memcpy(name, spec, len);
    name[len] = '\0';
    if ((rc = source_create(name, out, err)) != 0)
        return rc;
    vs = calloc(1, sizeof(*vs));
    if (vs == NULL) {
        rs_source_close(*out);
        return rs_error(err, RS_ENOMEM, "%s: out of memory", name);
    }
    vs->break_fd = -1;
    vs->port = (uint8_t)port;
    (*out)->priv = vs;
    (*out)->activate = source_verbs_activate;
    return 0;
}
