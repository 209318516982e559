# SPDX-License-Identifier: GPL-2.0-or-later
"""tshark's options: each option of CASES on a small capture, and HEURISTIC_CASES each on its
own, read (--compat tshark) against tshark. A case is identical when both exit alike and print the same standard output (for -v,
the exit status alone: the versions differ). --export-objects is left out: tshark makes its
folder, which would be outside the test's own."""
import paritylib as pl

FAMILY = "options"

CASES = [
    [], ["-n"], ["-N", "m"], ["-N", "mt"], ["-N", "n"], ["-u", "s"], ["-Q"], ["-q"],
    ["-H", "/dev/null"], ["-C", "Default"], ["-K", "/dev/null"], ["-X", "lua_script:none.lua"],
    ["-M", "5"], ["-W", "n"], ["--color"], ["--log-level", "warning"],
    ["--disable-heuristic", "rpcrdma_infiniband"],
    ["--enable-heuristic", "rpcrdma_infiniband"], ["-T", "tabs"], ["-t", "r"], ["-t", "a"],
    ["-t", "ad"], ["-t", "adoy"], ["-t", "u"], ["-t", "ud"], ["-t", "udoy"], ["-t", "e"],
    ["-t", "d"], ["-t", "dd"], ["-c", "5"], ["-a", "packets:3"], ["-2"], ["-l"],
    ["-2", "-R", "udp.port == 4791"], ["-Y", "udp"], ["-P", "-x"], ["-x"], ["-S", "---", "-x"],
    ["-o", "tcp.check_checksum:FALSE"], ["-o", "infiniband.rroce.port:4791"],
    ["-o", "ip.defragment:TRUE"], ["-o", "udp.check_checksum:FALSE"],
    ["-o", "tcp.relative_sequence_numbers:FALSE"], ["-d", "udp.port==4791,infiniband"],
    ["--disable-protocol", "infiniband"], ["-v"],
    ["-N", "t", "-V"], ["-N", "t", "-q", "-z", "conv,udp"],
    ["-o", "tcp.relative_sequence_numbers:FALSE", "-V"], ["-j", "ip", "-T", "text"],
    # -M's session reset: the frames numbered afresh, TCP's state forgotten (relative
    # sequence numbers, window scaling), with a count; and the deltas tshark finds by number
    ["-M", "3", "-c", "7"],
    ["-M", "5", "-Y", "frame.len < 100 || frame.len > 1000", "-T", "fields", "-e",
     "frame.number", "-e", "frame.time_delta", "-e", "frame.time_delta_displayed", "-e",
     "tcp.stream", "-e", "tcp.seq", "-e", "tcp.window_size"],
    ["-M", "5", "-t", "dd"], ["-2", "-M", "5"],
    # name resolution's preferences, -N m and t in the order given with -n
    ["-o", "nameres.mac_name:FALSE", "-V"], ["-o", "nameres.transport_name:TRUE"],
    ["-n", "-o", "nameres.mac_name:TRUE", "-V"],
    # RoCEv2 moved off 4791 (its frames then plain UDP), and left no port
    ["-o", "infiniband.rroce.port:4792"], ["-o", "infiniband.rroce.port:0"],
]
# Without --all (each tshark run costs some 0.6 s of processor time): every option that
# changes what is printed or how it exits, and one of each kind of option accepted and
# ignored (-c with -M, in one run); the time formats the others cover are left to --all.
SAMPLE = [0, 1, 3, 4, 6, 7, 8, 11, 18, 22, 25, 26, 28, 50, 30, 31, 33, 34, 35, 37, 39, 42,
          43, 44, 45, 46, 47, 48, 49, 54, 55, 57, 58]

# tshark's heuristics that are ours too, each on a capture where it decides something:
# eth_over_ib takes a native IB payload for IPoIB (the ERF capture's IPoIB ARP, UDP and
# pings), iwarp_mpa_tcp finds MPA on TCP (an iWARP capture kept out of the repository). Off,
# tshark shows InfiniBand's data, or TCP's; a --disable-heuristic counts whatever the order.
PER_PROTOCOL = ["-T", "fields", "-e", "frame.number", "-e", "frame.protocols", "-e",
                "_ws.col.Protocol", "-e", "_ws.col.Info"]
HEURISTIC_CASES = [
    ("rdma-softroce-demo__infiniband.pcap", ["--disable-heuristic", "eth_over_ib"] +
     PER_PROTOCOL),
    ("rdma-softroce-demo__infiniband.pcap", ["--enable-heuristic", "eth_over_ib"] +
     PER_PROTOCOL),
    ("rdma-softroce-demo__infiniband.pcap", ["--disable-heuristic", "eth_over_ib",
                                             "--enable-heuristic", "eth_over_ib", "-q", "-z",
                                             "io,phs"]),
    ("uiwarp__422babab.pcap", ["--disable-heuristic", "iwarp_mpa_tcp", "-P", "-V", "-x"]),
    ("uiwarp__422babab.pcap", ["--enable-heuristic", "iwarp_mpa_tcp", "-P", "-V", "-x"]),
    ("uiwarp__8cdd2a5d.pcap", ["--enable-heuristic", "iwarp_mpa_tcp", "--disable-heuristic",
                               "iwarp_mpa_tcp", "-q", "-z", "io,phs"]),
    ("uiwarp__8cdd2a5d.pcap", ["--disable-heuristic", "iwarp_mpa_tcp", "--enable-protocol",
                               "iwarp_mpa"] + PER_PROTOCOL),
]


def compare(ctx, cap, case):
    want = ctx.tshark(["-r", cap] + case + ctx.tshark_flags(cap))
    got = ctx.read(["-r", cap, "--compat", "tshark"] + case)
    if want.returncode == got.returncode and ("-v" in case or want.stdout == got.stdout):
        return 1, 1, []
    return 0, 1, ["%s%s: tshark exits %d, read %d; %s" % (
        " ".join(case) or "(none)", "" if "pingpong_ud" in cap else " on " + pl.short(cap),
        want.returncode, got.returncode, pl.first_difference(want.stdout, got.stdout))]


def run(ctx):
    caps = ctx.named(["pcap_pingpong_ud.pcap"])
    if not caps:
        return 0, 0, []
    cap = caps[0]
    heuristic = [(c, case) for name, case in HEURISTIC_CASES for c in ctx.named([name])]
    return pl.add(ctx.map(lambda case: compare(ctx, cap, case), ctx.cases(CASES, SAMPLE)) +
                  ctx.map(lambda c_case: compare(ctx, *c_case), heuristic))
