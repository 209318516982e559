/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spec.c - one line of FIELD=VALUE words into a packet (see inject.h).
 *
 * Written by hand rather than with GScanner: the words are Wireshark field
 * names with dots, values are addresses, hex strings and quoted opcode
 * names, and every error must point at the column of the word at fault,
 * which a 60-line tokenizer does more plainly than a configured scanner.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <roceshark/dissect.h>
#include <roceshark/inject.h>

/* Where a header's fields were set, to refuse them when the opcode lacks it. */
struct touched {
    uint16_t hdrs;                  /* RS_HDR_* the words set */
    unsigned col[16];               /* column of the first word per header bit */
};

struct ctx {
    struct rs_inject_packet *p;
    const char *where;
    unsigned line;
    char *err;
    struct touched t;
    unsigned va_col;                /* column of infiniband.reth.va/.r_key, 0 if none */
};

static int
fail(struct ctx *c, unsigned col, const char *fmt, const char *a, const char *b)
{
    char why[RS_ERRBUF_SIZE];

    snprintf(why, sizeof(why), fmt, a, b);
    return rs_error(c->err, RS_EINVAL, "%s:%u:%u: %s", c->where, c->line, col, why);
}

static bool
parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    char *end;

    if (*s == '\0' || *s == '-' || isspace((unsigned char)*s))
        return false;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno != 0 || *end != '\0' || v > max)
        return false;
    *out = v;
    return true;
}

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

static bool
parse_ip(struct rs_inject_packet *p, const char *s, uint8_t *addr)
{
    uint8_t v6[16];

    if (inet_pton(AF_INET, s, addr) == 1) {
        p->route.family = 4;
        return true;
    }
    if (inet_pton(AF_INET6, s, v6) == 1) {
        memcpy(addr, v6, 16);
        p->route.family = 6;
        return true;
    }
    return false;
}

static bool
parse_payload(struct rs_inject_packet *p, const char *s)
{
    uint64_t n;

    if (strncmp(s, "len:", 4) == 0) {
        if (!parse_u64(s + 4, RS_INJECT_MAX_PAYLOAD, &n))
            return false;
        for (uint64_t i = 0; i < n; i++)
            p->payload[i] = (uint8_t)i;
        p->payload_len = (uint32_t)n;
        return true;
    }
    size_t len = strlen(s);
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

static bool
parse_opcode(const char *s, uint8_t *out)
{
    uint64_t v;

    if (parse_u64(s, 0xff, &v)) {
        *out = (uint8_t)v;
        return true;
    }
    for (unsigned code = 0; code < 256; code++) {
        const char *name = rs_ib_opcode_info((uint8_t)code)->name;
        if (name != NULL && strcasecmp(name, s) == 0) {
            *out = (uint8_t)code;
            return true;
        }
    }
    return false;
}

enum kind { K_U64, K_BOOL, K_MAC, K_IP, K_OPCODE, K_PAYLOAD, K_ICRC };

/* One settable field: its name, how its value is read, its bound, the header
 * it belongs to (0 for none) and where it goes. */
struct key {
    const char *name;
    enum kind kind;
    uint64_t max;
    uint16_t hdr;
    size_t off;         /* offsetof in struct rs_inject_packet */
    uint8_t width;      /* bytes of the destination integer */
};

#define P(member) offsetof(struct rs_inject_packet, member)
#define U(name, max, hdr, member) {name, K_U64, max, hdr, P(member), sizeof(((struct rs_inject_packet *)0)->member)}
#define B(name, hdr, member) {name, K_BOOL, 1, hdr, P(member), 1}

static const struct key keys[] = {
    {"eth.src", K_MAC, 0, 0, P(eth_src), 0},
    {"eth.dst", K_MAC, 0, 0, P(eth_dst), 0},
    {"ip.src", K_IP, 0, 0, P(route.src), 0},
    {"ip.dst", K_IP, 0, 0, P(route.dst), 0},
    {"ipv6.src", K_IP, 0, 0, P(route.src), 0},
    {"ipv6.dst", K_IP, 0, 0, P(route.dst), 0},
    U("ipv6.tclass", 0xff, 0, route.tos),
    U("ipv6.hlim", 0xff, 0, route.ttl),
    U("ip.dsfield", 0xff, 0, route.tos),
    U("ip.ttl", 0xff, 0, route.ttl),
    U("ip.id", 0xffff, 0, route.ip_id),
    B("ip.flags.df", 0, route.df),
    U("ipv6.flow", 0xfffff, 0, route.flow_label),
    U("udp.srcport", 0xffff, 0, route.sport),
    U("udp.dstport", 0xffff, 0, route.dport),
    {"infiniband.bth.opcode", K_OPCODE, 0, 0, P(f.opcode), 1},
    B("infiniband.bth.se", 0, f.se),
    B("infiniband.bth.m", 0, f.migreq),
    B("infiniband.bth.a", 0, f.ackreq),
    B("roceshark.bth.fecn", 0, f.fecn),
    B("roceshark.bth.becn", 0, f.becn),
    U("infiniband.bth.tver", 0xf, 0, f.tver),
    U("infiniband.bth.p_key", 0xffff, 0, f.pkey),
    U("infiniband.bth.destqp", 0xffffff, 0, f.dest_qp),
    U("infiniband.bth.psn", 0xffffff, 0, f.psn),
    U("infiniband.rdeth.eecnxt", 0xffffff, RS_HDR_RDETH, f.rdeth_eecnxt),
    U("infiniband.deth.q_key", 0xffffffff, RS_HDR_DETH, f.deth.qkey),
    U("infiniband.deth.srcqp", 0xffffff, RS_HDR_DETH, f.deth.src_qp),
    U("roceshark.xrceth.xrcsrq", 0xffffff, RS_HDR_XRCETH, f.xrc_srq),
    U("infiniband.reth.dmalen", 0xffffffff, RS_HDR_RETH, f.reth.len),
    U("infiniband.atomiceth.swapdt", UINT64_MAX, RS_HDR_ATOMICETH, f.atomic.swap_add),
    U("infiniband.atomiceth.cmpdt", UINT64_MAX, RS_HDR_ATOMICETH, f.atomic.compare),
    U("infiniband.aeth.syndrome", 0xff, RS_HDR_AETH, f.aeth.syndrome),
    U("infiniband.aeth.msn", 0xffffff, RS_HDR_AETH, f.aeth.msn),
    U("infiniband.atomicacketh.origremdt", UINT64_MAX, RS_HDR_ATOMICACKETH, f.atomic_ack_orig),
    U("infiniband.immdt", 0xffffffff, RS_HDR_IMMDT, f.imm),
    U("infiniband.ieth", 0xffffffff, RS_HDR_IETH, f.ieth_rkey),
    {"payload", K_PAYLOAD, 0, 0, 0, 0},
    {"icrc", K_ICRC, 0, 0, 0, 0},
};

static void
store(void *dst, uint8_t width, uint64_t v)
{
    switch (width) {
    case 1: *(uint8_t *)dst = (uint8_t)v; break;
    case 2: *(uint16_t *)dst = (uint16_t)v; break;
    case 4: *(uint32_t *)dst = (uint32_t)v; break;
    default: *(uint64_t *)dst = v; break;
    }
}

static void
touch(struct ctx *c, uint16_t hdr, unsigned col)
{
    for (unsigned b = 0; b < 16; b++)
        if ((hdr & (1u << b)) && !(c->t.hdrs & (1u << b)))
            c->t.col[b] = col;
    c->t.hdrs |= hdr;
}

/* infiniband.reth.va and .r_key name the address and key of the RETH and,
 * as in Wireshark, of the AtomicETH: they go to whichever the opcode has. */
static int
set_va_rkey(struct ctx *c, const char *name, const char *val, unsigned col)
{
    uint64_t v;
    bool va = strcmp(name, "infiniband.reth.va") == 0;

    if (!parse_u64(val, va ? UINT64_MAX : 0xffffffff, &v))
        return fail(c, col + (unsigned)strlen(name) + 1, "%.100s: bad value '%.100s'", name, val);
    if (va)
        c->p->f.reth.va = c->p->f.atomic.va = v;
    else
        c->p->f.reth.rkey = c->p->f.atomic.rkey = (uint32_t)v;
    if (c->va_col == 0)
        c->va_col = col;
    return 0;
}

static int
set_word(struct ctx *c, const char *name, const char *val, unsigned col)
{
    unsigned vcol = col + (unsigned)strlen(name) + 1;
    uint8_t *base = (uint8_t *)c->p;
    uint64_t v;

    if (strcmp(name, "infiniband.reth.va") == 0 || strcmp(name, "infiniband.reth.r_key") == 0)
        return set_va_rkey(c, name, val, col);
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const struct key *k = &keys[i];
        if (strcmp(k->name, name) != 0)
            continue;
        bool ok = true;
        switch (k->kind) {
        case K_U64:
        case K_BOOL:
            if (k->kind == K_BOOL && (strcasecmp(val, "true") == 0 || strcasecmp(val, "false") == 0))
                v = strcasecmp(val, "true") == 0;
            else if (!parse_u64(val, k->max, &v))
                return fail(c, vcol, "%.100s: '%.100s' out of range or not a number", name, val);
            if (k->kind == K_BOOL)
                *(bool *)(base + k->off) = v != 0;
            else
                store(base + k->off, k->width, v);
            break;
        case K_MAC:
            ok = parse_mac(val, base + k->off);
            break;
        case K_IP:
            ok = parse_ip(c->p, val, base + k->off);
            if (ok && strcmp(name, "ip.dst") == 0)
                c->p->given |= RS_INJECT_GAVE_DST;
            break;
        case K_OPCODE:
            ok = parse_opcode(val, &c->p->f.opcode);
            if (ok && rs_ib_opcode_info(c->p->f.opcode)->name == NULL)
                return fail(c, vcol, "%.100s: opcode %.100s is reserved", name, val);
            c->p->given |= RS_INJECT_GAVE_OPCODE;
            break;
        case K_PAYLOAD:
            ok = parse_payload(c->p, val);
            if (!ok)
                return fail(c, vcol, "payload: '%.100s': expected hex bytes or len:N (N up to 9000)",
                            val, "");
            break;
        case K_ICRC:
            ok = strcmp(val, "bad") == 0 || strcmp(val, "good") == 0;
            c->p->bad_icrc = strcmp(val, "bad") == 0;
            break;
        }
        if (!ok)
            return fail(c, vcol, "%.100s: bad value '%.100s'", name, val);
        touch(c, k->hdr, col);
        return 0;
    }
    return fail(c, col, "%.100s: not a field a packet spec sets%.100s", name,
                " (see 'roceshark inject -h')");
}

/* The header a bit stands for, for messages. */
static const char *
hdr_name(unsigned bit)
{
    static const char *const names[] = {"RDETH", "DETH", "XRCETH", "RETH", "AtomicETH",
                                        "AETH", "AtomicAckETH", "ImmDt", "IETH"};
    return bit < sizeof(names) / sizeof(names[0]) ? names[bit] : "header";
}

static bool
known_field(const char *name)
{
    if (strcmp(name, "infiniband.reth.va") == 0 || strcmp(name, "infiniband.reth.r_key") == 0)
        return true;
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (strcmp(keys[i].name, name) == 0)
            return true;
    return false;
}

/* The layers of the layered form and the Wireshark prefix of their fields. */
static const struct {
    const char *layer, *prefix;
} layers[] = {
    {"eth", "eth"},          {"ip", "ip"},           {"ipv4", "ip"},
    {"ipv6", "ipv6"},        {"udp", "udp"},         {"bth", "infiniband.bth"},
    {"rdeth", "infiniband.rdeth"}, {"deth", "infiniband.deth"},
    {"xrceth", "roceshark.xrceth"}, {"reth", "infiniband.reth"},
    {"atomiceth", "infiniband.atomiceth"}, {"aeth", "infiniband.aeth"},
    {"atomicacketh", "infiniband.atomicacketh"}, {"immdt", "infiniband.immdt"},
    {"ieth", "infiniband.ieth"}, {"payload", "payload"},
};

/* The full name of field key of a layer: the key itself when it is a full name; the
 * layer's own name for the one-value headers (immdt, ieth) and payload; our roceshark.
 * names for the BTH's FECN and BECN; else prefix.key. */
static void
full_name(const char *prefix, const char *key, char *out, size_t size)
{
    if (strchr(key, '.') != NULL && known_field(key))
        snprintf(out, size, "%.100s", key);
    else if (strcmp(key, "icrc") == 0)
        snprintf(out, size, "icrc");
    else if (strcmp(prefix, "infiniband.immdt") == 0 || strcmp(prefix, "infiniband.ieth") == 0 ||
             strcmp(prefix, "payload") == 0)
        snprintf(out, size, "%s", prefix);
    else if (strcmp(prefix, "infiniband.bth") == 0 &&
             (strcmp(key, "fecn") == 0 || strcmp(key, "becn") == 0))
        snprintf(out, size, "roceshark.bth.%.100s", key);
    else
        snprintf(out, size, "%.40s.%.100s", prefix, key);
}

/* One "key=value" of layer number nth (its name and prefix) at column col. */
static int
layer_arg(struct ctx *c, unsigned nth, const char *layer, const char *prefix, char *arg,
          unsigned col)
{
    char name[160], value[1024];
    char *eq = strchr(arg, '=');

    if (eq == NULL || eq == arg)
        return fail(c, col, "layer %.100s: '%.100s': expected FIELD=VALUE", layer, arg);
    *eq = '\0';
    full_name(prefix, arg, name, sizeof(name));
    if (!known_field(name)) {
        char what[64];
        snprintf(what, sizeof(what), "layer %u %s", nth, layer);
        return fail(c, col, "%.100s: no field '%.100s'", what, arg);
    }
    /* payload(len=N) and payload(hex=...) are payload=len:N and payload=HEX. */
    const char *v = eq + 1;
    if (strcmp(name, "payload") == 0 && strcmp(arg, "len") == 0)
        snprintf(value, sizeof(value), "len:%s", v);
    else
        snprintf(value, sizeof(value), "%s", v);
    return set_word(c, name, value, col);
}

/* "eth / ip(dst=10.0.0.2) / udp(srcport=5) / bth(opcode=\"RC Send Only\", psn=5) /
 * payload(len=64)": layers separated by '/', each with its fields in parentheses. */
static int
parse_layers(struct ctx *c, const char *text)
{
    size_t i = 0, n = strlen(text);
    unsigned nth = 0;

    while (i < n) {
        while (i < n && (isspace((unsigned char)text[i]) || text[i] == '/'))
            i++;
        if (i >= n || text[i] == '#')
            break;
        unsigned lcol = (unsigned)i + 1;
        char layer[32];
        size_t l = 0;
        while (i < n && (isalnum((unsigned char)text[i]) || text[i] == '_') && l + 1 < sizeof(layer))
            layer[l++] = text[i++];
        layer[l] = '\0';
        nth++;
        const char *prefix = NULL;
        for (size_t k = 0; k < sizeof(layers) / sizeof(layers[0]); k++)
            if (strcmp(layers[k].layer, layer) == 0)
                prefix = layers[k].prefix;
        if (prefix == NULL)
            return fail(c, lcol, "layer %.100s: unknown (eth, ip, ipv6, udp, bth, rdeth, deth, "
                        "xrceth, reth, atomiceth, aeth, atomicacketh, immdt, ieth, payload)%.100s",
                        l ? layer : "(none)", "");
        while (i < n && isspace((unsigned char)text[i]))
            i++;
        if (i >= n || text[i] != '(')
            continue;           /* a layer with every field left as it is */
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
            for (; i < n && (quoted || (text[i] != ',' && text[i] != ')')); i++) {
                if (text[i] == '"') {
                    quoted = !quoted;
                    continue;
                }
                if (a + 1 < sizeof(arg) && !(isspace((unsigned char)text[i]) && !quoted))
                    arg[a++] = text[i];
            }
            arg[a] = '\0';
            if (i >= n)
                return fail(c, lcol, "layer %.100s: '(' is not closed%.100s", layer, "");
            int rc = layer_arg(c, nth, layer, prefix, arg, acol);
            if (rc != 0)
                return rc;
            if (text[i] == ',')
                i++;
        }
    }
    return 0;
}

int
rs_inject_spec_parse(struct rs_inject_packet *p, const char *text, const char *where,
                     unsigned line, char *err)
{
    struct ctx c = {p, where, line, err, {0, {0}}, 0};
    char word[1024], name[128];
    size_t i = 0, n = strlen(text);

    if (strchr(text, '(') != NULL) {
        int rc = parse_layers(&c, text);
        if (rc != 0)
            return rc;
        n = 0;      /* on to the header checks */
    }

    while (i < n) {
        while (i < n && isspace((unsigned char)text[i]))
            i++;
        if (i >= n || text[i] == '#')
            break;
        unsigned col = (unsigned)i + 1;
        size_t w = 0;
        bool quoted = false;
        for (; i < n && (quoted || !isspace((unsigned char)text[i])); i++) {
            if (text[i] == '"') {
                quoted = !quoted;
                continue;
            }
            if (w + 1 >= sizeof(word))
                return fail(&c, col, "a word longer than %.100s%.100s characters", "1023", "");
            word[w++] = text[i];
        }
        word[w] = '\0';
        if (quoted)
            return fail(&c, col, "%.100s: a quote is not closed%.100s", word, "");
        char *eq = strchr(word, '=');
        if (eq == NULL || eq == word)
            return fail(&c, col, "'%.100s': expected FIELD=VALUE%.100s", word, "");
        size_t len = (size_t)(eq - word);
        if (len >= sizeof(name))
            return fail(&c, col, "%.100s: not a field a packet spec sets%.100s", "(a long name)", "");
        memcpy(name, word, len);
        name[len] = '\0';
        int rc = set_word(&c, name, eq + 1, col);
        if (rc != 0)
            return rc;
    }
    /* A field of a header the opcode does not carry would be silently dropped. */
    uint16_t has = rs_ib_opcode_info(p->f.opcode)->hdrs;
    uint16_t extra = c.t.hdrs & ~has;
    if (c.va_col != 0 && !(has & (RS_HDR_RETH | RS_HDR_ATOMICETH)))
        return fail(&c, c.va_col, "the opcode (%.100s) carries no %.100s",
                    rs_ib_opcode_info(p->f.opcode)->name, "RETH or AtomicETH");
    for (unsigned b = 0; b < 16; b++) {
        if (extra & (1u << b)) {
            char what[64];
            snprintf(what, sizeof(what), "%s", hdr_name(b));
            return fail(&c, c.t.col[b], "the opcode (%.100s) carries no %.100s",
                        rs_ib_opcode_info(p->f.opcode)->name, what);
        }
    }
    return 0;
}
