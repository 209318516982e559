#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# output_snapshot.sh ROCESHARK OUTDIR [CAPTURE...]
#
# Writes every output family of `roceshark read` (summary, tshark's Info under --compat
# tshark, -V, -x, -T fields, json, jsonraw, ek, jsonflat, pdml, psml, the -z tables and -w's
# file) for each capture into OUTDIR, one file per capture and family, so that two builds
# can be compared byte for byte:
#
#     tests/tools/output_snapshot.sh /tmp/old/roceshark /tmp/before
#     tests/tools/output_snapshot.sh build/roceshark /tmp/after
#     diff -r /tmp/before /tmp/after && echo identical
#
# Without captures it takes every one under tests/captures/, samples/ and tests/regress/, and
# the real captures in ../shared/captures/real/ when there. Exit codes and stderr are kept
# too (OUTDIR/NAME.FAMILY.rc). Runs one process at a time: it is a check, not a benchmark.
set -u
RS=$1
OUT=$2
shift 2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -eq 0 ]; then
    set -- $(find "$ROOT/tests/captures" "$ROOT/samples" "$ROOT/tests/regress" \
                  "$ROOT/../shared/captures/real" \
                  \( -name '*.pcap' -o -name '*.pcapng' -o -name '*.gz' \) 2>/dev/null | sort)
fi
mkdir -p "$OUT"
FIELDS="-e frame.number -e frame.time_relative -e frame.protocols -e eth.src -e ip.src
-e ip.dst -e udp.srcport -e tcp.stream -e infiniband.bth.opcode -e infiniband.bth.destqp
-e infiniband.bth.psn -e infiniband.reth.va -e infiniband.reth.dmalen
-e infiniband.aeth.syndrome -e infiniband.aeth.msn -e infiniband.lrh.dlid
-e infiniband.grh.sgid -e infiniband.immdt -e iwarp_mpa.ulpdulength -e iwarp_mpa.crc_check
-e roceshark.mpa.crc.status -e iwarp_ddp.qn -e iwarp_ddp.stag -e iwarp_ddp.msn -e iwarp_ddp.mo
-e iwarp_rdma.opcode -e roceshark.analysis.conv -e roceshark.analysis.retransmission
-e _ws.col.Protocol -e _ws.col.Info"

# run NAME FAMILY ARGS...: one output of one capture.
run() {
    name=$1 fam=$2
    shift 2
    "$RS" read "$@" >"$OUT/$name.$fam" 2>"$OUT/$name.$fam.err"
    echo $? >"$OUT/$name.$fam.rc"
}

for cap in "$@"; do
    name=$(echo "$cap" | sed "s|^$ROOT/||; s|/|_|g")
    run "$name" summary -r "$cap"
    run "$name" summary_n -n -r "$cap" -t ad
    run "$name" summary_tshark -r "$cap" --compat tshark
    run "$name" verbose -r "$cap" -V
    run "$name" hex -r "$cap" -x
    # shellcheck disable=SC2086
    run "$name" fields -r "$cap" -T fields $FIELDS
    for t in json jsonraw ek jsonflat pdml psml; do
        run "$name" "$t" -r "$cap" -T "$t"
    done
    for z in conv,qp iwarp expert io,phs io,stat,1 conv,ip conv,udp conv,tcp conv,eth \
             endpoints,ip endpoints,udp "conv,qp,infiniband.bth.psn > 10" \
             "io,stat,0.5,infiniband,tcp"; do
        zn=$(echo "$z" | tr -c 'a-z0-9\n' '_')
        run "$name" "z_$zn" -q -r "$cap" -z "$z"
    done
    run "$name" write -r "$cap" -w "$OUT/$name.pcap" -Y "frame.number > 2"
done
