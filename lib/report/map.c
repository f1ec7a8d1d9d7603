/* SPDX-License-Identifier: GPL-2.0-or-later */
/* map.c: the hash map of map.h; it doubles when half full. */
#include "report/map.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static uint64_t hash_of(const void *key, size_t key_len)
{
    return tlsneg_fnv64(TLSNEG_FNV64_BASIS, key, key_len);
}

/* find returns the slot of key, or the empty slot where it would go; NULL
 * while m has no slots. */
static tlsneg_map_slot *find(const tlsneg_map *m, const void *key, size_t key_len, uint64_t h)
{
    if (!m->cap) {
        return NULL;
    }
    for (size_t i = (size_t)h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        tlsneg_map_slot *s = &m->slots[i];
        if (!s->key) {
            return s;
        }
        if (s->hash == h && s->key_len == key_len && memcmp(s->key, key, key_len) == 0) {
            return s;
        }
    }
}

void *tlsneg_map_get(const tlsneg_map *m, const void *key, size_t key_len)
{
    const tlsneg_map_slot *s = find(m, key, key_len, hash_of(key, key_len));
    return s && s->key ? s->value : NULL;
}

static bool grow(tlsneg_map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    tlsneg_map_slot *slots = calloc(cap, sizeof *slots);
    if (!slots) {
        return false;
    }
    tlsneg_map old = *m;
    m->slots = slots;
    m->cap = cap;
    for (size_t i = 0; i < old.cap; i++) {
        if (old.slots[i].key) {
            *find(m, old.slots[i].key, old.slots[i].key_len, old.slots[i].hash) = old.slots[i];
        }
    }
    free(old.slots);
    return true;
}

bool tlsneg_map_put(tlsneg_map *m, const void *key, size_t key_len, void *value)
{
    if ((m->used + 1) * 2 > m->cap && !grow(m)) {
        return false;
    }
    uint64_t h = hash_of(key, key_len);
    tlsneg_map_slot *s = find(m, key, key_len, h);
    s->key = malloc(key_len ? key_len : 1);
    if (!s->key) {
        return false;
    }
    memcpy(s->key, key, key_len);
    s->key_len = key_len;
    s->hash = h;
    s->value = value;
    m->used++;
    return true;
}

void tlsneg_map_clear(tlsneg_map *m, void (*free_value)(void *))
{
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slots[i].key) {
            free(m->slots[i].key);
            if (free_value) {
                free_value(m->slots[i].value);
            }
        }
    }
    free(m->slots);
    m->slots = NULL;
    m->cap = m->used = 0;
}

void **tlsneg_map_values(const tlsneg_map *m)
{
    void **v = malloc((m->used ? m->used : 1) * sizeof *v);
    if (!v) {
        return NULL;
    }
    size_t n = 0;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slots[i].key) {
            v[n++] = m->slots[i].value;
        }
    }
    return v;
}
