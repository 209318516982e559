#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`roceshark capture` at its edges, on a veth pair across two network namespaces:
- stopped by SIGINT or SIGTERM 0, 10 and 50 ms after it starts (started with both signals
  blocked, as a launcher that must stop it before its code runs does, and started normally
  and stopped once it catches them): each exits 0 with the counts line and a valid pcap
  that `roceshark read` and tshark read, holding as many frames as the counts say;
- a tmpfs of a few hundred KB, mounted in a private mount namespace that dies with the
  capture: the capture stops by itself with exit 3 and one line, and the file keeps every
  whole record that fitted (its size within one record of the tmpfs's capacity, every
  record whole and readable, the count as the counts line says)."""
import os
import signal
import subprocess
import time

import livenet as ln
import rstest as t

ln.need_root()
tmp = t.tempdir()
pair = ln.VethPair("robust")
STOPS = [(0.0, signal.SIGINT), (0.010, signal.SIGTERM), (0.050, signal.SIGINT)]


def launch(args, blocked):
    """roceshark in namespace B; with blocked, SIGINT and SIGTERM are blocked in it from
    before its first instruction (the mask is inherited through fork and exec)."""
    old = None
    if blocked:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        return subprocess.Popen(pair.in_b([t.ROCESHARK] + list(args)), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
    finally:
        if old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)


def catching(pid):
    """True once pid runs roceshark and catches SIGINT and SIGTERM (SigCgt)."""
    try:
        if not os.readlink("/proc/%d/exe" % pid).endswith("roceshark"):
            return False
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    mask = int(line.split()[1], 16)
                    return bool(mask & (1 << (signal.SIGINT - 1))) and \
                        bool(mask & (1 << (signal.SIGTERM - 1)))
    except OSError:
        pass
    return False


def finish(p, what, timeout=20):
    """ln.finish, but a capture that does not end is a failure, not a hang."""
    try:
        return ln.finish(p, timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        t.check(False, "%s: still running %d s after the stop" % (what, timeout))
        return None, b"", "", None


def check_stopped_capture(path, what, rc, err, counts):
    t.check(rc == 0, "%s: exit %r: %s" % (what, rc, err.strip()))
    t.check(counts is not None, "%s: the counts line: %r" % (what, err))
    try:
        recs = ln.read_pcap(path)[2]
    except (OSError, ValueError) as e:
        t.check(False, "%s: no valid pcap: %s" % (what, e))
        return
    t.check(counts is None or counts["done"] == len(recs),
            "%s: file has %d frames, counts say %r" % (what, len(recs), counts))
    rd = t.run([t.ROCESHARK, "read", "-r", path], check_rc=False)
    t.check(rd.returncode == 0 and len(rd.stdout.splitlines()) == len(recs),
            "%s: roceshark read: rc %d, %d lines for %d frames: %s"
            % (what, rd.returncode, len(rd.stdout.splitlines()), len(recs), rd.stderr))
    try:
        n = ln.tshark_count(path)
        t.check(n == len(recs), "%s: tshark reads %d frames, want %d" % (what, n, len(recs)))
    except ValueError as e:
        t.check(False, "%s: %s" % (what, e))


# --- stops while starting -----------------------------------------------------------------
for blocked in (True, False):
    for delay, sig in STOPS:
        what = "%s at %d ms (%s)" % (signal.Signals(sig).name, delay * 1000,
                                     "started blocked" if blocked else "once it catches them")
        path = os.path.join(tmp, "early_%d_%d.pcap" % (blocked, delay * 1000))
        p = launch(["capture", "-i", pair.if_b, "-w", path], blocked)
        if not blocked:
            end = time.time() + 10
            while not catching(p.pid) and p.poll() is None and time.time() < end:
                time.sleep(0.0005)
            t.check(catching(p.pid), "%s: the capture never caught the signals" % what)
        time.sleep(delay)
        p.send_signal(sig)
        rc, _, err, counts = finish(p, what)
        check_stopped_capture(path, what, rc, err, counts)

# --- a small disk -------------------------------------------------------------------------
# The tmpfs lives in a private mount namespace that ends with the shell, so nothing stays
# mounted whatever happens to the test; the shell copies the file out before it goes.
DISK_KB = 256
disk, kept = os.path.join(tmp, "disk"), os.path.join(tmp, "kept")
os.mkdir(disk)
os.mkdir(kept)
script = ('mount -t tmpfs -o size=%dk tmpfs "$1" || exit 99\n'
          'stat -f -c "%%b %%S" "$1" > "$2/capacity"\n'
          'ip netns exec "$3" "$4" capture -i "$5" -w "$1/full.pcap"\n'
          'rc=$?\n'
          'cp "$1/full.pcap" "$2/"\n'
          'exit $rc\n' % DISK_KB)
big = ln.rdma_frames(400, seed=5, payload_len=1024)     # 325 kB of records
big_pcap = os.path.join(tmp, "big.pcap")
ln.write_pcap(big_pcap, big)
p = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
                      disk, kept, pair.ns_b, t.ROCESHARK, pair.if_b],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
first = p.stderr.readline()
t.check(first.startswith(b"capture: "), "small disk: the capture started: %r" % first)
# All at once: everything waits in the writer's 1 MiB buffer until the flush that fails.
pair.send(big_pcap)
try:
    out, err = p.communicate(timeout=20)
except subprocess.TimeoutExpired:
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=20)
    t.check(False, "small disk: the capture did not stop by itself")
err = (first + err).decode(errors="replace")
rc = p.returncode
m = ln.COUNTS_RE.search(err)
path = os.path.join(kept, "full.pcap")
blocks, bsize = map(int, open(os.path.join(kept, "capacity")).read().split())
capacity = blocks * bsize
size = os.path.getsize(path)
errors = [x for x in err.splitlines() if x.startswith("roceshark: ")]
t.check(rc == 3 and errors == ["roceshark: %s/full.pcap: No space left on device" % disk],
        "small disk: exit %r and one line: %r" % (rc, err))
try:
    recs = ln.read_pcap(path)[2]     # raises on a partial record
except ValueError as e:
    recs = []
    t.check(False, "small disk: %s" % e)
got = [r[2] for r in recs]
n = len(got)
t.check(n > 0 and got == big[:n], "small disk: the %d frames kept are the first sent" % n)
t.check(size == 24 + sum(16 + len(f) for f in got), "small disk: %d bytes for %d records"
        % (size, n))
next_rec = 16 + len(big[n]) if n < len(big) else 0
print("small disk: %d of %d bytes used, %d whole records; the next record (%d bytes) did "
      "not fit" % (size, capacity, n, next_rec))
t.check(n < len(big) and capacity - next_rec < size <= capacity,
        "small disk: %d bytes kept on a %d-byte disk: not within one record (%d) of full"
        % (size, capacity, next_rec))
t.check(m is not None and int(m.group(3)) == n,
        "small disk: the counts say %s written, the file holds %d" % (m and m.group(3), n))
rd = t.run([t.ROCESHARK, "read", "-r", path], check_rc=False)
t.check(rd.returncode == 0 and len(rd.stdout.splitlines()) == n,
        "small disk: roceshark read finds %d frames" % len(rd.stdout.splitlines()))
t.check(ln.tshark_count(path) == n, "small disk: tshark reads a different count")

t.finish("capture: early stops, a small disk")
