#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Bad input never crashes roceshark and never makes it read past the captured bytes.

From generated frames of every encapsulation this writes truncated variants (cut by a
snapshot length at every header boundary and at random points, and cut short on the wire
so that length fields lie) and bit-flipped variants (random flips, and length fields set to
0 and to their maximum). Then:
  - `roceshark read` in every output mode exits 0 with nothing on stderr (under the
    sanitizer build, any report lands there), and its JSON parses;
  - tests/robust/decode_exact decodes each frame from an exact-size heap buffer and
    extracts every field, so AddressSanitizer sees any over-read;
  - a frame cut anywhere inside its IBA headers or before its ICRC is flagged
    roceshark.malformed, and a snapshot cut is also flagged roceshark.truncated;
  - iWARP streams (tests/gen/gen_iwarp.py) with segments cut, bit-flipped, dropped, repeated
    and swapped go through reassembly, MPA framing and inference the same way;
  - a stream with a hole that never fills keeps the reassembly memory within its bound.
decode_exact is there for the sanitizers: under them it reads every file with every printer,
and `read` runs on every other one in JSON mode (its own paths: batches, threads, the JSON
document); the normal build runs `read` on every file in every mode and decode_exact on the
bit-flipped ones (CI has 20 minutes for both passes)."""
import json
import os
import random
import re
import struct

import rstest as t

DECODE_EXACT = os.environ.get("DECODE_EXACT", os.path.join(os.path.dirname(t.ROCESHARK), "decode_exact"))
out = t.tempdir()
t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_roce.py"), out, "--seed", "11", "--per-opcode", "2"])
rnd = random.Random(5)


def read_pcap(path):
    data = open(path, "rb").read()
    linktype = struct.unpack("<I", data[20:24])[0]
    frames, off = [], 24
    while off < len(data):
        _, _, incl, orig = struct.unpack("<IIII", data[off:off + 16])
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return linktype, frames


def write_pcap(path, linktype, records):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, linktype))
        for i, (frame, orig) in enumerate(records):
            f.write(struct.pack("<IIII", 1700000000 + i, 0, len(frame), orig))
            f.write(frame)


def mutate(frame):
    """Bit flips, and length-like 16-bit words forced to 0 or 0xffff."""
    b = bytearray(frame)
    for _ in range(rnd.randrange(1, 9)):
        i = rnd.randrange(len(b))
        b[i] ^= 1 << rnd.randrange(8)
    if len(b) > 2 and rnd.random() < 0.5:
        i = rnd.randrange(len(b) - 1)
        b[i:i + 2] = rnd.choice([b"\x00\x00", b"\xff\xff", b"\x07\xff"])
    return bytes(b)


cut_files = []
for name in ("ether.pcap", "ibta_only.pcap", "ib_erf.pcap", "ib_dlt247.pcap", "sll.pcap",
             "sll2.pcap", "rawip.pcap"):
    linktype, frames = read_pcap(os.path.join(out, name))
    snap, short, flipped = [], [], []
    for frame in frames:
        cuts = set(range(0, min(len(frame), 120))) | {rnd.randrange(len(frame)) for _ in range(4)}
        for k in sorted(cuts):
            snap.append((frame[:k], len(frame)))     # cut by the snapshot length
            short.append((frame[:k], k))             # cut on the wire: lengths lie
        for _ in range(8):
            flipped.append((mutate(frame), len(frame)))
    for kind, recs in (("snap", snap), ("short", short), ("flip", flipped)):
        p = os.path.join(out, "%s-%s" % (kind, name))
        write_pcap(p, linktype, recs)
        cut_files.append((p, kind, linktype, recs))

SAN = bool(t.BUILT.get("sanitize"))
all_fields = [l.split("\t")[0] for l in t.run([t.ROCESHARK, "fields"]).stdout.splitlines()]
modes = [[], ["-V"], ["-T", "json"], ["-T", "fields"] + sum([["-e", f] for f in all_fields], [])]
# Under the sanitizers decode_exact runs every printer on every frame of every file, from
# exact-size buffers; `read` adds its own paths (batches, threads, the JSON document) and
# runs in JSON mode alone, on every other file. Its four modes there took 34 of the test's
# 86 processor seconds, three of them printers decode_exact had already run on each frame.
san_modes = [["-T", "json"]]
total = 0
for i, (path, kind, linktype, recs) in enumerate(cut_files):
    total += len(recs)
    file_modes = modes if not SAN else san_modes if i % 2 == 0 else []
    for mode in file_modes:
        p = t.run([t.ROCESHARK, "read", "-r", path] + mode, check_rc=False)
        t.check(p.returncode == 0 and p.stderr == "",
                "%s %s: exit %d, stderr %r" % (os.path.basename(path), " ".join(mode[:2]),
                                              p.returncode, p.stderr[:300]))
        if mode[:2] == ["-T", "json"] and p.returncode == 0:
            try:
                t.check(len(json.loads(p.stdout)) == len(recs), "%s: JSON frame count" % path)
            except ValueError as e:
                t.check(False, "%s: JSON does not parse: %s" % (path, e))
    if not SAN and kind != "flip":
        continue
    p = t.run([DECODE_EXACT, path], check_rc=False)
    t.check(p.returncode == 0 and "ERROR" not in p.stderr and "runtime error" not in p.stderr,
            "decode_exact %s: exit %d %s" % (os.path.basename(path), p.returncode, p.stderr[:500]))

# Snapshot cuts inside an RDMA frame are flagged as malformed and as truncated.
for path, kind, linktype, recs in cut_files:
    if kind != "snap" or "ether" not in path:
        continue
    full = t.roceshark_fields(os.path.join(out, "ether.pcap"), ["roceshark.encap", "frame.len"])
    rows = t.roceshark_fields(path, ["roceshark.malformed", "roceshark.truncated", "frame.cap_len",
                                     "frame.len", "roceshark.encap"])
    flagged = 0
    for (malformed, truncated, cap, length, encap), (frame, orig) in zip(rows, recs):
        if int(cap) < int(length) and int(cap) >= 60 and encap:
            t.check(malformed == "1" and truncated == "1",
                    "%s: RDMA frame cut at %s of %s not flagged" % (kind, cap, length))
            flagged += 1
    t.check(flagged > 100, "only %d cut RDMA frames checked" % flagged)
print("%d mangled frames read in %d modes%s and from exact-size buffers%s"
      % (total, len(san_modes if SAN else modes), " (every other file)" if SAN else "",
         "" if SAN else " (flipped)"))

# iWARP: whole TCP streams mangled, so that reassembly, MPA framing and inference meet
# truncated, bit-flipped, missing, repeated and reordered segments.
iw_out = os.path.join(out, "iwarp")
t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_iwarp.py"), iw_out, "--seed", "9"])
iw_files = []
for name in ("aligned.pcap", "random.pcap", "midstream.pcap"):
    linktype, frames = read_pcap(os.path.join(iw_out, name))
    variants = {
        "snap": [(f[:rnd.randrange(14, len(f) + 1)], len(f)) for f in frames],
        "short": [(f[:k], k) for f in frames for k in [rnd.randrange(14, len(f) + 1)]],
        "flip": [(mutate(f), len(f)) for f in frames],
        "drop": [(f, len(f)) for f in frames if rnd.random() > 0.1],
        "dup": [(f, len(f)) for f in frames for _ in range(1 + (rnd.random() < 0.1))],
        "swap": [],
    }
    swapped = list(frames)
    for i in range(0, len(swapped) - 1, 7):
        swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
    variants["swap"] = [(f, len(f)) for f in swapped]
    for kind, recs in variants.items():
        p = os.path.join(iw_out, "%s-%s" % (kind, name))
        write_pcap(p, linktype, recs)
        iw_files.append((p, len(recs)))
iw_total = 0
for path, n in iw_files:
    iw_total += n
    for mode in (san_modes if SAN else modes) + [["-q", "-z", "iwarp", "-z", "expert"]]:
        p = t.run([t.ROCESHARK, "read", "-r", path] + mode, check_rc=False)
        t.check(p.returncode == 0 and p.stderr == "",
                "%s %s: exit %d, stderr %r" % (os.path.basename(path), " ".join(mode[:2]),
                                              p.returncode, p.stderr[:300]))
    p = t.run([DECODE_EXACT, path], check_rc=False)
    t.check(p.returncode == 0 and "ERROR" not in p.stderr and "runtime error" not in p.stderr,
            "decode_exact %s: exit %d %s" % (os.path.basename(path), p.returncode, p.stderr[:500]))
print("%d mangled iWARP frames read in %d modes and from exact-size buffers"
      % (iw_total, len(san_modes if SAN else modes) + 1))

# A hole that never fills: one early segment of each of 8 connections is missing and nothing
# acknowledges past it. The segments after it wait in the window up to its bound, then the
# missing bytes are given up and framing goes on: memory stays within 8 windows, measured by
# the stage itself and by the process's peak RSS against a capture without the hole.
BOUND = 262144
hole, whole = os.path.join(iw_out, "hole.pcap"), os.path.join(iw_out, "whole.pcap")
for path, extra in ((hole, ["--hole"]), (whole, [])):
    t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_bench_iwarp.py"), path, "--mbytes", "12"]
          + extra)
MEASURE = ("import resource, subprocess, sys\n"
           "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
           "sys.stdout.write(p.stdout)\n"
           "print('maxrss_kb %d' % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")


def measured(path):
    out = t.run([t.PYTHON, "-c", MEASURE, t.ROCESHARK, "read", "-r", path, "-q", "-z", "iwarp",
                 "-o", "iwarp.buffer:%d" % BOUND]).stdout
    get = lambda label: int(re.search(label + r"\s+(\d+)", out).group(1))
    peak = int(re.search(r"bytes now, (\d+) at most", out).group(1))
    return peak, get("maxrss_kb"), get("Reassembly bound hits:"), get("FPDUs:")


peak, rss, hits, fpdus = measured(hole)
peak_w, rss_w, hits_w, fpdus_w = measured(whole)
print("hole that never fills: reassembly memory at most %d bytes (bound %d x 8 connections), "
      "peak RSS %d KB; without the hole %d bytes, %d KB" % (peak, BOUND, rss, peak_w, rss_w))
t.check(hits > 0 and hits_w == 0, "bound hits: %d with the hole, %d without" % (hits, hits_w))
t.check(peak <= 8 * BOUND, "reassembly memory %d over 8 x %d" % (peak, BOUND))
t.check(rss <= rss_w + 8 * BOUND // 1024 + 4096, "peak RSS %d KB with the hole, %d without"
        % (rss, rss_w))
t.check(fpdus >= fpdus_w - 8 * 4, "only %d of %d FPDUs decoded after the holes" % (fpdus, fpdus_w))
t.finish("robustness")
