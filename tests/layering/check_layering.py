#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The folders' rules, checked: every include and every call between folders against the
"May call:" and "Must never call:" lines of the folders' README.md files.

    check_layering.py SOURCE_DIR BUILD_DIR

A rule line names folders and files in backquotes; the rest of the line is prose. A rule
runs from its label to the next blank line or label, and every name in it must be a folder
("x/") or a source file, or the check fails: a rule that names what is gone is untrue. A name
is looked up from the README's folder upwards (in dissectors/ib/, `crc/` is dissectors/crc/
and `cli/` is cli/). A file belongs to the deepest folder above it that has rule lines.

- "Must never call:" names what no file of the folder, or of its subfolders, may include
  or call.
- "Must never be called by:" names the folders none of whose files may include or call
  this one.
- "May call:" is the whole list for the folder's own files (not its subfolders'): besides
  what it names, a file may reach its own folder, the folders below it, and the files
  directly in the folders above it (the part's shared base: errors, times, the decoder's
  entry). A file token `dir/x.h` stands for x.h and x.c.

Edges are the "x.h" and <roceshark/...> includes of every source file, and the calls that
the objects of the build make (nm: an undefined symbol of one object defined in another).
The tests, the benchmarks and cli/ (which may call every library) are callers only.

Every source file a README.md or docs/architecture.md names in backquotes must be in the
tree, and every folder that holds files must open with a README.md (a fuzz corpus's files
are inputs: its corpus folder's README.md speaks for them).

Prints each broken rule as "file -> target: rule (README)" and exits 1 if there is any.
"""
import os
import re
import subprocess
import sys

SRC_EXT = (".c", ".h")
SKIP_TOP = ("tests", "bench", "build", "docs", "samples", "scripts", "cmake", ".git", ".ci")


def rel(path, root):
    return os.path.relpath(path, root).replace(os.sep, "/")


class Rules:
    def __init__(self, root):
        self.root = root
        self.unknown = []       # "README: `name`" for names that are no folder or file
        self.folders = {}       # folder -> {"may": set|None, "never": set, "never_by": set}
        for dirpath, dirnames, filenames in os.walk(root):
            r = rel(dirpath, root)
            dirnames[:] = [d for d in dirnames
                           if not (r == "." and (d in SKIP_TOP or d.startswith("build")))]
            if "README.md" in filenames and r != ".":
                rules = self.parse(r, os.path.join(dirpath, "README.md"))
                if rules:
                    self.folders[r] = rules

    def lookup(self, folder, token):
        """A backquoted name seen in folder's README: a folder ("x/") or a file, or None."""
        want_dir = token.endswith("/")
        token = token.rstrip("/")
        if not re.fullmatch(r"[A-Za-z0-9_./-]+", token) or token.startswith("."):
            return None
        pub = re.fullmatch(r"include/roceshark/([^/]+)/([^/]+\.h)", token)
        if pub and os.path.isfile(os.path.join(self.root, token)):
            return pub.group(1) + "/" + pub.group(2)    # judged as its part's, as includes are
        parts = folder.split("/")
        for n in range(len(parts), -1, -1):
            cand = "/".join(parts[:n] + [token])
            full = os.path.join(self.root, cand)
            if want_dir and os.path.isdir(full):
                return cand + "/"
            if not want_dir and os.path.isfile(full) and cand.endswith(SRC_EXT):
                return cand
        return None

    def parse(self, folder, path):
        rules = {"may": None, "never": set(), "never_by": set(), "readme": folder + "/README.md"}
        text = open(path, encoding="utf-8").read()
        # A rule runs from its label to the next blank line or the next label.
        for m in re.finditer(r"^(May call|Must never call|Must never be called by):(.*?)"
                             r"(?=^\s*$|^May call:|^Must never|\Z)", text, re.M | re.S):
            names = set()
            for tok in re.findall(r"`([^`]+)`", m.group(2)):
                t = self.lookup(folder, tok)
                if t:
                    names.add(t)
                else:
                    self.unknown.append("%s/README.md: `%s` names no folder or source file"
                                        % (folder, tok))
            if m.group(1) == "May call":
                rules["may"] = (rules["may"] or set()) | names
            elif m.group(1) == "Must never call":
                rules["never"] |= names
            else:
                rules["never_by"] |= names
        if rules["may"] is None and not rules["never"] and not rules["never_by"]:
            return None
        return rules

    def owner(self, path):
        """The deepest folder with rules above path ('' when none)."""
        parts = path.split("/")[:-1]
        for n in range(len(parts), 0, -1):
            f = "/".join(parts[:n])
            if f in self.folders:
                return f
        return ""

    @staticmethod
    def covers(name, path):
        """Whether a rule's name (folder "x/" or file) covers the file at path."""
        if name.endswith("/"):
            return path.startswith(name)
        stem = name[:-2] if name.endswith((".c", ".h")) else name
        return path in (name, stem + ".c", stem + ".h")

    def with_ancestors(self, folder):
        """(folder, rules) for folder and each folder above it that has rules."""
        parts = folder.split("/")
        for n in range(len(parts), 0, -1):
            f = "/".join(parts[:n])
            if f in self.folders:
                yield f, self.folders[f]

    def broken(self, src, dst):
        """The rules the edge src -> dst (two files) breaks, as text."""
        a, b = self.owner(src), self.owner(dst)
        if not a or a == b:
            return []
        out = []
        # Must never call: this folder's and its ancestors'.
        for f, r in self.with_ancestors(a):
            for name in r["never"]:
                if self.covers(name, dst) and not (b + "/").startswith(f + "/"):
                    out.append("must never call %s (%s)" % (name, r["readme"]))
        # Must never be called by: the target's folder and its ancestors'.
        for f, r in self.with_ancestors(b):
            for name in r["never_by"]:
                if self.covers(name, src) and not (a + "/").startswith(f + "/"):
                    out.append("%s must never be called by %s (%s)" % (f + "/", name,
                                                                      r["readme"]))
        # May call: the folder's own list.
        r = self.folders[a]
        if r["may"] is not None:
            dst_dir = dst.rsplit("/", 1)[0] + "/"
            inside = dst.startswith(a + "/")
            base = (a + "/").startswith(dst_dir)        # a file directly in an ancestor
            if not inside and not base and not any(self.covers(n, dst) for n in r["may"]):
                out.append("not in its May call list (%s)" % r["readme"])
        return out


def sources(root):
    for dirpath, dirnames, filenames in os.walk(root):
        r = rel(dirpath, root)
        dirnames[:] = [d for d in dirnames
                       if not (r == "." and (d in SKIP_TOP or d.startswith("build")))]
        for fn in filenames:
            if fn.endswith(SRC_EXT):
                yield rel(os.path.join(dirpath, fn), root)


def include_edges(root):
    edges = []
    for src in sources(root):
        if src.startswith(("include/", "cli/")):
            continue
        text = open(os.path.join(root, src), encoding="utf-8", errors="replace").read()
        for m in re.finditer(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', text, re.M):
            name = m.group(2)
            if m.group(1) == "<":
                if not name.startswith("roceshark/") or name == "roceshark/version.h":
                    continue
                part = name.split("/")[1]
                # A public header is its part's: <roceshark/transport/rc.h> is transport/'s.
                edges.append((src, part + "/" + name.split("/")[-1], "#include <%s>" % name))
                continue
            # Beside the file first, then from each folder above it (a part's include
            # folder: dissectors/ lets its files write "fields/fields_int.h").
            d = os.path.dirname(src)
            while True:
                cand = os.path.normpath(os.path.join(d, name)).replace(os.sep, "/")
                if os.path.isfile(os.path.join(root, cand)):
                    edges.append((src, cand, '#include "%s"' % name))
                    break
                if not d:
                    break
                d = os.path.dirname(d)
    return edges


def object_edges(root, build):
    """Calls between the objects of the build's libraries: (caller source, callee source)."""
    objs = {}
    for dirpath, dirnames, filenames in os.walk(build):
        r = rel(dirpath, build)
        if r == ".":
            dirnames[:] = [d for d in dirnames if d not in ("tests", "bench", "cli")]
        for fn in filenames:
            if not fn.endswith(".c.o"):
                continue
            # build/<dir>/CMakeFiles/<target>.dir/<path>.c.o is <dir>/<path>.c
            m = re.match(r"(?:(.*)/)?CMakeFiles/[^/]+\.dir/(.*)\.o$",
                         rel(os.path.join(dirpath, fn), build))
            if not m:
                continue
            src = ((m.group(1) + "/") if m.group(1) else "") + m.group(2)
            src = os.path.normpath(src.replace("__/", "../")).replace(os.sep, "/")
            if not src.startswith("..") and os.path.isfile(os.path.join(root, src)):
                objs[os.path.join(dirpath, fn)] = src
    if not objs:
        sys.exit("check_layering.py: no objects of the libraries in %s: build first" % build)
    defs, undefs = {}, {}
    names = sorted(objs)
    for i in range(0, len(names), 200):
        out = subprocess.run(["nm", "-A"] + names[i:i + 200], capture_output=True,
                             text=True, check=True).stdout
        for line in out.splitlines():
            obj, _, rest = line.rpartition(":")
            src = objs.get(obj)
            f = rest.split()
            if src is None:
                continue
            if len(f) == 2 and f[0] == "U":
                undefs.setdefault(src, set()).add(f[1])
            elif len(f) == 3 and f[1] in "TDBR":
                # verbs/ takes the place of libibverbs, librdmacm and (for the RDMA CM's
                # file descriptors) some of the C library: a call to one of those names is
                # the system's, not verbs/'s.
                if src.startswith("verbs/") and not f[2].startswith("rs_"):
                    continue
                defs.setdefault(f[2], set()).add(src)
    edges = []
    for src, syms in undefs.items():
        for s in sorted(syms):
            for dst in sorted(defs.get(s, ())):
                edges.append((src, dst, "calls %s()" % s))
    return edges


def tree_files(root):
    """The tree's files: in a git checkout those git tracks and the new ones it does not
    ignore (not bench/data/ nor a build folder), else every file but hidden ones."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, check=True).stdout
        return [f for f in out.decode().split("\0")
                if f and os.path.isfile(os.path.join(root, f))]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if not d.startswith((".", "build", "__pycache__"))]
            files += [rel(os.path.join(dirpath, f), root) for f in filenames]
        return files


def folders_without_readme(root):
    """Every folder that holds files opens with a README.md, but a fuzz corpus's (its files
    are the fuzzer's inputs; the corpus folder's README.md speaks for them) and hidden ones."""
    folders = {os.path.dirname(f) for f in tree_files(root)}
    out = []
    for r in sorted(folders):
        if not r or r.split("/")[-1].startswith("."):
            continue
        if os.path.basename(os.path.dirname(r)) == "corpus":
            continue
        if not os.path.isfile(os.path.join(root, r, "README.md")):
            out.append("%s/: no README.md (what it holds, what it may call)" % r)
    return out


def files_named_but_missing(root):
    """The source files a README.md or docs/architecture.md names in backquotes that are
    not in the tree (by path, or by name anywhere); `x_NAME.c` is a pattern, not a name."""
    files = tree_files(root)
    names = {os.path.basename(f) for f in files}
    out = []
    for doc in sorted(f for f in files if os.path.basename(f) == "README.md") + \
            ["docs/architecture.md"]:
        path = os.path.join(root, doc)
        if not os.path.isfile(path):
            continue
        text = open(path, encoding="utf-8").read()
        for tok in sorted(set(re.findall(r"`([A-Za-z0-9_./-]+\.(?:c|h|py|sh|cmake))`", text))):
            if "NAME" in tok or tok.startswith("build/"):
                continue
            if tok not in files and os.path.basename(tok) not in names:
                out.append("%s: `%s` names no file in the tree" % (doc, tok))
    return out


def main():
    root, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    rules = Rules(root)
    # A public header is judged at its part's level (the include edges); the calls judge
    # the subfolders within a part.
    bad = []
    n = 0
    for src, dst, how in include_edges(root):
        n += 1
        for why in rules.broken(src, dst):
            bad.append("%s -> %s (%s): %s" % (src, dst, how, why))
    for src, dst, how in object_edges(root, build):
        n += 1
        for why in rules.broken(src, dst):
            bad.append("%s -> %s (%s): %s" % (src, dst, how, why))
    bad += rules.unknown
    bad += folders_without_readme(root)
    bad += files_named_but_missing(root)
    for line in sorted(set(bad)):
        print(line)
    print("%d edges between %d folders with rules; %d break a rule"
          % (n, len(rules.folders), len(set(bad))), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
