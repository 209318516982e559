/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats_phs.c - `-z io,phs[,FILTER]`: protocol hierarchy statistics, as
 * tshark prints them. Each frame's protocol chain (rs_print_protocols, the
 * frame.protocols field) adds its frame and bytes to every protocol along
 * it, each a child of the one before; children are listed in the order
 * they were first seen. Wireshark leaves the "ethertype" pseudo-protocol
 * and the IPv6 extension headers ("ipv6.hopopts") out of the hierarchy, and
 * the data of an ICMP echo, and so do we.
 */
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/expert.h>
#include <roceshark/dissectors/print.h>

#include "stats/stats_int.h"

#define PHS_NAME_MAX 32

struct phs_node {
    char name[PHS_NAME_MAX];
    int parent;             /* index of the parent, -1 at the top */
    uint64_t frames, bytes;
};

int
stats_phs_init(struct rs_stat *st, const char *args, char *err)
{
    return stats_filter_init(st, args, err);
}

/* The child of parent named name, added when new; -1 when the table is full. */
static int
child(struct rs_stat *st, int parent, const char *name, size_t len)
{
    for (size_t i = 0; i < st->n_phs; i++)
        if (st->phs[i].parent == parent && strlen(st->phs[i].name) == len &&
            memcmp(st->phs[i].name, name, len) == 0)
            return (int)i;
    if (st->n_phs == PHS_MAX_NODES || len >= PHS_NAME_MAX)
        return -1;
    if (st->n_phs == st->cap_phs) {
        size_t cap = st->cap_phs ? st->cap_phs * 2 : 16;
        struct phs_node *p = realloc(st->phs, cap * sizeof(*p));
        if (p == NULL)
            return -1;
        st->phs = p;
        st->cap_phs = cap;
    }
    struct phs_node *n = &st->phs[st->n_phs];
    memcpy(n->name, name, len);
    n->name[len] = '\0';
    n->parent = parent;
    n->frames = n->bytes = 0;
    return (int)st->n_phs++;
}

void
stats_phs_packet(struct rs_stat *st, const struct rs_packet *pkt)
{
    char chain[256];
    int parent = -1;

    if (st->n_filters > 0 && !rs_filter_match(st->filters[0], pkt))
        return;
    rs_print_protocols(pkt, chain, sizeof(chain));
    for (const char *p = chain; *p != '\0';) {
        size_t len = strcspn(p, ":");
        /* An ICMP echo's data sits inside ICMP's tree, not at its top level: in
         * frame.protocols but not in the hierarchy. */
        bool icmp_data = len == 4 && memcmp(p, "data", 4) == 0 && parent >= 0 &&
                         strncmp(st->phs[parent].name, "icmp", 4) == 0;
        bool ws = len > 4 && memcmp(p, "_ws.", 4) == 0;    /* _ws.malformed is counted */
        bool pseudo = (len == 9 && memcmp(p, "ethertype", 9) == 0) ||
                      (memchr(p, '.', len) != NULL && !ws) || icmp_data;
        if (!pseudo) {
            int node = child(st, parent, p, len);
            if (node < 0)
                break;
            st->phs[node].frames++;
            st->phs[node].bytes += rs_packet_wire_len(pkt);
            parent = node;
        }
        p += len + (p[len] == ':');
    }
    /* tshark's malformed or short item, under the protocol where it stopped (already in
     * the chain where frame.protocols names it) */
    const char *end = rs_ws_malformed_layer(pkt) ? NULL
                      : rs_ws_malformed(pkt)     ? "_ws.malformed"
                      : rs_ws_cut_short(pkt)     ? "_ws.short"
                                                 : NULL;
    int node = end != NULL && parent >= 0 ? child(st, parent, end, strlen(end)) : -1;
    if (node >= 0) {
        st->phs[node].frames++;
        st->phs[node].bytes += rs_packet_wire_len(pkt);
    }
}

static void
print_children(const struct rs_stat *st, struct rs_out *o, int parent, unsigned depth)
{
    for (size_t i = 0; i < st->n_phs; i++) {
        const struct phs_node *n = &st->phs[i];
        if (n->parent != parent)
            continue;
        rs_out_printf(o, "%*s%-*s frames:%llu bytes:%llu\n", (int)(depth * 2), "",
                      40 - (int)(depth * 2) > 0 ? 40 - (int)(depth * 2) : 0, n->name,
                      (unsigned long long)n->frames, (unsigned long long)n->bytes);
        print_children(st, o, (int)i, depth + 1);
    }
}

void
stats_phs_print(struct rs_stat *st, const struct rs_stat_stages *at, struct rs_out *o)
{
    (void)at;
    rs_out_str(o, "\n===================================================================\n"
                  "Protocol Hierarchy Statistics\n");
    rs_out_printf(o, "Filter: %s\n\n", st->n_filters > 0 ? st->filter_text[0] : "");
    print_children(st, o, -1, 0);
    rs_out_str(o, "===================================================================\n");
}

void
stats_phs_free(struct rs_stat *st)
{
    free(st->phs);
}
