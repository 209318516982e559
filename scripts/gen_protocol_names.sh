#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gen_protocol_names.sh - writes dissectors/filter/filter_protocol_names.c again from the
# protocols the installed tshark knows (the display filter accepts each as a term).
# usage: scripts/gen_protocol_names.sh   (from the source tree's top)
set -eu
out=dissectors/filter/filter_protocol_names.c
tshark -G protocols 2>/dev/null | cut -f3 | LC_ALL=C sort -u | python3 -c '
import sys
names = [l.strip() for l in sys.stdin if l.strip()]
head, tail = open(sys.argv[1]).read().split("static const char *const protocol_names[] = {")
tail = tail.split("};", 1)[1]
lines, line = [], "   "
for n in names:
    item = " \"%s\"," % n
    if len(line) + len(item) > 94:
        lines.append(line)
        line = "   "
    line += item
lines.append(line)
sys.stdout.write(head + "static const char *const protocol_names[] = {\n" + "\n".join(lines) +
                 "\n};" + tail)
' "$out" > "$out.new"
mv "$out.new" "$out"
echo "$out: $(grep -o "\"[^\"]*\"," "$out" | wc -l) names"
