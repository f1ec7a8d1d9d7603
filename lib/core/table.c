/* SPDX-License-Identifier: GPL-2.0-or-later */
/* table.c: the open-addressing hash table of table.h. An entry's home is
 * its tag scaled to the table's size (the multiply-shift range reduction),
 * so that the tag alone places it again when the table grows. */
#include "core/table.h"

#include <stdlib.h>

/* home: where an entry with tag starts in a table of n entries. */
static size_t home(uint32_t tag, size_t n)
{
    /* (tag * n) >> 32 without overflow for any n */
    return (size_t)((uint64_t)tag * (n >> 32) + (((uint64_t)tag * (n & 0xffffffffu)) >> 32));
}

static size_t step(const tlsneg_table *t, size_t i)
{
    return i + 1 == t->n ? 0 : i + 1;
}

static uint32_t tag_of(uint64_t hash)
{
    return (uint32_t)(hash >> 32);
}

/* place puts an entry known to be new into t (room assumed). */
static void place(tlsneg_table *t, uint32_t tag, uint32_t ref)
{
    size_t i = home(tag, t->n);
    while (t->e[i].ref != 0) {
        i = step(t, i);
    }
    t->e[i].tag = tag;
    t->e[i].ref = ref;
    t->count++;
}

static bool resize(tlsneg_table *t, size_t n)
{
    tlsneg_table_entry *e = calloc(n, sizeof *e);
    if (!e) {
        return false;
    }
    tlsneg_table old = *t;
    t->e = e;
    t->n = n;
    t->count = 0;
    for (size_t i = 0; i < old.n; i++) {
        if (old.e[i].ref != 0) {
            place(t, old.e[i].tag, old.e[i].ref);
        }
    }
    free(old.e);
    return true;
}

bool tlsneg_table_init(tlsneg_table *t, size_t n)
{
    t->e = NULL;
    t->n = t->count = 0;
    return resize(t, n < TLSNEG_TABLE_MIN ? TLSNEG_TABLE_MIN : n);
}

void tlsneg_table_free(tlsneg_table *t)
{
    free(t->e);
    t->e = NULL;
    t->n = t->count = 0;
}

size_t tlsneg_table_bytes(const tlsneg_table *t)
{
    return t->n * sizeof(tlsneg_table_entry);
}

/* scan returns the record of the first entry from it->i on whose tag
 * matches, leaving it->i there, or 0 at the first empty entry. */
static uint32_t scan(const tlsneg_table *t, tlsneg_table_iter *it)
{
    for (;; it->i = step(t, it->i)) {
        const tlsneg_table_entry *e = &t->e[it->i];
        if (e->ref == 0) {
            return 0;
        }
        if (e->tag == it->tag) {
            return e->ref;
        }
    }
}

uint32_t tlsneg_table_first(const tlsneg_table *t, uint64_t hash, tlsneg_table_iter *it)
{
    it->tag = tag_of(hash);
    if (!t->n) {
        it->i = 0;
        return 0;
    }
    it->i = home(it->tag, t->n);
    return scan(t, it);
}

uint32_t tlsneg_table_next(const tlsneg_table *t, tlsneg_table_iter *it)
{
    if (!t->n || t->e[it->i].ref == 0) {
        return 0;
    }
    it->i = step(t, it->i);
    return scan(t, it);
}

void tlsneg_table_set(tlsneg_table *t, const tlsneg_table_iter *it, uint32_t ref)
{
    t->e[it->i].ref = ref;
}

uint32_t tlsneg_table_find(const tlsneg_table *t, uint64_t hash,
                           bool (*same)(const void *ctx, uint32_t ref), const void *ctx)
{
    tlsneg_table_iter it;
    for (uint32_t r = tlsneg_table_first(t, hash, &it); r; r = tlsneg_table_next(t, &it)) {
        if (same(ctx, r)) {
            return r;
        }
    }
    return 0;
}

bool tlsneg_table_add(tlsneg_table *t, uint64_t hash, uint32_t ref)
{
    if ((t->count + 1) * 4 > t->n * 3 && !resize(t, t->n + t->n / 2) && t->count + 1 >= t->n) {
        return false;
    }
    place(t, tag_of(hash), ref);
    return true;
}

bool tlsneg_table_remove(tlsneg_table *t, uint64_t hash, uint32_t ref)
{
    if (!t->n) {
        return false;
    }
    uint32_t tag = tag_of(hash);
    size_t i = home(tag, t->n);
    while (t->e[i].ref != ref || t->e[i].tag != tag) {
        if (t->e[i].ref == 0) {
            return false;
        }
        i = step(t, i);
    }
    /* Backward shift: move the later entries of the run whose home is not
     * between the hole and them into the hole. */
    for (size_t j = step(t, i); t->e[j].ref != 0; j = step(t, j)) {
        size_t h = home(t->e[j].tag, t->n);
        bool movable = i <= j ? (h <= i || h > j) : (h <= i && h > j);
        if (movable) {
            t->e[i] = t->e[j];
            i = j;
        }
    }
    t->e[i].ref = 0;
    t->count--;
    return true;
}
