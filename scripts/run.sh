#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh - installs what is missing, builds, and runs roceshark on the bundled sample capture.
set -eu
cd "$(dirname "$0")/.."
./scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
echo "== roceshark read -r samples/rdma_demo.pcap -z conv,qp"
./build/roceshark read -r samples/rdma_demo.pcap -z conv,qp
