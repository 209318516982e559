#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""roceshark tui, driven through tmux (send-keys, capture-pane) on the bundled sample: the
conversation rows carry the numbers of `read -q -z conv,qp`, the anomaly list those of
`-z expert`, a filter shows exactly the lines `read -Y` prints, Enter on a QP shows its
packets, `w` writes what `read -Y` selects, Space and `W` write the tagged packets, `o`
freezes the row order, Up recalls a filter, rows are coloured by kind (and not with
--no-color or NO_COLOR), the screen still draws at 80x24. On a generated RC fault trace the
rows and a filter's count match `read` too. The detail tree's cursor, the bytes it
highlights, and folding. The graph view's legend counts what
`-z conv,qp` counts. The NIC counters view over a fake sysfs tree
whose counters the test changes: values and rates follow, the capture's figures beside
them. Without a terminal, or in one too small, a one-line error and exit code 1; -d without
an RDMA device, exit 4. As root: a live capture on one end of a veth pair between two
namespaces the test makes, the sample sent from the other end: the rows count what was
sent, q twice ends it with the counts, the file keeps every frame; then on the loopback of
a namespace of its own, SIGINT ends it and the temporary file is removed."""
import glob
import os
import re
import signal
import time

import rstest as t

from tuitmux import (ENV, SAMPLE, conv_table, exit_of, keys, packet_lines, read_lines,
                     screen, screen_convs, start, stop_session, tmux, tree_cursor, wait_for)


def row_colours():
    """{frame number: SGR foreground colour (30-37) or None} of the packet list's rows, and
    whether any colour was drawn at all, from the pane with its escapes (capture-pane -e)."""
    text = tmux("capture-pane", "-e", "-p", "-t", "tui").stdout
    fg, rows, any_colour = None, {}, False
    for line in text.split("\n"):
        plain = ""
        for tok in re.split(r"(\x1b\[[0-9;]*m)", line):
            if not tok.startswith("\x1b["):
                if not plain.strip():
                    m = re.match(r"^\s*(\d+)\s+\d+\.\d+ ", plain + tok)
                    if m:
                        rows[int(m.group(1))] = fg
                plain += tok
                continue
            for p in tok[2:-1].split(";") or ["0"]:
                if p in ("", "0", "39"):
                    fg = None
                elif p in ("30", "31", "32", "33", "34", "35", "36", "37"):
                    fg, any_colour = int(p), True
                elif p == "38":
                    any_colour = True
    return rows, any_colour


def check_colours():
    """NAKs red, retransmissions and gaps amber, CE and CNPs blue, the rest plain."""
    rows, _ = row_colours()
    want = {1: None, 12: 33, 13: 31, 14: 33, 18: 31, 21: 34, 22: 34, 23: None}
    got = {n: rows.get(n, "absent") for n in want}
    t.check(got == want, "packet colours: want %s, got %s" % (want, got))


def check_no_colour(tmp, how):
    """--no-color or NO_COLOR: the packets view draws without a colour."""
    start(tmp, 200, 60, ["-r", SAMPLE] + (["--no-color"] if how == "--no-color" else []))
    keys("F3")
    wait_for(lambda s: "[F3 Packets]" in s[0] and "loaded" in s[-1], "packets (%s)" % how)
    rows, any_colour = row_colours()
    t.check(len(rows) >= 20 and not any_colour, "%s: %d rows, colours drawn: %s"
            % (how, len(rows), any_colour))
    keys("q")
    stop_session()


def check_conversations(lines, path=SAMPLE):
    want, got = conv_table(path), screen_convs(lines)
    t.check(sorted(want) == sorted(got), "conversation ids: read %s, tui %s"
            % (sorted(want), sorted(got)))
    same = ["Requester:QP", "Responder:QP", "ReqPkts", "ReqBytes", "RspPkts", "RspBytes", "SEND",
            "WRITE", "READ", "ATOMIC", "Retx", "Gaps", "RNR", "CNP", "Viol", "RdAvg_us",
            "RdP99_us"]
    for cid, w in want.items():
        g = got.get(cid, {})
        for col in same:
            t.check(g.get(col) == w[col], "conv %s %s: read %s, tui %s"
                    % (cid, col, w[col], g.get(col)))
        naks = sum(int(w[c]) for c in ("NakSeq", "NakInv", "NakAcc", "NakOp", "NakRD"))
        t.check(g.get("NAKs") == str(naks), "conv %s NAKs: read %d, tui %s"
                % (cid, naks, g.get("NAKs")))
        t.check(g.get("CE") == w["ECN-CE"], "conv %s CE: read %s, tui %s"
                % (cid, w["ECN-CE"], g.get("CE")))
        for rate in ("2s", "10s", "40s") if path == SAMPLE else ():
            t.check(g.get(rate) not in (None, "0"), "conv %s: no %s rate" % (cid, rate))


def conv_order(lines):
    return [int(l.split()[0]) for l in lines[2:] if re.match(r"^\s*\d+ \d", l)]


def check_freeze():
    """A column's number sorts by it; `o` keeps the rows where they are while the sort
    changes under them."""
    keys("F2")
    # iftop's order at first: the 2 s rate, the busiest first.
    wait_for(lambda s: "2sv" in s[1] and conv_order(s) == [1, 2], "sorted by the 2 s rate")
    keys("i")
    keys("1", "5", "Enter")     # column 15, Retx: conversation 2 (none) first
    wait_for(lambda s: "Retx^" in s[1] and conv_order(s) == [2, 1], "sorted by column 15")
    keys("1", "Enter")
    wait_for(lambda s: "Conv^" in s[1] and conv_order(s) == [1, 2], "sorted by column 1")
    keys(*[">"] * 6)     # past the rates to ReqPkts, ascending: conversation 2 (3 packets)
    wait_for(lambda s: "ReqPkts^" in s[1] and conv_order(s) == [2, 1], "sorted by ReqPkts")
    keys("o")
    keys("i")
    wait_for(lambda s: "ReqPkts=" in s[1] and conv_order(s) == [2, 1],
             "a frozen order stays as the sort is inverted")
    keys("o")
    wait_for(lambda s: "ReqPktsv" in s[1] and conv_order(s) == [1, 2],
             "freed, the inverted sort shows")
    keys(*["<"] * 6)
    keys("i")                   # back to Conv, ascending


def check_tags(tmp):
    """Space tags packets 13 and 14; W writes them, as read -Y selects them."""
    keys("F3")
    keys("g")
    keys("13", literal=True)
    keys("Enter")
    wait_for(lambda s: any(l.startswith(" Packet 13") for l in s), "g 13 before tagging")
    keys("Space", "Space")
    want = read_lines("-Y", "frame.number in {13, 14}")
    wait_for(lambda s: packet_lines(s, tagged=True) == want and "2 tagged" in s[-1],
             "packets 13 and 14 tagged")
    out = os.path.join(tmp, "tagged.pcap")
    keys("W")
    keys(out, literal=True)
    keys("Enter")
    wait_for(lambda s: "wrote 2 tagged packets" in s[-1], "W writes the tagged packets")
    fields = ["-T", "fields", "-e", "frame.time_epoch", "-e", "frame.len",
              "-e", "infiniband.bth.psn"]
    t.check(t.run([t.ROCESHARK, "read", "-r", out] + fields).stdout ==
            t.run([t.ROCESHARK, "read", "-r", SAMPLE, "-Y", "frame.number in {13, 14}"] +
                  fields).stdout, "W wrote packets 13 and 14")


def check_filter(text):
    keys("/")
    keys("C-u")
    keys(text, literal=True)
    keys("Enter")
    want = read_lines("-Y", text)
    got = wait_for(lambda s: packet_lines(s) == want and "filter applied" in s[-1],
                   "filter %r shows read -Y's %d lines" % (text, len(want)))
    # The conversation table lists the conversations of the frames shown.
    convs = sorted(set(read_lines("-Y", text, "-T", "fields", "-e", "roceshark.analysis.conv")))
    keys("F2")
    wait_for(lambda s: sorted(screen_convs(s)) == convs,
             "filter %r: the table lists conversations %s" % (text, convs))
    keys("F3")
    return packet_lines(got)


def check_anomalies():
    """Every expert item, newest first: the counts per summary are -z expert's."""
    def anomaly_rows(lines):
        rows = [re.match(r"^\s*(\d+)\s+\S+\s+\S+\s+\S+\s+(.*) \(\S+\)\s*$", l)
                for l in lines[2:]]
        return [(int(m.group(1)), m.group(2)) for m in rows if m]

    keys("F5")
    # The tab bar can be drawn before the rows below it: wait for both.
    lines = wait_for(lambda s: "[F5 Anomalies]" in s[0] and anomaly_rows(s), "the Anomalies view")
    rows = anomaly_rows(lines)
    frames = [f for f, _ in rows]
    t.check(frames == sorted(frames, reverse=True) and frames, "anomalies newest first: %s"
            % frames)
    expert = read_lines("-q", "-z", "expert")
    want = {}
    for l in expert:      # our items (the anomalies), TCP's aside
        m = re.match(r"^\s*(\d+)\s+\S+\s+roceshark  (.+?)\s{2,}[\d .]+$", l)
        if m:
            want[m.group(2)] = int(m.group(1))
    got = {}
    for _, summary in rows:
        got[summary] = got.get(summary, 0) + 1
    t.check(want and got == want, "anomalies per summary: -z expert %s, tui %s" % (want, got))
    # Enter on the newest item shows its packet.
    keys("Enter")
    wait_for(lambda s: any(l.startswith(" Packet %d" % frames[0]) for l in s),
             "Enter on an anomaly shows packet %d" % frames[0])


def check_drill_down():
    """Enter on the second conversation: its packets, as read -Y conv == 2 lists them."""
    keys("F2")
    wait_for(lambda s: "[F2 QP conversations]" in s[0], "the conversations view")
    keys("Down")
    keys("Enter")
    want = read_lines("-Y", "roceshark.analysis.conv == 2")
    wait_for(lambda s: packet_lines(s) == want, "Enter on conversation 2 shows its %d packets"
             % len(want))


def check_export(tmp, text):
    out = os.path.join(tmp, "shown.pcap")
    keys("w")
    keys(out, literal=True)
    keys("Enter")
    wait_for(lambda s: "wrote" in s[-1], "w reports what it wrote")
    fields = ["-T", "fields", "-e", "frame.time_epoch", "-e", "frame.len", "-e", "ip.src",
              "-e", "ip.dst", "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.psn"]
    want = t.run([t.ROCESHARK, "read", "-r", SAMPLE, "-Y", text] + fields).stdout
    got = t.run([t.ROCESHARK, "read", "-r", out] + fields).stdout
    t.check(want == got and want, "w wrote what read -Y selects:\n%s\nvs\n%s" % (want, got))


def check_tcp(tmp):
    """TCP frames of a real capture, a stream refused and tried again on the same ports among
    them: the packet list shows read's Seq, Ack and Win, which need the stream's history."""
    path = os.path.join(t.REAL_CAPTURES, "linlinw5_rdma_ib_tutorial__pcap_nccl_nccl_node0.pcap")
    text = "frame.number >= 845 && frame.number <= 860"
    want = read_lines("-Y", text, path=path)
    rc_file, err_file = start(tmp, 200, 60, ["-r", path, "-Y", text])
    wait_for(lambda s: "loaded" in s[-1], "the TCP capture loaded")
    keys("F3")
    # 16 frames, 15 with Seq, Ack and Win: frame 852 begins an HTTP request spread over
    # two segments, and shows its first line as tshark does.
    wait_for(lambda s: packet_lines(s) == want and len(want) == 16 and
             sum("Seq=" in l for l in want) == 15,
             "TCP frames show read's %d lines, 15 with Seq, Ack and Win" % len(want))
    keys("q")
    rc, err = exit_of(rc_file, err_file)
    t.check(rc == 0 and err == "", "TCP capture quit: exit %s, %r" % (rc, err))
    stop_session()


def check_generated(tmp):
    """An RC trace with losses, retransmissions, NAKs, RNR and CE marks (tests/gen/gen_rc.py):
    its conversation rows, and a filter's count of frames, as read gives them."""
    t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_rc.py"), tmp])
    path = os.path.join(tmp, "mixed.pcap")
    frames = len(read_lines(path=path))
    rc_file, err_file = start(tmp, 200, 60, ["-r", path])
    lines = wait_for(lambda s: re.search(r"loaded in [0-9.]+ s \| %d frames" % frames, s[-1]) and
                     len(screen_convs(s)) == len(conv_table(path)), "mixed.pcap loaded")
    check_conversations(lines, path)
    text = "roceshark.analysis.nak || roceshark.analysis.psn_gap"
    want = len(read_lines("-Y", text, path=path))
    keys("/")
    keys(text, literal=True)
    keys("Enter")
    wait_for(lambda s: "%d frames, %d shown" % (frames, want) in s[-1] and want > 0,
             "mixed.pcap: %s shows read -Y's %d frames" % (text, want))
    keys("q")
    rc, err = exit_of(rc_file, err_file)
    t.check(rc == 0 and err == "", "mixed.pcap quit: exit %s, %r" % (rc, err))
    stop_session()


def check_tree():
    """The Packets view's tree: the cursor (J, K) walks the -V lines and the hex pane
    highlights the bytes of the line under it; Left folds a node, or goes to its parent;
    Right unfolds it; C and E fold and unfold all; a fold holds on the next packet."""
    keys("F3")
    keys("Home")
    want = read_lines("-V", "-c", "1")
    psn = next(i for i, l in enumerate(want) if "Packet Sequence Number" in l)
    keys(*(["J"] * psn))
    wait_for(lambda s: tree_cursor() == ("Packet Sequence Number: 100", "00 00 64"),
             "J %d times: the cursor on the PSN, its 3 bytes highlighted" % psn)
    keys("K", "K")
    wait_for(lambda s: tree_cursor() == ("1... .... = Acknowledge Request: True", "80"),
             "K twice: the cursor on AckReq, its byte highlighted")
    keys("Left")    # a leaf: to its parent
    wait_for(lambda s: tree_cursor()[0] == "\u25be Base Transport Header" and
             len(tree_cursor()[1].split()) == 12, "Left on a leaf: the BTH, its 12 bytes")
    keys("Left")    # a node: folded
    wait_for(lambda s: tree_cursor()[0] == "\u25b8 Base Transport Header" and
             not any("Packet Sequence Number" in l for l in s), "Left folds the BTH")
    keys("Down")    # the next packet keeps the fold and the cursor's field
    wait_for(lambda s: tree_cursor()[0] == "\u25b8 Base Transport Header" and
             any(l.startswith(" Packet 2") for l in s), "packet 2: the BTH still folded")
    keys("Right")
    wait_for(lambda s: tree_cursor()[0] == "\u25be Base Transport Header",
             "Right unfolds the BTH of packet 2")
    keys("J")
    # the opcode line as -V prints it for packet 2 (Wireshark's value name)
    opcode = [l.strip() for l in read_lines("-V", "-c", "2") if "Opcode:" in l][1]
    wait_for(lambda s: tree_cursor() == (opcode, "11"),
             "J: the first line under the BTH of packet 2 (%s)" % opcode)
    keys("C")
    wait_for(lambda s: any(l.startswith("\u25b8 Ethernet II") for l in s) and
             not any("Source Address" in l for l in s), "C folds every node")
    keys("E")
    wait_for(lambda s: any(l.startswith("\u25be Ethernet II") for l in s) and
             any("Frame Number: 2" in l for l in s), "E unfolds them")
    keys("Home")


def check_search():
    """s finds the next packet whose line holds a text, in any case; n again, wrapping."""
    keys("F3")
    keys("Home")
    keys("s")
    keys("C-u")
    keys("rnr nak", literal=True)
    keys("Enter")
    wait_for(lambda s: any(l.startswith(" Packet 18") for l in s) and
             'found "rnr nak" in packet 18' in s[-1], "s finds the RNR NAK, packet 18")
    keys("n")
    wait_for(lambda s: any(l.startswith(" Packet 18") for l in s) and
             'in packet 18' in s[-1], "n wraps to the only RNR NAK")
    keys("s")
    keys("C-u")
    keys("no such text", literal=True)
    keys("Enter")
    wait_for(lambda s: '"no such text" is not in the 27 packets' in s[-1],
             "a text in no packet says so")
    keys("Home")


def check_graph():
    """F6 graphs the selected conversation: its legend counts what -z conv,qp counts, the
    PSNs are braille dots, the throughput block characters; Down moves to the next one."""
    keys("F2")
    keys("Home")
    keys("F6")
    want = conv_table()["1"]
    legend = ("retransmissions %s  after gaps %s  NAKs %s  RNR NAKs %s  CNPs %s  CE %s"
              % (want["Retx"], want["Gaps"], want["NakSeq"], want["RNR"], want["CNP"],
                 want["ECN-CE"]))
    lines = wait_for(lambda s: "[F6 Graph]" in s[0] and s[1].startswith(
        "PSN over time: conversation 1, 10.0.0.1 to 10.0.0.2 QP 0x000022") and legend in s[2],
        "the graph of conversation 1 with the legend %r" % legend)
    dots = sum(1 for l in lines for ch in l if 0x2801 <= ord(ch) <= 0x28ff)
    t.check(dots >= 10, "the PSN graph: %d braille cells drawn" % dots)
    t.check(any("\u2588" in l for l in lines), "the throughput panel: no full block drawn")
    keys("Down")
    wait_for(lambda s: s[1].startswith("PSN over time: conversation 2, 10.0.0.3 to 10.0.0.2 "
                                       "QP 0x000044"), "Down graphs conversation 2")
    keys("F2")


def fake_port(root, counters):
    """A sysfs tree of one RDMA port, rs0 port 1, holding counters {"dir/name": value}."""
    for path, value in counters.items():
        full = os.path.join(root, "class", "infiniband", "rs0", "ports", "1", path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full + ".tmp", "w") as f:
            f.write("%d\n" % value)
        os.replace(full + ".tmp", full)     # a reader never sees half a number


def counter_rows(lines):
    """The NIC counters view's rows as {name: [group, value, rate, capture figure...]}."""
    rows = {}
    for l in lines[2:-1]:
        f = l.split()
        if len(f) >= 4 and f[1] in ("counters", "hw_counters"):
            rows[f[0]] = f[1:]
    return rows


def check_counters(tmp):
    """--counters over a fake sysfs tree: F7 lists every counter, its value follows the
    files, a counter that grows shows its rate per second, and the capture's figures stand
    beside the NIC's (the sample's totals of -z conv,qp)."""
    root = os.path.join(tmp, "sysfs")
    values = {"counters/port_rcv_packets": 1000, "counters/port_xmit_packets": 2000,
              "hw_counters/out_of_sequence": 7, "hw_counters/np_cnp_sent": 0,
              "hw_counters/rnr_nak_retry_err": 0, "hw_counters/packet_seq_err": 3,
              "hw_counters/np_ecn_marked_roce_packets": 5, "hw_counters/local_ack_timeout_err": 0}
    fake_port(root, values)
    start(tmp, 200, 60, ["-r", SAMPLE, "--counters", "rs0:1", "--sysfs", root])
    lines = wait_for(lambda s: "[F7 NIC counters]" in s[0] and "loaded" in s[-1] and
                     len(counter_rows(s)) == len(values), "the NIC counters view")
    rows = counter_rows(lines)
    for path, value in values.items():
        group, name = path.split("/")
        t.check(rows.get(name, [None, None])[:2] == [group, str(value)],
                "counter %s: want %s %d, got %s" % (name, group, value, rows.get(name)))
    totals = conv_table()
    gaps = sum(int(r["Gaps"]) for r in totals.values())
    ce = sum(int(r["ECN-CE"]) for r in totals.values())
    t.check(rows["out_of_sequence"][3:] == ["PSN", "gaps", str(gaps)],
            "out_of_sequence beside the capture's PSN gaps (%d): %s" % (gaps, rows["out_of_sequence"]))
    t.check(rows["np_ecn_marked_roce_packets"][3:] == ["ECN-CE", "packets", str(ce)],
            "np_ecn_marked_roce_packets beside the capture's CE marks (%d): %s"
            % (ce, rows["np_ecn_marked_roce_packets"]))
    # np_cnp_sent grows by 400 every 0.2 s: 2000 a second when this loop keeps its pace,
    # less on a loaded host, where each round takes longer. So the rate the screen shows
    # (it reads once a second) is held against the rate written over the last 2.5 s, as
    # this loop measured it: within 40%, what two one-second samples can see of it.
    start_t, sent = time.time(), 0
    written = []                        # (time, value) after each write
    rate = want = None
    while time.time() - start_t < 8:
        sent += 400
        fake_port(root, {"hw_counters/np_cnp_sent": sent})
        written.append((time.time(), sent))
        time.sleep(0.2)
        r = counter_rows(screen()).get("np_cnp_sent")
        if r is not None and time.time() - start_t > 2.5:
            recent = [w for w in written if w[0] >= written[-1][0] - 2.5]
            want = (recent[-1][1] - recent[0][1]) / max(recent[-1][0] - recent[0][0], 1e-3)
            rate = float(r[2])
            if 0.6 * want <= rate <= 1.4 * want:
                break
    t.check(rate is not None and want and 0.6 * want <= rate <= 1.4 * want,
            "np_cnp_sent written at %.0f/s: the screen showed %s/s" % (want or 0, rate))
    # It stops: the next samples show the final value and no rate.
    lines = wait_for(lambda s: counter_rows(s).get("np_cnp_sent", [""] * 3)[1:3] ==
                     [str(sent), "0"], "np_cnp_sent stopped at %d" % sent, timeout=5)
    keys("q")
    stop_session()
    # A port that is not there, or a bad port number: one line and an exit code, before
    # the terminal is looked at.
    p = t.run([t.ROCESHARK, "tui", "-r", SAMPLE, "--counters", "mlx5_9:2", "--sysfs", root],
              check_rc=False)
    t.check(p.returncode == 4 and p.stderr.startswith("roceshark: tui: mlx5_9 port 2: no such "
                                                       "RDMA port (") and p.stderr.count("\n") == 1,
            "--counters on a missing port: exit %d, %r" % (p.returncode, p.stderr))
    p = t.run([t.ROCESHARK, "tui", "-r", SAMPLE, "--counters", "rs0:0"], check_rc=False)
    t.check(p.returncode == 1 and p.stderr == "roceshark: --counters rs0:0: expected DEV or "
            "DEV:PORT (port 1-255)\n", "--counters rs0:0: exit %d, %r" % (p.returncode, p.stderr))


def check_live(tmp):
    """The sample sent across a veth pair between two namespaces the test makes, to the TUI
    capturing on the far end; then through the loopback of the TUI's own namespace."""
    import livenet
    pair = livenet.VethPair("tui")
    kept = os.path.join(tmp, "live.pcap")
    rc_file, err_file = start(tmp, 200, 60, ["-i", pair.if_b, "-w", kept], netns=pair.ns_b)
    wait_for(lambda s: s[0].endswith("%s -> %s" % (pair.if_b, kept)) and "capturing" in s[-1]
             and os.path.exists(tmp + "/pid"), "a live capture starts")
    lines = wait_for(lambda s: " 0 frames, 0 shown" in s[-1], "no frame before the sending")
    pair.send(SAMPLE)
    want = conv_table()
    lines = wait_for(lambda s: "27 frames, 27 shown" in s[-1] and len(screen_convs(s)) == 2,
                     "the 27 frames sent, captured")
    got = screen_convs(lines)
    for cid, w in want.items():
        for col in ("Requester:QP", "Responder:QP", "ReqPkts", "ReqBytes", "RspPkts",
                    "RspBytes", "SEND", "WRITE", "READ", "ATOMIC", "Retx", "Gaps"):
            t.check(got.get(cid, {}).get(col) == w[col], "live conv %s %s: sent %s, tui %s"
                    % (cid, col, w[col], got.get(cid, {}).get(col)))
    # Live rates follow the clock: two quiet seconds empty the 2 s column, not the 40 s one.
    rate = lambda s, col: screen_convs(s).get("1", {}).get(col)
    lines = wait_for(lambda s: rate(s, "2s") == "0", "the 2 s rate falls to 0 after the burst")
    t.check(rate(lines, "40s") not in (None, "0"), "the 40 s rate: %s" % rate(lines, "40s"))
    keys("q")
    wait_for(lambda s: "q again" in s[-1], "q asks again while capturing")
    keys("q")
    rc, err = exit_of(rc_file, err_file)
    t.check(rc == 0 and err == "capture: %s: 27 received, 27 written, 0 dropped by kernel, 0 "
            "dropped by interface, 0 dropped by ring\n" % pair.if_b,
            "live quit: exit %s, %r" % (rc, err))
    fields = ["-T", "fields", "-e", "frame.len", "-e", "ip.src", "-e", "infiniband.bth.psn"]
    t.check(t.run([t.ROCESHARK, "read", "-r", kept] + fields).stdout ==
            t.run([t.ROCESHARK, "read", "-r", SAMPLE] + fields).stdout,
            "the kept capture holds what was sent")
    stop_session()
    pair.remove()
    # Without -w the capture goes to a temporary file, removed on exit; SIGINT ends it as
    # q does, with the counts.
    scratch = os.path.join(tmp, "scratch")
    os.mkdir(scratch)
    ENV["TMPDIR"] = scratch
    rc_file, err_file = start(tmp, 200, 60, ["-i", "lo"], netns=True)
    wait_for(lambda s: "lo -> " + scratch in s[0] and os.path.exists(tmp + "/pid"),
             "a capture to a temporary file")
    t.check(len(glob.glob(scratch + "/roceshark-tui-*.pcap")) == 1, "no temporary file")
    pid = open(tmp + "/pid").read().strip()
    t.run(["nsenter", "-t", pid, "-n", t.PYTHON, os.path.join(t.HERE, "sendframes.py"), "lo",
           SAMPLE])
    wait_for(lambda s: "27 frames" in s[-1], "27 frames into the temporary file")
    os.kill(int(pid), signal.SIGINT)
    rc, err = exit_of(rc_file, err_file)
    t.check(rc == 0 and err == "capture: lo: 27 received, 27 written, 0 dropped by kernel, 0 "
            "dropped by interface, 0 dropped by ring\n", "SIGINT: exit %s, %r" % (rc, err))
    t.check(glob.glob(scratch + "/*") == [], "temporary capture file left: %s"
            % glob.glob(scratch + "/*"))
    del ENV["TMPDIR"]
    stop_session()


tmp = t.tempdir()

# Not a terminal: one line, exit code 1, before anything else.
p = t.run([t.ROCESHARK, "tui", "-r", SAMPLE], check_rc=False)
t.check(p.returncode == 1, "not a terminal: exit %d" % p.returncode)
t.check(p.stderr == "roceshark: tui: standard output is not a terminal\n",
        "not a terminal: %r" % p.stderr)
p = t.run([t.ROCESHARK, "tui", "-r", SAMPLE, "-Y", "ip.src =="], check_rc=False)
t.check(p.returncode == 1 and p.stderr.startswith("roceshark: -Y ip.src ==: at position 10"),
        "bad -Y: exit %d, %r" % (p.returncode, p.stderr))

try:
    # No RDMA device here: -d says so in one line, exit 4, as capture -d does.
    rc_file, err_file = start(tmp, 100, 30, ["-d", "mlx5_0:1"])
    rc, err = exit_of(rc_file, err_file)
    t.check(rc == 4 and err.startswith("roceshark: tui: mlx5_0") and err.count("\n") == 1,
            "tui -d without a device: exit %s, %r" % (rc, err))
    stop_session()
    # Too small a terminal.
    rc_file, err_file = start(tmp, 60, 20, ["-r", SAMPLE])
    rc, err = exit_of(rc_file, err_file)
    t.check(rc == 1 and re.fullmatch(r"roceshark: tui: the terminal is 60x20, smaller than "
                                     r"80x24\n", err), "too small: exit %s, %r" % (rc, err))
    stop_session()

    rc_file, err_file = start(tmp, 200, 60, ["-r", SAMPLE])
    lines = wait_for(lambda s: "loaded" in s[-1] and len(screen_convs(s)) == 2,
                     "the conversations after loading")
    check_conversations(lines)
    check_drill_down()
    # g to a packet the filter hides asks first: n keeps the filter, y clears it.
    keys("g")
    keys("13", literal=True)
    keys("Enter")
    wait_for(lambda s: "Packet 13 is hidden by the filter: clear the filter? (y/n)" in s[-2],
             "g 13 under a filter hiding it asks")
    keys("n")
    wait_for(lambda s: "packet 13 is hidden by the filter, which stays" in s[-1] and
             "filter: roceshark.analysis.conv == 2" in s[-1] and "4 shown" in s[-1],
             "n keeps the filter")
    keys("g")
    keys("13", literal=True)
    keys("Enter")
    keys("y")
    wait_for(lambda s: any(l.startswith(" Packet 13") for l in s) and "filter: none" in s[-1],
             "y clears it and goes to packet 13")
    # A filter that does not compile stays open, red, with the position.
    keys("/")
    keys("C-u")
    keys("ip.src ==", literal=True)
    wait_for(lambda s: "at position 10" in s[-2], "a bad filter shows where it fails")
    keys("Escape")
    text = "ip.dst == 10.0.0.1 || roceshark.analysis.retransmission"
    check_filter(text)
    check_export(tmp, text)
    # Up in the filter bar recalls the filter applied.
    keys("/")
    keys("C-u")
    keys("Up")
    wait_for(lambda s: s[-2].rstrip() == "Filter: " + text, "Up recalls the last filter")
    keys("Escape")
    keys("/")
    keys("C-u")
    keys("Enter")
    wait_for(lambda s: "27 frames, 27 shown" in s[-1], "an empty filter shows every packet")
    check_colours()
    check_tags(tmp)
    check_freeze()
    check_anomalies()
    check_tree()
    check_search()
    check_graph()
    # 80x24: still drawn, the conversations' endpoints and first figures visible.
    tmux("resize-window", "-t", "tui", "-x", "80", "-y", "24")
    keys("F2")
    lines = wait_for(lambda s: len(s) <= 25 and "[F2 " in s[0] and
                     any("10.0.0.3:0x000033" in l for l in s) and "loaded" in s[-1],
                     "the conversations at 80x24")
    t.check(all(len(l) <= 80 for l in lines), "lines wider than 80 columns at 80x24")
    keys("q")
    rc, err = exit_of(rc_file, err_file)
    t.check(rc == 0 and err == "", "quit: exit %s, stderr %r" % (rc, err))
    stop_session()
    check_generated(tmp)
    check_tcp(tmp)
    check_counters(tmp)
    check_no_colour(tmp, "--no-color")
    ENV["NO_COLOR"] = "1"
    check_no_colour(tmp, "NO_COLOR")
    del ENV["NO_COLOR"]
    if os.geteuid() == 0:
        check_live(tmp)
    else:
        print("skipped: the live capture (needs root for a network namespace)")
finally:
    tmux("kill-server")

t.finish("tui")
