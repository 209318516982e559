# SPDX-License-Identifier: GPL-2.0-or-later
"""-G fields: each field (or protocol) read lists that tshark lists too, by its abbrev, a
case identical when its line is tshark's but for the description: kind, name, abbrev and,
for a field, type, parent, base and mask (`cut -f1-7`). tshark's glossary is some 19 MB:
asked once a run, and not kept by the reference cache."""
import subprocess

FAMILY = "glossary"


def rows(text):
    """{abbrev: its first line's columns 1-7} of a -G fields listing."""
    out = {}
    for line in text.splitlines():
        cols = line.split("\t")
        if len(cols) >= 3:
            out.setdefault(cols[2], cols[:7])
    return out


def run(ctx):
    want = rows(subprocess.run(["tshark", "-G", "fields"], capture_output=True, text=True,
                               check=True).stdout)
    got = rows(ctx.read(["-G", "fields"]).stdout)
    shared = [a for a in got if a in want]
    failures = ["%s: tshark %s, read %s" % (a, "|".join(want[a]), "|".join(got[a]))
                for a in shared if want[a] != got[a]]
    return len(shared) - len(failures), len(shared), failures
