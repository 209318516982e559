/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_fields.c - `roceshark fields [PREFIX]`: every field we know, with its
 * type and description, like `tshark -G fields`.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <roceshark/fields.h>

#include "cli.h"

static const char *const type_names[] = {
    [RS_FT_PROTOCOL] = "FT_PROTOCOL", [RS_FT_BOOLEAN] = "FT_BOOLEAN",
    [RS_FT_UINT8] = "FT_UINT8",       [RS_FT_UINT16] = "FT_UINT16",
    [RS_FT_UINT24] = "FT_UINT24",     [RS_FT_UINT32] = "FT_UINT32",
    [RS_FT_UINT64] = "FT_UINT64",     [RS_FT_INT32] = "FT_INT32",     [RS_FT_FRAMENUM] = "FT_FRAMENUM",
    [RS_FT_DOUBLE] = "FT_DOUBLE",     [RS_FT_RELTIME] = "FT_RELATIVE_TIME",
    [RS_FT_ABSTIME] = "FT_ABSOLUTE_TIME", [RS_FT_BYTES] = "FT_BYTES",
    [RS_FT_ETHER] = "FT_ETHER",       [RS_FT_IPV4] = "FT_IPv4",
    [RS_FT_IPV6] = "FT_IPv6",         [RS_FT_STRING] = "FT_STRING",
    [RS_FT_NONE] = "FT_NONE",
};

int
cmd_fields(int argc, char **argv)
{
    const char *prefix = "";

    if (argc > 2)
        return cli_fail(CLI_EXIT_USAGE, "fields: expected at most one PREFIX argument");
    if (argc == 2) {
        if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
            puts("usage: roceshark fields [PREFIX]\n"
                 "Lists every field: name, type and description, one per line.");
            return CLI_EXIT_OK;
        }
        prefix = argv[1];
    }
    size_t plen = strlen(prefix);
    int shown = 0;
    for (int id = 0; id < rs_field_count(); id++) {
        const struct rs_field *f = rs_field_by_id(id);
        if (strncmp(f->abbrev, prefix, plen) != 0 || rs_field_lookup(f->abbrev) != id)
            continue;
        printf("%s\t%s\t%s\n", f->abbrev, type_names[f->type], f->blurb);
        shown++;
    }
    if (shown == 0)
        return cli_fail(CLI_EXIT_USAGE, "fields: no field starts with '%s'", prefix);
    /* A full disk or a closed pipe shows only when the buffer goes out. */
    if (fflush(stdout) != 0 || ferror(stdout))
        return cli_fail(CLI_EXIT_OUTPUT, "fields: standard output: %s", strerror(errno));
    return CLI_EXIT_OK;
}
