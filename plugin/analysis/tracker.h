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
} tlsneg_answer;

typedef enum {
    TLSNEG_CAUSE_NONE,
    TLSNEG_CAUSE_ALERT,     /* a fatal alert before any ServerHello */
    TLSNEG_CAUSE_RESET,     /* TCP RST before any ServerHello */
    TLSNEG_CAUSE_CLOSE,     /* FIN before any ServerHello */
    TLSNEG_CAUSE_NO_ANSWER, /* a datagram attempt that got nothing back */
} tlsneg_cause;

/* What the tracker knows about the frame in hand: a list of verdicts, each
 * a kind, the finding it makes, and its evidence as typed links to other
 * frames, versions and texts. A new verdict is one kind, one producer in
 * tracker.c, and the front ends render it generically by role. */
typedef enum {
    TLSNEG_VERDICT_FALLBACK,          /* ClientHello: a fallback retry of a failed attempt */
    TLSNEG_VERDICT_INTOLERANT,        /* ServerHello completing a retry: the server failed the
                                         higher offers of the chain and accepted this one */
    TLSNEG_VERDICT_FALLBACK_REJECTED, /* alert inappropriate_fallback answering a fallback */
    TLSNEG_VERDICT_INCONSISTENT,      /* ServerHello lower than one this server gave this
                                         client before, although the client still offers it */
    TLSNEG_VERDICT_RESUMPTION_CHANGE, /* ServerHello resuming a session made at another version */
    TLSNEG_VERDICT_KINDS
} tlsneg_verdict_kind;

/* How another frame takes part in a verdict. */
typedef enum {
    TLSNEG_LINK_PREVIOUS_ATTEMPT,  /* the ClientHello of the failed attempt a retry follows */
    TLSNEG_LINK_RETRY,             /* the ClientHello that retried this attempt */
    TLSNEG_LINK_REFUSED_RETRY,     /* the ClientHello of the fallback an alert refuses */
    TLSNEG_LINK_COMPLETED_BY,      /* the ServerHello of the attempt that went through */
    TLSNEG_LINK_SESSION_MADE_IN,   /* the ServerHello that created the session resumed */
    TLSNEG_LINK_HIGHER_VERSION_IN, /* an earlier ServerHello with a higher version in force */
    TLSNEG_LINK_ROLES
} tlsneg_link_role;

/* What a version in a verdict is. */
typedef enum {
    TLSNEG_VERSION_OFFERED_BEFORE, /* highest offered by the failed attempt */
    TLSNEG_VERSION_OFFERED_NOW,    /* highest offered by the retry */
    TLSNEG_VERSION_HIGHER,         /* in force in the TLSNEG_LINK_HIGHER_VERSION_IN frame */
    TLSNEG_VERSION_SESSION,        /* the version the resumed session was made at */
    TLSNEG_VERSION_ROLES
} tlsneg_version_role;

/* What a text in a verdict says. */
typedef enum {
    TLSNEG_TEXT_CAUSE,         /* what made the previous attempt fail */
    TLSNEG_TEXT_CHAIN,         /* the attempts of the chain, oldest first */
    TLSNEG_TEXT_INTOLERANT_OF, /* what the server failed on and accepted to go without */
    TLSNEG_TEXT_LESS,          /* how a retry offers less than the failed attempt */
    TLSNEG_TEXT_ROLES
} tlsneg_text_role;

#define TLSNEG_VERDICT_LINKS    4
#define TLSNEG_VERDICT_VERSIONS 4
#define TLSNEG_VERDICT_TEXTS    4
#define TLSNEG_VERDICT_TEXT_MAX 256
#define TLSNEG_MAX_VERDICTS     8

typedef struct {
    uint8_t role; /* tlsneg_link_role */
    uint32_t frame;
} tlsneg_link;

typedef struct {
    uint8_t role; /* tlsneg_version_role */
    uint16_t version;
} tlsneg_version_ref;

typedef struct {
    uint8_t role; /* tlsneg_text_role */
    char text[TLSNEG_VERDICT_TEXT_MAX];
} tlsneg_text;

typedef struct {
    tlsneg_verdict_kind kind;
    tlsneg_rule_id rule;            /* the finding it makes */
    char detail[TLSNEG_DETAIL_MAX]; /* the finding's sentence */
    uint8_t num_links, num_versions, num_texts;
    tlsneg_link link[TLSNEG_VERDICT_LINKS];
    tlsneg_version_ref version[TLSNEG_VERDICT_VERSIONS];
    tlsneg_text text[TLSNEG_VERDICT_TEXTS];
    /* The chain of attempts the verdict is about, oldest first, the frame's
     * own attempt last (fallback and intolerance; empty otherwise). */
    uint8_t chain_len;
    uint32_t chain_frames[TLSNEG_CHAIN_MAX];
    uint16_t chain_versions[TLSNEG_CHAIN_MAX]; /* highest offered; 0 unknown */
} tlsneg_verdict;

typedef struct {
    size_t count;
    size_t dropped;
    tlsneg_verdict item[TLSNEG_MAX_VERDICTS];
} tlsneg_verdicts;

/* Names of kinds and roles, for machine-readable output ("fallback",
 * "previous_attempt"); "unknown" out of range. */
const char *tlsneg_verdict_kind_name(tlsneg_verdict_kind k);
const char *tlsneg_link_role_name(tlsneg_link_role r);
const char *tlsneg_version_role_name(tlsneg_version_role r);
const char *tlsneg_text_role_name(tlsneg_text_role r);

/* tlsneg_verdict_find returns the first verdict of kind k in vs, or NULL. */
const tlsneg_verdict *tlsneg_verdict_find(const tlsneg_verdicts *vs, tlsneg_verdict_kind k);
/* tlsneg_verdict_link returns the frame v links in role r, or 0. */
uint32_t tlsneg_verdict_link(const tlsneg_verdict *v, tlsneg_link_role r);
/* tlsneg_verdict_version tells whether v names a version in role r, in *out. */
bool tlsneg_verdict_version(const tlsneg_verdict *v, tlsneg_version_role r, uint16_t *out);
/* tlsneg_verdict_text returns v's text in role r, or NULL. */
const char *tlsneg_verdict_text(const tlsneg_verdict *v, tlsneg_text_role r);

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
                                 tlsneg_verdicts *out);
void tlsneg_tracker_server_hello(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t time_us,
                                 const tlsneg_answer *answer, tlsneg_verdicts *out);
void tlsneg_tracker_alert(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t time_us,
                          uint8_t description, bool from_server, tlsneg_verdicts *out);
/* A TCP RST (reset) or FIN on the connection. Returns the frame of the
 * ClientHello whose attempt this ends before any ServerHello, or 0. */
uint32_t tlsneg_tracker_close(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t time_us,
                              bool reset);

/* tlsneg_cause_text describes what made an attempt fail ("TCP reset"):
 * cause is a tlsneg_cause, alert the alert's description for
 * TLSNEG_CAUSE_ALERT. */
const char *tlsneg_cause_text(uint8_t cause, uint8_t alert, char *buf, size_t buf_len);

/* tlsneg_chain_text writes v's chain: "TLS 1.3 (frame 4) -> TLS 1.2 (frame 10)". */
const char *tlsneg_chain_text(const tlsneg_verdict *v, char *buf, size_t buf_len);

/* tlsneg_verdict_findings appends to out the finding of every verdict in vs,
 * in order (rules.def: fallback_retry, version_intolerance,
 * fallback_rejected, inconsistent_server, resumption_version_change). */
void tlsneg_verdict_findings(const tlsneg_verdicts *vs, tlsneg_findings *out);

#endif
