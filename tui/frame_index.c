/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * frame_index.c - one small entry per frame, in blocks that never move.
 *
 * A single growing array would be simpler, but realloc() moves it while
 * the screen's thread reads it; fixed blocks let the ingest thread append
 * while readers hold pointers to earlier entries. The block table itself is
 * allocated once: INDEX_BLOCKS blocks of 512 Ki entries is 2^32
 * frames, more than a frame number in a pcap tool ever needs, for 64 KiB.
 *
 * Fresh memory is dear on a virtual machine: each 4 KiB page cost its
 * first writer a trap (about 2 us on one machine) even when mapped with
 * MAP_POPULATE, and writing the index was then a third of the ingest
 * thread's time. So the writer populates a block 2 MiB ahead of itself, in
 * one call (MADV_POPULATE_WRITE), which maps 512 pages at once. Huge pages
 * were tried and dropped: where the guest's huge pages come from memory the
 * host has not backed yet, they filled at 0.5 GB/s against 3.4 GB/s for
 * small pages, and a 10-million-frame load took 1.7-2.7 s instead of
 * 1.5-1.7 s. Memory beyond the entries written stays under 2 MiB plus what
 * the untouched rest of a block reserves (address space only).
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <roceshark/tui/tui.h>

#define BLOCK_SHIFT 19
#define BLOCK_SIZE (1u << BLOCK_SHIFT)
#define INDEX_BLOCKS (1u << (32 - BLOCK_SHIFT))
_Static_assert((uint64_t)INDEX_BLOCKS * BLOCK_SIZE == RS_TUI_INDEX_MAX_FRAMES,
               "the block table covers the bound");
#define BLOCK_BYTES ((size_t)BLOCK_SIZE * sizeof(struct rs_tui_frame))
#define POPULATE_AHEAD ((size_t)2 << 20)

_Static_assert(sizeof(struct rs_tui_frame) + sizeof(uint64_t) <= 64,
               "an index entry and its place in the shown list stay within 64 bytes");
_Static_assert(BLOCK_BYTES % POPULATE_AHEAD == 0, "a block is whole steps of population");

struct rs_tui_index {
    struct rs_tui_frame **blocks;   /* INDEX_BLOCKS slots, filled as needed */
    _Atomic uint64_t count;         /* published after the entry is written */
    uint64_t max_frames;
    size_t populated;               /* bytes of the newest block mapped (the writer's) */
};

int
rs_tui_index_new(struct rs_tui_index **out, uint64_t max_frames, char *err)
{
    struct rs_tui_index *ix = calloc(1, sizeof(*ix));

    if (ix == NULL || (ix->blocks = calloc(INDEX_BLOCKS, sizeof(*ix->blocks))) == NULL) {
        free(ix);
        return rs_error(err, RS_ENOMEM, "frame index: out of memory");
    }
    atomic_init(&ix->count, 0);
    ix->max_frames = max_frames == 0 || max_frames > RS_TUI_INDEX_MAX_FRAMES
                         ? RS_TUI_INDEX_MAX_FRAMES : max_frames;
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

/* A block of BLOCK_BYTES, or NULL. */
static struct rs_tui_frame *
block_map(void)
{
    void *p = mmap(NULL, BLOCK_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    return p == MAP_FAILED ? NULL : p;
}

int
rs_tui_index_append(struct rs_tui_index *ix, const struct rs_tui_frame *f)
{
    uint64_t n = atomic_load_explicit(&ix->count, memory_order_relaxed);
    uint64_t block = n >> BLOCK_SHIFT;
    size_t end = ((n & (BLOCK_SIZE - 1)) + 1) * sizeof(*f);

    if (n >= ix->max_frames)
        return RS_ENOSPC;
    if (ix->blocks[block] == NULL && (ix->blocks[block] = block_map()) == NULL)
        return RS_ENOMEM;
    if ((n & (BLOCK_SIZE - 1)) == 0)
        ix->populated = 0;      /* a block begins: mapped now, or kept from an earlier pass */
    if (end > ix->populated) {
        /* Failing (a kernel before 5.14), the pages come one fault at a time. */
        (void)madvise((uint8_t *)ix->blocks[block] + ix->populated, POPULATE_AHEAD,
                      MADV_POPULATE_WRITE);
        ix->populated += POPULATE_AHEAD;
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
