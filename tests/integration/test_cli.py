#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The command line: output formats on a real capture, and bad files, fields and options
answered with one line on stderr ("roceshark: <what>: <why>") and the documented exit code.

The capture is ib_read_bw between two Soft-RoCE VMs (tests/captures/real): 21 TCP frames of
perftest's exchange, then five RDMA Read Requests and their Read Responses First, Middle and
Last. Its values below are tshark 4.0's."""
import json
import os
import struct
import sys

import rstest as t

CAP = os.path.join(t.REAL_CAPTURES, "linlinw5_rdma_ib_tutorial__pcap_rdma_read_bw.pcap")
tmp = t.tempdir()


def rs(*args, stdout=None):
    return t.run([t.ROCESHARK] + list(args), check_rc=False)


def expect_error(args, code, *words):
    p = rs(*args)
    lines = p.stderr.splitlines()
    t.check(p.returncode == code, "%s: exit %d, want %d" % (" ".join(args), p.returncode, code))
    t.check(len(lines) == 1 and lines[0].startswith("roceshark: "),
            "%s: want one 'roceshark: ' line on stderr, got %r" % (" ".join(args), p.stderr))
    for w in words:
        t.check(w in p.stderr, "%s: message %r lacks %r" % (" ".join(args), p.stderr, w))
    t.check(p.stdout == "", "%s: printed to stdout on error" % " ".join(args))


# Formats.
p = rs("read", "-r", CAP)
lines = p.stdout.splitlines()
t.check(p.returncode == 0 and len(lines) == 60, "text: %d lines" % len(lines))
t.check(len(lines) > 26 and "RRoCE 1086 RC RDMA Read Response First QP=0x00001e PSN=6433910 "
        "MSN=1 Payload=1024" in lines[26], "text line 27: %r" % lines[26:27])
p = rs("read", "-r", CAP, "-c", "5")
t.check(len(p.stdout.splitlines()) == 5, "-c 5 printed %d lines" % len(p.stdout.splitlines()))
frames = json.loads(rs("read", "-r", CAP, "-T", "jsonflat").stdout)
t.check(len(frames) == 60, "jsonflat: %d objects" % len(frames))
t.check(frames[21]["infiniband.reth.dmalen"] == "3000" and
        frames[21]["roceshark.icrc.status"] == "1",
        "jsonflat frame 22: %r" % frames[21].get("infiniband.reth.dmalen"))
t.check("infiniband.bth" not in frames[0], "jsonflat: a TCP frame has BTH fields")
# -T json is tshark's: the same values under _source.layers.<protocol>, subtrees as _tree.
docs = json.loads(rs("read", "-r", CAP, "-T", "json").stdout)
ib = docs[21]["_source"]["layers"]["infiniband"] if len(docs) == 60 else {}
t.check(ib.get("infiniband.reth_tree", {}).get("infiniband.reth.dmalen") == "3000" and
        docs[21]["_source"]["layers"]["roceshark"]["roceshark.icrc.status"] == "1",
        "json frame 22: %r" % ib)
# -T jsonflat -e: each object keeps only those fields, with the values -T fields prints.
picked = ["frame.number", "ip.addr", "infiniband.bth.psn"]
objs = json.loads(rs("read", "-r", CAP, "-T", "jsonflat", *sum([["-e", f] for f in picked],
                                                                [])).stdout)
rows = [x.split("\t") for x in rs("read", "-r", CAP, "-T", "fields",
                                  *sum([["-e", f] for f in picked], [])).stdout.splitlines()]
t.check(len(objs) == 60 and all(set(o) <= set(picked) for o in objs) and
        all([",".join(o[f]) if isinstance(o.get(f), list) else o.get(f, "") for f in picked]
            == r for o, r in zip(objs, rows)),
        "-T jsonflat -e: %r against %r" % (objs[21:22], rows[21:22]))
tree = rs("read", "-r", CAP, "-V", "-c", "22").stdout
t.check("    RETH - RDMA Extended Transport Header\n        Virtual Address: 0x000062ac533fd000"
        in tree,
        "-V lacks the RETH subtree")
p = rs("read", "-r", CAP, "-T", "fields", "-E", "header=y", "-E", "separator=,",
       "-e", "frame.number", "-e", "infiniband.bth.psn", "-c", "22")
out = p.stdout.splitlines()
t.check(out[:2] == ["frame.number,infiniband.bth.psn", "1,"] and out[-1] == "22,6433910",
        "-E header/separator: %r" % (out[:2] + out[-1:]))
# The CSV habits of tshark users: quotes around what is there, a BOM, either-end fields.
for opts in (["-E", "header=y", "-E", "separator=,", "-E", "quote=d"],
             ["-E", "quote=s", "-E", "bom=y", "-E", "occurrence=l"],
             ["-E", "quote=d", "-E", "occurrence=f", "-E", "aggregator=/s"]):
    args = ["-T", "fields"] + opts + ["-e", "frame.number", "-e", "infiniband.reth.va",
                                      "-e", "ip.addr", "-e", "tcp.port", "-e", "_ws.col.Protocol"]
    got = rs("read", "-r", CAP, *args).stdout
    want = t.run(["tshark", "-r", CAP] + args, check_rc=False).stdout
    t.check(got == want and got.count("\n") >= 60, "%s: differs from tshark's\n%s\n%s"
            % (" ".join(opts), got[:300], want[:300]))
# -t: the time column as tshark's, every format; "dd" counts from the frame shown before.
def time_column(lines):
    import re
    return [re.match(r"^\s*\d+\s+(.*?)\s+\S+ → ", x).group(1) for x in lines]


for fmt in ("r", "a", "ad", "u", "ud", "e", "d", "dd"):
    args = ["-t", fmt, "-Y", "frame.number != 2 && frame.number != 30"]
    got = time_column(rs("read", "-r", CAP, *args).stdout.splitlines())
    want = time_column(t.run(["tshark", "-r", CAP] + args, check_rc=False).stdout.splitlines())
    t.check(got == want and len(got) == 58, "-t %s: %r against tshark's %r"
            % (fmt, got[:3], want[:3]))
expect_error(["read", "-r", CAP, "-t", "x"], 1, "-t x")
# Filters a tshark user types: the bare protocol, bitwise tests, either-end fields; each
# selects the frames tshark selects.
for expr in ("frame", "!frame", "frame && infiniband", "infiniband.bth.opcode & 4",
             "infiniband.bth.opcode & 0x10", "udp.srcport & 0xff00", "ip.addr == 10.1.16.61",
             "tcp.port == 18515 && !(ip.addr == 10.1.16.62)", "udp.port == 4791"):
    got = rs("read", "-r", CAP, "-Y", expr, "-T", "fields", "-e", "frame.number").stdout
    want = t.run(["tshark", "-r", CAP, "-Y", expr, "-T", "fields", "-e", "frame.number"],
                 check_rc=False).stdout
    t.check(got == want, "-Y %s: %d frames, tshark %d" % (expr, got.count("\n"),
                                                          want.count("\n")))
expect_error(["read", "-r", CAP, "-Y", "ip.flags.df & 1"], 2, "FT_BOOLEAN cannot &")
listing = rs("fields", "infiniband.aeth").stdout.splitlines()
t.check(any(l.startswith("infiniband.aeth.syndrome.timer\tFT_UINT8\t") for l in listing),
        "fields listing lacks the AETH timer")
t.check(all(l.startswith("infiniband.aeth") for l in listing), "fields PREFIX filter")
t.check(len(rs("fields").stdout.splitlines()) > 100, "fields lists too few")
help_text = rs("--help").stdout
t.check("exit codes" in help_text and "2  unreadable" in help_text, "--help lacks exit codes")

# Errors.
expect_error(["read", "-r", "/nonexistent/cap.pcap"], 2, "/nonexistent/cap.pcap")
junk = os.path.join(tmp, "junk.pcap")
open(junk, "w").write("not a capture\n" * 10)
expect_error(["read", "-r", junk], 2, junk)
# A record past the 16 MiB bound: the frame before it is read, then one line and exit 2.
huge = os.path.join(tmp, "huge-record.pcap")
with open(huge, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
    f.write(struct.pack("<IIII", 0, 0, 60, 60) + bytes(60))
    f.write(struct.pack("<IIII", 0, 0, 16 * 1024 * 1024 + 1, 16 * 1024 * 1024 + 1) + bytes(64))
p = rs("read", "-r", huge)
t.check(p.returncode == 2 and len(p.stdout.splitlines()) == 1 and
        p.stderr == "roceshark: %s: corrupt capture file: a record of 16777217 bytes\n" % huge,
        "record past 16 MiB: exit %d, %r, %r" % (p.returncode, p.stdout, p.stderr))
expect_error(["read", "-r", CAP, "-T", "fields", "-e", "infiniband.bth.nosuch"], 1,
             "infiniband.bth.nosuch", "unknown field")
expect_error(["read", "-r", CAP, "-T", "yaml"], 1, "yaml")
expect_error(["read", "-r", CAP, "-Z"], 1, "-Z")
expect_error(["read", "-r", CAP, "-c", "many"], 1, "many")
expect_error(["read", "-r", CAP, "-T", "fields"], 1, "-e")
expect_error(["read", "-r", CAP, "-d", "udp.port==99999,roce"], 1, "udp.port==99999")
expect_error(["read", "-r", CAP, "-d", "udp.port==4792,nfs"], 1, "nfs")
expect_error(["read", "-r", CAP, "-E", "quote=x", "-T", "fields", "-e", "ip.src"], 1, "quote")
expect_error(["read", "-r", CAP, "-E", "colour=y", "-T", "fields", "-e", "ip.src"], 1, "colour")
expect_error(["read", "-r", CAP, "-x", "-T", "jsonflat"], 1, "-x")
# -j with an output it does not shape: tshark ignores it, and so do we, with a notice.
p = rs("read", "-r", CAP, "-j", "ip", "-T", "psml")
t.check(p.returncode == 0 and p.stdout == rs("read", "-r", CAP, "-T", "psml").stdout and
        p.stderr.startswith("roceshark: read: -j and -J ignored:") and
        len(p.stderr.splitlines()) == 1,
        "-j ip -T psml: exit %d, %r" % (p.returncode, p.stderr))
expect_error(["read", "-r", CAP, "--no-duplicate-keys"], 1, "--no-duplicate-keys")
expect_error(["read", "-r", CAP, "--no-such-option"], 1, "--no-such-option")
expect_error(["read"], 1, "-r")
expect_error(["frobnicate"], 1, "frobnicate")
expect_error(["fields", "zzz"], 1, "zzz")

# A capture cut in the middle of a record: what was read is printed, then the error.
data = open(CAP, "rb").read()
cut = os.path.join(tmp, "cut.pcap")
open(cut, "wb").write(data[:len(data) - 40])     # inside the last record (82 octets)
p = rs("read", "-r", cut)
t.check(p.returncode == 2 and len(p.stdout.splitlines()) == 59,
        "cut file: exit %d, %d lines" % (p.returncode, len(p.stdout.splitlines())))
t.check(p.stderr.startswith("roceshark: ") and cut in p.stderr and len(p.stderr.splitlines()) == 1,
        "cut file message: %r" % p.stderr)

# Output that cannot be written.
with open("/dev/full", "w") as full:
    p = t.subprocess.run([t.ROCESHARK, "read", "-r", CAP], stdout=full, stderr=t.subprocess.PIPE,
                         text=True)
t.check(p.returncode == 3 and p.stderr.startswith("roceshark: "), "/dev/full: exit %d %r"
        % (p.returncode, p.stderr))
with open("/dev/full", "w") as full:
    p = t.subprocess.run([t.ROCESHARK, "fields"], stdout=full, stderr=t.subprocess.PIPE,
                         text=True)
t.check(p.returncode == 3 and p.stderr == "roceshark: fields: standard output: No space left "
        "on device\n", "fields > /dev/full: exit %d %r" % (p.returncode, p.stderr))

# A long -q or -z run says how far it is on stderr when that is a terminal, and wipes the
# line before the statistics; with stderr not a terminal it says nothing. The capture comes
# through a pipe, slowly, so that the run takes longer than the second it waits.
def slow_read(stderr_tty):
    import pty
    import threading
    import time
    data = open(CAP, "rb").read()
    master = slave = None
    if stderr_tty:
        master, slave = pty.openpty()
    proc = t.spawn([t.ROCESHARK, "read", "-r", "-", "-q", "-z", "conv,qp"],
                   stdin=t.subprocess.PIPE, stdout=t.subprocess.PIPE,
                   stderr=slave if stderr_tty else t.subprocess.PIPE)
    got = []
    if stderr_tty:
        os.close(slave)

        def drain():
            while True:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    return
                if not chunk:
                    return
                got.append(chunk)
        reader = threading.Thread(target=drain)
        reader.start()
    # The file header and the first frames, then the rest after 1.5 s: 0x1000 frames at
    # least must have gone by when it looks at the clock, so send the capture many times
    # over (its header once).
    body = data[24:]
    proc.stdin.write(data[:24] + body * 80)
    proc.stdin.flush()
    time.sleep(1.5)
    proc.stdin.write(body * 80)
    proc.stdin.close()
    out = proc.stdout.read()
    err = proc.stderr.read() if not stderr_tty else b""
    proc.wait()
    if stderr_tty:
        reader.join(5)
        os.close(master)
        err = b"".join(got)
    return proc.returncode, out.decode(), err.decode()


# The bounds of docs/limits.md that `read` takes as preferences. At the bound the least
# recently used conversation or connection is evicted and counted on the -z line; out of
# range, one line and exit 1. rdma_demo.pcap has two QP conversations; gen_bench_iwarp.py's
# capture has 8 TCP connections, interleaved, so a table of one evicts at nearly every turn.
SAMPLE = os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap")
p = rs("read", "-r", SAMPLE, "-q", "-z", "conv,qp", "-o", "analysis.max_convs:1")
t.check(p.returncode == 0 and "RDMA QP conversations: 2 rows, 1 evicted from the analysis "
        "table, 0 requests forgotten (over 1024 per conversation), 0 CM REQs dropped (over 4096 "
        "awaiting a REP)\n" in p.stdout,
        "analysis.max_convs:1: exit %d %r" % (p.returncode, p.stdout[:200]))
p = rs("read", "-r", SAMPLE, "-q", "-z", "conv,qp")
t.check("2 rows, 0 evicted" in p.stdout, "default max_convs evicted: %r" % p.stdout[:200])
IWARP = os.path.join(tmp, "iwarp8.pcap")
t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_bench_iwarp.py"), IWARP, "--mbytes", "1"])
for conns, line in [(1, "24 (23 evicted from the table of 1)"),
                    (2, "24 (22 evicted from the table of 2)"),
                    (8, "8 (0 evicted from the table of 8)")]:
    p = rs("read", "-r", IWARP, "-q", "-z", "iwarp", "-o", "iwarp.max_conns:%d" % conns)
    t.check(p.returncode == 0 and "Connections:                %s\n" % line in p.stdout,
            "iwarp.max_conns:%d: exit %d %r" % (conns, p.returncode, p.stdout[:300]))
# A hole that never fills in each of the 8 connections: the window fills to the bound in all
# and the bytes past it are given up, counted. A bound in all below the one per direction
# lowers that one, so the memory held never passes it.
HOLE = os.path.join(tmp, "iwarp8hole.pcap")
t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_bench_iwarp.py"), HOLE, "--mbytes", "2", "--hole"])
p = rs("read", "-r", HOLE, "-q", "-z", "iwarp", "-o", "iwarp.memory:262144")
for line in ["Reassembly bound hits:      708", "Stream bytes given up:      217774",
             "Reassembly memory:          262144 bytes now, 262144 at most (bounds: 262144 per "
             "direction, 262144 in all)"]:
    t.check(line + "\n" in p.stdout, "iwarp.memory:262144: want %r in %r" % (line, p.stdout))
# HTTP messages and TLS records over TCP segments (tests/gen/gen_tcp_reasm.py): each one's
# segments and length on the segment that completes it, as tshark 4.0.17 gives them; kept
# within the bound a message, the rest not desegmented, counted on stderr; and at the bound
# in all, 2100 bytes hold one message of 1987 bytes (2075 with its list of segments), not
# the POST of 2602 after it, nor the record of 905 that begins in the segment completing
# the one of 1205 (held until the next frame).
REASM = os.path.join(t.SOURCE_DIR, "tests", "captures", "tcp", "tcp_reasm.pcap")
REASM_ARGS = ["-r", REASM, "-T", "fields", "-e", "frame.number", "-e", "tcp.reassembled.length",
              "-e", "tcp.segment", "-Y", "tcp.segments"]
ALL_MESSAGES = ("7\t1987\t5,6,7\n14\t2602\t12,13,14\n21\t3005\t19,20,21\n22\t1205\t21,22\n"
                "23\t905\t22,23\n39\t1987\t36,37,39\n")
UNKEPT = ("read: %d HTTP messages or TLS records over TCP segments were not desegmented: "
          "longer than the %d bytes kept of one, or past the %d kept of all at once (their "
          "segments stay data)\n")
for prefs, want, unkept in [([], ALL_MESSAGES, None),
                            (["-o", "tcp_reassembly.message:1024"], "23\t905\t22,23\n",
                             UNKEPT % (6, 1024, 67108864)),
                            (["-o", "tcp_reassembly.memory:2100"],
                             "7\t1987\t5,6,7\n22\t1205\t21,22\n39\t1987\t36,37,39\n",
                             UNKEPT % (3, 1048576, 2100))]:
    p = rs("read", *(REASM_ARGS + prefs))
    t.check(p.returncode == 0 and p.stdout == want, "%s: exit %d %r" % (prefs, p.returncode,
                                                                       p.stdout))
    t.check(unkept is None and "kept of one" not in p.stderr or
            unkept is not None and unkept in p.stderr, "%s: stderr %r" % (prefs, p.stderr))
    # the gap's message, which cannot complete, is the one let go
    t.check("read: 1 HTTP message or TLS record over TCP segments was not desegmented: a "
            "segment was missing, cut short or out of order, or the conversation was "
            "forgotten\n" in p.stderr, "%s: stderr %r" % (prefs, p.stderr))
for pref, why in [("analysis.max_convs:0", "expected 1 to 67108864 conversations"),
                  ("analysis.max_convs:67108865", "expected 1 to 67108864 conversations"),
                  ("iwarp.max_conns:0", "expected 1 to 67108864 connections"),
                  ("iwarp.buffer:131071", "expected 131072 to 1073741824 octets"),
                  ("iwarp.memory:131071", "expected 131072 to 1099511627776 octets"),
                  ("tcp_reassembly.message:1023", "expected 1024 to 1073741824 bytes"),
                  ("tcp_reassembly.memory:1023", "expected 1024 to 1099511627776 bytes")]:
    p = rs("read", "-r", SAMPLE, "-o", pref)
    t.check(p.returncode == 1 and p.stdout == "" and
            p.stderr == "roceshark: -o %s: %s\n" % (pref, why),
            "-o %s: exit %d %r" % (pref, p.returncode, p.stderr))
# One frame of 70 iWARP FPDUs: a field's first 64 occurrences (RS_MAX_OCCURRENCES) are printed
# and filtered on, the rest are not, and stderr says so.
sys.path.insert(0, t.GEN_DIR)
import ibframes  # noqa: E402
import iwarpframes as iw  # noqa: E402
conn = iw.Connection((bytes.fromhex("02000000000a"), bytes([10, 0, 0, 1]), 40000),
                     (bytes.fromhex("02000000000b"), bytes([10, 0, 0, 2]), 4791))
many = [f for _, f in conn.handshake()]


def send(d, start):
    dd = conn.dirs[d]
    many.append(conn.frame(d, bytes(dd.data[start:]), seq=dd.isn + 1 + start))


starts = [d.offset() for d in conn.dirs]
conn.exchange(False, True, False, True)
send(0, starts[0])
send(1, starts[1])
start = conn.dirs[0].offset()
for msn in range(1, 71):
    conn.dirs[0].add_fpdu(iw.ddp_untagged(3, True, 0, msn, 0, payload=b"abcd"), {})
send(0, start)
MANY = os.path.join(tmp, "fpdus70.pcap")
w = ibframes.PcapWriter(MANY, 1)
for f in many:
    w.write(f)
w.close()
# The frame cut is counted on stderr, once, whether the printer or the filter (or both)
# stopped at the bound.
CUT = ("read: 1 frame had a field with more than 64 occurrences: those after the 64th were "
       "not printed or filtered on\n")
p = rs("read", "-r", MANY, "-Y", "frame.number == 6", "-T", "fields", "-e", "iwarp_ddp.msn")
t.check(p.stdout == ",".join(str(n) for n in range(1, 65)) + "\n",
        "70 FPDUs: want MSNs 1..64 printed, got %r" % p.stdout)
t.check(p.returncode == 0 and p.stderr == CUT, "70 FPDUs, -e: exit %d %r"
        % (p.returncode, p.stderr))
for msn, frames in ((64, 1), (65, 0)):
    p = rs("read", "-r", MANY, "-Y", "iwarp_ddp.msn == %d" % msn, "-V")
    got = p.stdout.count("Frame 6:")
    t.check(got == frames, "70 FPDUs: iwarp_ddp.msn == %d matched %d frames" % (msn, got))
    t.check(p.returncode == 0 and p.stderr == CUT, "70 FPDUs, -Y msn == %d -V: exit %d %r"
            % (msn, p.returncode, p.stderr))
# Two passes that both cut frame 6 (the first filtering, the second printing) count it once.
p = rs("read", "-r", MANY, "-2", "-R", "iwarp_ddp.msn == 64", "-T", "fields", "-e",
       "iwarp_ddp.msn")
t.check(p.stdout == ",".join(str(n) for n in range(1, 65)) + "\n" and p.returncode == 0 and
        p.stderr == CUT, "70 FPDUs, -2 -R: exit %d %r %r" % (p.returncode, p.stdout, p.stderr))
p = rs("read", "-r", MANY, "-Y", "frame.number != 6", "-T", "fields", "-e", "iwarp_ddp.msn")
t.check(p.returncode == 0 and p.stderr == "", "the other frames cut nothing: %r" % p.stderr)
# The stream table holds 65536 TCP and UDP conversations: 65537 UDP flows, then the first
# again, forget two, and the first comes back as a new udp.stream; stderr counts them.
FLOWS = os.path.join(tmp, "flows65537.pcap")
with open(FLOWS, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i in list(range(65537)) + [0]:
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 32, 0, 0, 64, 17, 0,
                         bytes([10, i >> 16, (i >> 8) & 255, i & 255]), bytes([10, 9, 9, 9]))
        frame = (bytes.fromhex("02000000000b02000000000a0800") + ip +
                 struct.pack(">HHHH", 40000, 5000, 12, 0) + b"abcd")
        f.write(struct.pack("<IIII", 0, 0, len(frame), len(frame)) + frame)
p = rs("read", "-r", FLOWS, "-T", "fields", "-e", "udp.stream")
t.check(p.returncode == 0 and p.stdout.splitlines()[-2:] == ["65536", "65537"] and
        p.stderr == "read: 2 conversations forgotten by the TCP and UDP stream table (it holds "
        "65536): one that came back got a new tcp.stream or udp.stream\n",
        "65537 UDP flows: exit %d, last streams %r, %r" % (p.returncode, p.stdout.splitlines()[-2:],
                                                           p.stderr))
# -d takes 16 extra ports of each kind; a display filter nests 100 parentheses deep and a set
# holds 256 members. The one past each is refused, exit 1.
ports = [a for n in range(17) for a in ("-d", "udp.port==%d,roce" % (5000 + n))]
p = rs("read", "-r", SAMPLE, "-c", "1", *ports)
t.check(p.returncode == 1 and p.stdout == "" and
        p.stderr == "roceshark: -d udp.port==5016,roce: at most 16 extra ports\n",
        "17 -d ports: exit %d %r" % (p.returncode, p.stderr))
t.check(rs("read", "-r", SAMPLE, "-c", "1", *ports[:32]).returncode == 0, "16 -d ports refused")
for flt, why in [("(" * 101 + "frame" + ")" * 101,
                  "at position 101: parentheses nested more than 100 deep"),
                 ("udp.port in {%s}" % ", ".join(str(n) for n in range(257)),
                  "at position 1184: more than 256 set members")]:
    p = rs("read", "-r", SAMPLE, "-Y", flt)
    t.check(p.returncode == 2 and p.stdout == "" and p.stderr.startswith("roceshark: -Y ") and
            p.stderr.endswith(": %s\n" % why), "-Y bound: exit %d %r" % (p.returncode, p.stderr))
t.check(rs("read", "-r", SAMPLE, "-Y", "udp.port in {%s}"
           % ", ".join(str(n) for n in range(256))).returncode == 0, "256 set members refused")

rc, out, err = slow_read(True)
t.check(rc == 0 and "RDMA QP conversations" in out and "\rread: " in err and " frames" in err
        and err.endswith("\r\x1b[K"),
        "progress on a terminal: exit %d, stderr %r" % (rc, err[-120:]))
rc, out, err = slow_read(False)
t.check(rc == 0 and "RDMA QP conversations" in out and err == "",
        "no progress when stderr is not a terminal: exit %d, stderr %r" % (rc, err[:120]))
t.finish("cli")
