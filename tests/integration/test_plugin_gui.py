#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The Wireshark plugin in Wireshark's GUI, as a user meets it: Wireshark (Qt) on an Xvfb
screen, run as an unprivileged user with the plugin in the personal plugin folder, read and
driven through its accessibility interface (plugin_gui_driver.py):
  - the Statistics menu has the item RDMA QP Conversations, and it opens the table;
  - the table has the rows of `roceshark read -z conv,qp`, cell for cell; Apply twice keeps
    exactly those rows; with a display filter, Apply gives the rows of
    `read -z conv,qp,FILTER`, and with the filter cleared, the full rows again;
  - Statistics > Conversations lists the roceshark conversation type, and its tab has one
    row per conversation with the QP numbers as ports.
The screenshots stay in the build folder (gui-screenshots/) for CI to keep."""
import json
import os
import re
import shutil
import subprocess

import rstest as t

PLUGIN = os.environ.get("ROCESHARK_PLUGIN")
if not PLUGIN or not os.path.exists(PLUGIN):
    print("ROCESHARK_PLUGIN does not name the built plugin")
    raise SystemExit(1)
t.require("gui")

SHOTS = os.path.join(os.path.dirname(os.path.abspath(t.ROCESHARK)), "gui-screenshots")
shutil.rmtree(SHOTS, True)
os.makedirs(SHOTS)
os.chmod(SHOTS, 0o777)

scratch = t.tempdir()
os.chmod(scratch, 0o755)
home = os.path.join(scratch, "home")
WS_VERSION = os.path.basename(os.path.dirname(os.path.dirname(PLUGIN)))
epan = os.path.join(home, ".local", "lib", "wireshark", "plugins", WS_VERSION, "epan")
os.makedirs(epan)
shutil.copy(PLUGIN, os.path.join(epan, "roceshark.so"))
os.makedirs(os.path.join(home, ".cache"))
# The profile's recent file: the Conversations dialog opens with the roceshark tab.
profile = os.path.join(home, ".config", "wireshark")
os.makedirs(profile)
with open(os.path.join(profile, "recent"), "w") as f:
    f.write("gui.conversation_tabs: Ethernet,IPv4,roceshark\n")
# The driver where the user can read it (the source tree may be closed to others).
driver = os.path.join(scratch, "plugin_gui_driver.py")
shutil.copy(os.path.join(t.HERE, "plugin_gui_driver.py"), driver)
os.chmod(driver, 0o644)
sample = os.path.join(scratch, "rdma_demo.pcap")
shutil.copy(os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap"), sample)
subprocess.run(["chown", "-R", "nobody:nogroup", home], check=True)
os.chmod(home, 0o700)
os.chmod(sample, 0o644)


def read_rows(spec):
    out = t.run([t.ROCESHARK, "read", "-r", sample, "-q", "-z", spec]).stdout
    return [line.split() for line in out.splitlines() if re.match(r"^\s*\d+\s+\S+:0x", line)]


def conversation_row(row):
    """What Statistics > Conversations shows of a -z conv,qp row: requester, its QP,
    responder, its QP (as ports, in decimal), packets both ways."""
    (req, req_qp), (resp, resp_qp) = (e.rsplit(":", 1) for e in row[1:3])
    return [req, str(int(req_qp, 16)), resp, str(int(resp_qp, 16)),
            str(int(row[4]) + int(row[6]))]


FILTER = "roceshark.analysis.retransmission"
want = read_rows("conv,qp")
filtered = read_rows("conv,qp," + FILTER)
t.check(len(want) >= 2, "the sample has %d conversations; the test wants two" % len(want))
t.check(0 < len(filtered) < len(want), "read -z conv,qp,%s: %r" % (FILTER, filtered))
expect = {"all": want, "filter": FILTER, "filtered": filtered,
          "conversations": [conversation_row(r) for r in want]}


def as_user(cmd):
    env = ["PATH=/usr/bin:/bin", "HOME=" + home, "XDG_CACHE_HOME=" + home + "/.cache",
           "XDG_RUNTIME_DIR=" + home, "QT_QPA_PLATFORM=xcb",
           "ROCESHARK_GUI_GUARD=" + os.environ.get("ROCESHARK_GUI_GUARD", "120")]
    return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "env", "-i"] + \
        env + cmd


# Xvfb on the first free display, which it names on a pipe: read to the end of the line, as
# the server ends on a write that finds the pipe closed (the newline may come apart).
rfd, wfd = os.pipe()
xvfb = t.spawn(as_user(["Xvfb", "-displayfd", str(wfd), "-screen", "0", "1280x800x24",
                        "-nolisten", "tcp"]), pass_fds=(wfd,),
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(wfd)
named = b""
while not named.endswith(b"\n"):
    more = os.read(rfd, 16)
    if not more:
        break
    named += more
os.close(rfd)
display = ":" + named.decode().strip()
try:
    if display == ":":
        t.skip_missing("an X server (Xvfb did not start)")
    # A D-Bus session of the user's own for the accessibility bus; the driver's own guard
    # ends any step that hangs, ctest's TIMEOUT the rest.
    p = subprocess.run(as_user(["dbus-run-session", "--", t.PYTHON, driver, display, sample,
                                SHOTS, json.dumps(expect)]),
                       capture_output=True, text=True)
finally:
    xvfb.kill()
    xvfb.wait()
lines = p.stdout.strip().splitlines()
try:
    seen = json.loads(lines[-1])
except (IndexError, ValueError):
    seen = {}
    t.check(False, "the driver said nothing we can read (exit %d): %s %s"
            % (p.returncode, p.stdout[-500:], p.stderr[-1500:]))
print("driver steps: " + "; ".join(seen.get("steps", [])))

menu = seen.get("statistics", [])
t.check("RDMA QP Conversations" in menu,
        "Statistics has no item RDMA QP Conversations: %r" % menu)
t.check(seen.get("table") == want,
        "the QP table has rows %r, read -z conv,qp %r" % (seen.get("table"), want))
applied = seen.get("applied", [])
t.check(len(applied) == 2 and all(rows == want for rows in applied),
        "Apply twice: the QP table has rows %r, not %r" % (applied, want))
t.check(seen.get("filtered") == filtered,
        "with %s the QP table has %r, read -z conv,qp,FILTER %r"
        % (FILTER, seen.get("filtered"), filtered))
t.check(seen.get("unfiltered") == want,
        "with the filter cleared the QP table has %r, not %r" % (seen.get("unfiltered"), want))
t.check("roceshark" in seen.get("conversation_types", []),
        "Statistics > Conversations lists no roceshark type: %r"
        % seen.get("conversation_types"))
t.check("roceshark · %d" % len(want) in seen.get("tabs", []),
        "Statistics > Conversations has no tab roceshark · %d: %r"
        % (len(want), seen.get("tabs")))
t.check(seen.get("qp_tab_rows") == expect["conversations"],
        "the roceshark tab has rows %r, not %r"
        % (seen.get("qp_tab_rows"), expect["conversations"]))
t.check(os.path.exists(os.path.join(SHOTS, "qp-table.png")), "no screenshot of the QP table")
if t.failures:
    print(p.stderr[-2000:])
t.finish("wireshark plugin in the GUI")
