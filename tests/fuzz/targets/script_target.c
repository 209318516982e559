/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * script_target.c - the scenario-script parser (`inject --script`), which
 * also parses the fault rules a script holds, and the fault-rule parser on
 * its own (`--faults`). Nothing runs: a script that parses is freed. A
 * refusal must say why in one line.
 */
#include <stdlib.h>
#include <string.h>

#include <roceshark/inject/faults.h>
#include <roceshark/inject/script.h>

#include "fuzz_target.h"

static void
check_refusal(const char *err)
{
    if (err[0] == '\0' || strchr(err, '\n') != NULL)
        abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    char err[RS_ERRBUF_SIZE] = "";
    struct rs_script *script;
    struct rs_faults *faults;

    if (rs_script_parse(text, "fuzz", &script, err) == 0)
        rs_script_free(script);
    else
        check_refusal(err);
    err[0] = '\0';
    if (rs_faults_parse(text, "fuzz", &faults, err) == 0)
        rs_faults_free(faults);
    else
        check_refusal(err);
    free(text);
    return 0;
}
