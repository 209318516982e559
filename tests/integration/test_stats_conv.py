#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""-z conv,TYPE and -z endpoints,TYPE (TYPE eth, ip, ipv6, udp, tcp): byte for byte what
tshark prints, on every real capture, for every type, with and without a filter; and the
errors of a bad type or filter. -z io,phs[,FILTER] and frame.protocols: as tshark's on
every capture whose protocols we decode (tshark's heuristic InfiniBand sub-dissectors off,
as everywhere we compare with it); TLS, HTTP and TFTP over TCP and UDP are only "data" to
us. -z io,stat: tshark's box byte for byte, for whole-second, decimal and whole-capture
intervals, an interval longer than the capture, no filter, an empty one, several, and one
long enough to wrap.

tshark runs in the C locale: in one that groups thousands its byte counts read "1,267 bytes",
which roceshark never prints. Its Ethernet names come from Wireshark's manuf and wka files,
which roceshark reads too (dissectors/stats/ether_names.c)."""
import os
import re
import sys

import rstest as t

sys.path.insert(0, os.path.join(t.SOURCE_DIR, "tests", "tools"))
import fieldsdiff  # noqa: E402

TYPES = ["eth", "ip", "ipv6", "udp", "tcp"]
ENV = dict(os.environ, LC_ALL="C")


def tshark(path, *specs, heur=False):
    """tshark's tables for specs, in that order (it prints the last -z first); heur: its
    heuristic InfiniBand sub-dissectors off."""
    extra = t.EXTRA_CAPTURES.get(os.path.basename(path), "").split()
    args = ["tshark", "-r", path, "-q"] + extra + (HEUR if heur else [])
    for spec in reversed(specs):
        args += ["-z", spec]
    out = t.run(args, env=ENV).stdout
    return "".join(l for l in out.splitlines(True) if not l.startswith("Running as user"))


def roceshark(path, *specs):
    args = [t.ROCESHARK, "read", "-r", path, "-q"]
    for spec in specs:
        args += ["-z", spec]
    return t.run(args).stdout


def tables(out):
    """The tables of an output, each from its opening rule to its closing one."""
    return re.findall(r"^={80}\n.*? (?:Conversations|Endpoints)\n.*?^={80}\n", out, re.M | re.S)


def compare(path, *specs, heur=False):
    """Every spec at once, each tool run once: a tshark start costs a processor second."""
    want, got = tshark(path, *specs, heur=heur), roceshark(path, *specs)
    return t.check(got == want, "%s -z %s: differs from tshark's\n--- tshark\n%s--- roceshark\n%s"
                   % (os.path.basename(path), " -z ".join(specs), want, got))


def phs_block(out):
    """The protocol hierarchy of an output, from its opening rule to its closing one."""
    m = re.search(r"^=+\nProtocol Hierarchy Statistics\n.*?^=+\n", out, re.M | re.S)
    return m.group(0) if m else ""


def same_chains(path):
    """frame.protocols frame by frame as tshark's."""
    extra = t.EXTRA_CAPTURES.get(os.path.basename(path), "")
    t.check(t.roceshark_fields(path, ["frame.protocols"]) ==
            t.tshark_fields(path, ["frame.protocols"], extra),
            "%s: frame.protocols differs from tshark's" % os.path.basename(path))


def grouped(runs):
    """[(path, spec)] as [(path, [spec, ...])], in the order the paths first come."""
    groups = {}
    for path, spec in runs:
        groups.setdefault(path, []).append(spec)
    return list(groups.items())


# Every type, conversations and endpoints, and on every other capture the protocol
# hierarchy: each capture read once by each tool. The hierarchy is byte for byte tshark's
# where every protocol in the capture is one we decode; TLS, HTTP and TFTP are only data to
# us. tshark's heuristic InfiniBand sub-dissectors are off, as everywhere we compare with it
# (they change no conversation or endpoint table).
SPECS = ["%s,%s" % (kind, typ) for kind in ("conv", "endpoints") for typ in TYPES]
HEUR = [a for h in fieldsdiff.TSHARK_IB_HEURISTICS for a in ("--disable-heuristic", h)]
UNDECODED = re.compile(r"^ *(tls|http|tftp) ", re.M)
captures = t.real_captures()
tabled, phs_on = captures, captures[::2]
if t.BUILT.get("sanitize"):
    # tshark's side is the same as in the normal run: a third of the captures run every
    # table's code instrumented, and the hierarchy's on every other one as before.
    tabled = captures[::3]
same = rows = phs_same = phs_runs = chains = 0
for path in (p for p in captures if p in tabled or p in phs_on):
    name = os.path.basename(path)
    specs = (SPECS if path in tabled else []) + (["io,phs"] if path in phs_on else [])
    want_out, got_out = tshark(path, *specs, heur=True), roceshark(path, *specs)
    if path in tabled:
        want, got = tables(want_out), tables(got_out)
        t.check(len(want) == len(SPECS) and len(got) == len(SPECS),
                "%s: %d tables from tshark, %d from roceshark" % (name, len(want), len(got)))
        for spec, w, g in zip(SPECS, want, got):
            same += t.check(g == w, "%s -z %s: differs from tshark's\n--- tshark\n%s"
                            "--- roceshark\n%s" % (name, spec, w, g))
            rows += g.count("<->")
    if path in phs_on:
        want, got = phs_block(want_out), phs_block(got_out)
        t.check(want != "", "%s: no protocol hierarchy from tshark" % name)
        if UNDECODED.search(want):
            continue
        phs_runs += 1
        phs_same += t.check(got == want, "%s -z io,phs: differs from tshark's\n--- tshark\n%s"
                            "--- roceshark\n%s" % (name, want, got))
        # frame.protocols on every other one; under the sanitizers on every one (they are a
        # sixth of them), so that a clone without the extra captures still compares three.
        if phs_runs % 2 == 1 or t.BUILT.get("sanitize"):
            chains += 1
            same_chains(path)
t.check(rows > (60 if t.BUILT.get("sanitize") else 200),
        "only %d conversation rows in all: the captures are not being read" % rows)
print("%d of %d tables as tshark's, %d captures" % (same, len(tabled) * len(SPECS), len(tabled)))

# A display filter after the type: only the frames it takes, and its text on the Filter
# line; several statistics at once, each its own table in the order given.
NCCL = os.path.join(t.REAL_CAPTURES, "linlinw5_rdma_ib_tutorial__pcap_nccl_nccl_node0.pcap")
CM = os.path.join(t.REAL_CAPTURES, "linlinw5_rdma_ib_tutorial__pcap_rdma_cm.pcap")
compare(NCCL, "conv,ip,udp.port==4791", "endpoints,tcp,tcp.port==29500",
        "conv,eth,ip.src==172.30.0.25", "conv,udp,infiniband.bth.opcode==4")
out = roceshark(NCCL, "conv,ip,udp.port==4791")
t.check("Filter:udp.port==4791\n" in out and out.count("<->") == 2,
        "conv,ip,udp.port==4791: %r" % out)
compare(CM, "endpoints,ip,frame.len > 100", "conv,tcp,frame.len > 100", "conv,ip",
        "endpoints,ip")
t.check(len(tables(roceshark(CM, "conv,ip", "endpoints,ip"))) == 2,
        "conv,ip then endpoints,ip: not two tables")

# The hierarchy with a filter, beside the one without, on the sample and the CM capture.
SAMPLE = os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap")
for path in (SAMPLE, CM):
    phs_runs += 1
    phs_same += compare(path, "io,phs", "io,phs,infiniband.bth.opcode == 17", heur=True)
chains += 1
same_chains(SAMPLE)
t.check(phs_runs >= (4 if t.BUILT.get("sanitize") else 10) and chains >= 3,
        "io,phs compared only %d times, frame.protocols %d" % (phs_runs, chains))
print("io,phs: %d of %d as tshark's; frame.protocols on %d captures" % (phs_same, phs_runs,
                                                                          chains))

# io,stat: the box's widths, the duration rounded to the interval's decimals, "Dur", and
# the columns as the filters list them (an empty one takes every frame).
LONG = ("infiniband.bth.opcode == 4 && infiniband.bth.psn > 100 || ip.src == 10.0.0.1 && "
        "frame.len > 1000000 && udp.port == 4791")
IO_RUNS = [("srinivaskoritala_rdma-softroce-demo__infiniband.pcap", "io,stat,0"),
           ("srinivaskoritala_rdma-softroce-demo__infiniband.pcap", "io,stat,100"),
           ("srinivaskoritala_rdma-softroce-demo__infiniband.pcap", "io,stat,30," + LONG),
           ("linlinw5_rdma_ib_tutorial__pcap_nccl_nccl_node0.pcap", "io,stat,10,ip"),
           ("linlinw5_rdma_ib_tutorial__pcap_nccl_nccl_node0.pcap", "io,stat,2.5,udp"),
           ("linlinw5_rdma_ib_tutorial__pcap_nccl_nccl_node0.pcap", "io,stat,100000"),
           ("linlinw5_rdma_ib_tutorial__pcap_rdma_write_bw.pcap", "io,stat,1"),
           ("linlinw5_rdma_ib_tutorial__pcap_rdma_write_bw.pcap", "io,stat,0.01"),
           ("linlinw5_rdma_ib_tutorial__pcap_rdma_write_bw.pcap",
            "io,stat,0.333333,frame.len>1000,,ip,udp,tcp,infiniband"),
           ("linlinw5_rdma_ib_tutorial__pcap_rdma_write_bw.pcap", "io,stat,0.5,udp,ip.len>100")]
if t.BUILT.get("sanitize"):
    IO_RUNS = IO_RUNS[::3]
io_groups = grouped((os.path.join(t.REAL_CAPTURES, name), spec) for name, spec in IO_RUNS)
io_same = sum(compare(path, *specs) for path, specs in io_groups)
print("io,stat: %d of %d captures' boxes as tshark's (%d boxes)" % (io_same, len(io_groups),
                                                                    len(IO_RUNS)))

# A bad type or filter: one line on stderr, exit 1.
for spec, why in [("conv,xyz", "unknown conversation type (eth, ip, ipv6, udp, tcp, qp)"),
                  ("endpoints,qp", "unknown endpoint type (eth, ip, ipv6, udp, tcp)"),
                  ("conv,", "unknown conversation type"),
                  ("conv,ip,udp.port==", "filter udp.port==:"),
                  ("io,phs,ip.src ==", "filter ip.src ==:")]:
    p = t.run([t.ROCESHARK, "read", "-r", CM, "-q", "-z", spec], check_rc=False)
    t.check(p.returncode == 1 and p.stdout == "" and len(p.stderr.splitlines()) == 1 and
            p.stderr.startswith("roceshark: -z %s: %s" % (spec, why)),
            "-z %s: exit %d, %r" % (spec, p.returncode, p.stderr))

t.finish("stats_conv")
