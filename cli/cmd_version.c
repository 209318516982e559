/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_version.c - roceshark --version: the version of project() in CMakeLists.txt, what this
 * build has in it, and what it runs on, laid out as tshark --version lays it out.
 */
#include <stdio.h>
#include <sys/utsname.h>

#include <pcap/pcap.h>
#include <roceshark/version.h>

#include "cli.h"

static const char *
compiler(void)
{
#if defined(__clang__)
    return "Clang " __clang_version__;
#elif defined(__GNUC__)
    return "GCC " __VERSION__;
#else
    return "an unknown compiler";
#endif
}

int
cmd_version(void)
{
    struct utsname un;

    printf("roceshark %s\n\n", RS_VERSION);
    fputs("Licensed under the terms of the GNU General Public License (version 2 or later).\n"
          "This is free software; see the file named LICENSE in the source. There is NO\n"
          "WARRANTY; not even for MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.\n\n",
          stdout);
    printf("Compiled (%zu-bit) using %s, with libpcap", sizeof(void *) * 8, compiler());
    fputs(RS_BUILT_VERBS ? ", with libibverbs (RDMA sniffer-QP capture)"
                         : ", without libibverbs (no RDMA sniffer-QP capture)", stdout);
    if (RS_BUILT_WIRESHARK_PLUGIN)
        printf(", with the Wireshark %s plugin (installed in %s)", RS_WIRESHARK_VERSION,
               RS_WIRESHARK_PLUGIN_DIR);
    else
        fputs(", without the Wireshark plugin", stdout);
    fputs(RS_BUILT_TUI ? ", with the ncurses TUI" : ", without the ncurses TUI", stdout);
    if (RS_BUILT_SANITIZE)
        fputs(", with AddressSanitizer and UndefinedBehaviorSanitizer", stdout);
    fputs(".\n\nRunning", stdout);
    if (uname(&un) == 0)
        printf(" on %s %s,", un.sysname, un.release);
    printf(" with %s.\n", pcap_lib_version());
    return ferror(stdout) ? CLI_EXIT_OUTPUT : CLI_EXIT_OK;
}
