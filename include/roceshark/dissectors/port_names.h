/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * port_names.h - TCP and UDP ports named as tshark names them with transport name
 * resolution on (its -N t), from Wireshark's services files, read at first use. A missing
 * file names nothing: the port is then written as its number.
 */
#ifndef ROCESHARK_PORT_NAMES_H
#define ROCESHARK_PORT_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room for a port as rs_port_info() and rs_port_tree() write it. */
#define RS_PORT_TEXT_MAX 96

/* The service's name of a TCP (tcp true) or UDP port ("italk" for 12345), or NULL. */
const char *rs_port_name(bool tcp, uint16_t port);

/* A port as the Info column writes it with the display settings in force (display.h):
 * "italk(12345)" when -N t names it, else "12345". */
void rs_port_info(bool tcp, uint16_t port, char *buf, size_t size);

/* A port as the tree writes it: "italk (12345)", or "57172 (57172)" when -N t is on and
 * nothing names it; "12345" with -N t off. */
void rs_port_tree(bool tcp, uint16_t port, char *buf, size_t size);

#endif /* ROCESHARK_PORT_NAMES_H */
