# SPDX-License-Identifier: GPL-2.0-or-later
"""Display filters: each filter of FILTERS on a few captures, the frames it keeps. A case is
one filter on one capture; it is identical when read keeps the same frames as tshark: the
same count and bytes, and the same count and bytes of those with an odd frame number. Both
tools answer every filter of a capture in one run: -z io,stat with two columns per filter,
the filter and the filter on odd frames (read's io,stat compiles its columns as -Y does).
ALONE's filters are run with -Y, once each."""
import re

import paritylib as pl

FAMILY = "filters"

# Typed filters of tshark 4.0's language over the layers read dissects: each type's
# comparisons, sets, slices, functions, arithmetic, any/all, bitwise and, time literals,
# and protocol names read identifies without dissecting.
FILTERS = [
    # frame: integers, times, strings, booleans, arithmetic
    "frame.len > 100", "frame.len <= 64", "frame.len == 60", "frame.cap_len != frame.len",
    "frame.len % 2 == 0", "frame.len * 2 > 300", "frame.len - 14 >= 100",
    "frame.len / 4 == 15", "-frame.len < -1000", "frame.number in {10..20}",
    "frame.time_delta > 0.001", "frame.time_delta == 0", "frame.time_relative >= 1",
    "frame.time >= \"2000-01-01 00:00:00\"",
    "frame.time < \"2000-01-01 00:00:00\"", "frame.time_epoch > 1600000000",
    "frame.marked", "!frame.ignored", "frame.protocols contains \"tcp\"",
    "frame.protocols matches \"^eth:ethertype:ip\"", "frame.protocols ~ \"infiniband$\"",
    "len(frame.protocols) > 20", "frame.interface_id == 0", "frame.encap_type == 1",
    # Ethernet: addresses, slices, bitwise and, resolution
    "eth", "eth.type == 0x0800", "eth.type == 0x86dd",
    "eth.dst == ff:ff:ff:ff:ff:ff", "eth.addr == ff:ff:ff:ff:ff:ff", "eth.dst.ig",
    "eth.dst[0] & 1", "eth.src[0:3] == 00:00:00", "eth.src[1] == 0x15", "eth.dst.lg == 0",
    "eth.src.oui > 0", "eth.addr_resolved contains \"Broadcast\"", "eth.padding",
    "eth.trailer", "eth.src ~= eth.dst", "eth.src != eth.dst",
    # IPv4 and IPv6: addresses, subnets, flags
    "ip", "ip.version == 4", "ip.version == 6", "ip.src == 192.168.0.0/16",
    "ip.addr == 10.0.0.0/8", "ip.flags.df",
    "ip.flags.df == 0", "ip.ttl < 64", "ip.ttl == 64", "ip.proto == 17", "ip.proto == 6",
    "ip.dsfield.ecn == 3", "ip.dsfield.dscp != 0", "ip.len > 1000", "ip.id & 0x1 == 1",
    "ip.checksum.status == 2", "ip.hdr_len == 20", "ip.src ~= ip.dst", "ip.src[3] == 1",
    "ipv6", "ipv6.nxt == 17", "ipv6.hlim == 64", "ipv6.src == fe80::/10",
    "ipv6.addr == ::1", "ipv6.flow != 0", "ipv6.version == 6", "ipv6.hopopts",
    # UDP and TCP
    "udp", "udp.port == 4791", "udp.dstport == 4791 && udp.srcport != 4791",
    "udp.length > 100", "udp.checksum == 0", "udp.payload", "udp contains ff:ff",
    "udp.stream == 0", "udp.time_relative > 0", "tcp",
    "tcp.flags.syn == 1", "tcp.flags.syn && !tcp.flags.ack", "tcp.flags.reset",
    "tcp.flags & 0x12 == 0x12", "tcp.len > 0", "tcp.len == 0", "tcp.seq == 1",
    "tcp.ack > 1000", "tcp.stream == 1", "tcp.stream in {0..3}",
    "tcp.analysis.retransmission", "tcp.analysis.duplicate_ack", "tcp.analysis.flags",
    "tcp.analysis.ack_rtt > 0.001", "tcp.analysis.bytes_in_flight > 1000",
    "tcp.options.mss_val == 1460", "tcp.options.sack_le", "tcp.window_size_value > 500",
    "tcp.flags.str contains \"A\"", "tcp contains 00:00", "tcp.payload[0] == 0x16",
    # the protocols around RDMA, named without dissecting
    "arp", "arp.opcode == 1", "arp.isgratuitous", "icmp", "icmp.type == 8",
    "!(arp || dns || icmp)", "dns", "tls", "http", "ssh", "ntp", "dhcp", "mdns",
    "llc", "lldp", "stp", "cdp",
    # RoCE and InfiniBand
    "infiniband", "infiniband.bth.opcode == 4", "infiniband.bth.opcode in {0..5}",
    "infiniband.bth.destqp == 1", "infiniband.bth.psn > 1000", "infiniband.bth.se",
    "infiniband.bth.m == 0", "infiniband.bth.a", "infiniband.reth.dmalen > 4096",
    "infiniband.aeth.syndrome & 0x60 == 0x60", "infiniband.aeth", "infiniband.deth.q_key",
    "infiniband.grh", "infiniband.lrh.dlid == 0xffff", "infiniband.lrh.vl == 15",
    "infiniband.invariant.crc", "infiniband.bth.p_key == 0xffff",
    "any infiniband.bth.opcode == 17", "all udp.port == 4791",
    "infiniband.bth.opcode >= 6 and infiniband.bth.opcode <= 8",
    "infiniband.bth.psn + 1 > 100", "infiniband.bth[0] == 0x04",
    # iWARP
    "iwarp_mpa", "iwarp_ddp", "iwarp_rdma", "iwarp_ddp.tagged_flag",
    "iwarp_rdma.opcode == 0", "iwarp_ddp.stag > 0", "iwarp_mpa.ulpdulength > 100",
    # data, and what every frame has
    "data", "data.len > 100", "data.data contains 00", "frame", "!frame",
    "upper(frame.protocols) contains \"UDP\"", "lower(frame.protocols) contains \"tcp\"",
    "count(eth.addr) == 2", "len(eth.dst) == 6", "string(frame.number) matches \"^1\"",
]
# One tshark run each, on the first capture alone: sets with commas, which -z io,stat cannot
# take (it cuts its argument at commas), and the time since the frame shown before, which
# depends on the display filter itself.
ALONE = ["frame.time_delta_displayed < 0.0001", "frame.number in {1, 3, 5, 7}", "frame.number in {1, 2, 100..200}",
               "eth.type in {0x0806, 0x8915}", "ip.dst in {192.168.1.1, 192.168.1.2}",
               "tcp.port in {22, 80, 443}", "infiniband.bth.opcode in {4, 6..12}"]
IO_ROW = re.compile(r"^\|\s*[\d.]+ <> [\d.]+ \|(.*)\|\s*$")
# The captures: RoCE with TCP, TLS, HTTP, DNS and ARP (NCCL), native InfiniBand with IPoIB,
# RDMA CM, and iWARP where the extra captures hold it.
CAPTURES = ["pcap_nccl_nccl_node0.pcap", "infiniband.pcap", "pcap_rdma_cm.pcap",
            "uiwarp__422babab.pcap"]


def io_columns():
    """-z io,stat's argument: two columns per filter of FILTERS."""
    cols = []
    for f in FILTERS:
        cols += [f, "(%s) && frame.number %% 2 == 1" % f]
    return "io,stat,0," + ",".join(cols)


def io_counts(p, who, path):
    """[(frames, bytes, odd frames, odd bytes)] of FILTERS from an io,stat run."""
    rows = [m.group(1) for m in map(IO_ROW.match, p.stdout.splitlines()) if m]
    if p.returncode != 0 or len(rows) != 1:
        raise RuntimeError("%s io,stat on %s: exit %d, %s" %
                           (who, pl.short(path), p.returncode, p.stderr.strip()[:200]))
    values = [int(v) for v in rows[0].replace("|", " ").split()]
    return [tuple(values[4 * i:4 * i + 4]) for i in range(len(FILTERS))]


def tshark_counts(ctx, path):
    return io_counts(ctx.tshark(["-r", path, "-q", "-z", io_columns()] + ctx.tshark_flags(path)),
                     "tshark", path)


def read_all_counts(ctx, path):
    return io_counts(ctx.read(["-r", path, "-q", "-z", io_columns()]), "read", path)


def tshark_alone_counts(ctx, path, flt):
    p = ctx.tshark(["-r", path, "-Y", flt, "-T", "fields", "-e", "frame.number", "-e",
                    "frame.len"] + ctx.tshark_flags(path))
    rows = [line.split("\t") for line in p.stdout.splitlines()]
    return (len(rows), sum(int(r[1]) for r in rows), sum(int(r[0]) for r in rows))


def read_counts(ctx, path, flt):
    p = ctx.read(["-r", path, "-Y", flt, "-T", "fields", "-e", "frame.number", "-e",
                  "frame.len"])
    if p.returncode != 0:
        return ("exit %d" % p.returncode,)
    rows = [line.split("\t") for line in p.stdout.splitlines()]
    return (len(rows), sum(int(r[1]) for r in rows), sum(int(r[0]) for r in rows))


def run(ctx):
    def one(path):
        want, got = tshark_counts(ctx, path), read_all_counts(ctx, path)
        identical, failures = 0, []
        for flt, w, g in zip(FILTERS, want, got):
            if g == w:
                identical += 1
            else:
                failures.append("%s %s: tshark %s, read %s" % (pl.short(path), flt, w, g))
        return identical, len(FILTERS), failures
    paths = ctx.sample(CAPTURES)
    results = ctx.map(one, paths)
    first = (ctx.named(CAPTURES[:1]) or paths)[0]
    for flt in ALONE:
        w, got = tshark_alone_counts(ctx, first, flt), read_counts(ctx, first, flt)
        results.append((1, 1, []) if w == got else
                       (0, 1, ["%s %s: tshark %s, read %s" % (pl.short(first), flt, w, got)]))
    return pl.add(results)
