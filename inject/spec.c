/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spec.c - one spec line into a packet template (see inject.h).
 *
 * Field names are resolved through the decoder's field registry: a field
 * the decoder reads at a fixed place (a layer, an offset, a width and a
 * mask) is one the builder can write at that place, and its value names
 * are the ones -Y takes. So every header field is settable without a table
 * of its own here, and a field added to a dissector is settable at once.
 *
 * The tokenizer is written by hand rather than with GScanner: words are
 * Wireshark field names with dots, values are addresses, hex strings,
 * quoted value names and generators with their own parentheses, and every
 * error must point at the column of the word at fault.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/mad.h>

#include "inject_int.h"

/* An error at column col of the line at hand. */
#define FAIL(col, ...) inject_fail(&c->place, (col), __VA_ARGS__)

enum layer_kind {
    L_ETH, L_VLAN, L_QINQ, L_IPV4, L_IPV6, L_UDP, L_LRH, L_GRH, L_BTH, L_EXT, L_CNP,
    L_PAYLOAD, L_PAD, L_TCP, L_MPAREQ, L_MPAREP, L_MPA, L_DDP, L_RDMAP
};

/* The layers of the layered form and where their fields' names start. */
static const struct layer_def {
    const char *name;
    enum layer_kind kind;
    const char *prefix, *alt_prefix;
} layer_defs[] = {
    {"eth", L_ETH, "eth", NULL},
    {"vlan", L_VLAN, "vlan", NULL},
    {"ieee8021ad", L_QINQ, "ieee8021ad", "vlan"},
    {"ip", L_IPV4, "ip", NULL},
    {"ipv4", L_IPV4, "ip", NULL},
    {"ipv6", L_IPV6, "ipv6", NULL},
    {"udp", L_UDP, "udp", NULL},
    {"lrh", L_LRH, "infiniband.lrh", NULL},
    {"grh", L_GRH, "infiniband.grh", NULL},
    {"bth", L_BTH, "infiniband.bth", "roceshark.bth"},
    {"rdeth", L_EXT, "infiniband.rdeth", NULL},
    {"deth", L_EXT, "infiniband.deth", NULL},
    {"xrceth", L_EXT, "roceshark.xrceth", NULL},
    {"reth", L_EXT, "infiniband.reth", NULL},
    /* Wireshark names the AtomicETH's address and key infiniband.reth.va and .r_key. */
    {"atomiceth", L_EXT, "infiniband.atomiceth", "infiniband.reth"},
    {"aeth", L_EXT, "infiniband.aeth", NULL},
    {"atomicacketh", L_EXT, "infiniband.atomicacketh", NULL},
    {"immdt", L_EXT, "infiniband.immdt", NULL},
    {"ieth", L_EXT, "infiniband.ieth", NULL},
    {"cnp", L_CNP, "roceshark.cnp", NULL},
    {"payload", L_PAYLOAD, "payload", NULL},
    {"pad", L_PAD, "pad", NULL},
    {"tcp", L_TCP, "tcp", NULL},
    {"mpareq", L_MPAREQ, "iwarp_mpa", NULL},
    {"mparep", L_MPAREP, "iwarp_mpa", NULL},
    {"mpa", L_MPA, "iwarp_mpa", NULL},
    {"ddp", L_DDP, "iwarp_ddp", NULL},
    {"rdmap", L_RDMAP, "iwarp_rdma", NULL},
};
#define N_LAYER_DEFS (sizeof(layer_defs) / sizeof(layer_defs[0]))

/* Extended headers (RS_HDR_*) and the layers the decoder gives them. */
static const struct {
    uint16_t hdr;
    uint8_t layer;
    const char *name;
} ext_layers[] = {
    {RS_HDR_RDETH, RS_LAYER_RDETH, "RDETH"},
    {RS_HDR_DETH, RS_LAYER_DETH, "DETH"},
    {RS_HDR_XRCETH, RS_LAYER_XRCETH, "XRCETH"},
    {RS_HDR_RETH, RS_LAYER_RETH, "RETH"},
    {RS_HDR_ATOMICETH, RS_LAYER_ATOMICETH, "AtomicETH"},
    {RS_HDR_AETH, RS_LAYER_AETH, "AETH"},
    {RS_HDR_ATOMICACKETH, RS_LAYER_ATOMICACKETH, "AtomicAckETH"},
    {RS_HDR_IMMDT, RS_LAYER_IMMDT, "ImmDt"},
    {RS_HDR_IETH, RS_LAYER_IETH, "IETH"},
    {RS_HDR_CNP, RS_LAYER_CNP, "CNP header"},
};
#define N_EXT_LAYERS (sizeof(ext_layers) / sizeof(ext_layers[0]))

struct ctx {
    struct rs_inject_packet *p;
    struct inject_place place;
    unsigned set_col[RS_INJECT_MAX_SETS];   /* column of each set this line made; 0 earlier */
    bool fill_payload;                      /* refill the payload at the end of the line */
    bool udp_seen, ib_seen;                 /* layers that rule out iWARP's */
};

/* ---- names ---- */

/* A field's value name or its alias, case as -Y takes it (case-insensitive). */
static bool
value_by_name(const void *ctx, const char *name, uint64_t *out)
{
    const struct rs_field *f = ctx;

    return f != NULL && rs_value_by_name(f, name, out);
}

/* The id of the field named name that holds a value (not the header of the same
 * name: infiniband.immdt names both), or -1. */
static int
value_field(const char *name)
{
    for (int id = rs_field_lookup(name); id >= 0; id = rs_field_next_alias(id))
        if (!(rs_field_by_id(id)->flags & (RS_FIELD_HEADER | RS_FIELD_HIDDEN)) &&
            rs_field_by_id(id)->type != RS_FT_PROTOCOL)
            return id;
    return -1;
}

/* The field key names inside layer d, or -1. */
static int
layer_field(const struct layer_def *d, const char *key)
{
    char name[200];
    int id;

    if (strchr(key, '.') != NULL && (id = value_field(key)) >= 0)
        return id;
    /* ImmDt and IETH are one value each, named as the header is. */
    if (d->kind == L_EXT && (strcmp(key, "data") == 0 || strcmp(key, "value") == 0 ||
                             strcmp(key, "rkey") == 0) &&
        (id = value_field(d->prefix)) >= 0)
        return id;
    snprintf(name, sizeof(name), "%.60s.%.120s", d->prefix, key);
    if ((id = value_field(name)) >= 0)
        return id;
    if (d->alt_prefix != NULL) {
        snprintf(name, sizeof(name), "%.60s.%.120s", d->alt_prefix, key);
        if ((id = value_field(name)) >= 0)
            return id;
    }
    return -1;
}

/* Words every layer takes, and those of the layers that are no header. */
static const char *const crc_keys[] = {"icrc", "vcrc", NULL};
static const char *const payload_keys[] = {"len", "hex", "fill", NULL};
static const char *const pad_keys[] = {"count", NULL};

/* " (did you mean X?)" for the name nearest to key among layer d's fields, or "". */
static void
suggest_field(const struct layer_def *d, const char *key, char *out, size_t size)
{
    const char *best = NULL;
    unsigned best_d = INJECT_NEAR(strlen(key)) + 1;
    char pre[64];

    out[0] = '\0';
    snprintf(pre, sizeof(pre), "%s.", d->prefix);
    for (int id = 0; id < rs_field_count(); id++) {
        const char *n = rs_field_by_id(id)->abbrev;
        if (strncmp(n, pre, strlen(pre)) != 0)
            continue;
        /* error_code for syndrome.error_code: the last part alone is a near miss; so is
         * the end of it (len for dmalen, key for r_key). */
        const char *last = strrchr(n, '.') + 1;
        size_t ll = strlen(last), kl = strlen(key);
        bool tail = kl >= 3 && ll > kl && strcmp(last + ll - kl, key) == 0;
        unsigned dist = strcmp(last, key) == 0 ? 0
                        : tail                  ? 1
                                                : inject_distance(key, n + strlen(pre), best_d);
        if (dist < best_d) {
            best_d = dist;
            best = n + strlen(pre);
        }
    }
    const char *const *extra = d->kind == L_PAYLOAD ? payload_keys
                               : d->kind == L_PAD   ? pad_keys
                                                    : crc_keys;
    for (; *extra != NULL; extra++) {
        unsigned dist = inject_distance(key, *extra, best_d);
        if (dist < best_d) {
            best_d = dist;
            best = *extra;
        }
    }
    if (best != NULL)
        snprintf(out, size, " (did you mean %s?)", best);
}

/* " (did you mean X?)" for the registry name nearest to name, or "". */
static void
suggest_name(const char *name, char *out, size_t size)
{
    const char *best = NULL;
    unsigned best_d = INJECT_NEAR(strlen(name)) + 1;

    out[0] = '\0';
    for (int id = 0; id < rs_field_count(); id++) {
        const char *n = rs_field_by_id(id)->abbrev;
        size_t ln = strlen(n), lw = strlen(name);
        /* lrh.vl for infiniband.lrh.vl: a name that ends the way the word does. */
        bool tail = ln > lw && n[ln - lw - 1] == '.' && strcmp(n + ln - lw, name) == 0;
        unsigned dist = tail ? 0 : inject_distance(name, n, best_d);
        if (dist < best_d) {
            best_d = dist;
            best = rs_field_by_id(id)->abbrev;
        }
    }
    if (best != NULL)
        snprintf(out, size, " (did you mean %s?)", best);
}

static const struct layer_def *
layer_by_name(const char *name)
{
    for (size_t i = 0; i < N_LAYER_DEFS; i++)
        if (strcmp(layer_defs[i].name, name) == 0)
            return &layer_defs[i];
    return NULL;
}

/* ---- values ---- */

static bool
parse_mac(const char *s, uint8_t mac[6])
{
    unsigned b[6];
    char tail;

    if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6)
        return false;
    for (int i = 0; i < 6; i++) {
        if (b[i] > 0xff)
            return false;
        mac[i] = (uint8_t)b[i];
    }
    return true;
}

/* fill=zero|ones|count|rand|0xHEX... */
static bool
parse_fill(struct rs_inject_packet *p, const char *s)
{
    static const struct {
        const char *name;
        enum rs_inject_fill fill;
    } names[] = {{"zero", RS_FILL_ZERO}, {"ones", RS_FILL_ONES}, {"count", RS_FILL_COUNT},
                 {"inc", RS_FILL_COUNT}, {"rand", RS_FILL_RAND}};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(s, names[i].name) == 0) {
            p->fill = (uint8_t)names[i].fill;
            if (p->fill == RS_FILL_RAND)
                p->given |= RS_INJECT_GAVE_RANDOM;
            return true;
        }
    }
    size_t len = strlen(s);
    if (len < 4 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || len % 2 != 0 ||
        (len - 2) / 2 > RS_INJECT_MAX_PATTERN)
        return false;
    for (size_t i = 2; i < len; i += 2) {
        if (!isxdigit((unsigned char)s[i]) || !isxdigit((unsigned char)s[i + 1]))
            return false;
        char byte[3] = {s[i], s[i + 1], '\0'};
        p->pattern[(i - 2) / 2] = (uint8_t)strtoul(byte, NULL, 16);
    }
    p->pattern_len = (uint8_t)((len - 2) / 2);
    p->fill = RS_FILL_PATTERN;
    return true;
}

static bool
parse_hex_payload(struct rs_inject_packet *p, const char *s)
{
    size_t len = strlen(s);

    if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        len -= 2;
    }
    if (len % 2 != 0 || len / 2 > RS_INJECT_MAX_PAYLOAD)
        return false;
    for (size_t i = 0; i < len; i += 2) {
        if (!isxdigit((unsigned char)s[i]) || !isxdigit((unsigned char)s[i + 1]))
            return false;
        char byte[3] = {s[i], s[i + 1], '\0'};
        p->payload[i / 2] = (uint8_t)strtoul(byte, NULL, 16);
    }
    p->payload_len = (uint32_t)(len / 2);
    return true;
}

/* Removes one pair of quotes around a whole value. */
static void
unquote(char *s)
{
    size_t n = strlen(s);

    if (n >= 2 && s[0] == '"' && s[n - 1] == '"' && strchr(s + 1, '"') == s + n - 1) {
        memmove(s, s + 1, n - 2);
        s[n - 2] = '\0';
    }
}

/* The slot for field id (and VLAN tag): the one an earlier word or line used, so a
 * later one replaces it, or a new one. */
static struct rs_inject_set *
set_slot_member(struct ctx *c, uint8_t target, int id, uint8_t tag,
                const struct inject_member_key *member, unsigned col)
{
    struct rs_inject_packet *p = c->p;
    unsigned i = 0;

    while (i < p->n_sets && !(p->sets[i].target == target && p->sets[i].field == id &&
                              p->sets[i].tag == tag && p->sets[i].member == member))
        i++;
    if (i == RS_INJECT_MAX_SETS)
        return NULL;
    if (i == p->n_sets)
        p->n_sets++;
    memset(&p->sets[i], 0, sizeof(p->sets[i]));
    p->sets[i].target = target;
    p->sets[i].field = id;
    p->sets[i].tag = tag;
    p->sets[i].member = member;
    c->set_col[i] = col;
    return &p->sets[i];
}

static struct rs_inject_set *
set_slot(struct ctx *c, uint8_t target, int id, uint8_t tag, unsigned col)
{
    return set_slot_member(c, target, id, tag, NULL, col);
}

/* FIELD=VALUE for an iWARP field k (see spec_iwarp.c). */
static int
set_member(struct ctx *c, const struct inject_member_key *k, const char *val, unsigned col,
           unsigned vcol)
{
    struct rs_inject_gen g;
    const char *why = "";
    int id = value_field(k->full);

    if (!inject_gen_parse(val, k->max, value_by_name, id >= 0 ? rs_field_by_id(id) : NULL, &g,
                          &why))
        return FAIL(vcol, "%s: '%s': %s", k->full, val, why);
    struct rs_inject_set *s = set_slot_member(c, k->target, -1, 0, k, col);
    if (s == NULL)
        return FAIL(col, "more than %d fields set", RS_INJECT_MAX_SETS);
    s->gen = g;
    if (g.kind == RS_GEN_RAND)
        c->p->given |= RS_INJECT_GAVE_RANDOM;
    /* What the template holds is set now too, for -i's addresses and the UDP sender. */
    if (k->target == RS_INJECT_T_MEMBER && g.kind == RS_GEN_CONST)
        inject_member_store(c->p, k, g.a);
    return 0;
}

/* What the field's name says about the packet's shape, for the flat form. */
static void
shape_from_name(struct ctx *c, const char *abbrev)
{
    struct rs_inject_packet *p = c->p;

    if (strncmp(abbrev, "ipv6.", 5) == 0)
        p->route.family = 6;
    else if (strncmp(abbrev, "infiniband.lrh.", 15) == 0)
        p->encap = RS_INJECT_IB;
    else if (strncmp(abbrev, "infiniband.grh.", 15) == 0 && p->encap == RS_INJECT_IB)
        p->ib_grh = true;
    else if (strncmp(abbrev, "infiniband.grh.", 15) == 0)
        p->encap = RS_INJECT_ROCEV1;
    else if ((strncmp(abbrev, "vlan.", 5) == 0 || strncmp(abbrev, "ieee8021ad.", 11) == 0) &&
             p->n_vlans == 0) {
        p->n_vlans = 1;
        p->vlan[0].tpid = abbrev[0] == 'i' ? 0x88a8 : 0x8100;
    }
}

/* FIELD=VALUE for registry field id, at column col (the value at vcol). */
static int
set_field(struct ctx *c, int id, uint8_t tag, const char *val, unsigned col, unsigned vcol,
          bool flat)
{
    const struct rs_field *f = rs_field_by_id(id);
    struct rs_inject_packet *p = c->p;
    const char *why = "";

    /* ip.src=fe80::1: an IPv6 address given to ip.* means IPv6. */
    if (flat && f->type == RS_FT_IPV4 && strchr(val, ':') != NULL) {
        char v6[32];
        snprintf(v6, sizeof(v6), "ipv6.%s", strcmp(f->abbrev, "ip.src") == 0 ? "src" : "dst");
        id = value_field(v6);
        f = rs_field_by_id(id);
    }
    if (flat)
        shape_from_name(c, f->abbrev);
    /* A field read through a function is settable where the function only says whether
     * it is there (a tag, a syndrome's kind, a MAD's class) and the bytes are where the
     * table says. */
    bool plain_get = f->layer == RS_LAYER_VLAN || rs_mad_field_fixed(f) ||
                     rs_mad_field_placed(f) ||
                     strncmp(f->abbrev, "infiniband.aeth.syndrome.", 25) == 0 ||
                     strcmp(f->abbrev, "infiniband.invariant.crc") == 0;
    if ((f->get != NULL && !plain_get) || f->layer == RS_NO_LAYER || f->width == 0 ||
        f->type == RS_FT_STRING || f->type == RS_FT_DOUBLE || f->type == RS_FT_NONE ||
        (f->type == RS_FT_BYTES && f->width > 8))
        return FAIL(col, "%s: computed by the decoder, not a field a spec sets", f->abbrev);

    if (strcmp(f->abbrev, "infiniband.bth.opcode") == 0) {
        struct rs_inject_gen g;
        if (!inject_gen_parse(val, 0xff, value_by_name, f, &g, &why))
            return FAIL(vcol, "%s: '%s': %s", f->abbrev, val, why);
        if (g.kind == RS_GEN_CONST) {
            if (rs_ib_opcode_info((uint8_t)g.a)->name == NULL)
                return FAIL(vcol, "%s: opcode %s is reserved", f->abbrev, val);
            p->f.opcode = (uint8_t)g.a;
        } else if (g.kind != RS_GEN_LIST && g.kind != RS_GEN_SEQ) {
            return FAIL(vcol, "%s: the opcode decides the headers: give list(...) or "
                        "seq(...) of opcodes, not %s", f->abbrev, val);
        } else {
            struct rs_inject_set *s = set_slot(c, RS_INJECT_T_OPCODE, -1, 0, col);
            if (s == NULL)
                return FAIL(col, "more than %d fields set", RS_INJECT_MAX_SETS);
            s->gen = g;
            p->f.opcode = (uint8_t)(g.kind == RS_GEN_LIST ? g.list[0] : g.a);
        }
        p->given |= RS_INJECT_GAVE_OPCODE;
        return 0;
    }
    struct rs_inject_set tmp, *s = &tmp;
    memset(&tmp, 0, sizeof(tmp));
    bool ok = true;
    switch (f->type) {
    case RS_FT_ETHER:
        ok = parse_mac(val, s->addr);
        why = "expected a MAC address (02:00:00:00:00:01)";
        if (ok)
            p->given |= strcmp(f->abbrev, "eth.src") == 0 ? RS_INJECT_GAVE_ETH_SRC
                                                          : RS_INJECT_GAVE_ETH_DST;
        break;
    case RS_FT_IPV4:
        ok = inet_pton(AF_INET, val, s->addr) == 1;
        why = "expected an IPv4 address";
        if (ok && strcmp(f->abbrev, "ip.dst") == 0)
            memcpy(p->route.dst, s->addr, 4);
        else if (ok && strcmp(f->abbrev, "ip.src") == 0)
            memcpy(p->route.src, s->addr, 4);
        break;
    case RS_FT_IPV6:
        ok = inet_pton(AF_INET6, val, s->addr) == 1;
        why = "expected an IPv6 address or a GID";
        if (ok && strcmp(f->abbrev, "ipv6.dst") == 0)
            memcpy(p->route.dst, s->addr, 16);
        else if (ok && strcmp(f->abbrev, "ipv6.src") == 0)
            memcpy(p->route.src, s->addr, 16);
        else if (ok && strcmp(f->abbrev, "infiniband.grh.dgid") == 0)
            memcpy(p->grh.dgid, s->addr, 16);
        else if (ok && strcmp(f->abbrev, "infiniband.grh.sgid") == 0)
            memcpy(p->grh.sgid, s->addr, 16);
        break;
    default:
        ok = inject_gen_parse(val, inject_field_max(f), value_by_name, f, &s->gen, &why);
        if (ok && s->gen.kind == RS_GEN_RAND)
            p->given |= RS_INJECT_GAVE_RANDOM;
        if (ok && s->gen.kind == RS_GEN_CONST && strcmp(f->abbrev, "udp.srcport") == 0)
            p->route.sport = (uint16_t)s->gen.a;
        if (ok && strcmp(f->abbrev, "roceshark.bth.becn") == 0)
            p->given |= RS_INJECT_GAVE_BECN;
        break;
    }
    if (!ok)
        return FAIL(vcol, "%s: '%s': %s", f->abbrev, val, why);
    if ((s = set_slot(c, RS_INJECT_T_FIELD, id, tag, col)) == NULL)
        return FAIL(col, "more than %d fields set", RS_INJECT_MAX_SETS);
    memcpy(s->addr, tmp.addr, sizeof(s->addr));
    s->gen = tmp.gen;
    if (strcmp(f->abbrev, "ip.checksum") == 0)
        p->keep |= RS_ENCODE_KEEP_IP_CHECKSUM;
    else if (strcmp(f->abbrev, "udp.checksum") == 0)
        p->keep |= RS_ENCODE_KEEP_UDP_CHECKSUM;
    else if (strcmp(f->abbrev, "infiniband.invariant.crc") == 0)
        p->keep |= RS_ENCODE_KEEP_ICRC;
    else if (strcmp(f->abbrev, "infiniband.variant.crc") == 0)
        p->keep |= RS_ENCODE_KEEP_VCRC;
    return 0;
}

/* icrc=bad|good|NUMBER and vcrc=..., in any layer and in the flat form. */
static int
set_crc(struct ctx *c, bool icrc, const char *val, unsigned col, unsigned vcol)
{
    if (strcmp(val, "bad") == 0 || strcmp(val, "good") == 0) {
        bool bad = strcmp(val, "bad") == 0;
        if (icrc) {
            c->p->bad_icrc = bad;
            c->p->keep &= ~RS_ENCODE_KEEP_ICRC;
        } else {
            c->p->bad_vcrc = bad;
            c->p->keep &= ~RS_ENCODE_KEEP_VCRC;
        }
        return 0;
    }
    return set_field(c, value_field(icrc ? "infiniband.invariant.crc" : "infiniband.variant.crc"),
                     0, val, col, vcol, false);
}

/* payload(len=..., hex=..., fill=...) and the flat payload=HEX|len:N. */
static int
set_payload(struct ctx *c, const char *key, const char *val, unsigned col, unsigned vcol)
{
    struct rs_inject_packet *p = c->p;
    const char *why = "";

    if (strcmp(key, "hex") == 0) {
        if (!parse_hex_payload(p, val))
            return FAIL(vcol, "payload: hex '%s': expected hex bytes, at most %d",
                        val, RS_INJECT_MAX_PAYLOAD);
        return 0;
    }
    if (strcmp(key, "fill") == 0) {
        if (!parse_fill(p, val))
            return FAIL(vcol, "payload: fill '%s': expected zero, ones, count, rand or "
                        "0xHEX (up to %d bytes)", val, RS_INJECT_MAX_PATTERN);
        c->fill_payload = true;
        return 0;
    }
    struct rs_inject_gen g;
    if (!inject_gen_parse(val, RS_INJECT_MAX_PAYLOAD, NULL, NULL, &g, &why))
        return FAIL(vcol, "payload: len '%s': %s (0..%d)", val, why, RS_INJECT_MAX_PAYLOAD);
    c->fill_payload = true;
    if (g.kind == RS_GEN_CONST) {
        p->payload_len = (uint32_t)g.a;
        return 0;
    }
    /* A generated length: every value must fit, so the field's range is the payload's. */
    g.max = UINT64_MAX;
    if (g.kind == RS_GEN_INC || g.kind == RS_GEN_DEC ||
        (g.kind == RS_GEN_RAND && g.b > RS_INJECT_MAX_PAYLOAD))
        return FAIL(vcol, "payload: len '%s': give rand(LO,HI), list(...) or seq(LO..HI) "
                    "within 0..%d", val, RS_INJECT_MAX_PAYLOAD);
    struct rs_inject_set *s = set_slot(c, RS_INJECT_T_PAYLOAD_LEN, -1, 0, col);
    if (s == NULL)
        return FAIL(col, "more than %d fields set", RS_INJECT_MAX_SETS);
    s->gen = g;
    if (g.kind == RS_GEN_RAND)
        p->given |= RS_INJECT_GAVE_RANDOM;
    return 0;
}

/* One KEY=VALUE inside layer number nth (definition d; tag: its VLAN tag index). */
static int
layer_arg(struct ctx *c, unsigned nth, const struct layer_def *d, uint8_t tag, char *arg,
          unsigned col)
{
    char *eq = strchr(arg, '=');
    char hint[160];

    if (eq == NULL || eq == arg)
        return FAIL(col, "layer %u %s: '%s': expected FIELD=VALUE", nth, d->name, arg);
    *eq = '\0';
    char *val = eq + 1;
    unsigned vcol = col + (unsigned)(val - arg);
    unquote(val);
    if (strcmp(arg, "icrc") == 0 || strcmp(arg, "vcrc") == 0)
        return set_crc(c, arg[0] == 'i', val, col, vcol);
    if (d->kind == L_PAYLOAD && (strcmp(arg, "len") == 0 || strcmp(arg, "hex") == 0 ||
                                 strcmp(arg, "fill") == 0))
        return set_payload(c, arg, val, col, vcol);
    if (d->kind == L_PAD && strcmp(arg, "count") == 0) {
        uint64_t n;
        char *end;
        errno = 0;
        n = strtoull(val, &end, 0);
        if (errno != 0 || *end != '\0' || end == val || n > 64)
            return FAIL(vcol, "layer %u pad: count '%s': expected 0..64", nth, val);
        c->p->f.pad_given = true;
        c->p->f.pad_len = (uint8_t)n;
        return 0;
    }
    if (d->kind >= L_TCP) {
        if (d->kind == L_MPA && strcmp(arg, "crc") == 0 &&
            (strcmp(val, "bad") == 0 || strcmp(val, "good") == 0 || strcmp(val, "none") == 0)) {
            c->p->iw_bad_crc = strcmp(val, "bad") == 0;
            c->p->iw_no_crc = strcmp(val, "none") == 0;
            return 0;
        }
        const struct inject_member_key *k = inject_member_key(d->name, arg);
        if (k == NULL) {
            const char *best = inject_member_suggest(d->name, arg);
            if (best != NULL)
                snprintf(hint, sizeof(hint), " (did you mean %s?)", best);
            else
                hint[0] = '\0';
            return FAIL(col, "layer %u %s: no field '%s'%s", nth, d->name, arg, hint);
        }
        return set_member(c, k, val, col, vcol);
    }
    int id = d->kind == L_PAYLOAD || d->kind == L_PAD ? -1 : layer_field(d, arg);
    if (id < 0) {
        suggest_field(d, arg, hint, sizeof(hint));
        return FAIL(col, "layer %u %s: no field '%s'%s", nth, d->name, arg, hint);
    }
    return set_field(c, id, tag, val, col, vcol, false);
}

/* A layer's effect on the packet's shape, before its fields. */
static int
layer_shape(struct ctx *c, unsigned nth, const struct layer_def *d, unsigned col, uint8_t *tag)
{
    struct rs_inject_packet *p = c->p;

    switch (d->kind) {
    case L_VLAN:
    case L_QINQ:
        if (p->encap == RS_INJECT_IB)
            return FAIL(col, "layer %u %s: native InfiniBand has no Ethernet header", nth,
                        d->name);
        if (p->n_vlans == RS_INJECT_MAX_VLANS)
            return FAIL(col, "layer %u %s: more than %d tags", nth, d->name,
                        RS_INJECT_MAX_VLANS);
        *tag = p->n_vlans;
        p->vlan[p->n_vlans].tpid = d->kind == L_QINQ ? 0x88a8 : 0x8100;
        p->vlan[p->n_vlans++].tci = 0;
        break;
    case L_TCP:
        if (p->encap != RS_INJECT_ROCEV2 || c->udp_seen || c->ib_seen)
            return FAIL(col, "layer %u tcp: iWARP runs over Ethernet, IP and TCP, with no "
                        "UDP or InfiniBand header", nth);
        p->encap = RS_INJECT_IWARP;
        break;
    case L_MPAREQ:
    case L_MPAREP:
    case L_MPA:
    case L_DDP:
    case L_RDMAP:
        if (p->encap != RS_INJECT_IWARP)
            return FAIL(col, "layer %u %s: needs tcp(...) before it", nth, d->name);
        if (d->kind == L_MPAREQ || d->kind == L_MPAREP)
            p->mpa_frame = d->kind == L_MPAREQ ? 1 : 2;
        break;
    case L_IPV4:
    case L_IPV6:
    case L_UDP:
        if (d->kind == L_UDP)
            c->udp_seen = true;
        if (p->encap == RS_INJECT_IWARP && d->kind == L_UDP)
            return FAIL(col, "layer %u udp: an iWARP packet has TCP, not UDP", nth);
        if (p->encap != RS_INJECT_ROCEV2 && p->encap != RS_INJECT_IWARP)
            return FAIL(col, "layer %u %s: a %s packet has no IP or UDP header", nth,
                        d->name, p->encap == RS_INJECT_IB ? "native InfiniBand" : "RoCEv1");
        if (d->kind != L_UDP)
            p->route.family = d->kind == L_IPV6 ? 6 : 4;
        break;
    case L_LRH:
        if (p->encap == RS_INJECT_IWARP)
            return FAIL(col, "layer %u lrh: an iWARP packet has no InfiniBand header", nth);
        p->encap = RS_INJECT_IB;
        p->n_vlans = 0;
        c->ib_seen = true;
        break;
    case L_BTH:
    case L_EXT:
        if (p->encap == RS_INJECT_IWARP)
            return FAIL(col, "layer %u %s: an iWARP packet has no InfiniBand header", nth,
                        d->name);
        c->ib_seen = true;
        break;
    case L_GRH:
        if (p->encap == RS_INJECT_IWARP)
            return FAIL(col, "layer %u grh: an iWARP packet has no InfiniBand header", nth);
        c->ib_seen = true;
        if (p->encap == RS_INJECT_IB)
            p->ib_grh = true;
        else
            p->encap = RS_INJECT_ROCEV1;
        break;
    case L_CNP:
        if (p->encap == RS_INJECT_IWARP)
            return FAIL(col, "layer %u cnp: an iWARP packet has no InfiniBand header", nth);
        c->ib_seen = true;
        if (!(p->given & RS_INJECT_GAVE_OPCODE))
            p->f.opcode = 0x81;
        if (!(p->given & RS_INJECT_GAVE_BECN))
            p->f.becn = true;       /* Annex A17.9.3: a CNP carries BECN */
        break;
    default:
        break;
    }
    return 0;
}

static int flat_word(struct ctx *c, char *word, unsigned col);
static int read_word(struct ctx *c, const char *text, size_t *i, char *word, size_t size);

/* Reads "repeat N" at text[*i]; returns 1 when there was none. */
static int
parse_repeat(struct ctx *c, const char *text, size_t *i)
{
    size_t n = strlen(text), j = *i;

    if (strncmp(text + j, "repeat", 6) != 0 || (j + 6 < n && !isspace((unsigned char)text[j + 6])))
        return 1;
    unsigned col = (unsigned)j + 1;
    j += 6;
    while (j < n && isspace((unsigned char)text[j]))
        j++;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text + j, &end, 10);
    if (errno != 0 || end == text + j || v < 1 || v > UINT32_MAX)
        return FAIL(col, "repeat: expected a count from 1 to %u", UINT32_MAX);
    c->p->repeat = (uint32_t)v;
    *i = (size_t)(end - text);
    return 0;
}

/* A spec line: layers separated by '/', each with its fields in parentheses, and
 * FIELD=VALUE words with full names, in any mix. */
static int
parse_line(struct ctx *c, const char *text)
{
    size_t i = 0, n = strlen(text);
    unsigned nth = 0;
    char hint[160];

    while (i < n) {
        while (i < n && (isspace((unsigned char)text[i]) || text[i] == '/'))
            i++;
        if (i >= n || text[i] == '#')
            break;
        int rr = parse_repeat(c, text, &i);
        if (rr <= 0) {
            if (rr < 0)
                return rr;
            continue;
        }
        unsigned lcol = (unsigned)i + 1;
        /* A FIELD=VALUE word among the layers (icrc=bad at the end) is a flat word. */
        size_t name_end = i + strspn(text + i, "abcdefghijklmnopqrstuvwxyz"
                                               "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.");
        if (name_end > i && (text[name_end] == '=' || memchr(text + i, '.', name_end - i))) {
            char word[1024];
            int rc = read_word(c, text, &i, word, sizeof(word));
            if (rc == 0)
                rc = flat_word(c, word, lcol);
            if (rc != 0)
                return rc;
            continue;
        }
        char layer[32];
        size_t l = 0;
        while (i < n && (isalnum((unsigned char)text[i]) || text[i] == '_') &&
               l + 1 < sizeof(layer))
            layer[l++] = text[i++];
        layer[l] = '\0';
        nth++;
        const struct layer_def *d = layer_by_name(layer);
        if (d == NULL) {
            const char *best = NULL;
            unsigned best_d = INJECT_NEAR(l) + 1;
            for (size_t k = 0; k < N_LAYER_DEFS; k++) {
                unsigned dist = inject_distance(layer, layer_defs[k].name, best_d);
                if (dist < best_d) {
                    best_d = dist;
                    best = layer_defs[k].name;
                }
            }
            if (best != NULL)
                snprintf(hint, sizeof(hint), " (did you mean %s?)", best);
            else
                snprintf(hint, sizeof(hint), " (eth vlan ieee8021ad ip ipv6 udp lrh grh bth "
                         "rdeth deth xrceth reth atomiceth aeth atomicacketh immdt ieth cnp "
                         "payload pad tcp mpareq mparep mpa ddp rdmap)");
            return FAIL(lcol, "layer %u %s: unknown%s", nth, l ? layer : "(none)", hint);
        }
        uint8_t tag = 0;
        int rc = layer_shape(c, nth, d, lcol, &tag);
        if (rc != 0)
            return rc;
        while (i < n && isspace((unsigned char)text[i]))
            i++;
        if (i >= n || text[i] != '(') {
            if (i < n && text[i] != '/' && text[i] != '#' && strncmp(text + i, "repeat", 6) != 0)
                return FAIL((unsigned)i + 1, "layer %u %s: expected '(', '/' or the end",
                            nth, d->name);
            continue;           /* a layer with every field left as it is */
        }
        i++;
        for (;;) {
            while (i < n && isspace((unsigned char)text[i]))
                i++;
            if (i < n && text[i] == ')') {
                i++;
                break;
            }
            unsigned acol = (unsigned)i + 1;
            char arg[1024];
            size_t a = 0;
            bool quoted = false;
            int depth = 0;
            for (; i < n && (quoted || depth > 0 || (text[i] != ',' && text[i] != ')')); i++) {
                if (text[i] == '"')
                    quoted = !quoted;
                else if (!quoted && text[i] == '(')
                    depth++;
                else if (!quoted && text[i] == ')')
                    depth--;
                if (a + 1 < sizeof(arg) && !(isspace((unsigned char)text[i]) && !quoted))
                    arg[a++] = text[i];
            }
            arg[a] = '\0';
            if (i >= n)
                return FAIL(lcol, "layer %u %s: '(' is not closed", nth, d->name);
            rc = layer_arg(c, nth, d, tag, arg, acol);
            if (rc != 0)
                return rc;
            if (text[i] == ',')
                i++;
        }
    }
    return 0;
}

/* One FIELD=VALUE word of the flat form. */
static int
flat_word(struct ctx *c, char *word, unsigned col)
{
    char hint[160];
    char *eq = strchr(word, '=');

    if (eq == NULL || eq == word)
        return FAIL(col, "'%s': expected FIELD=VALUE", word);
    *eq = '\0';
    char *val = eq + 1;
    unsigned vcol = col + (unsigned)(val - word);
    unquote(val);
    if (strcmp(word, "icrc") == 0 || strcmp(word, "vcrc") == 0)
        return set_crc(c, word[0] == 'i', val, col, vcol);
    if (strcmp(word, "payload") == 0) {
        if (strncmp(val, "len:", 4) == 0)
            return set_payload(c, "len", val + 4, col, vcol + 4);
        return set_payload(c, "hex", val, col, vcol);
    }
    if (strncmp(word, "payload.", 8) == 0)
        return set_payload(c, word + 8, val, col, vcol);
    const struct inject_member_key *k = inject_member_key(NULL, word);
    if (k != NULL) {
        if (c->p->encap != RS_INJECT_ROCEV2 && c->p->encap != RS_INJECT_IWARP)
            return FAIL(col, "%s: an InfiniBand packet has no TCP", word);
        c->p->encap = RS_INJECT_IWARP;
        if (strcmp(k->layer, "mpareq") == 0 && c->p->mpa_frame == 0)
            c->p->mpa_frame = 1;
        return set_member(c, k, val, col, vcol);
    }
    int id = value_field(word);
    if (id < 0) {
        suggest_name(word, hint, sizeof(hint));
        return FAIL(col, "%s: not a field a packet spec sets%s", word, hint);
    }
    return set_field(c, id, 0, val, col, vcol, true);
}

/* Reads the word at text[*i] (up to a space outside quotes and parentheses) into word.
 * Returns 0, or the error. */
static int
read_word(struct ctx *c, const char *text, size_t *i, char *word, size_t size)
{
    size_t n = strlen(text), w = 0, j = *i;
    unsigned col = (unsigned)j + 1;
    bool quoted = false;
    int depth = 0;

    for (; j < n && (quoted || depth > 0 || !isspace((unsigned char)text[j])); j++) {
        if (text[j] == '"')
            quoted = !quoted;
        else if (!quoted && text[j] == '(')
            depth++;
        else if (!quoted && text[j] == ')')
            depth--;
        if (w + 1 >= size)
            return FAIL(col, "a word longer than %zu characters", size - 1);
        if (!(isspace((unsigned char)text[j]) && !quoted))
            word[w++] = text[j];
    }
    word[w] = '\0';
    *i = j;
    if (quoted)
        return FAIL(col, "%s: a quote is not closed", word);
    return 0;
}

/* The layers (RS_LAYER_* bits) the packet has, as built with opcode. */
static uint64_t
layers_present(const struct rs_inject_packet *p, uint8_t opcode, uint32_t payload_len)
{
    uint64_t has = 1ull << RS_LAYER_BTH | 1ull << RS_LAYER_IB | 1ull << RS_LAYER_ICRC |
                   1ull << RS_LAYER_PAYLOAD;
    uint16_t hdrs = rs_ib_opcode_info(opcode)->hdrs;

    if (p->encap != RS_INJECT_IB)
        has |= 1ull << RS_LAYER_ETH;
    if (p->n_vlans > 0)
        has |= 1ull << RS_LAYER_VLAN;
    if (p->encap == RS_INJECT_IWARP)
        return (has & (1ull << RS_LAYER_ETH | 1ull << RS_LAYER_VLAN)) | 1ull << RS_LAYER_TCP |
               1ull << (p->route.family == 6 ? RS_LAYER_IPV6 : RS_LAYER_IPV4);
    if (p->encap == RS_INJECT_ROCEV2)
        has |= 1ull << (p->route.family == 6 ? RS_LAYER_IPV6 : RS_LAYER_IPV4) |
               1ull << RS_LAYER_UDP;
    if (p->encap == RS_INJECT_ROCEV1 || (p->encap == RS_INJECT_IB && p->ib_grh))
        has |= 1ull << RS_LAYER_GRH;
    if (p->encap == RS_INJECT_IB)
        has |= 1ull << RS_LAYER_LRH | 1ull << RS_LAYER_VCRC;
    if (p->f.pad_given ? p->f.pad_len > 0 : (payload_len & 3) != 0)
        has |= 1ull << RS_LAYER_PAD;
    for (size_t i = 0; i < N_EXT_LAYERS; i++)
        if (hdrs & ext_layers[i].hdr)
            has |= 1ull << ext_layers[i].layer;
    return has;
}

/* What a missing layer is called in a message. */
static const char *
layer_label(uint8_t layer)
{
    for (size_t i = 0; i < N_EXT_LAYERS; i++)
        if (ext_layers[i].layer == layer)
            return ext_layers[i].name;
    switch (layer) {
    case RS_LAYER_ETH: return "Ethernet header (native InfiniBand)";
    case RS_LAYER_IPV4: return "IPv4 header";
    case RS_LAYER_IPV6: return "IPv6 header";
    case RS_LAYER_UDP: return "UDP header";
    case RS_LAYER_TCP: return "TCP header";
    case RS_LAYER_LRH: return "LRH (only native InfiniBand has one)";
    case RS_LAYER_GRH: return "GRH";
    case RS_LAYER_VCRC: return "VCRC (only native InfiniBand has one)";
    case RS_LAYER_PAD: return "pad";
    default: return "such header";
    }
}

/* Every field set must be in a header the packet has, with every opcode it takes. */
static int
check_layers(struct ctx *c)
{
    struct rs_inject_packet *p = c->p;
    uint8_t ops[256];
    unsigned n_ops = 0;

    ops[n_ops++] = p->f.opcode;
    for (unsigned i = 0; i < p->n_sets; i++) {
        const struct rs_inject_gen *g = &p->sets[i].gen;
        if (p->sets[i].target != RS_INJECT_T_OPCODE)
            continue;
        n_ops = 0;
        for (uint64_t k = 0; k < (g->kind == RS_GEN_LIST ? g->n : g->b - g->a + 1); k++)
            ops[n_ops++] = (uint8_t)(g->kind == RS_GEN_LIST ? g->list[k] : g->a + k);
        for (unsigned k = 0; k < n_ops; k++)
            if (rs_ib_opcode_info(ops[k])->name == NULL)
                return FAIL(c->set_col[i] ? c->set_col[i] : 1,
                            "infiniband.bth.opcode: opcode 0x%02x is reserved", ops[k]);
    }
    /* What an earlier line (the command line's spec under a -F line) set in a header
     * this line's packet lacks does not apply to it: an IPv6 line drops ip.src. */
    uint64_t has0 = layers_present(p, ops[0], p->payload_len);
    unsigned kept = 0;
    for (unsigned i = 0; i < p->n_sets; i++) {
        const struct rs_inject_set *s = &p->sets[i];
        if (c->set_col[i] == 0 && s->target == RS_INJECT_T_FIELD) {
            uint8_t layer = rs_field_by_id(s->field)->layer;
            bool there = layer == RS_LAYER_VLAN ? s->tag < p->n_vlans
                                                : (has0 & (1ull << layer)) != 0;
            int alias = s->field;
            while (!there && (alias = rs_field_next_alias(alias)) >= 0)
                there = (has0 & (1ull << rs_field_by_id(alias)->layer)) != 0;
            if (!there)
                continue;
        }
        p->sets[kept] = *s;
        c->set_col[kept++] = c->set_col[i];
    }
    p->n_sets = kept;
    for (unsigned k = 0; k < n_ops; k++) {
        uint64_t has = layers_present(p, ops[k], p->payload_len);
        for (unsigned i = 0; i < p->n_sets; i++) {
            struct rs_inject_set *s = &p->sets[i];
            if (s->target != RS_INJECT_T_FIELD)
                continue;
            const struct rs_field *f = rs_field_by_id(s->field);
            unsigned col = c->set_col[i] ? c->set_col[i] : 1;
            if (f->layer == RS_LAYER_VLAN) {
                if (s->tag >= p->n_vlans)
                    return FAIL(col, "%s: the packet has no VLAN tag", f->abbrev);
                continue;
            }
            if (f->layer == RS_LAYER_PAD || has & (1ull << f->layer))
                continue;
            /* infiniband.reth.va names the AtomicETH's too: the alias the packet has. */
            int alias = s->field;
            while ((alias = rs_field_next_alias(alias)) >= 0 &&
                   !(has & (1ull << rs_field_by_id(alias)->layer)))
                ;
            if (alias >= 0 && n_ops == 1) {
                s->field = alias;
                continue;
            }
            if (ext_layers[0].layer <= f->layer && f->layer <= RS_LAYER_CNP)
                return FAIL(col, "%s: the opcode (%s) carries no %s", f->abbrev,
                            rs_ib_opcode_info(ops[k])->name, layer_label(f->layer));
            return FAIL(col, "%s: the packet has no %s", f->abbrev, layer_label(f->layer));
        }
    }
    return 0;
}

int
rs_inject_spec_parse(struct rs_inject_packet *p, const char *text, const char *where,
                     unsigned line, char *err)
{
    struct ctx c;
    int rc;

    memset(&c, 0, sizeof(c));
    c.p = p;
    c.place = (struct inject_place){where, line, err};
    rc = parse_line(&c, text);
    if (rc == 0)
        rc = check_layers(&c);
    if (rc == 0 && c.fill_payload && p->fill != RS_FILL_RAND)
        inject_fill(p, 0, RS_INJECT_MAX_PAYLOAD, NULL);
    return rc;
}
