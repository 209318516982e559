/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * names.c - the names of capture points: A .. Z for the first 26 -r files, then AA .. ZZ,
 * AAA ... as spreadsheet columns are named, so that any number of points has names and
 * the first 26 keep their single letters.
 */
#include <roceshark/dissectors/corr.h>

struct rs_corr_name
rs_corr_point_name(unsigned i)
{
    struct rs_corr_name name = {{0}};
    char rev[RS_CORR_NAME_SIZE];
    unsigned n = 0;
    uint64_t k = (uint64_t)i + 1;

    /* bijective base 26: 1 -> A, 26 -> Z, 27 -> AA */
    while (k > 0 && n < RS_CORR_NAME_SIZE - 1) {
        k--;
        rev[n++] = (char)('A' + k % 26);
        k /= 26;
    }
    for (unsigned j = 0; j < n; j++)
        name.s[j] = rev[n - 1 - j];
    return name;
}

bool
rs_corr_point_parse(const char *s, unsigned *point, size_t *len)
{
    uint64_t k = 0;
    size_t n = 0;

    while (s[n] >= 'A' && s[n] <= 'Z' && n < RS_CORR_NAME_SIZE - 1) {
        k = k * 26 + (uint64_t)(s[n] - 'A' + 1);
        n++;
    }
    if (n == 0 || (s[n] >= 'A' && s[n] <= 'Z') || k - 1 > UINT32_MAX)
        return false;
    *point = (unsigned)(k - 1);
    *len = n;
    return true;
}
