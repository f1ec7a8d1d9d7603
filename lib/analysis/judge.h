/* SPDX-License-Identifier: GPL-2.0-or-later */
/* judge.h: what the judging of attempts shares, inside the analysis only:
 * the tracker itself (its store and its probe records), and the helpers
 * that give a verdict its chain of attempts and a probe its verdict. The
 * judging is by event: a ClientHello (retry.c: is it a retry, a fallback),
 * a ServerHello or an alert (outcome.c: what the attempt's outcome says of
 * the server and the client); tracker.c keeps the rest. */
#ifndef TLSNEG_JUDGE_H
#define TLSNEG_JUDGE_H

#include "analysis/attempts.h"
#include "analysis/probe.h"
#include "analysis/tracker.h"

struct tlsneg_tracker {
    tlsneg_tracker_config cfg;
    tlsneg_attempts st;
    tlsneg_probes probes;
};

/* tlsneg_judge_chain gives v the chain of retries that ends with the
 * attempt in slot s, oldest first. */
void tlsneg_judge_chain(const tlsneg_tracker *t, uint32_t s, tlsneg_verdict *v);

/* tlsneg_judge_in_probe returns the record of a's probe if a belongs to a
 * recognised one (and probes are recognised), or NULL. */
tlsneg_probe_rec *tlsneg_judge_in_probe(tlsneg_tracker *t, const tlsneg_attempt *a);

/* tlsneg_judge_probe adds the verdict of a probe's message to out: a
 * finding for the hello that made it recognised (new_probe), silent
 * evidence for the others; it returns the verdict, or NULL when out is
 * full. */
tlsneg_verdict *tlsneg_judge_probe(tlsneg_verdicts *out, const tlsneg_probe *p, bool new_probe);

/* tlsneg_judge_vname names v in a finding's sentence, or says "no known
 * version" for 0 (buf: TLSNEG_VERSION_NAME_MAX bytes). */
const char *tlsneg_judge_vname(uint16_t v, bool dtls, char *buf);

/* keyshare.c: attempts compared by their key exchange and size. */

/* What a retry r dropped or changed of the failed offer f's key exchange. */
typedef struct {
    bool pq_share; /* f sent a post-quantum key share, r none */
    bool pq_group; /* f listed a post-quantum group, r none */
    bool groups;   /* a post-quantum group or share came or went, or supported_groups
                      differ (GREASE and FFDHE aside); other key shares are not compared */
    bool size;     /* f's hello took several segments (or was too long for one), r's one */
} tlsneg_kx_diff;

tlsneg_kx_diff tlsneg_kx_compare(const tlsneg_offer *f, const tlsneg_offer *r);

/* tlsneg_kx_only: r offers the same versions, cipher suites, signature
 * algorithms and other extensions as f, and differs in its groups, key
 * shares or size. */
bool tlsneg_kx_only(const tlsneg_offer *f, const tlsneg_offer *r);

/* tlsneg_judge_kx_fallback adds key_share_fallback for a retry (offer o)
 * of the failed attempt b (offer bo) that differs only in its key
 * exchange, if it drops the post-quantum group or share. */
void tlsneg_judge_kx_fallback(const tlsneg_attempt *b, const tlsneg_offer *bo,
                              const tlsneg_offer *o, tlsneg_verdicts *out);

/* tlsneg_judge_kx_outcome judges the success (answer) of such a retry (slot
 * as, offer ao) after the failed attempt prev: key_share_intolerance, only
 * where the group chosen now was offered in prev too, prev's failure was no
 * conforming refusal of other groups, prev was read whole (no
 * HelloRetryRequest) and the server never completed what the retry
 * dropped; where prev ended before its hello was complete, only its size is
 * named. */
void tlsneg_judge_kx_outcome(const tlsneg_tracker *t, uint32_t as, const tlsneg_offer *ao,
                             const tlsneg_answer *answer, const tlsneg_attempt *prev,
                             tlsneg_verdicts *out);

/* tlsneg_judge_kx_lower judges the success of a lower retry (slot as,
 * offer ao) of the failed attempt prev (offer po) that also dropped its
 * post-quantum group or share or its size: key_share_intolerance where
 * another ServerHello showed the higher version tolerated, else
 * intolerance_unresolved. False when only the versions changed (the
 * version verdicts judge). */
bool tlsneg_judge_kx_lower(const tlsneg_tracker *t, uint32_t as, const tlsneg_offer *ao,
                           const tlsneg_attempt *prev, const tlsneg_offer *po, unsigned best_offer,
                           tlsneg_verdicts *out);

/* tlsneg_judge_kx_pool adds key_exchange_inconsistent for a ServerHello
 * (answer) of attempt a (offer ao) that chooses a classical group where
 * this server chose a post-quantum one for the client's same offer (fp_all)
 * within the window, the client sharing that group again. */
void tlsneg_judge_kx_pool(const tlsneg_tracker *t, const tlsneg_attempt *a, const tlsneg_offer *ao,
                          const tlsneg_answer *answer, tlsneg_verdicts *out);

/* tlsneg_kx_remember records in h what the ServerHello in frame at
 * time_us (answer to offer ao) shows of the server's key exchange; new_best:
 * it is the highest version in force for this key so far. */
void tlsneg_kx_remember(tlsneg_attempt *h, const tlsneg_offer *ao, const tlsneg_answer *answer,
                        bool new_best, uint32_t frame, uint64_t time_us);

#endif
