/* SPDX-License-Identifier: GPL-2.0-or-later */
/* retry.c: a ClientHello judged against the attempts before it: a new
 * attempt in the store, counted into its client's burst (a probe?), and
 * weighed against its key's last attempt: a fallback retry, a retry of the
 * same offer, or another offer. */
#include "analysis/judge.h"

#include "core/util.h"
#include "core/versions.h"

#include <string.h>

/* pair_hash: the client and the server's address, port and transport,
 * whatever the SNI: a scanner may send it in some hellos and not in others.
 * The transport (the offer's, tlsneg_offer_transport) keeps a QUIC or DTLS
 * server on a UDP port apart from the TLS server on the same TCP port: other
 * server stacks, whose answers say nothing of each other (a browser going
 * from QUIC to TCP falls back from no TLS version). */
static uint64_t pair_hash(const tlsneg_peer_key *k, const tlsneg_offer *o)
{
    uint64_t h = tlsneg_hash_mix(tlsneg_hash_bytes(k->client, k->client_len),
                                 tlsneg_hash_bytes(k->server, k->server_len));
    return tlsneg_hash_mix(h, (uint64_t)k->server_port << 8 | tlsneg_offer_transport(o));
}

/* key_hash: the pair, and the SNI when the key includes it. */
static uint64_t key_hash(const tlsneg_tracker *t, const tlsneg_peer_key *k, uint64_t pair)
{
    if (t->cfg.key_includes_sni && k->sni) {
        return tlsneg_hash_mix(pair, tlsneg_hash_bytes(k->sni, strlen(k->sni) + 1));
    }
    return pair;
}

static tlsneg_attempt *at(const tlsneg_tracker *t, uint32_t s)
{
    return tlsneg_attempts_at(&t->st, s);
}

static unsigned rank_of(bool dtls, uint16_t v)
{
    return tlsneg_version_rank(v, dtls);
}

static bool failed(const tlsneg_attempt *a)
{
    return a->outcome != TLSNEG_SUCCESS && a->outcome != TLSNEG_COMPLETED &&
           (a->outcome != TLSNEG_CAUSE_NONE || a->datagram);
}

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
    /* TLS_FALLBACK_SCSV marks a lower highest version (RFC 7507 1): a retry
     * that keeps its highest version is neither guarded nor exposed by it,
     * and never makes the marked variant, whose row says a server that
     * supports more refuses it: a TLS 1.3 server reads the versions from
     * supported_versions (RFC 8446 4.2.1), and one still offering TLS 1.3
     * offers it as much as it supports. */
    bool lower = tlsneg_offer_rank(r->o) < tlsneg_offer_rank(r->bo);
    tlsneg_verdict *v =
        tlsneg_verdict_add(out, fallback ? TLSNEG_VERDICT_FALLBACK : TLSNEG_VERDICT_SAME_RETRY,
                           fallback && lower && r->o->fallback_scsv);
    if (!v) {
        return;
    }
    char a[TLSNEG_VERSION_NAME_MAX], b[TLSNEG_VERSION_NAME_MAX], cause[96];
    char chain[TLSNEG_VERDICT_TEXT_MAX];
    const tlsneg_attempt *bf = r->before;
    tlsneg_cause_text(bf->outcome == TLSNEG_CAUSE_NONE ? TLSNEG_CAUSE_NO_ANSWER : bf->outcome,
                      bf->alert, cause, sizeof cause);
    tlsneg_judge_chain(t, r->s, v);
    tlsneg_chain_text(v, chain, sizeof chain);
    uint16_t from = r->bo->has_offered_max ? r->bo->offered_max : 0;
    uint16_t to = r->o->has_offered_max ? r->o->offered_max : 0;
    if (!fallback) {
        /* A resumption given up: the same offer without its pre_shared_key
         * or early_data (tlsneg_offer_less). */
        unsigned gone = r->bo->tls13_extensions & ~r->o->tls13_extensions &
                        (TLSNEG_OFFER_PRE_SHARED_KEY | TLSNEG_OFFER_EARLY_DATA);
        const char *without = gone == (TLSNEG_OFFER_PRE_SHARED_KEY | TLSNEG_OFFER_EARLY_DATA)
                                  ? ", leaving out its pre_shared_key and early_data (a resumption)"
                              : gone == TLSNEG_OFFER_PRE_SHARED_KEY
                                  ? ", leaving out its pre_shared_key (a resumption)"
                              : gone ? ", leaving out its early_data"
                                     : "";
        tlsneg_verdict_add_link(v, TLSNEG_LINK_SAME_OFFER_AS, bf->frame);
        tlsneg_verdict_add_text(v, TLSNEG_TEXT_ATTEMPTS, chain);
        tlsneg_verdict_detail(v,
                              "A retry of the attempt in frame %u (failed: %s) with the same "
                              "offer, up to %s%s: no fallback happened",
                              bf->frame, cause, tlsneg_judge_vname(to, r->o->dtls, b), without);
        return;
    }
    tlsneg_verdict_add_link(v, TLSNEG_LINK_PREVIOUS_ATTEMPT, bf->frame);
    if (bf->fail_frame) {
        tlsneg_verdict_add_link(v, TLSNEG_LINK_PREVIOUS_FAILED_IN, bf->fail_frame);
    }
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
                          bf->frame, tlsneg_judge_vname(from, r->bo->dtls, a), cause, r->less,
                          tlsneg_judge_vname(to, r->o->dtls, b),
                          !lower ? "the same highest version: TLS_FALLBACK_SCSV, which marks a "
                                   "lower one, has no part in it"
                          : r->o->fallback_scsv
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
    a->hello_us = time_us;
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
    a->best_fits = before->best_fits;
    a->pq_frame = before->pq_frame;
    a->pq_fp = before->pq_fp;
    a->pq_s = before->pq_s;
    a->pq_ok = before->pq_ok;
    a->split_ok = before->split_ok;
    a->pq_listed_ok = before->pq_listed_ok;
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
static void weigh_retry(const tlsneg_tracker *t, retry *r, uint64_t time_us, uint64_t opened_us,
                        bool *fallback, bool *same, bool *changed, bool *kx)
{
    const tlsneg_attempt *b = r->before;
    *fallback = *same = *changed = *kx = false;
    r->less = NULL;
    bool starts = (b->prev_back && !b->changed_retry) || !b->probed ||
                  tlsneg_offer_rank(r->bo) >= rank_of(b->dtls, b->probe_highest);
    if (!starts || !failed(b) || time_us - tlsneg_attempt_time(b) > t->cfg.window_us) {
        return;
    }
    /* A connection opened before b failed (a browser opens a second one
     * while the first still waits) runs in parallel with b: whatever it
     * offers, it answers no failure. */
    if (tlsneg_attempt_time(b) > (opened_us && opened_us <= time_us ? opened_us : time_us)) {
        return;
    }
    char what[TLSNEG_INTOLERANT_MAX];
    r->less = tlsneg_offer_less(r->bo, r->o);
    /* A failed attempt that offered no known version (a supported_versions
     * of GREASE only, which a server must refuse, RFC 8446 4.2.1, or of
     * values tlsneg does not know) has no highest version a retry could
     * fall back from. */
    bool lower = r->less && r->bo->has_offered_max && r->o->has_offered_max &&
                 tlsneg_offer_offers(r->bo, r->o->offered_max);
    *changed = lower && tlsneg_offer_changed(r->bo, r->o, what, sizeof what);
    *fallback = lower && !*changed;
    /* A datagram attempt that got no answer may have been answered out of
     * sight: only a seen failure makes a same-offer retry. */
    *same = !r->less && b->outcome != TLSNEG_CAUSE_NONE && tlsneg_offer_same(r->bo, r->o);
    /* The same versions, suites, signature algorithms and extensions, other
     * groups, shares or size (keyshare.c). */
    *kx = !r->less && !*same && b->outcome != TLSNEG_CAUSE_NONE && tlsneg_kx_only(r->bo, r->o);
}

void tlsneg_tracker_client_hello(tlsneg_tracker *t, uint64_t conn, const tlsneg_peer_key *key,
                                 uint32_t frame, uint64_t time_us, uint64_t opened_us,
                                 const tlsneg_offer *offer, tlsneg_verdicts *out)
{
    tlsneg_verdicts_clear(out, t->cfg.no_details);
    if (tlsneg_attempts_get(&t->st, TLSNEG_BY_CONN, conn)) {
        return; /* after a HelloRetryRequest, or sent again: the same attempt */
    }
    uint64_t pk = pair_hash(key, offer), k = key_hash(t, key, pk);
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
    bool fallback = false, same = false, changed = false, kx = false;
    if (before) {
        tlsneg_attempt_offer(before, &bo);
        weigh_retry(t, &r, time_us, opened_us, &fallback, &same, &changed, &kx);
    }
    if (!t->cfg.no_probes) {
        /* A retry that changes only its groups (no post-quantum group or
         * share dropped, no smaller hello) is a variation: a scanner tries
         * one group per hello; no client's dance does that. */
        tlsneg_kx_diff d = kx ? tlsneg_kx_compare(&bo, offer) : (tlsneg_kx_diff){0};
        bool kx_step = kx && (d.pq_share || d.pq_group || d.size);
        tlsneg_probe_rec p;
        tlsneg_probe_state ps = tlsneg_probes_count(
            &t->probes, a, pbefore, fallback || same || kx_step, t->cfg.window_us, &p);
        if (ps != TLSNEG_PROBE_NONE) {
            tlsneg_verdict *v = tlsneg_judge_probe(out, &p.probe, ps == TLSNEG_PROBE_NEW);
            for (size_t i = 0; v && ps == TLSNEG_PROBE_NEW && i < p.num_earlier; i++) {
                if (p.earlier[i] != a->frame) {
                    v->probe_earlier[v->probe_earlier_len++] = p.earlier[i];
                }
            }
            return; /* a probe: no fallback, no chain */
        }
    }
    if (!fallback && !same && !changed && !kx) {
        return;
    }
    a->prev_back = (uint32_t)(tlsneg_attempts_id(&t->st, s) - tlsneg_attempts_id(&t->st, ks));
    a->same_retry = same;
    a->changed_retry = changed;
    a->kx_retry = kx;
    if (kx) {
        tlsneg_judge_kx_fallback(before, &bo, offer, out);
    } else if (!changed) { /* else linked for its outcome only: another offer, not a fallback */
        say_retry(t, &r, fallback, out);
    }
}
