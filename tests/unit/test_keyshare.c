/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_keyshare.c: the tracker's verdicts on the key exchange across
 * connections (lib/analysis/keyshare.c), each scenario the skeleton of a
 * pcaps/pq-*.pcap capture (frames and times as there), its offers made from
 * the real hellos of pq_vectors.h. */
#include "analysis/checks.h"
#include "analysis/tracker.h"
#include "core/facts.h"
#include "core/groups.h"
#include "core/hello.h"
#include "core/versions.h"

#include "pq_vectors.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static const uint8_t client1[4] = {192, 0, 2, 2}, client2[4] = {192, 0, 2, 9};
static const uint8_t server[4] = {192, 0, 2, 3};
static const uint64_t MS = 1000; /* one millisecond */

static size_t seen, malformed;

static tlsneg_peer_key peer(const uint8_t *client)
{
    tlsneg_peer_key k = {client, 4, server, 4, 44401, "localhost"};
    return k;
}

static tlsneg_tracker *tracker(void)
{
    tlsneg_tracker_config cfg = TLSNEG_TRACKER_DEFAULTS;
    return tlsneg_tracker_new(&cfg);
}

/* parse_on parses the hex of a real hello (pq_vectors.h) into its facts: over
 * TLS in a record of version 0x0303, or over QUIC (no record). */
static void parse_on(tlsneg_wire wire, const char *hex, uint16_t segments, tlsneg_hello *h,
                     tlsneg_facts *f, tlsneg_facts_buf *fb, uint8_t **bytes)
{
    size_t n;
    *bytes = unhex(hex, &n);
    (void)tlsneg_hello_parse(h, wire, *bytes, n);
    tlsneg_facts_derive(f, fb, h, wire != TLSNEG_WIRE_QUIC, 0x0303);
    if (segments) {
        tlsneg_facts_set_segments(f, fb, segments, NULL, 0);
    }
}

/* offer: what the tracker keeps of a real ClientHello carried in segments
 * TCP segments (0: not known, as in the plugin today). */
static tlsneg_offer offer_on(tlsneg_wire wire, const char *hex, uint16_t segments)
{
    tlsneg_hello h;
    tlsneg_facts f;
    static tlsneg_facts_buf fb;
    uint8_t *b;
    parse_on(wire, hex, segments, &h, &f, &fb, &b);
    tlsneg_offer o;
    tlsneg_offer_from_hello(&o, NULL, &h, &f);
    free(b);
    return o;
}

static tlsneg_offer offer(const char *hex, uint16_t segments)
{
    return offer_on(TLSNEG_WIRE_TLS, hex, segments);
}

/* edited: a real hello's hex with its first `from` (a field's bytes, in hex)
 * replaced by `to` of the same length, to make the hello a client would send
 * with other groups (freed by the caller). */
static char *edited(const char *hex, const char *from, const char *to)
{
    size_t n = strlen(hex) + 1;
    char *e = malloc(n), *at;
    memcpy(e, hex, n);
    at = strstr(e, from);
    ok(at && strlen(from) == strlen(to), "the hello has %s to replace", from);
    if (at) {
        memcpy(at, to, strlen(to));
    }
    return e;
}

/* offer_edited: offer() of an edited real hello. */
static tlsneg_offer offer_edited(const char *hex, const char *from, const char *to,
                                 uint16_t segments)
{
    char *e = edited(hex, from, to);
    tlsneg_offer o = offer(e, segments);
    free(e);
    return o;
}

static tlsneg_answer answer_on(tlsneg_wire wire, const char *hex)
{
    tlsneg_hello h;
    tlsneg_facts f;
    static tlsneg_facts_buf fb;
    uint8_t *b;
    parse_on(wire, hex, 0, &h, &f, &fb, &b);
    tlsneg_answer a;
    tlsneg_answer_from_hello(&a, &h, &f);
    free(b);
    return a;
}

static tlsneg_answer answer(const char *hex)
{
    return answer_on(TLSNEG_WIRE_TLS, hex);
}

static void count(const tlsneg_verdicts *vs)
{
    for (size_t i = 0; i < vs->count; i++) {
        seen++;
        malformed += !tlsneg_verdict_well_formed(&vs->item[i]);
    }
}

static void ch(tlsneg_tracker *t, uint64_t conn, const uint8_t *client, uint32_t frame,
               uint64_t now, const tlsneg_offer *o, tlsneg_verdicts *out)
{
    tlsneg_peer_key k = peer(client);
    tlsneg_tracker_client_hello(t, conn, &k, frame, now, 0, o, out);
    count(out);
}

static void sh(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t now, const char *hex,
               tlsneg_verdicts *out)
{
    tlsneg_answer a = answer(hex);
    tlsneg_tracker_server_hello(t, conn, frame, now, &a, out);
    count(out);
}

/* alert: the server's fatal alert in frame that ends the attempt on conn. */
static void alert(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t now, uint8_t d)
{
    tlsneg_verdicts c;
    if (tlsneg_tracker_alert(t, conn, now, d,
                             tlsneg_alert_ends_handshake(TLSNEG_ALERT_FATAL, d, false), true, &c)) {
        tlsneg_tracker_failed_in(t, conn, frame);
    }
}

/* reset: the TCP reset in frame that ends the attempt on conn. */
static void reset(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t now)
{
    if (tlsneg_tracker_close(t, conn, now, true)) {
        tlsneg_tracker_failed_in(t, conn, frame);
    }
}

static const tlsneg_verdict *find(const tlsneg_verdicts *vs, tlsneg_verdict_kind k)
{
    return tlsneg_verdict_find(vs, k);
}

static const char *text(const tlsneg_verdicts *vs, tlsneg_verdict_kind k, tlsneg_text_role r)
{
    const tlsneg_verdict *v = find(vs, k);
    const char *s = v ? tlsneg_verdict_text(v, r) : NULL;
    return s ? s : "";
}

static uint32_t link_of(const tlsneg_verdicts *vs, tlsneg_verdict_kind k, tlsneg_link_role r)
{
    const tlsneg_verdict *v = find(vs, k);
    return v ? tlsneg_verdict_link(v, r) : 0;
}

/* no_version_verdict: none of the verdicts that speak of versions. */
static bool no_version_verdict(const tlsneg_verdicts *vs)
{
    return !find(vs, TLSNEG_VERDICT_FALLBACK) && !find(vs, TLSNEG_VERDICT_INTOLERANT) &&
           !find(vs, TLSNEG_VERDICT_OTHER_CAUSE) && !find(vs, TLSNEG_VERDICT_SAME_RETRY);
}

static void offers_from_real_hellos(void)
{
    tlsneg_offer pq = offer(pq_client_hello_hex, 0), x = offer(pq_x25519_retry_hex, 0);
    tlsneg_offer tls12 = offer(pq_tls12_retry_hex, 0);
    ok(pq.pq_offered && pq.pq_key_share && pq.pq_group == 0x11ec && pq.hello_length == 1546,
       "the OpenSSL 3.5 hello offers and shares X25519MLKEM768, 1,546 bytes");
    ok(!x.pq_offered && !x.pq_key_share && x.hello_length == 312 && tls12.hello_length == 204,
       "its retries offer no post-quantum group: 312 and 204 bytes");
    ok(pq.fp_suites == x.fp_suites && pq.fp_sigalgs == x.fp_sigalgs && pq.fp_exts == x.fp_exts &&
           pq.fp_groups != x.fp_groups,
       "-groups X25519 changes the groups only");
}

static void downgrade_after_reset(void)
{
    /* pcaps/pq-split-rst-classical-retry.pcap's frames, CH 7 (split), RST
     * 8, CH 12 x25519 only, SH 14 x25519, as if the reset had come after the
     * hello was complete (there the front's RST 6 came before it:
     * ended_before_complete). */
    tlsneg_tracker *t = tracker();
    tlsneg_verdicts c;
    tlsneg_offer pq = offer(pq_client_hello_hex, 0), x = offer(pq_x25519_retry_hex, 0);
    ch(t, 0, client1, 7, 0, &pq, &c);
    ok(c.count == 0, "a first post-quantum hello: nothing to compare");
    reset(t, 0, 8, 67 * MS);
    ch(t, 1, client1, 12, 341 * MS, &x, &c);
    ok(c.count == 1 && find(&c, TLSNEG_VERDICT_KEY_SHARE_FALLBACK) &&
           find(&c, TLSNEG_VERDICT_KEY_SHARE_FALLBACK)->rule == TLSNEG_RULE_KEY_SHARE_FALLBACK,
       "the x25519-only retry is a key_share_fallback, and only that");
    ok(link_of(&c, TLSNEG_VERDICT_KEY_SHARE_FALLBACK, TLSNEG_LINK_PREVIOUS_ATTEMPT) == 7 &&
           link_of(&c, TLSNEG_VERDICT_KEY_SHARE_FALLBACK, TLSNEG_LINK_PREVIOUS_FAILED_IN) == 8,
       "it names the failed attempt (7) and the frame it failed in (8)");
    ok(strcmp(text(&c, TLSNEG_VERDICT_KEY_SHARE_FALLBACK, TLSNEG_TEXT_CAUSE),
              "TCP reset before any ServerHello") == 0 &&
           strcmp(text(&c, TLSNEG_VERDICT_KEY_SHARE_FALLBACK, TLSNEG_TEXT_DROPPED),
                  "the X25519MLKEM768 key share and group") == 0,
       "how it failed, what the retry dropped: %s",
       text(&c, TLSNEG_VERDICT_KEY_SHARE_FALLBACK, TLSNEG_TEXT_DROPPED));
    ok(no_version_verdict(&c), "no version verdict: the versions are the same");
    sh(t, 1, 14, 346 * MS, pq_x25519_server_hello_hex, &c);
    ok(c.count == 1 && find(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT),
       "its ServerHello: key_share_intolerance, and only that");
    ok(strcmp(text(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT, TLSNEG_TEXT_INTOLERANT_OF),
              "the X25519MLKEM768 key share or its size (1546 bytes, then 312)") == 0,
       "it names the difference, post-quantum share or size: %s",
       text(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT, TLSNEG_TEXT_INTOLERANT_OF));
    ok(link_of(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT, TLSNEG_LINK_PREVIOUS_FAILED_IN) == 8,
       "and the frame the attempt failed in");
    tlsneg_tracker_free(t);

    /* The same with the segments counted (2 and 1, as tshark's tcp.segment
     * shows them), and an alert: the front's decode_error (50). */
    t = tracker();
    pq = offer(pq_client_hello_hex, 2);
    x = offer(pq_x25519_retry_hex, 1);
    ch(t, 0, client1, 9, 0, &pq, &c);
    tlsneg_tracker_alert(t, 0, 61 * MS, 50, true, true, &c);
    tlsneg_tracker_failed_in(t, 0, 9);
    ch(t, 1, client1, 20, 324 * MS, &x, &c);
    ok(strstr(text(&c, TLSNEG_VERDICT_KEY_SHARE_FALLBACK, TLSNEG_TEXT_CAUSE), "decode_error"),
       "after an alert: %s", text(&c, TLSNEG_VERDICT_KEY_SHARE_FALLBACK, TLSNEG_TEXT_CAUSE));
    sh(t, 1, 22, 330 * MS, pq_x25519_server_hello_hex, &c);
    ok(strcmp(text(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT, TLSNEG_TEXT_INTOLERANT_OF),
              "the X25519MLKEM768 key share or its size (1546 bytes in 2 segments, then 312 in "
              "1)") == 0,
       "with the segments known: %s",
       text(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT, TLSNEG_TEXT_INTOLERANT_OF));
    tlsneg_tracker_free(t);
}

static void lower_retry_unresolved(void)
{
    /* pcaps/pq-split-rst-tls12-retry.pcap: CH 7 (split, TLS 1.3, PQ), RST
     * 8, CH 12 -tls1_2 (204 bytes, no key_share), SH 14 TLS 1.2. */
    tlsneg_tracker *t = tracker();
    tlsneg_verdicts c;
    tlsneg_offer pq = offer(pq_client_hello_hex, 0), l = offer(pq_tls12_retry_hex, 0);
    ch(t, 0, client1, 7, 0, &pq, &c);
    reset(t, 0, 8, 69 * MS);
    ch(t, 1, client1, 12, 351 * MS, &l, &c);
    ok(find(&c, TLSNEG_VERDICT_FALLBACK) && !find(&c, TLSNEG_VERDICT_KEY_SHARE_FALLBACK),
       "the -tls1_2 retry offers lower versions: fallback_retry, not key_share_fallback");
    sh(t, 1, 14, 356 * MS, pq_tls12_server_hello_hex, &c);
    ok(!find(&c, TLSNEG_VERDICT_INTOLERANT) && find(&c, TLSNEG_VERDICT_UNRESOLVED),
       "its ServerHello: never version_intolerance, but intolerance_unresolved");
    ok(strcmp(text(&c, TLSNEG_VERDICT_UNRESOLVED, TLSNEG_TEXT_CANDIDATES),
              "TLS 1.3 in supported_versions, the X25519MLKEM768 key share and its size (1546 "
              "bytes, then 204)") == 0,
       "what the evidence cannot tell apart: %s",
       text(&c, TLSNEG_VERDICT_UNRESOLVED, TLSNEG_TEXT_CANDIDATES));
    tlsneg_tracker_free(t);
}

static void lower_retry_settled(void)
{
    /* pcaps/pq-split-rst-tls12-retry-tls13-ok.pcap: CH 4 x25519 only (one
     * segment), SH 6 TLS 1.3; CH 20 (split, PQ), RST 21; CH 25 -tls1_2, SH
     * 27 TLS 1.2. */
    tlsneg_tracker *t = tracker();
    tlsneg_verdicts c;
    tlsneg_offer x = offer(pq_x25519_retry_hex, 0), pq = offer(pq_client_hello_hex, 0);
    tlsneg_offer l = offer(pq_tls12_retry_hex, 0);
    ch(t, 0, client1, 4, 0, &x, &c);
    sh(t, 0, 6, 3 * MS, pq_x25519_server_hello_hex, &c);
    ch(t, 1, client1, 20, 34 * MS, &pq, &c);
    ok(c.count == 0, "a post-quantum hello after a success: no retry");
    reset(t, 1, 21, 97 * MS);
    ch(t, 2, client1, 25, 383 * MS, &l, &c);
    sh(t, 2, 27, 385 * MS, pq_tls12_server_hello_hex, &c);
    ok(find(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT) && !find(&c, TLSNEG_VERDICT_UNRESOLVED) &&
           !find(&c, TLSNEG_VERDICT_INTOLERANT),
       "TLS 1.3 completed at this server before: key_share_intolerance, settled");
    const tlsneg_verdict *v = find(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT);
    ok(link_of(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT, TLSNEG_LINK_TOLERATED_IN) == 6 &&
           link_of(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT, TLSNEG_LINK_PREVIOUS_FAILED_IN) == 21 &&
           v->chain_len == 2 && v->chain_frames[0] == 20 && v->chain_frames[1] == 25,
       "it links the ServerHello that settles it (6), where the attempt failed (21), its chain "
       "20 -> 25");
    tlsneg_tracker_free(t);
}

static void guards(void)
{
    tlsneg_verdicts c;
    tlsneg_offer pq = offer(pq_client_hello_hex, 0), x = offer(pq_x25519_retry_hex, 0);

    /* pcaps/pq-split-rst-same-retry.pcap: curl resends the same hello. */
    tlsneg_tracker *t = tracker();
    ch(t, 0, client1, 7, 0, &pq, &c);
    reset(t, 0, 8, 62 * MS);
    ch(t, 1, client1, 15, 1004 * MS, &pq, &c);
    ok(find(&c, TLSNEG_VERDICT_SAME_RETRY) && !find(&c, TLSNEG_VERDICT_KEY_SHARE_FALLBACK),
       "the identical post-quantum retry is a same-offer retry, never key_share_fallback");
    tlsneg_tracker_free(t);

    /* Parallel: the classical hello comes before the attempt fails. */
    t = tracker();
    ch(t, 0, client1, 7, 0, &pq, &c);
    ch(t, 1, client1, 12, 5 * MS, &x, &c);
    reset(t, 0, 14, 67 * MS);
    sh(t, 1, 16, 70 * MS, pq_x25519_server_hello_hex, &c);
    ok(c.count == 0, "a classical hello sent before the post-quantum attempt failed: nothing");
    tlsneg_tracker_free(t);

    /* Out of the window (30 s), or from another client. */
    t = tracker();
    ch(t, 0, client1, 7, 0, &pq, &c);
    reset(t, 0, 8, 67 * MS);
    ch(t, 1, client1, 12, 31000 * MS, &x, &c);
    ok(c.count == 0, "a classical retry 31 s after the failure: nothing");
    ch(t, 2, client1, 20, 31100 * MS, &pq, &c);
    reset(t, 2, 21, 31150 * MS);
    ch(t, 3, client2, 24, 31200 * MS, &x, &c);
    ok(c.count == 0, "a classical hello from another client: nothing");
    tlsneg_tracker_free(t);

    /* A recognised probe (five hellos, three variations): its key-share
     * changes are no downgrade. */
    t = tracker();
    tlsneg_offer burst[5];
    for (uint32_t i = 0; i < 4; i++) {
        burst[i] = offer(pq_tls12_retry_hex, 0);
        burst[i].fp_suites ^= i + 1; /* a scanner's other cipher lists */
        burst[i].fp_all ^= i + 1;
    }
    burst[4] = pq;
    bool probe = false, dance = false;
    for (uint32_t i = 0; i < 5; i++) {
        ch(t, i, client1, 10 * i + 4, i * 10 * MS, &burst[i], &c);
        probe |= find(&c, TLSNEG_VERDICT_PROBE) != NULL;
        reset(t, i, 10 * i + 6, i * 10 * MS + 5 * MS);
    }
    ch(t, 6, client1, 70, 70 * MS, &x, &c);
    dance = find(&c, TLSNEG_VERDICT_KEY_SHARE_FALLBACK) != NULL;
    ok(probe && !dance, "a scanner's burst is a probe; its classical hello no key_share_fallback");
    tlsneg_tracker_free(t);
}

static void mixed_pool(void)
{
    /* pcaps/pq-mixed-pool.pcap: the same offer four times; SH 8 and 43
     * choose X25519MLKEM768, SH 26 and 60 x25519. */
    tlsneg_tracker *t = tracker();
    tlsneg_verdicts c;
    tlsneg_offer pq = offer(pq_client_hello_hex, 0), x = offer(pq_x25519_retry_hex, 0);
    ch(t, 0, client1, 6, 0, &pq, &c);
    sh(t, 0, 8, 9 * MS, pq_mlkem_server_hello_hex, &c);
    ok(c.count == 0, "post-quantum chosen: nothing");
    ch(t, 1, client1, 24, 91 * MS, &pq, &c);
    sh(t, 1, 26, 95 * MS, pq_x25519_server_hello_hex, &c);
    ok(c.count == 1 && link_of(&c, TLSNEG_VERDICT_KX_INCONSISTENT, TLSNEG_LINK_PQ_CHOSEN_IN) == 8,
       "then x25519 for the same post-quantum offer: key_exchange_inconsistent, linking frame 8");
    /* The sentence names the ClientHello that sent the share (after a
     * HelloRetryRequest the attempt's first, not the one answered). */
    ok(c.count == 1 && strstr(c.item[0].detail, "although the ClientHello in frame 24 carries a "
                                                "key share for X25519MLKEM768 too"),
       "its sentence names the ClientHello (frame 24) that sent the post-quantum share: %s",
       c.count ? c.item[0].detail : "");
    ch(t, 2, client1, 41, 170 * MS, &pq, &c);
    sh(t, 2, 43, 175 * MS, pq_mlkem_server_hello_hex, &c);
    ch(t, 3, client1, 58, 249 * MS, &pq, &c);
    sh(t, 3, 60, 252 * MS, pq_x25519_server_hello_hex, &c);
    ok(link_of(&c, TLSNEG_VERDICT_KX_INCONSISTENT, TLSNEG_LINK_PQ_CHOSEN_IN) == 43,
       "and again, linking the latest post-quantum ServerHello (43)");
    ch(t, 4, client1, 70, 300 * MS, &x, &c);
    sh(t, 4, 72, 302 * MS, pq_x25519_server_hello_hex, &c);
    ok(c.count == 0, "x25519 for a client that sent no post-quantum share: nothing");
    tlsneg_tracker_free(t);

    /* Parallel connections: the second hello leaves before the first is
     * answered; the sentence must not say it sent the share "again". */
    t = tracker();
    ch(t, 0, client1, 4, 0, &pq, &c);
    ch(t, 1, client1, 5, 1 * MS, &pq, &c);
    sh(t, 0, 8, 9 * MS, pq_mlkem_server_hello_hex, &c);
    sh(t, 1, 10, 10 * MS, pq_x25519_server_hello_hex, &c);
    ok(c.count == 1 && strstr(c.item[0].detail, "in frame 8; now it chooses x25519") &&
           strstr(c.item[0].detail, "frame 5 carries a key share for X25519MLKEM768 too") &&
           !strstr(c.item[0].detail, "again"),
       "parallel hellos: the sentence says what frame 5 carries, not that it came again: %s",
       c.count ? c.item[0].detail : "");
    tlsneg_tracker_free(t);
}

/* The groups of the x25519 retry's supported_groups and key share, in hex,
 * and of the PQ-predicting hello's. */
#define X25519_GROUPS "000a00040002001d"
#define X25519_SHARE  "003300260024001d0020"
#define MLKEM_GROUPS  "000a0006000411ec001d"

static void conforming_refusals(void)
{
    tlsneg_verdicts c;
    tlsneg_offer x = offer(pq_x25519_retry_hex, 0);
    /* pq_predicts_mlkem with its x25519 entry made GREASE: a client that
     * offers X25519MLKEM768 alone. A server without it refuses with
     * handshake_failure (RFC 8446 4.1.1); the retry's x25519 was not
     * offered: no intolerance, whatever the failure. */
    tlsneg_offer only =
        offer_edited(pq_predicts_mlkem_hex, MLKEM_GROUPS, "000a0006000411ec0a0a", 0);
    ok(only.pq_key_share && only.group_bits == tlsneg_named_group_bit(0x11ec),
       "the edited hello offers X25519MLKEM768 alone");
    uint8_t failures[3] = {40, 71, 0};
    for (unsigned i = 0; i < 3; i++) {
        tlsneg_tracker *t = tracker();
        ch(t, 0, client1, 6, 0, &only, &c);
        if (failures[i]) {
            alert(t, 0, 8, 3 * MS, failures[i]);
        } else {
            reset(t, 0, 8, 3 * MS);
        }
        ch(t, 1, client1, 12, 300 * MS, &x, &c);
        sh(t, 1, 14, 305 * MS, pq_x25519_server_hello_hex, &c);
        ok(!find(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT) && no_version_verdict(&c),
           "X25519MLKEM768 alone failed (%s), x25519 chosen on the retry: x25519 was never "
           "offered before, no key_share_intolerance",
           failures[i] == 40 ? "handshake_failure"
           : failures[i]     ? "insufficient_security"
                             : "reset");
        tlsneg_tracker_free(t);
    }
    /* The default hello (x25519 offered and shared too) refused with
     * handshake_failure, retried with other groups: a conforming server
     * may refuse groups it lacks; not intolerance. */
    tlsneg_offer pq = offer(pq_client_hello_hex, 0);
    tlsneg_tracker *t = tracker();
    ch(t, 0, client1, 7, 0, &pq, &c);
    alert(t, 0, 9, 3 * MS, 40);
    ch(t, 1, client1, 12, 300 * MS, &x, &c);
    sh(t, 1, 14, 305 * MS, pq_x25519_server_hello_hex, &c);
    ok(!find(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT),
       "handshake_failure, then other groups: no key_share_intolerance");
    tlsneg_tracker_free(t);

    /* secp521r1 alone (the retry's hello with its group and share made
     * 0x0019), refused, then x25519: only classical groups changed. */
    char *e = edited(pq_x25519_retry_hex, X25519_GROUPS, "000a000400020019");
    tlsneg_offer p521 = offer_edited(e, X25519_SHARE, "00330026002400190020", 0);
    free(e);
    t = tracker();
    ch(t, 0, client1, 4, 0, &p521, &c);
    reset(t, 0, 6, 3 * MS);
    ch(t, 1, client1, 10, 300 * MS, &x, &c);
    ok(c.count == 0, "secp521r1 alone, then x25519: no key_share_fallback");
    sh(t, 1, 12, 305 * MS, pq_x25519_server_hello_hex, &c);
    ok(c.count == 0, "and no \"does not tolerate its supported_groups\": a conforming server "
                     "ignores groups it lacks");
    tlsneg_tracker_free(t);
}

static void refusal_then_lower_retry(void)
{
    /* pcaps/pq-split-rst-tls12-retry-tls13-ok.pcap's skeleton with
     * handshake_failure for the reset: an alert a server may send for
     * groups it lacks, and the retry's groups differ: nothing settled. */
    tlsneg_verdicts c;
    tlsneg_offer x = offer(pq_x25519_retry_hex, 0), pq = offer(pq_client_hello_hex, 0);
    tlsneg_offer l = offer(pq_tls12_retry_hex, 0);
    tlsneg_tracker *t = tracker();
    ch(t, 0, client1, 4, 0, &x, &c);
    sh(t, 0, 6, 3 * MS, pq_x25519_server_hello_hex, &c);
    ch(t, 1, client1, 20, 34 * MS, &pq, &c);
    alert(t, 1, 21, 37 * MS, 40);
    ch(t, 2, client1, 25, 383 * MS, &l, &c);
    sh(t, 2, 27, 385 * MS, pq_tls12_server_hello_hex, &c);
    ok(!find(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT) && !find(&c, TLSNEG_VERDICT_INTOLERANT),
       "handshake_failure, then a lower retry with other groups: no intolerance verdict");
    tlsneg_tracker_free(t);
}

static void scanner_one_group_per_hello(void)
{
    /* A scanner's hellos, the same but for one group each (secp256r1,
     * secp384r1, secp521r1, x448), each refused, then x25519: a probe. */
    static const char *const groups[4][2] = {
        {"000a000400020017", "00330026002400170020"},
        {"000a000400020018", "00330026002400180020"},
        {"000a000400020019", "00330026002400190020"},
        {"000a00040002001e", "003300260024001e0020"},
    };
    tlsneg_tracker *t = tracker();
    tlsneg_verdicts c;
    bool probe = false, kx = false;
    for (uint32_t i = 0; i < 5; i++) {
        tlsneg_offer o;
        if (i < 4) {
            char *e = edited(pq_x25519_retry_hex, X25519_GROUPS, groups[i][0]);
            o = offer_edited(e, X25519_SHARE, groups[i][1], 0);
            free(e);
        } else {
            o = offer(pq_x25519_retry_hex, 0);
        }
        ch(t, i, client1, 10 * i + 4, i * 10 * MS, &o, &c);
        probe |= find(&c, TLSNEG_VERDICT_PROBE) != NULL;
        kx |= find(&c, TLSNEG_VERDICT_KEY_SHARE_FALLBACK) != NULL;
        if (i < 4) {
            alert(t, i, 10 * i + 6, i * 10 * MS + 2 * MS, 40);
        } else {
            sh(t, i, 10 * i + 6, i * 10 * MS + 2 * MS, pq_x25519_server_hello_hex, &c);
            kx |= find(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT) != NULL;
        }
    }
    ok(probe && !kx, "one group per hello, each refused: a probe, no key-share verdict");
    tlsneg_tracker_free(t);
}

static void completed_before(void)
{
    /* A classical server completed the split post-quantum hello (choosing
     * x25519), then fails the same hello once (a reset): the retry's
     * success says nothing of the share or the size. */
    tlsneg_verdicts c;
    tlsneg_offer pq = offer(pq_client_hello_hex, 2), x = offer(pq_x25519_retry_hex, 1);
    tlsneg_tracker *t = tracker();
    ch(t, 0, client1, 7, 0, &pq, &c);
    sh(t, 0, 10, 5 * MS, pq_x25519_server_hello_hex, &c);
    ch(t, 1, client1, 30, 1000 * MS, &pq, &c);
    reset(t, 1, 32, 1060 * MS);
    ch(t, 2, client1, 40, 1300 * MS, &x, &c);
    sh(t, 2, 42, 1305 * MS, pq_x25519_server_hello_hex, &c);
    ok(!find(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT),
       "the server completed that very hello before: no key_share_intolerance");
    tlsneg_tracker_free(t);
}

static void hrr_read_whole(void)
{
    /* pq_predicts_mlkem answered with a HelloRetryRequest for x25519: the
     * server read the hello whole; the connection then fails, the client
     * retries with x25519 elsewhere: no intolerance of the share. */
    tlsneg_verdicts c;
    tlsneg_offer p = offer(pq_predicts_mlkem_hex, 0), x = offer(pq_x25519_retry_hex, 0);
    tlsneg_tracker *t = tracker();
    ch(t, 0, client1, 6, 0, &p, &c);
    sh(t, 0, 8, 3 * MS, hrr_to_x25519_hex, &c);
    reset(t, 0, 10, 5 * MS);
    ch(t, 1, client1, 14, 300 * MS, &x, &c);
    sh(t, 1, 16, 305 * MS, pq_x25519_server_hello_hex, &c);
    ok(!find(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT),
       "a hello the server HelloRetryRequested: no key_share_intolerance");
    tlsneg_tracker_free(t);
}

static void ended_before_complete(void)
{
    /* pcaps/pq-split-rst-classical-retry.pcap as the session sees it: the
     * front resets before the second segment, so the attempt ends early;
     * the server cannot have judged the share: only the size is named. */
    tlsneg_verdicts c;
    tlsneg_offer pq = offer(pq_client_hello_hex, 2), x = offer(pq_x25519_retry_hex, 1);
    tlsneg_tracker *t = tracker();
    ch(t, 0, client1, 7, 0, &pq, &c);
    ok(tlsneg_tracker_early_end(t, 0, 60 * MS, TLSNEG_CAUSE_RESET, 0), "an early end");
    tlsneg_tracker_failed_in(t, 0, 6);
    ch(t, 1, client1, 12, 341 * MS, &x, &c);
    sh(t, 1, 14, 346 * MS, pq_x25519_server_hello_hex, &c);
    ok(strcmp(text(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT, TLSNEG_TEXT_INTOLERANT_OF),
              "its size (1546 bytes in 2 segments, then 312 in 1)") == 0 &&
           !tlsneg_verdict_text(find(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT),
                                TLSNEG_TEXT_CANDIDATES),
       "ended before the hello was complete: its size alone: %s",
       text(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT, TLSNEG_TEXT_INTOLERANT_OF));
    tlsneg_tracker_free(t);
}

static void share_dropped_group_kept(void)
{
    /* The default hello, then -groups X25519:X25519MLKEM768 (the group
     * still listed, only an x25519 share). */
    tlsneg_verdicts c;
    tlsneg_offer pq = offer(pq_client_hello_hex, 0), k = offer(pq_predicts_x25519_hex, 0);
    tlsneg_tracker *t = tracker();
    ch(t, 0, client1, 7, 0, &pq, &c);
    reset(t, 0, 8, 60 * MS);
    ch(t, 1, client1, 12, 300 * MS, &k, &c);
    const tlsneg_verdict *v = find(&c, TLSNEG_VERDICT_KEY_SHARE_FALLBACK);
    ok(v &&
           strcmp(tlsneg_verdict_text(v, TLSNEG_TEXT_DROPPED),
                  "the X25519MLKEM768 key share, the group still offered") == 0 &&
           strstr(v->detail, "a HelloRetryRequest could restore it") &&
           !strstr(v->detail, "induced downgrade"),
       "the share dropped, the group kept: no \"induced downgrade\": %s", v ? v->detail : "");
    tlsneg_tracker_free(t);
}

/* A server that completed a hello listing X25519MLKEM768 (without its
 * share) tolerates the group: when the same hello fails once and a retry
 * without the group completes, no key_share_intolerance names the group,
 * at the same versions or lower (the reviewer's s8.pcap and s9.pcap, made
 * here of real hellos: OpenSSL 3.5 -groups X25519:X25519MLKEM768, then
 * -groups X25519 or -tls1_2). A share the server never completed is still
 * judged. */
static void group_listed_completed_before(void)
{
    tlsneg_verdicts c;
    tlsneg_offer k = offer(pq_predicts_x25519_hex, 0), x = offer(pq_x25519_retry_hex, 0);
    tlsneg_offer l = offer(pq_tls12_retry_hex, 0), pq = offer(pq_client_hello_hex, 0);
    tlsneg_tracker *t = tracker();
    ch(t, 0, client1, 4, 0, &k, &c);
    sh(t, 0, 6, 3 * MS, pq_x25519_server_hello_hex, &c);
    ch(t, 1, client1, 14, 1000 * MS, &k, &c);
    reset(t, 1, 16, 1003 * MS);
    ch(t, 2, client1, 20, 2000 * MS, &x, &c);
    ok(find(&c, TLSNEG_VERDICT_KEY_SHARE_FALLBACK),
       "the retry without the group is still a key_share_fallback: the client dropped it");
    sh(t, 2, 22, 2003 * MS, pq_x25519_server_hello_hex, &c);
    ok(!find(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT) && no_version_verdict(&c),
       "the server completed a hello listing the group in frame 6: no key_share_intolerance");
    tlsneg_tracker_free(t);

    /* -tls1_2 -groups X25519: pq_tls12_retry_hex's offer with the classical
     * groups of k (x25519 alone; X25519MLKEM768 is left out of the
     * comparison as a TLS 1.3-only group). */
    l.fp_groups = k.fp_groups;
    t = tracker();
    ch(t, 0, client1, 4, 0, &k, &c);
    sh(t, 0, 6, 3 * MS, pq_x25519_server_hello_hex, &c);
    ch(t, 1, client1, 14, 1000 * MS, &k, &c);
    reset(t, 1, 16, 1003 * MS);
    ch(t, 2, client1, 20, 2000 * MS, &l, &c);
    ok(find(&c, TLSNEG_VERDICT_FALLBACK), "the -tls1_2 retry is a fallback");
    sh(t, 2, 22, 2003 * MS, pq_tls12_server_hello_hex, &c);
    ok(!find(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT) && !find(&c, TLSNEG_VERDICT_INTOLERANT) &&
           !find(&c, TLSNEG_VERDICT_UNRESOLVED),
       "lower: TLS 1.3 was put in force in frame 6 for a hello listing the group: neither the "
       "group nor the version is what the server failed on");
    tlsneg_tracker_free(t);

    t = tracker();
    ch(t, 0, client1, 4, 0, &k, &c);
    sh(t, 0, 6, 3 * MS, pq_x25519_server_hello_hex, &c);
    ch(t, 1, client1, 14, 1000 * MS, &pq, &c);
    reset(t, 1, 16, 1003 * MS);
    ch(t, 2, client1, 20, 2000 * MS, &x, &c);
    sh(t, 2, 22, 2003 * MS, pq_x25519_server_hello_hex, &c);
    ok(strcmp(text(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT, TLSNEG_TEXT_INTOLERANT_OF),
              "the X25519MLKEM768 key share or its size (1546 bytes, then 312)") == 0,
       "the group completed, never its share: the share is still judged: %s",
       text(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT, TLSNEG_TEXT_INTOLERANT_OF));
    tlsneg_tracker_free(t);
}

static void pool_guards(void)
{
    tlsneg_verdicts c;
    tlsneg_offer pq = offer(pq_client_hello_hex, 0), p = offer(pq_predicts_mlkem_hex, 0);
    /* Another offer (other groups) answered classically: not a mixed pool. */
    tlsneg_tracker *t = tracker();
    ch(t, 0, client1, 6, 0, &pq, &c);
    sh(t, 0, 8, 9 * MS, pq_mlkem_server_hello_hex, &c);
    ch(t, 1, client1, 24, 91 * MS, &p, &c);
    sh(t, 1, 26, 95 * MS, pq_x25519_server_hello_hex, &c);
    ok(!find(&c, TLSNEG_VERDICT_KX_INCONSISTENT), "another offer: no key_exchange_inconsistent");
    tlsneg_tracker_free(t);
    /* The same offer, 40 s later (out of the 30 s window). */
    t = tracker();
    ch(t, 0, client1, 6, 0, &pq, &c);
    sh(t, 0, 8, 9 * MS, pq_mlkem_server_hello_hex, &c);
    ch(t, 1, client1, 24, 40000 * MS, &pq, &c);
    sh(t, 1, 26, 40005 * MS, pq_x25519_server_hello_hex, &c);
    ok(!find(&c, TLSNEG_VERDICT_KX_INCONSISTENT), "40 s later: no key_exchange_inconsistent");
    tlsneg_tracker_free(t);
}

/* A QUIC connection and a TLS connection to one address and port reach two
 * server stacks: what the QUIC one completed is no evidence about the TLS
 * one. curl's real hello over QUIC (pcaps/quic-pq-curl-split-hello.pcap: an
 * X25519MLKEM768 share, in two datagrams) is completed with x25519; then,
 * to the same address and port over TCP, OpenSSL's split post-quantum
 * hello is reset and its x25519-only retry completed, as in
 * downgrade_after_reset. */
static void transports_apart(void)
{
    tlsneg_tracker *t = tracker();
    tlsneg_verdicts c;
    tlsneg_offer q = offer_on(TLSNEG_WIRE_QUIC, quic_pq_client_hello_hex, 2);
    tlsneg_offer pq = offer(pq_client_hello_hex, 2), x = offer(pq_x25519_retry_hex, 1);
    ok(q.datagram && !q.dtls && q.pq_key_share && q.hello_segments == 2,
       "curl's hello over QUIC: a datagram offer sharing post-quantum, in 2 datagrams");
    ch(t, 0, client1, 3, 0, &q, &c);
    tlsneg_answer qa = answer_on(TLSNEG_WIRE_QUIC, quic_x25519_server_hello_hex);
    tlsneg_tracker_server_hello(t, 0, 4, 2 * MS, &qa, &c);
    count(&c);
    ch(t, 1, client1, 7, 1000 * MS, &pq, &c);
    ok(c.count == 0, "the TCP hello after the QUIC connection: nothing to compare");
    reset(t, 1, 8, 1067 * MS);
    ch(t, 2, client1, 12, 1341 * MS, &x, &c);
    ok(link_of(&c, TLSNEG_VERDICT_KEY_SHARE_FALLBACK, TLSNEG_LINK_PREVIOUS_ATTEMPT) == 7,
       "the x25519-only retry drops the post-quantum share of the TCP attempt (frame 7)");
    sh(t, 2, 14, 1346 * MS, pq_x25519_server_hello_hex, &c);
    ok(find(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT) &&
           link_of(&c, TLSNEG_VERDICT_KEY_SHARE_INTOLERANT, TLSNEG_LINK_PREVIOUS_FAILED_IN) == 8,
       "key_share_intolerance for the TCP server: the QUIC server's completed split "
       "post-quantum hello (frame 3) does not say it tolerates one");
    tlsneg_tracker_free(t);
}

int main(void)
{
    offers_from_real_hellos();
    downgrade_after_reset();
    lower_retry_unresolved();
    lower_retry_settled();
    guards();
    mixed_pool();
    conforming_refusals();
    refusal_then_lower_retry();
    scanner_one_group_per_hello();
    completed_before();
    hrr_read_whole();
    ended_before_complete();
    share_dropped_group_kept();
    group_listed_completed_before();
    pool_guards();
    transports_apart();
    ok(seen >= 10 && malformed == 0, "%zu verdicts made, each of its row's shape (%zu not)", seen,
       malformed);
    return tap_done();
}
