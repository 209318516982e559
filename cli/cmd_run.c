/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_run.c - `roceshark run [--dev NAME=IP|IFACE]... -- PROGRAM ARGS`: an unmodified
 * verbs or librdmacm program over the software RoCE stack. Checks each device's address
 * or interface, sets ROCESHARK_VERBS_DEVICES, puts libroceshark-verbs.so and
 * libroceshark-ucma.so (verbs/) in LD_PRELOAD, and executes the program in this
 * process, so its exit status is the program's.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <roceshark/dissectors/addr.h>

#include "cli.h"

#define LIB_NAME "libroceshark-verbs.so"
#define UCMA_LIB_NAME "libroceshark-ucma.so"
#define DEVICES_ENV "ROCESHARK_VERBS_DEVICES"
#define DEVICES_MAX 1024

static const char usage[] =
    "usage: roceshark run [--dev NAME=IP|IFACE]... [--lib PATH] [--] PROGRAM [ARGS...]\n"
    "\n"
    "Runs an unmodified verbs program (ib_write_bw, ibv_rc_pingpong, ibv_ud_pingpong,\n"
    "ibv_devinfo, ...) over the software RoCE stack: each --dev is an RDMA device NAME\n"
    "whose port is RoCEv2 (UDP 4791) on the address IP of this host, or on the addresses\n"
    "of the interface IFACE (as `rdma link add NAME type rxe netdev IFACE`). Its GID\n"
    "table is laid out as rxe's: the link-local GID from the interface's MAC at 0, then\n"
    "each address, all RoCE v2 (-g 1 or -x 1: the first IPv4 address). No kernel RDMA\n"
    "and no NIC are needed. The program sees only\n"
    "these devices. ROCESHARK_VERBS_DEBUG=1 prints why a verb of ours fails.\n"
    "librdmacm programs run too (rping, ucmatose, rdma_client, ib_write_bw -R, qperf\n"
    "-cm1): " UCMA_LIB_NAME ", preloaded from beside the library, serves the\n"
    "kernel's RDMA CM, with CM MADs on QP 1. ROCESHARK_CM_TIMEOUT=CODE,RETRIES sets its\n"
    "response timeout (4.096 us * 2^CODE) and retries (20,15: rdma_cm's). A program\n"
    "off the processor has its port served by the library's thread, under SCHED_FIFO\n"
    "where allowed (ROCESHARK_VERBS_PRIORITY=normal: at the program's priority).\n"
    "\n"
    "  --dev NAME=IP|IFACE   a device (repeatable; at most 16). Without one,\n"
    "                        ROCESHARK_VERBS_DEVICES is used as it is (rs0=127.0.0.2,...)\n"
    "  --lib PATH            the library to preload (default: ROCESHARK_VERBS_LIB, else\n"
    "                        " LIB_NAME " beside this roceshark, else the installed one)\n"
    "\n"
    "The exit status is the program's; 127 when it is not found and 126 when it cannot\n"
    "be executed, as a shell says; 1 for an address that is not this host's.\n";

/* A device name as ibverbs prints it: letters, digits, '_', '-' and '.'. */
static bool
name_ok(const char *s, size_t n)
{
    if (n == 0 || n >= 64)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' || s[i] == '.'))
            return false;
    return true;
}

/* Whether gid is an address of this host: one a socket can bind (127.0.0.2 on lo's
 * 127/8 is, though no interface lists it). */
static bool
local_address(const uint8_t gid[16], uint32_t scope)
{
    struct sockaddr_storage sa;
    socklen_t len = rs_addr_to_sockaddr(gid, scope, 0, &sa);
    int fd = socket(sa.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return true;    /* cannot tell: the library will say */
    bool ok = bind(fd, (struct sockaddr *)&sa, len) == 0 || errno != EADDRNOTAVAIL;
    close(fd);
    return ok;
}

static int
add_device(char *devices, const char *arg)
{
    char err[RS_ERRBUF_SIZE];
    uint8_t gid[16];
    uint32_t scope;
    const char *eq = strchr(arg, '=');

    if (eq == NULL || !name_ok(arg, (size_t)(eq - arg)))
        return cli_fail(CLI_EXIT_USAGE, "run: --dev %s: expected NAME=IP or NAME=IFACE, NAME "
                        "of letters, digits, '_', '-' or '.'", arg);
    if (rs_addr_parse(eq + 1, gid, &scope, err) == 0) {
        if (!local_address(gid, scope)) {
            rs_error_errno(err, EADDRNOTAVAIL, eq + 1);
            return cli_fail(CLI_EXIT_USAGE, "run: --dev %s: %s", arg, err);
        }
    } else if (if_nametoindex(eq + 1) == 0) {
        /* Neither an address nor an interface: the interfaces there are say which. */
        rs_error_no_iface(err, eq + 1);
        return cli_fail(CLI_EXIT_USAGE, "run: --dev %s: not an address, and %s", arg, err);
    }
    size_t n = strlen(devices);
    if (n + strlen(arg) + 2 > DEVICES_MAX)
        return cli_fail(CLI_EXIT_USAGE, "run: too many devices");
    snprintf(devices + n, DEVICES_MAX - n, "%s%s", n > 0 ? "," : "", arg);
    return 0;
}

/* Where execvp() will find PROGRAM: its own path when it has a slash, else the first
 * executable of that name in PATH. False when there is none (execvp says why). */
static bool
program_path(const char *prog, char *out, size_t size)
{
    if (strchr(prog, '/') != NULL) {
        snprintf(out, size, "%s", prog);
        return true;
    }
    const char *path = getenv("PATH");
    char dirs[PATH_MAX];
    snprintf(dirs, sizeof(dirs), "%s", path != NULL ? path : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d != NULL;
         d = strtok_r(NULL, ":", &save)) {
        snprintf(out, size, "%s/%s", *d != '\0' ? d : ".", prog);
        if (access(out, X_OK) == 0)
            return true;
    }
    return false;
}

/* A 64-bit ELF executable without a program interpreter is linked statically: no
 * dynamic loader runs in it, so LD_PRELOAD cannot put the library there, and it would
 * see whatever verbs it was linked with (none that work here). Read by hand: two
 * fixed-size headers, where libelf would be a dependency for twenty lines. */
static bool
statically_linked(const char *path)
{
    Elf64_Ehdr eh;
    bool interp = false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return false;
    if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 4096) {
        close(fd);
        return false;   /* a script, or not what we read: not ours to judge */
    }
    for (unsigned i = 0; i < eh.e_phnum && !interp; i++) {
        Elf64_Phdr ph;
        if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
            (ssize_t)sizeof(ph))
            break;
        interp = ph.p_type == PT_INTERP;
    }
    close(fd);
    return !interp;
}

/* The library: --lib, ROCESHARK_VERBS_LIB, beside our executable (a build tree), or
 * where `cmake --install` put it, found from our executable's folder (the prefix is
 * chosen at install time: cpack's /usr is not the configured one). */
static int
find_library(const char *given, char *path, size_t size)
{
    char dir[PATH_MAX / 2];
    const char *env = getenv("ROCESHARK_VERBS_LIB");

    if (given != NULL || (env != NULL && env[0] != '\0')) {
        snprintf(path, size, "%s", given != NULL ? given : env);
        if (access(path, R_OK) != 0)
            return cli_fail(CLI_EXIT_USAGE, "run: %s: %s", path, strerror(errno));
        return 0;
    }
    ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
    char *slash = n > 0 ? memrchr(dir, '/', (size_t)n) : NULL;
    if (slash == NULL)
        return cli_fail(CLI_EXIT_INTERNAL, "run: where is roceshark: %s", strerror(errno));
    *slash = '\0';
    snprintf(path, size, "%s/%s", dir, LIB_NAME);
    if (access(path, R_OK) == 0)
        return 0;
    snprintf(path, size, "%s/../%s/%s", dir, RS_VERBS_LIB_RELDIR, LIB_NAME);
    if (access(path, R_OK) == 0)
        return 0;
    return cli_fail(CLI_EXIT_INTERNAL, "run: %s is neither beside %s nor in %s/../%s "
                    "(give --lib PATH)", LIB_NAME, dir, dir, RS_VERBS_LIB_RELDIR);
}

int
cmd_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"dev", required_argument, NULL, 'd'},
        {"lib", required_argument, NULL, 'L'},
        {NULL, 0, NULL, 0},
    };
    char devices[DEVICES_MAX] = "", lib[PATH_MAX], preload[4 * PATH_MAX];
    const char *lib_arg = NULL;
    int opt, n_dev = 0;

    /* '+': the options end at PROGRAM, whose own options are its business. */
    optind = 1;
    while ((opt = cli_getopt("run", argc, argv, "+h", longopts, usage)) != CLI_OPT_END) {
        switch (opt) {
        case CLI_OPT_HELP:
            return CLI_EXIT_OK;
        case 'd':
            if (++n_dev > 16)
                return cli_fail(CLI_EXIT_USAGE, "run: at most 16 devices");
            if (add_device(devices, optarg) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'L':
            lib_arg = optarg;
            break;
        default:    /* CLI_OPT_BAD, reported */
            return CLI_EXIT_USAGE;
        }
    }
    if (optind >= argc)
        return cli_fail(CLI_EXIT_USAGE, "run: no program to run (try 'roceshark run -h')");
    if (n_dev == 0 && (getenv(DEVICES_ENV) == NULL || getenv(DEVICES_ENV)[0] == '\0'))
        return cli_fail(CLI_EXIT_USAGE, "run: no device: give --dev NAME=IP or NAME=IFACE "
                        "(or set %s)", DEVICES_ENV);
    int rc = find_library(lib_arg, lib, sizeof(lib));
    if (rc != 0)
        return rc;
    /* Ours after what is preloaded already: a sanitizer's runtime must come first. A
     * sanitizer build's library brings its own runtimes, unless they are there already.
     * The RDMA CM's descriptor calls (libroceshark-ucma.so) come with the library, from
     * beside it. */
    char ucma[PATH_MAX];
    const char *slash = strrchr(lib, '/');
    snprintf(ucma, sizeof(ucma), "%.*s%s", slash != NULL ? (int)(slash - lib + 1) : 0, lib,
             UCMA_LIB_NAME);
    const char *old = getenv("LD_PRELOAD");
    const char *runtimes = RS_SANITIZER_RUNTIMES;
    if (old != NULL && strstr(old, "libasan") != NULL)
        runtimes = "";
    preload[0] = '\0';
    const char *parts[] = {runtimes, old != NULL ? old : "", lib,
                           access(ucma, R_OK) == 0 ? ucma : ""};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        if (parts[i][0] == '\0')
            continue;
        size_t used = strlen(preload);
        snprintf(preload + used, sizeof(preload) - used, "%s%s", used > 0 ? ":" : "",
                 parts[i]);
    }
    /* The program is not ours, and its leaks (perftest never frees its device list) are
     * not our library's errors; LeakSanitizer cannot tell the two apart, since every
     * allocation's stack passes through the program. Memory errors are still reported. */
    char asan_options[1024];
    const char *asan_old = getenv("ASAN_OPTIONS");
    snprintf(asan_options, sizeof(asan_options), "%s%sdetect_leaks=0",
             asan_old != NULL ? asan_old : "", asan_old != NULL && asan_old[0] ? ":" : "");
    if ((runtimes[0] != '\0' && setenv("ASAN_OPTIONS", asan_options, 1) != 0) ||
        (n_dev > 0 && setenv(DEVICES_ENV, devices, 1) != 0) ||
        setenv("LD_PRELOAD", preload, 1) != 0)
        return cli_fail(CLI_EXIT_INTERNAL, "run: setenv: %s", strerror(errno));
    char prog[PATH_MAX];
    if (program_path(argv[optind], prog, sizeof(prog)) && statically_linked(prog))
        fprintf(stderr, "roceshark: run: warning: %s is statically linked: the verbs library "
                "cannot be preloaded into it, and it will not see these devices\n", prog);
    fflush(NULL);
    execvp(argv[optind], argv + optind);
    int e = errno;
    cli_fail(CLI_EXIT_USAGE, "run: %s: %s", argv[optind], strerror(e));
    return e == ENOENT ? 127 : 126;
}
