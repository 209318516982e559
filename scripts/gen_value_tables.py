#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_value_tables.py: writes dissectors/net/value_tables.c again from the value strings
the installed tshark lists (`tshark -G values`) for the fields whose values any frame may
carry (an Ethertype, an IP protocol, a TCP option kind, ...): the trees, -G values and the
filters name a value as tshark does, in its order. Each table is the first one tshark
lists under its field. usage: scripts/gen_value_tables.py  (from the source tree's top)"""
import subprocess
import sys

OUT = "dissectors/net/value_tables.c"
# (the field tshark lists it under, the C array, what it names)
TABLES = [
    ("eth.type", "rs_etype_vals", "Ethertypes"),
    ("ip.proto", "rs_ipproto_vals", "IP protocols (IPv4's Protocol, IPv6's Next Header)"),
    ("ipv6.opt.type", "rs_ipv6_opt_type_vals", "IPv6 hop-by-hop option types"),
    ("tcp.option_kind", "rs_tcp_option_kind_vals", "TCP option kinds"),
    ("icmpv6.type", "rs_icmpv6_type_vals", "ICMPv6 message types"),
    ("arp.hw.type", "rs_arp_hw_type_vals", "ARP hardware types"),
    ("arp.opcode", "rs_arp_opcode_vals", "ARP opcodes"),
]


def first_tables(text):
    """{abbrev: [(value, name), ...]}: each field's first table of V lines."""
    tables, done, last = {}, set(), None
    for line in text.splitlines():
        cols = line.split("\t")
        if cols[0] != "V" or len(cols) < 4:
            last = None
            continue
        abbrev = cols[1]
        if abbrev != last and abbrev in tables:
            done.add(abbrev)
        last = abbrev
        if abbrev in done:
            continue
        rows = tables.setdefault(abbrev, [])
        if any(v == cols[2] for v, _ in rows):
            done.add(abbrev)
            continue
        rows.append((cols[2], cols[3]))
    return tables


def c_string(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def main():
    text = subprocess.run(["tshark", "-G", "values"], capture_output=True, text=True,
                          errors="replace", check=True).stdout
    version = subprocess.run(["tshark", "--version"], capture_output=True, text=True,
                             check=True).stdout.split()[2]
    tables = first_tables(text)
    out = ["/* SPDX-License-Identifier: GPL-2.0-or-later */",
           "/*",
           " * value_tables.c - the names Wireshark gives the values of fields any frame may",
           " * carry, as tshark %s lists them (-G values), in its order: the trees," % version,
           " * -G values and the filters name a value as tshark does. Written by",
           " * scripts/gen_value_tables.py; do not edit.",
           " */",
           "#include <roceshark/dissectors/icmp.h>",
           "",
           '#include "net/value_tables.h"',
           ""]
    for abbrev, array, what in TABLES:
        rows = tables.get(abbrev)
        if not rows:
            sys.exit("gen_value_tables.py: tshark lists no values for %s" % abbrev)
        out.append("/* %s (%s, %d) */" % (what, abbrev, len(rows)))
        out.append("const struct rs_value_string %s[] = {" % array)
        for value, name in rows:
            out.append("    {%s, %s}," % (value, c_string(name)))
        out.append("    {0, NULL},")
        out.append("};")
        out.append("")
    with open(OUT, "w") as f:
        f.write("\n".join(out[:-1]) + "\n")
    print("%s: %d tables, %d values" % (OUT, len(TABLES),
                                        sum(len(tables[a]) for a, _, _ in TABLES)))


if __name__ == "__main__":
    main()
