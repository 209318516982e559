#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""libroceshark-verbs.so on devices named after interfaces (`--dev rxe0=IFACE`, as `rdma
link add rxe0 type rxe netdev IFACE` names one), on a veth pair of MTU 1500 between two
network namespaces the test makes, with IPv6 link-local addresses made from the MACs:
- the tutorial's steps as a user types them, each printing what it prints on rxe:
  ibv_devices (rxe's GUID, the MAC's EUI-64), ibv_devinfo (to the byte), ibv_rc_pingpong
  -g 0 and -g 1, ib_send_bw, ib_send_lat;
- ibv_devinfo shows rxe's GID table: the link-local GID from the MAC at 0, the IPv4
  address at 1, both RoCE v2; active_mtu 1024;
- ibv_rc_pingpong -g 0 (link-local) and -g 1 (IPv4), ibv_ud_pingpong -g 0,
  ibv_uc_pingpong -g 1, ibv_srq_pingpong -g 0, ib_write_bw -x 0 and ib_send_bw -x 1
  --use-srq, across the pair, data checked where the tool does (-c);
- the UDP source port of each QP is its flow label's (rdma_flow_label_to_udp_sport: 0xC000
  and up, from the two QP numbers), the same both ways, in a capture of the veth;
- ibv_asyncwatch hears the port go down and up with the interface (IBV_EVENT_PORT_ERR,
  IBV_EVENT_PORT_ACTIVE).
Forty or fifty iterations each: CI has 20 minutes for everything."""
import os
import re
import select
import shutil
import subprocess
import time

import livenet
import rstest as t
import verbsrun
from verbsrun import env

TOOLS = ["ibv_devices", "ibv_devinfo", "ibv_rc_pingpong", "ibv_ud_pingpong", "ib_write_bw",
         "ib_send_bw", "ib_send_lat", "ibv_asyncwatch"]
missing = [x for x in TOOLS if shutil.which(x) is None]
if missing:
    print("skipped: %s not installed (apt-get install perftest ibverbs-utils)" % missing)
    t.finish("verbs_veth")
livenet.need_root()

A_IP, B_IP = "10.88.39.1", "10.88.39.2"
pair = livenet.VethPair("vv", mtu=1500)
for ns, ifname, ip in ((pair.ns_a, pair.if_a, A_IP), (pair.ns_b, pair.if_b, B_IP)):
    # IPv6 on, without duplicate address detection, so that the link-local address the
    # kernel makes from the MAC (rxe's GID 0 and 1) is usable at once.
    for key in ("all", "default", ifname):
        subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-qw",
                        "net.ipv6.conf.%s.accept_dad=0" % key], capture_output=True)
    for key in ("all", ifname):
        subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-qw",
                        "net.ipv6.conf.%s.disable_ipv6=0" % key], capture_output=True)
    t.run(["ip", "-n", ns, "addr", "add", ip + "/24", "dev", ifname])
OUT = t.tempdir()


def in_ns(ns, args):
    return ["ip", "netns", "exec", ns] + list(args)


def verbs(ns, ifname, prog, *args):
    return in_ns(ns, [t.ROCESHARK, "run", "--dev", "rxe0=" + ifname, "--", prog] +
                 list(args))


def listening(ns, port):
    out = subprocess.run(in_ns(ns, ["ss", "-ltnH"]), capture_output=True, text=True).stdout
    return re.search(r":%d\b" % port, out) is not None


def pair_run(what, args, port, timeout=60):
    """The program with args as server in B and client in A (to B's IPv4 address)."""
    s, c = verbsrun.pair(verbs(pair.ns_b, pair.if_b, *args),
                         verbs(pair.ns_a, pair.if_a, *args + [B_IP]),
                         lambda: listening(pair.ns_b, port), timeout)
    t.check(s[0] == 0 and c[0] == 0, "%s: server exit %s, client exit %s: %r | %r"
            % (what, s[0], c[0], c[2][-300:], s[2][-300:]))
    return s, c


def mac(ns, ifname):
    out = subprocess.run(["ip", "-n", ns, "link", "show", ifname], capture_output=True,
                         text=True).stdout
    return bytes.fromhex(re.search(r"link/ether (\S+)", out).group(1).replace(":", ""))


def link_local(m):
    """fe80::/64 with the modified EUI-64 of a MAC, as ibv_devinfo prints a RoCE v2 GID."""
    e = bytes([m[0] ^ 2]) + m[1:3] + b"\xff\xfe" + m[3:]
    words = ["%x" % int.from_bytes(e[i:i + 2], "big") for i in range(0, 8, 2)]
    return "fe80::" + ":".join(words)


# --- the tutorial's first steps, each printing what it prints on rxe ---
m = mac(pair.ns_a, pair.if_a)
guid = (bytes([m[0] ^ 2]) + m[1:3] + b"\xff\xfe" + m[3:]).hex()     # rxe's: the MAC's EUI-64
r = subprocess.run(verbs(pair.ns_a, pair.if_a, "ibv_devices"), capture_output=True,
                   text=True, env=env())
t.check(r.returncode == 0 and r.stdout == "    device          \t   node GUID\n"
        "    ------          \t----------------\n    rxe0            \t%s\n" % guid,
        "ibv_devices lists rxe0 with rxe's GUID %s: %r %r" % (guid, r.stdout, r.stderr))
GUID = ":".join(guid[i:i + 4] for i in range(0, 16, 4))
RXE_DEVINFO = """hca_id:\trxe0
\ttransport:\t\t\tInfiniBand (0)
\tfw_ver:\t\t\t\t0.0.0
\tnode_guid:\t\t\t%s
\tsys_image_guid:\t\t\t%s
\tvendor_id:\t\t\t0xffffff
\tvendor_part_id:\t\t\t0
\thw_ver:\t\t\t\t0x0
\tphys_port_cnt:\t\t\t1
\t\tport:\t1
\t\t\tstate:\t\t\tPORT_ACTIVE (4)
\t\t\tmax_mtu:\t\t4096 (5)
\t\t\tactive_mtu:\t\t1024 (3)
\t\t\tsm_lid:\t\t\t0
\t\t\tport_lid:\t\t0
\t\t\tport_lmc:\t\t0x00
\t\t\tlink_layer:\t\tEthernet

""" % (GUID, GUID)
r = subprocess.run(verbs(pair.ns_a, pair.if_a, "ibv_devinfo"), capture_output=True,
                   text=True, env=env())
t.check(r.returncode == 0 and r.stdout == RXE_DEVINFO,
        "ibv_devinfo prints what rxe's prints at MTU 1500: %r" % r.stdout)
r = subprocess.run(verbs(pair.ns_a, pair.if_a, "ibv_devinfo", "-v"), capture_output=True,
                   text=True, env=env())
ll = link_local(m)
for want in (r"hca_id:\trxe0", r"state:\s+PORT_ACTIVE \(4\)", r"active_mtu:\s+1024 \(3\)",
             r"GID\[\s*0\]:\s+%s, RoCE v2" % re.escape(ll),
             r"GID\[\s*1\]:\s+::ffff:%s, RoCE v2" % re.escape(A_IP)):
    t.check(r.returncode == 0 and re.search(want, r.stdout) is not None,
            "ibv_devinfo -v on rxe0=%s shows %s: %r" % (pair.if_a, want, r.stdout[-900:]))

# --- the rxe habits across the pair, with a capture of B's end for the source ports ---
cap_path = os.path.join(OUT, "veth.pcap")
cap = t.spawn(in_ns(pair.ns_b, [t.ROCESHARK, "capture", "-i", pair.if_b, "-w",
                                cap_path, "-f", "udp port 4791"]),
              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
t.check(cap.stderr.readline().startswith("capture: "), "the capture started")
qpns = []
for gid in ("0", "1"):
    port = t.free_port()
    s, c = pair_run("ibv_rc_pingpong -g " + gid,
                    ["ibv_rc_pingpong", "-d", "rxe0", "-g", gid, "-n", "40", "-c", "-p",
                     str(port)], port)
    for side, out in (("server", s[1]), ("client", c[1])):
        t.check(re.search(r"^40 iters in", out, re.M) is not None,
                "ibv_rc_pingpong -g %s %s: 40 iterations: %r" % (gid, side, out[-300:]))
    t.check(("GID " + ll) in c[1] if gid == "0" else ("GID ::ffff:" + A_IP) in c[1],
            "ibv_rc_pingpong -g %s: the client's GID: %r" % (gid, c[1][:300]))
    if gid == "1":
        qpns = [int(x, 16) for x in re.findall(r"QPN 0x([0-9a-f]+)", c[1])[:2]]
time.sleep(0.2)
cap.terminate()
cap.communicate(timeout=20)
rows = t.roceshark_fields(cap_path, ["ip.src", "udp.srcport"])


def flow_sport(a, b):
    """rdma_calc_flow_label and rdma_flow_label_to_udp_sport, as every RoCEv2 driver."""
    v = a * b
    v ^= v >> 20
    v ^= v >> 40
    fl = v & 0xfffff
    return ((fl & 0x3fff) ^ ((fl & 0xfc000) >> 14)) | 0xc000


ports = {r[1] for r in rows if len(r) > 1 and r[0] in (A_IP, B_IP)}
t.check(len(qpns) == 2 and ports == {str(flow_sport(*qpns))},
        "IPv4 RoCE v2, both ways, from the flow label's UDP source port %s (QPNs %s): %s"
        % (qpns and flow_sport(*qpns), qpns, sorted(ports)))

# UD at the active MTU (1024 here), UC and an SRQ of two QPs, each on the other GID kind.
for tool, gid, extra in (("ibv_ud_pingpong", "0", ["-s", "1024"]), ("ibv_uc_pingpong", "1", []),
                         ("ibv_srq_pingpong", "0", ["-q", "2"])):
    port = t.free_port()
    s, c = pair_run("%s -g %s" % (tool, gid), [tool, "-d", "rxe0", "-g", gid, "-n", "40", "-c",
                                                "-p", str(port)] + extra, port)
    t.check(re.search(r"^40 iters in", c[1], re.M) is not None,
            "%s -g %s: 40 iterations: %r" % (tool, gid, c[1][-300:]))
HEADER = re.compile(r"^ #bytes\s+#iterations", re.M)
# ib_send_lat as the tutorial types it, with no -x: perftest picks the IPv4 RoCE v2 GID.
for tool, x, extra in (("ib_write_bw", "0", ["-s", "16384"]),
                       ("ib_send_bw", "1", ["-s", "16384", "--use-srq"]),
                       ("ib_send_lat", None, ["-s", "2"])):
    port = t.free_port()
    gid = ["-x", x] if x is not None else []
    s, c = pair_run("%s %s" % (tool, gid), [tool, "-d", "rxe0", "-n", "50", "-p", str(port)] +
                    gid + extra, port)
    lines = c[1].splitlines()
    row = [lines[i + 1].split() for i, y in enumerate(lines[:-1]) if HEADER.match(y)]
    t.check(len(row) == 1 and row[0][:2] == [extra[1], "50"],
            "%s %s: its row: %r" % (tool, gid, c[1][-500:]))
    if x is None:
        t.check(re.search(r"GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:88:39:0?1\b", c[1]),
                "%s picked the IPv4 GID: %r" % (tool, c[1][:900]))

def line_within(proc, seconds):
    """The next line proc prints, or "" when none comes within seconds."""
    ready, _, _ = select.select([proc.stdout], [], [], seconds)
    return proc.stdout.readline() if ready else ""


# --- the port follows the interface ---
watch = t.spawn(verbs(pair.ns_a, pair.if_a, "ibv_asyncwatch", "-d", "rxe0"),
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
first = line_within(watch, 20)
t.check(first.startswith("rxe0: async event FD"), "ibv_asyncwatch started: %r" % first)
t.run(["ip", "-n", pair.ns_a, "link", "set", pair.if_a, "down"])
down = line_within(watch, 20)
t.run(["ip", "-n", pair.ns_a, "link", "set", pair.if_a, "up"])
up = line_within(watch, 20)
watch.kill()
watch.communicate()
t.check("event_type IBV_EVENT_PORT_ERR (10), port 1" in down and
        "event_type IBV_EVENT_PORT_ACTIVE (9), port 1" in up,
        "the interface down, then up: %r %r" % (down, up))

t.finish("verbs_veth")
