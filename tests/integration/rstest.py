# SPDX-License-Identifier: GPL-2.0-or-later
"""rstest - what the integration tests share: where things are, and how to compare
roceshark's field output with tshark's."""
import atexit
import os
import re
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
GEN_DIR = os.path.join(SOURCE_DIR, "tests", "gen")
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "tools"))
import fieldsdiff  # noqa: E402
import reference_cache  # noqa: E402

# Real captures whose origin allows it are part of the repository (see their SOURCES.md).
REAL_CAPTURES = os.path.join(SOURCE_DIR, "tests", "captures", "real")
# Those whose origin states no licence are used when present in this folder, else skipped by
# name. The value tshark needs to decode each as it should goes with it: oferby_proxy__roce.pcap
# has RoCEv2 ACKs sent from UDP source port 69, which Wireshark reads as TFTP.
EXTRA_CAPTURES_DIR = os.environ.get("ROCESHARK_EXTRA_CAPTURES")
if EXTRA_CAPTURES_DIR is None:
    _beside = os.path.join(os.path.dirname(SOURCE_DIR), "shared", "captures", "real")
    EXTRA_CAPTURES_DIR = _beside if os.path.isdir(_beside) else ""
EXTRA_CAPTURES = {
    "oferby_proxy__roce.pcap": "--disable-protocol tftp",
    "montybeatnik_rdma-roce-lab__test.pcap": "",
    "montybeatnik_rdma-roce-lab__roce_capture_read-write-ecn.pcap": "",
    "kazikame_SoftUiWarp__uiwarp__422babab.pcap": "",
    "kazikame_SoftUiWarp__uiwarp__8cdd2a5d.pcap": "",
}
ROCESHARK = os.environ.get("ROCESHARK", os.path.join(SOURCE_DIR, "build", "roceshark"))
# The CMake options of the build under test, as booleans ("verbs=ON plugin=ON ..." from ctest).
BUILT = {k: v.upper() in ("ON", "TRUE", "YES", "Y", "1")
         for k, v in (kv.split("=", 1) for kv in os.environ.get("ROCESHARK_BUILT", "").split())}
PYTHON = "/usr/bin/python3"     # Debian's, which has python3-scapy


def _tshark_version():
    """major.minor of the tshark on PATH ("4.0" when there is none to ask). Kept with
    tshark's answers (reference_cache): each test asks at its start, and tshark --version
    takes half a processor second, a minute of the suite's two passes."""
    try:
        out = reference_cache.run(["tshark", "--version"]).stdout
    except OSError:
        return "4.0"
    m = re.search(r"TShark \(Wireshark\) (\d+\.\d+)", out)
    return m.group(1) if m else "4.0"


# The tshark the tests compare with, and how roceshark read is told to print as it does:
# 4.4 and 4.6 print booleans as True/False (docs/wireshark-versions.md).
TSHARK_VERSION = _tshark_version()
COMPAT = ["-o", "compat:" + TSHARK_VERSION] if TSHARK_VERSION in ("4.4", "4.6") else []
TRUE = "True" if COMPAT else "1"        # a true boolean in roceshark_fields() rows

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

# The iWARP contract: every Wireshark 4.0 iwarp_mpa.*, iwarp_ddp.* and iwarp_rdma.* field
# that tshark prints. Left out, and why:
#   iwarp_mpa.res.not_set0, .rev.not_set1, .reject_bit_responder: Wireshark 4.0 adds these
#     expert items without a tree item, so tshark -T fields never prints them; roceshark
#     makes them fields (and does not call MPA revision 2, RFC 6581, a wrong revision).
IWARP_FIELDS = """
iwarp_mpa iwarp_mpa.req iwarp_mpa.rep iwarp_mpa.fpdu iwarp_mpa.markers iwarp_mpa.key.req
iwarp_mpa.key.rep iwarp_mpa.marker_flag iwarp_mpa.crc_flag iwarp_mpa.rej_flag iwarp_mpa.res
iwarp_mpa.rev iwarp_mpa.pdlength iwarp_mpa.privatedata iwarp_mpa.ulpdulength iwarp_mpa.pad
iwarp_mpa.crc iwarp_mpa.crc_check iwarp_mpa.marker_res iwarp_mpa.marker_fpduptr
iwarp_mpa.bad_length iwarp_ddp_rdmap iwarp_ddp iwarp_ddp.control_field iwarp_ddp.tagged
iwarp_ddp.untagged iwarp_ddp.tagged_flag iwarp_ddp.last_flag iwarp_ddp.rsvd iwarp_ddp.dv
iwarp_ddp.rsvdulp iwarp_ddp.stag iwarp_ddp.tagged_offset iwarp_ddp.qn iwarp_ddp.msn
iwarp_ddp.mo iwarp_rdma iwarp_rdma.control_field iwarp_rdma.version iwarp_rdma.rsv
iwarp_rdma.opcode iwarp_rdma.reserved iwarp_rdma.inval_stag iwarp_rdma.rr
iwarp_rdma.terminate iwarp_rdma.sinkstag iwarp_rdma.sinkto iwarp_rdma.rdmardsz
iwarp_rdma.srcstag iwarp_rdma.srcto iwarp_rdma.term_ctrl iwarp_rdma.term_layer
iwarp_rdma.term_etype_rdma iwarp_rdma.term_etype_ddp iwarp_rdma.term_etype_llp
iwarp_rdma.term_etype iwarp_rdma.term_errcode_rdma iwarp_rdma.term_errcode_ddp_tagged
iwarp_rdma.term_errcode_ddp_untagged iwarp_rdma.term_errcode iwarp_rdma.term_errcode_llp
iwarp_rdma.term_hdrct iwarp_rdma.term_hdrct_m iwarp_rdma.hdrct_d iwarp_rdma.hdrct_r
iwarp_rdma.term_rsvd iwarp_rdma.term_ddp_seg_len iwarp_rdma.term_ddp_h iwarp_rdma.term_rdma_h
iwarp_rdma.atomic.reserved iwarp_rdma.atomic.opcode iwarp_rdma.atomic.request_identifier
iwarp_rdma.atomic.remote_stag iwarp_rdma.atomic.remote_tagged_offset iwarp_rdma.atomic.add_data
iwarp_rdma.atomic.add_mask iwarp_rdma.atomic.swap_data iwarp_rdma.atomic.swap_mask
iwarp_rdma.atomic.compare_data iwarp_rdma.atomic.compare_mask
iwarp_rdma.atomic.original_request_identifier iwarp_rdma.atomic.original_remote_data_value
iwarp_rdma.send.fragments iwarp_rdma.send.fragment iwarp_rdma.send.fragment.count
iwarp_rdma.send.reassembled.length iwarp_rdma.send.reassembled.data
iwarp_rdma.send.reassembled_in iwarp_rdma.send.fragment.overlap
iwarp_rdma.send.fragment.overlap.conflict iwarp_rdma.send.fragment.multipletails
iwarp_rdma.send.fragment.toolongfragment iwarp_rdma.send.fragment.error
""".split()

# tshark's upper-layer heuristics on iWARP payloads (RPC-over-RDMA, SMB Direct) throw on
# random Send payloads, and an exception inside TCP reassembly loses tshark the rest of the
# stream: switch them off, as fieldsdiff.py does for their InfiniBand twins.
TSHARK_IWARP = "--disable-heuristic rpcrdma_iwarp --disable-heuristic smb_direct_iwarp"

# Lower layers we also print, checked alongside.
LOWER_FIELDS = """
frame.time frame.len frame.cap_len eth.src eth.dst eth.type vlan.id vlan.priority vlan.dei vlan.etype
ieee8021ad.id ieee8021ad.priority ip.src ip.dst ip.id ip.ttl ip.checksum ip.dsfield.dscp
ip.dsfield.ecn ip.flags ip.flags.rb ip.flags.df ip.flags.mf ip.frag_offset ip.len ipv6.src
ipv6.dst ipv6.tclass ipv6.flow ipv6.plen ipv6.hlim
udp.srcport udp.dstport udp.length udp.checksum eth.addr ip.addr ipv6.addr udp.port tcp.port
_ws.col.No. _ws.col.Time _ws.col.Length
udp.stream tcp.stream tcp.len tcp.seq tcp.seq_raw tcp.nxtseq tcp.ack tcp.ack_raw tcp.hdr_len
tcp.flags tcp.flags.res tcp.flags.ae tcp.flags.cwr tcp.flags.ece tcp.flags.urg tcp.flags.ack
tcp.flags.push tcp.flags.reset tcp.flags.syn tcp.flags.fin tcp.flags.str tcp.window_size_value
tcp.window_size tcp.window_size_scalefactor tcp.checksum tcp.checksum.status
tcp.urgent_pointer tcp.payload
arp.hw.type arp.proto.type arp.hw.size arp.proto.size arp.opcode arp.src.hw_mac
arp.src.proto_ipv4 arp.dst.hw_mac arp.dst.proto_ipv4
""".split()

# ICMP and ICMPv6 (dissectors/net/fields_icmp.c); resp_to and resptime come from the
# streams stage.
ICMP_FIELDS = """
icmp.type icmp.code icmp.checksum icmp.checksum.status icmp.unused icmp.mtu icmp.ident
icmp.ident_le icmp.seq icmp.seq_le icmp.resp_to icmp.resptime icmp.data_time
icmp.data_time_relative
icmpv6.type icmpv6.code icmpv6.checksum icmpv6.checksum.status icmpv6.reserved icmpv6.mtu
icmpv6.echo.identifier icmpv6.echo.sequence_number icmpv6.resp_to icmpv6.resptime
icmpv6.nd.ns.target_address icmpv6.nd.na.flag icmpv6.nd.na.flag.r icmpv6.nd.na.flag.s
icmpv6.nd.na.flag.o icmpv6.nd.na.flag.rsv icmpv6.nd.na.target_address icmpv6.opt
icmpv6.opt.type icmpv6.opt.length icmpv6.opt.linkaddr icmpv6.opt.src_linkaddr
icmpv6.opt.target_linkaddr
icmp.pointer icmp.redir_gw icmpv6.pointer
icmpv6.nd.ra.cur_hop_limit icmpv6.nd.ra.flag icmpv6.nd.ra.flag.m icmpv6.nd.ra.flag.o
icmpv6.nd.ra.flag.h icmpv6.nd.ra.flag.prf icmpv6.nd.ra.flag.p icmpv6.nd.ra.flag.rsv
icmpv6.nd.ra.router_lifetime icmpv6.nd.ra.reachable_time icmpv6.nd.ra.retrans_timer
icmpv6.nd.rd.target_address icmpv6.rd.na.destination_address
icmpv6.opt.prefix.length icmpv6.opt.prefix.flag icmpv6.opt.prefix.flag.l
icmpv6.opt.prefix.flag.a icmpv6.opt.prefix.flag.r icmpv6.opt.prefix.flag.reserved
icmpv6.opt.prefix.valid_lifetime icmpv6.opt.prefix.preferred_lifetime icmpv6.opt.reserved
icmpv6.opt.prefix icmpv6.opt.mtu icmpv6.opt.redirected_packet
icmpv6.mld.maximum_response_delay icmpv6.mld.multicast_address icmpv6.mldr.nb_mcast_records
icmpv6.mldr.mar icmpv6.mldr.mar.record_type icmpv6.mldr.mar.aux_data_len
icmpv6.mldr.mar.nb_sources icmpv6.mldr.mar.multicast_address icmpv6.mldr.mar.source_address
icmpv6.mldr.mar.auxiliary_data
""".split()
# tshark 4.4 and 4.6 also find a timestamp in an ICMPv6 echo's data (4.0 has no such field).
ICMP_STAMP_FIELDS = ["icmp.data_time", "icmp.data_time_relative"]
ICMPV6_STAMP_FIELDS = ["icmpv6.data_time", "icmpv6.data_time_relative"]
if COMPAT:
    ICMP_FIELDS += ICMPV6_STAMP_FIELDS

# data.*: the bytes no protocol takes. Compared apart from the rest: the NCCL runs'
# captures carry TLS and HTTP, which tshark decodes and roceshark leaves as data.
DATA_FIELDS = ["data.data", "data.len"]
DATA_APART = ("nccl_nccl_",)

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


# ctest counts a test that exits with this code as skipped (SKIP_RETURN_CODE).
SKIP_CODE = 77


def skip_missing(what):
    """Ends a test that needs what this machine lacks (network namespaces, raw sockets, a
    mount-point /) with one line naming it. Where every test must run (CI=true, or
    ROCESHARK_TEST_ALL=1) that is a failure instead."""
    if os.environ.get("CI") == "true" or os.environ.get("ROCESHARK_TEST_ALL") == "1":
        print("FAIL: needs %s, which this machine lacks (CI runs every test)" % what)
        sys.exit(1)
    print("skipped: needs %s" % what)
    sys.exit(SKIP_CODE)


def _mount_root():
    """Whether / is a mount point (in /proc/self/mountinfo), as `ip netns exec` needs: it
    makes / a slave mount, which fails in a plain chroot."""
    try:
        return any(line.split()[4] == "/" for line in open("/proc/self/mountinfo"))
    except (OSError, IndexError):
        return False


def _raw_sockets():
    import socket
    try:
        socket.socket(socket.AF_PACKET, socket.SOCK_RAW).close()
        return True
    except OSError:
        return False


def _gui():
    return all(shutil.which(c) for c in ("wireshark", "Xvfb", "dbus-run-session", "xdotool",
                                         "import")) and subprocess.run(
        [PYTHON, "-c", "import pyatspi"], capture_output=True).returncode == 0


def require(*needs):
    """Skips the test, with one line naming what is missing (skip_missing), unless this
    machine has each of needs: "netns" (network namespaces, unshare -n), "mount-root" (/ a
    mount point, for ip netns exec), "raw" (packet sockets, CAP_NET_RAW), "gui" (Wireshark's
    Qt GUI and what drives it on a virtual screen)."""
    checks = {
        "netns": ("network namespaces (unshare -n)",
                  lambda: subprocess.run(["unshare", "-n", "true"],
                                         capture_output=True).returncode == 0),
        "mount-root": ("a mount-point / (ip netns exec makes it a slave mount; a plain chroot "
                       "has none)", _mount_root),
        "raw": ("raw packet sockets (root or CAP_NET_RAW)", _raw_sockets),
        "gui": ("Wireshark's GUI on a virtual screen and its accessibility interface "
                "(wireshark-qt, xvfb, dbus, at-spi2-core, python3-pyatspi, xdotool, imagemagick)",
                _gui),
    }
    for need in needs:
        what, ok = checks[need]
        if not ok():
            skip_missing(what)


def extra_capture(name):
    """The path of the extra capture name, or None (saying it is skipped) when absent."""
    path = os.path.join(EXTRA_CAPTURES_DIR, name) if EXTRA_CAPTURES_DIR else ""
    if path and os.path.isfile(path):
        return path
    print("skipped: %s (not in ROCESHARK_EXTRA_CAPTURES=%s)" % (name, EXTRA_CAPTURES_DIR or "''"))
    return None


def real_captures(prefix=""):
    """The real captures: the repository's, then the extra ones present; sorted by name."""
    ours = [os.path.join(REAL_CAPTURES, n) for n in os.listdir(REAL_CAPTURES)
            if n.endswith(".pcap") and n.startswith(prefix)]
    extra = [extra_capture(n) for n in sorted(EXTRA_CAPTURES) if n.startswith(prefix)]
    return sorted(ours + [p for p in extra if p], key=os.path.basename)


def project_version():
    """The version that project() in CMakeLists.txt gives."""
    text = open(os.path.join(SOURCE_DIR, "CMakeLists.txt")).read()
    return re.search(r"project\(roceshark VERSION ([0-9.]+)", text).group(1)


def wireshark_plugin_path():
    """Where Wireshark looks for our plugin: epan/roceshark.so in its global plugin folder."""
    folders = run(["tshark", "-G", "folders"]).stdout
    return os.path.join(re.search(r"^Global Plugins:\s*(\S+)$", folders, re.M).group(1),
                        "epan", "roceshark.so")


_spawned = []


def _end_spawned():
    for p in _spawned:
        if p.poll() is None:
            try:
                if p.rs_group:      # a shell's pipeline or children too
                    os.killpg(p.pid, signal.SIGKILL)
                else:
                    p.kill()
            except ProcessLookupError:
                pass
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                pass


atexit.register(_end_spawned)
# A test ended by SIGTERM (ctest, a user) still runs its atexit handlers.
if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


def spawn(args, **kw):
    """subprocess.Popen(args, **kw) for a process the test ends itself or waits for (a
    server, a peer, a capture): killed at the test's exit if still running, however the test
    ends (a failed check, an exception, SIGTERM), so that a failing test leaves no server
    behind; with start_new_session=True, its whole process group (a shell and what it
    started)."""
    p = subprocess.Popen(args, **kw)
    p.rs_group = bool(kw.get("start_new_session"))
    _spawned.append(p)
    return p


def run(args, env=None, check_rc=True, input=None, cwd=None):
    # tshark's answers may come from the pass before (tests/tools/reference_cache.py).
    p = reference_cache.run(args, env=env, text=input is None or isinstance(input, str),
                            input=input, cwd=cwd)
    if check_rc and p.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p


def roceshark_fields(path, fields, extra=()):
    return fieldsdiff.roceshark_rows(path, fields, list(extra) + COMPAT, ROCESHARK)


def tshark_fields(path, fields, extra=""):
    """tshark's rows, with the heuristics that misread RDMA payloads off (see fieldsdiff)."""
    return fieldsdiff.tshark_rows(path, fields, shlex.split(extra))


def fields_diff(path, fields, tshark_extra="", roceshark_extra=()):
    """Compares every value with tshark (tests/tools/fieldsdiff.py). Records a failure when
    the frame counts differ; returns (mismatches, total)."""
    want = tshark_fields(path, fields, tshark_extra)
    got = roceshark_fields(path, fields, roceshark_extra)
    check(len(want) == len(got), "%s: tshark %d frames, roceshark %d"
          % (os.path.basename(path), len(want), len(got)))
    return fieldsdiff.compare(want, got, fields)


def concatenate_pcaps(files, out, most=None):
    """The frames of each pcap file (the first most of each, when most is given), one file
    after another, in one pcapng, an interface per file (mergecap refuses InfiniBand's link
    type)."""
    def block(kind, body):
        body += b"\0" * (-len(body) % 4)
        return struct.pack("<II", kind, len(body) + 12) + body + struct.pack("<I", len(body) + 12)

    with open(out, "wb") as w:
        w.write(block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)))
        iface = 0
        for f in files:
            data = open(f, "rb").read()
            magic = data[:4]
            order = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
            nano = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
            snaplen, linktype = struct.unpack(order + "II", data[16:24])
            tsresol = struct.pack("<HHB", 9, 1, 9 if nano else 6)
            w.write(block(1, struct.pack("<HHI", linktype & 0xffff, 0, snaplen) + tsresol +
                          b"\0\0\0" + struct.pack("<HH", 0, 0)))
            at = 24
            taken = 0
            while at + 16 <= len(data) and (most is None or taken < most):
                taken += 1
                sec, frac, caplen, length = struct.unpack(order + "IIII", data[at:at + 16])
                ts = sec * (10**9 if nano else 10**6) + frac
                w.write(block(6, struct.pack("<IIIII", iface, ts >> 32, ts & 0xffffffff,
                                             caplen, length) + data[at + 16:at + 16 + caplen]))
                at += 16 + caplen
            iface += 1


def tempdir():
    d = tempfile.mkdtemp(prefix="roceshark-test-")
    atexit.register(shutil.rmtree, d, True)
    return d


def _ephemeral_low():
    try:
        return int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


_port_cursor = None


def free_port(count=1):
    """The first of count consecutive TCP ports that nothing holds now, below the kernel's
    ephemeral range. Tests run side by side: a port inside that range may be taken as the
    local port of another test's connection between our choice and a server's listen. Each
    test starts at its own place (from its pid) and moves on, so two tests rarely meet."""
    import socket
    global _port_cursor
    low, high = 10000, _ephemeral_low() - 1
    if _port_cursor is None:
        _port_cursor = low + (os.getpid() * 211) % (high - low - 64)
    for _ in range(high - low):
        base = _port_cursor
        _port_cursor = base + count if base + 2 * count <= high else low
        taken = False
        for p in range(base, base + count):
            for family, addr in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::")):
                s = socket.socket(family, socket.SOCK_STREAM)
                try:
                    s.bind((addr, p))
                except OSError:
                    taken = True
                finally:
                    s.close()
        if not taken:
            return base
    raise RuntimeError("no free TCP port below %d" % high)


def listening(port):
    """True once a TCP socket listens on port (read from /proc, so that no connection takes
    the server's one accept)."""
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = open(name).read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            f = row.split()
            if f[3] == "0A" and int(f[1].rsplit(":", 1)[1], 16) == port:
                return True
    return False


def dumpcap(iface, path, bpf, prefix=()):
    """dumpcap capturing iface into path through the capture filter bpf (run under prefix,
    e.g. `ip netns exec NS`), once it captures: it says "Capturing on" some 10-20 ms before
    it does (the frames of that time were measured lost), so this waits a little more. Ended
    at exit; stop it earlier with stop_dumpcap()."""
    cap = spawn(list(prefix) + ["dumpcap", "-i", iface, "-q", "-w", path, "-f", bpf],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = cap.stderr.readline()
    check("Capturing" in line, "dumpcap started: %s" % line.strip())
    time.sleep(0.2)
    return cap


def stop_dumpcap(cap):
    """Ends dumpcap once the last frames sent have reached it; the file is then whole."""
    time.sleep(0.3)
    cap.terminate()
    cap.wait(10)
