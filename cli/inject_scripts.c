/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inject_scripts.c - `roceshark inject --script` and `--suite`: scenario scripts run
 * against a target, reported as TAP and JUnit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inject_cli.h"

/* One script: loaded and run; n results, or the exit code of why not. */
static int
script_results(const struct inject_opts *io, const char *path, struct rs_script_result *res,
               unsigned *n)
{
    struct rs_script *s;
    struct rs_script_opts so = {.bind = io->bind, .target = io->target, .pcap = io->file,
                                .no_raw = io->no_raw, .reset = io->reset,
                                .linger_ns = io->linger_ns,
                                .target_info = io->target_file != NULL ? &io->target_info
                                                                       : NULL};
    char err[RS_ERRBUF_SIZE];

    if (rs_script_load(path, &s, err) != 0)
        return cli_fail(strstr(err, ": No such file") != NULL ? CLI_EXIT_INPUT : CLI_EXIT_USAGE,
                        "inject: %s", err);
    int rc = rs_script_run(s, &so, res, n, err);
    rs_script_free(s);
    if (rc != 0)
        return cli_fail(cli_exit_code(rc, CLI_EXIT_CAPTURE), "inject: %s: %s",
                        path, err);
    return 0;
}

static FILE *
junit_open(const struct inject_opts *io)
{
    FILE *f = io->junit != NULL ? fopen(io->junit, "w") : NULL;

    if (f != NULL)
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n", f);
    return f;
}

static int
junit_close(const struct inject_opts *io, FILE *f)
{
    if (io->junit == NULL)
        return 0;
    if (f != NULL)
        fputs("</testsuites>\n", f);
    if (f == NULL || fclose(f) != 0)
        return cli_fail(CLI_EXIT_OUTPUT, "inject: --junit %s: %m", io->junit);
    return 0;
}

/* --script: TAP lines and their count, JUnit XML; exit 6 when an expectation failed. */
int
inject_run_script(const struct inject_opts *io)
{
    struct rs_script_result res[RS_SCRIPT_MAX_RESULTS];
    unsigned n = 0;
    struct timespec t0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = script_results(io, io->script, res, &n);
    if (rc != 0)
        return rc;
    rs_script_print_tap(stdout, res, n);
    FILE *f = junit_open(io);
    if (f != NULL)
        rs_script_print_junit(f, io->script, res, n, cli_seconds_since(&t0));
    if ((rc = junit_close(io, f)) != 0)
        return rc;
    unsigned failed = rs_script_failures(res, n), expectations = 0;
    for (unsigned k = 0; k < n; k++)
        expectations += !res[k].note;
    printf("# %u expectations: %u passed, %u failed\n", expectations, expectations - failed,
           failed);
    return failed > 0 ? CLI_EXIT_EXPECT : CLI_EXIT_OK;
}

static gint
compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.script files under dir, sorted. */
static void
find_scripts(const char *dir, GPtrArray *out)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;

    if (d == NULL)
        return;
    while ((name = g_dir_read_name(d)) != NULL) {
        char *path = g_build_filename(dir, name, NULL);
        if (g_file_test(path, G_FILE_TEST_IS_DIR))
            find_scripts(path, out);
        else if (g_str_has_suffix(name, ".script"))
            g_ptr_array_add(out, g_strdup(path));
        g_free(path);
    }
    g_dir_close(d);
}

/* --suite DIR: every script under DIR against the target, as a table of behaviour,
 * verdict and evidence; exit 6 when an expectation failed. */
int
inject_run_suite(const struct inject_opts *io)
{
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
    struct rs_script_result res[RS_SCRIPT_MAX_RESULTS];
    unsigned total = 0, failed = 0, scripts = 0;
    int rc = 0;

    find_scripts(io->suite, paths);
    g_ptr_array_sort(paths, compare_names);
    if (paths->len == 0) {
        g_ptr_array_free(paths, TRUE);
        return cli_fail(CLI_EXIT_INPUT, "inject: --suite %s: no .script files", io->suite);
    }
    FILE *f = junit_open(io);
    size_t skip = strlen(io->suite) + (io->suite[strlen(io->suite) - 1] != '/');
    printf("%-60s %-6s %s\n", "behaviour: expectation", "result", "evidence");
    for (guint i = 0; i < paths->len && rc == 0; i++) {
        const char *path = g_ptr_array_index(paths, i);
        unsigned n = 0;
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if ((rc = script_results(io, path, res, &n)) != 0)
            break;
        scripts++;
        char behaviour[128];
        snprintf(behaviour, sizeof(behaviour), "%s", path + skip);
        if (g_str_has_suffix(behaviour, ".script"))
            behaviour[strlen(behaviour) - 7] = '\0';
        for (unsigned k = 0; k < n; k++) {
            char what[256];
            snprintf(what, sizeof(what), "%.90s: %.160s", behaviour, res[k].text);
            printf("%-60s %-6s %s\n", what, res[k].note ? "note" : res[k].ok ? "pass" : "FAIL",
                   res[k].evidence);
            total += !res[k].note;
        }
        failed += rs_script_failures(res, n);
        if (f != NULL)
            rs_script_print_junit(f, behaviour, res, n, cli_seconds_since(&t0));
    }
    g_ptr_array_free(paths, TRUE);
    int jrc = junit_close(io, f);
    if (rc != 0)
        return rc;
    printf("%u scripts, %u expectations: %u passed, %u failed\n", scripts, total,
           total - failed, failed);
    if (jrc != 0)
        return jrc;
    return failed > 0 ? CLI_EXIT_EXPECT : CLI_EXIT_OK;
}

