# SPDX-License-Identifier: GPL-2.0-or-later
"""-V: each frame's tree, line for line, on the sample of captures (a frame each); from the
-P -V -x run the summary and hex families share (ctx.text)."""
import paritylib as pl

FAMILY = "verbose"


def run(ctx):
    def one(path):
        want, got = ctx.text(path)
        return pl.compare_frames(pl.short(path), {n: f[1] for n, f in want.items()},
                                 {n: f[1] for n, f in got.items()}, ctx.foreign(path))
    return pl.add(ctx.map(one, ctx.sample()))
