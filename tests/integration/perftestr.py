# SPDX-License-Identifier: GPL-2.0-or-later
"""perftest -R, scripted from its source rather than from our code, to check `perf -R`
against the bytes perftest puts on the wire (src/perftest_communication.c,
src/perftest_resources.c):
- the channel: rdma_client_connect() and rdma_server_connect(): a REQ for rdma_cm's port, no
  private data past rdma_cm's header, responder resources and initiator depth 0; REP; RTU;
- each of exchange_versions(), check_sys_data(), check_mtu(), ctx_hand_shake() and
  xchg_bw_reports() as one SEND of the message's bytes each way, the client first; the key
  message is struct pingpong_dest with its ints big-endian, four bytes of padding that hold
  what was on the stack, and a PSN of lrand48() that is not the QP's;
- create_rdma_cm_connection(): a barrier of zero keys, the test QP's REQ/REP/RTU (the server
  listens only after the barrier, so a client's REQ may meet a REJ and be tried again
  100 ms later), another barrier;
- rdma_cm_disconnect_nodes(): 4.5-0.17's client sends the test QP's DREQ, which may cross the
  server's; 25.01's server sends it and its client waits; the channel's DREQ comes with the
  process's exit.
Client plays perftest 4.5-0.17's client (Debian 12, announcing 6.06), Server 25.01.0-0.80's
server (Debian 13, 6.24). Their MADs are the real rping REQ and REP of tests/captures/real/,
rewritten."""
import random
import struct

import rcpeer as r

UD_SEND_ONLY = 0x64
REQ, REJ, REP, RTU, DREQ, DREP = 0x10, 0x12, 0x13, 0x14, 0x15, 0x16
HDR = 24


def mad(attr, tid, body):
    m = struct.pack("!BBBBHHQHHI", 1, 7, 2, 3, 0, 0, tid, attr, 0, 0) + body
    return m + bytes(256 - len(m))


def key(qpn=0, psn=0, rkey=0, vaddr=0, gid=bytes(16), out_reads=0, gid_index=0,
        padding=b"\xde\xad\xbe\xef"):
    """struct pingpong_dest as rdma_write_keys() sends it from x86_64."""
    return (struct.pack("!iiiiI", 0, out_reads, qpn, psn, rkey) + padding +
            struct.pack("!Q", vaddr) + gid + struct.pack("!Ii", 0, gid_index))


def preamble(version):
    """The steps before the test QP, as (name, what perftest of version sends, what perf -R
    answers with its defaults: 6.20, a 4096-byte page, 64-byte lines, MTU 4096 (the smaller
    one wins), zero keys)."""
    return [("version", version + bytes(16 - len(version)), b"6.20" + bytes(12)),
            ("page size", struct.pack("!I", 4096), struct.pack("!I", 4096)),
            ("cache line", struct.pack("!I", 64), struct.pack("!I", 64)),
            ("MTU", b"3\0", b"5\0"),
            ("zero keys", key(), bytes(56))]


class Peer:
    """One end over the Endpoint ep, towards peer: CM MADs on QP 1, SENDs on RC QPs."""

    def __init__(self, ep, peer, ud_packet):
        self.ep, self.peer, self.ud_packet = ep, peer, ud_packet
        self.conns = {}                     # name: tid, local, remote, qpn, psn, peer_...
        self.mads = []                      # CM MADs received and not yet taken
        self.pending = []                   # RC packets received and not yet taken

    def _pump(self, timeout):
        for d in self.ep.recv(timeout, 1):
            if d["opcode"] == UD_SEND_ONLY and d["dqpn"] == 1:
                m = d["payload"][8:]            # past the DETH
                self.mads.append((m[17], m))
            else:
                self.pending.append(d)
            return True
        return False

    def wait_mad(self, attr, timeout=5.0):
        left = timeout
        while left > 0:
            for i, (a, m) in enumerate(self.mads):
                if a == attr:
                    del self.mads[i]
                    return m
            if not self._pump(0.2):
                left -= 0.2
        return None

    def send_mad(self, m):
        self.ep.send(self.ud_packet(self.ep.ip, self.peer, m))

    def dreq(self, name):
        c = self.conns[name]
        self.send_mad(mad(DREQ, c["tid"] + 1, struct.pack("!II", c["local"], c["remote"]) +
                          c["peer_qpn"].to_bytes(3, "big")))

    def drep_for(self, dreq):
        """Answers a DREQ with the DREP Linux's CM sends."""
        self.send_mad(mad(DREP, struct.unpack("!Q", dreq[8:16])[0],
                          dreq[HDR + 4:HDR + 8] + dreq[HDR:HDR + 4]))

    def _packet(self, c, timeout):
        """The next RC packet for c's QP, or None."""
        left = timeout
        while left > 0:
            for i, d in enumerate(self.pending):      # another QP's wait for their turn
                if d["dqpn"] == c["qpn"]:
                    return self.pending.pop(i)
            if not self._pump(0.2):
                left -= 0.2
        return None

    def _ack(self, c, d):
        """ACKs a request of the peer's (again, for a repeat whose ACK was lost); True when it
        was the next one expected."""
        new = d["psn"] == c["peer_psn"]
        if new:
            c["peer_psn"] = (c["peer_psn"] + 1) & 0xFFFFFF
            c["msn"] += 1
        self.ep.send(r.response(self.ep.ip, self.peer, c["peer_qpn"], d["psn"], r.ACK,
                                msn=c["msn"]))
        return new

    def send(self, name, payload):
        c = self.conns[name]
        self.ep.send(r.request(self.ep.ip, self.peer, c["peer_qpn"], c["psn"], r.SEND_ONLY,
                               payload))
        c["sent"] = c["psn"]
        c["psn"] = (c["psn"] + 1) & 0xFFFFFF

    def step(self, name, payload=None, timeout=5.0):
        """Waits for our last SEND's ACK (when payload is None) and the peer's SEND, or
        sends payload and waits for both: the peer's payload, or None."""
        c = self.conns[name]
        if payload is not None:
            self.send(name, payload)
        acked, theirs = c.get("sent") is None, None
        while not (acked and theirs is not None):
            d = self._packet(c, timeout)
            if d is None:
                return None
            if d["opcode"] == r.ACK and d["psn"] == c.get("sent") and d["syndrome"] >> 5 == 0:
                acked, c["sent"] = True, None
            elif d["opcode"] == r.SEND_ONLY and self._ack(c, d):
                theirs = d["payload"]
        return theirs

    def packet(self, name, timeout=5.0):
        """The peer's next request on name's QP (ACKed), or None."""
        c = self.conns[name]
        while True:
            d = self._packet(c, timeout)
            if d is None or (d["opcode"] != r.ACK and self._ack(c, d)):
                return d


class Client(Peer):
    """perftest 4.5-0.17's -R client; real_req is a REQ MAD rewritten to our addresses."""

    def __init__(self, ep, peer, real_req, ud_packet):
        Peer.__init__(self, ep, peer, ud_packet)
        self.real_req = real_req

    def connect(self, name, qpn, psn, port, local_id):
        req = bytearray(self.real_req)
        tid = random.getrandbits(63)
        req[8:16] = struct.pack("!Q", tid)
        req[HDR:HDR + 4] = struct.pack("!I", local_id)
        req[HDR + 14:HDR + 16] = struct.pack("!H", port)    # service ID: 0x0106 | port
        req[HDR + 32:HDR + 35] = qpn.to_bytes(3, "big")
        req[HDR + 35] = 0                                   # responder resources
        req[HDR + 39] = 0                                   # initiator depth
        req[HDR + 44:HDR + 47] = psn.to_bytes(3, "big")
        req[HDR + 142:HDR + 144] = struct.pack("!H", 40000 + len(self.conns))
        self.send_mad(bytes(req))
        rep = self.wait_mad(REP)
        if rep is None:
            return None
        c = {"tid": tid, "local": local_id, "remote": struct.unpack("!I", rep[HDR:HDR + 4])[0],
             "qpn": qpn, "psn": psn, "peer_qpn": int.from_bytes(rep[HDR + 12:HDR + 15], "big"),
             "peer_psn": int.from_bytes(rep[HDR + 20:HDR + 23], "big"), "msn": 0,
             "private": rep[HDR + 36:]}
        self.send_mad(mad(RTU, tid, struct.pack("!II", local_id, c["remote"])))
        self.conns[name] = c
        return c


class Server(Peer):
    """perftest 25.01.0-0.80's -R server; real_rep is a REP MAD to answer with."""

    def __init__(self, ep, peer, real_rep, ud_packet):
        Peer.__init__(self, ep, peer, ud_packet)
        self.real_rep = real_rep
        self.refused = set()

    def wait_req(self, timeout=5.0):
        """The next REQ; a repeat of one already taken (its REP was slow) is skipped."""
        while True:
            req = self.wait_mad(REQ, timeout)
            if req is None:
                return None
            seen = {(c["remote"], c["tid"]) for c in self.conns.values()} | self.refused
            if (struct.unpack("!I", req[HDR:HDR + 4])[0],
                    struct.unpack("!Q", req[8:16])[0]) not in seen:
                break
        return {"tid": struct.unpack("!Q", req[8:16])[0],
                "remote": struct.unpack("!I", req[HDR:HDR + 4])[0],
                "port": struct.unpack("!H", req[HDR + 14:HDR + 16])[0],
                "peer_qpn": int.from_bytes(req[HDR + 32:HDR + 35], "big"),
                "peer_psn": int.from_bytes(req[HDR + 44:HDR + 47], "big"),
                "private": req[HDR + 140 + 36:]}    # past rdma_cm's header

    def reject(self, req, reason=8):
        """As Linux's CM answers a REQ for a port nobody listens on (invalid service ID)."""
        self.refused.add((req["remote"], req["tid"]))
        self.send_mad(mad(REJ, req["tid"], struct.pack("!IIBBH", 0, req["remote"], 0, 0,
                                                       reason)))

    def accept(self, name, req, qpn, psn, local_id):
        rep = bytearray(self.real_rep)
        rep[8:16] = struct.pack("!Q", req["tid"])
        rep[HDR:HDR + 8] = struct.pack("!II", local_id, req["remote"])
        rep[HDR + 12:HDR + 15] = qpn.to_bytes(3, "big")
        rep[HDR + 20:HDR + 23] = psn.to_bytes(3, "big")
        rep[HDR + 36:] = bytes(len(rep) - HDR - 36)     # no private data
        self.send_mad(bytes(rep))
        self.conns[name] = dict(req, local=local_id, qpn=qpn, psn=psn, msn=0)
        return self.wait_mad(RTU) is not None
