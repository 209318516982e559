# SPDX-License-Identifier: GPL-2.0-or-later
"""perftest -R's client, scripted from its source rather than from our code, to check `perf -R`
as a server against the bytes perftest 4.5-0.17 (Debian 12, announcing 6.06) puts on the
wire (src/perftest_communication.c, src/perftest_resources.c):
- rdma_client_connect(): the channel's REQ for rdma_cm's port, no private data past rdma_cm's
  header, responder resources and initiator depth 0; REP; RTU;
- each of exchange_versions(), check_sys_data(), check_mtu(), ctx_hand_shake() and
  xchg_bw_reports() as one SEND of the message's bytes each way, the client first; the key
  message is struct pingpong_dest with its ints big-endian, four bytes of padding that hold
  what was on the stack, and a PSN of lrand48() that is not the QP's;
- create_rdma_cm_connection(): a barrier of zero keys, the test QP's REQ/REP/RTU, another;
- at the end (rdma_cm_disconnect_nodes()): the client's DREQ for the test QP, which crosses
  the server's, then the channel's DREQ (the process's exit).
The REQs are the real rping REQ of tests/captures/real/, rewritten."""
import random
import struct

import rcpeer as r

UD_SEND_ONLY = 0x64
GSI_QKEY = 0x80010000
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


class Client:
    def __init__(self, ep, server, real_req, ud_packet):
        self.ep, self.server, self.ud_packet = ep, server, ud_packet
        self.real_req = real_req            # a REQ MAD already rewritten to our addresses
        self.conns = {}                     # name: dict(tid, local, remote, qpn, psn, ...)
        self.mads = []                      # CM MADs received, in order: (attr, mad)
        self.pending = []                   # RC packets not yet taken

    # --- the wire ---

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
        end = timeout
        while end > 0:
            for i, (a, m) in enumerate(self.mads):
                if a == attr:
                    del self.mads[i]
                    return m
            if not self._pump(0.2):
                end -= 0.2
        return None

    def _send_mad(self, m):
        self.ep.send(self.ud_packet(self.ep.ip, self.server, m))

    # --- CM ---

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
        self._send_mad(bytes(req))
        rep = self.wait_mad(REP)
        if rep is None:
            return None
        c = {"tid": tid, "local": local_id, "remote": struct.unpack("!I", rep[HDR:HDR + 4])[0],
             "qpn": qpn, "psn": psn, "peer_qpn": int.from_bytes(rep[HDR + 12:HDR + 15], "big"),
             "peer_psn": int.from_bytes(rep[HDR + 20:HDR + 23], "big"), "msn": 0,
             "private": rep[HDR + 36:]}
        self._send_mad(mad(RTU, tid, struct.pack("!II", local_id, c["remote"])))
        self.conns[name] = c
        return c

    def dreq(self, name):
        c = self.conns[name]
        self._send_mad(mad(DREQ, c["tid"] + 1, struct.pack("!II", c["local"], c["remote"]) +
                           c["peer_qpn"].to_bytes(3, "big")))

    def drep_for(self, dreq):
        """Answers the server's DREQ with the DREP Linux's CM sends."""
        self._send_mad(mad(DREP, struct.unpack("!Q", dreq[8:16])[0],
                           struct.pack("!II", struct.unpack("!I", dreq[HDR + 4:HDR + 8])[0],
                                       struct.unpack("!I", dreq[HDR:HDR + 4])[0])))

    # --- SENDs on the channel ---

    def xchg(self, name, payload, timeout=5.0):
        """One step: our SEND, its ACK and the server's SEND (which we ACK); the server's
        payload, or None."""
        c = self.conns[name]
        self.ep.send(r.request(self.ep.ip, self.server, c["peer_qpn"], c["psn"], r.SEND_ONLY,
                               payload))
        mine, acked, theirs = c["psn"], False, None
        c["psn"] = (c["psn"] + 1) & 0xFFFFFF
        end = timeout
        while not (acked and theirs is not None) and end > 0:
            if not self.pending and not self._pump(0.2):
                end -= 0.2
                continue
            if not self.pending:
                continue
            d = self.pending.pop(0)
            if d["dqpn"] != c["qpn"]:
                continue
            if d["opcode"] == r.ACK and d["psn"] == mine and d["syndrome"] >> 5 == 0:
                acked = True
            elif d["opcode"] == r.SEND_ONLY:
                if d["psn"] == c["peer_psn"]:
                    theirs = d["payload"]
                    c["peer_psn"] = (c["peer_psn"] + 1) & 0xFFFFFF
                    c["msn"] += 1
                # ACK it (again, for a repeat whose ACK was lost).
                self.ep.send(r.response(self.ep.ip, self.server, c["peer_qpn"], d["psn"],
                                        r.ACK, msn=c["msn"]))
        return theirs if acked else None
