#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The TUI capturing a real RDMA run, beside `roceshark capture` on the same link (needs root):
`perf write_bw -D SECONDS` between two network namespaces over a veth pair, while, in the
server's namespace, `roceshark capture -i` writes one file and `roceshark tui -i -w` another
from the same interface. Both tools see the same traffic, so:

- the TUI's kernel drops are at most capture's plus 0.1% of the frames;
- each saw as many frames as the other (frames written plus frames dropped), and when
  neither dropped any the two files hold the same frames, in the same order;
- the TUI indexed every frame it wrote (its status line), and its drop counts on the status
  line are those of its exit line;
- no false PSN gap: the anomaly view's PSN gaps that it does not mark as capture loss are at
  most those `read` finds in capture's file (none when capture dropped nothing).

SECONDS is 2 (the test's argument may change it): a few seconds of traffic keep it short on
a busy machine; bench/bench_tui.py --live runs the same with 10."""
import os
import re
import subprocess
import sys

import livenet as ln
import rstest as t
from tuitmux import exit_of, keys, start, stop_session, tmux, wait_for

SECONDS = int(sys.argv[1]) if len(sys.argv) > 1 else 2
ln.need_root()
tmp = t.tempdir()
pair = ln.VethPair("tuilive")
for ns, ifname, addr in ((pair.ns_a, pair.if_a, "10.41.0.1"), (pair.ns_b, pair.if_b, "10.41.0.2")):
    subprocess.run(["ip", "-n", ns, "addr", "add", addr + "/24", "dev", ifname], check=True)

cap_file, tui_file = os.path.join(tmp, "capture.pcap"), os.path.join(tmp, "tui.pcap")
server = t.spawn(pair.in_b([t.ROCESHARK, "perf", "write_bw", "--bind", "10.41.0.2"]),
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
capture = ln.start(pair, ["capture", "-i", pair.if_b, "-w", cap_file])
try:
    rc_file, err_file = start(tmp, 200, 50, ["-i", pair.if_b, "-w", tui_file], netns=pair.ns_b)
    wait_for(lambda s: "capturing" in s[-1] and "drops: kernel 0" in s[-1],
             "the TUI captures, its drops on the status line", timeout=30)
    client = subprocess.run(pair.in_a([t.ROCESHARK, "perf", "write_bw", "--bind", "10.41.0.1",
                                       "--target", "10.41.0.2", "-D", str(SECONDS)]),
                            capture_output=True, text=True, timeout=120)
    t.check(client.returncode == 0, "perf write_bw: exit %d, %s" % (client.returncode,
                                                                    client.stderr[-500:]))
    print("perf write_bw -D %d: %s" % (SECONDS, client.stdout.strip().splitlines()[-1:]))
    # The TUI shows what its engine wrote: frames indexed == frames in its file, as the
    # status line says once they stop growing.
    def settled(s, seen=[]):
        m = re.search(r"\| (\d+) frames, \d+ shown", s[-1])
        seen.append(m.group(1) if m else None)
        return m is not None and len(seen) >= 20 and len(set(seen[-20:])) == 1
    lines = wait_for(settled, "the TUI caught up", timeout=120)
    shown_frames = int(re.search(r"\| (\d+) frames", lines[-1]).group(1))
    live = re.search(r"drops: kernel (\d+), interface (\d+), ring (\d+), ours (\d+)", lines[-1])
    # The anomaly view: PSN gaps not marked as the capture's loss.
    keys("F5")
    lines = wait_for(lambda s: "[F5 Anomalies]" in s[0] and "expert items" in s[1],
                     "the anomaly view")
    m = re.search(r"PSN gap (\d+)", lines[1])
    tui_gaps = int(m.group(1)) if m else 0
    lost = int(re.search(r"capture loss (\d+)", lines[1]).group(1))
    keys("q")
    keys("q")
    rc, err = exit_of(rc_file, err_file, timeout=60)
    stop_session()
finally:
    tmux("kill-server")
    ln.interrupt(capture)
    crc, _, cerr, ccounts = ln.finish(capture, timeout=60)
    server.kill()
    server.wait()

t.check(rc == 0, "tui: exit %s, %r" % (rc, err))
m = ln.COUNTS_RE.search(err)
tcounts = m and {"received": int(m.group(2)), "done": int(m.group(3)), "kernel": int(m.group(5)),
                 "iface": int(m.group(6))}
t.check(crc == 0 and ccounts is not None and tcounts is not None,
        "counts: capture %r (exit %s), tui %r" % (cerr, crc, err))
if ccounts and tcounts:
    frames = max(tcounts["received"] + tcounts["kernel"], ccounts["received"] + ccounts["kernel"])
    print("capture: %d written, %d dropped by kernel; tui: %d written, %d dropped by kernel; "
          "%d frames, %d PSN gaps in the TUI, %d marked capture loss"
          % (ccounts["done"], ccounts["kernel"], tcounts["done"], tcounts["kernel"], frames,
             tui_gaps, lost))
    t.check(frames > 1000, "only %d frames of traffic" % frames)
    t.check(tcounts["kernel"] <= ccounts["kernel"] + frames * 0.001,
            "the TUI dropped %d frames in the kernel, capture %d, of %d"
            % (tcounts["kernel"], ccounts["kernel"], frames))
    t.check(tcounts["done"] + tcounts["kernel"] + tcounts["iface"] ==
            ccounts["done"] + ccounts["kernel"] + ccounts["iface"],
            "the two tools saw different traffic: tui %r, capture %r" % (tcounts, ccounts))
    t.check(shown_frames == tcounts["done"], "the TUI indexed %d of the %d frames it wrote"
            % (shown_frames, tcounts["done"]))
    t.check(live is not None and int(live.group(1)) == tcounts["kernel"] and
            int(live.group(4)) == 0, "the status line's drops %s, the exit line's %r"
            % (live and live.groups(), tcounts))
    fields = ["-T", "fields", "-e", "ip.src", "-e", "frame.len", "-e", "udp.srcport", "-e",
              "infiniband.bth.opcode", "-e", "infiniband.bth.psn"]
    tui_rows = t.run([t.ROCESHARK, "read", "-r", tui_file] + fields).stdout.splitlines()
    cap_rows = t.run([t.ROCESHARK, "read", "-r", cap_file] + fields).stdout.splitlines()
    t.check(len(tui_rows) == tcounts["done"] and len(cap_rows) == ccounts["done"],
            "the files hold %d and %d frames, the counts say %d and %d"
            % (len(tui_rows), len(cap_rows), tcounts["done"], ccounts["done"]))
    if tcounts["kernel"] == 0 and ccounts["kernel"] == 0:
        # Each direction in the same order; a frame sent and one received at the same
        # moment reach two packet sockets in either order.
        for src in ("10.41.0.1", "10.41.0.2"):
            a = [r for r in tui_rows if r.startswith(src + "\t")]
            b = [r for r in cap_rows if r.startswith(src + "\t")]
            first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None)
            t.check(a == b and a, "the TUI's frames from %s and capture's differ at %s: %r, %r"
                    % (src, first, a[first:first + 2] if first is not None else len(a),
                       b[first:first + 2] if first is not None else len(b)))
    conv = t.run([t.ROCESHARK, "read", "-r", cap_file, "-q", "-z", "conv,qp"]).stdout
    head = next(l for l in conv.splitlines() if l.split()[:1] == ["Conv"]).split()
    cap_gaps = sum(int(dict(zip(head, l.split()))["Gaps"]) for l in conv.splitlines()
                   if l.split()[:1] and l.split()[0].isdigit() and len(l.split()) == len(head))
    t.check(tui_gaps <= cap_gaps, "%d PSN gaps in the TUI's anomaly view, not marked as "
            "capture loss; capture's file has %d" % (tui_gaps, cap_gaps))
pair.remove()
t.finish("tui live")
