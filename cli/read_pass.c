/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read_pass.c - `read -2 -R FILTER`: the first of tshark's two passes, which marks the
 * frames the read filter keeps; the second pass (cmd_read.c) decodes those alone.
 *
 * The mark is a bit per frame, grown by doubling: an eighth of a byte per frame is what
 * it costs to read the file twice rather than hold its frames.
 */
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/nstime.h>

#include "cli.h"
#include "read_int.h"

static bool
mark(struct read_pass *pass, uint64_t index, uint64_t *words)
{
    uint64_t word = index / 64;

    if (word >= *words) {
        uint64_t n = *words != 0 ? *words * 2 : 1024;
        uint64_t *bits = realloc(pass->kept, n * sizeof(*bits));
        if (bits == NULL)
            return false;
        memset(bits + *words, 0, (n - *words) * sizeof(*bits));
        pass->kept = bits;
        *words = n;
    }
    pass->kept[word] |= 1ull << (index % 64);
    return true;
}

int
read_pass_first(const char *file, const struct rs_pipeline_opts *opts, const char *filter,
                unsigned long long count, struct read_pass *pass)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_pipeline_opts po = *opts;
    struct rs_pipeline *pipe = NULL;
    struct rs_source *src = NULL;
    struct rs_frame frame;
    uint64_t words = 0;
    int rc;

    memset(pass, 0, sizeof(*pass));
    po.filter = filter;
    if (rs_pipeline_new(&po, &pipe, err) != 0)
        return cli_fail(READ_EXIT_FILTER, "-R %.60s%s: %s", filter, strlen(filter) > 60 ? "..." : "",
                        err);
    if (rs_source_open_file(file, &src, err) != 0) {
        rs_pipeline_free(pipe);
        return cli_fail(CLI_EXIT_INPUT, "%s", err);
    }
    while ((count == 0 || pass->frames < count) && (rc = rs_source_next(src, &frame, err)) == 1) {
        if (rs_pipeline_process(pipe, &frame)->match && !mark(pass, pass->frames, &words)) {
            rc = cli_fail(CLI_EXIT_INTERNAL, "out of memory");
            goto done;
        }
        pass->frames++;
    }
    rc = rc < 0 ? cli_fail(CLI_EXIT_INPUT, "%s: %s", file, err) : 0;
done:
    rs_source_close(src);
    rs_pipeline_free(pipe);
    return rc;
}

bool
read_pass_keep(struct read_pass *pass, struct rs_frame *frame)
{
    uint64_t index = frame->number - 1;

    if (index >= pass->frames || pass->kept == NULL ||
        !(pass->kept[index / 64] >> (index % 64) & 1))
        return false;
    struct rs_time t = rs_frame_time(frame);
    frame->delta = pass->number == 0 ? (struct rs_time){0, 0} : rs_time_sub(t, pass->prev);
    frame->original = frame->number;
    frame->number = ++pass->number;
    pass->prev = t;
    return true;
}

void
read_pass_free(struct read_pass *pass)
{
    free(pass->kept);
    pass->kept = NULL;
}
