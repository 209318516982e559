# SPDX-License-Identifier: GPL-2.0-or-later
"""-G fields: each field (or protocol) read lists that tshark lists too, by its abbrev, a
case identical when its line is tshark's but for the description: kind, name, abbrev and,
for a field, type, parent, base and mask (`cut -f1-7`). -G protocols: each protocol both
list, by its filter name, identical when its line (name, short name, filter name) is.
-G values: each field both list value names for, by its abbrev, identical when its table
(the V and R lines: values and names, in order) is one of those tshark lists under that
abbrev (vlan.priority has one a preference). tshark's glossary is some 19 MB and its values
89 MB: each asked once a run, and not kept by the reference cache. -G heuristic-decodes:
each line of ours (our two heuristics) identical when tshark lists it; -G ftypes,
column-formats, dissector-tables and decodes likewise, in tshark's order. -G defaultprefs:
each block of ours (a preference with its comment, a section line, the file's head)
identical to one of tshark's, in its order; -G currentprefs likewise, with PREFS given to read
with -o and to tshark in a preferences file of a configuration folder of its own."""
import os
import subprocess
import tempfile

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


# Preferences of each kind, set from their defaults, spelled as tshark need not write them.
PREFS = ["tcp.relative_sequence_numbers:false", "infiniband.rroce.port:4792",
         'gui.column.format:"No.","%m","Src","%s"', "eth.padding:never",
         "vlan.qinq_ethertype:88a8", "arp.detect_storm_period:0200",
         "vlan.priority_drop:7 priorities, 1 drop eligible", "ip.check_checksum:TRUE",
         "tcp.check_checksum:maybe", "eth.fcs:bogus"]


def in_order(report, got, want):
    """Each of got (lines or blocks) identical to one of want, after the one before it."""
    failures, at = [], -1
    for item in got:
        if item in want[at + 1:]:
            at = want.index(item, at + 1)
        else:
            failures.append("%s %r: not tshark's, or out of its order" % (report, item[:200]))
    return len(got) - len(failures), len(got), failures


def lines_in_order(ctx, report):
    """-G report (ftypes, column-formats, ...): each line of ours is tshark's, in order."""
    want = subprocess.run(["tshark", "-G", report], capture_output=True, text=True,
                          check=True).stdout.splitlines()
    return in_order(report, ctx.read(["-G", report]).stdout.splitlines(), want)


def blocks(text):
    return text.rstrip("\n").split("\n\n")


def prefs(ctx, current):
    """-G defaultprefs, or currentprefs with PREFS: each block of ours is tshark's, in order."""
    report = "currentprefs" if current else "defaultprefs"
    with tempfile.TemporaryDirectory() as home:
        os.mkdir(os.path.join(home, "wireshark"))
        with open(os.path.join(home, "wireshark", "preferences"), "w") as f:
            f.write("".join(p.replace(":", ": ", 1) + "\n" for p in PREFS if current))
        want = subprocess.run(["tshark", "-G", report], capture_output=True, text=True,
                              env=dict(os.environ, XDG_CONFIG_HOME=home), check=True).stdout
    args = ["-G", report] + [a for p in PREFS if current for a in ("-o", p)]
    return in_order(report, blocks(ctx.read(args).stdout), blocks(want))


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
    return pl.add([one(r) for r in REPORTS] + [values(ctx), heuristics(ctx)] +
                  [lines_in_order(ctx, r) for r in ("ftypes", "column-formats",
                                                    "dissector-tables", "decodes")] +
                  [prefs(ctx, False), prefs(ctx, True)])
