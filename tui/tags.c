/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tags.c - packets tagged with Space in the packet list, and `W`, which
 * writes them to a pcap file: how a user hands a conversation, or a few of
 * its packets, to replay. A bit per frame number, so that tags outlive a
 * change of filter and cost nothing per frame untagged.
 */
#include <stdlib.h>
#include <string.h>

#include "screen_int.h"

bool
tui_tagged(const struct tui *t, uint64_t number)
{
    return number / 8 < t->tags_bytes && (t->tags[number / 8] >> (number % 8)) & 1u;
}

void
tui_tag_toggle(struct tui *t, uint64_t number)
{
    if (number / 8 >= t->tags_bytes) {
        size_t bytes = t->tags_bytes == 0 ? 4096 : t->tags_bytes;
        while (bytes <= number / 8)
            bytes *= 2;
        uint8_t *b = realloc(t->tags, bytes);
        if (b == NULL) {
            tui_message(t, "tag: out of memory");
            return;
        }
        memset(b + t->tags_bytes, 0, bytes - t->tags_bytes);
        t->tags = b;
        t->tags_bytes = bytes;
    }
    bool was = tui_tagged(t, number);
    t->tags[number / 8] ^= (uint8_t)(1u << (number % 8));
    t->n_tagged += was ? (uint64_t)-1 : 1;
}

void
tui_tags_write(struct tui *t, const char *path)
{
    uint64_t *numbers = malloc((t->n_tagged + 1) * sizeof(*numbers));
    size_t n = 0;

    if (numbers == NULL) {
        tui_message(t, "write: out of memory");
        return;
    }
    for (uint64_t number = 1; number < (uint64_t)t->tags_bytes * 8 && n < t->n_tagged; number++)
        if (tui_tagged(t, number))
            numbers[n++] = number;
    tui_write_start(t, path, numbers, n, "the tagged packets", "tagged packets");
}

void
tui_tags_free(struct tui *t)
{
    free(t->tags);
    t->tags = NULL;
    t->tags_bytes = 0;
    t->n_tagged = 0;
}
