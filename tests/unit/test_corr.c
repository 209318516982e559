/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_corr.c - the fabric view on synthetic points of known clocks: offset and drift
 * recovered within the stated bound, losses put on the segment that lost them, capture
 * misses told apart, CE marks and TTL changes found, a retransmission after a loss and
 * a go-back-N copy sent before its original arrived each paired with its own sighting,
 * a full table finishing packets early, and the table growing while packets are open;
 * the same found from the records of the frames as from the frames.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <roceshark/dissectors/corr.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/fields.h>

#define MAX_SIGHTINGS 40000

/* One frame at one point: a RoCEv2 packet of a conversation, built by hand. */
#define TEST_MAX_POINTS 16      /* the most points a case here uses */

struct sighting {
    unsigned point;
    int64_t own;                /* the point's clock, ns */
    uint8_t bytes[64];
    struct rs_frame frame;
};

struct world {
    struct sighting *s;
    unsigned n;
    uint64_t number[TEST_MAX_POINTS];
    /* what the sink saw */
    unsigned finished, lost_ab, lost_bc, ce_ab, missed_b, ttl_changed;
    unsigned odd_delays;        /* a segment's delay outside 150 to 260 us */
    int64_t want_delay;         /* when set: every delay should be this */
    unsigned off_delays;        /* delays other than want_delay */
};

/* Ethernet, IPv4 (ECN and TTL given), UDP 4791, BTH (opcode RC Send Only), ICRC. The
 * ICRC is any hop-invariant number: the matcher does not check it. */
static void
add(struct world *w, unsigned point, int64_t own, uint32_t dst, uint32_t dqp, uint32_t psn,
    uint8_t ecn, uint8_t ttl)
{
    assert_true(w->n < MAX_SIGHTINGS);
    struct sighting *s = &w->s[w->n++];
    uint8_t *b = s->bytes;

    memset(s, 0, sizeof(*s));
    s->point = point;
    s->own = own;
    memcpy(b, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00", 14);
    uint8_t *ip = b + 14;
    ip[0] = 0x45;
    ip[1] = ecn;
    ip[3] = 20 + 8 + 12 + 4;
    ip[6] = 0x40;
    ip[8] = ttl;
    ip[9] = 17;
    memcpy(ip + 12, "\x0a\x00\x00\x09", 4);
    ip[16] = 10, ip[19] = (uint8_t)dst;
    uint8_t *udp = ip + 20;
    udp[0] = 0xc0, udp[1] = 0x00;
    udp[2] = 0x12, udp[3] = 0xb7;
    udp[5] = 8 + 12 + 4;
    uint8_t *bth = udp + 8;
    bth[0] = 4;         /* RC Send Only */
    bth[1] = 0x40;
    bth[2] = 0xff, bth[3] = 0xff;
    bth[5] = (uint8_t)(dqp >> 16), bth[6] = (uint8_t)(dqp >> 8), bth[7] = (uint8_t)dqp;
    bth[9] = (uint8_t)(psn >> 16), bth[10] = (uint8_t)(psn >> 8), bth[11] = (uint8_t)psn;
    uint32_t icrc = psn * 2654435761u ^ dqp;
    memcpy(bth + 12, &icrc, 4);
    s->frame.data = b;
    s->frame.caplen = s->frame.len = 14 + 20 + 8 + 12 + 4;
    s->frame.linktype = RS_DLT_EN10MB;
    s->frame.ts_sec = own / 1000000000;
    s->frame.ts_nsec = (uint32_t)(own % 1000000000);
}

static void
sink(void *ctx, const struct rs_corr_view *v, const struct rs_frame *f)
{
    struct world *w = ctx;

    (void)f;
    w->finished++;
    w->lost_ab += strcmp(v->lost_text, "A>B") == 0;
    w->lost_bc += strcmp(v->lost_text, "B>C") == 0;
    w->ce_ab += strcmp(v->ce_text, "A>B") == 0;
    w->missed_b += strcmp(v->missed_text, "B") == 0;
    for (unsigned s = 0; s + 1 < v->n_path; s++) {
        w->odd_delays += v->both[s] && (v->delay[s] < 150000 || v->delay[s] > 260000);
        w->off_delays += w->want_delay != 0 && v->both[s] && v->delay[s] != w->want_delay;
    }
    for (unsigned i = 0; i < v->n_changed; i++)
        w->ttl_changed += strstr(v->changed[i], "ip.ttl") != NULL;
}

static const struct rs_corr_clock *cmp_clock;
/* The last pass takes the records of the frames (rs_corr_feed_sighting, no frame held), as
 * correlate -q takes them back from its spill, rather than the frames. */
static bool by_sighting;

static int
cmp_mapped(const void *a, const void *b)
{
    const struct sighting *x = a, *y = b;
    int64_t tx = rs_corr_clock_map(&cmp_clock[x->point], x->own);
    int64_t ty = rs_corr_clock_map(&cmp_clock[y->point], y->own);

    return tx < ty ? -1 : tx > ty;
}

/* The last pass of correlate: merged on the fitted clocks, with the paths est learned. */
static struct rs_corr *
last_pass(struct world *w, struct rs_corr_opts opts, const struct rs_corr_clock fitted[],
          const struct rs_corr *est)
{
    struct rs_decode_opts dopts;
    struct rs_corr *fin;
    struct rs_packet pkt;

    rs_decode_opts_init(&dopts);
    dopts.verify_crc = false;
    opts.collect = false;
    opts.no_frames = by_sighting;
    opts.clock = fitted;
    assert_int_equal(rs_corr_new(&opts, sink, w, &fin, NULL), 0);
    rs_corr_use_paths(fin, est);
    cmp_clock = fitted;
    qsort(w->s, w->n, sizeof(*w->s), cmp_mapped);
    for (unsigned i = 0; i < w->n; i++) {
        struct rs_corr_sighting rec;
        w->s[i].frame.data = w->s[i].bytes;
        rs_decode_frame(&w->s[i].frame, &dopts, &pkt);
        if (!by_sighting) {
            rs_corr_feed(fin, w->s[i].point, &w->s[i].frame, &pkt);
            continue;
        }
        assert_true(rs_corr_sighting_of(&w->s[i].frame, &pkt, &rec));
        rs_corr_feed_sighting(fin, w->s[i].point, &rec);
    }
    rs_corr_flush(fin);
    return fin;
}

/* What `roceshark correlate` does with files: a probe, an estimating pass and the last
 * pass, each merged in time on the clocks it has. *opts_out: what the last pass was made
 * with, but the clocks. */
static struct rs_corr *
correlate_opts(struct world *w, unsigned n_points, struct rs_corr_clock fitted[],
               struct rs_corr **est_out, struct rs_corr_opts *opts_out)
{
    struct rs_decode_opts dopts;
    struct rs_corr_probe *probe;
    struct rs_corr_opts opts;
    struct rs_corr *est;
    struct rs_packet pkt;
    struct rs_corr_clock coarse[TEST_MAX_POINTS] = {{0}};

    rs_decode_opts_init(&dopts);
    dopts.verify_crc = false;
    assert_int_equal(rs_corr_probe_new(n_points, &probe), 0);
    cmp_clock = coarse;
    qsort(w->s, w->n, sizeof(*w->s), cmp_mapped);
    for (unsigned i = 0; i < w->n; i++) {
        w->s[i].frame.data = w->s[i].bytes;
        w->s[i].frame.number = ++w->number[w->s[i].point];
        rs_decode_frame(&w->s[i].frame, &dopts, &pkt);
        rs_corr_probe_add(probe, w->s[i].point, &w->s[i].frame, &pkt);
    }
    rs_corr_probe_clocks(probe, coarse);
    memset(&opts, 0, sizeof(opts));
    opts.n_points = n_points;
    opts.window = rs_corr_window_for_delay(rs_corr_probe_delay_max(probe));
    rs_corr_probe_free(probe);
    opts.collect = true;
    opts.clock = coarse;
    assert_int_equal(rs_corr_new(&opts, NULL, NULL, &est, NULL), 0);
    qsort(w->s, w->n, sizeof(*w->s), cmp_mapped);
    for (unsigned i = 0; i < w->n; i++) {
        w->s[i].frame.data = w->s[i].bytes;
        rs_decode_frame(&w->s[i].frame, &dopts, &pkt);
        rs_corr_feed(est, w->s[i].point, &w->s[i].frame, &pkt);
    }
    rs_corr_flush(est);
    rs_corr_clocks(est, fitted);
    if (rs_corr_window_for_delay(rs_corr_counts(est).delay_max) > opts.window)
        opts.window = rs_corr_window_for_delay(rs_corr_counts(est).delay_max);
    *est_out = est;
    if (opts_out != NULL)
        *opts_out = opts;
    return last_pass(w, opts, fitted, est);
}

static struct rs_corr *
correlate(struct world *w, unsigned n_points, struct rs_corr_clock fitted[],
          struct rs_corr **est_out)
{
    return correlate_opts(w, n_points, fitted, est_out, NULL);
}

/* B's clock: theta0 ahead of A's at the start, running fast by drift. */
static int64_t
b_clock(int64_t t, int64_t theta0, double drift)
{
    return t + theta0 + (int64_t)(drift * (double)t);
}

static uint32_t rng = 12345;
static int64_t
jitter(int64_t max)
{
    rng = rng * 1103515245u + 12345u;
    return (int64_t)((rng >> 8) % (uint32_t)max);
}

static struct world *
world_new(void)
{
    struct world *w = calloc(1, sizeof(*w));

    assert_non_null(w);
    w->s = calloc(MAX_SIGHTINGS, sizeof(*w->s));
    assert_non_null(w->s);
    return w;
}

static void
world_free(struct world *w)
{
    free(w->s);
    free(w);
}

static void
test_offset_and_drift(void **state)
{
    const int64_t base = 1700000000ll * 1000000000ll, theta0 = 5000000;   /* 5 ms */
    const double drift = 20e-6;                                           /* 20 ppm */
    struct world *w = world_new();
    struct rs_corr_clock k[TEST_MAX_POINTS];
    struct rs_corr *est;

    (void)state;
    /* 20 s; every 2 ms a packet from A to B (100 us + up to 50 us), one from B to A
     * (80 us + up to 50 us) */
    for (uint32_t i = 0; i < 10000; i++) {
        int64_t t = (int64_t)i * 2000000;
        int64_t d1 = 100000 + jitter(50000), d2 = 80000 + jitter(50000);
        add(w, 0, base + t, 2, 0x11, i, 1, 64);
        add(w, 1, base + b_clock(t + d1, theta0, drift), 2, 0x11, i, 1, 64);
        add(w, 1, base + b_clock(t + 1000000, theta0, drift), 1, 0x12, i, 1, 64);
        add(w, 0, base + t + 1000000 + d2, 1, 0x12, i, 1, 64);
    }
    struct rs_corr *c = correlate(w, 2, k, &est);
    struct rs_corr_counts n = rs_corr_counts(c);
    assert_int_equal(n.packets, 20000);
    assert_int_equal(n.matched, 20000);
    assert_int_equal(n.lost, 0);
    assert_int_equal(n.contradictions, 0);
    assert_true(k[1].known && k[1].two_way);
    /* the bound: half the fastest round trip (90 us) and the fit's distance from the
     * buckets' midpoints */
    assert_true(k[1].bound > 0 && k[1].bound < 150000);
    /* recovered within it over the whole run */
    for (int64_t t = 0; t <= 20000000000ll; t += 1000000000ll) {
        int64_t own = base + b_clock(t, theta0, drift);
        int64_t err = rs_corr_clock_map(&k[1], own) - (base + t);
        assert_true(err <= k[1].bound && err >= -k[1].bound);
    }
    assert_true(k[1].drift > 10e-6 && k[1].drift < 30e-6);
    rs_corr_free(c);
    rs_corr_free(est);
    world_free(w);
}

/* A > B > C: a drop on B>C, a capture miss at B, CE marked and TTL lowered on A>B, and a
 * retransmission after a loss on A>B. Clocks are equal. */
/* Three points A, B, C, packets each way: drops on A>B (each retransmitted) and B>C,
 * misses at B, CE marks on A>B, go-back-N copies, the TTL falling at each hop. */
static void
lossy_world(struct world *w, uint32_t packets)
{
    const int64_t base = 1700000000ll * 1000000000ll;

    for (uint32_t i = 0; i < packets; i++) {
        int64_t t = base + (int64_t)i * 1000000;
        bool drop_bc = i % 100 == 7, miss_b = i % 100 == 9, ce = i % 50 == 3;
        bool drop_ab = i % 100 == 11;
        add(w, 0, t, 2, 0x11, i, 1, 64);
        if (!drop_ab && !miss_b)
            add(w, 1, t + 200000 + jitter(30000), 2, 0x11, i, ce ? 3 : 1, 63);
        if (!drop_ab && !drop_bc)
            add(w, 2, t + 400000 + jitter(30000), 2, 0x11, i, ce ? 3 : 1, 63);
        if (i % 100 == 13) {
            /* a go-back-N copy sent 100 us after the original, before it arrived: each
             * sighting downstream joins its own transmission, in order */
            add(w, 0, t + 100000, 2, 0x11, i, 1, 64);
            add(w, 1, t + 300000, 2, 0x11, i, 1, 63);
            add(w, 2, t + 500000, 2, 0x11, i, 1, 63);
        }
        if (drop_ab) {
            /* the retransmission: the same packet again 500 us later, which arrives */
            add(w, 0, t + 500000, 2, 0x11, i, 1, 64);
            add(w, 1, t + 700000, 2, 0x11, i, 1, 63);
            add(w, 2, t + 900000, 2, 0x11, i, 1, 63);
        }
        /* the way back, C to A, on another QP (for the clocks) */
        add(w, 2, t + 100000, 9, 0x12, i, 1, 64);
        add(w, 1, t + 300000, 9, 0x12, i, 1, 63);
        add(w, 0, t + 500000, 9, 0x12, i, 1, 62);
    }
}

static void
test_loss_ce_and_misses(void **state)
{
    struct world *w = world_new();
    struct rs_corr_clock k[TEST_MAX_POINTS];
    struct rs_corr *est;

    (void)state;
    lossy_world(w, 2000);
    struct rs_corr *c = correlate(w, 3, k, &est);
    struct rs_corr_counts n = rs_corr_counts(c);
    /* 20 lost A>B (their retransmissions arrive), 20 lost B>C */
    assert_int_equal(w->lost_ab, 20);
    assert_int_equal(w->lost_bc, 20);
    assert_int_equal(n.lost, 40);
    assert_int_equal(w->missed_b, 20);
    assert_int_equal(n.missed, 20);
    assert_int_equal(w->ce_ab, 40);
    assert_int_equal(n.ce_marked, 40);
    assert_int_equal(n.packets, 2000 + 20 + 20 + 2000);
    assert_int_equal(w->odd_delays, 0);
    assert_int_equal(n.contradictions, 0);
    /* the TTL falls on A>B of every packet both saw, and on both segments of the way
     * back (C>B, B>A) */
    assert_int_equal(w->ttl_changed, (2000 - 40) + 20 + 20 + 2 * 2000);
    rs_corr_free(c);
    rs_corr_free(est);
    world_free(w);
}

/* The last pass fed the 72-byte records of the frames, as correlate -q feeds them, finds
 * what it finds fed the frames: the same counts, losses, CE marks, misses, delays and
 * changes. */
static void
test_sightings(void **state)
{
    struct world *w = world_new();
    struct rs_corr_clock k[TEST_MAX_POINTS];
    struct rs_corr_opts opts;
    struct rs_corr *est, *c[2];
    struct rs_corr_counts n[2];
    struct world seen[2];

    (void)state;
    lossy_world(w, 400);
    c[0] = correlate_opts(w, 3, k, &est, &opts);
    seen[0] = *w;
    w->finished = w->lost_ab = w->lost_bc = w->ce_ab = w->missed_b = 0;
    w->ttl_changed = w->odd_delays = 0;
    by_sighting = true;
    c[1] = last_pass(w, opts, k, est);
    by_sighting = false;
    seen[1] = *w;
    for (int i = 0; i < 2; i++) {
        n[i] = rs_corr_counts(c[i]);
        rs_corr_free(c[i]);
    }
    rs_corr_free(est);
    assert_memory_equal(&n[0], &n[1], sizeof(n[0]));
    assert_int_equal(seen[1].finished, 400 + 4 + 4 + 400);
    assert_int_equal(seen[1].lost_ab, seen[0].lost_ab);
    assert_int_equal(seen[1].lost_bc, seen[0].lost_bc);
    assert_int_equal(seen[1].ce_ab, 8);
    assert_int_equal(seen[1].ce_ab, seen[0].ce_ab);
    assert_int_equal(seen[1].missed_b, seen[0].missed_b);
    assert_int_equal(seen[1].ttl_changed, seen[0].ttl_changed);
    assert_int_equal(seen[1].odd_delays, 0);
    world_free(w);
}

/* Delays of 150 ms, longer than the window with nothing measured (100 ms): the window
 * the probe measures holds them, so every packet pairs with its sighting downstream and
 * only the dropped ones are lost. */
static void
test_window_from_delays(void **state)
{
    const int64_t base = 1700000000ll * 1000000000ll, delay = 150000000;
    struct world *w = world_new();
    struct rs_corr_clock k[TEST_MAX_POINTS];
    struct rs_corr *est;

    (void)state;
    assert_int_equal(rs_corr_window_for_delay(-1), RS_CORR_WINDOW_DEFAULT);
    assert_int_equal(rs_corr_window_for_delay(1000), RS_CORR_WINDOW_MIN);
    assert_int_equal(rs_corr_window_for_delay(delay), RS_CORR_WINDOW_SLACK * delay);
    assert_int_equal(rs_corr_window_for_delay(RS_CORR_WINDOW_MAX), RS_CORR_WINDOW_MAX);
    for (uint32_t i = 0; i < 1000; i++) {
        int64_t t = base + (int64_t)i * 1000000;
        add(w, 0, t, 2, 0x11, i, 1, 64);
        if (i % 100 != 11)
            add(w, 1, t + delay + jitter(30000), 2, 0x11, i, i % 50 == 3 ? 3 : 1, 63);
        add(w, 1, t + 500000, 9, 0x12, i, 1, 64);
        add(w, 0, t + 500000 + delay + jitter(30000), 9, 0x12, i, 1, 63);
    }
    struct rs_corr *c = correlate(w, 2, k, &est);
    struct rs_corr_counts n = rs_corr_counts(c);
    assert_int_equal(n.packets, 2000);
    assert_int_equal(n.matched, 2000 - 10);
    assert_int_equal(n.lost, 10);
    assert_int_equal(w->lost_ab, 10);
    assert_int_equal(n.ce_marked, 20);
    assert_int_equal(n.missed, 0);
    assert_int_equal(n.contradictions, 0);
    assert_true(n.delay_max >= delay && n.delay_max < delay + 30000);
    rs_corr_free(c);
    rs_corr_free(est);
    world_free(w);
}

/* A go-back-N copy queued 40 ms where every first copy took 200 us: the probe, which
 * pairs a key's first sightings, asks for the least window (10 ms), and the copy comes
 * past it in the estimating pass. That pass counts it late and widens the matching pass's
 * window to hold it, so the copy pairs with its own transmission: no false loss of it at
 * A>B, no false capture miss at A. */
static void
test_late_copy_widens_window(void **state)
{
    const int64_t base = 1700000000ll * 1000000000ll, queued = 40000000;
    struct world *w = world_new();
    struct rs_corr_clock k[TEST_MAX_POINTS];
    struct rs_corr *est;

    (void)state;
    for (uint32_t i = 0; i < 1000; i++) {
        int64_t t = base + (int64_t)i * 1000000;
        add(w, 0, t, 2, 0x11, i, 1, 64);
        add(w, 1, t + 200000 + jitter(30000), 2, 0x11, i, 1, 63);
        if (i % 100 == 13) {
            add(w, 0, t + 300000, 2, 0x11, i, 1, 64);
            add(w, 1, t + 300000 + queued, 2, 0x11, i, 1, 63);
        }
        add(w, 1, t + 500000, 9, 0x12, i, 1, 64);
        add(w, 0, t + 700000 + jitter(30000), 9, 0x12, i, 1, 63);
    }
    struct rs_corr *c = correlate(w, 2, k, &est);
    struct rs_corr_counts e = rs_corr_counts(est), n = rs_corr_counts(c);
    assert_int_equal(e.late, 10);
    /* on the coarse clock, within its error of the queue time */
    assert_true(e.delay_max > queued - 100000 && e.delay_max < queued + 100000);
    assert_int_equal(n.packets, 2000 + 10);
    assert_int_equal(n.matched, 2000 + 10);
    assert_int_equal(n.lost, 0);
    assert_int_equal(n.missed, 0);
    assert_int_equal(n.contradictions, 0);
    assert_int_equal(n.late, 0);       /* counted by estimating passes only */
    rs_corr_free(c);
    rs_corr_free(est);
    world_free(w);
}

/* A matcher of two points reporting to w's sink, fed w's sightings in the order they
 * were added (no probe, no clocks), then flushed. */
static struct rs_corr *
feed_two_points(struct world *w, int64_t window, uint32_t max_packets)
{
    struct rs_corr_opts opts;
    struct rs_corr *c;
    struct rs_decode_opts dopts;
    struct rs_packet pkt;

    rs_decode_opts_init(&dopts);
    dopts.verify_crc = false;
    memset(&opts, 0, sizeof(opts));
    opts.n_points = 2;
    opts.window = window;
    opts.max_packets = max_packets;
    assert_int_equal(rs_corr_new(&opts, sink, w, &c, NULL), 0);
    for (unsigned i = 0; i < w->n; i++) {
        w->s[i].frame.data = w->s[i].bytes;
        w->s[i].frame.number = i + 1;
        rs_decode_frame(&w->s[i].frame, &dopts, &pkt);
        rs_corr_feed(c, w->s[i].point, &w->s[i].frame, &pkt);
    }
    rs_corr_flush(c);
    return c;
}

/* With room for 16 open packets, the window cannot be kept: packets finish early and
 * are counted, never lost silently. */
static void
test_bounded(void **state)
{
    struct world *w = world_new();

    (void)state;
    for (uint32_t i = 0; i < 100; i++)
        add(w, 0, 1000000000ll + i, 2, 0x11, i, 1, 64);
    struct rs_corr *c = feed_two_points(w, 1000000000, 16);
    assert_int_equal(rs_corr_counts(c).forced, 100 - 16);
    assert_int_equal(w->finished, 100);
    rs_corr_free(c);
    world_free(w);
}

/* 3000 packets open at once, more than the ring first has room for: it grows while they
 * are open, and each sighting downstream still joins its own packet, copies of one key
 * (a go-back-N resend 5 us after its original) included. */
static void
test_ring_grows(void **state)
{
    const int64_t base = 1000000000ll, delay = 40000000;
    struct world *w = world_new();

    (void)state;
    w->want_delay = delay;
    for (unsigned point = 0; point < 2; point++) {
        for (uint32_t i = 0; i < 3000; i++) {
            int64_t t = base + point * delay + (int64_t)i * 10000;
            add(w, point, t, 2, 0x11, i, 1, 64);
            if (i % 100 == 5)
                add(w, point, t + 5000, 2, 0x11, i, 1, 64);
        }
    }
    struct rs_corr *c = feed_two_points(w, 1000000000, 0);
    struct rs_corr_counts n = rs_corr_counts(c);
    assert_int_equal(n.packets, 3030);
    assert_int_equal(n.matched, 3030);
    assert_int_equal(n.lost, 0);
    assert_int_equal(n.forced, 0);
    assert_int_equal(w->finished, 3030);
    assert_int_equal(w->off_delays, 0);
    rs_corr_free(c);
    world_free(w);
}

static void
test_fields(void **state)
{
    (void)state;
    assert_true(rs_field_lookup("roceshark.corr.seen_at") >= 0);
    assert_true(rs_field_lookup("roceshark.corr.delay") >= 0);
    assert_true(rs_field_lookup("roceshark.corr.lost_between") >= 0);
    assert_true(rs_field_lookup("roceshark.corr.ce_marked_between") >= 0);
    assert_true(rs_field_lookup("roceshark.corr.changed") >= 0);
}

/* Point names go on past Z as spreadsheet columns do, and read back. */
static void
test_point_names(void **state)
{
    static const struct {
        unsigned i;
        const char *name;
    } cases[] = {{0, "A"}, {7, "H"}, {25, "Z"}, {26, "AA"}, {27, "AB"}, {51, "AZ"},
                 {52, "BA"}, {701, "ZZ"}, {702, "AAA"}, {UINT32_MAX, "MWLQKWV"}};
    unsigned p;
    size_t len;

    (void)state;
    for (size_t k = 0; k < RS_ARRAY_SIZE(cases); k++) {
        assert_string_equal(rs_corr_point_name(cases[k].i).s, cases[k].name);
        assert_true(rs_corr_point_parse(cases[k].name, &p, &len));
        assert_int_equal(p, cases[k].i);
        assert_int_equal(len, strlen(cases[k].name));
    }
    assert_true(rs_corr_point_parse("AB,C", &p, &len));
    assert_int_equal(p, 27);
    assert_int_equal(len, 2);
    assert_false(rs_corr_point_parse("a", &p, &len));
    assert_false(rs_corr_point_parse(",A", &p, &len));
    assert_false(rs_corr_point_parse("ZZZZZZZZ", &p, &len));    /* past 2^32 points */
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offset_and_drift),
        cmocka_unit_test(test_loss_ce_and_misses),
        cmocka_unit_test(test_sightings),
        cmocka_unit_test(test_window_from_delays),
        cmocka_unit_test(test_late_copy_widens_window),
        cmocka_unit_test(test_bounded),
        cmocka_unit_test(test_ring_grows),
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_point_names),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
