#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tshark's habits in `roceshark read`, against tshark 4.0 on real captures:

-w (with -Y, -c, -F, -P, standard output, unwritable paths, the file being read refused, a
pcapng of two link types),
-O, -S, -2 -R, -a, -G fields|protocols|values, --disable-protocol; and every subcommand's
-h/--help and unknown option, through the one getopt front end (cli/util.c)."""
import os
import re
import struct
import subprocess

import rstest as t

SAN = t.BUILT.get("sanitize")
REAL = t.REAL_CAPTURES
CM = os.path.join(REAL, "linlinw5_rdma_ib_tutorial__pcap_rdma_cm.pcap")
UD = os.path.join(REAL, "linlinw5_rdma_ib_tutorial__pcap_pingpong_ud.pcap")
ERF = os.path.join(REAL, "srinivaskoritala_rdma-softroce-demo__infiniband.pcap")
SAMPLE = os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap")
out = t.tempdir()


def rs(args, **kw):
    return subprocess.run([t.ROCESHARK] + args, capture_output=True, **kw)


def tshark(args):
    p = t.run(["tshark"] + args, check_rc=False)
    return p.stdout


def records(path):
    """(link type, seconds as a string of 9 decimals, wire length, bytes) of every frame of
    a pcap or pcapng file (little-endian, as ours and these captures are)."""
    data = open(path, "rb").read()
    recs = []
    if data[:4] == b"\x0a\x0d\x0d\x0a":
        pos, ifaces = 0, []
        while pos + 12 <= len(data):
            btype, blen = struct.unpack_from("<II", data, pos)
            if btype == 1:
                ifaces.append(struct.unpack_from("<H", data, pos + 8)[0])
            elif btype == 6:
                ifc, hi, lo, cap, wire = struct.unpack_from("<IIIII", data, pos + 8)
                ns = (hi << 32 | lo)      # if_tsresol 9 in our files
                recs.append((ifaces[ifc], "%d.%09d" % divmod(ns, 10**9), wire,
                             data[pos + 28:pos + 28 + cap]))
            pos += blen
        return recs
    magic, = struct.unpack_from("<I", data, 0)
    nsec = magic == 0xA1B23C4D
    linktype, = struct.unpack_from("<I", data, 20)
    pos = 24
    while pos + 16 <= len(data):
        sec, frac, cap, wire = struct.unpack_from("<IIII", data, pos)
        recs.append((linktype, "%d.%09d" % (sec, frac if nsec else frac * 1000), wire,
                     data[pos + 16:pos + 16 + cap]))
        pos += 16 + cap
    return recs


def selection(path, flt, more=()):
    """The frames tshark's -Y flt selects: their numbers and times."""
    rows = [r.split("\t") for r in tshark(["-r", path, "-Y", flt, "-T", "fields", "-e",
                                            "frame.number", "-e", "frame.time_epoch"] +
                                           list(more)).splitlines()]
    return [int(r[0]) for r in rows], [r[1] for r in rows]


def check_saved(name, src, saved, selected, times):
    """saved holds exactly the frames of src numbered in selected: bytes, link types and
    wire lengths as they were, and the times tshark reads from the input (ERF records
    carry their own, finer ones, which a nanosecond file keeps)."""
    want = records(src)
    got = records(saved)
    t.check(len(got) == len(selected) > 0, "%s: -w wrote %d frames, tshark selects %d"
            % (name, len(got), len(selected)))
    for g, n in zip(got, selected):
        w = want[n - 1]
        if not t.check(g[0] == w[0] and g[2:] == w[2:], "%s: frame %d differs in the file"
                       % (name, n)):
            break
    t.check(tshark(["-r", saved, "-T", "fields", "-e", "frame.time_epoch"]).split() == times,
            "%s: tshark reads other frames or times from the file written" % name)


# -w with -Y (and -c): the frames tshark's -Y selects, in a file of the input's kind.
CASES = [(CM, "infiniband.bth.opcode == 4 || infiniband.bth.opcode == 17", []),
         (ERF, "infiniband.bth.psn > 0", []),
         (UD, "infiniband.bth.psn > 5000000", ["-c", "200"])]
for path, flt, more in CASES[:1] if SAN else CASES:
    name = "%s -Y '%s' %s" % (os.path.basename(path), flt, " ".join(more))
    saved = os.path.join(out, "saved.pcap")
    p = rs(["read", "-r", path, "-Y", flt, "-w", saved] + more)
    t.check(p.returncode == 0 and p.stdout == b"" and p.stderr == b"",
            "%s: -w exit %d, printed %r %r" % (name, p.returncode, p.stdout[:80], p.stderr))
    selected, times = selection(path, flt, more)
    t.check(open(saved, "rb").read(4) in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"),
            "%s: -w of a pcap input is not pcap" % name)
    check_saved(name, path, saved, selected, times)

# -P prints the lines that -w alone keeps quiet; -w - is the file, on standard output.
p = rs(["read", "-r", CM, "-Y", CASES[0][1], "-w", os.path.join(out, "p.pcap"), "-P"])
t.check(p.stdout == rs(["read", "-r", CM, "-Y", CASES[0][1]]).stdout,
        "-w -P does not print the summary lines read prints")
p = rs(["read", "-r", CM, "-Y", CASES[0][1], "-w", "-"])
t.check(p.returncode == 0 and p.stdout == open(os.path.join(out, "p.pcap"), "rb").read(),
        "-w - does not write the file to standard output")
for bad in (["-V"], ["-P"], ["-T", "fields", "-e", "frame.number"], ["-z", "expert"]):
    p = rs(["read", "-r", CM, "-w", "-"] + bad)
    t.check(p.returncode == 1 and p.stdout == b"" and p.stderr.count(b"\n") == 1 and
            b"cannot print there too" in p.stderr, "-w - %s: exit %d %r"
            % (" ".join(bad), p.returncode, p.stderr))

# Unwritable: one line naming the file, exit 2 as tshark's, nothing on standard output.
for target in ("/dev/full", os.path.join(out, "no", "such", "dir.pcap")):
    p = rs(["read", "-r", CM, "-w", target])
    err = p.stderr.decode()
    t.check(p.returncode == 2 and p.stdout == b"" and err.count("\n") == 1 and
            err.startswith("roceshark: -w %s: " % target), "-w %s: exit %d %r"
            % (target, p.returncode, err))

# The file being read, by its name, by a link to it, or as standard input: refused before
# anything is opened for writing (which would empty it), exit 1, the file as it was.
mine = os.path.join(out, "mine.pcap")
link = os.path.join(out, "link.pcap")
with open(SAMPLE, "rb") as f:
    original = f.read()
open(mine, "wb").write(original)
os.symlink(mine, link)
for args, target, stdin in ((["-r", mine], mine, None), (["-r", mine, "-Y", "ip"], link, None),
                            (["-r", "-"], mine, mine)):
    p = rs(["read"] + args + ["-w", target], stdin=open(stdin, "rb") if stdin else None)
    err = p.stderr.decode()
    t.check(p.returncode == 1 and err == "roceshark: -w %s: is the capture being read: writing "
            "would empty it first (choose another file)\n" % target and
            open(mine, "rb").read() == original, "read %s -w %s: exit %d %r, the file %s"
            % (" ".join(args), target, p.returncode, err,
               "kept" if open(mine, "rb").read() == original else "changed"))

# A pcapng of two link types (Ethernet, and the same frames' IP packets as raw IP) gives a
# pcapng with both; -F pcap cannot hold them and says so.
cm = records(CM)
blocks = [struct.pack("<IIIHHq", 0x0A0D0D0A, 28, 0x1A2B3C4D, 1, 0, -1) + struct.pack("<I", 28)]
for lt in (1, 101):
    blocks.append(struct.pack("<IIHHII", 1, 20, lt, 0, 65535, 20))
for i, (lt, ts, wire, data) in enumerate(cm[:120]):
    ifc = i % 2
    if ifc:
        data, wire = data[14:], wire - 14
    sec, frac = ts.split(".")
    us = int(sec) * 10**6 + int(frac) // 1000
    body = struct.pack("<IIIII", ifc, us >> 32, us & 0xFFFFFFFF, len(data), wire)
    body += data + b"\0" * (-len(data) % 4)
    blocks.append(struct.pack("<II", 6, 12 + len(body)) + body + struct.pack("<I", 12 + len(body)))
two = os.path.join(out, "two.pcapng")
open(two, "wb").write(b"".join(blocks))
saved = os.path.join(out, "two-saved.pcapng")
flt = "infiniband.bth.opcode == 4 || infiniband.bth.opcode == 100"
p = rs(["read", "-r", two, "-Y", flt, "-w", saved])
t.check(p.returncode == 0, "two link types: exit %d %r" % (p.returncode, p.stderr))
selected, times = selection(two, flt)
t.check(open(saved, "rb").read(4) == b"\x0a\x0d\x0d\x0a", "two link types: not pcapng")
t.check({r[0] for r in records(saved)} == {1, 101}, "two link types: not both kept")
check_saved("two link types", two, saved, selected, times)
p = rs(["read", "-r", two, "-F", "pcap", "-w", os.path.join(out, "one.pcap")])
t.check(p.returncode == 2 and b"pcap file holds only" in p.stderr,
        "-F pcap of two link types: exit %d %r" % (p.returncode, p.stderr))

# -a: packets:N as -c N; filesize:KB stops once the file holds KB kB; duration is live.
t.check(rs(["read", "-r", CM, "-a", "packets:7"]).stdout ==
        rs(["read", "-r", CM, "-c", "7"]).stdout, "-a packets:7 is not -c 7")
small = os.path.join(out, "small.pcap")
rs(["read", "-r", CM, "-a", "filesize:2", "-w", small])
size = os.path.getsize(small)
last = len(records(small)[-1][3]) + 16
t.check(size >= 2000 and size - last < 2000, "-a filesize:2 wrote %d bytes" % size)
if os.geteuid() == 0:
    # A live read with -a duration stops on time even when nothing comes.
    p = rs(["read", "-i", "lo", "-f", "udp port 9", "-a", "duration:1"], timeout=20)
    t.check(p.returncode == 0 and b"0 decoded" in p.stderr, "read -i lo -a duration:1: "
            "exit %d %r" % (p.returncode, p.stderr))
else:
    print("skipped: read -i lo -a duration:1 (needs root)")
for bad, why in ((["-a", "duration:1"], "live read"), (["-a", "filesize:1"], "goes with -w"),
                 (["-a", "frames:3"], "expected packets:N")):
    p = rs(["read", "-r", CM] + bad)
    t.check(p.returncode == 1 and why in p.stderr.decode(), "%s: exit %d %r"
            % (" ".join(bad), p.returncode, p.stderr))

# -2 -R: the frames the read filter keeps, numbered from 1 with the file's relative times,
# as tshark numbers them; -R alone is refused by both.
flt = "infiniband.bth.opcode == 4"
cols = ["-T", "fields", "-e", "frame.number", "-e", "frame.time_relative", "-e",
        "infiniband.bth.psn"]
t.check(rs(["read", "-r", CM, "-2", "-R", flt] + cols).stdout.decode() ==
        tshark(["-r", CM, "-2", "-R", flt] + cols), "-2 -R differs from tshark's")
# -2 alone decodes every frame, with -Y, -T fields, -q -z and -w as tshark does.
two = ["-T", "fields", "-e", "frame.number", "-e", "infiniband.bth.psn"]
for more in ([], ["-Y", "infiniband.bth.opcode == 4"]):
    got = rs(["read", "-r", CM, "-2"] + more + two).stdout.decode()
    t.check(got.count("\n") > 10 and got == tshark(["-r", CM, "-2"] + more + two),
            "-2 %s differs from tshark's" % " ".join(more))
t.check(rs(["read", "-r", CM, "-2", "-q", "-z", "io,stat,0"]).stdout.decode() ==
        tshark(["-r", CM, "-2", "-q", "-z", "io,stat,0"]), "-2 -q -z io,stat,0 differs")
saved2 = os.path.join(out, "two.pcap")
rs(["read", "-r", CM, "-2", "-w", saved2])
t.check(records(saved2) == records(CM), "-2 -w did not save every frame")
# tshark 4.0: "-R without -2 is deprecated. For single-pass filtering use -Y.", exit 1.
p = rs(["read", "-r", CM, "-R", flt])
t.check(p.returncode == 1 and b"use -Y" in p.stderr, "-R without -2: exit %d" % p.returncode)

# -O: only the protocols named are expanded; the others keep their top line. Ours is our
# -V with the other protocols' lines dropped, and the expanded protocols are tshark's.
def expanded(text):
    """Per frame, the top lines that have lines under them."""
    frames, tops, cur = [], set(), None
    for line in text.splitlines():
        if line.startswith("Frame ") and cur is not None:
            frames.append(tops)
            tops = set()
        if line and not line.startswith(" "):
            cur = line.split(",")[0]
        elif line.startswith(" "):
            tops.add(cur)
    frames.append(tops)
    return frames


for path in (SAMPLE, CM):
    o = rs(["read", "-r", path, "-O", "infiniband,udp", "-c", "30"]).stdout.decode()
    v = rs(["read", "-r", path, "-V", "-c", "30"]).stdout.decode()
    keep, kept = True, []
    for line in v.splitlines():
        if line and not line.startswith(" "):
            keep = line.split(",")[0] in ("InfiniBand", "User Datagram Protocol")
            kept.append(line)
        elif not line or keep:
            kept.append(line)
    t.check(o.splitlines() == kept, "%s: -O is not -V with the others folded"
            % os.path.basename(path))
    if path == SAMPLE:
        ts = tshark(["-r", path, "-O", "infiniband,udp", "-c", "30"])
        t.check(expanded(o) == expanded(ts), "%s: -O expands other protocols than tshark's"
                % os.path.basename(path))

# -S ends each frame's bytes (and tree): -x output is tshark's, byte for byte.
t.check(rs(["read", "-r", SAMPLE, "-x", "-S", "-- next --"]).stdout.decode() ==
        tshark(["-r", SAMPLE, "-x", "-S", "-- next --"]), "-x -S differs from tshark's")
v = rs(["read", "-r", SAMPLE, "-V"]).stdout.decode()
t.check(rs(["read", "-r", SAMPLE, "-V", "-S", "==="]).stdout.decode() ==
        re.sub(r"\n\n(?=Frame \d|\Z)", "\n===\n", v),
        "-V -S does not end each tree with the separator")

# -G: our protocols as tshark lists them; each field's type and parent as tshark's for the
# fields both know; value names in tshark's layout.
ours = rs(["read", "-G", "protocols"]).stdout.decode().splitlines()
theirs = set(tshark(["-G", "protocols"]).splitlines())
shared = [line for line in ours if line.split("\t")[-1] in
          {x.split("\t")[-1] for x in theirs}]
t.check(len(shared) >= 11 and all(line in theirs for line in shared),
        "-G protocols: %s not tshark's" % [x for x in shared if x not in theirs])
t.check(rs(["-G", "protocols"]).stdout.decode().splitlines() == ours,
        "roceshark -G protocols is not read -G protocols")
fields = rs(["read", "-G", "fields"]).stdout
t.check(fields.startswith(b"P\tFrame\tframe\n") and rs(["-G"]).stdout == fields and
        rs(["read", "-G"]).stdout == fields, "-G alone is not -G fields, as tshark's")
# -G help (or ?) lists the reports on stdout and exits 0, as tshark's; an unknown one exits 1
got = rs(["-G", "help"])
t.check(got.returncode == 0 and b"\n  -G decodes " in got.stdout and
        b"\n  -G currentprefs " in got.stdout and rs(["read", "-G", "?"]).stdout == got.stdout,
        "-G help: exit %d, %r" % (got.returncode, got.stdout[:200]))
got = rs(["-G", "nosuch"])
t.check(got.returncode == 1 and got.stdout == b"" and got.stderr.count(b"\n") == 1,
        "-G nosuch: exit %d, %r" % (got.returncode, got.stderr))
ours = [x.split("\t") for x in rs(["read", "-G", "fields"]).stdout.decode().splitlines()]
# tshark's glossary is 19 MB: read here, not kept by the reference cache, and once (the
# sanitized pass would only read it again).
glossary = "" if SAN else subprocess.run(["tshark", "-G", "fields"], capture_output=True,
                                         text=True).stdout
theirs = {x.split("\t")[2]: x.split("\t") for x in glossary.splitlines()
          if x.startswith("F\t")}
t.check(all(x[0] in ("P", "F") and len(x) == (3 if x[0] == "P" else 8) for x in ours),
        "-G fields: a line is not P or F with tshark's columns")
both = [x for x in ours if x[0] == "F" and x[2] in theirs]
same = [x for x in both if x[3] == theirs[x[2]][3] and x[4] == theirs[x[2]][4]]
t.check(SAN or (len(both) >= 150 and len(same) >= 0.9 * len(both)),
        "-G fields: %d of %d shared fields have tshark's type and parent" % (len(same),
                                                                              len(both)))
# tshark's values glossary is 89 MB; these are its lines for ip.dsfield.ecn (4.0.17).
vals = rs(["read", "-G", "values"]).stdout.decode().splitlines()
ecn = ["V\tip.dsfield.ecn\t0\tNot ECN-Capable Transport",
       "V\tip.dsfield.ecn\t1\tECN-Capable Transport codepoint '01'",
       "V\tip.dsfield.ecn\t2\tECN-Capable Transport codepoint '10'",
       "V\tip.dsfield.ecn\t3\tCongestion Experienced"]
t.check([x for x in vals if x.startswith("V\tip.dsfield.ecn\t")] == ecn,
        "-G values: ip.dsfield.ecn is not as tshark lists it")
# The trees name an Ethertype, an IP protocol and a TCP option kind as tshark's value tables
# do (value_tables.c): Slow Protocols (0x8809), OSPF IGP (89) and Record Boundaries (22),
# which our tables once left "Unknown".
t.check("V\teth.type\t0x8809\tSlow Protocols" in vals and
        "V\tipv6.opt.type\t194\tJumbo Payload" in vals,
        "-G values: eth.type or ipv6.opt.type is not as tshark lists it")
# -G defaultprefs and currentprefs: tshark 4.0.17's file with the preferences -o takes, a
# value -o gives written as tshark writes a changed one (uncommented, in its spelling).
prefs = rs(["read", "-G", "defaultprefs"]).stdout.decode()
t.check(prefs.startswith("# Configuration file for Wireshark 4.0.17.\n") and
        "\n####### Protocols ########\n\n# Attempt to detect excessive rate of ARP requests\n"
        in prefs and "\n\n# The UDP port for RROCE messages (default 4791)\n"
        "# A decimal number\n#infiniband.rroce.port: 4791\n" in prefs and
        "#tcp.relative_sequence_numbers: TRUE\n" in prefs,
        "-G defaultprefs: infiniband.rroce.port is not as tshark writes it")
t.check(rs(["read", "-G", "currentprefs"]).stdout.decode() == prefs,
        "-G currentprefs without -o is not -G defaultprefs")
got = rs(["read", "-G", "currentprefs", "-o", "infiniband.rroce.port:04792", "-o",
          "tcp.relative_sequence_numbers:false", "-o", "gui.column.format:\"No.\",\"%m\","
          "\"Src\",\"%s\"", "-o", "eth.padding:never"])
cur = got.stdout.decode()
t.check(got.returncode == 0 and got.stderr == b"", "-G currentprefs -o: said %r" % got.stderr)
t.check("\ninfiniband.rroce.port: 4792\n" in cur and
        "\ntcp.relative_sequence_numbers: FALSE\n" in cur and
        "\neth.padding: Never\n" in cur and
        "\ngui.column.hidden: \n\n# Packet list column format\n# Each pair of strings "
        "consists of a column title and its format\ngui.column.format: \n\t\"No.\", \"%m\",\n"
        "\t\"Src\", \"%s\"\n" in cur and "\n#infiniband.rroce.port" not in cur and
        "\n#ip.check_checksum: FALSE\n" in cur,
        "-G currentprefs: the values -o gave are not as tshark writes them")
# -G decodes and dissector-tables: tshark's lines for what we decode (ERF, RoCE, ...).
decodes = rs(["read", "-G", "decodes"]).stdout.decode().splitlines()
t.check({"wtap_encap\t98\terf", "udp.port\t4791\tinfiniband",
         "ethertype\t35093\tinfiniband"} <= set(decodes) and
        (SAN or set(decodes) <= set(tshark(["-G", "decodes"]).splitlines())),
        "-G decodes: not tshark's lines for what we decode")
t.check("ethertype\tEthertype\tFT_UINT16\tBASE_HEX\tEthertype\tDecode As supported" in
        rs(["read", "-G", "dissector-tables"]).stdout.decode().splitlines(),
        "-G dissector-tables: ethertype is not as tshark lists it")
named = os.path.join(out, "named_values.pcap")
mac = bytes.fromhex("020000000001020000000002")
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28, 1, 0, 64, 89, 0, bytes(4), bytes(4))
tcp = struct.pack("!HHIIBBHHH", 1, 2, 0, 0, 7 << 4, 0x02, 1024, 0, 0) + bytes([22, 2, 1, 0,
                                                                                   0, 0, 0, 0])
ip_tcp = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 48, 1, 0, 64, 6, 0, bytes(4), bytes(4)) + tcp
frames = [mac + b"\x88\x09" + bytes(46), mac + b"\x08\x00" + ip + bytes(18),
          mac + b"\x08\x00" + ip_tcp]
with open(named, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for n, fr in enumerate(frames):
        f.write(struct.pack("<IIII", n, 0, len(fr), len(fr)) + fr)
lines = re.compile(r"^ +(?:Type|Protocol|Kind): .*$", re.M)
t.check(lines.findall(rs(["read", "-r", named, "-V"]).stdout.decode()) ==
        lines.findall(tshark(["-r", named, "-V"]))
        and "Record Boundaries (22)" in rs(["read", "-r", named, "-V"]).stdout.decode(),
        "-V: a value is named otherwise than in tshark's tree")
p = rs(["read", "-G", "everything"])
t.check(p.returncode == 1 and p.stderr.count(b"\n") == 1, "-G everything: exit %d"
        % p.returncode)

# --disable-protocol infiniband: RoCE stays UDP, as tshark leaves it; iWARP likewise TCP.
cols = ["-T", "fields", "-e", "frame.number", "-e", "_ws.col.Protocol"]
t.check(rs(["read", "-r", SAMPLE, "--disable-protocol", "infiniband"] + cols).stdout.decode()
        == tshark(["-r", SAMPLE, "--disable-protocol", "infiniband"] + cols),
        "--disable-protocol infiniband: the Protocol column differs from tshark's")
p = rs(["read", "-r", SAMPLE, "--disable-protocol", "infiniband", "--enable-protocol",
        "infiniband", "-c", "1"])
t.check(b"RRoCE" in p.stdout, "--enable-protocol does not undo --disable-protocol")
p = rs(["read", "-r", SAMPLE, "--disable-protocol", "udp"])
t.check(p.returncode == 1 and b"can be turned off" in p.stderr,
        "--disable-protocol udp: exit %d" % p.returncode)


# tshark's other options: -T tabs, -t adoy/udoy print as tshark's; those that change nothing
# here run as tshark runs them (some with a one-line notice); tshark's bad values exit 1 as
# tshark's do; -o takes tshark's preferences of our protocols.
base = rs(["read", "-r", UD, "--compat", "tshark"]).stdout
for opts in (["-T", "tabs"], ["-t", "adoy"], ["-t", "udoy"],
             ["-o", "tcp.relative_sequence_numbers:FALSE"]):
    got = rs(["read", "-r", UD, "--compat", "tshark"] + opts)
    t.check(got.returncode == 0 and got.stdout.decode() == tshark(["-r", UD] + opts),
            "read %s: not tshark's lines" % " ".join(opts))
hosts = os.path.join(out, "hosts")
with open(hosts, "w") as f:
    f.write("# a comment\n10.1.16.62 client\n")
same = (["-u", "s"], ["-H", hosts], ["-C", "Default"], ["-K", "/dev/null"],
        ["-X", "lua_script:none.lua"], ["-W", "n"], ["-I"], ["--color"],
        ["--log-level", "warning"], ["--export-objects", "http," + out],
        ["--disable-heuristic", "rpcrdma_infiniband"], ["-o", "tcp.check_checksum:FALSE"],
        ["-o", "infiniband.rroce.port:4791"], ["-o", "gui.column.format:\"No.\",\"%m\""],
        ["-o", "vlan.qinq_ethertype:9100"], ["-o", "arp.detect_storm_period: 0100"],
        ["-o", "eth.padding:bogus"], ["-o", "gui.column.format:\"a\" ,\"%Cus:ip.src:0:R\","])
for opts in same:
    got = rs(["read", "-r", UD, "--compat", "tshark"] + opts)
    t.check(got.returncode == 0 and got.stdout == base and got.stderr.count(b"\n") <= 1,
            "read %s: exit %d, %r" % (" ".join(opts), got.returncode, got.stderr[:200]))
got = rs(["read", "-r", UD, "-Q"])
t.check(got.returncode == 0 and got.stdout == b"" and got.stderr == b"", "read -Q printed")
# -H FILE with no entry in it (tshark: "Can't read host entries")
for opts in (["-u", "x"], ["-H", "/nonexistent"], ["-H", "/dev/null"], ["-C", "nosuchprofile"],
             ["--log-level", "bogus"], ["-o", "tcp.nosuchpref:1"],
             # tshark's "Invalid -o flag": a number not whole in its base or past 32 bits, a
             # column list with an odd item, an empty title, an unknown format, a blank after
             ["-o", "arp.detect_storm_period:+5"], ["-o", "vlan.qinq_ethertype:1ffffffff"],
             ["-o", "infiniband.rroce.port:0x12b7"], ["-o", "gui.column.format:\"a\",\"%m\",\"b\""],
             ["-o", "gui.column.format:\"\",\"%m\""], ["-o", "gui.column.format:\"a\",\"%zz\""],
             ["-o", "gui.column.format:\"a\",\"%m\" "]):
    want = t.run(["tshark", "-r", UD] + opts, check_rc=False).returncode
    got = rs(["read", "-r", UD] + opts)
    t.check(got.returncode == want == 1 and got.stderr.count(b"\n") == 1 and
            got.stderr.startswith(b"roceshark: "),
            "read %s: exit %d (tshark %d) %r" % (" ".join(opts), got.returncode, want,
                                                got.stderr))
saved = os.path.join(out, "group.pcap")
old_mask = os.umask(0o077)
rs(["read", "-r", UD, "-w", saved, "-g"])
os.umask(old_mask)
t.check(os.stat(saved).st_mode & 0o777 == 0o640, "-g: mode %o" % os.stat(saved).st_mode)
# Every subcommand of `roceshark --help` answers -h and --help with its usage, and an
# unknown option or a missing value with one line naming it.
main = rs(["--help"]).stdout.decode()
commands = sorted(set(re.findall(r"^  ([a-z]+) ", main.split("\noptions:")[0], re.M)))
t.check(len(commands) >= 12, "roceshark --help lists %s" % commands)
built_out = {"run": "verbs", "tui": "tui"}
for cmd in commands:
    probe = rs([cmd, "--help"])
    if probe.returncode != 0 and b"built without" in probe.stderr:
        print("skipped: %s (built without %s)" % (cmd, built_out.get(cmd, "it")))
        continue
    for h in ("-h", "--help"):
        p = rs([cmd, h])
        t.check(p.returncode == 0 and p.stdout.startswith(b"usage: roceshark " + cmd.encode())
                and p.stderr == b"", "%s %s: exit %d %r" % (cmd, h, p.returncode, p.stdout[:60]))
    for bad, what in ((["--x"], "unknown option --x"), (["--x=1"], "unknown option --x"),
                      (["-Z"], "unknown option -Z")):
        args = [cmd] + (["psn"] if cmd == "plot" else ["write_bw"] if cmd == "perf" else [])
        p = rs(args + bad)
        want = "roceshark: %s: %s (try 'roceshark %s -h')\n" % (cmd, what, cmd)
        t.check(p.returncode == 1 and p.stderr.decode() == want and p.stdout == b"",
                "%s %s: exit %d %r" % (cmd, bad[0], p.returncode, p.stderr))
for args, opt in ((["read", "-r"], "-r"), (["plot", "psn", "--qp"], "--qp"),
                  (["capture", "-w"], "-w"), (["perf", "write_bw", "-s"], "-s")):
    p = rs(args)
    want = "roceshark: %s: option %s needs a value (try 'roceshark %s -h')\n" % (args[0], opt,
                                                                                  args[0])
    t.check(p.returncode == 1 and p.stderr.decode() == want, "%s: %r" % (" ".join(args),
                                                                          p.stderr))

t.finish("read_options")
