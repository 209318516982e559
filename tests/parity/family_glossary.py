# SPDX-License-Identifier: GPL-2.0-or-later
"""-G fields: each field (or protocol) read lists that tshark lists too, by its abbrev, a
case identical when its line is tshark's but for the description: kind, name, abbrev and,
for a field, type, parent, base and mask (`cut -f1-7`). -G protocols: each protocol both
list, by its filter name, identical when its line (name, short name, filter name) is.
tshark's glossary is some 19 MB: asked once a run, and not kept by the reference cache."""
import subprocess

import paritylib as pl

FAMILY = "glossary"
# The report and the column that names a line: fields' abbrev, protocols' filter name.
REPORTS = [("fields", 2), ("protocols", 2)]


def rows(text, key):
    """{column key: its first line's columns 1-7} of a -G listing."""
    out = {}
    for line in text.splitlines():
        cols = line.split("\t")
        if len(cols) > key:
            out.setdefault(cols[key], cols[:7])
    return out


def run(ctx):
    def one(report_key):
        report, key = report_key
        want = rows(subprocess.run(["tshark", "-G", report], capture_output=True, text=True,
                                   check=True).stdout, key)
        got = rows(ctx.read(["-G", report]).stdout, key)
        shared = [a for a in got if a in want]
        failures = ["%s %s: tshark %s, read %s" % (report, a, "|".join(want[a]),
                                                   "|".join(got[a]))
                    for a in shared if want[a] != got[a]]
        return len(shared) - len(failures), len(shared), failures
    return pl.add([one(r) for r in REPORTS])
