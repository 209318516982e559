#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_tui.py [--frames N] [--big N] [--hostile N] [--rounds N] [--against OTHER] : `roceshark tui` ingesting a capture in
tmux against `roceshark read -q` on the same file, in one run:
  1. frames per second, each the best of --rounds (5) runs taken in turn, so that a busy
     host slows them alike: read -q; read -q -z conv,qp -z expert (the same work as the
     TUI's ingest: analysis, ICRCs checked, expert items); and the TUI in tmux, by the
     load time its status line gives (from the pass's start to its last frame indexed,
     while the screen draws). read -q's own start (read -q of a 1000-frame capture) is
     taken off its time, since the TUI's load time has none. Goal: the TUI's frames per
     second at least 0.8x read -q's; each round's own ratio is printed too, with their
     median. The time from starting tmux to "loaded" on the screen is printed too: it
     adds the terminal's start and the 20 ms polling;
     With --against OTHER (another build's roceshark), that build's TUI loads the file in
     the same rounds, and the two load times are compared: how a change to the ingest is
     measured on a host whose speed drifts between runs;
  2. on a capture of --big frames (10 million by default; 0 skips it): the time to the
     first screen (the status line drawn, while loading goes on), the time to "loaded",
     and the TUI's peak RSS beyond the file's size, per frame (goal: at most 64 bytes);
  3. on --hostile frames (1 million by default; 0 skips it) each opening a conversation
     (tests/gen/gen_hostile.py), where the conversation table has 131,073 rows: the load
     time with the table on the screen (the first view) and with the packet list (F3),
     best of three each, taken in turn (the screen must not slow ingest), and the peak RSS.
The captures are RoCEv2 WRITEs of one QP written by roceshark inject -w, kept in
bench/data/. Run from the repository root after building into build/ (Release), with
tmux installed."""
import argparse
import os
import re
import subprocess
import sys
import time

from benchutil import DATA, RS, ensure_capture, timed

RS = os.environ.get("ROCESHARK", RS)
SPEC = ("ip(src=10.0.0.1, dst=10.0.0.2) / bth(opcode=\"RC RDMA Write Only\", destqp=0x11, "
        "psn=inc(0)) / reth(dmalen=16) / payload(len=16)")
SESSION = "rs_bench_tui"


def capture(frames):
    path = os.path.join(DATA, "tui_%d.pcap" % frames)
    if not os.path.exists(path):
        os.makedirs(DATA, exist_ok=True)
        subprocess.run([RS, "inject", "-w", path, "-c", str(frames), SPEC], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return path


def screen():
    return subprocess.run(["tmux", "capture-pane", "-p", "-t", SESSION], capture_output=True,
                          text=True).stdout


def tui_run(path, rs=RS, key=None):
    """Seconds to the first screen and to "loaded", the load time the status line gives,
    and the peak RSS in bytes; key, when given, is pressed at once (a view's F-key)."""
    subprocess.run(["tmux", "kill-session", "-t", SESSION], stderr=subprocess.DEVNULL)
    t0 = time.perf_counter()
    subprocess.run(["tmux", "new-session", "-d", "-s", SESSION, "-x", "200", "-y", "50",
                    rs, "tui", "-r", path], check=True)
    if key:
        subprocess.run(["tmux", "send-keys", "-t", SESSION, key], check=True)
    pid = subprocess.run(["tmux", "list-panes", "-t", SESSION, "-F", "#{pane_pid}"],
                         capture_output=True, text=True).stdout.split()[0]
    first = loaded = load_time = None
    while loaded is None and time.perf_counter() - t0 < 600:
        text = screen()
        now = time.perf_counter() - t0
        if first is None and "q: quit" in text:
            first = now
        m = re.search(r"loaded in ([0-9.]+) s \|", text)
        if m:
            loaded, load_time = now, float(m.group(1))
        time.sleep(0.02)
    rss = 0
    with open("/proc/%s/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                rss = int(line.split()[1]) * 1024
    subprocess.run(["tmux", "send-keys", "-t", SESSION, "q"])
    time.sleep(0.3)
    subprocess.run(["tmux", "kill-session", "-t", SESSION], stderr=subprocess.DEVNULL)
    return first, loaded, load_time, rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=1000000)
    ap.add_argument("--big", type=int, default=10000000)
    ap.add_argument("--hostile", type=int, default=1000000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--against", help="another build's roceshark, loaded in the same rounds")
    a = ap.parse_args()

    cap = capture(a.frames)
    tiny = capture(1000)
    t_start, t_read, t_same, t_tui, t_load, t_other = [], [], [], [], [], []
    for _ in range(a.rounds):
        t_start.append(timed([RS, "read", "-r", tiny, "-q"]))
        t_read.append(timed([RS, "read", "-r", cap, "-q"]))
        t_same.append(timed([RS, "read", "-r", cap, "-q", "-z", "conv,qp", "-z", "expert"]))
        _, loaded, load_time, _ = tui_run(cap)
        t_tui.append(loaded)
        t_load.append(load_time)
        if a.against:
            t_other.append(tui_run(cap, a.against)[2])
    start = min(t_start)
    read_q, same, tui, load = min(t_read) - start, min(t_same) - start, min(t_tui), min(t_load)
    print("ingest, %d frames (%s), best of %d rounds" % (a.frames, os.path.basename(cap),
                                                         a.rounds))
    print("  read -q     %7.3f s  %6.2f M frames/s (%.3f s, less %.3f s for its start)"
          % (read_q, a.frames / read_q / 1e6, read_q + start, start))
    print("  read -q -z conv,qp -z expert  %7.3f s  %6.2f M frames/s (the TUI's work)"
          % (same, a.frames / same / 1e6))
    print("  tui load    %7.3f s  %6.2f M frames/s (the load time its status line gives)"
          % (load, a.frames / load / 1e6))
    print("  tui         %7.3f s  %6.2f M frames/s (tmux started to \"loaded\" seen)"
          % (tui, a.frames / tui / 1e6))
    print("  ratio       %7.2fx read -q's frames per second (goal 0.8x), %.2fx the same "
          "work's; from tmux's start %.2fx" % (read_q / load, same / load, read_q / tui))
    # This host runs in a fast and a slow mode, each for seconds at a time: a best of one
    # from a fast spell over a best of the other from a slow one swings the ratio from
    # 0.5x to 0.9x. The two measured in the same round are more often in the same mode.
    rounds = sorted((r - s) / l for r, s, l in zip(t_read, t_start, t_load))
    print("  per round   %7.2fx median of each round's read -q over its TUI load (%s)"
          % (rounds[len(rounds) // 2], " ".join("%.2f" % x for x in rounds)))
    if a.against:
        other = min(t_other)
        print("  against     %7.3f s  %6.2f M frames/s (%s's TUI load): this build %.2fx as fast"
              % (other, a.frames / other / 1e6, a.against, other / load))
    if a.big > 0:
        big = capture(a.big)
        first, loaded, _, rss = tui_run(big)
        size = os.path.getsize(big)
        print("tui on %d frames (%.0f MB)" % (a.big, size / 1e6))
        print("  first screen %6.3f s (goal 1 s), loaded after %.1f s" % (first, loaded))
        print("  peak RSS     %6.0f MB: %.1f bytes per frame, all of it (goal 64 beyond the "
              "file)" % (rss / 1e6, rss / a.big))
    if a.hostile > 0:
        hostile(a.hostile)
    return 0


def hostile(frames):
    """Section 3: the conversation table on the screen against the packet list."""
    path = os.path.join(DATA, "hostile_%d.pcap" % frames)
    ensure_capture(path, "gen_hostile.py", ["--frames", str(frames)])
    table, packets = [], []
    for _ in range(3):
        _, _, load, rss_table = tui_run(path)
        table.append((load, rss_table))
        packets.append(tui_run(path, key="F3")[2])
    load, rss = min(table)
    print("tui on %d frames, each a new conversation (%s)" % (frames, os.path.basename(path)))
    print("  conversation table shown %6.3f s, packet list shown %6.3f s: %.2fx"
          % (load, min(packets), load / min(packets)))
    print("  peak RSS     %6.0f MB: %.1f bytes per frame" % (rss / 1e6, rss / frames))


if __name__ == "__main__":
    sys.exit(main())
