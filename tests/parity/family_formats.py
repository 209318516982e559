# SPDX-License-Identifier: GPL-2.0-or-later
"""tshark's four JSON and XML formats (-T json, ek, pdml, psml), with --compat tshark, frame by
frame on seven captures. A case is one frame in one format: identical when read's
object (JSON, compared as parsed, duplicate keys kept in order) or element (XML, compared as
text) equals tshark's. A frame with protocols read does not dissect (HTTP, TLS) is a case of
its own in JSON, EK and PDML: its layers before the first of them (TCP's, and its reassembled
segments'), frame.protocols left out."""
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


def cut_layers(layers, foreign, protocols_key):
    """A frame's layers (pairs) before the first one named in foreign, the frame layer's
    protocols_key left out."""
    out = []
    for name, value in layers:
        if name in foreign:
            break
        if name == "frame" and isinstance(value, list):
            value = [(k, v) for k, v in value if k != protocols_key]
        out.append((name, value))
    return out


def json_before(text, foreign):
    """-T json's frame (as json_frames dumps it) before the protocols of foreign."""
    frame = json.loads(text, object_pairs_hook=pairs)
    source = dict(frame)["_source"]
    layers = cut_layers(dict(source)["layers"], foreign, "frame.protocols")
    return json.dumps([(k, v) for k, v in frame if k != "_source"] + [("_source", [
        (k, layers if k == "layers" else v) for k, v in source])], indent=1)


def ek_before(text, foreign):
    doc = json.loads(text, object_pairs_hook=pairs)
    return json.dumps([(k, cut_layers(v, foreign, "frame_frame_protocols")
                        if k == "layers" else v) for k, v in doc], indent=1)


def pdml_before(text, foreign):
    heads = tuple('  <proto name="%s"' % p for p in foreign)
    lines = []
    for line in text.split("\n"):
        if line.startswith(heads):
            lines.append("</packet>")
            break
        if 'name="frame.protocols"' not in line:
            lines.append(line)
    return "\n".join(lines)


# The sample less its two largest (NCCL's TCP, ECN), for the time: EK and PDML are the
# slowest outputs of both tools.
CAPTURES = ["infiniband.pcap", "pcap_rdma_cm.pcap", "pcap_rdma_atomic_bw.pcap",
            "pcap_pingpong_ud.pcap", "uiwarp__422babab.pcap", "oferby_proxy__roce.pcap",
            "tcp_reasm.pcap"]
# Each format, how to cut its output into frames, and a frame before the protocols read
# does not dissect (None: the summary columns of psml, which name them, are not compared).
FORMATS = (("json", json_frames, json_before), ("ek", ek_frames, ek_before),
           ("pdml", xml_frames, pdml_before), ("psml", xml_frames, None))


def run(ctx):
    def one(item):
        path, (fmt, split, before) = item
        want = split(ctx.tshark(["-r", path, "-T", fmt] + ctx.tshark_flags(path)).stdout)
        got = split(ctx.read(["-r", path, "-T", fmt, "--compat", "tshark"]).stdout)
        name = "%s -T %s" % (pl.short(path), fmt)
        foreign = ctx.foreign_protocols(path)

        def cut(n, text):
            if before is None or not pl.known_foreign(foreign[n]):
                return None
            try:
                return before(text, set(foreign[n]))
            except (ValueError, KeyError, TypeError):
                return text
        return pl.add([pl.compare_frames(name, want, got, set(foreign)),
                       pl.compare_partly(name, want, got, set(foreign), cut)])
    return pl.add(ctx.map(one, [(p, f) for p in ctx.sample(CAPTURES) for f in FORMATS]))
