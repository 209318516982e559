#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""fields_versions.py [ROCESHARK_OPTS]: every value of the field contract on every real
capture and on the generated captures of every opcode, roceshark read (with ROCESHARK_OPTS,
e.g. "-o compat:4.4") against the tshark on PATH. Prints each field that differs, in how many
frames and for which opcodes ("real" for the real captures), with a first example, then the
fields that tshark prints more times than roceshark with the same values. Makes the list in
docs/wireshark-versions.md; run it in each Debian root of scripts/test-wireshark.sh."""
import collections
import os
import shlex
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "integration"))
import rstest as t  # noqa: E402

extra = shlex.split(sys.argv[1]) if len(sys.argv) > 1 else []
def fieldsdiff_rows(path, fields, extra):
    """roceshark's rows with exactly the options given (no automatic compat)."""
    return t.fieldsdiff.roceshark_rows(path, fields, extra, t.ROCESHARK)


diffs = collections.OrderedDict()
repeats = collections.Counter()     # same values, printed a different number of times
fields = t.CONTRACT_FIELDS + t.LOWER_FIELDS
gen = t.tempdir()
t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_roce.py"), gen, "--seed", "7"])
# DLT 247 (InfiniBand) is read by no tshark yet.
generated = sorted(os.path.join(gen, n) for n in os.listdir(gen)
                   if n.endswith(".pcap") and n != "ib_dlt247.pcap")
OPCODE = fields.index("infiniband.bth.opcode")
for path in t.real_captures() + generated:
    want = t.tshark_fields(path, fields, t.EXTRA_CAPTURES.get(os.path.basename(path), ""))
    got = fieldsdiff_rows(path, fields, extra)
    for n, (a, b) in enumerate(zip(want, got), 1):
        for f, x, y in zip(fields, a, b):
            if x != y and sorted(set(x.split(","))) == sorted(set(y.split(","))):
                repeats[(f, b[OPCODE] if path in generated else "real")] += 1
            elif x != y:
                d = diffs.setdefault((f, b[OPCODE] if path in generated else "real"), [0, None])
                d[0] += 1
                if d[1] is None:
                    d[1] = "%s frame %d: tshark %r roceshark %r" % (os.path.basename(path), n, x, y)
by_field = collections.OrderedDict()
for (f, op), (n, ex) in sorted(diffs.items(), key=lambda kv: (kv[0][0], kv[0][1].zfill(5))):
    e = by_field.setdefault(f, [0, [], ex])
    e[0] += n
    e[1].append(op)
for f, (n, ops, ex) in by_field.items():
    print("%-34s %6d  opcodes %s" % (f, n, ",".join(ops)))
    print("%-34s         e.g. %s" % ("", ex))
print("%d fields differ" % len(by_field))
for (f, op), n in sorted(repeats.items()):
    print("repeated: %-34s opcode %-5s %6d frames" % (f, op, n))
