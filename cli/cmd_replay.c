/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_replay.c - `roceshark replay`: the wiring (the options are replay_args.c); the
 * trace, the rewriting, the run and the comparison are replay/engine/.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/inject/inject.h>
#include <roceshark/transport/rc.h>
#include <roceshark/replay/replay.h>

#include "cli.h"
#include "replay_cli.h"


/* What --target's side channel says of the target, announcing us at --bind. */
static int
learn(const struct replay_opts *ro, const struct rs_replay_trace *t, struct rs_replay_target *tg,
      char *err)
{
    uint8_t src[16];

    rs_addr_from_ip(ro->rw.family, ro->rw.src, src);
    return rs_replay_learn(t, src, ro->target, ro->target_scope, ro->target_port, tg, err);
}

/* What a target needs that the options must give once a conversation is picked. */
static int
check_target(const struct replay_opts *ro, const struct rs_replay_trace *t)
{
    if (!ro->rw.set_src)
        return cli_fail(CLI_EXIT_USAGE, "replay: give our address: --bind IP");
    if (ro->side_responder) {
        if (ro->have_target || ro->have_dst)
            return cli_fail(CLI_EXIT_USAGE, "replay: --side responder waits for the "
                            "requester: no --target or --dst");
        return 0;
    }
    if (!ro->have_target && !ro->have_dst)
        return cli_fail(CLI_EXIT_USAGE, "replay: give the target: --target IP[:PORT] or "
                        "--dst IP");
    if (ro->have_target && ro->have_dst)
        return cli_fail(CLI_EXIT_USAGE, "replay: --target and --dst both name the target");
    if (ro->dst_family != ro->rw.family)
        return cli_fail(CLI_EXIT_USAGE, "replay: --bind is IPv%u and --%s IPv%u",
                        ro->rw.family, ro->have_dst ? "dst" : "target", ro->dst_family);
    if ((ro->messages || ro->preload) && !ro->have_target)
        return cli_fail(CLI_EXIT_USAGE, "replay: %s connects our requester to the target: "
                        "give --target IP[:PORT]", ro->messages ? "--messages" : "--preload");
    if (ro->messages && ro->run.iface != NULL)
        return cli_fail(CLI_EXIT_USAGE, "replay: --messages sends from our RC transport's "
                        "UDP port, not with -i");
    if (t->conv.family != 0 && t->conv.family != ro->rw.family)
        return cli_fail(CLI_EXIT_USAGE, "replay: the conversation is IPv%u, --bind IPv%u",
                        t->conv.family, ro->rw.family);
    return 0;
}

/* -i: frames leave with the interface's MAC, to the neighbour's for the target (when the
 * kernel knows it; else the captured one stays). */
static int
iface_macs(struct replay_opts *ro)
{
    char err[RS_ERRBUF_SIZE];

    if (!ro->rw.set_eth_src) {
        if (rs_inject_iface_mac(ro->run.iface, ro->rw.eth_src, err) != 0)
            return cli_fail(CLI_EXIT_CAPTURE, "replay: -i %s", err);
        ro->rw.set_eth_src = true;
    }
    if (!ro->rw.set_eth_dst &&
        rs_inject_neighbour_mac(ro->run.iface, ro->rw.family, ro->rw.dst, ro->rw.eth_dst,
                                err) == 0)
        ro->rw.set_eth_dst = true;
    return 0;
}

static void
describe(const struct rs_replay_trace *t, const struct replay_opts *ro,
         const struct rs_replay_target *tg)
{
    char a[RS_ADDR_TEXT_MAX], b[RS_ADDR_TEXT_MAX], d[RS_ADDR_TEXT_MAX];
    uint8_t gid[16];

    rs_addr_from_ip(t->conv.family, t->conv.requester, gid);
    rs_addr_format(gid, 0, a, sizeof(a));
    rs_addr_from_ip(t->conv.family, t->conv.responder, gid);
    rs_addr_format(gid, 0, b, sizeof(b));
    rs_addr_from_ip(ro->rw.family, ro->side_responder ? ro->rw.src : ro->rw.dst, gid);
    rs_addr_format(gid, 0, d, sizeof(d));
    printf("replay: conversation %u, %s:0x%06x -> %s:0x%06x, %u requests and %u responses; "
           "%s %s", t->conv.id, a, t->conv.requester_qp & 0xffffff, b,
           t->conv.responder_qp & 0xffffff, t->requests->len, t->responses->len,
           ro->side_responder ? "serving a requester at" : "target", d);
    if (ro->side_responder)
        printf(" (side channel port %u)", ro->listen);
    if (tg != NULL)
        printf(" QP 0x%06x R_Key 0x%08x VA 0x%llx PMTU %u", tg->qpn, tg->rkey,
               (unsigned long long)tg->va, tg->pmtu);
    printf("\n");
    fflush(stdout);
}

static int
validate(const struct replay_opts *ro, const struct rs_replay_trace *t,
         const struct rs_replay_target *tg, GArray *got, GByteArray *got_bytes)
{
    struct rs_replay_compare_opts co = {
        .lenient_rnr = ro->lenient_rnr, .payloads = ro->payloads, .messages = ro->messages,
        .first_psn = rs_replay_first_psn(t), .psn_offset = ro->rw.psn_offset,
        .psn_span = ro->run.psn_span, .trace_pmtu = t->conv.pmtu,
        .target_pmtu = tg != NULL ? (uint16_t)tg->pmtu : 0,
        .requests = (const struct rs_replay_frame *)(void *)t->requests->data,
        .n_requests = t->requests->len};
    struct rs_replay_result res;
    char err[RS_ERRBUF_SIZE];
    int rc = 0;

    const struct rs_replay_frame *g = (const struct rs_replay_frame *)(void *)got->data;
    if (ro->side_responder) {
        rs_replay_result_init(&res);
        rs_replay_compare_requests(ro->rw.psn_offset,
                                   (const struct rs_replay_frame *)(void *)t->requests->data,
                                   t->requests->len, g, got->len, &res);
        res.expected = t->requests->len;
        res.got = got->len;
    } else {
        rs_replay_compare(&co, (const struct rs_replay_frame *)(void *)t->responses->data,
                          t->responses->len, t->bytes->data, g, got->len, got_bytes->data,
                          ro->run.loop, &res);
    }
    if (ro->tap)
        rs_replay_print_tap(stdout, &res);
    else
        rs_replay_print(stdout, &res);
    if (ro->junit != NULL && rs_replay_write_junit(ro->junit, ro->file, &res, err) != 0)
        rc = cli_fail(CLI_EXIT_OUTPUT, "replay: --junit %s", err);
    if (rc == 0)
        rc = res.divergences->len > 0 ? CLI_EXIT_DIVERGED : CLI_EXIT_OK;
    rs_replay_result_free(&res);
    return rc;
}

/* --preload: WRITEs by our requester on a QP of their own, before the replay's. */
static int
preload(const struct replay_opts *ro, const struct rs_replay_trace *t,
        const struct rs_decode_opts *dopts)
{
    GArray *msgs = g_array_new(FALSE, FALSE, sizeof(struct rs_replay_msg));
    GByteArray *data = g_byte_array_new(), *none_bytes = g_byte_array_new();
    GArray *none = g_array_new(FALSE, FALSE, sizeof(struct rs_replay_frame));
    struct rs_replay_rewrite rw = ro->rw;
    struct rs_replay_run_opts quiet = {0};
    struct rs_replay_run_stats st;
    struct rs_replay_target tg = {.fd = -1};
    char err[RS_ERRBUF_SIZE];
    int rc = rs_replay_preload(t, ro->preload_file, msgs, data, err);

    if (rc != 0) {
        rc = cli_fail(rc == RS_EIO ? CLI_EXIT_INPUT : CLI_EXIT_USAGE, "replay: %s", err);
    } else if (learn(ro, t, &tg, err) != 0) {
        rc = cli_fail(CLI_EXIT_CAPTURE, "replay: --target: %s", err);
    } else {
        rs_replay_apply_target(t, &tg, ro->have_va_offset, &rw);
        quiet.loop = 1;
        rc = rs_replay_run_messages(t, msgs, data, &rw, &tg, &quiet, dopts, none, none_bytes,
                                    &st, err);
        if (rc != 0)
            rc = cli_fail(CLI_EXIT_CAPTURE, "replay: --preload: %s", err);
        else if (st.completed != msgs->len || st.failed != 0)
            rc = cli_fail(CLI_EXIT_CAPTURE, "replay: --preload: %llu of %u WRITEs completed, "
                          "%llu failed (%s): is the target's region large enough?",
                          (unsigned long long)st.completed, msgs->len,
                          (unsigned long long)st.failed,
                          st.failed != 0 ? rs_rc_wc_status_name(st.first_failure) : "none");
        else
            printf("replay: preloaded %u bytes in %u WRITEs\n", data->len, msgs->len);
    }
    rs_replay_target_release(&tg);
    g_array_free(msgs, TRUE);
    g_byte_array_free(data, TRUE);
    g_array_free(none, TRUE);
    g_byte_array_free(none_bytes, TRUE);
    return rc;
}

/* --messages: the trace's work, done by our requester (one pass). */
static int
run_messages(struct replay_opts *ro, const struct rs_replay_trace *t,
             const struct rs_replay_target *tg, const struct rs_decode_opts *dopts, GArray *got,
             GByteArray *got_bytes, struct rs_replay_run_stats *st, char *err)
{
    GArray *msgs = g_array_new(FALSE, FALSE, sizeof(struct rs_replay_msg));
    GByteArray *data = g_byte_array_new();
    int rc = rs_replay_messages(t, msgs, data, err);

    if (rc == 0) {
        printf("replay: %u messages, %u bytes of SEND and WRITE data\n", msgs->len, data->len);
        fflush(stdout);
        ro->run.loop = 1;
        rc = rs_replay_run_messages(t, msgs, data, &ro->rw, tg, &ro->run, dopts, got,
                                    got_bytes, st, err);
    }
    g_array_free(msgs, TRUE);
    g_byte_array_free(data, TRUE);
    return rc;
}

int
cmd_replay(int argc, char **argv)
{
    struct replay_opts ro;
    struct rs_replay_trace t;
    struct rs_replay_target tg = {.fd = -1}, *have_tg = NULL;
    struct rs_decode_opts dopts;
    char err[RS_ERRBUF_SIZE], iface[RS_IFACE_NAME_MAX];
    int rc;

    memset(&ro, 0, sizeof(ro));
    ro.validate = true;
    ro.run.loop = 1;
    ro.listen = SIDE_PORT;
    if ((rc = replay_parse_args(&ro, argc, argv)) != 0)
        return rc < 0 ? CLI_EXIT_OK : rc;
    cli_catch_stop_signals();
    rs_decode_opts_init(&dopts);
    rc = rs_replay_trace_load(ro.file, &ro.pick, &dopts, stdout, &t, err);
    if (rc == RS_ENOENT)
        return cli_fail(CLI_EXIT_USAGE, "replay: %s", err);
    if (rc != 0)
        return cli_fail(CLI_EXIT_INPUT, "replay: %s", err);
    if ((rc = check_target(&ro, &t)) != 0)
        goto out;
    if (ro.preload && (rc = preload(&ro, &t, &dopts)) != 0)
        goto out;
    if (ro.have_target) {
        if (learn(&ro, &t, &tg, err) != 0) {
            rc = cli_fail(CLI_EXIT_CAPTURE, "replay: --target: %s", err);
            goto out;
        }
        rs_replay_apply_target(&t, &tg, ro.have_va_offset, &ro.rw);
        have_tg = &tg;
    }
    if (ro.run.capture_iface == NULL && (ro.validate || ro.run.write != NULL || ro.diff)) {
        if (rs_replay_iface_for(ro.rw.family, ro.rw.src, iface, sizeof(iface), err) != 0) {
            rc = cli_fail(CLI_EXIT_USAGE, "replay: %s: say where with --capture-iface", err);
            goto out;
        }
        ro.run.capture_iface = iface;
    }
    ro.rw.udp_socket = ro.run.iface == NULL;
    if (ro.run.iface != NULL && (rc = iface_macs(&ro)) != 0)
        goto out;
    if (!ro.rw.set_sport && t.requests->len != 0) {
        /* Over UDP every packet leaves from one port: the first request's. */
        const struct rs_replay_frame *f = &g_array_index(t.requests, struct rs_replay_frame, 0);
        ro.rw.sport = f->sport;
        ro.rw.set_sport = ro.rw.udp_socket;
    }
    ro.run.psn_span = rs_replay_psn_span(&t);
    ro.run.progress = isatty(STDERR_FILENO);
    describe(&t, &ro, have_tg);

    GArray *got = g_array_new(FALSE, FALSE, sizeof(struct rs_replay_frame));
    GByteArray *got_bytes = g_byte_array_new();
    if (ro.diff)
        ro.run.wire = g_array_new(FALSE, FALSE, sizeof(struct rs_replay_frame));
    struct rs_replay_run_stats st;
    if (ro.side_responder) {
        struct rs_replay_serve_opts so = {ro.listen, 60000000000ull, 5000000000ull};
        rc = rs_replay_serve(&t, &ro.rw, &so, &ro.run, &dopts, got, got_bytes, &st, err);
    } else if (ro.messages)
        rc = run_messages(&ro, &t, &tg, &dopts, got, got_bytes, &st, err);
    else
        rc = rs_replay_run_packets(&t, &ro.rw, &ro.run, &dopts, got, got_bytes, &st, err);
    if (rc != 0) {
        rc = cli_fail(rc == RS_EIO && ro.run.write != NULL && strstr(err, ro.run.write)
                      ? CLI_EXIT_OUTPUT : cli_exit_code(rc, CLI_EXIT_CAPTURE),
                      "replay: %s", err);
    } else {
        fprintf(stderr, "replay: %llu packets sent in %.3f s (%.0f a second)",
                (unsigned long long)st.sent, st.seconds,
                st.seconds > 0 ? (double)st.sent / st.seconds : 0.0);
        if (ro.run.capture_iface != NULL)
            fprintf(stderr, ", %llu frames captured on %s (%llu dropped)",
                    (unsigned long long)st.captured, ro.run.capture_iface,
                    (unsigned long long)st.capture_drops);
        if (st.until_answered)
            fprintf(stderr, ", %llu answer%s (%s)", (unsigned long long)st.answers,
                    st.answers == 1 ? "" : "s",
                    st.refused ? "a NAK ended the QP" : st.answered ? "the last one in"
                    : "the last one not in: quiet for --linger");
        fputc('\n', stderr);
        if (ro.diff)
            rs_replay_print_diff(stdout, &t, ro.run.wire, ro.rw.psn_offset);
        if (ro.validate)
            rc = validate(&ro, &t, have_tg, got, got_bytes);
    }
    g_array_free(got, TRUE);
    g_byte_array_free(got_bytes, TRUE);
    if (ro.run.wire != NULL)
        g_array_free(ro.run.wire, TRUE);
out:
    rs_replay_target_release(&tg);
    rs_replay_trace_free(&t);
    return rc;
}

