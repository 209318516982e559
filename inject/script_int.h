/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * script_int.h - a parsed scenario script, as the runner takes it.
 */
#ifndef ROCESHARK_SCRIPT_INT_H
#define ROCESHARK_SCRIPT_INT_H

#include <glib.h>

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
    E_COUNT
};

#define EXPECT_ANY_CODE -1
#define EXPECT_ALL_OK 0xff

struct script_expect {
    uint8_t kind;           /* enum script_expect_kind */
    int nak_code;           /* E_NAK: the syndrome's error code, or EXPECT_ANY_CODE */
    bool has_psn;
    uint32_t psn;           /* E_NAK: the NAK's PSN; E_RETRANSMIT: the first one resent */
    uint64_t within_ns;     /* 0: any time */
    uint8_t status;         /* E_COMPLETION: a status some completion has, or all OK */
    char *filter;           /* E_FIELD, E_NO_FIELD, E_COUNT */
    uint64_t count;         /* E_COUNT: exactly this many frames match */
    char text[160];         /* as written, for the report */
};

struct rs_script {
    /* bind: our side. */
    char bind[64];
    struct rs_rc_qp_attr attr;
    uint32_t qpn, psn;
    /* connect: the target, through its side channel or as given. */
    char target[64];
    bool side;
    uint16_t port;
    struct rs_rc_conn_info peer;    /* static: qpn, psn, rkey, va, length */
    GString *faults;                /* the fault lines, at their own line numbers */
    char where[256];
    struct script_post posts[RS_SCRIPT_MAX_POSTS];
    unsigned n_posts;
    struct script_expect expects[RS_SCRIPT_MAX_EXPECTS];
    unsigned n_expects;
    uint64_t timeout_ns;            /* the run's deadline */
};

#endif /* ROCESHARK_SCRIPT_INT_H */
