/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tui_dump.c - what the TUI's packet list and detail pane would show of every
 * frame of a capture, without a terminal: the model opened as `roceshark tui
 * -r FILE` opens it, and for each frame shown, the row (rs_tui_row_text)
 * and, with -V, the tree (rs_tui_tree_build) laid out as `read -V` lays it
 * out (four spaces a level, an empty line after each frame). The test
 * compares the output with `roceshark read` and `read -P -V`
 * (tests/integration/test_tui_read.py).
 *
 * usage: tui_dump -r FILE [-V] [-Y FILTER] [-d udp.port==N,roce | -d tcp.port==N,iwarp]...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <roceshark/dissectors/print.h>
#include <roceshark/tui/tui.h>

static int
decode_as(const char *arg, struct rs_decode_opts *d)
{
    unsigned port;
    char proto[8], as[8];

    if (sscanf(arg, "%3s.port==%u,%7s", proto, &port, as) != 3 || port == 0 || port > 65535)
        return -1;
    if (strcmp(proto, "udp") == 0 && strcmp(as, "roce") == 0 &&
        d->n_roce_ports < RS_MAX_EXTRA_PORTS)
        d->roce_ports[d->n_roce_ports++] = (uint16_t)port;
    else if (strcmp(proto, "tcp") == 0 && strcmp(as, "iwarp") == 0 &&
             d->n_iwarp_ports < RS_MAX_EXTRA_PORTS)
        d->iwarp_ports[d->n_iwarp_ports++] = (uint16_t)port;
    else
        return -1;
    return 0;
}

/* The tree as read -V prints it: the bytes of a Data protocol follow its line in hex,
 * where the TUI shows them in its bytes pane. */
static void
print_tree(const struct rs_tui_tree *t, const struct rs_packet *pkt)
{
    int data = rs_field_lookup("data") + 1;

    for (size_t i = 0; i < t->n; i++) {
        const struct rs_tui_tree_line *l = &t->lines[i];
        printf("%*s%s\n", (int)(l->depth * 4), "", t->text + l->text);
        if (l->node != data || !l->is_node || l->length == 0)
            continue;
        struct rs_out o;
        if (rs_out_init(&o, NULL, 1024) != 0)
            continue;
        rs_print_hex_bytes(&o, (l->source != NULL ? l->source : pkt->frame->data) + l->offset,
                           l->length);
        printf("\n%.*s", (int)o.len, o.buf);
        rs_out_free(&o);
    }
    putchar('\n');
}

int
main(int argc, char **argv)
{
    struct rs_tui_model_opts opts;
    struct rs_tui_model *m;
    struct rs_tui_decoded d = {0};
    struct rs_tui_tree tree = {0};
    struct rs_tui_progress p;
    char err[RS_ERRBUF_SIZE];
    bool tree_mode = false;
    int c;

    rs_tui_model_opts_init(&opts);
    while ((c = getopt(argc, argv, "r:VY:d:")) != -1) {
        switch (c) {
        case 'r':
            opts.path = optarg;
            break;
        case 'V':
            tree_mode = true;
            break;
        case 'Y':
            opts.filter = optarg;
            break;
        case 'd':
            if (decode_as(optarg, &opts.decode) != 0) {
                fprintf(stderr, "tui_dump: -d %s: expected udp.port==N,roce or "
                        "tcp.port==N,iwarp\n", optarg);
                return 1;
            }
            break;
        default:
            return 1;
        }
    }
    if (opts.path == NULL) {
        fprintf(stderr, "usage: tui_dump -r FILE [-V] [-Y FILTER] [-d ...]\n");
        return 1;
    }
    if (rs_tui_model_open(&opts, &m, err) != 0) {
        fprintf(stderr, "tui_dump: %s\n", err);
        return 2;
    }
    rs_tui_model_wait(m);
    rs_tui_model_progress(m, &p);
    int rc = 0;
    if (p.failed) {
        fprintf(stderr, "tui_dump: %s\n", p.error);
        rc = 2;
    }
    uint64_t n = rs_tui_model_shown_count(m);
    for (uint64_t i = 0; i < n && rc == 0; i++) {
        char *line = NULL;
        if (rs_tui_model_decode(m, rs_tui_model_shown_frame(m, i), &d, err) != 0 ||
            rs_tui_row_text(&d, NULL, &line, err) != 0 ||
            (tree_mode && rs_tui_tree_build(&d.pkt, &tree, err) != 0)) {
            fprintf(stderr, "tui_dump: %s\n", err);
            free(line);
            rc = 2;
            break;
        }
        printf("%s\n", line);
        if (tree_mode)
            print_tree(&tree, &d.pkt);
        free(line);
    }
    rs_tui_tree_free(&tree);
    rs_tui_decoded_free(&d);
    rs_tui_model_close(m);
    return rc;
}
