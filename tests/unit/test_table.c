/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_table.c: the one hash table (core/table.h) against a plain array:
 * records found by their hash and an equality test, tags that collide,
 * runs that wrap around the end, growth, and deletion that keeps every
 * probe chain whole. */
#include "core/table.h"
#include "core/util.h"

#include "tap.h"

#define RECORDS 5000

/* The caller's records: keys, numbered from 1. */
static uint64_t keys[RECORDS + 1];
static bool live[RECORDS + 1];

static bool same_key(const void *ctx, uint32_t ref)
{
    return keys[ref] == *(const uint64_t *)ctx;
}

/* lookup finds key's record by walking its candidates, as the tracker does. */
static uint32_t lookup(const tlsneg_table *t, uint64_t hash, uint64_t key)
{
    tlsneg_table_iter it;
    for (uint32_t r = tlsneg_table_first(t, hash, &it); r; r = tlsneg_table_next(t, &it)) {
        if (keys[r] == key) {
            return r;
        }
    }
    return 0;
}

/* chains_whole: every entry is reached from its home without crossing an
 * empty entry, and count is the number of entries in use. */
static bool chains_whole(const tlsneg_table *t)
{
    size_t used = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->e[i].ref == 0) {
            continue;
        }
        used++;
        size_t j = (size_t)(((uint64_t)t->e[i].tag * t->n) >> 32);
        for (; j != i; j = j + 1 == t->n ? 0 : j + 1) {
            if (t->e[j].ref == 0) {
                return false;
            }
        }
    }
    return used == t->count;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* churn adds and removes records at random under hash_of, checking after
 * every step that each live record is found and no removed one is. */
static bool churn(uint64_t (*hash_of)(uint64_t), uint32_t records, size_t steps, size_t *peak)
{
    tlsneg_table t;
    bool good = tlsneg_table_init(&t, 0);
    memset(live, 0, sizeof live);
    size_t n_live = 0;
    *peak = 0;
    for (size_t s = 0; s < steps && good; s++) {
        uint32_t r = (uint32_t)(next_random() % records) + 1;
        if (live[r]) {
            good = tlsneg_table_remove(&t, hash_of(keys[r]), r);
            live[r] = false;
            n_live--;
        } else {
            good = tlsneg_table_add(&t, hash_of(keys[r]), r);
            live[r] = true;
            n_live++;
        }
        *peak = n_live > *peak ? n_live : *peak;
        if (s % 97 == 0 || s + 1 == steps) {
            for (uint32_t k = 1; k <= records && good; k++) {
                good = lookup(&t, hash_of(keys[k]), keys[k]) == (live[k] ? k : 0);
            }
            good = good && chains_whole(&t) && t.count == n_live;
        }
    }
    tlsneg_table_free(&t);
    return good;
}

static uint64_t good_hash(uint64_t key)
{
    return tlsneg_hash_mix(0x2545f4914f6cdd1du, key);
}

/* Sixteen tags for all keys: long runs, every candidate a collision. */
static uint64_t sixteen_tags(uint64_t key)
{
    return (key & 15u) << 60;
}

/* Tags in the last quarter of the range: more entries than that quarter
 * holds, so that runs wrap from the last entry to the first. */
static uint64_t top_tags(uint64_t key)
{
    return (uint64_t)(0xffffffffu - ((uint32_t)key & 0xffu) * (1u << 22)) << 32;
}

int main(void)
{
    for (uint32_t k = 1; k <= RECORDS; k++) {
        keys[k] = next_random();
    }

    tlsneg_table t;
    ok(tlsneg_table_init(&t, 3) && t.n == TLSNEG_TABLE_MIN && t.count == 0 &&
           tlsneg_table_bytes(&t) == TLSNEG_TABLE_MIN * sizeof(tlsneg_table_entry),
       "a new table has at least %d entries of 8 bytes, none in use", TLSNEG_TABLE_MIN);
    ok(sizeof(tlsneg_table_entry) == 8, "an entry is 8 bytes: a tag and a record number");
    ok(lookup(&t, good_hash(keys[1]), keys[1]) == 0, "an empty table finds nothing");

    bool all = true, grew_by_half = true;
    size_t n_before = t.n;
    for (uint32_t k = 1; k <= 1000; k++) {
        all = all && tlsneg_table_add(&t, good_hash(keys[k]), k);
        if (t.n != n_before) {
            grew_by_half = grew_by_half && t.n == n_before + n_before / 2;
            n_before = t.n;
        }
        grew_by_half = grew_by_half && t.count * 4 <= t.n * 3;
    }
    ok(all && t.count == 1000, "1,000 records added");
    ok(grew_by_half, "it grows by half, never more than three quarters full (%zu entries)", t.n);
    bool found = true;
    for (uint32_t k = 1; k <= 1000; k++) {
        found = found && lookup(&t, good_hash(keys[k]), keys[k]) == k;
    }
    ok(found, "each is found by its hash and its key, after the growth");
    ok(lookup(&t, good_hash(keys[1001]), keys[1001]) == 0, "a key never added is not found");
    ok(tlsneg_table_find(&t, good_hash(keys[500]), same_key, &keys[500]) == 500,
       "tlsneg_table_find takes the equality test as a function");

    tlsneg_table_iter it;
    uint32_t r = tlsneg_table_first(&t, good_hash(keys[7]), &it);
    while (r && r != 7) {
        r = tlsneg_table_next(&t, &it);
    }
    tlsneg_table_set(&t, &it, 1001);
    keys[1001] = keys[7];
    ok(r == 7 && lookup(&t, good_hash(keys[7]), keys[7]) == 1001 && t.count == 1000,
       "tlsneg_table_set points an entry at another record in place");
    ok(tlsneg_table_remove(&t, good_hash(keys[7]), 1001) && !tlsneg_table_remove(&t, 7, 1001) &&
           t.count == 999 && lookup(&t, good_hash(keys[7]), keys[7]) == 0,
       "an entry is removed once; a second removal finds nothing");
    tlsneg_table_free(&t);
    keys[1001] = next_random();
    ok(t.e == NULL && t.n == 0 && t.count == 0, "a freed table holds nothing");
    tlsneg_table zero = {0};
    ok(lookup(&zero, good_hash(1), 1) == 0 && !tlsneg_table_remove(&zero, 1, 1),
       "a zeroed table finds and removes nothing");
    tlsneg_table_free(&zero);

    /* Records that share a tag: each found by its key among the others. */
    const uint64_t shared_hash = (uint64_t)42 << 32;
    tlsneg_table c;
    bool shared = tlsneg_table_init(&c, 0);
    for (uint32_t k = 1; k <= 40; k++) {
        shared = shared && tlsneg_table_add(&c, shared_hash, k);
    }
    for (uint32_t k = 1; k <= 40; k++) {
        shared = shared && lookup(&c, shared_hash, keys[k]) == k;
    }
    ok(shared, "forty records under one tag: each found by the caller's test");
    for (uint32_t k = 1; k <= 40; k += 2) {
        shared = shared && tlsneg_table_remove(&c, shared_hash, k);
    }
    for (uint32_t k = 1; k <= 40; k++) {
        shared = shared && lookup(&c, shared_hash, keys[k]) == (k % 2 ? 0 : k);
    }
    ok(shared && chains_whole(&c), "every other one removed: the rest still found");
    tlsneg_table_free(&c);

    size_t peak;
    bool churned = churn(good_hash, RECORDS, 60000, &peak);
    ok(churned,
       "60,000 random adds and removes: every live record found, "
       "no removed one (peak %zu)",
       peak);
    ok(churn(sixteen_tags, 400, 20000, &peak),
       "400 records, sixteen tags for all of them: long runs, deletion keeps them whole");
    ok(churn(top_tags, 400, 20000, &peak),
       "the same with runs that wrap from the last entry to the first");
    return tap_done();
}
