#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""roceshark plot psn: the SVG renders (rsvg-convert, as a viewer would) into a picture
that shows each kind of event the trace has, in its own colour: the rendered PNG is
decoded and its pixels counted per colour. Bad arguments get one-line errors."""
import os
import stat
import struct
import zlib

import rstest as t

COLORS = {"request": (0x1F, 0x5F, 0xBF), "retransmission": (0xD6, 0x27, 0x28),
          "gap": (0xFF, 0x8C, 0x00), "read": (0x2C, 0xA0, 0x2C), "nak": (0, 0, 0),
          "rnr": (0x94, 0x67, 0xBD), "cnp": (0x17, 0xBE, 0xCF), "ack": (0x7F, 0x7F, 0x7F)}
LEGEND_X = 1100 - 200      # pixels right of this are the legend


def png_pixels(path):
    """(width, height, rows of RGBA tuples) of an 8-bit RGBA or RGB PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        ln, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + ln]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6)
            bpp = 4 if ctype == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + ln
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 0xFF
            elif f == 2:
                line[i] = (line[i] + b) & 0xFF
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def colour_counts(png):
    w, h, bpp, rows = png_pixels(png)
    counts = dict.fromkeys(COLORS, 0)
    for row in rows:
        for x in range(0, LEGEND_X):
            px = tuple(row[x * bpp:x * bpp + 3])
            for name, c in COLORS.items():
                if px == c:
                    counts[name] += 1
    return w, h, counts


def plot(capture, qp, out):
    p = t.run([t.ROCESHARK, "plot", "psn", "-r", capture, "--qp", qp, "-o", out], check_rc=False)
    t.check(p.returncode == 0, "plot %s: %s" % (capture, p.stderr))
    t.run(["rsvg-convert", out, "-o", out + ".png"])
    return colour_counts(out + ".png")


tmp = t.tempdir()
t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_rc.py"), tmp])
w, h, c = plot(os.path.join(tmp, "mixed.pcap"), "0x239", os.path.join(tmp, "mixed.svg"))
t.check((w, h) == (1100, 640), "picture size %dx%d" % (w, h))
for name in ("request", "retransmission", "gap", "read", "nak", "ack", "cnp"):
    t.check(c[name] > 20, "mixed.pcap: too few %s pixels (%d)" % (name, c[name]))
w, h, c = plot(os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap"), "0x22",
               os.path.join(tmp, "demo.svg"))
for name in ("request", "retransmission", "gap", "nak", "rnr", "cnp", "read", "ack"):
    t.check(c[name] > 5, "rdma_demo.pcap: too few %s pixels (%d)" % (name, c[name]))
# A clean trace shows no retransmission or gap colours at all.
w, h, c = plot(os.path.join(tmp, "clean.pcap"), "0x200", os.path.join(tmp, "clean.svg"))
t.check(c["retransmission"] == 0 and c["gap"] == 0 and c["nak"] == 0,
        "clean.pcap shows trouble: %r" % c)
t.check(c["request"] > 100, "clean.pcap: requests not drawn")

for args, words in ((["plot", "psn", "-r", os.path.join(tmp, "clean.pcap"), "--qp", "0x999",
                      "-o", os.path.join(tmp, "x.svg")], "no RC conversation uses QP 0x000999"),
                    (["plot", "psn", "-r", os.path.join(tmp, "clean.pcap")], "needs -r FILE"),
                    (["plot", "bars"], "expected 'plot psn'"),
                    (["plot", "psn", "--qp", "xyz"], "--qp xyz")):
    p = t.run([t.ROCESHARK] + args, check_rc=False)
    t.check(p.returncode == 1 and words in p.stderr and len(p.stderr.splitlines()) == 1,
            "%s: exit %d %r" % (" ".join(args), p.returncode, p.stderr))
# A write error removes a half-written picture, but never a device: a copy of /dev/full
# (the real one is shared by every test on the machine).
full = os.path.join(tmp, "full")
os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
p = t.run([t.ROCESHARK, "plot", "psn", "-r", os.path.join(tmp, "clean.pcap"), "--qp", "0x200",
           "-o", full], check_rc=False)
t.check(p.returncode == 3 and "write error" in p.stderr, "-o full: exit %d %r"
        % (p.returncode, p.stderr))
t.check(os.path.exists(full) and stat.S_ISCHR(os.stat(full).st_mode),
        "plot -o on a full device removed the device")
# -o - is standard output, byte for byte the file -o writes; no file named "-" appears.
args = ["plot", "psn", "-r", os.path.join(tmp, "clean.pcap"), "--qp", "0x200"]
t.run([t.ROCESHARK] + args + ["-o", os.path.join(tmp, "file.svg")])
p = t.run([t.ROCESHARK] + args + ["-o", "-"], cwd=tmp)
t.check(p.stdout == open(os.path.join(tmp, "file.svg")).read() and p.stdout.startswith("<?xml")
        and not os.path.exists(os.path.join(tmp, "-")), "plot -o - does not write the SVG "
        "to standard output")
t.finish("psn plot")
