#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""iWARP connections from tests/gen/gen_iwarp.py, which knows what every frame must show:

  - every MPA Request, Reply and FPDU is found in the frame where its last octet arrives in
    order, with the ULPDU length, opcode, DDP header, markers, message length, Send
    reassembly and CRC verdict the generator wrote (corrupted CRCs included), on all 16
    combinations of markers and CRCs, revisions 1 and 2, FPDUs one per segment, split across
    segments and several in one, retransmitted, overlapped and out of order;
  - every Wireshark 4.0 iwarp_mpa.*, iwarp_ddp.* and iwarp_rdma.* field, and the payloads
    RDMAP hands on (data.data and data.len: a Write's and a Read Response's on each FPDU, a
    Send message's whole on its last one) with frame.protocols, prints exactly as tshark
    prints it wherever tshark 4.0 decodes the frame right. Where it does not, on
    purpose, the generator's truth says so and why:
      * markers with segments that do not hold exactly one FPDU: tshark counts markers from
        the segment's sequence number, as if FPDU and segment were one; and an FPDU that
        ends where a marker falls: tshark counts that marker (the next FPDU's) as its own;
      * the direction without markers of a connection where only the other one has them:
        tshark applies markers both ways when either side asked for them;
      * several Send FPDUs ending in one segment: tshark adds only the first to its Send
        reassembly (its cache is per frame), so its fragment list misses the others, and it
        hands on (data.*, frame.protocols) the first message ending there, not the others;
      * payloads of FPDUs with two markers or more (reassembled Send data, and data.data):
        tshark strips 512 octets between markers where 508 lie, leaving the second marker in
        the payload;
      * the pad of an FPDU with markers: tshark looks for a marker before the CRC by the
        segment's relative sequence number modulo 512, not by the distance from the first
        FPDU, and takes the pad from the wrong octets when the two disagree;
      * retransmitted, overlapping and out-of-order segments: tshark 4.0 does not reassemble
        out of order (by default) and drops an overlapping retransmission's new FPDUs;
      * segments of fewer than eight octets where an FPDU starts: tshark's MPA heuristic
        needs eight, and its stream is lost from there on (tiny.pcap);
      * iwarp_mpa.res.not_set0, .rev.not_set1, .reject_bit_responder: tshark 4.0 keeps these
        expert items out of its tree (never printed); roceshark makes them fields, and MPA
        revision 2 (RFC 6581) is not a wrong revision;
  - a capture that starts mid-connection (no handshake, no exchange) decodes with inferred
    framing: the FPDUs found are exactly the generator's, flagged roceshark.mpa.framing_
    inferred, and at most the first few of each direction are missed; tshark finds none;
  - -d tcp.port==N,iwarp decodes a connection without its exchange, and heuristics can be
    switched off;
  - bytes the capture missed but the receiver acknowledged are given up: the FPDU they cut is
    shown incomplete (CRC unverified), and framing resumes after them."""
import json
import os
import re

import rstest as t

out = t.tempdir()
t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_iwarp.py"), out, "--seed",
       os.environ.get("IWARP_SEED", "3")])
truth = {}
for line in open(os.path.join(out, "truth.jsonl")):
    r = json.loads(line)
    truth.setdefault(r["file"], []).append(r)

EXPERT_ONLY = {"iwarp_mpa.res.not_set0", "iwarp_mpa.rev.not_set1",
               "iwarp_mpa.reject_bit_responder"}
OURS = ["roceshark.mpa.crc.status", "roceshark.iwarp.msg.len", "roceshark.mpa.framing_inferred",
        "roceshark.iwarp.dir", "iwarp_rdma.send.fragment", "iwarp_rdma.send.reassembled.length",
        "roceshark.iwarp.retransmission", "roceshark.iwarp.out_of_order", "roceshark.encap"]
# The payloads RDMAP hands on (a Write's, a Read Response's, a whole Send message's on its
# last FPDU), one data per FPDU, and the layers each FPDU adds to frame.protocols.
PAYLOAD_FIELDS = t.DATA_FIELDS + ["frame.protocols"]
FIELDS = ["frame.number"] + t.IWARP_FIELDS + PAYLOAD_FIELDS
SEND_OPS = (3, 4, 5, 6)


def join(values):
    return ",".join(str(v) for v in values)


def expected(pdus):
    """What roceshark's fields must print for the PDUs that end in a frame."""
    fpdus = [p for p in pdus if p["kind"] == "fpdu"]
    e = {
        "iwarp_mpa": join(["iwarp_mpa"] * len(pdus)),
        "iwarp_mpa.req": join(["1"] * sum(p["kind"] == "req" for p in pdus)),
        "iwarp_mpa.rep": join(["1"] * sum(p["kind"] == "rep" for p in pdus)),
        "iwarp_mpa.ulpdulength": join(p["ulpdu_len"] for p in fpdus),
        "roceshark.mpa.crc.status": join(p["crc_status"] for p in fpdus),
        "iwarp_rdma.opcode": join("0x%02x" % p["opcode"] for p in fpdus),
        "iwarp_ddp.msn": join(p["msn"] for p in fpdus if not p["tagged"]),
        "iwarp_ddp.mo": join(p["mo"] for p in fpdus if not p["tagged"]),
        "iwarp_ddp.stag": join("0x%08x" % p["stag"] for p in fpdus if p["tagged"]),
        "iwarp_ddp.tagged_offset": join("0x%016x" % p["to"] for p in fpdus if p["tagged"]),
        "iwarp_ddp.last_flag": join(int(p["last"]) for p in fpdus),
        "iwarp_mpa.marker_fpduptr": join(m for p in fpdus for m in p["markers"]),
        "roceshark.iwarp.msg.len": join(p["msg_len"] for p in fpdus
                                        if p["msg_len"] is not None),
        "roceshark.mpa.framing_inferred": join(1 for p in fpdus if p["inferred"]),
        "iwarp_rdma.send.fragment": join(f for p in fpdus for f in p.get("send_frames", [])),
        "iwarp_rdma.send.reassembled.length": join(p["send_len"] for p in fpdus
                                                   if "send_len" in p),
    }
    return e


def check_truth(name, rows, frames, fields, partial=False):
    """roceshark against the generator, frame by frame. partial: the PDUs roceshark shows
    must be the generator's from some point on (framing found by inference)."""
    col = {f: i for i, f in enumerate(fields)}
    shown = wanted = 0
    for want, got in zip(frames, rows):
        n = want["frame"]
        pdus = want["pdus"]
        ulen = got[col["iwarp_mpa.ulpdulength"]]
        if partial:
            have = ulen.split(",") if ulen else []
            wanted += len([p for p in pdus if p["kind"] == "fpdu"])
            # The last PDUs of the frame: an FPDU found by inference is never followed by
            # one that was missed in the same frame.
            pdus = [p for p in pdus if p["kind"] == "fpdu"][len(pdus) - len(have):] \
                if len(have) <= len(pdus) else pdus
            shown += len(have)
        e = expected(pdus)
        if partial:
            # A Send the capture caught in the middle: its fragments before the framing was
            # found are not shown (Send reassembly is checked on the other files).
            e = {f: v for f, v in e.items() if not f.startswith("iwarp_rdma.send.")}
        for f, v in e.items():
            t.check(got[col[f]] == v, "%s frame %d %s: %r, truth %r" % (name, n, f, got[col[f]], v))
        flags = set(want["flags"])
        for flag, field in (("retransmission", "roceshark.iwarp.retransmission"),
                            ("out_of_order", "roceshark.iwarp.out_of_order")):
            t.check((got[col[field]] == "1") == (flag in flags),
                    "%s frame %d: %s %r, truth %s" % (name, n, field, got[col[field]], flags))
    return shown, wanted


def compare_tshark(name, path, frames, extra=()):
    """Every contract field on the frames tshark decodes right, minus the fields the truth
    says tshark gets wrong there."""
    want = t.tshark_fields(path, FIELDS, t.TSHARK_IWARP)
    got = t.roceshark_fields(path, FIELDS, extra)
    t.check(len(want) == len(got), "%s: tshark %d frames, roceshark %d" % (name, len(want), len(got)))
    compared = skipped = values = payloads = 0
    for w, g, tr in zip(want, got, frames):
        if not tr["tshark"]:
            skipped += 1
            continue
        compared += 1
        for i, f in enumerate(FIELDS):
            if f in EXPERT_ONLY or any(f.startswith(s) for s in tr["tshark_skip"]):
                continue
            values += 1
            a = w[i] if i < len(w) else ""
            b = g[i] if i < len(g) else ""
            payloads += f == "data.len" and a != ""
            t.check(a == b, "%s frame %d %s: tshark %r roceshark %r" % (name, tr["frame"], f, a, b))
    return compared, skipped, values, payloads


# The -V tree's iWARP protocols and data, frame by frame, in the order they come.
TREE_NAMES = (("iWARP Marker", "iwarp_mpa"), ("iWARP Direct", "iwarp_ddp_rdmap"),
              ("Data", "data"))


def tree_order(cmd):
    frames = []
    for line in t.run(cmd).stdout.splitlines():
        if line.startswith("Frame "):
            frames.append([])
        frames[-1:] = [frames[-1] + [n for p, n in TREE_NAMES if line.startswith(p)]] \
            if frames else []
    return frames


def compare_tree(name, path, frames):
    """The -V tree names MPA, DDP/RDMAP and data in tshark's order on the frames tshark
    decodes right."""
    want = tree_order(["tshark", "-n", "-V", "-r", path] + t.TSHARK_IWARP.split())
    got = tree_order([t.ROCESHARK, "read", "-V", "-r", path])
    n = 0
    for w, g, tr in zip(want, got, frames):
        if tr["tshark"] and not any(s in ("data.", "frame.protocols") for s in tr["tshark_skip"]):
            n += len(tr["pdus"]) > 1
            t.check(w == g, "%s frame %d -V: tshark %s roceshark %s" % (name, tr["frame"], w, g))
    return n


# --- the generated files, against the truth and against tshark ---

TRUTH_FIELDS = sorted(set(expected([]).keys()) | set(OURS))
for name in ("aligned.pcap", "random.pcap", "retrans.pcap", "tiny.pcap"):
    path = os.path.join(out, name)
    frames = truth[name]
    rows = t.roceshark_fields(path, TRUTH_FIELDS)
    t.check(len(rows) == len(frames), "%s: %d frames, truth %d" % (name, len(rows), len(frames)))
    check_truth(name, rows, frames, TRUTH_FIELDS)
    compared, skipped, values, payloads = compare_tshark(name, path, frames)
    print("%-14s %5d frames: %5d compared with tshark (%7d values, data in %4d), %4d where "
          "tshark 4.0 is wrong" % (name, len(frames), compared, values, payloads, skipped))
    t.check(compared > 0, "%s: no frame compared with tshark" % name)
    t.check(payloads > 0 or name == "tiny.pcap", "%s: no payload compared with tshark" % name)
    if name == "random.pcap":
        multi = compare_tree(name, path, frames)
        print("%-14s -V: MPA, DDP/RDMAP and data in tshark's order (%d frames of several "
              "PDUs)" % (name, multi))
        t.check(multi > 0, "%s: no frame of several PDUs in the tree" % name)

# Every RDMAP opcode and every CRC verdict was exercised.
seen_ops, seen_crc, seen_markers = set(), set(), 0
for frames in truth.values():
    for fr in frames:
        for p in fr["pdus"]:
            if p["kind"] == "fpdu":
                seen_ops.add(p["opcode"])
                seen_crc.add(p["crc_status"])
                seen_markers += len(p["markers"])
t.check(seen_ops == set(range(12)), "opcodes exercised: %s" % sorted(seen_ops))
t.check(seen_crc == {0, 1, 3}, "CRC verdicts exercised: %s" % sorted(seen_crc))
t.check(seen_markers > 100, "only %d markers" % seen_markers)

# Reject: the Reply's R bit, and the connection's frames say so.
rows = t.roceshark_fields(os.path.join(out, "aligned.pcap"),
                          ["iwarp_mpa.rej_flag", "iwarp_mpa.reject_bit_responder",
                           "roceshark.iwarp.rejected"])
rej = [r for r in rows if r[0] == "1"]
t.check(len(rej) == 1 and rej[0][1] == "1" and rej[0][2] == "1",
        "rejected connection: %r" % rej)

# MPA revision 2: IRD/ORD and the peer-to-peer bits of RFC 6581, and no warning about it.
rows = t.roceshark_fields(os.path.join(out, "aligned.pcap"),
                          ["iwarp_mpa.rev", "roceshark.mpa.v2.ird", "roceshark.mpa.v2.ord",
                           "roceshark.mpa.v2.peer_to_peer", "roceshark.mpa.v2.rtr_write",
                           "iwarp_mpa.rev.not_set1", "iwarp_mpa.req"])
v2 = [r for r in rows if r[0] == "2"]
t.check(len(v2) == 16, "%d MPA revision 2 frames, want 16" % len(v2))
for r in v2:
    ird, ord_ = ("64", "16") if r[6] == "1" else ("16", "64")
    t.check(r[1:6] == [ird, ord_, "1", "1", ""], "revision 2 frame: %r" % r)

# --- mid-connection: inferred framing ---

for name, extra in (("midstream.pcap", []), ("forced.pcap", ["-d", "tcp.port==7777,iwarp"]),
                    ("forced.pcap", [])):
    path = os.path.join(out, name)
    frames = truth[name]
    rows = t.roceshark_fields(path, TRUTH_FIELDS, extra)
    shown, wanted = check_truth(name, rows, frames, TRUTH_FIELDS, partial=True)
    print("%-14s %s: %d of %d FPDUs found by inference" % (name, " ".join(extra) or "heuristics",
                                                           shown, wanted))
    t.check(wanted > 0 and shown >= wanted * 0.85,
            "%s: only %d of %d FPDUs found" % (name, shown, wanted))
    ts = t.tshark_fields(path, ["iwarp_mpa.fpdu"], t.TSHARK_IWARP)
    t.check(all(r == [""] for r in ts), "%s: tshark decodes FPDUs without the exchange?" % name)
rows = t.roceshark_fields(os.path.join(out, "forced.pcap"), ["iwarp_mpa.fpdu"],
                          ["-o", "iwarp.heuristics:off"])
t.check(all(r == [""] for r in rows), "heuristics off: FPDUs still inferred")

# --- bytes the capture never had ---

path = os.path.join(out, "lossy.pcap")
rows = t.roceshark_fields(path, ["iwarp_ddp.msn", "roceshark.mpa.crc.status",
                                 "roceshark.iwarp.gap", "roceshark.mpa.incomplete",
                                 "tcp.srcport"])
msns = [int(m) for r in rows if r[4] == "42000" for m in r[0].split(",") if m]
stat = [s for r in rows if r[4] == "42000" for s in r[1].split(",") if s]
t.check(any(r[2] == "1" for r in rows), "lossy.pcap: no frame flags the gap")
t.check(any(r[3] == "1" for r in rows), "lossy.pcap: no FPDU shown incomplete")
t.check(msns == sorted(msns) and len(set(msns)) == len(msns), "lossy.pcap: MSNs %s" % msns)
t.check(msns[:3] == [1, 2, 3] and msns[-1] == 40, "lossy.pcap: MSNs %s" % msns)
want = json.load(open(os.path.join(out, "lossy.json")))["msns"]
t.check(msns == want, "lossy.pcap: MSNs %s, want those whose header was captured: %s"
        % (msns, want))
lost = set(range(1, 41)) - set(msns)
t.check(stat.count("0") == 0 and stat.count("2") >= 1,
        "lossy.pcap: CRC verdicts %s (none bad, the cut one unverified)" % stat)
print("lossy.pcap: %d FPDUs lost to the gap, %d decoded" % (len(lost), len(msns)))

# --- MPA revision 1 without markers or CRC, as siw sends by default: every field as tshark ---
# siw.pcap from the generator, and the real captures of a user-space stack talking to the
# kernel's siw (kazikame, not in the repository: see tests/captures/real/SOURCES.md) when the
# extra captures are there.

siw = [os.path.join(out, "siw.pcap")]
siw += [p for p in (t.extra_capture(n) for n in sorted(t.EXTRA_CAPTURES)
                    if n.startswith("kazikame_")) if p]
for path in siw:
    name = os.path.basename(path)
    bad, total = t.fields_diff(path, t.IWARP_FIELDS + PAYLOAD_FIELDS, t.TSHARK_IWARP)
    t.check(bad == 0, "%s: %d of %d values differ from tshark" % (name, bad, total))
    rows = t.roceshark_fields(path, ["roceshark.mpa.crc.status", "iwarp_ddp.last_flag",
                                     "iwarp_ddp.untagged", "roceshark.iwarp.msg.len"])
    fpdus = [r for r in rows if r[0]]
    t.check(fpdus and all(r[0] == "3" for r in fpdus), "%s: CRC status %r (C=0: not present)"
            % (name, [r[0] for r in fpdus]))
    # Every message's last untagged FPDU (L=1) carries the message's length.
    last_untagged = [r for r in fpdus if r[1] == "1" and r[2]]
    t.check(last_untagged and all(r[3] for r in last_untagged),
            "%s: message length missing" % name)
    print("%-44s %5d values match tshark" % (name, total))
# --- payloads at their edges, built by roceshark inject: an empty Write and Send, a Send
# whose last FPDU is empty, one of two empty FPDUs, a Read Response's FPDU before its last:
# data only where octets are handed on, as tshark shows it ---
FWD = "eth / ip(src=10.0.0.1, dst=10.0.0.2) / tcp(srcport=40000, dstport=9999) / "
REV = "eth / ip(src=10.0.0.2, dst=10.0.0.1) / tcp(srcport=9999, dstport=40000) / "
EDGES = [FWD + "mpareq(rev=1) / payload(hex=00010002)", REV + "mparep(rev=1)",
         FWD + "ddp(stag=0x1234, tagged_offset=0x1000) / rdmap(opcode=Write)",
         FWD + "ddp(msn=1, mo=0, last_flag=1) / rdmap(opcode=Send)",
         FWD + "ddp(msn=2, mo=0, last_flag=0) / rdmap(opcode=Send) / payload(len=5)",
         FWD + "ddp(msn=2, mo=5, last_flag=1) / rdmap(opcode=Send)",
         FWD + "ddp(msn=3, mo=0, last_flag=0) / rdmap(opcode=Send)",
         FWD + "ddp(msn=3, mo=0, last_flag=1) / rdmap(opcode=Send)",
         REV + "ddp(stag=5, tagged_offset=0x40, last_flag=0) / rdmap(opcode=\"Read Response\") / "
         "payload(len=6)"]
spec = os.path.join(out, "edges.txt")
open(spec, "w").write("\n".join(EDGES) + "\n")
path = os.path.join(out, "edges.pcap")
t.run([t.ROCESHARK, "inject", "-w", path, "-F", spec])
# (tshark prints the empty reassembled data of the Send of empty FPDUs as "<MISSING>".)
bad, total = t.fields_diff(path, [f for f in t.IWARP_FIELDS
                                  if f != "iwarp_rdma.send.reassembled.data"] + PAYLOAD_FIELDS,
                           t.TSHARK_IWARP)
t.check(bad == 0, "edges.pcap: %d of %d values differ from tshark" % (bad, total))
rows = t.roceshark_fields(path, ["data.len"])
t.check([r[0] for r in rows] == [""] * 5 + ["5", "", "", "6"], "edges.pcap data.len: %r" % rows)
print("%-44s %5d values match tshark" % ("edges.pcap", total))

# PDML places each payload where the frame holds it, as tshark does (a reassembled Send's
# lies in no frame: tshark gives position 0 in its own buffer, roceshark none).
def pdml_data(cmd):
    return re.findall(r'<field name="data.data" [^>]*?size="(\d+)" pos="(\d+)"',
                      t.run(cmd).stdout)


want = pdml_data(["tshark", "-n", "-T", "pdml", "-r", siw[0]] + t.TSHARK_IWARP.split())
got = pdml_data([t.ROCESHARK, "read", "-T", "pdml", "-r", siw[0]])
placed = [(w, g) for w, g in zip(want, got) if w[1] != "0"]
t.check(len(want) == len(got) and placed and all(w == g for w, g in placed),
        "siw.pcap PDML data.data size, pos: tshark %s roceshark %s" % (want, got))

frames = truth["siw.pcap"]
rows = t.roceshark_fields(siw[0], TRUTH_FIELDS)
t.check(len(rows) == len(frames) and all(f["tshark"] for f in frames),
        "siw.pcap: %d frames, truth %d" % (len(rows), len(frames)))
check_truth("siw.pcap", rows, frames, TRUTH_FIELDS)

# --disable-heuristic iwarp_mpa_tcp: tshark finds MPA by that heuristic alone, so without it
# each connection is TCP and its data; --enable-heuristic does not undo it, whatever the order.
cols = ["-T", "fields", "-e", "frame.number", "-e", "frame.protocols", "-e",
        "_ws.col.Protocol"]
for switches in (["--disable-heuristic", "iwarp_mpa_tcp"],
                 ["--disable-heuristic", "iwarp_mpa_tcp", "--enable-heuristic", "iwarp_mpa_tcp"]):
    want = t.run(["tshark", "-r", siw[0]] + switches + t.TSHARK_IWARP.split() + cols).stdout
    got = t.run([t.ROCESHARK, "read", "-r", siw[0]] + switches + cols).stdout
    t.check(got == want and "iwarp" not in got and ":tcp:data\t" in got,
            "siw.pcap %s: frame.protocols and Protocol differ from tshark's"
            % " ".join(switches))
got = t.run([t.ROCESHARK, "read", "-r", siw[0], "--enable-heuristic", "iwarp_mpa_tcp"] +
            cols).stdout
t.check("iwarp_ddp_rdmap" in got, "siw.pcap --enable-heuristic iwarp_mpa_tcp: no iWARP")
t.finish("iwarp")
