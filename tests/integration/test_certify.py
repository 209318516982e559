#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Certifying a target we did not write (docs/scripts.md, docs/conformance.md):
  - deliberately wrong responders (tests/rc/misbehaving_responder.c, built with
    RS_RC_MISBEHAVE, never installed) make exactly the scripts of the responder group that
    check what they break fail, with the frames as evidence, and nothing else:
    FETCH_ADD adding the Compare field (atomic_results, duplicate_atomic: the words read back);
    a duplicate answered with a malformed packet (duplicate_write: the malformed frame, and
    ack_timeout, whose resend is that duplicate); MSNs one short (ack_msn); no PSN wrap
    (psn_wrap);
  - a late packet of one script is not judged in the next: a READ response the responder
    holds back 60 ms lands in the next script's recording, which passes and notes the stray
    (QPs and PSNs new at every run tell them apart);
  - waiting is the script's choice: a CNP 400 ms late is judged under `linger 1s`, and not
    when --linger 1ms overrides it;
  - a target described once: the responder group, twice in a row, against a static target
    (`responder --no-listen --target ...`) from --target-file, restarted for our new QP by
    --reset before each script, all passing;
  - the side channel's JSON, as docs/scripts.md specifies it, makes any stack a target:
    samples/scripts/side_channel_shim.py (20 lines) in front of a static responder, and the
    suite passes through it; killed, the shim stops the stack it started;
  - the README's fault rules (samples/faults/lossy.rules) fire: the one that names a packet
    by its relative PSN acts once;
  - replay compares MSNs absolutely: against the responder with MSNs one short, every MSN
    compared diverges, and the divergence names the offset (-1);
  - replay's --va-offset takes negative values: a capture's WRITEs land in a region below
    theirs by the offset, and not by one 2 MiB further down; its wait for answers ends on
    the last one (--until-answered), or on the NAK that ends the QP, not on a quiet time;
  - accept's run command finds our QP, first PSN, R_Key and VA in its environment ($QPN,
    $PSN, $RKEY, $VA): a static requester WRITEs and READs our region by them."""
import json
import os
import re
import subprocess
import sys
import time

import rcpeer as r
import rstest as t

tmp = t.tempdir()
SUITE = os.path.join(t.SOURCE_DIR, "samples", "scripts", "conformance", "responder")
SHIM = os.path.join(t.SOURCE_DIR, "samples", "scripts", "side_channel_shim.py")
MISBEHAVING = os.environ.get("MISBEHAVING_RESPONDER",
                             os.path.join(t.SOURCE_DIR, "build", "tests", "misbehaving_responder"))
US, TARGET, BAD, SHIMMED = r.addresses(4)


def suite(target, extra=()):
    p = t.run([t.ROCESHARK, "inject", "--suite", SUITE, "--bind", US] +
              (["--target", target] if target else []) + list(extra), check_rc=False)
    # Notes (strays) are no expectations: they pass or fail nothing.
    return p, [x for x in p.stdout.splitlines()[1:-1] if " pass " not in x and " note " not in x]


def check_all_pass(p, failed, what):
    n = len([x for x in os.listdir(SUITE) if x.endswith(".script")])
    t.check(p.returncode == 0 and not failed and
            re.match(r"%d scripts, (\d+) expectations: \1 passed, 0 failed$" % n,
                     p.stdout.splitlines()[-1]) is not None,
            "%s: exit %d, rows not passing %s\n%s" % (what, p.returncode, failed, p.stderr))


# 1. Wrong responders: exactly the intended rows fail, with their evidence.
for mode, want in (
        ("--faa-adds-compare", [
            ("atomic_results: field infiniband.atomicacketh.origremdt == 1005", "no frame"),
            ("atomic_results: field infiniband.atomicacketh.origremdt == 77", "no frame"),
            ("atomic_results: memory 8192 == 77", r"reads 1000 \(0x3e8, frame \d+\)"),
            ("duplicate_atomic: memory 4096 == 1005", r"reads 1000 \(0x3e8, frame \d+\)")]),
        ("--dup-malformed", [
            ("ack_timeout: completion ok", "first error RETRY_EXC_ERR"),
            ("duplicate_write: duplicate answered",
             r"frame \d+ \(a duplicate WRITE, PSN \+0\).*frame \d+.*malformed")]),
        ("--msn-short", [
            ("ack_msn: field infiniband.aeth.msn == 3", "no frame matched"),
            ("ack_msn: no field infiniband.aeth", r"frame \d+ matched")]),
        ("--no-psn-wrap", [
            ("psn_wrap: memory 0 == 0x1111", "WR_FLUSH_ERR"),
            ("psn_wrap: memory 8 == 0x2222", "WR_FLUSH_ERR"),
            ("psn_wrap: memory 16 == 0x3333", "WR_FLUSH_ERR"),
            ("psn_wrap: memory 8184 ==", "WR_FLUSH_ERR"),
            ("psn_wrap: no field roceshark.analysis.retransmission", r"frame \d+ matched"),
            ("psn_wrap: completion ok", "RETRY_EXC_ERR")])):
    bad = t.spawn([MISBEHAVING, "--bind", BAD, mode], stdout=subprocess.DEVNULL,
                  stderr=subprocess.PIPE, text=True)
    ready = bad.stderr.readline()
    p, failed = suite(BAD)
    bad.terminate()
    bad.wait(10)
    t.check(ready.startswith("misbehaving responder: ready") and p.returncode == 6 and
            len(failed) == len(want) and
            all(x.startswith(w[0]) and " FAIL " in x and re.search(w[1], x) is not None
                for x, w in zip(failed, want)),
            "the suite against a responder with %s: exit %d, failing rows\n%s"
            % (mode, p.returncode, "\n".join(failed)))

# 2. A stray: the first script's READ response, held back 60 ms by the target, arrives
# while the next script runs. That one passes, and says what it did not judge.
rules = os.path.join(tmp, "hold.rules")
stray_dir = os.path.join(tmp, "stray")
os.mkdir(stray_dir)
open(os.path.join(stray_dir, "a_read.script"), "w").write(
    "bind %s timeout 10\nlinger 1ms\nconnect %s side\npost read 64\nexpect retransmit\n"
    "expect completion ok\n" % (US, TARGET))
open(os.path.join(stray_dir, "b_writes.script"), "w").write(
    "bind %s\nlinger 1s\nconnect %s side\npost write 512 count 4\nexpect completion ok\n"
    "expect no violation\n" % (US, TARGET))
# The stray must reach the second script's socket: when a loaded host starts it more
# than 60 ms late, the response finds no socket, and the pair runs again with the response
# held back longer (the second script records for a second after its last completion).
for attempt, hold in enumerate(("60ms", "250ms", "600ms")):
    open(rules, "w").write('delay %s times 1 dir tx if infiniband.bth.opcode == '
                           '"RC RDMA Read Response Only"\n' % hold)
    resp = r.Responder(["--bind", TARGET, "--mr", "1M", "--faults", rules])
    p = t.run([t.ROCESHARK, "inject", "--suite", stray_dir], check_rc=False)
    resp.stop()
    rows = p.stdout.splitlines()
    notes = [x for x in rows if " note " in x]
    if notes:
        break
t.check(p.returncode == 0 and all(" pass " in x for x in rows[1:-1] if " note " not in x) and
        len(notes) == 1 and notes[0].startswith("b_writes: stray (not judged)") and
        re.search(r"1 packet to QP 0x[0-9a-f]{6}, not ours in this run \(frame \d+\)", notes[0])
        and rows[-1] == "2 scripts, 4 expectations: 4 passed, 0 failed",
        "a READ response held back %s: the next script passes and notes it (%d runs):\n%s"
        % (hold, attempt + 1, p.stdout))

# 2b. Waiting is the script's choice: the responder holds its CNP back 400 ms, long after
# the ACK that completes the WRITE. With `linger 1s` the run still records when it comes;
# --linger 1ms over it stops first, and `expect cnp` fails.
open(rules, "w").write("delay 400ms times 1 dir tx if infiniband.bth.opcode == 0x81\n")
linger_script = os.path.join(tmp, "linger.script")
open(linger_script, "w").write(
    "bind %s timeout 18\nlinger 1s\nconnect %s side\nfault mark ecn ce times 1 dir tx if "
    "infiniband.bth.opcode == \"RC RDMA Write Only\"\npost write 512\nexpect completion ok\n"
    "expect cnp\n" % (US, TARGET))
for extra, want_rc, want in (([], 0, r"\nok 2 - cnp: after \d+ us \(frame \d+"),
                             (["--linger", "1ms"], 6, r"\nnot ok 2 - cnp: no frame matched")):
    resp = r.Responder(["--bind", TARGET, "--mr", "1M", "--faults", rules])
    p = t.run([t.ROCESHARK, "inject", "--script", linger_script] + extra, check_rc=False)
    resp.stop()
    t.check(p.returncode == want_rc and re.search(want, p.stdout) is not None,
            "a CNP 400 ms late, linger 1s %s: exit %d\n%s%s"
            % (" ".join(extra), p.returncode, p.stdout, p.stderr))

# 3. A static target, described once: its parameters in --target-file, restarted for each
# script's new QP (number and first PSN in $QPN and $PSN) by --reset.
target_file = os.path.join(tmp, "target.json")
open(target_file, "w").write('# a static responder\n{"ip": "%s", "qpn": 9029, "psn": 777, '
                             '"rkey": 4096, "va": 1048576, "length": 1048576, "pmtu": 1024}\n'
                             % TARGET)
pidfile = os.path.join(tmp, "target.pid")
reset = os.path.join(tmp, "reset.sh")
open(reset, "w").write("""# reset.sh PIDFILE: the static target again, for our QP of this run ($BIND, $QPN, $PSN)
if [ -f "$1" ]; then
    kill "$(cat "$1")"
    # gone, or a zombie init has yet to reap: either way its port is free
    while [ -e /proc/"$(cat "$1")" ] && ! grep -q ') Z ' /proc/"$(cat "$1")"/stat; do sleep 0.01; done
fi
rm -f "$1.out"      # the last one's ready line is not this one's
"$ROCESHARK" responder --bind @TARGET@ --no-listen --target "$BIND" --peer-qpn "$QPN" \\
    --peer-psn "$PSN" --qpn 9029 --psn 777 --rkey 4096 --va 1048576 --mr 1M --pmtu 1024 \\
    > "$1.out" 2>/dev/null < /dev/null &
echo $! > "$1"
until grep -qs icrc_check "$1.out"; do sleep 0.01; done
""".replace("@TARGET@", TARGET))
try:
    for run in (1, 2):
        p, failed = suite(None, ["--target-file", target_file, "--reset",
                                 "sh %s %s" % (reset, pidfile)])
        check_all_pass(p, failed, "--target-file and --reset, run %d" % run)
finally:    # the last static target reset.sh started, whatever happened
    if os.path.exists(pidfile):
        try:
            os.kill(int(open(pidfile).read()), 15)
        except (ProcessLookupError, ValueError):
            pass
# A target file that says nothing is refused with where and why.
bad_file = os.path.join(tmp, "bad.json")
open(bad_file, "w").write('{"ip": "%s"}\n' % TARGET)
p = t.run([t.ROCESHARK, "inject", "--suite", SUITE, "--target-file", bad_file], check_rc=False)
t.check(p.returncode == 1 and p.stderr == "roceshark: inject: --target-file %s:1: peer "
        "parameters: expected ip, qpn, psn and pmtu\n" % bad_file,
        "a bad --target-file: exit %d %r" % (p.returncode, p.stderr))

# 4. The shim: our side channel in 20 lines of Python, in front of a stack that takes its
# peer on its command line (a static responder here).
shim_code = open(SHIM).read()
code_lines = [x for x in shim_code.split('"""')[2].splitlines() if x.strip()]
t.check(len(code_lines) <= 20, "the shim is %d lines of code" % len(code_lines))
shim = t.spawn([t.PYTHON, SHIM, SHIMMED, t.ROCESHARK, "responder", "--bind", SHIMMED,
                "--no-listen", "--target", "{ip}", "--peer-qpn", "{qpn}", "--peer-psn",
                "{psn}", "--pmtu", "{pmtu}", "--mr", "1M"],
               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
end = time.time() + 10
while not t.listening(18515) and time.time() < end:
    time.sleep(0.02)
p, failed = suite(SHIMMED)
shim.terminate()
shim.wait(10)
check_all_pass(p, failed, "through side_channel_shim.py")


def shimmed_stacks():
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if ("--bind\0%s\0" % SHIMMED).encode() in open("/proc/%s/cmdline" % pid, "rb").read():
                out.append(pid)
        except OSError:
            pass        # gone meanwhile
    return out


# A kill of the shim stops the stack it started (it had one running for the last script).
end = time.time() + 10
while shimmed_stacks() and time.time() < end:
    time.sleep(0.05)
t.check(not shimmed_stacks(), "the shim, killed, stops its stack: left %s" % shimmed_stacks())

# 5. The fault rules the README shows (samples/faults/lossy.rules) fire in perf's requester
# (what it sends is tx), the one that names a packet by its relative PSN too.
rules = os.path.join(t.SOURCE_DIR, "samples", "faults", "lossy.rules")
A, B = r.addresses(2)
srv = t.spawn([t.ROCESHARK, "perf", "write_bw", "--bind", A, "-s", "65536", "-n", "8"],
              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
end = time.time() + 10
while not t.listening(18515) and time.time() < end:
    time.sleep(0.02)
p = t.run([t.ROCESHARK, "perf", "write_bw", "--bind", B, "--connect", A, "-s", "65536", "-n",
           "8", "--faults", rules], check_rc=False)
srv.wait(30)
acted = {x.split(None, 3)[3]: int(x.split()[2]) for x in p.stderr.splitlines()
         if x.startswith("faults: ") and x.split()[1].isdigit()}
fired = [rule for rule, n in acted.items() if "psn_rel" in rule and n == 1]
t.check(p.returncode == 0 and len(fired) == 1,
        "the README's rule on roceshark.analysis.psn_rel fires once: exit %d, acted %s"
        % (p.returncode, acted))
# 6. replay compares MSNs absolutely: a real capture's WRITEs replayed against the responder
# whose MSNs are one short diverge at every ACK, and the divergence names the offset.
capture = os.path.join(t.REAL_CAPTURES, "linlinw5_rdma_ib_tutorial__pcap_rdma_write_bw.pcap")
bad = t.spawn([MISBEHAVING, "--bind", BAD, "--msn-short"], stdout=subprocess.DEVNULL,
              stderr=subprocess.PIPE, text=True)
bad.stderr.readline()
# --until-answered: the wait ends at the ACK of the last WRITE, bounded at 10 s, not after a
# fixed quiet time a loaded host may exceed.
p = t.run([t.ROCESHARK, "replay", "-r", capture, "--conv", "1", "--bind", US, "--target", BAD,
           "--until-answered", "--linger", "10000"], check_rc=False)
bad.terminate()
bad.wait(10)
msn = [x for x in p.stdout.splitlines() if x.startswith("divergence: ") and "[msn]" in x]
rows = {x.split()[0]: x.split()[1:] for x in p.stdout.splitlines() if x[:4] in ("msn ", "ack-")}
t.check(p.returncode == 7 and len(msn) >= 1 and
        all(re.search(r"infiniband\.aeth\.msn: expected \d+.*, got \d+ \(MSN offset -1\)", x)
            for x in msn) and rows.get("msn", ["0"])[0] == str(len(msn)),
        "replay against MSNs one short: exit %d, every MSN compared diverges by -1:\n%s%s"
        % (p.returncode, p.stdout, p.stderr))
# 7b. --va-offset takes a negative offset: the capture's WRITEs (at 0x5e6b89b96000) land in
# a responder's region at 0x1000000 by the offset between them, and nowhere else. The wait
# for answers ends on an event (--until-answered): the ACK of the last WRITE, or the NAK that
# ends the QP; 10 s of quiet only if neither comes.
resp = r.Responder(["--bind", TARGET, "--va", "0x1000000", "--mr", "1M"])
down = 0x1000000 - 0x5e6b89b96000
for offset, want, ended in ((down, 0, "(the last one in)"),
                            (down - 0x200000, 7, "(a NAK ended the QP)")):
    p = t.run([t.ROCESHARK, "replay", "-r", capture, "--conv", "1", "--bind", US, "--target",
               TARGET, "--until-answered", "--linger", "10000", "--va-offset", "%d" % offset],
              check_rc=False)
    t.check(offset < 0 and p.returncode == want and
            (want == 0) == ("NAK Remote Access Error" not in p.stdout) and ended in p.stderr,
            "--va-offset %d: exit %d (want %d), the wait ended %s\n%s%s"
            % (offset, p.returncode, want, ended, p.stdout, p.stderr))
resp.stop()

# 7. accept's run command finds our QP, first PSN, R_Key and VA in its environment: a
# requester set up by hand (rc_client, static) WRITEs and READs our region through them.
REQ = r.addresses(1)[0]
acc = os.path.join(tmp, "accept_static.script")
open(acc, "w").write(
    "bind %s\naccept %s qpn 0x4321 psn 1000\n"
    "run \"%s --bind $TARGET --peer $BIND --peer-qpn $QPN --peer-psn $PSN --qpn 0x4321 "
    "--psn 1000 write:64:$VA:$RKEY read:64:$VA:$RKEY\"\n"
    "expect exit 0\nexpect field infiniband.bth.opcode == \"RC RDMA Write Only\"\n"
    "expect field infiniband.bth.opcode == \"RC RDMA Read Response Only\"\n"
    "expect no violation\n" % (US, REQ, r.RC_CLIENT))
p = t.run([t.ROCESHARK, "inject", "--script", acc], check_rc=False)
t.check(p.returncode == 0 and p.stdout.count("\nok ") == 4,
        "accept: the run command reaches us by $QPN, $PSN, $RKEY and $VA: exit %d\n%s%s"
        % (p.returncode, p.stdout, p.stderr))
t.finish("certify")
