/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * corr_spill.h - each point's sightings (include/roceshark/dissectors/corr.h), written
 * in capture order to an unlinked file as the estimating pass reads the capture, and read
 * back by a matching pass that prints no frame: it then neither reads nor decodes the
 * captures again. A record is sizeof(struct rs_corr_sighting) bytes a frame.
 */
#ifndef ROCESHARK_CLI_CORR_SPILL_H
#define ROCESHARK_CLI_CORR_SPILL_H

#include <stdbool.h>
#include <stdio.h>

#include <roceshark/dissectors/corr.h>

#define CORR_SPILL_BATCH 4096       /* records written or read at a time */

struct corr_spill {
    FILE *fp;                       /* NULL: none (it could not be made or written) */
    struct rs_corr_sighting *buf;   /* CORR_SPILL_BATCH */
    size_t n, at;                   /* records in buf; the next one read */
};

/* An empty spill in $TMPDIR (else /tmp), unlinked at once; false when none can be made
 * (the matching pass then reads the capture). */
bool corr_spill_open(struct corr_spill *s);
/* Appends a record; false once a write failed (the spill is then closed). */
bool corr_spill_put(struct corr_spill *s, const struct rs_corr_sighting *r);
/* Writes what is buffered and rewinds for reading; false on a write error (closed). */
bool corr_spill_rewind(struct corr_spill *s);
/* The next record, or NULL at the end; *failed set on a read error. */
const struct rs_corr_sighting *corr_spill_next(struct corr_spill *s, bool *failed);
void corr_spill_close(struct corr_spill *s);

#endif /* ROCESHARK_CLI_CORR_SPILL_H */
