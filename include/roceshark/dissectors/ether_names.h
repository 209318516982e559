/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ether_names.h - Ethernet addresses named as tshark names them with MAC name resolution
 * on (its default), from Wireshark's manuf, wka and ethers files, read at first use.
 * A missing file names nothing: the address is then written as it is.
 */
#ifndef ROCESHARK_ETHER_NAMES_H
#define ROCESHARK_ETHER_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* The longest name written, with its terminator. */
#define RS_ETHER_NAME_MAX 72

/* Writes a's name ("VMware_a7:12:9f", "Broadcast"), or the address when nothing names
 * it ("52:54:00:12:34:56"). */
void rs_ether_name(const uint8_t a[6], char *buf, size_t size);
/* The long name of the vendor whose prefix (an address's first three octets) this is,
 * as the manuf file gives it ("VMware, Inc."), or NULL. */
const char *rs_ether_vendor(const uint8_t prefix[3]);

/* a as the display settings say (display.h): its name with MAC resolution on, else the
 * address. */
void rs_ether_name_shown(const uint8_t a[6], char *buf, size_t size);

#endif /* ROCESHARK_ETHER_NAMES_H */
