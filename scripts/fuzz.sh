#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz.sh [SECONDS [TARGET...]] - builds the coverage-guided fuzz targets with clang and
# libFuzzer (ASan+UBSan, build-fuzz/), runs each for SECONDS (60 by default) from its corpus
# (tests/fuzz/corpus/TARGET/) and seeds made from the repository (tests/fuzz/make_seeds.py),
# merges what it found into the corpus (-merge=1, which keeps it small), and prints per
# target the runs, runs per second and edges covered. A crash leaves its input in
# build-fuzz/crashes/ and makes the exit status 1: add it to the corpus under a name that
# says what it found, with the fix. Targets: decode filter spec script reader (default: all).
set -u
cd "$(dirname "$0")/.."
seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-decode filter spec script reader}
out=build-fuzz
CC=clang cmake -S . -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DROCESHARK_LIBFUZZER=ON \
    -DROCESHARK_WIRESHARK_PLUGIN=OFF >/dev/null || exit 1
for t in $targets; do
    cmake --build "$out" -j"$(nproc)" --target "${t}_fuzzer" >/dev/null || exit 1
done
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
python3 tests/fuzz/make_seeds.py "$seeds" || exit 1
mkdir -p "$out/crashes"
status=0
printf '%-8s %6s %10s %8s %7s %7s  %s\n' target seconds runs runs/s edges corpus crashes
for t in $targets; do
    found="$out/found-$t"
    rm -rf "$found"
    mkdir -p "$found" "tests/fuzz/corpus/$t"
    log="$out/fuzz-$t.log"
    "$out/fuzzers/${t}_fuzzer" -max_total_time="$seconds" -print_final_stats=1 \
        -rss_limit_mb=4096 -artifact_prefix="$out/crashes/$t-" \
        "$found" "tests/fuzz/corpus/$t" "$seeds/$t" >"$log" 2>&1
    rc=$?
    "$out/fuzzers/${t}_fuzzer" -merge=1 -rss_limit_mb=4096 "tests/fuzz/corpus/$t" "$found" \
        >"$out/merge-$t.log" 2>&1
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    edges=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    crashes=$(ls "$out/crashes" | grep -c "^$t-")
    [ "$rc" -ne 0 ] && status=1
    printf '%-8s %6s %10s %8s %7s %7s  %s\n' "$t" "$seconds" "${runs:-?}" "${rate:-?}" \
        "${edges:-?}" "$(ls "tests/fuzz/corpus/$t" | wc -l)" "$crashes"
done
exit $status
