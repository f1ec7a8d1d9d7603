/* SPDX-License-Identifier: GPL-2.0-or-later */
/* checks.h: judge one hello, or one alert, against the rules of rules.def.
 * Pure C: the glue feeds it the parse, the facts and what the connection has
 * shown before. */
#ifndef TLSNEG_CHECKS_H
#define TLSNEG_CHECKS_H

#include "analysis/rules.h"
#include "core/alerts.h"
#include "core/facts.h"
#include "core/util.h"

/* Findings kept per message; more are counted in dropped. */
#define TLSNEG_MAX_FINDINGS 12
#define TLSNEG_DETAIL_MAX   256

typedef struct {
    tlsneg_rule_id rule;
    char detail[TLSNEG_DETAIL_MAX]; /* what this message does, in plain words */
} tlsneg_finding;

typedef struct {
    size_t count;
    size_t dropped;
    bool no_details; /* the details are left "" (tlsneg_check_input) */
    tlsneg_finding item[TLSNEG_MAX_FINDINGS];
} tlsneg_findings;

typedef struct {
    /* A hello: its parse and its facts. NULL for an alert. */
    const tlsneg_hello *hello;
    const tlsneg_facts *facts;
    /* ServerHello and alert: the last ClientHello of the same connection,
     * NULL when the capture does not show it. */
    const tlsneg_facts *client_hello;
    /* ClientHello: a HelloRetryRequest came before it in this connection. */
    bool after_hrr;
    /* The ClientHello that answers a HelloRetryRequest (hrr.h): the
     * HelloRetryRequest's frame (0: not such a ClientHello), whether it
     * changed what RFC 8446 4.1.2 forbids or not what was asked, and what it
     * changed, in words. */
    uint32_t hrr_frame;
    bool hrr_unexpected;
    const char *hrr_changes;
    /* An alert record. */
    bool is_alert;
    uint8_t alert_level;
    uint8_t alert_description;
    /* No sentences: every finding's detail is "" (tlsneg_tracker_config);
     * the findings' own, and those added to the same list after. */
    bool no_details;
} tlsneg_check_input;

/* tlsneg_finding_add appends a finding to out (counted in dropped when
 * full), its detail empty if out has no_details. */
void tlsneg_finding_add(tlsneg_findings *out, tlsneg_rule_id rule, const char *fmt, ...)
    TLSNEG_PRINTF(3, 4) TLSNEG_COLD;

/* tlsneg_check fills out with every rule in breach, in rules.def order. */
void tlsneg_check(tlsneg_findings *out, const tlsneg_check_input *in);

/* tlsneg_alert_ends_handshake: whether an alert (level: TLSNEG_ALERT_*, its
 * description) ends the handshake by itself, on a connection whose server
 * has (tls13) or has not chosen TLS 1.3 or DTLS 1.3 yet (a ServerHello or
 * HelloRetryRequest selecting it). The closure alerts never do; a fatal
 * alert, or one without a level, always does; a warning only in TLS 1.3.
 * The reasoning, with the RFC sections, is at the definition (alerts.c). */
bool tlsneg_alert_ends_handshake(uint8_t level, uint8_t description, bool tls13);

/* tlsneg_alert_summary writes one plain sentence about an alert (level,
 * description; ends: what tlsneg_alert_ends_handshake said of it) into buf
 * and returns buf. after_frame (not 0): the other side's TCP FIN or RST
 * (after_cause: TLSNEG_CAUSE_CLOSE or _RESET) came before it, in that
 * frame (tlsneg_result.alert_after_close): the sentence says that instead
 * of what the alert ends. */
const char *tlsneg_alert_summary(uint8_t level, uint8_t description, bool ends, bool from_server,
                                 bool after_client_hello, uint8_t after_cause, uint32_t after_frame,
                                 char *buf, size_t buf_len);

#endif
