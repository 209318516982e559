#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every example of README.md and of the man page's EXAMPLES runs as printed.

Each ```sh block of README.md (but the first: the set-up commands themselves, run.sh and
test.sh, which build what this test is given and run this test) and each .EX block of the
EXAMPLES section of docs/roceshark.1.in is run with bash, from a folder of its own whose
`samples` and `tests/captures` are the repository's, with the build's roceshark first on
PATH, inside a network namespace of its own (so that its loopback ports meet no other
test's). Every command in the foreground must end with exit code 0, or with the N of a
trailing `# exit N` comment; commands sent to the background (`&`) are ended when the
block is done. A block that runs `roceshark tui` runs in a tmux window, which is sent `q`
until the block ends. A ```text
block right after an ```sh block is output the block must print (stdout and stderr
together): each run of lines between `...` lines appears in that order, line for line; a
line that ends in `...` stands for any line that starts with what comes before them (a
frame number or a count that varies from run to run).

```console blocks are commands that change the machine (installing) and are not run; the
README says what they do. `python3 test_examples.py --list` prints the blocks and their
commands as they will be run."""
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

import rstest as t

README = os.path.join(t.SOURCE_DIR, "README.md")
MAN = os.path.join(t.SOURCE_DIR, "docs", "roceshark.1.in")
BLOCK_SECONDS = 180


def readme_blocks():
    """(where, commands text, expected output or None) for each ```sh block of README.md."""
    lines = open(README).read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m or not m.group(1):
            i += 1
            continue
        lang, start = m.group(1), i + 1
        end = lines.index("```", start)
        blocks.append((lang, start, "\n".join(lines[start:end])))
        i = end + 1
    out = []
    for n, (lang, start, text) in enumerate(blocks):
        if lang != "sh":
            continue
        expect = None
        if n + 1 < len(blocks) and blocks[n + 1][0] == "text":
            between = lines[start + len(text.split("\n")) + 1:blocks[n + 1][1] - 1]
            if all(not x.strip() for x in between):
                expect = blocks[n + 1][2]
        out.append(("README.md:%d" % start, text, expect))
    return out


def man_blocks():
    """The .EX blocks of the man page's EXAMPLES, unescaped from roff."""
    text = open(MAN).read()
    section = re.search(r"^\.SH EXAMPLES\n(.*?)^\.SH ", text, re.M | re.S).group(1)
    first = text[:text.index(section)].count("\n") + 1
    out = []
    for m in re.finditer(r"^\.EX\n(.*?)^\.EE", section, re.M | re.S):
        body = m.group(1).replace("\\-", "-").replace("\\e", "\\").replace("\\(aq", "'")
        line = first + section[:m.start()].count("\n") + 1
        out.append(("roceshark.1.in:%d" % line, body.rstrip("\n"), None))
    return out


def commands(text):
    """The block's commands: lines joined where a backslash or an open quote continues them;
    each with the exit code its `# exit N` comment expects and whether it runs in the
    background."""
    cmds, pending = [], ""
    for line in text.split("\n"):
        pending = pending + "\n" + line if pending else line
        if pending.endswith("\\"):
            continue
        try:
            words = shlex.split(pending, comments=True)
        except ValueError:          # an open quote: the command goes on
            continue
        if words:
            m = re.search(r"#.*\bexit (\d+)\b[^'\"]*$", pending)
            background = bool(re.search(r"(^|[^&])&\s*(#.*)?$", pending))
            cmds.append((pending, int(m.group(1)) if m else 0, background))
        pending = ""
    if pending.strip():
        raise ValueError("unfinished command: %r" % pending)
    return cmds


def script(cmds, status):
    """A bash script of the commands, each foreground one followed by a line recording its
    exit status in the file status."""
    body = ["set -o pipefail",
            "trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT"]
    for n, (cmd, _, background) in enumerate(cmds):
        body.append(cmd)
        if not background:
            body.append("echo %d $? >> %s" % (n, shlex.quote(status)))
    return "\n".join(body) + "\n"


def output_matches(out, expect):
    """Each run of lines between '...' lines of expect appears in out, in order."""
    got = [x.rstrip() for x in out.split("\n")]

    def same(have, want):
        if want.endswith("...") and want != "...":
            return have.startswith(want[:-3])
        return have == want

    pos = 0
    for chunk in re.split(r"^\.\.\.$", expect, flags=re.M):
        want = [x.rstrip() for x in chunk.strip("\n").split("\n") if chunk.strip()]
        if not want:
            continue
        for i in range(pos, len(got) - len(want) + 1):
            if all(same(h, w) for h, w in zip(got[i:i + len(want)], want)):
                pos = i + len(want)
                break
        else:
            return "not in the output, in this order:\n  " + "\n  ".join(want)
    return None


def namespaces_missing():
    """Why a network namespace cannot be made here, or None."""
    p = subprocess.run(["unshare", "-n", "true"], capture_output=True, text=True)
    return None if p.returncode == 0 else "network namespaces (unshare -n: %s)" % (
        p.stderr.strip() or "exit %d" % p.returncode)


def run_block(where, text, expect, build_dir):
    home = t.tempdir()
    os.symlink(os.path.join(t.SOURCE_DIR, "samples"), os.path.join(home, "samples"))
    # the real captures (tests/captures/real): correlate's example reads three hosts'
    os.makedirs(os.path.join(home, "tests"))
    os.symlink(os.path.join(t.SOURCE_DIR, "tests", "captures"),
               os.path.join(home, "tests", "captures"))
    cmds = commands(text)
    status = os.path.join(home, ".status")
    path = os.path.join(home, ".block.sh")
    open(path, "w").write(script(cmds, status))
    env = dict(os.environ, PATH=build_dir + ":" + os.environ["PATH"], HOME=home)
    # `$PWD/build` in an example is the build under test.
    os.symlink(build_dir, os.path.join(home, "build"))
    inner = "ip link set lo up && exec bash %s" % shlex.quote(path)
    log = os.path.join(home, ".out")
    start = time.monotonic()
    if re.search(r"\broceshark tui\b", text):
        timed_out = run_in_tmux(home, inner, log, env)
    else:
        with open(log, "w") as f:
            try:
                subprocess.run(["unshare", "-n", "sh", "-c", inner], cwd=home, env=env,
                               stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                               timeout=BLOCK_SECONDS)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out = True
    seconds = time.monotonic() - start
    out = open(log, errors="replace").read()
    codes = {}
    if os.path.exists(status):
        for line in open(status):
            n, rc = line.split()
            codes[int(n)] = int(rc)
    ok = t.check(not timed_out, "%s: still running after %d s\n%s" % (where, BLOCK_SECONDS,
                                                                       out[-2000:]))
    for n, (cmd, want, background) in enumerate(cmds):
        if background:
            continue
        ok &= t.check(codes.get(n) == want, "%s: `%s` exited %s, expected %d\n%s" % (
            where, cmd.split("\n")[0], codes.get(n, "never"), want, out[-3000:]))
    if expect is not None:
        why = output_matches(out, expect)
        ok &= t.check(why is None, "%s: the output shown is %s\n--- output:\n%s" % (
            where, why, out[-3000:]))
    print("%-22s %5.1f s %2d commands %s" % (where, seconds, len(cmds),
                                            "ok" if ok else "FAILED"))


def run_in_tmux(home, inner, log, env):
    """Runs the block in a detached tmux window and sends it `q` (a live TUI asks twice)
    until it ends. Returns whether it timed out."""
    session = "rs-examples-%d" % os.getpid()
    done = os.path.join(home, ".done")
    # The TUI draws on the window's terminal, so the block's output goes to the log only
    # for what it prints once the TUI has ended (the capture's counts, say).
    cmd = "unshare -n sh -c %s 2>%s; touch %s" % (shlex.quote(inner), shlex.quote(log),
                                                shlex.quote(done))
    tmux = ["tmux", "-L", session, "-f", "/dev/null"]     # a tmux server of our own
    subprocess.run(tmux + ["new-session", "-d", "-s", session, "-x", "120", "-y", "40",
                           "-c", home, cmd], env=env, check=True)
    deadline = time.monotonic() + BLOCK_SECONDS
    try:
        # Keys only once the TUI shows its status line (it says "frames" once loaded).
        while time.monotonic() < deadline and not os.path.exists(done):
            screen = subprocess.run(tmux + ["capture-pane", "-p", "-t", session],
                                    capture_output=True, text=True).stdout
            if re.search(r"frames|packets", screen):
                time.sleep(1)
                subprocess.run(tmux + ["send-keys", "-t", session, "q"])
            time.sleep(0.5)
    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True)
    return not os.path.exists(done)


def main():
    blocks = readme_blocks()
    setup = blocks.pop(0)
    t.check("./scripts/run.sh" in setup[1] and "./scripts/test.sh" in setup[1],
            "README.md's first sh block is not the set-up (run.sh, test.sh): %s" % setup[0])
    blocks += man_blocks()
    if "--list" in sys.argv:
        for where, text, expect in blocks:
            print("== %s" % where)
            for cmd, code, background in commands(text):
                print("  [%s%s] %s" % (code, " &" if background else "", cmd))
        return
    t.check(len(blocks) >= 15, "only %d example blocks found" % len(blocks))
    missing = namespaces_missing()
    if missing:
        t.skip_missing(missing)
    if shutil.which("tmux") is None:
        t.skip_missing("tmux")
    build_dir = os.path.dirname(os.path.abspath(t.ROCESHARK))
    only = [a for a in sys.argv[1:] if not a.startswith("-")]
    for where, text, expect in blocks:
        if only and not any(o in where for o in only):
            continue
        run_block(where, text, expect, build_dir)
    t.finish("examples")


main()
