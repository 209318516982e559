#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The roceshark program does not link libpcap or libibverbs, nor so what they pull in
(libsystemd, libnl, ...): loaded at every start, they cost each `read` of a file processor
time and page faults for calls it never makes (capture/pcap_load.c and capture/verbs_load.c
load them at their first call).

    check_needed.py PROGRAM

Reads the program's DT_NEEDED entries with readelf; exits 1 if one is a library listed
here, naming it.
"""
import subprocess
import sys

LOADED_WHEN_NEEDED = ("libpcap.so", "libibverbs.so", "libnl-")


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
