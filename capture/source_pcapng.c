/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source_pcapng.c - pcapng files, read here rather than by libpcap.
 *
 * Hand-written on purpose, for the timestamps. A pcapng timestamp is 64 bits
 * in units of its interface's if_tsresol (10^-n or 2^-n seconds, from whole
 * seconds to 2^-63), offset by if_tsoffset seconds. libpcap 1.10 hands out a
 * time_t and a fraction, and on the way wraps seconds past 2^63 and
 * overflows the fraction for binary resolutions finer than 2^-34; it also
 * does not say what the resolution was, which tshark's time column shows
 * (9999999999 s back is "-9999999999" in a file in seconds). Here every
 * timestamp converts exactly (truncated to the nanosecond as Wireshark
 * does), each frame carries its interface's link type and precision, and
 * frames are handed out in place from a large read buffer, without
 * libpcap's copy per record.
 *
 * Blocks (all 32-bit aligned):  type, total length, body, total length
 *   SHB 0x0A0D0D0A  byte-order magic 0x1A2B3C4D, version 1.x, section
 *                   length, options; starts a section (its interfaces
 *                   numbered afresh)
 *   IDB 1           link type (16), reserved (16), snaplen, options:
 *                   if_name (2), if_description (3), if_tsresol (9),
 *                   if_tsoffset (14); numbered from 0 in each section, as
 *                   the packet blocks and tshark number them
 *   EPB 6           interface, timestamp high, low, captured length,
 *                   original length, data, options
 *   SPB 3           original length, data (no interface, no timestamp)
 *   PB  2           interface (16), drops (16), timestamp high, low,
 *                   captured length, original length, data (obsolete)
 *   ISB 5           interface, timestamp high, low, options: isb_starttime (2),
 *                   isb_ifdrop (4), isb_osdrop (7); the drops are kept as spans
 *                   of time (rs_source_drop_spans)
 * Other blocks are skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <roceshark/dissectors/wire.h>

#include "source_int.h"

#define BT_SHB 0x0A0D0D0Au
#define BT_IDB 1u
#define BT_PB 2u
#define BT_SPB 3u
#define BT_ISB 5u
#define BT_EPB 6u
#define OPT_ISB_STARTTIME 2
#define OPT_ISB_IFDROP 4
#define OPT_ISB_OSDROP 7
#define BYTE_ORDER_MAGIC 0x1A2B3C4Du
#define OPT_ENDOFOPT 0
#define OPT_IF_NAME 2
#define OPT_IF_DESCRIPTION 3
#define OPT_IF_TSRESOL 9
#define OPT_IF_TSOFFSET 14
#define BLOCK_MIN 12u
/* Larger than any block dumpcap writes (a 256 KiB snapshot plus options);
 * libpcap's limit too. A bigger one is corrupt. */
#define BLOCK_MAX (16u << 20)
#define READ_CHUNK (1u << 20)

struct ng_iface {
    int linktype;
    uint32_t snaplen;
    bool binary;            /* if_tsresol is 2^-exp, else 10^-exp */
    uint8_t exp;
    uint64_t units;         /* per second: 10^exp or 2^exp */
    int64_t offset;         /* if_tsoffset, seconds */
    uint8_t digits;         /* decimals tshark shows for this resolution */
    char *name;             /* if_name, or NULL */
    char *description;      /* if_description, or NULL */
    bool has_isb;
    uint64_t isb_drops;     /* the last ISB's isb_ifdrop + isb_osdrop */
    int64_t isb_ns;         /* its time */
};

struct ng_source {
    int fd;
    FILE *fp;                   /* a stream in place of fd (gzip, standard input), or NULL */
    uint8_t *buf;
    size_t cap, start, end;     /* unread bytes are buf[start, end) */
    uint64_t buf_off;           /* where buf[0] is in the file */
    bool eof;
    bool big_endian;            /* of the current section */
    /* Every section's interfaces, kept to the end: frames handed out point at their names. */
    struct ng_iface *ifaces;
    uint32_t n_ifaces, cap_ifaces;
    uint32_t section_first;     /* the current section's first interface in ifaces */
    uint32_t sections;          /* seen so far */
    volatile bool stop;
};

static uint16_t
ld16(const struct ng_source *ns, const uint8_t *p)
{
    return ns->big_endian ? rs_load_be16(p) : rs_load_le16(p);
}

static uint32_t
ld32(const struct ng_source *ns, const uint8_t *p)
{
    return ns->big_endian ? rs_load_be32(p) : rs_load_le32(p);
}

static uint64_t
ld64(const struct ng_source *ns, const uint8_t *p)
{
    return ns->big_endian ? rs_load_be64(p) : rs_load_le64(p);
}

/* Makes `need` unread bytes available; 0 when they are, 1 when the file
 * ends first, or an error. Moving or growing the buffer is fine: the
 * previous frame's bytes only had to last until this call. */
static int
fill(struct ng_source *ns, size_t need, char *err)
{
    while (ns->end - ns->start < need) {
        if (ns->eof)
            return 1;
        if (ns->cap - ns->start < need || ns->end == ns->cap) {
            memmove(ns->buf, ns->buf + ns->start, ns->end - ns->start);
            ns->buf_off += ns->start;
            ns->end -= ns->start;
            ns->start = 0;
        }
        if (ns->cap < need) {
            uint8_t *b = realloc(ns->buf, need);
            if (b == NULL)
                return rs_error(err, RS_ENOMEM, "out of memory for a %zu-byte block", need);
            ns->buf = b;
            ns->cap = need;
        }
        ssize_t n;
        if (ns->fp != NULL) {
            size_t got = fread(ns->buf + ns->end, 1, ns->cap - ns->end, ns->fp);
            n = got == 0 && ferror(ns->fp) ? -1 : (ssize_t)got;
            errno = n < 0 ? EIO : errno;
        } else {
            n = read(ns->fd, ns->buf + ns->end, ns->cap - ns->end);
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return rs_error(err, RS_EIO, "reading the capture: %s", strerror(errno));
        if (n == 0)
            ns->eof = true;
        ns->end += (size_t)n;
    }
    return 0;
}

/* Decimals tshark 4.0 shows for a resolution: the digits of 10^exp or of
 * 2^exp, less one, rounded down to 0, 1, 2, 3, 6 or 9. */
static uint8_t
tsresol_digits(bool binary, uint8_t exp)
{
    unsigned d = 0;

    if (!binary) {
        d = exp;
    } else {
        for (uint64_t v = (uint64_t)1 << exp; v >= 10; v /= 10)
            d++;
    }
    return d >= 9 ? 9 : d >= 6 ? 6 : d >= 3 ? 3 : (uint8_t)d;
}

static int
corrupt(char *err, const char *what, unsigned long long v)
{
    return rs_error(err, RS_EIO, "corrupt pcapng file: %s%llu", what, v);
}

/* A string option's value: its bytes up to the first NUL, a string of their own. */
static int
option_string(const uint8_t *v, uint16_t len, char **out, char *err)
{
    const uint8_t *nul = memchr(v, 0, len);
    size_t n = nul != NULL ? (size_t)(nul - v) : len;

    free(*out);     /* a repeated option: the last one, as Wireshark keeps it */
    if ((*out = malloc(n + 1)) == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory for an interface's name");
    memcpy(*out, v, n);
    (*out)[n] = '\0';
    return 0;
}

/* The options of an IDB body starting at p: the name and description, the
 * timestamp resolution and offset. */
static int
idb_options(struct ng_source *ns, const uint8_t *p, const uint8_t *end, struct ng_iface *ifc,
            char *err)
{
    while (end - p >= 4) {
        uint16_t code = ld16(ns, p), len = ld16(ns, p + 2);
        uint32_t padded = (len + 3u) & ~3u;
        if ((size_t)(end - p - 4) < padded)
            return corrupt(err, "an interface option runs past its block, code ", code);
        const uint8_t *v = p + 4;
        if (code == OPT_ENDOFOPT)
            break;
        if (code == OPT_IF_NAME || code == OPT_IF_DESCRIPTION) {
            int rc = option_string(v, len, code == OPT_IF_NAME ? &ifc->name : &ifc->description,
                                   err);
            if (rc != 0)
                return rc;
        } else if (code == OPT_IF_TSRESOL) {
            if (len != 1)
                return corrupt(err, "if_tsresol of length ", len);
            ifc->binary = (v[0] & 0x80) != 0;
            ifc->exp = v[0] & 0x7f;
            if (ifc->exp > (ifc->binary ? 63 : 19))
                return rs_error(err, RS_EIO, "pcapng interface %u: resolution %s^-%u is finer "
                                "than 64 bits count", ns->n_ifaces, ifc->binary ? "2" : "10",
                                ifc->exp);
        } else if (code == OPT_IF_TSOFFSET) {
            if (len != 8)
                return corrupt(err, "if_tsoffset of length ", len);
            ifc->offset = (int64_t)ld64(ns, v);
        }
        p = v + padded;
    }
    ifc->units = 1;
    for (unsigned i = 0; i < ifc->exp; i++)
        ifc->units *= ifc->binary ? 2 : 10;
    ifc->digits = tsresol_digits(ifc->binary, ifc->exp);
    return 0;
}

static int
add_iface(struct ng_source *ns, const uint8_t *body, uint32_t len, char *err)
{
    if (len < 8)
        return corrupt(err, "an Interface Description Block of ", len + BLOCK_MIN);
    if (ns->n_ifaces == ns->cap_ifaces) {
        uint32_t cap = ns->cap_ifaces ? 2 * ns->cap_ifaces : 4;
        struct ng_iface *n = cap < ns->cap_ifaces ? NULL : realloc(ns->ifaces, cap * sizeof(*n));
        if (n == NULL)
            return rs_error(err, RS_ENOMEM, "out of memory for %u interfaces", cap);
        ns->ifaces = n;
        ns->cap_ifaces = cap;
    }
    struct ng_iface ifc = {.linktype = ld16(ns, body), .snaplen = ld32(ns, body + 4),
                           .exp = 6};
    int rc = idb_options(ns, body + 8, body + len, &ifc, err);
    if (rc != 0) {
        free(ifc.name);
        free(ifc.description);
        return rc;
    }
    ns->ifaces[ns->n_ifaces++] = ifc;
    return 0;
}

/* The time of a timestamp t of interface ifc, exact to the nanosecond
 * (truncated, as Wireshark does). No 128-bit arithmetic is needed: the
 * fraction is below the unit, so the products below fit in 64 bits. */
static struct rs_time
iface_time(const struct ng_iface *ifc, uint64_t t)
{
    uint64_t sec, frac, nsec;

    if (!ifc->binary && ifc->exp == 6) {         /* the default: microseconds */
        sec = t / 1000000;
        nsec = t % 1000000 * 1000;
    } else if (!ifc->binary && ifc->exp == 9) {
        sec = t / 1000000000;
        nsec = t % 1000000000;
    } else if (!ifc->binary) {
        sec = t / ifc->units;
        frac = t % ifc->units;
        uint64_t scale = 1;
        for (unsigned i = ifc->exp; i < 9; i++)
            scale *= 10;
        for (unsigned i = 9; i < ifc->exp; i++)
            frac /= 10;
        nsec = frac * scale;
    } else {
        sec = ifc->exp == 0 ? t : t >> ifc->exp;
        frac = t & (ifc->units - 1);
        if (ifc->exp <= 32) {
            nsec = (frac * RS_NSEC_PER_SEC) >> ifc->exp;
        } else {
            /* frac * 1e9 / 2^exp, with frac = hi * 2^32 + lo: the low
             * half's contribution below 2^32 cannot reach the result. */
            uint64_t hi = frac >> 32, lo = frac & 0xffffffffu;
            nsec = (hi * RS_NSEC_PER_SEC + ((lo * RS_NSEC_PER_SEC) >> 32)) >> (ifc->exp - 32);
        }
    }
    /* 2^64 seconds do not fit: a file in seconds past 2^63 is clamped
     * (tshark wraps those to negative times). */
    struct rs_time tm = {sec > INT64_MAX ? INT64_MAX : (int64_t)sec, (int32_t)nsec};
    return rs_time_add(tm, (struct rs_time){ifc->offset, 0});
}

/* A new section: its byte order (from the magic, at offset 8 of the block)
 * and no interfaces yet. */
static int
start_section(struct ng_source *ns, const uint8_t *blk, char *err)
{
    if (rs_load_le32(blk + 8) == BYTE_ORDER_MAGIC)
        ns->big_endian = false;
    else if (rs_load_be32(blk + 8) == BYTE_ORDER_MAGIC)
        ns->big_endian = true;
    else
        return rs_error(err, RS_EIO, "corrupt pcapng file: a section without its byte-order "
                        "magic");
    ns->section_first = ns->n_ifaces;
    ns->sections++;
    return 0;
}

/* Reads blocks up to the next packet, which goes into frame (1); 0 at the
 * end of the file; or an error. With metadata_only, stops with 1 after the
 * first Interface Description Block instead (and a packet is an error). */
/* An Interface Statistics Block: where the interface's drop count rose, a span. */
static void
read_isb(struct rs_source *src, struct ng_source *ns, const uint8_t *body, uint32_t body_len)
{
    /* statistics only inform: a block too short, or of no interface, is skipped as a
     * reader that does not know ISBs would, rather than end the file's frames */
    if (body_len < 12 || ld32(ns, body) >= ns->n_ifaces - ns->section_first)
        return;
    struct ng_iface *ifc = &ns->ifaces[ns->section_first + ld32(ns, body)];
    int64_t at = rs_time_to_ns(iface_time(ifc, (uint64_t)ld32(ns, body + 4) << 32 |
                                               ld32(ns, body + 8)));
    int64_t from = ifc->has_isb ? ifc->isb_ns : INT64_MIN;
    uint64_t drops = 0;
    bool any = false;

    for (uint32_t o = 12; o + 4 <= body_len;) {
        uint16_t code = ld16(ns, body + o), len = ld16(ns, body + o + 2);
        if (code == OPT_ENDOFOPT || o + 4 + len > body_len)
            break;
        if (len == 8 && (code == OPT_ISB_IFDROP || code == OPT_ISB_OSDROP)) {
            drops += ld64(ns, body + o + 4);
            any = true;
        } else if (len == 8 && code == OPT_ISB_STARTTIME && !ifc->has_isb) {
            from = rs_time_to_ns(iface_time(ifc, (uint64_t)ld32(ns, body + o + 4) << 32 |
                                                 ld32(ns, body + o + 8)));
        }
        o += 4 + ((len + 3u) & ~3u);
    }
    if (!any)
        return;
    if (drops > ifc->isb_drops || (!ifc->has_isb && drops > 0))
        source_add_drop_span(src, from, at, drops - ifc->isb_drops);
    ifc->has_isb = true;
    ifc->isb_drops = drops;
    ifc->isb_ns = at;
}

static int
next_block(struct rs_source *src, struct rs_frame *frame, bool metadata_only, char *err)
{
    struct ng_source *ns = src->priv;
    int rc;

    for (;;) {
        if ((rc = fill(ns, BLOCK_MIN, err)) != 0)
            return rc < 0 ? rc : ns->end == ns->start ? 0
                   : rs_error(err, RS_EIO, "truncated pcapng file: %zu bytes of a block header",
                              ns->end - ns->start);
        const uint8_t *blk = ns->buf + ns->start;
        uint32_t type = ld32(ns, blk);
        if (type == BT_SHB && (rc = start_section(ns, blk, err)) != 0)
            return rc;
        uint32_t len = ld32(ns, blk + 4);
        if (len < BLOCK_MIN || len % 4 != 0 || len > BLOCK_MAX)
            return corrupt(err, "a block of length ", len);
        if ((rc = fill(ns, len, err)) != 0)
            return rc < 0 ? rc : rs_error(err, RS_EIO, "truncated pcapng file: a block of %u "
                                          "bytes has %zu", len, ns->end - ns->start);
        blk = ns->buf + ns->start;
        if (ld32(ns, blk + len - 4) != len)
            return corrupt(err, "a block whose trailing length differs from its length ", len);
        ns->start += len;
        const uint8_t *body = blk + 8;
        uint32_t body_len = len - BLOCK_MIN;
        uint32_t iface = 0, caplen, origlen, hdr;
        uint64_t ts = 0;
        switch (type) {
        case BT_SHB:
            if (body_len < 16)
                return corrupt(err, "a Section Header Block of length ", len);
            if (ld16(ns, body + 4) != 1)
                return corrupt(err, "a section of major version ", ld16(ns, body + 4));
            continue;
        case BT_IDB:
            if ((rc = add_iface(ns, body, body_len, err)) != 0)
                return rc;
            if (metadata_only)
                return 1;
            continue;
        case BT_EPB:
        case BT_PB:
            if (body_len < 20)
                return corrupt(err, "a packet block of length ", len);
            iface = type == BT_EPB ? ld32(ns, body) : ld16(ns, body);
            ts = (uint64_t)ld32(ns, body + 4) << 32 | ld32(ns, body + 8);
            caplen = ld32(ns, body + 12);
            origlen = ld32(ns, body + 16);
            hdr = 20;
            break;
        case BT_SPB:
            if (body_len < 4)
                return corrupt(err, "a simple packet block of length ", len);
            origlen = caplen = ld32(ns, body);
            hdr = 4;
            break;
        case BT_ISB:
            read_isb(src, ns, body, body_len);
            continue;
        default:
            continue;       /* name resolution, custom blocks */
        }
        if (metadata_only)
            return rs_error(err, RS_EIO, "corrupt pcapng file: a packet before any Interface "
                            "Description Block");
        if (iface >= ns->n_ifaces - ns->section_first)
            return rs_error(err, RS_EIO, "corrupt pcapng file: a packet of interface %u, which "
                            "no Interface Description Block describes", iface);
        const struct ng_iface *ifc = &ns->ifaces[ns->section_first + iface];
        if (type == BT_SPB) {
            /* Its captured length is implied: the snapshot length, or what
             * the block holds. */
            if (ifc->snaplen != 0 && caplen > ifc->snaplen)
                caplen = ifc->snaplen;
            if (caplen > body_len - hdr)
                caplen = body_len - hdr;
        } else if (caplen > body_len - hdr) {
            return corrupt(err, "a packet of more captured bytes than its block holds: ",
                           caplen);
        }
        frame->data = body + hdr;
        src->offset = (int64_t)(ns->buf_off + (size_t)(frame->data - ns->buf));
        frame->caplen = caplen;
        frame->len = origlen;
        struct rs_time t = iface_time(ifc, ts);
        frame->ts_sec = t.sec;
        frame->ts_nsec = (uint32_t)t.nsec;
        frame->linktype = ifc->linktype;
        frame->ts_digits = ifc->digits;
        frame->interface = iface < UINT16_MAX - 1 ? (uint16_t)(iface + 1) : UINT16_MAX;
        frame->section = ns->sections < UINT16_MAX ? (uint16_t)ns->sections : UINT16_MAX;
        frame->iface_name = ifc->name;
        frame->iface_desc = ifc->description;
        source_number(src, frame);
        return 1;
    }
}

static int
pcapng_next(struct rs_source *src, struct rs_frame *frame, char *err)
{
    struct ng_source *ns = src->priv;

    if (ns->stop)
        return 0;
    return next_block(src, frame, false, err);
}

static void
pcapng_break(struct rs_source *src)
{
    ((struct ng_source *)src->priv)->stop = true;
}

static void
pcapng_close(struct rs_source *src)
{
    struct ng_source *ns = src->priv;

    if (ns->fp != NULL)
        fclose(ns->fp);
    else
        close(ns->fd);
    free(ns->buf);
    for (uint32_t i = 0; i < ns->n_ifaces; i++) {
        free(ns->ifaces[i].name);
        free(ns->ifaces[i].description);
    }
    free(ns->ifaces);
    free(ns);
}

static const struct rs_source_ops pcapng_ops = {.next = pcapng_next, .brk = pcapng_break,
                                               .close = pcapng_close};

/* Starts reading the pcapng file ns reads (fd or fp): its first interface. */
static int
pcapng_start(const char *path, struct ng_source *ns, struct rs_source *src, char *err)
{
    ns->cap = READ_CHUNK;
    src->priv = ns;
    src->ops = &pcapng_ops;
    /* The first interface names the link type and snapshot length of the
     * source (frames carry their own interface's). */
    struct rs_frame none;
    int rc = next_block(src, &none, true, err);
    if (rc <= 0) {
        pcapng_close(src);
        src->priv = NULL;
        src->ops = &source_inactive_ops;
        if (rc == 0)
            return rs_error(err, RS_EIO, "%s: the pcapng file has no Interface Description "
                            "Block", path);
        char why[RS_ERRBUF_SIZE];
        snprintf(why, sizeof(why), "%s", err);
        return rs_error(err, rc, "%s: %s", path, why);
    }
    src->pcapng = true;
    src->linktype = ns->ifaces[0].linktype;
    src->snaplen = ns->ifaces[0].snaplen != 0 ? ns->ifaces[0].snaplen : RS_CAPTURE_SNAPLEN;
    src->ts_digits = ns->ifaces[0].digits;
    return 1;
}

static struct ng_source *
ng_source_new(void)
{
    struct ng_source *ns = calloc(1, sizeof(*ns));

    if (ns != NULL && (ns->buf = malloc(READ_CHUNK)) == NULL) {
        free(ns);
        ns = NULL;
    }
    return ns;
}

int
source_pcapng_try(const char *path, struct rs_source *src, char *err)
{
    struct stat st;
    uint8_t magic[4];
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return 0;   /* libpcap reports the error in its own words */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
        rs_load_le32(magic) != BT_SHB) {
        close(fd);
        return 0;
    }
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    struct ng_source *ns = ng_source_new();
    if (ns == NULL) {
        close(fd);
        return rs_error(err, RS_ENOMEM, "%s: out of memory", path);
    }
    ns->fd = fd;
    return pcapng_start(path, ns, src, err);
}

int
source_pcapng_open_stream(const char *path, FILE *fp, struct rs_source *src, char *err)
{
    struct ng_source *ns = ng_source_new();

    if (ns == NULL) {
        fclose(fp);
        return rs_error(err, RS_ENOMEM, "%s: out of memory", path);
    }
    ns->fd = -1;
    ns->fp = fp;
    return pcapng_start(path, ns, src, err);
}
