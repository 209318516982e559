# SPDX-License-Identifier: GPL-2.0-or-later
"""-x: each frame's hex dump, every data source of it ("Reassembled TCP (N bytes):" and the
like), on the sample of captures (a frame each); from the -P -V -x run the summary and
verbose families share (ctx.text). A frame with protocols read does not dissect is a case
of its own: the data sources read has too (the frame's, "Reassembled TCP"), those of the
other protocols ("De-chunked entity body") left out."""
import paritylib as pl

FAMILY = "hex"


def run(ctx):
    def one(path):
        want, got = ctx.text(path)
        want = {n: f[2] for n, f in want.items()}
        got = {n: f[2] for n, f in got.items()}
        foreign = ctx.foreign(path)
        return pl.add([pl.compare_frames(pl.short(path), want, got, foreign),
                       pl.compare_partly(pl.short(path), want, got, foreign,
                                         lambda n, dump: pl.our_sources(dump))])
    return pl.add(ctx.map(one, ctx.sample()))
