/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cursor.h: a bounded reader over bytes that also knows offsets.
 *
 * Modelled on BoringSSL's CBS: every read checks the remaining length before
 * touching memory, consumes from the front on success, and on failure returns
 * false and leaves both the cursor and the outputs untouched. A child cursor
 * keeps its parent's base so that tlsneg_cur_offset() stays relative to the
 * start of the whole message. */
#ifndef TLSNEG_CURSOR_H
#define TLSNEG_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define TLSNEG_MUST_CHECK __attribute__((warn_unused_result))
#else
#define TLSNEG_MUST_CHECK
#endif

typedef struct {
    const uint8_t *base; /* start of the whole message: offsets count from here */
    const uint8_t *p;    /* next unread byte */
    size_t len;          /* bytes left from p */
} tlsneg_cur;

/* The readers are inline: the parser calls them for every field of every
 * hello, and a call costs more than the read. */

/* tlsneg_cur_init points c at len bytes of data; data is also the base. */
static inline void tlsneg_cur_init(tlsneg_cur *c, const uint8_t *data, size_t len)
{
    c->base = data;
    c->p = data;
    c->len = data ? len : 0;
}

/* tlsneg_cur_offset returns how far c's next byte is from its base. */
static inline size_t tlsneg_cur_offset(const tlsneg_cur *c)
{
    return (size_t)(c->p - c->base);
}

/* tlsneg_cur_uint reads an n-byte (1 to 4) big-endian integer. */
TLSNEG_MUST_CHECK static inline bool tlsneg_cur_uint(tlsneg_cur *c, size_t n, uint32_t *out)
{
    if (c->len < n) {
        return false;
    }
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) {
        v = (v << 8) | c->p[i];
    }
    c->p += n;
    c->len -= n;
    *out = v;
    return true;
}

TLSNEG_MUST_CHECK static inline bool tlsneg_cur_u8(tlsneg_cur *c, uint8_t *out)
{
    uint32_t v;
    if (!tlsneg_cur_uint(c, 1, &v)) {
        return false;
    }
    *out = (uint8_t)v;
    return true;
}

TLSNEG_MUST_CHECK static inline bool tlsneg_cur_u16(tlsneg_cur *c, uint16_t *out)
{
    uint32_t v;
    if (!tlsneg_cur_uint(c, 2, &v)) {
        return false;
    }
    *out = (uint16_t)v;
    return true;
}

TLSNEG_MUST_CHECK static inline bool tlsneg_cur_u24(tlsneg_cur *c, uint32_t *out)
{
    return tlsneg_cur_uint(c, 3, out);
}

/* tlsneg_cur_bytes splits the next n bytes off c into out. */
TLSNEG_MUST_CHECK static inline bool tlsneg_cur_bytes(tlsneg_cur *c, size_t n, tlsneg_cur *out)
{
    if (c->len < n) {
        return false;
    }
    out->base = c->base;
    out->p = c->p;
    out->len = n;
    c->p += n;
    c->len -= n;
    return true;
}

/* tlsneg_cur_prefixed reads a length of len_size (1 to 3) bytes and splits
 * that many bytes off into out; on failure c is unchanged. */
TLSNEG_MUST_CHECK static inline bool tlsneg_cur_prefixed(tlsneg_cur *c, size_t len_size,
                                                         tlsneg_cur *out)
{
    tlsneg_cur copy = *c;
    uint32_t n;
    if (!tlsneg_cur_uint(&copy, len_size, &n) || !tlsneg_cur_bytes(&copy, n, out)) {
        return false;
    }
    *c = copy;
    return true;
}

TLSNEG_MUST_CHECK static inline bool tlsneg_cur_u8_prefixed(tlsneg_cur *c, tlsneg_cur *out)
{
    return tlsneg_cur_prefixed(c, 1, out);
}

TLSNEG_MUST_CHECK static inline bool tlsneg_cur_u16_prefixed(tlsneg_cur *c, tlsneg_cur *out)
{
    return tlsneg_cur_prefixed(c, 2, out);
}

TLSNEG_MUST_CHECK static inline bool tlsneg_cur_u24_prefixed(tlsneg_cur *c, tlsneg_cur *out)
{
    return tlsneg_cur_prefixed(c, 3, out);
}

#endif
