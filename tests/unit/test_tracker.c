/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_tracker.c: the cross-connection tracker on event sequences, each the
 * skeleton of a capture in pcaps/ (frames and times as there); the scenarios
 * read through the verdict view are in test_tracker_cross.c. */
#include "tracker_fixture.h"

static void retry_after_reset(void)
{
    /* pcaps/intolerant-rst.pcap: CH 4, RST 6; CH 10, SH 12. */
    tlsneg_tracker *t = tracker(1000, true);
    tlsneg_peer_key k = peer(client1, "localhost");
    tlsneg_verdicts c;
    tlsneg_offer o13 = offer13(), o12 = offer_max(TLSNEG_V_TLS12);
    tlsneg_tracker_client_hello(t, 0, &k, 4, 0, 0, &o13, &c);
    ok(!find(&c, FALLBACK), "a first attempt is no fallback");
    ok(tlsneg_tracker_close(t, 0, S / 100, true) == 4,
       "the reset ends the attempt of frame 4 before any ServerHello");
    ok(tlsneg_tracker_close(t, 0, S / 100, false) == 0, "a later FIN ends nothing more");
    tlsneg_tracker_client_hello(t, 1, &k, 10, S / 10, 0, &o12, &c);
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
        tlsneg_tracker_client_hello(t, i, &k, frames[i], i * S, 0, &offers[i], &c);
        if (i < 3) {
            tlsneg_tracker_alert(t, i, i * S + 1, 40, true, true, &c);
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
    tlsneg_tracker_client_hello(t, 0, &k, 4, 0, 0, &o13, &c);
    tlsneg_tracker_client_hello(t, 1, &k, 15, S, 0, &o12, &c);
    ok(!find(&c, FALLBACK), "parallel connections are not a fallback");
    tlsneg_tracker_server_hello(t, 0, 6, S, &a13, &c);
    tlsneg_tracker_server_hello(t, 1, 22, S, &a12, &c);
    ok(c.count == 0, "a 1.2 answer to a 1.2-only offer after 1.3 elsewhere is consistent");

    /* A retry at the same version. */
    tlsneg_peer_key k2 = peer_n(50, "same");
    tlsneg_tracker_client_hello(t, 2, &k2, 40, 10 * S, 0, &o13, &c);
    tlsneg_tracker_close(t, 2, 10 * S, true);
    tlsneg_tracker_client_hello(t, 3, &k2, 46, 11 * S, 0, &o13, &c);
    ok(!find(&c, FALLBACK), "a retry at the same version is not a fallback");

    /* A lower offer after a success. */
    tlsneg_peer_key k3 = peer_n(51, "after-success");
    tlsneg_tracker_client_hello(t, 4, &k3, 50, 20 * S, 0, &o13, &c);
    tlsneg_tracker_server_hello(t, 4, 52, 20 * S, &a13, &c);
    tlsneg_tracker_client_hello(t, 5, &k3, 60, 21 * S, 0, &o12, &c);
    ok(!find(&c, FALLBACK), "a lower offer after a success is not a fallback");

    /* A different SNI, a different client. */
    tlsneg_peer_key ka = peer(client1, "a.localhost"), kb = peer(client1, "b.localhost");
    tlsneg_tracker_client_hello(t, 6, &ka, 70, 30 * S, 0, &o13, &c);
    tlsneg_tracker_close(t, 6, 30 * S, true);
    tlsneg_tracker_client_hello(t, 7, &kb, 76, 31 * S, 0, &o12, &c);
    ok(!find(&c, FALLBACK), "a retry to another SNI is not a fallback");
    tlsneg_peer_key kc1 = peer(client1, "x"), kc2 = peer(client2, "x");
    tlsneg_tracker_client_hello(t, 8, &kc1, 80, 40 * S, 0, &o13, &c);
    tlsneg_tracker_close(t, 8, 40 * S, true);
    tlsneg_tracker_client_hello(t, 9, &kc2, 86, 41 * S, 0, &o12, &c);
    ok(!find(&c, FALLBACK), "a lower offer from another client is not a fallback");

    /* Dropping an extension that has nothing to do with the version. */
    tlsneg_peer_key kx = peer_n(52, "ext");
    tlsneg_offer fewer = o13;
    tlsneg_tracker_client_hello(t, 12, &kx, 100, 60 * S, 0, &o13, &c);
    tlsneg_tracker_close(t, 12, 60 * S, true);
    tlsneg_tracker_client_hello(t, 13, &kx, 106, 61 * S, 0, &fewer, &c);
    ok(!find(&c, FALLBACK),
       "the same version offer without some other extension is not a fallback");
    fewer.tls13_extensions = TLSNEG_OFFER_PSK_MODES;
    tlsneg_tracker_close(t, 13, 61 * S, true);
    tlsneg_tracker_client_hello(t, 14, &kx, 110, 62 * S, 0, &fewer, &c);
    ok(strcmp(text_of(&c, FALLBACK, TLSNEG_TEXT_LESS), "fewer TLS 1.3 extensions") == 0,
       "the same versions without key_share after a failure: a fallback");
    /* TLS_FALLBACK_SCSV marks a lower version (RFC 7507 1): its absence
     * exposes nothing when the highest version stays. */
    ok(find(&c, FALLBACK) && !strstr(find(&c, FALLBACK)->detail, "open to a downgrade") &&
           strstr(find(&c, FALLBACK)->detail, "the same highest version"),
       "its sentence does not blame a missing TLS_FALLBACK_SCSV: %s",
       find(&c, FALLBACK) ? find(&c, FALLBACK)->detail : "");
    /* The same retry marked with TLS_FALLBACK_SCSV: the SCSV marks a lower
     * highest version (RFC 7507 1), and a TLS 1.3 server reads the versions
     * from supported_versions (RFC 8446 4.2.1), offered TLS 1.3 still: no
     * server that supports more refuses it, so the plain rule, not the
     * marked variant; the Info note still says what the hello carries. */
    tlsneg_peer_key ks = peer_n(53, "ext-scsv");
    tlsneg_offer marked = fewer;
    marked.fallback_scsv = true;
    tlsneg_tracker_client_hello(t, 30, &ks, 200, 65 * S, 0, &o13, &c);
    tlsneg_tracker_close(t, 30, 65 * S, true);
    tlsneg_tracker_client_hello(t, 31, &ks, 206, 66 * S, 0, &marked, &c);
    char note[TLSNEG_VERDICT_TEXT_MAX] = "";
    if (find(&c, FALLBACK)) {
        tlsneg_verdict_note(find(&c, FALLBACK), false, note, sizeof note);
    }
    ok(find(&c, FALLBACK) && find(&c, FALLBACK)->rule == TLSNEG_RULE_FALLBACK_RETRY &&
           strstr(find(&c, FALLBACK)->detail, "the same highest version") &&
           strcmp(note, "fallback: TLS 1.3 -> TLS 1.3, SCSV") == 0,
       "marked, at the same highest version: fallback_retry, not fallback_retry_scsv (%s; %s)",
       find(&c, FALLBACK) ? tlsneg_rules[find(&c, FALLBACK)->rule].name : "none", note);
    tlsneg_answer a13x = answer(TLSNEG_V_TLS13);
    tlsneg_tracker_server_hello(t, 14, 112, 62 * S, &a13x, &c);
    ok(strcmp(text_of(&c, INTOLERANT, TLSNEG_TEXT_INTOLERANT_OF), "key_share") == 0,
       "intolerant of %s", text_of(&c, INTOLERANT, TLSNEG_TEXT_INTOLERANT_OF));

    /* A resumption given up: the same offer without pre_shared_key and
     * early_data after a failure is a retry of the same offer, not a
     * fallback, and its success no intolerance. */
    tlsneg_peer_key kr = peer_n(54, "resumption");
    tlsneg_offer resumed = o13;
    resumed.tls13_extensions |= TLSNEG_OFFER_PRE_SHARED_KEY | TLSNEG_OFFER_EARLY_DATA;
    tlsneg_tracker_client_hello(t, 15, &kr, 120, 70 * S, 0, &resumed, &c);
    tlsneg_tracker_close(t, 15, 70 * S, true);
    tlsneg_tracker_client_hello(t, 16, &kr, 126, 71 * S, 0, &o13, &c);
    ok(!find(&c, FALLBACK) && find(&c, TLSNEG_VERDICT_SAME_RETRY) &&
           strstr(find(&c, TLSNEG_VERDICT_SAME_RETRY)->detail,
                  "leaving out its pre_shared_key and early_data (a resumption): no fallback "
                  "happened"),
       "the same offer without its pre_shared_key and early_data: no fallback: %s",
       find(&c, TLSNEG_VERDICT_SAME_RETRY) ? find(&c, TLSNEG_VERDICT_SAME_RETRY)->detail : "");
    tlsneg_tracker_server_hello(t, 16, 128, 71 * S, &a13x, &c);
    ok(!find(&c, INTOLERANT), "its success: no intolerance");

    /* A long gap. */
    tlsneg_peer_key kg = peer_n(53, "gap");
    tlsneg_tracker_client_hello(t, 10, &kg, 90, 50 * S, 0, &o13, &c);
    tlsneg_tracker_close(t, 10, 50 * S, true);
    tlsneg_tracker_client_hello(t, 11, &kg, 96, 81 * S, 0, &o12, &c);
    ok(!find(&c, FALLBACK), "a retry 31 s after the failure (window 30 s) is not a fallback");
    tlsneg_tracker_free(t);

    /* Without SNI in the key, the SNI change is a fallback again. */
    t = tracker(1000, false);
    tlsneg_tracker_client_hello(t, 0, &ka, 70, 0, 0, &o13, &c);
    tlsneg_tracker_close(t, 0, 0, true);
    tlsneg_tracker_client_hello(t, 1, &kb, 76, S, 0, &o12, &c);
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
    tlsneg_tracker_client_hello(t, 0, &k, 4, 0, 0, &o13, &c);
    tlsneg_tracker_close(t, 0, 1, true);
    tlsneg_tracker_client_hello(t, 1, &k, 10, S, 0, &o12, &c);
    ok(find(&c, FALLBACK) && find(&c, FALLBACK)->rule == TLSNEG_RULE_FALLBACK_RETRY_SCSV,
       "the retry carries TLS_FALLBACK_SCSV");
    tlsneg_tracker_alert(t, 1, S, 86, true, true, &c);
    ok(link_of(&c, TLSNEG_VERDICT_FALLBACK_REJECTED, TLSNEG_LINK_REFUSED_RETRY) == 10,
       "alert 86 on the retry: the fallback was rejected");

    /* A server that gave TLS 1.3 before gives 1.2 to the same full offer. */
    tlsneg_peer_key k2 = peer_n(60, "flaky");
    tlsneg_answer a13 = answer(TLSNEG_V_TLS13), a12 = answer(TLSNEG_V_TLS12);
    tlsneg_tracker_client_hello(t, 2, &k2, 20, 2 * S, 0, &o13, &c);
    tlsneg_tracker_server_hello(t, 2, 22, 2 * S, &a13, &c);
    tlsneg_tracker_client_hello(t, 3, &k2, 30, 3 * S, 0, &o13, &c);
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
    tlsneg_peer_key k3 = peer_n(61, "dtls");
    tlsneg_tracker_client_hello(t, 4, &k3, 40, 4 * S, 0, &d13, &c);
    tlsneg_tracker_client_hello(t, 5, &k3, 50, 6 * S, 0, &d12, &c);
    ok(strcmp(text_of(&c, FALLBACK, TLSNEG_TEXT_CAUSE), "no answer") == 0 &&
           version_of(&c, FALLBACK, TLSNEG_VERSION_OFFERED_BEFORE) == TLSNEG_V_DTLS13,
       "DTLS: an unanswered DTLS 1.3 flow, then DTLS 1.2: a fallback, cause no answer");
    tlsneg_tracker_free(t);
}

/* RFC 7507 3 across connections: TLS 1.2 in force for this client before,
 * now a TLS 1.1 hello with the SCSV answered with TLS 1.1 and no sentinel
 * (pcaps/synth-ignored-scsv-earlier.pcap). With a sentinel the checks judge
 * it from that ServerHello alone. */
static void ignored_scsv(void)
{
    tlsneg_tracker *t = tracker(1000, true);
    tlsneg_verdicts c;
    tlsneg_offer o13 = offer13(), o11 = offer_max(TLSNEG_V_TLS11);
    o11.fallback_scsv = true;
    tlsneg_peer_key k = peer(client1, "localhost");
    tlsneg_answer a12 = answer(TLSNEG_V_TLS12), a11 = answer(TLSNEG_V_TLS11);
    tlsneg_tracker_client_hello(t, 0, &k, 4, 0, 0, &o13, &c);
    tlsneg_tracker_server_hello(t, 0, 6, 0, &a12, &c);
    ok(c.count == 0, "the first connection: nothing to compare");
    tlsneg_tracker_client_hello(t, 1, &k, 20, S, 0, &o11, &c);
    tlsneg_tracker_server_hello(t, 1, 22, S, &a11, &c);
    const tlsneg_verdict *v = tlsneg_verdict_find(&c, TLSNEG_VERDICT_IGNORED_SCSV);
    ok(c.count == 1 && v && v->rule == TLSNEG_RULE_IGNORED_FALLBACK_SCSV_EARLIER &&
           link_of(&c, TLSNEG_VERDICT_IGNORED_SCSV, TLSNEG_LINK_HIGHER_VERSION_IN) == 6 &&
           version_of(&c, TLSNEG_VERDICT_IGNORED_SCSV, TLSNEG_VERSION_HIGHER) == TLSNEG_V_TLS12,
       "TLS 1.1 to an SCSV hello after TLS 1.2 in frame 6: the SCSV was ignored, one verdict");
    tlsneg_findings fs = {0};
    tlsneg_verdict_findings(&c, &fs);
    ok(fs.count == 1 && fs.item[0].rule == TLSNEG_RULE_IGNORED_FALLBACK_SCSV_EARLIER &&
           strstr(fs.item[0].detail, "frame 6"),
       "its finding, ignored_fallback_scsv_earlier, names frame 6: %s", fs.item[0].detail);

    /* The same with a sentinel in the ServerHello: left to the checks. */
    tlsneg_answer a11s = a11;
    a11s.sentinel = true;
    tlsneg_tracker_client_hello(t, 2, &k, 30, 2 * S, 0, &o11, &c);
    tlsneg_tracker_server_hello(t, 2, 32, 2 * S, &a11s, &c);
    ok(c.count == 0, "with a sentinel in the ServerHello the tracker says nothing");

    /* Without the SCSV a lower version is no breach of RFC 7507. */
    tlsneg_offer o11plain = offer_max(TLSNEG_V_TLS11);
    tlsneg_tracker_client_hello(t, 3, &k, 40, 3 * S, 0, &o11plain, &c);
    tlsneg_tracker_server_hello(t, 3, 42, 3 * S, &a11, &c);
    ok(c.count == 0, "no SCSV: no ignored SCSV, no inconsistent server");
    /* Another client: its own history. */
    tlsneg_peer_key k2 = peer(client2, "localhost");
    tlsneg_tracker_client_hello(t, 4, &k2, 50, 4 * S, 0, &o11, &c);
    tlsneg_tracker_server_hello(t, 4, 52, 4 * S, &a11, &c);
    ok(c.count == 0, "another client's SCSV hello: nothing earlier for it");
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
    tlsneg_tracker_client_hello(t, 0, &k, 4, 0, 0, &o12, &c);
    tlsneg_tracker_server_hello(t, 0, 6, 0, &a12, &c);
    o12.session_id = 0xabc;
    tlsneg_tracker_client_hello(t, 1, &k, 18, S, 0, &o12, &c);
    tlsneg_tracker_server_hello(t, 1, 20, S, &a12, &c);
    ok(!find(&c, TLSNEG_VERDICT_RESUMPTION_CHANGE),
       "TLS 1.2 session resumed at TLS 1.2: no finding");
    o11.session_id = 0xabc;
    a11.session_id = 0xabc;
    tlsneg_tracker_client_hello(t, 2, &k, 30, 2 * S, 0, &o11, &c);
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
    tlsneg_tracker_client_hello(t, 3, &k, 40, 3 * S, 0, &o13, &c);
    tlsneg_tracker_server_hello(t, 3, 42, 3 * S, &a13, &c);
    ok(c.count == 0, "TLS 1.3 echoing the client's session ID is not resumption");
    tlsneg_tracker_free(t);
}

/* A session whose maker is forgotten is found no more, even when the
 * client aborted the maker after its ServerHello: the slot's next attempt
 * (another client's, at another version) did not make it. */
static void resumption_forgotten(void)
{
    tlsneg_tracker *t = tracker(2, true);
    tlsneg_verdicts c;
    tlsneg_peer_key k = peer(client1, "localhost"), k2 = peer(client2, "localhost");
    tlsneg_offer o12 = offer_max(TLSNEG_V_TLS12), o11 = offer_max(TLSNEG_V_TLS11);
    tlsneg_answer a12 = answer(TLSNEG_V_TLS12), a11 = answer(TLSNEG_V_TLS11);
    a12.session_id = 0xabc;
    tlsneg_tracker_client_hello(t, 0, &k, 4, 0, 0, &o12, &c);
    tlsneg_tracker_server_hello(t, 0, 6, 0, &a12, &c);
    ok(tlsneg_tracker_alert(t, 0, 0, 40, true, false, &c) == 4 &&
           find(&c, TLSNEG_VERDICT_CLIENT_ABORT),
       "the session's maker is aborted by its client after the ServerHello");
    tlsneg_tracker_client_hello(t, 1, &k2, 10, S, 0, &o11, &c);
    tlsneg_tracker_server_hello(t, 1, 12, S, &a11, &c);
    tlsneg_tracker_client_hello(t, 2, &k2, 20, 2 * S, 0, &o11, &c);
    tlsneg_tracker_server_hello(t, 2, 22, 2 * S, &a11, &c);
    o12.session_id = 0xabc;
    tlsneg_tracker_client_hello(t, 3, &k, 30, 3 * S, 0, &o12, &c);
    tlsneg_tracker_server_hello(t, 3, 32, 3 * S, &a12, &c);
    ok(!find(&c, TLSNEG_VERDICT_RESUMPTION_CHANGE),
       "cap 2, the maker forgotten: no resumption change (session made in: frame %u, 0: none)",
       link_of(&c, TLSNEG_VERDICT_RESUMPTION_CHANGE, TLSNEG_LINK_SESSION_MADE_IN));
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
        tlsneg_tracker_client_hello(t, conn, &k, 3 * i, i * S / 1000, 0, &o13, &c);
        tlsneg_tracker_close(t, conn, i * S / 1000, true);
        tlsneg_tracker_client_hello(t, conn + 1, &k, 3 * i + 2, i * S / 1000 + 1, 0, &o12, &c);
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

/* compact: 100,000 attempts under the default cap, each from its own client
 * and answered with a session (every map used), cost under 200 bytes each
 * with their map entries (461 before the attempts were packed and the maps
 * held tags instead of keys), and the first and the last are still found. */
static void compact(void)
{
    tlsneg_tracker *t = tracker(TLSNEG_DEFAULT_MAX_ATTEMPTS, true);
    tlsneg_verdicts c;
    tlsneg_offer o12 = offer_max(TLSNEG_V_TLS12);
    uint8_t client[4] = {10, 0, 0, 0};
    for (uint32_t i = 0; i < 100000; i++) {
        client[1] = (uint8_t)(i >> 16);
        client[2] = (uint8_t)(i >> 8);
        client[3] = (uint8_t)i;
        tlsneg_peer_key k = {client, 4, server, 4, 443, NULL};
        o12.session_id = i + 1;
        tlsneg_answer a12 = {.version = TLSNEG_V_TLS12, .session_id = 1000000 + (uint64_t)i};
        tlsneg_tracker_client_hello(t, i, &k, 2 * i + 1, i * S / 1000, 0, &o12, &c);
        tlsneg_tracker_server_hello(t, i, 2 * i + 2, i * S / 1000, &a12, &c);
    }
    size_t bytes = tlsneg_tracker_bytes(t);
    ok(tlsneg_tracker_attempts(t) == 100000 && bytes < 100000 * 200,
       "100,000 attempts: %zu bytes, %zu a attempt (under 200)", bytes, bytes / 100000);
    ok(tlsneg_tracker_alert(t, 0, 100 * S, 40, true, false, &c) == 1 &&
           find(&c, TLSNEG_VERDICT_CLIENT_ABORT),
       "the first attempt is still found: the client's alert after its ServerHello ends it");
    ok(tlsneg_tracker_alert(t, 99999, 100 * S, 40, true, false, &c) == 199999,
       "so is the last attempt");
    tlsneg_tracker_free(t);
}

/* The words a retry's title, a failed attempt and the packet list use: one
 * formatter each, in the analysis. */
static void story_words(void)
{
    char buf[TLSNEG_VERDICT_TEXT_MAX];
    tlsneg_retry r = {.retry = 2,
                      .retries = 3,
                      .has_from = true,
                      .has_to = true,
                      .from = TLSNEG_V_TLS12,
                      .to = TLSNEG_V_TLS11};
    ok(strcmp(tlsneg_retry_text(&r, buf, sizeof buf),
              "fallback retry 2/3 (TLS 1.2 -> TLS 1.1, no SCSV)") == 0,
       "title of a fallback whose chain ended: %s", buf);
    r.retries = 0;
    r.scsv = true;
    ok(strcmp(tlsneg_retry_text(&r, buf, sizeof buf),
              "fallback retry 2 (TLS 1.2 -> TLS 1.1, SCSV)") == 0,
       "title while the chain's end is not known: %s", buf);
    r.retry = 0;
    ok(strcmp(tlsneg_retry_text(&r, buf, sizeof buf),
              "fallback retry (TLS 1.2 -> TLS 1.1, SCSV)") == 0,
       "no number when the chain lost its start: %s", buf);
    ok(strcmp(tlsneg_retry_info(&r, buf, sizeof buf), "fallback: TLS 1.2 -> TLS 1.1, SCSV") == 0,
       "the Info note of the same retry: %s", buf);
    tlsneg_retry dt = {.retry = 1,
                       .has_from = true,
                       .has_to = true,
                       .dtls = true,
                       .from = TLSNEG_V_DTLS12,
                       .to = TLSNEG_V_DTLS10};
    ok(strcmp(tlsneg_retry_text(&dt, buf, sizeof buf),
              "fallback retry 1 (DTLS 1.2 -> DTLS 1.0, no SCSV)") == 0,
       "DTLS names: %s", buf);
    tlsneg_retry same = {.same = true,
                         .retry = 1,
                         .has_from = true,
                         .has_to = true,
                         .from = TLSNEG_V_TLS13,
                         .to = TLSNEG_V_TLS13};
    ok(strcmp(tlsneg_retry_text(&same, buf, sizeof buf), "retry, same version (TLS 1.3)") == 0,
       "a same-offer retry is no fallback: %s", buf);

    ok(strcmp(tlsneg_failure_text(TLSNEG_CAUSE_RESET, 0, 6, buf, sizeof buf),
              "failed: TCP reset, frame 6") == 0,
       "%s", buf);
    ok(strcmp(tlsneg_failure_text(TLSNEG_CAUSE_ALERT, 40, 5, buf, sizeof buf),
              "failed: alert handshake_failure (40), frame 5") == 0,
       "%s", buf);
    ok(strcmp(tlsneg_failure_text(TLSNEG_CAUSE_CLOSE, 0, 7, buf, sizeof buf),
              "failed: connection closed (FIN), frame 7") == 0,
       "%s", buf);
    ok(strcmp(tlsneg_failure_text(TLSNEG_CAUSE_CLIENT_ABORT, 47, 9, buf, sizeof buf),
              "failed: the client aborted with alert illegal_parameter (47), frame 9") == 0,
       "%s", buf);
    ok(strcmp(tlsneg_failure_text(TLSNEG_CAUSE_NONE, 0, 9, buf, sizeof buf), "") == 0,
       "no failure, no words");

    /* From the tracker's verdicts: pcaps/fallback-chain.pcap. */
    tlsneg_tracker *t = tracker(1000, true);
    tlsneg_peer_key k = peer(client1, "localhost");
    tlsneg_verdicts c;
    tlsneg_offer offers[3] = {offer13(), offer_max(TLSNEG_V_TLS12), offer_max(TLSNEG_V_TLS11)};
    const uint32_t frames[3] = {4, 14, 24};
    for (uint64_t i = 0; i < 3; i++) {
        tlsneg_tracker_client_hello(t, i, &k, frames[i], i * S, 0, &offers[i], &c);
        ok(tlsneg_tracker_alert(t, i, i * S + 1, 40, true, true, &c) == frames[i],
           "alert 40 makes the attempt of frame %u fail", frames[i]);
        uint8_t alert = 0;
        ok(tlsneg_tracker_cause(t, i, &alert) == TLSNEG_CAUSE_ALERT && alert == 40,
           "the tracker tells how: alert 40");
    }
    tlsneg_offer o = offer_max(TLSNEG_V_TLS10);
    tlsneg_tracker_client_hello(t, 3, &k, 34, 3 * S, 0, &o, &c);
    const tlsneg_verdict *fb = tlsneg_verdict_find(&c, TLSNEG_VERDICT_FALLBACK);
    tlsneg_retry got;
    ok(fb && tlsneg_verdict_retry(fb, (size_t)fb->chain_len - 1, 0, &got) && got.retry == 3 &&
           !got.retries &&
           strcmp(tlsneg_retry_text(&got, buf, sizeof buf),
                  "fallback retry 3 (TLS 1.1 -> TLS 1.0, no SCSV)") == 0,
       "the fourth hello is the third retry: %s", buf);
    ok(fb && tlsneg_verdict_retry(fb, 1, 3, &got) &&
           strcmp(tlsneg_retry_text(&got, buf, sizeof buf),
                  "fallback retry 1/3 (TLS 1.3 -> TLS 1.2, no SCSV)") == 0,
       "its chain describes the first retry too: %s", buf);
    ok(fb && !tlsneg_verdict_retry(fb, 0, 3, &got) && !tlsneg_verdict_retry(fb, 4, 3, &got),
       "the first attempt is no retry; no step past the chain");
    ok(fb && strcmp(tlsneg_verdict_note(fb, false, buf, sizeof buf),
                    "fallback: TLS 1.1 -> TLS 1.0, no SCSV") == 0,
       "the Info note of the verdict: %s", buf);
    tlsneg_answer ans = answer(TLSNEG_V_TLS10);
    tlsneg_tracker_server_hello(t, 3, 36, 3 * S + 1, &ans, &c);
    uint8_t alert;
    ok(tlsneg_tracker_cause(t, 3, &alert) == TLSNEG_CAUSE_NONE, "a completed attempt did not fail");
    ok(tlsneg_tracker_alert(t, 3, 3 * S + 2, 0,
                            tlsneg_alert_ends_handshake(TLSNEG_ALERT_WARNING, 0, false), false,
                            &c) == 0,
       "close_notify makes nothing fail");
    tlsneg_tracker_free(t);
}

/* verdicts.def as data: the names, the wiring to rules.def (which the
 * build checks too), the headline findings, the rows' shapes. */
static void verdict_table(void)
{
    bool unique = true, wired = true;
    for (int a = 0; a < TLSNEG_VERDICT_KINDS; a++) {
        for (int b = a + 1; b < TLSNEG_VERDICT_KINDS; b++) {
            unique = unique && strcmp(tlsneg_verdict_kind_name((tlsneg_verdict_kind)a),
                                      tlsneg_verdict_kind_name((tlsneg_verdict_kind)b)) != 0;
        }
        const tlsneg_verdict_row *row = &tlsneg_verdict_rows[a];
        tlsneg_verdict_kind k;
        wired = wired && tlsneg_verdict_of_rule(row->rule, &k) && k == (tlsneg_verdict_kind)a;
        if (row->variant != (tlsneg_rule_id)TLSNEG_RULE_NO_VARIANT) {
            wired =
                wired && tlsneg_verdict_of_rule(row->variant, &k) && k == (tlsneg_verdict_kind)a;
        }
    }
    ok(unique, "%d verdict kinds, each with its own name", TLSNEG_VERDICT_KINDS);
    size_t by_verdict = 0, listed_rules = 0;
    for (int a = 0; a < TLSNEG_VERDICT_KINDS; a++) {
        bool variant = tlsneg_verdict_rows[a].variant != (tlsneg_rule_id)TLSNEG_RULE_NO_VARIANT;
        listed_rules += variant ? 2u : 1u;
    }
    for (int r = 0; r < TLSNEG_RULE_COUNT; r++) {
        tlsneg_verdict_kind k;
        if (tlsneg_verdict_of_rule((tlsneg_rule_id)r, &k)) {
            by_verdict++;
            wired = wired && (tlsneg_verdict_rows[k].rule == (tlsneg_rule_id)r ||
                              tlsneg_verdict_rows[k].variant == (tlsneg_rule_id)r);
        }
    }
    ok(wired && by_verdict == listed_rules,
       "each verdict's rule and variant name it in rules.def, and only they: %zu rules",
       by_verdict);
    ok(strcmp(tlsneg_verdict_kind_name(TLSNEG_VERDICT_FALLBACK), "fallback") == 0 &&
           strcmp(tlsneg_verdict_kind_name(TLSNEG_VERDICT_PROBE), "probe") == 0 &&
           strcmp(tlsneg_verdict_kind_name(TLSNEG_VERDICT_KINDS), "unknown") == 0 &&
           strcmp(tlsneg_verdict_tag(TLSNEG_VERDICT_INTOLERANT), "intolerant server") == 0 &&
           strcmp(tlsneg_verdict_tag(TLSNEG_VERDICT_KINDS), "unknown") == 0,
       "kind names and tags; \"unknown\" out of range");
    ok(strcmp(tlsneg_link_role_name(TLSNEG_LINK_PREVIOUS_ATTEMPT), "previous_attempt") == 0 &&
           strcmp(tlsneg_link_role_name(TLSNEG_LINK_FAILED_IN), "failed_in") == 0 &&
           strcmp(tlsneg_version_role_name(TLSNEG_VERSION_HIGHEST), "highest") == 0 &&
           strcmp(tlsneg_text_role_name(TLSNEG_TEXT_TITLE), "title") == 0 &&
           strcmp(tlsneg_note_kind_name(TLSNEG_NOTE_RETRIED_IN), "retried_in") == 0 &&
           strcmp(tlsneg_note_kind_name(TLSNEG_NOTE_TITLE), "title") == 0 &&
           strcmp(tlsneg_text_role_name(TLSNEG_TEXT_ROLES), "unknown") == 0 &&
           strcmp(tlsneg_note_kind_name(TLSNEG_NOTE_KINDS), "unknown") == 0,
       "role and back note names, first and last rows");
    /* The report's verdicts and the ladder's notes, as before the table. */
    static const tlsneg_rule_id headline[] = {TLSNEG_RULE_VERSION_INTOLERANCE,
                                              TLSNEG_RULE_FALLBACK_RETRY,
                                              TLSNEG_RULE_FALLBACK_RETRY_SCSV,
                                              TLSNEG_RULE_FALLBACK_REJECTED,
                                              TLSNEG_RULE_INAPPROPRIATE_FALLBACK,
                                              TLSNEG_RULE_IGNORED_FALLBACK_SCSV,
                                              TLSNEG_RULE_IGNORED_FALLBACK_SCSV_EARLIER,
                                              TLSNEG_RULE_INCONSISTENT_SERVER,
                                              TLSNEG_RULE_RESUMPTION_VERSION_CHANGE,
                                              TLSNEG_RULE_DOWNGRADE_SENTINEL,
                                              TLSNEG_RULE_DOWNGRADE_SENTINEL_TLS13,
                                              TLSNEG_RULE_DOWNGRADE_SENTINEL_NOT_LOWER,
                                              TLSNEG_RULE_GREASE_SELECTED,
                                              TLSNEG_RULE_VERSION_NOT_OFFERED,
                                              TLSNEG_RULE_RETRY_SAME_VERSION,
                                              TLSNEG_RULE_FAILURE_OTHER_CAUSE,
                                              TLSNEG_RULE_NO_COMMON_VERSION,
                                              TLSNEG_RULE_CLIENT_ABORTED,
                                              TLSNEG_RULE_KEY_SHARE_FALLBACK,
                                              TLSNEG_RULE_KEY_SHARE_INTOLERANCE,
                                              TLSNEG_RULE_INTOLERANCE_UNRESOLVED,
                                              TLSNEG_RULE_KEY_EXCHANGE_INCONSISTENT};
    size_t n = 0, want = sizeof headline / sizeof headline[0];
    bool listed = true;
    for (int r = 0; r < TLSNEG_RULE_COUNT; r++) {
        n += tlsneg_rule_is_verdict((tlsneg_rule_id)r);
    }
    for (size_t i = 0; i < want; i++) {
        listed = listed && tlsneg_rule_is_verdict(headline[i]);
    }
    ok(n == want && listed && !tlsneg_rule_is_verdict(TLSNEG_RULE_PROBE),
       "tlsneg_rule_is_verdict: the %zu findings of the table's headline rows, not probe", n);
}

/* A retry of a chain that changed more than its versions is titled as
 * another offer, never as a fallback retry. */
static void retry_titles(void)
{
    tlsneg_verdict v = {.kind = TLSNEG_VERDICT_OTHER_CAUSE,
                        .chain_len = 2,
                        .chain_frames = {4, 10},
                        .chain_versions = {TLSNEG_V_TLS13, TLSNEG_V_TLS12},
                        .chain_changed = 2};
    tlsneg_retry r;
    char buf[96];
    ok(tlsneg_verdict_retry(&v, 1, 1, &r) &&
           strcmp(tlsneg_retry_text(&r, buf, sizeof buf),
                  "retry with another offer (TLS 1.3 -> TLS 1.2)") == 0,
       "a changed retry's title: %s", buf);
    v.chain_changed = 0;
    ok(tlsneg_verdict_retry(&v, 1, 1, &r) &&
           strcmp(tlsneg_retry_text(&r, buf, sizeof buf),
                  "fallback retry 1/1 (TLS 1.3 -> TLS 1.2, no SCSV)") == 0,
       "a fallback retry's title: %s", buf);
}

/* A verdict of a row's shape, and two that are not; then
 * tlsneg_version_name_or_none. */
static void verdict_shapes(void)
{
    tlsneg_verdicts vs = {0};
    tlsneg_verdict *v = tlsneg_verdict_add(&vs, TLSNEG_VERDICT_FALLBACK, true);
    tlsneg_verdict_add_link(v, TLSNEG_LINK_PREVIOUS_ATTEMPT, 4);
    tlsneg_verdict_add_text(v, TLSNEG_TEXT_LESS, "a lower highest version");
    ok(v->rule == TLSNEG_RULE_FALLBACK_RETRY_SCSV && tlsneg_verdict_well_formed(v),
       "a fallback with SCSV makes the row's variant, fallback_retry_scsv");
    tlsneg_verdict_add_link(v, TLSNEG_LINK_SESSION_MADE_IN, 2);
    tlsneg_verdict *w = tlsneg_verdict_add(&vs, TLSNEG_VERDICT_INCONSISTENT, true);
    w->chain_len = 2;
    ok(!tlsneg_verdict_well_formed(v) && w->rule == TLSNEG_RULE_INCONSISTENT_SERVER &&
           !tlsneg_verdict_well_formed(w),
       "a role its row does not give it, or a chain without a chain row, is malformed");
    /* no_common_version carries its chain, but its steps are no retries. */
    tlsneg_verdict *x = tlsneg_verdict_add(&vs, TLSNEG_VERDICT_NO_COMMON_VERSION, false);
    x->chain_len = 2;
    x->chain_versions[0] = TLSNEG_V_TLS13;
    x->chain_versions[1] = TLSNEG_V_TLS12;
    tlsneg_retry r;
    ok(tlsneg_verdict_well_formed(x) && !tlsneg_verdict_retry(x, 1, 1, &r),
       "no_common_version's chain is the attempts it is about, not retries");

    char buf[TLSNEG_VERSION_NAME_MAX];
    ok(strcmp(tlsneg_version_name_or_none(false, TLSNEG_V_TLS13, false, buf, sizeof buf),
              "no known version") == 0 &&
           strcmp(tlsneg_version_name_or_none(true, 0x7f2b, true, buf, sizeof buf),
                  "DTLS 1.3 draft-43") == 0,
       "tlsneg_version_name_or_none: \"no known version\", else the family's name");
}

/* A connection opened before the earlier attempt failed runs in parallel
 * with it (Chromium opens a second while the first waits): it retries
 * nothing, whatever it offers; one opened after the failure does. */
static void parallel_connections(void)
{
    tlsneg_tracker *t = tracker(1000, true);
    tlsneg_peer_key k = peer(client1, "localhost");
    tlsneg_verdicts c;
    tlsneg_offer o13 = openssl13(), o12 = offer_max(TLSNEG_V_TLS12);
    /* SYN 1 at 0, SYN 2 at S/5 (conn 1), CH 4 at S/10, RST 6 at S/2, CH 8 at S. */
    tlsneg_tracker_client_hello(t, 0, &k, 4, S / 10, 1, &o13, &c);
    ok(tlsneg_tracker_close(t, 0, S / 2, true) == 4, "the reset ends the attempt of frame 4");
    tlsneg_tracker_client_hello(t, 1, &k, 8, S, S / 5, &o13, &c);
    ok(c.count == 0, "same offer on a connection opened before the reset: no retry (%zu verdicts)",
       c.count);
    /* The same without knowing when it was opened: a retry of the same offer. */
    tlsneg_peer_key k2 = peer(client1, "other");
    tlsneg_tracker_client_hello(t, 2, &k2, 14, S / 10, 0, &o13, &c);
    tlsneg_tracker_close(t, 2, S / 2, true);
    tlsneg_tracker_client_hello(t, 3, &k2, 18, S, 0, &o13, &c);
    ok(find(&c, TLSNEG_VERDICT_SAME_RETRY) != NULL,
       "opened unknown: the hello's time counts, a retry of the same offer");
    /* Conn 1 fails at 2S; conn 4, opened at 3S/2, offers less at 5S/2: no fallback. */
    tlsneg_tracker_close(t, 1, 2 * S, true);
    tlsneg_tracker_client_hello(t, 4, &k, 20, 5 * S / 2, 3 * S / 2, &o12, &c);
    ok(c.count == 0, "a lower offer on a connection opened before the failure: no fallback");
    /* Another server: conn 6 fails at 3S; conn 7, opened just after, offers
     * less: a fallback from frame 40. */
    tlsneg_peer_key k3 = peer(client1, "third");
    tlsneg_tracker_client_hello(t, 6, &k3, 40, 3 * S - 1, 3 * S - 2, &o13, &c);
    tlsneg_tracker_close(t, 6, 3 * S, true);
    tlsneg_tracker_client_hello(t, 7, &k3, 44, 3 * S + 2, 3 * S + 1, &o12, &c);
    ok(link_of(&c, FALLBACK, TLSNEG_LINK_PREVIOUS_ATTEMPT) == 40,
       "opened after the failure: a fallback retry of frame 40");
    /* pcaps/pq-firefox-split-rst-classical-retry.pcap, streams 1 and 2: the
     * server reset stream 1 (51.5 ms) before its ClientHello was complete
     * (108 ms); stream 2 opened in between (54.6 ms): it retries stream 1's
     * attempt, which failed before its hello was whole. */
    tlsneg_peer_key k4 = peer(client1, "early");
    const uint64_t ms = S / 1000;
    tlsneg_tracker_client_hello(t, 8, &k4, 23, 108 * ms, 26 * ms, &o13, &c);
    ok(tlsneg_tracker_early_end(t, 8, 51 * ms, TLSNEG_CAUSE_RESET, 0),
       "the reset before the hello was complete ends its attempt");
    tlsneg_tracker_client_hello(t, 9, &k4, 38, 140 * ms, 54 * ms, &o13, &c);
    ok(link_of(&c, TLSNEG_VERDICT_SAME_RETRY, TLSNEG_LINK_SAME_OFFER_AS) == 23,
       "opened after that early reset, before the hello it ended: a retry of frame 23");
    tlsneg_peer_key k5 = peer(client1, "early-parallel");
    tlsneg_tracker_client_hello(t, 10, &k5, 16, 61 * ms, 1, &o13, &c);
    tlsneg_tracker_early_end(t, 10, 27 * ms, TLSNEG_CAUSE_RESET, 0);
    tlsneg_tracker_client_hello(t, 11, &k5, 23, 108 * ms, 26 * ms, &o13, &c);
    ok(c.count == 0, "opened before that early reset: no retry");
    tlsneg_tracker_free(t);
}

/* pcaps/synth-supported-versions-malformed.pcap frames 44 and 46 (tshark:
 * supported_versions 0x2a2a 0x3a3a, GREASE only; alert 70 from the server):
 * a hello that offers no version, refused as RFC 8446 4.2.1 asks. A retry
 * from the same client without supported_versions (legacy_version TLS 1.2;
 * not in the capture, frames 100 and 102 here) falls back from no version,
 * and its ServerHello shows no intolerance. */
static void no_version_offered(void)
{
    tlsneg_tracker *t = tracker(1000, true);
    tlsneg_peer_key k = peer(client1, "localhost");
    tlsneg_verdicts c;
    tlsneg_offer grease = {.has_supported_versions = true,
                           .tls13_extensions = TLSNEG_OFFER_KEY_SHARE | TLSNEG_OFFER_PSK_MODES};
    tlsneg_offer o12 = offer_max(TLSNEG_V_TLS12);
    tlsneg_tracker_client_hello(t, 0, &k, 44, 0, 0, &grease, &c);
    tlsneg_tracker_alert(t, 0, S / 100, 70, true, true, &c);
    tlsneg_tracker_client_hello(t, 1, &k, 100, S, 0, &o12, &c);
    ok(!find(&c, FALLBACK), "a retry of a hello that offered no known version is no fallback");
    tlsneg_answer a12 = answer(TLSNEG_V_TLS12);
    tlsneg_tracker_server_hello(t, 1, 102, S, &a12, &c);
    ok(!find(&c, INTOLERANT),
       "refusing a supported_versions of GREASE only is no intolerance of the extension");
    tlsneg_tracker_free(t);
}

int main(void)
{
    story_words();
    retry_after_reset();
    parallel_connections();
    chain_to_tls10();
    no_false_alarms();
    no_version_offered();
    rejected_inconsistent_datagram();
    ignored_scsv();
    resumption();
    resumption_forgotten();
    bounded();
    compact();
    verdict_table();
    retry_titles();
    verdict_shapes();
    return tap_done();
}
