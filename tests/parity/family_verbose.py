# SPDX-License-Identifier: GPL-2.0-or-later
"""-V: each frame's tree, line for line, on the sample of captures (a frame each)."""
import paritylib as pl

FAMILY = "verbose"


def run(ctx):
    def one(path):
        want = pl.split_tree(ctx.tshark(["-r", path, "-V"] + ctx.tshark_flags(path)).stdout)
        got = pl.split_tree(ctx.read(["-r", path, "-V", "--compat", "tshark"]).stdout)
        return pl.compare_frames(pl.short(path), want, got, ctx.foreign(path))
    return pl.add(ctx.map(one, ctx.sample()))
