/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conntab.c: the front end's hash table of connections (conntab.h). */
#include "conntab.h"

#include <stdlib.h>

bool tlsneg_conntab_init(tlsneg_conntab *t, uint32_t max_buckets)
{
    t->max_buckets = max_buckets;
    t->nbuckets = max_buckets < 1024 ? max_buckets : 1024;
    t->count = 0;
    t->buckets = calloc(t->nbuckets, sizeof *t->buckets);
    return t->buckets != NULL;
}

void tlsneg_conntab_free(tlsneg_conntab *t)
{
    free(t->buckets);
    t->buckets = NULL;
    t->nbuckets = 0;
    t->count = 0;
}

/* grow doubles the buckets; the entries keep their order within a chain. */
static void grow(tlsneg_conntab *t)
{
    uint32_t nb = t->nbuckets * 2;
    tlsneg_conntab_node **b = calloc(nb, sizeof *b);
    if (!b) {
        return; /* longer chains, still right */
    }
    tlsneg_conntab_node **tail[2];
    for (uint32_t i = 0; i < t->nbuckets; i++) {
        /* bucket i splits into i and i + nbuckets */
        tail[0] = &b[i];
        tail[1] = &b[i + t->nbuckets];
        for (tlsneg_conntab_node *n = t->buckets[i], *next; n; n = next) {
            next = n->next;
            tlsneg_conntab_node ***to = &tail[(n->hash & t->nbuckets) ? 1 : 0];
            n->next = NULL;
            **to = n;
            *to = &n->next;
        }
    }
    free(t->buckets);
    t->buckets = b;
    t->nbuckets = nb;
}

void tlsneg_conntab_add(tlsneg_conntab *t, tlsneg_conntab_node *n, uint32_t hash)
{
    if (t->count >= t->nbuckets && t->nbuckets < t->max_buckets) {
        grow(t);
    }
    tlsneg_conntab_node **b = &t->buckets[hash & (t->nbuckets - 1)];
    n->hash = hash;
    n->next = *b;
    *b = n;
    t->count++;
}

void tlsneg_conntab_remove(tlsneg_conntab *t, tlsneg_conntab_node *n)
{
    tlsneg_conntab_node **pp = &t->buckets[n->hash & (t->nbuckets - 1)];
    while (*pp && *pp != n) {
        pp = &(*pp)->next;
    }
    if (*pp) {
        *pp = n->next;
        t->count--;
    }
}

void tlsneg_conntab_clear(tlsneg_conntab *t, void (*drop)(tlsneg_conntab_node *n))
{
    for (uint32_t i = 0; i < t->nbuckets; i++) {
        for (tlsneg_conntab_node *n = t->buckets[i], *next; n; n = next) {
            next = n->next;
            drop(n);
        }
        t->buckets[i] = NULL;
    }
    t->count = 0;
}
