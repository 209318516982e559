# SPDX-License-Identifier: GPL-2.0-or-later
"""paritylib - what the parity families share: cutting outputs into frames and counting."""
import os
import re

FRAME_LINE = re.compile(r"^Frame (\d+): ", re.M)
PROTOCOLS_LINE = re.compile(r"^    \[Protocols in frame(?: \[truncated\])?: (.*)\]$", re.M)
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


# The top-level lines of tshark's -V that open a protocol read does not dissect, by the
# protocol's name in "[Protocols in frame: ...]". On a frame with such protocols the tree
# families compare what read prints too: the tree before the first of them (the frame, its
# link, IP and TCP layers, TCP's reassembled segments), without the protocols line.
FOREIGN_HEADINGS = {"http": "Hypertext Transfer Protocol", "tls": "Transport Layer Security",
                    "json": "JavaScript Object Notation", "data-text-lines": "Line-based text data",
                    "media": "Media Type", "nvme-rdma": "NVM Express Fabrics RDMA"}
# The data sources of -x that are read's too; the others come of protocols it does not
# dissect ("De-chunked entity body", "Decrypted TLS").
OUR_SOURCES = ("Frame", "Reassembled TCP", "Reassembled SMB Direct", "FPDU without Markers")
SOURCE_LINE = re.compile(r"^(.+) \((\d+) bytes\):$")


def known_foreign(foreign):
    """Whether every protocol of foreign (a frame's, read does not dissect) has its heading
    here: then its tree can be cut before them."""
    return bool(foreign) and all(p in FOREIGN_HEADINGS for p in foreign)


def tree_before_foreign(tree, foreign):
    """A -V tree cut before the first top-level line of a protocol in foreign, without its
    "[Protocols in frame: ...]" line; the tree whole (but that line) when foreign is empty."""
    headings = tuple(FOREIGN_HEADINGS[p] for p in foreign)
    out = []
    for line in tree.split("\n"):
        if headings and not line.startswith(" ") and line.startswith(headings):
            break
        if not PROTOCOLS_LINE.match(line):
            out.append(line)
    return "\n".join(out)


def our_sources(dump):
    """A -x dump (every data source of a frame) with only the sources read has too: the
    frame's bytes alone are dumped without a title, as both tools dump a frame of one
    source."""
    sources, name = [], "Frame"
    current = []
    for line in dump.split("\n"):
        m = SOURCE_LINE.match(line)
        if m:
            if current or sources:
                sources.append((name, current))
            name, current = line, []
        else:
            current.append(line)
    sources.append((name, current))
    kept = [(n, lines) for n, lines in sources
            if n == "Frame" or SOURCE_LINE.match(n).group(1) in OUR_SOURCES]
    if len(kept) == 1:
        return "\n".join(kept[0][1])
    return "\n".join("\n".join([n] + lines) for n, lines in kept)


def compare_partly(name, want, got, skip, cut):
    """compare_frames on the frames of skip alone, each as cut(n, text) leaves it (None:
    left out), tshark's and read's alike."""
    kept_want, kept_got = {}, {}
    for n in skip:
        if n not in want:
            continue
        w = cut(n, want[n])
        if w is None:
            continue
        kept_want[n] = w
        kept_got[n] = cut(n, got.get(n, ""))
    return compare_frames(name + " (before protocols read does not dissect)", kept_want,
                          kept_got, set())


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
