/* SPDX-License-Identifier: GPL-2.0-or-later */
/* map.h: a hash map from byte strings to pointers (open addressing, FNV-1a),
 * for the writers' totals per server, per offer and per probe, and the
 * ladder's lanes and connections. A zeroed tlsneg_map is empty. */
#ifndef TLSNEG_MAP_H
#define TLSNEG_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *key; /* malloc'd, key_len bytes; NULL: an empty slot */
    size_t key_len;
    uint64_t hash;
    void *value;
} tlsneg_map_slot;

typedef struct {
    tlsneg_map_slot *slots; /* cap of them, used not empty */
    size_t cap, used;
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
