/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcap_load.c - the libpcap calls of live capture, capture filters, the writer, inject and
 * bridge, with libpcap loaded at the first of them rather than linked.
 *
 * Linked, libpcap and what it pulls in (libdbus, libsystemd, libgcrypt, liblz4, libzstd,
 * liblzma, libcap) were loaded and relocated at every start of every command, where `read`
 * of a pcap or pcapng file never calls libpcap (source_pcap.c and source_pcapng.c read
 * them). Each call here forwards to libpcap's own. Without libpcap, what opens a handle
 * fails with its error buffer saying so; the rest takes a handle only libpcap gives.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include <pcap/pcap.h>

#define LIBPCAP "libpcap.so.0.8"

#define PCAP_CALLS(X)                          \
    X(pcap_create)                             \
    X(pcap_activate)                           \
    X(pcap_close)                              \
    X(pcap_breakloop)                          \
    X(pcap_geterr)                             \
    X(pcap_datalink)                           \
    X(pcap_datalink_val_to_name)               \
    X(pcap_snapshot)                           \
    X(pcap_stats)                              \
    X(pcap_lib_version)                        \
    X(pcap_findalldevs)                        \
    X(pcap_freealldevs)                        \
    X(pcap_compile)                            \
    X(pcap_freecode)                           \
    X(pcap_setfilter)                          \
    X(pcap_setdirection)                       \
    X(pcap_setnonblock)                        \
    X(pcap_get_selectable_fd)                  \
    X(pcap_set_buffer_size)                    \
    X(pcap_set_immediate_mode)                 \
    X(pcap_set_promisc)                        \
    X(pcap_set_snaplen)                        \
    X(pcap_set_timeout)                        \
    X(pcap_set_tstamp_precision)               \
    X(pcap_get_tstamp_precision)               \
    X(pcap_next_ex)                            \
    X(pcap_inject)                             \
    X(pcap_fopen_offline_with_tstamp_precision) \
    X(pcap_open_dead_with_tstamp_precision)    \
    X(pcap_dump_fopen)                         \
    X(pcap_dump)                               \
    X(pcap_dump_close)

#define CALL_POINTER(name) __typeof__(name) *name;
static struct {
    PCAP_CALLS(CALL_POINTER)
} lib;
static bool loaded;
static char load_error[200];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void
load(void)
{
    void *h = dlopen(LIBPCAP, RTLD_NOW | RTLD_LOCAL);

    if (h == NULL) {
        snprintf(load_error, sizeof(load_error), "libpcap cannot be loaded: %s", dlerror());
        return;
    }
#define CALL_RESOLVE(name)                                                              \
    if ((*(void **)&lib.name = dlsym(h, #name)) == NULL) {                             \
        snprintf(load_error, sizeof(load_error), "libpcap has no %s", #name);          \
        return;                                                                         \
    }
    PCAP_CALLS(CALL_RESOLVE)
    loaded = true;
}

/* Whether libpcap is loaded; if not, and errbuf is given, says why in it. */
static bool
pcap_ready(char *errbuf)
{
    pthread_once(&load_once, load);
    if (!loaded && errbuf != NULL)
        snprintf(errbuf, PCAP_ERRBUF_SIZE, "%s", load_error);
    return loaded;
}

/* What opens a handle or needs none: fails as libpcap's own fails. */
pcap_t *
pcap_create(const char *dev, char *errbuf)
{
    return pcap_ready(errbuf) ? lib.pcap_create(dev, errbuf) : NULL;
}

pcap_t *
pcap_fopen_offline_with_tstamp_precision(FILE *f, u_int precision, char *errbuf)
{
    return pcap_ready(errbuf) ? lib.pcap_fopen_offline_with_tstamp_precision(f, precision, errbuf)
                              : NULL;
}

/* It has no error buffer: NULL with errno ELIBACC (libpcap's own fails for memory). */
pcap_t *
pcap_open_dead_with_tstamp_precision(int linktype, int snaplen, u_int precision)
{
    if (pcap_ready(NULL))
        return lib.pcap_open_dead_with_tstamp_precision(linktype, snaplen, precision);
    errno = ELIBACC;
    return NULL;
}

int
pcap_findalldevs(pcap_if_t **devs, char *errbuf)
{
    return pcap_ready(errbuf) ? lib.pcap_findalldevs(devs, errbuf) : PCAP_ERROR;
}

const char *
pcap_lib_version(void)
{
    return pcap_ready(NULL) ? lib.pcap_lib_version() : load_error;
}

const char *
pcap_datalink_val_to_name(int dlt)
{
    return pcap_ready(NULL) ? lib.pcap_datalink_val_to_name(dlt) : NULL;
}

/* The rest take a handle, a dumper, a device list or a program libpcap gave: it is loaded. */
#define FORWARD(type, name, params, args) \
    type name params                      \
    {                                     \
        return lib.name args;             \
    }
#define FORWARD_VOID(name, params, args) \
    void name params                     \
    {                                    \
        lib.name args;                   \
    }
FORWARD(int, pcap_activate, (pcap_t *p), (p))
FORWARD_VOID(pcap_close, (pcap_t *p), (p))
FORWARD_VOID(pcap_breakloop, (pcap_t *p), (p))
FORWARD(char *, pcap_geterr, (pcap_t *p), (p))
FORWARD(int, pcap_datalink, (pcap_t *p), (p))
FORWARD(int, pcap_snapshot, (pcap_t *p), (p))
FORWARD(int, pcap_stats, (pcap_t *p, struct pcap_stat *st), (p, st))
FORWARD_VOID(pcap_freealldevs, (pcap_if_t *devs), (devs))
FORWARD(int, pcap_compile, (pcap_t *p, struct bpf_program *prog, const char *expr, int optimize,
                            bpf_u_int32 netmask), (p, prog, expr, optimize, netmask))
FORWARD_VOID(pcap_freecode, (struct bpf_program *prog), (prog))
FORWARD(int, pcap_setfilter, (pcap_t *p, struct bpf_program *prog), (p, prog))
FORWARD(int, pcap_setdirection, (pcap_t *p, pcap_direction_t d), (p, d))
FORWARD(int, pcap_setnonblock, (pcap_t *p, int on, char *errbuf), (p, on, errbuf))
FORWARD(int, pcap_get_selectable_fd, (pcap_t *p), (p))
FORWARD(int, pcap_set_buffer_size, (pcap_t *p, int n), (p, n))
FORWARD(int, pcap_set_immediate_mode, (pcap_t *p, int on), (p, on))
FORWARD(int, pcap_set_promisc, (pcap_t *p, int on), (p, on))
FORWARD(int, pcap_set_snaplen, (pcap_t *p, int n), (p, n))
FORWARD(int, pcap_set_timeout, (pcap_t *p, int ms), (p, ms))
FORWARD(int, pcap_set_tstamp_precision, (pcap_t *p, int precision), (p, precision))
FORWARD(int, pcap_get_tstamp_precision, (pcap_t *p), (p))
FORWARD(int, pcap_next_ex, (pcap_t *p, struct pcap_pkthdr **h, const u_char **data), (p, h, data))
FORWARD(int, pcap_inject, (pcap_t *p, const void *buf, size_t n), (p, buf, n))
FORWARD(pcap_dumper_t *, pcap_dump_fopen, (pcap_t *p, FILE *f), (p, f))
FORWARD_VOID(pcap_dump, (u_char *user, const struct pcap_pkthdr *h, const u_char *data),
        (user, h, data))
FORWARD_VOID(pcap_dump_close, (pcap_dumper_t *d), (d))
