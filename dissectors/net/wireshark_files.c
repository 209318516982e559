/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wireshark_files.c - the folders Wireshark reads its name files from (manuf, wka, ethers,
 * services), for the resolvers that read the same files (ether_names.c, port_names.c).
 */
#include <glib.h>

#include <roceshark/dissectors/wireshark_files.h>

char *
rs_wireshark_data_file(const char *name)
{
    const char *data = g_getenv("WIRESHARK_DATA_DIR");

    if (data == NULL || *data == '\0')
        data = "/usr/share/wireshark";
    return g_build_filename(data, name, NULL);
}

char *
rs_wireshark_personal_file(const char *name)
{
    const char *home = g_getenv("HOME");

    return home != NULL ? g_build_filename(home, ".config", "wireshark", name, NULL) : NULL;
}
