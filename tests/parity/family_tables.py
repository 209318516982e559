# SPDX-License-Identifier: GPL-2.0-or-later
"""-z tables: conversations and endpoints of each address type, io,phs, io,stat and expert,
all of a capture's in one run of each tool (tshark prints them last asked first, read
first asked first: they are matched by title); read's with --compat tshark, which makes
its expert table tshark's. A case is one table on one capture,
identical when its text is."""
import paritylib as pl

FAMILY = "tables"

STATS = ["conv,eth", "conv,ip", "conv,ipv6", "conv,udp", "conv,tcp", "endpoints,eth",
         "endpoints,ip", "endpoints,ipv6", "endpoints,udp", "endpoints,tcp", "io,phs",
         "io,stat,1", "expert"]
# TCP with HTTP, TLS and retransmissions (NCCL), native InfiniBand with IPoIB and ICMP,
# RoCE with TCP, RDMA CM, IPv6 over RoCE (montybeatnik's, when the extra captures hold it).
CAPTURES = ["pcap_nccl_nccl_node0.pcap", "infiniband.pcap", "pcap_pingpong_ud.pcap",
            "pcap_rdma_cm.pcap", "montybeatnik_rdma-roce-lab__test.pcap"]


def run(ctx):
    args = ["-q"] + [a for z in STATS for a in ("-z", z)]

    def one(path):
        want = pl.split_tables(ctx.tshark(["-r", path] + args + ctx.tshark_flags(path)).stdout)
        got = pl.split_tables(ctx.read(["-r", path] + args + ["--compat", "tshark"]).stdout)
        identical, failures = 0, []
        for title in sorted(want):
            if got.get(title) == want[title]:
                identical += 1
            else:
                failures.append("%s %s: %s" % (pl.short(path), title, pl.first_difference(
                    want[title], got.get(title, ""))))
        return identical, len(want), failures
    return pl.add(ctx.map(one, ctx.sample(CAPTURES)))
