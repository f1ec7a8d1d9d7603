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
const char *tlsneg_judge_vname(uint16_t v, char *buf);

#endif
