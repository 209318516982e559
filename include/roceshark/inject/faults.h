/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faults.h - the fault engine: rules that act on the packets between an RDMA
 * endpoint and the wire, in the vocabulary of the Linux fault-injection
 * framework (times, skip, every, probability) and tc netem (drop, duplicate,
 * reorder, delay), but selected by display filters over the decoded packet.
 *
 * A rules file has one rule per line ('#' starts a comment):
 *
 *     seed 42
 *     drop times 1 if infiniband.bth.opcode == "RC RDMA Write Middle" && infiniband.bth.psn == 105
 *     drop pattern XOOX dir tx if infiniband.bth.psn >= 200
 *     duplicate 2 every 10
 *     reorder gap 3 prob 0.01
 *     delay 2ms jitter 500us dir rx
 *     corrupt icrc skip 5 times 2
 *     set infiniband.bth.psn=7 keep icrc if infiniband.bth.psn == 6
 *     add infiniband.bth.psn+=1
 *     mark ecn ce prob 0.05
 *     stall 5ms times 1 dir tx if infiniband.bth.psn == 300
 *     inject nak psn_seq_error times 1 dir rx if infiniband.bth.psn == 5
 *     inject rnr 1ms if infiniband.bth.opcode == "RC Send Only"
 *     inject ack psn 9 msn 3 | inject cnp | inject read response len 64 fill 0xab
 *
 * An action, its options in any order, and "if FILTER" to the end of the
 * line (without it the rule takes every packet). dir tx|rx|both says which
 * way (for the bridge: tx is A to B); skip N lets the first N matches pass;
 * every N acts on every Nth match after those; prob P on that fraction;
 * times N at most N times. Every rule a packet matches acts on it, in order;
 * a drop ends it. After set, add and mark the checksums and the ICRC are
 * computed again, unless the rule says keep icrc.
 *
 * inject makes up a packet and sends it at once, before the matched one goes on (a drop
 * rule after it can stop that one): a NAK (the AETH code by name or number), an RNR NAK
 * (its timer as IBTA's 5-bit code, or a time rounded up to one), an ACK or a READ
 * response (first, middle, last or only; len, fill) toward the requester of the matched
 * packet, or a CNP toward its sender. They carry the matched packet's addressing,
 * turned around when they go back, and the conversation's state as the engine has
 * followed it: the requester's QP, the PSN the responder expects (a sequence NAK's), the
 * last MSN; psn, msn and qp on the rule say otherwise.
 *
 * The rules see each packet as rs_pipeline gives it (decode, the TCP/UDP stream stage
 * when a filter reads tcp.stream and the like, the iWARP stage, the analysis when a rule
 * needs it), so a rule's filter means what the same filter means to `read -Y`.
 *
 * The engine does no I/O and reads no clock: packets and the time come in,
 * packets go out through a callback, now or (delayed, reordered) from
 * rs_faults_poll(). So it runs inside the RC transport's UDP port (through
 * struct rs_faults_hook below), in the bridge, and in unit tests on a virtual clock alike.
 */
#ifndef ROCESHARK_FAULTS_H
#define ROCESHARK_FAULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/transport/rc.h>

#define RS_FAULTS_MAX_RULES 64
#define RS_FAULTS_MAX_HELD 1024         /* delayed and reordered packets held at once */
#define RS_FAULTS_MAX_PACKET 9216
#define RS_FAULTS_NEVER UINT64_MAX
/* RC conversations the engine's analysis follows at once, for inject rules and filters on
 * roceshark.analysis.* (docs/limits.md); the oldest goes first past it. */
#define RS_FAULTS_MAX_CONVS 4096

enum rs_fault_dir {
    RS_FAULT_TX = 1,        /* what we send (the bridge: A to B) */
    RS_FAULT_RX = 2         /* what we receive (the bridge: B to A) */
};

struct rs_faults;

/* Parses rules; where names the source in errors ("FILE:LINE:COL: why"). */
int rs_faults_parse(const char *text, const char *where, struct rs_faults **out, char *err);
/* Reads and parses a rules file. */
int rs_faults_load(const char *path, struct rs_faults **out, char *err);
void rs_faults_free(struct rs_faults *f);

/* Where packets go on: dir is the way the packet was going. */
typedef void (*rs_fault_emit_fn)(void *ctx, enum rs_fault_dir dir, const uint8_t *pkt,
                                 uint32_t len);

/* Runs one packet (linktype RS_DLT_*: an IP packet from the RC transport, an Ethernet
 * frame in the bridge) through the rules at time now_ns; what goes now is emitted,
 * what is delayed or held back is kept for rs_faults_poll(). */
void rs_faults_packet(struct rs_faults *f, enum rs_fault_dir dir, int linktype,
                      const uint8_t *pkt, uint32_t len, uint64_t now_ns, rs_fault_emit_fn emit,
                      void *ctx);

/* Emits the held packets that are due by now_ns; returns when the next one is due
 * (RS_FAULTS_NEVER when none is held). */
uint64_t rs_faults_poll(struct rs_faults *f, uint64_t now_ns, rs_fault_emit_fn emit, void *ctx);

/* Tells the engine that QP qpn_a at address a and qpn_b at b (GIDs, addr.h) are
 * connected, for inject rules to know whom to answer before the first response went by:
 * for callers that set the QPs up themselves (a side channel). */
void rs_faults_pair(struct rs_faults *f, const uint8_t a[16], uint32_t qpn_a,
                    const uint8_t b[16], uint32_t qpn_b);

/* Tells the engine that QP qpn is ours (the hook does, for each QP the port connects).
 * Once it knows one, a received packet for a QP it does not know, other than QP 1, passes
 * the rules untouched and is counted: it is a late packet of an earlier conversation (the
 * last run's ACK), and a rule such as "drop times 1" must act on this run's packet, not on
 * it. Past RS_FAULTS_MAX_OWN_QPS QPs, every packet is taken as ours again. */
#define RS_FAULTS_MAX_OWN_QPS 256
void rs_faults_own_qp(struct rs_faults *f, uint32_t qpn);

/* Counts, per rule and in all. */
struct rs_fault_rule_stats {
    uint64_t matched;       /* packets the rule's direction and filter took */
    uint64_t acted;         /* of those, the ones it acted on */
    uint64_t unbuilt;       /* inject: of those, the ones it could not answer (QP unknown) */
};
unsigned rs_faults_rules(const struct rs_faults *f);
void rs_faults_rule_stats(const struct rs_faults *f, unsigned rule,
                          struct rs_fault_rule_stats *out);
/* The time (now_ns) of the first packet a rule acted on; 0 before any. */
uint64_t rs_faults_first_acted(const struct rs_faults *f);
/* Prints one line per rule: matched, acted, the rule. */
void rs_faults_report(const struct rs_faults *f, FILE *out);

/* The engine as the RC transport's UDP-port hook (rs_rc_udp_opts.hook): what the port
 * sends is the engine's tx, what it receives its rx. wire, when set, sees each packet as it
 * is on the wire: what came in before the faults (rx true, at the hook's time), what goes
 * out after them (at the time it goes); connected, when set, hears of each QP of ours
 * connected, as the engine does. With faults NULL packets go straight through. */
struct rs_faults_hook {
    struct rs_rc_hook hook;
    struct rs_faults *faults;
    void (*wire)(void *ctx, bool rx, const uint8_t *pkt, uint32_t len, uint64_t now_ns);
    void (*connected)(void *ctx, uint32_t qpn);
    void *ctx;
    rs_rc_pass_fn pass;         /* the port's, for the packet or poll in hand */
    void *port;
};
/* Sets h up around faults (wire, connected and ctx NULL: set them after) and returns the
 * hook to give the port. h must outlive the port. */
const struct rs_rc_hook *rs_faults_hook_init(struct rs_faults_hook *h, struct rs_faults *faults);

#endif /* ROCESHARK_FAULTS_H */
