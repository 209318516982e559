/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats_iwarp.c - `-z iwarp`: what the iWARP stage counted over a capture, and
 * the reassembly memory it held against its bounds.
 */
#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/dissectors/stats.h>

#include "stats/stats_int.h"

void
rs_iwarp_print_stats(const struct rs_iwarp *iw, struct rs_out *o)
{
    struct rs_iwarp_stats stats;
    struct rs_iwarp_opts opts;
    const struct rs_iwarp_stats *st = &stats;

    rs_iwarp_get_stats(iw, &stats);
    rs_iwarp_get_opts(iw, &opts);

    rs_out_printf(o, "\niWARP\n=====\n");
    rs_out_printf(o, "Connections:                %llu (%llu evicted from the table of %u)\n",
                  (unsigned long long)st->connections, (unsigned long long)st->evictions,
                  opts.max_conns);
    rs_out_printf(o, "FPDUs:                      %llu\n", (unsigned long long)st->fpdus);
    rs_out_printf(o, "Bad CRCs:                   %llu\n", (unsigned long long)st->crc_errors);
    rs_out_printf(o, "Retransmitted segments:     %llu\n",
                  (unsigned long long)st->retransmissions);
    rs_out_printf(o, "Out-of-order segments:      %llu\n", (unsigned long long)st->out_of_order);
    rs_out_printf(o, "Reassembly bound hits:      %llu\n",
                  (unsigned long long)st->buffer_limit_hits);
    rs_out_printf(o, "Stream bytes given up:      %llu\n", (unsigned long long)st->bytes_lost);
    rs_out_printf(o, "Framing found by search:    %llu\n", (unsigned long long)st->resyncs);
    rs_out_printf(o, "Reassembly memory:          %llu bytes now, %llu at most "
                  "(bounds: %u per direction, %llu in all)\n",
                  (unsigned long long)st->memory, (unsigned long long)st->memory_peak,
                  opts.max_buffer, (unsigned long long)opts.max_memory);
    rs_out_end_frame(o);
}

/* -z iwarp takes no arguments and counts nothing of its own: the stage counted. */
int
stats_iwarp_init(struct rs_stat *st, const char *args, char *err)
{
    (void)st, (void)args, (void)err;
    return 0;
}

void
stats_iwarp_print(struct rs_stat *st, const struct rs_stat_stages *at, struct rs_out *o)
{
    (void)st;
    rs_iwarp_print_stats(at->iwarp, o);
}
