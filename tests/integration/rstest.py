"""rstest - what the integration tests share: where things are, and how to compare
roceshark's field output with tshark's."""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
GEN_DIR = os.path.join(SOURCE_DIR, "tests", "gen")
SHARED = os.environ.get("ROCESHARK_SHARED", os.path.join(os.path.dirname(SOURCE_DIR), "shared"))
REAL_CAPTURES = os.path.join(SHARED, "captures", "real")
TOOLS = os.path.join(SHARED, "tools")
ROCESHARK = os.environ.get("ROCESHARK", os.path.join(SOURCE_DIR, "build", "roceshark"))
PYTHON = "/usr/bin/python3"     # Debian's, which has python3-scapy

# The field contract of the foundation issue: every Wireshark 4.0 field of these headers.
CONTRACT_FIELDS = """
infiniband.lrh infiniband.lrh.vl infiniband.lrh.lver infiniband.lrh.sl infiniband.lrh.reserved2
infiniband.lrh.lnh infiniband.lrh.dlid infiniband.lrh.reserved5 infiniband.lrh.pktlen
infiniband.lrh.slid infiniband.grh infiniband.grh.ipver infiniband.grh.tclass
infiniband.grh.flowlabel infiniband.grh.paylen infiniband.grh.nxthdr infiniband.grh.hoplmt
infiniband.grh.sgid infiniband.grh.dgid infiniband.bth infiniband.bth.opcode infiniband.bth.se
infiniband.bth.m infiniband.bth.padcnt infiniband.bth.tver infiniband.bth.p_key
infiniband.bth.destqp infiniband.bth.a infiniband.bth.reserved7 infiniband.bth.psn
infiniband.reth infiniband.reth.va infiniband.reth.r_key infiniband.reth.dmalen infiniband.aeth
infiniband.aeth.syndrome infiniband.aeth.syndrome.reserved infiniband.aeth.syndrome.opcode
infiniband.aeth.syndrome.credit_count infiniband.aeth.syndrome.timer
infiniband.aeth.syndrome.reserved_value infiniband.aeth.syndrome.error_code infiniband.aeth.msn
infiniband.atomiceth infiniband.atomiceth.swapdt infiniband.atomiceth.cmpdt
infiniband.atomicacketh infiniband.atomicacketh.origremdt infiniband.deth infiniband.deth.q_key
infiniband.deth.srcqp infiniband.rdeth infiniband.rdeth.eecnxt infiniband.immdt infiniband.ieth
infiniband.invariant.crc infiniband.variant.crc
""".split()

# Lower layers we also print, checked alongside.
LOWER_FIELDS = """
frame.len frame.cap_len eth.src eth.dst eth.type vlan.id vlan.priority vlan.dei vlan.etype
ieee8021ad.id ieee8021ad.priority ip.src ip.dst ip.id ip.ttl ip.checksum ip.dsfield.dscp
ip.dsfield.ecn ip.flags.df ip.len ipv6.src ipv6.dst ipv6.tclass ipv6.flow ipv6.plen ipv6.hlim
udp.srcport udp.dstport udp.length udp.checksum
""".split()

# The Wireshark-compatible BTH subfields, which Wireshark gets right on every opcode.
BTH_SUBFIELDS = [f for f in CONTRACT_FIELDS if f.startswith("infiniband.bth.")]

failures = []


def check(cond, what):
    """Records a failed expectation; the test exits non-zero at the end."""
    if not cond:
        failures.append(what)
        print("FAIL: " + what)
    return cond


def finish(name):
    if failures:
        print("%s: %d failure(s)" % (name, len(failures)))
        sys.exit(1)
    print("%s: ok" % name)
    sys.exit(0)


def need(path, what):
    if not os.path.exists(path):
        print("%s not found at %s (set ROCESHARK_SHARED to the shared folder)" % (what, path))
        sys.exit(1)


def run(args, env=None, check_rc=True, input=None):
    p = subprocess.run(args, capture_output=True, text=input is None or isinstance(input, str),
                       env=env, input=input)
    if check_rc and p.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p


def roceshark_fields(path, fields, extra=()):
    args = [ROCESHARK, "read", "-r", path, "-T", "fields"] + list(extra)
    for f in fields:
        args += ["-e", f]
    return [line.split("\t") for line in run(args).stdout.splitlines()]


def tshark_fields(path, fields, extra=""):
    env = dict(os.environ, TSHARK_EXTRA=extra)
    out = run([os.path.join(TOOLS, "tshark-fields"), path] + list(fields), env=env).stdout
    return [line.split("\t") for line in out.splitlines()]


def norm(v):
    """tshark prints a field that stands twice in a frame twice; compare distinct values."""
    return ",".join(dict.fromkeys(v.split(","))) if v else v


def fields_diff(path, fields, tshark_extra="", roceshark_extra=()):
    """Compares every value with tshark. Returns (mismatches, total). With no -d
    options this is what ../shared/tools/fields-diff does; it also runs that tool."""
    if not roceshark_extra:
        env = dict(os.environ, ROCESHARK=ROCESHARK, TSHARK_EXTRA=tshark_extra)
        p = run([os.path.join(TOOLS, "fields-diff"), path] + list(fields), env=env,
                check_rc=False)
        last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
        if p.returncode != 0:
            print(p.stdout)
        check(p.returncode == 0, "fields-diff %s: %s" % (os.path.basename(path), last))
    want = tshark_fields(path, fields, tshark_extra)
    got = roceshark_fields(path, fields, roceshark_extra)
    bad = total = 0
    check(len(want) == len(got), "%s: tshark %d frames, roceshark %d"
          % (os.path.basename(path), len(want), len(got)))
    for n, (w, g) in enumerate(zip(want, got), 1):
        for i, f in enumerate(fields):
            a = norm(w[i]) if i < len(w) else ""
            b = norm(g[i]) if i < len(g) else ""
            total += 1
            if a != b:
                bad += 1
                if bad <= 10:
                    print("  frame %d %s: tshark %r roceshark %r" % (n, f, a, b))
    return bad, total


def tempdir():
    d = tempfile.mkdtemp(prefix="roceshark-test-")
    atexit.register(shutil.rmtree, d, True)
    return d
