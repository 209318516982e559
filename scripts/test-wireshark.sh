#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test-wireshark.sh [--prepare|--build|--test] VERSION [CTEST_REGEX]: builds the Wireshark
# plugin against Wireshark VERSION (4.4: Debian 13 "trixie"; 4.6: Debian sid) and runs its
# integration tests there. --prepare only makes the Debian root; --build makes it and builds
# there; --test only runs the tests on what --build built. test.sh runs --build in the
# background while its other steps run (a core idle while a test waits takes the build), and
# --test at the end.
#
# The Wireshark comes from a Debian root made with debootstrap on first use (a few minutes;
# Debian's archive only) and reused after, in $ROCESHARK_WS_ROOTS (default
# /var/cache/roceshark). The tracked files of this tree are copied into the root, built
# there (the roceshark binary and the plugin), and ctest runs the tests named by CTEST_REGEX
# (default: the plugin's, and `read`'s fields against that tshark on the real and generated
# captures; rstest.py gives read `-o compat:VERSION`).
# Needs root (debootstrap, chroot). Exit status: 0 when the tests passed, 1 when they
# failed, 2 on bad usage or when the root cannot be made.
set -eu
cd "$(dirname "$0")/.."

usage() {
    echo "usage: scripts/test-wireshark.sh [--prepare|--build|--test] 4.4|4.6 [CTEST_REGEX]" >&2
    exit 2
}
phase=all
case "${1:-}" in
--prepare|--build|--test) phase=${1#--}; shift ;;
esac
[ $# -ge 1 ] || usage
version=$1
regex=${2:-'integration\.(plugin|plugin_gui|real_captures|generated)$'}
case $version in
4.4) suite=trixie ;;
4.6) suite=sid ;;
*) usage ;;
esac
roots=${ROCESHARK_WS_ROOTS:-/var/cache/roceshark}
root=$roots/ws-$suite
mirror=${ROCESHARK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What the root needs to build and test: Wireshark's SDK and tshark, the build tools and the
# libraries we link (by debootstrap), then the tests' tools (by apt-get: scapy and crcmod are
# the tests' independent packet generators; wireshark, xvfb, dbus, at-spi2-core, pyatspi,
# xdotool and imagemagick are integration.plugin_gui's Qt GUI on a virtual screen).
base=tshark,wireshark-dev,gcc,cmake,make,pkg-config,libglib2.0-dev,libpcap-dev,ca-certificates
# One line (the backslash joins them): in_root's command would run a second line as a command.
extras="libcmocka-dev python3 python3-scapy python3-crcmod util-linux wireshark xvfb dbus \
        at-spi2-core python3-pyatspi xdotool imagemagick"

# sid's Release file is valid for a week only: a mirror that serves an older one (a
# snapshot) is refused by apt-get update ("is expired") and the root got no packages. Its
# signature is still checked.
update="apt-get -o Acquire::Check-Valid-Until=false update -q"

fail() {
    echo "roceshark: test-wireshark: $*" >&2
    exit 2
}

[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap and chroot)"
command -v debootstrap >/dev/null 2>&1 ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null ||
    fail "debootstrap is not installed and could not be"

# in_root COMMAND: runs COMMAND (a shell line) in the root, with /proc and /dev mounted in a
# private mount namespace, so they leave with the process however it ends.
in_root() {
    unshare -m sh -eu -c 'mount -t proc proc "$1/proc"; mount --bind /dev "$1/dev"
                          chroot "$1" sh -eu -c "$2"' sh "$root" "$1"
}

if [ ! -e "$root/.roceshark-ready" ]; then
    echo "== making a Debian $suite root in $root (once; a few minutes)"
    rm -rf "$root"
    mkdir -p "$roots"
    # debootstrap does not follow virtual packages (sid's libre2 is one): when it leaves
    # packages unconfigured, apt-get below completes them.
    debootstrap --variant=minbase --include="$base" "$suite" "$root" "$mirror" \
        >"$root.log" 2>&1 || [ -x "$root/usr/bin/apt-get" ] ||
        fail "debootstrap $suite failed; see $root.log"
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    in_root "export DEBIAN_FRONTEND=noninteractive; $update; apt-get -f install -y -q
             apt-get install -y -q --no-install-recommends $extras" >>"$root.log" 2>&1 ||
        fail "apt-get in the $suite root failed; see $root.log"
    touch "$root/.roceshark-ready"
fi
# A root made before the tests needed more packages gets what it lacks.
if ! chroot "$root" dpkg -s $extras >/dev/null 2>&1; then
    echo "== adding packages to the $suite root"
    in_root "export DEBIAN_FRONTEND=noninteractive; $update
             apt-get install -y -q --no-install-recommends $extras" >>"$root.log" 2>&1 ||
        fail "apt-get in the $suite root failed; see $root.log"
fi
have=$(chroot "$root" dpkg-query -W -f '${Version}' tshark | cut -d. -f1-2)
[ "$have" = "$version" ] || fail "the $suite root has tshark $have, not $version"
[ $phase != prepare ] || exit 0

# build_in_root: copies the tracked files of this tree into the root and builds there the
# roceshark binary and the plugin, checking where the plugin installs.
build_in_root() {
    echo "== copying the tree into the root"
    rm -rf "$root/src/roceshark"
    mkdir -p "$root/src/roceshark"
    git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - |
        tar -xf - -C "$root/src/roceshark"

    echo "== building against Wireshark $version"
    rm -f "$root/src/.roceshark-built"
    in_root "cd /src/roceshark
             cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
             cmake --build build -j$(nproc) --target roceshark roceshark_ws >/dev/null
             tshark --version | head -n 1
             rm -rf /tmp/stage
             DESTDIR=/tmp/stage cmake -P build/dissectors/wireshark/cmake_install.cmake >/dev/null
             plugin=\$(find /tmp/stage -name roceshark.so)
             case \$plugin in
             */wireshark/plugins/$version/epan/roceshark.so) echo \"installs into \${plugin#/tmp/stage}\" ;;
             *) echo \"roceshark: the plugin installs into '\$plugin', not plugins/$version/epan\" >&2
                exit 1 ;;
             esac
             touch /src/.roceshark-built" || exit 1
}

[ $phase = test ] || build_in_root
[ $phase != build ] || exit 0

[ -e "$root/src/.roceshark-built" ] || fail "nothing is built in the $suite root: run --build first"
echo "== testing against Wireshark $version"
in_root "cd /src/roceshark/build && ctest --output-on-failure -j$(nproc) -R '$regex'" || exit 1
