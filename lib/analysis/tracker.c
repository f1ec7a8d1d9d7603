/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracker.c: attempts in a ring (oldest overwritten first), found by
 * connection, by peer key, by client-server pair and by session through
 * four hash maps of compact entries. */
#include "analysis/tracker.h"

#include "analysis/checks.h"
#include "core/versions.h"
#include "core/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* One attempt: 120 bytes. The offer is kept packed (offer_get unpacks it).
 * An attempt's id is not stored: the ring holds the last `used` attempts in
 * order from slot `next`, so a slot's position gives its id (id_of). The
 * probe state of a burst of hellos lives out of line (probe_rec), with the
 * pair's latest attempt, once the burst has two hellos or more: a burst of
 * one hello is read off its attempt (probe_get). */
typedef struct {
    uint64_t conn;
    uint64_t key;          /* hash of the peer key */
    uint64_t pair;         /* hash of the client and the server's address and port */
    uint64_t time_us;      /* of the ClientHello, then of the outcome */
    uint64_t hello_us;     /* of the ClientHello */
    uint64_t session_id;   /* the offer's; once answered, the session's (in_session) or 0 */
    uint32_t frame;        /* the first ClientHello */
    uint32_t answer_frame; /* the ServerHello */
    uint32_t best_frame;   /* the highest ServerHello of this key so far */
    uint32_t best_fp;      /* fp_all of the offer answered with best_version */
    uint32_t prev_back;    /* this attempt's id minus that of the failed attempt it retries; 0:
                              none */
    uint32_t probe_rec;    /* the burst's probe record plus one; 0: none */
    /* The offer's fingerprints and drafts (tlsneg_offer). */
    uint32_t drafts, fp_suites, fp_suites_pre12, fp_groups, fp_sigalgs, fp_exts, fp_exts_pre12,
        fp_all;
    uint16_t offered_max;
    uint16_t version;       /* in force, once answered */
    uint16_t best_version;  /* of this key */
    uint16_t best_offer;    /* rank of the highest offer the server completed for this key */
    uint16_t probe_highest; /* the burst's highest offer when this hello came */
    uint8_t versions;       /* tlsneg_offer.versions */
    uint8_t alert;
    uint8_t accepted;    /* tlsneg_version_bit of every version the server put in force */
    uint8_t outcome : 4; /* tlsneg_cause, SUCCESS or COMPLETED */
    uint8_t tls13_extensions : 4;
    /* the offer's flags */
    uint8_t dtls : 1, datagram : 1, has_offered_max : 1, has_supported_versions : 1,
        offers_tls13 : 1, fallback_scsv : 1, has_fingerprint : 1;
    uint8_t has_best : 1;
    uint8_t same_retry : 1;      /* prev is a failed attempt with the same offer */
    uint8_t changed_retry : 1;   /* prev is a failed attempt with more than a lower version */
    uint8_t answer_sentinel : 1; /* its ServerHello carried a downgrade sentinel */
    uint8_t progress : 2;        /* 1: the client, 2: the server sent CCS or encrypted data */
    uint8_t in_session : 1;      /* session_id is in by_session */
    uint8_t probed : 1;          /* counted into a burst (probe_step) */
} attempt;

/* The probe state of a burst of two hellos or more, held by the pair's
 * latest attempt. */
typedef struct {
    tlsneg_probe probe;
    uint32_t seen[4]; /* the last distinct offers of the burst (fp_all, SCSV folded in) */
    uint16_t variations;
    bool recognised;
    uint32_t next_free; /* in the free list: the next free record plus one */
} probe_rec;

#define SUCCESS   0xf
#define COMPLETED 0xe /* no ServerHello seen, but both sides went encrypted */
_Static_assert(TLSNEG_CAUSE_CLIENT_ABORT < COMPLETED, "outcomes fit in 4 bits");
_Static_assert(sizeof(attempt) <= 120, "an attempt stays at 120 bytes (docs/performance.md)");

static void offer_get(const attempt *a, tlsneg_offer *o)
{
    memset(o, 0, sizeof *o);
    o->dtls = a->dtls;
    o->datagram = a->datagram;
    o->has_offered_max = a->has_offered_max;
    o->offered_max = a->offered_max;
    o->has_supported_versions = a->has_supported_versions;
    o->offers_tls13 = a->offers_tls13;
    o->tls13_extensions = a->tls13_extensions;
    o->fallback_scsv = a->fallback_scsv;
    o->session_id = a->session_id;
    o->versions = a->versions;
    o->drafts = a->drafts;
    o->has_fingerprint = a->has_fingerprint;
    o->fp_suites = a->fp_suites;
    o->fp_suites_pre12 = a->fp_suites_pre12;
    o->fp_groups = a->fp_groups;
    o->fp_sigalgs = a->fp_sigalgs;
    o->fp_exts = a->fp_exts;
    o->fp_exts_pre12 = a->fp_exts_pre12;
    o->fp_all = a->fp_all;
}

static void offer_set(attempt *a, const tlsneg_offer *o)
{
    a->dtls = o->dtls;
    a->datagram = o->datagram;
    a->has_offered_max = o->has_offered_max;
    a->offered_max = o->offered_max;
    a->has_supported_versions = o->has_supported_versions;
    a->offers_tls13 = o->offers_tls13;
    a->tls13_extensions = o->tls13_extensions & 0xfu;
    a->fallback_scsv = o->fallback_scsv;
    a->session_id = o->session_id;
    a->versions = o->versions;
    a->drafts = o->drafts;
    a->has_fingerprint = o->has_fingerprint;
    a->fp_suites = o->fp_suites;
    a->fp_suites_pre12 = o->fp_suites_pre12;
    a->fp_groups = o->fp_groups;
    a->fp_sigalgs = o->fp_sigalgs;
    a->fp_exts = o->fp_exts;
    a->fp_exts_pre12 = o->fp_exts_pre12;
    a->fp_all = o->fp_all;
}

/* What the tracker found about the frame in hand, before it becomes a list
 * of verdicts (emit). */
/* What the tracker knows about the frame in hand. */
typedef struct {
    /* ClientHello: a fallback retry of the failed attempt in prev_frame
     * (lower versions, nothing else changed), or (same_retry) a retry of
     * the same offer: no fallback. A lower retry that changed more is
     * neither; its success is judged as failure_other_cause. */
    bool fallback;
    bool same_retry;
    uint32_t prev_frame;
    bool has_from, has_to;
    uint16_t from, to; /* highest versions offered before and now */
    uint8_t cause;     /* tlsneg_cause of the previous attempt */
    uint8_t cause_alert;
    bool scsv;
    const char *less; /* how the retry offers less, in words */
    /* The chain this attempt belongs to, oldest first, this one last. */
    uint8_t chain_len;
    uint32_t chain_frames[TLSNEG_CHAIN_MAX];
    uint16_t chain_versions[TLSNEG_CHAIN_MAX]; /* highest offered; 0 unknown */
    uint8_t chain_scsv, chain_same;            /* bit i: attempt i had SCSV, repeated its offer */
    bool chain_dtls;

    /* ServerHello completing a retry: the server failed the higher offers
     * of the chain and accepted this one. */
    bool intolerant;
    char intolerant_of[TLSNEG_INTOLERANT_MAX];
    /* ServerHello completing a fallback retry whose failed attempt (in
     * failed_frame) differed in more than versions: not intolerance. */
    bool other_cause;
    uint32_t failed_frame;
    char changed[TLSNEG_INTOLERANT_MAX]; /* what else changed, in words */

    /* Alert from the server: a retry of the chain was refused with
     * protocol_version too: no common version. */
    bool retry_refused;

    /* Alert from the client after the ServerHello in answer_frame. */
    bool client_abort;
    uint32_t answer_frame;
    bool caught_sentinel; /* the ServerHello had a sentinel and the client offered TLS 1.3 */

    /* ClientHello or alert within a recognised probe (probe_new: the hello
     * that made it recognised). Fallbacks and intolerance are not judged in
     * a probe. */
    bool probe;
    bool probe_new;
    tlsneg_probe probe_info;

    /* Alert inappropriate_fallback answering a fallback retry. */
    bool fallback_rejected;

    /* ServerHello lower than one this server gave this client before,
     * although the client still offers the higher version. */
    bool inconsistent;
    uint32_t higher_frame;
    uint16_t higher_version;

    /* ServerHello answering a hello marked with TLS_FALLBACK_SCSV below a
     * version this server put in force for this client before. */
    bool ignored_scsv;
    uint32_t ignored_frame;
    uint16_t ignored_version;

    /* ServerHello resuming a session made at another version. */
    bool resumption_change;
    uint32_t session_frame;
    uint16_t session_version;
} cross;

/* Maps from keys to ring slots: open addressing with linear probing over
 * 8-byte entries, deletion by backward shift (no tombstones). An entry
 * holds the high half of the mixed key as its tag, which also places it;
 * a tag that matches is verified against the attempt in the slot (map_get),
 * so that the maps hold no keys. Each map grows by half when three
 * quarters full, by its own count: a map that few attempts use (sessions)
 * stays small. */
typedef struct {
    uint32_t tag;
    uint32_t slot1; /* the slot plus one; 0: empty, so that calloc'd maps
                     * need no pass to mark them empty */
} entry;

typedef struct {
    entry *e;
    size_t n;     /* entries */
    size_t count; /* used */
} map;

enum { BY_CONN, BY_KEY, BY_PAIR, BY_SESSION, MAPS };

/* The ring is allocated in chunks of CHUNK attempts, as attempts arrive:
 * it never moves and never holds more than one chunk unused. */
#define CHUNK_BITS 10
#define CHUNK      ((size_t)1 << CHUNK_BITS)
#define MAP_MIN    16

struct tlsneg_tracker {
    tlsneg_tracker_config cfg;
    attempt **chunk;
    size_t chunks, chunks_alloc;
    size_t cap, used, next; /* next: the oldest attempt, where the next goes once full */
    uint64_t next_id;       /* ids of the attempts held: next_id - used + 1 to next_id */
    map maps[MAPS];
    probe_rec *recs;
    size_t recs_alloc, recs_used;
    uint32_t recs_free; /* the first free record plus one */
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdu;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53u;
    return x ^ (x >> 33);
}

static inline attempt *at(const tlsneg_tracker *t, uint32_t s)
{
    return &t->chunk[s >> CHUNK_BITS][s & (CHUNK - 1)];
}

/* id_of: the id of the attempt in slot s (held). */
static uint64_t id_of(const tlsneg_tracker *t, uint32_t s)
{
    return t->next_id - t->used + 1 + (s + t->cap - t->next) % t->cap;
}

/* live_prev returns the slot of the failed attempt that the attempt in slot
 * s retries, if it is still held, or NONE. */
static uint32_t live_prev(const tlsneg_tracker *t, uint32_t s)
{
    uint32_t back = at(t, s)->prev_back;
    if (!back) {
        return NONE;
    }
    uint64_t id = id_of(t, s) - back, oldest = t->next_id - t->used + 1;
    if (id < oldest) {
        return NONE;
    }
    return (uint32_t)((t->next + (id - oldest)) % t->cap);
}

/* home: where an entry with tag starts in a map of n entries. */
static inline size_t home(uint32_t tag, size_t n)
{
    /* (tag * n) >> 32 without overflow for any n */
    return (size_t)((uint64_t)tag * (n >> 32) + (((uint64_t)tag * (n & 0xffffffffu)) >> 32));
}

static uint64_t session_key(const attempt *a, uint64_t session_id)
{
    return mix(a->key ^ mix(session_id));
}

/* matches: the attempt in slot s is the one map k finds for key. */
static bool matches(const tlsneg_tracker *t, int k, uint32_t s, uint64_t key)
{
    const attempt *a = at(t, s);
    switch (k) {
    case BY_CONN:
        return a->conn == key;
    case BY_PAIR:
        return a->pair == key;
    case BY_KEY:
        return a->key == key;
    default:
        return a->in_session && session_key(a, a->session_id) == key;
    }
}

static uint32_t map_get(const tlsneg_tracker *t, int k, uint64_t key)
{
    const map *m = &t->maps[k];
    uint64_t h = mix(key);
    uint32_t tag = (uint32_t)(h >> 32);
    for (size_t i = home(tag, m->n);; i = i + 1 == m->n ? 0 : i + 1) {
        const entry *e = &m->e[i];
        if (e->slot1 == 0) {
            return NONE;
        }
        if (e->tag == tag && matches(t, k, e->slot1 - 1, key)) {
            return e->slot1 - 1;
        }
    }
}

/* map_place puts an entry known to be new into m (room assumed). */
static void map_place(map *m, uint32_t tag, uint32_t slot1)
{
    size_t i = home(tag, m->n);
    while (m->e[i].slot1 != 0) {
        i = i + 1 == m->n ? 0 : i + 1;
    }
    m->e[i].tag = tag;
    m->e[i].slot1 = slot1;
    m->count++;
}

static bool map_resize(map *m, size_t n)
{
    entry *e = calloc(n, sizeof *e);
    if (!e) {
        return false;
    }
    map old = *m;
    m->e = e;
    m->n = n;
    m->count = 0;
    for (size_t i = 0; i < old.n; i++) {
        if (old.e[i].slot1 != 0) {
            map_place(m, old.e[i].tag, old.e[i].slot1);
        }
    }
    free(old.e);
    return true;
}

/* map_put makes map k find the attempt in slot s for key. Out of memory,
 * a full map is not grown, only filled further: it keeps one entry empty. */
static void map_put(tlsneg_tracker *t, int k, uint64_t key, uint32_t s)
{
    map *m = &t->maps[k];
    uint64_t h = mix(key);
    uint32_t tag = (uint32_t)(h >> 32);
    for (size_t i = home(tag, m->n);; i = i + 1 == m->n ? 0 : i + 1) {
        entry *e = &m->e[i];
        if (e->slot1 == 0) {
            break;
        }
        if (e->tag == tag && matches(t, k, e->slot1 - 1, key)) {
            e->slot1 = s + 1;
            return;
        }
    }
    if ((m->count + 1) * 4 > m->n * 3 && !map_resize(m, m->n + m->n / 2) && m->count + 1 >= m->n) {
        return;
    }
    map_place(m, tag, s + 1);
}

/* map_del removes the entry of map k for key if it is slot s's. */
static void map_del(tlsneg_tracker *t, int k, uint64_t key, uint32_t s)
{
    map *m = &t->maps[k];
    uint32_t tag = (uint32_t)(mix(key) >> 32);
    size_t i = home(tag, m->n);
    while (m->e[i].slot1 != s + 1 || m->e[i].tag != tag) {
        if (m->e[i].slot1 == 0) {
            return;
        }
        i = i + 1 == m->n ? 0 : i + 1;
    }
    /* Backward shift: move later entries of the run into the hole. */
    for (size_t j = i + 1 == m->n ? 0 : i + 1; m->e[j].slot1 != 0; j = j + 1 == m->n ? 0 : j + 1) {
        size_t h = home(m->e[j].tag, m->n);
        bool movable = i <= j ? (h <= i || h > j) : (h <= i && h > j);
        if (movable) {
            m->e[i] = m->e[j];
            i = j;
        }
    }
    m->e[i].slot1 = 0;
    m->count--;
}

/* grow adds a chunk to the ring (the last one only as large as the cap
 * leaves). */
static bool grow(tlsneg_tracker *t)
{
    size_t n = t->cfg.max_attempts - t->cap;
    if (n > CHUNK) {
        n = CHUNK;
    }
    if (t->chunks == t->chunks_alloc) {
        size_t want = t->chunks_alloc ? t->chunks_alloc * 2 : 8;
        attempt **c = realloc(t->chunk, want * sizeof *c);
        if (!c) {
            return false;
        }
        t->chunk = c;
        t->chunks_alloc = want;
    }
    attempt *c = malloc(n * sizeof *c);
    if (!c) {
        return false;
    }
    t->chunk[t->chunks++] = c;
    t->cap += n;
    return true;
}

tlsneg_tracker *tlsneg_tracker_new(const tlsneg_tracker_config *cfg)
{
    tlsneg_tracker *t = calloc(1, sizeof *t);
    if (!t) {
        return NULL;
    }
    t->cfg = *cfg;
    if (t->cfg.max_attempts < 1) {
        t->cfg.max_attempts = 1;
    }
    for (int k = 0; k < MAPS; k++) {
        if (!map_resize(&t->maps[k], MAP_MIN)) {
            tlsneg_tracker_free(t);
            return NULL;
        }
    }
    if (!grow(t)) {
        tlsneg_tracker_free(t);
        return NULL;
    }
    return t;
}

void tlsneg_tracker_free(tlsneg_tracker *t)
{
    if (t) {
        for (size_t c = 0; c < t->chunks; c++) {
            free(t->chunk[c]);
        }
        free(t->chunk);
        for (int k = 0; k < MAPS; k++) {
            free(t->maps[k].e);
        }
        free(t->recs);
        free(t);
    }
}

size_t tlsneg_tracker_attempts(const tlsneg_tracker *t)
{
    return t->used;
}

size_t tlsneg_tracker_bytes_per_attempt(void)
{
    /* The attempt and its chunk pointer's share, a probe record (at most
     * one per attempt), and in each of four maps up to two entries per
     * attempt (grown by half when three quarters full). */
    return sizeof(attempt) + sizeof(probe_rec) + MAPS * 2 * sizeof(entry) + 1;
}

size_t tlsneg_tracker_bytes(const tlsneg_tracker *t)
{
    size_t b = sizeof *t + t->chunks_alloc * sizeof *t->chunk + t->cap * sizeof(attempt) +
               t->recs_alloc * sizeof(probe_rec);
    for (int k = 0; k < MAPS; k++) {
        b += t->maps[k].n * sizeof(entry);
    }
    return b;
}

static uint64_t key_hash(const tlsneg_tracker *t, const tlsneg_peer_key *k)
{
    uint64_t h = TLSNEG_FNV64_BASIS;
    uint8_t lens[2] = {(uint8_t)k->client_len, (uint8_t)k->server_len};
    h = tlsneg_fnv64(h, lens, 2);
    h = tlsneg_fnv64(h, k->client, k->client_len);
    h = tlsneg_fnv64(h, k->server, k->server_len);
    h = tlsneg_fnv64(h, &k->server_port, sizeof k->server_port);
    if (t->cfg.key_includes_sni && k->sni) {
        h = tlsneg_fnv64(h, k->sni, strlen(k->sni) + 1);
    }
    return h;
}

/* pair_hash: the client and the server's address and port, whatever the
 * SNI: a scanner may send it in some hellos and not in others. */
static uint64_t pair_hash(const tlsneg_peer_key *k)
{
    uint64_t h = TLSNEG_FNV64_BASIS;
    uint8_t lens[2] = {(uint8_t)k->client_len, (uint8_t)k->server_len};
    h = tlsneg_fnv64(h, lens, 2);
    h = tlsneg_fnv64(h, k->client, k->client_len);
    h = tlsneg_fnv64(h, k->server, k->server_len);
    return tlsneg_fnv64(h, &k->server_port, sizeof k->server_port);
}

/* rec_new returns a free probe record plus one, or 0 when out of memory;
 * at most one per attempt is in use. */
static uint32_t rec_new(tlsneg_tracker *t)
{
    if (t->recs_free) {
        uint32_t r = t->recs_free;
        t->recs_free = t->recs[r - 1].next_free;
        return r;
    }
    if (t->recs_used == t->recs_alloc) {
        size_t want = t->recs_alloc ? t->recs_alloc + t->recs_alloc / 2 : 16;
        if (want > t->cfg.max_attempts) {
            want = t->cfg.max_attempts;
        }
        if (want <= t->recs_alloc) {
            return 0;
        }
        probe_rec *r = realloc(t->recs, want * sizeof *r);
        if (!r) {
            return 0;
        }
        t->recs = r;
        t->recs_alloc = want;
    }
    return (uint32_t)++t->recs_used;
}

static void rec_free(tlsneg_tracker *t, attempt *a)
{
    if (a->probe_rec) {
        t->recs[a->probe_rec - 1].next_free = t->recs_free;
        t->recs_free = a->probe_rec;
        a->probe_rec = 0;
    }
}

/* forget removes the attempt in slot s from the maps (and its probe record:
 * only a pair's latest attempt holds one). */
static void forget(tlsneg_tracker *t, uint32_t s)
{
    attempt *a = at(t, s);
    map_del(t, BY_CONN, a->conn, s);
    map_del(t, BY_KEY, a->key, s);
    map_del(t, BY_PAIR, a->pair, s);
    if (a->in_session) {
        map_del(t, BY_SESSION, session_key(a, a->session_id), s);
        a->in_session = 0;
    }
    rec_free(t, a);
}

static attempt *by_conn(tlsneg_tracker *t, uint64_t conn)
{
    uint32_t s = map_get(t, BY_CONN, conn);
    return s == NONE ? NULL : at(t, s);
}

/* new_slot returns the slot for a new attempt, the oldest forgotten once
 * the ring is full, and gives it the next id. The ring grows only while
 * it is in order (next at 0), so that slots stay in id order from next. */
static uint32_t new_slot(tlsneg_tracker *t)
{
    if (t->used == t->cap && t->next == 0 && t->cap < t->cfg.max_attempts && grow(t)) {
        /* grown: room at the end */
    }
    uint32_t s;
    if (t->used < t->cap) {
        s = (uint32_t)t->used++;
    } else {
        s = (uint32_t)t->next;
        t->next = (t->next + 1) % t->cap;
        forget(t, s);
    }
    t->next_id++;
    return s;
}
static unsigned rank(const tlsneg_offer *o, uint16_t v)
{
    return tlsneg_version_rank(v, o->dtls);
}

static unsigned offer_rank(const tlsneg_offer *o)
{
    return o->has_offered_max ? rank(o, o->offered_max) : 0;
}

static bool failed(const attempt *a)
{
    return a->outcome != SUCCESS && a->outcome != COMPLETED &&
           (a->outcome != TLSNEG_CAUSE_NONE || a->datagram);
}

static uint8_t bit_of(const tlsneg_offer *o, uint16_t v)
{
    return tlsneg_version_bit(v, o->dtls);
}

/* offered_by: f offered v (an offer built without versions offers all). */
static bool offered_by(const tlsneg_offer *f, uint16_t v)
{
    if (f->drafts && tlsneg_draft_bit(v)) {
        return (f->drafts & tlsneg_draft_bit(v)) != 0;
    }
    return !f->versions || (f->versions & bit_of(f, v));
}

/* changed_more names what else than the version signals differs between the
 * failed offer f and the retry r, or returns NULL. Below TLS 1.2 a client
 * drops the suites and the extension that need TLS 1.2; SSL 3.0 hellos often
 * carry no extensions at all. */
static const char *changed_more(const tlsneg_offer *f, const tlsneg_offer *r, char *buf, size_t len)
{
    if (!f->has_fingerprint || !r->has_fingerprint) {
        return NULL;
    }
    unsigned low = offer_rank(f) < offer_rank(r) ? offer_rank(f) : offer_rank(r);
    bool pre12 = !f->dtls && low < rank(f, TLSNEG_V_TLS12);
    bool ssl3 = !f->dtls && low <= rank(f, TLSNEG_V_SSL3);
    const char *what[4];
    size_t n = 0;
    if (pre12 ? f->fp_suites_pre12 != r->fp_suites_pre12 : f->fp_suites != r->fp_suites) {
        what[n++] = "cipher suites";
    }
    if (!ssl3 && f->fp_groups != r->fp_groups) {
        what[n++] = "supported_groups";
    }
    if (!pre12 && f->fp_sigalgs != r->fp_sigalgs) {
        what[n++] = "signature_algorithms";
    }
    if (!ssl3 && (pre12 ? f->fp_exts_pre12 != r->fp_exts_pre12 : f->fp_exts != r->fp_exts)) {
        what[n++] = "other extensions";
    }
    if (!n) {
        return NULL;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", what[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

/* same_offer: the same versions and, as far as known, the same hello. */
static bool same_offer(const tlsneg_offer *a, const tlsneg_offer *b)
{
    return a->has_offered_max == b->has_offered_max && a->offered_max == b->offered_max &&
           a->has_supported_versions == b->has_supported_versions && a->versions == b->versions &&
           (!a->has_fingerprint || !b->has_fingerprint || a->fp_all == b->fp_all);
}

/* offers_less says how b offers less than a, or returns NULL. */
static const char *offers_less(const tlsneg_offer *a, const tlsneg_offer *b)
{
    if (offer_rank(b) < offer_rank(a)) {
        return "a lower highest version";
    }
    if (a->has_supported_versions && !b->has_supported_versions) {
        return "no supported_versions";
    }
    if (offer_rank(b) == offer_rank(a) && (a->tls13_extensions & ~b->tls13_extensions)) {
        return "fewer TLS 1.3 extensions";
    }
    return NULL;
}

/* add_verdict appends a verdict of kind k making finding rule to out, or
 * counts it in dropped when the list is full. */
static tlsneg_verdict *add_verdict(tlsneg_verdicts *out, tlsneg_verdict_kind k, tlsneg_rule_id rule)
{
    if (out->count == TLSNEG_MAX_VERDICTS) {
        out->dropped++;
        return NULL;
    }
    tlsneg_verdict *v = &out->item[out->count++];
    memset(v, 0, sizeof *v);
    v->kind = k;
    v->rule = rule;
    v->detail[0] = '\0';
    v->num_links = v->num_versions = v->num_texts = 0;
    v->chain_len = 0;
    return v;
}

static void add_link(tlsneg_verdict *v, tlsneg_link_role r, uint32_t frame)
{
    if (v->num_links < TLSNEG_VERDICT_LINKS) {
        v->link[v->num_links].role = (uint8_t)r;
        v->link[v->num_links++].frame = frame;
    }
}

static void add_version(tlsneg_verdict *v, tlsneg_version_role r, uint16_t version)
{
    if (v->num_versions < TLSNEG_VERDICT_VERSIONS) {
        v->version[v->num_versions].role = (uint8_t)r;
        v->version[v->num_versions++].version = version;
    }
}

/* add_text returns the buffer of a new text of role r (empty), or NULL. */
static char *add_text(tlsneg_verdict *v, tlsneg_text_role r)
{
    if (v->num_texts == TLSNEG_VERDICT_TEXTS) {
        return NULL;
    }
    tlsneg_text *t = &v->text[v->num_texts++];
    t->role = (uint8_t)r;
    t->text[0] = '\0';
    return t->text;
}

static void set_text(tlsneg_verdict *v, tlsneg_text_role r, const char *text)
{
    char *buf = add_text(v, r);
    if (buf) {
        snprintf(buf, TLSNEG_VERDICT_TEXT_MAX, "%s", text);
    }
}

__attribute__((format(printf, 2, 3))) static void set_detail(tlsneg_verdict *v, const char *fmt,
                                                             ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->detail, sizeof v->detail, fmt, ap);
    va_end(ap);
}

#define NAME_OF(table, i) ((size_t)(i) < sizeof table / sizeof table[0] ? table[i] : "unknown")

const char *tlsneg_verdict_kind_name(tlsneg_verdict_kind k)
{
    static const char *const names[] = {
        "fallback",     "intolerant", "fallback_rejected", "inconsistent",      "resumption_change",
        "ignored_scsv", "same_retry", "other_cause",       "no_common_version", "client_abort",
        "probe"};
    return NAME_OF(names, k);
}

const char *tlsneg_verdict_tag(tlsneg_verdict_kind k)
{
    static const char *const tags[] = {
        [TLSNEG_VERDICT_FALLBACK] = "fallback",
        [TLSNEG_VERDICT_INTOLERANT] = "intolerant server",
        [TLSNEG_VERDICT_FALLBACK_REJECTED] = "rejected fallback",
        [TLSNEG_VERDICT_INCONSISTENT] = "inconsistent server",
        [TLSNEG_VERDICT_RESUMPTION_CHANGE] = "resumed at another version",
        [TLSNEG_VERDICT_IGNORED_SCSV] = "SCSV ignored",
        [TLSNEG_VERDICT_SAME_RETRY] = "retry, same offer",
        [TLSNEG_VERDICT_OTHER_CAUSE] = "lower retry, other cause",
        [TLSNEG_VERDICT_NO_COMMON_VERSION] = "no common version",
        [TLSNEG_VERDICT_CLIENT_ABORT] = "client aborted",
        [TLSNEG_VERDICT_PROBE] = "probe",
    };
    return NAME_OF(tags, k);
}

const char *tlsneg_link_role_name(tlsneg_link_role r)
{
    static const char *const names[] = {
        "previous_attempt",  "retry",         "refused_retry", "completed_by", "session_made_in",
        "higher_version_in", "same_offer_as", "aborted_after", "probe_start",  "failed_in"};
    return NAME_OF(names, r);
}

const char *tlsneg_version_role_name(tlsneg_version_role r)
{
    static const char *const names[] = {"offered_before", "offered_now", "higher",
                                        "session",        "lowest",      "highest"};
    return NAME_OF(names, r);
}

const char *tlsneg_text_role_name(tlsneg_text_role r)
{
    static const char *const names[] = {"cause",    "chain", "intolerant_of", "less", "changed",
                                        "attempts", "probe", "failure",       "title"};
    return NAME_OF(names, r);
}

const tlsneg_verdict *tlsneg_verdict_find(const tlsneg_verdicts *vs, tlsneg_verdict_kind k)
{
    for (size_t i = 0; i < vs->count; i++) {
        if (vs->item[i].kind == k) {
            return &vs->item[i];
        }
    }
    return NULL;
}

/* link_frame returns the frame of the n links l in role r, or 0: for a
 * verdict and a kept one. */
static uint32_t link_frame(const tlsneg_link *l, size_t n, tlsneg_link_role r)
{
    for (size_t i = 0; i < n; i++) {
        if (l[i].role == r) {
            return l[i].frame;
        }
    }
    return 0;
}

uint32_t tlsneg_verdict_link(const tlsneg_verdict *v, tlsneg_link_role r)
{
    return link_frame(v->link, v->num_links, r);
}

bool tlsneg_verdict_version(const tlsneg_verdict *v, tlsneg_version_role r, uint16_t *out)
{
    for (size_t i = 0; i < v->num_versions; i++) {
        if (v->version[i].role == r) {
            *out = v->version[i].version;
            return true;
        }
    }
    return false;
}

const char *tlsneg_verdict_text(const tlsneg_verdict *v, tlsneg_text_role r)
{
    for (size_t i = 0; i < v->num_texts; i++) {
        if (v->text[i].role == r) {
            return v->text[i].text;
        }
    }
    return NULL;
}

void tlsneg_verdict_keep(tlsneg_kept_verdict *dst, const tlsneg_verdict *v, const char *note,
                         const char *(*keep_text)(void *ctx, const char *text), void *ctx)
{
    memset(dst, 0, sizeof *dst);
    dst->kind = v->kind;
    dst->note = note;
    dst->probe = v->probe;
    dst->num_links = v->num_links;
    dst->num_versions = v->num_versions;
    dst->num_texts = v->num_texts;
    memcpy(dst->link, v->link, sizeof v->link);
    memcpy(dst->version, v->version, sizeof v->version);
    for (unsigned t = 0; t < v->num_texts && t < TLSNEG_VERDICT_TEXTS; t++) {
        dst->text[t].role = v->text[t].role;
        dst->text[t].text = keep_text(ctx, v->text[t].text);
    }
}

const tlsneg_kept_verdict *tlsneg_kept_find(const tlsneg_kept_verdict *vs, size_t n,
                                            tlsneg_verdict_kind k)
{
    for (size_t i = 0; i < n; i++) {
        if (vs[i].kind == k) {
            return &vs[i];
        }
    }
    return NULL;
}

uint32_t tlsneg_kept_link(const tlsneg_kept_verdict *v, tlsneg_link_role r)
{
    return link_frame(v->link, v->num_links, r);
}

const char *tlsneg_kept_text(const tlsneg_kept_verdict *v, tlsneg_text_role r)
{
    for (size_t i = 0; i < v->num_texts; i++) {
        if (v->text[i].role == r) {
            return v->text[i].text;
        }
    }
    return NULL;
}

static void fill_chain(tlsneg_tracker *t, uint32_t s, cross *out)
{
    uint32_t steps[TLSNEG_CHAIN_MAX];
    size_t n = 0;
    for (uint32_t x = s; x != NONE && n < TLSNEG_CHAIN_MAX; x = live_prev(t, x)) {
        steps[n++] = x;
    }
    out->chain_len = (uint8_t)n;
    out->chain_scsv = out->chain_same = 0;
    out->chain_dtls = at(t, s)->dtls;
    for (size_t i = 0; i < n; i++) {
        const attempt *st = at(t, steps[n - 1 - i]);
        out->chain_frames[i] = st->frame;
        out->chain_versions[i] = st->has_offered_max ? st->offered_max : 0;
        out->chain_scsv |= (uint8_t)(st->fallback_scsv ? 1u << i : 0u);
        out->chain_same |= (uint8_t)(st->same_retry ? 1u << i : 0u);
    }
}

static unsigned rank_of(bool dtls, uint16_t v)
{
    return tlsneg_version_rank(v, dtls);
}

/* A burst of one hello has no record: its state is read off its attempt. */
_Static_assert(TLSNEG_PROBE_HELLOS > 1, "a burst of one hello is never a probe");

static uint16_t top_of(const attempt *a)
{
    return a->has_offered_max ? a->offered_max : 0;
}

/* probe_get fills st with the probe state of the burst that a (a pair's
 * latest attempt, counted by probe_step) ends. */
static void probe_get(const tlsneg_tracker *t, const attempt *a, probe_rec *st)
{
    if (a->probe_rec) {
        *st = t->recs[a->probe_rec - 1];
        return;
    }
    memset(st, 0, sizeof *st);
    st->probe.first_frame = a->frame;
    st->probe.first_us = st->probe.last_us = a->hello_us;
    st->probe.lowest = st->probe.highest = top_of(a);
    st->probe.dtls = a->dtls;
    st->probe.hellos = 1;
    st->probe.scsv = a->fallback_scsv ? 1 : 0;
    st->seen[0] =
        (a->fp_all ^ (a->fallback_scsv ? 0x5600u : 0u) ^ (uint32_t)a->versions << 24 ^ top_of(a)) |
        1u;
}

/* probe_step counts hello a into the probe state of its client and server,
 * carried over from the pair's last attempt p, and returns the state in
 * st. A variation is a change no retry makes: dance says a is a retry of a
 * failed attempt (a fallback or the same offer again). a is already the
 * pair's latest attempt in by_pair: p hands it its record, or forgets it
 * when a starts a new burst. */
static void probe_step(tlsneg_tracker *t, attempt *a, attempt *p, bool dance, probe_rec *st)
{
    probe_rec ps;
    if (p) {
        probe_get(t, p, &ps);
    }
    a->probed = 1;
    if (!p || a->hello_us - ps.probe.last_us > t->cfg.window_us || p->dtls != a->dtls) {
        if (p) {
            rec_free(t, p);
        }
        probe_get(t, a, st);
        a->probe_highest = st->probe.highest;
        return;
    }
    probe_rec mine;
    probe_get(t, a, &mine); /* this hello alone */
    uint16_t top = top_of(a);
    uint32_t id = mine.seen[0];
    *st = ps;
    /* A variation is an offer not among the last distinct ones: a client
     * that alternates two configurations is no probe. */
    bool known = false;
    for (size_t i = 0; i < 4; i++) {
        known |= st->seen[i] == id;
    }
    if (!known) {
        memmove(st->seen + 1, st->seen, 3 * sizeof st->seen[0]);
        st->seen[0] = id;
    }
    if (!known && !dance) {
        st->variations =
            (uint16_t)(st->variations < UINT16_MAX ? st->variations + 1 : st->variations);
    }
    if (top && (!st->probe.lowest || rank_of(a->dtls, top) < rank_of(a->dtls, st->probe.lowest))) {
        st->probe.lowest = top;
    }
    if (top && rank_of(a->dtls, top) > rank_of(a->dtls, st->probe.highest)) {
        st->probe.highest = top;
    }
    st->probe.hellos++;
    st->probe.last_us = a->hello_us;
    st->probe.scsv = (uint16_t)(st->probe.scsv + (a->fallback_scsv && st->probe.scsv < UINT16_MAX));
    a->probe_highest = st->probe.highest;
    uint32_t r = p->probe_rec;
    p->probe_rec = 0;
    if (!r) {
        r = rec_new(t);
    }
    if (r) {
        t->recs[r - 1] = *st;
        a->probe_rec = r;
    }
}

/* in_probe returns the probe record of the burst of a's pair if it is
 * recognised as a probe and a belongs to it (perhaps only since a later
 * hello), or NULL. */
static probe_rec *in_probe(tlsneg_tracker *t, const attempt *a)
{
    if (t->cfg.no_probes) {
        return NULL;
    }
    uint32_t s = map_get(t, BY_PAIR, a->pair);
    const attempt *head = s == NONE ? NULL : at(t, s);
    if (!head || !head->probe_rec) {
        return NULL; /* a burst of one hello is no probe */
    }
    probe_rec *r = &t->recs[head->probe_rec - 1];
    return r->recognised && r->probe.first_frame <= a->frame ? r : NULL;
}

static void client_hello(tlsneg_tracker *t, uint64_t conn, const tlsneg_peer_key *key,
                         uint32_t frame, uint64_t time_us, const tlsneg_offer *offer, cross *out)
{
    memset(out, 0, sizeof *out);
    if (by_conn(t, conn)) {
        return; /* after a HelloRetryRequest, or sent again: the same attempt */
    }
    uint64_t k = key_hash(t, key), pk = pair_hash(key);
    uint32_t s = new_slot(t);
    attempt *a = at(t, s);
    uint32_t ks = map_get(t, BY_KEY, k), ps = map_get(t, BY_PAIR, pk);
    attempt *before = ks == NONE ? NULL : at(t, ks);
    attempt *pbefore = ps == NONE ? NULL : at(t, ps);

    memset(a, 0, sizeof *a);
    a->conn = conn;
    a->key = k;
    a->pair = pk;
    a->time_us = a->hello_us = time_us;
    a->frame = frame;
    offer_set(a, offer);
    a->outcome = TLSNEG_CAUSE_NONE;
    if (before) {
        a->has_best = before->has_best;
        a->best_version = before->best_version;
        a->best_frame = before->best_frame;
        a->best_fp = before->best_fp;
        a->accepted = before->accepted;
        a->best_offer = before->best_offer;
    }
    map_put(t, BY_CONN, conn, s);
    map_put(t, BY_KEY, k, s);
    map_put(t, BY_PAIR, pk, s);

    /* A retry: the last attempt with this key failed, not long ago. It is a
     * fallback if it offers less and its highest version was offered before
     * (what else changed decides, once it succeeds, whether the server is
     * intolerant); a retry of the same offer if it offers the same hello.
     * Anything else is another offer. */
    const char *less = NULL;
    bool fallback = false, same = false, changed = false;
    tlsneg_offer bo;
    if (before) {
        offer_get(before, &bo);
    }
    /* A dance starts with the client's best offer: a failed attempt that is
     * no retry itself, but offered less than an earlier hello of the same
     * burst to this server, is a probe's step, not the start of a dance
     * (nmap tries TLS 1.2, then 1.1, then 1.0, each once). */
    bool starts = before && ((before->prev_back && !before->changed_retry) || !before->probed ||
                             offer_rank(&bo) >= rank_of(before->dtls, before->probe_highest));
    if (starts && failed(before) && time_us - before->time_us <= t->cfg.window_us) {
        char what[TLSNEG_INTOLERANT_MAX];
        less = offers_less(&bo, offer);
        bool lower = less && offer->has_offered_max && offered_by(&bo, offer->offered_max);
        changed = lower && changed_more(&bo, offer, what, sizeof what);
        fallback = lower && !changed;
        /* A datagram attempt that got no answer may have been answered
         * out of sight: only a seen failure makes a same-offer retry. */
        same = !less && before->outcome != TLSNEG_CAUSE_NONE && same_offer(&bo, offer);
    }
    if (!t->cfg.no_probes) {
        probe_rec st;
        probe_step(t, a, pbefore, fallback || same, &st);
        if (!st.recognised && st.probe.hellos >= TLSNEG_PROBE_HELLOS &&
            st.variations >= TLSNEG_PROBE_VARIATIONS) {
            st.recognised = true;
            if (a->probe_rec) {
                t->recs[a->probe_rec - 1].recognised = true;
            }
            out->probe_new = true;
        }
        if (st.recognised) {
            out->probe = true;
            out->probe_info = st.probe;
            return; /* a probe: no fallback, no chain */
        }
    }
    if (!fallback && !same && !changed) {
        return;
    }
    a->prev_back = (uint32_t)(id_of(t, s) - id_of(t, ks));
    a->same_retry = same;
    a->changed_retry = changed;
    if (changed) {
        return; /* linked for its outcome only: another offer, not a fallback */
    }
    out->fallback = fallback;
    out->same_retry = same;
    out->prev_frame = before->frame;
    out->has_from = bo.has_offered_max;
    out->from = bo.offered_max;
    out->has_to = offer->has_offered_max;
    out->to = offer->offered_max;
    out->cause = before->outcome == TLSNEG_CAUSE_NONE ? TLSNEG_CAUSE_NO_ANSWER : before->outcome;
    out->cause_alert = before->alert;
    out->scsv = offer->fallback_scsv;
    out->less = less ? less : "the same versions";
    fill_chain(t, s, out);
}

/* what_failed names what the server could not take in the failed offer f
 * that the accepted offer ok did without. */
static void what_failed(const tlsneg_offer *f, const tlsneg_offer *ok, char *buf, size_t len)
{
    char name[TLSNEG_VERSION_NAME_MAX];
    if (f->offers_tls13 && !ok->offers_tls13) {
        snprintf(buf, len, "%s in supported_versions", f->dtls ? "DTLS 1.3" : "TLS 1.3");
    } else if (f->has_offered_max && tlsneg_version_is_draft(f->offered_max) &&
               offer_rank(f) > offer_rank(ok)) {
        snprintf(buf, len, "%s in supported_versions",
                 tlsneg_version_name(f->offered_max, name, sizeof name));
    } else if (f->has_supported_versions && !ok->has_supported_versions) {
        snprintf(buf, len, "the supported_versions extension");
    } else if (offer_rank(f) > offer_rank(ok)) {
        snprintf(buf, len, "a ClientHello offering %s or more",
                 tlsneg_version_name_in(f->offered_max, f->dtls, name, sizeof name));
    } else {
        static const char *const names[] = {"key_share", "psk_key_exchange_modes", "early_data",
                                            "pre_shared_key"};
        unsigned dropped = f->tls13_extensions & ~ok->tls13_extensions;
        size_t used = 0;
        for (unsigned i = 0; i < 4 && used < len; i++) {
            if (dropped & (1u << i)) {
                int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", names[i]);
                used += n > 0 ? (size_t)n : 0;
            }
        }
    }
}

static bool is_tls13(const attempt *a, uint16_t v)
{
    return v == (a->dtls ? TLSNEG_V_DTLS13 : TLSNEG_V_TLS13) || tlsneg_version_is_draft(v);
}

/* still_offers: TLS 1.3 is offered only in supported_versions (RFC 8446
 * 4.2.1); older versions by the highest offer. */
static bool still_offers(const tlsneg_offer *o, uint16_t v)
{
    if (v == (o->dtls ? TLSNEG_V_DTLS13 : TLSNEG_V_TLS13)) {
        return o->offers_tls13;
    }
    return offer_rank(o) >= rank(o, v);
}

/* key_head: the latest attempt with a's key, which new attempts copy the
 * key's history from. */
static attempt *key_head(tlsneg_tracker *t, const attempt *a)
{
    uint32_t s = map_get(t, BY_KEY, a->key);
    return s == NONE ? NULL : at(t, s);
}

/* judge_retry decides what the success of fallback retry offer ao at
 * version v says about the failed attempt prev: intolerance only when prev
 * offered v (a conforming server negotiates down to it), prev was not
 * refused as an inappropriate fallback, the server has not completed an
 * offer as high from this client before, and nothing but the version
 * signals changed. */
static void judge_retry(const tlsneg_offer *ao, const attempt *prev, uint16_t v,
                        unsigned best_offer, cross *out)
{
    if (prev->outcome == TLSNEG_CAUSE_ALERT && prev->alert == 86) {
        return; /* RFC 7507 3: the protection working */
    }
    if (prev->outcome == TLSNEG_CAUSE_CLIENT_ABORT) {
        return; /* the server answered; the client refused */
    }
    tlsneg_offer po;
    offer_get(prev, &po);
    if (!offered_by(&po, v)) {
        return; /* no common version with that offer, not intolerance */
    }
    if (best_offer && best_offer >= offer_rank(&po)) {
        return; /* it completed an offer as high from this client before */
    }
    if (changed_more(&po, ao, out->changed, sizeof out->changed)) {
        out->other_cause = true;
        out->failed_frame = prev->frame;
        return;
    }
    out->intolerant = true;
    what_failed(&po, ao, out->intolerant_of, sizeof out->intolerant_of);
}

/* session_drop takes the session of the attempt in slot s out of
 * by_session. */
static void session_drop(tlsneg_tracker *t, attempt *a, uint32_t s)
{
    if (a->in_session) {
        map_del(t, BY_SESSION, session_key(a, a->session_id), s);
        a->in_session = 0;
    }
}

static void server_hello(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t time_us,
                         const tlsneg_answer *answer, cross *out)
{
    memset(out, 0, sizeof *out);
    uint32_t as = map_get(t, BY_CONN, conn);
    attempt *a = as == NONE ? NULL : at(t, as);
    if (!a || answer->is_hrr || a->outcome == SUCCESS) {
        return;
    }
    unsigned best_offer = a->best_offer;
    attempt *head = key_head(t, a);
    if (head && head->best_offer > best_offer) {
        best_offer = head->best_offer;
    }
    a->outcome = SUCCESS;
    a->time_us = time_us;
    a->version = answer->version;
    a->answer_frame = frame;
    a->answer_sentinel = answer->sentinel;
    tlsneg_offer ao;
    offer_get(a, &ao);
    unsigned r = rank(&ao, answer->version);

    uint32_t ps = live_prev(t, as);
    attempt *prev = ps == NONE ? NULL : at(t, ps);
    if (prev && !a->same_retry && !in_probe(t, a)) {
        judge_retry(&ao, prev, answer->version, best_offer, out);
        if (out->intolerant || out->other_cause) {
            fill_chain(t, as, out);
        }
    }
    if (a->has_best && r && r < rank(&ao, a->best_version) && still_offers(&ao, a->best_version) &&
        (!ao.has_fingerprint || !a->best_fp || a->best_fp == ao.fp_all)) {
        out->inconsistent = true;
        out->higher_frame = a->best_frame;
        out->higher_version = a->best_version;
    }
    /* RFC 7507 3: a hello marked with the SCSV answered below a version the
     * server put in force for this client before (with a sentinel of its
     * own, the checks judge the ServerHello alone). */
    if (a->has_best && r && ao.fallback_scsv && !answer->sentinel &&
        rank(&ao, a->best_version) > offer_rank(&ao)) {
        out->ignored_scsv = true;
        out->ignored_frame = a->best_frame;
        out->ignored_version = a->best_version;
    }
    /* What the server has shown this client, for the next attempts. */
    for (attempt *h = a; h; h = h != head ? head : NULL) {
        h->accepted |= bit_of(&ao, answer->version);
        if (offer_rank(&ao) > h->best_offer) {
            h->best_offer = (uint16_t)offer_rank(&ao);
        }
        if (r && (!h->has_best || r > rank(&ao, h->best_version))) {
            h->has_best = true;
            h->best_version = answer->version;
            h->best_frame = frame;
            h->best_fp = ao.fp_all;
        }
    }

    /* Sessions: TLS 1.2 and lower resume by echoing the client's session ID;
     * a TLS 1.3 server echoes it only for middlebox compatibility. */
    if (!answer->session_id || is_tls13(a, answer->version)) {
        session_drop(t, a, as);
        a->session_id = 0;
        return;
    }
    if (answer->session_id == a->session_id) {
        uint32_t c = map_get(t, BY_SESSION, session_key(a, answer->session_id));
        attempt *maker = c == NONE ? NULL : at(t, c);
        if (maker && maker != a && maker->version != answer->version) {
            out->resumption_change = true;
            out->session_frame = maker->answer_frame;
            out->session_version = maker->version;
        }
        session_drop(t, a, as);
        a->session_id = 0; /* the session stays its maker's */
        return;
    }
    session_drop(t, a, as);
    a->session_id = answer->session_id;
    a->in_session = 1;
    map_put(t, BY_SESSION, session_key(a, answer->session_id), as);
}

/* alert returns the frame of the ClientHello whose attempt the alert makes
 * fail, or 0. */
static uint32_t alert(tlsneg_tracker *t, uint64_t conn, uint64_t time_us, uint8_t description,
                      bool from_server, cross *out)
{
    memset(out, 0, sizeof *out);
    uint32_t as = map_get(t, BY_CONN, conn);
    attempt *a = as == NONE ? NULL : at(t, as);
    if (!a || !tlsneg_alert_ends_handshake(description)) {
        return 0;
    }
    probe_rec *probe = in_probe(t, a);
    if (a->outcome == SUCCESS && !from_server && a->progress != 3) {
        /* The client ends the handshake the ServerHello started: it did
         * not accept what the server chose (RFC 8446 4.1.3: a client that
         * sees the downgrade sentinel must abort). */
        a->outcome = TLSNEG_CAUSE_CLIENT_ABORT;
        a->alert = description;
        if (probe) {
            out->probe = true;
            out->probe_info = probe->probe;
        } else {
            out->client_abort = true;
            out->answer_frame = a->answer_frame;
            out->caught_sentinel = a->answer_sentinel && a->offers_tls13;
        }
        return a->frame;
    }
    if (a->outcome != TLSNEG_CAUSE_NONE) {
        return 0;
    }
    a->outcome = TLSNEG_CAUSE_ALERT;
    a->alert = description;
    a->time_us = time_us;
    if (probe) {
        if (description == 86 && from_server && a->fallback_scsv &&
            probe->probe.scsv_refused < UINT16_MAX) {
            probe->probe.scsv_refused++;
        }
        out->probe = true;
        out->probe_info = probe->probe;
        return a->frame;
    }
    if (!from_server || live_prev(t, as) == NONE) {
        return a->frame;
    }
    out->prev_frame = a->frame;
    if (description == 86 && !a->same_retry) {
        out->fallback_rejected = true;
        return a->frame;
    }
    /* The retry is refused with protocol_version too: the server says it
     * supports none of the versions offered (RFC 8446 6.2), so the chain
     * ends without a common version. Other failures may still be followed
     * by a further retry. */
    if (description != 70) {
        return a->frame;
    }
    out->retry_refused = true;
    out->cause = TLSNEG_CAUSE_ALERT;
    out->cause_alert = description;
    fill_chain(t, as, out);
    return a->frame;
}

uint8_t tlsneg_tracker_cause(const tlsneg_tracker *t, uint64_t conn, uint8_t *alert)
{
    uint32_t s = map_get(t, BY_CONN, conn);
    const attempt *a = s == NONE ? NULL : at(t, s);
    *alert = a ? a->alert : 0;
    if (!a || a->outcome == SUCCESS || a->outcome == COMPLETED) {
        return TLSNEG_CAUSE_NONE;
    }
    return a->outcome;
}

uint32_t tlsneg_tracker_close(tlsneg_tracker *t, uint64_t conn, uint64_t time_us, bool reset)
{
    attempt *a = by_conn(t, conn);
    if (!a || a->outcome != TLSNEG_CAUSE_NONE) {
        return 0;
    }
    a->outcome = reset ? TLSNEG_CAUSE_RESET : TLSNEG_CAUSE_CLOSE;
    a->time_us = time_us;
    return a->frame;
}

void tlsneg_tracker_progress(tlsneg_tracker *t, uint64_t conn, bool from_server)
{
    attempt *a = by_conn(t, conn);
    if (!a) {
        return;
    }
    a->progress |= from_server ? 2 : 1;
    if (a->progress == 3 && a->outcome == TLSNEG_CAUSE_NONE) {
        a->outcome = COMPLETED; /* the ServerHello is missing from the capture */
    }
}

static const char *vname(uint16_t v, char *buf)
{
    return v ? tlsneg_version_name(v, buf, TLSNEG_VERSION_NAME_MAX) : "no known version";
}

const char *tlsneg_probe_text(const tlsneg_probe *p, char *buf, size_t buf_len)
{
    char lo[TLSNEG_VERSION_NAME_MAX], hi[TLSNEG_VERSION_NAME_MAX], scsv[96] = "";
    uint64_t span = p->last_us - p->first_us;
    if (p->scsv == 1) {
        snprintf(scsv, sizeof scsv, ", SCSV probe %s",
                 p->scsv_refused ? "answered with 86" : "not refused");
    } else if (p->scsv > 1) {
        snprintf(scsv, sizeof scsv, ", %u SCSV probes, %u answered with 86", p->scsv,
                 p->scsv_refused);
    }
    int w;
    if (p->lowest == p->highest) {
        w = snprintf(buf, buf_len, "probed with %u hellos in %.*f s, all up to %s%s", p->hellos,
                     span < 1000000 ? 3 : 1, (double)span / 1e6, vname(p->highest, hi), scsv);
    } else {
        w = snprintf(buf, buf_len, "probed with %u hellos in %.*f s, %s to %s%s", p->hellos,
                     span < 1000000 ? 3 : 1, (double)span / 1e6, vname(p->lowest, lo),
                     vname(p->highest, hi), scsv);
    }
    (void)w;
    return buf;
}

const char *tlsneg_cause_text(uint8_t cause, uint8_t alert, char *buf, size_t buf_len)
{
    const char *name;
    snprintf(buf, buf_len, "unknown");
    switch ((tlsneg_cause)cause) {
    case TLSNEG_CAUSE_ALERT:
        name = tlsneg_alert_name(alert);
        snprintf(buf, buf_len, "alert %s (%u)", name ? name : "unknown", alert);
        break;
    case TLSNEG_CAUSE_RESET:
        snprintf(buf, buf_len, "TCP reset before any ServerHello");
        break;
    case TLSNEG_CAUSE_CLOSE:
        snprintf(buf, buf_len, "connection closed before any ServerHello");
        break;
    case TLSNEG_CAUSE_NO_ANSWER:
        snprintf(buf, buf_len, "no answer");
        break;
    case TLSNEG_CAUSE_CLIENT_ABORT:
        name = tlsneg_alert_name(alert);
        snprintf(buf, buf_len, "the client aborted after the ServerHello: alert %s (%u)",
                 name ? name : "unknown", alert);
        break;
    case TLSNEG_CAUSE_NONE:
        snprintf(buf, buf_len, "unknown");
        break;
    }
    return buf;
}

/* write_chain writes "TLS 1.3 (frame 4) -> TLS 1.2 (frame 10)". */
static const char *write_chain(size_t len, const uint32_t *frames, const uint16_t *versions,
                               char *buf, size_t buf_len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < len && used < buf_len; i++) {
        char name[TLSNEG_VERSION_NAME_MAX];
        int n = snprintf(buf + used, buf_len - used, "%s%s (frame %u)", i ? " -> " : "",
                         vname(versions[i], name), frames[i]);
        used += n > 0 ? (size_t)n : 0;
    }
    return buf;
}

static const char *chain_text(const cross *c, char *buf, size_t buf_len)
{
    return write_chain(c->chain_len, c->chain_frames, c->chain_versions, buf, buf_len);
}

static void copy_chain(const cross *c, tlsneg_verdict *v)
{
    v->chain_len = c->chain_len;
    v->chain_scsv = c->chain_scsv;
    v->chain_same = c->chain_same;
    v->chain_dtls = c->chain_dtls;
    memcpy(v->chain_frames, c->chain_frames, sizeof v->chain_frames);
    memcpy(v->chain_versions, c->chain_versions, sizeof v->chain_versions);
}

/* emit turns what an event found into its list of verdicts, each with its
 * finding's sentence and its evidence by role. */
static void emit(const cross *c, tlsneg_verdicts *out)
{
    char a[TLSNEG_VERSION_NAME_MAX], b[TLSNEG_VERSION_NAME_MAX], cause[96];
    char chain[TLSNEG_VERDICT_TEXT_MAX];
    tlsneg_verdict *v;
    out->count = 0;
    out->dropped = 0;
    /* Written only for the verdicts that quote them: emit runs per hello. */
    if (c->fallback || c->same_retry || c->retry_refused) {
        chain_text(c, chain, sizeof chain);
        tlsneg_cause_text(c->cause, c->cause_alert, cause, sizeof cause);
    } else {
        chain[0] = '\0';
        cause[0] = '\0';
    }
    if (c->fallback &&
        (v = add_verdict(out, TLSNEG_VERDICT_FALLBACK,
                         c->scsv ? TLSNEG_RULE_FALLBACK_RETRY_SCSV : TLSNEG_RULE_FALLBACK_RETRY))) {
        add_link(v, TLSNEG_LINK_PREVIOUS_ATTEMPT, c->prev_frame);
        if (c->has_from) {
            add_version(v, TLSNEG_VERSION_OFFERED_BEFORE, c->from);
        }
        if (c->has_to) {
            add_version(v, TLSNEG_VERSION_OFFERED_NOW, c->to);
        }
        copy_chain(c, v);
        set_text(v, TLSNEG_TEXT_CAUSE, cause);
        set_text(v, TLSNEG_TEXT_CHAIN, chain);
        set_text(v, TLSNEG_TEXT_LESS, c->less);
        set_detail(v,
                   "A retry of the attempt in frame %u (up to %s, failed: %s) offering %s, up to "
                   "%s, %s",
                   c->prev_frame, vname(c->has_from ? c->from : 0, a), cause, c->less,
                   vname(c->has_to ? c->to : 0, b),
                   c->scsv ? "with TLS_FALLBACK_SCSV"
                           : "without TLS_FALLBACK_SCSV: open to a downgrade attack");
    }
    if (c->same_retry &&
        (v = add_verdict(out, TLSNEG_VERDICT_SAME_RETRY, TLSNEG_RULE_RETRY_SAME_VERSION))) {
        add_link(v, TLSNEG_LINK_SAME_OFFER_AS, c->prev_frame);
        copy_chain(c, v);
        set_text(v, TLSNEG_TEXT_ATTEMPTS, chain);
        set_detail(v,
                   "A retry of the attempt in frame %u (failed: %s) with the same offer, up to %s: "
                   "no fallback happened",
                   c->prev_frame, cause, vname(c->has_to ? c->to : 0, b));
    }
    if (c->intolerant &&
        (v = add_verdict(out, TLSNEG_VERDICT_INTOLERANT, TLSNEG_RULE_VERSION_INTOLERANCE))) {
        copy_chain(c, v);
        set_text(v, TLSNEG_TEXT_INTOLERANT_OF, c->intolerant_of);
        set_detail(v,
                   "The server failed the attempt in frame %u and completes this one, whose hello "
                   "differs only in its versions: it does not tolerate %s",
                   c->chain_len > 1 ? c->chain_frames[c->chain_len - 2] : 0, c->intolerant_of);
    }
    if (c->other_cause &&
        (v = add_verdict(out, TLSNEG_VERDICT_OTHER_CAUSE, TLSNEG_RULE_FAILURE_OTHER_CAUSE))) {
        copy_chain(c, v);
        set_text(v, TLSNEG_TEXT_CHANGED, c->changed);
        set_detail(v,
                   "The server failed the attempt in frame %u and completes this one, but the "
                   "retry also changed its %s: the failure likely has another cause than the "
                   "version, so no intolerance is concluded",
                   c->failed_frame, c->changed);
    }
    if (c->fallback_rejected &&
        (v = add_verdict(out, TLSNEG_VERDICT_FALLBACK_REJECTED, TLSNEG_RULE_FALLBACK_REJECTED))) {
        add_link(v, TLSNEG_LINK_REFUSED_RETRY, c->prev_frame);
        set_detail(v,
                   "The server refuses the fallback retry in frame %u: the downgrade protection "
                   "worked",
                   c->prev_frame);
    }
    if (c->retry_refused &&
        (v = add_verdict(out, TLSNEG_VERDICT_NO_COMMON_VERSION, TLSNEG_RULE_NO_COMMON_VERSION))) {
        add_link(v, TLSNEG_LINK_REFUSED_RETRY, c->prev_frame);
        copy_chain(c, v);
        set_text(v, TLSNEG_TEXT_ATTEMPTS, chain);
        set_detail(v,
                   "The server refuses the retry in frame %u too (%s): no attempt of the chain %s "
                   "offered a version it supports",
                   c->prev_frame, cause, chain);
    }
    if (c->client_abort &&
        (v = add_verdict(out, TLSNEG_VERDICT_CLIENT_ABORT, TLSNEG_RULE_CLIENT_ABORTED))) {
        add_link(v, TLSNEG_LINK_ABORTED_AFTER, c->answer_frame);
        v->downgrade_caught = c->caught_sentinel;
        set_detail(v, "The client ends the handshake after the ServerHello in frame %u%s",
                   c->answer_frame,
                   c->caught_sentinel ? ", which carries a downgrade sentinel although the client "
                                        "offered TLS 1.3: the downgrade protection worked"
                                      : ": it did not accept what the server chose");
    }
    if (c->probe && (v = add_verdict(out, TLSNEG_VERDICT_PROBE, TLSNEG_RULE_PROBE))) {
        char text[TLSNEG_VERDICT_TEXT_MAX];
        tlsneg_probe_text(&c->probe_info, text, sizeof text);
        v->silent = !c->probe_new;
        v->probe = c->probe_info;
        add_link(v, TLSNEG_LINK_PROBE_START, c->probe_info.first_frame);
        add_version(v, TLSNEG_VERSION_LOWEST, c->probe_info.lowest);
        add_version(v, TLSNEG_VERSION_HIGHEST, c->probe_info.highest);
        set_text(v, TLSNEG_TEXT_PROBE, text);
        set_detail(v,
                   "This client %s so far, changing its offer on purpose: a scanner or a test; its "
                   "attempts are not judged as fallbacks or intolerance",
                   text);
    }
    if (c->inconsistent &&
        (v = add_verdict(out, TLSNEG_VERDICT_INCONSISTENT, TLSNEG_RULE_INCONSISTENT_SERVER))) {
        add_link(v, TLSNEG_LINK_HIGHER_VERSION_IN, c->higher_frame);
        add_version(v, TLSNEG_VERSION_HIGHER, c->higher_version);
        set_detail(v,
                   "The server put %s in force in frame %u; now it negotiates lower although the "
                   "client still offers it",
                   vname(c->higher_version, a), c->higher_frame);
    }
    if (c->ignored_scsv && (v = add_verdict(out, TLSNEG_VERDICT_IGNORED_SCSV,
                                            TLSNEG_RULE_IGNORED_FALLBACK_SCSV_EARLIER))) {
        add_link(v, TLSNEG_LINK_HIGHER_VERSION_IN, c->ignored_frame);
        add_version(v, TLSNEG_VERSION_HIGHER, c->ignored_version);
        set_detail(v,
                   "The ClientHello carries TLS_FALLBACK_SCSV and offers less than %s, which the "
                   "server put in force for this client in frame %u; it answers instead of "
                   "refusing with inappropriate_fallback",
                   vname(c->ignored_version, a), c->ignored_frame);
    }
    if (c->resumption_change && (v = add_verdict(out, TLSNEG_VERDICT_RESUMPTION_CHANGE,
                                                 TLSNEG_RULE_RESUMPTION_VERSION_CHANGE))) {
        add_link(v, TLSNEG_LINK_SESSION_MADE_IN, c->session_frame);
        add_version(v, TLSNEG_VERSION_SESSION, c->session_version);
        set_detail(v, "The session resumed here was made at %s in frame %u",
                   vname(c->session_version, a), c->session_frame);
    }
}

void tlsneg_tracker_client_hello(tlsneg_tracker *t, uint64_t conn, const tlsneg_peer_key *key,
                                 uint32_t frame, uint64_t time_us, const tlsneg_offer *offer,
                                 tlsneg_verdicts *out)
{
    cross c;
    client_hello(t, conn, key, frame, time_us, offer, &c);
    emit(&c, out);
}

void tlsneg_tracker_server_hello(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t time_us,
                                 const tlsneg_answer *answer, tlsneg_verdicts *out)
{
    cross c;
    server_hello(t, conn, frame, time_us, answer, &c);
    emit(&c, out);
}

uint32_t tlsneg_tracker_alert(tlsneg_tracker *t, uint64_t conn, uint64_t time_us,
                              uint8_t description, bool from_server, tlsneg_verdicts *out)
{
    cross c;
    uint32_t failed = alert(t, conn, time_us, description, from_server, &c);
    emit(&c, out);
    return failed;
}

const char *tlsneg_chain_text(const tlsneg_verdict *c, char *buf, size_t buf_len)
{
    return write_chain(c->chain_len, c->chain_frames, c->chain_versions, buf, buf_len);
}

void tlsneg_verdict_findings(const tlsneg_verdicts *vs, tlsneg_findings *out)
{
    for (size_t i = 0; i < vs->count; i++) {
        if (!vs->item[i].silent) {
            tlsneg_finding_add(out, vs->item[i].rule, "%s", vs->item[i].detail);
        }
    }
}

const char *tlsneg_failure_text(uint8_t cause, uint8_t alert, uint32_t frame, char *buf,
                                size_t buf_len)
{
    const char *name = tlsneg_alert_name(alert);
    switch ((tlsneg_cause)cause) {
    case TLSNEG_CAUSE_ALERT:
        snprintf(buf, buf_len, "failed: alert %s (%u), frame %u", name ? name : "unknown", alert,
                 frame);
        break;
    case TLSNEG_CAUSE_RESET:
        snprintf(buf, buf_len, "failed: TCP reset, frame %u", frame);
        break;
    case TLSNEG_CAUSE_CLOSE:
        snprintf(buf, buf_len, "failed: connection closed (FIN), frame %u", frame);
        break;
    case TLSNEG_CAUSE_CLIENT_ABORT:
        snprintf(buf, buf_len, "failed: the client aborted with alert %s (%u), frame %u",
                 name ? name : "unknown", alert, frame);
        break;
    case TLSNEG_CAUSE_NO_ANSWER:
        snprintf(buf, buf_len, "failed: no answer");
        break;
    case TLSNEG_CAUSE_NONE:
    default:
        buf[0] = '\0';
        break;
    }
    return buf;
}

bool tlsneg_verdict_retry(const tlsneg_verdict *v, size_t step, uint8_t retries, tlsneg_retry *out)
{
    bool chain_kind = v->kind == TLSNEG_VERDICT_FALLBACK || v->kind == TLSNEG_VERDICT_SAME_RETRY ||
                      v->kind == TLSNEG_VERDICT_INTOLERANT || v->kind == TLSNEG_VERDICT_OTHER_CAUSE;
    if (!chain_kind || step < 1 || step >= v->chain_len || step >= TLSNEG_CHAIN_MAX) {
        return false;
    }
    memset(out, 0, sizeof *out);
    out->same = (v->chain_same >> step) & 1u;
    out->scsv = (v->chain_scsv >> step) & 1u;
    out->dtls = v->chain_dtls;
    /* A chain as long as the tracker keeps may have lost its oldest
     * attempts: then the numbers are not known. */
    bool whole = v->chain_len < TLSNEG_CHAIN_MAX;
    out->retry = whole ? (uint8_t)step : 0;
    out->retries = whole && retries >= step ? retries : 0;
    out->from = v->chain_versions[step - 1];
    out->to = v->chain_versions[step];
    out->has_from = out->from != 0;
    out->has_to = out->to != 0;
    return true;
}

static const char *rname(bool has, uint16_t v, bool dtls, char *buf)
{
    return has ? tlsneg_version_name_in(v, dtls, buf, TLSNEG_VERSION_NAME_MAX) : "no known version";
}

const char *tlsneg_retry_text(const tlsneg_retry *r, char *buf, size_t buf_len)
{
    char a[TLSNEG_VERSION_NAME_MAX], b[TLSNEG_VERSION_NAME_MAX], num[16] = "";
    if (r->same) {
        snprintf(buf, buf_len, "retry, same version (%s)", rname(r->has_to, r->to, r->dtls, b));
        return buf;
    }
    if (r->retry && r->retries) {
        snprintf(num, sizeof num, " %u/%u", r->retry, r->retries);
    } else if (r->retry) {
        snprintf(num, sizeof num, " %u", r->retry);
    }
    snprintf(buf, buf_len, "fallback retry%s (%s -> %s, %s)", num,
             rname(r->has_from, r->from, r->dtls, a), rname(r->has_to, r->to, r->dtls, b),
             r->scsv ? "SCSV" : "no SCSV");
    return buf;
}

const char *tlsneg_retry_info(const tlsneg_retry *r, char *buf, size_t buf_len)
{
    char a[TLSNEG_VERSION_NAME_MAX], b[TLSNEG_VERSION_NAME_MAX];
    if (r->same) {
        snprintf(buf, buf_len, "%s", tlsneg_verdict_tag(TLSNEG_VERDICT_SAME_RETRY));
        return buf;
    }
    snprintf(buf, buf_len, "fallback: %s -> %s, %s", rname(r->has_from, r->from, r->dtls, a),
             rname(r->has_to, r->to, r->dtls, b), r->scsv ? "SCSV" : "no SCSV");
    return buf;
}

const char *tlsneg_verdict_note(const tlsneg_verdict *v, bool dtls, char *buf, size_t buf_len)
{
    uint16_t from, to;
    if (v->kind == TLSNEG_VERDICT_FALLBACK &&
        tlsneg_verdict_version(v, TLSNEG_VERSION_OFFERED_BEFORE, &from) &&
        tlsneg_verdict_version(v, TLSNEG_VERSION_OFFERED_NOW, &to)) {
        tlsneg_retry r = {.scsv = v->rule == TLSNEG_RULE_FALLBACK_RETRY_SCSV,
                          .dtls = dtls,
                          .has_from = true,
                          .has_to = true,
                          .from = from,
                          .to = to};
        return tlsneg_retry_info(&r, buf, buf_len);
    }
    if (v->kind == TLSNEG_VERDICT_CLIENT_ABORT && v->downgrade_caught) {
        snprintf(buf, buf_len, "client caught the downgrade");
        return buf;
    }
    snprintf(buf, buf_len, "%s", tlsneg_verdict_tag(v->kind));
    return buf;
}
