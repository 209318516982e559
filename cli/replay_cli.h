/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_cli.h - `roceshark replay`'s options, which replay_args.c parses and
 * cmd_replay.c wires.
 */
#ifndef ROCESHARK_CLI_REPLAY_CLI_H
#define ROCESHARK_CLI_REPLAY_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/replay/replay.h>

#define SIDE_PORT 18515

struct replay_opts {
    const char *file, *junit, *preload_file;
    struct rs_replay_pick pick;
    struct rs_replay_rewrite rw;
    struct rs_replay_run_opts run;
    bool have_target, have_dst, have_va_offset, validate, tap, lenient_rnr, payloads;
    bool messages, side_responder, diff, preload;
    uint16_t listen;
    uint8_t target[16], dst_family;     /* target: --target's address as a GID */
    uint32_t target_scope;
    uint16_t target_port;
};

/* argv into ro; 0, -1 after -h, or the exit code, reported. */
int replay_parse_args(struct replay_opts *ro, int argc, char **argv);

#endif /* ROCESHARK_CLI_REPLAY_CLI_H */
