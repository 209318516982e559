/*
 * main.c - the roceshark binary: one subcommand per file.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define ROCESHARK_VERSION "0.1.0"

static const char usage[] =
    "usage: roceshark <command> [options]\n"
    "\n"
    "commands:\n"
    "  read     -r FILE [-c N] [-V] [-T text|json|fields] [-e FIELD]... [-E opt=val]\n"
    "           [-d udp.port==N,roce] [-l]      decode a capture\n"
    "  fields   [PREFIX]                        list every field, its type and meaning\n"
    "  responder --bind IP [--peer IP --peer-qpn N] [--mr SIZE] [--recv N] [--control]\n"
    "                                           an IBTA RC responder on RoCEv2 (UDP 4791)\n"
    "  perf     write_bw|read_bw|send_bw|send_lat|write_lat --bind IP [--connect IP]\n"
    "           [-s SIZE] [-n ITERS] [-m PMTU]  perftest's tests over the software RC\n"
    "\n"
    "Run 'roceshark <command> -h' for the options of one command.\n"
    "\n"
    "exit codes:\n"
    "  0  success\n"
    "  1  bad usage: unknown option, bad argument, unknown field\n"
    "  2  unreadable or corrupt input file\n"
    "  3  output could not be written\n"
    "  4  capture device or network endpoint missing, unreachable or not permitted\n"
    "  5  internal error (out of memory)\n";

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return CLI_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "-v") == 0 || strcmp(cmd, "--version") == 0) {
        printf("roceshark %s\n", ROCESHARK_VERSION);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "read") == 0)
        return cmd_read(argc - 1, argv + 1);
    if (strcmp(cmd, "fields") == 0)
        return cmd_fields(argc - 1, argv + 1);
    if (strcmp(cmd, "responder") == 0)
        return cmd_responder(argc - 1, argv + 1);
    if (strcmp(cmd, "perf") == 0)
        return cmd_perf(argc - 1, argv + 1);
    return cli_fail(CLI_EXIT_USAGE, "%s: unknown command (try 'roceshark --help')", cmd);
}
