/* SPDX-License-Identifier: GPL-2.0-or-later */
/* offer.h: what a ClientHello offers and a ServerHello answers, as far as
 * attempts across connections are concerned, and how two offers compare:
 * the versions offered, and fingerprints of everything else, so that a
 * retry that changed only how it signals versions can be told from one
 * that changed more. Also who talks to whom (the peer key). Pure C. */
#ifndef TLSNEG_OFFER_H
#define TLSNEG_OFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/facts.h"
#include "core/hello.h"

/* Who talks to whom: a retry is a new attempt with the same key. The
 * tracker adds the transport of the attempt's offer
 * (tlsneg_offer_transport): a QUIC or DTLS server on UDP and the TLS server
 * on TCP of one address and port are different peers, and nothing one of
 * them does is judged as the other's. */
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
    uint32_t session_id; /* a hash of the session ID; 0 if empty */
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
    /* Its key exchange and size (keyshare.c compares them): */
    bool pq_offered;        /* a post-quantum or hybrid group in supported_groups */
    bool pq_key_share;      /* a post-quantum or hybrid key share */
    uint16_t pq_group;      /* the first such share's group, else the first such group; 0 */
    uint16_t group_bits;    /* supported_groups as tlsneg_named_group_bit bits */
    uint16_t hello_length;  /* the message with its header, at most 65,535 */
    uint8_t hello_segments; /* segments (packets, fragments) that carried it, at most 255;
                               0: not known */
} tlsneg_offer;

/* tlsneg_offer_transport: the transport o came over (tlsneg_wire_transport),
 * read off its own flags: DTLS, QUIC (the other datagram wire), else TLS
 * over TCP. */
static inline tlsneg_wire tlsneg_offer_transport(const tlsneg_offer *o)
{
    return o->dtls ? TLSNEG_WIRE_DTLS : o->datagram ? TLSNEG_WIRE_QUIC : TLSNEG_WIRE_TLS;
}

/* What a ServerHello answers. */
typedef struct {
    bool is_hrr;
    bool has_group; /* the group chosen (ServerHello key_share, HRR selected_group) */
    uint16_t group;
    uint16_t version;    /* in force (not for a HelloRetryRequest) */
    uint32_t session_id; /* a hash of the session ID; 0 if empty */
    bool sentinel;       /* ServerHello.random ends with a downgrade sentinel (the checks
                            judge an ignored SCSV by it; the tracker, without one) */
} tlsneg_answer;

/* The longest words tlsneg_offer_changed and tlsneg_offer_refused write. */
#define TLSNEG_INTOLERANT_MAX 96

/* tlsneg_version_bit returns v's bit in tlsneg_offer.versions (0 for
 * GREASE and unknown values; all TLS 1.3 drafts share one bit). */
uint8_t tlsneg_version_bit(uint16_t v, bool dtls);
/* tlsneg_draft_bit returns draft or experiment v's bit in
 * tlsneg_offer.drafts (0 for other values). */
uint32_t tlsneg_draft_bit(uint16_t v);

/* What of a ClientHello the offer hashes on its way, in order, that a
 * HelloRetryRequest's digest (hrr.h) compares as well: not kept in an
 * offer. */
typedef struct {
    uint32_t suites;  /* the cipher suites, GREASE and the fallback SCSV left out */
    uint32_t groups;  /* supported_groups, GREASE left out; 0 without it */
    uint32_t session; /* legacy_session_id; 0 if empty */
    uint32_t exts;    /* the extensions a ClientHello after a HelloRetryRequest may not change
                         (RFC 8446 4.1.2), in order: each type, and the body of server_name,
                         signature_algorithms and ALPN (offer.c, hrr_fold) */
} tlsneg_hello_prints;

/* tlsneg_offer_from_hello fills out from a ClientHello, and prints unless
 * it is NULL. */
void tlsneg_offer_from_hello(tlsneg_offer *out, tlsneg_hello_prints *prints, const tlsneg_hello *h,
                             const tlsneg_facts *f);

/* tlsneg_answer_from_hello fills out from a ServerHello. */
void tlsneg_answer_from_hello(tlsneg_answer *out, const tlsneg_hello *h, const tlsneg_facts *f);

/* tlsneg_suite_needs_tls12: an AEAD or SHA-256/384 cipher suite, defined
 * for TLS 1.2 and not usable below it (RFC 5246, 5288, 5289, 7905 and the
 * IANA registry); TLS 1.3 suites (0x13xx) are not counted here. Inline, as
 * tlsneg_is_grease: every suite of every hello is tested. */
static inline bool tlsneg_suite_needs_tls12(uint16_t s)
{
    return (s >= 0x003b && s <= 0x0040) || (s >= 0x0067 && s <= 0x006d) ||
           (s >= 0x009c && s <= 0x00c5) || (s >= 0xc023 && s <= 0xc032) ||
           (s >= 0xc037 && s <= 0xc0ff) || (s >= 0xcca8 && s <= 0xccae) ||
           (s >= 0xd001 && s <= 0xd005);
}

/* tlsneg_extension_signals_version: an extension that only a client
 * offering TLS 1.3 sends (supported_versions, key_share, its draft number,
 * psk_key_exchange_modes, pre_shared_key, early_data, cookie,
 * post_handshake_auth, signature_algorithms_cert, compress_certificate,
 * encrypted_client_hello), or padding: what a
 * fallback retry drops without changing anything else. */
bool tlsneg_extension_signals_version(uint16_t type);

/* tlsneg_offer_rank: the rank of o's highest offered version in its family
 * (tlsneg_version_rank), 0 when it has none. */
unsigned tlsneg_offer_rank(const tlsneg_offer *o);

/* tlsneg_offer_offers: o offered v (an offer built without versions offers
 * all). */
bool tlsneg_offer_offers(const tlsneg_offer *o, uint16_t v);

/* tlsneg_offer_still_offers: o offers v the way that counts for v: TLS 1.3
 * only in supported_versions (RFC 8446 4.2.1), older versions by the
 * highest offer. */
bool tlsneg_offer_still_offers(const tlsneg_offer *o, uint16_t v);

/* tlsneg_offer_same: the same versions and, as far as known, the same
 * hello. */
bool tlsneg_offer_same(const tlsneg_offer *a, const tlsneg_offer *b);

/* tlsneg_offer_less says how b offers less than a ("a lower highest
 * version"), or returns NULL; dropping pre_shared_key or early_data (a
 * resumption) is not offering less. */
const char *tlsneg_offer_less(const tlsneg_offer *a, const tlsneg_offer *b);

/* tlsneg_offer_changed names what else than the version signals differs
 * between the failed offer f and the retry r ("cipher suites, other
 * extensions") in buf, or returns NULL. */
const char *tlsneg_offer_changed(const tlsneg_offer *f, const tlsneg_offer *r, char *buf,
                                 size_t len);

/* tlsneg_offer_refused names what a server that failed offer f and
 * accepted offer ok could not take ("TLS 1.3 in supported_versions"). */
void tlsneg_offer_refused(const tlsneg_offer *f, const tlsneg_offer *ok, char *buf, size_t len);

#endif
