# SPDX-License-Identifier: GPL-2.0-or-later
"""-T fields with -E: each variant of VARIANTS on one capture, a few fields of every kind
(a field with two occurrences, addresses, ports, RoCE's opcode, Info with tshark's text). A
case is one command line, identical when standard output is, byte for byte."""
import paritylib as pl

FAMILY = "fields"

FIELDS = ["frame.number", "eth.addr", "ip.src", "udp.port", "tcp.flags.str",
          "infiniband.bth.opcode", "frame.protocols", "_ws.col.Info"]
VARIANTS = [
    [], ["-E", "header=y"], ["-E", "separator=,"], ["-E", "separator=/s"],
    ["-E", "separator=/t"], ["-E", "quote=d"], ["-E", "quote=s"], ["-E", "quote=n"],
    ["-E", "occurrence=f"], ["-E", "occurrence=l"], ["-E", "occurrence=2"],
    ["-E", "aggregator=;"], ["-E", "aggregator=/s"], ["-E", "escape=n"], ["-E", "bom=y"],
    ["-E", "header=y", "-E", "separator=,", "-E", "quote=d", "-E", "occurrence=a",
     "-E", "aggregator=|"],
    ["-E", "header=y", "-E", "separator=/s", "-E", "quote=s", "-E", "occurrence=l",
     "-E", "bom=y"],
    ["-E", "occurrence=f", "-E", "aggregator=/s", "-E", "escape=n", "-E", "quote=n"],
]
# Without --all: the two that combine most options, and one with the first occurrences
# aggregated by a space and escapes off (every -E option among them).
SAMPLE = [15, 16, 17]


def run(ctx):
    caps = ctx.named(["pcap_pingpong_ud.pcap"])
    if not caps:
        return 0, 0, []
    cap = caps[0]
    fields = [a for f in FIELDS for a in ("-e", f)]

    def one(variant):
        want = ctx.tshark(["-r", cap, "-T", "fields"] + fields + variant + ctx.tshark_flags(cap))
        got = ctx.read(["-r", cap, "--compat", "tshark", "-T", "fields"] + fields + variant)
        if want.returncode == got.returncode and want.stdout == got.stdout:
            return 1, 1, []
        return 0, 1, ["%s: exit %d/%d; %s" % (" ".join(variant) or "(none)", want.returncode,
                                              got.returncode,
                                              pl.first_difference(want.stdout, got.stdout))]
    return pl.add(ctx.map(one, ctx.cases(VARIANTS, SAMPLE)))
