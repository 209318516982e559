#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""parity - `roceshark read` against tshark 4.0 on every capture of the tests, check family by
check family, each printing "identical N/M".

usage: parity.py [--family NAME]... [--all] [--update-baseline] [-v]

A family is a module family_<name>.py beside this one: FAMILY = "<name>" and run(ctx), which
returns (identical, total, failures), failures a list of short strings (each naming the
capture and the case). ctx (Context below) gives the binary, tshark and `read` runs (tshark's
through tests/tools/reference_cache.py, so the second pass of the suite is answered from the
first), the captures, a temporary folder, and a way to run captures two at a time.

The captures are tests/captures/ and the real captures kept out of the repository
(ROCESHARK_EXTRA_CAPTURES, as tests/CMakeLists.txt sets it), when present. A family that would
take too long on every capture runs on ctx.sample() of them, a fixed choice that covers every
protocol; --all runs every family on every capture.

baseline.json holds, per capture set ("repo", or "repo+extra" with the extra captures; with
"+all" for --all), each family's identical count. The run fails when a family counts fewer
than its baseline (a regression); a family that counts more says so, and --update-baseline
writes the new counts.
Exit status: 0, 1 on a regression (or a family that failed to run), 2 on bad usage."""
import argparse
import concurrent.futures
import glob
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "tools"))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "integration"))
import paritylib as pl  # noqa: E402
import reference_cache  # noqa: E402
import rstest  # noqa: E402

BASELINE = os.path.join(HERE, "baseline.json")
CAPTURE_SUFFIXES = (".pcap", ".pcapng", ".pcap.gz", ".pcapng.gz", ".erf")
# tshark's heuristics on RDMA payloads misread random data (tests/tools/fieldsdiff.py); and
# the ones on iWARP payloads lose it the rest of a TCP stream (rstest.TSHARK_IWARP).
TSHARK_HEURISTICS = [a for h in rstest.fieldsdiff.TSHARK_IB_HEURISTICS
                     for a in ("--disable-heuristic", h)] + rstest.TSHARK_IWARP.split()
# The protocols that `read` dissects, as tshark names them in frame.protocols. A frame where
# tshark finds another (TLS, HTTP and the like, which the NCCL captures carry) is left out of
# the comparisons of its trees, and counted as skipped.
# The captures a family runs on when every capture would take too long: between them they
# hold every protocol and case we compare (native InfiniBand in ERF with IPoIB, ARP, ICMP and
# MADs; RoCE CM, atomics, reads and UD; NCCL's TCP with retransmissions, SACKs and
# keep-alives; iWARP; IPv6 with a hop-by-hop header; ARP over Ethernet; each of the 256 BTH
# opcodes, with and without bytes past its headers; an SA table over RMPP; NVMe-oF over
# RoCEv2, below its capsules), the names of the
# extra ones being used when present.
SAMPLE = ["infiniband.pcap", "pcap_rdma_cm.pcap", "pcap_rdma_atomic_bw.pcap",
          "pcap_nccl_nccl_node0.pcap", "pcap_pingpong_ud.pcap", "uiwarp__422babab.pcap",
          "oferby_proxy__roce.pcap", "montybeatnik_rdma-roce-lab__test.pcap",
          "every_opcode.pcap", "sa_pathrecord.pcap", "tcp_reasm.pcap", "nvme_rdma.pcap"]
DISSECTED = {"eth", "ethertype", "vlan", "ieee8021ad", "sll", "erf", "ip", "ipv6",
             "ipv6.hopopts", "udp", "tcp", "icmp", "icmpv6", "arp", "infiniband", "iwarp_mpa",
             "iwarp_ddp_rdmap", "data", "_ws.malformed", "_ws.short"}


def capture_paths():
    """(repository captures, extra captures): the extra ones not in the repository by name."""
    repo_dir = os.path.join(SOURCE_DIR, "tests", "captures")
    repo = sorted(p for p in glob.glob(os.path.join(repo_dir, "**", "*"), recursive=True)
                  if p.endswith(CAPTURE_SUFFIXES))
    names = {os.path.basename(p) for p in repo}
    extra_dir = rstest.EXTRA_CAPTURES_DIR
    extra = sorted(p for p in glob.glob(os.path.join(extra_dir, "*")) if extra_dir and
                   p.endswith(CAPTURE_SUFFIXES) and os.path.basename(p) not in names)
    return repo, extra


class Context:
    """What a family is given."""

    def __init__(self, captures, tmp, everything, jobs):
        self.roceshark = rstest.ROCESHARK
        self.captures = captures
        self.tmp = tmp
        self.all = everything
        self.jobs = jobs
        self._text = {}
        self._tshark = {}
        self._lock = threading.Lock()

    def tshark(self, args, **kw):
        """tshark ARGS (a CompletedProcess with text), answered from the reference cache
        when an earlier run asked the same, and once per run for the same ARGS."""
        key = (tuple(args), tuple(sorted(kw.items())))
        with self._lock:
            if key in self._tshark:
                return self._tshark[key]
        p = reference_cache.run(["tshark"] + list(args), **kw)
        if not kw:
            with self._lock:
                self._tshark[key] = p
        return p

    def read(self, args, **kw):
        """roceshark read ARGS, as a CompletedProcess with text."""
        return subprocess.run([self.roceshark, "read"] + list(args), capture_output=True,
                              text=True, **kw)

    def tshark_flags(self, path):
        """The options tshark needs to be judged fairly on path: the heuristics above off,
        and what the capture's origin says it needs (rstest.EXTRA_CAPTURES)."""
        return TSHARK_HEURISTICS + rstest.EXTRA_CAPTURES.get(os.path.basename(path), "").split()

    def text(self, path):
        """(tshark's, read's) {frame: (summary line, tree, hex dump)} of path, from one run
        of each with -P -V -x (read's with --compat tshark): the summary, verbose and hex
        families and foreign() share it, where they took a run each (tshark's start-up
        alone is some 0.6 s of processor time)."""
        with self._lock:
            if path in self._text:
                return self._text[path]
        want = pl.split_pvx(self.tshark(["-r", path, "-P", "-V", "-x"] +
                                        self.tshark_flags(path)).stdout)
        got = pl.split_pvx(self.read(["-r", path, "-P", "-V", "-x", "--compat",
                                      "tshark"]).stdout)
        with self._lock:
            self._text[path] = (want, got)
        return want, got

    def foreign(self, path):
        """Numbers (from 1) of the frames of path where tshark finds a protocol that `read`
        does not dissect (by each tree's "[Protocols in frame: ...]")."""
        return {n for n, (_, tree, _) in self.text(path)[0].items()
                if any(p not in DISSECTED for p in pl.protocols_of(tree))}

    def foreign_protocols(self, path):
        """{frame: [its protocols read does not dissect]} of the frames foreign() names."""
        return {n: [p for p in pl.protocols_of(tree) if p not in DISSECTED]
                for n, (_, tree, _) in self.text(path)[0].items()
                if any(p not in DISSECTED for p in pl.protocols_of(tree))}

    def cases(self, every, sample):
        """The cases a family runs: every one under --all, else the sample (a list of
        indexes into every, chosen to cover each kind of case)."""
        return list(every) if self.all else [every[i] for i in sample]

    def sample(self, names=None):
        """A fixed choice among the captures: those whose file names end with one of names
        (SAMPLE when None), in that order; every capture with --all."""
        if self.all:
            return list(self.captures)
        chosen = [p for n in (SAMPLE if names is None else names) for p in self.captures
                  if os.path.basename(p).endswith(n)]
        return list(dict.fromkeys(chosen))

    def named(self, names):
        """The captures whose file names end with one of names, in that order, with --all
        too: for a family whose cases all run on one capture."""
        return list(dict.fromkeys(p for n in names for p in self.captures
                                  if os.path.basename(p).endswith(n)))

    def map(self, fn, items):
        """[fn(item) for item in items], ctx.jobs at a time, in order."""
        with concurrent.futures.ThreadPoolExecutor(self.jobs) as pool:
            return list(pool.map(fn, items))


def load_families(wanted):
    families = []
    for path in sorted(glob.glob(os.path.join(HERE, "family_*.py"))):
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if not wanted or module.FAMILY in wanted:
            families.append(module)
    return families


def main():
    ap = argparse.ArgumentParser(description="roceshark read against tshark, per family")
    ap.add_argument("--family", action="append", default=[], help="run only this family")
    ap.add_argument("--all", action="store_true", help="every family on every capture")
    ap.add_argument("--update-baseline", action="store_true",
                    help="write this run's counts to baseline.json")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every failure")
    args = ap.parse_args()
    if shutil.which("tshark") is None:
        print("parity: tshark is needed (apt-get install tshark)", file=sys.stderr)
        return 2
    repo, extra = capture_paths()
    key = ("repo+extra" if extra else "repo") + ("+all" if args.all else "")
    try:
        with open(BASELINE) as f:
            baseline = json.load(f)
    except FileNotFoundError:
        baseline = {}
    families = load_families(set(args.family))
    if args.family and len(families) != len(set(args.family)):
        print("parity: unknown family in %s" % ", ".join(args.family), file=sys.stderr)
        return 2
    print("parity: %d captures (%d of the repository, %d extra), set %s" %
          (len(repo) + len(extra), len(repo), len(extra), key))
    counts, status = {}, 0
    with tempfile.TemporaryDirectory(prefix="parity.") as tmp:
        ctx = Context(repo + extra, tmp, args.all, int(os.environ.get("PARITY_JOBS", "2")))
        for fam in families:
            start = time.monotonic()
            try:
                identical, total, failures = fam.run(ctx)
            except Exception as e:      # one family's bug must not hide the others' counts
                print("parity: %s: failed to run: %s: %s" % (fam.FAMILY, type(e).__name__, e))
                status = 1
                continue
            counts[fam.FAMILY] = identical
            print("%-12s identical %d/%d  (%.1f s)" % (fam.FAMILY, identical, total,
                                                   time.monotonic() - start))
            for line in failures if args.verbose else failures[:3]:
                print("    " + line)
            if not args.verbose and len(failures) > 3:
                print("    ... %d more (-v prints them)" % (len(failures) - 3))
            was = baseline.get(key, {}).get(fam.FAMILY)
            if was is None:
                continue
            if identical < was:
                print("parity: %s: REGRESSION: identical %d, baseline %d" %
                      (fam.FAMILY, identical, was))
                status = 1
            elif identical > was:
                print("parity: %s: %d more than the baseline (%d): parity.py "
                      "--update-baseline raises it" % (fam.FAMILY, identical - was, was))
    if args.update_baseline:
        baseline.setdefault(key, {}).update(counts)
        with open(BASELINE, "w") as f:
            json.dump(baseline, f, indent=2, sort_keys=True)
            f.write("\n")
        print("parity: baseline %s written" % key)
    return status


if __name__ == "__main__":
    sys.exit(main())
