#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""suite_load.py PASSES [BUILD] - the default test suite PASSES times in a row on a machine
busier than it has cores (root, as the suite is; run it by hand on an otherwise quiet
machine: it is not a ctest test, which would run itself).

`stress-ng --cpu 2*nproc` runs beside it throughout. Each pass is what `scripts/test.sh`
runs for a build folder: `ctest --test-dir BUILD -LE long -j$(nproc) --output-on-failure`
(BUILD: build/ by default; build-sanitize/ for the sanitized pass). A line per pass says
whether it passed, how long it took and which tests failed (ctest's output of a pass that
failed is kept in BUILD/suite_load-pass-N.log); the last lines count the
passes that passed and each test that failed, with how often. Exit 0 only if every pass
passed. ROCESHARK_TSHARK_CACHE is set to BUILD/tshark-cache unless given."""
import collections
import os
import re
import shutil
import subprocess
import sys
import time

import cpu_load

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

if len(sys.argv) not in (2, 3) or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
    sys.exit("usage: suite_load.py PASSES [BUILD]")
PASSES = int(sys.argv[1])
BUILD = os.path.abspath(sys.argv[2] if len(sys.argv) == 3 else os.path.join(ROOT, "build"))
if shutil.which("stress-ng") is None:
    sys.exit("suite_load.py: stress-ng: not installed (apt-get install stress-ng)")
if not os.path.isfile(os.path.join(BUILD, "CTestTestfile.cmake")):
    sys.exit("suite_load.py: %s: no build folder with tests" % BUILD)
env = dict(os.environ)
env.setdefault("ROCESHARK_TSHARK_CACHE", os.path.join(BUILD, "tshark-cache"))
FAILED = re.compile(r"^\s*\d+ - (\S+) \(")

passed = 0
failures = collections.Counter()
with cpu_load.busy_cpus():
    for i in range(1, PASSES + 1):
        start = time.time()
        p = subprocess.run(["ctest", "--test-dir", BUILD, "-LE", "long",
                            "-j%d" % (os.cpu_count() or 1), "--output-on-failure"],
                           capture_output=True, text=True, env=env)
        failed = [m.group(1) for m in map(FAILED.match, p.stdout.splitlines()) if m]
        passed += p.returncode == 0
        failures.update(failed)
        kept = ""
        if p.returncode != 0:
            # what the failing tests printed (--output-on-failure), for finding why later
            log = os.path.join(BUILD, "suite_load-pass-%d.log" % i)
            with open(log, "w") as f:
                f.write(p.stdout + p.stderr)
            kept = " (ctest's output: %s)" % log
        print("pass %d/%d: %s in %.0f s%s%s" % (i, PASSES, "passed" if p.returncode == 0
                                                 else "FAILED", time.time() - start,
                                                 (": " + " ".join(failed)) if failed else "",
                                                 kept),
              flush=True)
print("%d of %d passes passed under stress-ng --cpu %d" % (passed, PASSES, cpu_load.WORKERS))
for name, n in failures.most_common():
    print("  %s failed in %d pass(es)" % (name, n))
sys.exit(0 if passed == PASSES else 1)
