/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * glossary_tables.c - the lines of tshark 4.0.17's -G column-formats,
 * dissector-tables and decodes that describe read, in tshark's order: the formats
 * of the columns it prints, the dissector tables it dispatches on and their entries
 * it decodes as Wireshark does. Written by scripts/gen_glossary_tables.py; do not
 * edit.
 */
#include "print/glossary_int.h"

const char *const rs_glossary_column_formats[] = {
    "%d\tDestination address\n",
    "%i\tInformation\n",
    "%m\tNumber\n",
    "%L\tPacket length (bytes)\n",
    "%p\tProtocol\n",
    "%s\tSource address\n",
    "%t\tTime (format as specified)\n",
    "\n",
    "For example, to print Wireshark's default columns with tshark:\n",
    "\n",
    "tshark -o 'gui.column.format:\"No.\",\"%m\",\"Time\",\"%t\",\"Source\",\"%s\",\"Destination\",\"%d\",\"Protocol\",\"%p\",\"Length\",\"%L\",\"Info\",\"%i\"'\n",
    NULL,
};

const char *const rs_glossary_dissector_tables[] = {
    "erf.types.type\tERF Type\tFT_UINT8\tBASE_DEC\tERF\tDecode As not supported\n",
    "ethertype\tEthertype\tFT_UINT16\tBASE_HEX\tEthertype\tDecode As supported\n",
    "ip.proto\tIP protocol\tFT_UINT8\tBASE_DEC\tIPv4\tDecode As supported\n",
    "tcp.option\tTCP Options\tFT_UINT8\tBASE_DEC\tTCP\tDecode As not supported\n",
    "udp.port\tUDP port\tFT_UINT16\tBASE_DEC\tUDP\tDecode As supported\n",
    "wtap_encap\tWiretap encapsulation type\tFT_UINT32\tBASE_DEC\tFrame\tDecode As not supported\n",
    NULL,
};

const char *const rs_glossary_decodes[] = {
    "tcp.option\t3\ttcp.options.wscale\n",
    "tcp.option\t4\ttcp.options.sack_perm\n",
    "tcp.option\t2\ttcp.options.mss\n",
    "tcp.option\t5\ttcp.options.sack\n",
    "tcp.option\t8\ttcp.options.timestamp\n",
    "ip.proto\t6\ttcp\n",
    "ip.proto\t17\tudp\n",
    "ip.proto\t0\tipv6.hopopts\n",
    "ip.proto\t58\ticmpv6\n",
    "ip.proto\t1\ticmp\n",
    "wtap_encap\t1\teth\n",
    "wtap_encap\t98\terf\n",
    "wtap_encap\t150\tinfiniband\n",
    "wtap_encap\t129\tip\n",
    "wtap_encap\t130\tipv6\n",
    "udp.port\t4791\tinfiniband\n",
    "ethertype\t2054\tarp\n",
    "ethertype\t34525\tipv6\n",
    "ethertype\t34984\tieee8021ad\n",
    "ethertype\t33024\tvlan\n",
    "ethertype\t2048\tip\n",
    "ethertype\t37120\tvlan\n",
    "ethertype\t35093\tinfiniband\n",
    "erf.types.type\t16\teth\n",
    "erf.types.type\t2\teth\n",
    "erf.types.type\t21\tinfiniband\n",
    NULL,
};
