/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * script_env.c - the commands a script runs beside the target: accept's run command,
 * which starts the target requester, and --reset, which readies the target before each
 * script. Both learn where we are and what our QP is from their environment
 * (docs/scripts.md), so that a target set up by other means can be pointed at a QP whose
 * number and first PSN are new at every run.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "script_int.h"

static void
set_u64(const char *name, uint64_t v)
{
    char text[24];

    snprintf(text, sizeof(text), "%" PRIu64, v);
    setenv(name, text, 1);
}

void
script_env_set(const struct script_env *e)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

    self[n > 0 ? n : 0] = '\0';
    setenv("ROCESHARK", self, 1);
    setenv("BIND", e->bind, 1);
    setenv("TARGET", e->target, 1);
    set_u64("QPN", e->qpn);
    set_u64("PSN", e->psn);
    if (e->has_region) {
        set_u64("RKEY", e->rkey);
        set_u64("VA", e->va);
    }
}

int
script_env_run(const char *what, const char *cmd, const struct script_env *e, char *err)
{
    int st;

    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return rs_error(err, RS_EIO, "%s: %s", what, strerror(errno));
    if (pid == 0) {
        script_env_set(e);
        dup2(STDERR_FILENO, STDOUT_FILENO);     /* our stdout is the report */
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return rs_error(err, RS_EIO, "%s: %s", what, strerror(errno));
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    if (WIFEXITED(st))
        return rs_error(err, RS_EIO, "%s: \"%s\" exited with %d", what, cmd, WEXITSTATUS(st));
    return rs_error(err, RS_EIO, "%s: \"%s\" was killed by signal %d", what, cmd,
                    WTERMSIG(st));
}
