/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seglog.c: the spans that brought a direction's bytes not yet read (TCP
 * segments, QUIC CRYPTO frames), for hello_segments (flow.h). */
#include <stdlib.h>

#include "flow.h"

void tlsneg_seg_log_add(seg_log *l, uint16_t max, uint32_t frame, uint64_t start, uint64_t end)
{
    if (l->n == l->cap) {
        uint16_t cap = l->cap ? (uint16_t)(l->cap * 2) : 4;
        seg_span *v = cap <= max ? realloc(l->v, cap * sizeof *v) : NULL;
        if (!v) {
            l->lost = true;
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (seg_span){frame, start, end};
}

void tlsneg_seg_log_trim(seg_log *l, uint64_t from)
{
    uint16_t kept = 0;
    for (uint16_t i = 0; i < l->n; i++) {
        if (l->v[i].end > from) {
            l->v[kept++] = l->v[i];
        }
    }
    l->n = kept;
}

const seg_map *tlsneg_seg_log_map(const seg_log *l, uint64_t off, seg_map *out)
{
    if (l->lost) {
        return NULL;
    }
    *out = (seg_map){off, l->v, l->n};
    return out;
}

void tlsneg_seg_log_free(seg_log *l)
{
    free(l->v);
    *l = (seg_log){0};
}
