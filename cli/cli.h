/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli.h - what the subcommands of the roceshark binary share.
 */
#ifndef ROCESHARK_CLI_H
#define ROCESHARK_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/dissect.h>

/* Exit codes, documented in `roceshark --help`. */
enum cli_exit {
    CLI_EXIT_OK = 0,
    CLI_EXIT_USAGE = 1,     /* bad option, field, filter or script */
    CLI_EXIT_INPUT = 2,     /* unreadable or corrupt input file */
    CLI_EXIT_OUTPUT = 3,    /* output could not be written */
    CLI_EXIT_CAPTURE = 4,   /* capture device or network endpoint missing, unreachable or
                               not permitted */
    CLI_EXIT_INTERNAL = 5,  /* out of memory or another internal failure */
    CLI_EXIT_EXPECT = 6,    /* inject --script/--suite: expectations failed */
    CLI_EXIT_DIVERGED = 7   /* replay: the target's answers differ from the capture's */
};

/* Prints "roceshark: <message>" on stderr and returns code. */
int cli_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What cli_getopt() returns besides an option character. */
#define CLI_OPT_END (-1)
#define CLI_OPT_HELP (-2)   /* -h or --help: the usage is on stdout; exit CLI_EXIT_OK */
#define CLI_OPT_BAD (-3)    /* an unknown option or a missing value, reported; exit
                               CLI_EXIT_USAGE */

/* getopt_long() for every subcommand, so that all of them answer alike: -h and --help
 * print usage on stdout (whether or not longopts names "help"), and an unknown option
 * or a missing value is one line naming the option as typed, "roceshark: CMD: unknown
 * option --x (try 'roceshark CMD -h')". letters are getopt's, without the leading ':'
 * (a leading '+' stops at the first operand); 'h' is help in every command. The caller
 * sets optind before the first call. */
int cli_getopt(const char *cmd, int argc, char **argv, const char *letters,
               const struct option *longopts, const char *usage);

/* Parses an unsigned decimal (or 0x hex) option value within [min, max]. */
bool cli_parse_uint(const char *s, unsigned long long min, unsigned long long max,
                    unsigned long long *out);

/* "name:value" (-a and -b's conditions) with an unsigned value in [1, max]. */
bool cli_parse_kv(const char *arg, const char *name, unsigned long long max,
                  unsigned long long *out);

/* Applies a tshark-style "-d udp.port==N,roce" (or tcp.port==N,iwarp). */
int cli_parse_decode_as(const char *arg, struct rs_decode_opts *opts);

/* From now on SIGINT and SIGTERM ask for a stop (cli_stop_requested) and
 * break the source given to cli_break_on_signals; SIGPIPE becomes a write
 * error. Unblocks SIGINT and SIGTERM, so that one sent before we ran, to a
 * process started with them blocked, is taken now. Call it first thing. */
void cli_catch_stop_signals(void);
bool cli_stop_requested(void);
/* Makes SIGINT and SIGTERM break src's reads (catching them if that is not
 * done yet; a stop asked for earlier breaks src at once). NULL restores
 * the default actions. */
void cli_break_on_signals(struct rs_source *src);

/* The one mapping from a library's RS_E* code to the exit code (the man page's EXIT
 * STATUS): a bad argument is a usage error, no memory an internal one, anything else
 * (a socket, an interface, a peer, a file) what the command says: otherwise. */
int cli_exit_code(int rs_code, int otherwise);

/* Prints the counts of a live capture on stderr: received, done (what says
 * what: "written", "decoded"), and the drops of the kernel, the interface
 * and our ring. */
void cli_print_capture_counts(struct rs_source *src, uint64_t done, const char *what);
/* The same from counts taken before the source was closed; stats_err, when not empty,
 * says why the drops are not known. */
void cli_print_counts(const char *name, const struct rs_source_stats *st, uint64_t done,
                      const char *what, const char *stats_err);

int cmd_read(int argc, char **argv);
int cmd_correlate(int argc, char **argv);
int cmd_fields(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_ifaces(int argc, char **argv);
int cmd_responder(int argc, char **argv);
int cmd_perf(int argc, char **argv);
int cmd_inject(int argc, char **argv);
int cmd_bridge(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_tui(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_version(void);

/* Seconds of CLOCK_MONOTONIC since t0. */
double cli_seconds_since(const struct timespec *t0);

/* A progress line on stderr for long work, when stderr is a terminal: redrawn in place at
 * most four times a second, from `after` seconds on (0: at once). */
struct cli_progress {
    bool tty;
    bool shown;                 /* a line is on the screen */
    double after, last;
    struct timespec t0;
};
void cli_progress_start(struct cli_progress *p, double after);
/* Seconds since the start, or a negative number when it is not time to draw: call the
 * drawing with what it returns, as a guard, then cli_progress_line(). */
double cli_progress_due(struct cli_progress *p, bool final);
void cli_progress_line(struct cli_progress *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Ends the line: kept (a newline) or wiped, so that what follows starts clean. */
void cli_progress_end(struct cli_progress *p, bool keep);

#endif /* ROCESHARK_CLI_H */
