#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""write_name_table.py FILE ARRAY [MIN]: writes FILE again with the names on standard input
(one a line, sorted) as the body of its `static const char *const ARRAY[] = {...};`, 94
columns at most; fails when fewer than MIN names came. gen_protocol_names.sh and
gen_heuristic_names.sh write their tables with it."""
import sys


def main():
    path, array = sys.argv[1], sys.argv[2]
    least = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    names = [line.strip() for line in sys.stdin if line.strip()]
    if len(names) < least:
        sys.exit("write_name_table.py: %s: only %d names read" % (path, len(names)))
    opening = "static const char *const %s[] = {" % array
    head, tail = open(path).read().split(opening)
    tail = tail.split("};", 1)[1]
    lines, line = [], "   "
    for n in names:
        item = " \"%s\"," % n
        if len(line) + len(item) > 94:
            lines.append(line)
            line = "   "
        line += item
    lines.append(line)
    with open(path + ".new", "w") as f:
        f.write(head + opening + "\n" + "\n".join(lines) + "\n};" + tail)


if __name__ == "__main__":
    main()
