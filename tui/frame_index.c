/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * frame_index.c - one small entry per frame, in blocks that never move.
 *
 * A single growing array would be simpler, but realloc() moves it while
 * the screen's thread reads it; fixed blocks let the ingest thread append
 * while readers hold pointers to earlier entries. The block table itself is
 * allocated once: RS_TUI_INDEX_BLOCKS blocks of 64 Ki entries is 2^32
 * frames, more than a frame number in a pcap tool ever needs, for 256 KiB.
 *
 * Blocks are mapped with their pages already there (MAP_POPULATE): touching
 * 3.4 MB of fresh memory one page at a time costs a fault per 4 KiB, which
 * on a virtual machine took a third of the ingest thread's time.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <roceshark/tui.h>

#define BLOCK_SHIFT 16
#define BLOCK_SIZE (1u << BLOCK_SHIFT)
#define INDEX_BLOCKS (1u << 16)
#define BLOCK_BYTES (BLOCK_SIZE * sizeof(struct rs_tui_frame))

_Static_assert(sizeof(struct rs_tui_frame) + sizeof(uint64_t) <= 64,
               "an index entry and its place in the shown list stay within 64 bytes");

struct rs_tui_index {
    struct rs_tui_frame **blocks;   /* INDEX_BLOCKS slots, filled as needed */
    _Atomic uint64_t count;         /* published after the entry is written */
};

int
rs_tui_index_new(struct rs_tui_index **out, char *err)
{
    struct rs_tui_index *ix = calloc(1, sizeof(*ix));

    if (ix == NULL || (ix->blocks = calloc(INDEX_BLOCKS, sizeof(*ix->blocks))) == NULL) {
        free(ix);
        return rs_error(err, RS_ENOMEM, "frame index: out of memory");
    }
    atomic_init(&ix->count, 0);
    *out = ix;
    return 0;
}

void
rs_tui_index_free(struct rs_tui_index *ix)
{
    if (ix == NULL)
        return;
    for (size_t i = 0; i < INDEX_BLOCKS && ix->blocks[i] != NULL; i++)
        munmap(ix->blocks[i], BLOCK_BYTES);
    free(ix->blocks);
    free(ix);
}

int
rs_tui_index_append(struct rs_tui_index *ix, const struct rs_tui_frame *f)
{
    uint64_t n = atomic_load_explicit(&ix->count, memory_order_relaxed);
    uint64_t block = n >> BLOCK_SHIFT;

    if (block >= INDEX_BLOCKS)
        return RS_ENOMEM;
    if (ix->blocks[block] == NULL) {
        void *b = mmap(NULL, BLOCK_BYTES, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (b == MAP_FAILED)
            return RS_ENOMEM;
        ix->blocks[block] = b;
    }
    ix->blocks[block][n & (BLOCK_SIZE - 1)] = *f;
    atomic_store_explicit(&ix->count, n + 1, memory_order_release);
    return 0;
}

uint64_t
rs_tui_index_count(const struct rs_tui_index *ix)
{
    return atomic_load_explicit(&ix->count, memory_order_acquire);
}

const struct rs_tui_frame *
rs_tui_index_get(const struct rs_tui_index *ix, uint64_t number)
{
    if (number == 0 || number > rs_tui_index_count(ix))
        return NULL;
    number--;
    return &ix->blocks[number >> BLOCK_SHIFT][number & (BLOCK_SIZE - 1)];
}

/* Keeps the blocks for the next pass; only the count goes back to zero. The
 * caller makes sure no reader holds an entry (the model's lock). */
void
rs_tui_index_clear(struct rs_tui_index *ix)
{
    atomic_store_explicit(&ix->count, 0, memory_order_release);
}
