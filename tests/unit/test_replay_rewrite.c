/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_replay_rewrite.c - replay's rewriting of a captured request: every
 * field it sets, maps or offsets, read back by decoding the result, the
 * checksums and CRCs computed again (or the ICRC kept), the frames it
 * refuses, and the OLD:NEW maps of --qpmap and --rkey-map.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <roceshark/dissectors/dissect.h>
#include <roceshark/inject/inject.h>
#include <roceshark/replay/replay.h>
#include <roceshark/dissectors/wire.h>

static struct rs_inject_packet spec_packet;
static struct rs_inject_run inject_run;

/* A built frame and its decoded view, CRCs checked. */
struct built {
    uint8_t buf[RS_INJECT_MAX_FRAME];
    uint8_t *data;
    uint32_t len;
    int linktype;
    struct rs_frame frame;
    struct rs_packet pkt;
};

static void
decode(struct built *b)
{
    struct rs_decode_opts o;

    memset(&b->frame, 0, sizeof(b->frame));
    b->frame.data = b->data;
    b->frame.caplen = b->frame.len = b->len;
    b->frame.linktype = b->linktype;
    rs_decode_opts_init(&o);
    rs_decode_frame(&b->frame, &o, &b->pkt);
}

/* Builds spec into b: an Ethernet frame, or an InfiniBand packet. */
static void
build_any(struct built *b, const char *spec)
{
    struct rs_inject_frame fr;
    char err[RS_ERRBUF_SIZE];

    rs_inject_packet_init(&spec_packet);
    if (rs_inject_spec_parse(&spec_packet, spec, "t", 1, err) != 0 ||
        rs_inject_next(&spec_packet, &inject_run, b->buf, &fr, err) != 0)
        fail_msg("%s", err);
    b->data = fr.data;
    b->len = fr.len;
    b->linktype = fr.encap == RS_INJECT_IB ? RS_DLT_INFINIBAND : RS_DLT_EN10MB;
    decode(b);
}

/* The same, for a good RoCE or IB packet. */
static void
build(struct built *b, const char *spec)
{
    build_any(b, spec);
    assert_int_equal(b->pkt.icrc_status, RS_CKSUM_GOOD);
}

/* Rewrites b by rw, which must succeed, and decodes the result. */
static void
rewrite(struct built *b, const struct rs_replay_rewrite *rw)
{
    struct rs_decode_opts o;
    char err[RS_ERRBUF_SIZE];

    rs_decode_opts_init(&o);
    if (rs_replay_rewrite(rw, b->data, b->len, b->linktype, &o, err) != 0)
        fail_msg("%s", err);
    decode(b);
    assert_false(b->pkt.flags & RS_PKT_MALFORMED);
}

/* Rewrites b by rw, which must fail with a message holding why, leaving b as it was. */
static void
refused(struct built *b, const struct rs_replay_rewrite *rw, const char *why)
{
    uint8_t before[RS_INJECT_MAX_FRAME];
    char err[RS_ERRBUF_SIZE] = "";

    memcpy(before, b->data, b->len);
    assert_int_equal(rs_replay_rewrite(rw, b->data, b->len, b->linktype, NULL, err), RS_EINVAL);
    if (strstr(err, why) == NULL)
        fail_msg("'%s' does not say '%s'", err, why);
    assert_memory_equal(b->data, before, b->len);
}

static const uint8_t *
at(const struct built *b, enum rs_layer layer)
{
    assert_true(rs_packet_has(&b->pkt, layer));
    return rs_packet_at(&b->pkt, layer);
}

static uint32_t
psn_of(const struct built *b)
{
    return rs_load_be24(at(b, RS_LAYER_BTH) + 9);
}

/* The RFC 1071 sum of what is covered, checksum included: 0xffff when it is right. */
static uint32_t
csum_add(uint32_t sum, const uint8_t *p, uint32_t len)
{
    for (uint32_t i = 0; i < len; i += 2)
        sum += (uint32_t)p[i] << 8 | (i + 1 < len ? p[i + 1] : 0);
    return sum;
}

static uint16_t
csum_fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)sum;
}

static void
assert_ipv4_checksum(const struct built *b)
{
    assert_int_equal(csum_fold(csum_add(0, at(b, RS_LAYER_IPV4), RS_IPV4_HDR_LEN)), 0xffff);
}

/* The IPv6 UDP checksum over the pseudo-header of RFC 8200 8.1. */
static void
assert_udp6_checksum(const struct built *b)
{
    const uint8_t *ip = at(b, RS_LAYER_IPV6), *udp = at(b, RS_LAYER_UDP);
    uint16_t len = rs_load_be16(udp + 4);
    uint8_t tail[4] = {0, 0, 0, 17};
    uint8_t ulen[4] = {0, 0, (uint8_t)(len >> 8), (uint8_t)len};

    uint32_t sum = csum_add(0, ip + 8, 32);
    sum = csum_add(sum, ulen, 4);
    sum = csum_add(sum, tail, 4);
    assert_int_not_equal(rs_load_be16(udp + 6), 0);
    assert_int_equal(csum_fold(csum_add(sum, udp, len)), 0xffff);
}

#define WRITE_SPEC                                                                         \
    "eth / ip(src=10.0.0.1, dst=10.0.0.2, id=0x1234, flags.df=0) / udp(checksum=0x5555) / "     \
    "bth(opcode=\"RC RDMA Write Only\", destqp=0x11, psn=100) / "                          \
    "reth(va=0x1000, r_key=0x1234, dmalen=64) / payload(len=64)"

/* Everything at once on an RDMA WRITE over IPv4. */
static void
test_write_all_fields(void **state)
{
    static struct built b;
    struct rs_replay_rewrite rw;
    static const uint8_t mac_src[6] = {0x0a, 1, 2, 3, 4, 5}, mac_dst[6] = {0x0a, 6, 7, 8, 9, 10};

    (void)state;
    build(&b, WRITE_SPEC);
    assert_int_equal(rs_load_be16(at(&b, RS_LAYER_UDP) + 6), 0x5555);
    uint8_t payload[64];
    memcpy(payload, at(&b, RS_LAYER_PAYLOAD), 64);

    memset(&rw, 0, sizeof(rw));
    rw.family = 4;
    rw.set_src = rw.set_dst = true;
    memcpy(rw.src, (const uint8_t[]){192, 168, 1, 1}, 4);
    memcpy(rw.dst, (const uint8_t[]){192, 168, 1, 2}, 4);
    rw.set_eth_src = rw.set_eth_dst = true;
    memcpy(rw.eth_src, mac_src, 6);
    memcpy(rw.eth_dst, mac_dst, 6);
    rw.set_sport = true;
    rw.sport = 50001;
    rw.qpmap[rw.n_qpmap++] = (struct rs_replay_map){0x22, 0x77};
    rw.qpmap[rw.n_qpmap++] = (struct rs_replay_map){0x11, 0xabcdef};
    rw.rkeymap[rw.n_rkeymap++] = (struct rs_replay_map){0x1234, 0xfeedbeef};
    rw.psn_offset = 1000;
    rw.va_offset = 0x7f0000000000;
    rw.set_pkey = true;
    rw.pkey = 0x8001;
    rw.udp_socket = true;
    rewrite(&b, &rw);

    const uint8_t *eth = at(&b, RS_LAYER_ETH), *ip = at(&b, RS_LAYER_IPV4);
    const uint8_t *udp = at(&b, RS_LAYER_UDP), *bth = at(&b, RS_LAYER_BTH);
    const uint8_t *reth = at(&b, RS_LAYER_RETH);
    assert_memory_equal(eth, mac_dst, 6);
    assert_memory_equal(eth + 6, mac_src, 6);
    assert_memory_equal(ip + 12, rw.src, 4);
    assert_memory_equal(ip + 16, rw.dst, 4);
    assert_int_equal(rs_load_be16(ip + 4), 0);          /* udp_socket: id 0, DF */
    assert_int_equal(rs_load_be16(ip + 6), 0x4000);
    assert_ipv4_checksum(&b);
    assert_int_equal(rs_load_be16(udp), 50001);
    assert_int_equal(rs_load_be16(udp + 2), RS_ROCEV2_UDP_PORT);
    assert_int_equal(rs_load_be16(udp + 6), 0);         /* stale on IPv4: none */
    assert_int_equal(rs_load_be16(bth + 2), 0x8001);
    assert_int_equal(rs_load_be24(bth + 5), 0xabcdef);
    assert_int_equal(psn_of(&b), 1100);
    assert_int_equal(rs_load_be64(reth), 0x7f0000001000);
    assert_int_equal(rs_load_be32(reth + 8), 0xfeedbeef);
    assert_int_equal(rs_load_be32(reth + 12), 64);      /* the DMA length stays */
    assert_memory_equal(at(&b, RS_LAYER_PAYLOAD), payload, 64);
    assert_int_equal(b.pkt.icrc_status, RS_CKSUM_GOOD);
}

/* Unmapped QPs and R_Keys stay; the PSN wraps at 2^24, the VA at 2^64; nothing set,
 * nothing changes but what the maps and offsets say. */
static void
test_misses_and_wrap(void **state)
{
    static struct built b;
    static uint8_t before[RS_INJECT_MAX_FRAME];
    struct rs_replay_rewrite rw;

    (void)state;
    build(&b, "eth / ip / udp / bth(opcode=\"RC RDMA Write Only\", destqp=0x11, "
              "psn=0xfffffe, p_key=0x7fff) / reth(va=0xfffffffffffff000, r_key=0x99, "
              "dmalen=8) / payload(len=8)");
    memcpy(before, b.data, b.len);
    memset(&rw, 0, sizeof(rw));
    rw.qpmap[rw.n_qpmap++] = (struct rs_replay_map){0x12, 0x13};
    rw.rkeymap[rw.n_rkeymap++] = (struct rs_replay_map){0x98, 0x1};
    rw.psn_offset = 5;
    rw.va_offset = 0x2000;
    rewrite(&b, &rw);
    const uint8_t *bth = at(&b, RS_LAYER_BTH), *reth = at(&b, RS_LAYER_RETH);
    assert_int_equal(rs_load_be24(bth + 5), 0x11);
    assert_int_equal(rs_load_be16(bth + 2), 0x7fff);
    assert_int_equal(psn_of(&b), 3);
    assert_int_equal(bth[8] & 0x7f, 0);                 /* the PSN's neighbours stay */
    assert_int_equal(rs_load_be64(reth), 0x1000);
    assert_int_equal(rs_load_be32(reth + 8), 0x99);
    assert_int_equal(b.pkt.icrc_status, RS_CKSUM_GOOD);
    /* Only the BTH, the RETH and the ICRC differ. */
    uint32_t bth_off = b.pkt.span[RS_LAYER_BTH].off;
    assert_memory_equal(b.data, before, bth_off + 9);
    assert_memory_equal(b.data + bth_off + RS_BTH_LEN + RS_RETH_LEN,
                        before + bth_off + RS_BTH_LEN + RS_RETH_LEN,
                        b.pkt.span[RS_LAYER_ICRC].off - bth_off - RS_BTH_LEN - RS_RETH_LEN);
}

/* The AtomicETH's VA and R_Key, as the RETH's. */
static void
test_atomics(void **state)
{
    static struct built b;
    struct rs_replay_rewrite rw;
    static const char *const specs[] = {
        "eth / ip / udp / bth(opcode=\"RC Fetch Add\", destqp=0x11, psn=7) / "
        "atomiceth(va=0x10, r_key=0x4242, swapdt=1)",
        "eth / ip / udp / bth(opcode=\"RC Compare Swap\", destqp=0x11, psn=7) / "
        "atomiceth(va=0x10, r_key=0x4242, swapdt=2, cmpdt=3)",
    };

    (void)state;
    for (size_t i = 0; i < RS_ARRAY_SIZE(specs); i++) {
        build(&b, specs[i]);
        memset(&rw, 0, sizeof(rw));
        rw.rkeymap[rw.n_rkeymap++] = (struct rs_replay_map){0x1, 0x2};
        rw.rkeymap[rw.n_rkeymap++] = (struct rs_replay_map){0x4242, 0x5151};
        rw.va_offset = (uint64_t)-0x8;  /* a move down */
        rewrite(&b, &rw);
        const uint8_t *a = at(&b, RS_LAYER_ATOMICETH);
        assert_int_equal(rs_load_be64(a), 0x8);
        assert_int_equal(rs_load_be32(a + 8), 0x5151);
        assert_int_equal(rs_load_be64(a + 12), i + 1);  /* the operands stay */
        assert_int_equal(b.pkt.icrc_status, RS_CKSUM_GOOD);
    }
}

/* IPv6 addresses; the UDP checksum, which IPv6 must have, is computed again. */
static void
test_ipv6(void **state)
{
    static struct built b;
    struct rs_replay_rewrite rw;
    static const uint8_t src[16] = {0xfd, 0, [15] = 0x21}, dst[16] = {0xfd, 0, [15] = 0x22};

    (void)state;
    build(&b, "eth / ipv6(src=fd00::1, dst=fd00::2) / udp / "
              "bth(opcode=\"RC Send Only\", destqp=0x11, psn=1) / payload(len=13)");
    assert_udp6_checksum(&b);
    memset(&rw, 0, sizeof(rw));
    rw.family = 6;
    rw.set_src = rw.set_dst = true;
    memcpy(rw.src, src, 16);
    memcpy(rw.dst, dst, 16);
    rw.set_sport = true;
    rw.sport = 1;
    rw.psn_offset = 1;
    rw.udp_socket = true;       /* nothing to do on IPv6 */
    rewrite(&b, &rw);
    const uint8_t *ip = at(&b, RS_LAYER_IPV6);
    assert_memory_equal(ip + 8, src, 16);
    assert_memory_equal(ip + 24, dst, 16);
    assert_int_equal(rs_load_be16(at(&b, RS_LAYER_UDP)), 1);
    assert_int_equal(psn_of(&b), 2);
    assert_int_equal(b.pkt.icrc_status, RS_CKSUM_GOOD);
    assert_udp6_checksum(&b);

    /* An IPv4 address for an IPv6 capture, and the other way round. */
    rw.family = 4;
    refused(&b, &rw, "the capture is IPv6, the address IPv4");
    build(&b, WRITE_SPEC);
    rw.family = 6;
    refused(&b, &rw, "the capture is IPv4, the address IPv6");
    rw.set_src = rw.set_dst = false;    /* no addresses: the family does not matter */
    rewrite(&b, &rw);
}

/* keep_icrc: the captured ICRC stays, now wrong; the IPv4 checksum is still made right. */
static void
test_keep_icrc(void **state)
{
    static struct built b;
    struct rs_replay_rewrite rw;
    uint8_t icrc[4];

    (void)state;
    build(&b, WRITE_SPEC);
    memcpy(icrc, at(&b, RS_LAYER_ICRC), 4);
    uint8_t mac_dst[6];
    memcpy(mac_dst, at(&b, RS_LAYER_ETH), 6);
    memset(&rw, 0, sizeof(rw));
    rw.set_eth_src = true;      /* and only it */
    memset(rw.eth_src, 0x0e, 6);
    rw.psn_offset = 1;
    rw.udp_socket = true;
    rw.keep_icrc = true;
    rewrite(&b, &rw);
    assert_int_equal(psn_of(&b), 101);
    assert_memory_equal(at(&b, RS_LAYER_ICRC), icrc, 4);
    assert_int_equal(b.pkt.icrc_status, RS_CKSUM_BAD);
    assert_ipv4_checksum(&b);
    assert_memory_equal(at(&b, RS_LAYER_ETH), mac_dst, 6);
    assert_memory_equal(at(&b, RS_LAYER_ETH) + 6, rw.eth_src, 6);

    /* Without it, the ICRC follows. */
    rw.keep_icrc = false;
    rewrite(&b, &rw);
    assert_int_equal(psn_of(&b), 102);
    assert_int_equal(b.pkt.icrc_status, RS_CKSUM_GOOD);
}

/* RoCEv1: the GIDs, an IPv4 address as ::ffff:a.b.c.d. */
static void
test_rocev1_gids(void **state)
{
    static struct built b;
    struct rs_replay_rewrite rw;
    static const uint8_t mapped[16] = {[10] = 0xff, 0xff, 10, 9, 8, 7};
    static const uint8_t gid6[16] = {0xfe, 0x80, [8] = 0x02, [15] = 0x99};

    (void)state;
    build(&b, "eth / grh / bth(opcode=\"RC Send Only\", destqp=0x11, psn=5) / payload(len=5)");
    assert_int_equal(b.pkt.encap, RS_ENCAP_ROCEV1);
    uint8_t dgid[16];
    memcpy(dgid, at(&b, RS_LAYER_GRH) + 24, 16);
    memset(&rw, 0, sizeof(rw));
    rw.family = 4;
    rw.set_src = true;
    memcpy(rw.src, (const uint8_t[]){10, 9, 8, 7}, 4);
    rw.qpmap[rw.n_qpmap++] = (struct rs_replay_map){0x11, 0x12};
    rewrite(&b, &rw);
    assert_memory_equal(at(&b, RS_LAYER_GRH) + 8, mapped, 16);
    assert_memory_equal(at(&b, RS_LAYER_GRH) + 24, dgid, 16);
    assert_int_equal(rs_load_be24(at(&b, RS_LAYER_BTH) + 5), 0x12);
    assert_int_equal(b.pkt.icrc_status, RS_CKSUM_GOOD);

    rw.family = 6;
    rw.set_src = false;
    rw.set_dst = true;
    memcpy(rw.dst, gid6, 16);
    rewrite(&b, &rw);
    assert_memory_equal(at(&b, RS_LAYER_GRH) + 8, mapped, 16);
    assert_memory_equal(at(&b, RS_LAYER_GRH) + 24, gid6, 16);
    assert_int_equal(b.pkt.icrc_status, RS_CKSUM_GOOD);
}

/* A raw IPv4 capture: no MACs to set, the rest as over Ethernet. */
static void
test_raw_ipv4(void **state)
{
    static struct built b;
    struct rs_replay_rewrite rw;

    (void)state;
    build(&b, WRITE_SPEC);
    b.data += b.pkt.span[RS_LAYER_IPV4].off;
    b.len -= b.pkt.span[RS_LAYER_IPV4].off;
    b.linktype = RS_DLT_IPV4;
    memset(&rw, 0, sizeof(rw));
    rw.family = 4;
    rw.set_dst = true;
    memcpy(rw.dst, (const uint8_t[]){172, 16, 0, 1}, 4);
    rw.set_eth_dst = true;
    rw.psn_offset = 2;
    rewrite(&b, &rw);
    assert_memory_equal(at(&b, RS_LAYER_IPV4) + 16, rw.dst, 4);
    assert_int_equal(psn_of(&b), 102);
    assert_ipv4_checksum(&b);
    assert_int_equal(b.pkt.icrc_status, RS_CKSUM_GOOD);
}

/* Native InfiniBand: the BTH and the VCRC, but no addresses. */
static void
test_native_ib(void **state)
{
    static struct built b;
    struct rs_replay_rewrite rw;

    (void)state;
    build(&b, "lrh(dlid=2, slid=1) / bth(opcode=\"RC Send Only\", destqp=0x11, psn=9) / "
              "payload(len=4)");
    assert_int_equal(b.pkt.vcrc_status, RS_CKSUM_GOOD);
    memset(&rw, 0, sizeof(rw));
    rw.psn_offset = 1;
    rw.qpmap[rw.n_qpmap++] = (struct rs_replay_map){0x11, 0x44};
    rewrite(&b, &rw);
    assert_int_equal(psn_of(&b), 10);
    assert_int_equal(rs_load_be24(at(&b, RS_LAYER_BTH) + 5), 0x44);
    assert_int_equal(b.pkt.icrc_status, RS_CKSUM_GOOD);
    assert_int_equal(b.pkt.vcrc_status, RS_CKSUM_GOOD);

    rw.keep_icrc = true;        /* the VCRC stays too */
    rewrite(&b, &rw);
    assert_int_equal(b.pkt.icrc_status, RS_CKSUM_BAD);
    assert_int_equal(b.pkt.vcrc_status, RS_CKSUM_BAD);

    rw.family = 4;
    rw.set_dst = true;
    refused(&b, &rw, "no addresses to rewrite in native InfiniBand");
}

/* What is no RoCE packet, or not all of one, is left alone. */
static void
test_refused(void **state)
{
    static struct built b;
    struct rs_replay_rewrite rw;

    (void)state;
    memset(&rw, 0, sizeof(rw));
    rw.psn_offset = 1;
    /* UDP to another port. */
    build_any(&b, "eth / ip / udp(dstport=4792) / bth / payload(len=4)");
    refused(&b, &rw, "not a RoCE packet");
    /* An ARP frame. */
    memset(b.buf, 0, 60);
    b.data = b.buf;
    b.len = 60;
    rs_store_be16(b.buf + 12, 0x0806);
    refused(&b, &rw, "not a RoCE packet");
    /* A RETH the capture cut short: its ICRC was not captured either. */
    build(&b, WRITE_SPEC);
    b.len = b.pkt.span[RS_LAYER_RETH].off + 8;
    refused(&b, &rw, "malformed RoCE packet");
    /* The last bytes cut: what looks like the ICRC is the payload's. */
    build(&b, WRITE_SPEC);
    b.len -= 2;
    refused(&b, &rw, "malformed RoCE packet");
    /* A reserved opcode: its headers are unknown. */
    build(&b, "eth / ip / udp / bth / payload(len=4)");
    b.data[b.pkt.span[RS_LAYER_BTH].off] = 0x1f;
    refused(&b, &rw, "malformed RoCE packet: reserved BTH opcode");
}

static void
test_map_add(void **state)
{
    struct rs_replay_map maps[RS_REPLAY_MAX_MAPS];
    unsigned n = 0;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    assert_int_equal(rs_replay_map_add(maps, &n, "0x11:0x22", 0xffffff, err), 0);
    assert_int_equal(rs_replay_map_add(maps, &n, "17:0XABCDEF", 0xffffff, err), 0);
    assert_int_equal(rs_replay_map_add(maps, &n, "010:0", 0xffffff, err), 0);  /* not octal */
    assert_int_equal(rs_replay_map_add(maps, &n, "0xffffffff:4294967295", UINT32_MAX, err), 0);
    assert_int_equal(n, 4);
    assert_int_equal(maps[0].from, 0x11);
    assert_int_equal(maps[0].to, 0x22);
    assert_int_equal(maps[1].from, 17);
    assert_int_equal(maps[1].to, 0xabcdef);
    assert_int_equal(maps[2].from, 10);
    assert_int_equal(maps[2].to, 0);
    assert_int_equal(maps[3].from, UINT32_MAX);
    assert_int_equal(maps[3].to, UINT32_MAX);

    static const char *const bad[] = {
        "", "1", "1:", ":1", "1:2:3", "1::2", "-1:2", "1:-2", "+1:2", " 1:2", "1:2 ", "0x:1",
        "1:0x", "0x1g:2", "1:2x", "a:b", "1.5:2",
    };
    for (size_t i = 0; i < RS_ARRAY_SIZE(bad); i++) {
        assert_int_equal(rs_replay_map_add(maps, &n, bad[i], 0xffffff, err), RS_EINVAL);
        if (strstr(err, "OLD:NEW expected") == NULL)
            fail_msg("'%s': %s", bad[i], err);
    }
    static const char *const large[] = {
        "0x1000000:1", "1:16777216", "99999999999999999999999:1", "0x10000000000000000:1",
    };
    for (size_t i = 0; i < RS_ARRAY_SIZE(large); i++) {
        assert_int_equal(rs_replay_map_add(maps, &n, large[i], 0xffffff, err), RS_EINVAL);
        if (strstr(err, "value too large") == NULL)
            fail_msg("'%s': %s", large[i], err);
    }
    assert_int_equal(n, 4);

    while (n < RS_REPLAY_MAX_MAPS)
        assert_int_equal(rs_replay_map_add(maps, &n, "1:2", 0xffffff, err), 0);
    assert_int_equal(rs_replay_map_add(maps, &n, "1:2", 0xffffff, err), RS_EINVAL);
    assert_non_null(strstr(err, "more than 16 maps"));
    assert_int_equal(n, RS_REPLAY_MAX_MAPS);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_all_fields),
        cmocka_unit_test(test_misses_and_wrap),
        cmocka_unit_test(test_atomics),
        cmocka_unit_test(test_ipv6),
        cmocka_unit_test(test_keep_icrc),
        cmocka_unit_test(test_rocev1_gids),
        cmocka_unit_test(test_raw_ipv4),
        cmocka_unit_test(test_native_ib),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_map_add),
    };
    GRand *rng = g_rand_new_with_seed(1);

    inject_run.rng = rng;
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    g_rand_free(rng);
    return rc;
}
