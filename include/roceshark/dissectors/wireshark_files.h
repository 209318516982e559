/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wireshark_files.h - where Wireshark's name files are, as Wireshark looks for them: its
 * global data folder (WIRESHARK_DATA_DIR, else Debian's /usr/share/wireshark) and the
 * user's personal folder (~/.config/wireshark). The name resolvers read them there.
 */
#ifndef ROCESHARK_WIRESHARK_FILES_H
#define ROCESHARK_WIRESHARK_FILES_H

/* The path of the file name in the global data folder; g_free() it. */
char *rs_wireshark_data_file(const char *name);
/* The path of the file name in the personal folder, or NULL without HOME; g_free() it. */
char *rs_wireshark_personal_file(const char *name);

#endif /* ROCESHARK_WIRESHARK_FILES_H */
