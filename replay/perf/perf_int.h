/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_int.h - what the session (perf_session.c) and the loops
 * (perf_run.c) share.
 */
#ifndef ROCESHARK_PERF_INT_H
#define ROCESHARK_PERF_INT_H

#include <roceshark/perf.h>

/* Posts receive slot (of size bytes) again. */
int rs_perf_post_recv(struct rs_perf *p, uint32_t slot, char *err);

#endif /* ROCESHARK_PERF_INT_H */
