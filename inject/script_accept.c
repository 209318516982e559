/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * script_accept.c - a script whose target is a requester (accept): our
 * responder serves it, through the side channel it connects to or a static
 * QP, while the script's run command starts it. The run lasts until that
 * command has exited (and a little more, for what follows), until the
 * wire has been quiet a while when there is no command, or until the
 * deadline; a command still running then is stopped.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <roceshark/transport/responder.h>

#include "script_int.h"

#define TICK_NS 5000000ull              /* how often the run looks at the command */
#define QUIET_NS 500000000ull           /* no command: the wire quiet this long ends it */

struct accept_run {
    pid_t pid;
    int status;                         /* the command's exit status, -1 while running */
    uint64_t end, linger, linger_ns;
    const uint64_t *last_packet;
    int tick;
};

/* The command, with what it needs to find us in its environment. */
static pid_t
start(const char *cmd, const struct script_env *env, char *err)
{
    pid_t pid;

    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        rs_error(err, RS_EIO, "run: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        script_env_set(env);
        dup2(STDERR_FILENO, STDOUT_FILENO);     /* our stdout is the report */
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static bool
on_tick(struct rs_responder *resp, void *arg)
{
    struct accept_run *a = arg;
    uint64_t expirations;
    int st;

    (void)resp;
    if (read(a->tick, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
        return false;
    uint64_t now = rs_rc_now_ns();
    if (a->pid > 0 && a->status < 0 && waitpid(a->pid, &st, WNOHANG) == a->pid) {
        a->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        a->linger = now + a->linger_ns;
    }
    if (now >= a->end || (a->linger != 0 && now >= a->linger))
        return false;
    return !(a->pid <= 0 && *a->last_packet != 0 && now - *a->last_packet > QUIET_NS);
}

int
script_accept(const struct rs_script *s, const uint8_t our_gid[16], uint32_t our_scope,
              const char *bind, uint64_t linger_ns,
              struct rs_rc_udp *udp, struct rs_rc_ctx *ctx, const uint64_t *last_packet,
              int *status, char *err)
{
    struct rs_responder_opts ro;
    struct rs_responder *resp = NULL;
    struct accept_run a = {-1, -1, rs_rc_now_ns() + s->timeout_ns, 0, linger_ns, last_packet,
                           -1};
    struct itimerspec every = {{0, TICK_NS}, {0, TICK_NS}};
    int rc;

    *status = -1;
    rs_responder_opts_init(&ro);
    ro.attr = s->attr;
    memcpy(ro.local_gid, our_gid, 16);
    ro.local_scope = our_scope;
    ro.qpn0 = s->qpn;
    ro.psn = s->psn;
    ro.recv_n = 256;
    ro.recv_size = 65536;
    ro.repost = true;
    if (s->side) {
        ro.n_static = 0;
        ro.listen_port = s->port;
    } else {
        ro.listen_port = 0;
        ro.have_peer = true;
        memcpy(ro.peer_gid, s->peer.gid, 16);
        ro.peer_qpn = s->peer.qpn;
        ro.peer_psn = s->peer.psn;
    }
    if ((rc = rs_responder_open(&ro, udp, ctx, &resp, err)) != 0)
        return RS_EIO;
    a.tick = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (a.tick < 0 || timerfd_settime(a.tick, 0, &every, NULL) != 0) {
        rc = rs_error(err, RS_EIO, "timer: %s", strerror(errno));
        goto out;
    }
    if (s->run != NULL) {
        char target[RS_ADDR_TEXT_MAX];
        struct rs_rc_conn_info ours;
        rs_addr_format(s->peer.gid, s->scope, target, sizeof(target));
        /* Our QP (the first the side channel gives, or the static one) and region. */
        rs_responder_get_info(resp, s->qpn, &ours);
        struct script_env env = {bind, target, ours.qpn, ours.psn, true, ours.rkey, ours.va};
        if ((a.pid = start(s->run, &env, err)) < 0) {
            rc = RS_EIO;
            goto out;
        }
    }
    rc = rs_responder_run(resp, a.tick, on_tick, &a, err) != 0 ? RS_EIO : 0;
out:
    if (a.pid > 0 && a.status < 0) {
        int st;
        kill(a.pid, SIGTERM);
        waitpid(a.pid, &st, 0);
    }
    if (a.tick >= 0)
        close(a.tick);
    *status = a.status;
    rs_responder_close(resp);
    return rc;
}
