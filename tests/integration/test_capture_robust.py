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
  record whole and readable, the count as the counts line says), written by name (-w FILE)
  and as standard output the shell redirected there (-w - > FILE);
- standard output into a pipe whose reader (head -c) leaves after 100 kB: exit 3 with one
  line, and the counts at least the whole records the reader got."""
import os
import signal
import subprocess
import time

import livenet as ln
import rstest as t

t.require("netns", "mount-root", "raw")

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
        return t.spawn(pair.in_b([t.ROCESHARK] + list(args)), stdout=subprocess.PIPE,
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

# --- a small disk ---------------------------------------------------------------------------
# The tmpfs lives in a private mount namespace that ends with the shell, so nothing stays
# mounted whatever happens to the test; the shell copies the file out before it goes.
DISK_KB = 256
big = ln.rdma_frames(400, seed=5, payload_len=1024)     # 325 kB of records
big_pcap = os.path.join(tmp, "big.pcap")
ln.write_pcap(big_pcap, big)


def small_disk(how):
    """capture to a file of a full tmpfs, by name (-w FILE) or as standard output
    redirected there by the shell (-w - > FILE, a descriptor opened write-only)."""
    disk, kept = os.path.join(tmp, "disk_" + how), os.path.join(tmp, "kept_" + how)
    os.mkdir(disk)
    os.mkdir(kept)
    out = '-w "$1/full.pcap"' if how == "file" else '-w - > "$1/full.pcap"'
    script = ('mount -t tmpfs -o size=%dk tmpfs "$1" || exit 99\n'
              'stat -f -c "%%b %%S" "$1" > "$2/capacity"\n'
              'ip netns exec "$3" "$4" capture -i "$5" %s\n'
              'rc=$?\n'
              'cp "$1/full.pcap" "$2/"\n'
              'exit $rc\n' % (DISK_KB, out))
    p = t.spawn(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
                 disk, kept, pair.ns_b, t.ROCESHARK, pair.if_b],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    first = p.stderr.readline()
    what = "small disk (%s)" % how
    t.check(first.startswith(b"capture: "), "%s: the capture started: %r" % (what, first))
    # All at once: everything waits in the writer's 1 MiB buffer until the flush that fails.
    pair.send(big_pcap)
    try:
        out, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=20)
        t.check(False, "%s: the capture did not stop by itself" % what)
    err = (first + err).decode(errors="replace")
    rc = p.returncode
    m = ln.COUNTS_RE.search(err)
    path = os.path.join(kept, "full.pcap")
    blocks, bsize = map(int, open(os.path.join(kept, "capacity")).read().split())
    capacity = blocks * bsize
    size = os.path.getsize(path)
    errors = [x for x in err.splitlines() if x.startswith("roceshark: ")]
    name = "%s/full.pcap" % disk if how == "file" else "standard output"
    t.check(rc == 3 and errors == ["roceshark: %s: No space left on device" % name],
            "%s: exit %r and one line: %r" % (what, rc, err))
    try:
        recs = ln.read_pcap(path)[2]     # raises on a partial record
    except ValueError as e:
        recs = []
        t.check(False, "%s: %s" % (what, e))
    got = [r[2] for r in recs]
    n = len(got)
    t.check(n > 0 and got == big[:n], "%s: the %d frames kept are the first sent" % (what, n))
    t.check(size == 24 + sum(16 + len(f) for f in got), "%s: %d bytes for %d records"
            % (what, size, n))
    next_rec = 16 + len(big[n]) if n < len(big) else 0
    print("%s: %d of %d bytes used, %d whole records; the next record (%d bytes) did "
          "not fit" % (what, size, capacity, n, next_rec))
    t.check(n < len(big) and capacity - next_rec < size <= capacity,
            "%s: %d bytes kept on a %d-byte disk: not within one record (%d) of full"
            % (what, size, capacity, next_rec))
    t.check(m is not None and int(m.group(3)) == n,
            "%s: the counts say %s written, the file holds %d" % (what, m and m.group(3), n))
    rd = t.run([t.ROCESHARK, "read", "-r", path], check_rc=False)
    t.check(rd.returncode == 0 and len(rd.stdout.splitlines()) == n,
            "%s: roceshark read finds %d frames" % (what, len(rd.stdout.splitlines())))
    t.check(ln.tshark_count(path) == n, "%s: tshark reads a different count" % what)


small_disk("file")
small_disk("stdout")

# --- a pipe whose reader leaves -------------------------------------------------------------
# head takes 100 kB and exits: the capture stops with exit 3 and one line, and counts at
# least the whole records head got (those still in the pipe when it left went out too).
LIMIT = 100000
got_path = os.path.join(tmp, "head.pcap")
p = t.spawn(["bash", "-c", 'set -o pipefail; ip netns exec "$1" "$2" capture -i "$3" '
             '-w - | head -c %d > "$4"' % LIMIT, "bash", pair.ns_b, t.ROCESHARK,
             pair.if_b, got_path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True)
first = p.stderr.readline()
t.check(first.startswith(b"capture: "), "pipe: the capture started: %r" % first)
pair.send(big_pcap)
try:
    out, err = p.communicate(timeout=20)
except subprocess.TimeoutExpired:
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=20)
    t.check(False, "pipe: the capture did not stop when its reader left")
err = (first + err).decode(errors="replace")
data = open(got_path, "rb").read()
whole, pos = 0, 24
while pos + 16 <= len(data):
    caplen = int.from_bytes(data[pos + 8:pos + 12], "little")
    if pos + 16 + caplen > len(data):
        break
    whole += 1
    pos += 16 + caplen
m = ln.COUNTS_RE.search(err)
errors = [x for x in err.splitlines() if x.startswith("roceshark: ")]
t.check(p.returncode == 3 and errors == ["roceshark: standard output: Broken pipe"],
        "pipe: exit %r and one line: %r" % (p.returncode, err))
t.check(len(data) == LIMIT and whole > 0 and m is not None and
        whole <= int(m.group(3)) < len(big),
        "pipe: the reader got %d whole records, the counts say %s written of %d"
        % (whole, m and m.group(3), len(big)))
print("pipe: the reader got %d whole records, the counts say %s written"
      % (whole, m and m.group(3)))

t.finish("capture: early stops, a small disk, a pipe")
