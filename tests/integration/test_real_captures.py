#!/usr/bin/env python3
"""Every real capture in ../shared/captures/real (made by others on real and soft-RoCE NICs)
decodes exactly as tshark 4.0 decodes it, for every field of the contract; every RoCE
frame's ICRC (and every native IB frame's VCRC) checks out; nothing is reported malformed.

One capture needs tshark told something: oferby_proxy__roce.pcap has RoCEv2 ACKs sent from
UDP source port 69. Wireshark tries the lower port first and reads them as TFTP, which is
wrong: RoCEv2 is identified by the destination port (IBTA Annex A17). We disable TFTP in
tshark for that file so that it decodes them as what they are."""
import glob
import os

import rstest as t

t.need(t.REAL_CAPTURES, "the real captures")
captures = sorted(glob.glob(os.path.join(t.REAL_CAPTURES, "*.pcap")))
t.check(len(captures) >= 20, "expected the shared real captures, found %d" % len(captures))

TSHARK_EXTRA = {"oferby_proxy__roce.pcap": "--disable-protocol tftp"}
rdma_frames = 0
for path in captures:
    name = os.path.basename(path)
    extra = TSHARK_EXTRA.get(name, "")
    bad, total = t.fields_diff(path, t.CONTRACT_FIELDS + t.LOWER_FIELDS, tshark_extra=extra)
    t.check(bad == 0, "%s: %d of %d values differ from tshark" % (name, bad, total))
    rows = t.roceshark_fields(path, ["roceshark.encap", "roceshark.icrc.status",
                                     "roceshark.vcrc.status", "roceshark.malformed",
                                     "roceshark.problem"])
    for n, (encap, icrc, vcrc, malformed, problem) in enumerate(rows, 1):
        if encap in ("rocev1", "rocev2", "ib"):
            rdma_frames += 1
            t.check(icrc == "1", "%s frame %d: ICRC status %r, want 1 (good)" % (name, n, icrc))
        if encap == "ib":
            t.check(vcrc == "1", "%s frame %d: VCRC status %r, want 1" % (name, n, vcrc))
        t.check(malformed == "", "%s frame %d reported malformed: %s" % (name, n, problem))
    print("%-62s %6d values match tshark" % (name, total))
# The captures hold 1,782 RoCEv2 frames and 43 native IB frames.
t.check(rdma_frames == 1782 + 43, "RDMA frames: %d, want %d" % (rdma_frames, 1782 + 43))
t.finish("real captures")
