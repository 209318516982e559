/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read_tshark_prefs_table.c - tshark 4.0.17's preferences of the protocols read
 * dissects, of the summary's columns and of name resolution, as
 * `tshark -G defaultprefs` writes them:
 * their sections, comments and defaults, in its order, and the column formats
 * tshark takes (-G column-formats). -o accepts them
 * (read_tshark_compat.c); -G defaultprefs and currentprefs list them
 * (read_tshark_prefs.c). Written by scripts/gen_glossary_tables.py; do not edit.
 */
#include "read_int.h"

const char read_tshark_prefs_head[] =
    "# Configuration file for Wireshark 4.0.17.\n"
    "#\n"
    "# This file is regenerated each time preferences are saved within\n"
    "# Wireshark. Making manual changes should be safe, however.\n"
    "# Preferences that have been commented out have not been\n"
    "# changed from their default value.\n";

const struct read_tshark_pref read_tshark_prefs[] = {
    {"User Interface: Columns", "gui.column.hidden", READ_PREF_TEXT, "",
     "# Packet list hidden columns\n"
     "# List all columns to hide in the packet list.\n"},
    {"User Interface: Columns", "gui.column.format", READ_PREF_LIST, "\n"
     "\t\"No.\", \"%m\",\n"
     "\t\"Time\", \"%t\",\n"
     "\t\"Source\", \"%s\",\n"
     "\t\"Destination\", \"%d\",\n"
     "\t\"Protocol\", \"%p\",\n"
     "\t\"Length\", \"%L\",\n"
     "\t\"Info\", \"%i\"",
     "# Packet list column format\n"
     "# Each pair of strings consists of a column title and its format\n"},
    {"Name Resolution", "nameres.mac_name", READ_PREF_BOOL, "TRUE",
     "# Resolve Ethernet MAC addresses to host names from the preferences or system's Ethers file, or to a manufacturer based name.\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Name Resolution", "nameres.transport_name", READ_PREF_BOOL, "FALSE",
     "# Resolve TCP/UDP ports into service names\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Name Resolution", "nameres.network_name", READ_PREF_BOOL, "FALSE",
     "# Resolve IPv4, IPv6, and IPX addresses into host names. The next set of check boxes determines how name resolution should be performed. If no other options are checked name resolution is made from Wireshark's host file and capture file name resolution blocks.\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Name Resolution", "nameres.dns_pkt_addr_resolution", READ_PREF_BOOL, "TRUE",
     "# Use address/name pairs found in captured DNS packets for name resolution.\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Name Resolution", "nameres.use_external_name_resolver", READ_PREF_BOOL, "TRUE",
     "# Use your system's configured name resolver (usually DNS) to resolve network names. Only applies when network name resolution is enabled.\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Name Resolution", "nameres.use_custom_dns_servers", READ_PREF_BOOL, "FALSE",
     "# Use a DNS Servers list to resolve network names if TRUE.  If FALSE, default information is used\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Name Resolution", "nameres.name_resolve_concurrency", READ_PREF_DECIMAL, "500",
     "# The maximum number of DNS requests that may be active at any time. A large value (many thousands) might overload the network or make your DNS server behave badly.\n"
     "# A decimal number\n"},
    {"Name Resolution", "nameres.hosts_file_handling", READ_PREF_BOOL, "FALSE",
     "# By default \"hosts\" files will be loaded from multiple sources. Checking this box only loads the \"hosts\" in the current profile.\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Name Resolution", "nameres.vlan_name", READ_PREF_BOOL, "FALSE",
     "# Resolve VLAN IDs to network names from the preferences \"vlans\" file. Format of the file is: \"ID<Tab>Name\". One line per VLAN, e.g.: 1 Management\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Name Resolution", "nameres.ss7_pc_name", READ_PREF_BOOL, "FALSE",
     "# Resolve SS7 Point Codes to node names from the profiles \"ss7pcs\" file. Format of the file is: \"Network_Indicator<Dash>PC_Decimal<Tab>Name\". One line per Point Code, e.g.: 2-1234 MyPointCode1\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Name Resolution", "nameres.load_smi_modules", READ_PREF_BOOL, "FALSE",
     "# Resolve Object IDs to object names from the MIB and PIB modules defined below. You must restart Wireshark for this change to take effect\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Name Resolution", "nameres.suppress_smi_errors", READ_PREF_BOOL, "FALSE",
     "# While loading MIB or PIB modules errors may be detected, which are reported. Some errors can be ignored. If unsure, set to false.\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "arp.detect_request_storms", READ_PREF_BOOL, "FALSE",
     "# Attempt to detect excessive rate of ARP requests\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "arp.detect_storm_number_of_packets", READ_PREF_DECIMAL, "30",
     "# Number of requests needed within period to indicate a storm\n"
     "# A decimal number\n"},
    {"Protocols", "arp.detect_storm_period", READ_PREF_DECIMAL, "100",
     "# Period in milliseconds during which a packet storm may be detected\n"
     "# A decimal number\n"},
    {"Protocols", "arp.detect_duplicate_ips", READ_PREF_BOOL, "TRUE",
     "# Attempt to detect duplicate use of IP addresses\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "arp.register_network_address_binding", READ_PREF_BOOL, "TRUE",
     "# Try to resolve physical addresses to host names from ARP requests/responses\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "data.datapref.newpane", READ_PREF_BOOL, "FALSE",
     "# Show not dissected data on new Packet Bytes pane\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "data.uncompress_data", READ_PREF_BOOL, "FALSE",
     "# Try to uncompress zlib compressed data and show as uncompressed if successful\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "data.show_as_text", READ_PREF_BOOL, "FALSE",
     "# Show data as text in the Packet Details pane\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "data.md5_hash", READ_PREF_BOOL, "FALSE",
     "# Whether or not MD5 hashes should be generated and shown for each payload.\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "erf.hdlc_type", READ_PREF_TEXT, "Attempt to guess",
     "# Protocol encapsulated in HDLC records\n"
     "# One of: Cisco HDLC, PPP serial, Frame Relay, SS7 MTP2, Attempt to guess\n"
     "# (case-insensitive).\n"},
    {"Protocols", "erf.rawcell_first", READ_PREF_BOOL, "FALSE",
     "# Whether raw ATM cells should be treated as the first cell of an AAL5 PDU\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "erf.aal5_type", READ_PREF_TEXT, "Attempt to guess",
     "# Protocol encapsulated in ATM AAL5 packets\n"
     "# One of: Attempt to guess, LLC multiplexed, Unspecified\n"
     "# (case-insensitive).\n"},
    {"Protocols", "eth.padding", READ_PREF_TEXT, "Zeros",
     "# Some devices add trailing data to frames.  Depending on where this device exists in the network, padding could be added to short frames before the additional trailer.  This option determines how that padding will be detected.\n"
     "# \n"
     "# Never - Don't detect any padding.  Any bytes after the ethernet payload will be considered trailer.\n"
     "# Zeros (default) - Consecutive bytes of zeros up to the minimum ethernet frame size will be treated as padding.  Additional bytes will be considered trailer.\n"
     "# Any - Any bytes after the payload up to the minimum ethernet frame size will be treated as padding.  Additional bytes will be considered trailer.\n"
     "# One of: Never, Zeros, Any\n"
     "# (case-insensitive).\n"},
    {"Protocols", "eth.trailer_length", READ_PREF_DECIMAL, "0",
     "# Some TAPs add a fixed length ethernet trailer at the end of the frame, but before the (optional) FCS. Make sure it gets interpreted correctly.\n"
     "# A decimal number\n"},
    {"Protocols", "eth.fcs", READ_PREF_TEXT, "According to heuristic",
     "# Some Ethernet adapters and drivers include the FCS at the end of a packet, others do not.  Some capture file formats and protocols do not indicate whether or not the FCS is included. The Ethernet dissector then attempts to guess whether a captured packet has an FCS, but it cannot always guess correctly.  This option can override that heuristic and assume that the FCS is either never or always present in such cases.\n"
     "# One of: According to heuristic, Never, Always\n"
     "# (case-insensitive).\n"},
    {"Protocols", "eth.check_fcs", READ_PREF_BOOL, "FALSE",
     "# Whether to validate the Frame Check Sequence\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "eth.interpret_as_fw1_monitor", READ_PREF_BOOL, "FALSE",
     "# Whether packets should be interpreted as coming from CheckPoint FireWall-1 monitor file if they look as if they do\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "eth.deduplicate_dmac", READ_PREF_BOOL, "FALSE",
     "# When capturing on a Cisco FEX some frames start with an extra destination mac\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "eth.ccsds_heuristic_length", READ_PREF_BOOL, "FALSE",
     "# Set the condition that must be true for the CCSDS dissector to be called\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "eth.ccsds_heuristic_version", READ_PREF_BOOL, "FALSE",
     "# Set the condition that must be true for the CCSDS dissector to be called\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "eth.ccsds_heuristic_header", READ_PREF_BOOL, "FALSE",
     "# Set the condition that must be true for the CCSDS dissector to be called\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "eth.ccsds_heuristic_bit", READ_PREF_BOOL, "FALSE",
     "# Set the condition that must be true for the CCSDS dissector to be called\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "frame.show_file_off", READ_PREF_BOOL, "FALSE",
     "# Show offset of frame in capture file\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "frame.force_docsis_encap", READ_PREF_BOOL, "FALSE",
     "# Treat all frames as DOCSIS Frames\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "frame.generate_md5_hash", READ_PREF_BOOL, "FALSE",
     "# Whether or not MD5 hashes should be generated for each frame, useful for finding duplicate frames.\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "frame.generate_epoch_time", READ_PREF_BOOL, "TRUE",
     "# Whether or not an Epoch time entry should be generated for each frame.\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "frame.generate_bits_field", READ_PREF_BOOL, "TRUE",
     "# Whether or not the number of bits in the frame should be shown.\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "frame.disable_packet_size_limited_in_summary", READ_PREF_BOOL, "FALSE",
     "# Whether or not 'packet size limited during capture' message in shown in Info column.\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "infiniband.rroce.port", READ_PREF_DECIMAL, "4791",
     "# The UDP port for RROCE messages (default 4791)\n"
     "# A decimal number\n"},
    {"Protocols", "infiniband.try_heuristic_first", READ_PREF_BOOL, "TRUE",
     "# Try to decode a packet using an heuristic sub-dissector before using Decode As\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "icmp.favor_icmp_mpls", READ_PREF_BOOL, "FALSE",
     "# Whether the 128th and following bytes of the ICMP payload should be decoded as MPLS extensions or as a portion of the original packet\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "ip.decode_tos_as_diffserv", READ_PREF_BOOL, "TRUE",
     "# Whether the IPv4 type-of-service field should be decoded as a Differentiated Services field (see RFC2474/RFC2475)\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "ip.defragment", READ_PREF_BOOL, "TRUE",
     "# Whether fragmented IPv4 datagrams should be reassembled\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "ip.summary_in_tree", READ_PREF_BOOL, "TRUE",
     "# Whether the IPv4 summary line should be shown in the protocol tree\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "ip.check_checksum", READ_PREF_BOOL, "FALSE",
     "# Whether to validate the IPv4 checksum\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "ip.tso_support", READ_PREF_BOOL, "TRUE",
     "# Whether to correct for TSO-enabled (TCP segmentation offload) hardware captures, such as spoofing the IP packet length\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "ip.use_geoip", READ_PREF_BOOL, "TRUE",
     "# Whether to look up IP addresses in each MaxMind database we have loaded\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "ip.security_flag", READ_PREF_BOOL, "FALSE",
     "# Whether to interpret the originally reserved flag as security flag\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "ip.try_heuristic_first", READ_PREF_BOOL, "FALSE",
     "# Try to decode a packet using an heuristic sub-dissector before using a sub-dissector registered to a specific port\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "ipv6.defragment", READ_PREF_BOOL, "TRUE",
     "# Whether fragmented IPv6 datagrams should be reassembled\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "ipv6.summary_in_tree", READ_PREF_BOOL, "TRUE",
     "# Whether the IPv6 summary line should be shown in the protocol tree\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "ipv6.use_geoip", READ_PREF_BOOL, "TRUE",
     "# Whether to look up IPv6 addresses in each MaxMind database we have loaded\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "ipv6.perform_strict_rpl_srh_rfc_checking", READ_PREF_BOOL, "FALSE",
     "# Check that all RPL Source Routed packets conform to RFC 6554 and do not visit a node more than once\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "ipv6.try_heuristic_first", READ_PREF_BOOL, "FALSE",
     "# Try to decode a packet using an heuristic sub-dissector before using a sub-dissector registered to a specific port\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "ipv6.exthdr_under_root_protocol_tree", READ_PREF_BOOL, "FALSE",
     "# Whether to display IPv6 extension headers as a separate protocol or a sub-protocol of the IPv6 packet\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "ipv6.exthdr_hide_len_oct_field", READ_PREF_BOOL, "FALSE",
     "# If enabled the Length field in octets will be hidden\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "ipv6.tso_support", READ_PREF_BOOL, "FALSE",
     "# Whether to correct for TSO-enabled (TCP segmentation offload) hardware captures, such as spoofing the IPv6 packet length\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "iwarp_ddp_rdmap.reassemble_iwarp_rdma_send", READ_PREF_BOOL, "TRUE",
     "# Whether the iWarp RDMA dissector should reassemble Send fragmented payloads\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "tcp.summary_in_tree", READ_PREF_BOOL, "TRUE",
     "# Whether the TCP summary line should be shown in the protocol tree\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "tcp.check_checksum", READ_PREF_BOOL, "FALSE",
     "# Whether to validate the TCP checksum or not.  (Invalid checksums will cause reassembly, if enabled, to fail.)\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "tcp.desegment_tcp_streams", READ_PREF_BOOL, "TRUE",
     "# Whether subdissector can request TCP streams to be reassembled\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "tcp.reassemble_out_of_order", READ_PREF_BOOL, "FALSE",
     "# Whether out-of-order segments should be buffered and reordered before passing it to a subdissector. To use this option you must also enable \"Allow subdissector to reassemble TCP streams\".\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "tcp.analyze_sequence_numbers", READ_PREF_BOOL, "TRUE",
     "# Make the TCP dissector analyze TCP sequence numbers to find and flag segment retransmissions, missing segments and RTT\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "tcp.relative_sequence_numbers", READ_PREF_BOOL, "TRUE",
     "# Make the TCP dissector use relative sequence numbers instead of absolute ones. To use this option you must also enable \"Analyze TCP sequence numbers\". \n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "tcp.default_window_scaling", READ_PREF_TEXT, "Not known",
     "# Make the TCP dissector use this scaling factor for streams where the signalled scaling factor is not visible in the capture\n"
     "# One of: Not known, 0 (no scaling), 1 (multiply by 2), 2 (multiply by 4), 3 (multiply by 8), 4 (multiply by 16), 5 (multiply by 32), 6 (multiply by 64), 7 (multiply by 128), 8 (multiply by 256), 9 (multiply by 512), 10 (multiply by 1024), 11 (multiply by 2048), 12 (multiply by 4096), 13 (multiply by 8192), 14 (multiply by 16384)\n"
     "# (case-insensitive).\n"},
    {"Protocols", "tcp.track_bytes_in_flight", READ_PREF_BOOL, "TRUE",
     "# Make the TCP dissector track the number on un-ACKed bytes of data are in flight per packet. To use this option you must also enable \"Analyze TCP sequence numbers\". This takes a lot of memory but allows you to track how much data are in flight at a time and graphing it in io-graphs\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "tcp.bif_seq_based", READ_PREF_BOOL, "FALSE",
     "# Evaluate BiF on actual sequence numbers or use the historical method based on payloads (default). This option has no effect if not used with \"Track number of bytes in flight\". \n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "tcp.calculate_timestamps", READ_PREF_BOOL, "TRUE",
     "# Calculate timestamps relative to the first frame and the previous frame in the tcp conversation\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "tcp.try_heuristic_first", READ_PREF_BOOL, "FALSE",
     "# Try to decode a packet using an heuristic sub-dissector before using a sub-dissector registered to a specific port\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "tcp.ignore_tcp_timestamps", READ_PREF_BOOL, "FALSE",
     "# Do not place the TCP Timestamps in the summary line\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "tcp.fastrt_supersedes_ooo", READ_PREF_BOOL, "TRUE",
     "# When interpreting ambiguous packets, give precedence to Fast Retransmission or OOO \n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "tcp.no_subdissector_on_error", READ_PREF_BOOL, "TRUE",
     "# Do not call any subdissectors for Retransmitted or OutOfOrder segments\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "tcp.dissect_experimental_options_rfc6994", READ_PREF_BOOL, "TRUE",
     "# Assume TCP Experimental Options (253, 254) have an Experiment Identifier and use it for dissection\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "tcp.display_process_info_from_ipfix", READ_PREF_BOOL, "FALSE",
     "# Collect and store process information retrieved from IPFIX dissector\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "tcp.read_seq_as_syn_cookie", READ_PREF_BOOL, "FALSE",
     "# Read the sequence number as it was a syn cookie\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "udp.summary_in_tree", READ_PREF_BOOL, "TRUE",
     "# Whether the UDP summary line should be shown in the protocol tree\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "udp.try_heuristic_first", READ_PREF_BOOL, "FALSE",
     "# Try to decode a packet using an heuristic sub-dissector before using a sub-dissector registered to a specific port\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "udp.check_checksum", READ_PREF_BOOL, "FALSE",
     "# Whether to validate the UDP checksum\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "udp.ignore_ipv6_zero_checksum", READ_PREF_BOOL, "FALSE",
     "# Whether to ignore zero-value UDP checksums over IPv6\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "udp.process_info", READ_PREF_BOOL, "FALSE",
     "# Collect process flow information from IPFIX\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "udp.calculate_timestamps", READ_PREF_BOOL, "TRUE",
     "# Calculate timestamps relative to the first frame and the previous frame in the udp conversation\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "vlan.summary_in_tree", READ_PREF_BOOL, "TRUE",
     "# Whether the vlan summary line should be shown in the protocol tree\n"
     "# TRUE or FALSE (case-insensitive)\n"},
    {"Protocols", "vlan.qinq_ethertype", READ_PREF_HEX, "0x9100",
     "# The (hexadecimal) Ethertype used to indicate 802.1QinQ VLAN in VLAN tunneling.\n"
     "# A hexadecimal number\n"},
    {"Protocols", "vlan.version", READ_PREF_TEXT, "IEEE 802.1Q-2011",
     "# IEEE 802.1Q specification version used (802.1Q-1998 uses 802.1D-2004 for PRI values)\n"
     "# One of: IEEE 802.1Q-1998, IEEE 802.1Q-2005, IEEE 802.1Q-2011\n"
     "# (case-insensitive).\n"},
    {"Protocols", "vlan.priority_drop", READ_PREF_TEXT, "8 Priorities, 0 Drop Eligible",
     "# Number of priorities supported, and number of those drop eligible (not used for 802.1Q-1998)\n"
     "# One of: 8 Priorities, 0 Drop Eligible, 7 Priorities, 1 Drop Eligible, 6 Priorities, 2 Drop Eligible, 5 Priorities, 3 Drop Eligible\n"
     "# (case-insensitive).\n"},
};

/* The column formats -o gui.column.format takes (-G column-formats). */
const char *const read_tshark_column_codes[] = {
    "%q",
    "%Yt",
    "%YDOYt",
    "%At",
    "%V",
    "%B",
    "%Cus",
    "%y",
    "%Tt",
    "%Gt",
    "%rd",
    "%ud",
    "%rD",
    "%uD",
    "%d",
    "%D",
    "%a",
    "%I",
    "%F",
    "%hd",
    "%hs",
    "%rhd",
    "%uhd",
    "%rhs",
    "%uhs",
    "%e",
    "%x",
    "%f",
    "%i",
    "%rnd",
    "%und",
    "%rns",
    "%uns",
    "%nd",
    "%ns",
    "%m",
    "%L",
    "%p",
    "%Rt",
    "%s",
    "%S",
    "%rs",
    "%us",
    "%rS",
    "%uS",
    "%E",
    "%Yut",
    "%YDOYut",
    "%Aut",
    "%t",
    NULL,
};

const size_t read_tshark_n_prefs = sizeof(read_tshark_prefs) / sizeof(read_tshark_prefs[0]);

_Static_assert(sizeof(read_tshark_prefs) / sizeof(read_tshark_prefs[0]) <= READ_TSHARK_PREFS_MAX,
               "READ_TSHARK_PREFS_MAX holds every preference");
