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
    bool no_probes;        /* do not recognise scanners (every hello judged alone) */
} tlsneg_tracker_config;

/* A client that probes a server: at least TLSNEG_PROBE_HELLOS hellos to one
 * server address and port, each at most window_us after the one before,
 * TLSNEG_PROBE_VARIATIONS of which change the offer in a way no retry does
 * (a higher version than the hello before, another cipher list at the same
 * versions, a new offer while the previous attempt is still open or
 * succeeded, TLS_FALLBACK_SCSV after a success). */
#define TLSNEG_PROBE_HELLOS     5
#define TLSNEG_PROBE_VARIATIONS 3

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
    /* Every version offered, one bit each (tlsneg_version_bit): the
     * supported_versions list, else every version up to legacy_version. */
    uint8_t versions;
    uint32_t drafts; /* the TLS 1.3 drafts and experiments offered (tlsneg_draft_bit) */
    /* The rest of the hello, to tell a retry that changed only how it
     * signals versions from one that changed more (tlsneg_offer_from_hello).
     * Without has_fingerprint nothing is compared. */
    bool has_fingerprint;
    uint32_t fp_suites;       /* cipher suites in order, without GREASE, SCSVs, TLS 1.3 suites */
    uint32_t fp_suites_pre12; /* the same without the suites that need TLS 1.2 */
    uint32_t fp_groups;       /* supported_groups without GREASE and FFDHE */
    uint32_t fp_sigalgs;      /* signature_algorithms without GREASE */
    uint32_t fp_exts;         /* extension types as a set, without GREASE, padding, TLS 1.3 ones */
    uint32_t fp_exts_pre12;   /* the same without signature_algorithms */
    uint32_t fp_all;          /* the whole offer: versions, every suite, groups, extensions */
} tlsneg_offer;

/* tlsneg_version_bit returns v's bit in tlsneg_offer.versions (0 for
 * GREASE and unknown values; all TLS 1.3 drafts share one bit). */
uint8_t tlsneg_version_bit(uint16_t v, bool dtls);
/* tlsneg_draft_bit returns draft or experiment v's bit in
 * tlsneg_offer.drafts (0 for other values). */
uint32_t tlsneg_draft_bit(uint16_t v);

/* What a ServerHello answers. */
typedef struct {
    bool is_hrr;
    uint16_t version;    /* in force (not for a HelloRetryRequest) */
    uint64_t session_id; /* a hash of the session ID; 0 if empty */
    bool pre_shared_key; /* TLS 1.3 resumption */
    bool sentinel;       /* ServerHello.random ends with a downgrade sentinel */
} tlsneg_answer;

typedef enum {
    TLSNEG_CAUSE_NONE,
    TLSNEG_CAUSE_ALERT,        /* a fatal alert before any ServerHello */
    TLSNEG_CAUSE_RESET,        /* TCP RST before any ServerHello */
    TLSNEG_CAUSE_CLOSE,        /* FIN before any ServerHello */
    TLSNEG_CAUSE_NO_ANSWER,    /* a datagram attempt that got nothing back */
    TLSNEG_CAUSE_CLIENT_ABORT, /* the client's fatal alert after the ServerHello */
} tlsneg_cause;

/* A recognised probe, as far as it has gone. */
typedef struct {
    uint32_t first_frame; /* the first hello of the burst: names the probe */
    uint32_t hellos;
    uint64_t first_us, last_us;
    uint16_t lowest, highest; /* highest versions offered: the least and the most */
    uint16_t scsv;            /* hellos with TLS_FALLBACK_SCSV */
    uint16_t scsv_refused;    /* of them, answered with inappropriate_fallback (86) */
    bool dtls;
} tlsneg_probe;

/* What the tracker knows about the frame in hand. */
typedef struct {
    /* ClientHello: a fallback retry of the failed attempt in prev_frame
     * (lower versions, nothing else changed), or (same_retry) a retry of
     * the same offer: no fallback. A lower retry that changed more is
     * neither; its success is judged as failure_other_cause. */
    bool fallback;
    bool same_retry;
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
    /* ServerHello completing a fallback retry whose failed attempt (in
     * failed_frame) differed in more than versions: not intolerance. */
    bool other_cause;
    uint32_t failed_frame;
    char changed[TLSNEG_INTOLERANT_MAX]; /* what else changed, in words */

    /* Alert from the server: a retry of the chain was refused with
     * protocol_version too: no common version. */
    bool retry_refused;

    /* Alert from the client after the ServerHello in answer_frame. */
    bool client_abort;
    uint32_t answer_frame;
    bool caught_sentinel; /* the ServerHello had a sentinel and the client offered TLS 1.3 */

    /* ClientHello or alert within a recognised probe (probe_new: the hello
     * that made it recognised). Fallbacks and intolerance are not judged in
     * a probe. */
    bool probe;
    bool probe_new;
    tlsneg_probe probe_info;

    /* Alert inappropriate_fallback answering a fallback retry. */
    bool fallback_rejected;

    /* ServerHello lower than one this server gave this client before,
     * although the client still offers the higher version. */
    bool inconsistent;
    uint32_t higher_frame;
    uint16_t higher_version;

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
/* ChangeCipherSpec or an encrypted record on the connection: once both
 * sides have sent one, a handshake whose ServerHello the capture misses
 * completed all the same; it is no failure. */
void tlsneg_tracker_progress(tlsneg_tracker *t, uint64_t conn, bool from_server);

/* tlsneg_probe_text writes "probed with 110 hellos in 12 s, SSL 3.0 to TLS
 * 1.3, SCSV probe answered with 86" (without who probed whom). */
const char *tlsneg_probe_text(const tlsneg_probe *p, char *buf, size_t buf_len);

/* tlsneg_cause_text describes what made an attempt fail ("TCP reset"). */
const char *tlsneg_cause_text(const tlsneg_cross *c, char *buf, size_t buf_len);

/* tlsneg_chain_text writes the chain: "TLS 1.3 (frame 4) -> TLS 1.2 (frame 10)". */
const char *tlsneg_chain_text(const tlsneg_cross *c, char *buf, size_t buf_len);

/* tlsneg_cross_findings appends to out the findings c holds for its frame,
 * each with a sentence (rules.def: fallback_retry, retry_same_version,
 * version_intolerance, failure_other_cause, fallback_rejected,
 * retry_refused, client_aborted, probe, inconsistent_server,
 * resumption_version_change). */
void tlsneg_cross_findings(const tlsneg_cross *c, tlsneg_findings *out);

#endif
