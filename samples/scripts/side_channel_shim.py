#!/usr/bin/env python3
"""side_channel_shim.py ADDR STACK... : makes any RDMA stack whose QP is set up on its command
line a target of `roceshark inject` (docs/scripts.md, "The side channel"). For each requester
that connects to ADDR:18515 with its JSON line, STACK starts afresh, with {ip}, {qpn}, {psn}
and {pmtu} replaced by the requester's; the first line STACK prints, the JSON of its own QP
(ip, qpn, psn, rkey, va, length, pmtu), is the answer. Stop it with Ctrl-C or kill: STACK
stops with it."""
import json
import signal
import socket
import subprocess
import sys

listener = socket.create_server((sys.argv[1], 18515))
stack = None
# A kill ends STACK too (Ctrl-C reaches both already).
signal.signal(signal.SIGTERM, lambda *_: sys.exit(stack and stack.terminate()))
while True:
    conn, _ = listener.accept()
    with conn, conn.makefile("rw") as peer:
        ours = json.loads(peer.readline())
        if stack is not None:
            stack.terminate()
            stack.wait()
        stack = subprocess.Popen([a.format(**ours) for a in sys.argv[2:]], stdout=subprocess.PIPE,
                                 text=True)
        peer.write(stack.stdout.readline())
