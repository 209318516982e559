#!/usr/bin/env python3
"""read --threads N writes what --threads 1 writes, byte for byte, with the same exit code.

Thread counts 1, 2, 4 and 7 over:
  - every capture of tests/captures/ and samples/, and the generated ones (RoCE of every
    opcode and encapsulation, iWARP reassembly with losses and retransmissions, TCP
    streams, ICMP echoes, odd timestamps), each alone at 1 thread and one of 2, 4 and 7 in
    turn: summary lines, the conversation and expert tables, -w;
  - the first frames of each pcap one, concatenated into one pcapng (thousands of
    frames in many batches), in every output family: summary lines (with -t dd after a filter), -P -V -x,
    -O, json, jsonraw, ek, jsonflat, fields, psml, pdml, every -z table, -w, -c, -2 -R;
  - an input error half-way (a truncated file): its stderr line and exit code too;
  - six capture points read as one (-r six times) against mergecap + read.
Frame order, tcp.stream/udp.stream and conversation ids are in the outputs compared.
"""
import os
import subprocess

import rstest as t

THREADS = (2, 4, 7)
# Frames of each capture in the one made of them all: some 1200 frames, 10 batches.
MOST = 28
CAPTURES_DIR = os.path.join(t.SOURCE_DIR, "tests", "captures")
SAMPLES = os.path.join(t.SOURCE_DIR, "samples")

FIELDS = ["frame.number", "frame.time_relative", "frame.time_delta_displayed", "ip.src",
          "tcp.stream", "udp.stream", "tcp.seq", "tcp.nxtseq", "icmp.resp_to",
          "roceshark.analysis.conv", "roceshark.analysis.psn_rel",
          "roceshark.analysis.request_frame", "roceshark.analysis.response_time",
          "roceshark.analysis.msg.first_frame", "roceshark.icrc", "iwarp_mpa.crc_check",
          "_ws.col.Info"]
TABLES = ["conv,qp", "expert", "io,phs", "io,stat,0", "conv,tcp", "conv,udp",
          "endpoints,ip", "iwarp"]


def captures(work):
    """The repository's captures and the generated ones."""
    found = []
    for root in (CAPTURES_DIR, SAMPLES):
        for d, _, names in os.walk(root):
            found += [os.path.join(d, n) for n in names if n.endswith((".pcap", ".pcapng"))]
    gen = os.path.join(work, "gen")
    for script, args in (("gen_roce.py", ["roce", "--seed", "7"]),
                         ("gen_iwarp.py", ["iwarp", "--seed", "1"]),
                         ("gen_synscan.py", ["synscan.pcap", "--frames", "2000"]),
                         ("gen_icmp.py", ["icmp.pcap"]),
                         ("gen_times.py", ["times"])):
        os.makedirs(os.path.join(gen, "times"), exist_ok=True)
        t.run([t.PYTHON, os.path.join(t.GEN_DIR, script)] + args, cwd=gen)
    for d, _, names in os.walk(gen):
        found += [os.path.join(d, n) for n in names if n.endswith((".pcap", ".pcapng"))]
    return sorted(found)


def read(args, threads, out_file=None):
    """(exit code, stdout, stderr, the -w file's bytes) of one read."""
    argv = [t.ROCESHARK, "read"] + args + ["--threads", str(threads)]
    if out_file is not None:
        argv += ["-w", out_file]
    p = subprocess.run(argv, capture_output=True)
    written = b""
    if out_file is not None and os.path.exists(out_file):
        written = open(out_file, "rb").read()
        os.unlink(out_file)
    return p.returncode, p.stdout, p.stderr, written


def same(what, args, work, write=False, threads=THREADS):
    """Runs args at one thread and at each of threads; records each difference."""
    out_file = os.path.join(work, "w.pcapng") if write else None
    want = read(args, 1, out_file)
    t.check(any(len(x) > 0 for x in want[1:]), "%s: printed nothing" % what)
    for n in threads:
        got = read(args, n, out_file)
        for k, name in enumerate(("exit code", "stdout", "stderr", "-w file")):
            if got[k] != want[k]:
                at = ""
                if k in (1, 2, 3):
                    a, b = want[k], got[k]
                    i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]),
                             min(len(a), len(b)))
                    at = " (from byte %d of %d/%d: %r against %r)" % (
                        i, len(a), len(b), a[i:i + 40], b[i:i + 40])
                t.check(False, "%s --threads %d: %s differs from --threads 1%s"
                        % (what, n, name, at))
                break


def main():
    work = t.tempdir()
    files = captures(work)
    t.check(len(files) >= 30, "only %d captures found" % len(files))

    # Each capture alone, from its first frame to its end: summary lines, two tables, -w,
    # at one thread and one of the others in turn (all of them below).
    for i, f in enumerate(files):
        args = ["-r", f, "-z", "conv,qp", "-z", "expert"]
        same(os.path.relpath(f, work if f.startswith(work) else t.SOURCE_DIR), args, work,
             write=True, threads=(THREADS[i % len(THREADS)],))

    # HTTP messages and TLS records over TCP segments: the segment that completes one is
    # formatted as it is analyzed (its message's bytes are the streams stage's), in every
    # family that prints them.
    reasm = os.path.join(CAPTURES_DIR, "tcp", "tcp_reasm.pcap")
    for args in (["-P", "-V", "-x"], ["-T", "pdml"], ["-T", "json", "-x"], ["-T", "ek"]):
        same("tcp_reasm.pcap " + " ".join(args), ["-r", reasm] + args, work, threads=(2, 4))

    # All of them as one capture: every family over many batches.
    merged = os.path.join(work, "all.pcapng")
    t.concatenate_pcaps([f for f in files if f.endswith(".pcap")], merged, MOST)
    families = [
        [],
        ["-T", "json"],
        ["-t", "dd", "-Y", "infiniband.bth.opcode == 4 || tcp.len > 0"],
        ["-P", "-V", "-x", "-S", "--"],
        ["-O", "infiniband,iwarp_ddp_rdmap,tcp"],
        ["-T", "jsonraw", "--no-duplicate-keys"],
        ["-T", "ek"],
        ["-T", "jsonflat"],
        ["-T", "fields", "-E", "header=y", "-E", "occurrence=a"] +
        [a for f in FIELDS for a in ("-e", f)],
        ["-T", "psml"],
        ["-T", "pdml"],
        ["-q"] + [a for z in TABLES for a in ("-z", z)],
        ["-c", "3000", "-o", "compat:4.4"],
        ["-2", "-R", "udp || tcp.port == 6000", "-t", "d"],
    ]
    for args in families:
        same("all captures %s" % " ".join(args), ["-r", merged] + args, work)
    same("all captures -w", ["-r", merged, "-q", "-Y", "roceshark.analysis.conv > 2"], work,
         write=True)

    # An input that ends in the middle of a frame: the frames before it, then the error.
    cut = os.path.join(work, "cut.pcapng")
    with open(merged, "rb") as src, open(cut, "wb") as dst:
        size = os.path.getsize(merged)
        dst.write(src.read(size * 2 // 3))
    rc = read(["-r", cut], 1)
    t.check(rc[0] != 0 and b"roceshark:" in rc[2], "the cut file read without an error: %d %r"
            % (rc[0], rc[2][-200:]))
    same("a cut capture", ["-r", cut, "-T", "fields", "-e", "frame.number", "-e",
                           "roceshark.analysis.conv"], work)

    # Several capture points as one stream: read -r A -r B -r C against mergecap + read.
    nodes = [f for f in files if "_nccl_nccl_node" in f or "_nccl_ring2_node" in f]
    t.check(len(nodes) == 6, "the nccl captures: %d" % len(nodes))
    by_mergecap = os.path.join(work, "nodes.pcapng")
    t.run(["mergecap", "-w", by_mergecap] + nodes)
    for args in ([], ["-T", "fields", "-e", "frame.number", "-e", "frame.time_relative", "-e",
                      "frame.time_delta", "-e", "tcp.stream", "-e", "roceshark.analysis.conv",
                      "-e", "_ws.col.Info"], ["-q", "-z", "conv,qp", "-z", "expert"]):
        want = read(["-r", by_mergecap] + args, 1)
        for n in (1, 2):
            got = read(sum([["-r", f] for f in nodes], []) + args, n)
            t.check(got[:3] == want[:3] and want[0] == 0 and len(want[1]) > 1000,
                    "read -r x6 %s --threads %d: not mergecap's (exit %d, %d bytes; mergecap + "
                    "read: exit %d, %d bytes)" % (" ".join(args), n, got[0], len(got[1]),
                                                  want[0], len(want[1])))

    print("%d captures, threads 1 and %s" % (len(files), ", ".join(map(str, THREADS))))
    t.finish("threads")


if __name__ == "__main__":
    main()
