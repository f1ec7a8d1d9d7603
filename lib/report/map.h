/* SPDX-License-Identifier: GPL-2.0-or-later */
/* map.h: a map from byte strings to pointers, for the writers' totals per
 * server, per offer and per probe, and the ladder's lanes and connections:
 * the entries in the order they were put, found through the one hash table
 * (core/table.h) by a hash of their key (tlsneg_hash_bytes). A zeroed tlsneg_map is empty. */
#ifndef TLSNEG_MAP_H
#define TLSNEG_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/table.h"

typedef struct {
    char *key; /* malloc'd, key_len bytes */
    size_t key_len;
    uint64_t hash;
    void *value;
} tlsneg_map_entry;

typedef struct {
    tlsneg_map_entry *entries; /* used of them, in the order they were put */
    size_t used, cap;
    tlsneg_table index; /* hash -> entry number plus one */
} tlsneg_map;

/* tlsneg_map_get returns the value of key, or NULL. */
void *tlsneg_map_get(const tlsneg_map *m, const void *key, size_t key_len);
/* tlsneg_map_put adds key (not there yet) with value; false when out of
 * memory. */
bool tlsneg_map_put(tlsneg_map *m, const void *key, size_t key_len, void *value);
/* tlsneg_map_clear empties m, calling free_value (if not NULL) on each
 * value. */
void tlsneg_map_clear(tlsneg_map *m, void (*free_value)(void *));
/* tlsneg_map_values returns the values in a new array of m->used, or NULL
 * when out of memory. */
void **tlsneg_map_values(const tlsneg_map *m);

#endif
