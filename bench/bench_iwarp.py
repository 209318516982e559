#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_iwarp.py [--mbytes N] : iWARP decoding, `roceshark read` against `tshark`, in MB/s of
TCP payload.

Makes (once) a capture of N MB of iWARP TCP payload with tests/gen/gen_bench_iwarp.py (8
connections, CRCs on, half one FPDU per segment, half cut at random so that both tools
reassemble), then in one run:
  - bench_iwarp: decode + iWARP stage from memory on one core, without and with CRC-32C;
  - roceshark read -T fields and tshark -T fields with the same iWARP fields, timed end to
    end (best of three for roceshark, one run for tshark), outputs compared;
  - roceshark again with roceshark.mpa.crc.status added, which makes it verify every CRC
    (tshark 4.0 verifies them too, for its tree);
and prints the ratios. Run from the repository root after building into build/."""
import argparse
import os
import re
import subprocess
import sys

from benchutil import BENCH_BIN, DATA, RS, ensure_capture, timed

FIELDS = ["frame.number", "iwarp_mpa.ulpdulength", "iwarp_rdma.opcode", "iwarp_ddp.stag",
          "iwarp_ddp.tagged_offset", "iwarp_ddp.msn", "iwarp_mpa.crc_check"]
TSHARK_OFF = ["--disable-heuristic", "rpcrdma_iwarp", "--disable-heuristic", "smb_direct_iwarp"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mbytes", type=int, default=120)
    ap.add_argument("--data", default=DATA)
    a = ap.parse_args()
    cap = os.path.join(a.data, "iwarp_%dmb.pcap" % a.mbytes)
    ensure_capture(cap, "gen_bench_iwarp.py", ["--mbytes", str(a.mbytes)])
    mem = subprocess.run([os.path.join(BENCH_BIN, "bench_iwarp"), cap, "3"],
                         check=True, capture_output=True, text=True).stdout
    payload = int(re.search(r"tcp payload: (\d+) bytes", mem).group(1))
    print("".join(l + "\n" for l in mem.splitlines()[1:]), end="")
    mb = payload / 1e6
    efields = sum([["-e", f] for f in FIELDS], [])
    rs_out, ts_out = os.path.join(a.data, "roceshark.txt"), os.path.join(a.data, "tshark.txt")
    crc_out = os.path.join(a.data, "roceshark_crc.txt")
    t_rs = min(timed([RS, "read", "-r", cap, "-T", "fields"] + efields, rs_out)
               for _ in range(3))
    t_crc = min(timed([RS, "read", "-r", cap, "-T", "fields"] + efields +
                      ["-e", "roceshark.mpa.crc.status"], crc_out) for _ in range(3))
    t_ts = timed(["tshark", "-n", "-r", cap] + TSHARK_OFF + ["-T", "fields"] + efields, ts_out)
    same = open(rs_out, "rb").read() == open(ts_out, "rb").read()
    bad_crc = sum(1 for line in open(crc_out) if line.rstrip("\n").split("\t")[-1]
                  not in ("", "1") and "0" in line.rstrip("\n").split("\t")[-1].split(","))
    print("read -T fields, %.1f MB of TCP payload, fields: %s" % (mb, " ".join(FIELDS)))
    print("  roceshark          %7.3f s  %8.1f MB/s" % (t_rs, mb / t_rs))
    print("  roceshark + CRCs   %7.3f s  %8.1f MB/s  (%d bad CRCs)" % (t_crc, mb / t_crc, bad_crc))
    print("  tshark             %7.3f s  %8.1f MB/s" % (t_ts, mb / t_ts))
    print("  ratio              %7.1fx (with CRCs verified %.1fx; goal 30x); outputs %s"
          % (t_ts / t_rs, t_ts / t_crc, "identical" if same else "DIFFER"))
    return 0 if same and bad_crc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
