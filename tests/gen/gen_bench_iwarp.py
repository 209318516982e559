#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_bench_iwarp.py OUT [--mbytes N] [--conns C] [--seed S] : a large iWARP capture.

C connections (MPA revision 1, CRCs on, no markers: what iWARP NICs run) each write RDMA
Writes of 64 KiB in FPDUs of at most 1448 octets, with a Send between them. Half the
connections put one FPDU in each TCP segment, as NICs do; the other half cut the stream at
random points (as gen_iwarp.py's random.pcap, which tshark 4.0 follows), so FPDUs span
segments and segments hold several, which makes both tools reassemble. Stops once N megabytes (10^6 octets) of TCP payload are written. FPDUs are made
from a few templates whose DDP headers (STag, offset, MSN) are rewritten and CRCs recomputed.
"""
import argparse
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_iwarp  # noqa: E402
import ibframes as ib  # noqa: E402
import iwarpframes as iw  # noqa: E402

MAX_FPDU_PAYLOAD = 1448 - 2 - 14 - 4 - 2    # an FPDU per 1448-octet segment, pad included
WRITE_LEN = 65536


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--mbytes", type=int, default=120)
    ap.add_argument("--conns", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hole", action="store_true",
                    help="leave out one early segment of each connection, which nothing "
                    "acknowledges: a hole that never fills")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    w = ib.PcapWriter(a.out, 1)
    conns = []
    for k in range(a.conns):
        c = iw.Connection((bytes.fromhex("0200000000%02x" % (k + 1)), bytes([10, 0, 1, k + 1]),
                           50000 + k),
                          (bytes.fromhex("02000000ff%02x" % (k + 1)), bytes([10, 0, 2, 1]), 9999),
                          isn_i=rng.getrandbits(32), isn_r=rng.getrandbits(32))
        for _, f in c.handshake():
            w.write(f)
        c.exchange(req_m=0, req_c=1, rep_m=0, rep_c=1)
        # The Request acknowledges nothing yet; the Reply acknowledges the Request.
        req, rep = c.dirs[0], c.dirs[1]
        w.write(c.frame(0, bytes(req.data), seq=req.isn + 1, ack=rep.isn + 1))
        w.write(c.frame(1, bytes(rep.data), seq=rep.isn + 1, ack=req.isn + 1 + len(req.data)))
        conns.append({"c": c, "sent": len(c.dirs[0].data), "to": 0, "msn": 1,
                      "aligned": k % 2 == 0})
    payload = bytes(rng.getrandbits(8) for _ in range(MAX_FPDU_PAYLOAD))
    total = 0
    while total < a.mbytes * 1000000:
        st = conns[rng.randrange(len(conns))]
        c, i = st["c"], st["c"].dirs[0]
        start = i.offset()
        # Drop what was sent already: the stream object only needs what is not yet sent.
        for off in range(0, WRITE_LEN, MAX_FPDU_PAYLOAD):
            n = min(MAX_FPDU_PAYLOAD, WRITE_LEN - off)
            i.add_fpdu(iw.ddp_tagged(iw.WRITE, off + n == WRITE_LEN, 0x1000 + st["msn"],
                                     st["to"] + off, payload[:n]), {})
        st["to"] += WRITE_LEN
        i.add_fpdu(iw.ddp_untagged(iw.SEND, True, 0, st["msn"], 0, payload=payload[:64]), {})
        st["msn"] += 1
        end = i.offset()
        if st["aligned"]:
            segs = [(s, e) for s, e, _ in i.pdus if s >= start]
        else:
            segs = gen_iwarp.cuts_for(rng, i, start, end, tshark_safe=True)
        ack = c.dirs[1].isn + 1 + len(c.dirs[1].data)
        for s, e in segs:
            st["segs"] = st.get("segs", 0) + 1
            if a.hole and st["segs"] == 10:
                continue
            w.write(c.frame(0, bytes(i.data[s:e]), seq=i.isn + 1 + s, ack=ack))
            total += e - s
        i.pdus.clear()
    w.close()
    print("%s: %.1f MB of TCP payload in %d connections" % (a.out, total / 1e6, len(conns)))


if __name__ == "__main__":
    main()
