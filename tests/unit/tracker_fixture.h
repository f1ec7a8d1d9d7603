/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracker_fixture.h: what the tracker's unit tests share (test_tracker.c,
 * test_tracker_cross.c): addresses, offers as real stacks send them, answers,
 * and readers of a verdict's evidence. */
#ifndef TLSNEG_TRACKER_FIXTURE_H
#define TLSNEG_TRACKER_FIXTURE_H

#include <string.h>

#include "analysis/checks.h"
#include "analysis/tracker.h"
#include "core/versions.h"

#include "tap.h"

static const uint8_t client1[4] = {127, 0, 0, 1}, client2[4] = {127, 0, 0, 2};
static const uint8_t server[4] = {127, 0, 0, 1};

static inline tlsneg_peer_key peer(const uint8_t *client, const char *sni)
{
    tlsneg_peer_key k = {client, 4, server, 4, 443, sni};
    return k;
}

/* peer_n: scenario n's own client (10.0.0.n), so that scenarios fed to one
 * tracker do not look like one client probing the server. */
static inline tlsneg_peer_key peer_n(uint8_t n, const char *sni)
{
    static uint8_t clients[256][4];
    clients[n][0] = 10;
    clients[n][3] = n;
    return peer(clients[n], sni);
}

/* offer13: what OpenSSL offers by default; offer_max: a client limited to
 * one version, no supported_versions. */
static inline tlsneg_offer offer13(void)
{
    tlsneg_offer o = {.has_offered_max = true,
                      .offered_max = TLSNEG_V_TLS13,
                      .has_supported_versions = true,
                      .offers_tls13 = true,
                      .tls13_extensions = TLSNEG_OFFER_KEY_SHARE | TLSNEG_OFFER_PSK_MODES};
    return o;
}

static inline tlsneg_offer offer_max(uint16_t v)
{
    tlsneg_offer o = {.has_offered_max = true, .offered_max = v};
    return o;
}

static inline tlsneg_answer answer(uint16_t v)
{
    tlsneg_answer a = {.version = v};
    return a;
}

static const uint64_t S = 1000000; /* one second */

/* The verdict list, read by kind and role: 0, "" or NULL when absent. */
static inline const tlsneg_verdict *find(const tlsneg_verdicts *vs, tlsneg_verdict_kind k)
{
    return tlsneg_verdict_find(vs, k);
}

static inline uint32_t link_of(const tlsneg_verdicts *vs, tlsneg_verdict_kind k, tlsneg_link_role r)
{
    const tlsneg_verdict *v = find(vs, k);
    return v ? tlsneg_verdict_link(v, r) : 0;
}

static inline uint16_t version_of(const tlsneg_verdicts *vs, tlsneg_verdict_kind k,
                                  tlsneg_version_role r)
{
    const tlsneg_verdict *v = find(vs, k);
    uint16_t out = 0;
    return v && tlsneg_verdict_version(v, r, &out) ? out : 0;
}

static inline const char *text_of(const tlsneg_verdicts *vs, tlsneg_verdict_kind k,
                                  tlsneg_text_role r)
{
    const tlsneg_verdict *v = find(vs, k);
    const char *t = v ? tlsneg_verdict_text(v, r) : NULL;
    return t ? t : "";
}

#define FALLBACK   TLSNEG_VERDICT_FALLBACK
#define INTOLERANT TLSNEG_VERDICT_INTOLERANT

static inline tlsneg_tracker *tracker(uint32_t cap, bool sni)
{
    tlsneg_tracker_config cfg = {cap, 30 * S, sni, false, false};
    return tlsneg_tracker_new(&cfg);
}

/* Offers with their fingerprints, as tlsneg_offer_from_hello makes them
 * from the hellos of pcaps/ and of the scanner captures. The numbers stand
 * for the hashes: equal numbers, equal lists. */
enum { SUITES_OPENSSL = 1, SUITES_OTHER, SUITES_NONE, GROUPS = 10, SIGALGS = 20, EXTS = 30 };

static inline tlsneg_offer fp(tlsneg_offer o, uint32_t suites)
{
    o.has_fingerprint = true;
    o.fp_suites = suites;
    o.fp_suites_pre12 = suites + 100;
    o.fp_groups = GROUPS;
    o.fp_sigalgs = SIGALGS;
    o.fp_exts = EXTS;
    o.fp_exts_pre12 = EXTS + 100;
    o.fp_all = (uint32_t)(o.offered_max * 1000u + suites + (o.has_supported_versions ? 7 : 0));
    return o;
}

/* OpenSSL's default hello: supported_versions 1.3 .. 1.0. */
static inline tlsneg_offer openssl13(void)
{
    tlsneg_offer o = {.has_offered_max = true,
                      .offered_max = TLSNEG_V_TLS13,
                      .has_supported_versions = true,
                      .offers_tls13 = true,
                      .tls13_extensions = TLSNEG_OFFER_KEY_SHARE | TLSNEG_OFFER_PSK_MODES,
                      .versions = (uint8_t)(tlsneg_version_bit(TLSNEG_V_TLS13, false) |
                                            tlsneg_version_bit(TLSNEG_V_TLS12, false) |
                                            tlsneg_version_bit(TLSNEG_V_TLS11, false) |
                                            tlsneg_version_bit(TLSNEG_V_TLS10, false))};
    return fp(o, SUITES_OPENSSL);
}

/* A hello without supported_versions: every version up to v. */
static inline tlsneg_offer legacy(uint16_t v, uint32_t suites)
{
    tlsneg_offer o = {.has_offered_max = true, .offered_max = v};
    for (uint16_t w = TLSNEG_V_SSL3; w <= v; w++) {
        o.versions |= tlsneg_version_bit(w, false);
    }
    return fp(o, suites);
}

/* A hello that offers TLS 1.3 only (supported_versions 0x0304). */
static inline tlsneg_offer only13(uint32_t suites)
{
    tlsneg_offer o = openssl13();
    o.versions = tlsneg_version_bit(TLSNEG_V_TLS13, false);
    return fp(o, suites);
}

/* quic13: what a QUIC client offers over UDP: TLS 1.3 only (RFC 9001 4.2),
 * its extensions with quic_transport_parameters (RFC 9001 8.2): another
 * extension set than its hellos over TCP. */
static inline tlsneg_offer quic13(uint32_t suites)
{
    tlsneg_offer o = only13(suites);
    o.datagram = true;
    o.fp_exts = EXTS + 1;
    o.fp_all ^= 0x10000u;
    return o;
}

#endif
