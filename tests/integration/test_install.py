#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`cmake --install` of this build into a scratch DESTDIR with prefix /usr:
  - it installs the binary, the Wireshark plugin (plugins/<major>.<minor>/epan of Wireshark's
    plugin folder), the man page roceshark(1) and the bash completion;
  - the installed binary's --version is the version of project() in CMakeLists.txt, names the
    optional parts this build has, and the libpcap it runs with (as libpcap itself says);
  - the man page, as man(1) renders it, names every subcommand of --help, every option of
    --help and of each subcommand's -h, every exit code, and every roceshark.* field;
  - the installed completion, run by a real bash, completes subcommands, each subcommand's
    options, perf's tests and plot's graph, and field names after -e, -Y, -z io,stat and
    `fields`, exactly as `roceshark fields` lists them."""
import ctypes
import os
import re
import shutil
import subprocess

import rstest as t

BUILD = os.environ["ROCESHARK_BUILD_DIR"]
BUILT = t.BUILT
dest = t.tempdir()
p = t.run(["cmake", "--install", BUILD, "--prefix", "/usr"],
          env=dict(os.environ, DESTDIR=dest), check_rc=False)
t.check(p.returncode == 0, "cmake --install failed: %s" % p.stderr.strip())

binary = os.path.join(dest, "usr/bin/roceshark")
man_page = os.path.join(dest, "usr/share/man/man1/roceshark.1.gz")
completion = os.path.join(dest, "usr/share/bash-completion/completions/roceshark")
for path in (binary, man_page, completion):
    t.check(os.path.isfile(path), "not installed: %s" % os.path.relpath(path, dest))
t.check(os.access(binary, os.X_OK), "the installed binary is not executable")
if BUILT["plugin"]:
    plugin = t.wireshark_plugin_path()
    t.check(os.path.isfile(dest + plugin), "the plugin is not at %s" % plugin)


def rs(*args):
    return t.run([binary] + list(args), check_rc=False)


# --version: project()'s version, the parts built in, the libpcap in use.
version = t.project_version()
out = rs("--version")
text = " ".join(out.stdout.split())
t.check(out.returncode == 0 and out.stdout.startswith("roceshark %s\n" % version),
        "--version: %r, want roceshark %s" % (out.stdout[:40], version))
t.check(rs("-v").stdout == out.stdout, "-v and --version differ")
libpcap = ctypes.CDLL("libpcap.so.0.8")
libpcap.pcap_lib_version.restype = ctypes.c_char_p
t.check("with %s." % libpcap.pcap_lib_version().decode() in text,
        "--version lacks the libpcap in use: %r" % text)
WORDS = {"verbs": "with libibverbs", "plugin": "with the Wireshark", "tui": "with the ncurses TUI",
         "sanitize": "with AddressSanitizer"}
for part, words in WORDS.items():
    t.check((words in text) == BUILT[part], "--version says %r: %s is %s"
            % (text, part, BUILT[part]))
# Every build has the TUI when ncursesw's development files are there: the sanitized one
# too, whose TUI tests run under ASan and UBSan only then.
ncursesw = subprocess.run(["pkg-config", "--exists", "ncursesw"]).returncode == 0
t.check(BUILT["tui"] == ncursesw and ("with the ncurses TUI" in text) == ncursesw,
        "ncursesw %s, but this build (sanitize=%s) has tui=%s: %r" % (
            "found" if ncursesw else "missing", BUILT["sanitize"], BUILT["tui"], text))

# The man page covers every subcommand, option, exit code and roceshark.* field.
help_text = rs("--help").stdout
commands = re.findall(r"^  ([a-z]+) ", help_text.split("commands:\n")[1].split("\n\n")[0], re.M)
t.check(sorted(set(commands)) == sorted(["bridge", "capture", "fields", "ifaces", "inject",
                                         "perf", "plot", "read", "replay", "responder", "run",
                                         "correlate"] +
                                        (["tui"] if BUILT["tui"] else [])),
        "--help lists the commands %s" % commands)


def options(text):
    """The options a help text shows; text in parentheses is prose, not options."""
    text = re.sub(r"\([^)\n]*\)", "", text)
    return set(re.findall(r"(?:^|[\s\[\],|])(--?[A-Za-z][A-Za-z0-9_-]*)", text, re.M))


per_command = {c: options(rs(c, "-h").stdout + rs(c, "-h").stderr) for c in set(commands)}
page = t.run(["man", "-l", man_page], env=dict(os.environ, LC_ALL="C", MANWIDTH="250",
                                                MANPAGER="cat", PAGER="cat")).stdout
page = re.sub(r".\x08", "", page)       # no overstrike, whatever the pager
sections = re.split(r"^(?=[A-Z][A-Z ]+$)", page, flags=re.M)
section = {s.split("\n", 1)[0]: s for s in sections}
# COMMANDS has a subsection per subcommand ("   roceshark read"), where its options must be.
subsection = {" ".join(s.split("\n", 1)[0].split()[:2]): s     # "roceshark plot" of "... psn"
              for s in re.split(r"^(?=   \S)", section.get("COMMANDS", ""), flags=re.M)}
for c in set(commands):
    text = subsection.get("roceshark " + c, "")
    t.check(text != "", "the man page has no section for roceshark %s" % c)
    for opt in sorted(per_command[c]):
        t.check(re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt), text) is not None,
                "the man page lacks %s in the section of roceshark %s" % (opt, c))
for opt in sorted(options(help_text)):
    t.check(re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt), page) is not None,
            "the man page lacks %s of --help" % opt)
# SYNOPSIS shows every command with every option of its usage lines; FILES names every
# file installed.
synopsis = {}
for entry in re.split(r"\n(?=       roceshark )", section.get("SYNOPSIS", "")):
    words = entry.split()
    if len(words) > 1 and words[0] == "roceshark":
        synopsis.setdefault(words[1], []).append(entry)
for c in set(commands):
    usage = []      # the usage lines: "usage: ...", more commands, their continuations
    for line in (rs(c, "-h").stdout + rs(c, "-h").stderr).splitlines():
        if (line.startswith("usage:") or re.match(r"^\s+roceshark ", line) or
                (usage and re.match(r"^\s{8,}[\[(-]", line))):
            usage.append(line)
        elif usage:
            break
    usage = "\n".join(usage)
    entries = "\n".join(synopsis.get(c, []))
    t.check(entries != "", "SYNOPSIS lacks roceshark %s" % c)
    # Every option the usage lines name, those inside parentheses too.
    for opt in sorted(set(re.findall(r"(?:^|[\s\[\](|,])(--?[A-Za-z][A-Za-z0-9_-]*)", usage))):
        t.check(re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt), entries) is not None,
                "SYNOPSIS lacks %s of roceshark %s's usage" % (opt, c))
t.check("help" in synopsis, "SYNOPSIS lacks roceshark help COMMAND")
installed = [os.path.relpath(os.path.join(d, f), os.path.join(dest, "usr"))
             for d, _, fs in os.walk(dest) for f in fs]
for f in installed:
    if "wireshark/plugins" in f or f.startswith("share/lintian") or "/doc/" in f:
        continue        # the plugin has its own entry; lintian's overrides are for lintian
    t.check(f.replace("-", "\\-") in open(os.path.join(t.SOURCE_DIR, "docs", "roceshark.1.in"))
            .read() or f in section.get("FILES", ""), "FILES lacks %s" % f)
codes = re.findall(r"^  (\d)  ", help_text, re.M)
t.check(codes == ["0", "1", "2", "3", "4", "5", "6", "7"], "--help exit codes %s" % codes)
for code in codes:
    t.check(re.search(r"^ {7}%s {6}\S" % code, section.get("EXIT STATUS", ""), re.M),
            "the man page's EXIT STATUS lacks %s" % code)
ours = [l.split("\t")[0] for l in rs("fields", "roceshark.").stdout.splitlines()]
t.check(len(ours) > 50, "only %d roceshark.* fields" % len(ours))
for f in ours:
    t.check(re.search(r"^ {7}%s \(FT_" % re.escape(f), section.get("ROCESHARK FIELDS", ""), re.M),
            "the man page lacks the field %s" % f)
t.check("roceshark %s" % version in page.splitlines()[-1], "man page footer: %r"
        % page.splitlines()[-1])


def complete(*words):
    """What the installed completion offers for words (the last one is being typed)."""
    script = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _roceshark; '
              'printf "%s\\n" "${COMPREPLY[@]}"; complete -p roceshark >&2')
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", script, "_", completion, binary] +
                       list(words), capture_output=True, text=True)
    t.check(p.returncode == 0 and "-F _roceshark roceshark" in p.stderr,
            "completion of %r: exit %d, %r" % (words, p.returncode, p.stderr))
    return sorted(w for w in p.stdout.split("\n") if w)


fields = [l.split("\t")[0] for l in rs("fields").stdout.splitlines()]
t.check(complete("") == sorted(set(commands) | {"help", "-h", "--help", "-v", "--version"}),
        "subcommands: %s" % complete(""))
t.check(complete("re") == ["read", "replay", "responder"], "re: %s" % complete("re"))
for c in set(commands):
    got = complete(c, "-")
    t.check(set(got) == {o for o in per_command[c] if o.startswith("-")},
            "%s -: %s, want %s" % (c, got, sorted(per_command[c])))
t.check(complete("capture", "--i") == ["--iwarp-port"], "capture --i")
aeth = sorted(f for f in fields if f.startswith("infiniband.aeth."))
t.check(complete("read", "-r", "x.pcap", "-T", "fields", "-e", "infiniband.aeth.") == aeth,
        "-e infiniband.aeth.: %s" % complete("read", "-e", "infiniband.aeth."))
t.check(complete("read", "-Y", "!roceshark.analysis.re") ==
        sorted("!" + f for f in fields if f.startswith("roceshark.analysis.re")),
        "-Y !roceshark.analysis.re: %s" % complete("read", "-Y", "!roceshark.analysis.re"))
t.check(complete("read", "-z", "io,stat,0.5,roceshark.icrc.s") ==
        ["io,stat,0.5,roceshark.icrc.status"], "-z io,stat,0.5,roceshark.icrc.s")
t.check(complete("fields", "iwarp_ddp.") == sorted(f for f in fields
                                                   if f.startswith("iwarp_ddp.")), "fields PREFIX")
# Operands and values come from each command's own -h, every one of them.
perf_help = rs("perf", "-h").stdout
tests = re.search(r"^TEST: (.*?)\n  -", perf_help, re.S | re.M)
tests = sorted(re.findall(r"[a-z_]+", re.sub(r"\([^)]*\)", "", tests.group(1)))) if tests else []
t.check(len(tests) >= 9 and complete("perf", "") == tests,
        "perf tests: %s, perf -h lists %s" % (complete("perf", ""), tests))
read_help = rs("read", "-h").stdout
z_forms = re.findall(r"-z ([a-z][a-z,]*)", "\n".join(l for l in read_help.splitlines()
                                                      if l.startswith("  -z ")))
z_want = sorted(set(z_forms))
t.check(len(z_want) >= 7 and complete("read", "-z", "") == z_want,
        "-z: %s, read -h has %s" % (complete("read", "-z", ""), z_want))
for kind in ("conv", "endpoints"):
    got = complete("read", "-z", kind + ",")
    t.check(kind + ",tcp" in got and kind + ",ipv6" in got and kind + ",eth" in got,
            "-z %s,: %s" % (kind, got))
t_forms = re.search(r"^  -T (\S+)", read_help, re.M)
t.check(t_forms is not None and complete("read", "-T", "") == sorted(t_forms.group(1).split("|")),
        "-T: %s" % complete("read", "-T", ""))
t.check(complete("perf", "write_bw", "") == [], "perf after its test: %s"
        % complete("perf", "write_bw", ""))
t.check(complete("plot", "") == ["psn", "segments"], "plot: %s" % complete("plot", ""))
# run finds the installed verbs library from the installed binary and lists our device.
if BUILT["verbs"] and shutil.which("ibv_devices"):    # ibverbs-utils, as CI installs it
    preload = os.environ.get("ROCESHARK_SANITIZER_PRELOAD", "")
    out = t.run([binary, "run", "--dev", "rs7=127.0.0.7", "--", "ibv_devices"], check_rc=False,
                env=dict(os.environ, LD_PRELOAD=preload, ASAN_OPTIONS="detect_leaks=0")
                if preload else None)
    t.check(out.returncode == 0 and re.search(r"^\s+rs7\s+[0-9a-f]{16}$", out.stdout, re.M),
            "installed run ibv_devices: %d %r %r" % (out.returncode, out.stdout, out.stderr))
    # And the RDMA CM's shim, installed beside the library, comes with it.
    out = t.run([binary, "run", "--dev", "rs7=127.0.0.7", "--", "sh", "-c", "echo $LD_PRELOAD"])
    libs = out.stdout.strip().split(":")[-2:]
    t.check([os.path.basename(x) for x in libs] == ["libroceshark-verbs.so",
                                                     "libroceshark-ucma.so"] and
            os.path.dirname(libs[0]) == os.path.dirname(libs[1]) and
            all(os.path.exists(x) for x in libs), "installed run preloads both: %r" % libs)
# run: its options, then the program as a command of its own.
t.check(complete("run", "--dev", "rs0=127.0.0.2", "ibv_devinf") == ["ibv_devinfo"],
        "run's program: %s" % complete("run", "--dev", "rs0=127.0.0.2", "ibv_devinf"))
ifaces = sorted(n for n in os.listdir("/sys/class/net") if n.startswith("l"))
t.check("lo" in ifaces and complete("read", "-i", "l") == ifaces,
        "-i l: %s" % complete("read", "-i", "l"))
t.finish("install")
