#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""ICMP and ICMPv6 over Ethernet from tests/gen/gen_icmp.py (echoes with and without a
timestamp in their data, answered and not, errors, neighbor solicitations and advertisements
with Ethernet link-layer options, bad checksums), field by field against tshark 4.0:
  - every icmp.* and icmpv6.* field (rstest.ICMP_FIELDS), the Protocol and Info columns;
  - data.* on the echoes (an error's quoted datagram is not decoded: tshark shows its IP and
    UDP headers and gives the UDP payload to data);
  - resp_to and resptime run the streams stage whether -e, the filter or the summary line
    asks for them, and the summary line says "(request in N)" as tshark's does."""
import os

import rstest as t

out = os.path.join(t.tempdir(), "icmp.pcap")
t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_icmp.py"), out])

fields = t.ICMP_FIELDS + ["frame.len", "_ws.col.Protocol", "_ws.col.Info"]
bad, total = t.fields_diff(out, fields)
t.check(bad == 0, "icmp.pcap: %d of %d values differ from tshark" % (bad, total))
echoes = "icmp.type==0 || icmp.type==8 || icmpv6.type==128 || icmpv6.type==129"
dbad, dtotal = t.fields_diff(out, t.DATA_FIELDS, tshark_extra="-Y '%s'" % echoes,
                             roceshark_extra=["-Y", echoes])
t.check(dbad == 0, "icmp.pcap echoes: %d of %d data values differ" % (dbad, dtotal))
shown = sum(1 for row in t.tshark_fields(out, fields) for v in row if v != "")
t.check(shown > 250 and dtotal > 30, "only %d and %d values compared" % (shown, dtotal))

# The request a reply answers, by filter alone, and on the summary line.
rows = t.roceshark_fields(out, ["frame.number"], ["-Y", "icmp.resp_to == 3"])
t.check(rows == [["4"]], "-Y icmp.resp_to == 3 selects %s, want frame 4" % rows)
rows = t.roceshark_fields(out, ["frame.number"], ["-Y", "icmpv6.resptime > 0.3"])
t.check(rows == [["21"], ["24"]], "-Y icmpv6.resptime > 0.3 selects %s" % rows)
lines = t.run([t.ROCESHARK, "read", "-r", out]).stdout.splitlines()
t.check(lines[1].endswith("ttl=63 (request in 1)"), "the summary of frame 2: %r" % lines[1])
t.check("(request" not in lines[10], "an unanswered reply: %r" % lines[10])
print("icmp: %d values (%d of them not empty) and %d data values match tshark"
      % (total, shown, dtotal))
t.finish("icmp")
