# SPDX-License-Identifier: GPL-2.0-or-later
"""tshark's four JSON and XML formats (-T json, ek, pdml, psml), with --compat tshark, frame by
frame on six captures. A case is one frame in one format: identical when read's
object (JSON, compared as parsed, duplicate keys kept in order) or element (XML, compared as
text) equals tshark's."""
import json
import re

import paritylib as pl

FAMILY = "formats"

PACKET = re.compile(r"<packet>.*?</packet>", re.S)
# The lines that change from one run to the next or name the file: the capture's path in
# pdml's header is outside any <packet>, and ek's index lines carry the date of the frame.
EK_INDEX = '{"index"'


def pairs(items):
    return items        # a list of (key, value): duplicate keys kept, in order


def json_frames(text):
    try:
        frames = json.loads(text, object_pairs_hook=pairs)
    except ValueError:
        return {}
    return {n: json.dumps(f, indent=1) for n, f in enumerate(frames, 1)}


def ek_frames(text):
    docs = [line for line in text.splitlines() if line and not line.startswith(EK_INDEX)]
    out = {}
    for n, line in enumerate(docs, 1):
        try:
            out[n] = json.dumps(json.loads(line, object_pairs_hook=pairs), indent=1)
        except ValueError:
            out[n] = line
    return out


def xml_frames(text):
    return {n: m.group(0) for n, m in enumerate(PACKET.finditer(text), 1)}


# The sample less its two largest (NCCL's TCP, ECN), for the time: EK and PDML are the
# slowest outputs of both tools.
CAPTURES = ["infiniband.pcap", "pcap_rdma_cm.pcap", "pcap_rdma_atomic_bw.pcap",
            "pcap_pingpong_ud.pcap", "uiwarp__422babab.pcap", "oferby_proxy__roce.pcap"]
FORMATS = (("json", json_frames), ("ek", ek_frames), ("pdml", xml_frames),
           ("psml", xml_frames))


def run(ctx):
    def one(item):
        path, (fmt, split) = item
        want = split(ctx.tshark(["-r", path, "-T", fmt] + ctx.tshark_flags(path)).stdout)
        got = split(ctx.read(["-r", path, "-T", fmt, "--compat", "tshark"]).stdout)
        return pl.compare_frames("%s -T %s" % (pl.short(path), fmt), want, got,
                                 ctx.foreign(path))
    return pl.add(ctx.map(one, [(p, f) for p in ctx.sample(CAPTURES) for f in FORMATS]))
