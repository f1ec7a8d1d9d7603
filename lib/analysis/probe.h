/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe.h: probe detection: a client that tries one server with many
 * different offers in a burst (a scanner, a test) is recognised, so that
 * its attempts are not judged as fallbacks or intolerance. A burst's state
 * lives in a record held by the pair's latest attempt (attempts.h) once it
 * has two hellos or more. Inside the analysis only (retry.c, outcome.c). */
#ifndef TLSNEG_PROBE_H
#define TLSNEG_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/attempts.h"
#include "analysis/verdict.h"

/* A client that probes a server: at least TLSNEG_PROBE_HELLOS hellos to one
 * server address and port over one transport, each at most the window after
 * the one before, TLSNEG_PROBE_VARIATIONS of which make an offer not among
 * the burst's last four distinct ones (versions, suites, groups, signature algorithms,
 * extension set, SCSV) and are no retry of a failed attempt (a fallback, the
 * same offer again). */
#define TLSNEG_PROBE_HELLOS     5
#define TLSNEG_PROBE_VARIATIONS 3
_Static_assert(TLSNEG_PROBE_EARLIER >= TLSNEG_PROBE_HELLOS - 1,
               "every hello before the fifth of a probe is told it belongs to one");

/* The probe state of a burst of two hellos or more. */
typedef struct {
    tlsneg_probe probe;
    uint32_t seen[4]; /* the last distinct offers of the burst (fp_all, SCSV folded in) */
    uint64_t sni_key; /* the first hello's with a server name: its peer key; 0: none yet */
    uint16_t variations;
    bool recognised;
    bool sni_mixed;      /* hellos with two server names: several sites, no probe */
    uint8_t num_earlier; /* until recognised: the burst's first ClientHellos */
    uint32_t earlier[TLSNEG_PROBE_EARLIER];
    uint32_t next_free; /* in the free list: the next free record plus one */
} tlsneg_probe_rec;

/* The records, at most max in use (one per attempt). */
typedef struct {
    tlsneg_probe_rec *recs;
    size_t alloc, used, max;
    uint32_t free; /* the first free record plus one */
} tlsneg_probes;

void tlsneg_probes_init(tlsneg_probes *p, size_t max);
void tlsneg_probes_free(tlsneg_probes *p);
size_t tlsneg_probes_bytes(const tlsneg_probes *p);

/* tlsneg_probes_release frees record r (plus one; 0: none). */
void tlsneg_probes_release(tlsneg_probes *p, uint32_t r);

/* What a hello is to probe detection. */
typedef enum {
    TLSNEG_PROBE_NONE,  /* no recognised probe */
    TLSNEG_PROBE_KNOWN, /* a hello of a probe recognised before */
    TLSNEG_PROBE_NEW,   /* the hello that makes the burst recognised */
} tlsneg_probe_state;

/* tlsneg_probes_count counts the new attempt a (the pair's latest in the
 * store) into the burst of its client and server, carried over from the
 * pair's previous attempt prev (or NULL), and says what a is to probe
 * detection, with the burst so far in *out (out->earlier: its first
 * ClientHellos, a's last, up to TLSNEG_PROBE_EARLIER). dance: a is a retry
 * of a failed attempt (no variation); window_us: the longest gap within a
 * burst. */
tlsneg_probe_state tlsneg_probes_count(tlsneg_probes *p, tlsneg_attempt *a, tlsneg_attempt *prev,
                                       bool dance, uint64_t window_us, tlsneg_probe_rec *out);

/* tlsneg_probes_of returns the record of the burst of a's pair if it is
 * recognised as a probe and a belongs to it (perhaps only since a later
 * hello), or NULL; tlsneg_probes_burst_of the same, recognised or not. */
tlsneg_probe_rec *tlsneg_probes_of(tlsneg_probes *p, const tlsneg_attempts *st,
                                   const tlsneg_attempt *a);
tlsneg_probe_rec *tlsneg_probes_burst_of(tlsneg_probes *p, const tlsneg_attempts *st,
                                         const tlsneg_attempt *a);

#endif
