/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source_merge.c - several capture files read as one, in time order, as mergecap merges
 * them: each file is opened by the reader of its format (the pcap reader reads ahead on
 * a thread of its own), and the frame handed out next is the earliest of the files'
 * next frames, on a tie the last file's (mergecap's rule). The frames are numbered, and
 * their times since the first and the previous frame taken, across the files.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <roceshark/dissectors/common.h>

#include "source_int.h"

struct merge_input {
    struct rs_source *src;
    struct rs_frame head;       /* its next frame, valid until its next read */
    bool have_head;
    bool ended;
};

struct merge_source {
    size_t n;
    struct merge_input *in;
    ssize_t last;               /* the input whose frame went out last: read it next */
};

/* Reads input i's next frame into its head; 0, or the input's error. */
static int
advance(struct merge_input *in, char *err)
{
    int rc = rs_source_next(in->src, &in->head, err);

    in->have_head = rc == 1;
    in->ended = rc != 1;
    return rc < 0 ? rc : 0;
}

static int
merge_next(struct rs_source *src, struct rs_frame *frame, char *err)
{
    struct merge_source *m = src->priv;
    int rc;

    if (m->last >= 0 && (rc = advance(&m->in[m->last], err)) != 0)
        return rc;
    m->last = -1;
    for (size_t i = 0; i < m->n; i++) {
        const struct merge_input *in = &m->in[i];
        if (!in->have_head)
            continue;
        if (m->last < 0 ||
            rs_time_cmp(rs_frame_time(&in->head), rs_frame_time(&m->in[m->last].head)) <= 0)
            m->last = (ssize_t)i;
    }
    if (m->last < 0)
        return 0;
    *frame = m->in[m->last].head;
    source_stamp(src, frame, frame->linktype, frame->ts_digits);
    return 1;
}

static void
merge_close(struct rs_source *src)
{
    struct merge_source *m = src->priv;

    for (size_t i = 0; m != NULL && i < m->n; i++)
        rs_source_close(m->in[i].src);
    if (m != NULL)
        free(m->in);
    free(m);
}

static const struct rs_source_ops merge_ops = {merge_next, NULL, merge_close, NULL};

int
rs_source_open_files(const char *const *paths, size_t n, struct rs_source **out, char *err)
{
    struct rs_source *src = NULL;
    struct merge_source *m;
    int rc;

    *out = NULL;
    if (n == 1)
        return rs_source_open_file(paths[0], out, err);
    if ((rc = source_create("merged files", &src, err)) != 0)
        return rc;
    if ((m = calloc(1, sizeof(*m))) == NULL || (m->in = calloc(n, sizeof(*m->in))) == NULL) {
        free(m);
        rs_source_close(src);
        return rs_error(err, RS_ENOMEM, "out of memory");
    }
    src->ops = &merge_ops;
    src->priv = m;
    m->last = -1;
    for (size_t i = 0; i < n; i++, m->n++) {
        struct merge_input *in = &m->in[i];
        if ((rc = rs_source_open_file(paths[i], &in->src, err)) != 0 ||
            (rc = advance(in, err)) != 0) {
            m->n += in->src != NULL;
            rs_source_close(src);
            return rc;
        }
        /* What -w writes: the first file's link type (a pcapng file takes every one),
         * pcapng if any is, the largest snapshot length, the finest clock. */
        if (i == 0)
            src->linktype = rs_source_linktype(in->src);
        src->pcapng |= rs_source_is_pcapng(in->src);
        if (rs_source_snaplen(in->src) > src->snaplen)
            src->snaplen = rs_source_snaplen(in->src);
        if (rs_source_ts_digits(in->src) > src->ts_digits)
            src->ts_digits = rs_source_ts_digits(in->src);
    }
    *out = src;
    return 0;
}
