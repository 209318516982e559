#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_glossary_tables.py: writes the tables of the -G reports that describe us in tshark's
own words from what the installed tshark prints:

- cli/read_tshark_prefs_table.c: tshark's preferences of the protocols read dissects, the
  two column preferences and the name resolution ones (`tshark -G defaultprefs`): their comments, defaults and sections,
  in tshark's order, and the column formats tshark takes (`-G column-formats`). read
  accepts them with -o and lists them with -G defaultprefs and -G currentprefs.
- dissectors/print/glossary_tables.c: the column formats of the columns read prints
  (`-G column-formats`), the dissector tables read dispatches on (`-G dissector-tables`) and
  their entries that read decodes as Wireshark does (`-G decodes`), in tshark's order.

What is selected is declared here (PROTOCOLS, COLUMN_FORMATS, DECODES); what is written is
tshark's text. The script stops when tshark lacks something declared.
usage: scripts/gen_glossary_tables.py  (from the source tree's top)"""
import re
import subprocess
import sys

PREFS_OUT = "cli/read_tshark_prefs_table.c"
TABLES_OUT = "dissectors/print/glossary_tables.c"

# The protocols read dissects (-G protocols, less the ones it only names by port or
# Ethertype): each preference tshark has for them.
PROTOCOLS = ["frame", "erf", "eth", "vlan", "ieee8021ad", "arp", "ip", "ipv6", "udp", "tcp",
             "icmp", "icmpv6", "infiniband", "iwarp_mpa", "iwarp_ddp_rdmap", "data", "llc"]
# And the preferences of the summary's columns and of name resolution (nameres.mac_name and
# transport_name are -N m and t), which -o accepts too.
PREF_MODULES = ["nameres"]
PREF_NAMES = ["gui.column.hidden", "gui.column.format"]

# The formats of the columns read prints (_ws.col.*): No., Time, Source, Destination,
# Protocol, Length, Info.
COLUMN_FORMATS = ["%m", "%t", "%s", "%d", "%p", "%L", "%i"]

# (tshark's dissector table, the value) read hands to the protocol tshark names, as
# Wireshark does. What read does otherwise is left out: ERF's colour Ethernet types 11 and
# 20 (read takes 10 and 22 for Ethernet), IP in IP (ip.proto 4, 41, 143), RARP, 0x6558
# and 0x8870 Ethernet.
DECODES = [
    ("wtap_encap", 1),       # LINKTYPE_ETHERNET: Ethernet
    ("wtap_encap", 98),      # LINKTYPE_ERF: ERF
    ("wtap_encap", 129),     # LINKTYPE_IPV4: IPv4
    ("wtap_encap", 130),     # LINKTYPE_IPV6: IPv6
    ("wtap_encap", 150),     # LINKTYPE_INFINIBAND: InfiniBand's LRH
    ("erf.types.type", 2),   # ETH
    ("erf.types.type", 16),  # DSM_COLOR_ETH
    ("erf.types.type", 21),  # INFINIBAND
    ("ethertype", 0x0800),   # IPv4
    ("ethertype", 0x0806),   # ARP
    ("ethertype", 0x8100),   # 802.1Q
    ("ethertype", 0x86dd),   # IPv6
    ("ethertype", 0x88a8),   # 802.1ad
    ("ethertype", 0x8915),   # RoCEv1: the GRH, then InfiniBand's transport
    ("ethertype", 0x9100),   # QinQ's old tag
    ("ip.proto", 0),         # IPv6 hop-by-hop options
    ("ip.proto", 1),         # ICMP
    ("ip.proto", 6),         # TCP
    ("ip.proto", 17),        # UDP
    ("ip.proto", 58),        # ICMPv6
    ("udp.port", 4791),      # RoCEv2
    ("tcp.option", 2),       # MSS
    ("tcp.option", 3),       # window scale
    ("tcp.option", 4),       # SACK permitted
    ("tcp.option", 5),       # SACK
    ("tcp.option", 8),       # timestamps
]

PREF_LINE = re.compile(r"^#?([A-Za-z0-9_.-]+): ?(.*)$")


def tshark(report):
    return subprocess.run(["tshark", "-G", report], capture_output=True, text=True,
                          errors="replace", check=True).stdout


def c_string(s):
    s = s.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("??", "?\\?")
    return '"%s"' % s


def c_text(s, indent):
    """s as C string literals, one a line of it."""
    lines = s.splitlines(keepends=True) or [""]
    return ("\n" + " " * indent).join(c_string(line).replace("\n", "\\n") for line in lines)


def pref_kind(comment, value):
    if "\n" in value:
        return "READ_PREF_LIST"
    last = comment.splitlines()[-1] if comment else ""
    return {"# TRUE or FALSE (case-insensitive)": "READ_PREF_BOOL",
            "# A decimal number": "READ_PREF_DECIMAL",
            "# A hexadecimal number": "READ_PREF_HEX"}.get(last, "READ_PREF_TEXT")


def parse_prefs(text):
    """(the file's head, [(section, name, value, comment), ...]) of -G defaultprefs: value
    is what follows "name: ", with the continuation lines of a list after a newline (without
    their '#'), comment the lines before."""
    blocks = text.split("\n\n")
    head, section, prefs = blocks[0] + "\n", None, []
    for block in blocks[1:]:
        lines = block.split("\n")
        if lines[0].startswith("#######"):
            section = lines[0].strip("# ")
            continue
        at = next((i for i, line in enumerate(lines) if not line.startswith("# ")), None)
        m = PREF_LINE.match(lines[at]) if at is not None else None
        if m is None:
            sys.exit("gen_glossary_tables.py: not a preference: %r" % block[:80])
        value = m.group(2) + "".join("\n" + line[1:] for line in lines[at + 1:] if line)
        comment = "".join(line + "\n" for line in lines[:at])
        prefs.append((section, m.group(1), value, comment))
    return head, prefs


def write_prefs(version):
    head, prefs = parse_prefs(tshark("defaultprefs"))
    ours = [p for p in prefs if p[1].split(".")[0] in PROTOCOLS + PREF_MODULES or
            p[1] in PREF_NAMES]
    missing = set(PREF_NAMES) - {p[1] for p in ours}
    if missing:
        sys.exit("gen_glossary_tables.py: tshark has no preference %s" % ", ".join(missing))
    out = ["/* SPDX-License-Identifier: GPL-2.0-or-later */",
           "/*",
           " * read_tshark_prefs_table.c - tshark %s's preferences of the protocols read" % version,
           " * dissects, of the summary's columns and of name resolution, as",
           " * `tshark -G defaultprefs` writes them:",
           " * their sections, comments and defaults, in its order, and the column formats",
           " * tshark takes (-G column-formats). -o accepts them",
           " * (read_tshark_compat.c); -G defaultprefs and currentprefs list them",
           " * (read_tshark_prefs.c). Written by scripts/gen_glossary_tables.py; do not edit.",
           " */",
           '#include "read_int.h"',
           "",
           "const char read_tshark_prefs_head[] =",
           "    " + c_text(head, 4) + ";",
           "",
           "const struct read_tshark_pref read_tshark_prefs[] = {"]
    for section, name, value, comment in ours:
        out.append("    {%s, %s, %s, %s," % (c_string(section), c_string(name),
                                              pref_kind(comment, value),
                                              c_text(value, 5)))
        out.append("     " + c_text(comment, 5) + "},")
    codes = [line.split("\t")[0] for line in tshark("column-formats").splitlines()
             if line.startswith("%")]
    out += ["};",
            "",
            "/* The column formats -o gui.column.format takes (-G column-formats). */",
            "const char *const read_tshark_column_codes[] = {"]
    out += ["    %s," % c_string(code) for code in codes]
    out += ["    NULL,",
            "};",
            "",
            "const size_t read_tshark_n_prefs = sizeof(read_tshark_prefs) / "
            "sizeof(read_tshark_prefs[0]);",
            "",
            "_Static_assert(sizeof(read_tshark_prefs) / sizeof(read_tshark_prefs[0]) <= "
            "READ_TSHARK_PREFS_MAX,",
            '               "READ_TSHARK_PREFS_MAX holds every preference");']
    with open(PREFS_OUT, "w") as f:
        f.write("\n".join(out) + "\n")
    print("%s: %d preferences, %d column formats" % (PREFS_OUT, len(ours), len(codes)))


def write_tables(version):
    lines = tshark("column-formats").splitlines()
    trailer = lines[lines.index(""):]   # its example, which is our columns
    formats = [line for line in lines if line.split("\t")[0] in COLUMN_FORMATS]
    if len(formats) != len(COLUMN_FORMATS):
        sys.exit("gen_glossary_tables.py: tshark lists %d of our %d column formats" %
                 (len(formats), len(COLUMN_FORMATS)))
    wanted = {(t, str(v)) for t, v in DECODES}
    decodes = [line for line in tshark("decodes").splitlines()
               if tuple(line.split("\t")[:2]) in wanted]
    found = {tuple(line.split("\t")[:2]) for line in decodes}
    if found != wanted or len(decodes) != len(wanted):
        sys.exit("gen_glossary_tables.py: tshark decodes none or several of %s" %
                 sorted(wanted ^ found))
    tables = {t for t, _ in DECODES}
    dissector_tables = [line for line in tshark("dissector-tables").splitlines()
                        if line.split("\t")[0] in tables]
    if len(dissector_tables) != len(tables):
        sys.exit("gen_glossary_tables.py: tshark lists %d of the %d dissector tables" %
                 (len(dissector_tables), len(tables)))
    out = ["/* SPDX-License-Identifier: GPL-2.0-or-later */",
           "/*",
           " * glossary_tables.c - the lines of tshark %s's -G column-formats," % version,
           " * dissector-tables and decodes that describe read, in tshark's order: the formats",
           " * of the columns it prints, the dissector tables it dispatches on and their entries",
           " * it decodes as Wireshark does. Written by scripts/gen_glossary_tables.py; do not",
           " * edit.",
           " */",
           "#include \"print/glossary_int.h\"",
           ""]
    for array, lines in (("rs_glossary_column_formats", formats + trailer),
                         ("rs_glossary_dissector_tables", dissector_tables),
                         ("rs_glossary_decodes", decodes)):
        out.append("const char *const %s[] = {" % array)
        out += ["    %s," % c_string(line + "\n").replace("\n", "\\n") for line in lines]
        out += ["    NULL,", "};", ""]
    with open(TABLES_OUT, "w") as f:
        f.write("\n".join(out[:-1]) + "\n")
    print("%s: %d column formats, %d dissector tables, %d decodes" %
          (TABLES_OUT, len(formats), len(dissector_tables), len(decodes)))


def main():
    version = subprocess.run(["tshark", "--version"], capture_output=True, text=True,
                             check=True).stdout.split()[2]
    write_prefs(version)
    write_tables(version)


if __name__ == "__main__":
    main()
