/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stream.c: bounded in-order reassembly (stream.h). */
#include "stream.h"

#include <stdlib.h>
#include <string.h>

static uint32_t pending_end(const tlsneg_stream *s)
{
    uint64_t hi = s->have;
    for (unsigned i = 0; i < s->num_ahead; i++) {
        if (s->ahead[i].end - s->base > hi) {
            hi = s->ahead[i].end - s->base;
        }
    }
    return (uint32_t)hi;
}

static bool reserve(tlsneg_stream *s, uint64_t need, uint32_t limit)
{
    if (need <= s->cap) {
        return true;
    }
    uint64_t cap = s->cap ? s->cap : 2048;
    while (cap < need) {
        cap *= 2;
    }
    if (cap > limit) {
        cap = limit;
    }
    uint8_t *b = realloc(s->buf, (size_t)cap);
    if (!b) {
        return false;
    }
    s->buf = b;
    s->cap = (uint32_t)cap;
    return true;
}

/* absorb moves every stored range that now touches the contiguous bytes into
 * them. */
static void absorb(tlsneg_stream *s)
{
    bool moved = true;
    while (moved) {
        moved = false;
        for (unsigned i = 0; i < s->num_ahead; i++) {
            if (s->ahead[i].start <= s->base + s->have) {
                if (s->ahead[i].end > s->base + s->have) {
                    s->have = (uint32_t)(s->ahead[i].end - s->base);
                }
                s->ahead[i] = s->ahead[--s->num_ahead];
                moved = true;
                break;
            }
        }
    }
}

tlsneg_stream_result tlsneg_stream_add(tlsneg_stream *s, uint64_t off, const uint8_t *data,
                                       size_t len, uint32_t limit, uint64_t *dropped)
{
    uint64_t next = s->base + s->have;
    if (len == 0) {
        return TLSNEG_STREAM_OLD;
    }
    if (off + len <= next) {
        return TLSNEG_STREAM_OLD;
    }
    if (off < next) {
        size_t skip = (size_t)(next - off);
        data += skip;
        len -= skip;
        off = next;
    }
    uint64_t rel = off - s->base;
    if (rel >= limit) {
        *dropped += len;
        return TLSNEG_STREAM_DROPPED;
    }
    if (rel + len > limit) {
        *dropped += rel + len - limit;
        len = (size_t)(limit - rel);
    }
    if (rel > s->have) {
        /* Beyond a gap: merge with a stored range it touches, else a new one. */
        tlsneg_range r = {off, off + len};
        unsigned i;
        for (i = 0; i < s->num_ahead; i++) {
            if (r.start <= s->ahead[i].end && s->ahead[i].start <= r.end) {
                break;
            }
        }
        if (i == s->num_ahead && s->num_ahead == TLSNEG_STREAM_MAX_GAPS) {
            *dropped += len;
            return TLSNEG_STREAM_DROPPED;
        }
        if (!reserve(s, rel + len, limit)) {
            *dropped += len;
            return TLSNEG_STREAM_DROPPED;
        }
        memcpy(s->buf + rel, data, len);
        if (i == s->num_ahead) {
            s->ahead[s->num_ahead++] = r;
        } else {
            if (r.start < s->ahead[i].start) {
                s->ahead[i].start = r.start;
            }
            if (r.end > s->ahead[i].end) {
                s->ahead[i].end = r.end;
            }
        }
        return TLSNEG_STREAM_AHEAD;
    }
    if (!reserve(s, rel + len, limit)) {
        *dropped += len;
        return TLSNEG_STREAM_DROPPED;
    }
    memcpy(s->buf + rel, data, len);
    s->have = (uint32_t)(rel + len);
    absorb(s);
    return TLSNEG_STREAM_IN_ORDER;
}

void tlsneg_stream_consume(tlsneg_stream *s, uint32_t n)
{
    if (n == 0) {
        return;
    }
    uint32_t hi = pending_end(s);
    s->base += n;
    s->have -= n;
    if (hi == n) {
        free(s->buf);
        s->buf = NULL;
        s->cap = 0;
        return;
    }
    memmove(s->buf, s->buf + n, hi - n);
}

void tlsneg_stream_free(tlsneg_stream *s)
{
    free(s->buf);
    s->buf = NULL;
    s->cap = 0;
    s->have = 0;
    s->num_ahead = 0;
}
