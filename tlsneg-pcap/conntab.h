/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conntab.h: the front end's one hash table of connections, for the
 * packet path's flows (flows.c) and for what the analysis keeps per
 * connection (analysis.c). Intrusive: an entry embeds a tlsneg_conntab_node
 * and its 32-bit hash; the caller allocates entries, walks a hash's chain
 * and compares its own keys. Chained buckets, as many as entries (up to a
 * cap): they grow with the entries, each chain split in two in order,
 * since a table sized for its cap up front touched megabytes of pages at
 * random (4 MB of buckets for the flow table's default cap). A chain's
 * stored hashes are compared before the caller's key. Internal to
 * tlsneg-pcap. */
#ifndef TLSNEG_PCAP_CONNTAB_H
#define TLSNEG_PCAP_CONNTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tlsneg_conntab_node {
    struct tlsneg_conntab_node *next; /* in the chain of its bucket */
    uint32_t hash;
} tlsneg_conntab_node;

typedef struct {
    tlsneg_conntab_node **buckets;
    uint32_t nbuckets;    /* a power of two */
    uint32_t max_buckets; /* grown up to this as entries arrive */
    size_t count;         /* entries */
} tlsneg_conntab;

/* tlsneg_conntab_init makes an empty table of at most max_buckets buckets
 * (a power of two); false when out of memory. */
bool tlsneg_conntab_init(tlsneg_conntab *t, uint32_t max_buckets);

/* tlsneg_conntab_free frees the buckets (not the entries). */
void tlsneg_conntab_free(tlsneg_conntab *t);

/* tlsneg_conntab_chain: the first entry whose hash shares hash's bucket;
 * the others follow through next. Compare n->hash == hash, then the key. */
static inline tlsneg_conntab_node *tlsneg_conntab_chain(const tlsneg_conntab *t, uint32_t hash)
{
    return t->buckets[hash & (t->nbuckets - 1)];
}

/* tlsneg_conntab_add puts n, of hash, into t (first in its chain). */
void tlsneg_conntab_add(tlsneg_conntab *t, tlsneg_conntab_node *n, uint32_t hash);

/* tlsneg_conntab_remove takes n out of t. */
void tlsneg_conntab_remove(tlsneg_conntab *t, tlsneg_conntab_node *n);

/* tlsneg_conntab_clear takes every entry out of t, handing each to drop
 * (which may free it). */
void tlsneg_conntab_clear(tlsneg_conntab *t, void (*drop)(tlsneg_conntab_node *n));

#endif
