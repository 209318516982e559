#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# deps.sh - installs the Debian 12 packages roceshark needs to build and test, when missing.
set -eu
# clang: CI compiles with it too; libclang-rt-14-dev (only recommended by clang) holds its
# libFuzzer and sanitizer runtimes, for the fuzz step (scripts/fuzz.sh --ci). git, dpkg-dev, file, man-db: the fresh-clone and package
# tests (clone, dpkg-shlibdeps, man roceshark). tcpreplay: bench_inject.py's reference.
# ethtool: the bridge tests turn off the offloads a userspace bridge cannot carry.
# tmux: the TUI's tests drive it in a detached session. lintian: the package test. ccache:
# test.sh's builds. perftest, ibverbs-utils: Debian's
# own verbs programs (ib_write_bw, ibv_rc_pingpong, ibv_devinfo), run unmodified over our
# verbs library by the tests; librdmacm-dev (the RDMA CM's ABI, which the library serves),
# rdmacm-utils (rping, ucmatose, rstream, ...) and qperf, its librdmacm programs.
# stress-ng: the load soak (tests/soak/load.py). wireshark-qt, xvfb, dbus, at-spi2-core,
# python3-pyatspi, xdotool, imagemagick: the plugin in Wireshark's GUI (integration.plugin_gui:
# a virtual screen, its accessibility bus and client, a wait for the window, screenshots).
PACKAGES="build-essential cmake pkg-config libpcap-dev libibverbs-dev librdmacm-dev wireshark-dev
libglib2.0-dev zlib1g-dev libcmocka-dev libncurses-dev tshark python3 python3-scapy iproute2
librsvg2-bin python3-crcmod clang libclang-rt-14-dev git dpkg-dev file man-db tcpreplay ethtool tmux
perftest ibverbs-utils lintian ccache rdmacm-utils qperf stress-ng wireshark-qt xvfb dbus
at-spi2-core python3-pyatspi xdotool imagemagick"
missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
