/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unhex.h: the hex decoder of tlsneg-dump's input lines, shared with
 * bench/bench_core.c. */
#ifndef TLSNEG_TOOLS_UNHEX_H
#define TLSNEG_TOOLS_UNHEX_H

#include <ctype.h>
#include <stddef.h>
#include <stdint.h>

/* unhex decodes the hex digits of s into out, at most cap bytes, skipping
 * anything else (spaces, colons); returns the number of bytes written. */
static inline size_t unhex(const char *s, uint8_t *out, size_t cap)
{
    size_t n = 0;
    int hi = -1;
    for (; *s && n < cap; s++) {
        int v;
        if (isdigit((unsigned char)*s)) {
            v = *s - '0';
        } else if (isxdigit((unsigned char)*s)) {
            v = tolower((unsigned char)*s) - 'a' + 10;
        } else {
            continue;
        }
        if (hi < 0) {
            hi = v;
        } else {
            out[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    return n;
}

#endif
