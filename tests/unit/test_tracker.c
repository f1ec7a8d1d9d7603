/* test_tracker.c: the cross-connection tracker on event sequences, each the
 * skeleton of a capture in pcaps/ (frames and times as there). */
#include "analysis/tracker.h"
#include "core/versions.h"

#include "tap.h"

static const uint8_t client1[4] = {127, 0, 0, 1}, client2[4] = {127, 0, 0, 2};
static const uint8_t server[4] = {127, 0, 0, 1};

static tlsneg_peer_key peer(const uint8_t *client, const char *sni)
{
    tlsneg_peer_key k = {client, 4, server, 4, 443, sni};
    return k;
}

/* offer13: what OpenSSL offers by default; offer_max: a client limited to
 * one version, no supported_versions. */
static tlsneg_offer offer13(void)
{
    tlsneg_offer o = {.has_offered_max = true,
                      .offered_max = TLSNEG_V_TLS13,
                      .has_supported_versions = true,
                      .offers_tls13 = true,
                      .tls13_extensions = TLSNEG_OFFER_KEY_SHARE | TLSNEG_OFFER_PSK_MODES};
    return o;
}

static tlsneg_offer offer_max(uint16_t v)
{
    tlsneg_offer o = {.has_offered_max = true, .offered_max = v};
    return o;
}

static tlsneg_answer answer(uint16_t v)
{
    tlsneg_answer a = {.version = v};
    return a;
}

static const uint64_t S = 1000000; /* one second */

/* The verdict list, read by kind and role: 0, "" or NULL when absent. */
static const tlsneg_verdict *find(const tlsneg_verdicts *vs, tlsneg_verdict_kind k)
{
    return tlsneg_verdict_find(vs, k);
}

static uint32_t link_of(const tlsneg_verdicts *vs, tlsneg_verdict_kind k, tlsneg_link_role r)
{
    const tlsneg_verdict *v = find(vs, k);
    return v ? tlsneg_verdict_link(v, r) : 0;
}

static uint16_t version_of(const tlsneg_verdicts *vs, tlsneg_verdict_kind k, tlsneg_version_role r)
{
    const tlsneg_verdict *v = find(vs, k);
    uint16_t out = 0;
    return v && tlsneg_verdict_version(v, r, &out) ? out : 0;
}

static const char *text_of(const tlsneg_verdicts *vs, tlsneg_verdict_kind k, tlsneg_text_role r)
{
    const tlsneg_verdict *v = find(vs, k);
    const char *t = v ? tlsneg_verdict_text(v, r) : NULL;
    return t ? t : "";
}

#define FALLBACK   TLSNEG_VERDICT_FALLBACK
#define INTOLERANT TLSNEG_VERDICT_INTOLERANT

static tlsneg_tracker *tracker(uint32_t cap, bool sni)
{
    tlsneg_tracker_config cfg = {cap, 30 * S, sni};
    return tlsneg_tracker_new(&cfg);
}

static void retry_after_reset(void)
{
    /* pcaps/intolerant-rst.pcap: CH 4, RST 6; CH 10, SH 12. */
    tlsneg_tracker *t = tracker(1000, true);
    tlsneg_peer_key k = peer(client1, "localhost");
    tlsneg_verdicts c;
    tlsneg_offer o13 = offer13(), o12 = offer_max(TLSNEG_V_TLS12);
    tlsneg_tracker_client_hello(t, 0, &k, 4, 0, &o13, &c);
    ok(!find(&c, FALLBACK), "a first attempt is no fallback");
    ok(tlsneg_tracker_close(t, 0, 6, S / 100, true) == 4,
       "the reset ends the attempt of frame 4 before any ServerHello");
    ok(tlsneg_tracker_close(t, 0, 7, S / 100, false) == 0, "a later FIN ends nothing more");
    tlsneg_tracker_client_hello(t, 1, &k, 10, S / 10, &o12, &c);
    ok(link_of(&c, FALLBACK, TLSNEG_LINK_PREVIOUS_ATTEMPT) == 4 &&
           version_of(&c, FALLBACK, TLSNEG_VERSION_OFFERED_BEFORE) == TLSNEG_V_TLS13 &&
           version_of(&c, FALLBACK, TLSNEG_VERSION_OFFERED_NOW) == TLSNEG_V_TLS12 &&
           strcmp(text_of(&c, FALLBACK, TLSNEG_TEXT_CAUSE), "TCP reset before any ServerHello") ==
               0 &&
           find(&c, FALLBACK)->rule == TLSNEG_RULE_FALLBACK_RETRY,
       "retry after a reset: fallback from frame 4, 1.3 -> 1.2, cause reset, no SCSV");
    ok(find(&c, FALLBACK)->chain_len == 2 && find(&c, FALLBACK)->chain_frames[0] == 4 &&
           find(&c, FALLBACK)->chain_frames[1] == 10 &&
           strcmp(text_of(&c, FALLBACK, TLSNEG_TEXT_CHAIN),
                  "TLS 1.3 (frame 4) -> TLS 1.2 (frame 10)") == 0,
       "the chain is frames 4, 10");
    tlsneg_answer a = answer(TLSNEG_V_TLS12);
    tlsneg_tracker_server_hello(t, 1, 12, S / 5, &a, &c);
    ok(find(&c, INTOLERANT) &&
           strcmp(text_of(&c, INTOLERANT, TLSNEG_TEXT_INTOLERANT_OF),
                  "TLS 1.3 in supported_versions") == 0 &&
           find(&c, INTOLERANT)->chain_len == 2 && find(&c, INTOLERANT)->chain_frames[0] == 4,
       "the ServerHello of the retry: intolerant of TLS 1.3 in supported_versions (%s)",
       text_of(&c, INTOLERANT, TLSNEG_TEXT_INTOLERANT_OF));
    char buf[64];
    ok(strcmp(tlsneg_cause_text(TLSNEG_CAUSE_ALERT, 40, buf, sizeof buf),
              "alert handshake_failure (40)") == 0,
       "cause text names the alert");
    tlsneg_tracker_free(t);
}

static void chain_to_tls10(void)
{
    /* pcaps/fallback-chain.pcap: alerts on 1.3, 1.2, 1.1; 1.0 succeeds. */
    tlsneg_tracker *t = tracker(1000, true);
    tlsneg_peer_key k = peer(client1, "localhost");
    tlsneg_verdicts c;
    tlsneg_offer offers[4] = {offer13(), offer_max(TLSNEG_V_TLS12), offer_max(TLSNEG_V_TLS11),
                              offer_max(TLSNEG_V_TLS10)};
    uint32_t frames[4] = {4, 14, 24, 34};
    for (uint64_t i = 0; i < 4; i++) {
        tlsneg_tracker_client_hello(t, i, &k, frames[i], i * S, &offers[i], &c);
        if (i < 3) {
            tlsneg_tracker_alert(t, i, frames[i] + 2, i * S + 1, 40, true, &c);
        }
    }
    ok(link_of(&c, FALLBACK, TLSNEG_LINK_PREVIOUS_ATTEMPT) == 24 &&
           strcmp(text_of(&c, FALLBACK, TLSNEG_TEXT_CAUSE), "alert handshake_failure (40)") == 0,
       "the last retry follows frame 24, failed by alert 40");
    ok(find(&c, FALLBACK)->chain_len == 4 &&
           find(&c, FALLBACK)->chain_versions[0] == TLSNEG_V_TLS13 &&
           find(&c, FALLBACK)->chain_versions[3] == TLSNEG_V_TLS10 &&
           find(&c, FALLBACK)->chain_frames[1] == 14,
       "one chain: 1.3 -> 1.2 -> 1.1 -> 1.0, each step linked");
    tlsneg_answer a = answer(TLSNEG_V_TLS10);
    tlsneg_tracker_server_hello(t, 3, 36, 4 * S, &a, &c);
    ok(strcmp(text_of(&c, INTOLERANT, TLSNEG_TEXT_INTOLERANT_OF),
              "a ClientHello offering TLS 1.1 or more") == 0 &&
           find(&c, INTOLERANT)->chain_len == 4,
       "the TLS 1.0 ServerHello: intolerant of %s",
       text_of(&c, INTOLERANT, TLSNEG_TEXT_INTOLERANT_OF));
    tlsneg_tracker_free(t);
}

static void no_false_alarms(void)
{
    tlsneg_tracker *t = tracker(1000, true);
    tlsneg_verdicts c;
    tlsneg_offer o13 = offer13(), o12 = offer_max(TLSNEG_V_TLS12);
    tlsneg_peer_key k = peer(client1, "localhost");
    tlsneg_answer a13 = answer(TLSNEG_V_TLS13), a12 = answer(TLSNEG_V_TLS12);

    /* Parallel: the first attempt is still open when the second starts. */
    tlsneg_tracker_client_hello(t, 0, &k, 4, 0, &o13, &c);
    tlsneg_tracker_client_hello(t, 1, &k, 15, S, &o12, &c);
    ok(!find(&c, FALLBACK), "parallel connections are not a fallback");
    tlsneg_tracker_server_hello(t, 0, 6, S, &a13, &c);
    tlsneg_tracker_server_hello(t, 1, 22, S, &a12, &c);
    ok(c.count == 0, "a 1.2 answer to a 1.2-only offer after 1.3 elsewhere is consistent");

    /* A retry at the same version. */
    tlsneg_peer_key k2 = peer(client1, "same");
    tlsneg_tracker_client_hello(t, 2, &k2, 40, 10 * S, &o13, &c);
    tlsneg_tracker_close(t, 2, 42, 10 * S, true);
    tlsneg_tracker_client_hello(t, 3, &k2, 46, 11 * S, &o13, &c);
    ok(!find(&c, FALLBACK), "a retry at the same version is not a fallback");

    /* A lower offer after a success. */
    tlsneg_peer_key k3 = peer(client1, "after-success");
    tlsneg_tracker_client_hello(t, 4, &k3, 50, 20 * S, &o13, &c);
    tlsneg_tracker_server_hello(t, 4, 52, 20 * S, &a13, &c);
    tlsneg_tracker_client_hello(t, 5, &k3, 60, 21 * S, &o12, &c);
    ok(!find(&c, FALLBACK), "a lower offer after a success is not a fallback");

    /* A different SNI, a different client. */
    tlsneg_peer_key ka = peer(client1, "a.localhost"), kb = peer(client1, "b.localhost");
    tlsneg_tracker_client_hello(t, 6, &ka, 70, 30 * S, &o13, &c);
    tlsneg_tracker_close(t, 6, 72, 30 * S, true);
    tlsneg_tracker_client_hello(t, 7, &kb, 76, 31 * S, &o12, &c);
    ok(!find(&c, FALLBACK), "a retry to another SNI is not a fallback");
    tlsneg_peer_key kc1 = peer(client1, "x"), kc2 = peer(client2, "x");
    tlsneg_tracker_client_hello(t, 8, &kc1, 80, 40 * S, &o13, &c);
    tlsneg_tracker_close(t, 8, 82, 40 * S, true);
    tlsneg_tracker_client_hello(t, 9, &kc2, 86, 41 * S, &o12, &c);
    ok(!find(&c, FALLBACK), "a lower offer from another client is not a fallback");

    /* Dropping an extension that has nothing to do with the version. */
    tlsneg_peer_key kx = peer(client1, "ext");
    tlsneg_offer fewer = o13;
    tlsneg_tracker_client_hello(t, 12, &kx, 100, 60 * S, &o13, &c);
    tlsneg_tracker_close(t, 12, 102, 60 * S, true);
    tlsneg_tracker_client_hello(t, 13, &kx, 106, 61 * S, &fewer, &c);
    ok(!find(&c, FALLBACK),
       "the same version offer without some other extension is not a fallback");
    fewer.tls13_extensions = TLSNEG_OFFER_PSK_MODES;
    tlsneg_tracker_close(t, 13, 108, 61 * S, true);
    tlsneg_tracker_client_hello(t, 14, &kx, 110, 62 * S, &fewer, &c);
    ok(strcmp(text_of(&c, FALLBACK, TLSNEG_TEXT_LESS), "fewer TLS 1.3 extensions") == 0,
       "the same versions without key_share after a failure: a fallback");
    tlsneg_answer a13x = answer(TLSNEG_V_TLS13);
    tlsneg_tracker_server_hello(t, 14, 112, 62 * S, &a13x, &c);
    ok(strcmp(text_of(&c, INTOLERANT, TLSNEG_TEXT_INTOLERANT_OF), "key_share") == 0,
       "intolerant of %s", text_of(&c, INTOLERANT, TLSNEG_TEXT_INTOLERANT_OF));

    /* A long gap. */
    tlsneg_peer_key kg = peer(client1, "gap");
    tlsneg_tracker_client_hello(t, 10, &kg, 90, 50 * S, &o13, &c);
    tlsneg_tracker_close(t, 10, 92, 50 * S, true);
    tlsneg_tracker_client_hello(t, 11, &kg, 96, 81 * S, &o12, &c);
    ok(!find(&c, FALLBACK), "a retry 31 s after the failure (window 30 s) is not a fallback");
    tlsneg_tracker_free(t);

    /* Without SNI in the key, the SNI change is a fallback again. */
    t = tracker(1000, false);
    tlsneg_tracker_client_hello(t, 0, &ka, 70, 0, &o13, &c);
    tlsneg_tracker_close(t, 0, 72, 0, true);
    tlsneg_tracker_client_hello(t, 1, &kb, 76, S, &o12, &c);
    ok(find(&c, FALLBACK) != NULL,
       "with SNI left out of the key, a lower retry to another SNI is a fallback");
    tlsneg_tracker_free(t);
}

static void rejected_inconsistent_datagram(void)
{
    tlsneg_tracker *t = tracker(1000, true);
    tlsneg_verdicts c;
    tlsneg_offer o13 = offer13(), o12 = offer_max(TLSNEG_V_TLS12);
    o12.fallback_scsv = true;
    tlsneg_peer_key k = peer(client1, "localhost");
    /* pcaps/fallback-rejected-retry.pcap: RST, then an SCSV retry refused. */
    tlsneg_tracker_client_hello(t, 0, &k, 4, 0, &o13, &c);
    tlsneg_tracker_close(t, 0, 6, 1, true);
    tlsneg_tracker_client_hello(t, 1, &k, 10, S, &o12, &c);
    ok(find(&c, FALLBACK) && find(&c, FALLBACK)->rule == TLSNEG_RULE_FALLBACK_RETRY_SCSV,
       "the retry carries TLS_FALLBACK_SCSV");
    tlsneg_tracker_alert(t, 1, 12, S, 86, true, &c);
    ok(link_of(&c, TLSNEG_VERDICT_FALLBACK_REJECTED, TLSNEG_LINK_REFUSED_RETRY) == 10,
       "alert 86 on the retry: the fallback was rejected");

    /* A server that gave TLS 1.3 before gives 1.2 to the same full offer. */
    tlsneg_peer_key k2 = peer(client1, "flaky");
    tlsneg_answer a13 = answer(TLSNEG_V_TLS13), a12 = answer(TLSNEG_V_TLS12);
    tlsneg_tracker_client_hello(t, 2, &k2, 20, 2 * S, &o13, &c);
    tlsneg_tracker_server_hello(t, 2, 22, 2 * S, &a13, &c);
    tlsneg_tracker_client_hello(t, 3, &k2, 30, 3 * S, &o13, &c);
    tlsneg_tracker_server_hello(t, 3, 32, 3 * S, &a12, &c);
    ok(link_of(&c, TLSNEG_VERDICT_INCONSISTENT, TLSNEG_LINK_HIGHER_VERSION_IN) == 22 &&
           version_of(&c, TLSNEG_VERDICT_INCONSISTENT, TLSNEG_VERSION_HIGHER) == TLSNEG_V_TLS13,
       "TLS 1.2 after TLS 1.3 for the same offer: inconsistent, linked to frame 22");

    /* DTLS: silence is the failure. */
    tlsneg_offer d13 = {.dtls = true,
                        .datagram = true,
                        .has_offered_max = true,
                        .offered_max = TLSNEG_V_DTLS13,
                        .has_supported_versions = true,
                        .offers_tls13 = true},
                 d12 = {.dtls = true,
                        .datagram = true,
                        .has_offered_max = true,
                        .offered_max = TLSNEG_V_DTLS12};
    tlsneg_peer_key k3 = peer(client1, "dtls");
    tlsneg_tracker_client_hello(t, 4, &k3, 40, 4 * S, &d13, &c);
    tlsneg_tracker_client_hello(t, 5, &k3, 50, 6 * S, &d12, &c);
    ok(strcmp(text_of(&c, FALLBACK, TLSNEG_TEXT_CAUSE), "no answer") == 0 &&
           version_of(&c, FALLBACK, TLSNEG_VERSION_OFFERED_BEFORE) == TLSNEG_V_DTLS13,
       "DTLS: an unanswered DTLS 1.3 flow, then DTLS 1.2: a fallback, cause no answer");
    tlsneg_tracker_free(t);
}

static void resumption(void)
{
    tlsneg_tracker *t = tracker(1000, true);
    tlsneg_verdicts c;
    tlsneg_peer_key k = peer(client1, "localhost");
    tlsneg_offer o12 = offer_max(TLSNEG_V_TLS12), o11 = offer_max(TLSNEG_V_TLS11);
    tlsneg_answer a12 = answer(TLSNEG_V_TLS12), a11 = answer(TLSNEG_V_TLS11);
    a12.session_id = 0xabc;
    tlsneg_tracker_client_hello(t, 0, &k, 4, 0, &o12, &c);
    tlsneg_tracker_server_hello(t, 0, 6, 0, &a12, &c);
    o12.session_id = 0xabc;
    tlsneg_tracker_client_hello(t, 1, &k, 18, S, &o12, &c);
    tlsneg_tracker_server_hello(t, 1, 20, S, &a12, &c);
    ok(!find(&c, TLSNEG_VERDICT_RESUMPTION_CHANGE),
       "TLS 1.2 session resumed at TLS 1.2: no finding");
    o11.session_id = 0xabc;
    a11.session_id = 0xabc;
    tlsneg_tracker_client_hello(t, 2, &k, 30, 2 * S, &o11, &c);
    tlsneg_tracker_server_hello(t, 2, 32, 2 * S, &a11, &c);
    ok(link_of(&c, TLSNEG_VERDICT_RESUMPTION_CHANGE, TLSNEG_LINK_SESSION_MADE_IN) == 6 &&
           version_of(&c, TLSNEG_VERDICT_RESUMPTION_CHANGE, TLSNEG_VERSION_SESSION) ==
               TLSNEG_V_TLS12,
       "a TLS 1.2 session resumed at TLS 1.1: linked to frame 6");
    /* pcaps/resumption-tls12-offered-tls13.pcap: a TLS 1.3 server echoes
     * the old ID for compatibility: no resumption. */
    tlsneg_offer o13 = offer13();
    o13.session_id = 0xabc;
    tlsneg_answer a13 = answer(TLSNEG_V_TLS13);
    a13.session_id = 0xabc;
    tlsneg_tracker_client_hello(t, 3, &k, 40, 3 * S, &o13, &c);
    tlsneg_tracker_server_hello(t, 3, 42, 3 * S, &a13, &c);
    ok(c.count == 0, "TLS 1.3 echoing the client's session ID is not resumption");
    tlsneg_tracker_free(t);
}

static void bounded(void)
{
    tlsneg_tracker *t = tracker(100, true);
    tlsneg_verdicts c;
    tlsneg_offer o13 = offer13(), o12 = offer_max(TLSNEG_V_TLS12);
    uint8_t client[4] = {10, 0, 0, 0};
    size_t most = 0;
    int fallbacks = 0;
    for (uint32_t i = 0; i < 100000; i++) {
        client[2] = (uint8_t)(i >> 8);
        client[3] = (uint8_t)i;
        tlsneg_peer_key k = {client, 4, server, 4, 443, NULL};
        /* Every other attempt fails and is retried lower by the same client. */
        uint64_t conn = 2 * (uint64_t)i;
        tlsneg_tracker_client_hello(t, conn, &k, 3 * i, i * S / 1000, &o13, &c);
        tlsneg_tracker_close(t, conn, 3 * i + 1, i * S / 1000, true);
        tlsneg_tracker_client_hello(t, conn + 1, &k, 3 * i + 2, i * S / 1000 + 1, &o12, &c);
        fallbacks +=
            find(&c, FALLBACK) && link_of(&c, FALLBACK, TLSNEG_LINK_PREVIOUS_ATTEMPT) == 3 * i;
        most = tlsneg_tracker_bytes(t) > most ? tlsneg_tracker_bytes(t) : most;
    }
    ok(tlsneg_tracker_attempts(t) == 100, "200,000 attempts, cap 100: 100 tracked");
    ok(most <= 1024 + 100 * tlsneg_tracker_bytes_per_attempt(),
       "memory stays under the cap's bound (%zu bytes)", most);
    ok(fallbacks == 100000, "every fallback is still found right after its failure (%d)",
       fallbacks);
    tlsneg_tracker_free(t);
}

int main(void)
{
    retry_after_reset();
    chain_to_tls10();
    no_false_alarms();
    rejected_inconsistent_datagram();
    resumption();
    bounded();
    return tap_done();
}
