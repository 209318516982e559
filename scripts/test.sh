#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test.sh - installs what is missing, builds, and runs the whole test suite (unit and
# integration), then builds again with AddressSanitizer and UndefinedBehaviorSanitizer and
# runs the suite once more.
set -eu
cd "$(dirname "$0")/.."
./scripts/deps.sh
jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DROCESHARK_SANITIZE=ON >/dev/null
cmake --build build-sanitize -j"$jobs"
ctest --test-dir build-sanitize --output-on-failure -j"$jobs"
