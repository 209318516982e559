/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read_tshark_compat.c - tshark's options that read takes so that a tshark command line
 * runs unchanged: tshark 4.0's preferences (-o NAME:VALUE) of the protocols read
 * dissects and of name resolution, with their defaults (read_tshark_prefs_table.c): a
 * default value changes nothing, and a value that differs is taken where read does the same
 * thing (infiniband.rroce.port, tcp.relative_sequence_numbers, nameres.mac_name and
 * transport_name) and otherwise accepted with a one-line notice that it is not applied; and tshark's options that change nothing read prints, checked as tshark checks
 * them.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <roceshark/dissectors/common.h>

#include "cli.h"
#include "read_int.h"

/* Whether tshark takes value for pref: a number whole in its base (hexadecimal with or
 * without 0x) and within 32 bits, a column list of titles and known formats; any boolean or
 * choice (an unknown one changes nothing). */
static bool
value_taken(const struct read_tshark_pref *pref, const char *value)
{
    static char list[4096];
    bool hex = pref->kind == READ_PREF_HEX;
    const char *digits = value;

    switch (pref->kind) {
    case READ_PREF_DECIMAL:
    case READ_PREF_HEX:
        if (hex && value[0] == '0' && (value[1] == 'x' || value[1] == 'X'))
            digits += 2;
        if (*digits == '\0')
            return false;
        for (const char *c = digits; *c != '\0'; c++)
            if (!(hex ? isxdigit((unsigned char)*c) : isdigit((unsigned char)*c)))
                return false;
        errno = 0;
        unsigned long long v = strtoull(digits, NULL, hex ? 16 : 10);
        return errno == 0 && v <= UINT32_MAX;
    case READ_PREF_LIST:
        return read_column_list(value, list, sizeof(list));
    default:
        return true;
    }
}

/* Whether value (one value_taken()) is pref's default: anything but "true" is a FALSE
 * boolean; a number is its value. */
static bool
is_default(const struct read_tshark_pref *pref, const char *value)
{
    bool hex = pref->kind == READ_PREF_HEX;

    if (pref->kind == READ_PREF_BOOL)
        return (strcasecmp(value, "TRUE") == 0) == (strcmp(pref->value, "TRUE") == 0);
    if (pref->kind == READ_PREF_DECIMAL || hex)
        return strtoull(value, NULL, hex ? 16 : 10) == strtoull(pref->value, NULL, hex ? 16 : 10);
    return strcasecmp(value, pref->value) == 0;
}

int
read_tshark_pref(const char *arg, struct read_opts *ro)
{
    const char *colon = strchr(arg, ':');
    size_t n = colon != NULL ? (size_t)(colon - arg) : 0;
    size_t i = 0;

    while (i < read_tshark_n_prefs && (strlen(read_tshark_prefs[i].name) != n ||
                                       strncmp(read_tshark_prefs[i].name, arg, n) != 0))
        i++;
    if (colon == NULL || i == read_tshark_n_prefs)
        return -1;
    const struct read_tshark_pref *pref = &read_tshark_prefs[i];
    const char *value = colon + 1;
    bool columns = strncmp(pref->name, "gui.column.", 11) == 0;
    while (*value == ' ' || *value == '\t')
        value++;
    if (!value_taken(pref, value))
        return cli_fail(CLI_EXIT_USAGE, "-o %s: invalid value for %s (%s)", arg, pref->name,
                        pref->kind == READ_PREF_DECIMAL ? "a decimal number" :
                        pref->kind == READ_PREF_HEX     ? "a hexadecimal number" :
                                                          "\"title\",\"%format\" pairs");
    ro->tshark_prefs[i] = value;    /* -G currentprefs shows it */
    unsigned long long port = strtoull(value, NULL, 10);
    /* tshark moves RoCEv2 to the port, 4791 then plain UDP (-d adds a port instead); 0 or a
     * number past 65535 leaves RoCEv2 no port */
    if (strcmp(pref->name, "infiniband.rroce.port") == 0) {
        ro->pipe.decode.rocev2_port = port >= 1 && port <= 65535 ? (uint32_t)port :
                                                                    RS_ROCEV2_PORT_OFF;
        return 0;
    }
    /* -N m and -N t, in the order given with -n and -N */
    if (strcmp(pref->name, "nameres.mac_name") == 0) {
        ro->display.resolve_mac = strcasecmp(value, "TRUE") == 0;
        return 0;
    }
    if (strcmp(pref->name, "nameres.transport_name") == 0) {
        ro->display.resolve_transport = strcasecmp(value, "TRUE") == 0;
        return 0;
    }
    if (!columns && is_default(pref, value))
        return 0;
    if (strcmp(pref->name, "tcp.relative_sequence_numbers") == 0) {    /* FALSE here */
        ro->display.tcp_absolute = true;
        return 0;
    }
    /* After -G (tshark takes -G first), the value is only listed: nothing to say. */
    if (ro->glossary == NULL)
        fprintf(stderr, "roceshark: -o %s: accepted, not applied: roceshark keeps %s%s\n", arg,
                !columns ? "tshark's default, " : "its own columns", !columns ? pref->value : "");
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
