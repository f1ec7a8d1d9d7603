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

static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                            "25262728293031323334353637383940414243444546474849"
                            "50515253545556575859606162636465666768697071727374"
                            "75767778798081828384858687888990919293949596979899";

/* put_digits writes the last n digits of v, zeros first, to the n bytes
 * before end: two at a time, in 32 bits once v fits (a frame number, a
 * port, a time in seconds), where a division by 100 is a multiplication. */
static void put_digits(char *end, unsigned long long v, size_t n)
{
    for (; n >= 2 && v > UINT32_MAX; n -= 2) {
        end -= 2;
        memcpy(end, pairs + 2 * (v % 100), 2);
        v /= 100;
    }
    uint32_t w = (uint32_t)v;
    for (; n >= 2; n -= 2) {
        end -= 2;
        memcpy(end, pairs + 2 * (w % 100), 2);
        w /= 100;
    }
    if (n) {
        end[-1] = (char)('0' + w % 10);
    }
}

/* digits32 counts the decimal digits of w, by comparison. */
static size_t digits32(uint32_t w)
{
    static const uint32_t tens[] = {10u,      100u,      1000u,      10000u,     100000u,
                                    1000000u, 10000000u, 100000000u, 1000000000u};
    size_t n = 1;
    while (n <= 9 && w >= tens[n - 1]) {
        n++;
    }
    return n;
}

void tlsneg_buf_uint(tlsneg_buf *b, unsigned long long v)
{
    size_t n = 0;
    unsigned long long t = v;
    for (; t > UINT32_MAX; t /= 100) {
        n += 2;
    }
    n += digits32((uint32_t)t);
    if (tlsneg_buf_grow(b, n)) {
        put_digits(b->s + b->len + n, v, n);
        b->len += n;
    }
}

void tlsneg_buf_digits(tlsneg_buf *b, unsigned long long v, size_t n)
{
    if (n > 20) {
        n = 20;
    }
    if (tlsneg_buf_grow(b, n)) {
        put_digits(b->s + b->len + n, v, n);
        b->len += n;
    }
}

const char *tlsneg_vhex(uint16_t v, char *buf)
{
    tlsneg_vhex_at(buf, v);
    buf[6] = '\0';
    return buf;
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
