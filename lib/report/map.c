/* SPDX-License-Identifier: GPL-2.0-or-later */
/* map.c: the map of map.h on the one hash table (core/table.h). */
#include "report/map.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

typedef struct {
    const tlsneg_map *m;
    const void *key;
    size_t key_len;
    uint64_t hash;
} lookup;

static bool same_key(const void *ctx, uint32_t ref)
{
    const lookup *l = ctx;
    const tlsneg_map_entry *e = &l->m->entries[ref - 1];
    return e->hash == l->hash && e->key_len == l->key_len &&
           memcmp(e->key, l->key, l->key_len) == 0;
}

void *tlsneg_map_get(const tlsneg_map *m, const void *key, size_t key_len)
{
    if (!m->used) {
        return NULL;
    }
    lookup l = {m, key, key_len, tlsneg_hash_bytes(key, key_len)};
    uint32_t ref = tlsneg_table_find(&m->index, l.hash, same_key, &l);
    return ref ? m->entries[ref - 1].value : NULL;
}

bool tlsneg_map_put(tlsneg_map *m, const void *key, size_t key_len, void *value)
{
    if (m->used == UINT32_MAX - 1) {
        return false;
    }
    if (!m->index.e && !tlsneg_table_init(&m->index, TLSNEG_TABLE_MIN)) {
        return false;
    }
    if (m->used == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 32;
        tlsneg_map_entry *e = realloc(m->entries, cap * sizeof *e);
        if (!e) {
            return false;
        }
        m->entries = e;
        m->cap = cap;
    }
    tlsneg_map_entry *e = &m->entries[m->used];
    e->key = malloc(key_len ? key_len : 1);
    if (!e->key) {
        return false;
    }
    memcpy(e->key, key, key_len);
    e->key_len = key_len;
    e->hash = tlsneg_hash_bytes(key, key_len);
    e->value = value;
    if (!tlsneg_table_add(&m->index, e->hash, (uint32_t)(m->used + 1))) {
        free(e->key);
        return false;
    }
    m->used++;
    return true;
}

void tlsneg_map_clear(tlsneg_map *m, void (*free_value)(void *))
{
    for (size_t i = 0; i < m->used; i++) {
        free(m->entries[i].key);
        if (free_value) {
            free_value(m->entries[i].value);
        }
    }
    free(m->entries);
    tlsneg_table_free(&m->index);
    memset(m, 0, sizeof *m);
}

void **tlsneg_map_values(const tlsneg_map *m)
{
    void **v = malloc((m->used ? m->used : 1) * sizeof *v);
    if (!v) {
        return NULL;
    }
    for (size_t i = 0; i < m->used; i++) {
        v[i] = m->entries[i].value;
    }
    return v;
}
