/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_replay.c - main() for a fuzz target without libFuzzer: runs each file
 * named, and each file of each directory named, through the target once, in
 * name order, with every output of every frame. A crash or a sanitizer's
 * report fails the run; ctest runs the corpora this way in every build.
 *
 * usage: TARGET_replay FILE|DIR...   (prints how many inputs ran)
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib.h>

#include "fuzz_target.h"

static unsigned long runs;

static int
run_file(const char *path)
{
    gchar *bytes;
    gsize len;
    GError *e = NULL;

    if (!g_file_get_contents(path, &bytes, &len, &e)) {
        fprintf(stderr, "replay: %s\n", e->message);
        g_error_free(e);
        return -1;
    }
    /* An exact-size copy: g_file_get_contents adds a NUL that would hide an overread. */
    uint8_t *exact = malloc(len ? len : 1);
    if (exact == NULL)
        abort();
    memcpy(exact, bytes, len);
    g_free(bytes);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    runs++;
    return 0;
}

static int
compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    int rc = 0;

    if (d == NULL) {
        fprintf(stderr, "replay: %s: cannot open\n", dir);
        return -1;
    }
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] != '.')
            g_ptr_array_add(names, g_build_filename(dir, de->d_name, NULL));
    closedir(d);
    qsort(names->pdata, names->len, sizeof(gpointer), compare_names);
    for (guint i = 0; i < names->len && rc == 0; i++) {
        struct stat st;
        const char *p = g_ptr_array_index(names, i);
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
            rc = run_file(p);
    }
    g_ptr_array_free(names, TRUE);
    return rc;
}

int
main(int argc, char **argv)
{
    fuzz_every_output = true;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: no such file or directory\n", argv[i]);
            return 2;
        }
        if ((S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i])) != 0)
            return 2;
    }
    printf("%lu inputs\n", runs);
    return 0;
}
