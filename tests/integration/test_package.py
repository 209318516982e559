#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`cpack -G DEB` of this build, installed with `apt-get install ./roceshark_*.deb` into a
throwaway root (needs root):
  - the package is roceshark at project()'s version, and its dependencies are Debian library
    packages (libpcap0.8, libibverbs1, libwireshark16, ...) that this Debian has installed;
  - it holds the binary, the verbs library, the plugin (under Wireshark's
    plugins/<major>.<minor>/epan), the man page (compressed), the bash completion, the
    copyright, changelog and lintian overrides, and nothing else;
  - lintian finds no error and no warning in it (the overridden ones are explained in
    cmake/debian/lintian-overrides), and its dependencies are those README.md lists;
  - in the throwaway root (an overlay of / in a private mount namespace without network, so
    apt must find every dependency already installed, and nothing of the machine changes),
    apt installs it; then `roceshark --version` runs, `man roceshark` shows the page, tshark
    loads the plugin from Wireshark's global folder, bash loads the completion; and
    `apt-get remove` takes every file away again."""
import glob
import gzip
import os
import re

import rstest as t

t.require("netns", "mount-root")

BUILD = os.environ["ROCESHARK_BUILD_DIR"]
if os.geteuid() != 0:
    print("the package test needs root (mount namespace, overlay, chroot)")
    t.sys.exit(1)

version = t.project_version()
ws = re.search(r"(\d+)\.(\d+)\.\d+", t.run(["tshark", "--version"]).stdout)
PLUGIN = t.wireshark_plugin_path()
FILES = ["/usr/bin/roceshark", "/usr/share/man/man1/roceshark.1.gz",
         "/usr/share/bash-completion/completions/roceshark",
         "/usr/share/doc/roceshark/copyright", "/usr/share/doc/roceshark/changelog.gz",
         "/usr/share/lintian/overrides/roceshark"]
FILES += [PLUGIN] if t.BUILT["plugin"] else []

out = t.tempdir()
p = t.run(["cpack", "--config", os.path.join(BUILD, "CPackConfig.cmake"), "-G", "DEB", "-B", out],
          check_rc=False)
debs = glob.glob(os.path.join(out, "roceshark_*.deb"))
t.check(p.returncode == 0 and len(debs) == 1, "cpack: exit %d, %s: %s"
        % (p.returncode, debs, p.stderr.strip()[-300:]))
if not debs:
    t.finish("package")
deb = debs[0]
t.check(os.path.basename(deb) == "roceshark_%s_amd64.deb" % version, "package file %s" % deb)

# The control file: name, version, and dependencies this Debian has as installed packages.
info = t.run(["dpkg-deb", "-f", deb, "Package", "Version", "Depends"]).stdout
control = dict(l.split(": ", 1) for l in info.splitlines() if ": " in l)
t.check(control.get("Package") == "roceshark" and control.get("Version") == version,
        "control: %r" % control)
depends = [d.split()[0] for d in control.get("Depends", "").split(", ") if d]
for lib, built in (("libc6", True), ("libpcap0.8", True), ("libibverbs1", t.BUILT["verbs"]),
                   ("libwireshark16", t.BUILT["plugin"])):
    t.check((lib in depends) == built, "Depends: %s, %s %s" % (depends, lib, built))
# README.md's Installing section names them all.
readme = " ".join(open(os.path.join(t.SOURCE_DIR, "README.md")).read().split())
listed = re.search(r"The package depends on Debian 12's (.*?) \(found by dpkg-shlibdeps\)",
                   readme)
listed = sorted(re.split(r", | and ", listed.group(1))) if listed else []
t.check(listed == sorted(depends), "README.md lists the dependencies %s, the package has %s"
        % (listed, sorted(depends)))
# What Debian's own checker says: no error, no warning (an override names its reason).
lint = t.run(["lintian", "--tag-display-limit", "0", deb], check_rc=False)
tags = [l for l in lint.stdout.splitlines() if re.match(r"^[EW]: ", l)]
t.check(lint.returncode == 0 and not tags, "lintian: exit %d\n%s%s"
        % (lint.returncode, lint.stdout, lint.stderr))
# The changelog's last entry is this version; the copyright is machine-readable GPL-2.0+.
unpacked = t.tempdir()
t.run(["dpkg-deb", "-x", deb, unpacked])
doc = os.path.join(unpacked, "usr/share/doc/roceshark")
top = gzip.open(os.path.join(doc, "changelog.gz"), "rt").readline()
t.check(top.startswith("roceshark (%s) " % version), "changelog: %r" % top)
copyright_text = open(os.path.join(doc, "copyright")).read()
t.check(copyright_text.startswith("Format: https://www.debian.org/doc/packaging-manuals/"
                                  "copyright-format/1.0/") and
        "\nLicense: GPL-2.0+\n" in copyright_text, "copyright: %r" % copyright_text[:200])
for dep in depends:
    st = t.run(["dpkg-query", "-W", "-f", "${db:Status-Status} ${Section}", dep], check_rc=False)
    t.check(st.stdout.startswith("installed ") and st.stdout.split()[1:] == ["libs"],
            "dependency %s is not an installed Debian library package: %r" % (dep, st.stdout))
contents = [l.split()[-1][1:] for l in t.run(["dpkg-deb", "-c", deb]).stdout.splitlines()
            if not l.startswith("d")]
# The verbs library of `roceshark run` and its RDMA CM's shim, in the library folder (lib, or
# Debian's multiarch one).
lib = [f for f in contents
       if re.match(r"^/usr/lib/(.+/)?roceshark/libroceshark-(verbs|ucma)\.so$", f)]
t.check(len(lib) == 2 * int(t.BUILT["verbs"]), "the verbs libraries: %s" % lib)
t.check(sorted(c for c in contents if c not in lib) == sorted(FILES), "package files: %s"
        % contents)

# Install into a throwaway root and use what was installed.
SCRIPT = r'''
set -eu
T=$1 DEB=$2 PLUGIN=$3
mount -t tmpfs tmpfs "$T"
mkdir "$T/upper" "$T/work" "$T/root"
mount -t overlay overlay -o "lowerdir=/,upperdir=$T/upper,workdir=$T/work" "$T/root"
mount -t proc proc "$T/root/proc"
mount --rbind /dev "$T/root/dev"
mount -t tmpfs tmpfs "$T/root/tmp"
cp "$DEB" "$T/root/tmp/"
in_root() { chroot "$T/root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C "$@"; }
# man-db rebuilds its index on every install, which takes most of the time here; man finds
# the page without it.
echo "man-db man-db/auto-update boolean false" | in_root debconf-set-selections
echo "== install"
in_root sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q /tmp/'"${DEB##*/}" 2>&1
echo "== version"
in_root roceshark --version
echo "== man"
in_root env MANWIDTH=100 MANPAGER=cat man roceshark 2>&1 | sed -n '1,8p'
echo "== plugins"
in_root tshark -G plugins 2>/dev/null | grep roceshark || true
echo "== completion"
in_root bash --norc -c '. /usr/share/bash-completion/completions/roceshark; complete -p roceshark'
echo "== remove"
in_root sh -c 'DEBIAN_FRONTEND=noninteractive apt-get remove -y -q roceshark' >/dev/null 2>&1
for f in /usr/bin/roceshark "$PLUGIN" /usr/share/man/man1/roceshark.1.gz; do
    [ -e "$T/root$f" ] && echo "left: $f"
done
echo "== end"
'''
root = t.tempdir()
p = t.run(["unshare", "--mount", "--net", "--propagation", "private", "sh", "-c", SCRIPT, "sh",
           root, deb, PLUGIN], check_rc=False)
parts = dict(re.findall(r"^== (\w+)\n(.*?)(?=^== )", p.stdout, re.S | re.M))
t.check(p.returncode == 0 and "end" in p.stdout, "throwaway root: exit %d: %s %s"
        % (p.returncode, p.stdout[-600:], p.stderr[-300:]))
t.check("Setting up roceshark (%s)" % version in parts.get("install", ""),
        "apt-get install: %s" % parts.get("install", "")[-600:])
t.check(parts.get("version", "").startswith("roceshark %s\n" % version),
        "installed roceshark --version: %r" % parts.get("version", "")[:200])
t.check(("with the Wireshark %s" % ws.group(0) in " ".join(parts.get("version", "").split()))
        == t.BUILT["plugin"], "installed --version on the plugin: %r" % parts.get("version"))
man = parts.get("man", "")
t.check(man.startswith("ROCESHARK(1)") and "roceshark - decode, analyze" in man,
        "man roceshark: %r" % man)
plugin_line = r"^roceshark\.so\s+%s\s+dissector\s+%s$" % (re.escape(version), re.escape(PLUGIN))
t.check(bool(re.search(plugin_line, parts.get("plugins", ""), re.M)) == t.BUILT["plugin"],
        "tshark -G plugins in the root: %r" % parts.get("plugins"))
t.check(parts.get("completion", "").strip() == "complete -F _roceshark roceshark",
        "completion: %r" % parts.get("completion"))
t.check(parts.get("remove", "") == "", "apt-get remove left files: %r" % parts.get("remove"))
t.finish("package")
