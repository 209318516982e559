/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sniffer_none.c - built without libibverbs (ROCESHARK_VERBS=OFF): RDMA
 * devices are reported as unsupported.
 */
#include "source_int.h"

int
rs_source_create_rdma(const char *dev, struct rs_source **out, char *err)
{
    (void)out;
    return rs_error(err, RS_ENOTSUP, "%s: roceshark was built without libibverbs "
                    "(ROCESHARK_VERBS=OFF)", dev);
}

int
source_verbs_activate(struct rs_source *src, const struct rs_live_opts *opts, char *err)
{
    (void)opts;
    return rs_error(err, RS_ENOTSUP, "%s: built without libibverbs", src->name);
}

int
rs_capture_list_rdma(struct rs_rdma_dev *out, size_t max, size_t *n, char *note, char *err)
{
    (void)out, (void)max, (void)err;
    *n = 0;
    rs_error(note, 0, "roceshark was built without libibverbs");
    return 0;
}
