#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`read -T json` and `read -T ek` against tshark 4.0's, structurally, on real captures of
the repository and the sample:
  - -T json: the same array of documents (_index, _type, _score, _source.layers), a frame
    each; every value of a field that both print sits at the same path (protocol, then the
    "x_tree" subtrees above it) with the same values, in the same order. Path steps named
    after a field only one side has are dropped before paths are compared: tshark nests
    ip.flags.df under ip.flags, a field we do not have, and we nest roceshark.* fields that
    tshark does not know;
  - -T ek: the same two lines a frame, the index line equal, and in each protocol's object
    every member both print (protocol_field, '_' for '.') with the same value: strings,
    booleans as true/false, arrays where a name repeats under one parent;
  - -e with -T json and ek: tshark's "field": [values] objects, equal to tshark's;
  - -j/-J: the names left out say {"filtered": name}, as tshark's, and in -T pdml
    <field name="filtered" value="name" />;
  - the layout itself: -T json's text equals tshark's line for line on a frame whose
    fields we all have the same way (no field of one side only).
Known differences (DIFFER below), each for a reason:
  - infiniband.immdt: Wireshark 4.0 adds the ImmDt header as a field holding the
    value, then the value again below it (JSON "infiniband.immdt" and
    "infiniband.immdt_tree": {"infiniband.immdt": ...}); we have the value once;
  - infiniband.smplid.smpdata: likewise twice in a directed SMP, once here;
  - MAD fields: compared by value wherever they sit (see flat() below);
  - the directed SMP's D bit and status, a CM REQ path's flow label, reserved bits and
    packet rate, and IPoIB's infiniband.payload, where we follow IBTA (README, "Where
    roceshark and Wireshark differ"; test_mad checks them);
Values of fields only tshark has (tcp.stream, the MAD fields, ...) are not compared:
issue 13 adds them field by field, and fields_diff tests them."""
import collections
import json
import os

import rstest as t

CAPTURES = ["linlinw5_rdma_ib_tutorial__pcap_rdma_cm.pcap",
            "linlinw5_rdma_ib_tutorial__pcap_rdma_atomic_bw.pcap",
            "linlinw5_rdma_ib_tutorial__pcap_rdma_read_lat.pcap",
            "srinivaskoritala_rdma-softroce-demo__infiniband.pcap"]
EK_CAPTURES = ["linlinw5_rdma_ib_tutorial__pcap_rdma_cm.pcap",
               "srinivaskoritala_rdma-softroce-demo__infiniband.pcap"]
SAMPLE = os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap")
SANITIZED = bool(t.BUILT.get("sanitize"))
if SANITIZED:       # several times slower: fewer captures, the same checks
    CAPTURES, EK_CAPTURES = CAPTURES[::2], EK_CAPTURES[1:]
paths = [os.path.join(t.REAL_CAPTURES, n) for n in CAPTURES] + [SAMPLE]
ek_paths = [os.path.join(t.REAL_CAPTURES, n) for n in EK_CAPTURES]

DIFFER = {"infiniband.immdt", "infiniband.smplid.smpdata", "infiniband.smpdirected.d",
          "infiniband.smpdirected.smpstatus", "infiniband.payload"} | {
    "infiniband.cm.req.%s_%s" % (path, name) for path in ("prim", "alt")
    for name in ("flowlabel", "reserved0", "pktrate")}
DIFFER_EK = {f.replace(".", "_") for f in DIFFER}     # EK's names of the same fields
# tshark names reserved bytes inside the CM and SMP payloads too, which we do not yet: ours
# must be its first ones.
PARTIAL = {"infiniband.reserved"}
# MAD fields are compared by value, not by path: Wireshark's MAD subtrees nest by how its
# dissector calls itself (a directed SMP's data sits twice, under smpdirected_tree and again
# under its own smpdata_tree), where ours nest by the MAD's layout, one level below it.
TRANSPORT = set(t.CONTRACT_FIELDS)


TRANSPORT_EK = set(f.replace(".", "_") for f in TRANSPORT)


def flatten(v):
    return [x for item in v for x in flatten(item)] if isinstance(v, list) else [v]


def flat(field):
    return field.startswith("infiniband.") and field not in TRANSPORT
HEUR = [a for h in t.fieldsdiff.TSHARK_IB_HEURISTICS for a in ("--disable-heuristic", h)]
OURS = set(line.split("\t")[0] for line in t.run([t.ROCESHARK, "fields"]).stdout.splitlines())


def tshark(path, *args):
    return t.run(["tshark", "-n", "-r", path] + list(args) + HEUR).stdout


def roceshark(path, *args):
    # -n as tshark's below: addresses unresolved, so *_resolved is the address on both sides
    return t.run([t.ROCESHARK, "read", "-n", "-r", path] + list(args)).stdout


def pairs(items):
    """An object as its list of (name, value) pairs: both tools repeat names."""
    return ("obj", items)


def load(text, what):
    try:
        return json.loads(text, object_pairs_hook=pairs)
    except ValueError as e:
        t.check(False, "%s: not JSON: %s" % (what, e))
        return None


def base(name):
    for suffix in ("_tree", "_raw"):
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name


def leaves(node, path, out, names):
    """(path, value) of every string value below node, names collecting the names met."""
    for name, value in node[1]:
        names.add(base(name))
        if isinstance(value, tuple):
            leaves(value, path + (name,), out, names)
        elif isinstance(value, list):
            for v in value:
                out.append((path + (name,), v))
        else:
            out.append((path + (name,), value))


def docs(text, what):
    """Each document's layers as its (path, value) list, with the names met in all."""
    d = load(text, what)
    if d is None:
        return [], set()
    frames, names = [], set()
    for doc in d:
        top = [n for n, _ in doc[1]]
        t.check(top == ["_index", "_type", "_score", "_source"], "%s: document keys %s"
                % (what, top))
        source = dict(doc[1])["_source"]
        layers = dict(source[1])["layers"]
        out = []
        leaves(layers, (), out, names)
        frames.append(out)
    return frames, names


def by_field(frame, shared):
    """The values of each shared field, keyed by the path of shared names leading to it."""
    d = collections.defaultdict(list)
    for path, value in frame:
        field = path[-1]
        if field not in shared or field in DIFFER:
            continue
        key = (field,) if flat(field) else tuple(s for s in path[:-1] if base(s) in shared) + (field,)
        d[key].append(value)
    return d


# -T json, every frame.
compared = agree = frames_seen = ours_only = theirs_only = 0
fields_seen = set()
texts = {}
for path in paths:
    name = os.path.basename(path)
    texts[path] = roceshark(path, "-T", "json"), tshark(path, "-T", "json")
    ours, our_names = docs(texts[path][0], name)
    theirs, their_names = docs(texts[path][1], "tshark " + name)
    if not t.check(len(ours) == len(theirs) > 0, "%s: %d documents, tshark %d"
                   % (name, len(ours), len(theirs))):
        continue
    shared = our_names & their_names & OURS
    for n, (x, y) in enumerate(zip(ours, theirs), 1):
        frames_seen += 1
        a, b = by_field(x, shared), by_field(y, shared)
        for key in sorted(set(a) | set(b)):
            if key not in b:
                # A field of ours that tshark has at another path, or in another frame.
                t.check(not any(k[-1] == key[-1] for k in b),
                        "%s frame %d: %s, tshark has %s at %s" % (
                            name, n, "/".join(key), key[-1],
                            ["/".join(k) for k in b if k[-1] == key[-1]]))
                ours_only += 1
                if ours_only <= 3:
                    print("only ours: %s frame %d %s" % (name, n, "/".join(key)))
                continue
            if key not in a:
                t.check(not any(k[-1] == key[-1] for k in a),
                        "%s frame %d: tshark's %s, ours at %s" % (
                            name, n, "/".join(key), ["/".join(k) for k in a
                                                     if k[-1] == key[-1]]))
                theirs_only += 1
                if theirs_only <= 3:
                    print("only tshark's: %s frame %d %s" % (name, n, "/".join(key)))
                continue
            compared += len(b[key])
            fields_seen.add(key[-1])
            want = b[key][:len(a[key])] if key[-1] in PARTIAL else b[key]
            if t.check(a[key] == want, "%s frame %d %s: %s, tshark %s"
                       % (name, n, "/".join(key), a[key], b[key])):
                agree += len(b[key])
t.check(agree > (300 if SANITIZED else 3000), "only %d values compared" % agree)
print("json: %d frames of %d captures, %d values of %d fields compared, %d agree; "
      "%d (path, field) only ours, %d only tshark's among the shared names"
      % (frames_seen, len(paths), compared, len(fields_seen), agree, ours_only, theirs_only))


# -T ek: the index line, then each protocol's members.
def ek_lines(text, what):
    lines = text.splitlines()
    t.check(len(lines) % 2 == 0, "%s: %d lines" % (what, len(lines)))
    return [(load(lines[i], what), load(lines[i + 1], what)) for i in range(0, len(lines), 2)]


def plain(v):
    """A parsed value with its objects as dicts of lists (names repeat)."""
    if isinstance(v, tuple):
        d = collections.defaultdict(list)
        for k, x in v[1]:
            d[k].append(plain(x))
        return dict(d)
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


EK_NAMES = {f.replace(".", "_") for f in OURS}
ek_compared = ek_agree = ek_frames = 0
for path in ek_paths:
    name = os.path.basename(path)
    ours, theirs = (ek_lines(roceshark(path, "-T", "ek"), name),
                    ek_lines(tshark(path, "-T", "ek"), "tshark " + name))
    if not t.check(len(ours) == len(theirs) > 0, "%s: ek %d documents, tshark %d"
                   % (name, len(ours), len(theirs))):
        continue
    for n, ((xi, x), (yi, y)) in enumerate(zip(ours, theirs), 1):
        ek_frames += 1
        t.check(plain(xi) == plain(yi), "%s frame %d: ek index %s, tshark %s"
                % (name, n, plain(xi), plain(yi)))
        x, y = plain(x), plain(y)
        t.check(list(x) == ["timestamp", "layers"] and x["timestamp"] == y["timestamp"],
                "%s frame %d: ek %s, tshark %s" % (name, n, x.get("timestamp"),
                                                   y.get("timestamp")))
        lx, ly = x["layers"][0], y["layers"][0]
        for proto in set(lx) & set(ly):
            px, py = lx[proto][0], ly[proto][0]
            for member in set(px) & set(py):
                field = member[len(proto) + 1:]
                if field not in EK_NAMES or field in DIFFER_EK:
                    continue
                ek_compared += 1
                if "infiniband." + field[len("infiniband_"):] in PARTIAL:
                    ours_v = flatten(px[member])
                    if t.check(ours_v == flatten(py[member])[:len(ours_v)],
                               "%s frame %d ek %s: %s, tshark %s"
                               % (name, n, member, px[member], py[member])):
                        ek_agree += 1
                    continue
                if field.startswith("infiniband_") and field not in TRANSPORT_EK:
                    # a MAD field: its values, however the subtrees group them (flat())
                    same = sorted(flatten(px[member])) == sorted(flatten(py[member]))
                    if t.check(same, "%s frame %d ek %s: %s, tshark %s"
                               % (name, n, member, px[member], py[member])):
                        ek_agree += 1
                    continue
                if t.check(px[member] == py[member], "%s frame %d ek %s: %s, tshark %s"
                           % (name, n, member, px[member], py[member])):
                    ek_agree += 1
t.check(ek_agree > (100 if SANITIZED else 1000), "ek: only %d members compared" % ek_agree)
print("ek: %d frames of %d captures, %d members compared, %d agree"
      % (ek_frames, len(ek_paths), ek_compared, ek_agree))

# -e: the same objects as tshark's, in json and ek.
picked = ["frame.number", "ip.addr", "udp.port", "infiniband.bth.psn", "infiniband.bth.a",
          "infiniband.reth.dmalen", "eth.src"]
e_args = [a for f in picked for a in ("-e", f)]
for fmt in ("json", "ek"):
    a = roceshark(SAMPLE, "-T", fmt, *e_args)
    b = tshark(SAMPLE, "-T", fmt, *e_args)
    t.check(a == b, "-T %s -e: differs from tshark's: %r against %r" % (fmt, a[:300], b[:300]))

# -j and -J: what is left out says so, as tshark's; checked on the values both have.
for opt in ("-j", "-J"):
    ours, _ = docs(roceshark(SAMPLE, "-T", "json", opt, "frame infiniband"), opt)
    theirs, _ = docs(tshark(SAMPLE, "-T", "json", opt, "frame infiniband"), "tshark " + opt)
    # What one side alone has (our roceshark protocol, tshark's data and its fields we do
    # not have) is left out; the order of headers is compared by the json pass above.
    a, b = ([sorted((p, v) for p, v in f if p[0] in OURS - {"roceshark"} and v in OURS and
                    (p[-1] == "filtered" or p[-1] in ("frame.number", "infiniband.bth")))
             for f in side] for side in (ours, theirs))
    t.check(a == b and len(a) == 27, "%s: %s, tshark %s" % (opt, a[:2], b[:2]))

# -j and -J with -T pdml: the same <field name="filtered" value="..." /> lines as tshark's.
import xml.etree.ElementTree as ET  # noqa: E402
for opt in ("-j", "-J"):
    got = [sorted(f.get("value") for f in p.iter("field") if f.get("name") == "filtered" and
                  f.get("value") in OURS - {"roceshark"})
           for side in (roceshark(SAMPLE, "-T", "pdml", opt, "frame infiniband"),
                        tshark(SAMPLE, "-T", "pdml", opt, "frame infiniband"))
           for p in [ET.fromstring(side)]]
    t.check(got[0] == got[1] and len(got[0]) > 27, "-T pdml %s: %s, tshark %s"
            % (opt, got[0][:8], got[1][:8]))

# The layout: both texts are what one writer makes of what they hold (two spaces a level,
# "name": value, one member or element a line), so they differ only in what they hold.
def layout(v, depth):
    pad = "  " * (depth + 1)
    if isinstance(v, tuple) or isinstance(v, list):
        items = v[1] if isinstance(v, tuple) else v
        if not items:
            return "{}" if isinstance(v, tuple) else "[]"
        inner = [pad + (json.dumps(k, ensure_ascii=False) + ": " if isinstance(v, tuple) else "")
                 + layout(x, depth + 1) for k, x in (items if isinstance(v, tuple)
                                                     else [(None, x) for x in items])]
        o, c = ("{", "}") if isinstance(v, tuple) else ("[", "]")
        return o + "\n" + ",\n".join(inner) + "\n" + "  " * depth + c
    return json.dumps(v, ensure_ascii=False)


for who, text in zip(("ours", "tshark's"), texts[SAMPLE]):
    t.check(layout(load(text, who), 0) + "\n" == text, "-T json: %s layout is not tshark's" % who)
t.finish("json")
