/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print_ek.c - `-T ek` as tshark 4.0 writes it for Elasticsearch's bulk
 * API: a line {"index": {"_index", "_type"}} and a line {"timestamp" (ms),
 * "layers": {...}} a frame. Each protocol is one flat object: every field
 * below it, however deep, is a member named protocol_field with '_' for
 * '.' (the protocol that registered the field: the nearest above whose name
 * leads the field's, else the nearest), and the values one name has under one parent form an array. Values
 * are strings as in -T json, save booleans (true, false), labels (null) and
 * absolute times (ISO 8601).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/print.h>

#include "print/json_int.h"
#include "print/tree_doc.h"

struct ek_ctx {
    struct rs_json j;
    const struct tree_doc *d;
    const struct rs_json_opts *opts;
    bool filtering;             /* -j/-J applies at this point of the tree */
};

static bool
is_protocol(const struct tree_node *n)
{
    return n->it.kind != RS_TREE_FIELD || n->it.field->type == RS_FT_PROTOCOL;
}

static const struct tree_node *
node(const struct ek_ctx *c, int i)
{
    return i == TREE_NONE ? NULL : &c->d->nodes[i];
}

/* Whether protocol proto's name leads field's, as a registering protocol's does
 * ("ipv6" of "ipv6.opt.type"). */
static bool
names_field(const char *proto, const char *field)
{
    size_t n = strlen(proto);

    return strncmp(proto, field, n) == 0 && field[n] == '.';
}

/* The protocol that registered a field: the nearest protocol above it whose name leads
 * the field's (IPv6's options sit in the hop-by-hop header's protocol, but are IPv6's:
 * ipv6_ipv6_opt), else the nearest (iwarp_ddp.* under iwarp_ddp_rdmap). */
/* The protocol a field at the top follows (the one that added a reassembled message's
 * fragments after its own item), or NULL. */
static const char *
top_protocol_before(const struct ek_ctx *c, const struct tree_node *top)
{
    const char *before = NULL;

    for (const struct tree_node *t = node(c, 0); t != NULL && t != top; t = node(c, t->next))
        if (is_protocol(t) && t->it.kind == RS_TREE_FIELD)
            before = tree_node_name(t);
    return before;
}

static const char *
protocol_of(const struct ek_ctx *c, const struct tree_node *n)
{
    const char *nearest = NULL;

    /* an S-tag's Type, which Wireshark's 802.1ah dissector registers (ieee8021ah.etype)
     * though it sits in the 802.1ad tag's item */
    if (strncmp(tree_node_name(n), "ieee8021ah.", 11) == 0)
        return "ieee8021ah";
    if (n->parent == TREE_NONE)
        return top_protocol_before(c, n);
    for (const struct tree_node *p = node(c, n->parent); p != NULL; p = node(c, p->parent)) {
        if (!is_protocol(p) && p->parent == TREE_NONE && nearest == NULL)
            return top_protocol_before(c, p);
        if (!is_protocol(p))
            continue;
        const char *name = tree_node_name(p);
        if (nearest == NULL && p->parent == TREE_NONE)
            return name;        /* a top-level protocol with none above: no names compared */
        if (names_field(name, tree_node_name(n)))
            return name;
        if (nearest == NULL)
            nearest = name;
    }
    return nearest;
}

/* Members are grouped by the name of their parent and their own. */
static bool
same_member(const struct ek_ctx *c, const struct tree_node *a, const struct tree_node *b)
{
    return a->parent == b->parent
               ? strcmp(tree_node_name(a), tree_node_name(b)) == 0
               : a->parent != TREE_NONE && b->parent != TREE_NONE &&
                     strcmp(tree_node_name(a), tree_node_name(b)) == 0 &&
                     strcmp(tree_node_name(node(c, a->parent)),
                            tree_node_name(node(c, b->parent))) == 0;
}

/* The members of an object, in tree order: the nodes from first on, and below each
 * field, its fields (a protocol is an object of its own). */
#define MAX_MEMBERS 4096

struct members {
    int id[MAX_MEMBERS];
    uint32_t group[MAX_MEMBERS];    /* a hash of the name and the parent's name */
    size_t n;
};

static uint32_t
name_hash(uint32_t h, const char *s)
{
    for (; *s != '\0'; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;      /* FNV-1a */
    return h;
}

/* Equal for members same_member() groups (it decides; this only tells apart at once
 * the many pairs that differ: an object's members were compared name by name, pair by
 * pair, and strcmp was a sixth of -T ek's time). */
static uint32_t
group_hash(const struct ek_ctx *c, const struct tree_node *n)
{
    uint32_t h = name_hash(2166136261u, tree_node_name(n));

    if (n->parent == TREE_NONE)
        return h;
    return name_hash(h * 31u + 1u, tree_node_name(node(c, n->parent)));
}

static void
gather(struct ek_ctx *c, int first, struct members *m)
{
    for (int i = first; i != TREE_NONE && m->n < MAX_MEMBERS; i = c->d->nodes[i].next) {
        const struct tree_node *n = &c->d->nodes[i];
        m->group[m->n] = group_hash(c, n);
        m->id[m->n++] = i;
        if (is_protocol(n) || n->child == TREE_NONE)
            continue;
        if (!c->filtering || json_proto_wanted(c->opts, tree_node_name(n))) {
            bool was = c->filtering;
            if (c->opts->protos_whole)
                c->filtering = false;
            gather(c, n->child, m);
            c->filtering = was;
        }
    }
}

/* TCP's and IPv4's options, which Wireshark registers as protocols of their own ("in name
 * only"): tshark's EK names them without a protocol in front (tcp_options_mss), though
 * they are fields of TCP's object. */
static bool
is_named_protocol(const char *abbrev)
{
    static const char *const tcp[] = {
        "acc_ecn", "ao", "cc", "ccecho", "ccnew", "echo", "echoreply", "eol", "experimental",
        "md5", "mss", "nop", "qs", "rvbd.probe", "rvbd.trpy", "sack", "sack_perm", "scps",
        "scpscor", "scpsrec", "snack", "tfo", "timestamp", "unknown", "user_to", "wscale"};
    static const char *const ip[] = {
        "cipso", "eol", "ext_security", "mtu_probe", "mtu_reply", "nop", "qs",
        "record_route", "route", "routeralert", "sdb", "security", "sid", "source_route",
        "timestamp", "traceroute"};
    const char *const *names = NULL;
    size_t n = 0;

    if (strncmp(abbrev, "tcp.options.", 12) == 0) {
        names = tcp, n = RS_ARRAY_SIZE(tcp), abbrev += 12;
    } else if (strncmp(abbrev, "ip.options.", 11) == 0) {
        names = ip, n = RS_ARRAY_SIZE(ip), abbrev += 11;
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], abbrev) == 0)
            return true;
    return false;
}

/* tshark names a member by the protocol that registered the field: the nearest above it,
 * save an expert item under "_ws.expert" (tcp.connection.syn is TCP's:
 * tcp_tcp_connection_syn) and the options above, which have none. */
static void
member_name(struct ek_ctx *c, const struct tree_node *n, const char *suffix)
{
    const char *own = tree_node_name(n);
    const char *proto = is_protocol(n) || is_named_protocol(own) ? NULL : protocol_of(c, n);
    char name[256];
    int len = proto != NULL ? (int)strlen(proto) : 0;

    if (proto != NULL && strcmp(proto, "_ws.expert") == 0 && strncmp(own, "_ws.", 4) != 0) {
        const char *dot = strchr(own, '.');
        proto = own;
        len = dot != NULL ? (int)(dot - own) : (int)strlen(own);
    }
    if (tree_node_is_text(n))   /* tshark's EK names every text item so */
        snprintf(name, sizeof(name), "text");
    else if (proto != NULL)
        snprintf(name, sizeof(name), "%.*s_%s", len, proto, own);
    else
        snprintf(name, sizeof(name), "%s", own);
    rs_json_name(&c->j, name, suffix);
}

static void write_object(struct ek_ctx *c, int first);

static void
write_filtered(struct ek_ctx *c, const struct tree_node *n)
{
    const char *name = tree_node_name(n);

    rs_json_name(&c->j, "filtered", NULL);
    rs_json_string(&c->j, name, strlen(name));
}

static void
write_value(struct ek_ctx *c, const struct tree_node *n)
{
    bool wanted = !c->filtering || json_proto_wanted(c->opts, tree_node_name(n));

    if (is_protocol(n)) {
        rs_json_begin_object(&c->j);
        if (!wanted) {
            write_filtered(c, n);
        } else {
            bool was = c->filtering;
            if (c->opts->protos_whole)
                c->filtering = false;
            write_object(c, n->child);
            c->filtering = was;
        }
        rs_json_end_object(&c->j);
    } else if (!wanted) {
        rs_json_begin_object(&c->j);
        write_filtered(c, n);
        rs_json_end_object(&c->j);
    } else if (tree_node_is_text(n)) {      /* "text": its text, as tshark's */
        rs_json_string(&c->j, n->it.field->name, strlen(n->it.field->name));
    } else if (n->it.field->type == RS_FT_NONE) {
        rs_json_literal(&c->j, "null");
    } else if (n->it.field->type == RS_FT_BOOLEAN) {
        rs_json_literal(&c->j, n->value.v.u != 0 ? "true" : "false");
    } else if (json_ws_ftype(&n->it) == 24) {
        /* An absolute time in UTC with nine decimals, as tshark 4.0 writes icmp.data_time
         * and frame.time. */
        char text[64], date[32] = "";
        time_t t = (time_t)n->value.v.t.sec;
        struct tm tm;
        if (gmtime_r(&t, &tm) != NULL)
            strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
        int len = snprintf(text, sizeof(text), "%s.%09uZ", date, (unsigned)n->value.v.t.nsec);
        rs_json_string(&c->j, text, (size_t)len);
    } else {
        json_write_show(&c->j, &n->it);
    }
}

static void
write_object(struct ek_ctx *c, int first)
{
    struct members m;

    m.n = 0;
    gather(c, first, &m);
    for (size_t i = 0; i < m.n; i++) {
        const struct tree_node *n = &c->d->nodes[m.id[i]];
        bool seen = false;
        size_t count = 0;
        for (size_t k = 0; k < m.n && !seen; k++) {
            if (m.group[k] != m.group[i])
                continue;
            if (k < i)
                seen = same_member(c, &c->d->nodes[m.id[k]], n);
            else
                count += same_member(c, &c->d->nodes[m.id[k]], n);
        }
        if (seen)
            continue;
        for (int pass = c->opts->raw && n->it.length > 0 ? 0 : 1; pass < 2; pass++) {
            member_name(c, n, pass == 0 ? "_raw" : NULL);
            if (count > 1)
                rs_json_begin_array(&c->j);
            for (size_t k = i; k < m.n; k++) {
                const struct tree_node *x = &c->d->nodes[m.id[k]];
                if (m.group[k] != m.group[i] || !same_member(c, x, n))
                    continue;
                if (pass == 0)
                    json_write_hex(&c->j, c->d->pkt, c->d->base, &x->it);
                else
                    write_value(c, x);
            }
            if (count > 1)
                rs_json_end_array(&c->j);
        }
    }
}

void
rs_print_ek(struct rs_out *o, const struct rs_packet *pkt, const struct rs_json_opts *opts)
{
    struct ek_ctx c = {.opts = opts, .filtering = opts->n_protos > 0};
    char stamp[40];

    rs_json_init(&c.j, o, false, 0, false);
    c.j.dot_to_underscore = true;
    rs_json_begin_object(&c.j);
    rs_json_name(&c.j, "index", NULL);
    rs_json_begin_object(&c.j);
    json_write_index(&c.j, pkt);
    rs_json_name(&c.j, "_type", NULL);
    rs_json_string(&c.j, "doc", 3);
    rs_json_end_object(&c.j);
    rs_json_end_object(&c.j);
    rs_out_char(o, '\n');

    rs_json_init(&c.j, o, false, 0, false);
    c.j.dot_to_underscore = true;
    rs_json_begin_object(&c.j);
    rs_json_name(&c.j, "timestamp", NULL);
    int n = snprintf(stamp, sizeof(stamp), "%" PRId64 "%03u", pkt->frame->ts_sec,
                     pkt->frame->ts_nsec / 1000000);
    rs_json_string(&c.j, stamp, (size_t)n);
    rs_json_name(&c.j, "layers", NULL);
    rs_json_begin_object(&c.j);
    if (opts->n_fields > 0) {
        json_write_fields(&c.j, pkt, opts);
    } else {
        c.d = tree_doc_build(pkt);
        write_object(&c, c.d->n > 0 ? 0 : TREE_NONE);
    }
    rs_json_end_object(&c.j);
    rs_json_end_object(&c.j);
    rs_out_char(o, '\n');
    rs_out_end_frame(o);
}
