/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode_exact.c - decode every frame of a capture from a buffer of exactly
 * its captured length, and pull every field and every output format out of
 * it. Under AddressSanitizer any read past the captured bytes is caught,
 * which libpcap's large shared buffer would otherwise hide. Frames go
 * through the iWARP stage too, whose state (and window) outlives each copy.
 *
 * usage: decode_exact FILE...   (exit 0 when every file was read)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/capture.h>
#include <roceshark/dissect.h>
#include <roceshark/fields.h>
#include <roceshark/iwarp.h>
#include <roceshark/print.h>

static unsigned long long values;

static void
count_value(void *ctx, const struct rs_field *f, const struct rs_value *v)
{
    char buf[64];

    (void)ctx;
    rs_value_format(f, v, buf, sizeof(buf));
    rs_value_format_display(f, v, buf, sizeof(buf));
    values++;
}

static void
exercise(const struct rs_frame *frame, struct rs_iwarp *iw, struct rs_out *out)
{
    struct rs_decode_opts opts;
    struct rs_packet pkt;
    /* An exact-size copy: one byte more read is a heap overflow. */
    uint8_t *copy = malloc(frame->caplen ? frame->caplen : 1);
    struct rs_frame f = *frame;

    memcpy(copy, frame->data, frame->caplen);
    f.data = copy;
    rs_decode_opts_init(&opts);
    rs_decode_frame(&f, &opts, &pkt);
    rs_iwarp_process(iw, &pkt);
    for (int id = 0; id < rs_field_count(); id++)
        rs_field_foreach(&pkt, id, count_value, NULL);
    rs_print_summary(out, &pkt);
    rs_print_tree(out, &pkt);
    rs_print_json(out, &pkt, true);
    out->len = 0;
    free(copy);
}

int
main(int argc, char **argv)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_out out;
    unsigned long long frames = 0;

    if (rs_out_init(&out, stdout, 1 << 16) != 0)
        return 2;
    for (int i = 1; i < argc; i++) {
        struct rs_source *src;
        struct rs_frame frame;
        struct rs_iwarp_opts io;
        struct rs_iwarp *iw;
        int rc;

        rs_iwarp_opts_init(&io);
        if (rs_source_open_file(argv[i], &src, err) != 0 || rs_iwarp_new(&io, &iw, err) != 0) {
            fprintf(stderr, "decode_exact: %s\n", err);
            return 2;
        }
        while ((rc = rs_source_next(src, &frame, err)) == 1) {
            exercise(&frame, iw, &out);
            frames++;
        }
        rs_iwarp_free(iw);
        rs_source_close(src);
        if (rc < 0) {
            fprintf(stderr, "decode_exact: %s: %s\n", argv[i], err);
            return 2;
        }
    }
    rs_out_free(&out);
    printf("%llu frames, %llu field values\n", frames, values);
    return 0;
}
