/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracker.c: the tracker's life (its store of attempts and its probe
 * records, bounded by the cap), what the judging by event shares (judge.h),
 * and the events that decide no verdict: closes, progress. The judging
 * adds each verdict where it decides it: retry.c for a ClientHello,
 * outcome.c for a ServerHello or an alert. */
#include "analysis/judge.h"

#include "core/versions.h"

#include <stdlib.h>
#include <string.h>

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

const char *tlsneg_judge_vname(uint16_t v, bool dtls, char *buf)
{
    return tlsneg_version_name_or_none(v != 0, v, dtls, buf, TLSNEG_VERSION_NAME_MAX);
}

void tlsneg_judge_chain(const tlsneg_tracker *t, uint32_t s, tlsneg_verdict *v)
{
    uint32_t steps[TLSNEG_CHAIN_MAX];
    size_t n = 0;
    for (uint32_t x = s; x != TLSNEG_NO_SLOT && n < TLSNEG_CHAIN_MAX;
         x = tlsneg_attempts_prev(&t->st, x)) {
        steps[n++] = x;
    }
    v->chain_len = (uint8_t)n;
    v->chain_dtls = tlsneg_attempts_at(&t->st, s)->dtls;
    for (size_t i = 0; i < n; i++) {
        const tlsneg_attempt *st = tlsneg_attempts_at(&t->st, steps[n - 1 - i]);
        v->chain_frames[i] = st->frame;
        v->chain_versions[i] = st->has_offered_max ? st->offered_max : 0;
        v->chain_scsv |= (uint8_t)(st->fallback_scsv ? 1u << i : 0u);
        /* a retry with other key shares is a retry at the same version too */
        v->chain_same |= (uint8_t)(st->same_retry || st->kx_retry ? 1u << i : 0u);
        v->chain_changed |= (uint8_t)(st->changed_retry ? 1u << i : 0u);
    }
}

tlsneg_verdict *tlsneg_judge_probe(tlsneg_verdicts *out, const tlsneg_probe *p, bool new_probe)
{
    tlsneg_verdict *v = tlsneg_verdict_add(out, TLSNEG_VERDICT_PROBE, false);
    if (!v) {
        return NULL;
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
                          "test; from here on not judged as fallbacks or intolerance",
                          text);
    return v;
}

tlsneg_probe_rec *tlsneg_judge_in_probe(tlsneg_tracker *t, const tlsneg_attempt *a)
{
    return t->cfg.no_probes ? NULL : tlsneg_probes_of(&t->probes, &t->st, a);
}

uint8_t tlsneg_tracker_cause(const tlsneg_tracker *t, uint64_t conn, uint8_t *alert)
{
    const tlsneg_attempt *a = tlsneg_attempts_get(&t->st, TLSNEG_BY_CONN, conn);
    *alert = a ? a->alert : 0;
    if (!a || a->outcome == TLSNEG_SUCCESS || a->outcome == TLSNEG_COMPLETED) {
        return TLSNEG_CAUSE_NONE;
    }
    return a->outcome;
}

uint32_t tlsneg_tracker_close(tlsneg_tracker *t, uint64_t conn, uint64_t time_us, bool reset)
{
    tlsneg_attempt *a = tlsneg_attempts_get(&t->st, TLSNEG_BY_CONN, conn);
    if (!a || a->outcome != TLSNEG_CAUSE_NONE) {
        return 0;
    }
    a->outcome = reset ? TLSNEG_CAUSE_RESET : TLSNEG_CAUSE_CLOSE;
    tlsneg_attempt_set_time(a, time_us);
    return a->frame;
}

void tlsneg_tracker_failed_in(tlsneg_tracker *t, uint64_t conn, uint32_t frame)
{
    tlsneg_attempt *a = tlsneg_attempts_get(&t->st, TLSNEG_BY_CONN, conn);
    if (a && !a->fail_frame && a->outcome != TLSNEG_CAUSE_NONE && a->outcome != TLSNEG_SUCCESS &&
        a->outcome != TLSNEG_COMPLETED) {
        a->fail_frame = frame;
    }
}

bool tlsneg_tracker_early_end(tlsneg_tracker *t, uint64_t conn, uint64_t time_us, uint8_t cause,
                              uint8_t alert)
{
    tlsneg_attempt *a = tlsneg_attempts_get(&t->st, TLSNEG_BY_CONN, conn);
    if (!a || a->outcome != TLSNEG_CAUSE_NONE) {
        return false;
    }
    /* No verdict here. The server ended the attempt before its hello was
     * complete: it cannot have judged the key share, so a later
     * key_share_intolerance names only the hello's size and segments
     * (keyshare.c); the versions, in its first segment, may have been read. */
    a->early = 1;
    a->outcome = (uint8_t)(cause & 0xf);
    a->alert = alert;
    tlsneg_attempt_set_time(a, time_us);
    return true;
}

void tlsneg_tracker_progress(tlsneg_tracker *t, uint64_t conn, bool from_server)
{
    tlsneg_attempt *a = tlsneg_attempts_get(&t->st, TLSNEG_BY_CONN, conn);
    if (!a) {
        return;
    }
    a->progress |= from_server ? 2 : 1;
    if (a->progress == 3 && a->outcome == TLSNEG_CAUSE_NONE) {
        a->outcome = TLSNEG_COMPLETED; /* the ServerHello is missing from the capture */
    }
}
