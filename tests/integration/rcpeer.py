# SPDX-License-Identifier: GPL-2.0-or-later
"""rcpeer - talk RoCEv2 RC to roceshark's transport from Python, independently of it.

Frames are built with scapy.contrib.roce (IP/UDP/BTH, whose ICRC scapy computes) and raw
bytes for the extended headers scapy lacks (RETH, AtomicETH, ImmDt, IETH), sent from a raw
socket with our own IP header (any IP identification: a NIC's are not 0), and replies are
received with their whole IP header, so their ICRC is checked against scapy's. Every frame
either way is kept, to be written to a pcap and checked by `roceshark read` as well.

IPv6 works alike ("::1", "fe80::2%veth0"): scapy builds the headers but computes no IPv6
ICRC, so tests/gen/ibframes.py's does (another implementation than roceshark's), and as
Linux's raw IPv6 sockets hand over no IP header, the receiver puts back what the ICRC
covers from recvmsg(): the source, the destination (IPV6_PKTINFO), the traffic class.
"""
import atexit
import json
import os
import queue
import random
import select
import socket
import struct
import subprocess
import sys
import threading
import time

from scapy.contrib.roce import BTH
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.packet import Raw
from scapy.utils import wrpcap

import rstest as t

sys.path.insert(0, t.GEN_DIR)
import ibframes as ib  # noqa: E402

RC_CLIENT = os.environ.get("RC_CLIENT", os.path.join(t.SOURCE_DIR, "build", "rc_client"))
PORT = 4791
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)

# RC opcodes (IBTA Table 38).
SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_LAST_IMM, SEND_ONLY, SEND_ONLY_IMM = range(6)
WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM, WRITE_ONLY, WRITE_ONLY_IMM = range(6, 12)
READ_REQ, READ_FIRST, READ_MIDDLE, READ_LAST, READ_ONLY = range(12, 17)
ACK, ATOMIC_ACK, CMP_SWAP, FETCH_ADD = 0x11, 0x12, 0x13, 0x14
SEND_LAST_INV, SEND_ONLY_INV = 0x16, 0x17
CNP = 0x81

NAK_SEQ, NAK_INV, NAK_ACC, NAK_OP = 0x60, 0x61, 0x62, 0x63


def addresses(n=2):
    """n fresh loopback addresses, random enough that parallel tests never share one."""
    r = random.SystemRandom()
    base = (127, r.randrange(32, 250), r.randrange(1, 250))
    first = r.randrange(1, 240)
    return ["%d.%d.%d.%d" % (base + (first + i,)) for i in range(n)]


def addresses6(n):
    """n fresh IPv6 addresses added to lo (root, in the namespace of `unshare -n` that runs
    the tests), removed at exit. Each endpoint needs its own, since answers go to port 4791,
    and none is ::1, which tests running beside each other would share."""
    base = "fd00:%x:%x::" % (os.getpid() & 0xFFFF, random.SystemRandom().randrange(1, 0xFFFF))
    out = ["%s%x" % (base, k) for k in range(1, n + 1)]
    for a in out:
        subprocess.run(["ip", "-6", "addr", "add", a + "/128", "dev", "lo", "nodad"], check=True)
        atexit.register(subprocess.run, ["ip", "-6", "addr", "del", a + "/128", "dev", "lo"],
                        capture_output=True)
    return out


def is_v6(addr):
    return ":" in addr


def plain(addr):
    """The address as replies show it: without a scope, in canonical form."""
    host = addr.split("%")[0]
    return socket.inet_ntop(socket.AF_INET6, socket.inet_pton(socket.AF_INET6, host)) \
        if is_v6(host) else host


def sockaddr(addr, port):
    """A sockaddr tuple for addr ("a.b.c.d", "::1" or "fe80::1%eth0")."""
    if not is_v6(addr):
        return (addr, port)
    host, _, scope = addr.partition("%")
    return (host, port, 0, socket.if_nametoindex(scope) if scope else 0)


def _ip(src, dst, ecn, ip_id):
    if is_v6(src):
        return IPv6(src=plain(src), dst=plain(dst), tc=ecn, hlim=64)
    return IP(src=src, dst=dst, id=random.randrange(1, 65536) if ip_id is None else ip_id,
              flags="DF", tos=ecn, ttl=64)


def refit(raw):
    """A packet of any length from its IP header up to (not including) the ICRC: its IP and
    UDP lengths made to match, and the ICRC appended (scapy's for IPv4; ibframes' for IPv6,
    which scapy lacks)."""
    raw = bytearray(raw)
    v6 = raw[0] >> 4 == 6
    ihl = 40 if v6 else (raw[0] & 15) * 4
    total = len(raw) + 4
    if v6:
        raw[4:6] = struct.pack("!H", total - 40)
    else:
        raw[2:4] = struct.pack("!H", total)
    raw[ihl + 4:ihl + 6] = struct.pack("!H", total - ihl)
    if v6:
        return bytes(raw) + ib.icrc("ipv6", bytes(raw[:40]), bytes(raw[40:48]), bytes(raw[48:]))
    return bytes(raw) + IP(bytes(raw) + bytes(4))[BTH].compute_icrc(None)


def pattern(n, k=0):
    return bytes((i * 7 + k) & 0xFF for i in range(n))


def request(src, dst, dqpn, psn, op, payload=b"", reth=None, atomic=None, imm=None, ieth=None,
            ackreq=True, pkey=0xFFFF, tver=0, ip_id=None, ecn=0, padcount=None, sport=49152,
            fecn=0):
    """A whole RoCEv2 request as bytes, from the IP header to the ICRC (scapy's)."""
    ext = b""
    if reth is not None:
        ext += struct.pack("!QII", *reth)
    if atomic is not None:     # (va, rkey, swap_or_add, compare)
        ext += struct.pack("!QIQQ", *atomic)
    if imm is not None:
        ext += struct.pack("!I", imm)
    if ieth is not None:
        ext += struct.pack("!I", ieth)
    pad = (4 - len(payload) % 4) % 4 if padcount is None else padcount
    body = ext + payload + bytes((4 - len(payload) % 4) % 4)
    pkt = (_ip(src, dst, ecn, ip_id)
           / UDP(sport=sport, dport=PORT, chksum=None if is_v6(src) else 0)
           / BTH(opcode=op, psn=psn & 0xFFFFFF, dqpn=dqpn, ackreq=int(ackreq), pkey=pkey,
                 padcount=pad, version=tver, fecn=fecn, icrc=0 if is_v6(src) else None)
           / Raw(body))
    return refit(bytes(pkt)[:-4]) if is_v6(src) else bytes(pkt)


def response(src, dst, dqpn, psn, op, syndrome=0x1F, msn=0, payload=b"", orig=None):
    """A whole RoCEv2 response (ACK, NAK, READ response, Atomic ACK) as bytes."""
    body = b""
    if op in (READ_FIRST, READ_LAST, READ_ONLY, ACK, ATOMIC_ACK):
        body += bytes([syndrome]) + (msn & 0xFFFFFF).to_bytes(3, "big")
    if op == ATOMIC_ACK:
        body += struct.pack("!Q", orig)
    pad = (4 - len(payload) % 4) % 4
    pkt = (_ip(src, dst, 0, None)
           / UDP(sport=49153, dport=PORT, chksum=None if is_v6(src) else 0)
           / BTH(opcode=op, psn=psn & 0xFFFFFF, dqpn=dqpn, padcount=pad,
                 icrc=0 if is_v6(src) else None)
           / Raw(body + payload + bytes(pad)))
    return refit(bytes(pkt)[:-4]) if is_v6(src) else bytes(pkt)


def icrc_ok(raw):
    """True when the ICRC at the end of raw (an IP packet) is the one an independent tool
    computes: scapy for IPv4, ibframes for IPv6."""
    return refit(raw[:-4]) == raw


def parse(raw):
    """The fields of a reply (IPv4 or IPv6 packet bytes) as a dict."""
    v6 = raw[0] >> 4 == 6
    ihl = 40 if v6 else (raw[0] & 15) * 4
    bth = raw[ihl + 8:ihl + 20]
    op = bth[0]
    if v6:
        ip = {"src": socket.inet_ntop(socket.AF_INET6, raw[8:24]),
              "dst": socket.inet_ntop(socket.AF_INET6, raw[24:40]),
              "ip_id": None, "df": None, "ecn": (raw[1] >> 4) & 3}
    else:
        ip = {"src": socket.inet_ntoa(raw[12:16]), "dst": socket.inet_ntoa(raw[16:20]),
              "ip_id": struct.unpack("!H", raw[4:6])[0], "df": bool(raw[6] & 0x40),
              "ecn": raw[1] & 3}
    d = dict(ip, raw=raw, opcode=op)
    d.update({ "pad": (bth[1] >> 4) & 3, "tver": bth[1] & 15,
         "pkey": struct.unpack("!H", bth[2:4])[0], "becn": (bth[4] >> 6) & 1,
         "dqpn": int.from_bytes(bth[5:8], "big"), "ackreq": bth[8] >> 7,
         "psn": int.from_bytes(bth[9:12], "big"), "icrc_ok": icrc_ok(raw)})
    rest = raw[ihl + 20:-4]
    if op in (WRITE_FIRST, WRITE_ONLY, WRITE_ONLY_IMM, READ_REQ):
        d["reth"] = struct.unpack("!QII", rest[:16])
        rest = rest[16:]
    if op in (CMP_SWAP, FETCH_ADD):
        d["atomic"] = struct.unpack("!QIQQ", rest[:28])     # va, rkey, swap/add, compare
        rest = rest[28:]
    if op in (SEND_LAST_IMM, SEND_ONLY_IMM, WRITE_LAST_IMM, WRITE_ONLY_IMM):
        d["imm"] = struct.unpack("!I", rest[:4])[0]
        rest = rest[4:]
    if op in (SEND_LAST_INV, SEND_ONLY_INV):
        d["ieth"] = struct.unpack("!I", rest[:4])[0]
        rest = rest[4:]
    if op in (READ_FIRST, READ_LAST, READ_ONLY, ACK, ATOMIC_ACK):
        d["syndrome"], d["msn"] = rest[0], int.from_bytes(rest[1:4], "big")
        rest = rest[4:]
    if op == ATOMIC_ACK:
        d["orig"] = struct.unpack("!Q", rest[:8])[0]
        rest = rest[8:]
    if op == CNP:
        d["cnp_reserved"] = rest
        rest = b""
    d["payload"] = rest[:len(rest) - d["pad"]] if d["pad"] else rest
    return d


class Endpoint:
    """Our side of the wire on one loopback address: sends crafted frames from a raw socket
    and receives replies with their IP headers."""

    def __init__(self, ip):
        self.ip = ip
        self.v6 = is_v6(ip)
        family = socket.AF_INET6 if self.v6 else socket.AF_INET
        self.udp = socket.socket(family, socket.SOCK_DGRAM)
        self.udp.bind(sockaddr(ip, PORT))       # so that the kernel answers no ICMP
        self.rx = socket.socket(family, socket.SOCK_RAW, socket.IPPROTO_UDP)
        self.rx.bind(sockaddr(ip, 0))
        if self.v6:
            self.rx.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_RECVPKTINFO, 1)
            self.rx.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_RECVTCLASS, 1)
        self.rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        # The kernel's arrival time of each packet: timing checks must not
        # depend on when Python got round to reading it.
        self.rx.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.tx = socket.socket(family, socket.SOCK_RAW, socket.IPPROTO_RAW)
        self.frames = []                # every frame either way, in order
        # Sources to listen to (None: all). Other tests on this machine may send
        # RoCEv2 on loopback too; a random address can, rarely, be shared.
        self.accept = None

    def close(self):
        for s in (self.udp, self.rx, self.tx):
            s.close()

    def send(self, raw):
        self.frames.append(raw)
        if self.v6:     # a link-local destination is on our interface
            scope = sockaddr(self.ip, 0)[3]
            self.tx.sendto(raw, (socket.inet_ntop(socket.AF_INET6, raw[24:40]), 0, 0, scope))
        else:
            self.tx.sendto(raw, (socket.inet_ntoa(raw[16:20]), 0))

    @staticmethod
    def _with_ipv6_header(udp, anc, addr):
        """The IPv6 packet a raw socket received without its header: the header put back
        from the source, IPV6_PKTINFO's destination and IPV6_TCLASS."""
        dst, tclass = bytes(16), 0
        for level, kind, data in anc:
            if level == socket.IPPROTO_IPV6 and kind == socket.IPV6_PKTINFO:
                dst = data[:16]
            elif level == socket.IPPROTO_IPV6 and kind == socket.IPV6_TCLASS:
                tclass = struct.unpack("i", data[:4])[0]
        src = socket.inet_pton(socket.AF_INET6, addr[0].split("%")[0])
        return struct.pack("!IHBB", 6 << 28 | tclass << 20, len(udp), 17, 64) + src + dst + udp

    def recv(self, timeout=1.0, count=None):
        """Replies (parsed) arriving within timeout; returns early once count arrived."""
        out, end = [], time.time() + timeout
        while count is None or len(out) < count:
            left = end - time.time()
            if left <= 0 or not select.select([self.rx], [], [], left)[0]:
                break
            raw, anc, _, addr = self.rx.recvmsg(65535, 256)
            if self.v6:
                raw = self._with_ipv6_header(raw, anc, addr)
            ts = time.time()
            for level, kind, data in anc:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack("qq", data[:16])
                    ts = sec + nsec / 1e9
            ihl = 40 if self.v6 else (raw[0] & 15) * 4
            if struct.unpack("!H", raw[ihl + 2:ihl + 4])[0] != PORT:
                continue
            d = parse(raw)
            if self.accept is not None and d["src"] not in {plain(a) for a in self.accept}:
                continue
            self.frames.append(raw)
            d["ts"] = ts
            out.append(d)
        return out

    def one(self, timeout=1.0):
        got = self.recv(timeout, 1)
        return got[0] if got else None

    def write_pcap(self, path):
        wrpcap(path, [IPv6(f) if f[0] >> 4 == 6 else IP(f) for f in self.frames])


def icrc_statuses(path):
    """roceshark's ICRC verdict on every frame of a pcap."""
    return [r[0] for r in t.roceshark_fields(path, ["roceshark.icrc.status"])]


class Responder:
    """`roceshark responder` in the background, with its JSON lines collected."""

    def __init__(self, args, stderr=subprocess.PIPE, prefix=()):
        """stderr: a file to write the responder's stderr to, for tests that read it while
        it runs (a pipe nobody reads could fill up and stop the responder); prefix: what
        runs it (ip netns exec NS)."""
        self.proc = t.spawn(list(prefix) + [t.ROCESHARK, "responder"] + args +
                            ["--control", "-v"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=stderr, text=True, bufsize=1)
        self.lines = queue.Queue()
        self.completions = []
        threading.Thread(target=self._read, daemon=True).start()
        self.info = self._next(lambda d: "qpn" in d and "icrc_check" in d, 10)
        if self.info is None:
            raise RuntimeError("responder did not start: %s"
                               % (self.proc.stderr.read() if self.proc.stderr else ""))

    def _read(self):
        for line in self.proc.stdout:
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if "wc" in d:
                self.completions.append(d)
            else:
                self.lines.put(d)
        self.lines.put(None)

    def _next(self, pred, timeout=5):
        end = time.time() + timeout
        while time.time() < end:
            try:
                d = self.lines.get(timeout=max(0.01, end - time.time()))
            except queue.Empty:
                break
            if d is None:
                return None
            if pred(d):
                return d
        return None

    def ctl(self, cmd, key):
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()
        return self._next(lambda d: key in d)

    def counters(self):
        return self.ctl("counters", "executed")

    def settled(self):
        """A round trip of the control channel: the responder reports a packet's completions
        in the turn of its loop that took the packet, before it reads its next command, so
        once the answer is in, the completion of every packet it acknowledged is in
        self.completions. An order, not a wait of some milliseconds."""
        return self.counters()

    def state(self):
        return {q["qpn"]: q for q in self.ctl("state", "qps")["qps"]}

    def dump(self, off, length):
        return bytes.fromhex(self.ctl("dump %d %d" % (off, length), "hex")["hex"])

    def stop(self):
        """Ends the responder; returns its exit counters."""
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        final = self._next(lambda d: "executed" in d, 10)
        self.proc.wait(10)
        return final


def run_client(bind, peer, peer_qpn, ops, extra=(), timeout=30, prefix=()):
    """Runs rc_client (under prefix, as ip netns exec NS); returns (completions, summary)."""
    p = subprocess.run(list(prefix) + [RC_CLIENT, "--bind", bind, "--peer", peer,
                                       "--peer-qpn", str(peer_qpn)]
                       + list(extra) + list(ops), capture_output=True, text=True,
                       timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("rc_client failed: " + p.stderr)
    lines = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
    return [x for x in lines if "wr_id" in x], lines[-1]
