#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test.sh - installs what is missing, then
#   1. builds (RelWithDebInfo, build/) and runs the whole test suite;
#   2. builds with AddressSanitizer and UndefinedBehaviorSanitizer (Debug at -O1,
#      build-sanitize/) and runs the whole suite again;
#   3. runs every coverage-guided fuzz target 10 s with libFuzzer (clang, build-fuzz/),
#      from its committed corpus, $(nproc) at once; any crash, leak or timeout fails
#      (scripts/fuzz.sh --ci, which leaves the corpus as it is);
#   4. compiles gcc Release (build-gcc-release/), compile only: a warning that only gcc's
#      optimiser sees (it inlines more at -O3) fails here; then passes every file it
#      compiles through clang's front end with the same flags (scripts/clang-warnings.py):
#      clang warns from its front end whatever the optimisation level, so that is every
#      warning a clang build would give, for a third of a clang build's time;
#   5. builds the plugin against Wireshark 4.4 (Debian 13) and runs its tests there
#      (scripts/test-wireshark.sh). The Debian root it needs is made once and reused after;
#      the root and the build in it are made in the background while steps 1-4 run.
# The builds of steps 2 to 5 run in the background at the lowest priority while the
# suite runs: a test waiting on a socket or a terminal leaves a core idle, and they take it.
# Their output goes to build/<folder>.log, shown when one fails.
# --quick: step 1 only, the suite once on the normal build, for while you work.
# Every step runs even when one before it failed, so one run shows everything that is wrong.
# A summary of the steps ends the output; the exit status is 1 when any step failed.
set -u
cd "$(dirname "$0")/.."
quick=0
case "${1:-}" in
--quick) quick=1 ;;
"") ;;
*) echo "usage: scripts/test.sh [--quick]" >&2; exit 1 ;;
esac
./scripts/deps.sh || exit 1
jobs=$(nproc)
summary=""
failed=0

# record NAME STATUS SECONDS: one line of the closing summary; a non-zero STATUS fails the run.
record() {
    if [ "$2" -eq 0 ]; then
        result=ok
    else
        result=FAILED
        failed=1
    fi
    summary="$summary$(printf '%-34s %-7s %5ss' "$1" "$result" "$3")
"
}

# step NAME COMMAND...: runs COMMAND, notes how it ended and how long it took.
step() {
    name=$1
    shift
    echo "== $name"
    start=$(date +%s)
    "$@"
    rc=$?
    record "$name" "$rc" $(($(date +%s) - start))
}

# Every build goes through ccache: the five builds of a run share nothing, but each meets
# its own objects again from the run before on this machine (CCACHE_BASEDIR makes their
# paths relative, so a clone elsewhere hits them too; and the build folder's path is left
# out of the hash, so that integration.fresh_clone's clone meets the first build's objects).
# CCACHE_DEPEND takes an object's dependencies from the compiler's own -MD list instead of
# running the preprocessor a second time: a miss (every compile of a first run, as in CI)
# costs about a quarter less processor time (39 s against 55 s for the dissectors library),
# and a hit is found the same way.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CCACHE_DEPEND=1
launcher=""
command -v ccache >/dev/null && launcher="-DCMAKE_C_COMPILER_LAUNCHER=ccache"

# build DIR CMAKE_OPTION...: configures and compiles everything (tests and benchmarks too).
build() {
    dir=$1
    shift
    cmake -S . -B "$dir" $launcher "$@" >/dev/null && $priority cmake --build "$dir" -j"$jobs"
}
priority=""

# behind DIR COMMAND...: COMMAND (run from the background chain below, where $priority is
# the lowest), its output in build/DIR.log, its exit status and seconds in build/DIR.end.
behind() {
    dir=$1
    shift
    started=$(date +%s)
    "$@" >"build/$dir.log" 2>&1
    echo "$? $(($(date +%s) - started))" >"build/$dir.end"
}

# collect NAME DIR: waits for behind DIR and notes how it ended, as step does.
collect() {
    echo "== $1 (built in the background)"
    while [ ! -f "build/$2.end" ]; do
        sleep 1
    done
    read -r rc seconds <"build/$2.end"
    [ "$rc" -eq 0 ] || tail -n 60 "build/$2.log"
    record "$1" "$rc" "$seconds"
}

# The label long (a full matrix of programs) is for a run by hand: ctest -L long.
# With --quick nothing runs behind the suite to take a core a test leaves idle while it waits
# on a socket, a terminal or a timer, so twice as many tests run at once (the suite's tests
# assert order and counts, not times, and pass on a machine loaded far beyond that).
suite_jobs=$jobs
[ $quick -eq 0 ] || suite_jobs=$((jobs * 2))
suite() {
    ctest --test-dir "$1" --output-on-failure -j"$suite_jobs" -LE long
}

start_all=$(date +%s)
mkdir -p build
# tshark's answers, kept from the first pass for the second and from one run to the next
# (tests/tools/reference_cache.py: keyed by tshark's binary, its command line and the content
# of its input files, so an answer is never stale); each run then removes those it did not
# use.
export ROCESHARK_TSHARK_CACHE="$PWD/build/tshark-cache"
[ $quick -eq 1 ] || {
    nice -n 19 scripts/test-wireshark.sh --build 4.4 >build/wireshark-4.4-root.log 2>&1 &
    ws_root=$!
}
step "build (RelWithDebInfo)" build build -DCMAKE_BUILD_TYPE=RelWithDebInfo
[ $quick -eq 1 ] || {
    rm -f build/build-*.end
    {
        priority="nice -n 19"
        behind build-sanitize build build-sanitize -DCMAKE_BUILD_TYPE=Debug \
            -DROCESHARK_SANITIZE=ON
        behind build-fuzz $priority scripts/fuzz.sh --build
        behind build-gcc-release build build-gcc-release -DCMAKE_C_COMPILER=gcc \
            -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
        behind clang-warnings $priority scripts/clang-warnings.py build-gcc-release
    } &
}
step "tests" suite build
[ $quick -eq 1 ] || {
    collect "build (ASan+UBSan, Debug at -O1)" build-sanitize
    step "tests under ASan+UBSan" suite build-sanitize
    collect "build the fuzz targets (clang)" build-fuzz
    step "fuzz 10 s per target" scripts/fuzz.sh --ci 10
    # Before the last two collects: tshark in the Debian 13 root runs on one core, and the
    # gcc Release build behind it takes the other.
    wait $ws_root || cat build/wireshark-4.4-root.log
    step "plugin on Wireshark 4.4" scripts/test-wireshark.sh --test 4.4
    collect "compile gcc Release" build-gcc-release
    collect "clang's warnings on every file" clang-warnings
}

python3 tests/tools/reference_cache.py prune "$ROCESHARK_TSHARK_CACHE" "$start_all"
echo
echo "== summary"
printf '%s' "$summary"
printf '%-34s %-7s %5ss\n' "all" "$([ $failed -eq 0 ] && echo ok || echo FAILED)" \
    $(($(date +%s) - start_all))
exit $failed
