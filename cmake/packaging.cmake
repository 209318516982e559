# SPDX-License-Identifier: GPL-2.0-or-later
# `cpack -G DEB` in the build folder: a Debian package of what `cmake --install` installs
# (the binary, the Wireshark plugin, the man page, the bash completion), under /usr. Its
# dependencies are the Debian library packages the binary and the plugin link, found by
# dpkg-shlibdeps (dpkg-dev), so they are those of the release it is built on.
set(CPACK_PACKAGE_NAME roceshark)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "roceshark maintainers <roceshark@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "RDMA (RoCE, InfiniBand, iWARP) analyzer, capture tool and Wireshark plugin")
set(CPACK_PACKAGE_DESCRIPTION
    "roceshark decodes RoCEv1, RoCEv2, native InfiniBand and iWARP with Wireshark's field
names and values, checks every ICRC, VCRC and MPA CRC, follows RC conversations (gaps,
retransmissions, NAKs, READ times), captures offloaded RoCE through a sniffer QP, and
speaks RC itself (responder, perftest-like tests). Its Wireshark plugin adds the same
checks and analysis to Wireshark and tshark.")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
# The plugin goes to Wireshark's own folder, an absolute path: CPack stages the whole install
# under DESTDIR, with /usr as the prefix.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "man-db, bash-completion")
if(ROCESHARK_WIRESHARK_PLUGIN)
    set(CPACK_DEBIAN_PACKAGE_ENHANCES "wireshark, tshark")
endif()
include(CPack)
