# SPDX-License-Identifier: GPL-2.0-or-later
"""-G fields: each field (or protocol) read lists that tshark lists too, by its abbrev, a
case identical when its line is tshark's but for the description: kind, name, abbrev and,
for a field, type, parent, base and mask (`cut -f1-7`). -G protocols: each protocol both
list, by its filter name, identical when its line (name, short name, filter name) is.
-G values: each field both list value names for, by its abbrev, identical when its table
(the V and R lines: values and names, in order) is one of those tshark lists under that
abbrev (vlan.priority has one a preference). tshark's glossary is some 19 MB and its values
89 MB: each asked once a run, and not kept by the reference cache. -G heuristic-decodes:
each line of ours (our two heuristics) identical when tshark lists it; -G ftypes likewise, in
tshark's order."""
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


def value_tables(text, keep=None):
    """{abbrev: [table, ...]} of a -G values listing (of the abbrevs in keep, if given), a
    table the rows (value, name) of one run of V or R lines under its abbrev; a value met
    again starts another table."""
    out, last, values_seen = {}, None, set()
    for line in text.splitlines():
        cols = line.split("\t", 4)
        if len(cols) < 4 or (keep is not None and cols[1] not in keep):
            last = None
            continue
        if cols[0] in ("V", "V64"):
            abbrev, row = cols[1], (cols[2], cols[3])
        elif cols[0] == "R" and len(cols) >= 5:
            abbrev, row = cols[1], (cols[2] + "-" + cols[3], cols[4])
        else:
            last = None
            continue
        tables = out.setdefault(abbrev, [])
        if last != abbrev or row[0] in values_seen:
            tables.append([])
            values_seen = set()
        tables[-1].append(row)
        values_seen.add(row[0])
        last = abbrev
    return out


def values(ctx):
    got = value_tables(ctx.read(["-G", "values"]).stdout)
    want = value_tables(subprocess.run(["tshark", "-G", "values"], capture_output=True,
                                       text=True, errors="replace", check=True).stdout,
                        set(got))
    shared = [a for a in got if a in want]
    failures = []
    for a in shared:
        if got[a][0] not in want[a]:
            theirs = dict(want[a][0])
            ours = dict(got[a][0])
            failures.append("values %s: %d values, tshark %d; other names %s" % (
                a, len(ours), len(theirs),
                ", ".join("%s %r/%r" % (v, n, theirs.get(v)) for v, n in ours.items()
                          if theirs.get(v) != n)[:200] or "none, another order or set"))
    return len(shared) - len(failures), len(shared), failures


def heuristics(ctx):
    """-G heuristic-decodes: each line of ours (table, protocol, on) is one of tshark's."""
    want = set(subprocess.run(["tshark", "-G", "heuristic-decodes"], capture_output=True,
                              text=True, check=True).stdout.splitlines())
    got = ctx.read(["-G", "heuristic-decodes"]).stdout.splitlines()
    failures = ["heuristic-decodes %r: not tshark's" % line for line in got if line not in want]
    return len(got) - len(failures), len(got), failures


def ftypes(ctx):
    """-G ftypes: each line of ours (a type our fields have) identical when tshark lists it,
    after the line before it."""
    want = subprocess.run(["tshark", "-G", "ftypes"], capture_output=True, text=True,
                          check=True).stdout.splitlines()
    got = ctx.read(["-G", "ftypes"]).stdout.splitlines()
    failures, at = [], -1
    for line in got:
        if line in want[at + 1:]:
            at = want.index(line, at + 1)
        else:
            failures.append("ftypes %r: not tshark's, or out of its order" % line)
    return len(got) - len(failures), len(got), failures


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
    return pl.add([one(r) for r in REPORTS] + [values(ctx), heuristics(ctx), ftypes(ctx)])
