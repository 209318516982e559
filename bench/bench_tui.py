#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_tui.py [--frames N] [--big N] [--hostile N] [--search N] [--rounds N]
[--against OTHER] [--live S] [--ingest-file PCAP] : `roceshark tui` ingesting a capture in tmux against
`roceshark read -q` on the same file, in one run:
  1. (--frames N; 0 skips it) frames per second, each the best of --rounds (5) runs taken in
     turn, so that a busy host slows them alike: read -q; read -q -z conv,qp -z expert (the
     same work as the TUI's ingest: analysis, ICRCs checked, expert items); and the TUI in
     tmux, by the load time its status line gives (from the pass's start to its last frame
     indexed, while the screen draws). read -q's own start (read -q of a 1000-frame capture)
     is taken off its time, since the TUI's load time has none. Goal: the TUI's frames per
     second at least 0.8x read -q's; each round's own ratio is printed too, with their median.
     --ingest-file takes another capture (bench_read.py's mixed traffic, say) for it.
     The time from starting tmux to "loaded" on the screen is printed too: it adds the
     terminal's start and the 20 ms polling; With --against OTHER (another build's roceshark),
     that build's TUI loads the file in the same rounds, and the two load times are compared:
     how a change to the ingest is measured on a host whose speed drifts between runs;
  2. on a capture of --big frames (10 million by default; 0 skips it): the time to the
     first screen (the status line drawn, while loading goes on), the time to "loaded",
     and the TUI's peak RSS beyond the file's size, per frame (goal: at most 64 bytes);
  3. on --hostile frames (1 million by default; 0 skips it) each opening a conversation
     (tests/gen/gen_hostile.py), where the conversation table has 131,073 rows: the load
     time with the table on the screen (the first view) and with the packet list (F3),
     best of three each, taken in turn (the screen must not slow ingest), and the peak RSS.
  4. --search N (0 skips it; 5 million by default): a text in none of a capture's N
     frames, looked for with `s` in the TUI's packet list (the time the status line gives
     for the whole list) against `roceshark read -r FILE | grep -c TEXT`, best of --rounds
     each, taken in turn (goal: the TUI no slower), and the processor time each took,
     which a busy host does not change;
  5. --live SECONDS (root; 0, the default, skips it): a real link, both tools on the same
     traffic in one run: `perf write_bw -D SECONDS` between two namespaces over a veth pair
     while `roceshark capture -i` and `roceshark tui -i -w` capture the server's end, then
     build/veth_blast's --blast frames at a packet socket's full speed the same way. For
     each, the kernel drops of each tool, and the TUI's against capture's (goal: at most
     capture's plus 0.1% of the frames). With --against OTHER, that build's TUI takes the
     TUI's place in a second run of the same, for the figures before a change.
The captures are RoCEv2 WRITEs of one QP written by roceshark inject -w, kept in
bench/data/. Run from the repository root after building into build/ (Release), with
tmux installed."""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

from benchutil import DATA, RS, ROOT, ensure_capture, timed

sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))

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
    ap.add_argument("--ingest-file", help="section 1 on this capture rather than --frames "
                    "frames of one QP (its frames counted by read)")
    ap.add_argument("--big", type=int, default=10000000)
    ap.add_argument("--hostile", type=int, default=1000000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--against", help="another build's roceshark, loaded in the same rounds")
    ap.add_argument("--search", type=int, default=5000000)
    ap.add_argument("--live", type=int, default=0, help="seconds of perf write_bw (root)")
    ap.add_argument("--blast", type=int, default=1000000, help="frames of the veth blast")
    ap.add_argument("--blast-size", type=int, default=128, help="bytes of each blast frame, "
                    "64-1500 (1500: the file system's pace more than the packet rate)")
    a = ap.parse_args()
    if a.live > 0:
        live(a.live, a.blast, a.blast_size, RS)
        if a.against:
            print("the same with %s's TUI:" % a.against)
            live(a.live, a.blast, a.blast_size, a.against)
        return 0

    if a.search > 0:
        search(a.search, a.rounds)
    if a.frames > 0:
        ingest(a)
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


def ingest(a):
    """Section 1: the TUI's load against read -q's."""
    cap = capture(a.frames)
    if a.ingest_file:
        cap = a.ingest_file
        io = subprocess.run([RS, "read", "-r", cap, "-q", "-z", "io,stat,0"],
                            capture_output=True, text=True, check=True).stdout
        a.frames = int(re.findall(r"\|\s*(\d+)\s*\|\s*\d+\s*\|\s*$", io, re.M)[-1])
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


def cpu_seconds(pid):
    """User and system time of a process and its threads, ended ones included."""
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def search(frames, rounds):
    """Section 4: a text in no frame, found by neither."""
    path = capture(frames)
    t_grep, t_tui, cpu_grep, cpu_tui = [], [], [], []
    subprocess.run(["tmux", "kill-session", "-t", SESSION], stderr=subprocess.DEVNULL)
    subprocess.run(["tmux", "new-session", "-d", "-s", SESSION, "-x", "200", "-y", "50",
                    RS, "tui", "-r", path], check=True)
    pid = int(subprocess.run(["tmux", "display", "-p", "-t", SESSION, "#{pane_pid}"],
                             capture_output=True, text=True).stdout)
    while "loaded in" not in screen():
        time.sleep(0.1)
    subprocess.run(["tmux", "send-keys", "-t", SESSION, "F3"], check=True)
    for r in range(rounds):
        text = "no such text %d" % r     # each round's own status line
        before = os.times()
        t0 = time.perf_counter()
        subprocess.run("%s read -r %s | grep -c '%s'" % (RS, path, text), shell=True,
                       stdout=subprocess.DEVNULL)
        t_grep.append(time.perf_counter() - t0)
        after = os.times()
        cpu_grep.append(after.children_user + after.children_system -
                        before.children_user - before.children_system)
        cpu0 = cpu_seconds(pid)
        subprocess.run(["tmux", "send-keys", "-t", SESSION, "s", "C-u"], check=True)
        subprocess.run(["tmux", "send-keys", "-t", SESSION, "-l", text], check=True)
        subprocess.run(["tmux", "send-keys", "-t", SESSION, "Enter"], check=True)
        m = None
        while m is None:
            time.sleep(0.05)
            m = re.search(r"\"%s\" is not in the (\d+) packets \(searched in ([0-9.]+) s\)"
                          % text, screen())
        t_tui.append(float(m.group(2)))
        cpu_tui.append(cpu_seconds(pid) - cpu0)
        subprocess.run(["tmux", "send-keys", "-t", SESSION, "Escape"], check=True)
    subprocess.run(["tmux", "send-keys", "-t", SESSION, "q"])
    time.sleep(0.3)
    subprocess.run(["tmux", "kill-session", "-t", SESSION], stderr=subprocess.DEVNULL)
    g, u = min(t_grep), min(t_tui)
    print("search of %d frames for a text in none, best of %d rounds" % (frames, rounds))
    print("  read | grep %7.3f s" % g)
    print("  tui s       %7.3f s  %.2fx read | grep's time (goal at most 1x)" % (u, u / g),
          flush=True)
    # What a busy host does not change: the processor time each took (the TUI's with its
    # screen's redraws), and so the time on an idle one with as many processors.
    print("  processor time: read | grep %.2f s, tui s %.2f s (%.2fx)"
          % (min(cpu_grep), min(cpu_tui), min(cpu_tui) / min(cpu_grep)), flush=True)


COUNTS = re.compile(r"capture: \S+: (\d+) received, (\d+) written, (\d+) dropped by kernel")


def live_round(pair, what, traffic, tui_rs):
    """One run of traffic() while capture -i and tui -i -w capture the server's end; the
    counts of each: (received, written, kernel drops)."""
    tmp = tempfile.mkdtemp(prefix="rs-bench-tui-")
    cap = subprocess.Popen(pair.in_b([RS, "capture", "-i", pair.if_b, "-w",
                                      os.path.join(tmp, "capture.pcap")]),
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    cap.stderr.readline()
    err_file = os.path.join(tmp, "tui.err")
    session = "rs_bench_tui_live"
    subprocess.run(["tmux", "kill-session", "-t", session], stderr=subprocess.DEVNULL)
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "200", "-y", "50",
                    "ip netns exec %s %s tui -i %s -w %s/tui.pcap 2>%s; sleep 30"
                    % (pair.ns_b, tui_rs, pair.if_b, tmp, err_file)], check=True)
    while "capturing" not in subprocess.run(["tmux", "capture-pane", "-p", "-t", session],
                                            capture_output=True, text=True).stdout:
        time.sleep(0.1)
    time.sleep(0.5)
    frames = traffic()
    time.sleep(1.0)     # the last ring blocks, handed over after their timeout
    for _ in range(2):
        subprocess.run(["tmux", "send-keys", "-t", session, "q"])
        time.sleep(0.3)
    cap.send_signal(signal.SIGINT)
    cerr = cap.communicate(timeout=120)[1].decode(errors="replace")
    for _ in range(600):
        if os.path.exists(err_file) and COUNTS.search(open(err_file).read()):
            break
        time.sleep(0.1)
    terr = open(err_file).read()
    subprocess.run(["tmux", "kill-session", "-t", session], stderr=subprocess.DEVNULL)
    subprocess.run(["rm", "-rf", tmp])
    c, t = COUNTS.search(cerr), COUNTS.search(terr)
    c = tuple(int(x) for x in c.groups()) if c else (-1, -1, -1)
    t = tuple(int(x) for x in t.groups()) if t else (-1, -1, -1)
    seen = max(c[0] + c[2], t[0] + t[2], frames)
    verdict = "ok" if 0 <= t[2] <= c[2] + seen * 0.001 else "OVER"
    print("  %-28s %9d frames: capture dropped %7d (%.3f%%), the TUI %7d (%.3f%%); the TUI's "
          "excess %+d (goal at most %.0f): %s"
          % (what, seen, c[2], 100.0 * c[2] / seen, t[2], 100.0 * t[2] / seen, t[2] - c[2],
             seen * 0.001, verdict), flush=True)


def live(seconds, blast, size, tui_rs):
    """Section 5: a real link, the TUI beside capture."""
    import livenet as ln
    ln.need_root()
    pair = ln.VethPair("benchtui")
    for ns, ifname, addr in ((pair.ns_a, pair.if_a, "10.41.1.1"),
                             (pair.ns_b, pair.if_b, "10.41.1.2")):
        subprocess.run(["ip", "-n", ns, "addr", "add", addr + "/24", "dev", ifname], check=True)
    server = subprocess.Popen(pair.in_b([RS, "perf", "write_bw", "--bind", "10.41.1.2"]),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def perf():
        subprocess.run(pair.in_a([RS, "perf", "write_bw", "--bind", "10.41.1.1", "--target",
                                  "10.41.1.2", "-D", str(seconds)]), check=True,
                       stdout=subprocess.DEVNULL)
        return 0

    def veth_blast():
        out = subprocess.run(pair.in_a([os.path.join(ROOT, "build", "veth_blast"), pair.if_a,
                                        str(blast), str(size)]), capture_output=True, text=True,
                             check=True).stdout
        return int(re.search(r"sent (\d+) frames", out).group(1))
    try:
        print("live: kernel drops of tui -i (%s) against capture -i, the same traffic" % tui_rs)
        live_round(pair, "perf write_bw -D %d" % seconds, perf, tui_rs)
        live_round(pair, "veth_blast %d x %d B" % (blast, size), veth_blast, tui_rs)
    finally:
        server.kill()
        server.wait()
        pair.remove()


if __name__ == "__main__":
    sys.exit(main())
