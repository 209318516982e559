/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_fields.c - `roceshark fields [PREFIX]`: every field we know, with its
 * type and description, like `tshark -G fields`.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/print.h>

#include "cli.h"

int
cmd_fields(int argc, char **argv)
{
    static const char usage[] =
        "usage: roceshark fields [PREFIX]\n"
        "Lists every field: name, type and description, one per line. 'roceshark read\n"
        "-G fields' lists them as tshark -G fields does.\n";
    const char *prefix = "";
    int c;

    optind = 1;
    if ((c = cli_getopt("fields", argc, argv, "h", NULL, usage)) != CLI_OPT_END)
        return c == CLI_OPT_HELP ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    if (argc - optind > 1)
        return cli_fail(CLI_EXIT_USAGE, "fields: expected at most one PREFIX argument");
    if (optind < argc)
        prefix = argv[optind];
    size_t plen = strlen(prefix);
    int shown = 0;
    for (int id = 0; id < rs_field_count(); id++) {
        const struct rs_field *f = rs_field_by_id(id);
        if (strncmp(f->abbrev, prefix, plen) != 0 || !rs_field_is_first_of_name(id))
            continue;
        printf("%s\t%s\t%s\n", f->abbrev, rs_field_type_name(f->type), f->blurb);
        shown++;
    }
    if (shown == 0)
        return cli_fail(CLI_EXIT_USAGE, "fields: no field starts with '%s'", prefix);
    /* A full disk or a closed pipe shows only when the buffer goes out. */
    if (fflush(stdout) != 0 || ferror(stdout))
        return cli_fail(CLI_EXIT_OUTPUT, "fields: standard output: %s", strerror(errno));
    return CLI_EXIT_OK;
}
