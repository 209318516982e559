#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live capture on a veth pair across two network namespaces: RoCEv2, RoCEv1 and iWARP frames,
untagged and tagged, captured with -c N and compared byte for byte with what was sent (and
the default filter dropping everything else); SIGINT in the middle (valid file, frame count
== reported count); -b rotation (no frame lost or duplicated across files, dumpcap's
names); `read -i` decoding live as `read -r` decodes the same frames; a full disk."""
import glob
import os
import re
import struct
import subprocess

import livenet as ln
import rstest as t

ln.need_root()
tmp = t.tempdir()
pair = ln.VethPair("live")
IWARP_PORT = 4420


def ipv4_tcp(dport, payload):
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + 20 + len(payload), 1, 0x4000, 64, 6, 0,
                     bytes([10, 9, 0, 1]), bytes([10, 9, 0, 2]))
    tcp = struct.pack("!HHIIBBHHH", 40000, dport, 1, 0, 0x50, 0x18, 1024, 0, 0)
    return ln.DST_MAC + ln.SRC_MAC + b"\x08\x00" + ip + tcp + payload


def ipv4_udp(dport, payload):
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + 8 + len(payload), 1, 0, 64, 17, 0,
                     bytes([10, 9, 0, 1]), bytes([10, 9, 0, 2]))
    udp = struct.pack("!HHHH", 4791, dport, 8 + len(payload), 0)
    return ln.DST_MAC + ln.SRC_MAC + b"\x08\x00" + ip + udp + payload


def mixed_traffic(n):
    """(everything sent, the RDMA frames among it): noise between the RDMA frames, which
    the default filter must drop. The noise includes UDP *from* port 4791 (to port 53)."""
    rdma = ln.rdma_frames(n)
    iwarp = [ipv4_tcp(IWARP_PORT, b"MPA-FPDU" + bytes([i]) * 40) for i in range(4)]
    iwarp.append(ln.tagged(ipv4_tcp(IWARP_PORT, b"tagged iWARP" * 3), [(0x8100, 42)]))
    noise = [ipv4_udp(53, b"dns?" * 10), ipv4_tcp(80, b"GET / HTTP/1.1\r\n"),
             ln.tagged(ipv4_udp(53, b"tagged dns" * 5), [(0x8100, 42)]),
             ln.DST_MAC + ln.SRC_MAC + b"\x08\x06" + bytes(46)]
    sent, want = [], []
    for i, f in enumerate(rdma):
        sent.append(f)
        want.append(f)
        if i % 5 == 0:
            sent.append(noise[(i // 5) % len(noise)])
        if i % 9 == 0 and iwarp:
            f = iwarp.pop()
            sent.append(f)
            want.append(f)
    return sent, want


# --- -c N: byte for byte, default filter -------------------------------------------------
sent, want = mixed_traffic(60)
send_pcap = os.path.join(tmp, "send.pcap")
ln.write_pcap(send_pcap, sent)
out = os.path.join(tmp, "count.pcap")
p = ln.start(pair, ["capture", "-i", pair.if_b, "-w", out, "-c", str(len(want)),
                    "--iwarp-port", str(IWARP_PORT)])
pair.send(send_pcap)
rc, _, err, counts = ln.finish(p)
t.check(rc == 0, "-c: exit %d: %s" % (rc, err))
magic, linktype, recs = ln.read_pcap(out)
got = [r[2] for r in recs]
t.check(linktype == 1 and magic == 0xA1B2C3D4,
        "-c: linktype %d magic %08x (want Ethernet, microsecond: system clock)" % (linktype, magic))
t.check(len(got) == len(want), "-c: %d frames captured, want %d" % (len(got), len(want)))
bad = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
t.check(not bad, "-c: frames differ from those sent at %s" % bad[:5])
t.check(all(r[3] == len(r[2]) for r in recs), "-c: original length != captured length")
t.check(counts is not None and counts["received"] == len(want) and counts["done"] == len(want)
        and counts["kernel"] == 0, "-c: counts %r" % counts)
t.check(ln.tshark_count(out) == len(want), "-c: tshark reads a different count")
# The default filter keeps tagged frames, and the tags come back as they were sent.
t.check(sum(1 for f in got if f[12:14] in (b"\x81\x00", b"\x88\xa8")) >= 20,
        "-c: too few tagged frames captured")

# -f replaces the default filter: only the tagged frames.
out = os.path.join(tmp, "bpf.pcap")
n_vlan = sum(1 for f in sent if f[12:14] in (b"\x81\x00", b"\x88\xa8"))
p = ln.start(pair, ["capture", "-i", pair.if_b, "-w", out, "-c", str(n_vlan), "-f", "vlan"])
pair.send(send_pcap)
rc, _, err, counts = ln.finish(p)
got = [r[2] for r in ln.read_pcap(out)[2]]
t.check(rc == 0 and got == [f for f in sent if f[12:14] in (b"\x81\x00", b"\x88\xa8")],
        "-f vlan: %d frames, rc %d %s" % (len(got), rc, err))

# -s: frames cut to the snapshot length, original length kept.
out = os.path.join(tmp, "snap.pcap")
p = ln.start(pair, ["capture", "-i", pair.if_b, "-w", out, "-c", "10", "-s", "64",
                    "--iwarp-port", str(IWARP_PORT)])
pair.send(send_pcap)
rc, _, err, _ = ln.finish(p)
recs = ln.read_pcap(out)[2]
t.check(rc == 0 and len(recs) == 10 and all(len(r[2]) == min(64, r[3]) for r in recs) and
        [r[2] for r in recs] == [f[:64] for f in want[:10]], "-s 64: %r" % err)

# -w -: pcap on standard output.
p = ln.start(pair, ["capture", "-i", pair.if_b, "-w", "-", "-c", "5",
                    "--iwarp-port", str(IWARP_PORT)])
pair.send(send_pcap)
rc, stdout, err, _ = ln.finish(p)
piped = os.path.join(tmp, "stdout.pcap")
open(piped, "wb").write(stdout)
t.check(rc == 0 and [r[2] for r in ln.read_pcap(piped)[2]] == want[:5], "-w -: %r" % err)

# --- SIGINT in the middle -----------------------------------------------------------------
stream = ln.rdma_frames(3000, seed=11)
stream_pcap = os.path.join(tmp, "stream.pcap")
ln.write_pcap(stream_pcap, stream)
out = os.path.join(tmp, "sigint.pcap")
p = ln.start(pair, ["capture", "-i", pair.if_b, "-w", out])
# The interrupt comes between two known frames: after the sender's first half, before its
# second, whatever the machine's load. The capture drains its ring after the break, so it
# keeps every frame sent before the signal and none sent after its end.
sender = pair.send_async(stream_pcap, hold_at=len(stream) // 2)
held = ln.wait_held(sender)
ln.interrupt(p)
rc, _, err, counts = ln.finish(p)
ln.release(sender)
sender.wait(timeout=60)
recs = ln.read_pcap(out)[2]
got = [r[2] for r in recs]
t.check(rc == 0, "SIGINT: exit %d: %s" % (rc, err))
t.check(len(got) == held, "SIGINT: %d frames, want the %d sent before it" % (len(got), held))
t.check(counts is not None and counts["done"] == len(got) and counts["received"] == len(got),
        "SIGINT: file has %d frames, counts say %r" % (len(got), counts))
t.check(got == stream[:len(got)], "SIGINT: the frames are not the first %d sent" % len(got))
t.check(ln.tshark_count(out) == len(got), "SIGINT: tshark disagrees on the file")

# --- -b rotation --------------------------------------------------------------------------
ring_dir = os.path.join(tmp, "ring")
os.mkdir(ring_dir)
few = stream[:400]
few_pcap = os.path.join(tmp, "few.pcap")
ln.write_pcap(few_pcap, few)
p = ln.start(pair, ["capture", "-i", pair.if_b, "-w", os.path.join(ring_dir, "cap.pcap"),
                    "-b", "filesize:5", "-c", str(len(few))])
pair.send(few_pcap)
rc, _, err, counts = ln.finish(p)
files = sorted(glob.glob(os.path.join(ring_dir, "*")))
names_ok = all(re.fullmatch(r"cap_\d{5}_\d{14}\.pcap", os.path.basename(f)) for f in files)
t.check(rc == 0 and names_ok, "-b: rc %d, names %r" % (rc, [os.path.basename(f) for f in files]))
nums = [int(os.path.basename(f)[4:9]) for f in files]
t.check(nums == list(range(1, len(files) + 1)), "-b: numbers %r" % nums)
t.check(len(files) >= 5, "-b filesize:5 made only %d files" % len(files))
joined = []
for f in files:
    recs = ln.read_pcap(f)[2]
    size = os.path.getsize(f)
    joined += [r[2] for r in recs]
    if f != files[-1]:
        last = 16 + len(recs[-1][2]) if recs else 0
        t.check(size >= 5000 and size - last < 5000,
                "-b: %s is %d bytes: not switched right after 5 kB" % (f, size))
t.check(joined == few, "-b: %d frames across files, want the %d sent, in order, once each"
        % (len(joined), len(few)))

# -b files:N keeps the newest N.
ring2 = os.path.join(tmp, "ring2")
os.mkdir(ring2)
p = ln.start(pair, ["capture", "-i", pair.if_b, "-w", os.path.join(ring2, "keep"),
                    "-b", "filesize:5", "-b", "files:3", "-c", str(len(few))])
pair.send(few_pcap)
rc, _, err, _ = ln.finish(p)
kept = sorted(glob.glob(os.path.join(ring2, "*")))
t.check(rc == 0 and len(kept) == 3, "-b files:3 left %d files" % len(kept))
t.check(all(re.fullmatch(r"keep_\d{5}_\d{14}", os.path.basename(f)) for f in kept),
        "-b: a name without extension: %r" % kept)
tail = []
for f in kept:
    tail += [r[2] for r in ln.read_pcap(f)[2]]
t.check(tail == few[len(few) - len(tail):], "-b files:3: the kept files are not the newest")

# --- read -i ------------------------------------------------------------------------------
fields = ["-T", "fields", "-e", "frame.len", "-e", "vlan.id", "-e", "infiniband.bth.opcode",
          "-e", "infiniband.bth.psn", "-e", "roceshark.icrc.status"]
p = ln.start(pair, ["read", "-i", pair.if_b, "-l", "-c", "30"] + fields)
pair.send(few_pcap)
rc, stdout, err, counts = ln.finish(p)
live_lines = stdout.decode().splitlines()
ref = os.path.join(tmp, "ref.pcap")
ln.write_pcap(ref, few[:30])
file_lines = t.run([t.ROCESHARK, "read", "-r", ref] + fields).stdout.splitlines()
t.check(rc == 0 and live_lines == file_lines and len(live_lines) == 30,
        "read -i: %d lines, rc %d: %r vs %r" % (len(live_lines), rc, live_lines[:2],
                                                 file_lines[:2]))
t.check(all(l.endswith("\t1") for l in live_lines), "read -i: ICRC not good live")

# read -i and SIGINT: ends cleanly with what it decoded.
p = ln.start(pair, ["read", "-i", pair.if_b, "-l"])
pair.send(few_pcap)
ln.interrupt(p)          # after the last frame went out: the drain after the break keeps it
rc, stdout, err, counts = ln.finish(p)
lines = stdout.decode().splitlines()
t.check(rc == 0 and len(lines) == len(few) and "RRoCE" in lines[0],
        "read -i + SIGINT: rc %d, %d lines of %d: %s" % (rc, len(lines), len(few), err))
t.check(counts is not None and counts["done"] == len(few), "read -i counts: %r" % counts)

# --- a full disk --------------------------------------------------------------------------
mnt = os.path.join(tmp, "small")
os.mkdir(mnt)
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", mnt], check=True)
try:
    big = ln.rdma_frames(200, seed=5, payload_len=1024)
    big_pcap = os.path.join(tmp, "big.pcap")
    ln.write_pcap(big_pcap, big)
    out = os.path.join(mnt, "full.pcap")
    p = ln.start(pair, ["capture", "-i", pair.if_b, "-w", out])
    # Bursts of 20 frames (about 22 kB) with pauses: the writer flushes in each pause.
    pair.send(big_pcap, pause_every=20, pause_ms=600)
    try:
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        ln.interrupt(p)
        t.check(False, "full disk: the capture did not stop by itself")
    rc, _, err, counts = ln.finish(p)
    recs = ln.read_pcap(out)[2]       # raises if the file is not whole
    got = [r[2] for r in recs]
    t.check(rc == 3 and "roceshark: " + out + ": No space left on device" in err,
            "full disk: rc %r, stderr %r" % (rc, err))
    t.check(len(got) >= 40 and got == big[:len(got)], "full disk: %d frames kept" % len(got))
    t.check(counts is not None and counts["done"] == len(got),
            "full disk: file has %d frames, counts say %r" % (len(got), counts))
    t.check(ln.tshark_count(out) == len(got), "full disk: tshark finds the file damaged")
finally:
    subprocess.run(["umount", mnt])

t.finish("live")
