#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Display filters with slices (of one range or several), the functions, `matches` and
field-to-field comparisons select the same frames as tshark 4.0's, each filter on every real
capture of the repository at once (joined into one pcapng, an interface each).

tshark takes one -Y per run and spends most of a second starting, so it answers every filter
without a comma in one run: -z io,stat with two columns per filter, the filter and the filter
on odd frame numbers, each giving frames and bytes. read answers each with its own -Y, and the
same four figures are counted from the frames it keeps. io,stat cuts its argument at commas,
so the filters with one (slices of several ranges, max and min) run with -Y in both tools and
their frame numbers are compared one by one."""
import concurrent.futures
import os
import re

import rstest as t

FILTERS = [
    'eth.src[0:3] == 00:50:56',
    'frame[12:2] == 08:00',
    'ip.src[0] == 0a',
    'ip.dst[2:2] == 10:3d',
    'frame[-4:] contains 00',
    'frame[0-5] == eth.dst',
    'eth.dst[-1] == 0x03',
    'udp[2:2] == 12:b7',
    'infiniband[0:1] == 11',
    'infiniband[0] == 04 || infiniband[0] == 0a',
    'infiniband.bth[4:1] == 00',
    'len(frame) > 100',
    'len(infiniband) >= 1000',
    'len(infiniband.reth) == 16',
    'len(eth) == 14 && len(ip) == 20 && len(udp) == 8',
    'count(ip.addr) == 2 && count(infiniband.aeth) == 1',
    'count(eth.addr) > 1',
    'udp.srcport == udp.dstport',
    'udp.srcport > udp.dstport',
    'ip.src < ip.dst',
    'ip.src != ip.dst',
    'ip.addr != ip.src',
    'infiniband.bth.psn >= infiniband.aeth.msn',
    'infiniband.bth.psn < infiniband.aeth.msn',
    'eth.src <= eth.dst',
    'frame.len == frame.cap_len',
    r'frame matches "\x00\x11"',
    r'frame matches "(?i)^\x00p"',
    r'infiniband.bth matches "^[\x0c-\x11]"',
    r'eth.src matches "\x7d\x03$"',
    'frame[6:6] == eth.src',
    'frame[14:1] == 45 && !(frame[-2] == 00)',
    'ip[9:1] == 11',
    'infiniband.reth.dmalen > infiniband.bth.psn',
    'frame[0:2] != 00:50',
    r'len(infiniband.bth) == 12 && frame[-4:4] matches "[\x80-\xff]"',
    'udp.length > len(infiniband)',
    'infiniband contains infiniband.bth[0:1]',
    'frame[12:2,23:1] == 08:00:11',
    'frame[0:1,6:1] == frame[0:1,6:1] && eth.src[-2:2,0:1] != 00:00:00',
    'string(infiniband.bth.destqp) matches "^[0-9]+$" && string(infiniband.bth.psn) > "5"',
    'string(ip.src) contains ".1" || string(eth.dst) matches "^00:"',
    'string(frame.number) matches "7$"',
    'abs(udp.srcport) > 50000 || abs(frame.time_delta) > 0.001',
    'max(udp.srcport, udp.dstport) > 50000 && min(udp.port) == 4791',
    'min(ip.src, ip.dst) == ip.src && max(frame.len, frame.cap_len) > 100',
    'max(frame.time_delta, frame.time_relative) > 1 || min(eth.src, eth.dst) == eth.dst',
]


IO_ROW = re.compile(r"^\|\s*[\d.]+ <> [\d.]+ \|(.*)\|\s*$")


def frames_of(cmd):
    """(exit status, [(frame number, frame length)], stderr) of a -T fields run."""
    p = t.run(cmd + ["-T", "fields", "-e", "frame.number", "-e", "frame.len"], check_rc=False)
    rows = [tuple(int(v) for v in line.split("\t")) for line in p.stdout.splitlines()]
    return p.returncode, rows, p.stderr.strip()


def counts(rows):
    """The four figures io,stat gives of a filter and the filter on odd frames."""
    odd = [r for r in rows if r[0] % 2 == 1]
    return (len(rows), sum(r[1] for r in rows), len(odd), sum(r[1] for r in odd))


def tshark_io_counts(path, filters):
    cols = []
    for f in filters:
        cols += [f, "(%s) && frame.number %% 2 == 1" % f]
    p = t.run(["tshark", "-n", "-r", path, "-q", "-z", "io,stat,0," + ",".join(cols)],
              check_rc=False)
    rows = [m.group(1) for m in map(IO_ROW.match, p.stdout.splitlines()) if m]
    t.check(p.returncode == 0 and len(rows) == 1,
            "tshark's io,stat: exit %d, %s" % (p.returncode, p.stderr.strip()[:300]))
    values = [int(v) for v in rows[0].replace("|", " ").split()] if rows else []
    return [tuple(values[4 * i:4 * i + 4]) for i in range(len(filters))]


def main():
    captures = [p for p in t.real_captures() if os.path.dirname(p) == t.REAL_CAPTURES]
    t.check(len(captures) >= 20, "expected the real captures, found %d" % len(captures))
    joined = os.path.join(t.tempdir(), "real.pcapng")
    t.concatenate_pcaps(captures, joined)
    by_io = [f for f in FILTERS if "," not in f]
    alone = [f for f in FILTERS if "," in f]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        io_want = pool.submit(tshark_io_counts, joined, by_io)
        alone_want = list(pool.map(lambda f: frames_of(["tshark", "-n", "-r", joined, "-Y", f]),
                                   alone))
    want = dict(zip(by_io, io_want.result()))
    agree = selecting = 0
    for flt in FILTERS:
        rc, frames, err = frames_of([t.ROCESHARK, "read", "-r", joined, "-Y", flt])
        if not t.check(rc == 0, "roceshark refuses %r: %s" % (flt, err)):
            continue
        if flt in want:
            same = t.check(counts(frames) == want[flt],
                           "%r: tshark keeps (frames, bytes, odd frames, odd bytes) %s, "
                           "roceshark %s" % (flt, want[flt], counts(frames)))
        else:
            trc, tframes, terr = alone_want[alone.index(flt)]
            if not t.check(trc == 0, "tshark refuses %r: %s" % (flt, terr)):
                continue
            same = t.check(frames == tframes, "%r: tshark selects %d frames %s, roceshark %d %s"
                           % (flt, len(tframes), tframes[:8], len(frames), frames[:8]))
        agree += same
        selecting += same and bool(frames)
    print("%d of %d filters agree with tshark on the %d real captures joined (%d by io,stat, "
          "%d by -Y; %d select some frames)" % (agree, len(FILTERS), len(captures), len(by_io),
                                                len(alone), selecting))
    t.check(selecting >= len(FILTERS) * 2 // 3, "too few filters select anything: %d" % selecting)
    t.finish("filter_tshark")


main()
