#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A clone of the repository, alone in an empty temporary folder, configures, builds, passes
the unit tests that read the repository's files and the real-captures integration test: the
repository holds everything its tests read, and nothing beside the checkout is needed. (The
other unit tests read nothing but their own code, which the suite runs already; a unit test
reads the tree through RS_SOURCE_DIR, so the ones that do are found by it.) What is cloned is the commit checked
out here (HEAD): uncommitted changes are not part of it.

The clone's environment has none of the variables that could point it elsewhere
(ROCESHARK_*), so the real captures kept out of the repository must be reported skipped, each
by name. The one it keeps is the cache of tshark's answers (tests/tools/reference_cache.py),
whose keys are the captures' content: it saves the clone rerunning tshark, and cannot make a
test pass that would fail without it. The Wireshark plugin is not built in the clone: nothing of the tests run here needs
it, and it is the slowest part of the build. Configured first as if ncursesw's development
files were missing, then with them: the second configure builds the TUI."""
import os
import re
import shutil
import subprocess

import rstest as t

home = t.tempdir()
clone = os.path.join(home, "rs")
# safe.directory: the checkout may belong to another user than the one running the tests.
git = ["git", "-c", "safe.directory=*"]
head = t.run(git + ["-C", t.SOURCE_DIR, "rev-parse", "HEAD"]).stdout.strip()
t.run(git + ["clone", "-q", "--no-checkout", t.SOURCE_DIR, clone])
t.run(git + ["-C", clone, "checkout", "-q", "--detach", head])
t.check(sorted(os.listdir(home)) == ["rs"], "the temporary folder holds %s" % os.listdir(home))

env = {k: v for k, v in os.environ.items()
       if not k.startswith("ROCESHARK") or k == "ROCESHARK_TSHARK_CACHE"}
env.pop("DECODE_EXACT", None)
env.pop("RC_CLIENT", None)
build = os.path.join(clone, "build")


def step(args, what):
    p = subprocess.run(args, cwd=clone, env=env, capture_output=True, text=True)
    t.check(p.returncode == 0, "%s: exit %d\n%s%s" % (what, p.returncode, p.stdout[-3000:],
                                                        p.stderr[-3000:]))
    if p.returncode != 0:
        t.finish("fresh clone")
    return p.stdout


# The flags of test.sh's first build (RelWithDebInfo), through ccache where the machine has
# it, with the clone as the base folder and the build folder's path left out of the hash:
# the clone's objects are then the ones that build just made, and come from the cache.
# What is checked here is what the clone holds, which the cache cannot change (ccache
# hashes every source and header it compiles).
flavour = ["-DROCESHARK_WIRESHARK_PLUGIN=OFF", "-DCMAKE_BUILD_TYPE=RelWithDebInfo"]
if shutil.which("ccache"):
    flavour.append("-DCMAKE_C_COMPILER_LAUNCHER=ccache")
    env.update(CCACHE_BASEDIR=clone, CCACHE_NOHASHDIR="1", CCACHE_DEPEND="1")
# First as on a machine without ncursesw's development files (pkg-config sees every .pc but
# its), then with them: an optional part follows what is installed at every configure, as
# a build folder made before `apt-get install libncurses-dev` needs (a cached "not found"
# once left the sanitizer build without the TUI for good).
ncursesw = subprocess.run(["pkg-config", "--exists", "ncursesw"]).returncode == 0
if ncursesw:
    hidden = os.path.join(home, "pkgconfig")
    os.mkdir(hidden)
    dirs = subprocess.run(["pkg-config", "--variable", "pc_path", "pkg-config"],
                          capture_output=True, text=True).stdout.strip().split(":")
    for d in dirs:
        for name in os.listdir(d) if os.path.isdir(d) else []:
            if name.endswith(".pc") and not name.startswith(("ncurses", "tinfo", "form",
                                                             "menu", "panel")):
                dst = os.path.join(hidden, name)
                if not os.path.exists(dst):
                    os.symlink(os.path.join(d, name), dst)
    env["PKG_CONFIG_LIBDIR"] = hidden
    out = step(["cmake", "-S", ".", "-B", build] + flavour, "cmake without ncursesw")
    t.check(" tui=OFF " in out, "configured without ncursesw: %s"
            % re.findall(r"roceshark: .*", out))
    del env["PKG_CONFIG_LIBDIR"]
out = step(["cmake", "-S", ".", "-B", build] + flavour, "cmake")
t.check((" tui=ON " in out) == ncursesw, "configured %s ncursesw: %s" % (
    "with" if ncursesw else "without", re.findall(r"roceshark: .*", out)))
# Only what the selected tests run: the binary and the unit tests that read the tree (those
# the build knows: test_sniffer only with libibverbs).
targets = set(re.findall(r"^\.\.\. (\w+)$", step(["cmake", "--build", build, "--target", "help"],
                                                   "targets"), re.M))
unit_dir = os.path.join(clone, "tests", "unit")
readers = sorted(n[:-2] for n in os.listdir(unit_dir)
                 if n.startswith("test_") and n.endswith(".c") and
                 "RS_SOURCE_DIR" in open(os.path.join(unit_dir, n)).read() and n[:-2] in targets)
wanted = ["roceshark"] + readers
step(["cmake", "--build", build, "-j%d" % (os.cpu_count() or 1), "--target"] + wanted, "build")
SELECT = r"^(%s|integration\.real_captures)$" % "|".join(r"unit\." + n for n in readers)
listed = step(["ctest", "--test-dir", build, "-N", "-R", SELECT], "ctest -N")
want = int(re.search(r"Total Tests: (\d+)", listed).group(1))
out = step(["ctest", "--test-dir", build, "-V", "-R", SELECT, "-j%d" % (os.cpu_count() or 1)],
           "ctest")
ran = re.search(r"100% tests passed, 0 tests failed out of (\d+)", out)
t.check(len(readers) >= 3 and want == len(readers) + 1 and
        "integration.real_captures" in listed and ran is not None and
        int(ran.group(1)) == want, "the clone ran %s of its %d unit tests (%s) and real_captures"
        % (ran.group(1) if ran else "no", want, " ".join(readers)))
t.check("real captures: ok" in out, "real_captures did not pass in the clone")
for name in sorted(t.EXTRA_CAPTURES):
    t.check("skipped: %s" % name in out, "the clone did not report %s skipped" % name)
print("clone of %s: %s tests passed" % (head[:12], ran.group(1) if ran else "no"))
t.finish("fresh clone")
