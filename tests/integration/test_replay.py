# SPDX-License-Identifier: GPL-2.0-or-later
"""roceshark replay: captured conversations played again against a live responder.

1. Our requester and our responder talk under faults (a scenario script: a lost WRITE
   packet, a lost READ response, SENDs, atomics), captured. Replaying the requester side
   against a fresh responder gives zero divergences.
2. The same replay against a responder with a smaller PMTU, through a wrong R_Key, and
   against one with too few receive buffers: the divergences are found and named
   (segmentation, NAK remote access error, RNR).
   --side responder: a capture with a NAK and an RNR NAK served to our requester, which
   retries exactly as the captured one did; other work is named.
3. The real captures' RC conversations (rxe's responder on real hosts) replayed against
   our responder: every difference is zero or one IBTA allows, which the test names.
4. The options: the conversation list, bad options, -w, --tap, --junit, --loop.
"""
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import rcpeer
import rstest as t

TMP = t.tempdir()
NO_CONV = 1


def responder(addr, extra=()):
    return rcpeer.Responder(["--bind", addr, "--listen", "18515"] + list(extra))


def replay(capture, src, dst, extra=(), conv="1"):
    args = [t.ROCESHARK, "replay", "-r", capture, "--src", src, "--target", dst,
            "--linger", "100"]
    if conv is not None:
        args += ["--conv", conv]
    p = subprocess.run(args + list(extra), capture_output=True, text=True, timeout=120)
    return p


def divergences(out):
    return [line for line in out.splitlines() if line.startswith("divergence: ")]


def table(out):
    """The summary table: rule -> (compared, same, allowed, diverged)."""
    rows = {}
    for line in out.splitlines():
        m = re.match(r"^(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", line)
        if m:
            rows[m.group(1)] = tuple(int(x) for x in m.groups()[1:])
    return rows


def make_capture():
    """Our requester against our responder under faults, as the wire saw it."""
    src, dst = rcpeer.addresses(2)
    script = os.path.join(TMP, "faults.script")
    with open(script, "w") as f:
        f.write("bind %s pmtu 1024 timeout 16\n" % src +
                "connect %s side\n" % dst +
                "fault drop times 1 dir tx if infiniband.bth.opcode == \"RC RDMA Write "
                "Middle\" && roceshark.analysis.psn_rel == 2\n"
                "fault drop times 1 dir rx if infiniband.bth.opcode == \"RC RDMA Read "
                "Response Middle\"\n"
                "post write 8192\n"
                "post read 4096\n"
                "post send 2000 count 4\n"
                "post faa 5 offset 65536\n"
                "post cas 5 9 offset 65536\n"
                "post write_imm 100\n"
                "expect completion ok\n")
    capture = os.path.join(TMP, "faults.pcap")
    r = responder(dst, ["--recv", "16", "--repost"])
    p = subprocess.run([t.ROCESHARK, "inject", "--script", script, "-w", capture],
                       capture_output=True, text=True, timeout=60)
    r.stop()
    t.check(p.returncode == 0, "the scenario that makes the capture: %s %s"
            % (p.stdout, p.stderr))
    stats = t.run([t.ROCESHARK, "read", "-q", "-r", capture, "-z", "conv,qp"]).stdout
    print(stats)
    return capture


def test_same_target(capture):
    src, dst = rcpeer.addresses(2)
    r = responder(dst, ["--recv", "16", "--repost"])
    out = os.path.join(TMP, "replay.pcap")
    p = replay(capture, src, dst, ["-w", out])
    r.stop()
    print(p.stdout, p.stderr)
    rows = table(p.stdout)
    t.check(p.returncode == 0 and divergences(p.stdout) == [],
            "a fresh responder answers as the captured one: rc %d, %s"
            % (p.returncode, divergences(p.stdout)))
    # What was compared: the READ's responses, the atomics' ACKs, the NAK of the lost
    # WRITE packet, and the MSN.
    t.check(rows.get("opcode", (0,))[0] >= 4, "READ responses compared: %s" % rows)
    t.check(rows.get("ack-class", (0,))[0] >= 3, "ACKs and NAKs compared: %s" % rows)
    t.check(rows.get("msn", (0,))[0] >= 3, "MSNs compared: %s" % rows)
    # With the memory preloaded, the READ's data and the atomics' original values compare.
    r = responder(dst, ["--recv", "16", "--repost"])
    p = replay(capture, src, dst, ["--preload"])
    r.stop()
    rows = table(p.stdout)
    t.check(p.returncode == 0 and rows.get("payload", (0,))[0] >= 6,
            "--preload: READ and atomic data compared: %s %s" % (rows.get("payload"),
                                                               divergences(p.stdout)))
    # The replay's own capture holds what went and what came back.
    got = t.run([t.ROCESHARK, "read", "-r", out, "-T", "fields", "-e", "ip.src",
                 "-e", "infiniband.aeth.syndrome.error_code",
                 "-e", "infiniband.aeth.syndrome.opcode"]).stdout.splitlines()
    sent = sum(1 for x in got if x.startswith(src + "\t"))
    want = int(t.run([t.ROCESHARK, "read", "-q", "-r", capture, "-z", "conv,qp"]).stdout
               .split("\n")[4].split()[4])
    t.check(sent == want, "-w keeps every request sent: %d of %d" % (sent, want))
    t.check(any(x.split("\t")[1:] == ["0", "3"] for x in got),
            "the replay's capture has the sequence NAK of the lost packet")
    # Messages mode: our requester does the work again with its own retries; the capture's
    # sequence NAK (of a loss the replay does not repeat) is not expected again.
    r = responder(dst, ["--recv", "16", "--repost"])
    p = replay(capture, src, dst, ["--messages"])
    r.stop()
    print(p.stdout, p.stderr)
    rows = table(p.stdout)
    t.check(p.returncode == 0 and "replay: 9 messages" in p.stdout,
            "--messages against a fresh responder: rc %d, %s" % (p.returncode,
                                                                 divergences(p.stdout)))
    t.check(rows.get("opcode", (0,))[1] >= 4 and rows.get("ack-class", (0, 0, 0))[2] >= 1,
            "--messages compared the READ and allowed the sequence NAK: %s" % rows)
    # --tap and --junit say the same.
    r = responder(dst, ["--recv", "16", "--repost"])
    junit = os.path.join(TMP, "replay.xml")
    p = replay(capture, src, dst, ["--tap", "--junit", junit])
    r.stop()
    t.check(p.returncode == 0 and "1..10" in p.stdout and "not ok" not in p.stdout,
            "--tap: ten rules, all ok: %s" % p.stdout)
    suite = ET.parse(junit).getroot()
    t.check(suite.get("tests") == "10" and suite.get("failures") == "0",
            "--junit: %s" % ET.tostring(suite)[:200])


def test_different_targets(capture):
    src, dst = rcpeer.addresses(2)
    # A smaller PMTU: the 1024-byte WRITE packets are invalid, the READ comes in more pieces.
    r = responder(dst, ["--recv", "16", "--repost", "--pmtu", "256"])
    p = replay(capture, src, dst)
    r.stop()
    print(p.stdout)
    rules = {re.search(r"\[(\S+)\]$", x).group(1) for x in divergences(p.stdout)}
    t.check(p.returncode == 7 and "segmentation" in rules,
            "PMTU 256: segmentation divergences named: rc %d %s" % (p.returncode, rules))
    # A wrong R_Key: the WRITE and the READ meet a remote access error.
    cap_rkey = t.run([t.ROCESHARK, "read", "-r", capture, "-Y", "infiniband.reth", "-c", "1",
                      "-T", "fields", "-e", "infiniband.reth.r_key"]).stdout.split()[0]
    r = responder(dst, ["--recv", "16", "--repost"])
    p = replay(capture, src, dst, ["--rkey-map", "%s:0x1234" % cap_rkey])
    r.stop()
    print(p.stdout)
    t.check(p.returncode == 7 and any("NAK Remote Access Error [ack-class]" in x
                                     for x in divergences(p.stdout)),
            "a wrong R_Key: the remote access NAK is named: %s" % divergences(p.stdout))
    # --diff shows the two side by side: the same requests, then where the answers part.
    r = responder(dst, ["--recv", "1"])
    p = replay(capture, src, dst, ["--diff"])
    r.stop()
    rows = [x for x in p.stdout.splitlines() if len(x) > 49 and x[47] in "|!<>"]
    t.check(len(rows) > 40 and any(x[47] == "|" and x.count("RDMA Write First PSN 0") == 2
                                   for x in rows)
            and any(x[47] in "!>" and "RNR NAK" in x[49:] for x in rows),
            "--diff: %d rows, the writes alike and the target's RNR NAK marked: %s"
            % (len(rows), rows[-5:]))
    # Too few receive buffers: the SENDs meet RNR NAKs, in both modes.
    for mode in ("--packets", "--messages"):
        r = responder(dst, ["--recv", "1"])
        p = replay(capture, src, dst, [mode])
        r.stop()
        print(p.stdout)
        t.check(p.returncode == 7 and any(x.endswith("[rnr]") and "RNR NAK" in x
                                         for x in divergences(p.stdout)),
                "%s, one receive buffer: the RNR NAKs are named: %s"
                % (mode, divergences(p.stdout)))
    t.check(p.returncode == 7 and re.match(r"%d divergences?: " % len(divergences(p.stdout)),
                                           p.stdout.splitlines()[-1]) is not None,
            "divergences: exit 7 and their count on the last line: %d %r"
            % (p.returncode, p.stdout.splitlines()[-1:]))


# The real conversations, and what IBTA lets our responder do otherwise than rxe did there:
# coalesce ACKs (rxe acknowledged every packet with AckReq).
REAL = {
    "rdma_write_bw": ["1"], "rdma_read_bw": ["1"], "rdma_atomic_bw": ["1"],
    "rdma_send_bw": ["1"], "rdma_write_lat": ["1", "2"], "rdma_read_lat": ["1"],
    "pingpong_rc": ["1", "2"], "rping": ["1", "2"],
}
# Under the sanitizers, one node of each NCCL run: the other two replay the same code paths,
# and CI has 20 minutes for everything.
REAL.update({"nccl_%s_node%d" % (kind, node): ["1", "2", "3", "4"]
             for kind in ("nccl", "ring2", "tree2")
             for node in range(1 if t.BUILT.get("sanitize") else 3)})


def test_real_captures():
    src, dst = rcpeer.addresses(2)
    compared = 0
    for name, convs in sorted(REAL.items()):
        path = os.path.join(t.REAL_CAPTURES, "linlinw5_rdma_ib_tutorial__pcap_%s.pcap" % name)
        # One responder per capture: each replay gets a QP of its own through the side
        # channel. NCCL's buffers are 4 MiB apart: the region must hold them all.
        r = responder(dst, ["--recv", "64", "--repost", "--mr", "8M"])
        for conv, mode in ((c, m) for c in convs for m in ("--packets", "--messages")):
            # NCCL's conversations last 10 s: 50 times as fast keeps the order and the pauses.
            p = replay(path, src, dst, ["-x", "50", mode], conv=conv)
            rows = table(p.stdout)
            n = sum(v[0] for v in rows.values())
            compared += n
            allowed = {k: v[2] for k, v in rows.items() if v[2]}
            print("%s conv %s %s: %d compared, allowed %s, %d divergences"
                  % (name, conv, mode, n, allowed, len(divergences(p.stdout))))
            t.check(p.returncode == 0 and n > 0,
                    "%s conv %s %s: our responder answers as rxe did: %s %s"
                    % (name, conv, mode, divergences(p.stdout), p.stderr))
            # The only allowed difference is ACK coalescing.
            t.check(set(allowed) <= {"completion", "extra"},
                    "%s conv %s: allowed differences other than coalescing: %s"
                    % (name, conv, allowed))
        r.stop()
    t.check(compared > 100, "responses compared across the real captures: %d" % compared)
    # --preload: the target's memory given what the capture shows, READ and atomic data
    # compare too. rping's client rewrites its buffer between READs (a new ping text each
    # time), which no replay of the wire can know: those READs differ in their data only.
    for name, conv, mode, clean in (("rdma_read_bw", "1", "--packets", True),
                                    ("rdma_read_lat", "1", "--messages", True),
                                    ("rdma_atomic_bw", "1", "--packets", True),
                                    ("rdma_atomic_bw", "1", "--messages", True),
                                    ("rping", "2", "--messages", False)):
        path = os.path.join(t.REAL_CAPTURES, "linlinw5_rdma_ib_tutorial__pcap_%s.pcap" % name)
        r = responder(dst, ["--recv", "64", "--repost"])
        p = replay(path, src, dst, ["--preload", mode], conv=conv)
        r.stop()
        rows = table(p.stdout)
        payload = rows.get("payload", (0, 0, 0, 0))
        print("%s --preload %s: payload %s" % (name, mode, payload))
        if clean:
            t.check(p.returncode == 0 and "replay: preloaded" in p.stdout and payload[0] >= 5
                    and payload[3] == 0, "%s %s --preload: data compared and alike: %s %s"
                    % (name, mode, payload, divergences(p.stdout)))
        else:
            t.check(p.returncode == 7 and payload[3] > 0 and
                    all(x.endswith("[payload]") for x in divergences(p.stdout)),
                    "%s --preload: only READ data differs: %s" % (name, divergences(p.stdout)))


def test_options(capture):
    src, dst = rcpeer.addresses(2)
    p = subprocess.run([t.ROCESHARK, "replay", "-r", capture], capture_output=True, text=True)
    t.check(p.returncode == NO_CONV and "RDMA QP conversations" in p.stdout and
            p.stderr.startswith("roceshark: replay: ") and "--conv" in p.stderr,
            "no pick: the list and exit 1: %d %s" % (p.returncode, p.stderr))
    for args, why in ((["--conv", "9"], "no conversation 9"),
                      (["--qp", "0x123456"], "no conversation has QP 0x123456"),
                      (["--conv", "1", "--side", "both"], "requester or responder"),
                      (["--conv", "1", "--side", "responder", "--src", src, "--dst", dst],
                       "no --target or --dst"),
                      (["--conv", "1", "--messages", "--src", src, "--dst", dst], "--target"),
                      (["--conv", "1", "--lenient", "psn"], "only rnr"),
                      (["--conv", "1", "--qpmap", "5"], "OLD:NEW"),
                      (["--conv", "1", "--src", src, "--dst", "::1"], "--dst IPv6"),
                      (["--conv", "1"], "--bind")):
        p = subprocess.run([t.ROCESHARK, "replay", "-r", capture] + args,
                           capture_output=True, text=True)
        t.check(p.returncode == 1 and p.stderr.count("\n") == 1 and why in p.stderr,
                "%s: one line naming %r, exit 1: %d %r" % (args, why, p.returncode, p.stderr))
    # No target listening: exit 4, one line.
    p = replay(capture, src, dst)
    t.check(p.returncode == 4 and p.stderr.startswith("roceshark: replay: --target"),
            "no target: %d %r" % (p.returncode, p.stderr))
    # --loop: the PSNs go on, and each pass is compared.
    r = responder(dst, ["--recv", "64", "--repost"])
    p = replay(capture, src, dst, ["--loop", "3", "--topspeed"])
    r.stop()
    print(p.stdout)
    t.check(p.returncode == 0 and "in 3 passes" in p.stdout,
            "--loop 3 --topspeed: three passes, no divergence: %s" % divergences(p.stdout))


SIDE_RULES = """\
drop times 1 dir rx if infiniband.bth.opcode == "RC RDMA Write Middle" && roceshark.analysis.psn_rel == 2
inject rnr 1ms times 1 skip 1 dir rx if infiniband.bth.opcode == "RC Send Only"
drop times 1 skip 1 dir rx if infiniband.bth.opcode == "RC Send Only"
"""


def test_side_responder(other_capture):
    """A capture with a sequence NAK and an RNR NAK (the responder's fault engine loses a
    WRITE packet, then answers the SEND's second coming with an RNR NAK) is served to our
    requester, which must retry exactly as the captured one did."""
    src, dst = rcpeer.addresses(2)
    rules = os.path.join(TMP, "side.rules")
    with open(rules, "w") as f:
        f.write(SIDE_RULES)
    script = os.path.join(TMP, "side.script")
    with open(script, "w") as f:
        f.write("bind %s pmtu 1024 timeout 16\nconnect %s side\npost write 8192\n"
                "post send 500\npost read 4096\nexpect completion ok\n" % (src, dst))
    capture = os.path.join(TMP, "side.pcap")
    r = responder(dst, ["--recv", "16", "--repost", "--faults", rules])
    p = subprocess.run([t.ROCESHARK, "inject", "--script", script, "-w", capture],
                       capture_output=True, text=True, timeout=60)
    r.stop()
    t.check(p.returncode == 0, "the NAK and RNR capture: %s" % p.stdout)
    syn = t.run([t.ROCESHARK, "read", "-r", capture, "-Y", "infiniband.aeth.syndrome.opcode "
                 "!= 0", "-T", "fields", "-e", "infiniband.aeth.syndrome.opcode"]).stdout.split()
    t.check("1" in syn and "3" in syn, "the capture has an RNR NAK and a NAK: %s" % syn)
    want = int(t.run([t.ROCESHARK, "read", "-q", "-r", capture, "-z", "conv,qp"]).stdout
               .split("\n")[4].split()[4])
    for requester_capture, ok in ((capture, True), (other_capture, False)):
        ours, theirs = rcpeer.addresses(2)
        served = os.path.join(TMP, "served.pcap")
        serve = t.spawn([t.ROCESHARK, "replay", "-r", capture, "--conv", "1",
                         "--side", "responder", "--src", theirs, "--linger", "100",
                         "-w", served], stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, text=True)
        time.sleep(0.3)
        p = replay(requester_capture, ours, theirs, ["--messages"])
        out, err = serve.communicate(timeout=60)
        print(out, err, p.stdout)
        rows = table(out)
        if ok:
            t.check(serve.returncode == 0 and rows.get("request") == (want, want, 0, 0),
                    "--side responder: our requester retries as the capture's did (%d "
                    "packets): rc %d %s" % (want, serve.returncode, rows.get("request")))
            t.check(p.returncode == 0, "and the requester side sees the capture's answers: %s"
                    % divergences(p.stdout))
        else:
            t.check(serve.returncode == 7 and all(x.endswith("[request]")
                                                 for x in divergences(out)),
                    "--side responder: other work is named: rc %d %s"
                    % (serve.returncode, divergences(out)[:3]))


capture = make_capture()
test_side_responder(capture)
test_options(capture)
test_same_target(capture)
test_different_targets(capture)
test_real_captures()
t.finish("replay")
