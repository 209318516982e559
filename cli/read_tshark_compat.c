/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read_tshark_compat.c - tshark's options that read takes so that a tshark command line
 * runs unchanged: tshark 4.0's preferences (-o NAME:VALUE) of the protocols read
 * dissects, with their defaults (`tshark -G currentprefs`): a default value changes
 * nothing, and a value that differs is taken where read does the same thing
 * (infiniband.rroce.port, tcp.relative_sequence_numbers) and otherwise accepted with a one-line notice that it is not
 * applied; and tshark's options that change nothing read prints, checked as tshark checks
 * them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <roceshark/dissectors/common.h>

#include "cli.h"
#include "read_int.h"

static const struct {
    const char *name;
    const char *value;      /* the default, as tshark writes it; NULL: a list (the GUI's) */
} prefs[] = {
    {"arp.detect_duplicate_ips", "TRUE"},
    {"arp.detect_request_storms", "FALSE"},
    {"arp.detect_storm_number_of_packets", "30"},
    {"arp.detect_storm_period", "100"},
    {"arp.register_network_address_binding", "TRUE"},
    {"data.datapref.newpane", "FALSE"},
    {"data.md5_hash", "FALSE"},
    {"data.show_as_text", "FALSE"},
    {"data.uncompress_data", "FALSE"},
    {"erf.aal5_type", "Attempt to guess"},
    {"erf.hdlc_type", "Attempt to guess"},
    {"erf.rawcell_first", "FALSE"},
    {"eth.ccsds_heuristic_bit", "FALSE"},
    {"eth.ccsds_heuristic_header", "FALSE"},
    {"eth.ccsds_heuristic_length", "FALSE"},
    {"eth.ccsds_heuristic_version", "FALSE"},
    {"eth.check_fcs", "FALSE"},
    {"eth.deduplicate_dmac", "FALSE"},
    {"eth.fcs", "According to heuristic"},
    {"eth.interpret_as_fw1_monitor", "FALSE"},
    {"eth.padding", "Zeros"},
    {"eth.trailer_length", "0"},
    {"frame.disable_packet_size_limited_in_summary", "FALSE"},
    {"frame.force_docsis_encap", "FALSE"},
    {"frame.generate_bits_field", "TRUE"},
    {"frame.generate_epoch_time", "TRUE"},
    {"frame.generate_md5_hash", "FALSE"},
    {"frame.show_file_off", "FALSE"},
    {"gui.column.format", NULL},
    {"gui.column.hidden", NULL},
    {"icmp.favor_icmp_mpls", "FALSE"},
    {"infiniband.rroce.port", "4791"},
    {"infiniband.try_heuristic_first", "TRUE"},
    {"ip.check_checksum", "FALSE"},
    {"ip.decode_tos_as_diffserv", "TRUE"},
    {"ip.defragment", "TRUE"},
    {"ip.security_flag", "FALSE"},
    {"ip.summary_in_tree", "TRUE"},
    {"ip.try_heuristic_first", "FALSE"},
    {"ip.tso_support", "TRUE"},
    {"ip.use_geoip", "TRUE"},
    {"ipv6.defragment", "TRUE"},
    {"ipv6.exthdr_hide_len_oct_field", "FALSE"},
    {"ipv6.exthdr_under_root_protocol_tree", "FALSE"},
    {"ipv6.perform_strict_rpl_srh_rfc_checking", "FALSE"},
    {"ipv6.summary_in_tree", "TRUE"},
    {"ipv6.try_heuristic_first", "FALSE"},
    {"ipv6.tso_support", "FALSE"},
    {"ipv6.use_geoip", "TRUE"},
    {"iwarp_ddp_rdmap.reassemble_iwarp_rdma_send", "TRUE"},
    {"tcp.analyze_sequence_numbers", "TRUE"},
    {"tcp.bif_seq_based", "FALSE"},
    {"tcp.calculate_timestamps", "TRUE"},
    {"tcp.check_checksum", "FALSE"},
    {"tcp.default_window_scaling", "Not known"},
    {"tcp.desegment_tcp_streams", "TRUE"},
    {"tcp.display_process_info_from_ipfix", "FALSE"},
    {"tcp.dissect_experimental_options_rfc6994", "TRUE"},
    {"tcp.fastrt_supersedes_ooo", "TRUE"},
    {"tcp.ignore_tcp_timestamps", "FALSE"},
    {"tcp.no_subdissector_on_error", "TRUE"},
    {"tcp.read_seq_as_syn_cookie", "FALSE"},
    {"tcp.reassemble_out_of_order", "FALSE"},
    {"tcp.relative_sequence_numbers", "TRUE"},
    {"tcp.summary_in_tree", "TRUE"},
    {"tcp.track_bytes_in_flight", "TRUE"},
    {"tcp.try_heuristic_first", "FALSE"},
    {"udp.calculate_timestamps", "TRUE"},
    {"udp.check_checksum", "FALSE"},
    {"udp.ignore_ipv6_zero_checksum", "FALSE"},
    {"udp.process_info", "FALSE"},
    {"udp.summary_in_tree", "TRUE"},
    {"udp.try_heuristic_first", "FALSE"},
    {"vlan.priority_drop", "8 Priorities, 0 Drop Eligible"},
    {"vlan.qinq_ethertype", "0x9100"},
    {"vlan.summary_in_tree", "TRUE"},
    {"vlan.version", "IEEE 802.1Q-2011"},
};

int
read_tshark_pref(const char *arg, struct read_opts *ro)
{
    const char *colon = strchr(arg, ':');
    size_t n = colon != NULL ? (size_t)(colon - arg) : 0;
    size_t i = 0;

    while (i < RS_ARRAY_SIZE(prefs) && (strlen(prefs[i].name) != n ||
                                        strncmp(prefs[i].name, arg, n) != 0))
        i++;
    if (colon == NULL || i == RS_ARRAY_SIZE(prefs))
        return -1;
    const char *value = colon + 1;
    if (strcmp(prefs[i].name, "infiniband.rroce.port") == 0) {
        char spec[64];
        snprintf(spec, sizeof(spec), "udp.port==%s,roce", value);
        return cli_parse_decode_as(spec, &ro->pipe.decode);
    }
    if (prefs[i].value != NULL && strcasecmp(prefs[i].value, value) == 0)
        return 0;
    if (strcmp(prefs[i].name, "tcp.relative_sequence_numbers") == 0 &&
        strcasecmp(value, "FALSE") == 0) {
        ro->display.tcp_absolute = true;
        return 0;
    }
    fprintf(stderr, "roceshark: -o %s: accepted, not applied: roceshark keeps %s%s\n", arg,
            prefs[i].value != NULL ? "tshark's default, " : "its own columns",
            prefs[i].value != NULL ? prefs[i].value : "");
    return 0;
}

/* The entries of a hosts file (-H) as tshark counts them: lines that hold an IPv4 or IPv6
 * address and then a name, after what a '#' starts is cut off. tshark refuses a file with
 * none (its exit status 1). */
static size_t
count_host_entries(FILE *fp)
{
    char line[1024];
    size_t n = 0;

    while (fgets(line, sizeof(line), fp) != NULL) {
        char *hash = strchr(line, '#'), *save = NULL, *addr, *name;
        unsigned char bin[16];
        if (hash != NULL)
            *hash = '\0';
        if ((addr = strtok_r(line, " \t\r\n", &save)) == NULL ||
            (name = strtok_r(NULL, " \t\r\n", &save)) == NULL)
            continue;
        if (inet_pton(AF_INET, addr, bin) == 1 || inet_pton(AF_INET6, addr, bin) == 1)
            n++;
    }
    return n;
}

/* tshark's options that change nothing we print, or cannot apply here: checked as
 * tshark checks them (its exit status 1 for a bad one), some with a one-line notice. */
int
read_tshark_option(int c, const char *arg, struct read_opts *ro)
{
    static const char *const levels[] = {"noisy", "debug", "info", "message", "warning",
                                         "critical", "error", "echo"};
    unsigned long long n;
    FILE *fp;
    size_t k = 0;

    switch (c) {
    case 'u':       /* seconds as seconds; "hms" we do not write */
        if (strcmp(arg, "s") != 0)
            return cli_fail(CLI_EXIT_USAGE, "-u %s: expected s (seconds; hms is not done)",
                            arg);
        return 0;
    case 'Q':       /* as -q, and nothing but errors on stderr */
        ro->quiet = true;
        return 0;
    case 'H':       /* hosts for name resolution: we resolve no IP names, but read it */
        if ((fp = fopen(arg, "r")) == NULL)
            return cli_fail(CLI_EXIT_USAGE, "-H %s: can't read host entries: %s", arg,
                            strerror(errno));
        k = count_host_entries(fp);
        fclose(fp);
        if (k == 0)
            return cli_fail(CLI_EXIT_USAGE, "-H %s: can't read host entries: none in it "
                            "(an IPv4 or IPv6 address, then a name)", arg);
        return 0;
    case 'C':
        if (strcmp(arg, "Default") != 0)
            return cli_fail(CLI_EXIT_USAGE, "-C %s: configuration profile does not exist "
                            "(there is only Default)", arg);
        return 0;
    case 'K':
    case 'X':
    case OPT_EXPORT_OBJECTS:
        fprintf(stderr, "roceshark: %s %s: ignored: %s\n",
                c == 'K' ? "-K" : c == 'X' ? "-X" : "--export-objects", arg,
                c == 'K' ? "nothing is decrypted with Kerberos keys" :
                c == 'X' ? "roceshark runs no Lua scripts or extensions" :
                           "roceshark reassembles no objects (HTTP, SMB, ...)");
        return 0;
    case 'g':       /* -w's file readable by its group */
        ro->group_readable = true;
        return 0;
    case 'M':       /* tshark's session reset every N frames (read_run.c) */
        if (!cli_parse_uint(arg, 1, ~0ull, &n))
            return cli_fail(CLI_EXIT_USAGE, "-M %s: expected a positive count", arg);
        ro->session_frames = n;
        return 0;
    case 'W':       /* name resolution records in pcapng: we resolve no IP names */
        if (strcmp(arg, "n") != 0)
            return cli_fail(CLI_EXIT_USAGE, "-W %s: expected n", arg);
        return 0;
    case 'I':       /* monitor mode: Wi-Fi only; none of our links has it */
    case OPT_COLOR: /* tshark colours by its rules only on a terminal; we have none */
        return 0;
    case OPT_DISABLE_HEURISTIC:     /* a name of tshark's (read_heuristic_switch()) */
    case OPT_ENABLE_HEURISTIC:
        if (!read_heuristic_known(arg))
            return cli_fail(CLI_EXIT_USAGE, "--%s-heuristic %s: no such heuristic dissector, "
                            "can't %s", c == OPT_ENABLE_HEURISTIC ? "enable" : "disable", arg,
                            c == OPT_ENABLE_HEURISTIC ? "enable" : "disable");
        read_heuristic_switch(arg, c == OPT_ENABLE_HEURISTIC, ro);
        return 0;
    case OPT_LOG_LEVEL:
        while (k < RS_ARRAY_SIZE(levels) && strcmp(levels[k], arg) != 0)
            k++;
        if (k == RS_ARRAY_SIZE(levels))
            return cli_fail(CLI_EXIT_USAGE, "--log-level %s: invalid log level (noisy, debug, "
                            "info, message, warning, critical, error or echo)", arg);
        return 0;
    default:
        return -1;
    }
}
