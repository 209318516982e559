/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * script_int.h - a parsed scenario script, as the runner takes it.
 */
#ifndef ROCESHARK_SCRIPT_INT_H
#define ROCESHARK_SCRIPT_INT_H

#include <glib.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/dissectors/analysis.h>
#include <roceshark/inject/faults.h>
#include <roceshark/dissectors/oob.h>
#include <roceshark/transport/perf.h>
#include <roceshark/inject/script.h>

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
    bool has_value;
    uint64_t value;         /* a write of 8 bytes: this word, little-endian */
};

enum script_expect_kind {
    E_NAK, E_RNR, E_CNP, E_RETRANSMIT, E_COMPLETION, E_NO_VIOLATION, E_FIELD, E_NO_FIELD,
    E_COUNT, E_EXIT, E_SAME, E_DUPLICATE, E_MEMORY
};

#define EXPECT_ANY_CODE -1
#define EXPECT_ALL_OK 0xff

struct script_expect {
    uint8_t kind;           /* enum script_expect_kind */
    int nak_code;           /* E_NAK: the syndrome's error code, or EXPECT_ANY_CODE */
    bool has_psn;
    uint32_t psn;           /* E_NAK: the NAK's PSN; E_RETRANSMIT: the first one resent;
                               both relative to the conversation's first PSN */
    bool from_nak;          /* E_RETRANSMIT: the first one resent has the first NAK's PSN */
    uint64_t within_ns;     /* 0: any time */
    uint64_t after_ns;      /* not before this (an RNR timer, an ACK timeout) */
    uint8_t status;         /* E_COMPLETION: a status some completion has, or all OK */
    char *filter;           /* E_FIELD, E_NO_FIELD, E_COUNT, E_SAME */
    int field;              /* E_SAME: the registry id whose value every match shares */
    uint64_t count;         /* E_COUNT: exactly this many frames match; E_EXIT: the status */
    uint64_t offset;        /* E_MEMORY: the word at this offset of the target's region */
    uint64_t value;         /* E_MEMORY: holds this, little-endian, after the posts */
    char text[160];         /* as written, for the report */
};

struct rs_script {
    /* bind: our side. */
    char bind[64];
    struct rs_rc_qp_attr attr;
    uint32_t qpn, psn;
    /* connect (we request) or accept (we respond): the target, through a side channel
     * (its, or ours that it connects to) or as given. */
    bool qpn_given, psn_given;      /* bind's qpn and psn; else random at each run */
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
    uint64_t linger_ns;             /* linger: after the last completion; 0: the default */
    char *run;                      /* run: the command that starts the target, or NULL */
};

/* A recorded packet: this header, then len bytes, then padding to 8. */
struct script_record {
    uint64_t t;
    uint32_t len;
    uint32_t pad;
};

#define SCRIPT_MAX_OUR_QPS 16

/* A memory expectation's word, read back after the posts (E_MEMORY). */
struct script_readback {
    bool done;
    uint8_t status;         /* the READ's completion status */
    uint64_t value;
};

/* One run of a script: the recording, the fault engine, and what the judge reads. */
struct script_runner {
    struct rs_script *s;
    struct rs_faults *faults;
    GByteArray *rec;
    bool rec_full;
    uint8_t our_gid[16];
    uint32_t our_scope;
    uint64_t last_packet;               /* when the last one was recorded */
    uint64_t linger_ns;                 /* how long the run records after its end */
    bool have_nak;                      /* the first NAK on the wire, for "from nak" */
    uint32_t nak_psn;                   /* relative to the conversation's first */
    int exit_status;                    /* the run command's; -1: none, or it did not exit */
    /* Our QPs in this run (the connected hook names them): a packet to another QP of
     * ours is a stray, a late one of an earlier run, and is not judged. */
    uint32_t our_qpns[SCRIPT_MAX_OUR_QPS];
    unsigned n_our_qpns;
    bool qpns_overflow;
    uint64_t strays, first_stray;
    uint32_t first_stray_qpn;
    struct script_readback readback[RS_SCRIPT_MAX_EXPECTS];
};

/* script_duplicate.c: `expect duplicate answered`, fed every judged frame in the order of
 * the wire (request: one of the requester's; ours: we sent it). */
struct script_duplicate {
    uint8_t state;
    bool ok;
    uint8_t op;                 /* the duplicate's, enum rs_ib_op */
    uint64_t frame;             /* the duplicate */
    uint32_t psn, rel;          /* its PSN, on the wire and relative */
    uint32_t dmalen;            /* a READ's */
    uint32_t read_next, read_packets;
    uint64_t read_bytes, read_first;
    uint64_t answer;            /* the frame that settled it */
    uint64_t malformed;         /* the target's first malformed packet after it; 0: none */
    char why[120];
};
void script_duplicate_frame(struct script_duplicate *d, const struct rs_packet *pkt,
                            const struct rs_facts *facts, uint64_t frame, bool request,
                            bool ours);
/* The verdict and its evidence. */
bool script_duplicate_verdict(const struct script_duplicate *d, char *out, size_t size);

/* script_judge.c: the recording through the pipeline, each expectation's verdict (in
 * results, n of them) and the note on strays. */
int script_judge(struct script_runner *r, const struct rs_rc_wc *wcs, unsigned n_wcs,
                 unsigned n_wrs, const char *pcap, struct rs_script_result *results,
                 unsigned *n, char *err);

/* script_env.c: the environment of a run or reset command: ROCESHARK (this program),
 * BIND and TARGET (the addresses), QPN and PSN (our QP and its first PSN), RKEY and VA
 * (our region, when there is one). For the child, before exec. */
struct script_env {
    const char *bind, *target;
    uint32_t qpn, psn;
    bool has_region;
    uint32_t rkey;
    uint64_t va;
};
void script_env_set(const struct script_env *e);
/* Runs cmd (sh -c) with e's environment and waits for it; its output goes to standard
 * error. RS_EIO with why when it cannot start or exits other than 0. */
int script_env_run(const char *what, const char *cmd, const struct script_env *e, char *err);

/* script_accept.c: the run when the target is a requester: our responder serves it while
 * the script's run command starts it, until the command exited (*status, -1 when it had
 * not by the deadline), the wire went quiet, or the deadline. last_packet is when the
 * recorder last saw a packet. */
int script_accept(const struct rs_script *s, const uint8_t our_gid[16], uint32_t our_scope,
                  const char *bind, uint64_t linger_ns,
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
