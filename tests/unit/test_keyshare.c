/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_keyshare.c: the tracker's verdicts on the key exchange across
 * connections (lib/analysis/keyshare.c), each scenario the skeleton of a
 * pcaps/pq-*.pcap capture (frames and times as there), its offers made from
 * the real hellos of pq_vectors.h. */
#include "analysis/tracker.h"
#include "core/facts.h"
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

/* parse parses the hex of a real hello (pq_vectors.h) into its facts. */
static void parse(const char *hex, uint16_t segments, tlsneg_hello *h, tlsneg_facts *f,
                  tlsneg_facts_buf *fb, uint8_t **bytes)
{
    size_t n;
    *bytes = unhex(hex, &n);
    (void)tlsneg_hello_parse(h, TLSNEG_WIRE_TLS, *bytes, n);
    tlsneg_facts_derive(f, fb, h, true, 0x0303);
    if (segments) {
        tlsneg_facts_set_segments(f, fb, segments, NULL, 0);
    }
}

/* offer: what the tracker keeps of a real ClientHello carried in segments
 * TCP segments (0: not known, as in the plugin today). */
static tlsneg_offer offer(const char *hex, uint16_t segments)
{
    tlsneg_hello h;
    tlsneg_facts f;
    static tlsneg_facts_buf fb;
    uint8_t *b;
    parse(hex, segments, &h, &f, &fb, &b);
    tlsneg_offer o;
    tlsneg_offer_from_hello(&o, &h, &f);
    free(b);
    return o;
}

static tlsneg_answer answer(const char *hex)
{
    tlsneg_hello h;
    tlsneg_facts f;
    static tlsneg_facts_buf fb;
    uint8_t *b;
    parse(hex, 0, &h, &f, &fb, &b);
    tlsneg_answer a;
    tlsneg_answer_from_hello(&a, &h, &f);
    free(b);
    return a;
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
    tlsneg_tracker_client_hello(t, conn, &k, frame, now, o, out);
    count(out);
}

static void sh(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t now, const char *hex,
               tlsneg_verdicts *out)
{
    tlsneg_answer a = answer(hex);
    tlsneg_tracker_server_hello(t, conn, frame, now, &a, out);
    count(out);
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
    /* pcaps/pq-split-rst-classical-retry.pcap: CH 7 (split), RST 8 (the
     * front's RST 6 came before the hello was complete), CH 12 x25519
     * only, SH 14 x25519. */
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
    tlsneg_tracker_alert(t, 0, 61 * MS, 50, true, &c);
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
}

int main(void)
{
    offers_from_real_hellos();
    downgrade_after_reset();
    lower_retry_unresolved();
    lower_retry_settled();
    guards();
    mixed_pool();
    ok(seen >= 10 && malformed == 0, "%zu verdicts made, each of its row's shape (%zu not)", seen,
       malformed);
    return tap_done();
}
