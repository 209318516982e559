#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""No two source files share a name: a name says which file it is, in a debugger's
backtrace, an editor's file list and a review.

    check_names.py SOURCE_DIR

Looks at every .c and .h under the source folder (the build folders left out) and prints
each name held by more than one file, with the files; exits 1 if there is any.
"""
import os
import sys


def main():
    root = os.path.abspath(sys.argv[1])
    seen = {}
    for dirpath, dirnames, filenames in os.walk(root):
        if dirpath == root:
            dirnames[:] = [d for d in dirnames if not d.startswith(("build", "."))]
        for fn in filenames:
            if fn.endswith((".c", ".h", ".h.in")):
                seen.setdefault(fn, []).append(os.path.relpath(os.path.join(dirpath, fn), root))
    dups = {n: sorted(p) for n, p in seen.items() if len(p) > 1}
    for name in sorted(dups):
        print("%s: %s" % (name, ", ".join(dups[name])))
    print("%d source files, %d names held twice or more"
          % (sum(len(p) for p in seen.values()), len(dups)), file=sys.stderr)
    return 1 if dups else 0


if __name__ == "__main__":
    sys.exit(main())
