/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wire.h - bounded reads of network-order integers.
 *
 * Packet bytes are read only through these helpers. The unchecked loaders
 * (rs_load_*) are for code that has already proved, once per header, that the
 * whole header lies inside the captured bytes (rs_span_fits); the checked
 * readers (rs_get_*) take the buffer length and return 0 past the end, so
 * a forgotten check costs a wrong value, never an out-of-bounds read.
 */
#ifndef ROCESHARK_WIRE_H
#define ROCESHARK_WIRE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t
rs_load_be16(const uint8_t *p)
{
    return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static inline uint32_t
rs_load_be24(const uint8_t *p)
{
    return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t
rs_load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t
rs_load_be64(const uint8_t *p)
{
    return (uint64_t)rs_load_be32(p) << 32 | rs_load_be32(p + 4);
}

static inline uint16_t
rs_load_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

static inline uint32_t
rs_load_le32(const uint8_t *p)
{
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t
rs_load_le64(const uint8_t *p)
{
    return rs_load_le32(p) | (uint64_t)rs_load_le32(p + 4) << 32;
}

/* Reads a big-endian unsigned integer of 1..8 bytes. */
static inline uint64_t
rs_load_be(const uint8_t *p, unsigned width)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < width; i++)
        v = v << 8 | p[i];
    return v;
}

/* True when [off, off+len) lies inside a buffer of buflen bytes, without
 * overflowing on hostile lengths. */
static inline bool
rs_span_fits(uint32_t off, uint32_t len, uint32_t buflen)
{
    return off <= buflen && len <= buflen - off;
}

static inline uint8_t
rs_get_u8(const uint8_t *buf, uint32_t buflen, uint32_t off)
{
    return off < buflen ? buf[off] : 0;
}

static inline uint16_t
rs_get_be16(const uint8_t *buf, uint32_t buflen, uint32_t off)
{
    return rs_span_fits(off, 2, buflen) ? rs_load_be16(buf + off) : 0;
}

static inline uint32_t
rs_get_be24(const uint8_t *buf, uint32_t buflen, uint32_t off)
{
    return rs_span_fits(off, 3, buflen) ? rs_load_be24(buf + off) : 0;
}

static inline uint32_t
rs_get_be32(const uint8_t *buf, uint32_t buflen, uint32_t off)
{
    return rs_span_fits(off, 4, buflen) ? rs_load_be32(buf + off) : 0;
}

static inline void
rs_store_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void
rs_store_be24(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 16);
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)v;
}

static inline void
rs_store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline void
rs_store_be64(uint8_t *p, uint64_t v)
{
    rs_store_be32(p, (uint32_t)(v >> 32));
    rs_store_be32(p + 4, (uint32_t)v);
}

static inline void
rs_store_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void
rs_store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void
rs_store_le64(uint8_t *p, uint64_t v)
{
    rs_store_le32(p, (uint32_t)v);
    rs_store_le32(p + 4, (uint32_t)(v >> 32));
}

#endif /* ROCESHARK_WIRE_H */
