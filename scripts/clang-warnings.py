#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""clang-warnings.py BUILD_DIR: every file that BUILD_DIR compiles, through clang's front end
with the same flags (-Wall -Wextra -Werror and the rest), -fsyntax-only: the gate's check
that clang warns of nothing. BUILD_DIR is a CMake build configured with
CMAKE_EXPORT_COMPILE_COMMANDS=ON and built (its generated headers are read).

Why not a clang build: clang's warnings come from its front end, whatever the optimisation
level, so compiling and linking everything again would cost a whole build to say nothing
more (the front end alone takes about a third of it). Prints each failing file's
diagnostics; exit status 1 when any file has one, 2 on bad usage."""
import concurrent.futures
import json
import os
import shlex
import subprocess
import sys

# Arguments of the recorded command that name outputs (-o, dependency files): dropped with
# their value.
WITH_VALUE = {"-o", "-MF", "-MT", "-MQ"}
ALONE = {"-c", "-MD", "-MMD"}


def syntax_only(entry):
    """The entry's command as a clang -fsyntax-only one."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out, skip = ["clang"], False
    for a in args[1:]:
        if skip:
            skip = False
        elif a in WITH_VALUE:
            skip = True
        elif a not in ALONE:
            out.append(a)
    return out + ["-fsyntax-only"]


def check(entry):
    p = subprocess.run(syntax_only(entry), cwd=entry["directory"], capture_output=True,
                       text=True)
    return entry["file"], p.returncode, p.stderr


def main(argv):
    if len(argv) != 2:
        print("usage: scripts/clang-warnings.py BUILD_DIR", file=sys.stderr)
        return 2
    path = os.path.join(argv[1], "compile_commands.json")
    try:
        with open(path) as f:
            entries = json.load(f)
    except (OSError, ValueError) as e:
        print("roceshark: clang-warnings: %s: %s" % (path, e), file=sys.stderr)
        return 2
    # A file compiled by two targets with the same flags is checked once.
    unique = {(e["file"], " ".join(syntax_only(e))): e for e in entries}
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        for name, rc, err in pool.map(check, unique.values()):
            if rc != 0:
                failed += 1
                print("== %s\n%s" % (name, err), end="")
    print("clang -fsyntax-only: %d of %d files with a diagnostic" % (failed, len(unique)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
