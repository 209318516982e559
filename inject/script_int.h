/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * script_int.h - a parsed scenario script, as the runner takes it.
 */
#ifndef ROCESHARK_SCRIPT_INT_H
#define ROCESHARK_SCRIPT_INT_H

#include <glib.h>

#include <roceshark/addr.h>
#include <roceshark/oob.h>
#include <roceshark/perf.h>
#include <roceshark/script.h>

enum script_post_op { P_WRITE, P_WRITE_IMM, P_READ, P_SEND, P_SEND_IMM, P_CAS, P_FAA };

struct script_post {
    uint8_t op;             /* enum script_post_op */
    uint32_t size;
    uint32_t count;
    uint64_t offset;        /* into the target's region */
    uint32_t imm;
    uint64_t compare_add, swap;
    bool has_rkey;
    uint32_t rkey;          /* instead of the target's: a wrong key on purpose */
};

enum script_expect_kind {
    E_NAK, E_RNR, E_CNP, E_RETRANSMIT, E_COMPLETION, E_NO_VIOLATION, E_FIELD, E_NO_FIELD,
    E_COUNT, E_EXIT, E_SAME
};

#define EXPECT_ANY_CODE -1
#define EXPECT_ALL_OK 0xff

struct script_expect {
    uint8_t kind;           /* enum script_expect_kind */
    int nak_code;           /* E_NAK: the syndrome's error code, or EXPECT_ANY_CODE */
    bool has_psn;
    uint32_t psn;           /* E_NAK: the NAK's PSN; E_RETRANSMIT: the first one resent */
    bool from_nak;          /* E_RETRANSMIT: the first one resent has the first NAK's PSN */
    uint64_t within_ns;     /* 0: any time */
    uint64_t after_ns;      /* not before this (an RNR timer, an ACK timeout) */
    uint8_t status;         /* E_COMPLETION: a status some completion has, or all OK */
    char *filter;           /* E_FIELD, E_NO_FIELD, E_COUNT, E_SAME */
    int field;              /* E_SAME: the registry id whose value every match shares */
    uint64_t count;         /* E_COUNT: exactly this many frames match; E_EXIT: the status */
    char text[160];         /* as written, for the report */
};

struct rs_script {
    /* bind: our side. */
    char bind[64];
    struct rs_rc_qp_attr attr;
    uint32_t qpn, psn;
    /* connect (we request) or accept (we respond): the target, through a side channel
     * (its, or ours that it connects to) or as given. */
    char target[RS_ADDR_TEXT_MAX];  /* the target's address, as $TARGET gives it */
    bool accept;
    bool side;
    enum rs_oob_setup setup;        /* how: our side channel, perftest's, pingpong's, CM */
    char test[16];                  /* perftest://: the peer's test; "": from the posts */
    uint16_t port;
    struct rs_rc_conn_info peer;    /* static: qpn, psn, rkey, va, length */
    uint32_t scope;                 /* the interface of a link-local peer */
    GString *faults;                /* the fault lines, at their own line numbers */
    char where[256];
    struct script_post posts[RS_SCRIPT_MAX_POSTS];
    unsigned n_posts;
    struct script_expect expects[RS_SCRIPT_MAX_EXPECTS];
    unsigned n_expects;
    uint64_t timeout_ns;            /* the run's deadline */
    char *run;                      /* run: the command that starts the target, or NULL */
};

/* script_accept.c: the run when the target is a requester: our responder serves it while
 * the script's run command starts it, until the command exited (*status, -1 when it had
 * not by the deadline), the wire went quiet, or the deadline. last_packet is when the
 * recorder last saw a packet. */
int script_accept(const struct rs_script *s, const uint8_t our_gid[16], uint32_t our_scope,
                  const char *bind,
                  struct rs_rc_udp *udp, struct rs_rc_ctx *ctx, const uint64_t *last_packet,
                  int *status, char *err);

/* script_connect.c: a requester's QP to its target, set up as the connect statement
 * says (static, our side channel, or the target tool's own setup through perf's client,
 * which fills s->peer with the target's region). script_disconnect() ends the setup's
 * exchange after the posts (perftest's closing steps, CM's DREQ); release frees it all. */
struct script_conn {
    struct rs_rc_qp *qp;
    int side_fd;            /* the responder's side channel, held while the QP is used (it
                               frees the QP when this closes); -1: none */
    bool via_perf;
    struct rs_perf perf;
};
int script_connect(struct rs_script *s, const uint8_t our_gid[16], uint32_t our_scope,
                   struct rs_rc_udp *udp, struct rs_rc_ctx *ctx,
                   const struct rs_rc_conn_info *ours, struct script_conn *c, char *err);
int script_disconnect(struct script_conn *c, uint64_t work_requests, char *err);
/* Points s at target t, from a connect or accept line or --target: the peer's address,
 * and for a URL (url) its setup, the side channel and its port (perftest's 18515 unless
 * the URL names one). -1 with why when an accepting script is given a setup in which the
 * peer is the client; s->accept must be set before. */
int script_set_target(struct rs_script *s, const struct rs_oob_target *t, bool url,
                      char *why);
void script_conn_release(struct script_conn *c);

#endif /* ROCESHARK_SCRIPT_INT_H */
