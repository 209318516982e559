/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_load.c - the verbs the sniffer QP calls, with libibverbs loaded at the first
 * of them rather than linked.
 *
 * Linked, libibverbs and the libnl it needs are loaded and their constructors run
 * (libnl-route's reads /etc/libnl/classid) at every start of every command, where only
 * the sniffer QP's capture and the device list use them. Each verb here forwards to
 * libibverbs' own; without libibverbs they fail as a verb fails, with ELIBACC. The
 * unit tests still replace these names at link time (-Wl,--wrap).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <infiniband/verbs.h>

#define LIBIBVERBS "libibverbs.so.1"

/* Each verb called, by name: the names verbs.h makes macros of are written (name). */
#define VERBS(X)                   \
    X(ibv_get_device_list)         \
    X(ibv_free_device_list)        \
    X(ibv_get_device_name)         \
    X(ibv_open_device)             \
    X(ibv_close_device)            \
    X(ibv_query_device)            \
    X(ibv_query_port)              \
    X(ibv_port_state_str)          \
    X(ibv_create_comp_channel)     \
    X(ibv_destroy_comp_channel)    \
    X(ibv_get_cq_event)            \
    X(ibv_ack_cq_events)           \
    X(ibv_alloc_pd)                \
    X(ibv_dealloc_pd)              \
    X(ibv_reg_mr_iova2)            \
    X(ibv_dereg_mr)                \
    X(ibv_destroy_cq)              \
    X(ibv_create_qp)               \
    X(ibv_modify_qp)               \
    X(ibv_destroy_qp)

#define VERB_POINTER(name) __typeof__(name) *name;
static struct {
    VERBS(VERB_POINTER)
} verbs;
static bool loaded;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void
load(void)
{
    void *lib = dlopen(LIBIBVERBS, RTLD_NOW | RTLD_LOCAL);

    if (lib == NULL)
        return;
#define VERB_RESOLVE(name)                                    \
    if ((*(void **)&verbs.name = dlsym(lib, #name)) == NULL)  \
        return;
    VERBS(VERB_RESOLVE)
    loaded = true;
}

static bool
verbs_ready(void)
{
    pthread_once(&load_once, load);
    if (!loaded)
        errno = ELIBACC;
    return loaded;
}

/* A verb returning a pointer is NULL with errno set when libibverbs is missing; one
 * returning int returns the errno, as the verbs do. */
#define VERB_PTR(type, name, params, args)              \
    type (name) params                                   \
    {                                                    \
        return verbs_ready() ? (verbs.name) args : NULL; \
    }
#define VERB_INT(name, params, args)                        \
    int (name) params                                       \
    {                                                       \
        return verbs_ready() ? (verbs.name) args : ELIBACC; \
    }

VERB_PTR(struct ibv_device **, ibv_get_device_list, (int *num), (num))
VERB_PTR(const char *, ibv_get_device_name, (struct ibv_device *dev), (dev))
VERB_PTR(struct ibv_context *, ibv_open_device, (struct ibv_device *dev), (dev))
VERB_INT(ibv_close_device, (struct ibv_context *ctx), (ctx))
VERB_INT(ibv_query_device, (struct ibv_context *ctx, struct ibv_device_attr *attr), (ctx, attr))
VERB_INT(ibv_query_port, (struct ibv_context *ctx, uint8_t port, struct _compat_ibv_port_attr *attr),
         (ctx, port, attr))
VERB_PTR(struct ibv_comp_channel *, ibv_create_comp_channel, (struct ibv_context *ctx), (ctx))
VERB_INT(ibv_destroy_comp_channel, (struct ibv_comp_channel *ch), (ch))
VERB_INT(ibv_get_cq_event, (struct ibv_comp_channel *ch, struct ibv_cq **cq, void **cq_ctx),
         (ch, cq, cq_ctx))
VERB_PTR(struct ibv_pd *, ibv_alloc_pd, (struct ibv_context *ctx), (ctx))
VERB_INT(ibv_dealloc_pd, (struct ibv_pd *pd), (pd))
VERB_PTR(struct ibv_mr *, ibv_reg_mr_iova2,
         (struct ibv_pd *pd, void *addr, size_t len, uint64_t iova, unsigned int access),
         (pd, addr, len, iova, access))
VERB_INT(ibv_dereg_mr, (struct ibv_mr *mr), (mr))
VERB_INT(ibv_destroy_cq, (struct ibv_cq *cq), (cq))
VERB_PTR(struct ibv_qp *, ibv_create_qp, (struct ibv_pd *pd, struct ibv_qp_init_attr *attr),
         (pd, attr))
VERB_INT(ibv_modify_qp, (struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask), (qp, attr, mask))
VERB_INT(ibv_destroy_qp, (struct ibv_qp *qp), (qp))

/* Reached only with a list or device libibverbs gave. */
void
ibv_free_device_list(struct ibv_device **list)
{
    if (verbs_ready())
        verbs.ibv_free_device_list(list);
}

void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
    if (verbs_ready())
        verbs.ibv_ack_cq_events(cq, nevents);
}

const char *
ibv_port_state_str(enum ibv_port_state state)
{
    return verbs_ready() ? verbs.ibv_port_state_str(state) : "unknown";
}
