/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracker.h: attempts across connections, for the pattern tlsneg exists for:
 * a handshake fails and the client comes back to the same server offering
 * less. Pure C, no Wireshark types: connections are numbers, peers are bytes,
 * times are microseconds, frames are numbers. Memory is bounded by
 * max_attempts; the oldest attempt is forgotten first.
 *
 * Feed events in frame order (the first pass); each call says what the
 * tracker now knows about the frame in hand, as verdicts (verdict.h; a new
 * verdict is a row of verdicts.def, a row of rules.def and the code that
 * decides it: retry.c for a ClientHello, outcome.c for a ServerHello or an
 * alert), in the words of words.h. */
#ifndef TLSNEG_TRACKER_H
#define TLSNEG_TRACKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/offer.h"
#include "analysis/verdict.h"
#include "analysis/words.h"

typedef struct {
    uint32_t max_attempts; /* cap on tracked attempts */
    uint64_t window_us;    /* a retry must come this soon after the failure */
    bool key_includes_sni; /* attempts with different SNI are different peers */
    bool no_probes;        /* do not recognise scanners (every hello judged alone) */
    /* Leave the sentences of findings and verdicts empty (detail ""): no
     * output of the front end reads them (tlsneg-pcap with only --jsonl or
     * --csv); the rules, verdicts and their evidence are the same. */
    bool no_details;
} tlsneg_tracker_config;

/* The defaults of every front end (the plugin's preferences start here). */
#define TLSNEG_DEFAULT_MAX_ATTEMPTS 500000u
#define TLSNEG_DEFAULT_WINDOW_S     30u
#define TLSNEG_TRACKER_DEFAULTS                                                                    \
    {                                                                                              \
        .max_attempts = TLSNEG_DEFAULT_MAX_ATTEMPTS,                                               \
        .window_us = (uint64_t)TLSNEG_DEFAULT_WINDOW_S * 1000000u, .key_includes_sni = true,       \
        .no_probes = false                                                                         \
    }

typedef struct tlsneg_tracker tlsneg_tracker;

/* tlsneg_tracker_new returns NULL when out of memory. */
tlsneg_tracker *tlsneg_tracker_new(const tlsneg_tracker_config *cfg);
void tlsneg_tracker_free(tlsneg_tracker *t);

/* Attempts held now, and bytes in use: both bounded by the cap. */
size_t tlsneg_tracker_attempts(const tlsneg_tracker *t);
size_t tlsneg_tracker_bytes(const tlsneg_tracker *t);
/* Bytes one attempt costs at most, for the documentation of the cap. */
size_t tlsneg_tracker_bytes_per_attempt(void);

/* Events. conn names one connection (TCP stream, DTLS or QUIC flow); a
 * second ClientHello on a connection (after a HelloRetryRequest, or
 * retransmitted) belongs to its first attempt. opened_us: when conn began
 * (its first frame, the TCP SYN), or 0 if not known (then its ClientHello's
 * time_us): a connection opened before an earlier attempt failed runs in
 * parallel with it and retries nothing. */
void tlsneg_tracker_client_hello(tlsneg_tracker *t, uint64_t conn, const tlsneg_peer_key *key,
                                 uint32_t frame, uint64_t time_us, uint64_t opened_us,
                                 const tlsneg_offer *offer, tlsneg_verdicts *out);
void tlsneg_tracker_server_hello(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t time_us,
                                 const tlsneg_answer *answer, tlsneg_verdicts *out);
/* tlsneg_tracker_alert returns the frame of the ClientHello whose attempt
 * this alert makes fail (one that ends the handshake before any
 * ServerHello, or the client's abort after it), or 0; tlsneg_tracker_cause
 * then says how. ends: the alert ends the handshake
 * (tlsneg_alert_ends_handshake, which the session layer asks with what the
 * connection has shown); one that does not, a warning before TLS 1.3 or a
 * closure alert, makes nothing fail. */
uint32_t tlsneg_tracker_alert(tlsneg_tracker *t, uint64_t conn, uint64_t time_us,
                              uint8_t description, bool ends, bool from_server,
                              tlsneg_verdicts *out);
/* tlsneg_tracker_cause returns how the attempt on conn failed (a
 * tlsneg_cause; TLSNEG_CAUSE_NONE if it has not, or is unknown), and for an
 * alert its description in *alert. */
uint8_t tlsneg_tracker_cause(const tlsneg_tracker *t, uint64_t conn, uint8_t *alert);
/* A TCP RST (reset) or FIN on the connection. Returns the frame of the
 * ClientHello whose attempt this ends before any ServerHello, or 0. */
uint32_t tlsneg_tracker_close(tlsneg_tracker *t, uint64_t conn, uint64_t time_us, bool reset);
/* tlsneg_tracker_failed_in tells in which frame the alert, reset or close
 * came that made the attempt on conn fail (after tlsneg_tracker_alert or
 * tlsneg_tracker_close returned its ClientHello's frame); the first one
 * told is kept. */
void tlsneg_tracker_failed_in(tlsneg_tracker *t, uint64_t conn, uint32_t frame);

/* tlsneg_tracker_early_end: the attempt on conn had been ended by the
 * server (cause, alert: an alert's description) before its ClientHello was
 * complete, at time_us. Returns false if the attempt is unknown or has an
 * outcome already. */
bool tlsneg_tracker_early_end(tlsneg_tracker *t, uint64_t conn, uint64_t time_us, uint8_t cause,
                              uint8_t alert);

/* ChangeCipherSpec or an encrypted record on the connection: once both
 * sides have sent one, a handshake whose ServerHello the capture misses
 * completed all the same; it is no failure. */
void tlsneg_tracker_progress(tlsneg_tracker *t, uint64_t conn, bool from_server);

#endif
