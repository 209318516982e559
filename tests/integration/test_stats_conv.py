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


def tshark(path, *specs):
    """tshark's tables for specs, in that order (it prints the last -z first)."""
    extra = t.EXTRA_CAPTURES.get(os.path.basename(path), "").split()
    args = ["tshark", "-r", path, "-q"] + extra
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


def compare(path, spec):
    want, got = tshark(path, spec), roceshark(path, spec)
    return t.check(got == want, "%s -z %s: differs from tshark's\n--- tshark\n%s--- roceshark\n%s"
                   % (os.path.basename(path), spec, want, got))


# Every type, conversations and endpoints, each capture read once by each tool.
SPECS = ["%s,%s" % (kind, typ) for kind in ("conv", "endpoints") for typ in TYPES]
captures = t.real_captures()
if t.BUILT.get("sanitize"):
    # tshark's side is the same as in the normal run: a third of the captures run every
    # table's code instrumented.
    captures = captures[::3]
same = rows = 0
for path in captures:
    want, got = tables(tshark(path, *SPECS)), tables(roceshark(path, *SPECS))
    t.check(len(want) == len(SPECS) and len(got) == len(SPECS),
            "%s: %d tables from tshark, %d from roceshark"
            % (os.path.basename(path), len(want), len(got)))
    for spec, w, g in zip(SPECS, want, got):
        same += t.check(g == w, "%s -z %s: differs from tshark's\n--- tshark\n%s--- roceshark\n%s"
                        % (os.path.basename(path), spec, w, g))
        rows += g.count("<->")
t.check(rows > (60 if t.BUILT.get("sanitize") else 200),
        "only %d conversation rows in all: the captures are not being read" % rows)
print("%d of %d tables as tshark's, %d captures" % (same, len(captures) * len(SPECS),
                                                     len(captures)))

# A display filter after the type: only the frames it takes, and its text on the Filter line.
NCCL = os.path.join(t.REAL_CAPTURES, "linlinw5_rdma_ib_tutorial__pcap_nccl_nccl_node0.pcap")
CM = os.path.join(t.REAL_CAPTURES, "linlinw5_rdma_ib_tutorial__pcap_rdma_cm.pcap")
for path, spec in [(NCCL, "conv,ip,udp.port==4791"), (NCCL, "endpoints,tcp,tcp.port==29500"),
                   (NCCL, "conv,eth,ip.src==172.30.0.25"),
                   (NCCL, "conv,udp,infiniband.bth.opcode==4"),
                   (CM, "endpoints,ip,frame.len > 100"), (CM, "conv,tcp,frame.len > 100")]:
    compare(path, spec)
out = roceshark(NCCL, "conv,ip,udp.port==4791")
t.check("Filter:udp.port==4791\n" in out and out.count("<->") == 2,
        "conv,ip,udp.port==4791: %r" % out)

# Two statistics at once, each its own table; and alongside the frames (no -q).
out = t.run([t.ROCESHARK, "read", "-r", CM, "-q", "-z", "conv,ip", "-z", "endpoints,ip"]).stdout
t.check(out == tshark(CM, "conv,ip", "endpoints,ip") and len(tables(out)) == 2,
        "conv,ip then endpoints,ip: %r" % out)

# Protocol hierarchy: byte for byte tshark's, where every protocol in the capture is one we
# decode (the FILTER form on two captures); frame.protocols frame by frame on a quarter of
# them. Every other capture: a tshark start costs a second, and CI has 20 minutes.
HEUR = [a for h in fieldsdiff.TSHARK_IB_HEURISTICS for a in ("--disable-heuristic", h)]
UNDECODED = re.compile(r"^ *(tls|http|tftp) ", re.M)
SAMPLE = os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap")
phs_same = phs_runs = chains = 0
for i, path in enumerate(captures[::2] + [SAMPLE]):
    extra = t.EXTRA_CAPTURES.get(os.path.basename(path), "").split()
    specs = ["io,phs"] + (["io,phs,infiniband.bth.opcode == 17"] if path in (SAMPLE, CM) else [])
    for spec in specs:
        want = "".join(l for l in t.run(["tshark", "-n", "-r", path, "-q", "-z", spec] + HEUR +
                                        extra, env=ENV).stdout.splitlines(True)
                       if not l.startswith("Running as user"))
        if UNDECODED.search(want):
            break
        got = roceshark(path, spec)
        phs_runs += 1
        phs_same += t.check(got == want, "%s -z %s: differs from tshark's\n--- tshark\n%s"
                            "--- roceshark\n%s" % (os.path.basename(path), spec, want, got))
        # Under the sanitizers every capture here (they are a sixth of them), so that
        # a clone without the extra captures still compares at least three.
        if spec == "io,phs" and (i % 2 == 0 or path == SAMPLE or t.BUILT.get("sanitize")):
            chains += 1
            t.check(t.roceshark_fields(path, ["frame.protocols"]) ==
                    t.tshark_fields(path, ["frame.protocols"], " ".join(extra)),
                    "%s: frame.protocols differs from tshark's" % os.path.basename(path))
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
io_same = sum(compare(os.path.join(t.REAL_CAPTURES, name), spec) for name, spec in IO_RUNS)
print("io,stat: %d of %d as tshark's" % (io_same, len(IO_RUNS)))

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
