#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A perf latency test whose peer vanishes mid-run ends with an error instead of polling
for good (before, a write_lat server whose client had been killed spun at 50-90% of a core
until killed): the exchange's TCP connection ends with the peer's process, and perf looks at
it while it waits.
- write_lat, the client killed: the client's fault engine drops its WRITEs (its ACKs of the
  server's go out), so the server, whose first WRITE was acknowledged, waits for the
  client's first; once the client's requester has timed out once (--trace's 'req TIMEOUT'),
  the client is killed with SIGKILL. The server must exit 4 with one line naming the client.
- send_lat, the server killed: the server's SENDs dropped, the client waits for the
  server's first answer; the server is killed, and the client must exit 4 naming the server.
Each wait is for an event (the trace line, the process's exit), bounded at 20 s."""
import os
import time

import rcpeer as r
import rstest as t

BOUND = 20
out = t.tempdir()


def wait_for(cond, bound=BOUND):
    end = time.monotonic() + bound
    while not cond() and time.monotonic() < end:
        time.sleep(0.02)
    return cond()


def text(path):
    with open(path) as f:
        return f.read()


port = t.free_port(2)
for i, (test, opcode, killed) in enumerate((("write_lat", 10, "client"),
                                             ("send_lat", 4, "server"))):
    srv_ip, cli_ip = r.addresses(2)
    rules = os.path.join(out, "drop-%s.rules" % test)
    with open(rules, "w") as f:
        f.write("drop dir tx if infiniband.bth.opcode == %d\n" % opcode)
    # The side killed drops what it sends, and waits 1.07 s (--timeout 18) for an ACK.
    dropper = ["--faults", rules, "--timeout", "18", "--trace"]
    common = [t.ROCESHARK, "perf", test, "-n", "200", "-p", str(port + i)]
    err = {side: os.path.join(out, "%s-%s.err" % (test, side)) for side in ("server", "client")}
    srv = t.spawn(common + ["--bind", srv_ip] + (dropper if killed == "server" else []),
                  stdout=open(os.devnull, "w"), stderr=open(err["server"], "w"))
    wait_for(lambda: t.listening(port + i) or srv.poll() is not None)
    cli = t.spawn(common + ["--bind", cli_ip, "--connect", srv_ip] +
                  (dropper if killed == "client" else []),
                  stdout=open(os.devnull, "w"), stderr=open(err["client"], "w"))
    victim, other = (cli, srv) if killed == "client" else (srv, cli)
    survivor = "server" if killed == "client" else "client"
    timed_out = wait_for(lambda: "req TIMEOUT" in text(err[killed]) or victim.poll() is not None)
    waiting = other.poll() is None
    victim.kill()
    victim.wait(10)
    t.check(timed_out and waiting,
            "%s: the %s timed out (%s) while the %s still waited (%s)"
            % (test, killed, timed_out, survivor, waiting))
    ended = wait_for(lambda: other.poll() is not None)
    line = "roceshark: perf: the %s closed the connection of the exchange mid-test" % killed
    t.check(ended and other.returncode == 4 and line in text(err[survivor]),
            "%s: with the %s killed, the %s exits 4 with '%s' within %d s: exit %s\n%s"
            % (test, killed, survivor, line, BOUND, other.poll(), text(err[survivor])[-600:]))
t.finish("perf: a vanished peer ends the test")
