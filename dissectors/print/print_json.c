/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print_json.c - `-T json` and `-T jsonraw` as tshark 4.0 writes them: an
 * array with one document a frame, {"_index", "_type", "_score", "_source":
 * {"layers": {...}}}. The layers are the -V tree (with the hidden fields,
 * as tshark's): a protocol is an object of its fields; a field with fields
 * below it is its value and then "name_tree", an object of those; a node
 * without a value (a protocol, a label) is the object alone. A name met
 * twice in one object is written twice, as tshark does unless told
 * --no-duplicate-keys. Values are PDML's show. -x (and jsonraw, which has
 * no values) adds "name_raw": [hex, pos, len, mask, type], type as
 * Wireshark numbers its field types.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/icmp.h>
#include <roceshark/dissectors/print.h>

#include "print/json_int.h"
#include "print/tree_doc.h"

struct json_ctx {
    struct rs_json j;
    const struct tree_doc *d;
    const struct rs_json_opts *opts;
    bool filtering;             /* -j/-J applies at this point of the tree */
};

typedef void (*node_writer)(struct json_ctx *c, const struct tree_node *n);

bool
json_proto_wanted(const struct rs_json_opts *opts, const char *name)
{
    for (size_t i = 0; i < opts->n_protos; i++)
        if (strcmp(opts->protos[i], name) == 0)
            return true;
    return false;
}

/* Wireshark's number for the field's type (its enum ftenum), as jsonraw shows it. */
int
json_ws_ftype(const struct rs_tree_item *it)
{
    static const struct {
        uint8_t ours, ws;
    } map[] = {
        {RS_FT_NONE, 0},    {RS_FT_PROTOCOL, 1}, {RS_FT_BOOLEAN, 2}, {RS_FT_UINT8, 4},
        {RS_FT_UINT16, 5},  {RS_FT_UINT24, 6},   {RS_FT_UINT32, 7},  {RS_FT_UINT64, 11},
        {RS_FT_DOUBLE, 23}, {RS_FT_ABSTIME, 24}, {RS_FT_RELTIME, 25}, {RS_FT_STRING, 26},
        {RS_FT_ETHER, 29},  {RS_FT_BYTES, 30},   {RS_FT_IPV4, 32},   {RS_FT_IPV6, 33},
        {RS_FT_FRAMENUM, 35}, {RS_FT_INT16, 13},  {RS_FT_INT32, 15},
    };

    if (it->kind != RS_TREE_FIELD)
        return 1;
    /* Wireshark counts the epoch time as a span of time since 1970. */
    if (strcmp(it->field->abbrev, "frame.time_epoch") == 0)
        return 25;
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (map[i].ours == it->field->type)
            return map[i].ws;
    return 0;
}

void
json_write_show(struct rs_json *j, const struct rs_tree_item *it)
{
    const struct rs_value *v = it->value;

    /* As tree_node_show() shows it, written straight into the output. */
    if (v->type == RS_FT_STRING)
        rs_json_string(j, v->v.str, strlen(v->v.str));
    else if (it->field->type == RS_FT_BYTES)
        rs_json_hex_string(j, v->v.bytes.ptr, v->v.bytes.len, ':');
    else
        rs_json_value(j, it->field, v);
}

/* An item without a value or children: a protocol's tree line, else "". */
static void
write_label(struct rs_json *j, const struct rs_packet *pkt, const struct rs_tree_item *it)
{
    struct rs_out *s = rs_out_scratch(j->o);

    if (s != NULL && (it->kind != RS_TREE_FIELD || it->field->type == RS_FT_PROTOCOL))
        rs_print_tree_line(s, pkt, it);
    rs_json_string(j, s != NULL ? s->buf : "", s != NULL ? s->len : 0);
}

void
json_write_hex(struct rs_json *j, const struct rs_packet *pkt, uint32_t base,
               const struct rs_tree_item *it)
{
    struct rs_out *s = rs_out_scratch(j->o);
    const struct rs_frame *fr = pkt->frame;

    if (s == NULL)
        return;
    /* a masked value as its bits, but one whose mask Wireshark does not register
     * (RS_FIELD_BITS: ip.version) as its bytes, as tshark's */
    if (it->kind == RS_TREE_FIELD && it->field->mask != 0 && !(it->field->flags & RS_FIELD_BITS) &&
        it->length > 0)
        rs_out_printf(s, "%llX", (unsigned long long)it->value->v.u);
    else if (it->kind == RS_TREE_FRAME)
        rs_out_hex(s, fr->data + base, fr->caplen - base, '\0');
    else
        rs_out_hex(s, rs_tree_item_bytes(pkt, it), it->length, '\0');
    rs_json_string(j, s->buf, s->len);
}

/* name_raw's array: [hex, pos, len, mask, type]. */
static void
write_raw(struct rs_json *j, const struct rs_packet *pkt, uint32_t base,
          const struct rs_tree_item *it)
{
    char num[24];
    uint32_t len = it->kind == RS_TREE_FRAME ? rs_packet_cap_len(pkt) : it->length;

    rs_json_begin_array(j);
    json_write_hex(j, pkt, base, it);
    snprintf(num, sizeof(num), "%u", it->source != NULL   ? it->offset
                                     : it->offset >= base ? it->offset - base : 0);
    rs_json_literal(j, num);
    snprintf(num, sizeof(num), "%u", len);
    rs_json_literal(j, num);
    snprintf(num, sizeof(num), "%llu",
             (unsigned long long)(it->kind == RS_TREE_FIELD &&
                                          !(it->field->flags & RS_FIELD_BITS)
                                      ? it->field->mask : 0));
    rs_json_literal(j, num);
    snprintf(num, sizeof(num), "%d", json_ws_ftype(it));
    rs_json_literal(j, num);
    rs_json_end_array(j);
}

static void
write_node_raw(struct json_ctx *c, const struct tree_node *n)
{
    write_raw(&c->j, c->d->pkt, c->d->base, &n->it);
}

static void
write_node_value(struct json_ctx *c, const struct tree_node *n)
{
    json_write_show(&c->j, &n->it);
}

static void
write_node_label(struct json_ctx *c, const struct tree_node *n)
{
    write_label(&c->j, c->d->pkt, &n->it);
}

static void
write_filtered(struct json_ctx *c, const struct tree_node *n)
{
    const char *name = tree_node_name(n);

    rs_json_begin_object(&c->j);
    rs_json_name(&c->j, "filtered", NULL);
    rs_json_string(&c->j, name, strlen(name));
    rs_json_end_object(&c->j);
}

static void write_children(struct json_ctx *c, const struct tree_node *n);

/* Each field's member name quoted once (up to its closing quote), by id: written
 * for every node, its strlen, escape scan and copy were some 8% of -T json. */
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;
static char *keys;              /* the quoted names, one after another */
static uint32_t *key_at;        /* by id, where its name starts in keys; at the count, the end */

static void
keys_init(void)
{
    int n = rs_field_count();
    size_t size = 0;

    for (int id = 0; id < n; id++)
        size += 2 * strlen(tree_field_name(rs_field_by_id(id))) + 1;
    keys = malloc(size);
    key_at = malloc(((size_t)n + 1) * sizeof(*key_at));
    if (keys == NULL || key_at == NULL || size > UINT32_MAX) {
        free(keys);
        free(key_at);
        keys = NULL;    /* every name is then quoted where it is written */
        key_at = NULL;
        return;
    }
    uint32_t at = 0;
    for (int id = 0; id < n; id++) {
        const char *name = tree_field_name(rs_field_by_id(id));
        key_at[id] = at;
        at += (uint32_t)rs_json_quote_name(keys + at, name, strlen(name));
    }
    key_at[n] = at;
}

/* The item's name then suffix, as rs_json_name writes them. */
static void
write_name(struct rs_json *j, const struct rs_tree_item *it, const char *suffix)
{
    if (key_at == NULL || it->kind != RS_TREE_FIELD) {
        rs_json_name(j, it->kind == RS_TREE_FRAME ? "frame" : tree_field_name(it->field),
                     suffix);
        return;
    }
    int id = it->id;
    assert(rs_field_by_id(id) == it->field);
    rs_json_quoted_name(j, keys + key_at[id], key_at[id + 1] - key_at[id], suffix);
}

/* The nodes of one name from first on: all of them with --no-duplicate-keys, else one. */
static void
write_group(struct json_ctx *c, const struct tree_node *first, const char *suffix,
            node_writer fn)
{
    const char *name = NULL;
    unsigned count = 1;

    if (c->opts->no_duplicate_keys) {
        name = tree_node_name(first);
        for (int i = first->next; i != TREE_NONE; i = c->d->nodes[i].next)
            count += strcmp(tree_node_name(&c->d->nodes[i]), name) == 0;
    }
    write_name(&c->j, &first->it, suffix);
    if (count == 1) {
        fn(c, first);
        return;
    }
    rs_json_begin_array(&c->j);
    for (const struct tree_node *n = first; n != NULL;
         n = n->next == TREE_NONE ? NULL : &c->d->nodes[n->next])
        if (strcmp(tree_node_name(n), name) == 0)
            fn(c, n);
    rs_json_end_array(&c->j);
}

/* Whether an earlier sibling of n has its name (its group is written). */
static bool
written_before(const struct json_ctx *c, int first, const struct tree_node *n)
{
    const char *name = tree_node_name(n);

    for (int i = first; &c->d->nodes[i] != n; i = c->d->nodes[i].next)
        if (strcmp(tree_node_name(&c->d->nodes[i]), name) == 0)
            return true;
    return false;
}

/* An object of the siblings from first on, as tshark writes a node's children. */
static void
write_list(struct json_ctx *c, int first)
{
    rs_json_begin_object(&c->j);
    for (int i = first; i != TREE_NONE; i = c->d->nodes[i].next) {
        const struct tree_node *n = &c->d->nodes[i];
        if (c->opts->no_duplicate_keys && written_before(c, first, n))
            continue;
        bool value = tree_node_has_value(n), children = n->child != TREE_NONE;
        if (c->opts->raw && (!c->opts->text || n->it.length > 0 || n->it.kind == RS_TREE_FRAME))
            write_group(c, n, "_raw", write_node_raw);
        if (c->opts->text && value)
            write_group(c, n, "", write_node_value);
        if (children) {
            bool filtered = c->filtering && !json_proto_wanted(c->opts, tree_node_name(n));
            write_group(c, n, value ? "_tree" : "", filtered ? write_filtered : write_children);
        } else if (!value && c->opts->text) {
            write_group(c, n, "", write_node_label);
        }
    }
    rs_json_end_object(&c->j);
}

static void
write_children(struct json_ctx *c, const struct tree_node *n)
{
    bool was = c->filtering;

    if (c->opts->protos_whole)
        c->filtering = false;       /* -J: below a name asked for, everything */
    write_list(c, n->child);
    c->filtering = was;
}

/* -T json and jsonraw straight from the walk, without the document, where no name is
 * grouped (--no-duplicate-keys) and none filtered (-j/-J): building the document was some
 * 12% of -T json. Whether an item has items below it, which decides between "name_tree"
 * and a label, is known when the next item comes: until then it waits (pending). */
struct json_walk {
    struct rs_json *j;
    const struct rs_packet *pkt;
    const struct rs_json_opts *opts;
    uint32_t base;                  /* as tree_doc.base */
    unsigned open[TREE_MAX_DEPTH];  /* the depths of the items whose objects are open */
    unsigned n_open;
    bool pending, pend_value, pend_may_open;
    struct rs_tree_item pend;       /* the item that waits, its value a copy for a label */
    struct rs_value pend_v;
};

/* This thread's copy of a pending label's string value: the walker's is reused. */
static _Thread_local char *pend_str;
static _Thread_local size_t pend_str_cap;

/* A copy of s until the next call ("" when out of memory). */
static const char *
hold_string(const char *s)
{
    size_t len = strlen(s) + 1;

    if (len > pend_str_cap) {
        char *p = realloc(pend_str, len);
        if (p == NULL)
            return "";
        pend_str = p;
        pend_str_cap = len;
    }
    return memcpy(pend_str, s, len);
}

static bool
item_has_value(const struct rs_tree_item *it)
{
    return it->kind == RS_TREE_FIELD && it->field->type != RS_FT_PROTOCOL &&
           it->field->type != RS_FT_NONE;
}

/* The pending item's end, now that the next item is known: at next_depth, or none. */
static void
walk_settle(struct json_walk *w, bool next, unsigned next_depth)
{
    if (!w->pending)
        return;
    w->pending = false;
    /* The document's nodes nest at most TREE_MAX_DEPTH deep: a deeper item is a sibling. */
    if (next && next_depth > w->pend.depth && w->pend_may_open) {
        write_name(w->j, &w->pend, w->pend_value ? "_tree" : "");
        rs_json_begin_object(w->j);
        w->open[w->n_open++] = w->pend.depth;
    } else if (!w->pend_value && w->opts->text) {
        write_name(w->j, &w->pend, "");
        write_label(w->j, w->pkt, &w->pend);
    }
}

static void
walk_item(void *arg, const struct rs_tree_item *it)
{
    struct json_walk *w = arg;
    const struct rs_json_opts *opts = w->opts;
    bool value = item_has_value(it);

    walk_settle(w, true, it->depth);
    while (w->n_open > 0 && w->open[w->n_open - 1] >= it->depth) {
        rs_json_end_object(w->j);
        w->n_open--;
    }
    if (opts->raw && (!opts->text || it->length > 0 || it->kind == RS_TREE_FRAME)) {
        write_name(w->j, it, "_raw");
        write_raw(w->j, w->pkt, w->base, it);
    }
    if (opts->text && value) {
        write_name(w->j, it, "");
        json_write_show(w->j, it);
    }
    w->pending = true;
    w->pend_value = value;
    w->pend_may_open = w->n_open < TREE_MAX_DEPTH;
    w->pend = *it;
    w->pend.view = NULL;        /* as the document holds it: a view lives for the call */
    if (value || it->kind != RS_TREE_FIELD) {
        w->pend.value = NULL;   /* no label is written from it */
        return;
    }
    memset(&w->pend_v, 0, sizeof(w->pend_v));
    if (it->value != NULL) {
        w->pend_v = *it->value;
        if (it->value->type == RS_FT_STRING)
            w->pend_v.v.str = hold_string(it->value->v.str);
    }
    w->pend.value = &w->pend_v;
}

static void
write_walked(struct rs_json *j, const struct rs_packet *pkt, const struct rs_json_opts *opts)
{
    struct json_walk w = {.j = j, .pkt = pkt, .opts = opts, .base = tree_doc_base(pkt)};

    rs_json_begin_object(j);
    /* Without -x, no item's position is written. */
    (opts->raw ? rs_tree_walk_hidden : rs_tree_walk_hidden_unplaced)(pkt, walk_item, &w);
    walk_settle(&w, false, 0);
    for (; w.n_open > 0; w.n_open--)
        rs_json_end_object(j);
    rs_json_end_object(j);
}

void
json_thread_end(void)
{
    free(pend_str);
    pend_str = NULL;
    pend_str_cap = 0;
}

/* The index of the last second json_write_index() wrote, on this thread: frames come
 * many to a second, where localtime_r(), strftime() and snprintf() for each were 2% of
 * -T json's time. */
struct index_text {
    bool valid;
    int64_t sec;
    char text[48];      /* "packets-2023-11-14" */
    size_t len;
};
static _Thread_local struct index_text last_index;

void
json_write_index(struct rs_json *j, const struct rs_packet *pkt)
{
    struct index_text *x = &last_index;

    if (!x->valid || x->sec != pkt->frame->ts_sec) {
        char day[32] = "XXXX-XX-XX";
        time_t t = (time_t)pkt->frame->ts_sec;
        struct tm tm;
        /* Local time, as tshark's. */
        if (localtime_r(&t, &tm) != NULL)
            strftime(day, sizeof(day), "%Y-%m-%d", &tm);
        int n = snprintf(x->text, sizeof(x->text), "packets-%s", day);
        x->len = n > 0 ? (size_t)n : 0;
        x->sec = pkt->frame->ts_sec;
        x->valid = true;
    }
    rs_json_name(j, "_index", NULL);
    rs_json_string(j, x->text, x->len);
}

/* A protocol's occurrence as -e writes it (protocol_text.c), from the view it came from. */
static void
json_protocol(struct rs_json *j, const struct rs_packet *pkt, int id, unsigned occ,
              const struct rs_value *v)
{
    const struct rs_field *f = rs_field_by_id(id);
    struct rs_icmp_quote q;
    char text[512];

    if (rs_protocol_field_is_data(f)) {
        rs_json_hex_string(j, v->v.bytes.ptr, v->v.bytes.ptr != NULL ? v->v.bytes.len : 0, 0);
        return;
    }
    size_t n = rs_protocol_field_text(rs_field_occurrence_view(pkt, id, occ, &q), f, v, text,
                                      sizeof(text));
    rs_json_string(j, text, n < sizeof(text) ? n : sizeof(text) - 1);
}

/* -e: each field asked for, as an array of its values as -T fields prints them. */
void
json_write_fields(struct rs_json *j, const struct rs_packet *pkt, const struct rs_json_opts *opts)
{
    struct rs_value v;

    for (size_t i = 0; i < opts->n_fields; i++) {
        int id = opts->fields[i];
        const struct rs_field *f = rs_field_by_id(id);
        bool any = false;
        for (int a = id; a >= 0; a = rs_field_next_alias(a)) {
            unsigned occ = 0;
            for (; occ < RS_MAX_OCCURRENCES && rs_field_value(pkt, a, occ, &v); occ++) {
                if (!any) {
                    rs_json_name(j, f->abbrev, NULL);
                    rs_json_begin_array(j);
                    any = true;
                }
                if (v.type == RS_FT_PROTOCOL)
                    json_protocol(j, pkt, a, occ, &v);
                else
                    rs_json_value(j, rs_field_by_id(a), &v);
            }
            rs_field_note_cut(pkt, a, occ);
        }
        if (any)
            rs_json_end_array(j);
    }
}

void
rs_print_json_begin(struct rs_out *o)
{
    rs_out_char(o, '[');
}

void
rs_print_json(struct rs_out *o, const struct rs_packet *pkt, bool first,
              const struct rs_json_opts *opts)
{
    struct json_ctx c = {.opts = opts, .filtering = opts->n_protos > 0};

    rs_json_init(&c.j, o, true, 1, !first);
    rs_json_begin_object(&c.j);
    json_write_index(&c.j, pkt);
    rs_json_name(&c.j, "_type", NULL);
    rs_json_string(&c.j, "doc", 3);
    rs_json_name(&c.j, "_score", NULL);
    rs_json_literal(&c.j, "null");
    rs_json_name(&c.j, "_source", NULL);
    rs_json_begin_object(&c.j);
    rs_json_name(&c.j, "layers", NULL);
    if (opts->n_fields > 0) {
        rs_json_begin_object(&c.j);
        json_write_fields(&c.j, pkt, opts);
        rs_json_end_object(&c.j);
    } else {
        pthread_once(&keys_once, keys_init);
        if (!opts->no_duplicate_keys && opts->n_protos == 0) {
            write_walked(&c.j, pkt, opts);
        } else {
            c.d = tree_doc_build(pkt);
            write_list(&c, c.d->n > 0 ? 0 : TREE_NONE);
        }
    }
    rs_json_end_object(&c.j);
    rs_json_end_object(&c.j);
    rs_out_end_frame(o);
}

void
rs_print_json_end(struct rs_out *o, bool any)
{
    rs_out_str(o, any ? "\n]\n" : "]\n");
}
