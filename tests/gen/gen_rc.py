#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_rc.py OUTDIR : RC traces with loss, duplicates, delays, NAKs, RNR, go-back-N, several
PMTUs and QPs, PSN wrap, and ECN marks with CNPs; with the truth about every frame.

Writes OUTDIR/<scenario>.pcap (nanosecond pcap) and OUTDIR/<scenario>.truth.jsonl for each
scenario below (see rcsim.py for what the truth means)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rcsim  # noqa: E402

SCENARIOS = {
    # name: (seed, faults, rnr rate, ops per conversation)
    "clean": (1, {}, 0.0, 40),
    "loss": (2, {"drop_before": 0.02, "drop_after": 0.02}, 0.0, 60),
    "dup_delay": (3, {"dup": 0.03, "delay": 0.05, "delay_ns": 40000}, 0.0, 60),
    "rnr_ecn": (4, {"ce": 0.05, "drop_before": 0.01}, 0.08, 50),
    "mixed": (5, {"drop_before": 0.015, "drop_after": 0.015, "dup": 0.02, "delay": 0.03,
                  "delay_ns": 20000, "ce": 0.02}, 0.04, 80),
    "qp_pairs": (6, {"dup": 0.02, "drop_before": 0.01}, 0.0, 30),
}


def build_qp_pairs(seed, faults, nops):
    """Two RC QP pairs used in both directions, every QP starting at PSN 0 (as NCCL over
    rxe does). After the first pair has carried traffic one way, requests start on the
    second pair and on the first pair's other direction at the same moment, so their first
    responses fit both by PSN: only knowing which QP is connected to which tells them
    apart."""
    sim = rcsim.Sim(seed, faults)
    r = sim.r
    ops = lambda: [(rcsim.OP_SEND, 64)] + rcsim.random_ops(r, nops, first_multi=False)  # noqa
    sim.add_conv(2, 1, 0x2C, 0x25, 1024, 0, ops(), start_ns=0)
    second = [sim.add_conv(1, 2, 0x27, 0x2D, 1024, 0, ops(), start_ns=1000000),
              sim.add_conv(1, 2, 0x25, 0x2C, 1024, 0, ops(), start_ns=1000000)]
    for c in second:    # a small first burst, so both start before either hears back
        c.requester.window = 8
        sim.at(1010000, lambda req: setattr(req, "window", 48), c.requester)
    sim.add_conv(2, 1, 0x2D, 0x27, 1024, 0, ops(), start_ns=1500000)
    sim.run()
    return sim


def build(name, seed, faults, rnr, nops):
    if name == "qp_pairs":
        return build_qp_pairs(seed, faults, nops)
    sim = rcsim.Sim(seed, faults, rnr_rate=rnr)
    r = sim.r
    pmtus = [256, 512, 1024, 2048, 4096]
    # Host pairs with several QPs between the same two hosts, and one conversation
    # whose PSNs wrap through 0xFFFFFF.
    plan = [(1, 2), (1, 2), (2, 1), (3, 2), (1, 3), (3, 1)]
    for i, (a, b) in enumerate(plan):
        psn0 = 0xFFFFFF - r.randrange(0, 40) if i == 0 else r.randrange(0, 1 << 24)
        sim.add_conv(a, b, 0x100 + i * 0x11, 0x200 + i * 0x13, pmtus[(seed + i) % 5], psn0,
                     rcsim.random_ops(r, nops))
    sim.run()
    return sim


def main():
    if sys.argv[1:] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        # An option taken for OUTDIR once filled a folder named "-h".
        print("usage: tests/gen/gen_rc.py OUTDIR", file=sys.stderr)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    total = 0
    for name, (seed, faults, rnr, nops) in SCENARIOS.items():
        sim = build(name, seed, faults, rnr, nops)
        rcsim.write_pcap_ns(os.path.join(out, name + ".pcap"), sim.captured)
        with open(os.path.join(out, name + ".truth.jsonl"), "w") as f:
            for t in rcsim.truth(sim.captured):
                f.write(json.dumps(t) + "\n")
        total += len(sim.captured)
        print("%s: %d frames" % (name, len(sim.captured)))
    print("%d frames" % total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
