/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nic_counters.c - an RDMA port's own counters, read from sysfs as rates:
 * class/infiniband/DEV/ports/PORT/counters/ (the IBTA port counters) and
 * hw_counters/ (the driver's: out_of_sequence, packet_seq_err, np_cnp_sent
 * and the rest). The root is a parameter, so the tests (and a user reading
 * a copy of another machine's sysfs) point it at a tree of their own.
 *
 * The counter set is listed once, when the port is opened; each sample
 * reads every file again. A counter that cannot be read (a driver that
 * refuses, or a file removed) keeps its last value and is marked.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include <roceshark/tui/tui.h>

struct rs_tui_nic {
    char *dir[2];                       /* counters/ and hw_counters/ */
    GArray *counters;                   /* struct rs_tui_nic_counter, sorted by name */
    uint64_t last_ns;                   /* when the last sample was taken; 0: none yet */
};

static bool
read_value(const char *dir, const char *name, uint64_t *out)
{
    char *path = g_build_filename(dir, name, NULL), text[32];
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    g_free(path);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, text, sizeof(text) - 1);
    close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || end == text || (*end != '\0' && *end != '\n'))
        return false;
    *out = v;
    return true;
}

static gint
by_name(gconstpointer a, gconstpointer b)
{
    const struct rs_tui_nic_counter *x = a, *y = b;
    int c = strcmp(x->name, y->name);

    return c != 0 ? c : (int)x->hw - (int)y->hw;
}

/* Adds every regular file of dir whose name fits as a counter. */
static void
list_dir(struct rs_tui_nic *nic, int which)
{
    DIR *d = opendir(nic->dir[which]);
    struct dirent *e;

    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        struct rs_tui_nic_counter c;
        if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(c.name))
            continue;
        memset(&c, 0, sizeof(c));
        g_strlcpy(c.name, e->d_name, sizeof(c.name));
        c.hw = which == 1;
        g_array_append_val(nic->counters, c);
    }
    closedir(d);
}

int
rs_tui_nic_open(const char *root, const char *dev, unsigned port, struct rs_tui_nic **out,
                char *err)
{
    static const char *const sub[2] = {"counters", "hw_counters"};
    if (strchr(dev, '/') != NULL || strcmp(dev, "..") == 0 || strcmp(dev, ".") == 0)
        return rs_error(err, RS_EINVAL, "%s: not an RDMA device name", dev);
    char number[16];
    snprintf(number, sizeof(number), "%u", port);
    char *port_dir = g_build_filename(root[0] != '\0' ? root : "/sys", "class", "infiniband",
                                      dev, "ports", number, NULL);
    if (access(port_dir, R_OK | X_OK) != 0) {
        int e = errno;
        rs_error(err, RS_ENOENT, "%s port %u: no such RDMA port (%s: %s)", dev, port,
                 port_dir, strerror(e));
        g_free(port_dir);
        return RS_ENOENT;
    }
    struct rs_tui_nic *nic = g_new0(struct rs_tui_nic, 1);
    nic->counters = g_array_new(FALSE, TRUE, sizeof(struct rs_tui_nic_counter));
    for (int i = 0; i < 2; i++) {
        nic->dir[i] = g_build_filename(port_dir, sub[i], NULL);
        list_dir(nic, i);
    }
    int rc = 0;
    if (nic->counters->len == 0) {
        rc = rs_error(err, RS_ENOENT, "%s port %u: no counters/ or hw_counters/ in %s", dev,
                      port, port_dir);
        rs_tui_nic_close(nic);
    } else {
        g_array_sort(nic->counters, by_name);
        *out = nic;
    }
    g_free(port_dir);
    return rc;
}

void
rs_tui_nic_close(struct rs_tui_nic *nic)
{
    if (nic == NULL)
        return;
    g_array_free(nic->counters, TRUE);
    g_free(nic->dir[0]);
    g_free(nic->dir[1]);
    g_free(nic);
}

void
rs_tui_nic_sample(struct rs_tui_nic *nic, uint64_t now_ns)
{
    double secs = nic->last_ns != 0 && now_ns > nic->last_ns
                      ? (double)(now_ns - nic->last_ns) / 1e9 : 0.0;

    for (guint i = 0; i < nic->counters->len; i++) {
        struct rs_tui_nic_counter *c = &g_array_index(nic->counters,
                                                      struct rs_tui_nic_counter, i);
        uint64_t v;
        if (!read_value(nic->dir[c->hw], c->name, &v)) {
            c->readable = false;
            c->have_rate = false;
            c->rate = 0;
            continue;
        }
        /* A counter that went back was reset (or wrapped): no rate this time. */
        c->have_rate = c->readable && secs > 0 && v >= c->value;
        c->rate = c->have_rate ? (double)(v - c->value) / secs : 0;
        c->value = v;
        c->readable = true;
    }
    nic->last_ns = now_ns;
}

size_t
rs_tui_nic_count(const struct rs_tui_nic *nic)
{
    return nic->counters->len;
}

const struct rs_tui_nic_counter *
rs_tui_nic_get(const struct rs_tui_nic *nic, size_t i)
{
    return i < nic->counters->len
               ? &g_array_index(nic->counters, struct rs_tui_nic_counter, i) : NULL;
}

/* The capture's figure beside each NIC counter that has one. The NIC counts
 * what it saw and did; the capture counts what crossed the wire it taps, so
 * the two agree when the tap sees all of the port's traffic. */
static const struct {
    const char *counter;
    enum rs_tui_capture_figure figure;
} peers[] = {
    {"port_rcv_packets", RS_TUI_FIG_PACKETS},
    {"port_xmit_packets", RS_TUI_FIG_PACKETS},
    {"out_of_sequence", RS_TUI_FIG_PSN_GAPS},
    {"packet_seq_err", RS_TUI_FIG_NAK_SEQ},
    {"duplicate_request", RS_TUI_FIG_RETRANSMISSIONS},
    {"local_ack_timeout_err", RS_TUI_FIG_RETRANSMISSIONS},
    {"implied_nak_seq_err", RS_TUI_FIG_PSN_GAPS},
    {"rnr_nak_retry_err", RS_TUI_FIG_RNR},
    {"rx_rnr_nak", RS_TUI_FIG_RNR},
    {"np_cnp_sent", RS_TUI_FIG_CNPS},
    {"rp_cnp_handled", RS_TUI_FIG_CNPS},
    {"rp_cnp_ignored", RS_TUI_FIG_CNPS},
    {"np_ecn_marked_roce_packets", RS_TUI_FIG_ECN_CE},
    {"rx_ecn_marked_pkts", RS_TUI_FIG_ECN_CE},
};

enum rs_tui_capture_figure
rs_tui_nic_capture_figure(const char *counter)
{
    for (size_t i = 0; i < sizeof(peers) / sizeof(peers[0]); i++)
        if (strcmp(peers[i].counter, counter) == 0)
            return peers[i].figure;
    return RS_TUI_FIG_NONE;
}

const char *
rs_tui_capture_figure_name(enum rs_tui_capture_figure f)
{
    static const char *const names[] = {
        [RS_TUI_FIG_NONE] = "", [RS_TUI_FIG_PACKETS] = "RDMA packets",
        [RS_TUI_FIG_PSN_GAPS] = "PSN gaps", [RS_TUI_FIG_NAK_SEQ] = "NAK PSN seq err",
        [RS_TUI_FIG_RETRANSMISSIONS] = "retransmissions", [RS_TUI_FIG_RNR] = "RNR NAKs",
        [RS_TUI_FIG_CNPS] = "CNPs", [RS_TUI_FIG_ECN_CE] = "ECN-CE packets"};

    return (unsigned)f < sizeof(names) / sizeof(names[0]) ? names[f] : "";
}

uint64_t
rs_tui_capture_figure_value(const struct rs_tui_conv_row *rows, size_t n,
                            enum rs_tui_capture_figure f)
{
    uint64_t sum = 0;

    for (size_t i = 0; i < n; i++) {
        const struct rs_conv_stats *st = &rows[i].st;
        switch (f) {
        case RS_TUI_FIG_PACKETS: sum += st->req_packets + st->resp_packets; break;
        case RS_TUI_FIG_PSN_GAPS: sum += st->psn_gaps; break;
        case RS_TUI_FIG_NAK_SEQ: sum += st->naks[RS_NAK_PSN_SEQ_ERROR]; break;
        case RS_TUI_FIG_RETRANSMISSIONS: sum += st->retransmissions; break;
        case RS_TUI_FIG_RNR: sum += st->rnr_naks; break;
        case RS_TUI_FIG_CNPS: sum += st->cnps; break;
        case RS_TUI_FIG_ECN_CE: sum += st->ecn_ce; break;
        case RS_TUI_FIG_NONE: break;
        }
    }
    return sum;
}
