#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The bundled samples print exactly what tests/golden/ holds (a changed line is either a
regression or a deliberate change that updates the golden file in the same commit), and the
sample file is what samples/make_sample.py makes."""
import difflib
import os

import rstest as t

SAMPLES = os.path.join(t.SOURCE_DIR, "samples")
GOLDEN = os.path.join(t.SOURCE_DIR, "tests", "golden")
CASES = [("rdma_demo.txt", ["-r", os.path.join(SAMPLES, "rdma_demo.pcap")]),
         ("rdma_demo.tree.txt", ["-r", os.path.join(SAMPLES, "rdma_demo.pcap"), "-V", "-c", "2"]),
         ("rdma_demo.stats.txt", ["-r", os.path.join(SAMPLES, "rdma_demo.pcap"), "-q", "-z",
                                  "conv,qp", "-z", "expert"])]

for golden, args in CASES:
    want = open(os.path.join(GOLDEN, golden)).read()
    got = t.run([t.ROCESHARK, "read"] + args).stdout
    if got != want:
        print("".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                           "golden/" + golden, "roceshark")))
    t.check(got == want, "%s differs from roceshark's output" % golden)

made = os.path.join(t.tempdir(), "rdma_demo.pcap")
t.run([t.PYTHON, os.path.join(SAMPLES, "make_sample.py"), made])
t.check(open(made, "rb").read() == open(os.path.join(SAMPLES, "rdma_demo.pcap"), "rb").read(),
        "samples/rdma_demo.pcap is not what make_sample.py makes")
t.finish("golden output")
