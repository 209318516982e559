# SPDX-License-Identifier: GPL-2.0-or-later
"""paritylib - what the parity families share: cutting outputs into frames and counting."""
import os
import re

FRAME_LINE = re.compile(r"^Frame (\d+): ", re.M)


def split_tree(text):
    """{frame number: its lines} of a -V or -O text: a frame starts at "Frame N: "."""
    frames = {}
    starts = [(m.start(), int(m.group(1))) for m in FRAME_LINE.finditer(text)]
    for i, (pos, n) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        frames[n] = text[pos:end].rstrip("\n")
    return frames


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
