/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.h: the small helpers every pure C layer uses (the core, the
 * analysis, the outputs): one hash family, string copies, and the one
 * compiler attribute the library uses (a check, not a tuning). */
#ifndef TLSNEG_UTIL_H
#define TLSNEG_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* TLSNEG_PRINTF(fmt, args) on a printf-like function's declaration lets
 * GNU compilers check its calls' formats against their arguments: fmt and
 * args are the 1-based positions of the format and of the first argument.
 * Empty for other compilers. */
#if defined(__GNUC__) || defined(__clang__)
#define TLSNEG_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TLSNEG_PRINTF(fmt, args)
#endif

/* TLSNEG_COLD on a function says calls to it are rare (a rule that fires,
 * a verdict): GNU compilers move the code that leads to such a call out of
 * the hot path, so the code run on every message stays small. */
#if defined(__GNUC__) || defined(__clang__)
#define TLSNEG_COLD __attribute__((cold))
#else
#define TLSNEG_COLD
#endif

/* The hash family. Values depend on the byte order and on nothing stored:
 * they place entries in tables and recognise bytes seen before within one
 * run, and are never written out or kept across runs. */

/* FNV-1a, 64 bits: start with TLSNEG_FNV64_BASIS, chain by passing h on.
 * tlsneg_fnv64_step folds one value v (a byte, or a wider code point) into
 * h; tlsneg_fnv64 folds n bytes. */
#define TLSNEG_FNV64_BASIS 14695981039346656037u
#define TLSNEG_FNV64_PRIME 1099511628211u

static inline uint64_t tlsneg_fnv64_step(uint64_t h, uint64_t v)
{
    return (h ^ v) * TLSNEG_FNV64_PRIME;
}

static inline uint64_t tlsneg_fnv64(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = (const uint8_t *)p;
    for (size_t i = 0; i < n; i++) {
        h = tlsneg_fnv64_step(h, b[i]);
    }
    return h;
}

/* tlsneg_fold32: a 64-bit hash in the 32 bits a record keeps (both halves). */
static inline uint32_t tlsneg_fold32(uint64_t h)
{
    return (uint32_t)(h ^ (h >> 32));
}

/* tlsneg_hash_mix folds eight bytes w into the hash h: a multiply and a
 * shift. A hash of a few words chains it (start from any constant), and
 * tlsneg_hash_mix(0, w) spreads one word, such as a sequence number, over
 * all 64 bits. */
static inline uint64_t tlsneg_hash_mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0xff51afd7ed558ccdu;
    return h ^ (h >> 32);
}

/* tlsneg_hash_bytes hashes n bytes eight at a time (tlsneg_hash_mix), then
 * the last 0 to 7, then mixes once more. */
static inline uint64_t tlsneg_hash_bytes(const void *p, size_t n)
{
    const uint8_t *b = (const uint8_t *)p;
    uint64_t h = 0x9e3779b97f4a7c15u ^ n, w;
    for (; n >= 8; b += 8, n -= 8) {
        memcpy(&w, b, 8);
        h = tlsneg_hash_mix(h, w);
    }
    w = 0;
    memcpy(&w, b, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53u;
    return h ^ (h >> 29);
}

/* tlsneg_strdup returns a malloc'd copy of s, or NULL when out of memory. */
static inline char *tlsneg_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = (char *)malloc(n);
    if (d) {
        memcpy(d, s, n);
    }
    return d;
}

/* tlsneg_strlcpy copies s into dst (size bytes), cut to fit and ended by a
 * NUL: the text snprintf(dst, size, "%s", s) writes. */
static inline void tlsneg_strlcpy(char *dst, size_t size, const char *s)
{
    if (!size) {
        return;
    }
    /* memchr stops at the first NUL (C11 7.24.5.1): s may be shorter */
    const char *end = (const char *)memchr(s, '\0', size - 1);
    size_t n = end ? (size_t)(end - s) : size - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

#endif
