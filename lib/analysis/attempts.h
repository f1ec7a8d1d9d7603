/* SPDX-License-Identifier: GPL-2.0-or-later */
/* attempts.h: the tracker's store of attempts: a ring of packed attempts
 * (the oldest overwritten first once the cap is reached), grown by chunks
 * as attempts arrive, found by connection, by peer key, by client-server
 * pair and by session through four hash tables (core/table.h). Inside the
 * analysis only: the judging (judge.h) and probe detection (probe.c). */
#ifndef TLSNEG_ATTEMPTS_H
#define TLSNEG_ATTEMPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/offer.h"
#include "core/table.h"

#define TLSNEG_NO_SLOT UINT32_MAX

/* One attempt: 136 bytes. The offer is kept packed (tlsneg_attempt_offer
 * unpacks it). An attempt's id is not stored: the ring holds the last
 * `used` attempts in order from slot `next`, so a slot's position gives its
 * id (tlsneg_attempts_id). The probe state of a burst of hellos lives out
 * of line (probe.h), with the pair's latest attempt, once the burst has two
 * hellos or more. */
typedef struct {
    uint64_t conn;
    uint64_t key;          /* hash of the peer key */
    uint64_t pair;         /* hash of the client, the server's address and port, and the
                              transport (retry.c, pair_hash) */
    uint64_t hello_us;     /* of the ClientHello */
    uint32_t end_us;       /* the outcome's time after hello_us (before it if early), at most
                              UINT32_MAX (71 min): tlsneg_attempt_time */
    uint32_t session_id;   /* the offer's; once answered, the session's (in_session) or 0 */
    uint32_t frame;        /* the first ClientHello */
    uint32_t answer_frame; /* the ServerHello */
    uint32_t best_frame;   /* the highest ServerHello of this key so far */
    uint32_t best_fp;      /* fp_all of the offer answered with best_version */
    uint32_t prev_back;    /* this attempt's id minus that of the failed attempt it retries; 0:
                              none */
    uint32_t probe_rec;    /* the burst's probe record plus one; 0: none */
    uint32_t fail_frame;   /* the alert, reset or close that made it fail; 0: unknown */
    uint32_t pq_frame;     /* of this key: a ServerHello that chose a post-quantum group */
    uint32_t pq_fp;        /* fp_all of the offer it answered, mixed with the group chosen
                              (keyshare.c: pq_offer_fp) */
    uint32_t pq_s;         /* its time, in whole seconds (the window's guard) */
    /* The offer's fingerprints and drafts (tlsneg_offer). */
    uint32_t drafts, fp_suites, fp_suites_pre12, fp_groups, fp_sigalgs, fp_exts, fp_exts_pre12,
        fp_all;
    uint16_t offered_max;
    uint16_t version;       /* in force, once answered */
    uint16_t best_version;  /* of this key */
    uint16_t best_offer;    /* rank of the highest offer the server completed for this key */
    uint16_t probe_highest; /* the burst's highest offer when this hello came */
    uint16_t hello_length;  /* the offer's (tlsneg_offer) */
    uint16_t pq_group;      /* the offer's */
    uint16_t group_bits;    /* the offer's */
    uint8_t versions;       /* tlsneg_offer.versions */
    uint8_t alert;
    uint8_t accepted;    /* tlsneg_version_bit of every version the server put in force */
    uint8_t outcome : 4; /* tlsneg_cause, TLSNEG_SUCCESS or TLSNEG_COMPLETED */
    uint8_t tls13_extensions : 4;
    /* the offer's flags */
    uint8_t dtls : 1, datagram : 1, has_offered_max : 1, has_supported_versions : 1,
        offers_tls13 : 1, fallback_scsv : 1, has_fingerprint : 1;
    uint8_t has_best : 1;
    uint8_t same_retry : 1;      /* prev is a failed attempt with the same offer */
    uint8_t changed_retry : 1;   /* prev is a failed attempt with more than a lower version */
    uint8_t answer_sentinel : 1; /* its ServerHello carried a downgrade sentinel */
    uint8_t progress : 2;        /* 1: the client, 2: the server sent CCS or encrypted data */
    uint8_t in_session : 1;      /* session_id is in the session table */
    uint8_t probed : 1;          /* counted into a burst (probe.c) */
    uint8_t pq_listed_ok : 1;    /* of this key: the server completed a hello listing a
                                    post-quantum group, with or without its share */
    uint8_t hello_segments;      /* the offer's */
    uint8_t pq_offered : 1, pq_key_share : 1; /* the offer's */
    uint8_t kx_retry : 1;  /* prev is a failed attempt whose offer differs from this one only in
                              its key exchange or size (keyshare.c) */
    uint8_t best_fits : 1; /* the offer answered with best_version had no post-quantum share
                              and fit one segment (keyshare.c) */
    uint8_t pq_ok : 1;     /* of this key: the server completed a hello with a post-quantum
                              share, whatever group it chose */
    uint8_t split_ok : 1;  /* of this key: the server completed a split hello */
    uint8_t hrr : 1;       /* a HelloRetryRequest answered it: the server read it whole */
    uint8_t early : 1;     /* the server ended it before its ClientHello was complete */
} tlsneg_attempt;

/* tlsneg_attempt_time: the time of a's outcome, else of its ClientHello
 * (an outcome clamped at 71 minutes from it); tlsneg_attempt_set_time sets
 * the outcome's. An attempt the server ended before its ClientHello was
 * complete (early) ended before that hello: end_us counts back from it. */
static inline uint64_t tlsneg_attempt_time(const tlsneg_attempt *a)
{
    return a->early ? a->hello_us - a->end_us : a->hello_us + a->end_us;
}

static inline void tlsneg_attempt_set_time(tlsneg_attempt *a, uint64_t time_us)
{
    uint64_t d = a->early ? (time_us < a->hello_us ? a->hello_us - time_us : 0)
                          : (time_us > a->hello_us ? time_us - a->hello_us : 0);
    a->end_us = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

/* Outcomes beyond the failure causes (tlsneg_cause). */
#define TLSNEG_SUCCESS   0xf
#define TLSNEG_COMPLETED 0xe /* no ServerHello seen, but both sides went encrypted */

/* The tables attempts are found by. */
typedef enum {
    TLSNEG_BY_CONN,
    TLSNEG_BY_KEY,
    TLSNEG_BY_PAIR,
    TLSNEG_BY_SESSION,
    TLSNEG_BY_TABLES
} tlsneg_attempts_by;

/* The ring is allocated in chunks of 1 << TLSNEG_ATTEMPTS_CHUNK_BITS
 * attempts: it never moves and never holds more than one chunk unused. */
#define TLSNEG_ATTEMPTS_CHUNK_BITS 10

typedef struct {
    tlsneg_attempt **chunk;
    size_t chunks, chunks_alloc;
    size_t max;             /* the cap */
    size_t cap, used, next; /* next: the oldest attempt, where the next goes once full */
    uint64_t next_id;       /* ids of the attempts held: next_id - used + 1 to next_id */
    tlsneg_table by[TLSNEG_BY_TABLES];
} tlsneg_attempts;

/* tlsneg_attempts_init makes st an empty store of at most max attempts (1
 * or more); false when out of memory (st is then to be freed). */
bool tlsneg_attempts_init(tlsneg_attempts *st, uint32_t max);
void tlsneg_attempts_free(tlsneg_attempts *st);

/* Bytes the store uses now; bytes one attempt costs at most, with its
 * share of the tables (two entries in each: grown by half when three
 * quarters full). */
size_t tlsneg_attempts_bytes(const tlsneg_attempts *st);
size_t tlsneg_attempts_bytes_per_attempt(void);

static inline tlsneg_attempt *tlsneg_attempts_at(const tlsneg_attempts *st, uint32_t s)
{
    return &st->chunk[s >> TLSNEG_ATTEMPTS_CHUNK_BITS]
                     [s & ((1u << TLSNEG_ATTEMPTS_CHUNK_BITS) - 1)];
}

/* tlsneg_attempts_take returns the slot for a new attempt, zeroed, with the
 * next id: the oldest attempt's once the ring is full, which is forgotten
 * (out of the tables); *released is then the probe record it held (plus
 * one), for the caller to free, else 0. */
uint32_t tlsneg_attempts_take(tlsneg_attempts *st, uint32_t *released);

/* tlsneg_attempts_id: the id of the attempt in slot s (held). */
uint64_t tlsneg_attempts_id(const tlsneg_attempts *st, uint32_t s);

/* tlsneg_attempts_prev returns the slot of the failed attempt that the
 * attempt in slot s retries, if it is still held, or TLSNEG_NO_SLOT. */
uint32_t tlsneg_attempts_prev(const tlsneg_attempts *st, uint32_t s);

/* tlsneg_attempts_find returns the slot table `by` finds for key (a
 * connection, a peer key hash, a pair hash, tlsneg_attempts_session_key),
 * or TLSNEG_NO_SLOT; tlsneg_attempts_get the attempt there, or NULL. */
uint32_t tlsneg_attempts_find(const tlsneg_attempts *st, tlsneg_attempts_by by, uint64_t key);
tlsneg_attempt *tlsneg_attempts_get(const tlsneg_attempts *st, tlsneg_attempts_by by, uint64_t key);

/* tlsneg_attempts_index makes table `by` find the attempt in slot s for
 * key; tlsneg_attempts_unindex removes that entry if it is slot s's. */
void tlsneg_attempts_index(tlsneg_attempts *st, tlsneg_attempts_by by, uint64_t key, uint32_t s);
void tlsneg_attempts_unindex(tlsneg_attempts *st, tlsneg_attempts_by by, uint64_t key, uint32_t s);

/* tlsneg_attempts_session_key: the session table's key of session id for
 * attempt a's peer key. */
uint64_t tlsneg_attempts_session_key(const tlsneg_attempt *a, uint64_t session_id);

/* The offer of an attempt, packed and unpacked. */
void tlsneg_attempt_offer(const tlsneg_attempt *a, tlsneg_offer *o);
void tlsneg_attempt_set_offer(tlsneg_attempt *a, const tlsneg_offer *o);

#endif
