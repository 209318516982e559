#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""roceshark tui in tmux, as a user of termshark, htop and iftop drives it:

- layout: 1,100,007 frames, each of a million conversations new (conversation ids of
  seven digits) and one IPv6 conversation of 100,002 frames (100,001 retransmissions): at
  200x60 and at 80x24 every count column lines up under its heading, with the sort mark; at
  80x24 the rate columns stay on screen, the endpoints cut at their start, the status line
  ends with "q: quit"; the row of the conversations the analysis evicted shows no time;
- rates: one 90-byte frame every 10 ms for 45 s reads 9.0K in the 2 s, 10 s and 40 s columns;
- a search for a text in no packet of those 1.1 million (typed beyond ASCII) stops on Esc,
  long before its end, within a few chunks of packets of the Esc, and says how long it took;
- `w` onto the file being shown is refused, the file left as it was;
- LC_ALL=C: the packet list's arrow is "->" and the tree's marks "+" and "-", no "?";
- the help scrolls at 80x24;
- the packet list's header, the file's name in the title, `t` cycling the time column
  through read's -t formats (each screen of rows equal to `read -t FMT`'s), j and k moving,
  h and l folding;
- the Frame node folds, the InfiniBand node highlights its bytes;
- the graph's axes say what they show, in SI units;
- Enter on an anomaly the filter hides asks before clearing the filter, and n keeps it;
- iWARP: the packet list's rows are read's, and -Y iwarp_ddp_rdmap's.
"""
import os
import re
import struct

import rstest as t
from tuitmux import (SAMPLE, keys, packet_lines, read_lines, screen_convs, start,
                     stop_session, tmux, tree_cursor, wait_for)

SAN = t.BUILT.get("sanitize")
LOAD_S = 300 if SAN else 120        # the 1.1 million frames, on a busy machine
tmp = t.tempdir()


def inject(path, lines):
    spec = os.path.join(tmp, os.path.basename(path) + ".spec")
    open(spec, "w").write("\n".join(lines) + "\n")
    t.run([t.ROCESHARK, "inject", "-w", path, "-F", spec])


def retime(path, step_us):
    """Rewrites a microsecond pcap's record times: step_us apart from 1700000000."""
    data = bytearray(open(path, "rb").read())
    pos, k = 24, 0
    while pos + 16 <= len(data):
        us = k * step_us
        struct.pack_into("<II", data, pos, 1700000000 + us // 1000000, us % 1000000)
        pos += 16 + struct.unpack_from("<I", data, pos + 8)[0]
        k += 1
    open(path, "wb").write(data)


def spans(line):
    """(start, end) of each blank-separated token of line."""
    return [(m.start(), m.end()) for m in re.finditer(r"\S+", line)]


COUNT_COLS = ("ReqPkts", "ReqBytes", "RspPkts", "RspBytes", "SEND", "WRITE", "READ", "ATOMIC",
              "Retx", "Gaps", "NAKs", "RNR", "CNP", "CE", "Viol")


def check_aligned(lines, what):
    """Every count cell ends where its heading ends (with the sort mark, if any)."""
    head = next((l for l in lines if l.lstrip().startswith("Conv")), None)
    if head is None:
        t.check(False, "%s: no table heading" % what)
        return 0
    ends = {re.sub(r"[\^v=]$", "", head[a:b]): b for a, b in spans(head)}
    rows = [l for l in lines[lines.index(head) + 1:] if re.match(r"^\s*\d+ ", l)]
    checked = 0
    for row in rows:
        row_ends = {b for _, b in spans(row)}
        for col in COUNT_COLS:
            if col in ends:
                checked += 1
                t.check(ends[col] in row_ends, "%s: %s does not end under its heading at "
                        "column %d:\n%s\n%s" % (what, col, ends[col], head, row))
    return checked


def check_layout():
    """A million conversations and an IPv6 one, at 200x60 then at 80x24."""
    many = os.path.join(tmp, "many.pcap")
    inject(many, ['ip(src=10.0.0.1, dst=10.0.0.2) / bth(opcode="RC Send Only", destqp=inc(1), '
                  'psn=0) / payload(len=16) repeat 1000005',
                  'ipv6(src=fd00:1234:5678:9abc:def0:1234:5678:9abc, '
                  'dst=fd00:1234:5678:9abc:def0:1234:5678:9abd) / bth(opcode="RC Send Only", '
                  'destqp=0x123456, psn=7) / payload(len=16) repeat 100002'])
    start(tmp, 200, 60, ["-r", many])
    wait_for(lambda s: "loaded" in s[-1] and "1100007 frames" in s[-1], "1.1 million frames "
             "loaded", timeout=LOAD_S)
    # The busiest over the last 2 s first (iftop's order): the IPv6 conversation. (The
    # selection follows the conversation it was on while loading: Home goes to the top.)
    keys("Home")
    lines = wait_for(lambda s: "2sv" in s[1] and "fd00:1234:5678:9abc:def0:1234:5678:9abc" in
                     s[2] and "0x123456" in s[2], "the IPv6 conversation first")
    row = screen_convs(lines)
    v6 = next(r for r in row.values() if r["Responder:QP"].endswith("0x123456"))
    t.check(v6["Retx"] == "100001" and v6["ReqPkts"] == "100002", "the IPv6 row: %s" % v6)
    n = check_aligned(lines, "200x60, by rate")
    # By conversation id, the largest first: ids of seven digits.
    keys("1", "Enter")
    keys("Home")
    lines = wait_for(lambda s: "Convv" in s[1] and re.match(r"^\s*\d{7} ", s[2]),
                     "seven-digit conversation ids first")
    n += check_aligned(lines, "200x60, by id")
    # The rows of the conversations the analysis evicted, summed in one of id 0, have no
    # time of their last packet: "-", never a negative time.
    keys("i")
    keys("Home")
    keys(*["l"] * 16)
    lines = wait_for(lambda s: "Last" in s[1] and "(evicted)" in s[2], "the evicted row")
    last = lines[1].index("Last")
    t.check(lines[2][last:].split() == ["-"] and
            not any(re.search(r" -\d", l[last - 2:]) for l in lines[2:-1]),
            "the evicted row's Last: %r" % lines[2][last - 2:])
    keys(*["h"] * 16)
    keys("i")
    keys("Home")
    # 80x24: the rates stay beside the endpoints, cut at their start; the status line ends
    # with the keys.
    tmux("resize-window", "-t", "tui", "-x", "80", "-y", "24")
    lines = wait_for(lambda s: len(s) <= 24 and re.match(r"^\s*\d{7} ", s[2]) and
                     "~" in s[2], "80x24, seven-digit ids")
    t.check(all(len(l) <= 80 for l in lines), "a line wider than 80 columns at 80x24")
    head = lines[1].split()
    t.check(head[1:6] == ["Requester:QP", "Responder:QP", "2s", "10s", "40s"],
            "80x24: the heading %s" % head)
    t.check(lines[-1].rstrip().endswith("?: keys  q: quit"), "80x24 status: %r" % lines[-1])
    n += check_aligned(lines, "80x24")
    keys("1", "5", "Enter")     # Retx, descending: the IPv6 conversation, cut at its start
    keys("Home")
    lines = wait_for(lambda s: "Retxv" in " ".join(s[1:2]) or "Retxv" in s[1] or
                     re.search(r"0x123456 ", s[2]), "80x24, by Retx")
    t.check(re.search(r"~\S*0x123456 ", lines[2]) is not None,
            "80x24: the IPv6 requester cut at its start: %r" % lines[2])
    n += check_aligned(lines, "80x24, by Retx")
    t.check(n >= 50, "only %d cells checked" % n)
    return many


# A text beyond ASCII, in no packet, typed as a terminal sends it (UTF-8): case folded by
# GLib line by line, a search of the 1.1 million frames takes some 0.6 s of an idle 2-core
# host, where an ASCII one, matched in place, takes 0.15 s and could end before Esc.
ABSENT = "no such t\u00e9xt"


# How far a search may go after Esc, in packets: each of its threads (one per processor, at
# most 8) finishes the chunk of 1,024 it holds, and the progress counted from may lag a
# chunk a thread. A count, not a time: a busy host stretches the milliseconds, not this.
AFTER_ESC_MAX = 3 * 1024 * min(os.cpu_count() or 1, 8)


def check_search_stops(many):
    """Esc stops a search of the 1.1 million frames long before its end, within a few chunks
    of packets of the Esc, and says how long the stop took. The text searched for is typed
    in UTF-8 beyond ASCII, and the status line names it whole. Esc follows Enter at once, and
    a search that still ends before Esc reaches it (the TUI's thread stalled for the whole
    search) is tried again, up to three times: on a host loaded four times over, waiting
    to see the search run before pressing Esc missed a search of 2.5 s whole."""
    tmux("resize-window", "-t", "tui", "-x", "200", "-y", "60")
    keys("F3")
    wait_for(lambda s: "[F3 Packets]" in s[0], "the packet list")
    ended = '"%s" is not in the 1100007 packets' % ABSENT
    stopped = None
    for _ in range(3):
        keys("s")
        keys("C-u")
        keys(ABSENT + "\u00e9", literal=True)
        keys("BSpace")      # takes the whole last character, both of its bytes
        keys("Enter")
        keys("Escape")      # at once: waiting to see it run is a race with its end
        lines = wait_for(lambda s: "stopped in" in s[-1] or ended in s[-1],
                         "Esc stops the search")
        if "stopped in" in lines[-1]:
            stopped = lines[-1]
            break
    if not t.check(stopped is not None, "three searches ended before Esc reached them"):
        return
    m = re.search(r"stopped in (\d+) ms, (\d+) packets after Esc \(\"%s\": stopped after "
                  r"(\d+) of (\d+) packets\)" % re.escape(ABSENT), stopped)
    t.check(m is not None, "the stop's status line: %r" % stopped)
    if m is None:
        return
    after, looked, total = int(m.group(2)), int(m.group(3)), int(m.group(4))
    print("search of 1,100,007 frames stopped in %s ms, %d packets after Esc, %d looked at"
          % (m.group(1), after, looked))
    t.check(looked < total == 1100007, "the search stopped before its end: %r" % stopped)
    t.check(after <= AFTER_ESC_MAX, "%d packets searched after Esc, more than %d"
            % (after, AFTER_ESC_MAX))
    # A search asked for while one runs replaces it: the new text's answer, under its own
    # name, and nothing of the one it replaced.
    keys("s")
    keys("C-u")
    keys(ABSENT, literal=True)
    keys("Enter")       # and at once the next: seeing this one run is a race with its end
    keys("s")
    keys("C-u")
    keys("rroce", literal=True)
    keys("Enter")
    lines = wait_for(lambda s: 'found "rroce" in packet' in s[-1] or ABSENT in s[-1]
                     and "finding" not in s[-1], "the second search answers")
    t.check('found "rroce" in packet' in lines[-1],
            "a search replacing a running one: %r" % lines[-1])
    keys("q")
    stop_session()


def check_rates():
    """One 90-byte frame every 10 ms for 45 s: 9,000 B/s in every window."""
    steady = os.path.join(tmp, "steady.pcap")
    inject(steady, ['ip(src=10.0.0.1, dst=10.0.0.2) / bth(opcode="RC Send Only", destqp=0x11, '
                    'psn=inc(0)) / payload(len=32) repeat 4500'])
    retime(steady, 10000)
    t.check(read_lines("-c", "1", path=steady)[0].split()[6] == "90", "not 90-byte frames")
    start(tmp, 200, 40, ["-r", steady])
    lines = wait_for(lambda s: "loaded" in s[-1] and screen_convs(s).get("1"), "steady loaded")
    row = screen_convs(lines)["1"]
    t.check((row["2s"], row["10s"], row["40s"]) == ("9.0K", "9.0K", "9.0K"),
            "a steady 9,000 B/s shows %s %s %s" % (row["2s"], row["10s"], row["40s"]))
    keys("q")
    stop_session()


def check_write_refused():
    """w onto the file shown: refused, the file as it was."""
    mine = os.path.join(tmp, "mine.pcap")
    open(mine, "wb").write(open(SAMPLE, "rb").read())
    start(tmp, 200, 40, ["-r", mine])
    wait_for(lambda s: "loaded" in s[-1], "loaded")
    keys("w")
    keys(mine, literal=True)
    keys("Enter")
    wait_for(lambda s: "write: %s: is the capture being read" % mine in s[-1],
             "w onto the open file is refused")
    t.check(open(mine, "rb").read() == open(SAMPLE, "rb").read(), "the open file changed")
    keys("q")
    stop_session()


def check_ascii():
    """LC_ALL=C: ASCII stand-ins, never '?'."""
    start(tmp, 200, 50, ["-r", SAMPLE], env={"LC_ALL": "C", "LANG": "C"})
    keys("F3")
    want = [l.replace("\u2192", "->") for l in read_lines()]
    lines = wait_for(lambda s: packet_lines(s) == want[:len(packet_lines(s))] and
                     len(packet_lines(s)) >= 10, "LC_ALL=C: read's lines with ->")
    t.check(not any("?" in l for l in lines[:-1]), "a '?' on the screen under LC_ALL=C")
    t.check(any(l.startswith("- Frame 1:") for l in lines) and
            any(l.startswith("- Ethernet II") for l in lines),
            "LC_ALL=C: the tree's marks are - and +")
    keys("Left")        # the cursor is on the Frame line: it folds
    wait_for(lambda s: any(l.startswith("+ Frame 1:") for l in s), "LC_ALL=C: + for a fold")
    keys("q")
    stop_session()


def check_help():
    """At 80x24 the help scrolls to its end; the status line keeps q: quit."""
    start(tmp, 80, 24, ["-r", SAMPLE])
    wait_for(lambda s: "loaded" in s[-1], "loaded at 80x24")
    keys("?")
    lines = wait_for(lambda s: s[1].startswith("Keys") and "q: quit" in s[-1], "the help")
    t.check(not any("quit (twice" in l for l in lines), "the whole help fits 80x24?")
    keys("End")
    lines = wait_for(lambda s: any(l.startswith("  q                  quit") for l in s),
                     "End: the help's last line")
    t.check(lines[-1].rstrip().endswith("q: quit"), "help status: %r" % lines[-1])
    keys("x")
    wait_for(lambda s: "[F2 " in s[0] and not any("quit (twice" in l for l in s),
             "any other key closes the help")
    keys("q")
    stop_session()


TIME_FORMATS = [("a", "absolute"), ("ad", "absolute with date"), ("u", "UTC"),
                ("ud", "UTC with date"), ("e", "epoch"), ("d", "delta"),
                ("dd", "delta displayed")]


def check_conventions():
    """The header, the title, t, j and k, h and l, Frame folding, the IB node's bytes, the
    graph's axes, and Enter on a hidden anomaly."""
    start(tmp, 200, 60, ["-r", SAMPLE])
    lines = wait_for(lambda s: "loaded" in s[-1] and s[0].rstrip().endswith(SAMPLE),
                     "the file's name in the title")
    keys("F3")
    lines = wait_for(lambda s: "[F3 Packets]" in s[0] and s[1].split()[:2] == ["No.", "Time"],
                     "the packet list's header")
    t.check(s_cols(lines[1]) == ["No.", "Time", "Source", "\u2192", "Destination", "Protocol",
                                 "Length", "Info"], "header %r" % lines[1])
    for fmt, name in TIME_FORMATS:
        keys("t")
        want = read_lines("-t", fmt)
        wait_for(lambda s: "time: %s" % name in s[-1] and packet_lines(s) ==
                 want[:len(packet_lines(s))] and len(packet_lines(s)) >= 10,
                 "t: the time column as read -t %s" % fmt)
    keys("t")
    wait_for(lambda s: "time:" not in s[-1] and packet_lines(s)[0] == read_lines()[0],
             "t comes back to relative")
    keys("j", "j")
    wait_for(lambda s: any(l.startswith(" Packet 3") for l in s), "j j: packet 3")
    keys("k")
    wait_for(lambda s: any(l.startswith(" Packet 2") for l in s), "k: packet 2")
    keys("Home")
    # The Frame node folds (h), and unfolds (l).
    wait_for(lambda s: tree_cursor()[0] is not None and
             tree_cursor()[0].startswith("\u25be Frame 1:"), "the cursor on the Frame line")
    keys("h")
    wait_for(lambda s: any(l.startswith("\u25b8 Frame 1:") for l in s) and
             not any("Frame Number:" in l for l in s), "h folds the Frame node")
    keys("l")
    wait_for(lambda s: any("Frame Number: 1" in l for l in s), "l unfolds it")
    # The InfiniBand node highlights the IB transport packet: BTH to ICRC, 72 bytes.
    tree = read_lines("-V", "-c", "1")
    ib = next(i for i, l in enumerate(tree) if l.startswith("InfiniBand"))
    keys(*["J"] * ib)
    wait_for(lambda s: tree_cursor()[0] == "\u25be " + tree[ib] and
             len(tree_cursor()[1].split()) == 72, "the InfiniBand node's 72 bytes highlighted")
    # The graph's axes: PSNs from the first request's, the throughput in SI units.
    keys("F2")
    keys("1", "Enter")
    keys("i")
    keys("Home")
    keys("F6")
    lines = wait_for(lambda s: "[F6 Graph]" in s[0] and any(" PSN from" in l for l in s),
                     "the graph's PSN axis")
    text = "\n".join(lines)
    t.check(re.search(r"^\s+100\s*\S", text, re.M) is not None or "      100" in text,
            "the first request's PSN (100) on the axis")
    t.check(re.search(r"^\s*[+]\d+ ", text, re.M) is not None, "the axis' ends signed")
    t.check(re.search(r"^\s*(kbit|Mbit|Gbit|bit)/s", text, re.M) is not None and "e+" not in
            text, "the throughput axis in SI units:\n%s" % text)
    t.check(re.search(r"\d+(\.\d+)? (ms|us|\u00b5s|s)\s*$", lines[-2 - 4 - 1]) is not None or
            re.search(r"\d (m|\u00b5)?s\s*$", text, re.M) is not None, "the time axis' end")
    # Enter on an anomaly the filter hides asks; n keeps the filter.
    keys("/")
    keys("C-u")
    keys("roceshark.analysis.conv == 2", literal=True)
    keys("Enter")
    wait_for(lambda s: "filter applied" in s[-1], "filter conv 2")
    keys("F5")
    wait_for(lambda s: "[F5 Anomalies]" in s[0] and "expert items" in s[1], "the anomalies")
    keys("Home")
    keys("Enter")
    wait_for(lambda s: "is hidden by the filter: clear the filter? (y/n)" in s[-2],
             "Enter on a hidden anomaly asks")
    keys("n")
    wait_for(lambda s: "which stays" in s[-1] and "roceshark.analysis.conv == 2" in s[-1],
             "n keeps the filter")
    keys("q")
    stop_session()


def s_cols(line):
    return line.split()


def check_iwarp():
    """An iWARP trace: the packet list's rows are read's, and under -Y iwarp_ddp_rdmap."""
    path = t.extra_capture("kazikame_SoftUiWarp__uiwarp__422babab.pcap")
    if path is None:
        gen = os.path.join(tmp, "gen")
        os.mkdir(gen)
        t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_iwarp.py"), gen, "--seed", "41"])
        path = os.path.join(gen, "aligned.pcap")
    for flt in ([], ["-Y", "iwarp_ddp_rdmap"]):
        want = read_lines(*flt, path=path)
        start(tmp, 220, 60, ["-r", path] + flt)
        keys("F3")
        shown = min(len(want), 20)
        lines = wait_for(lambda s: "loaded" in s[-1] and len(packet_lines(s)) >= shown and
                         packet_lines(s) == want[:len(packet_lines(s))] and want,
                         "iWARP %s: the rows read prints" % " ".join(flt))
        if flt:
            t.check(not any("[PSH, ACK]" in l for l in packet_lines(lines)),
                    "-Y iwarp_ddp_rdmap lists TCP segments")
        keys("q")
        stop_session()


try:
    check_write_refused()
    check_ascii()
    check_help()
    check_conventions()
    check_iwarp()
    check_rates()
    many = check_layout()
    check_search_stops(many)
finally:
    tmux("kill-server")

t.finish("tui views")
