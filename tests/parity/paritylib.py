# SPDX-License-Identifier: GPL-2.0-or-later
"""paritylib - what the parity families share: cutting outputs into frames and counting."""
import os
import re

FRAME_LINE = re.compile(r"^Frame (\d+): ", re.M)
PROTOCOLS_LINE = re.compile(r"^    \[Protocols in frame: (.*)\]$", re.M)
RULE = re.compile(r"^=+$")
EXPERT_HEADING = re.compile(r"^(Errors|Warns|Notes|Chats|Comments) \(\d+\)$")


def split_tree(text):
    """{frame number: its lines} of a -V or -O text: a frame starts at "Frame N: "."""
    frames = {}
    starts = [(m.start(), int(m.group(1))) for m in FRAME_LINE.finditer(text)]
    for i, (pos, n) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        frames[n] = text[pos:end].rstrip("\n")
    return frames


def split_pvx(text):
    """{frame number: (summary line, tree, hex dump)} of a -P -V -x text: each frame's
    summary line, then its tree from "Frame N: " to the first empty line, then its bytes
    (every data source) up to the next frame's summary line."""
    lines = text.split("\n")
    starts = [(i, int(m.group(1))) for i, m in
              ((i, FRAME_LINE.match(line)) for i, line in enumerate(lines)) if m]
    frames = {}
    for k, (i, n) in enumerate(starts):
        end = starts[k + 1][0] - 1 if k + 1 < len(starts) else len(lines)
        body = lines[i:end]
        blank = body.index("") if "" in body else len(body)
        frames[n] = (lines[i - 1] if i > 0 else "", "\n".join(body[:blank]),
                     "\n".join(body[blank + 1:]).strip("\n"))
    return frames


def protocols_of(tree):
    """A frame's protocols, from its tree's "[Protocols in frame: eth:ethertype:ip]"."""
    m = PROTOCOLS_LINE.search(tree)
    return m.group(1).split(":") if m else []


def split_tables(text):
    """{title: text} of the -z tables of one run: each between two equal lines of '='
    (conversations, endpoints, io,phs, io,stat), titled by its first line of text; the
    expert tables ("Notes (2)" over a line of '=', then rows) together as "Expert"."""
    lines = text.split("\n")
    tables, expert, i = {}, [], 0
    while i < len(lines):
        line = lines[i]
        if RULE.match(line) and len(line) >= 20:
            j = i + 1
            while j < len(lines) and lines[j] != line:
                j += 1
            block = lines[i:j + 1]
            title = next((t.strip("| ") for t in block[1:] if t.strip("| ")), "")
            tables[title] = "\n".join(block)
            i = j + 1
        elif EXPERT_HEADING.match(line) and i + 1 < len(lines) and RULE.match(lines[i + 1]):
            j = i + 2
            while j < len(lines) and lines[j] != "":
                j += 1
            expert.append("\n".join(lines[i:j]))
            i = j
        else:
            i += 1
    if expert:
        tables["Expert"] = "\n".join(expert)
    return tables


def first_difference(want, got):
    """The first line where got differs from want, as "line N: tshark '...', read '...'"."""
    a, b = want.splitlines(), got.splitlines()
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else "<none>"
        y = b[i] if i < len(b) else "<none>"
        if x != y:
            return "line %d: tshark %r, read %r" % (i + 1, x[:100], y[:100])
    return "equal"


def compare_frames(name, want, got, skip):
    """Compares {frame: text} of tshark (want) and read (got), leaving out the frames in
    skip. Returns (identical, total, failures), one failure per differing frame."""
    identical, total, failures = 0, 0, []
    for n in sorted(want):
        if n in skip:
            continue
        total += 1
        if got.get(n) == want[n]:
            identical += 1
        else:
            failures.append("%s frame %d: %s" % (name, n, first_difference(want[n],
                                                                          got.get(n, ""))))
    return identical, total, failures


def add(results):
    """Sums a list of (identical, total, failures)."""
    return (sum(r[0] for r in results), sum(r[1] for r in results),
            [f for r in results for f in r[2]])


def short(path):
    return os.path.basename(path)
