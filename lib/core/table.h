/* SPDX-License-Identifier: GPL-2.0-or-later */
/* table.h: the one hash table of the pure C layers. It maps a 64-bit hash
 * to records the caller owns and numbers (an index plus one, 0 meaning
 * none): open addressing over 8-byte entries, each the high half of the hash
 * (its tag, which also places it) and the record's number; linear probing;
 * growth by half when three quarters full; deletion by backward shift, which
 * keeps every probe chain whole without tombstones. It holds no keys: a
 * matching tag is a candidate that the caller checks against its record
 * (tlsneg_table_first and _next, or tlsneg_table_find with an equality
 * test). Growth needs only the tags, never the keys. */
#ifndef TLSNEG_TABLE_H
#define TLSNEG_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t tag; /* the hash's high 32 bits */
    uint32_t ref; /* the caller's record plus one; 0: empty (calloc'd tables need no pass) */
} tlsneg_table_entry;

typedef struct {
    tlsneg_table_entry *e;
    size_t n;     /* entries */
    size_t count; /* in use */
} tlsneg_table;

/* A walk over the candidates of one hash. */
typedef struct {
    size_t i;
    uint32_t tag;
} tlsneg_table_iter;

#define TLSNEG_TABLE_MIN 16

/* tlsneg_table_init makes t an empty table of n entries (at least
 * TLSNEG_TABLE_MIN); false when out of memory. tlsneg_table_free lets go of
 * its entries (a zeroed table is freed as well). */
bool tlsneg_table_init(tlsneg_table *t, size_t n);
void tlsneg_table_free(tlsneg_table *t);

/* tlsneg_table_bytes: the memory the entries take. */
size_t tlsneg_table_bytes(const tlsneg_table *t);

/* tlsneg_table_first returns the first record whose tag matches hash, or 0;
 * tlsneg_table_next the next one of the same walk, or 0. The caller checks
 * each against its key: the table is not to change during the walk (but
 * for tlsneg_table_set). */
uint32_t tlsneg_table_first(const tlsneg_table *t, uint64_t hash, tlsneg_table_iter *it);
uint32_t tlsneg_table_next(const tlsneg_table *t, tlsneg_table_iter *it);

/* tlsneg_table_set makes the entry the walk it stands at refer to ref. */
void tlsneg_table_set(tlsneg_table *t, const tlsneg_table_iter *it, uint32_t ref);

/* tlsneg_table_find returns the first record of hash that same(ctx, ref)
 * accepts, or 0. */
uint32_t tlsneg_table_find(const tlsneg_table *t, uint64_t hash,
                           bool (*same)(const void *ctx, uint32_t ref), const void *ctx);

/* tlsneg_table_add adds record ref (not 0) under hash, which the caller
 * knows is not there yet. It grows the table by half when it would be more
 * than three quarters full; out of memory it fills it further, but keeps one
 * entry empty, and returns false when ref could not be added. */
bool tlsneg_table_add(tlsneg_table *t, uint64_t hash, uint32_t ref);

/* tlsneg_table_remove removes the entry of record ref under hash, if there;
 * false when there was none. */
bool tlsneg_table_remove(tlsneg_table *t, uint64_t hash, uint32_t ref);

#endif
