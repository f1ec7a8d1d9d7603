/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keyshare.c: attempts compared by their key exchange and size: a retry
 * that drops the post-quantum group or share of a failed attempt (an
 * induced downgrade), the server that failed a post-quantum or split hello
 * and completed one without, a retry that changed its versions and its key
 * exchange at once (which of them failed, the capture may not tell), and a
 * server address and port that chooses post-quantum for a client one time
 * and classical the next (a mixed pool). */
#include "analysis/judge.h"

#include "core/groups.h"
#include "core/util.h"
#include "core/versions.h"

#include <stdio.h>
#include <string.h>

/* A handshake message longer than this (its header included) may not fit
 * one TCP segment: 1,448 bytes of payload on a 1,500-byte MTU with TCP
 * timestamps, less the 5-byte record header, less what tunnels and IP
 * options take. Used only where the front end does not count segments. */
#define LARGE_HELLO 1400u

/* split says whether o's hello took (or likely took) several segments. */
static bool split(const tlsneg_offer *o)
{
    return o->hello_segments ? o->hello_segments > 1 : o->hello_length > LARGE_HELLO;
}

tlsneg_kx_diff tlsneg_kx_compare(const tlsneg_offer *f, const tlsneg_offer *r)
{
    tlsneg_kx_diff d = {0};
    d.pq_share = f->pq_key_share && !r->pq_key_share;
    d.pq_group = f->pq_offered && !r->pq_offered;
    d.groups = f->pq_offered != r->pq_offered || f->pq_key_share != r->pq_key_share ||
               (f->has_fingerprint && r->has_fingerprint && f->fp_groups != r->fp_groups);
    d.size = split(f) && !split(r);
    return d;
}

/* same_versions: both offers offer the same versions the same way. */
static bool same_versions(const tlsneg_offer *a, const tlsneg_offer *b)
{
    return a->has_offered_max == b->has_offered_max && a->offered_max == b->offered_max &&
           a->has_supported_versions == b->has_supported_versions &&
           a->offers_tls13 == b->offers_tls13 && a->versions == b->versions &&
           a->drafts == b->drafts;
}

bool tlsneg_kx_only(const tlsneg_offer *f, const tlsneg_offer *r)
{
    if (!f->has_fingerprint || !r->has_fingerprint || !same_versions(f, r) ||
        f->fp_suites != r->fp_suites || f->fp_sigalgs != r->fp_sigalgs ||
        f->fp_exts != r->fp_exts) {
        return false;
    }
    tlsneg_kx_diff d = tlsneg_kx_compare(f, r);
    return d.pq_share || d.pq_group || d.groups || d.size;
}

static const char *gname(uint16_t g, char *buf, size_t len)
{
    return tlsneg_named_group_text(g, "group ", buf, len);
}

/* what_changed lists in buf, "X, Y or Z" (conj " or "), what the failed offer f had and
 * the retry r has not: the versions (if versions), the post-quantum share
 * or group (unless early: the server ended f before its hello was complete,
 * so it cannot have judged the share), the size; returns how many. Other
 * groups alone are never named: a conforming server ignores the groups it
 * does not support. */
static unsigned what_changed(const tlsneg_offer *f, const tlsneg_offer *r, bool versions,
                             bool early, const char *conj, char *buf, size_t len)
{
    tlsneg_kx_diff d = tlsneg_kx_compare(f, r);
    char what[4][TLSNEG_VERDICT_TEXT_MAX / 2], g[32];
    unsigned n = 0;
    if (versions) {
        tlsneg_offer_refused(f, r, what[n++], sizeof what[0]);
    }
    if (d.pq_share && !early) {
        snprintf(what[n++], sizeof what[0], "the %s key share", gname(f->pq_group, g, sizeof g));
    } else if (d.pq_group && !early) {
        snprintf(what[n++], sizeof what[0], "the group %s", gname(f->pq_group, g, sizeof g));
    }
    if (d.size && f->hello_segments && r->hello_segments) {
        snprintf(what[n++], sizeof what[0], "its size (%u bytes in %u segments, then %u in %u)",
                 f->hello_length, f->hello_segments, r->hello_length, r->hello_segments);
    } else if (d.size) {
        snprintf(what[n++], sizeof what[0], "its size (%u bytes, then %u)", f->hello_length,
                 r->hello_length);
    }
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < n && used < len; i++) {
        const char *sep = i == 0 ? "" : i + 1 == n ? conj : ", ";
        int w = snprintf(buf + used, len - used, "%s%s", sep, what[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    return n;
}

/* cause_of writes how the attempt b failed, and where if known. */
static void cause_of(const tlsneg_attempt *b, char *cause, size_t len)
{
    tlsneg_cause_text(b->outcome == TLSNEG_CAUSE_NONE ? TLSNEG_CAUSE_NO_ANSWER : b->outcome,
                      b->alert, cause, len);
}

static void at_frame(uint32_t frame, char *buf, size_t len)
{
    if (frame) {
        snprintf(buf, len, ", frame %u", frame);
    } else {
        buf[0] = '\0';
    }
}

void tlsneg_judge_kx_fallback(const tlsneg_attempt *b, const tlsneg_offer *bo,
                              const tlsneg_offer *o, tlsneg_verdicts *out)
{
    tlsneg_kx_diff d = tlsneg_kx_compare(bo, o);
    tlsneg_verdict *v;
    if ((!d.pq_share && !d.pq_group) ||
        !(v = tlsneg_verdict_add(out, TLSNEG_VERDICT_KEY_SHARE_FALLBACK, false))) {
        return;
    }
    char g[32], dropped[96], cause[96], where[32];
    const char *name = gname(bo->pq_group, g, sizeof g);
    /* Only a retry without the group leaves no way back to post-quantum;
     * one that still lists it can be asked for its share (RFC 8446 4.1.4). */
    const char *so = d.pq_group ? ": an induced downgrade to classical key exchange"
                                : ": a HelloRetryRequest could restore it";
    if (d.pq_share && d.pq_group) {
        snprintf(dropped, sizeof dropped, "the %s key share and group", name);
    } else if (d.pq_share) {
        snprintf(dropped, sizeof dropped, "the %s key share, the group still offered", name);
    } else {
        snprintf(dropped, sizeof dropped, "the post-quantum group %s", name);
    }
    cause_of(b, cause, sizeof cause);
    at_frame(b->fail_frame, where, sizeof where);
    tlsneg_verdict_add_link(v, TLSNEG_LINK_PREVIOUS_ATTEMPT, b->frame);
    if (b->fail_frame) {
        tlsneg_verdict_add_link(v, TLSNEG_LINK_PREVIOUS_FAILED_IN, b->fail_frame);
    }
    tlsneg_verdict_add_text(v, TLSNEG_TEXT_CAUSE, cause);
    tlsneg_verdict_add_text(v, TLSNEG_TEXT_DROPPED, dropped);
    tlsneg_verdict_detail(v,
                          "A retry of the attempt in frame %u (failed: %s%s) that drops %s, "
                          "its versions unchanged%s",
                          b->frame, cause, where, dropped, so);
}

/* say_intolerant adds the key_share_intolerance verdict for the success of
 * the attempt in slot as (offer ao) after the failed attempt prev (offer
 * po); versions: the retry changed its versions too, which the ServerHello
 * in frame tolerated_in showed tolerated. */
static void say_intolerant(const tlsneg_tracker *t, uint32_t as, const tlsneg_offer *ao,
                           const tlsneg_attempt *prev, const tlsneg_offer *po,
                           uint32_t tolerated_in, tlsneg_verdicts *out)
{
    char what[TLSNEG_VERDICT_TEXT_MAX], cause[96], failure[128];
    unsigned n = what_changed(po, ao, false, prev->early, " or ", what, sizeof what);
    tlsneg_verdict *v;
    if (!n || !(v = tlsneg_verdict_add(out, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT, false))) {
        return;
    }
    tlsneg_judge_chain(t, as, v);
    cause_of(prev, cause, sizeof cause);
    if (prev->fail_frame) {
        /* "failed: TCP reset, frame 6" without its first word */
        char text[128];
        tlsneg_failure_text(prev->outcome, prev->alert, prev->fail_frame, text, sizeof text);
        snprintf(failure, sizeof failure, "%s",
                 strncmp(text, "failed: ", 8) == 0 ? text + 8 : text);
    } else {
        snprintf(failure, sizeof failure, "%s", cause);
    }
    if (prev->fail_frame) {
        tlsneg_verdict_add_link(v, TLSNEG_LINK_PREVIOUS_FAILED_IN, prev->fail_frame);
    }
    tlsneg_verdict_add_text(v, TLSNEG_TEXT_INTOLERANT_OF, what);
    if (n > 1) {
        tlsneg_verdict_add_text(v, TLSNEG_TEXT_CANDIDATES, what);
    }
    if (tolerated_in) {
        char name[TLSNEG_VERSION_NAME_MAX];
        tlsneg_verdict_add_link(v, TLSNEG_LINK_TOLERATED_IN, tolerated_in);
        tlsneg_verdict_detail(v,
                              "The server failed frame %u's attempt, completes this retry and put "
                              "%s in force in frame %u: it does not tolerate %s%s",
                              prev->frame, tlsneg_judge_vname(po->offered_max, po->dtls, name),
                              tolerated_in, what, n > 1 ? "; the capture cannot tell which" : "");
        return;
    }
    tlsneg_verdict_detail(v,
                          "The server failed frame %u's attempt (%s%s) and completes this retry: "
                          "it does not tolerate %s%s",
                          prev->frame, failure,
                          prev->early ? ", before its hello was complete" : "", what,
                          n > 1 ? "; the capture cannot tell which" : "");
}

/* tolerated: the server completed, for this client, a hello with what the
 * retry dropped (a post-quantum share; a post-quantum group, which a hello
 * listing it without its share shows as well; a split hello): its failure
 * on the failed offer po had another cause, perhaps a passing one. */
static bool tolerated(const tlsneg_attempt *a, const tlsneg_offer *po, const tlsneg_offer *ao)
{
    tlsneg_kx_diff d = tlsneg_kx_compare(po, ao);
    return ((d.pq_share || d.pq_group) && (a->pq_frame || a->pq_ok)) ||
           (d.pq_group && !d.pq_share && a->pq_listed_ok) || (d.size && a->split_ok);
}

/* refused_politely: the failure may be a conforming server's answer to
 * groups it does not support (RFC 8446 4.1.1, 4.2.7: handshake_failure or
 * insufficient_security, or illegal_parameter from some stacks) and the
 * retry changed its groups: no intolerance can be concluded. */
static bool refused_politely(const tlsneg_attempt *prev, const tlsneg_offer *po,
                             const tlsneg_offer *ao)
{
    if (prev->outcome != TLSNEG_CAUSE_ALERT ||
        (prev->alert != 40 && prev->alert != 71 && prev->alert != 47)) {
        return false;
    }
    return tlsneg_kx_compare(po, ao).groups;
}

/* chosen_offered: the group the server chose for the retry was offered in
 * the failed hello too (a conforming server would have chosen it there, or
 * asked for its share), or the groups did not change. Unknown: false. */
static bool chosen_offered(const tlsneg_offer *po, const tlsneg_offer *ao,
                           const tlsneg_answer *answer)
{
    if (!tlsneg_kx_compare(po, ao).groups) {
        return true;
    }
    uint16_t bit = answer->has_group ? tlsneg_named_group_bit(answer->group) : 0;
    return bit && (po->group_bits & bit);
}

void tlsneg_judge_kx_outcome(const tlsneg_tracker *t, uint32_t as, const tlsneg_offer *ao,
                             const tlsneg_answer *answer, const tlsneg_attempt *prev,
                             tlsneg_verdicts *out)
{
    const tlsneg_attempt *a = tlsneg_attempts_at(&t->st, as);
    if ((prev->outcome == TLSNEG_CAUSE_ALERT && prev->alert == 86) ||
        prev->outcome == TLSNEG_CAUSE_CLIENT_ABORT || prev->hrr) {
        return; /* the protection working; the client refusing; a hello read whole */
    }
    tlsneg_offer po;
    tlsneg_attempt_offer(prev, &po);
    if (tolerated(a, &po, ao) || refused_politely(prev, &po, ao) ||
        !chosen_offered(&po, ao, answer)) {
        return;
    }
    say_intolerant(t, as, ao, prev, &po, 0, out);
}

bool tlsneg_judge_kx_lower(const tlsneg_tracker *t, uint32_t as, const tlsneg_offer *ao,
                           const tlsneg_attempt *prev, const tlsneg_offer *po, unsigned best_offer,
                           tlsneg_verdicts *out)
{
    tlsneg_kx_diff d = tlsneg_kx_compare(po, ao);
    if (!d.pq_share && !d.pq_group && !d.size) {
        return false; /* only the versions changed: the version verdicts judge */
    }
    const tlsneg_attempt *a = tlsneg_attempts_at(&t->st, as);
    if (prev->hrr || tolerated(a, po, ao) || refused_politely(prev, po, ao)) {
        return true; /* it read that hello whole, completed such a hello before, or refused
                        groups it lacks */
    }
    /* Settled by another connection: the server put the failed attempt's
     * highest version in force for a hello without what this one dropped. */
    if (a->has_best && a->best_fits && po->has_offered_max && a->best_version == po->offered_max) {
        say_intolerant(t, as, ao, prev, po, a->best_frame, out);
        return true;
    }
    if (best_offer && best_offer >= tlsneg_offer_rank(po)) {
        return true; /* it completed an offer as high from this client before */
    }
    char what[TLSNEG_VERDICT_TEXT_MAX];
    what_changed(po, ao, true, prev->early, " and ", what, sizeof what);
    tlsneg_verdict *v = tlsneg_verdict_add(out, TLSNEG_VERDICT_UNRESOLVED, false);
    if (!v) {
        return true;
    }
    tlsneg_judge_chain(t, as, v);
    tlsneg_verdict_add_text(v, TLSNEG_TEXT_CANDIDATES, what);
    tlsneg_verdict_detail(v,
                          "Frame %u's attempt failed; this retry, changing at once %s, completes: "
                          "the capture cannot tell which one the server failed on",
                          prev->frame, what);
    return true;
}

/* pq_offer_fp: the offer's fingerprint (fp_all) with group g, so that one
 * word says both "the same offer" and "the group chosen then". */
static uint32_t pq_offer_fp(const tlsneg_offer *o, uint16_t g)
{
    return tlsneg_fold32(tlsneg_hash_mix(tlsneg_hash_mix(0, o->fp_all), g));
}

/* pq_recent: the post-quantum ServerHello of a's key came within the window
 * before a's hello (counted in whole seconds, so never longer than it). */
static bool pq_recent(const tlsneg_tracker *t, const tlsneg_attempt *a)
{
    uint64_t now_s = a->hello_us / 1000000u;
    return now_s >= a->pq_s && (now_s - a->pq_s + 1) * 1000000u <= t->cfg.window_us;
}

void tlsneg_judge_kx_pool(const tlsneg_tracker *t, const tlsneg_attempt *a, const tlsneg_offer *ao,
                          const tlsneg_answer *answer, tlsneg_verdicts *out)
{
    tlsneg_gclass c =
        answer->has_group ? tlsneg_named_group_class(answer->group) : TLSNEG_GCLASS_UNKNOWN;
    tlsneg_verdict *v;
    /* The same offer as the one answered with post-quantum (its fingerprint,
     * as the version verdicts compare), sharing the group chosen then, not
     * long ago. */
    if (!a->pq_frame || !ao->pq_key_share || !ao->has_fingerprint ||
        pq_offer_fp(ao, ao->pq_group) != a->pq_fp || !pq_recent(t, a) ||
        (c != TLSNEG_GCLASS_CLASSICAL && c != TLSNEG_GCLASS_FFDHE) ||
        !(v = tlsneg_verdict_add(out, TLSNEG_VERDICT_KX_INCONSISTENT, false))) {
        return;
    }
    char g[32], h[32];
    const char *h_name = gname(ao->pq_group, h, sizeof h);
    tlsneg_verdict_add_link(v, TLSNEG_LINK_PQ_CHOSEN_IN, a->pq_frame);
    tlsneg_verdict_detail(v,
                          "The server chose %s for this client's same offer in frame %u; "
                          "now it chooses %s (classical) although the ClientHello in frame %u "
                          "carries a key share for %s too",
                          h_name, a->pq_frame, gname(answer->group, g, sizeof g), a->frame, h_name);
}

void tlsneg_kx_remember(tlsneg_attempt *h, const tlsneg_offer *ao, const tlsneg_answer *answer,
                        bool new_best, uint32_t frame, uint64_t time_us)
{
    if (new_best) {
        h->best_fits = !ao->pq_key_share && !split(ao);
    }
    h->pq_ok |= ao->pq_key_share;
    h->pq_listed_ok |= ao->pq_offered;
    h->split_ok |= split(ao);
    if (answer->has_group && tlsneg_named_group_is_pq(answer->group)) {
        h->pq_frame = frame;
        h->pq_fp = pq_offer_fp(ao, answer->group);
        h->pq_s = (uint32_t)(time_us / 1000000u);
    }
}
