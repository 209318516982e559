/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_report.c - a comparison's result for people (a line per
 * divergence and a table), for TAP consumers and for JUnit XML.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <roceshark/replay/replay.h>
#include <roceshark/inject/script.h>

static void
frame_ref(char *buf, size_t size, uint64_t n)
{
    if (n != 0)
        snprintf(buf, size, "%" PRIu64, n);
    else
        snprintf(buf, size, "-");
}

/* "capture frame 12, replay frame 31: FIELD: expected X, got Y [rule]" */
static void
divergence_line(FILE *f, const struct rs_replay_divergence *d)
{
    char c[24], r[24];

    frame_ref(c, sizeof(c), d->capture_frame);
    frame_ref(r, sizeof(r), d->replay_frame);
    fprintf(f, "capture frame %s, replay frame %s: %s: expected %s, got %s [%s]", c, r,
            d->field, d->expected, d->got, rs_replay_rule_name(d->rule));
}

void
rs_replay_print(FILE *f, const struct rs_replay_result *res)
{
    for (unsigned i = 0; i < res->divergences->len; i++) {
        fputs("divergence: ", f);
        divergence_line(f, &g_array_index(res->divergences, struct rs_replay_divergence, i));
        fputc('\n', f);
    }
    fprintf(f, "%-13s %9s %9s %9s %9s\n", "Rule", "Compared", "Same", "Allowed", "Diverged");
    for (uint8_t r = 0; r < RS_REPLAY_RULE_COUNT; r++) {
        const struct rs_replay_tally *t = &res->by_rule[r];
        fprintf(f, "%-13s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 "\n",
                rs_replay_rule_name(r), t->compared, t->same, t->allowed, t->diverged);
    }
    fprintf(f, "%u divergence%s: %" PRIu64 " packets of the capture to compare, %" PRIu64
            " from the other side in %u pass%s\n", res->divergences->len,
            res->divergences->len == 1 ? "" : "s", res->expected, res->got, res->passes,
            res->passes == 1 ? "" : "es");
}

void
rs_replay_print_tap(FILE *f, const struct rs_replay_result *res)
{
    fprintf(f, "TAP version 13\n1..%d\n", RS_REPLAY_RULE_COUNT);
    for (uint8_t r = 0; r < RS_REPLAY_RULE_COUNT; r++) {
        const struct rs_replay_tally *t = &res->by_rule[r];
        fprintf(f, "%s %u - %s: %" PRIu64 " compared, %" PRIu64 " allowed\n",
                t->diverged == 0 ? "ok" : "not ok", r + 1, rs_replay_rule_name(r),
                t->compared, t->allowed);
        for (unsigned i = 0; i < res->divergences->len; i++) {
            const struct rs_replay_divergence *d =
                &g_array_index(res->divergences, struct rs_replay_divergence, i);
            if (d->rule != r)
                continue;
            fputs("# ", f);
            divergence_line(f, d);
            fputc('\n', f);
        }
    }
}

/* JUnit through the scenario scripts' writer: a testcase per rule, failed with its first
 * divergence and the count of the others. */
int
rs_replay_write_junit(const char *path, const char *name, const struct rs_replay_result *res,
                      char *err)
{
    struct rs_script_result r[RS_REPLAY_RULE_COUNT];
    FILE *f = fopen(path, "w");

    if (f == NULL)
        return rs_error(err, RS_EIO, "%s: %s", path, strerror(errno));
    for (uint8_t k = 0; k < RS_REPLAY_RULE_COUNT; k++) {
        const struct rs_replay_tally *t = &res->by_rule[k];
        memset(&r[k], 0, sizeof(r[k]));
        r[k].ok = t->diverged == 0;
        snprintf(r[k].text, sizeof(r[k].text), "%s", rs_replay_rule_name(k));
        snprintf(r[k].evidence, sizeof(r[k].evidence), "%" PRIu64 " compared, %" PRIu64
                 " allowed", t->compared, t->allowed);
        for (unsigned i = 0; i < res->divergences->len && !r[k].ok; i++) {
            const struct rs_replay_divergence *d =
                &g_array_index(res->divergences, struct rs_replay_divergence, i);
            if (d->rule != k)
                continue;
            char line[400];
            snprintf(line, sizeof(line), "capture frame %" PRIu64 ", replay frame %" PRIu64
                     ": %s: expected %s, got %s (%" PRIu64 " divergences)", d->capture_frame,
                     d->replay_frame, d->field, d->expected, d->got, t->diverged);
            g_strlcpy(r[k].evidence, line, sizeof(r[k].evidence));
            break;
        }
    }
    rs_script_print_junit(f, name, r, RS_REPLAY_RULE_COUNT, 0.0);
    if (fclose(f) != 0)
        return rs_error(err, RS_EIO, "%s: %s", path, strerror(errno));
    return 0;
}
