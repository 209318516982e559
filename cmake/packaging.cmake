# SPDX-License-Identifier: GPL-2.0-or-later
# `cpack -G DEB` in the build folder: a Debian package of what `cmake --install` installs
# (the binary, the Wireshark plugin, the man page, the bash completion), under /usr. Its
# dependencies are the Debian library packages the binary and the plugin link, found by
# dpkg-shlibdeps (dpkg-dev), so they are those of the release it is built on. lintian finds
# no error in it, and no warning but the one cmake/debian/lintian-overrides explains
# (integration.package runs it).
#
# Why not a debian/ source package: the binary package is all that is shipped, CPack makes
# it from the same install rules as `cmake --install`, so the two cannot drift, and a
# source package would repeat every install rule in debian/rules for nothing the tests use.
set(ROCESHARK_PACKAGE_MAINTAINER "roceshark maintainers <maintainers@roceshark.example>"
    CACHE STRING "The Maintainer field of the Debian package, and its changelog's signer")
set(CPACK_PACKAGE_NAME roceshark)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${ROCESHARK_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "RDMA (RoCE, InfiniBand, iWARP) analyzer, capture tool and Wireshark plugin")
# Lines of at most 80 columns, as lintian wants them.
set(CPACK_PACKAGE_DESCRIPTION
    "roceshark decodes RoCEv1, RoCEv2, native InfiniBand and iWARP with
Wireshark's field names and values, checks every ICRC, VCRC and MPA CRC,
follows RC conversations (gaps, retransmissions, NAKs, READ times), captures
offloaded RoCE through a sniffer QP, puts faults on the wire, certifies NICs
with a conformance suite, and speaks RC itself (a responder, perftest's tests,
and a verbs library that runs libibverbs programs without RDMA hardware). Its
Wireshark plugin adds the same checks and analysis to Wireshark and tshark.")

# What Debian wants beside the files: the copyright (machine-readable), a changelog and the
# lintian overrides, under /usr/share. The changelog is compressed with gzip -n, as
# dh_compress does, so that the package is the same from one build to the next.
set(_debian ${CMAKE_BINARY_DIR}/debian)
configure_file(${CMAKE_SOURCE_DIR}/cmake/debian/changelog.in ${_debian}/changelog @ONLY)
add_custom_command(OUTPUT ${_debian}/changelog.gz
    COMMAND gzip -9nf -k ${_debian}/changelog
    DEPENDS ${_debian}/changelog VERBATIM)
add_custom_target(debian_changelog ALL DEPENDS ${_debian}/changelog.gz)
install(FILES ${CMAKE_SOURCE_DIR}/cmake/debian/copyright ${_debian}/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${CMAKE_SOURCE_DIR}/cmake/debian/lintian-overrides
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides RENAME roceshark)
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
# The plugin goes to Wireshark's own folder, an absolute path: CPack stages the whole install
# under DESTDIR, with /usr as the prefix.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Loaded, not linked (capture/pcap_load.c, capture/verbs_load.c): dpkg-shlibdeps does not
# see them. What it finds is added to these.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libpcap0.8")
if(ROCESHARK_VERBS)
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "libpcap0.8, libibverbs1")
endif()
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "man-db, bash-completion")
if(ROCESHARK_WIRESHARK_PLUGIN)
    set(CPACK_DEBIAN_PACKAGE_ENHANCES "wireshark, tshark")
endif()
include(CPack)
