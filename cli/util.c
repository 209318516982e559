/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.c - option parsing and error reporting shared by the subcommands.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <roceshark/capture/capture.h>

#include "cli.h"

/* The progress line on the screen, if any: an error wipes it first, so that its line
 * starts clean. */
static struct cli_progress *shown_progress;

int
cli_fail(int code, const char *fmt, ...)
{
    char text[4 * RS_ERRBUF_SIZE], line[4 * RS_ERRBUF_SIZE];
    va_list ap;

    if (shown_progress != NULL)
        cli_progress_end(shown_progress, false);

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    rs_one_line(line, sizeof(line), text);     /* a filter or a name may hold a newline */
    fprintf(stderr, "roceshark: %s\n", line);
    return code;
}

/* How the option getopt_long() just refused (c: '?' or ':') was typed: "--name" (without
 * "=value") for a long one, "-c" for a letter. An unknown letter may sit inside a word
 * getopt has not stepped past, so optopt names it; glibc leaves optopt 0 for an unknown
 * long option. A missing value always ends the word, so argv[optind - 1] holds it. */
static void
refused_option(int c, int argc, char **argv, char *buf, size_t size)
{
    const char *word = optind > 0 && optind <= argc ? argv[optind - 1] : NULL;
    bool is_long = word != NULL && strncmp(word, "--", 2) == 0;

    if (is_long && (c == ':' || optopt == 0))
        snprintf(buf, size, "%.*s", (int)strcspn(word, "="), word);
    else if (optopt > 0 && optopt < 256)
        snprintf(buf, size, "-%c", optopt);
    else
        snprintf(buf, size, "%s", word != NULL ? word : "?");
}

int
cli_getopt(const char *cmd, int argc, char **argv, const char *letters,
           const struct option *longopts, const char *usage)
{
    static const struct option none[] = {{NULL, 0, NULL, 0}};
    char optstring[128], name[64];
    bool in_order = letters[0] == '+';

    /* ':' first (after '+'): a missing value comes back as ':', not '?' with a message. */
    snprintf(optstring, sizeof(optstring), "%s:%s", in_order ? "+" : "", letters + in_order);
    opterr = 0;
    int c = getopt_long(argc, argv, optstring, longopts != NULL ? longopts : none, NULL);
    if (c == 'h' || (c == '?' && optind > 0 && optind <= argc &&
                     strcmp(argv[optind - 1], "--help") == 0)) {
        fputs(usage, stdout);
        return CLI_OPT_HELP;
    }
    if (c != '?' && c != ':')
        return c;
    refused_option(c, argc, argv, name, sizeof(name));
    if (c == ':')
        cli_fail(CLI_EXIT_USAGE, "%s: option %s needs a value (try 'roceshark %s -h')", cmd,
                 name, cmd);
    else
        cli_fail(CLI_EXIT_USAGE, "%s: unknown option %s (try 'roceshark %s -h')", cmd, name,
                 cmd);
    return CLI_OPT_BAD;
}

bool
cli_parse_uint(const char *s, unsigned long long min, unsigned long long max,
               unsigned long long *out)
{
    char *end;

    if (s == NULL || *s == '\0' || *s == '-' || *s == '+')
        return false;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return false;
    *out = v;
    return true;
}

bool
cli_parse_kv(const char *arg, const char *name, unsigned long long max,
             unsigned long long *out)
{
    size_t n = strlen(name);

    return strncmp(arg, name, n) == 0 && arg[n] == ':' && cli_parse_uint(arg + n + 1, 1, max, out);
}

/* Accepts the protocol names users already type into Wireshark. */
static bool
is_roce_name(const char *p)
{
    return strcmp(p, "roce") == 0 || strcmp(p, "rroce") == 0 || strcmp(p, "infiniband") == 0;
}

int
cli_parse_decode_as(const char *arg, struct rs_decode_opts *opts)
{
    unsigned long long port;
    char layer[16], proto[32], num[16];

    if (sscanf(arg, "%15[a-z].port==%15[0-9x],%31s", layer, num, proto) != 3 ||
        !cli_parse_uint(num, 1, 65535, &port))
        return cli_fail(CLI_EXIT_USAGE, "-d %s: expected udp.port==N,roce or tcp.port==N,iwarp",
                        arg);
    if (strcmp(layer, "udp") == 0 && is_roce_name(proto)) {
        if (opts->n_roce_ports == RS_MAX_EXTRA_PORTS)
            return cli_fail(CLI_EXIT_USAGE, "-d %s: at most %d extra ports", arg,
                            RS_MAX_EXTRA_PORTS);
        opts->roce_ports[opts->n_roce_ports++] = (uint16_t)port;
        return 0;
    }
    if (strcmp(layer, "tcp") == 0 && strcmp(proto, "iwarp") == 0) {
        if (opts->n_iwarp_ports == RS_MAX_EXTRA_PORTS)
            return cli_fail(CLI_EXIT_USAGE, "-d %s: at most %d extra ports", arg,
                            RS_MAX_EXTRA_PORTS);
        opts->iwarp_ports[opts->n_iwarp_ports++] = (uint16_t)port;
        return 0;
    }
    return cli_fail(CLI_EXIT_USAGE, "-d %s: unknown protocol '%s' for %s (use roce on udp, "
                    "iwarp on tcp)", arg, proto, layer);
}

/* A stop asked for by SIGINT or SIGTERM, and the source it breaks: set
 * while a live capture runs. */
static volatile sig_atomic_t stop_requested;
static struct rs_source *volatile break_source;

static void
on_stop_signal(int sig)
{
    struct rs_source *src = break_source;

    (void)sig;
    stop_requested = 1;
    if (src != NULL)
        rs_source_break(src);   /* writes an eventfd: async-signal-safe */
}

void
cli_catch_stop_signals(void)
{
    struct sigaction sa;
    sigset_t set;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal;
    /* Restart interrupted writes (stdio would take EINTR for a write error);
     * the sources wait in poll(), which a signal ends regardless, and learn
     * of the break through their eventfd. */
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* A launcher that must be able to stop us before our first instruction
     * starts us with both blocked: what it sent is taken here. */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    /* A closed pipe becomes a write error we report, not a silent death. */
    signal(SIGPIPE, SIG_IGN);
}

bool
cli_stop_requested(void)
{
    return stop_requested != 0;
}

void
cli_break_on_signals(struct rs_source *src)
{
    struct sigaction sa;

    if (src != NULL) {
        if (break_source == NULL)
            cli_catch_stop_signals();
        break_source = src;
        /* A stop that came before src was set had nothing to break. */
        if (stop_requested)
            rs_source_break(src);
        return;
    }
    break_source = NULL;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_DFL);
}

int
cli_exit_code(int rs_code, int otherwise)
{
    switch (rs_code) {
    case RS_EINVAL:
        return CLI_EXIT_USAGE;
    case RS_ENOMEM:
        return CLI_EXIT_INTERNAL;
    default:
        return otherwise;
    }
}

void
cli_print_counts(const char *name, const struct rs_source_stats *st, uint64_t done,
                 const char *what, const char *stats_err)
{
    if (stats_err != NULL && stats_err[0] != '\0') {
        fprintf(stderr, "capture: %s: %llu received, %llu %s (%s)\n", name,
                (unsigned long long)st->received, (unsigned long long)done, what, stats_err);
        return;
    }
    fprintf(stderr, "capture: %s: %llu received, %llu %s, %llu dropped by kernel, "
            "%llu dropped by interface, %llu dropped by ring\n", name,
            (unsigned long long)st->received, (unsigned long long)done, what,
            (unsigned long long)st->kernel_drops, (unsigned long long)st->iface_drops,
            (unsigned long long)st->ring_drops);
}

void
cli_print_capture_counts(struct rs_source *src, uint64_t done, const char *what)
{
    char err[RS_ERRBUF_SIZE] = "";
    struct rs_source_stats st;

    rs_source_stats(src, &st, err);
    cli_print_counts(rs_source_name(src), &st, done, what, err);
}

double
cli_seconds_since(const struct timespec *t0)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

void
cli_progress_start(struct cli_progress *p, double after)
{
    memset(p, 0, sizeof(*p));
    p->tty = isatty(STDERR_FILENO) != 0;
    p->after = after;
    clock_gettime(CLOCK_MONOTONIC, &p->t0);
}

double
cli_progress_due(struct cli_progress *p, bool final)
{
    if (!p->tty)
        return -1;
    double el = cli_seconds_since(&p->t0);
    if (el < p->after || (!final && p->shown && el - p->last < 0.25))
        return -1;
    p->last = el;
    return el;
}

void
cli_progress_line(struct cli_progress *p, const char *fmt, ...)
{
    va_list ap;

    fputs("\r", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\033[K", stderr);      /* what a longer line before left */
    p->shown = true;
    shown_progress = p;
}

void
cli_progress_end(struct cli_progress *p, bool keep)
{
    if (p->shown)
        fputs(keep ? "\n" : "\r\033[K", stderr);
    p->shown = false;
    if (shown_progress == p)
        shown_progress = NULL;
}
