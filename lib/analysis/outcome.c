/* SPDX-License-Identifier: GPL-2.0-or-later */
/* outcome.c: how an attempt ends, and what that says. A ServerHello:
 * whether the server was intolerant of the higher offers its client made
 * before (or the failure had another cause), whether it negotiates lower
 * than before, ignores TLS_FALLBACK_SCSV, resumes a session at another
 * version. An alert: the client aborting what the server chose, the server
 * refusing a fallback or every version of a chain. */
#include "analysis/judge.h"

#include "core/versions.h"

#include <stdio.h>

static tlsneg_attempt *at(const tlsneg_tracker *t, uint32_t s)
{
    return tlsneg_attempts_at(&t->st, s);
}

static unsigned rank_of(bool dtls, uint16_t v)
{
    return tlsneg_version_rank(v, dtls);
}

/* judge_retry decides what the success of retry offer ao (slot as) at
 * version v says about the failed attempt prev: intolerance only when prev
 * offered v (a conforming server negotiates down to it), prev was not
 * refused as an inappropriate fallback, no HelloRetryRequest answered it
 * (the server read its versions and selected one), the server has not
 * completed an offer as high from this client before, and nothing but the
 * version signals changed; another cause when more changed. */
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
    char changed[TLSNEG_INTOLERANT_MAX], what[TLSNEG_INTOLERANT_MAX];
    bool other = tlsneg_offer_changed(&po, ao, changed, sizeof changed) != NULL;
    /* Never "only its versions" where the key exchange or the size changed
     * too (keyshare.c). */
    if (!other && tlsneg_judge_kx_lower(t, as, ao, prev, &po, best_offer, out)) {
        return;
    }
    if (best_offer && best_offer >= tlsneg_offer_rank(&po)) {
        return; /* it completed an offer as high from this client before */
    }
    if (!other && prev->hrr) {
        return; /* its HelloRetryRequest already selected TLS 1.3 (or DTLS 1.3): the failure
                   came after the versions were negotiated */
    }
    tlsneg_verdict *vd = tlsneg_verdict_add(
        out, other ? TLSNEG_VERDICT_OTHER_CAUSE : TLSNEG_VERDICT_INTOLERANT, false);
    if (!vd) {
        return;
    }
    tlsneg_judge_chain(t, as, vd);
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
                              tlsneg_judge_vname(a->best_version, a->dtls, name), a->best_frame);
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
                              tlsneg_judge_vname(a->best_version, a->dtls, name), a->best_frame);
    }
}

/* remember_best records what the server has shown this client (in a and
 * in the key's latest attempt head), for the next attempts. */
static void remember_best(tlsneg_attempt *a, tlsneg_attempt *head, const tlsneg_offer *ao,
                          const tlsneg_answer *answer, unsigned r, uint32_t frame, uint64_t time_us)
{
    uint16_t version = answer->version;
    for (tlsneg_attempt *h = a; h; h = h != head ? head : NULL) {
        bool new_best = r && (!h->has_best || r > rank_of(ao->dtls, h->best_version));
        tlsneg_kx_remember(h, ao, answer, new_best, frame, time_us);
        h->accepted |= tlsneg_version_bit(version, ao->dtls);
        if (tlsneg_offer_rank(ao) > h->best_offer) {
            h->best_offer = (uint16_t)tlsneg_offer_rank(ao);
        }
        if (new_best) {
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
                                  tlsneg_judge_vname(maker->version, maker->dtls, name),
                                  maker->answer_frame);
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
    tlsneg_verdicts_clear(out, t->cfg.no_details);
    uint32_t as = tlsneg_attempts_find(&t->st, TLSNEG_BY_CONN, conn);
    tlsneg_attempt *a = as == TLSNEG_NO_SLOT ? NULL : at(t, as);
    if (a && answer->is_hrr) {
        a->hrr = 1; /* the server read this hello whole: no intolerance of it */
    }
    if (!a || answer->is_hrr || a->outcome == TLSNEG_SUCCESS) {
        return;
    }
    unsigned best_offer = a->best_offer;
    tlsneg_attempt *head = tlsneg_attempts_get(&t->st, TLSNEG_BY_KEY, a->key);
    if (head && head->best_offer > best_offer) {
        best_offer = head->best_offer;
    }
    a->outcome = TLSNEG_SUCCESS;
    tlsneg_attempt_set_time(a, time_us);
    a->version = answer->version;
    a->answer_frame = frame;
    a->answer_sentinel = answer->sentinel;
    tlsneg_offer ao;
    tlsneg_attempt_offer(a, &ao);
    unsigned r = rank_of(ao.dtls, answer->version);

    uint32_t ps = tlsneg_attempts_prev(&t->st, as);
    bool probe = tlsneg_judge_in_probe(t, a) != NULL;
    if (ps != TLSNEG_NO_SLOT && !a->same_retry && !probe) {
        if (a->kx_retry) {
            tlsneg_judge_kx_outcome(t, as, &ao, answer, at(t, ps), out);
        } else {
            judge_retry(t, as, &ao, at(t, ps), answer->version, best_offer, out);
        }
    }
    judge_versions(a, &ao, answer, r, out);
    if (!probe) {
        tlsneg_judge_kx_pool(t, a, &ao, answer, out);
    }
    remember_best(a, head, &ao, answer, r, frame, time_us);
    judge_session(t, a, as, answer, out);
}

/* client_abort: the client ends the handshake the ServerHello started: it
 * did not accept what the server chose (RFC 8446 4.1.3: a client that sees
 * the downgrade sentinel must abort). */
static void client_abort(tlsneg_tracker *t, tlsneg_attempt *a, uint8_t description,
                         tlsneg_verdicts *out)
{
    a->outcome = TLSNEG_CAUSE_CLIENT_ABORT;
    a->alert = description;
    tlsneg_probe_rec *probe = tlsneg_judge_in_probe(t, a);
    if (probe) {
        tlsneg_judge_probe(out, &probe->probe, false);
        return;
    }
    tlsneg_verdict *v = tlsneg_verdict_add(out, TLSNEG_VERDICT_CLIENT_ABORT, false);
    if (!v) {
        return;
    }
    /* Only illegal_parameter shows the sentinel check aborted it: RFC 8446
     * 4.1.3 asks a client that sees the sentinel for that alert. */
    bool sentinel = a->answer_sentinel && a->offers_tls13;
    v->downgrade_caught = sentinel && description == 47;
    tlsneg_verdict_add_link(v, TLSNEG_LINK_ABORTED_AFTER, a->answer_frame);
    if (sentinel && !v->downgrade_caught) {
        char cause[96];
        tlsneg_cause_text(TLSNEG_CAUSE_ALERT, description, cause, sizeof cause);
        tlsneg_verdict_detail(v,
                              "The client ends the handshake with %s after the ServerHello in "
                              "frame %u, which carries a downgrade sentinel: a client that checks "
                              "it aborts with illegal_parameter (47), so this abort does not show "
                              "it did",
                              cause, a->answer_frame);
        return;
    }
    tlsneg_verdict_detail(
        v, "The client ends the handshake after the ServerHello in frame %u%s", a->answer_frame,
        v->downgrade_caught ? ", which carries a downgrade sentinel although the client "
                              "offered TLS 1.3: the downgrade protection worked"
                            : ": it did not accept what the server chose");
}

/* refused_retry judges the server's fatal alert on the retry in slot as:
 * inappropriate_fallback refuses a fallback; protocol_version says the
 * server supports none of the versions the retry offered (RFC 8446 6.2), so
 * the chain ends without a common version; of the versions of earlier
 * attempts that failed otherwise it says nothing, and the sentence names
 * those failures. Other failures may still be followed by a further retry. */
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
    char cause[96], chain[TLSNEG_VERDICT_TEXT_MAX], other[TLSNEG_VERDICT_TEXT_MAX] = "";
    tlsneg_cause_text(TLSNEG_CAUSE_ALERT, description, cause, sizeof cause);
    tlsneg_judge_chain(t, as, v);
    tlsneg_chain_text(v, chain, sizeof chain);
    tlsneg_verdict_add_link(v, TLSNEG_LINK_REFUSED_RETRY, a->frame);
    tlsneg_verdict_add_text(v, TLSNEG_TEXT_ATTEMPTS, chain);
    /* The earlier attempts that failed otherwise, oldest first: of those
     * protocol_version says nothing. */
    uint32_t steps[TLSNEG_CHAIN_MAX];
    size_t n = 0, used = 0, named = 0, more = 0;
    for (uint32_t x = tlsneg_attempts_prev(&t->st, as); x != TLSNEG_NO_SLOT && n < TLSNEG_CHAIN_MAX;
         x = tlsneg_attempts_prev(&t->st, x)) {
        steps[n++] = x;
    }
    for (size_t i = n; i-- > 0;) {
        const tlsneg_attempt *p = at(t, steps[i]);
        char how[96];
        if (p->outcome == TLSNEG_CAUSE_ALERT && p->alert == 70) {
            continue;
        }
        if (named == 2 || used >= sizeof other) {
            more++; /* the sentence keeps to its 256 bytes */
            continue;
        }
        tlsneg_cause_text(p->outcome == TLSNEG_CAUSE_NONE ? TLSNEG_CAUSE_NO_ANSWER : p->outcome,
                          p->alert, how, sizeof how);
        int w = snprintf(other + used, sizeof other - used, "%sframe %u by %s", used ? ", " : "",
                         p->frame, how);
        used += w > 0 ? (size_t)w : 0;
        named++;
    }
    if (more && used < sizeof other) {
        snprintf(other + used, sizeof other - used, ", %zu more", more);
    }
    if (!other[0]) {
        tlsneg_verdict_detail(v,
                              "The server refuses the retry in frame %u too (%s): no attempt of "
                              "the chain %s offered a version it supports",
                              a->frame, cause, chain);
        return;
    }
    char name[TLSNEG_VERSION_NAME_MAX];
    tlsneg_verdict_detail(
        v,
        "The server refuses the retry in frame %u (%s): it supports none of its "
        "versions, up to %s; earlier attempts failed otherwise: %s",
        a->frame, cause, tlsneg_judge_vname(a->has_offered_max ? a->offered_max : 0, a->dtls, name),
        other);
}

uint32_t tlsneg_tracker_alert(tlsneg_tracker *t, uint64_t conn, uint64_t time_us,
                              uint8_t description, bool ends, bool from_server,
                              tlsneg_verdicts *out)
{
    tlsneg_verdicts_clear(out, t->cfg.no_details);
    uint32_t as = tlsneg_attempts_find(&t->st, TLSNEG_BY_CONN, conn);
    tlsneg_attempt *a = as == TLSNEG_NO_SLOT ? NULL : at(t, as);
    if (!a || !ends) {
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
    tlsneg_attempt_set_time(a, time_us);
    /* A refused SCSV counts into its burst whether or not it is a probe
     * yet: the probe's text reports every refusal. */
    tlsneg_probe_rec *burst =
        t->cfg.no_probes ? NULL : tlsneg_probes_burst_of(&t->probes, &t->st, a);
    if (burst && description == 86 && from_server && a->fallback_scsv &&
        burst->probe.scsv_refused < UINT16_MAX) {
        burst->probe.scsv_refused++;
    }
    if (burst && burst->recognised) {
        tlsneg_judge_probe(out, &burst->probe, false);
        return a->frame;
    }
    if (from_server && tlsneg_attempts_prev(&t->st, as) != TLSNEG_NO_SLOT) {
        refused_retry(t, a, as, description, out);
    }
    return a->frame;
}
