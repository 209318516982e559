# SPDX-License-Identifier: GPL-2.0-or-later
"""Summary lines (no options but -r): each frame's line, with its padded columns and tshark's
Info (--compat tshark), on the sample of captures."""
import paritylib as pl

FAMILY = "summary"


def lines(text):
    """{frame number: its summary line}: the number is the line's first word."""
    frames = {}
    for line in text.splitlines():
        word = line.split(None, 1)[0] if line.strip() else ""
        if word.isdigit():
            frames[int(word)] = line
    return frames


def run(ctx):
    def one(path):
        want = lines(ctx.tshark(["-r", path] + ctx.tshark_flags(path)).stdout)
        got = lines(ctx.read(["-r", path, "--compat", "tshark"]).stdout)
        return pl.compare_frames(pl.short(path), want, got, ctx.foreign(path))
    return pl.add(ctx.map(one, ctx.sample()))
