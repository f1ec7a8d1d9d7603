/* SPDX-License-Identifier: GPL-2.0-or-later */
/* buf.c: the growing string (buf.h): growth, printf, and the numbers the
 * JSON lines write on every message, without printf. */
#include "report/buf.h"

#include <stdarg.h>
#include <stdlib.h>

bool tlsneg_buf_grow_slow(tlsneg_buf *b, size_t more)
{
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more + 1) {
        cap *= 2;
    }
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = true;
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

void tlsneg_buf_printf(tlsneg_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return;
    }
    if ((size_t)n < sizeof small) {
        tlsneg_buf_put(b, small, (size_t)n);
        return;
    }
    if (!tlsneg_buf_grow(b, (size_t)n)) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* The numbers below are written without printf: the JSON lines write a
 * dozen a message, and printf would cost them about a sixth of the run. */

void tlsneg_buf_uint(tlsneg_buf *b, unsigned long long v)
{
    char d[20];
    size_t i = sizeof d;
    do {
        d[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    tlsneg_buf_put(b, d + i, sizeof d - i);
}

void tlsneg_buf_digits(tlsneg_buf *b, unsigned long long v, size_t n)
{
    char d[20];
    if (n > sizeof d) {
        n = sizeof d;
    }
    for (size_t i = n; i > 0; i--) {
        d[i - 1] = (char)('0' + v % 10);
        v /= 10;
    }
    tlsneg_buf_put(b, d, n);
}

const char *tlsneg_vhex(uint16_t v, char *buf)
{
    static const char digits[] = "0123456789abcdef";
    buf[0] = '0';
    buf[1] = 'x';
    for (int i = 0; i < 4; i++) {
        buf[2 + i] = digits[(v >> (12 - 4 * i)) & 0xf];
    }
    buf[6] = '\0';
    return buf;
}

void tlsneg_buf_vhex(tlsneg_buf *b, uint16_t v)
{
    char h[TLSNEG_VHEX_MAX];
    tlsneg_buf_put(b, tlsneg_vhex(v, h), 6);
}

void tlsneg_buf_clear(tlsneg_buf *b)
{
    b->len = 0;
    if (b->s) {
        b->s[0] = '\0';
    }
}

const char *tlsneg_buf_str(tlsneg_buf *b)
{
    if (!b->s) {
        return "";
    }
    b->s[b->len] = '\0';
    return b->s;
}

void tlsneg_buf_flush(tlsneg_buf *b, FILE *out)
{
    if (b->len) {
        fwrite(b->s, 1, b->len, out);
    }
    tlsneg_buf_clear(b);
}

void tlsneg_buf_free(tlsneg_buf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}
