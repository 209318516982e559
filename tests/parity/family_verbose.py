# SPDX-License-Identifier: GPL-2.0-or-later
"""-V: each frame's tree, line for line, on the sample of captures (a frame each); from the
-P -V -x run the summary and hex families share (ctx.text). A frame with protocols read does
not dissect (HTTP, TLS) is a case of its own: its tree before them (the TCP layer and its
reassembled segments), where each of them has a heading paritylib knows."""
import paritylib as pl

FAMILY = "verbose"


def run(ctx):
    def one(path):
        want, got = ctx.text(path)
        want = {n: f[1] for n, f in want.items()}
        got = {n: f[1] for n, f in got.items()}
        foreign = ctx.foreign_protocols(path)

        def before(n, tree):
            return (pl.tree_before_foreign(tree, foreign[n])
                    if pl.known_foreign(foreign[n]) else None)
        return pl.add([pl.compare_frames(pl.short(path), want, got, set(foreign)),
                       pl.compare_partly(pl.short(path), want, got, set(foreign), before)])
    return pl.add(ctx.map(one, ctx.sample()))
