/* tracker.c: attempts in a ring (oldest overwritten first), found by
 * connection, by peer key and by session through three small hash maps. */
#include "analysis/tracker.h"

#include "analysis/checks.h"
#include "core/versions.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

typedef struct {
    uint64_t conn;
    uint64_t key;          /* hash of the peer key */
    uint32_t prev;         /* the failed attempt this one retries, or NONE */
    uint64_t prev_id;      /* its id, to see whether it is still the same attempt */
    uint64_t id;           /* unique, never reused */
    uint64_t time_us;      /* of the ClientHello, then of the outcome */
    uint32_t frame;        /* the first ClientHello */
    uint32_t answer_frame; /* the ServerHello */
    uint32_t best_frame;   /* the highest ServerHello of this key so far */
    uint16_t best_version;
    uint16_t version; /* in force, once answered */
    uint8_t chain_len;
    uint8_t outcome; /* tlsneg_cause, or SUCCESS */
    uint8_t alert;
    bool has_best;
    tlsneg_offer offer;
} attempt;

#define SUCCESS 0xff

/* A map from 64-bit keys to ring slots: linear probing, deletion by
 * backward shift, so that it never fills with tombstones. */
typedef struct {
    uint64_t key;
    uint32_t slot; /* NONE: empty */
} entry;

typedef struct {
    entry *e;
    size_t mask;
} map;

struct tlsneg_tracker {
    tlsneg_tracker_config cfg;
    attempt *ring;
    size_t cap, used, next; /* next: where the next attempt goes once full */
    uint64_t next_id;
    map by_conn, by_key, by_session;
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdu;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53u;
    return x ^ (x >> 33);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 1099511628211u;
    }
    return h;
}

static bool map_init(map *m, size_t slots)
{
    m->e = malloc(slots * sizeof *m->e);
    if (!m->e) {
        return false;
    }
    for (size_t i = 0; i < slots; i++) {
        m->e[i].slot = NONE;
    }
    m->mask = slots - 1;
    return true;
}

static uint32_t map_get(const map *m, uint64_t key)
{
    for (size_t i = mix(key) & m->mask;; i = (i + 1) & m->mask) {
        if (m->e[i].slot == NONE) {
            return NONE;
        }
        if (m->e[i].key == key) {
            return m->e[i].slot;
        }
    }
}

static void map_put(map *m, uint64_t key, uint32_t slot)
{
    size_t i = mix(key) & m->mask;
    while (m->e[i].slot != NONE && m->e[i].key != key) {
        i = (i + 1) & m->mask;
    }
    m->e[i].key = key;
    m->e[i].slot = slot;
}

/* map_del removes key if it maps to slot. */
static void map_del(map *m, uint64_t key, uint32_t slot)
{
    size_t i = mix(key) & m->mask;
    while (m->e[i].slot != NONE && m->e[i].key != key) {
        i = (i + 1) & m->mask;
    }
    if (m->e[i].slot != slot) {
        return;
    }
    /* Backward shift: move later entries of the run into the hole. */
    for (size_t j = (i + 1) & m->mask; m->e[j].slot != NONE; j = (j + 1) & m->mask) {
        size_t home = mix(m->e[j].key) & m->mask;
        bool movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
        if (movable) {
            m->e[i] = m->e[j];
            i = j;
        }
    }
    m->e[i].slot = NONE;
}

/* Each map has at least twice as many entries as the ring has attempts. */
static size_t map_slots(size_t cap)
{
    size_t n = 16;
    while (n < 2 * cap) {
        n *= 2;
    }
    return n;
}

static bool grow(tlsneg_tracker *t)
{
    size_t cap = t->cap ? t->cap * 2 : 1024;
    if (cap > t->cfg.max_attempts) {
        cap = t->cfg.max_attempts;
    }
    attempt *ring = realloc(t->ring, cap * sizeof *ring);
    if (!ring) {
        return false;
    }
    t->ring = ring;
    map maps[3] = {{NULL, 0}, {NULL, 0}, {NULL, 0}};
    size_t slots = map_slots(cap);
    if (!map_init(&maps[0], slots) || !map_init(&maps[1], slots) || !map_init(&maps[2], slots)) {
        free(maps[0].e);
        free(maps[1].e);
        free(maps[2].e);
        return false;
    }
    map *old[3] = {&t->by_conn, &t->by_key, &t->by_session};
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; old[k]->e && i <= old[k]->mask; i++) {
            if (old[k]->e[i].slot != NONE) {
                map_put(&maps[k], old[k]->e[i].key, old[k]->e[i].slot);
            }
        }
        free(old[k]->e);
        *old[k] = maps[k];
    }
    t->cap = cap;
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
    if (!grow(t)) {
        tlsneg_tracker_free(t);
        return NULL;
    }
    return t;
}

void tlsneg_tracker_free(tlsneg_tracker *t)
{
    if (t) {
        free(t->ring);
        free(t->by_conn.e);
        free(t->by_key.e);
        free(t->by_session.e);
        free(t);
    }
}

size_t tlsneg_tracker_attempts(const tlsneg_tracker *t)
{
    return t->used;
}

size_t tlsneg_tracker_bytes_per_attempt(void)
{
    /* The attempt, and up to four map entries per attempt in each of three
     * maps (at least twice as many entries as attempts, up to twice more
     * while a power of two is filled). */
    return sizeof(attempt) + 3 * 4 * sizeof(entry);
}

size_t tlsneg_tracker_bytes(const tlsneg_tracker *t)
{
    return sizeof *t + t->cap * sizeof(attempt) +
           (t->by_conn.mask + 1 + t->by_key.mask + 1 + t->by_session.mask + 1) * sizeof(entry);
}

static uint64_t key_hash(const tlsneg_tracker *t, const tlsneg_peer_key *k)
{
    uint64_t h = 14695981039346656037u;
    uint8_t lens[2] = {(uint8_t)k->client_len, (uint8_t)k->server_len};
    h = fnv(h, lens, 2);
    h = fnv(h, k->client, k->client_len);
    h = fnv(h, k->server, k->server_len);
    h = fnv(h, &k->server_port, sizeof k->server_port);
    if (t->cfg.key_includes_sni && k->sni) {
        h = fnv(h, k->sni, strlen(k->sni) + 1);
    }
    return h;
}

static uint64_t session_key(const attempt *a, uint64_t session_id)
{
    return mix(a->key ^ mix(session_id));
}

/* forget removes the attempt in slot s from the maps. */
static void forget(tlsneg_tracker *t, uint32_t s)
{
    attempt *a = &t->ring[s];
    map_del(&t->by_conn, a->conn, s);
    map_del(&t->by_key, a->key, s);
    if (a->outcome == SUCCESS && a->offer.session_id) {
        map_del(&t->by_session, session_key(a, a->offer.session_id), s);
    }
}

static attempt *by_conn(tlsneg_tracker *t, uint64_t conn)
{
    uint32_t s = map_get(&t->by_conn, conn);
    return s == NONE ? NULL : &t->ring[s];
}

/* live returns the attempt in slot s if it is still the one with id. */
static attempt *live(tlsneg_tracker *t, uint32_t s, uint64_t id)
{
    return s != NONE && s < t->used && t->ring[s].id == id ? &t->ring[s] : NULL;
}

static uint32_t new_slot(tlsneg_tracker *t)
{
    if (t->used == t->cap && t->cap < t->cfg.max_attempts && grow(t)) {
        /* grown: room at the end */
    }
    if (t->used < t->cap) {
        return (uint32_t)t->used++;
    }
    uint32_t s = (uint32_t)t->next;
    t->next = (t->next + 1) % t->cap;
    forget(t, s);
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
    return a->outcome != SUCCESS && (a->outcome != TLSNEG_CAUSE_NONE || a->offer.datagram);
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
    static const char *const names[] = {"fallback", "intolerant", "fallback_rejected",
                                        "inconsistent", "resumption_change"};
    return NAME_OF(names, k);
}

const char *tlsneg_link_role_name(tlsneg_link_role r)
{
    static const char *const names[] = {"previous_attempt", "retry",           "refused_retry",
                                        "completed_by",     "session_made_in", "higher_version_in"};
    return NAME_OF(names, r);
}

const char *tlsneg_version_role_name(tlsneg_version_role r)
{
    static const char *const names[] = {"offered_before", "offered_now", "higher", "session"};
    return NAME_OF(names, r);
}

const char *tlsneg_text_role_name(tlsneg_text_role r)
{
    static const char *const names[] = {"cause", "chain", "intolerant_of", "less"};
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

uint32_t tlsneg_verdict_link(const tlsneg_verdict *v, tlsneg_link_role r)
{
    for (size_t i = 0; i < v->num_links; i++) {
        if (v->link[i].role == r) {
            return v->link[i].frame;
        }
    }
    return 0;
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

static const char *vname(uint16_t v, char *buf)
{
    return v ? tlsneg_version_name(v, buf, TLSNEG_VERSION_NAME_MAX) : "no known version";
}

static void fill_chain(tlsneg_tracker *t, const attempt *a, tlsneg_verdict *out)
{
    const attempt *steps[TLSNEG_CHAIN_MAX];
    size_t n = 0;
    for (const attempt *s = a; s && n < TLSNEG_CHAIN_MAX; s = live(t, s->prev, s->prev_id)) {
        steps[n++] = s;
    }
    out->chain_len = (uint8_t)n;
    for (size_t i = 0; i < n; i++) {
        const attempt *s = steps[n - 1 - i];
        out->chain_frames[i] = s->frame;
        out->chain_versions[i] = s->offer.has_offered_max ? s->offer.offered_max : 0;
    }
}

void tlsneg_tracker_client_hello(tlsneg_tracker *t, uint64_t conn, const tlsneg_peer_key *key,
                                 uint32_t frame, uint64_t time_us, const tlsneg_offer *offer,
                                 tlsneg_verdicts *out)
{
    out->count = 0;
    out->dropped = 0;
    if (by_conn(t, conn)) {
        return; /* after a HelloRetryRequest, or sent again: the same attempt */
    }
    uint64_t k = key_hash(t, key);
    uint32_t s = new_slot(t);
    attempt *a = &t->ring[s];
    uint32_t ks = map_get(&t->by_key, k);
    attempt *before = ks == NONE ? NULL : &t->ring[ks];

    memset(a, 0, sizeof *a);
    a->conn = conn;
    a->key = k;
    a->id = ++t->next_id;
    a->time_us = time_us;
    a->frame = frame;
    a->offer = *offer;
    a->outcome = TLSNEG_CAUSE_NONE;
    a->prev = NONE;
    a->chain_len = 1;
    if (before) {
        a->has_best = before->has_best;
        a->best_version = before->best_version;
        a->best_frame = before->best_frame;
    }
    map_put(&t->by_conn, conn, s);
    map_put(&t->by_key, k, s);

    /* A fallback: the last attempt with this key failed, not long ago, and
     * this one offers less. */
    const char *less = before ? offers_less(&before->offer, offer) : NULL;
    if (!before || !failed(before) || time_us - before->time_us > t->cfg.window_us || !less) {
        return;
    }
    a->prev = ks;
    a->prev_id = before->id;
    a->chain_len = (uint8_t)(before->chain_len < 255 ? before->chain_len + 1 : 255);
    tlsneg_verdict *v = add_verdict(out, TLSNEG_VERDICT_FALLBACK,
                                    offer->fallback_scsv ? TLSNEG_RULE_FALLBACK_RETRY_SCSV
                                                         : TLSNEG_RULE_FALLBACK_RETRY);
    if (!v) {
        return;
    }
    char cause[256], a_name[TLSNEG_VERSION_NAME_MAX], b_name[TLSNEG_VERSION_NAME_MAX];
    tlsneg_cause_text(before->outcome == TLSNEG_CAUSE_NONE ? TLSNEG_CAUSE_NO_ANSWER
                                                           : before->outcome,
                      before->alert, cause, sizeof cause);
    add_link(v, TLSNEG_LINK_PREVIOUS_ATTEMPT, before->frame);
    if (before->offer.has_offered_max) {
        add_version(v, TLSNEG_VERSION_OFFERED_BEFORE, before->offer.offered_max);
    }
    if (offer->has_offered_max) {
        add_version(v, TLSNEG_VERSION_OFFERED_NOW, offer->offered_max);
    }
    fill_chain(t, a, v);
    set_text(v, TLSNEG_TEXT_CAUSE, cause);
    char *chain = add_text(v, TLSNEG_TEXT_CHAIN);
    if (chain) {
        tlsneg_chain_text(v, chain, TLSNEG_VERDICT_TEXT_MAX);
    }
    set_text(v, TLSNEG_TEXT_LESS, less);
    set_detail(v,
               "A retry of the attempt in frame %u (up to %s, failed: %s) offering %s, up to %s, "
               "%s",
               before->frame,
               vname(before->offer.has_offered_max ? before->offer.offered_max : 0, a_name), cause,
               less, vname(offer->has_offered_max ? offer->offered_max : 0, b_name),
               offer->fallback_scsv ? "with TLS_FALLBACK_SCSV"
                                    : "without TLS_FALLBACK_SCSV: open to a downgrade attack");
}

/* what_failed names what the server could not take in the failed offer f
 * that the accepted offer ok did without. */
static void what_failed(const tlsneg_offer *f, const tlsneg_offer *ok, char *buf, size_t len)
{
    char name[TLSNEG_VERSION_NAME_MAX];
    if (f->offers_tls13 && !ok->offers_tls13) {
        snprintf(buf, len, "%s in supported_versions", f->dtls ? "DTLS 1.3" : "TLS 1.3");
    } else if (f->has_supported_versions && !ok->has_supported_versions) {
        snprintf(buf, len, "the supported_versions extension");
    } else if (offer_rank(f) > offer_rank(ok)) {
        snprintf(buf, len, "a ClientHello offering %s or more",
                 tlsneg_version_name(f->offered_max, name, sizeof name));
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
    return v == (a->offer.dtls ? TLSNEG_V_DTLS13 : TLSNEG_V_TLS13) || tlsneg_version_is_draft(v);
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

void tlsneg_tracker_server_hello(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t time_us,
                                 const tlsneg_answer *answer, tlsneg_verdicts *out)
{
    out->count = 0;
    out->dropped = 0;
    attempt *a = by_conn(t, conn);
    if (!a || answer->is_hrr || a->outcome == SUCCESS) {
        return;
    }
    a->outcome = SUCCESS;
    a->time_us = time_us;
    a->version = answer->version;
    a->answer_frame = frame;
    unsigned r = rank(&a->offer, answer->version);

    attempt *prev = live(t, a->prev, a->prev_id);
    tlsneg_verdict *v =
        prev ? add_verdict(out, TLSNEG_VERDICT_INTOLERANT, TLSNEG_RULE_VERSION_INTOLERANCE) : NULL;
    if (v) {
        char what[TLSNEG_INTOLERANT_MAX];
        what_failed(&prev->offer, &a->offer, what, sizeof what);
        fill_chain(t, a, v);
        set_text(v, TLSNEG_TEXT_INTOLERANT_OF, what);
        set_detail(v,
                   "The server failed the attempt in frame %u and completes this one: it "
                   "does not tolerate %s",
                   v->chain_len > 1 ? v->chain_frames[v->chain_len - 2] : 0, what);
    }
    if (a->has_best && r && r < rank(&a->offer, a->best_version) &&
        still_offers(&a->offer, a->best_version) &&
        (v = add_verdict(out, TLSNEG_VERDICT_INCONSISTENT, TLSNEG_RULE_INCONSISTENT_SERVER))) {
        char name[TLSNEG_VERSION_NAME_MAX];
        add_link(v, TLSNEG_LINK_HIGHER_VERSION_IN, a->best_frame);
        add_version(v, TLSNEG_VERSION_HIGHER, a->best_version);
        set_detail(v,
                   "The server put %s in force in frame %u; now it negotiates lower "
                   "although the client still offers it",
                   vname(a->best_version, name), a->best_frame);
    }
    if (r && (!a->has_best || r > rank(&a->offer, a->best_version))) {
        a->has_best = true;
        a->best_version = answer->version;
        a->best_frame = frame;
    }

    /* Sessions: TLS 1.2 and lower resume by echoing the client's session ID;
     * a TLS 1.3 server echoes it only for middlebox compatibility. */
    if (!answer->session_id || is_tls13(a, answer->version)) {
        a->offer.session_id = 0;
        return;
    }
    if (answer->session_id == a->offer.session_id) {
        uint32_t c = map_get(&t->by_session, session_key(a, answer->session_id));
        attempt *maker = c == NONE ? NULL : &t->ring[c];
        tlsneg_verdict *rv = maker && maker != a && maker->version != answer->version
                                 ? add_verdict(out, TLSNEG_VERDICT_RESUMPTION_CHANGE,
                                               TLSNEG_RULE_RESUMPTION_VERSION_CHANGE)
                                 : NULL;
        if (rv) {
            char name[TLSNEG_VERSION_NAME_MAX];
            add_link(rv, TLSNEG_LINK_SESSION_MADE_IN, maker->answer_frame);
            add_version(rv, TLSNEG_VERSION_SESSION, maker->version);
            set_detail(rv, "The session resumed here was made at %s in frame %u",
                       vname(maker->version, name), maker->answer_frame);
        }
        a->offer.session_id = 0; /* the session stays its maker's */
        return;
    }
    a->offer.session_id = answer->session_id;
    map_put(&t->by_session, session_key(a, answer->session_id), (uint32_t)(a - t->ring));
}

void tlsneg_tracker_alert(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t time_us,
                          uint8_t description, bool from_server, tlsneg_verdicts *out)
{
    out->count = 0;
    out->dropped = 0;
    (void)frame;
    attempt *a = by_conn(t, conn);
    if (!a || a->outcome != TLSNEG_CAUSE_NONE) {
        return;
    }
    if (!tlsneg_alert_ends_handshake(description)) {
        return;
    }
    a->outcome = TLSNEG_CAUSE_ALERT;
    a->alert = description;
    a->time_us = time_us;
    tlsneg_verdict *v =
        description == 86 && from_server && live(t, a->prev, a->prev_id)
            ? add_verdict(out, TLSNEG_VERDICT_FALLBACK_REJECTED, TLSNEG_RULE_FALLBACK_REJECTED)
            : NULL;
    if (v) {
        add_link(v, TLSNEG_LINK_REFUSED_RETRY, a->frame);
        set_detail(v,
                   "The server refuses the fallback retry in frame %u: the downgrade "
                   "protection worked",
                   a->frame);
    }
}

uint32_t tlsneg_tracker_close(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t time_us,
                              bool reset)
{
    (void)frame;
    attempt *a = by_conn(t, conn);
    if (!a || a->outcome != TLSNEG_CAUSE_NONE) {
        return 0;
    }
    a->outcome = reset ? TLSNEG_CAUSE_RESET : TLSNEG_CAUSE_CLOSE;
    a->time_us = time_us;
    return a->frame;
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
    case TLSNEG_CAUSE_NONE:
        snprintf(buf, buf_len, "unknown");
        break;
    }
    return buf;
}

const char *tlsneg_chain_text(const tlsneg_verdict *c, char *buf, size_t buf_len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < c->chain_len && used < buf_len; i++) {
        char name[TLSNEG_VERSION_NAME_MAX];
        int n = snprintf(buf + used, buf_len - used, "%s%s (frame %u)", i ? " -> " : "",
                         vname(c->chain_versions[i], name), c->chain_frames[i]);
        used += n > 0 ? (size_t)n : 0;
    }
    return buf;
}

void tlsneg_verdict_findings(const tlsneg_verdicts *vs, tlsneg_findings *out)
{
    for (size_t i = 0; i < vs->count; i++) {
        tlsneg_finding_add(out, vs->item[i].rule, "%s", vs->item[i].detail);
    }
}
