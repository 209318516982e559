#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The roceshark program does not link libibverbs, nor so the libnl it pulls in: loaded at
every start, they cost each `read` processor time and page faults for a capture it never
makes (capture/verbs_load.c loads libibverbs when the sniffer QP first needs it).

    check_needed.py PROGRAM

Reads the program's DT_NEEDED entries with readelf; exits 1 if one is a library listed
here, naming it.
"""
import subprocess
import sys

LOADED_WHEN_NEEDED = ("libibverbs.so", "libnl-")


def main():
    out = subprocess.run(["readelf", "-d", sys.argv[1]], check=True,
                         capture_output=True, text=True).stdout
    needed = [line.split("[", 1)[1].rstrip("]") for line in out.splitlines()
              if "(NEEDED)" in line]
    if not needed:
        sys.exit("%s: no NEEDED entries read" % sys.argv[1])
    linked = [n for n in needed if n.startswith(LOADED_WHEN_NEEDED)]
    for n in linked:
        print("%s links %s, which it loads when needed" % (sys.argv[1], n))
    sys.exit(1 if linked else 0)


if __name__ == "__main__":
    main()
