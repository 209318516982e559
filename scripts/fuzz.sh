#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz.sh [--ci] [SECONDS [TARGET...]] - builds the coverage-guided fuzz targets with clang and
# libFuzzer (ASan+UBSan, build-fuzz/), runs each for SECONDS (60 by default) from its corpus
# (tests/fuzz/corpus/TARGET/) and seeds made from the repository (tests/fuzz/make_seeds.py),
# and prints per target the runs, runs per second, edges covered, the corpus's size and the
# crashes. Targets: decode filter spec script reader iwarp responder
# exchange cm (default: all).
#
# By default the targets run one after the other and what they found is merged into the
# corpus (-merge=1 by edges, which keeps it small). A crash leaves its input in build-fuzz/crashes/
# and makes the exit status 1: add it to the corpus under a name that says what it found,
# with the fix.
#
# --ci: the check of scripts/test.sh. Up to $(nproc) targets run at once, and the corpus is
# only read: what they find goes to a temporary directory, dropped at the end. Any crash,
# leak, timeout or out-of-memory makes the exit status 1; its input stays in
# build-fuzz/ci-crashes/ (emptied first), and the fuzzer's report ends the output. The
# corpus column reads N+M: M new inputs found beside the N committed.
#
# --build: builds the targets and stops (test.sh builds them in the background before its
# fuzz step).
set -u
cd "$(dirname "$0")/.."
ci=false
build_only=false
case "${1:-}" in
--ci) ci=true; shift ;;
--build) build_only=true; shift ;;
esac
seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-decode filter spec script reader iwarp responder exchange cm}
out=build-fuzz
launcher=""      # ccache when there is one (see test.sh)
command -v ccache >/dev/null && launcher="-DCMAKE_C_COMPILER_LAUNCHER=ccache"
CC=clang cmake -S . -B "$out" $launcher -DCMAKE_BUILD_TYPE=RelWithDebInfo -DROCESHARK_LIBFUZZER=ON \
    -DROCESHARK_WIRESHARK_PLUGIN=OFF >/dev/null || exit 1
# One call for them all: each call walks the whole build's dependencies first.
cmake --build "$out" -j"$(nproc)" --target $(printf '%s_fuzzer ' $targets) >/dev/null || exit 1
$build_only && exit 0
seeds=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$seeds" "$work"' EXIT
python3 tests/fuzz/make_seeds.py "$seeds" || exit 1
if $ci; then
    jobs=$(nproc)
    crashes="$out/ci-crashes"
    rm -rf "$crashes"
else
    jobs=1
    crashes="$out/crashes"
fi
mkdir -p "$crashes"

# fuzz TARGET: runs it for $seconds from its corpus and the seeds; its new inputs go to
# $work/found-TARGET, its output to $out/fuzz-TARGET.log, its exit status to $work/rc-TARGET.
# An input that takes 30 s is a hang, reported as a timeout.
# --ci turns off libFuzzer's entropic schedule: it weighs every input by its rare features,
# and with decode's 64,000 features that bookkeeping (InputCorpus::UpdateFeatureFrequency)
# took 72% of the target's time, so that replaying decode's corpus of 1,187 inputs took 87 s
# and the 10 s run never reached a mutation; without it the replay takes 18 s (the same
# machine, load 6). A short run gains nothing from the schedule; a long one keeps it.
schedule=""
$ci && schedule="-entropic=0"
fuzz() {
    mkdir -p "$work/found-$1"
    $ci || mkdir -p "tests/fuzz/corpus/$1"
    "$out/fuzzers/${1}_fuzzer" $schedule -max_total_time="$seconds" -timeout=30 -print_final_stats=1 \
        -rss_limit_mb=4096 -artifact_prefix="$crashes/$1-" \
        "$work/found-$1" "tests/fuzz/corpus/$1" "$seeds/$1" >"$out/fuzz-$1.log" 2>&1
    echo $? >"$work/rc-$1"
}

# Up to $jobs at once; they all take $seconds, so waiting for the oldest frees a slot as
# soon as any would.
running=""
for t in $targets; do
    if [ "$(echo $running | wc -w)" -ge "$jobs" ]; then
        oldest=${running%% *}
        wait "$oldest"
        running=${running#"$oldest"}
        running=${running# }
    fi
    fuzz "$t" &
    running="${running:+$running }$!"
done
wait

status=0
printf '%-9s %6s %10s %8s %7s %9s  %s\n' target seconds runs runs/s edges corpus crashes
for t in $targets; do
    log="$out/fuzz-$t.log"
    if $ci; then
        corpus="$(ls "tests/fuzz/corpus/$t" | wc -l)+$(ls "$work/found-$t" | wc -l)"
    else
        # By edges alone (-use_counters=0): an input that only hits an edge more often
        # than one already kept is not kept, which holds the corpus to a few hundred KB.
        "$out/fuzzers/${t}_fuzzer" -merge=1 -use_counters=0 -rss_limit_mb=4096 \
            "tests/fuzz/corpus/$t" "$work/found-$t" >"$out/merge-$t.log" 2>&1
        corpus=$(ls "tests/fuzz/corpus/$t" | wc -l)
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    edges=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    n_crashes=$(ls "$crashes" | grep -c "^$t-")
    [ "$(cat "$work/rc-$t")" -ne 0 ] && status=1
    printf '%-9s %6s %10s %8s %7s %9s  %s\n' "$t" "$seconds" "${runs:-?}" "${rate:-?}" \
        "${edges:-?}" "$corpus" "$n_crashes"
done
if $ci && [ $status -ne 0 ]; then
    for t in $targets; do
        [ "$(cat "$work/rc-$t")" -eq 0 ] && continue
        echo
        echo "== $t failed (exit status $(cat "$work/rc-$t")); its input:"
        ls "$crashes" | grep "^$t-" | sed "s|^|    $crashes/|"
        echo "== the end of $out/fuzz-$t.log:"
        tail -n 40 "$out/fuzz-$t.log"
    done
fi
exit $status
