#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`roceshark inject --script` and `--suite` against `roceshark responder` on loopback:
  - the responder group of the conformance suite (samples/scripts/conformance/responder/)
    passes as a suite (a table of
    behaviour, result and evidence, JUnit XML, exit 0) and script by script (TAP "ok" on
    each line), with the evidence the expectations name (a NAK with the first lost PSN,
    the retransmission from it, a CNP, the completion statuses);
  - against a responder built to break one rule (tests/rc/misbehaving_responder.c: two NAKs
    for one sequence error; no RNR NAK), the suite fails on the script that checks that
    rule, with the evidence, and passes the rest (two NAKs for one sequence error, no RNR
    NAK, a duplicate atomic run again instead of answered from its saved result);
  - the requester group (conformance/requester/: we are the responder, with injected NAKs,
    RNR NAKs, lost and duplicated responses, CE marks) passes against `roceshark perf` as
    the requester each script starts, with the evidence (the resend from the PSN the
    injected NAK names, the RNR wait, the retry counts, the exit status of the requester);
    a requester with another retry count fails the count, with the evidence;
  - expectations can fail: an RNR that never comes and a field no frame has are "not ok",
    and the exit code counts them; JUnit XML says the same; -w writes the exchange;
  - a script error names the file, line and column (exit 1), the fault engine's errors
    too, at the script's own line; a target that does not answer is exit 4."""
import glob
import os
import re
import subprocess
import xml.etree.ElementTree as ET

import rcpeer as r
import rstest as t

tmp = t.tempdir()
SUITE = os.path.join(t.SOURCE_DIR, "samples", "scripts", "conformance", "responder")
SCRIPTS = sorted(glob.glob(os.path.join(SUITE, "*.script")))
REQ_SUITE = os.path.join(os.path.dirname(SUITE), "requester")
REQ_SCRIPTS = sorted(glob.glob(os.path.join(REQ_SUITE, "*.script")))
US, TARGET, REQUESTER = r.addresses(3)


def run_script(path, extra=()):
    return t.run([t.ROCESHARK, "inject", "--script", path, "--bind", US, "--target", TARGET]
                 + list(extra), check_rc=False)


MISBEHAVING = os.environ.get("MISBEHAVING_RESPONDER",
                             os.path.join(t.SOURCE_DIR, "build", "misbehaving_responder"))
resp = r.Responder(["--bind", TARGET, "--mr", "1M"])

# 1. The conformance suite passes, as a suite and script by script.
t.check(len(SCRIPTS) >= 13, "the conformance suite has its scripts: %r" % SCRIPTS)
suite_xml = os.path.join(tmp, "suite.xml")
p = t.run([t.ROCESHARK, "inject", "--suite", SUITE, "--bind", US, "--target", TARGET,
           "--junit", suite_xml], check_rc=False)
rows = p.stdout.splitlines()
# A "note" row (a stray packet of an earlier run, not judged) is no expectation.
t.check(p.returncode == 0 and rows[0].startswith("behaviour: expectation") and
        all(" pass " in x or " note " in x for x in rows[1:-1]) and
        re.match(r"%d scripts, (\d+) expectations: \1 passed, 0 failed$" % len(SCRIPTS),
                 rows[-1]) is not None,
        "--suite: exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
t.check(len(ET.parse(suite_xml).getroot().findall("testsuite")) == len(SCRIPTS),
        "--suite --junit: one testsuite per script")
# A "# stray" comment (a late packet of the script before, to a QP not this run's, not
# judged) is no result line: each result line is "ok".
for path in SCRIPTS:
    p = run_script(path)
    lines = p.stdout.splitlines()
    t.check(p.returncode == 0 and lines and re.match(r"1\.\.\d+$", lines[0]) and
            all(x.startswith("ok ") for x in lines[1:-1] if not x.startswith("# ")) and
            re.match(r"# (\d+) expectations: \1 passed, 0 failed$", lines[-1]) is not None,
            "%s: exit %d\n%s%s" % (os.path.basename(path), p.returncode, p.stdout, p.stderr))
    if path.endswith("psn_sequence_error.script"):
        t.check("nak psn_seq_error psn 5" in p.stdout and "PSN +5 = " in p.stdout,
                "the NAK carries the first lost PSN (relative to the first): %s" % p.stdout)

# 1b. Against a responder that breaks one rule, the suite fails there, with the evidence.
BAD = r.addresses(1)[0]
for mode, want_failed, want_rows in (
        ("--nak-twice", 1, [("psn_sequence_error: count 1 "
                             "infiniband.aeth.syndrome.opcode == 3", "2 frames matched")]),
        ("--no-rnr", 2, [("rnr_retry_exceeded: rnr ", "no frame matched"),
                         ("rnr_retry_exceeded: completion RNR_RETRY_EXC_ERR",
                          "first error RETRY_EXC_ERR")]),
        ("--atomic-twice", 2, [("duplicate_atomic: same infiniband.atomicacketh.origremdt",
                                "has 1000, frame"),
                               ("duplicate_atomic: memory 4096 == 1005",
                                "reads 1010 (0x3f2, frame ")])):
    bad = t.spawn([MISBEHAVING, "--bind", BAD, mode], stdout=subprocess.DEVNULL,
                  stderr=subprocess.PIPE, text=True)
    ready = bad.stderr.readline()
    p = t.run([t.ROCESHARK, "inject", "--suite", SUITE, "--bind", US, "--target", BAD],
              check_rc=False)
    bad.terminate()
    bad.wait(10)
    # A "note" row (a stray packet of an earlier script, late under load) is not judged.
    failed = [x for x in p.stdout.splitlines()[1:-1] if " pass " not in x and " note " not in x]
    t.check(ready.startswith("misbehaving responder: ready") and p.returncode == (6 if want_failed else 0)
            and len(failed) == len(want_rows) and
            all(x.startswith(w[0]) and " FAIL " in x and w[1] in x
                for x, w in zip(failed, want_rows)),
            "the suite against a responder with %s: exit %d, failing rows %s"
            % (mode, p.returncode, failed))

# 1c. The requester group: our responder, faults and injected packets against the
# requester each script starts (our perf, bound to REQUESTER).
t.check(len(REQ_SCRIPTS) >= 8, "the requester group has its scripts: %r" % REQ_SCRIPTS)
p = t.run([t.ROCESHARK, "inject", "--suite", REQ_SUITE, "--bind", US, "--target", REQUESTER],
          check_rc=False)
rows = p.stdout.splitlines()
# A "note" row (a stray packet of an earlier run, not judged) is no expectation.
t.check(p.returncode == 0 and all(" pass " in x or " note " in x for x in rows[1:-1]) and
        re.match(r"%d scripts, (\d+) expectations: \1 passed, 0 failed$" % len(REQ_SCRIPTS),
                 rows[-1]) is not None,
        "--suite requester: exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
# The evidence: what came, in what order and how often. The scripts set lower bounds on
# time (a timer must not fire early), never upper ones: a loaded machine only delays.
evidence = {
    "nak_sequence_error": r"retransmit from nak +pass .*the first NAK names PSN",
    "rnr_retry": r"retransmit after 10ms +pass +after \d+ us",
    "rnr_retry_exceeded": r"count 3 .* pass +3 frames matched",
    "retry_exceeded": r"exit 4 +pass +the command exited with 4",
    "remote_access_error": r"exit 4 +pass +the command exited with 4",
    "ack_timeout": r"retransmit after 1073ms +pass +after \d+ us",
    "cnp_on_ce": r"cnp +pass +after \d+ us \(frame \d+",
}
for name, want in evidence.items():
    t.check(any(x.startswith(name + ": ") and re.search(want, x) for x in rows),
            "requester/%s: the evidence %r in\n%s" % (name, want, p.stdout))
# A requester with another RNR retry count fails the count, with what it did.
script = open(os.path.join(REQ_SUITE, "rnr_retry_exceeded.script")).read()
other = os.path.join(tmp, "rnr_retry_1.script")
open(other, "w").write(script.replace("--rnr-retry 2", "--rnr-retry 1"))
p = t.run([t.ROCESHARK, "inject", "--script", other, "--bind", US, "--target", REQUESTER],
          check_rc=False)
t.check(p.returncode == 6 and p.stdout.splitlines()[1:] ==
        ["not ok 1 - count 3 infiniband.bth.opcode == \"RC Send Only\": 2 frames matched "
         "(frames 1, 3)", "ok 2 - exit 4: the command exited with 4",
         "# 2 expectations: 1 passed, 1 failed"],
        "rnr_retry 1 against count 3: exit %d\n%s" % (p.returncode, p.stdout))

# 2. Expectations that cannot hold fail: exit 6, and the count on the last line.
failing = os.path.join(tmp, "failing.script")
open(failing, "w").write("bind 127.0.0.3\nconnect 127.0.0.2 side\npost write 100\n"
                         "expect completion ok\nexpect rnr\n"
                         "expect field infiniband.bth.opcode == \"RC Send Last\"\n")
junit = os.path.join(tmp, "junit.xml")
pcap = os.path.join(tmp, "exchange.pcap")
p = run_script(failing, ["--junit", junit, "-w", pcap])
t.check(p.returncode == 6 and p.stdout.splitlines()[1:] ==
        ["ok 1 - completion ok: 1 of 1 work requests completed, 1 successfully",
         "not ok 2 - rnr: no frame matched",
         "not ok 3 - field infiniband.bth.opcode == \"RC Send Last\": no frame matched",
         "# 3 expectations: 1 passed, 2 failed"],
        "failing expectations: exit %d\n%s" % (p.returncode, p.stdout))
suite = ET.parse(junit).getroot().find("testsuite")
t.check(suite is not None and suite.get("tests") == "3" and suite.get("failures") == "2" and
        len(suite.findall("testcase/failure")) == 2, "JUnit: %s" % open(junit).read())
rows = t.tshark_fields(pcap, ["infiniband.bth.opcode"])
t.check([x[0] for x in rows][:1] == ["10"] and len(rows) >= 2,
        "-w: tshark reads the exchange (a WRITE and its ACK): %r" % rows)

# 2b. A SEND to a responder with no receive posted: RNR NAKs (retried for ever, rnr_retry
# 7), so the SEND does not complete within the script's timeout (1 s: the first RNR NAK
# must come within it, on a loaded machine too).
rnr = os.path.join(tmp, "rnr.script")
open(rnr, "w").write("bind 127.0.0.3 rnr_retry 7\nconnect 127.0.0.2 side\ntimeout 1s\n"
                     "post send 100\nexpect rnr within 60s\nexpect completion ok\n")
p = run_script(rnr)
t.check(p.returncode == 6 and p.stdout.splitlines()[1].startswith("ok 1 - rnr within 60s")
        and p.stdout.splitlines()[2].startswith("not ok 2 - completion ok: 0 of 1"),
        "RNR: exit %d\n%s" % (p.returncode, p.stdout))

# 2b. The target tool's own connection setup, named as `perf --connect` names it: a script
# points at perftest's, ibv_rc_pingpong's or an RDMA CM server by changing one word, or
# with --target alone.
def setup_run(text, server, extra=(), check=True):
    path = os.path.join(tmp, "setup.script")
    open(path, "w").write(text)
    srv = t.spawn(server, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    p = t.run([t.ROCESHARK, "inject", "--script", path] + list(extra), check_rc=False)
    try:
        out, err = srv.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        srv.kill()
        out, err = srv.communicate()
    # A "# stray" comment (a late packet of an earlier run, not judged) is no expectation.
    t.check(not check or (p.returncode == 0 and
                          all(x.startswith("ok ") for x in p.stdout.splitlines()[1:-1]
                              if not x.startswith("# "))),
            "%r against %s: exit %d\n%s%s\nserver: %s%s"
            % (text, server[2], p.returncode, p.stdout, p.stderr, out, err))
    return p, out


A, B = r.addresses(2)
OK = "expect completion ok\nexpect no violation\n"
# perftest's exchange against perf's server, which prints the size and count we report.
p, out = setup_run("bind %s\nconnect perftest://%s\npost write 4096 count 8\n%s" % (B, A, OK),
                   [t.ROCESHARK, "perf", "write_bw", "--bind", A, "-s", "4096", "-n", "8"])
t.check(re.search(r"^ 4096 +8 ", out, re.M) is not None,
        "perftest://: the server's table shows our 8 writes of 4096 bytes:\n%s" % out)
p, out = setup_run("bind %s\nconnect perftest://%s test send_bw\npost send 2000 count 20\n%s"
                   % (B, A, OK),
                   [t.ROCESHARK, "perf", "send_bw", "--bind", A, "-s", "2000", "-n", "20"])
t.check(re.search(r"^ 2000 +20 ", out, re.M) is not None,
        "perftest:// test send_bw: the server received our 20 sends:\n%s" % out)
# The same script with only --target changed: a side-channel script to perftest's server.
p, out = setup_run("bind %s\nconnect %s side\npost read 1000 count 3\n%s" % (B, A, OK),
                   [t.ROCESHARK, "perf", "read_bw", "--bind", A, "-s", "1000", "-n", "3"],
                   ["--target", "perftest://%s:18515" % A])
t.check(re.search(r"^ 1000 +3 ", out, re.M) is not None,
        "--target perftest://: the server's table shows our 3 reads:\n%s" % out)
# ibv_rc_pingpong's exchange: one send at a time, each after the peer's answer.
p, out = setup_run("bind %s\nconnect pingpong://%s\npost send 4096 count 10\n%s" % (B, A, OK),
                   [t.ROCESHARK, "perf", "pingpong", "--bind", A, "-s", "4096", "-n", "10"])
t.check("81920 bytes in " in out and "10 iters in " in out,
        "pingpong://: the server counted 10 pings each way:\n%s" % out)
# RDMA CM against responder --cm: REQ, REP, RTU, the posts into the region its REP names,
# DREQ, DREP; tshark reads the exchange as we wrote it (-w).
cm_pcap = os.path.join(tmp, "cm.pcap")
cm_resp = r.Responder(["--bind", A, "--cm"])
path = os.path.join(tmp, "cm.script")
open(path, "w").write("bind %s\nconnect cm://%s\npost write 4096 count 4\npost read 1000\n%s"
                      % (B, A, OK))
p = t.run([t.ROCESHARK, "inject", "--script", path, "-w", cm_pcap], check_rc=False)
cm_resp.stop()
t.check(p.returncode == 0 and p.stdout.count("\nok ") == 2, "cm://: exit %d\n%s%s"
        % (p.returncode, p.stdout, p.stderr))
mads = t.run(["tshark", "-r", cm_pcap, "-T", "fields", "-e", "infiniband.mad.attributeid",
              "-Y", "infiniband.mad"]).stdout.split()
t.check(mads == ["0x0010", "0x0013", "0x0014", "0x0015", "0x0016"],
        "cm://: REQ, REP, RTU, DREQ, DREP on the wire: %r" % mads)
# perftest -R's protocol (RDMA CM, then perftest's exchange as SENDs) against perf -R.
p, out = setup_run("bind %s\nconnect perftest+cm://%s\npost write 4096 count 8\n%s"
                   % (B, A, OK),
                   [t.ROCESHARK, "perf", "write_bw", "-R", "--bind", A, "-s", "4096", "-n", "8"])
t.check(re.search(r"^ 4096 +8 ", out, re.M) is not None,
        "perftest+cm://: the -R server's table shows our 8 writes of 4096 bytes:\n%s" % out)
# Over IPv6: the script's words take IPv6 addresses, in URLs too.
V6 = r.addresses6(2)
p, out = setup_run("bind %s\nconnect perftest://[%s]:18515\npost write 100 count 2\n%s"
                   % (V6[1], V6[0], OK),
                   [t.ROCESHARK, "perf", "write_bw", "--bind", V6[0], "-s", "100", "-n", "2"])
t.check("remote address: IP %s " % V6[1] in out, "perftest:// over IPv6: %s" % out)

# 3. Errors.
def fails(text, code, want):
    path = os.path.join(tmp, "bad.script")
    open(path, "w").write(text)
    p = run_script(path)
    t.check(p.returncode == code and p.stderr == "roceshark: inject: " + want % path + "\n",
            "%r: exit %d %r" % (text, p.returncode, p.stderr))


# The bounds of docs/limits.md: 256 posts and 64 expectations; the next is refused where it is.
fails("connect 127.0.0.2\n" + "post send 8\n" * 257, 1, "%s:258:1: post: more than 256 posts")
fails("connect 127.0.0.2\n" + "expect exit 0\n" * 65, 1,
      "%s:66:1: expect: more than 64 expectations")
fails("connect 127.0.0.2\nexplode now\n", 1, "%s:2:1: unknown statement 'explode' (bind, "
      "connect, accept, run, fault, post, expect, timeout, linger)")
fails("connect 127.0.0.2\nlinger soon\n", 1, "%s:2:12: linger: expected a time (100ms, 1s)")
fails("connect 127.0.0.2\npost write 16 value 3\n", 1, "%s:2:6: post write: value: only a "
      "write of 8 bytes carries a value")
fails("connect 127.0.0.2\nexpect memory 8 = 1\n", 1, "%s:2:20: expect memory OFFSET == VALUE: "
      "expected '=='")
fails("connect 127.0.0.2\nexpect duplicate\n", 1, "%s:2:17: expect duplicate: expected "
      "'answered'")
fails("accept 127.0.0.2 side\nexpect duplicate answered\n", 1, "%s: expect duplicate "
      "answered: the target is the requester (accept): we answer its duplicates and hold the "
      "memory")
fails("bind 127.0.0.3 qpn 1\nconnect 127.0.0.2\n", 1, "%s:1:6: bind: qpn 1: QPs 0 and 1 are "
      "special, not RC QPs")
fails("accept 127.0.0.2 side\npost write 100\n", 1, "%s: post: the target is the requester "
      "(accept): it posts the work")
fails("accept 127.0.0.2 side\nexpect completion ok\n", 1, "%s: expect completion: the target "
      "is the requester (accept); its completions are not on the wire (expect exit checks what "
      "its command says)")
fails("connect 127.0.0.2 side\nexpect exit 0\n", 1, "%s: expect exit: no run statement")
fails("accept 127.0.0.2 side\nrun perf\n", 1, "%s:2:5: run: expected one command, in double "
      "quotes")
fails("connect 127.0.0.2\nfault inject nak oops\n", 1, "%s:2:18: inject nak: expected a code "
      "(psn_seq_error, invalid_request, remote_access_error, remote_operational_error, "
      "invalid_rd_request, or 0 to 31)")
fails("connect 127.0.0.2\nfault drop sometimes\n", 1, "%s:2:12: unknown option 'sometimes' "
      "(dir, times, skip, every, prob, keep icrc, if)")
fails("connect 127.0.0.2\npost write 0\n", 1, "%s:2:13: post write: expected a size from 1 "
      "byte to 1 GiB")
fails("connect 127.0.0.2\nexpect nak psn x\n", 1, "%s:2:17: expect: psn: expected a PSN")
fails("post send 1\n", 1, "%s: no connect or accept statement: the script has no target")
fails("accept perftest://127.0.0.2\n", 1, "%s:1:8: accept: a perftest:// peer connects as a "
      "client; an accepting script takes our side channel (roceshark://) or the requester's QP "
      "(qpn N)")
fails("connect pingpong://127.0.0.2 test write_bw\n", 1, "%s:1:30: connect: test: only a "
      "perftest:// or perftest+cm:// target runs a named test")
fails("connect perftest://127.0.0.2 test pingpong\n", 1, "%s:1:35: connect: test: expected "
      "one of perftest's tests (write_bw, read_bw, send_bw, atomic_bw, send_lat, write_lat, "
      "read_lat)")
fails("connect rdma://127.0.0.2\n", 1, "%s:1:9: connect: rdma://127.0.0.2: unknown connection "
      "setup (roceshark://, perftest://, pingpong://, cm:// or perftest+cm://)")
fails("connect 127.0.0.2:7000\n", 1, "%s:1:9: connect: a port goes after side (side PORT), or "
      "in a URL (roceshark://ADDR:PORT)")
fails("connect 127.0.0.2\nexpect field infiniband.bth.psn ==\n", 1,
      "%s:2:35: expect field: expected a field or a value at the end")
resp.stop()
p = run_script(SCRIPTS[0])
t.check(p.returncode == 4 and p.stderr.startswith("roceshark: inject: %s: " % SCRIPTS[0]),
        "no target: exit %d %r" % (p.returncode, p.stderr))
t.finish("script")
