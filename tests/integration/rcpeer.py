# SPDX-License-Identifier: GPL-2.0-or-later
"""rcpeer - talk RoCEv2 RC to roceshark's transport from Python, independently of it.

Frames are built with scapy.contrib.roce (IP/UDP/BTH, whose ICRC scapy computes) and raw
bytes for the extended headers scapy lacks (RETH, AtomicETH, ImmDt, IETH), sent from a raw
socket with our own IP header (any IP identification: a NIC's are not 0), and replies are
received with their whole IP header, so their ICRC is checked against scapy's. Every frame
either way is kept, to be written to a pcap and checked by `roceshark read` as well.
"""
import json
import os
import queue
import random
import select
import socket
import struct
import subprocess
import threading
import time

from scapy.contrib.roce import BTH
from scapy.layers.inet import IP, UDP
from scapy.packet import Raw
from scapy.utils import wrpcap

import rstest as t

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
    pkt = (IP(src=src, dst=dst, id=random.randrange(1, 65536) if ip_id is None else ip_id,
              flags="DF", tos=ecn, ttl=64)
           / UDP(sport=sport, dport=PORT, chksum=0)
           / BTH(opcode=op, psn=psn & 0xFFFFFF, dqpn=dqpn, ackreq=int(ackreq), pkey=pkey,
                 padcount=pad, version=tver, fecn=fecn)
           / Raw(body))
    return bytes(pkt)


def response(src, dst, dqpn, psn, op, syndrome=0x1F, msn=0, payload=b"", orig=None):
    """A whole RoCEv2 response (ACK, NAK, READ response, Atomic ACK) as bytes."""
    body = b""
    if op in (READ_FIRST, READ_LAST, READ_ONLY, ACK, ATOMIC_ACK):
        body += bytes([syndrome]) + (msn & 0xFFFFFF).to_bytes(3, "big")
    if op == ATOMIC_ACK:
        body += struct.pack("!Q", orig)
    pad = (4 - len(payload) % 4) % 4
    pkt = (IP(src=src, dst=dst, id=random.randrange(1, 65536), flags="DF", ttl=64)
           / UDP(sport=49153, dport=PORT, chksum=0)
           / BTH(opcode=op, psn=psn & 0xFFFFFF, dqpn=dqpn, padcount=pad)
           / Raw(body + payload + bytes(pad)))
    return bytes(pkt)


def scapy_icrc_ok(raw):
    """True when the ICRC at the end of raw (an IPv4 packet) is the one scapy computes."""
    pkt = IP(raw)
    want = pkt[BTH].compute_icrc(None)
    return raw[-4:] == want


def parse(raw):
    """The fields of a reply (IPv4 packet bytes) as a dict."""
    ihl = (raw[0] & 15) * 4
    bth = raw[ihl + 8:ihl + 20]
    op = bth[0]
    d = {"raw": raw, "src": socket.inet_ntoa(raw[12:16]), "dst": socket.inet_ntoa(raw[16:20]),
         "ip_id": struct.unpack("!H", raw[4:6])[0], "df": bool(raw[6] & 0x40),
         "ecn": raw[1] & 3, "opcode": op, "pad": (bth[1] >> 4) & 3, "tver": bth[1] & 15,
         "pkey": struct.unpack("!H", bth[2:4])[0], "becn": (bth[4] >> 6) & 1,
         "dqpn": int.from_bytes(bth[5:8], "big"), "ackreq": bth[8] >> 7,
         "psn": int.from_bytes(bth[9:12], "big"), "icrc_ok": scapy_icrc_ok(raw)}
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
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind((ip, PORT))       # so that the kernel answers no ICMP
        self.rx = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
        self.rx.bind((ip, 0))
        self.rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        # The kernel's arrival time of each packet: timing checks must not
        # depend on when Python got round to reading it.
        self.rx.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.tx = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
        self.frames = []                # every frame either way, in order
        # Sources to listen to (None: all). Other tests on this machine may send
        # RoCEv2 on loopback too; a random address can, rarely, be shared.
        self.accept = None

    def close(self):
        for s in (self.udp, self.rx, self.tx):
            s.close()

    def send(self, raw):
        self.frames.append(raw)
        self.tx.sendto(raw, (socket.inet_ntoa(raw[16:20]), 0))

    def recv(self, timeout=1.0, count=None):
        """Replies (parsed) arriving within timeout; returns early once count arrived."""
        out, end = [], time.time() + timeout
        while count is None or len(out) < count:
            left = end - time.time()
            if left <= 0 or not select.select([self.rx], [], [], left)[0]:
                break
            raw, anc, _, _ = self.rx.recvmsg(65535, 256)
            ts = time.time()
            for level, kind, data in anc:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack("qq", data[:16])
                    ts = sec + nsec / 1e9
            ihl = (raw[0] & 15) * 4
            if struct.unpack("!H", raw[ihl + 2:ihl + 4])[0] != PORT:
                continue
            if self.accept is not None and socket.inet_ntoa(raw[12:16]) not in self.accept:
                continue
            self.frames.append(raw)
            d = parse(raw)
            d["ts"] = ts
            out.append(d)
        return out

    def one(self, timeout=1.0):
        got = self.recv(timeout, 1)
        return got[0] if got else None

    def write_pcap(self, path):
        wrpcap(path, [IP(f) for f in self.frames])


def icrc_statuses(path):
    """roceshark's ICRC verdict on every frame of a pcap."""
    return [r[0] for r in t.roceshark_fields(path, ["roceshark.icrc.status"])]


class Responder:
    """`roceshark responder` in the background, with its JSON lines collected."""

    def __init__(self, args, stderr=subprocess.PIPE, prefix=()):
        """stderr: a file to write the responder's stderr to, for tests that read it while
        it runs (a pipe nobody reads could fill up and stop the responder); prefix: what
        runs it (ip netns exec NS)."""
        self.proc = subprocess.Popen(list(prefix) + [t.ROCESHARK, "responder"] + args +
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
