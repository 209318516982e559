#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The Ethernet names' snapshot (dissectors/net/ether_names_snapshot.c): a run whose name
files have no snapshot in the cache folder writes one once the files are settled; the
next run maps it (a name changed in the snapshot shows); a file changed since, even to the
same size and modification time, is read again; a damaged snapshot (cut short, a count or
an offset past the file, a bucket's start past its table) is not used, the run gives the
names of the files and exits 0. Own manuf and wka files (WIRESHARK_DATA_DIR), so that
nothing here depends on the installed ones."""
import os
import struct
import subprocess
import time

import rstest as t

SRC = "00:11:22:33:44:55"
DST = "01:80:c2:00:00:0e"
FIELDS = ["eth.src_resolved", "eth.src.oui_resolved", "eth.dst_resolved"]
HEADER = 72         # struct snap_header before its tables
TABLE = 48          # struct snap_table: n, key_bits, e, first, tops, low
VENDORS = 3         # the vendors' table, the fourth
# 300 vendors of prefixes 02:00:00.. (a bucketed table), then the one the frame has.
MANUF = "".join("02:%02X:%02X\tV%03d\tVendor %d\n" % (i >> 8, i & 255, i, i)
                for i in range(300)) + "00:11:22\tAlpha\tAlpha Networks, Inc.\n"
WKA = "01-80-C2-00-00-0E\tLLDP_Multicast\n"


def write_pcap(path):
    frame = (bytes.fromhex(DST.replace(":", "")) + bytes.fromhex(SRC.replace(":", "")) +
             b"\x88\xb5" + bytes(46))
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        f.write(struct.pack("<IIII", 1, 0, len(frame), len(frame)) + frame)


def names(cap, env):
    p = subprocess.run([t.ROCESHARK, "read", "-r", cap, "-T", "fields"] +
                       [a for f in FIELDS for a in ("-e", f)],
                       capture_output=True, text=True, env=env)
    t.check(p.returncode == 0 and p.stderr == "",
            "read exited %d: %s" % (p.returncode, p.stderr))
    return p.stdout.strip()


def main():
    work = t.tempdir()
    data = os.path.join(work, "data")
    os.makedirs(data)
    for name, text in (("manuf", MANUF), ("wka", WKA)):
        with open(os.path.join(data, name), "w") as f:
            f.write(text)
    cap = os.path.join(work, "one.pcap")
    write_pcap(cap)
    env = dict(os.environ, WIRESHARK_DATA_DIR=data, XDG_CACHE_HOME=os.path.join(work, "cache"),
               HOME=os.path.join(work, "home"))
    snap = os.path.join(work, "cache", "roceshark", "ether-names")
    alpha = "Alpha_33:44:55\tAlpha Networks, Inc.\tLLDP_Multicast"
    bravo = alpha.replace("Alpha", "Bravo")

    # Files changed a moment ago: read, no snapshot (its times could hide the next change).
    t.check(names(cap, env) == alpha, "fresh files: %r" % names(cap, env))
    t.check(not os.path.exists(snap), "a snapshot of files changed a moment ago")
    time.sleep(2.2)
    t.check(names(cap, env) == alpha, "settled files: %r" % names(cap, env))
    t.check(os.path.exists(snap), "no snapshot written at %s" % snap)

    # The next run maps it: a name changed in the snapshot alone shows.
    with open(snap, "r+b") as f:
        body = f.read()
        f.seek(body.index(b"Alpha\0"))
        f.write(b"Delta\0")
    t.check(names(cap, env) == alpha.replace("Alpha_", "Delta_"),
            "the snapshot not used: %r" % names(cap, env))

    # manuf changed to the same size and modification time: read again.
    manuf = os.path.join(data, "manuf")
    st = os.stat(manuf)
    with open(manuf, "w") as f:
        f.write(MANUF.replace("Alpha", "Bravo"))
    os.utime(manuf, ns=(st.st_atime_ns, st.st_mtime_ns))
    t.check(names(cap, env) == bravo, "manuf changed in place: %r" % names(cap, env))
    time.sleep(2.2)
    t.check(names(cap, env) == bravo, "manuf changed, settled: %r" % names(cap, env))
    good = open(snap, "rb").read()
    t.check(b"Bravo\0" in good, "the snapshot not written again after the change")

    # Damaged snapshots: the files are read, each time.
    def table_field(i, k):
        return HEADER + VENDORS * TABLE + 8 * k if i is None else HEADER + i * TABLE + 8 * k
    e_off, first_off = (struct.unpack_from("<Q", good, table_field(None, k))[0] for k in (2, 3))
    damaged = {
        "cut short": good[:len(good) // 2],
        "vendors past the file": bytearray(good),
        "entries past the file": bytearray(good),
        "a bucket past its table": bytearray(good),
        "a name past the text": bytearray(good),
        "garbage": bytes(len(good)),
    }
    struct.pack_into("<Q", damaged["vendors past the file"], table_field(None, 0), 1 << 31)
    struct.pack_into("<Q", damaged["entries past the file"], table_field(None, 2),
                     len(good) - 16)
    struct.pack_into("<I", damaged["a bucket past its table"], first_off + 4 * 0x0011, 1 << 20)
    struct.pack_into("<I", damaged["a name past the text"], e_off + 12, 1 << 30)
    for what, body in damaged.items():
        with open(snap, "wb") as f:
            f.write(body)
        os.utime(snap)
        t.check(names(cap, env) == bravo, "snapshot %s: %r" % (what, names(cap, env)))
    t.finish("ether_snapshot")


if __name__ == "__main__":
    main()
