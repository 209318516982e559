/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_rewrite.c - a captured request readdressed to a live target (see
 * replay.h): each field written where the decoder found its header, then
 * the checksums and CRCs computed again by the encoder.
 *
 * A frame is checked whole before a byte is written, so a refused frame is
 * left as it was.
 */
#include <string.h>

#include <glib.h>

#include <roceshark/dissectors/encode.h>
#include <roceshark/dissectors/ib_headers.h>
#include <roceshark/replay/replay.h>
#include <roceshark/dissectors/wire.h>

#include "replay_int.h"

/* Decimal or 0x hex. strtoull alone would also take spaces, signs and octal. */
static bool
parse_number(const char *s, const char **end, uint64_t *v)
{
    unsigned base = 10;
    char *e;

    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (base == 16 ? !g_ascii_isxdigit(*s) : !g_ascii_isdigit(*s))
        return false;
    *v = g_ascii_strtoull(s, &e, base);   /* G_MAXUINT64 on overflow: too large below */
    *end = e;
    return true;
}

int
rs_replay_map_add(struct rs_replay_map *maps, unsigned *n, const char *arg, uint32_t max,
                  char *err)
{
    const char *end;
    uint64_t from, to;

    if (!parse_number(arg, &end, &from) || *end != ':' || !parse_number(end + 1, &end, &to) ||
        *end != '\0')
        return rs_error(err, RS_EINVAL, "'%s': OLD:NEW expected", arg);
    if (from > max || to > max)
        return rs_error(err, RS_EINVAL, "'%s': value too large (at most %#x)", arg, max);
    if (*n >= RS_REPLAY_MAX_MAPS)
        return rs_error(err, RS_EINVAL, "'%s': more than %d maps", arg, RS_REPLAY_MAX_MAPS);
    maps[*n].from = (uint32_t)from;
    maps[*n].to = (uint32_t)to;
    (*n)++;
    return 0;
}

/* v through the maps; what none maps stays. */
uint32_t
replay_map(const struct rs_replay_map *maps, unsigned n, uint32_t v)
{
    for (unsigned i = 0; i < n; i++)
        if (maps[i].from == v)
            return maps[i].to;
    return v;
}

/* The VA and R_Key that begin a RETH and an AtomicETH alike. */
static void
rewrite_remote(const struct rs_replay_rewrite *rw, uint8_t *h)
{
    rs_reth_set_va(h, rs_reth_va(h) + rw->va_offset);
    rs_reth_set_rkey(h, replay_map(rw->rkeymap, rw->n_rkeymap, rs_reth_rkey(h)));
}

/* An IP address, or a RoCEv1 GID: the IPv6 address itself, an IPv4 one as
 * ::ffff:a.b.c.d. */
static void
store_addr(uint8_t *at, bool gid, uint8_t family, const uint8_t *addr)
{
    if (gid && family == 4) {
        memset(at, 0, 10);
        at[10] = at[11] = 0xff;
        memcpy(at + 12, addr, 4);
        return;
    }
    memcpy(at, addr, family == 6 ? 16 : 4);
}

/* Where src and dst go: the IP header, or RoCEv1's GRH. RS_EINVAL when the packet
 * has no place for addresses of rw's family. */
static int
address_place(const struct rs_replay_rewrite *rw, const struct rs_packet *pkt, uint8_t **src,
              uint8_t **dst, char *err)
{
    uint8_t *d = (uint8_t *)pkt->frame->data;

    if (pkt->encap == RS_ENCAP_IB)
        return rs_error(err, RS_EINVAL, "no addresses to rewrite in native InfiniBand");
    if (rw->family != 4 && rw->family != 6)
        return rs_error(err, RS_EINVAL, "address family %u: 4 or 6 expected", rw->family);
    if (rs_packet_has(pkt, RS_LAYER_IPV4) || rs_packet_has(pkt, RS_LAYER_IPV6)) {
        bool v4 = rs_packet_has(pkt, RS_LAYER_IPV4);
        if (rw->family != (v4 ? 4 : 6))
            return rs_error(err, RS_EINVAL, "the capture is IPv%d, the address IPv%u",
                            v4 ? 4 : 6, rw->family);
        uint8_t *ip = d + pkt->span[v4 ? RS_LAYER_IPV4 : RS_LAYER_IPV6].off;
        *src = ip + (v4 ? 12 : 8);
        *dst = ip + (v4 ? 16 : 24);
        return 0;
    }
    uint8_t *grh = d + pkt->span[RS_LAYER_GRH].off;   /* RoCEv1: a BTH follows a GRH */
    *src = grh + 8;
    *dst = grh + 24;
    return 0;
}

int
rs_replay_rewrite(const struct rs_replay_rewrite *rw, uint8_t *frame, uint32_t caplen,
                  int linktype, const struct rs_decode_opts *dopts, char *err)
{
    struct rs_decode_opts o;
    struct rs_frame f;
    struct rs_packet pkt;
    uint8_t *src = NULL, *dst = NULL;

    if (dopts != NULL)
        o = *dopts;
    else
        rs_decode_opts_init(&o);
    o.verify_crc = false;   /* the CRCs are computed again anyway */
    memset(&f, 0, sizeof(f));
    f.data = frame;
    f.caplen = f.len = caplen;
    f.linktype = linktype;
    rs_decode_frame(&f, &o, &pkt);

    if (!rs_packet_has(&pkt, RS_LAYER_BTH))
        return rs_error(err, RS_EINVAL, "not a RoCE packet%s%s", pkt.problem ? ": " : "",
                        pkt.problem ? pkt.problem : "");
    /* A length that disagrees puts the ICRC, and so what it covers, in doubt. */
    if ((pkt.flags & RS_PKT_MALFORMED) || !rs_packet_has(&pkt, RS_LAYER_ICRC))
        return rs_error(err, RS_EINVAL, "malformed RoCE packet: %s",
                        pkt.problem ? pkt.problem : "no ICRC");
    if ((rw->set_src || rw->set_dst) && address_place(rw, &pkt, &src, &dst, err) != 0)
        return RS_EINVAL;

    bool gid = !rs_packet_has(&pkt, RS_LAYER_IPV4) && !rs_packet_has(&pkt, RS_LAYER_IPV6);
    if (rw->set_src)
        store_addr(src, gid, rw->family, rw->src);
    if (rw->set_dst)
        store_addr(dst, gid, rw->family, rw->dst);

    /* MACs and the port go where the frame has them: a raw IP capture has no MACs. */
    if (rs_packet_has(&pkt, RS_LAYER_ETH)) {
        uint8_t *eth = frame + pkt.span[RS_LAYER_ETH].off;
        if (rw->set_eth_dst)
            memcpy(eth, rw->eth_dst, 6);
        if (rw->set_eth_src)
            memcpy(eth + 6, rw->eth_src, 6);
    }
    if (rs_packet_has(&pkt, RS_LAYER_UDP)) {
        uint8_t *udp = frame + pkt.span[RS_LAYER_UDP].off;
        if (rw->set_sport)
            rs_store_be16(udp, rw->sport);
        /* rs_encode_finish() leaves an IPv4 UDP checksum alone, and this one covered
         * what changed: zero is "none" on IPv4, and RoCEv2 receivers ignore it anyway. */
        if (rs_packet_has(&pkt, RS_LAYER_IPV4))
            rs_store_be16(udp + 6, 0);
    }
    if (rw->udp_socket && rs_packet_has(&pkt, RS_LAYER_IPV4)) {
        uint8_t *ip = frame + pkt.span[RS_LAYER_IPV4].off;
        rs_store_be16(ip + 4, 0);
        rs_store_be16(ip + 6, 0x4000);
    }

    uint8_t *bth = frame + pkt.span[RS_LAYER_BTH].off;
    if (rw->set_pkey)
        rs_bth_set_pkey(bth, rw->pkey);
    rs_bth_set_destqp(bth, replay_map(rw->qpmap, rw->n_qpmap, rs_bth_destqp(bth)));
    rs_bth_set_psn(bth, (rs_bth_psn(bth) + rw->psn_offset) & 0xffffff);
    if (rs_packet_has(&pkt, RS_LAYER_RETH))
        rewrite_remote(rw, frame + pkt.span[RS_LAYER_RETH].off);
    if (rs_packet_has(&pkt, RS_LAYER_ATOMICETH))
        rewrite_remote(rw, frame + pkt.span[RS_LAYER_ATOMICETH].off);

    /* Nothing written decides the layout, so the spans decoded still hold. */
    rs_encode_finish(&pkt, rw->keep_icrc ? RS_ENCODE_KEEP_ICRC | RS_ENCODE_KEEP_VCRC : 0);
    return 0;
}
