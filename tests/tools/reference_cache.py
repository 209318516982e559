# SPDX-License-Identifier: GPL-2.0-or-later
"""reference_cache - the reference tool's answers kept between the test suite's two passes.

CI runs every integration test twice, in the normal build and under the sanitizers. What
tshark prints for a file does not depend on our build: with ROCESHARK_TSHARK_CACHE naming a
folder (scripts/test.sh gives both passes the same one), a tshark run whose command line,
input files and tshark binary are the same as in an earlier run is answered from there.
Keys cover the command line, the tshark binary (path, size, mtime) and the environment
tshark reads (WIRESHARK_*, LC_*, HOME), so a changed capture or another Wireshark is a miss,
never a stale answer. An argument that names an existing file counts by its content, not its
path: a capture that a test generates afresh in a temporary folder, or that a fresh clone
holds, is the same key in every pass. Where tshark echoes such a path (pdml's capture_file,
an error message), the answer is kept with a placeholder and given back with the path of
the run that asks. A run that writes a file (-w) always runs.

scripts/test.sh keeps the folder from one of its runs to the next, so that a second run
while you work spends nothing on tshark: an answer used is touched, and at the end of each
run (--quick too) the answers no test asked for are removed (prune), which bounds the folder
to one run's worth."""
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

CACHE = os.environ.get("ROCESHARK_TSHARK_CACHE", "")
# ROCESHARK_TSHARK_LOG=FILE: each tshark run that the cache did not answer appends a line to
# FILE: the test script, the processor seconds it took, its arguments (where the suite's
# time goes: tshark's start-up alone is about a processor second).
LOG = os.environ.get("ROCESHARK_TSHARK_LOG", "")


def _files(cmd):
    """(placeholder, path) for the arguments of cmd that name existing files, the placeholder
    by the argument's position; longest path first, so none is replaced inside a longer one."""
    files = [("\0arg%d\0" % i, a) for i, a in enumerate(cmd) if i > 0 and os.path.isfile(a)]
    return sorted(files, key=lambda f: len(f[1]), reverse=True)


def _key(cmd, env, input):
    h = hashlib.sha256()
    exe = shutil.which(cmd[0]) or cmd[0]
    try:
        st = os.stat(exe)
        h.update(("%s %d %d\0" % (exe, st.st_size, st.st_mtime_ns)).encode())
    except OSError:
        return None
    for a in cmd[1:]:
        if os.path.isfile(a):
            with open(a, "rb") as f:
                h.update(b"file\0" + hashlib.sha256(f.read()).digest())
        else:
            h.update(a.encode() + b"\0")
    e = os.environ if env is None else env
    for k in sorted(e):
        if k.startswith(("WIRESHARK", "LC_")) or k in ("HOME", "LANG"):
            h.update(("%s=%s\0" % (k, e[k])).encode())
    if input is not None:
        h.update(input.encode() if isinstance(input, str) else input)
    return h.hexdigest()


def tshark_env(env=None):
    """env (default: ours) for a tshark run: glibc's malloc asked to back its heap with huge
    pages where the kernel gives them on request (transparent_hugepage "madvise"). Most of a
    tshark run's processor time is its start-up, which fills some 150 MB with its tables one
    page fault at a time; with huge pages a run of the suite's takes a fifth less processor
    time (8 runs on the sample: 4.4 s against 5.5 s). Its output does not change."""
    env = dict(os.environ if env is None else env)
    tunables = [t for t in env.get("GLIBC_TUNABLES", "").split(":") if t]
    if not any(t.startswith("glibc.malloc.hugetlb=") for t in tunables):
        env["GLIBC_TUNABLES"] = ":".join(tunables + ["glibc.malloc.hugetlb=1"])
    return env


def run(cmd, env=None, text=True, input=None, cwd=None):
    """subprocess.run(cmd, capture_output=True, ...), from the cache when cmd is tshark's."""
    tshark = os.path.basename(cmd[0]) == "tshark"
    key = (_key(cmd, env, input) if CACHE and text and cwd is None and tshark and
           "-w" not in cmd else None)
    path = os.path.join(CACHE, key + ".json") if key else None
    files = _files(cmd) if path else []
    if path and os.path.exists(path):
        with open(path) as f:
            d = json.load(f)
        try:
            os.utime(path)        # used by this run: prune keeps it
        except OSError:
            pass
        out, err = d["out"], d["err"]
        for mark, name in files:
            out, err = out.replace(mark, name), err.replace(mark, name)
        return subprocess.CompletedProcess(cmd, d["rc"], out, err)
    if tshark:
        env = tshark_env(env)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=text, env=env, input=input, cwd=cwd)
    if LOG and tshark:
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        with open(LOG, "a") as f:
            f.write("%s %.2f %s\n" % (os.path.basename(sys.argv[0]), cpu, " ".join(cmd[1:])))
    if path:
        os.makedirs(CACHE, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=CACHE)
        with os.fdopen(fd, "w") as f:
            out, err = p.stdout, p.stderr
            for mark, name in files:
                out, err = out.replace(name, mark), err.replace(name, mark)
            json.dump({"rc": p.returncode, "out": out, "err": err}, f)
        os.replace(tmp, path)     # whole or not at all, for a test running beside
    return p


def prune(folder, since):
    """Removes the answers of folder not used or made since the time since (seconds)."""
    removed = 0
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        try:
            if os.stat(path).st_mtime < since:
                os.unlink(path)
                removed += 1
        except OSError:
            pass
    return removed


if __name__ == "__main__":
    import sys
    if len(sys.argv) != 4 or sys.argv[1] != "prune":
        sys.exit("usage: reference_cache.py prune FOLDER EPOCH-SECONDS")
    if os.path.isdir(sys.argv[2]):
        n = prune(sys.argv[2], float(sys.argv[3]))
        print("tshark's answers: %d unused removed, %d kept" % (n, len(os.listdir(sys.argv[2]))))
