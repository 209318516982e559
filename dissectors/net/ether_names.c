/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ether_names.c - an Ethernet address named as tshark names it with its default
 * resolution (MAC names on), from the data files Wireshark installs: the exact
 * addresses of its manuf and wka files, then the ethers files, then the address
 * ranges of wka (and manuf's /28 and /36 blocks), then manuf's vendor prefixes;
 * "Vendor_xx:xx:xx" for a known prefix, the bare address when nothing fits. A
 * vendor's long name (manuf's third column) is eth.src.oui_resolved.
 *
 * The files are Debian's libwireshark-data, read at run time, once for the process
 * when a name is first needed (pthread_once; the tables are only read after), never
 * copied into the project: they change with every Wireshark release. A range
 * is looked up under its masked address whatever its length was, as Wireshark
 * 4.0 does: a /16 range also answers for a masked /40 look-up of the same bytes
 * (33:33:00:00:00:02 is "IPv6mcast_02"), and the names it prints follow from that.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pthread.h>

#include <glib.h>

#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/ether_names.h>
#include <roceshark/dissectors/wireshark_files.h>

#include "ether_names_int.h"

#define NAME_MAX_LEN 64

static struct ether_names names;
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static uint64_t
mac_key(const uint8_t a[6])
{
    uint64_t k = 0;
    for (int i = 0; i < 6; i++)
        k = k << 8 | a[i];
    return k;
}

static void
put_name(struct ether_names *n, struct table *t, uint64_t key, uint32_t name,
         uint32_t long_name)
{
    if (t->n == t->cap) {
        size_t cap = t->cap != 0 ? t->cap * 2 : 1024;
        struct entry *e = realloc(t->e, cap * sizeof(*e));
        if (e == NULL)
            return;     /* out of memory: the name is not known, the address shows */
        t->e = e;
        t->cap = cap;
    }
    t->e[t->n++] = (struct entry){key, n->seq++, name, long_name};
}

static int
entry_order(const void *pa, const void *pb)
{
    const struct entry *a = pa, *b = pb;

    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The top BUCKET_BITS bits of a key of t. */
static uint32_t
top_bits(const struct table *t, uint64_t key)
{
    return (uint32_t)(key >> (t->key_bits - BUCKET_BITS)) & (BUCKETS - 1);
}

/* t's tops[] and first[], once its entries are sorted; first stays NULL when a small
 * table, and either when out of memory (every look-up bisects the whole table). */
static void
index_table(struct table *t)
{
    unsigned shift = t->key_bits - BUCKET_BITS;

    if ((t->tops = calloc(BUCKETS / 64, sizeof(*t->tops))) != NULL) {
        for (size_t i = 0; i < t->n; i++) {
            uint32_t b = top_bits(t, t->e[i].key);
            t->tops[b / 64] |= (uint64_t)1 << (b % 64);
        }
    }
    if (t->n < BUCKETED_FROM || (t->first = malloc((BUCKETS + 1) * sizeof(*t->first))) == NULL)
        return;
    size_t i = 0;
    for (uint32_t b = 0; b <= BUCKETS; b++) {
        while (i < t->n && (t->e[i].key >> shift) < b)
            i++;
        t->first[b] = (uint32_t)i;
    }
    if (shift == 8 && (t->low = malloc(t->n)) != NULL) {
        for (i = 0; i < t->n; i++)
            t->low[i] = (uint8_t)t->e[i].key;
    }
}

/* Sorts t's entries. The files list their entries in order, and a table takes a second
 * file's few after a first one's many (wka's ranges after manuf's): the unsorted rest is
 * sorted alone and merged, which took a fifth of the time it took to sort the whole. */
static void
sort_entries(struct table *t)
{
    size_t run = 1;

    while (run < t->n && entry_order(&t->e[run - 1], &t->e[run]) < 0)
        run++;
    if (run == t->n)
        return;
    struct entry *merged = malloc(t->n * sizeof(*merged));
    if (merged == NULL) {
        qsort(t->e, t->n, sizeof(*t->e), entry_order);
        return;
    }
    qsort(t->e + run, t->n - run, sizeof(*t->e), entry_order);
    size_t i = 0, j = run, k = 0;
    while (i < run && j < t->n)
        merged[k++] = entry_order(&t->e[i], &t->e[j]) < 0 ? t->e[i++] : t->e[j++];
    while (i < run)
        merged[k++] = t->e[i++];
    while (j < t->n)
        merged[k++] = t->e[j++];
    free(t->e);
    t->e = merged;
    t->cap = t->n;
}

/* Sorts t and keeps one entry per key: the last of the files' lines, or the first. */
static void
finish(struct table *t, bool last_wins)
{
    size_t k = 0;

    if (t->n == 0)
        return;     /* no entries (a file missing): nothing to sort, no array */
    sort_entries(t);
    for (size_t i = 0; i < t->n; i++) {
        if (k > 0 && t->e[k - 1].key == t->e[i].key) {
            if (last_wins)
                t->e[k - 1] = t->e[i];
            continue;
        }
        t->e[k++] = t->e[i];
    }
    t->n = k;
    index_table(t);
}

/* Whether some key of t has the top bits key has: else key is not there. An address no
 * file names is mostly answered here, from 8 KiB that stay in the cache. */
static bool
may_hold(const struct table *t, uint64_t key)
{
    uint32_t b = top_bits(t, key);

    if (t->tops == NULL)
        return t->n > 0;
    return (t->tops[b / 64] >> (b % 64)) & 1;
}

/* The first entry whose key is not below key (t->n when none). */
static size_t
lower_bound(const struct table *t, uint64_t key)
{
    size_t lo = 0, hi = t->n;

    /* Keys of another top 16 bits lie wholly before or after: the answer is in
     * [first[b], first[b + 1]]. */
    if (t->first != NULL) {
        uint64_t b = key >> (t->key_bits - BUCKET_BITS);
        if (b >= BUCKETS)
            return t->n;
        lo = t->first[b];
        hi = t->first[b + 1];
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->e[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static const struct entry *
find(const struct table *t, uint64_t key)
{
    if (!may_hold(t, key))
        return NULL;
    if (t->low != NULL && (key >> 8) < BUCKETS) {
        /* The bucket's low bytes, 36 KiB for all the vendors that the processor's caches
         * keep, where its entries (1.1 MiB) were a cache miss for nearly every address
         * no name cache holds (bench_read.py's random MACs). */
        for (uint32_t i = t->first[key >> 8]; i < t->first[(key >> 8) + 1]; i++)
            if (t->low[i] == (uint8_t)key)
                return &t->e[i];
        return NULL;
    }
    size_t lo = lower_bound(t, key);

    return lo < t->n && t->e[lo].key == key ? &t->e[lo] : NULL;
}

/* Whether t has any key in [lo, hi]. */
static bool
any_between(const struct table *t, uint64_t lo, uint64_t hi)
{
    if (top_bits(t, lo) == top_bits(t, hi) && !may_hold(t, lo))
        return false;
    size_t i = lower_bound(t, lo);

    return i < t->n && t->e[i].key <= hi;
}

/* The ranges a look-up that keeps fewer than 24 bits can find, apart: such a key has its
 * low 24 bits clear, and this table of a few dozen answers its 23 look-ups (on a capture
 * of many addresses no file names, those look-ups in the whole table took 8-15% of -V's
 * and -T json's time). */
static void
keep_wide(const struct table *ranges, struct table *wide)
{
    for (size_t i = 0; i < ranges->n; i++) {
        if ((ranges->e[i].key & 0xffffff) != 0)
            continue;
        if (wide->n == wide->cap) {
            size_t cap = wide->cap != 0 ? wide->cap * 2 : 64;
            struct entry *e = realloc(wide->e, cap * sizeof(*e));
            if (e == NULL) {
                /* out of memory: every look-up goes to the whole table */
                free(wide->e);
                *wide = *ranges;
                return;
            }
            wide->e = e;
            wide->cap = cap;
        }
        wide->e[wide->n++] = ranges->e[i];
    }
    index_table(wide);
}

static const char *
get_name(const struct table *t, uint64_t key)
{
    const struct entry *e = find(t, key);

    return e != NULL ? names.text + e->name : NULL;
}

/* A hex digit's value plus one by its byte, else 0: three range tests for every digit of
 * manuf's 50,000 addresses were a tenth of reading it. */
static const uint8_t hex_values[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,
    ['7'] = 8,  ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14,
    ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15,
    ['F'] = 16,
};

/* c's value as a hex digit, else -1. */
static int
hex_digit(char c)
{
    return hex_values[(unsigned char)c] - 1;
}

/* "00:1B:21", "01-80-C2-00-00-00", "00:50:C2:33:10:00/36": 3 octets are a vendor prefix
 * (mask 0), 6 an address (48), a mask a range with the bits past it cleared. */
static bool
parse_address(const char *s, uint8_t a[6], unsigned *mask)
{
    char sep = 0;

    memset(a, 0, 6);
    for (int i = 0; i < 6; i++) {
        /* One or two hex digits, by hand: strtoul() was a sixth of reading the files, which
         * every run that names an address pays. A third digit, or "0x", is refused. */
        unsigned v = 0, digits = 0;
        for (int d; (d = hex_digit(*s)) >= 0 && digits <= 2; s++, digits++)
            v = v << 4 | (unsigned)d;
        if (digits == 0 || digits > 2 || *s == 'x' || *s == 'X')
            return false;
        a[i] = (uint8_t)v;
        if (*s == '/') {
            if (!isdigit((unsigned char)s[1]))
                return false;
            unsigned long m = 0;
            for (s++; isdigit((unsigned char)*s) && m < 1000; s++)
                m = m * 10 + (unsigned)(*s - '0');
            if (*s != '\0' || m == 0 || m >= 48)
                return false;
            *mask = (unsigned)m;
            int k = (int)m / 8;
            a[k] &= (uint8_t)(0xff << (8 - m % 8));
            for (k++; k < 6; k++)
                a[k] = 0;
            return true;
        }
        if (*s == '\0') {
            if (i != 2 && i != 5)
                return false;
            *mask = i == 2 ? 0 : 48;
            return true;
        }
        if (sep == 0 && (*s == ':' || *s == '-' || *s == '.'))
            sep = *s;
        else if (*s != sep)
            return false;
        s++;
    }
    return false;
}

static bool
is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* The next word of [*at, end) cut out in place: the characters up to a separator, after
 * the separators before them (NULL when none is left), *at moved past the separator that
 * ended it; its length in *len. Separators: blanks (space, tab, CR), or tabs alone. */
static char *
cut_word(char **at, char *end, bool tabs_only, size_t *len)
{
    char *s = *at;

    while (s < end && (*s == '\t' || (!tabs_only && is_blank(*s))))
        s++;
    if (s == end) {
        *at = end;
        return NULL;
    }
    char *word = s;
    if (tabs_only) {
        /* a long name, the longest word of a line: its tab looked for a word at a time */
        char *tab = memchr(s, '\t', (size_t)(end - s));
        s = tab != NULL ? tab : end;
    }
    while (s < end && *s != '\t' && (tabs_only || !is_blank(*s)))
        s++;
    *len = (size_t)(s - word);
    if (s < end)
        *s++ = '\0';
    *at = s;
    return word;
}

/* Appends the file at path to n's text, and a NUL: true with where it starts and its
 * length, false (the text as it was) when it cannot be read whole. The files share one
 * text so that the entries' names are offsets a snapshot can keep as they are. */
static bool
append_file(struct ether_names *n, const char *path, size_t *start, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return false;
    *start = n->text_len;
    for (;;) {
        if (n->text_cap - n->text_len < 65536 + 1) {
            size_t cap = n->text_cap != 0 ? n->text_cap * 2 : 4u << 20;
            char *bigger = cap <= UINT32_MAX ? realloc(n->text, cap) : NULL;
            if (bigger == NULL)
                break;      /* out of memory, or past what an offset holds */
            n->text = bigger;
            n->text_cap = cap;
        }
        ssize_t got = read(fd, n->text + n->text_len, n->text_cap - n->text_len - 1);
        if (got == 0) {
            close(fd);
            *len = n->text_len - *start;
            n->text[n->text_len++] = '\0';
            return true;
        }
        if (got < 0)
            break;
        n->text_len += (size_t)got;
    }
    close(fd);
    n->text_len = *start;
    return false;
}

/* Each line "ADDRESS NAME [long name]"; '#' starts a comment; the long name is what
 * follows the name up to the next tab, without trailing blanks, else the name itself.
 * with_masks: a data file (prefixes and ranges allowed), else an ethers file (addresses
 * only). The file's text is kept: the entries' names are offsets into it. The lines are
 * cut by hand, in one pass over each: strtok_r()'s strspn() and strcspn() calls, with
 * strchr() and g_strchomp(), were most of the 12 ms that reading manuf's 50,000 lines
 * cost every run that names an address. The text ends at its first NUL, as a string would. */
static void
read_file(struct ether_names *n, const char *path, bool with_masks)
{
    size_t start, len;

    if (!append_file(n, path, &start, &len))
        return;
    char *text = n->text + start;
    char *text_end = text + strnlen(text, len);
    for (char *line = text, *next; line < text_end; line = next) {
        char *end = memchr(line, '\n', (size_t)(text_end - line));
        next = end != NULL ? end + 1 : text_end;
        if (end == NULL)
            end = text_end;
        char *hash = memchr(line, '#', (size_t)(end - line));
        if (hash != NULL)
            end = hash;
        while (end > line && g_ascii_isspace(end[-1]))
            end--;
        *end = '\0';
        size_t addr_len, name_len, long_len = 0;
        char *at = line;
        char *addr = cut_word(&at, end, false, &addr_len);
        char *name = addr != NULL ? cut_word(&at, end, false, &name_len) : NULL;
        char *long_name = name != NULL ? cut_word(&at, end, true, &long_len) : NULL;
        uint8_t a[6];
        unsigned mask;
        if (name == NULL || !parse_address(addr, a, &mask))
            continue;
        if (name_len >= NAME_MAX_LEN)
            name[NAME_MAX_LEN - 1] = '\0';
        if (long_name != NULL && long_len >= NAME_MAX_LEN)
            long_name[NAME_MAX_LEN - 1] = '\0';
        uint32_t at_name = (uint32_t)(name - n->text);
        uint32_t at_long = long_name != NULL ? (uint32_t)(long_name - n->text) : at_name;
        if (!with_masks) {
            if (mask == 48)
                put_name(n, &n->ethers, mac_key(a), at_name, at_name);
        } else if (mask == 0) {
            put_name(n, &n->vendors, mac_key(a) >> 24, at_name, at_long);
        } else if (mask == 48) {
            put_name(n, &n->exact, mac_key(a), at_name, at_name);
        } else {
            put_name(n, &n->ranges, mac_key(a), at_name, at_name);
        }
    }
}

/* The tables from the files, or from the snapshot of the same files an earlier run left
 * (ether_names_snapshot.c): reading manuf's 50,000 lines was 6.4 ms of processor time
 * and 1,600 page faults at every start, more than a 20,000-frame -T json run's
 * formatting on one thread takes in 6 ms, and on two threads one of them waited for it. */
static void
load(void)
{
    struct ether_names *n = &names;
    /* The personal ethers file is asked before the system's. */
    char *paths[4] = {rs_wireshark_data_file("manuf"), rs_wireshark_data_file("wka"),
                      rs_wireshark_personal_file("ethers"), g_strdup("/etc/ethers")};
    bool settled;
    char *sources = rs_ether_names_sources((const char *const *)paths, 4, &settled);

    if (sources == NULL || !rs_ether_names_snapshot_load(n, sources)) {
        n->exact.key_bits = n->ethers.key_bits = n->ranges.key_bits = 48;
        n->wide.key_bits = 48;
        n->vendors.key_bits = 24;
        for (int i = 0; i < 4; i++) {
            if (paths[i] != NULL)
                read_file(n, paths[i], i < 2);
        }
        finish(&n->exact, true);
        finish(&n->ethers, false);
        finish(&n->ranges, true);
        finish(&n->vendors, true);
        keep_wide(&n->ranges, &n->wide);
        if (sources != NULL)
            rs_ether_names_snapshot_save(n, sources, settled);
    }
    g_free(sources);
    for (int i = 0; i < 4; i++)
        g_free(paths[i]);
}

/* The range named for the first bits bits of address key (the rest cleared), or NULL. */
static const char *
range_name(const struct ether_names *n, uint64_t key, unsigned bits)
{
    uint64_t keep = bits == 0 ? 0 : ~(uint64_t)0 << (48 - bits);

    return get_name(bits < 24 ? &n->wide : &n->ranges, key & keep & 0xffffffffffffull);
}

/* text[0..len) into buf of size, cut as snprintf cuts. */
static void
copy_cut(char *buf, size_t size, const char *text, size_t len)
{
    if (size == 0)
        return;
    len = len < size ? len : size - 1;
    memcpy(buf, text, len);
    buf[len] = '\0';
}

/* "xx" for v, then ":xx" for each of a[from..5], at out (17 bytes at most); returns the
 * length. By hand: snprintf's "%02x" six times was most of naming an address no file
 * names, which on random addresses is every one. */
static size_t
put_octets(char *out, unsigned v, const uint8_t a[6], int from)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;

    out[n++] = hex[v >> 4 & 0xf];
    out[n++] = hex[v & 0xf];
    for (int i = from; i < 6; i++) {
        out[n++] = ':';
        out[n++] = hex[a[i] >> 4];
        out[n++] = hex[a[i] & 0xf];
    }
    return n;
}

/* "name_" then the octets from first on, the first of them reduced to its low
 * (8 - mask) bits... as Wireshark prints it: the octet masked with 0xff >> mask. */
static void
print_dummy(char *buf, size_t size, const char *name, const uint8_t a[6], int first,
            unsigned mask)
{
    char text[NAME_MAX_LEN + 24];
    size_t n = strlen(name);    /* under NAME_MAX_LEN: read_file() cut it */

    memcpy(text, name, n);
    text[n++] = '_';
    n += put_octets(text + n, a[first] & (0xffu >> mask), a, first + 1);
    copy_cut(buf, size, text, n);
}

/* A frame asks for its addresses' vendor several times (each address's name, its
 * oui_resolved and eth.addr.oui_resolved): each thread keeps the last prefixes looked up,
 * in a small table indexed by the prefix's low bits (a slot is overwritten on collision).
 * On addresses no cache of names holds (random ones), the look-ups in the 36,000 vendors,
 * each a miss of the processor's caches, were some 4% of -T json. */
#define VENDOR_SLOTS 16

struct vendor_slot {
    uint32_t key;               /* 1 + the 24-bit prefix; 0 for an empty slot */
    const struct entry *e;      /* NULL: no vendor has the prefix */
};

static _Thread_local struct vendor_slot vendor_cache[VENDOR_SLOTS];

/* The vendors' entry of a 24-bit prefix, or NULL; names are loaded. */
static const struct entry *
find_vendor(uint32_t prefix)
{
    struct vendor_slot *slot = &vendor_cache[(prefix ^ prefix >> 8) % VENDOR_SLOTS];

    if (slot->key != prefix + 1) {
        slot->e = find(&names.vendors, prefix);
        slot->key = prefix + 1;
    }
    return slot->e;
}

const char *
rs_ether_vendor(const uint8_t prefix[3])
{
    pthread_once(&names_once, load);
    const struct entry *e = find_vendor((uint32_t)prefix[0] << 16 | prefix[1] << 8 | prefix[2]);
    return e != NULL ? names.text + e->long_name : NULL;
}

/* The name of a as the files give it (rs_ether_name without its cache). */
static void
resolve_name(const uint8_t a[6], char *buf, size_t size)
{
    const struct ether_names *n = &names;
    const char *name;
    uint64_t key = mac_key(a);

    if ((name = get_name(&n->exact, key)) != NULL || (name = get_name(&n->ethers, key)) != NULL) {
        snprintf(buf, size, "%s", name);
        return;
    }
    /* Ranges within a vendor block, longest first: 5, 4, then 3 octets kept whole. Their
     * keys all lie in the vendor's block: one look-up tells whether any is there. */
    uint64_t block = key & ~(uint64_t)0xffffff;
    bool in_block = any_between(&n->ranges, block, block | 0xffffff);
    for (int whole = 5; in_block && whole >= 3; whole--) {
        for (int mask = 7; mask >= 0; mask--) {
            if ((name = range_name(n, key, (unsigned)(whole * 8 + mask))) != NULL) {
                print_dummy(buf, size, name, a, whole, (unsigned)mask);
                return;
            }
        }
    }
    uint32_t prefix = (uint32_t)(key >> 24);
    const struct entry *v = find_vendor(prefix);
    if (v == NULL && (prefix & 0x010000) != 0)
        v = find_vendor(prefix & 0xfeffff);
    if (v != NULL) {
        print_dummy(buf, size, names.text + v->name, a, 3, 0);
        return;
    }
    /* Ranges wider than a vendor block: 2, 1, then no octet kept whole (not the empty mask). */
    for (int whole = 2; whole >= 0; whole--) {
        for (int mask = 7; mask >= (whole == 0 ? 1 : 0); mask--) {
            if ((name = range_name(n, key, (unsigned)(whole * 8 + mask))) != NULL) {
                print_dummy(buf, size, name, a, whole, (unsigned)mask);
                return;
            }
        }
    }
    char text[24];
    copy_cut(buf, size, text, put_octets(text, a[0], a, 1));
}

void
rs_ether_name_shown(const uint8_t a[6], char *buf, size_t size)
{
    char text[24];

    if (rs_display_get()->resolve_mac)
        rs_ether_name(a, buf, size);
    else
        copy_cut(buf, size, text, put_octets(text, a[0], a, 1));
}

/* A few dozen addresses make most of a capture, and an address no file names costs some
 * forty table look-ups (every range length): each thread keeps the names it made, in a
 * small table indexed by a hash of the address (a slot is overwritten on collision). */
#define CACHE_SLOTS 128
#define CACHE_NAME_MAX (NAME_MAX_LEN + 24)

struct name_slot {
    uint64_t key;           /* 1 + the 48-bit address; 0 for an empty slot */
    size_t len;             /* strlen(name) */
    char name[CACHE_NAME_MAX];
};

static _Thread_local struct name_slot cache[CACHE_SLOTS];

void
rs_ether_name(const uint8_t a[6], char *buf, size_t size)
{
    uint64_t key = mac_key(a) + 1;
    struct name_slot *slot = &cache[(key * 0x9e3779b97f4a7c15ull) >> 57];

    if (slot->key != key) {
        pthread_once(&names_once, load);
        resolve_name(a, slot->name, sizeof(slot->name));
        slot->key = key;
        slot->len = strlen(slot->name);
    }
    /* snprintf's "%s" was a third of a hit's time: a name is read several times a frame */
    copy_cut(buf, size, slot->name, slot->len);
}
