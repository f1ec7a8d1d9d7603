/* tracker.h: attempts across connections, for the pattern tlsneg exists for:
 * a handshake fails and the client comes back to the same server offering
 * less. Pure C, no Wireshark types: connections are numbers, peers are bytes,
 * times are microseconds, frames are numbers. Memory is bounded by
 * max_attempts; the oldest attempt is forgotten first.
 *
 * Feed events in frame order (the first pass); each call says what the
 * tracker now knows about the frame in hand. */
#ifndef TLSNEG_TRACKER_H
#define TLSNEG_TRACKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/checks.h"

#define TLSNEG_CHAIN_MAX      8
#define TLSNEG_INTOLERANT_MAX 96

typedef struct {
    uint32_t max_attempts; /* cap on tracked attempts */
    uint64_t window_us;    /* a retry must come this soon after the failure */
    bool key_includes_sni; /* attempts with different SNI are different peers */
} tlsneg_tracker_config;

/* Who talks to whom: a retry is a new attempt with the same key. */
typedef struct {
    const uint8_t *client;
    size_t client_len;
    const uint8_t *server;
    size_t server_len;
    uint16_t server_port;
    const char *sni; /* NULL: none */
} tlsneg_peer_key;

/* Extensions whose absence takes TLS 1.3 features off the table. */
enum {
    TLSNEG_OFFER_KEY_SHARE = 1,
    TLSNEG_OFFER_PSK_MODES = 2,
    TLSNEG_OFFER_EARLY_DATA = 4,
    TLSNEG_OFFER_PRE_SHARED_KEY = 8,
};

/* What a ClientHello offers, as far as fallback is concerned. */
typedef struct {
    bool dtls;
    bool datagram; /* DTLS or QUIC: no close to see, silence is the failure */
    bool has_offered_max;
    uint16_t offered_max;
    bool has_supported_versions;
    bool offers_tls13;        /* the final TLS 1.3 (DTLS 1.3) in supported_versions */
    uint8_t tls13_extensions; /* TLSNEG_OFFER_* bits: what signals TLS 1.3 */
    bool fallback_scsv;
    uint64_t session_id; /* a hash of the session ID; 0 if empty */
} tlsneg_offer;

/* What a ServerHello answers. */
typedef struct {
    bool is_hrr;
    uint16_t version;    /* in force (not for a HelloRetryRequest) */
    uint64_t session_id; /* a hash of the session ID; 0 if empty */
    bool pre_shared_key; /* TLS 1.3 resumption */
    bool has_sentinel;   /* a downgrade sentinel: the checks judge an ignored SCSV by it */
} tlsneg_answer;

typedef enum {
    TLSNEG_CAUSE_NONE,
    TLSNEG_CAUSE_ALERT,     /* a fatal alert before any ServerHello */
    TLSNEG_CAUSE_RESET,     /* TCP RST before any ServerHello */
    TLSNEG_CAUSE_CLOSE,     /* FIN before any ServerHello */
    TLSNEG_CAUSE_NO_ANSWER, /* a datagram attempt that got nothing back */
} tlsneg_cause;

/* What the tracker knows about the frame in hand. */
typedef struct {
    /* ClientHello: a fallback retry of the failed attempt in prev_frame. */
    bool fallback;
    uint32_t prev_frame;
    bool has_from, has_to;
    uint16_t from, to; /* highest versions offered before and now */
    uint8_t cause;     /* tlsneg_cause of the previous attempt */
    uint8_t cause_alert;
    bool scsv;
    const char *less; /* how the retry offers less, in words */
    /* The chain this attempt belongs to, oldest first, this one last. */
    uint8_t chain_len;
    uint32_t chain_frames[TLSNEG_CHAIN_MAX];
    uint16_t chain_versions[TLSNEG_CHAIN_MAX]; /* highest offered; 0 unknown */

    /* ServerHello completing a retry: the server failed the higher offers
     * of the chain and accepted this one. */
    bool intolerant;
    char intolerant_of[TLSNEG_INTOLERANT_MAX];

    /* Alert inappropriate_fallback answering a fallback retry. */
    bool fallback_rejected;

    /* ServerHello lower than one this server gave this client before,
     * although the client still offers the higher version. */
    bool inconsistent;
    uint32_t higher_frame;
    uint16_t higher_version;

    /* ServerHello answering a hello marked with TLS_FALLBACK_SCSV below the
     * version this server put in force for this client before (in
     * higher_frame, higher_version): RFC 7507 3 wants inappropriate_fallback.
     * Only without a sentinel in this ServerHello (then the checks judge). */
    bool ignored_scsv;

    /* ServerHello resuming a session made at another version. */
    bool resumption_change;
    uint32_t session_frame;
    uint16_t session_version;
} tlsneg_cross;

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
 * retransmitted) belongs to its first attempt. */
void tlsneg_tracker_client_hello(tlsneg_tracker *t, uint64_t conn, const tlsneg_peer_key *key,
                                 uint32_t frame, uint64_t time_us, const tlsneg_offer *offer,
                                 tlsneg_cross *out);
void tlsneg_tracker_server_hello(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t time_us,
                                 const tlsneg_answer *answer, tlsneg_cross *out);
void tlsneg_tracker_alert(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t time_us,
                          uint8_t description, bool from_server, tlsneg_cross *out);
/* A TCP RST (reset) or FIN on the connection. Returns the frame of the
 * ClientHello whose attempt this ends before any ServerHello, or 0. */
uint32_t tlsneg_tracker_close(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t time_us,
                              bool reset);

/* tlsneg_cause_text describes what made an attempt fail ("TCP reset"). */
const char *tlsneg_cause_text(const tlsneg_cross *c, char *buf, size_t buf_len);

/* tlsneg_chain_text writes the chain: "TLS 1.3 (frame 4) -> TLS 1.2 (frame 10)". */
const char *tlsneg_chain_text(const tlsneg_cross *c, char *buf, size_t buf_len);

/* tlsneg_cross_findings appends to out the findings c holds for its frame,
 * each with a sentence (rules.def: fallback_retry, version_intolerance,
 * fallback_rejected, inconsistent_server, ignored_fallback_scsv,
 * resumption_version_change). */
void tlsneg_cross_findings(const tlsneg_cross *c, tlsneg_findings *out);

#endif
