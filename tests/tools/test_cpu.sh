#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test_cpu.sh BUILD OUT [CTEST_REGEX]: runs each test of BUILD (those scripts/test.sh runs:
# not labelled long) alone, one after the other, and writes a line per test to OUT: its
# name, wall seconds, user and system seconds of everything it ran (its daemons too, where
# a cgroup can be made; else what it waited for), and its exit status. The suite's time on
# 2 cores is bound by processor time, not by any one test's wall time, and a loaded machine
# stretches walls but hardly the processor time: this says where the suite's time goes. tshark's answers go to a fresh folder unless
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
# time(1) counts what ctest waited for, not the daemons a test starts: a TUI test's tmux
# servers and the TUIs in them were half of its processor time. Where a cgroup v1 cpuacct
# hierarchy is writable, each test runs in a group of its own and the group's user and
# system time are taken instead (cgroup v2 needs its cpu controller delegated; time(1) there).
acct=/sys/fs/cgroup/cpuacct
group=""
if [ -w "$acct/cgroup.procs" ] && mkdir "$acct/test_cpu.$$" 2>/dev/null; then
    group="$acct/test_cpu.$$"
    trap 'rm -rf "$work"; rmdir "$group" 2>/dev/null' EXIT
fi
hz=$(getconf CLK_TCK)
for t in $(ctest --test-dir "$build" -N -LE long -R "$regex" | awk '/Test +#/ {print $3}'); do
    if [ -n "$group" ]; then
        before=$(awk '{printf "%s ", $2}' "$group/cpuacct.stat")
        /usr/bin/time -f "%e %U %S" -o "$work/time" \
            sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$group" \
            ctest --test-dir "$build" -R "^$t\$" >"$work/log" 2>&1
        rc=$?
        sleep 1     # a tmux server exits a moment after its last session
        after=$(awk '{printf "%s ", $2}' "$group/cpuacct.stat")
        echo "$t $(tail -n 1 "$work/time" | cut -d' ' -f1) $before $after rc=$rc" |
            awk -v hz="$hz" '{printf "%s %s %.2f %.2f %s\n", $1, $2, ($5 - $3) / hz,
                                    ($6 - $4) / hz, $7}' >>"$out"
    else
        /usr/bin/time -f "%e %U %S" -o "$work/time" \
            ctest --test-dir "$build" -R "^$t\$" >"$work/log" 2>&1
        rc=$?
        echo "$t $(tail -n 1 "$work/time") rc=$rc" >>"$out"
    fi
done
sort -k3 -rn "$out" | awk '{cpu += $3 + $4; printf "%-40s %8.1f s wall %8.1f s cpu\n", $1, $2, $3 + $4}
                          END {printf "%-40s %8s %17.1f s cpu\n", "all", "", cpu}'
