/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output.h: tlsneg's outputs for a whole capture, written once for both front
 * ends (the plugin's -z tlsneg,jsonl|csv|report taps and tlsneg-pcap's
 * --jsonl, --csv, --report), in the schema of docs/output-formats.md. Pure
 * C, no Wireshark or GLib types: the front end hands over each analysed
 * message (as the session layer judged it) and each TCP close that ended an
 * attempt, with its frame's number, time and endpoints. Nothing is judged
 * here: every word comes from the analysis. The ladder (report/ladder.h)
 * takes the same records. */
#ifndef TLSNEG_OUTPUT_H
#define TLSNEG_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/rules.h"
#include "analysis/session.h"
#include "analysis/tracker.h"
#include "core/facts.h"
#include "report/addr.h"

/* A finding as the outputs read it. */
typedef struct {
    tlsneg_rule_id rule;
    const char *detail;
} tlsneg_out_finding;

/* One analysed hello or alert (the plugin keeps one per message per frame,
 * for the whole file: widest fields first, no padding). */
typedef struct {
    tlsneg_facts facts; /* a hello; an alert: only its wire (facts.wire) */
    const tlsneg_out_finding *findings;
    const tlsneg_kept_verdict *verdicts; /* across connections (analysis/tracker.h) */
    const char *sni;             /* the server name of the connection's ClientHello, or NULL */
    const char *title;           /* a retry: what its title says (tlsneg_result.title), or NULL */
    const char *hrr_changes;     /* a ClientHello answering a HelloRetryRequest: what it changed
                                    (tlsneg_result.hrr_changes), else NULL */
    uint64_t early_time_us;      /* a ClientHello: tlsneg_result.early_time_us */
    uint32_t client_hello_frame; /* an alert: the ClientHello it answers, or 0 */
    uint32_t retransmission_of;  /* a hello repeated unchanged (DTLS, QUIC), or 0 */
    uint32_t failed_attempt;     /* an alert: the ClientHello whose attempt it made fail, or 0 */
    uint32_t early_frame; /* a ClientHello: the server's ending before it was complete, or 0 */
    uint32_t hrr_frame;   /* a ClientHello: the HelloRetryRequest it answers, or 0 */
    /* An alert after the other side's TCP FIN or RST: its frame
     * (tlsneg_result.alert_after_close), or 0 */
    uint32_t alert_after_close;
    unsigned num_findings;
    unsigned findings_dropped; /* findings beyond TLSNEG_MAX_FINDINGS: counted, not kept */
    unsigned num_verdicts;
    bool is_alert;
    uint8_t alert_level; /* an alert: TLSNEG_ALERT_WARNING, _FATAL or _NO_LEVEL (QUIC) */
    uint8_t alert_description;
    bool alert_from_server;
    bool alert_ends;               /* an alert that ends the handshake (tlsneg_result.alert_ends) */
    bool alert_after_server_hello; /* tlsneg_result.alert_after_server_hello */
    uint8_t alert_after_close_cause; /* with alert_after_close: TLSNEG_CAUSE_CLOSE or _RESET */
    bool from_client;
    uint8_t failure_cause;  /* an alert that made its attempt fail: how (tlsneg_cause) */
    uint8_t early_cause;    /* with early_frame: how (tlsneg_cause) */
    uint8_t early_alert;    /* with early_frame, an alert: its description */
    bool client_pq_offered; /* a ServerHello: its connection's ClientHello offered post-quantum */
    /* An alert held for the attempt whose ClientHello was not complete
     * (tlsneg_result.held): written with that ClientHello, as its early
     * ending. */
    bool held;
} tlsneg_out_msg;

/* Storage for tlsneg_out_msg_view. */
typedef struct {
    tlsneg_out_finding findings[TLSNEG_MAX_FINDINGS];
    tlsneg_kept_verdict verdicts[TLSNEG_MAX_VERDICTS];
} tlsneg_out_msg_buf;

/* tlsneg_out_msg_view makes out a view of the session layer's result x
 * (pointers into x and buf: valid while both are). */
void tlsneg_out_msg_view(tlsneg_out_msg *out, tlsneg_out_msg_buf *buf, const tlsneg_result *x);

/* The frame a message came in. */
typedef struct {
    uint32_t frame;
    int64_t secs; /* absolute time */
    uint32_t usecs;
    tlsneg_out_addr src, dst;
} tlsneg_out_frame;

typedef enum {
    TLSNEG_OUT_JSONL,  /* JSON lines as messages pass; probes at the end */
    TLSNEG_OUT_CSV,    /* one row per server, at the end */
    TLSNEG_OUT_REPORT, /* for people, at the end */
} tlsneg_out_format;

typedef struct tlsneg_out tlsneg_out;

/* tlsneg_out_writes_details: whether format writes the findings' sentences
 * (the report's verdict lines); the JSON lines and the CSV write the rule
 * names only, so a front end with no other reader may leave them empty
 * (tlsneg_tracker_config.no_details). */
bool tlsneg_out_writes_details(tlsneg_out_format format);

/* tlsneg_out_new returns NULL when out of memory. The JSON lines' header is
 * written by tlsneg_out_header. */
tlsneg_out *tlsneg_out_new(tlsneg_out_format format, FILE *out);
void tlsneg_out_free(tlsneg_out *o);
/* tlsneg_out_reset forgets what was counted (a new capture in the GUI). */
void tlsneg_out_reset(tlsneg_out *o);
void tlsneg_out_header(tlsneg_out *o);
/* tlsneg_out_message takes one analysed message of frame fr. A held alert
 * is kept (a few dozen at most, the oldest written first) until the
 * ClientHello whose attempt it made fail: its outcome record is written
 * right after that ClientHello's hello record, with the attempt's frame and
 * SNI; so is a TCP reset or close the session layer held (early_frame). An
 * alert whose ClientHello never comes is written at the end, as it came
 * (the session layer holds none once no ClientHello can complete on its
 * connection: those are written as they come). */
void tlsneg_out_message(tlsneg_out *o, const tlsneg_out_frame *fr, const tlsneg_out_msg *m);
/* tlsneg_out_close takes a TCP RST (cause TLSNEG_CAUSE_RESET) or FIN
 * (TLSNEG_CAUSE_CLOSE) in frame fr that ended the attempt of ClientHello
 * attempt_frame before any ServerHello. */
void tlsneg_out_close(tlsneg_out *o, const tlsneg_out_frame *fr, uint8_t cause, bool from_client,
                      uint32_t attempt_frame, const char *sni);
/* tlsneg_out_end writes what is known only at the end: the probes of the
 * JSON lines, the CSV table, the report. */
void tlsneg_out_end(tlsneg_out *o);

/* tlsneg_rule_is_variant: a rule row whose expert name differs from its
 * finding name. */
bool tlsneg_rule_is_variant(tlsneg_rule_id id);

#endif
