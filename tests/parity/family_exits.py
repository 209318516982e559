# SPDX-License-Identifier: GPL-2.0-or-later
"""Exit codes: each bad command line or input of CASES (and -G help, which exits 0), read's
exit status against tshark's.
A case is identical when both exit with the same status, and both say why on stderr when it
is not 0. Among them the filters tshark 4.0 refuses (sets without commas, 1e-3, -nan)."""
import os

import paritylib as pl

FAMILY = "exits"

# {cap}: a small capture (UD); {empty}, {text}, {cut}: an empty file, a text file, a capture
# cut inside its first frame.
CASES = [
    ["-r", "{empty}"], ["-r", "{text}"], ["-r", "{cut}"], ["-r", "/nonexistent.pcap"],
    ["-r", "/"], ["-r", "{cap}", "-Y", "tcp.port =="], ["-r", "{cap}", "-Y", "nosuch.field"],
    ["-r", "{cap}", "-Y", "frame.number in {1 3}"], ["-r", "{cap}", "-Y", "udp.port in {1 2}"],
    ["-r", "{cap}", "-Y", "1e-3 < frame.time_delta"], ["-r", "{cap}", "-Y", "-nan"],
    ["-r", "{cap}", "-Y", "ip.addr == 300.1.1.1"], ["-r", "{cap}", "-Y", "infiniband.bth.becn"],
    ["-r", "{cap}", "-Y", "frame.len % == 2"], ["-r", "{cap}", "-Y", "(udp"],
    ["-r", "{cap}", "-2", "-R", "nosuch.field"], ["-r", "{cap}", "-w", "/nonexistent/x.pcap"],
    ["-r", "{cap}", "-T", "yaml"], ["-r", "{cap}", "-T", "fields", "-e", "nosuch.field"],
    ["-r", "{cap}", "-T", "fields"], ["-r", "{cap}", "-e", "frame.number"],
    ["-r", "{cap}", "-c", "many"], ["-r", "{cap}", "-o", "nosuch.pref:1"],
    ["-r", "{cap}", "-E", "header=x"], ["-r", "{cap}", "-z", "nosuch"],
    ["-r", "{cap}", "-R", "udp"], ["-r", "{cap}", "-t", "x"],
    ["-r", "{cap}", "-d", "udp.port==99999,roce"], ["-r", "{cap}", "-F", "nosuch"],
    ["-r", "{cap}", "-Z"], ["-r", "{cap}", "-j", "ip", "-T", "text"],
    ["-r", "{cap}", "-a", "bogus:1"], ["-r", "{cap}", "-N", "z"], ["-r", "{cap}", "-G", "nosuch"],
    ["-r", "{cap}", "-x", "-T", "fields", "-e", "frame.number"], ["-r"],
    ["-r", "{cap}", "-u", "x"], ["-r", "{cap}", "-C", "nosuchprofile"],
    ["-r", "{cap}", "-H", "/nonexistent"], ["-r", "{cap}", "--log-level", "bogus"],
    ["-i", "nosuchif0"], ["-r", "{cap}", "--disable-heuristic", "rpcordma"],
    ["-r", "{cap}", "--enable-heuristic", "nosuch"],
    ["-r", "{cap}", "-o", "arp.detect_storm_period:0x10"],
    ["-r", "{cap}", "-o", "vlan.qinq_ethertype:0x"],
    ["-r", "{cap}", "-o", "gui.column.format:\"a\",\"%zz\""],
    ["-r", "{cap}", "-o", "gui.column.format:\"a\",\"%m\","],
    ["-G", "help"],
]
# Without --all (each tshark run costs some 0.6 s of processor time): one of each kind of
# bad input, filter, option value and combination.
SAMPLE = [0, 1, 2, 3, 5, 6, 7, 9, 10, 13, 15, 16, 17, 18, 19, 22, 24, 25, 30, 32, 34, 35,
          38, 40, 42, 43, 45]


def files(ctx, cap):
    paths = {"cap": cap}
    for name, data in (("empty", b""), ("text", b"not a capture file, just text\n")):
        paths[name] = os.path.join(ctx.tmp, "exits_%s.pcap" % name)
        with open(paths[name], "wb") as f:
            f.write(data)
    paths["cut"] = os.path.join(ctx.tmp, "exits_cut.pcap")
    with open(cap, "rb") as f, open(paths["cut"], "wb") as out:
        out.write(f.read(100))
    return paths


def run(ctx):
    caps = ctx.named(["pcap_pingpong_ud.pcap"])
    if not caps:
        return 0, 0, []
    paths = files(ctx, caps[0])

    def one(case):
        args = [a.format(**paths) if a.startswith("{") and a.endswith("}") and
                a[1:-1] in paths else a for a in case]
        want, got = ctx.tshark(args, input=""), ctx.read(args, input="")
        said = want.returncode == 0 or got.stderr.strip() != ""
        if want.returncode == got.returncode and said:
            return 1, 1, []
        return 0, 1, ["%s: tshark exits %d, read %d%s" % (" ".join(case), want.returncode,
                                                         got.returncode,
                                                         "" if said else " (nothing said)")]
    return pl.add(ctx.map(one, ctx.cases(CASES, SAMPLE)))
