/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_interpose.c - libroceshark-ucma.so: the C library calls through which
 * librdmacm reaches the kernel's RDMA CM, taken so that libroceshark-verbs
 * serves them (verbs_ucma.h).
 *
 * A library of its own because the program's references carry the C
 * library's symbol versions (write@GLIBC_2.2.5 on x86-64), which only a
 * definition of no version answers, and libroceshark-verbs gives every
 * symbol it exports libibverbs' versions (verbs.map). Preloaded beside it,
 * these definitions come before the C library's for the whole program:
 * open() of /dev/infiniband/rdma_cm hands out one of our
 * descriptors; fstat() shows it a character device, as librdmacm checks;
 * write() on it runs a command; close() of it destroys its CM IDs (and
 * closes it, so that no write() in between reaches the eventfd). Every
 * other call goes to the next definition (the C library's, or a
 * sanitizer's in front of it), found with dlsym(RTLD_NEXT): write() pays a
 * bitmap lookup. socket() refuses RDMA netlink, so that librdmacm takes the
 * rdma_cm ABI version from sysfs (ibv_read_sysfs_file(), ours) rather than
 * from a kernel that may have an rdma_cm of its own.
 *
 * The road not taken: replacing librdmacm's 72 exported functions, 27 of
 * them rsockets' (a protocol of its own over RDMA, 4700 lines in
 * rdma-core). Serving the 23 commands of its kernel ABI instead runs the
 * program's own librdmacm, whatever its version, rsockets and all.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "verbs_ucma.h"

/* libroceshark-verbs' RDMA CM, preloaded beside us: weak, so that this library
 * loads without it (and then passes every call on). */
#pragma weak vb_ucma_open
#pragma weak vb_ucma_owns
#pragma weak vb_ucma_write
#pragma weak vb_ucma_close

static bool
served(void)
{
    return vb_ucma_owns != NULL;
}

static bool
ours(int fd)
{
    return served() && vb_ucma_owns(fd);
}

/* The misc character device of Linux's rdma_cm (major 10), for fstat(). */
#define UCMA_DEV_MAJOR 10
#define UCMA_DEV_MINOR 58

/* The next definition of name, found once (threads may race to find it: they
 * find the same). */
static void *
next_fn(void **cache, const char *name)
{
    void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

    if (f == NULL) {
        f = dlsym(RTLD_NEXT, name);
        __atomic_store_n(cache, f, __ATOMIC_RELEASE);
    }
    return f;
}

/* In a definition of name of type fn (a function type): next, the next one. */
#define NEXT(fn, name)                                                                    \
    static void *cache_##name;                                                            \
    fn *next = (fn *)next_fn(&cache_##name, #name);                                       \
    if (next == NULL)                                                                     \
        return errno = ENOSYS, -1

typedef int open_fn(const char *, int, ...);
typedef int openat_fn(int, const char *, int, ...);
typedef int fstat_fn(int, struct stat *);
typedef int fstat64_fn(int, struct stat64 *);
typedef ssize_t write_fn(int, const void *, size_t);
typedef int close_fn(int);
typedef int socket_fn(int, int, int);

static bool
is_ucma_path(const char *path)
{
    return served() && path != NULL && strcmp(path, VB_UCMA_PATH) == 0;
}

/* open()'s mode argument is there only with O_CREAT or O_TMPFILE. */
static mode_t
mode_arg(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

/* open() and open64() alike: the device is ours, anything else the C library's
 * function of that name (next, through *cache). */
static int
open_path(void **cache, const char *name, const char *path, int flags, mode_t mode)
{
    if (is_ucma_path(path))
        return vb_ucma_open(flags);
    open_fn *next = (open_fn *)next_fn(cache, name);
    if (next == NULL)
        return errno = ENOSYS, -1;
    return next(path, flags, mode);
}

int
open(const char *path, int flags, ...)
{
    static void *cache;
    va_list ap;

    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    return open_path(&cache, "open", path, flags, mode);
}

int open64(const char *path, int flags, ...);
int
open64(const char *path, int flags, ...)
{
    static void *cache;
    va_list ap;

    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    return open_path(&cache, "open64", path, flags, mode);
}

int
openat(int dirfd, const char *path, int flags, ...)
{
    va_list ap;

    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    if (is_ucma_path(path))
        return vb_ucma_open(flags);
    NEXT(openat_fn, openat);
    return next(dirfd, path, flags, mode);
}

static void
fake_stat(struct stat *st)
{
    memset(st, 0, sizeof(*st));
    st->st_mode = S_IFCHR | 0666;
    st->st_rdev = makedev(UCMA_DEV_MAJOR, UCMA_DEV_MINOR);
    st->st_nlink = 1;
    st->st_blksize = 4096;
}

int
fstat(int fd, struct stat *st)
{
    if (ours(fd)) {
        fake_stat(st);
        return 0;
    }
    NEXT(fstat_fn, fstat);
    return next(fd, st);
}

/* On 64-bit targets struct stat64 is struct stat. */
_Static_assert(sizeof(struct stat64) == sizeof(struct stat), "stat64 is stat");

int
fstat64(int fd, struct stat64 *st)
{
    if (ours(fd)) {
        fake_stat((struct stat *)(void *)st);
        return 0;
    }
    NEXT(fstat64_fn, fstat64);
    return next(fd, st);
}

/* Whether buf is librdmacm's GET_EVENT command, whole. */
static bool
is_get_event(const void *buf, size_t len)
{
    struct ucma_abi_get_event cmd;

    if (buf == NULL || len != sizeof(cmd))
        return false;
    memcpy(&cmd, buf, sizeof(cmd));
    return cmd.cmd == UCMA_CMD_GET_EVENT &&
           cmd.out == sizeof(struct ucma_abi_event_resp);
}

ssize_t
write(int fd, const void *buf, size_t len)
{
    if (ours(fd))
        return vb_ucma_write(fd, buf, len);
    NEXT(write_fn, write);
    ssize_t n = next(fd, buf, len);
    /* A GET_EVENT on a descriptor that is no channel, and no file at all: the
     * program read an event channel long after closing it (rping before
     * rdma-core 59 reads the channel its main thread has just destroyed and
     * freed; just after, the number is still held: verbs_ucma.c). The kernel
     * says EBADF too; with
     * ROCESHARK_VERBS_DEBUG=1 one line says it was the program's, not ours. */
    if (n < 0 && errno == EBADF && served() && is_get_event(buf, len) &&
        getenv("ROCESHARK_VERBS_DEBUG") != NULL) {
        char line[200];
        int k = snprintf(line, sizeof(line), "roceshark: rdma_cm: GET_EVENT on descriptor %d, "
                         "which is no event channel: the program read one it had closed\n", fd);
        if (k > 0)
            (void)next(2, line, (size_t)k < sizeof(line) ? (size_t)k : sizeof(line) - 1);
        errno = EBADF;
    }
    return n;
}

int
close(int fd)
{
    NEXT(close_fn, close);
    /* The channel closes its descriptor with the next close() itself, before
     * the number stops being ours. */
    if (ours(fd))
        return vb_ucma_close(fd, next);
    return next(fd);
}

int
socket(int domain, int type, int protocol)
{
    if (served() && domain == AF_NETLINK && protocol == NETLINK_RDMA)
        return errno = EPROTONOSUPPORT, -1;
    NEXT(socket_fn, socket);
    return next(domain, type, protocol);
}
