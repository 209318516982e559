#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The Wireshark plugin, run inside the tshark on PATH (4.0 here; 4.4 and 4.6 in the Debian
roots of scripts/test-wireshark.sh) as an unprivileged user (as root, tshark ignores
WIRESHARK_PLUGIN_DIR):
  - `tshark -G plugins` lists it;
  - on the simulated RC fault traces and every real capture, every roceshark.* field that
    tshark prints through the plugin equals what `roceshark read -T fields` prints;
  - display filters on those fields select the same frames in tshark and in roceshark;
  - a two-pass run (tshark -2) prints exactly what a one-pass run prints;
  - `-z roceshark,qp` has the numbers of `roceshark read -z conv,qp`.
Everything tshark reads is copied into a world-readable scratch folder first, so the test
does not depend on where the build or the captures live."""
import glob
import os
import re
import shutil
import subprocess

import rstest as t

PLUGIN = os.environ.get("ROCESHARK_PLUGIN")
PRELOAD = os.environ.get("ROCESHARK_PLUGIN_PRELOAD", "")
if not PLUGIN or not os.path.exists(PLUGIN):
    print("ROCESHARK_PLUGIN does not name the built plugin")
    raise SystemExit(1)

scratch = t.tempdir()
os.chmod(scratch, 0o755)
plugdir = os.path.join(scratch, "plugins")
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
    env = {"PATH": "/usr/bin:/bin", "HOME": scratch, "WIRESHARK_PLUGIN_DIR": plugdir,
           "ASAN_OPTIONS": "detect_leaks=0", "UBSAN_OPTIONS": "halt_on_error=1"}
    if PRELOAD:
        env["LD_PRELOAD"] = PRELOAD
    cmd = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "tshark"]
    if args[0] != "-G":     # -G must come first
        cmd.append("-n")
    p = subprocess.run(cmd + args, capture_output=True, text=True, env=env)
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
    t.check("roceshark.so" in tshark(["-G", "plugins"]), "tshark -G plugins does not list roceshark")

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
tables = [by_name["mixed.pcap"], by_name["rnr_ecn.pcap"]]
two_pass = [by_name["mixed.pcap"], by_name["random.pcap"]]
efields = sum([["-e", f] for f in fields], [])
total = 0
for path in captures:
    name = os.path.basename(path)
    copy = readable(path)
    want = t.run([t.ROCESHARK, "read", "-r", copy, "-T", "fields"] + t.COMPAT + efields).stdout
    got = tshark(["-r", copy, "-T", "fields"] + efields)
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
for path in two_pass:
    copy = readable(path)
    one = tshark(["-r", copy, "-T", "fields"] + efields)
    two = tshark(["-2", "-r", copy, "-T", "fields"] + efields)
    t.check(one == two, "%s: one-pass and two-pass output differ" % os.path.basename(path))


# Expert infos: one "Bad MPA CRC" error per FPDU whose CRC is bad.
bad_total = 0
for path in iwarp:
    copy = readable(path)
    bad = t.run([t.ROCESHARK, "read", "-r", copy, "-T", "fields", "-e",
                 "roceshark.mpa.crc.status"]).stdout.replace(",", "\n").split().count("0")
    m = re.search(r"^\s*(\d+)\s+Checksum\s+roceshark\s+Bad MPA CRC$",
                  tshark(["-r", copy, "-q", "-z", "expert"]), re.M)
    t.check((int(m.group(1)) if m else 0) == bad,
            "%s: tshark shows %s Bad MPA CRC errors, roceshark read %d bad CRCs"
            % (os.path.basename(path), m.group(1) if m else "no", bad))
    bad_total += bad
t.check(bad_total > 0, "the generated iWARP captures have no bad CRC to show")
# The note that QP numbers were reused: two, as roceshark read -z expert counts them, and
# a filter on the relative PSN selects the frames roceshark read selects.
copy = readable(QP_REUSE)
m = re.search(r"^\s*(\d+)\s+Sequence\s+roceshark\s+QP numbers reused: a new conversation$",
              tshark(["-r", copy, "-q", "-z", "expert"]), re.M)
t.check(m is not None and m.group(1) == "2", "three_runs.pcap: tshark shows %s QP reuse notes, "
        "2 wanted" % (m.group(1) if m else "no"))
flt = "roceshark.analysis.psn_rel == 3 || roceshark.expert.analysis.qp_reused"
want = t.run([t.ROCESHARK, "read", "-r", copy, "-Y", flt.split(" || ")[0] +
              " || roceshark.analysis.qp_reused", "-T", "fields", "-e", "frame.number"]).stdout
got = tshark(["-r", copy, "-Y", flt, "-T", "fields", "-e", "frame.number"])
t.check(got == want and len(want.split()) == 8, "three_runs.pcap -Y %s: plugin frames %r, "
        "roceshark %r" % (flt, got.split(), want.split()))


def numbers(text, sep):
    """Rows of the conversation table as tuples of their first 23 columns."""
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in (line.split("|") if sep else line.split())]
        cells = [c for c in cells if c != ""]
        if cells and cells[0].isdigit() and len(cells) >= 23:
            rows.append(tuple(cells[:23]))
    return rows


for path in tables + [os.path.join(t.REAL_CAPTURES,
                                          "linlinw5_rdma_ib_tutorial__pcap_rdma_cm.pcap")]:
    copy = readable(path)
    ours_t = numbers(t.run([t.ROCESHARK, "read", "-r", copy, "-q", "-z", "conv,qp"]).stdout, False)
    tap = numbers(tshark(["-r", copy, "-q", "-z", "roceshark,qp"]), True)
    t.check(len(ours_t) > 0 and sorted(ours_t) == sorted(tap),
            "%s: -z roceshark,qp differs from -z conv,qp:\n%r\n%r"
            % (os.path.basename(path), ours_t[:2], tap[:2]))
t.finish("wireshark plugin")
