/* SPDX-License-Identifier: GPL-2.0-or-later */
/* buf.h: a growing string, the line buffer of the report writers. Out of
 * memory, the text is cut and the buffer says so (failed); nothing else
 * fails. */
#ifndef TLSNEG_BUF_H
#define TLSNEG_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

typedef struct {
    char *s; /* len bytes, and room for the NUL tlsneg_buf_str writes */
    size_t len, cap;
    bool failed; /* out of memory: the text is cut */
} tlsneg_buf;

/* tlsneg_buf_grow makes room for more bytes (and the NUL); false when out
 * of memory. */
bool tlsneg_buf_grow_slow(tlsneg_buf *b, size_t more);

static inline bool tlsneg_buf_grow(tlsneg_buf *b, size_t more)
{
    return b->len + more + 1 <= b->cap || tlsneg_buf_grow_slow(b, more);
}

/* tlsneg_buf_put appends n bytes of s, tlsneg_buf_add the string s,
 * tlsneg_buf_addc the character c. The text is ended by a NUL only when
 * read as a string (tlsneg_buf_str). */
static inline void tlsneg_buf_put(tlsneg_buf *b, const char *s, size_t n)
{
    if (!tlsneg_buf_grow(b, n)) {
        return;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
}

static inline void tlsneg_buf_add(tlsneg_buf *b, const char *s)
{
    tlsneg_buf_put(b, s, strlen(s));
}

static inline void tlsneg_buf_addc(tlsneg_buf *b, char c)
{
    tlsneg_buf_put(b, &c, 1);
}

void tlsneg_buf_printf(tlsneg_buf *b, const char *fmt, ...) TLSNEG_PRINTF(2, 3);

/* tlsneg_buf_lit appends a string literal, its length known when compiled
 * (the JSON keys: tlsneg_buf_lit(b, ",\"frame\":")). */
#define tlsneg_buf_lit(b, lit) tlsneg_buf_put((b), "" lit, sizeof(lit) - 1)

/* tlsneg_buf_uint appends v in decimal, as printf's %llu does. */
void tlsneg_buf_uint(tlsneg_buf *b, unsigned long long v);

/* tlsneg_buf_digits appends the last n digits of v (n <= 20), zeros first:
 * printf's %0*llu with width n, for a v of at most n digits. */
void tlsneg_buf_digits(tlsneg_buf *b, unsigned long long v, size_t n);

/* tlsneg_vhex writes v as "0x0304" (printf's "0x%04x") into buf, 8 bytes;
 * tlsneg_buf_vhex appends it, tlsneg_buf_qvhex appends it in quotes (a
 * JSON string). Inline: the JSON lines write one for every version and
 * group of every hello. */
#define TLSNEG_VHEX_MAX 8
const char *tlsneg_vhex(uint16_t v, char *buf);

static inline void tlsneg_vhex_at(char *p, uint16_t v)
{
    static const char digits[] = "0123456789abcdef";
    p[0] = '0';
    p[1] = 'x';
    p[2] = digits[v >> 12];
    p[3] = digits[(v >> 8) & 0xf];
    p[4] = digits[(v >> 4) & 0xf];
    p[5] = digits[v & 0xf];
}

static inline void tlsneg_buf_vhex(tlsneg_buf *b, uint16_t v)
{
    if (tlsneg_buf_grow(b, 6)) {
        tlsneg_vhex_at(b->s + b->len, v);
        b->len += 6;
    }
}

static inline void tlsneg_buf_qvhex(tlsneg_buf *b, uint16_t v)
{
    if (tlsneg_buf_grow(b, 8)) {
        char *p = b->s + b->len;
        p[0] = '"';
        tlsneg_vhex_at(p + 1, v);
        p[7] = '"';
        b->len += 8;
    }
}

void tlsneg_buf_clear(tlsneg_buf *b);
/* tlsneg_buf_str returns the text, ended by a NUL; "" while empty. */
const char *tlsneg_buf_str(tlsneg_buf *b);
/* tlsneg_buf_flush writes the text to out and clears it. */
void tlsneg_buf_flush(tlsneg_buf *b, FILE *out);
void tlsneg_buf_free(tlsneg_buf *b);

#endif
