/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ether_names_snapshot.c - the Ethernet names' tables (ether_names.c) kept in a file of the
 * user's cache folder ($XDG_CACHE_HOME/roceshark/ether-names, else ~/.cache/...), so that
 * a run maps them rather than reading manuf's 50,000 lines: the next run whose files are
 * the same ones (same paths, devices, inodes, sizes and times, and absent the same) maps
 * the tables as they are, its look-ups reading only the pages they touch. A run that finds
 * no snapshot of its files, or a damaged one, reads the files and writes a new one, under
 * a name of its own that it then renames over the old: a reader never sees half a file.
 * The files are Wireshark's, read at run time as before: the snapshot is a copy of what
 * this user's last run made of them, never shipped.
 *
 * Layout, in the host's byte order: a header (struct snap_header) that gives where each
 * part starts, then the sources' description, the names' text, and for each table its
 * entries, first[], tops[] and low[], each at a multiple of 8. What is mapped is checked
 * before any look-up can read it: every offset and count within the file, first[]
 * ascending to the table's length, every name's offset within the text, the text ending
 * in a NUL; a file that fails is not used.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "ether_names_int.h"

#define SNAP_MAGIC "RSETHNM\n"
#define SNAP_VERSION 1
#define SNAP_NAME "ether-names"
#define SETTLED_SECONDS 2

struct snap_table {
    uint64_t n;
    uint64_t key_bits;
    uint64_t e, first, tops, low;       /* offsets; 0: the array is absent (NULL) */
};

struct snap_header {
    char magic[8];
    uint32_t version;
    uint32_t entry_size;                /* sizeof(struct entry) of the writer */
    uint64_t buckets;
    uint64_t size;                      /* of the whole file */
    uint64_t sources, sources_len;
    uint64_t text, text_len;
    uint64_t seq;
    struct snap_table tables[ETHER_TABLES];
};

char *
rs_ether_names_sources(const char *const *paths, size_t n_paths, bool *settled)
{
    GString *s = g_string_new(NULL);
    time_t now = time(NULL);

    *settled = true;
    for (size_t i = 0; i < n_paths; i++) {
        struct stat st;
        if (paths[i] == NULL) {
            g_string_append(s, "(none)\n");
        } else if (stat(paths[i], &st) != 0) {
            g_string_append_printf(s, "%s absent %d\n", paths[i], errno);
        } else {
            g_string_append_printf(s, "%s %ju %ju %jd %jd.%09ld %jd.%09ld\n", paths[i],
                                   (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
                                   (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
                                   st.st_mtim.tv_nsec, (intmax_t)st.st_ctim.tv_sec,
                                   st.st_ctim.tv_nsec);
            if (now - st.st_mtim.tv_sec < SETTLED_SECONDS ||
                now - st.st_ctim.tv_sec < SETTLED_SECONDS)
                *settled = false;
        }
    }
    return g_string_free(s, FALSE);
}

static char *
snapshot_path(void)
{
    return g_build_filename(g_get_user_cache_dir(), "roceshark", SNAP_NAME, NULL);
}

/* Whether [off, off + count * size) lies in a file of file_size bytes, off aligned. */
static bool
part_fits(uint64_t off, uint64_t count, uint64_t size, uint64_t align, uint64_t file_size)
{
    return off % align == 0 && off <= file_size && count <= (file_size - off) / size;
}

/* t from the snapshot's table st, checked against the file (map, size) and its text. */
static bool
table_from(struct table *t, const struct snap_table *st, const uint8_t *map, uint64_t size,
           uint64_t text_len)
{
    if (st->n > UINT32_MAX || (st->key_bits != 48 && st->key_bits != 24))
        return false;
    if (st->n > 0 && (st->e == 0 || !part_fits(st->e, st->n, sizeof(struct entry), 8, size)))
        return false;
    if (st->first != 0 && !part_fits(st->first, BUCKETS + 1, sizeof(uint32_t), 8, size))
        return false;
    if (st->tops != 0 && !part_fits(st->tops, BUCKETS / 64, sizeof(uint64_t), 8, size))
        return false;
    if (st->low != 0 && (st->first == 0 || !part_fits(st->low, st->n, 1, 8, size)))
        return false;
    struct table got = {
        .e = st->n > 0 ? (struct entry *)(map + st->e) : NULL,
        .n = st->n,
        .cap = st->n,
        .key_bits = (unsigned)st->key_bits,
        .first = st->first != 0 ? (uint32_t *)(map + st->first) : NULL,
        .tops = st->tops != 0 ? (uint64_t *)(map + st->tops) : NULL,
        .low = st->low != 0 ? (uint8_t *)(map + st->low) : NULL,
    };
    for (size_t i = 0; i < got.n; i++) {
        if (got.e[i].name >= text_len || got.e[i].long_name >= text_len)
            return false;
    }
    if (got.first != NULL) {
        for (uint32_t b = 0; b < BUCKETS; b++) {
            if (got.first[b] > got.first[b + 1])
                return false;
        }
        if (got.first[BUCKETS] > got.n)
            return false;
    }
    *t = got;
    return true;
}

bool
rs_ether_names_snapshot_load(struct ether_names *n, const char *sources)
{
    char *path = snapshot_path();
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    void *map = MAP_FAILED;

    g_free(path);
    if (fd < 0)
        return false;
    if (fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof(struct snap_header))
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return false;
    const uint8_t *m = map;
    uint64_t size = (uint64_t)st.st_size;
    struct snap_header h;
    memcpy(&h, m, sizeof(h));
    size_t sources_len = strlen(sources);
    struct ether_names got = {0};
    bool ok = memcmp(h.magic, SNAP_MAGIC, sizeof(h.magic)) == 0 &&
              h.version == SNAP_VERSION && h.entry_size == sizeof(struct entry) &&
              h.buckets == BUCKETS && h.size == size && h.sources_len == sources_len &&
              part_fits(h.sources, sources_len, 1, 1, size) &&
              memcmp(m + h.sources, sources, sources_len) == 0 &&
              h.text_len > 0 && h.text_len <= UINT32_MAX &&
              part_fits(h.text, h.text_len, 1, 1, size) && m[h.text + h.text_len - 1] == '\0';
    for (int i = 0; ok && i < ETHER_TABLES; i++)
        ok = table_from(ether_table(&got, i), &h.tables[i], m, size, h.text_len);
    if (!ok) {
        munmap(map, size);
        return false;
    }
    /* The mapping stays for the process, as the files' text did. */
    got.seq = (uint32_t)h.seq;
    got.text = (char *)(m + h.text);
    got.text_len = got.text_cap = h.text_len;
    *n = got;
    return true;
}

/* Writes len bytes of p at *at, after zeros up to a multiple of 8; *off: where p went. */
static bool
put_part(FILE *f, uint64_t *at, const void *p, uint64_t len, uint64_t *off)
{
    static const uint8_t zeros[8];
    uint64_t pad = (8 - *at % 8) % 8;

    if (fwrite(zeros, 1, pad, f) != pad || (len > 0 && fwrite(p, 1, len, f) != len))
        return false;
    *off = *at + pad;
    *at = *off + len;
    return true;
}

static bool
write_snapshot(FILE *f, const struct ether_names *n, const char *sources)
{
    struct snap_header h = {.version = SNAP_VERSION, .entry_size = sizeof(struct entry),
                            .buckets = BUCKETS, .seq = n->seq};
    uint64_t at = sizeof(h);

    memcpy(h.magic, SNAP_MAGIC, sizeof(h.magic));
    if (fseek(f, (long)at, SEEK_SET) != 0)
        return false;
    h.sources_len = strlen(sources);
    h.text_len = n->text_len;
    bool ok = put_part(f, &at, sources, h.sources_len, &h.sources) &&
              put_part(f, &at, n->text, n->text_len, &h.text);
    for (int i = 0; ok && i < ETHER_TABLES; i++) {
        const struct table *t = ether_table((struct ether_names *)n, i);
        struct snap_table *st = &h.tables[i];
        st->n = t->n;
        st->key_bits = t->key_bits;
        ok = (t->n == 0 || put_part(f, &at, t->e, t->n * sizeof(*t->e), &st->e)) &&
             (t->first == NULL ||
              put_part(f, &at, t->first, (BUCKETS + 1) * sizeof(*t->first), &st->first)) &&
             (t->tops == NULL ||
              put_part(f, &at, t->tops, BUCKETS / 64 * sizeof(*t->tops), &st->tops)) &&
             (t->low == NULL || put_part(f, &at, t->low, t->n, &st->low));
    }
    h.size = at;
    return ok && fseek(f, 0, SEEK_SET) == 0 && fwrite(&h, sizeof(h), 1, f) == 1;
}

void
rs_ether_names_snapshot_save(const struct ether_names *n, const char *sources, bool settled)
{
    /* No text: no file was read; the next run finds none as cheaply. */
    if (!settled || n->text_len == 0)
        return;
    char *path = snapshot_path();
    char *dir = g_path_get_dirname(path);
    char *tmp = g_strconcat(path, ".XXXXXX", NULL);
    int fd = -1;

    if (g_mkdir_with_parents(dir, 0700) != 0 || (fd = g_mkstemp_full(tmp, O_RDWR, 0644)) < 0)
        goto done;
    FILE *f = fdopen(fd, "wb");
    if (f == NULL) {
        close(fd);
        g_unlink(tmp);
        goto done;
    }
    bool ok = write_snapshot(f, n, sources) && fflush(f) == 0 && fsync(fileno(f)) == 0;
    if (fclose(f) != 0 || !ok || rename(tmp, path) != 0)
        g_unlink(tmp);
done:
    g_free(tmp);
    g_free(dir);
    g_free(path);
}
