/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faults_int.h - the fault engine's rules, as the parser makes them and the
 * engine runs them.
 */
#ifndef ROCESHARK_FAULTS_INT_H
#define ROCESHARK_FAULTS_INT_H

#include <glib.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/inject/faults.h>
#include <roceshark/dissectors/filter.h>
#include <roceshark/dissectors/pipeline.h>

enum fault_action {
    FA_DROP,
    FA_DROP_PATTERN,        /* X drops, O passes, cycling over the rule's matches */
    FA_DUPLICATE,           /* count extra copies */
    FA_REORDER,             /* held until count more packets have gone the same way */
    FA_DELAY,               /* delay_ns, +/- jitter_ns */
    FA_CORRUPT_ICRC,
    FA_SET,                 /* field = value */
    FA_ADD,                 /* field += value, wrapping at the field's width */
    FA_MARK_CE,             /* ECN Congestion Experienced */
    FA_STALL,               /* nothing goes its way for delay_ns, this packet included */
    FA_INJECT               /* a packet made up in answer to this one (faults_inject.c) */
};

/* What an inject rule makes up, toward the requester of the packet it matched (a CNP:
 * toward its sender), from the conversation's state as the engine's analysis sees it. */
enum fault_inject_kind {
    FI_NAK,                 /* code: the AETH error code */
    FI_RNR,                 /* code: the RNR timer (IBTA's 5-bit code) */
    FI_ACK,
    FI_CNP,
    FI_READ_RESPONSE        /* opcode: RC RDMA READ Response First/Middle/Last/Only */
};

struct fault_inject {
    uint8_t kind;           /* enum fault_inject_kind */
    uint8_t code;
    uint8_t opcode;
    bool has_psn, has_msn, has_qpn, has_len;
    uint32_t psn, msn, qpn, len;
    uint8_t fill;           /* READ response payload bytes */
};

#define FAULT_PATTERN_MAX 64

struct fault_rule {
    enum fault_action action;
    unsigned dirs;          /* RS_FAULT_TX | RS_FAULT_RX */
    uint64_t times;         /* 0: no limit */
    uint64_t skip;
    uint64_t every;         /* 0 and 1: every match */
    double prob;            /* 1: always */
    bool keep_icrc;
    char pattern[FAULT_PATTERN_MAX + 1];
    unsigned count;
    uint64_t delay_ns, jitter_ns;
    int field;              /* registry id for set and add */
    uint64_t value;
    struct fault_inject inject;
    struct rs_filter *filter;   /* NULL: every packet */
    char *text;             /* the line, for reports */
    struct rs_fault_rule_stats stats;
};

/* A packet held back (delayed or reordered). */
struct fault_held {
    uint64_t due;           /* time it goes at the latest */
    uint64_t after;         /* reorder: it goes once this many packets went its way */
    bool by_count;
    enum rs_fault_dir dir;
    uint32_t len;
    uint8_t data[RS_FAULTS_MAX_PACKET];
};

struct rs_faults {
    struct fault_rule rules[RS_FAULTS_MAX_RULES];
    unsigned n_rules;
    uint32_t seed;
    bool seeded;
    bool needs_crc;         /* a filter reads the ICRC or VCRC status */
    GRand *rng;
    struct fault_held *held[RS_FAULTS_MAX_HELD];    /* allocated as first needed */
    bool held_used[RS_FAULTS_MAX_HELD];
    unsigned n_held;
    uint64_t held_full;     /* packets sent at once because every slot was taken */
    uint64_t too_large;     /* packets over RS_FAULTS_MAX_PACKET passed untouched */
    uint64_t gone[3];       /* packets gone out each way (index by dir) */
    /* Our QPs (rs_faults_own_qp): a packet received for another QP is a late one of an
     * earlier conversation, which no rule may take in this one's place. */
    uint32_t own_qpns[RS_FAULTS_MAX_OWN_QPS];
    unsigned n_own_qpns;
    bool own_overflow;      /* more than kept: every packet is taken as ours */
    uint64_t foreign;       /* received packets for a QP not ours, passed untouched */
    uint64_t stall_until[3];    /* each way: held until then (a stall rule fired) */
    /* What the rules read each packet through (faults_parse.c says which stages run).
     * Its analysis, when a rule injects or a filter reads roceshark.analysis.*, is the
     * QP pairs, PSNs and MSNs an injection needs; an is NULL without it. */
    struct rs_pipeline *pipe;
    struct rs_analyzer *an;
    uint64_t frames;
    uint64_t first_acted;   /* now_ns of the first packet a rule acted on; 0 before */
    struct rs_pipeline_result result;   /* the packet in hand */
    uint8_t work[RS_FAULTS_MAX_PACKET];
    uint8_t made[RS_FAULTS_MAX_PACKET];  /* an injected packet */
};

/* faults_inject.c: builds into out (cap bytes) the packet rule r makes up in answer to
 * the matched packet m; *back says it goes the other way from m. Returns its length,
 * or 0 when m is not an RC packet it can answer or the QP it must go to is unknown. */
uint32_t fault_inject_build(const struct fault_inject *r, const struct rs_packet *m,
                            const struct rs_conv_state *st, uint8_t *out, uint32_t cap,
                            bool *back);

#endif /* ROCESHARK_FAULTS_INT_H */
