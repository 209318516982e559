/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json_int.h - what -T json (print_json.c) and -T ek (print_ek.c) share.
 */
#ifndef ROCESHARK_PRINT_JSON_INT_H
#define ROCESHARK_PRINT_JSON_INT_H

#include <roceshark/dissectors/print.h>

#include "print/tree_doc.h"

/* Whether -j/-J names name. */
bool json_proto_wanted(const struct rs_json_opts *opts, const char *name);
/* Wireshark's number for the item's field type (enum ftenum). */
int json_ws_ftype(const struct rs_tree_item *it);
/* The item's value as a string, as PDML's show. */
void json_write_show(struct rs_json *j, const struct rs_tree_item *it);
/* The item's bytes in hex, or for a field that is bits of its bytes, its value; base is
 * the count of bytes before the frame's own (tree_doc.base). */
void json_write_hex(struct rs_json *j, const struct rs_packet *pkt, uint32_t base,
                    const struct rs_tree_item *it);
/* "_index": "packets-YYYY-MM-DD", the frame's local date. */
void json_write_index(struct rs_json *j, const struct rs_packet *pkt);
/* -e: "field": [values as -T fields prints them], for each field present. */
void json_write_fields(struct rs_json *j, const struct rs_packet *pkt,
                       const struct rs_json_opts *opts);
/* Frees this thread's buffers (rs_print_thread_end). */
void json_thread_end(void);

#endif /* ROCESHARK_PRINT_JSON_INT_H */
