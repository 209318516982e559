#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh - installs what is missing, builds, and runs roceshark on the bundled sample capture.
# The build shows its progress (a line that counts up on a terminal, a line per tenth
# otherwise); its full output is in build/build.log, and its errors are shown when it fails.
set -eu
cd "$(dirname "$0")/.."
./scripts/deps.sh
mkdir -p build
log=build/build.log
echo "== configuring (build/)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$log" 2>&1 || { cat "$log"; exit 1; }
cmake --build build -j"$(nproc)" >>"$log" 2>&1 &
pid=$!
start=$(date +%s)
shown=""
while kill -0 "$pid" 2>/dev/null; do
    pct=$(grep -o '^\[ *[0-9]*%\]' "$log" | tail -n 1 | tr -dc '0-9')
    if [ -t 1 ]; then
        printf '\r== building: %3s%%, %ss' "${pct:-0}" $(($(date +%s) - start))
    elif [ -n "$pct" ] && [ "${pct%?}" != "$shown" ]; then
        shown=${pct%?}
        echo "== building: $pct%, $(($(date +%s) - start))s"
    fi
    sleep 1
done
if ! wait "$pid"; then
    [ -t 1 ] && echo
    grep -E -B2 -A8 'error|Error' "$log" | tail -n 60
    echo "== the build failed; all of its output is in $log"
    exit 1
fi
[ -t 1 ] && printf '\r== built in %ss%20s\n' $(($(date +%s) - start)) ""
echo "== roceshark read -r samples/rdma_demo.pcap -z conv,qp"
./build/roceshark read -r samples/rdma_demo.pcap -z conv,qp
echo "== build/roceshark is roceshark; for the README's examples: export PATH=\$PWD/build:\$PATH"
