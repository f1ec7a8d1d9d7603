/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe.c: probe detection (probe.h). */
#include "analysis/probe.h"

#include "core/versions.h"

#include <stdlib.h>
#include <string.h>

/* A burst of one hello has no record: its state is read off its attempt. */
_Static_assert(TLSNEG_PROBE_HELLOS > 1, "a burst of one hello is never a probe");

void tlsneg_probes_init(tlsneg_probes *p, size_t max)
{
    memset(p, 0, sizeof *p);
    p->max = max;
}

void tlsneg_probes_free(tlsneg_probes *p)
{
    free(p->recs);
    memset(p, 0, sizeof *p);
}

size_t tlsneg_probes_bytes(const tlsneg_probes *p)
{
    return p->alloc * sizeof(tlsneg_probe_rec);
}

/* rec_new returns a free record plus one, or 0 when out of memory; at most
 * one per attempt is in use. */
static uint32_t rec_new(tlsneg_probes *p)
{
    if (p->free) {
        uint32_t r = p->free;
        p->free = p->recs[r - 1].next_free;
        return r;
    }
    if (p->used == p->alloc) {
        size_t want = p->alloc ? p->alloc + p->alloc / 2 : 16;
        if (want > p->max) {
            want = p->max;
        }
        if (want <= p->alloc) {
            return 0;
        }
        tlsneg_probe_rec *r = realloc(p->recs, want * sizeof *r);
        if (!r) {
            return 0;
        }
        p->recs = r;
        p->alloc = want;
    }
    return (uint32_t)++p->used;
}

void tlsneg_probes_release(tlsneg_probes *p, uint32_t r)
{
    if (r) {
        p->recs[r - 1].next_free = p->free;
        p->free = r;
    }
}

static uint16_t top_of(const tlsneg_attempt *a)
{
    return a->has_offered_max ? a->offered_max : 0;
}

static unsigned rank_of(bool dtls, uint16_t v)
{
    return tlsneg_version_rank(v, dtls);
}

/* refused_scsv: the server answered a's TLS_FALLBACK_SCSV with
 * inappropriate_fallback (86). */
static bool refused_scsv(const tlsneg_attempt *a)
{
    return a->fallback_scsv && a->outcome == TLSNEG_CAUSE_ALERT && a->alert == 86;
}

/* has_sni: the hello named a server (its peer key is more than the pair,
 * when the tracker keys by SNI). */
static bool has_sni(const tlsneg_attempt *a)
{
    return a->key != a->pair;
}

/* state_of fills st with the probe state of the burst that a (a pair's
 * latest attempt, counted) ends. */
static void state_of(const tlsneg_probes *p, const tlsneg_attempt *a, tlsneg_probe_rec *st)
{
    if (a->probe_rec) {
        *st = p->recs[a->probe_rec - 1];
        return;
    }
    memset(st, 0, sizeof *st);
    st->probe.first_frame = a->frame;
    st->probe.first_us = st->probe.last_us = a->hello_us;
    st->probe.lowest = st->probe.highest = top_of(a);
    st->probe.dtls = a->dtls;
    st->probe.hellos = 1;
    st->probe.scsv = a->fallback_scsv ? 1 : 0;
    st->probe.scsv_refused = refused_scsv(a) ? 1 : 0;
    st->num_earlier = 1;
    st->earlier[0] = a->frame;
    st->seen[0] =
        (a->fp_all ^ (a->fallback_scsv ? 0x5600u : 0u) ^ (uint32_t)a->versions << 24 ^ top_of(a)) |
        1u;
    st->sni_key = has_sni(a) ? a->key : 0;
}

/* add_hello counts hello a into st: a variation is an offer not among the
 * last distinct ones (a client that alternates two configurations is no
 * probe) and no retry (dance). */
static void add_hello(tlsneg_probe_rec *st, const tlsneg_attempt *a, uint32_t id, bool dance)
{
    uint16_t top = top_of(a);
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
    /* Scanners send one server name or none; hellos naming two are several
     * sites behind one address (a CDN) reached from one address (a NAT),
     * each client with its own offer: no probe. */
    if (has_sni(a) && !st->sni_key) {
        st->sni_key = a->key;
    } else if (has_sni(a) && st->sni_key != a->key) {
        st->sni_mixed = true;
    }
    st->probe.hellos++;
    st->probe.last_us = a->hello_us;
    if (!st->recognised && st->num_earlier < TLSNEG_PROBE_EARLIER) {
        st->earlier[st->num_earlier++] = a->frame;
    }
    st->probe.scsv = (uint16_t)(st->probe.scsv + (a->fallback_scsv && st->probe.scsv < UINT16_MAX));
}

/* step counts hello a into the probe state of its client and server,
 * carried over from the pair's last attempt prev, and returns the state in
 * st. prev hands a its record, or forgets it when a starts a new burst. */
static void step(tlsneg_probes *p, tlsneg_attempt *a, tlsneg_attempt *prev, bool dance,
                 uint64_t window_us, tlsneg_probe_rec *st)
{
    tlsneg_probe_rec ps;
    if (prev) {
        state_of(p, prev, &ps);
    }
    a->probed = 1;
    if (!prev || a->hello_us - ps.probe.last_us > window_us || prev->dtls != a->dtls) {
        if (prev) {
            tlsneg_probes_release(p, prev->probe_rec);
            prev->probe_rec = 0;
        }
        state_of(p, a, st);
        a->probe_highest = st->probe.highest;
        return;
    }
    tlsneg_probe_rec mine;
    state_of(p, a, &mine); /* this hello alone */
    *st = ps;
    add_hello(st, a, mine.seen[0], dance);
    a->probe_highest = st->probe.highest;
    uint32_t r = prev->probe_rec;
    prev->probe_rec = 0;
    if (!r) {
        r = rec_new(p);
    }
    if (r) {
        p->recs[r - 1] = *st;
        a->probe_rec = r;
    }
}

tlsneg_probe_state tlsneg_probes_count(tlsneg_probes *p, tlsneg_attempt *a, tlsneg_attempt *prev,
                                       bool dance, uint64_t window_us, tlsneg_probe_rec *out)
{
    tlsneg_probe_rec st;
    step(p, a, prev, dance, window_us, &st);
    tlsneg_probe_state state = TLSNEG_PROBE_NONE;
    if (!st.recognised && !st.sni_mixed && st.probe.hellos >= TLSNEG_PROBE_HELLOS &&
        st.variations >= TLSNEG_PROBE_VARIATIONS) {
        st.recognised = true;
        if (a->probe_rec) {
            p->recs[a->probe_rec - 1].recognised = true;
        }
        state = TLSNEG_PROBE_NEW;
    } else if (st.recognised) {
        state = TLSNEG_PROBE_KNOWN;
    }
    *out = st;
    return state;
}

tlsneg_probe_rec *tlsneg_probes_burst_of(tlsneg_probes *p, const tlsneg_attempts *st,
                                         const tlsneg_attempt *a)
{
    const tlsneg_attempt *head = tlsneg_attempts_get(st, TLSNEG_BY_PAIR, a->pair);
    if (!head || !head->probe_rec) {
        return NULL; /* a burst of one hello: read off its attempt */
    }
    tlsneg_probe_rec *r = &p->recs[head->probe_rec - 1];
    return r->probe.first_frame <= a->frame ? r : NULL;
}

tlsneg_probe_rec *tlsneg_probes_of(tlsneg_probes *p, const tlsneg_attempts *st,
                                   const tlsneg_attempt *a)
{
    tlsneg_probe_rec *r = tlsneg_probes_burst_of(p, st, a);
    return r && r->recognised ? r : NULL;
}
