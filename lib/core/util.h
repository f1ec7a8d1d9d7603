/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.h: the small helpers every pure C layer uses (the core, the
 * analysis, the outputs): written once here. */
#ifndef TLSNEG_UTIL_H
#define TLSNEG_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a, 64 bits: start with TLSNEG_FNV64_BASIS, chain by passing h on. */
#define TLSNEG_FNV64_BASIS 14695981039346656037u

static inline uint64_t tlsneg_fnv64(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = (const uint8_t *)p;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 1099511628211u;
    }
    return h;
}

/* tlsneg_hash_mix folds eight bytes w into the hash h: a multiply and a
 * shift. The step of tlsneg_hash_bytes, and of any hash of a few words
 * (tlsneg-pcap's flow table). */
static inline uint64_t tlsneg_hash_mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0xff51afd7ed558ccdu;
    return h ^ (h >> 32);
}

/* tlsneg_hash_bytes hashes n bytes eight at a time (tlsneg_hash_mix), to
 * recognise bytes seen before within one run: the value depends on the
 * byte order, so it is never stored or shown. */
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
 * NUL: what snprintf(dst, size, "%s", s) writes, without printf (it runs
 * per message). */
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
