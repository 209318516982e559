#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What the TUI's tmux tests share: a tmux server of their own for each TUI they start (its
socket a new path in the test's temporary folder), the TUI started in a detached session of a
given size (in a network namespace,
for a live capture), its screen read back as lines (with the reverse-video parts, for what
is highlighted), keys sent to it, and `roceshark read`'s output to compare with."""
import os
import re
import shlex
import subprocess
import time

import rstest as t

SAMPLE = os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap")
# The socket of the tmux server running now. Each start() makes a server on a new socket:
# tmux's server goes on exiting for a moment after kill-server or its last session ends, and
# a new-session on the same socket then reaches the dying server ("server exited
# unexpectedly", about one time in ten on a busy host).
_socket = [os.path.join("/tmp", "rstui-test-%d" % os.getpid())]
_servers = [0]
ENV = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8", TERM="xterm-256color")
ENV.pop("NO_COLOR", None)
ENV.pop("TMUX", None)


def tmux(*args):
    return subprocess.run(["tmux", "-S", _socket[0], "-f", "/dev/null"] + list(args),
                          capture_output=True, text=True, env=ENV)


def screen():
    """The pane's lines, the status line last."""
    return tmux("capture-pane", "-p", "-t", "tui").stdout.rstrip("\n").split("\n")


# The screen is read every 20 ms at first, then less and less often, down to every 250 ms:
# each read is a tmux client (some 10 ms of processor time), and at a steady 50 ms they were
# a fifth of a processor through a long wait (a load under the sanitizers). A state that
# lasts a tenth of a second is still seen.
POLL_FIRST_S, POLL_GROWTH, POLL_MAX_S = 0.02, 1.3, 0.25


def holds(pred, lines):
    """pred(lines), where a screen too short for what pred looks at (a capture taken while
    tmux resizes the window: fewer lines than asked, once under the sanitizers) does not
    hold yet."""
    try:
        return pred(lines)
    except IndexError:
        return False


def wait_for(pred, what, timeout=10.0):
    """Polls the screen until pred(lines) holds on a whole frame; records a failure (with the
    screen) if it never does. A capture can fall inside a redraw (some lines new, some old:
    under the sanitizers a table's heading was new and a row still old), so a screen is taken
    only once the capture after it, 30 ms later, is the same."""
    end = time.time() + timeout
    pause = POLL_FIRST_S
    while True:
        lines = screen()
        if holds(pred, lines):
            time.sleep(0.03)
            if screen() == lines or time.time() > end:
                return lines
            continue
        if time.time() > end:
            t.check(False, "%s; the screen was:\n%s%s" % (what, "\n".join(lines), tui_exit()))
            return lines
        time.sleep(pause)
        pause = min(pause * POLL_GROWTH, POLL_MAX_S)


def keys(*k, literal=False):
    tmux("send-keys", "-t", "tui", *((["-l"] if literal else []) + list(k)))


def start(tmp, width, height, args, netns=False, env=None):
    """Runs the TUI in a detached tmux session; its exit code and stderr land in files. With
    netns, in a network namespace (its pid in tmp/pid): a namespace's name, or True for one
    of its own with the loopback up. env: variables to set for the TUI alone."""
    rc_file, err_file = os.path.join(tmp, "rc"), os.path.join(tmp, "stderr")
    for f in (rc_file, err_file, os.path.join(tmp, "pid")):
        if os.path.exists(f):
            os.unlink(f)
    tui = "%s tui %s" % (t.ROCESHARK, " ".join(shlex.quote(a) for a in args))
    if env:
        tui = "env %s %s" % (" ".join("%s=%s" % (k, shlex.quote(v)) for k, v in env.items()),
                             tui)
    if isinstance(netns, str):
        tui = "ip netns exec %s sh -c 'echo $$ >%s/pid; exec %s'" % (netns, tmp, tui)
    elif netns:
        tui = "unshare -n sh -c 'ip link set lo up; echo $$ >%s/pid; exec %s'" % (tmp, tui)
    cmd = "%s 2>%s; echo $? >%s; sleep 60" % (tui, err_file, rc_file)
    # A server of its own, on a new socket, with the environment of now (NO_COLOR, TMPDIR).
    stop_session()
    _servers[0] += 1
    _socket[0] = os.path.join(tmp, "tmux-%d" % _servers[0])
    if len(_socket[0]) > 100:       # a socket's path has room for 107 bytes
        _socket[0] = "/tmp/rstui-test-%d-%d" % (os.getpid(), _servers[0])
    p = tmux("new-session", "-d", "-s", "tui", "-x", str(width), "-y", str(height), cmd)
    t.check(p.returncode == 0, "tmux new-session: %s" % p.stderr.strip())
    _session[:] = [rc_file, err_file]
    return rc_file, err_file


_session = []   # the rc and stderr files of the TUI running now


def tui_exit():
    """How the TUI ended, for a failure's message, if it has ended."""
    if not _session or not os.path.exists(_session[0]):
        return "\n(the TUI is still running)"
    rc = open(_session[0]).read().strip()
    err = open(_session[1]).read() if os.path.exists(_session[1]) else ""
    return "\n(the TUI exited %s, stderr %r)" % (rc or "?", err)


def exit_of(rc_file, err_file, timeout=10.0):
    end = time.time() + timeout
    while not os.path.exists(rc_file) or open(rc_file).read().strip() == "":
        if time.time() > end:
            return None, ""
        time.sleep(0.05)
    return int(open(rc_file).read()), open(err_file).read()


def stop_session():
    """Ends the TUI's tmux server (and the TUI)."""
    tmux("kill-server")


_read_answers = {}


def read_lines(*args, path=SAMPLE):
    """`roceshark read -r path args`'s non-blank lines. Asked again with the same arguments
    and the file unchanged (its size and time), the answer of the first time: the tests
    ask for the sample's table and rows many times, and each read under the sanitizers
    takes a fifth of a processor second."""
    st = os.stat(path)
    key = (args, path, st.st_size, st.st_mtime_ns)
    if key not in _read_answers:
        _read_answers[key] = [l.rstrip() for l in t.run([t.ROCESHARK, "read", "-r", path] +
                                                        list(args)).stdout.splitlines()
                              if l.strip()]
    return list(_read_answers[key])


def conv_table(path=SAMPLE):
    """-z conv,qp's rows as {id: {column: text}}."""
    lines = read_lines("-q", "-z", "conv,qp", path=path)
    head = next(l for l in lines if l.split()[:2] == ["Conv", "Requester:QP"]).split()
    rows = {}
    for l in lines:
        f = l.split()
        if len(f) == len(head) and f[0].isdigit():
            rows[f[0]] = dict(zip(head, f))
    return rows


def screen_convs(lines):
    """The conversation rows on screen as {id: {column: text}}, by the heading's names."""
    head = next((l for l in lines if l.lstrip().startswith("Conv")), None)
    if head is None:
        return {}
    names = [re.sub(r"[\^v=]$", "", n) for n in head.split()]
    rows = {}
    for l in lines[lines.index(head) + 1:]:
        f = l.split()
        if len(f) == len(names) and f[0].isdigit():
            rows[f[0]] = dict(zip(names, f))
    return rows


def packet_lines(lines, tagged=False):
    """The packet list's rows, above the detail pane, without the margin where tagged ones
    have a '*' (only those with tagged)."""
    out = []
    for l in lines[1:]:
        if l.startswith(" Packet "):
            break
        if re.match(r"^[ *]\s*\d+\s+-?\d", l) and (not tagged or l[0] == "*"):
            out.append(l[1:].rstrip())
    return out


def reversed_text(line_prefix_rows=None):
    """The pane's lines as (plain text, [reverse-video substrings]), from capture-pane -e."""
    out = []
    for line in tmux("capture-pane", "-e", "-p", "-t", "tui").stdout.split("\n"):
        plain, rev, on = "", [], False
        for tok in re.split(r"(\x1b\[[0-9;]*m)", line):
            if tok.startswith("\x1b["):
                for p in tok[2:-1].split(";") or ["0"]:
                    if p == "7":
                        on = True
                        rev.append("")
                    elif p in ("", "0", "27"):
                        on = False
                continue
            plain += tok
            if on and rev:
                rev[-1] += tok
        out.append((plain, [r for r in rev if r.strip()]))
    return out


def tree_cursor():
    """The tree line under the cursor and the hex pane's highlighted bytes."""
    rows = reversed_text()
    start = next((i for i, (p, _) in enumerate(rows) if p.startswith(" Packet ")), None)
    bytes_at = next((i for i, (p, _) in enumerate(rows) if p.startswith(" Bytes")), None)
    if start is None or bytes_at is None:
        return None, ""
    cursor = next((r[0].strip() for p, r in rows[start + 1:bytes_at] if r), None)
    hexes = " ".join(x.strip() for p, r in rows[bytes_at + 1:-1] for x in r
                     if re.fullmatch(r"[0-9a-f]{2}( [0-9a-f]{2})*", x.strip()))
    return cursor, hexes
