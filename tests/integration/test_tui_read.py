#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The TUI runs the pipeline `read` runs, iWARP reassembly and TCP streams included: on every
capture the tests have (tests/captures/real/, the real captures kept beside the repository
when present, samples/, and generated iWARP and ICMP traces), every row of its packet list
is the line `roceshark read` prints and every tree its detail pane shows is the one
`read -V` prints, frame by frame. With -d (an iWARP connection seen mid-stream on a port of
its own, RoCEv2 on another UDP port) and with -Y (an iWARP display filter on a SoftUiWarp
trace) as read has them.

What the TUI shows comes from tests/tools/tui_dump.c: the model opened as `tui -r` opens it,
each frame read back and decoded again with what the stateful stages gave it at ingest,
and laid out by the code the screens call (rs_tui_row_text, rs_tui_tree_build)."""
import glob
import os

import rstest as t

TUI_DUMP = os.environ.get("TUI_DUMP", os.path.join(t.SOURCE_DIR, "build", "tests", "tui_dump"))
SAN = t.BUILT.get("sanitize")
tmp = t.tempdir()


def lines(cmd):
    p = t.run(cmd, check_rc=False)
    t.check(p.returncode == 0 and p.stderr == "", "%s: exit %d, %r"
            % (" ".join(cmd), p.returncode, p.stderr[-500:]))
    return p.stdout.split("\n")


def compare(name, path, extra=(), trees=True):
    """The rows and (with trees) the trees of path against read's (read -P -V's), with
    read's options extra; returns the number of frames compared."""
    tree = ["-V"] if trees else []
    got = lines([TUI_DUMP, "-r", path] + tree + list(extra))
    want = lines([t.ROCESHARK, "read", "-r", path] + (["-P", "-V"] if trees else []) +
                 list(extra))
    first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), None)
    t.check(got == want, "%s %s: %d lines against read%s's %d; the first that differs, line "
            "%s:\n  read %r\n  tui  %r" % (name, " ".join(extra), len(got),
                                          " -P -V" if trees else "", len(want), first,
                                          want[first] if first is not None else None,
                                          got[first] if first is not None else None))
    return sum(1 for l in got if l[:1] == " " and l.lstrip()[:1].isdigit()) if trees \
        else len(got) - 1


captures = t.real_captures() + sorted(glob.glob(os.path.join(t.SOURCE_DIR, "samples", "*.pcap")))
gen = os.path.join(tmp, "gen")
os.mkdir(gen)
t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_iwarp.py"), gen, "--seed", "41"])
t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_icmp.py"), os.path.join(gen, "icmp.pcap")])
generated = sorted(glob.glob(os.path.join(gen, "*.pcap")))
iwarp = [p for p in generated if not p.endswith("icmp.pcap")]
t.check(len(captures) >= 20 and len(iwarp) >= 8, "captures: %d real and sample, %d iWARP"
        % (len(captures), len(iwarp)))

frames = 0
# Under the sanitizers (several times slower) the trees of every other real capture: the
# rows of all of them, and everything of the generated ones, which hold the iWARP cases.
for i, path in enumerate(captures):
    frames += compare(os.path.basename(path), path, trees=not SAN or i % 2 == 0)
for path in generated:
    frames += compare(os.path.basename(path), path)

# -d: a connection seen mid-stream on port 7777 given as iWARP, and RoCEv2 on UDP port 5000,
# which is UDP without it: each shows as read shows it with the same -d.
forced = os.path.join(gen, "forced.pcap")
t.check(compare("forced.pcap", forced, ["-d", "tcp.port==7777,iwarp"]) > 0, "forced.pcap: empty")
port = os.path.join(tmp, "udp5000.pcap")
t.run([t.ROCESHARK, "inject", "-w", port, "-c", "20",
       'ip(src=10.0.0.1, dst=10.0.0.2) / udp(dstport=5000) / bth(opcode="RC Send Only", '
       'destqp=0x11, psn=inc(0)) / payload(len=16)'])
compare("udp5000.pcap", port, ["-d", "udp.port==5000,roce"])
roce = lines([TUI_DUMP, "-r", port, "-d", "udp.port==5000,roce"])
t.check(len(roce) == 21 and all(" RRoCE 74 RC Send Only " in l for l in roce[:-1]) and
        all(" UDP 74 " in l for l in lines([TUI_DUMP, "-r", port])[:-1]),
        "-d udp.port==5000,roce: %r" % roce[:2])

# -Y: an iWARP display filter on a SoftUiWarp trace lists the iWARP frames, as read -Y does
# (the TUI once listed them as TCP segments).
soft = t.extra_capture("kazikame_SoftUiWarp__uiwarp__422babab.pcap")
for path in [soft] if soft else [iwarp[0]]:
    n = compare(os.path.basename(path), path, ["-Y", "iwarp_ddp_rdmap"])
    shown = lines([TUI_DUMP, "-r", path, "-Y", "iwarp_ddp_rdmap"])[:-1]
    t.check(n > 0 and all("iWARP" in l or "RDMA" in l or "DDP" in l for l in shown) and
            not any("[PSH, ACK]" in l for l in shown),
            "-Y iwarp_ddp_rdmap on %s: %d rows, %r" % (os.path.basename(path), n, shown[:2]))

print("%d captures, %d frames: the TUI's rows and trees are read's" %
      (len(captures) + len(generated) + 2, frames))
t.finish("tui shows what read prints")
