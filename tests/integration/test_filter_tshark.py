#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Display filters with slices (of one range or several), the functions, `matches` and field-to-field comparisons select
the same frames as tshark 4.0's. tshark takes one -Y per run and starts in ~0.6 s, so not
every filter runs on every capture: filter i runs on one of the real captures, spread so
that each capture gets about as many (47 tshark starts, about 45 s of processor time), and the
runs go two at a time."""
import concurrent.futures
import os

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


def tshark(path, flt):
    p = t.run(["tshark", "-n", "-r", path, "-Y", flt, "-T", "fields", "-e", "frame.number"],
              check_rc=False)
    return p.returncode, p.stdout.split(), p.stderr.strip()


def ours(path, flt):
    p = t.run([t.ROCESHARK, "read", "-r", path, "-Y", flt, "-T", "fields", "-e",
               "frame.number"], check_rc=False)
    return p.returncode, p.stdout.split(), p.stderr.strip()


def main():
    captures = [p for p in t.real_captures() if os.path.dirname(p) == t.REAL_CAPTURES]
    t.check(len(captures) >= 20, "expected the real captures, found %d" % len(captures))
    runs = [(captures[(i * 5) % len(captures)], f) for i, f in enumerate(FILTERS)]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        want = list(pool.map(lambda r: tshark(*r), runs))
    agree = selecting = 0
    for (path, flt), (trc, tframes, terr) in zip(runs, want):
        name = os.path.basename(path)
        if not t.check(trc == 0, "tshark refuses %r on %s: %s" % (flt, name, terr)):
            continue
        rc, frames, err = ours(path, flt)
        if not t.check(rc == 0, "roceshark refuses %r on %s: %s" % (flt, name, err)):
            continue
        if t.check(frames == tframes, "%s: %r: tshark selects %d frames %s, roceshark %d %s"
                   % (name, flt, len(tframes), tframes[:8], len(frames), frames[:8])):
            agree += 1
            selecting += 0 < len(frames)
    print("%d of %d capture x filter runs agree with tshark (%d select some frames, not all "
          "of them empty)" % (agree, len(runs), selecting))
    t.check(selecting >= len(runs) // 3, "too few runs select anything: %d" % selecting)
    t.finish("filter_tshark")


main()
