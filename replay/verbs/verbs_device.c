/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_device.c - the devices and what is asked of them: the list (from
 * ROCESHARK_VERBS_DEVICES), opening and closing, and the device, port, GID
 * and P_Key queries.
 *
 * Each device has one port, ACTIVE, with an Ethernet link layer, as a RoCE
 * NIC shows it; its GID table holds one entry, the device's address as a
 * RoCEv2 GID (an IPv4 address IPv4-mapped, as rxe and NICs show it).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <roceshark/addr.h>

#include "verbs_int.h"

/* libibverbs' private enum ibv_gid_type_sysfs (its driver.h, not installed). */
enum { VB_GID_TYPE_SYSFS_ROCE_V2 = 1 };

static struct vb_device devices[VB_MAX_DEVICES];
static int n_devices;
static pthread_once_t devices_once = PTHREAD_ONCE_INIT;

int
vb_devices_parse(const char *spec, struct vb_device *out, int max)
{
    char buf[1024], err[RS_ERRBUF_SIZE];
    int n = 0;

    if (spec == NULL || strlen(spec) >= sizeof(buf))
        return 0;
    snprintf(buf, sizeof(buf), "%s", spec);
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item != NULL && n < max;
         item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (eq == NULL || eq == item || (size_t)(eq - item) >= IBV_SYSFS_NAME_MAX)
            continue;
        *eq = '\0';
        struct vb_device *d = &out[n];
        memset(d, 0, sizeof(*d));
        if (rs_addr_parse(eq + 1, d->gid, &d->scope, err) < 0)
            continue;
        bool dup = false;
        for (int i = 0; i < n; i++)
            dup |= strcmp(out[i].ibdev.name, item) == 0;
        if (dup)
            continue;
        d->ibdev.node_type = IBV_NODE_CA;
        d->ibdev.transport_type = IBV_TRANSPORT_IB;
        snprintf(d->ibdev.name, sizeof(d->ibdev.name), "%s", item);
        snprintf(d->ibdev.dev_name, sizeof(d->ibdev.dev_name), "uverbs-%s", item);
        /* No sysfs behind these: paths that name nothing, so reads fail cleanly. */
        snprintf(d->ibdev.dev_path, sizeof(d->ibdev.dev_path), "/nonexistent/roceshark/%s",
                 item);
        snprintf(d->ibdev.ibdev_path, sizeof(d->ibdev.ibdev_path), "/nonexistent/roceshark/%s",
                 item);
        /* A modified EUI-64 from the address's last three bytes, as a NIC's
         * GUID comes from its MAC: 02:00:00:ff:fe:xx:yy:zz. */
        uint8_t g[8] = {0x02, 0x00, 0x00, 0xff, 0xfe, d->gid[13], d->gid[14], d->gid[15]};
        memcpy(&d->guid, g, 8);
        n++;
    }
    return n;
}

static void
devices_load(void)
{
    n_devices = vb_devices_parse(getenv(VB_ENV_DEVICES), devices, VB_MAX_DEVICES);
    for (int i = 0; i < n_devices; i++) {
        struct vb_port *p = &devices[i].port;
        pthread_mutex_init(&p->lock, NULL);
        pthread_mutex_init(&p->open_lock, NULL);
        p->dev = &devices[i];
        p->next_qpn = 0x11;
        p->wake_fd = -1;
    }
}

struct vb_device *
vb_devices(int *n)
{
    pthread_once(&devices_once, devices_load);
    *n = n_devices;
    return devices;
}

/* As libibverbs: NULL-terminated, and with no device an empty list, not NULL. */
struct ibv_device **
ibv_get_device_list(int *num)
{
    pthread_once(&devices_once, devices_load);
    struct ibv_device **list = calloc((size_t)n_devices + 1, sizeof(*list));
    if (list == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    for (int i = 0; i < n_devices; i++)
        list[i] = &devices[i].ibdev;
    if (num != NULL)
        *num = n_devices;
    return list;
}

void
ibv_free_device_list(struct ibv_device **list)
{
    free(list);     /* the devices themselves live as long as the process */
}

const char *
ibv_get_device_name(struct ibv_device *device)
{
    return device->name;
}

__be64
ibv_get_device_guid(struct ibv_device *device)
{
    return VB_CONTAINER(device, struct vb_device, ibdev)->guid;
}

int
ibv_get_device_index(struct ibv_device *device)
{
    return (int)(VB_CONTAINER(device, struct vb_device, ibdev) - devices);
}

int
vb_device_gid_index(const struct vb_device *d, const uint8_t gid[16])
{
    return memcmp(d->gid, gid, 16) == 0 ? 0 : -1;
}

static int vb_query_port(struct ibv_context *context, uint8_t port, struct ibv_port_attr *attr,
                         size_t size);

struct ibv_context *
ibv_open_device(struct ibv_device *device)
{
    struct vb_context *c = calloc(1, sizeof(*c));

    if (c == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    /* No asynchronous event ever comes; the descriptor is there to be polled. */
    int async_fd = eventfd(0, EFD_CLOEXEC);
    if (async_fd < 0) {
        free(c);
        return NULL;
    }
    c->dev = VB_CONTAINER(device, struct vb_device, ibdev);
    c->port = &c->dev->port;
    pthread_mutex_init(&c->pd_lock, NULL);
    struct ibv_context *ctx = &c->vctx.context;
    ctx->device = device;
    ctx->cmd_fd = -1;
    ctx->async_fd = async_fd;
    ctx->num_comp_vectors = 1;
    pthread_mutex_init(&ctx->mutex, NULL);
    ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
    ctx->ops.poll_cq = vb_poll_cq;
    ctx->ops.req_notify_cq = vb_req_notify_cq;
    ctx->ops.post_send = vb_post_send;
    ctx->ops.post_recv = vb_post_recv;
    /* Left NULL, so that the inlines fail with EOPNOTSUPP: memory windows,
     * SRQs, device memory, XRC, WQs, flows, extended CQs, counters. */
    c->vctx.query_port = vb_query_port;
    vb_qp_ops_init(&c->vctx);
    c->vctx.sz = sizeof(c->vctx);
    return ctx;
}

int
ibv_close_device(struct ibv_context *context)
{
    struct vb_context *c = vb_ctx(context);

    if (c->holds_port)
        vb_port_release(c->port);
    close(context->async_fd);
    pthread_mutex_destroy(&c->pd_lock);
    pthread_mutex_destroy(&context->mutex);
    free(c);
    return 0;
}

int
ibv_query_device(struct ibv_context *context, struct ibv_device_attr *a)
{
    struct vb_device *d = vb_ctx(context)->dev;

    memset(a, 0, sizeof(*a));
    snprintf(a->fw_ver, sizeof(a->fw_ver), "roceshark");
    a->node_guid = d->guid;
    a->sys_image_guid = d->guid;
    a->max_mr_size = 1ull << 31;    /* the largest DMA length (C9-94) */
    a->page_size_cap = 0xfffff000;
    a->vendor_id = 0xffffff;        /* none, as rxe says */
    a->hw_ver = 0;
    a->max_qp = 4096;
    a->max_qp_wr = VB_MAX_QP_WR;
    a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_PORT_ACTIVE_EVENT |
                          IBV_DEVICE_SYS_IMAGE_GUID;
    a->max_sge = 1;
    a->max_sge_rd = 1;
    a->max_cq = 4096;
    a->max_cqe = VB_MAX_CQE;
    a->max_mr = 255;                /* what one RC context registers */
    a->max_pd = 4096;
    a->max_qp_rd_atom = VB_MAX_RD_ATOMIC;
    a->max_res_rd_atom = VB_MAX_RD_ATOMIC * 4096;
    a->max_qp_init_rd_atom = VB_MAX_RD_ATOMIC;
    a->atomic_cap = IBV_ATOMIC_HCA;
    a->max_pkeys = 1;
    a->local_ca_ack_delay = 15;
    a->phys_port_cnt = 1;
    return 0;
}

uint32_t
vb_active_mtu(const struct vb_device *dev)
{
    uint32_t if_mtu;
    char err[RS_ERRBUF_SIZE];

    return rs_rc_if_mtu(dev->gid, dev->scope, &if_mtu, err) == 0 ? rs_rc_mtu_for_if(if_mtu)
                                                                  : 1024;
}

/* 256..4096 bytes as enum ibv_mtu (1..5). */
static enum ibv_mtu
mtu_enum(uint32_t bytes)
{
    enum ibv_mtu e = IBV_MTU_256;

    while (e < IBV_MTU_4096 && (128u << e) < bytes)
        e++;
    return e;
}

/* The port as rxe shows it: max_mtu 4096, active_mtu from the interface's MTU. */
static void
port_attr(struct ibv_port_attr *a, const struct vb_device *dev)
{
    memset(a, 0, sizeof(*a));
    a->state = IBV_PORT_ACTIVE;
    a->max_mtu = VB_PORT_MTU;
    a->active_mtu = mtu_enum(vb_active_mtu(dev));
    a->gid_tbl_len = 1;
    a->port_cap_flags = IBV_PORT_CM_SUP;
    a->max_msg_sz = 1u << 31;
    a->pkey_tbl_len = 1;
    a->max_vl_num = 1;
    a->active_width = 2;            /* 4X */
    a->active_speed = 1;            /* SDR: nothing to promise */
    a->phys_state = 5;              /* LinkUp */
    a->link_layer = IBV_LINK_LAYER_ETHERNET;
}

static int
vb_query_port(struct ibv_context *context, uint8_t port, struct ibv_port_attr *attr,
              size_t size)
{
    struct ibv_port_attr a;

    if (port != 1)
        return EINVAL;
    port_attr(&a, vb_ctx(context)->dev);
    memcpy(attr, &a, size < sizeof(a) ? size : sizeof(a));
    return 0;
}

/* The exported one has the layout before port_cap_flags2 (libibverbs'
 * struct _compat_ibv_port_attr): fill no more than that. */
int
ibv_query_port(struct ibv_context *context, uint8_t port, struct _compat_ibv_port_attr *attr)
{
    return vb_query_port(context, port, (struct ibv_port_attr *)(void *)attr,
                         offsetof(struct ibv_port_attr, port_cap_flags2));
}

int
ibv_query_gid(struct ibv_context *context, uint8_t port, int index, union ibv_gid *gid)
{
    if (port != 1 || index != 0)
        return -1;
    memcpy(gid->raw, vb_ctx(context)->dev->gid, 16);
    return 0;
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port, uint32_t index,
                      struct ibv_gid_entry *entry, uint32_t flags, size_t size);
int
_ibv_query_gid_ex(struct ibv_context *context, uint32_t port, uint32_t index,
                  struct ibv_gid_entry *entry, uint32_t flags, size_t size)
{
    struct ibv_gid_entry e;

    if (flags != 0 || size < offsetof(struct ibv_gid_entry, ndev_ifindex))
        return EINVAL;
    if (port != 1 || index != 0)
        return ENODATA;
    memset(&e, 0, sizeof(e));
    memcpy(e.gid.raw, vb_ctx(context)->dev->gid, 16);
    e.gid_index = index;
    e.port_num = port;
    e.gid_type = IBV_GID_TYPE_ROCE_V2;
    e.ndev_ifindex = vb_ctx(context)->dev->scope;
    memcpy(entry, &e, size < sizeof(e) ? size : sizeof(e));
    return 0;
}

ssize_t _ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries,
                             size_t max, uint32_t flags, size_t size);
ssize_t
_ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries, size_t max,
                     uint32_t flags, size_t size)
{
    if (max < 1)
        return -EINVAL;
    int rc = _ibv_query_gid_ex(context, 1, 0, entries, flags, size);
    return rc != 0 ? -rc : 1;
}

/* libibverbs' private export, which ibv_devinfo calls: enum ibv_gid_type_sysfs. */
int ibv_query_gid_type(struct ibv_context *context, uint8_t port, unsigned index, int *type);
int
ibv_query_gid_type(struct ibv_context *context, uint8_t port, unsigned index, int *type)
{
    (void)context;
    if (port != 1 || index != 0)
        return -1;
    *type = VB_GID_TYPE_SYSFS_ROCE_V2;
    return 0;
}

int
ibv_query_pkey(struct ibv_context *context, uint8_t port, int index, __be16 *pkey)
{
    (void)context;
    if (port != 1 || index != 0)
        return -1;
    *pkey = htons(0xffff);
    return 0;
}

int
ibv_get_pkey_index(struct ibv_context *context, uint8_t port, __be16 pkey)
{
    (void)context;
    return port == 1 && (ntohs(pkey) & 0x7fff) == 0x7fff ? 0 : -1;
}

/* ibv_devinfo reads board_id from sysfs: these devices have none. */
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);
int
ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
    (void)dir;
    (void)file;
    (void)buf;
    (void)size;
    errno = ENOENT;
    return -1;
}
