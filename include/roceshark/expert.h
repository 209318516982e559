/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * expert.h - expert information: every anomaly a frame shows, with a
 * filterable field, a group and a severity, as Wireshark's expert infos.
 * The Wireshark plugin maps these one to one; -z expert counts them.
 */
#ifndef ROCESHARK_EXPERT_H
#define ROCESHARK_EXPERT_H

#include <roceshark/packet.h>

enum rs_severity {
    RS_SEV_NOTE = 1,
    RS_SEV_WARN = 2,
    RS_SEV_ERROR = 3
};

struct rs_expert {
    const char *field;      /* the field that carries the fact */
    const char *group;      /* "Checksum", "Sequence", "Protocol", "Response", ... */
    uint8_t severity;       /* enum rs_severity */
    const char *summary;    /* "Bad ICRC", "PSN gap", ... */
};

/* Most kinds rs_experts[] may hold: tables indexed like it are this long. */
#define RS_EXPERT_MAX_KINDS 32

/* All kinds of expert information, ending with {NULL}. */
extern const struct rs_expert rs_experts[];

/* Calls fn for every expert item pkt carries. */
void rs_expert_foreach(const struct rs_packet *pkt,
                       void (*fn)(void *ctx, const struct rs_expert *e), void *ctx);

const char *rs_severity_name(uint8_t severity);

#endif /* ROCESHARK_EXPERT_H */
