/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * thread_state.h - whether a thread of this process sleeps (state S in its
 * /proc stat), for the tests of a read that must wait: test_ucma and cm_api.
 */
#ifndef ROCESHARK_TEST_THREAD_STATE_H
#define ROCESHARK_TEST_THREAD_STATE_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* True if thread tid sleeps, or is gone. */
static inline bool
test_thread_sleeps(pid_t tid)
{
    char path[64], buf[256];

    snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return true;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');
    return paren != NULL && paren[1] == ' ' && paren[2] == 'S';
}

#endif /* ROCESHARK_TEST_THREAD_STATE_H */
