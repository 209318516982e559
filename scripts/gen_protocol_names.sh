#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gen_protocol_names.sh - writes dissectors/filter/filter_protocol_names.c again from the
# protocols the installed tshark knows (the display filter accepts each as a term).
# usage: scripts/gen_protocol_names.sh   (from the source tree's top)
set -eu
out=dissectors/filter/filter_protocol_names.c
tshark -G protocols 2>/dev/null | cut -f3 | LC_ALL=C sort -u |
    python3 scripts/write_name_table.py "$out" protocol_names
mv "$out.new" "$out"
echo "$out: $(grep -o "\"[^\"]*\"," "$out" | wc -l) names"
