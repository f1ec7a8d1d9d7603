/* SPDX-License-Identifier: GPL-2.0-or-later */
/* groups.h: the one table of key exchange groups (IANA TLS Supported Groups
 * registry): a code point's name as the registry spells it, its class
 * (post-quantum hybrid, post-quantum, classical, FFDHE, GREASE) and, for the
 * post-quantum groups, the key_exchange length each side must send. Every
 * group name tlsneg prints comes from here. */
#ifndef TLSNEG_GROUPS_H
#define TLSNEG_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "versions.h"

#define TLSNEG_NG_X25519MLKEM768        0x11ec
#define TLSNEG_NG_SECP256R1MLKEM768     0x11eb
#define TLSNEG_NG_SECP384R1MLKEM1024    0x11ed
#define TLSNEG_NG_X25519KYBER768DRAFT00 0x6399
#define TLSNEG_NG_MLKEM768              0x0201
#define TLSNEG_NG_X25519                0x001d
#define TLSNEG_NG_SECP256R1             0x0017

typedef enum {
    TLSNEG_GCLASS_UNKNOWN = 0, /* not in the table */
    TLSNEG_GCLASS_CLASSICAL,   /* elliptic curves (RFC 8422, 8446, 8734, 9189, 8998) */
    TLSNEG_GCLASS_FFDHE,       /* finite-field groups (RFC 7919) */
    TLSNEG_GCLASS_PQ,          /* ML-KEM alone (draft-ietf-tls-mlkem) */
    TLSNEG_GCLASS_PQ_HYBRID, /* ECDHE combined with ML-KEM or Kyber (draft-ietf-tls-ecdhe-mlkem) */
    TLSNEG_GCLASS_GREASE,    /* RFC 8701 */
} tlsneg_gclass;

/* tlsneg_named_group_name returns g's name ("X25519MLKEM768", "x25519", "GREASE"),
 * or NULL for a code point the table lacks. */
const char *tlsneg_named_group_name(uint16_t g);

/* tlsneg_named_group_class returns g's class, by the ranges of the
 * registry, without a search: the checks, the offer and the facts ask it for
 * every group and share of every hello (20 times a connection on the bench
 * capture). test_facts checks it against the table (groups.c) for every
 * code point: a group has a class if and only if it has a row (or is
 * GREASE). */
static inline tlsneg_gclass tlsneg_named_group_class(uint16_t g)
{
    if ((g >= 0x0001 && g <= 0x0029) || g == 0xff01 || g == 0xff02) {
        return TLSNEG_GCLASS_CLASSICAL;
    }
    if (g >= 0x0100 && g <= 0x0104) {
        return TLSNEG_GCLASS_FFDHE;
    }
    if (g >= 0x0200 && g <= 0x0202) {
        return TLSNEG_GCLASS_PQ;
    }
    if ((g >= 0x11eb && g <= 0x11ed) || g == 0x6399 || g == 0x639a) {
        return TLSNEG_GCLASS_PQ_HYBRID;
    }
    return tlsneg_is_grease(g) ? TLSNEG_GCLASS_GREASE : TLSNEG_GCLASS_UNKNOWN;
}

/* tlsneg_gclass_name names a class ("post-quantum hybrid",
 * "post-quantum", "classical", "FFDHE", "GREASE", "unknown"). */
const char *tlsneg_gclass_name(tlsneg_gclass c);

/* tlsneg_named_group_is_pq: a post-quantum or post-quantum hybrid group. */
static inline bool tlsneg_named_group_is_pq(uint16_t g)
{
    tlsneg_gclass c = tlsneg_named_group_class(g);
    return c == TLSNEG_GCLASS_PQ || c == TLSNEG_GCLASS_PQ_HYBRID;
}

/* tlsneg_named_group_share_length returns the key_exchange length a client
 * (from_client) or a server must send for g, for the post-quantum and hybrid
 * groups whose drafts fix it; 0 where the table does not say. */
unsigned tlsneg_named_group_share_length(uint16_t g, bool from_client);

/* tlsneg_named_group_bit returns g's bit in a 16-bit set of the groups
 * clients offer today (x25519, x448, secp256r1/384r1/521r1, the five FFDHE
 * groups, MLKEM768/1024, the three ML-KEM hybrids, X25519Kyber768Draft00),
 * or 0 for any other group: a set of these bits can say a group was in a
 * list, never that one was absent unless its bit exists. */
uint16_t tlsneg_named_group_bit(uint16_t g);

/* tlsneg_named_group_text returns g's name, or, for a code point the table
 * lacks, writes prefix and the code point ("0x1234") into buf and returns
 * buf: the short form for sentences and ladder rungs. */
const char *tlsneg_named_group_text(uint16_t g, const char *prefix, char *buf, size_t buf_len);

/* Longest text tlsneg_named_group_describe writes, with its NUL. */
#define TLSNEG_NAMED_GROUP_TEXT_MAX 64

/* tlsneg_named_group_describe writes "X25519MLKEM768 (0x11ec, post-quantum
 * hybrid)", or "unknown (0x1234)", into buf and returns buf. */
const char *tlsneg_named_group_describe(uint16_t g, char *buf, size_t buf_len);

#endif
