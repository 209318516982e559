/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats_addr_conv.c - `-z conv,TYPE[,FILTER]` and `-z endpoints,TYPE[,FILTER]` for TYPE
 * eth, ip, ipv6, udp or tcp: tshark 4.0's conversation and endpoint tables, laid out as it
 * prints them. One table serves both: a conversation is keyed by its first frame's source
 * and destination (the reverse direction is the same row, its "<-" columns), an endpoint
 * by one address and port. Rows keep the order they were first seen in; they are printed
 * by total frames, most first, ties in that order, as tshark does.
 *
 * The table holds at most ADDR_MAX_ROWS rows (stats_int.h): a flow first seen when it is
 * full is not counted, and its frames are said after the table. Rows live in fixed
 * blocks, so a known flow costs a hash look-up and no allocation.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/ether_names.h>
#include <roceshark/dissectors/port_names.h>

#include "stats/stats_int.h"

#define ROWS_PER_BLOCK 4096
/* An address, its name or "address:port". */
#define NAME_BUF 128

/* One side: an address (6, 4 or 16 bytes used) and a port (0 where the type has none). */
struct addr_end {
    uint8_t addr[16];
    uint16_t port;
};

/* No padding: hashed and compared as bytes. */
struct addr_key {
    uint8_t family;         /* 6 Ethernet, 4 IPv4, 16 IPv6: the address length */
    uint8_t zero;
    struct addr_end a, b;   /* b unused (zero) for an endpoint */
};

struct addr_row {
    struct addr_key key;
    uint64_t tx_frames, tx_bytes;   /* a to b; an endpoint's sent */
    uint64_t rx_frames, rx_bytes;   /* b to a; an endpoint's received */
    struct rs_time start, stop;     /* relative to the first frame */
};

struct addr_table {
    enum addr_type type;
    bool endpoints;
    GHashTable *index;              /* struct addr_key * -> struct addr_row * */
    struct addr_row **blocks;
    size_t n_rows, n_blocks;
    uint64_t frames_left_out;       /* of flows first seen with the table full */
};

static const struct {
    const char *name, *title;
    bool ports;
} addr_types[] = {
    [ADDR_ETH] = {"eth", "Ethernet", false},
    [ADDR_IPV4] = {"ip", "IPv4", false},
    [ADDR_IPV6] = {"ipv6", "IPv6", false},
    [ADDR_UDP] = {"udp", "UDP", true},
    [ADDR_TCP] = {"tcp", "TCP", true},
};

static guint
key_hash(gconstpointer p)
{
    const uint8_t *b = p;
    uint32_t h = 2166136261u;

    for (size_t i = 0; i < sizeof(struct addr_key); i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

static gboolean
key_equal(gconstpointer a, gconstpointer b)
{
    return memcmp(a, b, sizeof(struct addr_key)) == 0;
}

int
stats_addr_init(struct rs_stat *st, const char *args, bool endpoints, char *err)
{
    const char *comma = strchr(args, ',');
    size_t len = comma != NULL ? (size_t)(comma - args) : strlen(args);
    size_t t = 0;

    while (t < RS_ARRAY_SIZE(addr_types) &&
           (strlen(addr_types[t].name) != len || strncmp(addr_types[t].name, args, len) != 0))
        t++;
    if (t == RS_ARRAY_SIZE(addr_types))
        return rs_error(err, RS_EINVAL, endpoints ?
                        "unknown endpoint type (eth, ip, ipv6, udp, tcp)" :
                        "unknown conversation type (eth, ip, ipv6, udp, tcp, qp)");
    if (comma != NULL) {
        char ferr[RS_ERRBUF_SIZE];
        if (rs_filter_compile(comma + 1, &st->filters[0], ferr) != 0)
            return rs_error(err, RS_EINVAL, "filter %.32s%s: %s", comma + 1,
                            strlen(comma + 1) > 32 ? "..." : "", ferr);
        st->filter_text[0] = strdup(comma + 1);
        st->n_filters = 1;
    }
    struct addr_table *tab = calloc(1, sizeof(*tab));
    if (tab == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    tab->type = (enum addr_type)t;
    tab->endpoints = endpoints;
    tab->index = g_hash_table_new(key_hash, key_equal);
    st->addr = tab;
    return 0;
}

/* The frame's two sides for the table's type; false when it has no such layer. */
static bool
frame_sides(const struct addr_table *tab, const struct rs_packet *pkt, struct addr_key *k)
{
    const uint8_t *h;
    unsigned off, len;

    memset(k, 0, sizeof(*k));
    if (tab->type == ADDR_ETH) {
        if (!rs_packet_has(pkt, RS_LAYER_ETH))
            return false;
        h = rs_packet_at(pkt, RS_LAYER_ETH);
        k->family = 6;
        memcpy(k->a.addr, h + 6, 6);
        memcpy(k->b.addr, h, 6);
        return true;
    }
    const uint8_t *ports = NULL;
    enum rs_layer l4 = tab->type == ADDR_UDP ? RS_LAYER_UDP : RS_LAYER_TCP;
    if (rs_packet_has(pkt, RS_LAYER_IPV4) && tab->type != ADDR_IPV6) {
        h = rs_packet_at(pkt, RS_LAYER_IPV4);
        off = 12;
        len = 4;
        ports = rs_packet_has(pkt, l4) ? rs_packet_at(pkt, l4) : NULL;
    } else if (rs_packet_has(pkt, RS_LAYER_IPV6) && tab->type != ADDR_IPV4) {
        h = rs_packet_at(pkt, RS_LAYER_IPV6);
        off = 8;
        len = 16;
        ports = rs_packet_has(pkt, l4) ? rs_packet_at(pkt, l4) : NULL;
    } else {
        return false;
    }
    if (tab->type == ADDR_UDP || tab->type == ADDR_TCP) {
        if (ports == NULL)
            return false;
        k->a.port = (uint16_t)(ports[0] << 8 | ports[1]);
        k->b.port = (uint16_t)(ports[2] << 8 | ports[3]);
    }
    k->family = (uint8_t)len;
    memcpy(k->a.addr, h + off, len);
    memcpy(k->b.addr, h + off + len, len);
    return true;
}

static struct addr_row *
row_at(const struct addr_table *tab, size_t i)
{
    return &tab->blocks[i / ROWS_PER_BLOCK][i % ROWS_PER_BLOCK];
}

/* The row of k, added when new and there is room; NULL when the table is full. */
static struct addr_row *
find_or_add(struct addr_table *tab, const struct addr_key *k, struct rs_time ts, bool *added)
{
    struct addr_row *row = g_hash_table_lookup(tab->index, k);

    *added = false;
    if (row != NULL)
        return row;
    if (tab->n_rows == ADDR_MAX_ROWS)
        return NULL;
    if (tab->n_rows == tab->n_blocks * ROWS_PER_BLOCK) {
        struct addr_row **blocks = realloc(tab->blocks, (tab->n_blocks + 1) * sizeof(*blocks));
        if (blocks == NULL)
            return NULL;
        tab->blocks = blocks;
        if ((blocks[tab->n_blocks] = malloc(ROWS_PER_BLOCK * sizeof(struct addr_row))) == NULL)
            return NULL;
        tab->n_blocks++;
    }
    row = row_at(tab, tab->n_rows++);
    memset(row, 0, sizeof(*row));
    row->key = *k;
    row->start = row->stop = ts;
    g_hash_table_insert(tab->index, &row->key, row);
    *added = true;
    return row;
}

static void
count(struct addr_row *row, bool tx, uint64_t bytes)
{
    if (tx) {
        row->tx_frames++;
        row->tx_bytes += bytes;
    } else {
        row->rx_frames++;
        row->rx_bytes += bytes;
    }
}

static void
count_conversation(struct addr_table *tab, const struct addr_key *fwd, struct rs_time ts,
                   uint64_t bytes)
{
    struct addr_key rev = {fwd->family, 0, fwd->b, fwd->a};
    struct addr_row *row = g_hash_table_lookup(tab->index, fwd);
    bool tx = true, added;

    if (row == NULL && (row = g_hash_table_lookup(tab->index, &rev)) != NULL)
        tx = false;
    if (row == NULL && (row = find_or_add(tab, fwd, ts, &added)) == NULL) {
        tab->frames_left_out++;
        return;
    }
    count(row, tx, bytes);
    /* As tshark: a frame earlier than the start moves it only when not past the end. */
    if (rs_time_cmp(ts, row->stop) > 0)
        row->stop = ts;
    else if (rs_time_cmp(ts, row->start) < 0)
        row->start = ts;
}

static void
count_endpoint(struct addr_table *tab, uint8_t family, const struct addr_end *e, bool tx,
               struct rs_time ts, uint64_t bytes)
{
    struct addr_key k = {.family = family, .a = *e};
    bool added;
    struct addr_row *row = find_or_add(tab, &k, ts, &added);

    if (row == NULL) {
        tab->frames_left_out += tx;     /* the frame, once */
        return;
    }
    count(row, tx, bytes);
}

void
stats_addr_packet(struct rs_stat *st, const struct rs_packet *pkt)
{
    struct addr_table *tab = st->addr;
    struct addr_key k;

    if (!frame_sides(tab, pkt, &k))
        return;
    if (st->n_filters > 0 && !rs_filter_match(st->filters[0], pkt))
        return;
    struct rs_time ts = pkt->frame->rel;
    uint64_t bytes = rs_packet_wire_len(pkt);
    if (!tab->endpoints) {
        count_conversation(tab, &k, ts, bytes);
        return;
    }
    count_endpoint(tab, k.family, &k.a, true, ts, bytes);
    count_endpoint(tab, k.family, &k.b, false, ts, bytes);
}

size_t
rs_stats_format_size(uint64_t bytes, char *buf, size_t size)
{
    /* As Wireshark's format_size(): whole units of 1000, the largest of which there are
     * at least ten, rounded down; under 10000, the bytes themselves. */
    static const char *const units[] = {"TB", "GB", "MB", "kB"};
    uint64_t div = 1000000000000ull;

    const char *unit = "bytes";
    uint64_t n = bytes;
    char text[RS_U64_TEXT_MAX + sizeof(" bytes")];

    for (size_t i = 0; i < RS_ARRAY_SIZE(units); i++, div /= 1000) {
        if (bytes / div >= 10) {
            n = bytes / div;
            unit = units[i];
            break;
        }
    }
    /* Without snprintf: three of these go into every row of a table of thousands. */
    size_t len = rs_format_u64(text, n);
    text[len++] = ' ';
    memcpy(text + len, unit, strlen(unit) + 1);
    len += strlen(unit);
    if (size > 0) {
        size_t copy = len < size ? len : size - 1;
        memcpy(buf, text, copy);
        buf[copy] = '\0';
    }
    return len;
}

/* The name -N t gives a port of the table's type (port_names.h), or NULL. */
static const char *
port_name(const struct addr_table *tab, uint16_t port)
{
    if (!rs_display_get()->resolve_transport)
        return NULL;
    return rs_port_name(tab->type == ADDR_TCP, port);
}

/* ":port" (or ":name" with -N t) after the address in buf, as far as it fits. */
static void
append_port(const struct addr_table *tab, char *buf, size_t size, uint16_t port)
{
    char digits[RS_U64_TEXT_MAX];
    const char *name = port_name(tab, port);
    size_t n = strlen(buf), d = name != NULL ? strlen(name) : rs_format_u64(digits, port);

    if (n + 1 + d < size) {
        buf[n] = ':';
        memcpy(buf + n + 1, name != NULL ? name : digits, d);
        buf[n + 1 + d] = '\0';
    }
}

/* An address as tshark shows it, the port apart. */
static void
format_addr(const struct addr_key *k,
            const struct addr_end *e, char *buf, size_t size)
{
    if (k->family == 6)
        rs_ether_name_shown(e->addr, buf, size);
    else if (k->family == 4 && size >= RS_IPV4_TEXT_MAX)
        rs_format_ipv4(buf, e->addr);
    else if (size >= RS_IPV6_TEXT_MAX)
        rs_format_ipv6(buf, e->addr);
    else
        inet_ntop(k->family == 4 ? AF_INET : AF_INET6, e->addr, buf, (socklen_t)size);
}

/* A row's place in the printed order: most frames first, then first seen first. */
struct rank {
    uint64_t frames;
    size_t index;
};

static int
by_frames(const void *a, const void *b)
{
    const struct rank *x = a, *y = b;

    if (x->frames != y->frames)
        return x->frames > y->frames ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static void
print_conversation(const struct addr_table *tab,
                   const struct addr_row *r, struct rs_out *o)
{
    char a[NAME_BUF], b[NAME_BUF], rx[32], tx[32], total[32];

    format_addr(&r->key, &r->key.a, a, sizeof(a));
    format_addr(&r->key, &r->key.b, b, sizeof(b));
    rs_stats_format_size(r->rx_bytes, rx, sizeof(rx));
    rs_stats_format_size(r->tx_bytes, tx, sizeof(tx));
    rs_stats_format_size(r->rx_bytes + r->tx_bytes, total, sizeof(total));
    if (addr_types[tab->type].ports) {
        append_port(tab, a, sizeof(a), r->key.a.port);
        append_port(tab, b, sizeof(b), r->key.b.port);
    }
    int w = addr_types[tab->type].ports ? 26 : 20;
    /* "%-*s <-> %-*s  %6llu %-9s  %6llu %-9s  %6llu %-9s  ", printf kept for the times,
     * which tshark prints from doubles and so must we. */
    const struct {
        uint64_t frames;
        const char *bytes;
    } cols[] = {{r->rx_frames, rx}, {r->tx_frames, tx}, {r->rx_frames + r->tx_frames, total}};
    rs_out_pad(o, a, w, true);
    rs_out_str(o, " <-> ");
    rs_out_pad(o, b, w, true);
    for (size_t i = 0; i < RS_ARRAY_SIZE(cols); i++) {
        rs_out_str(o, "  ");
        rs_out_pad_u64(o, cols[i].frames, 6);
        rs_out_char(o, ' ');
        rs_out_pad(o, cols[i].bytes, 9, true);
    }
    rs_out_printf(o, "  %14.9f   %12.4f\n", rs_time_to_double(r->start),
                  rs_time_to_double(r->stop) - rs_time_to_double(r->start));
}

static void
print_endpoint(const struct addr_table *tab,
               const struct addr_row *r, struct rs_out *o)
{
    char a[NAME_BUF];

    format_addr(&r->key, &r->key.a, a, sizeof(a));
    rs_out_pad(o, a, 20, true);
    rs_out_str(o, "      ");
    if (addr_types[tab->type].ports) {
        const char *name = port_name(tab, r->key.a.port);
        if (name != NULL)
            rs_out_pad(o, name, 5, false);
        else
            rs_out_pad_u64(o, r->key.a.port, 5);
        rs_out_str(o, "     ");
    }
    /* "%6llu     %9llu     %6llu       %9llu      %6llu       %9llu   \n" */
    const struct {
        uint64_t v;
        int width;
        const char *after;
    } cols[] = {
        {r->tx_frames + r->rx_frames, 6, "     "}, {r->tx_bytes + r->rx_bytes, 9, "     "},
        {r->tx_frames, 6, "       "}, {r->tx_bytes, 9, "      "},
        {r->rx_frames, 6, "       "}, {r->rx_bytes, 9, "   \n"},
    };
    for (size_t i = 0; i < RS_ARRAY_SIZE(cols); i++) {
        rs_out_pad_u64(o, cols[i].v, cols[i].width);
        rs_out_str(o, cols[i].after);
    }
}

static const char rule[] =
    "================================================================================\n";

static void
print_header(const struct rs_stat *st, const struct addr_table *tab, struct rs_out *o)
{
    const char *pad = addr_types[tab->type].ports ? "            " : "";

    rs_out_str(o, rule);
    rs_out_printf(o, "%s %s\nFilter:%s\n", addr_types[tab->type].title,
                  tab->endpoints ? "Endpoints" : "Conversations",
                  st->n_filters > 0 ? st->filter_text[0] : "<No Filter>");
    if (tab->endpoints) {
        rs_out_printf(o, "                       |  %sPackets  | |  Bytes  | | Tx Packets | "
                      "| Tx Bytes | | Rx Packets | | Rx Bytes |\n",
                      addr_types[tab->type].ports ? "Port  ||  " : "");
        return;
    }
    rs_out_printf(o, "%s                                               |       <-      | "
                  "|       ->      | |     Total     |    Relative    |   Duration   |\n", pad);
    rs_out_printf(o, "%s                                               | Frames  Bytes | "
                  "| Frames  Bytes | | Frames  Bytes |      Start     |              |\n", pad);
}

void
stats_addr_print(struct rs_stat *st, const struct rs_stat_stages *at, struct rs_out *o)
{
    (void)at;
    struct addr_table *tab = st->addr;
    struct rank *order = malloc((tab->n_rows + 1) * sizeof(*order));
    size_t n = order != NULL ? tab->n_rows : 0;

    print_header(st, tab, o);
    for (size_t i = 0; i < n; i++) {
        const struct addr_row *r = row_at(tab, i);
        order[i] = (struct rank){r->tx_frames + r->rx_frames, i};
    }
    qsort(order, n, sizeof(*order), by_frames);
    for (size_t i = 0; i < n; i++) {
        if (tab->endpoints)
            print_endpoint(tab, row_at(tab, order[i].index), o);
        else
            print_conversation(tab, row_at(tab, order[i].index), o);
    }
    if (order == NULL && tab->n_rows > 0)
        rs_out_str(o, "(out of memory: the rows are not printed)\n");
    rs_out_str(o, rule);
    if (tab->frames_left_out > 0)
        rs_out_printf(o, "%" PRIu64 " frames of flows first seen with the table full (%u rows)"
                      " not counted\n", tab->frames_left_out, (unsigned)ADDR_MAX_ROWS);
    free(order);
}

void
stats_addr_free(struct rs_stat *st)
{
    struct addr_table *tab = st->addr;

    if (tab == NULL)
        return;
    g_hash_table_destroy(tab->index);
    for (size_t i = 0; i < tab->n_blocks; i++)
        free(tab->blocks[i]);
    free(tab->blocks);
    free(tab);
    st->addr = NULL;
}
