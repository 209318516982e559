#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Drives Wireshark's Qt GUI on a virtual screen through its accessibility interface (AT-SPI),
as test_plugin_gui.py asks, and prints what it saw as one JSON object. Run as the user whose
home holds the plugin, inside a D-Bus session (dbus-run-session), with:
  plugin_gui_driver.py DISPLAY CAPTURE SHOTS EXPECT_JSON
EXPECT_JSON names the rows to wait for: {"all": [[cell, ...], ...], "filter": FILTER,
"filtered": [[cell, ...], ...], "conversations": [[first five cells], ...]}. Each step waits for what it needs (a window with its title,
rows that equal the expected ones, a button released); a step that never sees it ends
after GUARD seconds, which only stops a hang, and reports what it saw instead.

Qt exposes every menu, button and table cell over AT-SPI (QT_LINUX_ACCESSIBILITY_ALWAYS_ON),
so the menu structure and the table's text are read as the application holds them: no OCR,
no pixel positions."""
import json
import os
import subprocess
import sys
import time


GUARD = float(os.environ.get("ROCESHARK_GUI_GUARD", "120"))
display, capture, shots, expect = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
# Only what draws on the screen and what reads it get the display.
os.environ["DISPLAY"] = display
seen = {"steps": []}


def step(what):
    seen["steps"].append("%.1f %s" % (time.monotonic() - t0, what))


def wait(what, probe):
    """probe's value once it is true; None (and a note) when GUARD passes first."""
    end = time.monotonic() + GUARD
    last = ""
    while True:
        try:
            v = probe()
        except Exception as e:   # an object that went away while we looked at it: look again
            v = None
            last = repr(e)
        if v:
            return v
        if time.monotonic() > end:
            step("gave up waiting for %s%s" % (what, ": " + last if last else ""))
            return None
        time.sleep(0.05)


def kids(acc):
    return [acc.getChildAtIndex(i) for i in range(acc.childCount)]


# Qt 5 (Wireshark 4.0) names a push button's role "push button", Qt 6 (4.4, 4.6) "button".
BUTTON = ("push button", "button")


def is_role(acc, role):
    """Whether acc has the role, or one of the roles of a tuple."""
    return acc.getRoleName() in (role if isinstance(role, tuple) else (role,))


def child(acc, role, name=None):
    for c in kids(acc):
        if c is not None and is_role(c, role) and (name is None or c.name == name):
            return c
    return None


def descendants(acc, role, name=None, depth=8):
    found = []
    for c in kids(acc):
        if c is None:
            continue
        if is_role(c, role) and (name is None or c.name == name):
            found.append(c)
        if depth > 0:
            found += descendants(c, role, name, depth - 1)
    return found


def shot(name):
    subprocess.run(["import", "-window", "root", os.path.join(shots, name + ".png")],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def press(acc):
    acc.queryAction().doAction(0)


def current(title_part):
    """The window whose title holds title_part, looked up now. Qt 6 (Wireshark 4.4) may
    replace a dialog's accessible object while it fills the dialog: a handle taken before
    then answers "No such object path" for good, so a wait looks the window up again."""
    return next((w for w in kids(app) if title_part in (w.name or "")), None)


def window(title_part):
    return wait("a window titled ...%s..." % title_part, lambda: current(title_part))


def rows_of(tree):
    """The table's rows as lists of cell texts (the header row left out)."""
    cells = kids(tree)
    ncols = sum(1 for c in cells if c.getRoleName() == "table column header")
    body = [c.name for c in cells if c.getRoleName() == "table cell"]
    return [body[i:i + ncols] for i in range(0, len(body), ncols)] if ncols else []


def wait_rows(tree, rows, what):
    got = wait(what, lambda: rows_of(tree) == rows)
    return rows if got else rows_of(tree)


def port_tables(dialog, header):
    """The rows, cut to the first five cells, of each table of dialog with a column header."""
    return [[r[:5] for r in rows_of(t)] for t in descendants(dialog, "tree")
            if any(c.name == header for c in kids(t))]


def wait_rows_in(title_part, header, rows):
    """rows once one of the tables with the column header of the window titled title_part
    holds them (first five cells), or else every such table's rows."""
    if wait("a table with %s and rows %r" % (header, rows),
            lambda: rows in port_tables(current(title_part), header)):
        return rows
    return port_tables(current(title_part), header)


def apply_filter(dialog, text):
    """Types text in the dialog's display filter and presses Apply; returns once the click
    has happened (Qt presses a button for 100 ms, then clicks it; the retap runs in the
    click, on the thread that answers us, so what we read after that is its result)."""
    edit = child(dialog, "text", "Display filter entry")
    edit.queryEditableText().setTextContents(text)
    button = child(dialog, BUTTON, "Apply")
    wait("the Apply button enabled",
         lambda: button.getState().contains(pyatspi.STATE_ENABLED))
    press(button)
    wait("Apply released", lambda: not button.getState().contains(pyatspi.STATE_PRESSED))


t0 = time.monotonic()
ws = subprocess.Popen(["wireshark", "-r", capture], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL,
                      env=dict(os.environ, QT_LINUX_ACCESSIBILITY_ALWAYS_ON="1"))
try:
    # The accessibility bus only once Wireshark's window is up: Qt 5 registers with a bus
    # that appears while it runs; one there as it starts it may join before it is connected
    # to it, and never be listed (seen in one run of three).
    subprocess.run(["xdotool", "search", "--sync", "--name", os.path.basename(capture)],
                   stdout=subprocess.DEVNULL, timeout=GUARD)
    subprocess.run(["dbus-send", "--session", "--print-reply", "--dest=org.a11y.Bus",
                    "/org/a11y/bus", "org.a11y.Bus.GetAddress"], stdout=subprocess.DEVNULL,
                   check=True)
    import pyatspi
    app = wait("Wireshark on the accessibility bus", lambda: next(
        (a for a in kids(pyatspi.Registry.getDesktop(0))
         if a is not None and a.name == "Wireshark" and a.childCount), None))
    main = app and window(os.path.basename(capture))
    if main is None:
        seen["desktop"] = [a.name for a in kids(pyatspi.Registry.getDesktop(0)) if a]
        raise SystemExit(json.dumps(seen))
    step("capture open")
    shot("main")

    # Statistics: the menu's items as the menu bar holds them.
    stats = child(child(main, "menu bar"), "menu item", "Statistics")
    menu = kids(stats)[0]
    seen["statistics"] = [c.name for c in kids(menu) if c.getRoleName() == "menu item"]
    item = child(menu, "menu item", "RDMA QP Conversations")
    if item is not None:
        press(item)
        dialog = window("RDMA QP Conversations")
        if dialog is not None:
            step("QP table open")
            tree = child(dialog, "tree")
            seen["table"] = wait_rows(tree, expect["all"], "the QP table's rows")
            shot("qp-table")
            seen["applied"] = []
            for _ in (1, 2):
                apply_filter(dialog, "")
                seen["applied"].append(wait_rows(tree, expect["all"], "rows after Apply"))
            step("applied twice")
            apply_filter(dialog, expect["filter"])
            seen["filtered"] = wait_rows(tree, expect["filtered"], "the filtered rows")
            shot("qp-table-filtered")
            apply_filter(dialog, "")
            seen["unfiltered"] = wait_rows(tree, expect["all"], "the rows unfiltered")
            step("filtered and back")
            press(child(child(dialog, "panel"), BUTTON, "Close"))

    # Statistics > Conversations: our conversation type, ticked, gives its tab and rows.
    press(child(menu, "menu item", "Conversations"))
    conv = window("Conversations")
    if conv is not None:
        step("Conversations open")
        types = wait("the conversation types", lambda: next(
            (t for t in descendants(current("Conversations"), "tree") if any(
                c.name == "Protocol" for c in kids(t))), None))
        cells = kids(types) if types else []
        names = [c.name for c in cells if c.getRoleName() == "table cell"]
        seen["conversation_types"] = [n for n in names if n]
        # The profile's recent file asks for the roceshark tab (gui.conversation_tabs).
        tab = wait("the roceshark tab", lambda: next(
            (t for t in descendants(current("Conversations"), "page tab")
             if t.name.startswith("roceshark")), None))
        seen["tabs"] = [t.name for t in descendants(current("Conversations") or conv, "page tab")]
        if tab is not None:
            press(tab)
            seen["qp_tab_rows"] = wait_rows_in("Conversations", "Port A", expect["conversations"])
            shot("conversations")
finally:
    ws.kill()
    ws.wait()
step("done")
print(json.dumps(seen))
