/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_ucma.c - the event channels of the RDMA CM (each an open of
 * /dev/infiniband/rdma_cm), their events, and the commands written to them,
 * as Linux's drivers/infiniband/core/ucma.c serves them (verbs_ucma.h).
 *
 * A command is a struct ucma_abi_cmd_hdr (its number, the bytes of the
 * command that follow, the room for its answer) and the command; the answer
 * goes to the address the command names. The write returns its length, or
 * -1 with the command's errno. The descriptor is an eventfd whose count is 1
 * while events wait and 0 otherwise, so that poll(), select() and epoll see
 * the channel as they see the kernel's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "verbs_ucma.h"

pthread_mutex_t vb_ucma_lock = PTHREAD_MUTEX_INITIALIZER;

/* Descriptors of ours: a bit each below FD_BITS (write() asks for every
 * descriptor, without the lock), the list for the rest. */
#define FD_BITS 65536
static uint64_t fd_bits[FD_BITS / 64];
static unsigned n_high;             /* files with a descriptor >= FD_BITS (atomic) */
static struct vb_ucma_file *files;
/* Channels closed, each remembered for its descriptor's number until a file
 * of ours takes the number or a write() finds that something else did: a
 * write() that found the number ours as the channel closed comes here after
 * it (see vb_ucma_close()). At most one a number. */
static struct vb_ucma_file *gone;

/* The last HELD_MAX channels closed keep their eventfd and their number a
 * while. rping (rdma-core before 59) and programs written like it read the
 * channel again right after acknowledging their last event, while the main
 * thread, woken by that acknowledgement, closes the channel to leave. If the
 * close comes first the read finds no file (EBADF) and the program exits
 * with an error: rare on a kernel, seen here under a sanitizer or a loaded
 * machine. A number held is nobody else's, so such a late read reaches the
 * closed channel and waits for ever, as one a moment earlier would have in
 * the kernel. Oldest first out; a program sees at most HELD_MAX more
 * descriptors than it keeps (docs/limits.md). */
#define HELD_MAX 8
static struct vb_ucma_file *held[HELD_MAX];
static unsigned n_held;
static int (*held_release)(int);

static void
fd_mark(int fd, bool ours)
{
    if (fd >= FD_BITS) {
        __atomic_add_fetch(&n_high, ours ? 1u : (unsigned)-1, __ATOMIC_SEQ_CST);
        return;
    }
    uint64_t bit = 1ull << (fd % 64);
    if (ours)
        __atomic_or_fetch(&fd_bits[fd / 64], bit, __ATOMIC_SEQ_CST);
    else
        __atomic_and_fetch(&fd_bits[fd / 64], ~bit, __ATOMIC_SEQ_CST);
}

static struct vb_ucma_file *
file_of(int fd)
{
    for (struct vb_ucma_file *f = files; f != NULL; f = f->next)
        if (f->fd == fd && !f->closed)
            return f;
    return NULL;
}

bool
vb_ucma_owns(int fd)
{
    if (fd < 0)
        return false;
    if (fd < FD_BITS)
        return (__atomic_load_n(&fd_bits[fd / 64], __ATOMIC_SEQ_CST) >> (fd % 64)) & 1;
    if (__atomic_load_n(&n_high, __ATOMIC_SEQ_CST) == 0)
        return false;
    pthread_mutex_lock(&vb_ucma_lock);
    bool ours = file_of(fd) != NULL;
    pthread_mutex_unlock(&vb_ucma_lock);
    return ours;
}

static void
file_free(struct vb_ucma_file *f)
{
    pthread_cond_destroy(&f->cond);
    free(f);
}

static struct vb_ucma_file *
gone_of(int fd)
{
    for (struct vb_ucma_file *f = gone; f != NULL; f = f->next)
        if (f->fd == fd)
            return f;
    return NULL;
}

static void held_release_one(struct vb_ucma_file *f, bool still_ours);

/* A closed channel's number is another file's now: it is forgotten, and freed
 * unless a thread still waits in it (the last to leave frees it). Lock held. */
static void
gone_forget(struct vb_ucma_file *f)
{
    for (struct vb_ucma_file **pp = &gone; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == f) {
            *pp = f->next;
            break;
        }
    }
    if (f->held)
        held_release_one(f, false);
    f->remembered = false;
    if (f->waiters == 0)
        file_free(f);
}

static unsigned long
inode_of(int fd)
{
    struct stat st;

    /* fstatat(), not fstat(): this library answers fstat() on its own
     * descriptors with the device's made-up stat, inode 0. */
    return fstatat(fd, "", &st, AT_EMPTY_PATH) == 0 ? (unsigned long)st.st_ino : 0;
}

/* Whether f's number is held and still its own eventfd (not a file the program
 * dup2()ed there since). */
static bool
held_as_ours(const struct vb_ucma_file *f)
{
    return f->held && inode_of(f->fd) == f->ino;
}

/* A held number is given up: its eventfd closes (unless the program put a
 * file of its own there) and the number stops being ours. Lock held. */
static void
held_release_one(struct vb_ucma_file *f, bool still_ours)
{
    for (unsigned i = 0; i < n_held; i++) {
        if (held[i] == f) {
            memmove(&held[i], &held[i + 1], (n_held - i - 1) * sizeof(held[0]));
            n_held--;
            break;
        }
    }
    f->held = false;
    if (still_ours) {
        int e = errno;
        held_release(f->fd);
        errno = e;
    }
    fd_mark(f->fd, false);
}

int
vb_ucma_open(int flags)
{
    struct vb_ucma_file *f = calloc(1, sizeof(*f));

    if (f == NULL)
        return errno = ENOMEM, -1;
    f->fd = eventfd(0, (flags & O_CLOEXEC ? EFD_CLOEXEC : 0) |
                           (flags & O_NONBLOCK ? EFD_NONBLOCK : 0));
    if (f->fd < 0) {
        int e = errno;
        free(f);
        return errno = e, -1;
    }
    if (vb_cm_start() != 0) {
        int e = errno;
        close(f->fd);
        free(f);
        return errno = e, -1;
    }
    pthread_cond_init(&f->cond, NULL);
    f->ino = inode_of(f->fd);
    pthread_mutex_lock(&vb_ucma_lock);
    struct vb_ucma_file *old = gone_of(f->fd);
    if (old != NULL)
        gone_forget(old);
    f->next = files;
    files = f;
    fd_mark(f->fd, true);
    pthread_mutex_unlock(&vb_ucma_lock);
    return f->fd;
}

int
vb_ucma_close(int fd, int (*release)(int))
{
    pthread_mutex_lock(&vb_ucma_lock);
    struct vb_ucma_file *f = file_of(fd);
    if (f == NULL) {
        struct vb_ucma_file *h = gone_of(fd);
        if (h != NULL && held_as_ours(h)) {
            /* A channel closed already: the kernel says EBADF. */
            pthread_mutex_unlock(&vb_ucma_lock);
            return errno = EBADF, -1;
        }
        if (h != NULL && h->held)
            gone_forget(h);                 /* the number is the program's own file now */
        pthread_mutex_unlock(&vb_ucma_lock);
        return release(fd);
    }
    /* As the kernel's release: every ID of the channel goes, and its events. */
    vb_ucma_ids_of_file_destroy(f);
    int fl = fcntl(fd, F_GETFL);
    f->closed_nonblock = fl >= 0 && (fl & O_NONBLOCK);
    f->closed = true;
    for (struct vb_ucma_file **pp = &files; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == f) {
            *pp = f->next;
            break;
        }
    }
    /* The closed channel is remembered for its number, so that a write()
     * under way as it closed finds it (closed_command()). A thread already
     * waiting in it (rping's event thread, as its main thread closes the
     * channel to leave) waits on, as on the kernel's file, which outlives
     * its descriptor while a write is in it. */
    struct vb_ucma_file *old = gone_of(fd);
    if (old != NULL)
        gone_forget(old);
    f->remembered = true;
    f->next = gone;
    gone = f;
    /* Its number is held (see HELD_MAX): the eventfd stays open and ours,
     * and the oldest held one is given up. */
    held_release = release;
    if (n_held == HELD_MAX)
        held_release_one(held[0], held_as_ours(held[0]));
    f->held = true;
    held[n_held++] = f;
    pthread_mutex_unlock(&vb_ucma_lock);
    vb_cm_stop();
    return 0;
}

/* The program ends: as the kernel's release of each channel, its CM IDs go,
 * telling their peers (one DREQ for a connection, a REJ for one being set up),
 * so that a peer that disconnects later is not left to its DREQ's 15 retries.
 * Not if another thread holds the lock: the program left in the middle of a
 * call, and a peer then learns it from its timeouts, as from a host gone. */
__attribute__((destructor)) static void
ucma_exit(void)
{
    if (pthread_mutex_trylock(&vb_ucma_lock) != 0)
        return;
    for (struct vb_ucma_file *f = files; f != NULL; f = f->next)
        vb_ucma_ids_of_file_destroy(f);
    pthread_mutex_unlock(&vb_ucma_lock);
}

/* --- events --- */

struct vb_ucma_event *
vb_ucma_event_new(struct vb_ucma_id *id, uint32_t type, int32_t status)
{
    struct vb_ucma_event *e = calloc(1, sizeof(*e));

    if (e == NULL)
        return NULL;
    e->id = id;
    e->resp.uid = id->uid;
    e->resp.id = id->handle;
    e->resp.event = type;
    e->resp.status = (uint32_t)status;
    return e;
}

/* The count of the descriptor: 1 while events wait. */
static void
readable(struct vb_ucma_file *f, bool yes)
{
    eventfd_t v;

    if (yes)
        eventfd_write(f->fd, 1);
    else
        eventfd_read(f->fd, &v);
}

void
vb_ucma_event_post(struct vb_ucma_event *e)
{
    struct vb_ucma_file *f = e->id->file;

    e->next = NULL;
    if (f->last != NULL) {
        f->last->next = e;
    } else {
        f->first = e;
        readable(f, true);
    }
    f->last = e;
    pthread_cond_signal(&f->cond);
}

/* Takes the first event of f off its queue. */
static struct vb_ucma_event *
event_take(struct vb_ucma_file *f)
{
    struct vb_ucma_event *e = f->first;

    f->first = e->next;
    if (f->first == NULL) {
        f->last = NULL;
        readable(f, false);
    }
    return e;
}

static void
unlock_waiter(void *arg)
{
    struct vb_ucma_file *f = arg;

    /* A thread cancelled in GET_EVENT (a cancellation point, as write() is). */
    if (--f->waiters == 0 && f->closed && !f->remembered)
        file_free(f);
    pthread_mutex_unlock(&vb_ucma_lock);
}

/* Waits for an event on f, as the kernel's GET_EVENT does: blocks (for ever
 * once f is closed), or EAGAIN on a non-blocking descriptor. Returns the
 * event, or NULL with the errno. Lock held (and still held on return). */
static struct vb_ucma_event *
event_wait(struct vb_ucma_file *f, int *err)
{
    int flags = f->closed ? (f->closed_nonblock ? O_NONBLOCK : 0) : fcntl(f->fd, F_GETFL);
    bool nonblock = flags >= 0 && (flags & O_NONBLOCK);

    f->waiters++;
    pthread_cleanup_push(unlock_waiter, f);
    while (f->first == NULL && !nonblock)
        pthread_cond_wait(&f->cond, &vb_ucma_lock);
    pthread_cleanup_pop(0);
    f->waiters--;
    if (f->first == NULL) {
        *err = EAGAIN;
        return NULL;
    }
    return event_take(f);
}

static int
cmd_get_event(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    struct ucma_abi_get_event cmd;
    int err = 0;

    memcpy(&cmd, in, sizeof(cmd));
    if (out < sizeof(struct ucma_abi_event_resp))
        return -ENOSPC;
    struct vb_ucma_event *e = event_wait(f, &err);
    if (e == NULL)
        return -err;
    struct vb_ucma_id *id = e->id;
    if (e->child != NULL) {
        /* The child is the program's now; the listener has room for one more. */
        e->child->listener = NULL;
        id->backlog++;
    }
    id->events_reported++;
    memcpy((void *)(uintptr_t)cmd.response, &e->resp, sizeof(e->resp));
    free(e);
    return 0;
}

/* --- commands on the channel itself --- */

static int
cmd_migrate_id(struct vb_ucma_file *to, const void *in, uint16_t out)
{
    struct ucma_abi_migrate_id cmd;
    struct ucma_abi_migrate_resp resp;

    memcpy(&cmd, in, sizeof(cmd));
    if (out < sizeof(resp))
        return -ENOSPC;
    struct vb_ucma_file *from = file_of((int)cmd.fd);
    struct vb_ucma_id *id = vb_ucma_id_get(cmd.id);
    if (from == NULL)
        return -ENOENT;
    if (id == NULL || id->file != from)
        return -EINVAL;
    /* The ID's waiting events move with it, in order. */
    if (from != to) {
        struct vb_ucma_event *moved = NULL, **moved_tail = &moved;
        bool had = from->first != NULL;
        from->last = NULL;
        for (struct vb_ucma_event **pp = &from->first; *pp != NULL;) {
            struct vb_ucma_event *e = *pp;
            if (e->id == id) {
                *pp = e->next;
                e->next = NULL;
                *moved_tail = e;
                moved_tail = &e->next;
            } else {
                from->last = e;
                pp = &e->next;
            }
        }
        if (had && from->first == NULL)
            readable(from, false);
        id->file = to;
        while (moved != NULL) {
            struct vb_ucma_event *next = moved->next;
            vb_ucma_event_post(moved);
            moved = next;
        }
    }
    resp.events_reported = id->events_reported;
    memcpy((void *)(uintptr_t)cmd.response, &resp, sizeof(resp));
    return 0;
}

static int
cmd_notify(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    struct ucma_abi_notify cmd;

    (void)f;
    (void)out;
    memcpy(&cmd, in, sizeof(cmd));
    /* A passive side that sees traffic before the RTU: the engine takes the
     * peer's repeated REP's RTU instead (cm.h), so there is nothing to do. */
    return vb_ucma_id_get(cmd.id) != NULL ? 0 : -ENOENT;
}

void
vb_ucma_multicast_refused(void)
{
    static atomic_flag said = ATOMIC_FLAG_INIT;

    /* Once: mckey's own message ("unable to create QP", "failure joining")
     * does not say why. */
    if (!atomic_flag_test_and_set(&said))
        fprintf(stderr, "roceshark: rdma_cm: multicast is not supported: the ports' UDP "
                        "sockets join no IP multicast group\n");
}

/* Multicast needs the interfaces' IP multicast under the ports' sockets,
 * which the RC transport does not have. */
static int
cmd_join(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    (void)f;
    (void)in;
    (void)out;
    vb_ucma_multicast_refused();
    return -EOPNOTSUPP;
}

static int
cmd_unknown(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    (void)f;
    (void)in;
    (void)out;
    return -ENOSYS;
}

typedef int (*cmd_fn)(struct vb_ucma_file *, const void *, uint16_t);

/* The commands, by their number. */
static const cmd_fn commands[] = {
    [UCMA_CMD_CREATE_ID] = vb_ucma_cmd_create_id,
    [UCMA_CMD_DESTROY_ID] = vb_ucma_cmd_destroy_id,
    [UCMA_CMD_BIND_IP] = vb_ucma_cmd_bind_ip,
    [UCMA_CMD_RESOLVE_IP] = vb_ucma_cmd_resolve_ip,
    [UCMA_CMD_RESOLVE_ROUTE] = vb_ucma_cmd_resolve_route,
    [UCMA_CMD_QUERY_ROUTE] = vb_ucma_cmd_query_route,
    [UCMA_CMD_CONNECT] = vb_ucma_cmd_connect,
    [UCMA_CMD_LISTEN] = vb_ucma_cmd_listen,
    [UCMA_CMD_ACCEPT] = vb_ucma_cmd_accept,
    [UCMA_CMD_REJECT] = vb_ucma_cmd_reject,
    [UCMA_CMD_DISCONNECT] = vb_ucma_cmd_disconnect,
    [UCMA_CMD_INIT_QP_ATTR] = vb_ucma_cmd_init_qp_attr,
    [UCMA_CMD_GET_EVENT] = cmd_get_event,
    [UCMA_CMD_GET_OPTION] = cmd_unknown,
    [UCMA_CMD_SET_OPTION] = vb_ucma_cmd_set_option,
    [UCMA_CMD_NOTIFY] = cmd_notify,
    [UCMA_CMD_JOIN_IP_MCAST] = cmd_join,
    [UCMA_CMD_LEAVE_MCAST] = cmd_join,
    [UCMA_CMD_MIGRATE_ID] = cmd_migrate_id,
    [UCMA_CMD_QUERY] = vb_ucma_cmd_query,
    [UCMA_CMD_BIND] = vb_ucma_cmd_bind,
    [UCMA_CMD_RESOLVE_ADDR] = vb_ucma_cmd_resolve_addr,
    [UCMA_CMD_JOIN_MCAST] = cmd_join,
};

/* Every command fits in vb_ucma_write()'s buffer. */
_Static_assert(sizeof(struct ucma_abi_resolve_addr) <= 512 &&
                   sizeof(struct ucma_abi_accept) <= 512 &&
                   sizeof(struct ucma_abi_connect) <= 512 &&
                   sizeof(struct ucma_abi_reject) <= 512 &&
                   sizeof(struct ucma_abi_join_mcast) <= 512,
               "the commands fit");

/* A command written to a closed channel by a write() that was under way as it
 * closed: it found the descriptor ours, then waited for the lock while the
 * channel closed (a write() that comes after finds it not ours, and the C
 * library says EBADF). In the kernel such a write holds the file, whose IDs
 * are gone: GET_EVENT waits (for ever, or EAGAIN when non-blocking), as
 * rping's event thread does when it reads again just as its main thread
 * closes the channel to leave; any other command finds no ID (EBADF here,
 * which says as much). */
static int
closed_command(struct vb_ucma_file *f, uint32_t cmd, const void *in, uint16_t out)
{
    if (cmd != UCMA_CMD_GET_EVENT)
        return -EBADF;
    return cmd_get_event(f, in, out);
}

/* Runs the command written to f. Lock held. */
static int
command(struct vb_ucma_file *f, const void *buf, size_t len)
{
    struct ucma_abi_cmd_hdr hdr;
    uint8_t cmd[512];

    if (buf == NULL || len < sizeof(hdr))
        return -EINVAL;
    memcpy(&hdr, buf, sizeof(hdr));
    /* As ucma_write(): the input must be within what was written. A command
     * shorter than its struct reads as zeros after it (the kernel would read
     * whatever followed), a longer one is cut. */
    if (hdr.in + sizeof(hdr) > len)
        return -EINVAL;
    if (hdr.cmd >= sizeof(commands) / sizeof(commands[0]) || commands[hdr.cmd] == NULL)
        return -EINVAL;
    size_t n = sizeof(hdr) + hdr.in;
    memset(cmd, 0, sizeof(cmd));
    memcpy(cmd, buf, n < sizeof(cmd) ? n : sizeof(cmd));
    int rc = f->closed ? closed_command(f, hdr.cmd, cmd, hdr.out)
                       : commands[hdr.cmd](f, cmd, hdr.out);
    /* EAGAIN from a non-blocking GET_EVENT is no failure: rsockets polls so. */
    if (rc < 0 && rc != -EAGAIN && getenv("ROCESHARK_VERBS_DEBUG") != NULL)
        fprintf(stderr, "roceshark: rdma_cm: command %u: %s\n", hdr.cmd, strerror(-rc));
    return rc;
}

ssize_t
vb_ucma_write(int fd, const void *buf, size_t len)
{
    pthread_mutex_lock(&vb_ucma_lock);
    struct vb_ucma_file *f = file_of(fd);
    if (f == NULL && (f = gone_of(fd)) != NULL && fcntl(fd, F_GETFD) >= 0 &&
        !held_as_ours(f)) {
        /* A closed channel's number, open again: something else took it, and
         * the write is that file's (gone_forget() gives a held number up). */
        gone_forget(f);
        f = NULL;
    }
    if (f == NULL) {
        pthread_mutex_unlock(&vb_ucma_lock);
        /* Not ours (any more): the C library's write() (through ours, which
         * now passes it on). */
        return write(fd, buf, len);
    }
    int rc = command(f, buf, len);
    pthread_mutex_unlock(&vb_ucma_lock);
    if (rc < 0)
        return errno = -rc, -1;
    return (ssize_t)len;
}
