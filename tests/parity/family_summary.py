# SPDX-License-Identifier: GPL-2.0-or-later
"""Summary lines: each frame's line, with its padded columns and tshark's Info (--compat
tshark), on the sample of captures; from the -P -V -x run the verbose and hex families
share (ctx.text)."""
import paritylib as pl

FAMILY = "summary"


def run(ctx):
    def one(path):
        want, got = ctx.text(path)
        return pl.compare_frames(pl.short(path), {n: f[0] for n, f in want.items()},
                                 {n: f[0] for n, f in got.items()}, ctx.foreign(path))
    return pl.add(ctx.map(one, ctx.sample()))
