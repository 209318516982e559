# SPDX-License-Identifier: GPL-2.0-or-later
"""-x: each frame's hex dump, every data source of it ("Reassembled TCP (N bytes):" and the
like), on the sample of captures (a frame each); from the -P -V -x run the summary and
verbose families share (ctx.text)."""
import paritylib as pl

FAMILY = "hex"


def run(ctx):
    def one(path):
        want, got = ctx.text(path)
        return pl.compare_frames(pl.short(path), {n: f[2] for n, f in want.items()},
                                 {n: f[2] for n, f in got.items()}, ctx.foreign(path))
    return pl.add(ctx.map(one, ctx.sample()))
