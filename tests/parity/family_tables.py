# SPDX-License-Identifier: GPL-2.0-or-later
"""-z tables: conversations and endpoints of each address type, io,phs, io,stat and expert,
all of a capture's in one run of each tool (tshark prints them last asked first, read
first asked first: they are matched by title); read's with --compat tshark, which makes
its expert table tshark's. A case is one table on one capture,
identical when its text is.

And read's own -z expert (without --compat tshark) on every capture: a case is a capture,
identical when, our roceshark rows aside, its rows are tshark's (severity, group,
protocol, summary and count, in tshark's order), each with its first frames."""
import re

import paritylib as pl

FAMILY = "tables"

STATS = ["conv,eth", "conv,ip", "conv,ipv6", "conv,udp", "conv,tcp", "endpoints,eth",
         "endpoints,ip", "endpoints,ipv6", "endpoints,udp", "endpoints,tcp", "io,phs",
         "io,stat,1", "expert"]
# TCP with HTTP, TLS and retransmissions (NCCL), native InfiniBand with IPoIB and ICMP,
# RoCE with TCP, RDMA CM, IPv6 over RoCE (montybeatnik's, when the extra captures hold it).
CAPTURES = ["pcap_nccl_nccl_node0.pcap", "infiniband.pcap", "pcap_pingpong_ud.pcap",
            "pcap_rdma_cm.pcap", "montybeatnik_rdma-roce-lab__test.pcap"]


# A row of read's default expert table: count, group, protocol, summary, first frames (the
# summary padded to 40 characters, then two spaces; past 5 frames, "...").
OUR_ROW = re.compile(r"^ *(\d+) +(\S+) +(\S+)  (.*\S) {2,}(\d+(?: \d+)*(?: \.\.\.)?)$")
TSHARK_ROW = re.compile(r"^ *(\d+) +(\S+) +(\S+)  (.*)$")


def expert_rows(text, row):
    """[(level, count, group, protocol, summary)] of an expert table, and how many rows did
    not parse (a read row without its first frames, or with more or fewer than its count
    gives, up to 5)."""
    rows, bad, level = [], 0, None
    for line in text.split("\n"):
        head = pl.EXPERT_HEADING.match(line)
        if head:
            level = head.group(1)
            continue
        if level is None or line.lstrip().startswith("Frequency") or pl.RULE.match(line) \
                or not line.strip():
            continue
        m = row.match(line)
        if m is None:
            bad += 1
            continue
        if row is OUR_ROW:
            frames = m.group(5).split()
            more = frames[-1] == "..."
            n = len(frames) - more
            if n != min(int(m.group(1)), 5) or more != (int(m.group(1)) > 5):
                bad += 1
        rows.append((level, int(m.group(1)), m.group(2), m.group(3), m.group(4)))
    return rows, bad


def default_expert(ctx, path):
    """read -z expert against tshark -z expert on one capture: (identical, 1, failures)."""
    want, _ = expert_rows(ctx.tshark(["-r", path, "-q", "-z", "expert"] +
                                     ctx.tshark_flags(path)).stdout, TSHARK_ROW)
    got, bad = expert_rows(ctx.read(["-r", path, "-q", "-z", "expert"]).stdout, OUR_ROW)
    theirs = [r for r in got if r[3] != "roceshark"]
    if theirs == want and bad == 0:
        return 1, 1, []
    if bad:
        return 0, 1, ["%s expert: %d rows without their first frames" % (pl.short(path), bad)]
    for i in range(max(len(want), len(theirs))):
        a = want[i] if i < len(want) else "<none>"
        b = theirs[i] if i < len(theirs) else "<none>"
        if a != b:
            return 0, 1, ["%s expert: row %d: tshark %r, read %r" % (pl.short(path), i + 1,
                                                                     a, b)]
    return 0, 1, []


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
    return pl.add(ctx.map(one, ctx.sample(CAPTURES)) +
                  ctx.map(lambda path: default_expert(ctx, path), ctx.captures))
