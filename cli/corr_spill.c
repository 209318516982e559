/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * corr_spill.c - a point's sightings spilled to an unlinked file and read back
 * (corr_spill.h). Records go by batches through the file's own descriptor's stdio
 * stream: a write per CORR_SPILL_BATCH records, not per frame.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corr_spill.h"

bool
corr_spill_open(struct corr_spill *s)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    int fd;

    memset(s, 0, sizeof(*s));
    if (dir == NULL || *dir == '\0')
        dir = "/tmp";
    if ((size_t)snprintf(path, sizeof(path), "%s/roceshark-corr-XXXXXX", dir) >= sizeof(path))
        return false;
    if ((fd = mkstemp(path)) < 0)
        return false;
    unlink(path);
    s->buf = malloc(CORR_SPILL_BATCH * sizeof(*s->buf));
    if (s->buf == NULL || (s->fp = fdopen(fd, "w+b")) == NULL) {
        free(s->buf);
        s->buf = NULL;
        close(fd);
        return false;
    }
    return true;
}

static bool
write_out(struct corr_spill *s)
{
    if (s->n > 0 && fwrite(s->buf, sizeof(*s->buf), s->n, s->fp) != s->n) {
        corr_spill_close(s);
        return false;
    }
    s->n = 0;
    return true;
}

bool
corr_spill_put(struct corr_spill *s, const struct rs_corr_sighting *r)
{
    if (s->fp == NULL)
        return false;
    s->buf[s->n++] = *r;
    return s->n < CORR_SPILL_BATCH || write_out(s);
}

bool
corr_spill_rewind(struct corr_spill *s)
{
    if (s->fp == NULL || !write_out(s))
        return false;
    if (fflush(s->fp) != 0 || fseek(s->fp, 0, SEEK_SET) != 0) {
        corr_spill_close(s);
        return false;
    }
    s->n = s->at = 0;
    return true;
}

const struct rs_corr_sighting *
corr_spill_next(struct corr_spill *s, bool *failed)
{
    if (s->at == s->n) {
        s->n = fread(s->buf, sizeof(*s->buf), CORR_SPILL_BATCH, s->fp);
        s->at = 0;
        if (s->n == 0) {
            *failed = ferror(s->fp) != 0;
            return NULL;
        }
    }
    return &s->buf[s->at++];
}

void
corr_spill_close(struct corr_spill *s)
{
    if (s->fp != NULL)
        fclose(s->fp);
    free(s->buf);
    memset(s, 0, sizeof(*s));
}
