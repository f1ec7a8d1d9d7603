/* SPDX-License-Identifier: GPL-2.0-or-later */
/* attempts.c: the store of attempts (attempts.h). Its tables hold no keys:
 * a candidate is checked against the attempt it points at (same_key). */
#include "analysis/attempts.h"

#include "analysis/verdict.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK ((size_t)1 << TLSNEG_ATTEMPTS_CHUNK_BITS)

_Static_assert(TLSNEG_CAUSE_CLIENT_ABORT < TLSNEG_COMPLETED, "outcomes fit in 4 bits");
_Static_assert(sizeof(tlsneg_attempt) <= 136,
               "an attempt stays at 136 bytes (docs/performance.md)");

/* The tables' hashes: the keys are hashes or connection numbers already;
 * one mixing step spreads them over the tag. */
#define TABLE_SEED 0x9e3779b97f4a7c15u

static uint64_t table_hash(uint64_t key)
{
    return tlsneg_hash_mix(TABLE_SEED, key);
}

uint64_t tlsneg_attempts_session_key(const tlsneg_attempt *a, uint64_t session_id)
{
    return tlsneg_hash_mix(tlsneg_hash_mix(TABLE_SEED, a->key), session_id);
}

/* grow adds a chunk to the ring (the last one only as large as the cap
 * leaves). */
static bool grow(tlsneg_attempts *st)
{
    size_t n = st->max - st->cap;
    if (n > CHUNK) {
        n = CHUNK;
    }
    if (st->chunks == st->chunks_alloc) {
        size_t want = st->chunks_alloc ? st->chunks_alloc * 2 : 8;
        tlsneg_attempt **c = realloc(st->chunk, want * sizeof *c);
        if (!c) {
            return false;
        }
        st->chunk = c;
        st->chunks_alloc = want;
    }
    tlsneg_attempt *c = malloc(n * sizeof *c);
    if (!c) {
        return false;
    }
    st->chunk[st->chunks++] = c;
    st->cap += n;
    return true;
}

bool tlsneg_attempts_init(tlsneg_attempts *st, uint32_t max)
{
    memset(st, 0, sizeof *st);
    st->max = max < 1 ? 1 : max;
    for (int k = 0; k < TLSNEG_BY_TABLES; k++) {
        if (!tlsneg_table_init(&st->by[k], TLSNEG_TABLE_MIN)) {
            return false;
        }
    }
    return grow(st);
}

void tlsneg_attempts_free(tlsneg_attempts *st)
{
    for (size_t c = 0; c < st->chunks; c++) {
        free(st->chunk[c]);
    }
    free(st->chunk);
    for (int k = 0; k < TLSNEG_BY_TABLES; k++) {
        tlsneg_table_free(&st->by[k]);
    }
    memset(st, 0, sizeof *st);
}

size_t tlsneg_attempts_bytes(const tlsneg_attempts *st)
{
    size_t b = st->chunks_alloc * sizeof *st->chunk + st->cap * sizeof(tlsneg_attempt);
    for (int k = 0; k < TLSNEG_BY_TABLES; k++) {
        b += tlsneg_table_bytes(&st->by[k]);
    }
    return b;
}

size_t tlsneg_attempts_bytes_per_attempt(void)
{
    /* The attempt and its chunk pointer's share, and in each table up to
     * two entries per attempt (grown by half when three quarters full). */
    return sizeof(tlsneg_attempt) + TLSNEG_BY_TABLES * 2 * sizeof(tlsneg_table_entry) + 1;
}

uint64_t tlsneg_attempts_id(const tlsneg_attempts *st, uint32_t s)
{
    return st->next_id - st->used + 1 + (s + st->cap - st->next) % st->cap;
}

uint32_t tlsneg_attempts_prev(const tlsneg_attempts *st, uint32_t s)
{
    uint32_t back = tlsneg_attempts_at(st, s)->prev_back;
    if (!back) {
        return TLSNEG_NO_SLOT;
    }
    uint64_t id = tlsneg_attempts_id(st, s) - back, oldest = st->next_id - st->used + 1;
    if (id < oldest) {
        return TLSNEG_NO_SLOT;
    }
    return (uint32_t)((st->next + (id - oldest)) % st->cap);
}

/* same_key: the attempt in slot s is the one table `by` finds for key. */
static bool same_key(const tlsneg_attempts *st, tlsneg_attempts_by by, uint32_t s, uint64_t key)
{
    const tlsneg_attempt *a = tlsneg_attempts_at(st, s);
    switch (by) {
    case TLSNEG_BY_CONN:
        return a->conn == key;
    case TLSNEG_BY_PAIR:
        return a->pair == key;
    case TLSNEG_BY_KEY:
        return a->key == key;
    case TLSNEG_BY_SESSION:
    default:
        return a->in_session && tlsneg_attempts_session_key(a, a->session_id) == key;
    }
}

uint32_t tlsneg_attempts_find(const tlsneg_attempts *st, tlsneg_attempts_by by, uint64_t key)
{
    const tlsneg_table *t = &st->by[by];
    tlsneg_table_iter it;
    for (uint32_t r = tlsneg_table_first(t, table_hash(key), &it); r;
         r = tlsneg_table_next(t, &it)) {
        if (same_key(st, by, r - 1, key)) {
            return r - 1;
        }
    }
    return TLSNEG_NO_SLOT;
}

tlsneg_attempt *tlsneg_attempts_get(const tlsneg_attempts *st, tlsneg_attempts_by by, uint64_t key)
{
    uint32_t s = tlsneg_attempts_find(st, by, key);
    return s == TLSNEG_NO_SLOT ? NULL : tlsneg_attempts_at(st, s);
}

/* Out of memory, a full table is not grown, only filled further: it keeps
 * one entry empty, and the attempt is not found by that key. */
void tlsneg_attempts_index(tlsneg_attempts *st, tlsneg_attempts_by by, uint64_t key, uint32_t s)
{
    tlsneg_table *t = &st->by[by];
    uint64_t h = table_hash(key);
    tlsneg_table_iter it;
    for (uint32_t r = tlsneg_table_first(t, h, &it); r; r = tlsneg_table_next(t, &it)) {
        if (same_key(st, by, r - 1, key)) {
            tlsneg_table_set(t, &it, s + 1);
            return;
        }
    }
    (void)tlsneg_table_add(t, h, s + 1);
}

void tlsneg_attempts_unindex(tlsneg_attempts *st, tlsneg_attempts_by by, uint64_t key, uint32_t s)
{
    (void)tlsneg_table_remove(&st->by[by], table_hash(key), s + 1);
}

/* forget takes the attempt in slot s out of the tables. */
static void forget(tlsneg_attempts *st, uint32_t s)
{
    tlsneg_attempt *a = tlsneg_attempts_at(st, s);
    tlsneg_attempts_unindex(st, TLSNEG_BY_CONN, a->conn, s);
    tlsneg_attempts_unindex(st, TLSNEG_BY_KEY, a->key, s);
    tlsneg_attempts_unindex(st, TLSNEG_BY_PAIR, a->pair, s);
    if (a->in_session) {
        tlsneg_attempts_unindex(st, TLSNEG_BY_SESSION,
                                tlsneg_attempts_session_key(a, a->session_id), s);
    }
}

/* The ring grows only while it is in order (next at 0), so that slots stay
 * in id order from next. */
uint32_t tlsneg_attempts_take(tlsneg_attempts *st, uint32_t *released)
{
    if (st->used == st->cap && st->next == 0 && st->cap < st->max && grow(st)) {
        /* grown: room at the end */
    }
    uint32_t s;
    *released = 0;
    if (st->used < st->cap) {
        s = (uint32_t)st->used++;
    } else {
        s = (uint32_t)st->next;
        st->next = (st->next + 1) % st->cap;
        forget(st, s);
        *released = tlsneg_attempts_at(st, s)->probe_rec;
    }
    st->next_id++;
    memset(tlsneg_attempts_at(st, s), 0, sizeof(tlsneg_attempt));
    return s;
}

void tlsneg_attempt_offer(const tlsneg_attempt *a, tlsneg_offer *o)
{
    memset(o, 0, sizeof *o);
    o->dtls = a->dtls;
    o->datagram = a->datagram;
    o->has_offered_max = a->has_offered_max;
    o->offered_max = a->offered_max;
    o->has_supported_versions = a->has_supported_versions;
    o->offers_tls13 = a->offers_tls13;
    o->tls13_extensions = a->tls13_extensions;
    o->fallback_scsv = a->fallback_scsv;
    o->session_id = a->session_id;
    o->versions = a->versions;
    o->drafts = a->drafts;
    o->has_fingerprint = a->has_fingerprint;
    o->fp_suites = a->fp_suites;
    o->fp_suites_pre12 = a->fp_suites_pre12;
    o->fp_groups = a->fp_groups;
    o->fp_sigalgs = a->fp_sigalgs;
    o->fp_exts = a->fp_exts;
    o->fp_exts_pre12 = a->fp_exts_pre12;
    o->fp_all = a->fp_all;
    o->pq_offered = a->pq_offered;
    o->pq_key_share = a->pq_key_share;
    o->pq_group = a->pq_group;
    o->group_bits = a->group_bits;
    o->hello_length = a->hello_length;
    o->hello_segments = a->hello_segments;
}

void tlsneg_attempt_set_offer(tlsneg_attempt *a, const tlsneg_offer *o)
{
    a->dtls = o->dtls;
    a->datagram = o->datagram;
    a->has_offered_max = o->has_offered_max;
    a->offered_max = o->offered_max;
    a->has_supported_versions = o->has_supported_versions;
    a->offers_tls13 = o->offers_tls13;
    a->tls13_extensions = o->tls13_extensions & 0xfu;
    a->fallback_scsv = o->fallback_scsv;
    a->session_id = o->session_id;
    a->versions = o->versions;
    a->drafts = o->drafts;
    a->has_fingerprint = o->has_fingerprint;
    a->fp_suites = o->fp_suites;
    a->fp_suites_pre12 = o->fp_suites_pre12;
    a->fp_groups = o->fp_groups;
    a->fp_sigalgs = o->fp_sigalgs;
    a->fp_exts = o->fp_exts;
    a->fp_exts_pre12 = o->fp_exts_pre12;
    a->fp_all = o->fp_all;
    a->pq_offered = o->pq_offered;
    a->pq_key_share = o->pq_key_share;
    a->pq_group = o->pq_group;
    a->group_bits = o->group_bits;
    a->hello_length = o->hello_length;
    a->hello_segments = o->hello_segments;
}
