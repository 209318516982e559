# SPDX-License-Identifier: GPL-2.0-or-later
"""livenet - what the live capture tests share: a veth pair across two network namespaces
that a test creates and removes itself, frames to send, a sender, and a pcap reader.

Traffic never leaves the pair: one end lives in namespace A (the sender), the other in
namespace B (the capture). Both namespaces are deleted at exit, even on failure."""
import atexit
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time

import rstest as t

sys.path.insert(0, t.GEN_DIR)
import ibframes as ib  # noqa: E402

SENDER = os.path.join(t.HERE, "sendframes.py")
DST_MAC = bytes.fromhex("020000000002")
SRC_MAC = bytes.fromhex("020000000001")
COUNTS_RE = re.compile(r"capture: (\S+): (\d+) received, (\d+) (\w+), (\d+) dropped by kernel, "
                       r"(\d+) dropped by interface, (\d+) dropped by ring")


def need_root():
    if os.geteuid() != 0:
        print("live capture tests need root (network namespaces, packet sockets)")
        sys.exit(1)


def _remove_stale(tag):
    """Deletes namespaces left by an earlier run of this test that was killed."""
    p = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    for line in p.stdout.splitlines():
        m = re.match(r"(rs_%s(\d+)_[ab])\b" % tag, line)
        if m and not os.path.exists("/proc/%s" % m.group(2)):
            subprocess.run(["ip", "netns", "del", m.group(1)], capture_output=True)


def _exit_on_signal(sig, frame):
    raise SystemExit(128 + sig)


class Namespace:
    """One namespace of the test's own, its loopback up; deleted at exit."""

    def __init__(self, tag):
        _remove_stale(tag)
        signal.signal(signal.SIGTERM, _exit_on_signal)
        self.ns = "rs_%s%d_a" % (tag, os.getpid())
        atexit.register(self.remove)
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)
        VethPair._ip("netns", "add", self.ns)
        VethPair._ip("-n", self.ns, "link", "set", "lo", "up")

    def remove(self):
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)


class VethPair:
    """Namespaces ns_a, ns_b joined by veth ends if_a (in ns_a) and if_b (in ns_b), of MTU
    mtu."""

    def __init__(self, tag, mtu=9000):
        t.require("netns", "mount-root", "raw")
        _remove_stale(tag)
        # SIGTERM (a timeout) still runs the atexit clean-up.
        signal.signal(signal.SIGTERM, _exit_on_signal)
        uid = "%s%d" % (tag, os.getpid())
        self.ns_a, self.ns_b = "rs_%s_a" % uid, "rs_%s_b" % uid
        self.if_a, self.if_b = ("rsa%s" % uid)[:15], ("rsb%s" % uid)[:15]
        atexit.register(self.remove)
        for ns in (self.ns_a, self.ns_b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
            self._ip("netns", "add", ns)
        self._ip("link", "add", self.if_a, "netns", self.ns_a, "type", "veth",
                 "peer", "name", self.if_b, "netns", self.ns_b)
        for ns, ifname in ((self.ns_a, self.if_a), (self.ns_b, self.if_b)):
            # No IPv6: the namespace stays silent apart from what the test sends.
            subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-qw",
                            "net.ipv6.conf.all.disable_ipv6=1"], capture_output=True)
            self._ip("-n", ns, "link", "set", ifname, "mtu", str(mtu), "up")
            self._ip("-n", ns, "link", "set", "lo", "up")

    @staticmethod
    def _ip(*args):
        p = subprocess.run(["ip"] + list(args), capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError("ip %s: %s" % (" ".join(args), p.stderr.strip()))

    def remove(self):
        for ns in (self.ns_a, self.ns_b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)

    def in_b(self, args):
        return ["ip", "netns", "exec", self.ns_b] + list(args)

    def in_a(self, args):
        return ["ip", "netns", "exec", self.ns_a] + list(args)

    def link_local(self, n_a, n_b):
        """Turns IPv6 on at both ends and gives n_a link-local addresses to if_a (fe80::a:K)
        and n_b to if_b (fe80::b:K), without duplicate address detection; returns the two
        lists, each address with its scope ("fe80::a:1%if_a")."""
        out = []
        for ns, ifname, tag, n in ((self.ns_a, self.if_a, "a", n_a),
                                   (self.ns_b, self.if_b, "b", n_b)):
            for key in ("all", ifname):
                self._ip("netns", "exec", ns, "sysctl", "-qw",
                         "net.ipv6.conf.%s.disable_ipv6=0" % key)
            addrs = ["fe80::%s:%x" % (tag, k) for k in range(1, n + 1)]
            for a in addrs:
                self._ip("-n", ns, "addr", "add", a + "/64", "dev", ifname, "nodad")
            out.append(["%s%%%s" % (a, ifname) for a in addrs])
        return out

    def send(self, pcap, gap_us=0, pause_every=0, pause_ms=0):
        """Sends every frame of pcap from if_a; returns when all are sent."""
        args = [t.PYTHON, SENDER, self.if_a, pcap, "--gap-us", str(gap_us),
                "--pause-every", str(pause_every), "--pause-ms", str(pause_ms)]
        t.run(self.in_a(args))

    def send_async(self, pcap, gap_us=0, hold_at=0):
        """Starts sending pcap from if_a. With hold_at, the sender stops after that many frames
        and prints "held N"; wait_held() waits for that, release() lets it go on."""
        args = [t.PYTHON, SENDER, self.if_a, pcap, "--gap-us", str(gap_us),
                "--hold-at", str(hold_at)]
        return t.spawn(self.in_a(args), stdout=subprocess.PIPE, stdin=subprocess.PIPE,
                       text=True)


def wait_held(sender):
    """Reads the sender's output up to its "held N" line; returns N."""
    for line in sender.stdout:
        if line.startswith("held "):
            return int(line.split()[1])
    raise RuntimeError("the sender ended without holding")


def release(sender):
    sender.stdin.write("\n")
    sender.stdin.close()


class Chain:
    """Three namespaces in a row, as a requester, a bridge and a responder see them:
    ns_req (if_req, ip_req) - (if_a) ns_br (if_b) - (if_resp, ip_resp) ns_resp, over two veth
    pairs. The bridge's ends have no address; the others are in one /24. Removed at exit."""

    def __init__(self, tag, ip_req="10.88.0.1", ip_resp="10.88.0.2"):
        _remove_stale(tag)
        signal.signal(signal.SIGTERM, _exit_on_signal)
        uid = "%s%d" % (tag, os.getpid())
        self.ns_req, self.ns_br, self.ns_resp = ("rs_%s_%s" % (uid, x) for x in "abc")
        self.if_req, self.if_a = ("rq%s" % uid)[:15], ("ba%s" % uid)[:15]
        self.if_b, self.if_resp = ("bb%s" % uid)[:15], ("rp%s" % uid)[:15]
        self.ip_req, self.ip_resp = ip_req, ip_resp
        atexit.register(self.remove)
        for ns in (self.ns_req, self.ns_br, self.ns_resp):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
            VethPair._ip("netns", "add", ns)
            subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-qw",
                            "net.ipv6.conf.all.disable_ipv6=1"], capture_output=True)
            VethPair._ip("-n", ns, "link", "set", "lo", "up")
        VethPair._ip("link", "add", self.if_req, "netns", self.ns_req, "type", "veth", "peer",
                     "name", self.if_a, "netns", self.ns_br)
        VethPair._ip("link", "add", self.if_b, "netns", self.ns_br, "type", "veth", "peer",
                     "name", self.if_resp, "netns", self.ns_resp)
        for ns, ifname in ((self.ns_req, self.if_req), (self.ns_br, self.if_a),
                           (self.ns_br, self.if_b), (self.ns_resp, self.if_resp)):
            VethPair._ip("-n", ns, "link", "set", ifname, "mtu", "9000", "up")
            # A bridge that works through packet sockets sees frames as the sender's
            # driver left them: checksums left to offload are not done, and coalesced
            # super-frames are larger than the link. Off, as for tcpreplay.
            subprocess.run(["ip", "netns", "exec", ns, "ethtool", "-K", ifname, "tx", "off",
                            "tso", "off", "gso", "off", "gro", "off"], capture_output=True)
        VethPair._ip("-n", self.ns_req, "addr", "add", ip_req + "/24", "dev", self.if_req)
        VethPair._ip("-n", self.ns_resp, "addr", "add", ip_resp + "/24", "dev", self.if_resp)

    def mac(self, ns, ifname):
        return subprocess.run(["ip", "netns", "exec", ns, "cat",
                               "/sys/class/net/%s/address" % ifname],
                              capture_output=True, text=True, check=True).stdout.strip()

    def inside(self, ns, args):
        return ["ip", "netns", "exec", ns] + list(args)

    def background(self, ns, args, first):
        """roceshark ARGS in namespace ns; returns once its first stderr line starts with
        first (each service says so when it is ready)."""
        p = t.spawn(self.inside(ns, [t.ROCESHARK] + list(args)),
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        line = p.stderr.readline()
        if not line.startswith(first):
            p.kill()
            raise RuntimeError("%s did not start: %r %s" % (args[0], line, p.stderr.read()))
        return p

    @staticmethod
    def stop(p):
        """Interrupts a process of background(); returns (exit status, stderr)."""
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=20)
        return p.returncode, err

    def remove(self):
        for ns in (self.ns_req, self.ns_br, self.ns_resp):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def start(pair, args):
    """Starts roceshark in namespace B; returns once it is capturing (it says so on stderr)."""
    p = t.spawn(pair.in_b([t.ROCESHARK] + list(args)), stdout=subprocess.PIPE,
                stderr=subprocess.PIPE)
    first = p.stderr.readline()
    if not first.startswith(b"capture: "):
        out, err = p.communicate(timeout=10)
        raise RuntimeError("roceshark did not start: %r" % (first + err))
    return p


def finish(p, timeout=20):
    """Waits for roceshark; returns (rc, stdout bytes, stderr text, counts dict or None)."""
    out, err = p.communicate(timeout=timeout)
    err = err.decode(errors="replace")
    m = COUNTS_RE.search(err)
    counts = None
    if m:
        counts = {"received": int(m.group(2)), "done": int(m.group(3)),
                  "kernel": int(m.group(5)), "iface": int(m.group(6)), "ring": int(m.group(7))}
    return p.returncode, out, err, counts


def interrupt(p):
    p.send_signal(signal.SIGINT)


# --- Frames -------------------------------------------------------------------------------

def with_macs(frame):
    return DST_MAC + SRC_MAC + frame[12:]


def tagged(frame, vlan_tags):
    """Inserts tags (list of (tpid, tci)) after the MAC addresses."""
    tags = b"".join(struct.pack("!HH", tpid, tci) for tpid, tci in vlan_tags)
    return frame[:12] + tags + frame[12:]


def rdma_frames(n, seed=7, payload_len=None):
    """n RDMA frames: RoCEv2 (IPv4, IPv6) and RoCEv1, untagged, 802.1Q and QinQ tagged, each
    with random fields (so no two are alike) and a good ICRC."""
    g = ib.Gen(seed)
    out = []
    ops = [0x04, 0x0A, 0x11, 0x06, 0x0C, 0x64]
    for i in range(n):
        op = ops[i % len(ops)]
        kind = i % 3
        if kind == 2:
            l3, et, _ = g.rocev1(op, bad_rate=0.0)
        else:
            l3, et, _ = g.rocev2(op, ipv6=kind == 1, bad_rate=0.0, payload_len=payload_len)
        frame = with_macs(g.ethernet(et, l3, 0))
        tags = [[], [(0x8100, 0x2000 | (100 + i % 7))],
                [(0x88A8, 200), (0x8100, 0x6000 | 300)]][(i // 3) % 3]
        out.append(tagged(frame, tags) if tags else frame)
    return out


def write_pcap(path, frames):
    w = ib.PcapWriter(path, 1)
    for f in frames:
        w.write(f)
    w.close()


def read_pcap(path):
    """Frames of a classic pcap file: (magic, linktype, [(sec, frac, bytes, orig_len)]).
    Raises ValueError when the file is not whole."""
    data = open(path, "rb").read()
    if len(data) < 24:
        raise ValueError("%s: %d bytes, no file header" % (path, len(data)))
    magic, _, _, _, _, snaplen, linktype = struct.unpack("<IHHiIII", data[:24])
    if magic not in (0xA1B2C3D4, 0xA1B23C4D):
        raise ValueError("%s: magic %08x" % (path, magic))
    pos, recs = 24, []
    while pos < len(data):
        if len(data) - pos < 16:
            raise ValueError("%s: a partial record header at %d" % (path, pos))
        sec, frac, caplen, orig = struct.unpack("<IIII", data[pos:pos + 16])
        if len(data) - pos - 16 < caplen:
            raise ValueError("%s: a partial record at %d" % (path, pos))
        recs.append((sec, frac, data[pos + 16:pos + 16 + caplen], orig))
        pos += 16 + caplen
    return magic, linktype, recs


def tshark_count(path):
    """Frames tshark reads in path; raises when tshark finds the file damaged."""
    p = t.run(["tshark", "-r", path, "-T", "fields", "-e", "frame.number"], check_rc=False)
    if p.returncode != 0:
        raise ValueError("tshark -r %s: %s" % (path, p.stderr.strip()))
    return len(p.stdout.split())
