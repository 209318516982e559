/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inject_int.h - what the spec parser, the generators and the builder share.
 */
#ifndef ROCESHARK_INJECT_INT_H
#define ROCESHARK_INJECT_INT_H

#include <glib.h>

#include <roceshark/dissectors/fields.h>
#include <roceshark/inject/inject.h>

/* Where a spec or rules line comes from, for its errors. */
struct inject_place {
    const char *where;      /* "command line", a file name */
    unsigned line;
    char *err;
};

/* Fills place->err with "<where>:<line>:<col>: <why>" and returns RS_EINVAL. */
int inject_fail(const struct inject_place *place, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* GScanner for the line languages (scan.c): a configured scanner; the column where the
 * token just read starts (token_len long) and the one after it; the next word is word;
 * words read as an unsigned number, a double, or a duration with its unit (2ms). */
GScanner *scan_new(void);
/* The next line to read (what was left of the last one is read first), and the end. */
void scan_input(GScanner *sc, const char *text);
void scan_free(GScanner *sc);
unsigned scan_token_col(GScanner *sc, size_t token_len);
unsigned scan_col(GScanner *sc);
bool scan_next_is(GScanner *sc, const char *word);
bool scan_word_uint(const char *w, uint64_t *out);
bool scan_peek_uint(GScanner *sc);
bool scan_uint(GScanner *sc, uint64_t *out);
bool scan_double(GScanner *sc, double *out);
bool scan_duration(GScanner *sc, uint64_t *ns);
/* The whole of a rules file or a script (g_free it), or RS_EIO with "path: why". */
int scan_read_file(const char *path, gchar **text, char *err);

/* The value generator g gives the index-th packet (0 the first). */
uint64_t inject_gen_value(const struct rs_inject_gen *g, uint64_t index, GRand *rng);

/* Parses a generator or a constant for a numeric field whose values run 0..max;
 * name_value turns a value name into a number (NULL: numbers only). Returns false
 * with why set ("expected ...") when text is neither. */
typedef bool (*inject_name_fn)(const void *ctx, const char *name, uint64_t *out);
bool inject_gen_parse(const char *text, uint64_t max, inject_name_fn name_value,
                      const void *ctx, struct rs_inject_gen *out, const char **why);

/* Fills the payload bytes of p that fill says, for a packet (RS_FILL_RAND draws). */
void inject_fill(struct rs_inject_packet *p, uint32_t from, uint32_t to, GRand *rng);

/* Writes v (or, for an address field, the bytes at addr) as registry field f at at: its
 * width's bytes, big-endian, under its mask. */
void inject_write_field(uint8_t *at, const struct rs_field *f, uint64_t v, const uint8_t *addr);

/* The largest value of a numeric registry field, by its mask or its width. */
uint64_t inject_field_max(const struct rs_field *f);

/* The edit distance of a and b (a swap of neighbours counts one), or limit when it is
 * limit or more: a near miss is looked for among thousands of registry names, and all but
 * a few are told apart by their lengths or in the first rows. */
unsigned inject_distance(const char *a, const char *b, unsigned limit);
/* The largest distance at which a name of len characters is a near miss. */
#define INJECT_NEAR(len) ((len) <= 4 ? 1u : 2u)

/* A field the spec sets in a structure rather than in the built bytes (iWARP's). */
struct inject_member_key {
    const char *layer;      /* tcp, mpareq, mpa, ddp, rdmap */
    const char *name;       /* inside the layer */
    const char *full;       /* Wireshark's name */
    uint8_t target;         /* RS_INJECT_T_MEMBER (the template) or _IWARP (the FPDU) */
    size_t off;
    uint8_t width;
    uint64_t max;
    long flag_off;          /* a bool set with the value (a forced length), or -1 */
};

/* The key named name in layer (NULL: by full name), or NULL. */
const struct inject_member_key *inject_member_key(const char *layer, const char *name);
/* The nearest name to name in layer (NULL: full names), or NULL. */
const char *inject_member_suggest(const char *layer, const char *name);
/* Stores v as k says in base (the template or the FPDU's fields). */
void inject_member_store(void *base, const struct inject_member_key *k, uint64_t v);

#endif /* ROCESHARK_INJECT_INT_H */
