#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Regression inputs: every defect found from a bad input becomes a tiny input and a case in
tests/regress/ (as tcpdump's tests/TESTLIST), run by both builds, so the sanitized build sees
it too. A case file holds `key: value` lines:

    why:     what broke (kept for the reader)
    args:    the roceshark arguments; {input} is the input file, {dir} the regress folder,
             {text:NAME} the content of tests/regress/NAME without its last newline (a
             filter too long for the case file)
    input:   a file in tests/regress/ (optional)
    stdin:   a file in tests/regress/ fed on standard input (optional)
    exit:    the exit code wanted (default 0)
    expect:  a file in tests/regress/ that standard output must equal (optional)
    tail:    a file in tests/regress/ that standard output must end with (optional)
    lines:   the number of lines standard output must have (optional)
    stderr:  text standard error must contain (optional; several lines allowed)
    tshark:  tshark arguments; standard output must equal tshark's with {input} (optional)

Every case fails on a sanitizer report, whatever its exit code."""
import os
import re
import shlex
import shutil
import subprocess
import sys

import rstest as t

DIR = os.path.join(t.SOURCE_DIR, "tests", "regress")
SANITIZER_WORDS = ("AddressSanitizer", "LeakSanitizer", "runtime error:", "UndefinedBehavior")


def parse(path):
    case = {"stderr": []}
    for n, line in enumerate(open(path), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.partition(":")
        if not sep:
            raise SystemExit("%s:%d: expected 'key: value'" % (path, n))
        key, value = key.strip(), value.strip()
        if key == "stderr":
            case["stderr"].append(value)
        else:
            case[key] = value
    return case


def expand(text, case):
    inp = os.path.join(DIR, case["input"]) if "input" in case else ""
    text = re.sub(r"\{text:([^}]+)\}",
                  lambda m: open(os.path.join(DIR, m.group(1))).read().rstrip("\n"), text)
    return text.replace("{input}", inp).replace("{dir}", DIR)


def run_case(name, case):
    args = [expand(a, case) for a in shlex.split(case["args"])]
    stdin = open(os.path.join(DIR, case["stdin"]), "rb") if "stdin" in case else None
    try:
        p = subprocess.run([t.ROCESHARK] + args, stdin=stdin, capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        t.check(False, "%s: still running after 120 s" % name)
        return
    err = p.stderr.decode(errors="replace")
    out = p.stdout
    t.check(not any(w in err for w in SANITIZER_WORDS),
            "%s: sanitizer report:\n%s" % (name, err[:4000]))
    want_exit = int(case.get("exit", "0"))
    t.check(p.returncode == want_exit, "%s: exit %d, want %d (stderr %r)"
            % (name, p.returncode, want_exit, err[:300]))
    for s in case["stderr"]:
        t.check(s in err, "%s: stderr lacks %r: %r" % (name, s, err[:300]))
    if "expect" in case:
        want = open(os.path.join(DIR, case["expect"]), "rb").read()
        t.check(out == want, "%s: output differs from %s" % (name, case["expect"]))
    if "tail" in case:
        want = open(os.path.join(DIR, case["tail"]), "rb").read()
        t.check(out.endswith(want), "%s: output does not end as %s: ...%r"
                % (name, case["tail"], out[-300:]))
    if "lines" in case:
        t.check(out.count(b"\n") == int(case["lines"]), "%s: %d lines of output, want %s"
                % (name, out.count(b"\n"), case["lines"]))
    if "tshark" in case and shutil.which("tshark"):
        targs = ["tshark", "-r", os.path.join(DIR, case["input"])]
        targs += [expand(a, case) for a in shlex.split(case["tshark"])]
        tp = subprocess.run(targs, capture_output=True)
        t.check(tp.stdout == out, "%s: output differs from tshark's (%s)"
                % (name, " ".join(targs[1:])))


names = sorted(f[:-5] for f in os.listdir(DIR) if f.endswith(".case"))
t.check(len(names) > 0, "no cases in %s" % DIR)
only = sys.argv[1:]
for name in names:
    if only and name not in only:
        continue
    run_case(name, parse(os.path.join(DIR, name + ".case")))
print("%d regression cases" % len(names))
t.finish("regressions")
