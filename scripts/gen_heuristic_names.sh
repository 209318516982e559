#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gen_heuristic_names.sh - writes cli/read_heuristic_names.c again from the heuristic
# dissectors the installed tshark registers: the names --disable-heuristic and
# --enable-heuristic take. tshark lists the heuristics (-G heuristic-decodes) by protocol,
# not by these names, so they are read where each is registered: the fourth argument of
# libwireshark's heur_dissector_add(), under gdb, while tshark starts.
# usage: scripts/gen_heuristic_names.sh   (from the source tree's top; needs gdb, x86-64)
set -eu
out=cli/read_heuristic_names.c
script=$(mktemp)
trap 'rm -f "$script"' EXIT
cat > "$script" <<'GDB'
set breakpoint pending on
set pagination off
break heur_dissector_add
commands
silent
printf "HEUR\t%s\n", (char *)$rcx
cont
end
run
GDB
gdb -batch -x "$script" --args tshark -G heuristic-decodes 2>/dev/null | sed -n 's/^HEUR\t//p' |
    LC_ALL=C sort -u | python3 scripts/write_name_table.py "$out" heuristic_names 100
mv "$out.new" "$out"
echo "$out: $(grep -o "\"[^\"]*\"," "$out" | wc -l) names"
