#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""fieldsdiff.py - roceshark's `-T fields` output against tshark 4.0's, value by value.

usage: fieldsdiff.py [-t TSHARK_OPTS] [-o ROCESHARK_OPTS] FILE FIELD...
       fieldsdiff.py --tshark-only [-t TSHARK_OPTS] FILE FIELD...

Prints the first mismatches (frame, field, both values) and a summary line; exits 0 when
every value of every frame matches and both print the same number of frames, 1 otherwise,
2 on bad usage. --tshark-only prints tshark's rows alone (tab-separated, one per frame).

-t and -o take one string of extra options each (split as a shell would), e.g.
-t '-d udp.port==4792,infiniband' -o '-d udp.port==4792,roce'. The roceshark binary is
$ROCESHARK, else build/roceshark of this source tree, else roceshark on PATH.

One thing makes the comparison fair: tshark's upper-layer heuristics that read RDMA
payloads as RPC-over-RDMA, iSER, SMB Direct, SDP, SMC-R, FC over IB, EoIB or LNet are
switched off: they misread random payloads, and only the RDMA headers are being judged.
IPoIB's (eth_over_ib: a payload that opens with an Ethertype and two zero bytes) stays on:
we decode IPoIB as it does, and in the real captures it fires on IPoIB alone.
Values are compared as printed, occurrences and all (tshark prints infiniband.immdt and
infiniband.ieth twice, once for the header and once for the value in it; so do we)."""
import os
import shlex
import shutil
import sys

import reference_cache

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# tshark 4.0's heuristic dissectors on InfiniBand payloads (see the docstring).
TSHARK_IB_HEURISTICS = ("rpcrdma_infiniband", "iser_infiniband", "smb_direct_infiniband",
                        "sdp_infiniband", "smcr_infiniband", "fc_infiniband", "mellanox_eoib",
                        "lnet_ib")


def roceshark_binary():
    rs = os.environ.get("ROCESHARK")
    if rs:
        return rs
    built = os.path.join(SOURCE_DIR, "build", "roceshark")
    return built if os.path.exists(built) else shutil.which("roceshark")


def _rows(cmd):
    p = reference_cache.run(cmd)
    if p.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    return [line.split("\t") for line in p.stdout.splitlines()]


def _field_args(fields):
    return [a for f in fields for a in ("-e", f)]


def tshark_rows(path, fields, extra=()):
    """tshark's -T fields rows for path, heuristics on RDMA payloads off."""
    heur = [a for h in TSHARK_IB_HEURISTICS for a in ("--disable-heuristic", h)]
    return _rows(["tshark", "-n", "-r", path] + list(extra) + ["-T", "fields"] +
                 _field_args(fields) + heur)


def roceshark_rows(path, fields, extra=(), binary=None):
    return _rows([binary or roceshark_binary(), "read", "-r", path, "-T", "fields"] +
                 list(extra) + _field_args(fields))


def compare(want, got, fields, show=10, out=print):
    """Compares tshark's rows (want) with roceshark's (got). Prints the first `show`
    mismatches through out. Returns (mismatched values, values compared)."""
    bad = total = 0
    for n, (w, g) in enumerate(zip(want, got), 1):
        for i, f in enumerate(fields):
            a = w[i] if i < len(w) else ""
            b = g[i] if i < len(g) else ""
            total += 1
            if a != b:
                bad += 1
                if bad <= show:
                    out("  frame %d %s: tshark %r roceshark %r" % (n, f, a, b))
    return bad, total


def main(argv):
    args = list(argv)
    tshark_only = "--tshark-only" in args
    if tshark_only:
        args.remove("--tshark-only")
    opts = {"-t": [], "-o": []}
    while len(args) >= 2 and args[0] in opts:
        opts[args[0]] = shlex.split(args[1])
        args = args[2:]
    if len(args) < 2 or args[0].startswith("-"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    path, fields = args[0], args[1:]
    try:
        want = tshark_rows(path, fields, opts["-t"])
        if tshark_only:
            sys.stdout.write("".join("\t".join(r) + "\n" for r in want))
            return 0
        got = roceshark_rows(path, fields, opts["-o"])
    except (RuntimeError, OSError) as e:
        print("fieldsdiff: %s" % e, file=sys.stderr)
        return 2
    if len(want) != len(got):
        print("frames: tshark %d, roceshark %d" % (len(want), len(got)))
    bad, total = compare(want, got, fields, show=30)
    print("%d of %d values match" % (total - bad, total))
    return 0 if bad == 0 and len(want) == len(got) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
