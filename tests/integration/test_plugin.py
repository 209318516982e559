#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The Wireshark plugin, run inside the tshark on PATH (4.0 here; 4.4 and 4.6 in the Debian
roots of scripts/test-wireshark.sh) as an unprivileged user, loaded the way the README says:
from the personal plugin folder (~/.local/lib/wireshark/plugins/<major>.<minor>/epan):
  - `tshark -G plugins` lists it beside Wireshark's own plugins (WIRESHARK_PLUGIN_DIR would
    have hidden those);
  - on the simulated RC fault traces and every real capture, every roceshark.* field that
    tshark prints through the plugin equals what `roceshark read -T fields` prints, and the
    Info column carries the same marks ([Retransmission], [PSN gap N], [Bad ICRC], ...);
  - display filters on those fields select the same frames in tshark and in roceshark;
  - a two-pass run (tshark -2) prints exactly what a one-pass run prints, but for the links
    from a request to its response and ACK, which go both ways;
  - `-z roceshark,qp` has the numbers of `roceshark read -z conv,qp`, and
    `-z roceshark,qp,FILTER` those of `-z conv,qp,FILTER` (the frames the filter takes);
  - `-z conv,roceshark` (Statistics > Conversations' tab) has one row per conversation with
    its frames;
  - those tables count the same after -T fields, -q and -V, in one pass or two, and two
    filtered tables in one run each count their own filter's frames.
Everything tshark reads is copied into a world-readable scratch folder first, so the test
does not depend on where the build or the captures live."""
import collections
import glob
import os
import re
import shutil
import struct
import subprocess

import rstest as t

PLUGIN = os.environ.get("ROCESHARK_PLUGIN")
PRELOAD = os.environ.get("ROCESHARK_PLUGIN_PRELOAD", "")
if not PLUGIN or not os.path.exists(PLUGIN):
    print("ROCESHARK_PLUGIN does not name the built plugin")
    raise SystemExit(1)

scratch = t.tempdir()
os.chmod(scratch, 0o755)
# The personal plugin folder of a user whose home is scratch.
plugdir = os.path.join(scratch, ".local", "lib", "wireshark", "plugins")
# The build puts the plugin in plugins/<major>.<minor>/epan, the Wireshark it was built for.
WS_VERSION = os.path.basename(os.path.dirname(os.path.dirname(PLUGIN)))
epan = os.path.join(plugdir, WS_VERSION, "epan")
os.makedirs(epan)
shutil.copy(PLUGIN, os.path.join(epan, "roceshark.so"))
for d, _, files in os.walk(plugdir):
    os.chmod(d, 0o755)
    for f in files:
        os.chmod(os.path.join(d, f), 0o755)


def readable(path):
    """A copy of path in the scratch folder that the unprivileged user can read."""
    dst = os.path.join(scratch, os.path.basename(path))
    if not os.path.exists(dst):
        shutil.copy(path, dst)
        os.chmod(dst, 0o644)
    return dst


def tshark(args):
    env = {"PATH": "/usr/bin:/bin", "HOME": scratch, "ASAN_OPTIONS": "detect_leaks=0", "UBSAN_OPTIONS": "halt_on_error=1"}
    if PRELOAD:
        env["LD_PRELOAD"] = PRELOAD
    cmd = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "tshark"]
    if args[0] != "-G":     # -G must come first
        cmd.append("-n")
    p = subprocess.run(cmd + args, capture_output=True, text=True,
                       env=t.reference_cache.tshark_env(env))
    t.check(p.returncode == 0, "tshark %s: exit %d: %s" % (" ".join(args[:4]), p.returncode,
                                                           p.stderr[-400:]))
    return p.stdout


ours = [l.split("\t")[0] for l in t.run([t.ROCESHARK, "fields", "roceshark."]).stdout.splitlines()]
# roceshark.analysis and roceshark (protocols) have no value to print.
fields = [f for f in ours if f not in ("roceshark.analysis",)]

if PRELOAD:
    # With the sanitizer runtimes preloaded, -G plugins hangs starting the extcap helpers
    # (which inherit the preload); -G protocols shows the plugin loaded just as well.
    t.check("\troceshark\troceshark" in tshark(["-G", "protocols"]),
            "tshark -G protocols does not list roceshark")
else:
    listed = tshark(["-G", "plugins"])
    t.check("roceshark.so" in listed and epan in listed,
            "tshark -G plugins does not list roceshark from %s:\n%s" % (epan, listed))
    # Wireshark's own stay: stats_tree (Statistics > IPv4 Statistics) and transum.
    for own in ("stats_tree.so", "transum.so"):
        t.check(own in listed, "tshark -G plugins lost Wireshark's own %s:\n%s" % (own, listed))

# Help texts speak to someone in Wireshark's GUI: every roceshark.* field and expert item has
# one (the status bar and the field list show it), none only its name again (the
# roceshark.cm.* fields say what they mean, in what units, and IBTA's name and section),
# none in command-line words, and an expert item's help says more than its summary. (-G
# fields: F, name, abbrev, type, protocol, base, bitmask, blurb.)
helps = {}
for line in tshark(["-G", "fields"]).splitlines():
    cols = line.split("\t")
    if len(cols) >= 8 and cols[0] == "F" and cols[2].startswith("roceshark"):
        helps[cols[2]] = (cols[1], cols[7])
CLI_WORDS = re.compile(r"(^|[\s(])-[a-zA-Z2]\b|\bread -|-z |\broceshark read\b")
experts = [f for f in helps if f.startswith("roceshark.expert.")]
t.check(len(experts) >= 15 and len(helps) - len(experts) >= len(fields),
        "tshark -G fields lists %d roceshark fields and %d expert items" % (len(helps), len(experts)))
for f, (name, blurb) in sorted(helps.items()):
    t.check(blurb.strip() not in ("", name) and not CLI_WORDS.search(blurb),
            "%s: help %r is empty, its name or in command-line words" % (f, blurb))
    if f in experts:
        t.check(len(blurb) > len(name) + 20, "%s: help %r says no more than %r" % (f, blurb, name))

sims = t.tempdir()
t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_rc.py"), sims])
captures = sorted(glob.glob(os.path.join(sims, "*.pcap")))
# iWARP: the stage is stateful like the analysis (reassembly, MPA framing), so these check
# that the first pass's values are what every later pass shows.
iwarp_dir = t.tempdir()
t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_iwarp.py"), iwarp_dir, "--seed", "5"])
iwarp = [os.path.join(iwarp_dir, n + ".pcap") for n in ("random", "retrans", "midstream", "lossy")]
captures += iwarp
# Under the sanitizers (tshark with their runtimes preloaded, several times slower) a third
# of the real captures: the normal run compares them all, and CI has 20 minutes.
captures += t.real_captures()[::3] if t.BUILT.get("sanitize") else t.real_captures()
captures.append(os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap"))
# Three runs at the same QP numbers: roceshark.analysis.qp_reused and psn_rel.
QP_REUSE = os.path.join(t.SOURCE_DIR, "tests", "captures", "qp_reuse", "three_runs.pcap")
captures.append(QP_REUSE)
# Filters, the two-pass run and the tables are the same code on every capture, whose fields
# are all compared above. Each filter runs on a capture where it selects frames (the RC ones
# on the simulated trace with every kind of event, mixed; each iWARP one on the generated
# capture that has its event), in every build and on every Wireshark version; the two-pass
# run on mixed and on an iWARP capture; the tables also on a trace with RNR and ECN. (CI
# has 20 minutes for three runs of this test.)
by_name = {os.path.basename(c): c for c in captures}
CM_CAPTURE = os.path.join(t.REAL_CAPTURES, "linlinw5_rdma_ib_tutorial__pcap_rdma_cm.pcap")
tables = [by_name["mixed.pcap"], by_name["rnr_ecn.pcap"], CM_CAPTURE]
TABLE_FILTERS = ("roceshark.analysis.retransmission",
                 "roceshark.analysis.conv == 2 && frame.number < 300")
two_pass = [by_name["mixed.pcap"], by_name["random.pcap"]]
efields = sum([["-e", f] for f in fields], [])
# tshark starts in most of a second of processor time, about what it takes to read most of
# these captures: so the expert infos and the tables checked below come from the run that
# compares a capture's fields (-z after -T fields prints them after the frames), and the
# two-pass checks reuse that run as their one-pass run. On mixed, the tables (the whole one,
# two filtered ones and the Conversations tab, all in one run) are also printed by a -q, a
# -V and a two-pass run, and must be the same in each: what else tshark does in a run (a
# tree built or not, other tables beside) changes no count.
QP_TABLES = ["roceshark,qp"] + ["roceshark,qp," + f for f in TABLE_FILTERS]
STATS = collections.defaultdict(list)
for path in iwarp + [QP_REUSE]:
    STATS[path].append("expert")
for path in tables:
    STATS[path] += QP_TABLES[:1] + ["conv,roceshark"]
STATS[by_name["mixed.pcap"]] += QP_TABLES[1:]
stats = {}          # path: the text of the statistics its run printed
one_pass = {}       # path: its fields, Info last, as the one-pass run printed them


def split_stats(out):
    """tshark's per-frame lines (never empty: they hold a tab between each two fields), and
    the text of the -z statistics it printed after them, from the first line that is empty
    or starts a table's frame of "=" signs."""
    m = re.search(r"^(?:=|$)", out, re.M)
    return (out, "") if m is None or m.start() == len(out) else (out[:m.start()],
                                                                 out[m.start():])


def stats_of(path, z):
    """The text of statistics z on path: printed by the run that compared its fields, else
    (a capture the sanitizer build leaves out of that) by a run of their own."""
    if z in STATS.get(path, ()) and path in stats:
        return stats[path]
    return tshark(["-r", readable(path), "-q", "-z", z])


def zs(path):
    """The -z arguments for the statistics read from path's runs."""
    return sum([["-z", z] for z in STATS[path]], [])


def qp_table(text, flt):
    """The roceshark,qp table whose filter is flt ("" for none) in tshark's statistics."""
    for part in re.split(r"^=+\nRDMA QP Conversations:\n", text, flags=re.M)[1:]:
        if part.startswith("Filter for statistics: %s\n" % flt):
            return part
    t.check(False, "no roceshark,qp table with filter %r in:\n%s" % (flt, text[:400]))
    return ""
# The Info column's marks that the plugin adds (rs_print_info_marks), which `read` prints too.
MARKS = re.compile(r"\[(?:Bad ICRC|Bad VCRC|Retransmission|Duplicate response|PSN gap \d+|"
                   r"Opcode sequence error|Length mismatch|Violation: [^]]+|"
                   r"CNP for conversation \d+)\]|RNR NAK \[delay [\d.]+ ms\]")


def marks(text):
    """Per frame, the marks at the end of the Info column (the last field of each line)."""
    return [MARKS.findall(line.rsplit("\t", 1)[-1]) for line in text.splitlines()]


def bth_frames(text):
    """The frames whose Info (in roceshark read's words) is a BTH's: their marks are ours.
    TCP's, iWARP's and ICMP's are Wireshark's own dissectors' to show."""
    return [" QP=0x" in line.rsplit("\t", 1)[-1] for line in text.splitlines()]


def drop_info(text):
    return "".join(line.rsplit("\t", 1)[0] + "\n" for line in text.splitlines())


total = 0
marked = 0
read_marks = {}     # path: per frame, read's marks and whether the frame is a BTH's
for path in captures:
    name = os.path.basename(path)
    copy = readable(path)
    want = t.run([t.ROCESHARK, "read", "-r", copy, "-T", "fields"] + t.COMPAT + efields +
                 ["-e", "_ws.col.Info"]).stdout
    got, stats[path] = split_stats(tshark(["-r", copy, "-T", "fields"] + efields +
                                          ["-e", "_ws.col.Info"] + zs(path)))
    if path in two_pass:
        one_pass[path] = got
    # The marks reach tshark 4.0's -e _ws.col.Info; tshark 4.4 and 4.6 fill that field
    # before postdissectors run, and show the marks in the frames' summary lines only
    # (as the packet list does): compared there below, on two captures.
    read_marks[path] = list(zip(marks(want), bth_frames(want)))
    for n, (a, (b, bth)) in enumerate(zip(marks(got), read_marks[path]), 1):
        if bth and WS_VERSION == "4.0":
            t.check(a == b, "%s frame %d: Info marks %r in tshark, %r in roceshark read"
                    % (name, n, a, b))
            marked += len(b)
    got, want = drop_info(got), drop_info(want)
    if got != want:
        for n, (a, b) in enumerate(zip(got.splitlines(), want.splitlines()), 1):
            if a != b:
                for f, x, y in zip(fields, a.split("\t"), b.split("\t")):
                    if x != y:
                        print("  %s frame %d %s: plugin %r roceshark %r" % (name, n, f, x, y))
                break
    t.check(got == want, "%s: the plugin's roceshark.* fields differ from roceshark read" % name)
    total += want.count("\t") + want.count("\n")
print("%d field values agree between the plugin and roceshark read" % total)
for path in ([] if WS_VERSION == "4.0" else [by_name["mixed.pcap"], by_name["rnr_ecn.pcap"]]):
    lines = tshark(["-r", readable(path)]).splitlines()
    t.check(len(lines) == len(read_marks[path]), "%s: %d summary lines for %d frames"
            % (os.path.basename(path), len(lines), len(read_marks[path])))
    for n, (line, (b, bth)) in enumerate(zip(lines, read_marks[path]), 1):
        if bth:
            t.check(MARKS.findall(line) == b, "%s frame %d: Info marks %r in tshark's summary, "
                    "%r in roceshark read" % (os.path.basename(path), n, MARKS.findall(line), b))
            marked += len(b)
t.check(marked > 0, "no capture had a frame with an Info mark to compare")
print("%d Info marks agree" % marked)

# Display filters select the same frames; a two-pass run changes nothing.
FILTERS = {"roceshark.analysis.retransmission": "mixed",
           "roceshark.analysis.psn_gap >= 1": "mixed",
           "roceshark.analysis.nak == \"psn_seq_error\"": "mixed",
           "roceshark.analysis.rnr_delay": "mixed",
           "roceshark.analysis.response_time > 0.00001 && roceshark.analysis.conv == 2": "mixed",
           "roceshark.analysis.msg.len >= 4096": "mixed",
           "roceshark.analysis.cnp_for": "mixed",
           "roceshark.icrc.status == 1 && !roceshark.analysis.acked_frame": "mixed",
           "roceshark.mpa.crc.status == 0": "random",
           "roceshark.mpa.framing_inferred": "midstream",
           "roceshark.iwarp.msg.len > 100": "random",
           "roceshark.iwarp.retransmission": "retrans",
           "roceshark.mpa.incomplete || roceshark.iwarp.gap": "lossy"}
for flt, name in FILTERS.items():
    copy = readable(by_name[name + ".pcap"])
    want = t.run([t.ROCESHARK, "read", "-r", copy, "-Y", flt, "-T", "fields",
                  "-e", "frame.number"]).stdout
    got = tshark(["-r", copy, "-Y", flt, "-T", "fields", "-e", "frame.number"])
    t.check(got == want and want != "", "%s -Y %s: plugin frames %r, roceshark %r"
            % (name, flt, got.split()[:8], want.split()[:8]))
# The links from a request to its response and ACK are known once the answer has been
# read: a one-pass run (as roceshark read) has none, a two-pass run (as the GUI) has them.
LINKS = [fields.index("roceshark.analysis.response_frame"),
         fields.index("roceshark.analysis.ack_frame")]


def rows(text):
    return [line.split("\t") for line in text.splitlines()]


def check_links(name, frames):
    """Each link of the two-pass run goes both ways: a request's Response in frame is the
    first frame whose Request in frame names it, its Acknowledged in frame the first ACK or
    NAK of its conversation that covers it; and every request a response or ACK names
    links back. Returns how many links there were."""
    col = {f: fields.index("roceshark.analysis." + f) for f in
           ("conv", "request_frame", "acked_frame", "response_frame", "ack_frame")}

    def val(n, f):
        v = frames[n - 1][col[f]]
        return int(v) if v else None

    first_response, first_ack = {}, {}
    for n in range(1, len(frames) + 1):
        req = val(n, "request_frame")
        if req is not None:
            first_response.setdefault(req, n)
        acked = val(n, "acked_frame")
        if acked is not None:
            first_ack.setdefault(acked, n)
    links = 0
    for n in range(1, len(frames) + 1):
        resp, ack = val(n, "response_frame"), val(n, "ack_frame")
        t.check(resp == first_response.get(n), "%s frame %d: Response in frame %s, the first "
                "response naming it is %s" % (name, n, resp, first_response.get(n)))
        if ack is not None:
            covers = [a for a in range(n + 1, ack + 1)
                      if val(a, "conv") == val(n, "conv") and (val(a, "acked_frame") or 0) >= n]
            t.check(covers[:1] == [ack], "%s frame %d: Acknowledged in frame %d, the first ACK "
                    "covering it is %s" % (name, n, ack, covers[:1]))
        if n in first_ack and resp is None:
            t.check(ack is not None, "%s frame %d: ACKed by frame %d, no link back"
                    % (name, n, first_ack[n]))
        links += (resp is not None) + (ack is not None)
    return links


links = 0
two_pass_stats = {}     # path: the statistics its two-pass run printed
for path in two_pass:
    copy = readable(path)
    one = [r[:-1] for r in rows(one_pass[path])]       # without the Info column
    two, two_pass_stats[path] = split_stats(tshark(["-2", "-r", copy, "-T", "fields"] + efields +
                                                   zs(path)))
    two = rows(two)
    t.check(all(r[i] == "" for r in one for i in LINKS),
            "%s: a one-pass run shows a link to a later frame" % os.path.basename(path))
    links += check_links(os.path.basename(path), two)
    for r in two:
        for i in LINKS:
            r[i] = ""
    t.check(one == two, "%s: one-pass and two-pass output differ" % os.path.basename(path))
t.check(links > 100, "only %d request -> response/ACK links in the two-pass runs" % links)
print("%d request -> response/ACK links go both ways" % links)


# Expert infos: one "Bad MPA CRC" error per FPDU whose CRC is bad.
bad_total = 0
for path in iwarp:
    copy = readable(path)
    bad = t.run([t.ROCESHARK, "read", "-r", copy, "-T", "fields", "-e",
                 "roceshark.mpa.crc.status"]).stdout.replace(",", "\n").split().count("0")
    m = re.search(r"^\s*(\d+)\s+Checksum\s+roceshark\s+Bad MPA CRC$",
                  stats_of(path, "expert"), re.M)
    t.check((int(m.group(1)) if m else 0) == bad,
            "%s: tshark shows %s Bad MPA CRC errors, roceshark read %d bad CRCs"
            % (os.path.basename(path), m.group(1) if m else "no", bad))
    bad_total += bad
t.check(bad_total > 0, "the generated iWARP captures have no bad CRC to show")
# The note that QP numbers were reused: two, as roceshark read -z expert counts them, and
# a filter on the relative PSN selects the frames roceshark read selects.
copy = readable(QP_REUSE)
m = re.search(r"^\s*(\d+)\s+Sequence\s+roceshark\s+QP numbers reused: a new conversation$",
              stats_of(QP_REUSE, "expert"), re.M)
t.check(m is not None and m.group(1) == "2", "three_runs.pcap: tshark shows %s QP reuse notes, "
        "2 wanted" % (m.group(1) if m else "no"))
flt = "roceshark.analysis.psn_rel == 3 || roceshark.expert.analysis.qp_reused"
want = t.run([t.ROCESHARK, "read", "-r", copy, "-Y", flt.split(" || ")[0] +
              " || roceshark.analysis.qp_reused", "-T", "fields", "-e", "frame.number"]).stdout
got = tshark(["-r", copy, "-Y", flt, "-T", "fields", "-e", "frame.number"])
t.check(got == want and len(want.split()) == 8, "three_runs.pcap -Y %s: plugin frames %r, "
        "roceshark %r" % (flt, got.split(), want.split()))

# Items cover their bytes, so that a click on one highlights them (pos and size in -T pdml):
# every roceshark.* item that roceshark read's PDML places (the BTH's FECN, an AETH's credits,
# the payload, an FPDU's CRC, ...) is where read places it; those read leaves unplaced cover
# what they speak of: the ICRC's checks infiniband.invariant.crc, the VCRC's
# infiniband.variant.crc, the payload length the payload, the analysis the BTH. On the
# sample (RoCEv2, every kind of event), a native InfiniBand capture (VCRC) and the iWARP
# captures (markers, RFC 6581 IRD/ORD, retransmitted and reordered segments, bytes lost).
# iWARP values are kept from the first pass with their places: an MPA CRC's item covers the
# CRC that Wireshark's iwarp_mpa.crc_check shows (read from the capture's bytes), the
# connection's facts the TCP payload, Immediate Data its 8 octets.
place = re.compile(r'<field name="([a-z0-9_.]+)" .*?size="(\d+)" pos="(\d+)"')
shown = re.compile(r'<field name="([a-z0-9_.]+)" [^>]*?show="([^"]*)"')


def places(pdml):
    """Per packet, each field's (pos, size) places and its shown values."""
    out = []
    for packet in pdml.split("<packet>")[1:]:
        at = {}
        for name, size, pos in place.findall(packet):
            at.setdefault(name, set()).add((int(pos), int(size)))
        for name, show in shown.findall(packet):
            at.setdefault(name + "=", []).append(show)
        out.append(at)
    return out


def frames_of(path):
    """The captured bytes of each frame of a classic pcap file."""
    with open(path, "rb") as f:
        data = f.read()
    order = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    out, at = [], 24
    while at + 16 <= len(data):
        caplen = struct.unpack(order + "I", data[at + 8:at + 12])[0]
        out.append(data[at + 16:at + 16 + caplen])
        at += 16 + caplen
    return out


def check_iwarp_places(name, got, want, frames, moved):
    """The iWARP items cover what they speak of, in the capture's own bytes: an MPA CRC's
    checks the CRC sent (iwarp_mpa.crc_check or iwarp_mpa.crc, as read decodes them: tshark
    shows a PDU cut by segments in the frame where its reassembly ends), Immediate Data its
    octets, the IRD its field. An item may cover nothing only when what it speaks of has no
    octet in the frame: a length of 0, a segment that Wireshark's TCP analysis finds out of
    order or retransmitted, after which PDUs held from other segments completed, or one that
    gives up a PDU whose missing octets were lost (roceshark.mpa.incomplete)."""
    seen = collections.Counter()
    for n, (g, w, raw) in enumerate(zip(got, want, frames), 1):
        def at(f):
            return sorted(g.get(f, ()))
        sent = {int(v, 16) for f in ("iwarp_mpa.crc_check=", "iwarp_mpa.crc=")
                for v in w.get(f, [])}
        for f in ("roceshark.mpa.crc.status", "roceshark.mpa.crc.computed"):
            for pos, size in at(f):
                if size == 4:
                    seen["crc"] += 1
                    t.check(int.from_bytes(raw[pos:pos + 4], "big") in sent,
                            "%s frame %d: %s covers %s, not a CRC sent (%s)"
                            % (name, n, f, raw[pos:pos + 4].hex(), sorted(sent)))
        for pos, size in at("roceshark.iwarp.immediate"):
            seen["immediate"] += 1
            # All 8 octets, or the part of them this segment holds; when it holds none, the
            # end of their PDU, at the segment's start.
            t.check(size > 0 and any(raw[pos:pos + size].hex() in v
                                     for v in g["roceshark.iwarp.immediate="]) or
                    pos == min(g["tcp.payload"])[0],
                    "%s frame %d: Immediate Data covers %s" % (name, n, raw[pos:pos + size].hex()))
        for pos, size in at("roceshark.mpa.v2.ird"):
            seen["ird"] += 1
            ird = int.from_bytes(raw[pos:pos + 2], "big") & 0x3fff
            t.check(size == 2 and str(ird) in g["roceshark.mpa.v2.ird="],
                    "%s frame %d: IRD covers %s" % (name, n, raw[pos:pos + size].hex()))
        for f in ("roceshark.iwarp.conn", "roceshark.iwarp.crc", "roceshark.mpa.enhanced"):
            theirs = "tcp.payload" if f != "roceshark.mpa.enhanced" else "iwarp_mpa.marker_flag"
            if f in g and theirs in g:
                seen[f] += 1
                t.check(g[f] == g[theirs], "%s frame %d: %s covers %r, %s is at %r"
                        % (name, n, f, at(f), theirs, at(theirs)))
        for f, spots in g.items():
            if not f.startswith(("roceshark.mpa.", "roceshark.iwarp.")) or f.endswith("="):
                continue
            seen["items"] += len(spots)
            if all(size > 0 for _, size in spots):
                continue
            t.check(f.endswith(".len") and "0" in g.get(f + "=", ()) or n in moved,
                    "%s frame %d: %s covers no bytes (%r)" % (name, n, f, at(f)))
            seen["none in the frame"] += 1
    return seen


COVERS = (("roceshark.icrc.status", "infiniband.invariant.crc"),
          ("roceshark.icrc.computed", "infiniband.invariant.crc"),
          ("roceshark.vcrc.status", "infiniband.variant.crc"),
          ("roceshark.vcrc.computed", "infiniband.variant.crc"),
          ("roceshark.payload.len", "roceshark.payload"),
          ("roceshark.analysis.conv", "infiniband.bth"),
          ("roceshark.analysis.acked_frame", "infiniband.bth"))
covered = collections.Counter()
for path in [os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap"),
             os.path.join(t.REAL_CAPTURES, "srinivaskoritala_rdma-softroce-demo__infiniband.pcap")
             ] + iwarp:
    copy, name = readable(path), os.path.basename(path)
    got = places(tshark(["-r", copy, "-T", "pdml"]))
    want = places(t.run([t.ROCESHARK, "read", "-r", copy, "-T", "pdml"]).stdout)
    t.check(len(got) == len(want), "%s: %d packets in tshark's PDML, %d in read's"
            % (name, len(got), len(want)))
    if path in iwarp:
        moved = {n for n, (g, w) in enumerate(zip(got, want), 1)
                 if "tcp.analysis.out_of_order" in g or "tcp.analysis.retransmission" in g or
                 "roceshark.mpa.incomplete" in w}
        covered.update(check_iwarp_places(name, got, want, frames_of(copy), moved))
    for n, (g, w) in enumerate(zip(got, want), 1):
        for f, at in w.items():
            if not f.startswith("roceshark.") or f.endswith("="):
                continue
            placed = {p for p in at if p[1] > 0}
            if placed:
                covered["as read"] += 1
                mine = {p for p in g.get(f, ()) if p[1] > 0}
                t.check(mine == placed, "%s frame %d: %s covers %r, read places it at %r"
                        % (name, n, f, sorted(mine), sorted(placed)))
        for ours_f, theirs in COVERS:
            if ours_f in g and theirs in g:
                covered[ours_f] += 1
                t.check(g[ours_f] == g[theirs], "%s frame %d: %s covers %r, %s is at %r"
                        % (name, n, ours_f, sorted(g[ours_f]), theirs, sorted(g[theirs])))
for what in ("as read", "crc", "immediate", "ird", "roceshark.iwarp.conn", "roceshark.iwarp.crc",
             "roceshark.mpa.enhanced") + tuple(c[0] for c in COVERS):
    t.check(covered[what] > 0, "no item to compare places with for %s" % what)
print("items placed: %s" % dict(covered))


def numbers(text, sep):
    """Rows of the conversation table as tuples of their first 23 columns."""
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in (line.split("|") if sep else line.split())]
        cells = [c for c in cells if c != ""]
        if cells and cells[0].isdigit() and len(cells) >= 23:
            rows.append(tuple(cells[:23]))
    return rows


def conv_tab(text):
    """The rows of the -z conv,roceshark table in text: (A, B, frames both ways)."""
    tab = collections.Counter()
    for line in text.splitlines():
        m = re.match(r"^(\S+)\s+<->\s+(\S+)\s+(\d+) .*?\s+(\d+) .*?\s+(\d+) ", line)
        if m:
            tab[(m.group(1), m.group(2), int(m.group(5)))] += 1
    return tab


def stats_part(out):
    """The statistics tshark printed after the frames of a -V run: from the first line of
    "=" signs (no line of a frame's tree is one)."""
    m = re.search(r"^={20,}$", out, re.M)
    t.check(m is not None, "no statistics after the frames:\n%s" % out[-400:])
    return out[m.start():] if m else ""


# The whole table equals roceshark read -z conv,qp on each capture; on mixed, each filtered
# one equals -z conv,qp,FILTER (the frames the filter takes), and the Conversations tab has
# one row per conversation with its frames both ways (as the GUI has it). All of them the
# same printed after -T fields (the run that compared the fields), after -q, after -V (a
# tree built and printed) and in a two-pass run.
mixed = by_name["mixed.pcap"]
copy = readable(mixed)
runs = {"-T fields": stats[mixed],
        "-2 -T fields": two_pass_stats[mixed],
        "-q": tshark(["-r", copy, "-q"] + zs(mixed)),
        "-V": stats_part(tshark(["-r", copy, "-V", "-O", "roceshark"] + zs(mixed)))}
for path in tables:
    copy = readable(path)
    ours_t = numbers(t.run([t.ROCESHARK, "read", "-r", copy, "-q", "-z", "conv,qp"]).stdout, False)
    tap = numbers(qp_table(stats_of(path, "roceshark,qp"), ""), True)
    t.check(len(ours_t) > 0 and sorted(ours_t) == sorted(tap),
            "%s: -z roceshark,qp differs from -z conv,qp:\n%r\n%r"
            % (os.path.basename(path), ours_t[:2], tap[:2]))
    if path != mixed:
        continue
    for flt in ("",) + TABLE_FILTERS:
        ours_t = numbers(t.run([t.ROCESHARK, "read", "-r", copy, "-q", "-z",
                                "conv,qp," + flt if flt else "conv,qp"]).stdout, False)
        t.check(len(ours_t) > 0 and (flt == "" or sorted(ours_t) != sorted(tap)),
                "-z conv,qp,%s: %d rows, or those of every frame" % (flt, len(ours_t)))
        for run, text in runs.items():
            got = numbers(qp_table(text, flt), True)
            t.check(sorted(ours_t) == sorted(got),
                    "tshark %s -z roceshark,qp,%s differs from read -z conv,qp,%s:\n%r\n%r"
                    % (run, flt, flt, ours_t[:2], got[:2]))
    conv_rows = collections.Counter((r[1].rsplit(":", 1)[0], r[2].rsplit(":", 1)[0],
                                     int(r[4]) + int(r[6])) for r in tap)
    for run, text in runs.items():
        t.check(conv_tab(text) == conv_rows, "tshark %s -z conv,roceshark rows %r differ from "
                "the conversations %r" % (run, sorted(conv_tab(text)), sorted(conv_rows)))
t.finish("wireshark plugin")
