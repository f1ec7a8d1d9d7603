/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracker.c: the judging of attempts across connections. Each event finds
 * its attempt in the store (attempts.h), weighs it against the attempts
 * before it (offer.h, probe.h), and adds each verdict where it decides it,
 * with its evidence and its finding's sentence (verdict.h). */
#include "analysis/tracker.h"

#include "analysis/attempts.h"
#include "analysis/probe.h"
#include "core/util.h"
#include "core/versions.h"

#include <stdlib.h>
#include <string.h>

struct tlsneg_tracker {
    tlsneg_tracker_config cfg;
    tlsneg_attempts st;
    tlsneg_probes probes;
};

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
    tlsneg_probes_init(&t->probes, t->cfg.max_attempts);
    if (!tlsneg_attempts_init(&t->st, t->cfg.max_attempts)) {
        tlsneg_tracker_free(t);
        return NULL;
    }
    return t;
}

void tlsneg_tracker_free(tlsneg_tracker *t)
{
    if (t) {
        tlsneg_attempts_free(&t->st);
        tlsneg_probes_free(&t->probes);
        free(t);
    }
}

size_t tlsneg_tracker_attempts(const tlsneg_tracker *t)
{
    return t->st.used;
}

size_t tlsneg_tracker_bytes_per_attempt(void)
{
    /* The attempt with its share of the store, and a probe record (at
     * most one per attempt). */
    return tlsneg_attempts_bytes_per_attempt() + sizeof(tlsneg_probe_rec);
}

size_t tlsneg_tracker_bytes(const tlsneg_tracker *t)
{
    return sizeof *t + tlsneg_attempts_bytes(&t->st) + tlsneg_probes_bytes(&t->probes);
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

static tlsneg_attempt *at(const tlsneg_tracker *t, uint32_t s)
{
    return tlsneg_attempts_at(&t->st, s);
}

static tlsneg_attempt *by_conn(const tlsneg_tracker *t, uint64_t conn)
{
    return tlsneg_attempts_get(&t->st, TLSNEG_BY_CONN, conn);
}

static bool failed(const tlsneg_attempt *a)
{
    return a->outcome != TLSNEG_SUCCESS && a->outcome != TLSNEG_COMPLETED &&
           (a->outcome != TLSNEG_CAUSE_NONE || a->datagram);
}

static unsigned rank_of(bool dtls, uint16_t v)
{
    return tlsneg_version_rank(v, dtls);
}

/* vname names v in a finding's sentence, or says "no known version" for 0. */
static const char *vname(uint16_t v, char *buf)
{
    return tlsneg_version_name_or_none(v != 0, v, false, buf, TLSNEG_VERSION_NAME_MAX);
}

/* fill_chain gives v the chain of retries that ends with the attempt in
 * slot s, oldest first. */
static void fill_chain(const tlsneg_tracker *t, uint32_t s, tlsneg_verdict *v)
{
    uint32_t steps[TLSNEG_CHAIN_MAX];
    size_t n = 0;
    for (uint32_t x = s; x != TLSNEG_NO_SLOT && n < TLSNEG_CHAIN_MAX;
         x = tlsneg_attempts_prev(&t->st, x)) {
        steps[n++] = x;
    }
    v->chain_len = (uint8_t)n;
    v->chain_dtls = at(t, s)->dtls;
    for (size_t i = 0; i < n; i++) {
        const tlsneg_attempt *st = at(t, steps[n - 1 - i]);
        v->chain_frames[i] = st->frame;
        v->chain_versions[i] = st->has_offered_max ? st->offered_max : 0;
        v->chain_scsv |= (uint8_t)(st->fallback_scsv ? 1u << i : 0u);
        v->chain_same |= (uint8_t)(st->same_retry ? 1u << i : 0u);
    }
}

/* ---- probes -------------------------------------------------------------- */

static void say_probe(tlsneg_verdicts *out, const tlsneg_probe *p, bool new_probe)
{
    tlsneg_verdict *v = tlsneg_verdict_add(out, TLSNEG_VERDICT_PROBE, false);
    if (!v) {
        return;
    }
    char text[TLSNEG_VERDICT_TEXT_MAX];
    tlsneg_probe_text(p, text, sizeof text);
    v->silent = !new_probe;
    v->probe = *p;
    tlsneg_verdict_add_link(v, TLSNEG_LINK_PROBE_START, p->first_frame);
    tlsneg_verdict_add_version(v, TLSNEG_VERSION_LOWEST, p->lowest);
    tlsneg_verdict_add_version(v, TLSNEG_VERSION_HIGHEST, p->highest);
    tlsneg_verdict_add_text(v, TLSNEG_TEXT_PROBE, text);
    tlsneg_verdict_detail(v,
                          "This client %s so far, changing its offer on purpose: a scanner or a "
                          "test; its attempts are not judged as fallbacks or intolerance",
                          text);
}

/* in_probe returns the record of a's probe if a belongs to a recognised
 * one, or NULL. */
static tlsneg_probe_rec *in_probe(tlsneg_tracker *t, const tlsneg_attempt *a)
{
    return t->cfg.no_probes ? NULL : tlsneg_probes_of(&t->probes, &t->st, a);
}

/* ---- ClientHello ------------------------------------------------------- */

/* A retry as decided: the attempt in slot s retries the failed attempt
 * before (whose offer is bo) with offer o. */
typedef struct {
    uint32_t s;
    const tlsneg_attempt *before;
    const tlsneg_offer *bo, *o;
    const char *less; /* how it offers less, in words (a fallback) */
} retry;

/* say_retry adds the verdict of a fallback retry, or of a retry with the
 * same offer (no fallback). */
static void say_retry(const tlsneg_tracker *t, const retry *r, bool fallback, tlsneg_verdicts *out)
{
    tlsneg_verdict *v =
        tlsneg_verdict_add(out, fallback ? TLSNEG_VERDICT_FALLBACK : TLSNEG_VERDICT_SAME_RETRY,
                           fallback && r->o->fallback_scsv);
    if (!v) {
        return;
    }
    char a[TLSNEG_VERSION_NAME_MAX], b[TLSNEG_VERSION_NAME_MAX], cause[96];
    char chain[TLSNEG_VERDICT_TEXT_MAX];
    const tlsneg_attempt *bf = r->before;
    tlsneg_cause_text(bf->outcome == TLSNEG_CAUSE_NONE ? TLSNEG_CAUSE_NO_ANSWER : bf->outcome,
                      bf->alert, cause, sizeof cause);
    fill_chain(t, r->s, v);
    tlsneg_chain_text(v, chain, sizeof chain);
    uint16_t from = r->bo->has_offered_max ? r->bo->offered_max : 0;
    uint16_t to = r->o->has_offered_max ? r->o->offered_max : 0;
    if (!fallback) {
        tlsneg_verdict_add_link(v, TLSNEG_LINK_SAME_OFFER_AS, bf->frame);
        tlsneg_verdict_add_text(v, TLSNEG_TEXT_ATTEMPTS, chain);
        tlsneg_verdict_detail(v,
                              "A retry of the attempt in frame %u (failed: %s) with the same "
                              "offer, up to %s: no fallback happened",
                              bf->frame, cause, vname(to, b));
        return;
    }
    tlsneg_verdict_add_link(v, TLSNEG_LINK_PREVIOUS_ATTEMPT, bf->frame);
    if (r->bo->has_offered_max) {
        tlsneg_verdict_add_version(v, TLSNEG_VERSION_OFFERED_BEFORE, r->bo->offered_max);
    }
    if (r->o->has_offered_max) {
        tlsneg_verdict_add_version(v, TLSNEG_VERSION_OFFERED_NOW, r->o->offered_max);
    }
    tlsneg_verdict_add_text(v, TLSNEG_TEXT_CAUSE, cause);
    tlsneg_verdict_add_text(v, TLSNEG_TEXT_CHAIN, chain);
    tlsneg_verdict_add_text(v, TLSNEG_TEXT_LESS, r->less);
    tlsneg_verdict_detail(v,
                          "A retry of the attempt in frame %u (up to %s, failed: %s) offering %s, "
                          "up to %s, %s",
                          bf->frame, vname(from, a), cause, r->less, vname(to, b),
                          r->o->fallback_scsv
                              ? "with TLS_FALLBACK_SCSV"
                              : "without TLS_FALLBACK_SCSV: open to a downgrade attack");
}

/* new_attempt makes the attempt of a ClientHello on conn, found by conn,
 * key and pair, with the history of its key (before, if any). */
static uint32_t new_attempt(tlsneg_tracker *t, uint64_t conn, uint64_t k, uint64_t pk,
                            uint32_t frame, uint64_t time_us, const tlsneg_offer *offer)
{
    uint32_t released;
    uint32_t s = tlsneg_attempts_take(&t->st, &released);
    tlsneg_probes_release(&t->probes, released);
    tlsneg_attempt *a = at(t, s);
    a->conn = conn;
    a->key = k;
    a->pair = pk;
    a->time_us = a->hello_us = time_us;
    a->frame = frame;
    tlsneg_attempt_set_offer(a, offer);
    a->outcome = TLSNEG_CAUSE_NONE;
    return s;
}

static void copy_history(tlsneg_attempt *a, const tlsneg_attempt *before)
{
    a->has_best = before->has_best;
    a->best_version = before->best_version;
    a->best_frame = before->best_frame;
    a->best_fp = before->best_fp;
    a->accepted = before->accepted;
    a->best_offer = before->best_offer;
}

/* A retry: the last attempt with this key failed, not long ago. It is a
 * fallback if it offers less and its highest version was offered before
 * (what else changed decides, once it succeeds, whether the server is
 * intolerant); a retry of the same offer if it offers the same hello.
 * Anything else is another offer. A dance starts with the client's best
 * offer: a failed attempt that is no retry itself, but offered less than
 * an earlier hello of the same burst to this server, is a probe's step,
 * not the start of a dance (nmap tries TLS 1.2, then 1.1, then 1.0, each
 * once). */
static void weigh_retry(const tlsneg_tracker *t, retry *r, uint64_t time_us, bool *fallback,
                        bool *same, bool *changed)
{
    const tlsneg_attempt *b = r->before;
    *fallback = *same = *changed = false;
    r->less = NULL;
    bool starts = (b->prev_back && !b->changed_retry) || !b->probed ||
                  tlsneg_offer_rank(r->bo) >= rank_of(b->dtls, b->probe_highest);
    if (!starts || !failed(b) || time_us - b->time_us > t->cfg.window_us) {
        return;
    }
    char what[TLSNEG_INTOLERANT_MAX];
    r->less = tlsneg_offer_less(r->bo, r->o);
    bool lower = r->less && r->o->has_offered_max && tlsneg_offer_offers(r->bo, r->o->offered_max);
    *changed = lower && tlsneg_offer_changed(r->bo, r->o, what, sizeof what);
    *fallback = lower && !*changed;
    /* A datagram attempt that got no answer may have been answered out of
     * sight: only a seen failure makes a same-offer retry. */
    *same = !r->less && b->outcome != TLSNEG_CAUSE_NONE && tlsneg_offer_same(r->bo, r->o);
}

void tlsneg_tracker_client_hello(tlsneg_tracker *t, uint64_t conn, const tlsneg_peer_key *key,
                                 uint32_t frame, uint64_t time_us, const tlsneg_offer *offer,
                                 tlsneg_verdicts *out)
{
    out->count = out->dropped = 0;
    if (by_conn(t, conn)) {
        return; /* after a HelloRetryRequest, or sent again: the same attempt */
    }
    uint64_t k = key_hash(t, key), pk = pair_hash(key);
    uint32_t s = new_attempt(t, conn, k, pk, frame, time_us, offer);
    tlsneg_attempt *a = at(t, s);
    uint32_t ks = tlsneg_attempts_find(&t->st, TLSNEG_BY_KEY, k);
    tlsneg_attempt *before = ks == TLSNEG_NO_SLOT ? NULL : at(t, ks);
    tlsneg_attempt *pbefore = tlsneg_attempts_get(&t->st, TLSNEG_BY_PAIR, pk);
    if (before) {
        copy_history(a, before);
    }
    tlsneg_attempts_index(&t->st, TLSNEG_BY_CONN, conn, s);
    tlsneg_attempts_index(&t->st, TLSNEG_BY_KEY, k, s);
    tlsneg_attempts_index(&t->st, TLSNEG_BY_PAIR, pk, s);

    tlsneg_offer bo;
    retry r = {s, before, &bo, offer, NULL};
    bool fallback = false, same = false, changed = false;
    if (before) {
        tlsneg_attempt_offer(before, &bo);
        weigh_retry(t, &r, time_us, &fallback, &same, &changed);
    }
    if (!t->cfg.no_probes) {
        tlsneg_probe p;
        tlsneg_probe_state ps =
            tlsneg_probes_count(&t->probes, a, pbefore, fallback || same, t->cfg.window_us, &p);
        if (ps != TLSNEG_PROBE_NONE) {
            say_probe(out, &p, ps == TLSNEG_PROBE_NEW);
            return; /* a probe: no fallback, no chain */
        }
    }
    if (!fallback && !same && !changed) {
        return;
    }
    a->prev_back = (uint32_t)(tlsneg_attempts_id(&t->st, s) - tlsneg_attempts_id(&t->st, ks));
    a->same_retry = same;
    a->changed_retry = changed;
    if (!changed) { /* else linked for its outcome only: another offer, not a fallback */
        say_retry(t, &r, fallback, out);
    }
}

/* ---- ServerHello ------------------------------------------------------- */

/* judge_retry decides what the success of retry offer ao (slot as) at
 * version v says about the failed attempt prev: intolerance only when prev
 * offered v (a conforming server negotiates down to it), prev was not
 * refused as an inappropriate fallback, the server has not completed an
 * offer as high from this client before, and nothing but the version
 * signals changed; another cause when more changed. */
static void judge_retry(const tlsneg_tracker *t, uint32_t as, const tlsneg_offer *ao,
                        const tlsneg_attempt *prev, uint16_t v, unsigned best_offer,
                        tlsneg_verdicts *out)
{
    if (prev->outcome == TLSNEG_CAUSE_ALERT && prev->alert == 86) {
        return; /* RFC 7507 3: the protection working */
    }
    if (prev->outcome == TLSNEG_CAUSE_CLIENT_ABORT) {
        return; /* the server answered; the client refused */
    }
    tlsneg_offer po;
    tlsneg_attempt_offer(prev, &po);
    if (!tlsneg_offer_offers(&po, v)) {
        return; /* no common version with that offer, not intolerance */
    }
    if (best_offer && best_offer >= tlsneg_offer_rank(&po)) {
        return; /* it completed an offer as high from this client before */
    }
    char changed[TLSNEG_INTOLERANT_MAX], what[TLSNEG_INTOLERANT_MAX];
    bool other = tlsneg_offer_changed(&po, ao, changed, sizeof changed) != NULL;
    tlsneg_verdict *vd = tlsneg_verdict_add(
        out, other ? TLSNEG_VERDICT_OTHER_CAUSE : TLSNEG_VERDICT_INTOLERANT, false);
    if (!vd) {
        return;
    }
    fill_chain(t, as, vd);
    if (other) {
        tlsneg_verdict_add_text(vd, TLSNEG_TEXT_CHANGED, changed);
        tlsneg_verdict_detail(vd,
                              "The server failed the attempt in frame %u and completes this one, "
                              "but the retry also changed its %s: the failure likely has another "
                              "cause than the version, so no intolerance is concluded",
                              prev->frame, changed);
        return;
    }
    tlsneg_offer_refused(&po, ao, what, sizeof what);
    tlsneg_verdict_add_text(vd, TLSNEG_TEXT_INTOLERANT_OF, what);
    tlsneg_verdict_detail(vd,
                          "The server failed the attempt in frame %u and completes this one, "
                          "whose hello differs only in its versions: it does not tolerate %s",
                          vd->chain_len > 1 ? vd->chain_frames[vd->chain_len - 2] : 0, what);
}

static bool is_tls13(const tlsneg_attempt *a, uint16_t v)
{
    return v == (a->dtls ? TLSNEG_V_DTLS13 : TLSNEG_V_TLS13) || tlsneg_version_is_draft(v);
}

/* judge_versions compares the version the server puts in force for a (rank
 * r) with the highest one it put in force for this client before. */
static void judge_versions(const tlsneg_attempt *a, const tlsneg_offer *ao,
                           const tlsneg_answer *answer, unsigned r, tlsneg_verdicts *out)
{
    char name[TLSNEG_VERSION_NAME_MAX];
    tlsneg_verdict *v;
    if (!a->has_best || !r) {
        return;
    }
    unsigned best = rank_of(ao->dtls, a->best_version);
    if (r < best && tlsneg_offer_still_offers(ao, a->best_version) &&
        (!ao->has_fingerprint || !a->best_fp || a->best_fp == ao->fp_all) &&
        (v = tlsneg_verdict_add(out, TLSNEG_VERDICT_INCONSISTENT, false))) {
        tlsneg_verdict_add_link(v, TLSNEG_LINK_HIGHER_VERSION_IN, a->best_frame);
        tlsneg_verdict_add_version(v, TLSNEG_VERSION_HIGHER, a->best_version);
        tlsneg_verdict_detail(v,
                              "The server put %s in force in frame %u; now it negotiates lower "
                              "although the client still offers it",
                              vname(a->best_version, name), a->best_frame);
    }
    /* RFC 7507 3: a hello marked with the SCSV answered below a version the
     * server put in force for this client before (with a sentinel of its
     * own, the checks judge the ServerHello alone). */
    if (ao->fallback_scsv && !answer->sentinel && best > tlsneg_offer_rank(ao) &&
        (v = tlsneg_verdict_add(out, TLSNEG_VERDICT_IGNORED_SCSV, false))) {
        tlsneg_verdict_add_link(v, TLSNEG_LINK_HIGHER_VERSION_IN, a->best_frame);
        tlsneg_verdict_add_version(v, TLSNEG_VERSION_HIGHER, a->best_version);
        tlsneg_verdict_detail(v,
                              "The ClientHello carries TLS_FALLBACK_SCSV and offers less than %s, "
                              "which the server put in force for this client in frame %u; it "
                              "answers instead of refusing with inappropriate_fallback",
                              vname(a->best_version, name), a->best_frame);
    }
}

/* remember_best records what the server has shown this client (in a and
 * in the key's latest attempt head), for the next attempts. */
static void remember_best(tlsneg_attempt *a, tlsneg_attempt *head, const tlsneg_offer *ao,
                          uint16_t version, unsigned r, uint32_t frame)
{
    for (tlsneg_attempt *h = a; h; h = h != head ? head : NULL) {
        h->accepted |= tlsneg_version_bit(version, ao->dtls);
        if (tlsneg_offer_rank(ao) > h->best_offer) {
            h->best_offer = (uint16_t)tlsneg_offer_rank(ao);
        }
        if (r && (!h->has_best || r > rank_of(ao->dtls, h->best_version))) {
            h->has_best = true;
            h->best_version = version;
            h->best_frame = frame;
            h->best_fp = ao->fp_all;
        }
    }
}

/* session_drop takes the session of the attempt in slot s out of the
 * session table. */
static void session_drop(tlsneg_tracker *t, tlsneg_attempt *a, uint32_t s)
{
    if (a->in_session) {
        tlsneg_attempts_unindex(&t->st, TLSNEG_BY_SESSION,
                                tlsneg_attempts_session_key(a, a->session_id), s);
        a->in_session = 0;
    }
}

/* judge_session: TLS 1.2 and lower resume by echoing the client's session
 * ID; a TLS 1.3 server echoes it only for middlebox compatibility. */
static void judge_session(tlsneg_tracker *t, tlsneg_attempt *a, uint32_t as,
                          const tlsneg_answer *answer, tlsneg_verdicts *out)
{
    char name[TLSNEG_VERSION_NAME_MAX];
    if (!answer->session_id || is_tls13(a, answer->version)) {
        session_drop(t, a, as);
        a->session_id = 0;
        return;
    }
    if (answer->session_id == a->session_id) {
        uint64_t sk = tlsneg_attempts_session_key(a, answer->session_id);
        tlsneg_attempt *maker = tlsneg_attempts_get(&t->st, TLSNEG_BY_SESSION, sk);
        tlsneg_verdict *v;
        if (maker && maker != a && maker->version != answer->version &&
            (v = tlsneg_verdict_add(out, TLSNEG_VERDICT_RESUMPTION_CHANGE, false))) {
            tlsneg_verdict_add_link(v, TLSNEG_LINK_SESSION_MADE_IN, maker->answer_frame);
            tlsneg_verdict_add_version(v, TLSNEG_VERSION_SESSION, maker->version);
            tlsneg_verdict_detail(v, "The session resumed here was made at %s in frame %u",
                                  vname(maker->version, name), maker->answer_frame);
        }
        session_drop(t, a, as);
        a->session_id = 0; /* the session stays its maker's */
        return;
    }
    session_drop(t, a, as);
    a->session_id = answer->session_id;
    a->in_session = 1;
    tlsneg_attempts_index(&t->st, TLSNEG_BY_SESSION,
                          tlsneg_attempts_session_key(a, answer->session_id), as);
}

void tlsneg_tracker_server_hello(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t time_us,
                                 const tlsneg_answer *answer, tlsneg_verdicts *out)
{
    out->count = out->dropped = 0;
    uint32_t as = tlsneg_attempts_find(&t->st, TLSNEG_BY_CONN, conn);
    tlsneg_attempt *a = as == TLSNEG_NO_SLOT ? NULL : at(t, as);
    if (!a || answer->is_hrr || a->outcome == TLSNEG_SUCCESS) {
        return;
    }
    unsigned best_offer = a->best_offer;
    tlsneg_attempt *head = tlsneg_attempts_get(&t->st, TLSNEG_BY_KEY, a->key);
    if (head && head->best_offer > best_offer) {
        best_offer = head->best_offer;
    }
    a->outcome = TLSNEG_SUCCESS;
    a->time_us = time_us;
    a->version = answer->version;
    a->answer_frame = frame;
    a->answer_sentinel = answer->sentinel;
    tlsneg_offer ao;
    tlsneg_attempt_offer(a, &ao);
    unsigned r = rank_of(ao.dtls, answer->version);

    uint32_t ps = tlsneg_attempts_prev(&t->st, as);
    if (ps != TLSNEG_NO_SLOT && !a->same_retry && !in_probe(t, a)) {
        judge_retry(t, as, &ao, at(t, ps), answer->version, best_offer, out);
    }
    judge_versions(a, &ao, answer, r, out);
    remember_best(a, head, &ao, answer->version, r, frame);
    judge_session(t, a, as, answer, out);
}

/* ---- alerts, closes, progress ------------------------------------------ */

/* client_abort: the client ends the handshake the ServerHello started: it
 * did not accept what the server chose (RFC 8446 4.1.3: a client that sees
 * the downgrade sentinel must abort). */
static void client_abort(tlsneg_tracker *t, tlsneg_attempt *a, uint8_t description,
                         tlsneg_verdicts *out)
{
    a->outcome = TLSNEG_CAUSE_CLIENT_ABORT;
    a->alert = description;
    tlsneg_probe_rec *probe = in_probe(t, a);
    if (probe) {
        say_probe(out, &probe->probe, false);
        return;
    }
    tlsneg_verdict *v = tlsneg_verdict_add(out, TLSNEG_VERDICT_CLIENT_ABORT, false);
    if (!v) {
        return;
    }
    v->downgrade_caught = a->answer_sentinel && a->offers_tls13;
    tlsneg_verdict_add_link(v, TLSNEG_LINK_ABORTED_AFTER, a->answer_frame);
    tlsneg_verdict_detail(
        v, "The client ends the handshake after the ServerHello in frame %u%s", a->answer_frame,
        v->downgrade_caught ? ", which carries a downgrade sentinel although the client "
                              "offered TLS 1.3: the downgrade protection worked"
                            : ": it did not accept what the server chose");
}

/* refused_retry judges the server's fatal alert on the retry in slot as:
 * inappropriate_fallback refuses a fallback; protocol_version says the
 * server supports none of the versions offered (RFC 8446 6.2), so the chain
 * ends without a common version. Other failures may still be followed by a
 * further retry. */
static void refused_retry(const tlsneg_tracker *t, const tlsneg_attempt *a, uint32_t as,
                          uint8_t description, tlsneg_verdicts *out)
{
    tlsneg_verdict *v;
    if (description == 86 && !a->same_retry) {
        if ((v = tlsneg_verdict_add(out, TLSNEG_VERDICT_FALLBACK_REJECTED, false))) {
            tlsneg_verdict_add_link(v, TLSNEG_LINK_REFUSED_RETRY, a->frame);
            tlsneg_verdict_detail(v,
                                  "The server refuses the fallback retry in frame %u: the "
                                  "downgrade protection worked",
                                  a->frame);
        }
        return;
    }
    if (description != 70 ||
        !(v = tlsneg_verdict_add(out, TLSNEG_VERDICT_NO_COMMON_VERSION, false))) {
        return;
    }
    char cause[96], chain[TLSNEG_VERDICT_TEXT_MAX];
    tlsneg_cause_text(TLSNEG_CAUSE_ALERT, description, cause, sizeof cause);
    fill_chain(t, as, v);
    tlsneg_chain_text(v, chain, sizeof chain);
    tlsneg_verdict_add_link(v, TLSNEG_LINK_REFUSED_RETRY, a->frame);
    tlsneg_verdict_add_text(v, TLSNEG_TEXT_ATTEMPTS, chain);
    tlsneg_verdict_detail(v,
                          "The server refuses the retry in frame %u too (%s): no attempt of the "
                          "chain %s offered a version it supports",
                          a->frame, cause, chain);
}

uint32_t tlsneg_tracker_alert(tlsneg_tracker *t, uint64_t conn, uint64_t time_us,
                              uint8_t description, bool from_server, tlsneg_verdicts *out)
{
    out->count = out->dropped = 0;
    uint32_t as = tlsneg_attempts_find(&t->st, TLSNEG_BY_CONN, conn);
    tlsneg_attempt *a = as == TLSNEG_NO_SLOT ? NULL : at(t, as);
    if (!a || !tlsneg_alert_ends_handshake(description)) {
        return 0;
    }
    if (a->outcome == TLSNEG_SUCCESS && !from_server && a->progress != 3) {
        client_abort(t, a, description, out);
        return a->frame;
    }
    if (a->outcome != TLSNEG_CAUSE_NONE) {
        return 0;
    }
    a->outcome = TLSNEG_CAUSE_ALERT;
    a->alert = description;
    a->time_us = time_us;
    tlsneg_probe_rec *probe = in_probe(t, a);
    if (probe) {
        if (description == 86 && from_server && a->fallback_scsv &&
            probe->probe.scsv_refused < UINT16_MAX) {
            probe->probe.scsv_refused++;
        }
        say_probe(out, &probe->probe, false);
        return a->frame;
    }
    if (from_server && tlsneg_attempts_prev(&t->st, as) != TLSNEG_NO_SLOT) {
        refused_retry(t, a, as, description, out);
    }
    return a->frame;
}

uint8_t tlsneg_tracker_cause(const tlsneg_tracker *t, uint64_t conn, uint8_t *alert)
{
    const tlsneg_attempt *a = by_conn(t, conn);
    *alert = a ? a->alert : 0;
    if (!a || a->outcome == TLSNEG_SUCCESS || a->outcome == TLSNEG_COMPLETED) {
        return TLSNEG_CAUSE_NONE;
    }
    return a->outcome;
}

uint32_t tlsneg_tracker_close(tlsneg_tracker *t, uint64_t conn, uint64_t time_us, bool reset)
{
    tlsneg_attempt *a = by_conn(t, conn);
    if (!a || a->outcome != TLSNEG_CAUSE_NONE) {
        return 0;
    }
    a->outcome = reset ? TLSNEG_CAUSE_RESET : TLSNEG_CAUSE_CLOSE;
    a->time_us = time_us;
    return a->frame;
}

void tlsneg_tracker_progress(tlsneg_tracker *t, uint64_t conn, bool from_server)
{
    tlsneg_attempt *a = by_conn(t, conn);
    if (!a) {
        return;
    }
    a->progress |= from_server ? 2 : 1;
    if (a->progress == 3 && a->outcome == TLSNEG_CAUSE_NONE) {
        a->outcome = TLSNEG_COMPLETED; /* the ServerHello is missing from the capture */
    }
}
