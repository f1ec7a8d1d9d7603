/* SPDX-License-Identifier: GPL-2.0-or-later */
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

/* The defaults of every front end (the plugin's preferences start here). */
#define TLSNEG_DEFAULT_MAX_ATTEMPTS 500000u
#define TLSNEG_DEFAULT_WINDOW_S     30u
#define TLSNEG_TRACKER_DEFAULTS                                                                    \
    {                                                                                              \
        .max_attempts = TLSNEG_DEFAULT_MAX_ATTEMPTS,                                               \
        .window_us = (uint64_t)TLSNEG_DEFAULT_WINDOW_S * 1000000u, .key_includes_sni = true,       \
        .no_probes = false                                                                         \
    }

/* A client that probes a server: at least TLSNEG_PROBE_HELLOS hellos to one
 * server address and port, each at most window_us after the one before,
 * TLSNEG_PROBE_VARIATIONS of which make an offer not among the burst's last
 * four distinct ones (versions, suites, groups, signature algorithms,
 * extension set, SCSV) and are no retry of a failed attempt (a fallback, the
 * same offer again). */
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
    bool sentinel;       /* ServerHello.random ends with a downgrade sentinel (the checks
                            judge an ignored SCSV by it; the tracker, without one) */
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
    TLSNEG_VERDICT_IGNORED_SCSV,      /* ServerHello answering a hello marked with
                                         TLS_FALLBACK_SCSV below a version this server put in
                                         force for this client before (RFC 7507 3), without a
                                         sentinel of its own (then the checks judge) */
    TLSNEG_VERDICT_SAME_RETRY,        /* ClientHello: a retry of a failed attempt with the same
                                         offer: no fallback */
    TLSNEG_VERDICT_OTHER_CAUSE,       /* ServerHello completing a lower retry that changed more
                                         than its versions: not intolerance */
    TLSNEG_VERDICT_NO_COMMON_VERSION, /* alert protocol_version refusing a retry too */
    TLSNEG_VERDICT_CLIENT_ABORT,      /* the client's fatal alert after a ServerHello */
    TLSNEG_VERDICT_PROBE,             /* a hello or alert of a recognised probe (a scanner);
                                         silent but for the hello that made it recognised */
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
    TLSNEG_LINK_SAME_OFFER_AS,     /* the ClientHello of the failed attempt a retry repeats */
    TLSNEG_LINK_ABORTED_AFTER,     /* the ServerHello after which the client aborted */
    TLSNEG_LINK_PROBE_START,       /* the first hello of the probe */
    TLSNEG_LINK_FAILED_IN,         /* the alert, TCP reset or close that made the attempt fail */
    TLSNEG_LINK_ROLES
} tlsneg_link_role;

/* What a version in a verdict is. */
typedef enum {
    TLSNEG_VERSION_OFFERED_BEFORE, /* highest offered by the failed attempt */
    TLSNEG_VERSION_OFFERED_NOW,    /* highest offered by the retry */
    TLSNEG_VERSION_HIGHER,         /* in force in the TLSNEG_LINK_HIGHER_VERSION_IN frame */
    TLSNEG_VERSION_SESSION,        /* the version the resumed session was made at */
    TLSNEG_VERSION_LOWEST,         /* a probe: the least of its highest offers */
    TLSNEG_VERSION_HIGHEST,        /* a probe: the most of its highest offers */
    TLSNEG_VERSION_ROLES
} tlsneg_version_role;

/* What a text in a verdict says. */
typedef enum {
    TLSNEG_TEXT_CAUSE,         /* what made the previous attempt fail */
    TLSNEG_TEXT_CHAIN,         /* the attempts of the chain, oldest first */
    TLSNEG_TEXT_INTOLERANT_OF, /* what the server failed on and accepted to go without */
    TLSNEG_TEXT_LESS,          /* how a retry offers less than the failed attempt */
    TLSNEG_TEXT_CHANGED,       /* what else than the versions a retry changed */
    TLSNEG_TEXT_ATTEMPTS,      /* a chain of attempts that is no fallback, oldest first */
    TLSNEG_TEXT_PROBE,         /* what a probe did so far, in words */
    TLSNEG_TEXT_FAILURE,       /* how and where an attempt failed (tlsneg_failure_text) */
    TLSNEG_TEXT_TITLE,         /* what a hello's own title says of it (tlsneg_retry_text) */
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
    bool silent;                    /* evidence only, no finding (a probe's later messages) */
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
    uint8_t chain_scsv;                        /* bit i: attempt i carried TLS_FALLBACK_SCSV */
    uint8_t chain_same;                        /* bit i: attempt i repeated the offer before it */
    bool chain_dtls;                           /* the chain's versions are DTLS versions */
    /* TLSNEG_VERDICT_CLIENT_ABORT: the ServerHello carried a downgrade
     * sentinel and the client had offered TLS 1.3: it caught the downgrade. */
    bool downgrade_caught;
    /* TLSNEG_VERDICT_PROBE: the probe as far as it has gone. */
    tlsneg_probe probe;
} tlsneg_verdict;

typedef struct {
    size_t count;
    size_t dropped;
    tlsneg_verdict item[TLSNEG_MAX_VERDICTS];
} tlsneg_verdicts;

/* A verdict kept past its frame, as the front ends keep one per message
 * and the outputs read it (report/output.h): its evidence by role, its
 * texts by pointer; no chain and no detail (its finding has those). */
typedef struct {
    tlsneg_verdict_kind kind;
    const char *note;   /* its words in the packet list (tlsneg_verdict_note), or NULL */
    tlsneg_probe probe; /* TLSNEG_VERDICT_PROBE */
    uint8_t num_links, num_versions, num_texts;
    tlsneg_link link[TLSNEG_VERDICT_LINKS];
    tlsneg_version_ref version[TLSNEG_VERDICT_VERSIONS];
    struct {
        uint8_t role; /* tlsneg_text_role */
        const char *text;
    } text[TLSNEG_VERDICT_TEXTS];
} tlsneg_kept_verdict;

/* tlsneg_verdict_keep fills dst from v, with note as its note: each text is
 * keep_text(ctx, text), a copy that lives as long as dst (or text itself
 * while v lives). */
void tlsneg_verdict_keep(tlsneg_kept_verdict *dst, const tlsneg_verdict *v, const char *note,
                         const char *(*keep_text)(void *ctx, const char *text), void *ctx);
/* tlsneg_kept_find returns the first of the n verdicts vs of kind k, or
 * NULL; tlsneg_kept_link and tlsneg_kept_text are tlsneg_verdict_link and
 * tlsneg_verdict_text of a kept verdict. */
const tlsneg_kept_verdict *tlsneg_kept_find(const tlsneg_kept_verdict *vs, size_t n,
                                            tlsneg_verdict_kind k);
uint32_t tlsneg_kept_link(const tlsneg_kept_verdict *v, tlsneg_link_role r);
const char *tlsneg_kept_text(const tlsneg_kept_verdict *v, tlsneg_text_role r);

/* Names of kinds and roles, for machine-readable output ("fallback",
 * "previous_attempt"); "unknown" out of range. */
const char *tlsneg_verdict_kind_name(tlsneg_verdict_kind k);
/* tlsneg_verdict_tag: a few words for a packet list ("intolerant server"). */
const char *tlsneg_verdict_tag(tlsneg_verdict_kind k);
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
/* tlsneg_tracker_alert returns the frame of the ClientHello whose attempt
 * this alert makes fail (a fatal alert before any ServerHello, or the
 * client's abort after it), or 0; tlsneg_tracker_cause then says how. */
uint32_t tlsneg_tracker_alert(tlsneg_tracker *t, uint64_t conn, uint64_t time_us,
                              uint8_t description, bool from_server, tlsneg_verdicts *out);
/* tlsneg_tracker_cause returns how the attempt on conn failed (a
 * tlsneg_cause; TLSNEG_CAUSE_NONE if it has not, or is unknown), and for an
 * alert its description in *alert. */
uint8_t tlsneg_tracker_cause(const tlsneg_tracker *t, uint64_t conn, uint8_t *alert);
/* A TCP RST (reset) or FIN on the connection. Returns the frame of the
 * ClientHello whose attempt this ends before any ServerHello, or 0. */
uint32_t tlsneg_tracker_close(tlsneg_tracker *t, uint64_t conn, uint64_t time_us, bool reset);

/* ChangeCipherSpec or an encrypted record on the connection: once both
 * sides have sent one, a handshake whose ServerHello the capture misses
 * completed all the same; it is no failure. */
void tlsneg_tracker_progress(tlsneg_tracker *t, uint64_t conn, bool from_server);

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

/* A retry as a hello's own title tells it (tlsneg_retry_text). */
typedef struct {
    bool same;       /* the same offer again: no fallback */
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
 * has no such step, or is no retry (fallback, same offer, intolerance or
 * other cause). */
bool tlsneg_verdict_retry(const tlsneg_verdict *v, size_t step, uint8_t retries, tlsneg_retry *out);

/* tlsneg_retry_text writes the retry as a hello's title says it:
 * "fallback retry 2/3 (TLS 1.2 -> TLS 1.1, no SCSV)" (the number alone
 * while the chain's end is not known), "retry, same version (TLS 1.3)". */
const char *tlsneg_retry_text(const tlsneg_retry *r, char *buf, size_t buf_len);

/* tlsneg_retry_info writes the Info column's note of a fallback retry:
 * "fallback: TLS 1.2 -> TLS 1.1, no SCSV" (no brackets). */
const char *tlsneg_retry_info(const tlsneg_retry *r, char *buf, size_t buf_len);

/* tlsneg_verdict_note writes the few words the packet list (and an alert's
 * title) shows for v: tlsneg_retry_info for a fallback with known versions,
 * "client caught the downgrade" for a client abort after a sentinel, else
 * tlsneg_verdict_tag. dtls: name DTLS versions. */
const char *tlsneg_verdict_note(const tlsneg_verdict *v, bool dtls, char *buf, size_t buf_len);

/* tlsneg_chain_text writes v's chain: "TLS 1.3 (frame 4) -> TLS 1.2 (frame 10)". */
const char *tlsneg_chain_text(const tlsneg_verdict *v, char *buf, size_t buf_len);

/* tlsneg_verdict_findings appends to out the finding of every verdict in vs,
 * in order, but of silent ones (rules.def: fallback_retry,
 * retry_same_version, version_intolerance, failure_other_cause,
 * fallback_rejected, no_common_version, client_aborted, probe,
 * inconsistent_server, ignored_fallback_scsv, resumption_version_change). */
void tlsneg_verdict_findings(const tlsneg_verdicts *vs, tlsneg_findings *out);

#endif
