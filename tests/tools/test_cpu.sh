#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test_cpu.sh BUILD OUT [CTEST_REGEX]: runs each test of BUILD (those scripts/test.sh runs:
# not labelled long) alone, one after the other, and writes a line per test to OUT: its
# name, wall seconds, user and system seconds of everything it ran and waited for, and
# its exit status. The suite's time on 2 cores is bound by processor time, not by any one
# test's wall time, and a loaded machine stretches walls but hardly the processor time:
# this says where the suite's time goes. tshark's answers go to a fresh folder unless
# ROCESHARK_TSHARK_CACHE names one (a first run, as in CI, pays for them).
# Run it inside `unshare -n sh -c 'ip link set lo up && ...'`, as the suite's tests are.
set -u
[ $# -ge 2 ] || { echo "usage: tests/tools/test_cpu.sh BUILD OUT [CTEST_REGEX]" >&2; exit 1; }
build=$1
out=$2
regex=${3:-.}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ROCESHARK_TSHARK_CACHE="${ROCESHARK_TSHARK_CACHE:-$work/tshark-cache}"
: >"$out"
for t in $(ctest --test-dir "$build" -N -LE long -R "$regex" | awk '/Test +#/ {print $3}'); do
    /usr/bin/time -f "%e %U %S" -o "$work/time" \
        ctest --test-dir "$build" -R "^$t\$" >"$work/log" 2>&1
    rc=$?
    echo "$t $(tail -n 1 "$work/time") rc=$rc" >>"$out"
done
sort -k3 -rn "$out" | awk '{cpu += $3 + $4; printf "%-40s %8.1f s wall %8.1f s cpu\n", $1, $2, $3 + $4}
                          END {printf "%-40s %8s %17.1f s cpu\n", "all", "", cpu}'
