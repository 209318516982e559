/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_device.c - the devices and what is asked of them: the list (from
 * ROCESHARK_VERBS_DEVICES), opening and closing, and the device, port and
 * P_Key queries (the GID table is verbs_gid.c's).
 *
 * A device is named after an address of this host (rs0=127.0.0.2) or after an
 * interface (rxe0=veth0, as `rdma link add rxe0 type rxe netdev veth0` names
 * one). Each has one port with an Ethernet link layer, as a RoCE NIC shows it,
 * ACTIVE while its interface is up and running.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <roceshark/dissectors/addr.h>

#include "verbs_int.h"

static struct vb_device devices[VB_MAX_DEVICES];
static int n_devices;
static pthread_once_t devices_once = PTHREAD_ONCE_INIT;

/* A NIC's GUID comes from its MAC (a modified EUI-64, as rxe makes it); a device named
 * after an address takes the address's last three bytes instead, so that two devices
 * on the one loopback interface differ: 02:00:00:ff:fe:xx:yy:zz. */
static void
set_guid(struct vb_device *d)
{
    const uint8_t *m = d->netdev.mac;
    uint8_t g[8] = {0x02, 0x00, 0x00, 0xff, 0xfe, d->gid[13], d->gid[14], d->gid[15]};

    if (d->by_netdev) {
        uint8_t e[8] = {(uint8_t)(m[0] ^ 0x02), m[1], m[2], 0xff, 0xfe, m[3], m[4], m[5]};
        memcpy(g, e, 8);
    }
    memcpy(&d->guid, g, 8);
}

/* The device's address or interface, from what follows '=': false when it is
 * neither an address nor an interface of this host. */
static bool
set_source(struct vb_device *d, const char *what)
{
    char err[RS_ERRBUF_SIZE];

    if (rs_addr_parse(what, d->gid, &d->scope, err) == 0) {
        /* An address no interface holds still makes a device: opening its port says
         * why it cannot work, as a NIC that is down would. */
        vb_netdev_lookup(NULL, d->gid, &d->netdev);
        d->n_gids = vb_gid_table_build(&d->netdev, d->gid, d->gids, VB_MAX_GIDS);
        return true;
    }
    if (!vb_netdev_lookup(what, NULL, &d->netdev))
        return false;
    d->by_netdev = true;
    d->n_gids = vb_gid_table_build(&d->netdev, NULL, d->gids, VB_MAX_GIDS);
    /* The RDMA CM speaks from one address of a device: an interface's first (IPv4
     * before IPv6), else its link-local GID (the only entries with a scope). */
    const struct vb_gid *main_gid = NULL;
    for (unsigned i = 0; i < d->n_gids; i++)
        if (d->gids[i].type == VB_GID_ROCE_V2 &&
            (main_gid == NULL || (main_gid->scope != 0 && d->gids[i].scope == 0)))
            main_gid = &d->gids[i];
    if (main_gid != NULL) {
        memcpy(d->gid, main_gid->raw, 16);
        d->scope = main_gid->scope;
    }
    return true;
}

int
vb_devices_parse(const char *spec, struct vb_device *out, int max)
{
    char buf[1024];
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
        if (!set_source(d, eq + 1))
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
        set_guid(d);
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
        vb_mutex_init_pi(&p->lock);
        pthread_mutex_init(&p->open_lock, NULL);
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&p->completed, &ca);
        pthread_condattr_destroy(&ca);
        p->dev = &devices[i];
        p->next_qpn = 0x11;
        p->wake_fd = -1;
        for (unsigned g = 0; g < VB_MAX_GIDS; g++)
            p->gid_link[g] = -1;
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
    for (unsigned i = 0; i < d->n_gids; i++)
        if (d->gids[i].type == VB_GID_ROCE_V2 && memcmp(d->gids[i].raw, gid, 16) == 0)
            return (int)i;
    return -1;
}

static int vb_query_port(struct ibv_context *context, uint8_t port, struct ibv_port_attr *attr,
                         size_t size);

struct ibv_context *
ibv_open_device(struct ibv_device *device)
{
    struct vb_context *c = calloc(1, sizeof(*c));

    if (c == NULL) {
        vb_fail(ENOMEM, "ibv_open_device: out of memory");
        return NULL;
    }
    c->dev = VB_CONTAINER(device, struct vb_device, ibdev);
    c->port = &c->dev->port;
    int rc = vb_async_open(c);
    if (rc != 0) {
        free(c);
        vb_fail(rc, "ibv_open_device(%s): %s", device->name, strerror(rc));
        return NULL;
    }
    pthread_mutex_init(&c->pd_lock, NULL);
    struct ibv_context *ctx = &c->vctx.context;
    ctx->device = device;
    ctx->cmd_fd = -1;
    ctx->num_comp_vectors = 1;
    pthread_mutex_init(&ctx->mutex, NULL);
    ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
    ctx->ops.poll_cq = vb_poll_cq;
    ctx->ops.req_notify_cq = vb_req_notify_cq;
    ctx->ops.post_send = vb_post_send;
    ctx->ops.post_recv = vb_post_recv;
    ctx->ops.post_srq_recv = vb_post_srq_recv;
    /* Left NULL, so that the inlines fail with EOPNOTSUPP: memory windows, device
     * memory, XRC, WQs, flows, extended CQs, counters. */
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
    vb_async_close(c);
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
    /* rxe has no firmware: its provider prints the kernel's zero version as 0.0.0. */
    snprintf(a->fw_ver, sizeof(a->fw_ver), "0.0.0");
    a->node_guid = d->guid;
    a->sys_image_guid = d->guid;
    a->max_mr_size = VB_MAX_MR_SIZE;
    a->page_size_cap = 0xfffff000;
    a->vendor_id = 0xffffff;        /* none, as rxe says */
    a->hw_ver = 0;
    a->max_qp = 4096;
    a->max_qp_wr = VB_MAX_QP_WR;
    a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_PORT_ACTIVE_EVENT |
                          IBV_DEVICE_SYS_IMAGE_GUID | IBV_DEVICE_SRQ_RESIZE |
                          IBV_DEVICE_UD_AV_PORT_ENFORCE;
    a->max_sge = VB_MAX_SGE;
    a->max_sge_rd = VB_MAX_SGE;
    a->max_cq = 4096;
    a->max_cqe = VB_MAX_CQE;
    a->max_mr = 256;                /* what one RC context registers */
    a->max_pd = 4096;
    a->max_qp_rd_atom = VB_MAX_RD_ATOMIC;
    a->max_res_rd_atom = VB_MAX_RD_ATOMIC * 4096;
    a->max_qp_init_rd_atom = VB_MAX_RD_ATOMIC;
    a->atomic_cap = IBV_ATOMIC_HCA;
    a->max_ah = 4096;
    a->max_srq = 1024;
    a->max_srq_wr = VB_MAX_QP_WR;
    a->max_srq_sge = VB_MAX_SGE;
    a->max_pkeys = 1;
    a->local_ca_ack_delay = 15;
    a->phys_port_cnt = 1;
    return 0;
}

/* Whether the port's interface is up with its carrier, as rxe's port follows its
 * netdev; a device on no interface of this host is down. */
bool
vb_port_up(const struct vb_device *d)
{
    struct ifreq ifr;

    if (d->netdev.name[0] == '\0')
        return false;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return true;    /* cannot tell: as it was */
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", d->netdev.name);
    int rc = ioctl(fd, SIOCGIFFLAGS, &ifr);
    close(fd);
    return rc < 0 || ((ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING));
}

uint32_t
vb_active_mtu(const struct vb_device *d)
{
    struct ifreq ifr;
    uint32_t if_mtu;
    char err[RS_ERRBUF_SIZE];

    if (!d->by_netdev)
        return rs_rc_if_mtu(d->gid, d->scope, &if_mtu, err) == 0 ? rs_rc_mtu_for_if(if_mtu)
                                                                 : 1024;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 1024;
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", d->netdev.name);
    int rc = ioctl(fd, SIOCGIFMTU, &ifr);
    close(fd);
    return rc == 0 && ifr.ifr_mtu > 0 ? rs_rc_mtu_for_if((uint32_t)ifr.ifr_mtu) : 1024;
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

/* The port as rxe shows it: max_mtu 4096, active_mtu from the interface's MTU, ACTIVE
 * while the interface is up and running. */
static void
port_attr(const struct vb_device *d, struct ibv_port_attr *a)
{
    bool up = vb_port_up(d);

    memset(a, 0, sizeof(*a));
    a->state = up ? IBV_PORT_ACTIVE : IBV_PORT_DOWN;
    a->max_mtu = VB_PORT_MTU;
    a->active_mtu = mtu_enum(vb_active_mtu(d));
    a->gid_tbl_len = (int)d->n_gids;
    a->port_cap_flags = IBV_PORT_CM_SUP;
    a->max_msg_sz = 1u << 31;
    a->pkey_tbl_len = 1;
    a->max_vl_num = 1;
    a->active_width = 2;            /* 4X */
    a->active_speed = 1;            /* SDR: nothing to promise */
    a->phys_state = up ? 5 : 3;     /* LinkUp, Disabled */
    a->link_layer = IBV_LINK_LAYER_ETHERNET;
}

static int
vb_query_port(struct ibv_context *context, uint8_t port, struct ibv_port_attr *attr,
              size_t size)
{
    struct ibv_port_attr a;

    if (port != 1)
        return vb_fail(EINVAL, "ibv_query_port: port %u: the device has port 1 only", port);
    port_attr(vb_ctx(context)->dev, &a);
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
