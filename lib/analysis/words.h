/* SPDX-License-Identifier: GPL-2.0-or-later */
/* words.h: the words of the verdicts across connections, written once for
 * every front end: how an attempt failed, a chain of attempts, a probe, a
 * retry as a hello's title and Info note, a verdict's note in the packet
 * list. Pure C. */
#ifndef TLSNEG_WORDS_H
#define TLSNEG_WORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/verdict.h"

/* tlsneg_probe_text writes "probed with 110 hellos in 12.0 s, SSL 3.0 to TLS
 * 1.3, SCSV probe answered with 86" (without who probed whom). */
const char *tlsneg_probe_text(const tlsneg_probe *p, char *buf, size_t buf_len);

/* tlsneg_cause_text describes what made an attempt fail ("TCP reset"):
 * cause is a tlsneg_cause, alert the alert's description for
 * TLSNEG_CAUSE_ALERT. */
const char *tlsneg_cause_text(uint8_t cause, uint8_t alert, char *buf, size_t buf_len);

/* tlsneg_failure_text says how and where an attempt failed: "failed: TCP
 * reset, frame 6", "failed: alert handshake_failure (40), frame 5",
 * "failed: connection closed (FIN), frame 7", "failed: the client aborted
 * with alert illegal_parameter (47), frame 9". */
const char *tlsneg_failure_text(uint8_t cause, uint8_t alert, uint32_t frame, char *buf,
                                size_t buf_len);

/* tlsneg_after_close_text says what an alert came after (tlsneg_result's
 * alert_after_close, its cause): "after the client's FIN in frame 82",
 * "after the server's RST in frame 6"; by_client: the client closed (the
 * alert is the server's). */
const char *tlsneg_after_close_text(bool by_client, uint8_t cause, uint32_t frame, char *buf,
                                    size_t buf_len);

/* tlsneg_attempts_text writes the n attempts of a chain, oldest first, by
 * the highest version each offered (0: not known; DTLS versions if dtls)
 * and its frame: "TLS 1.3 (frame 4) -> TLS 1.2 (frame 10)". */
const char *tlsneg_attempts_text(size_t n, const uint32_t *frames, const uint16_t *versions,
                                 bool dtls, char *buf, size_t buf_len);

/* tlsneg_chain_text writes v's chain the same way. */
const char *tlsneg_chain_text(const tlsneg_verdict *v, char *buf, size_t buf_len);

/* A retry as a hello's own title tells it (tlsneg_retry_text). */
typedef struct {
    bool same;       /* the same offer again: no fallback */
    bool changed;    /* another offer (more than its versions changed): no fallback */
    bool scsv;       /* the retry carries TLS_FALLBACK_SCSV */
    bool dtls;       /* DTLS version names */
    uint8_t retry;   /* its number among the chain's retries (1: the first); 0 unknown */
    uint8_t retries; /* how many retries the chain had once it ended; 0: not known (yet) */
    bool has_from, has_to;
    uint16_t from, to; /* highest versions offered by the failed attempt and by the retry */
} tlsneg_retry;

/* tlsneg_verdict_retry describes attempt step of v's chain (1 to
 * chain_len - 1; chain_len - 1 is the frame's own) as a retry, with
 * retries as the chain's length once known (0: not known); false when v
 * has no such step, or its chain is no chain of retries (verdicts.def:
 * RETRY or END). */
bool tlsneg_verdict_retry(const tlsneg_verdict *v, size_t step, uint8_t retries, tlsneg_retry *out);

/* tlsneg_retry_text writes the retry as a hello's title says it:
 * "fallback retry 2/3 (TLS 1.2 -> TLS 1.1, no SCSV)" (the number alone
 * while the chain's end is not known), "retry, same version (TLS 1.3)",
 * "retry with another offer (TLS 1.3 -> TLS 1.2)". */
const char *tlsneg_retry_text(const tlsneg_retry *r, char *buf, size_t buf_len);

/* tlsneg_retry_info writes the Info column's note of a fallback retry:
 * "fallback: TLS 1.2 -> TLS 1.1, no SCSV" (no brackets). */
const char *tlsneg_retry_info(const tlsneg_retry *r, char *buf, size_t buf_len);

/* tlsneg_verdict_note writes the few words the packet list (and an alert's
 * title) shows for v: tlsneg_retry_info for a fallback with known versions,
 * "client caught the downgrade" for a client abort with illegal_parameter
 * after a sentinel (downgrade_caught), else
 * tlsneg_verdict_tag. dtls: name DTLS versions. */
const char *tlsneg_verdict_note(const tlsneg_verdict *v, bool dtls, char *buf, size_t buf_len);

#endif
