/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_ring.c - the ring between two threads (the pipeline's stages, the
 * TUI's sink and indexer): every slot and its bytes arrive once and in order
 * (the byte area wrapping, and frames too large for it), records alone
 * through a ring without a byte area, the producer waits while the ring is
 * full and goes on when a slot comes back, and closing hands over what is
 * left.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <glib.h>

#include <roceshark/dissectors/ring.h>

struct item {
    uint64_t seq;
    size_t len;
    const uint8_t *bytes;
};

/* Sizes that make the 4 KiB byte area wrap at odd places, and now and then
 * one over a quarter of it (a buffer of its own). */
static size_t
item_len(uint64_t seq)
{
    return seq % 97 == 0 ? 1500 + seq % 7 : (seq * 37) % 700;
}

static uint8_t
item_byte(uint64_t seq, size_t i)
{
    return (uint8_t)(seq * 131 + i);
}

struct producer {
    struct rs_ring *r;
    uint64_t n;
    atomic_uint_fast64_t pushed;
    bool records_alone;     /* a ring without a byte area: no bytes are claimed */
};

static gpointer
produce(gpointer data)
{
    struct producer *pr = data;

    for (uint64_t seq = 0; seq < pr->n; seq++) {
        uint8_t *bytes = NULL;
        size_t len = pr->records_alone ? 0 : item_len(seq);
        struct item *it = rs_ring_claim(pr->r, len, pr->records_alone ? NULL : &bytes);
        if (it == NULL)
            return NULL;
        it->seq = seq;
        it->len = len;
        it->bytes = bytes;
        for (size_t i = 0; i < len; i++)
            bytes[i] = item_byte(seq, i);
        rs_ring_push(pr->r);
        atomic_store(&pr->pushed, seq + 1);
    }
    rs_ring_close(pr->r);
    return NULL;
}

/* Runs pr's producer and takes every item, at most batch at a time: each
 * once, in order, with its own bytes. */
static void
consume_in_order(struct producer *pr, size_t batch)
{
    uint64_t want = 0;
    size_t n;

    assert_non_null(pr->r);
    GThread *t = g_thread_new("producer", produce, pr);
    while ((n = rs_ring_wait(pr->r)) > 0) {
        if (n > batch)
            n = batch;
        for (size_t k = 0; k < n; k++) {
            const struct item *it = rs_ring_slot(pr->r, k);
            assert_int_equal(it->seq, want);
            assert_int_equal(it->len, pr->records_alone ? 0 : item_len(want));
            for (size_t i = 0; i < it->len; i++)
                if (it->bytes[i] != item_byte(want, i))
                    fail_msg("item %llu byte %zu", (unsigned long long)want, i);
            want++;
        }
        rs_ring_release(pr->r, n);
    }
    g_thread_join(t);
    assert_int_equal(want, pr->n);
    rs_ring_free(pr->r);
}

/* The consumer taking a few at a time, as the pipeline's second stage does. */
static void
test_order(void **state)
{
    struct producer pr = {rs_ring_new(16, sizeof(struct item), 4096), 100000, 0, false};

    (void)state;
    consume_in_order(&pr, 5);
}

/* A ring without a byte area carries records alone, across its end, a full
 * ring holding the producer (as the TUI's indexer ring). */
static void
test_records_alone(void **state)
{
    struct producer pr = {rs_ring_new(8, sizeof(struct item), 0), 50000, 0, true};

    (void)state;
    consume_in_order(&pr, SIZE_MAX);
}

/* On one thread: claim, fill, push, take, check, across the area's end. */
static void
test_wrap(void **state)
{
    uint8_t *bytes;

    (void)state;
    static const size_t lens[] = {200, 0, 250, 600};   /* 600: a buffer of its own */
    struct rs_ring *r = rs_ring_new(4, sizeof(struct item), 1024);
    for (uint64_t seq = 0; seq < 300; seq++) {
        size_t len = lens[seq % 4];
        struct item *it = rs_ring_claim(r, len, &bytes);
        it->seq = seq;
        it->len = len;
        for (size_t i = 0; i < len; i++)
            bytes[i] = item_byte(seq, i);
        uint8_t *first = bytes;
        rs_ring_push(r);
        rs_ring_flush(r);       /* pushed slots show a few dozen at a time, or now */
        assert_int_equal(rs_ring_wait(r), 1);
        it = rs_ring_slot(r, 0);
        assert_int_equal(it->seq, seq);
        for (size_t i = 0; i < len; i++)
            assert_int_equal(first[i], item_byte(seq, i));
        rs_ring_release(r, 1);
    }
    rs_ring_free(r);
}

/* A full ring holds the producer until a slot comes back. */
static void
test_back_pressure(void **state)
{
    struct producer pr = {rs_ring_new(4, sizeof(struct item), 4096), 5, 0, false};

    (void)state;
    GThread *t = g_thread_new("producer", produce, &pr);
    while (atomic_load(&pr.pushed) < 4)
        g_usleep(1000);
    g_usleep(50000);
    assert_int_equal(atomic_load(&pr.pushed), 4);
    assert_int_equal(rs_ring_wait(pr.r), 4);
    rs_ring_release(pr.r, 1);
    g_thread_join(t);   /* it pushed the fifth and closed */
    assert_int_equal(atomic_load(&pr.pushed), 5);
    assert_int_equal(rs_ring_wait(pr.r), 4);
    assert_int_equal(((struct item *)rs_ring_slot(pr.r, 3))->seq, 4);
    rs_ring_release(pr.r, 4);
    assert_int_equal(rs_ring_wait(pr.r), 0);
    rs_ring_free(pr.r);
}

struct drainer {
    struct rs_ring *r;
    atomic_bool empty;
};

static gpointer
wait_empty(gpointer data)
{
    struct drainer *d = data;
    uint8_t *bytes;

    for (int i = 0; i < 3; i++) {
        rs_ring_claim(d->r, 10, &bytes);
        rs_ring_push(d->r);
    }
    /* Three slots are fewer than wake the consumer: waiting flushes them. */
    rs_ring_wait_empty(d->r);
    atomic_store(&d->empty, true);
    rs_ring_close(d->r);
    return NULL;
}

/* Waiting for the ring to empty wakes the consumer for a few slots and
 * returns once they are back; closing then ends the consumer's wait; and a
 * ring freed with slots still in it (one with a buffer of its own) frees
 * them. */
static void
test_shutdown(void **state)
{
    struct drainer d = {rs_ring_new(64, sizeof(struct item), 4096), false};
    size_t n, seen = 0;
    uint8_t *bytes;

    (void)state;
    GThread *t = g_thread_new("producer", wait_empty, &d);
    while ((n = rs_ring_wait(d.r)) > 0) {
        assert_false(atomic_load(&d.empty));
        seen += n;
        rs_ring_release(d.r, n);
    }
    g_thread_join(t);
    assert_true(atomic_load(&d.empty));
    assert_int_equal(seen, 3);
    rs_ring_free(d.r);

    struct rs_ring *r = rs_ring_new(4, sizeof(struct item), 1024);
    assert_non_null(rs_ring_claim(r, 600, &bytes));
    rs_ring_push(r);
    assert_non_null(rs_ring_claim(r, 100, &bytes));
    rs_ring_push(r);
    rs_ring_close(r);
    rs_ring_free(r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_wrap),
        cmocka_unit_test(test_records_alone),
        cmocka_unit_test(test_back_pressure),
        cmocka_unit_test(test_shutdown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
