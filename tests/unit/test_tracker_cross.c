/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_tracker_cross.c: the tracker's verdicts on captures' event sequences,
 * read through one view (a flag or value per verdict kind and evidence role);
 * frames and times as in the captures of pcaps/. */
#include "tracker_fixture.h"

/* The tests of issue 13 read the verdicts through this view: one flag or
 * value per verdict kind and evidence role (analysis/tracker.h). */
typedef struct {
    bool fallback, same_retry, intolerant, other_cause, fallback_rejected, retry_refused,
        client_abort, caught_sentinel, probe, probe_new, inconsistent;
    uint32_t prev_frame, failed_frame, answer_frame;
    uint16_t from, to;
    const char *intolerant_of, *changed, *abort_detail;
    uint8_t chain_len;
    uint32_t chain_frames[TLSNEG_CHAIN_MAX];
    tlsneg_probe probe_info;
    uint8_t probe_earlier_len;
    uint32_t probe_earlier[TLSNEG_PROBE_EARLIER];
    tlsneg_verdicts vs;
} tlsneg_cross;

/* Every verdict view() reads, and those not of their row's shape
 * (tlsneg_verdict_well_formed). */
static size_t verdicts_seen, verdicts_malformed;

static void view(tlsneg_cross *c)
{
    tlsneg_verdicts vs = c->vs;
    memset(c, 0, sizeof *c);
    c->vs = vs;
    c->intolerant_of = c->changed = c->abort_detail = "";
    for (size_t i = 0; i < c->vs.count; i++) {
        const tlsneg_verdict *v = &c->vs.item[i];
        verdicts_seen++;
        verdicts_malformed += !tlsneg_verdict_well_formed(v);
        if (v->chain_len && !c->chain_len) {
            c->chain_len = v->chain_len;
            memcpy(c->chain_frames, v->chain_frames, sizeof c->chain_frames);
        }
        switch (v->kind) {
        case TLSNEG_VERDICT_FALLBACK:
            c->fallback = true;
            c->prev_frame = tlsneg_verdict_link(v, TLSNEG_LINK_PREVIOUS_ATTEMPT);
            (void)tlsneg_verdict_version(v, TLSNEG_VERSION_OFFERED_BEFORE, &c->from);
            (void)tlsneg_verdict_version(v, TLSNEG_VERSION_OFFERED_NOW, &c->to);
            break;
        case TLSNEG_VERDICT_SAME_RETRY:
            c->same_retry = true;
            c->prev_frame = tlsneg_verdict_link(v, TLSNEG_LINK_SAME_OFFER_AS);
            break;
        case TLSNEG_VERDICT_INTOLERANT:
            c->intolerant = true;
            c->intolerant_of = tlsneg_verdict_text(&c->vs.item[i], TLSNEG_TEXT_INTOLERANT_OF);
            break;
        case TLSNEG_VERDICT_OTHER_CAUSE:
            c->other_cause = true;
            c->changed = tlsneg_verdict_text(&c->vs.item[i], TLSNEG_TEXT_CHANGED);
            c->failed_frame = v->chain_len > 1 ? v->chain_frames[v->chain_len - 2] : 0;
            break;
        case TLSNEG_VERDICT_FALLBACK_REJECTED:
            c->fallback_rejected = true;
            c->prev_frame = tlsneg_verdict_link(v, TLSNEG_LINK_REFUSED_RETRY);
            break;
        case TLSNEG_VERDICT_NO_COMMON_VERSION:
            c->retry_refused = true;
            c->prev_frame = tlsneg_verdict_link(v, TLSNEG_LINK_REFUSED_RETRY);
            break;
        case TLSNEG_VERDICT_CLIENT_ABORT:
            c->client_abort = true;
            c->answer_frame = tlsneg_verdict_link(v, TLSNEG_LINK_ABORTED_AFTER);
            c->caught_sentinel = v->downgrade_caught && strstr(v->detail, "protection worked");
            c->abort_detail = v->detail;
            break;
        case TLSNEG_VERDICT_PROBE:
            c->probe = true;
            c->probe_new = !v->silent;
            c->probe_info = v->probe;
            c->probe_earlier_len = v->probe_earlier_len;
            memcpy(c->probe_earlier, v->probe_earlier, sizeof c->probe_earlier);
            break;
        case TLSNEG_VERDICT_INCONSISTENT:
            c->inconsistent = true;
            break;
        default:
            break;
        }
    }
}

static void ch_(tlsneg_tracker *t, uint64_t conn, const tlsneg_peer_key *k, uint32_t frame,
                uint64_t now, const tlsneg_offer *o, tlsneg_cross *c)
{
    tlsneg_tracker_client_hello(t, conn, k, frame, now, 0, o, &c->vs);
    view(c);
}

static void sh_(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t now,
                const tlsneg_answer *a, tlsneg_cross *c)
{
    tlsneg_tracker_server_hello(t, conn, frame, now, a, &c->vs);
    view(c);
}

/* al_: an alert in frame (named for the reader: the tracker needs none). */
static void al_(tlsneg_tracker *t, uint64_t conn, uint32_t frame, uint64_t now, uint8_t desc,
                bool from_server, tlsneg_cross *c)
{
    (void)frame;
    tlsneg_tracker_alert(t, conn, now, desc,
                         tlsneg_alert_ends_handshake(TLSNEG_ALERT_FATAL, desc, false), from_server,
                         &c->vs);
    view(c);
}

static void fs_(const tlsneg_cross *c, tlsneg_findings *fs)
{
    tlsneg_verdict_findings(&c->vs, fs);
}

/* evidence_for_intolerance, 1: a retry that changed only its versions
 * (intolerance), or more (another likely cause). */
static void intolerance_or_other_cause(tlsneg_tracker *t)
{
    tlsneg_cross c;
    tlsneg_answer a12 = answer(TLSNEG_V_TLS12);
    tlsneg_offer o13 = openssl13(), o12 = legacy(TLSNEG_V_TLS12, SUITES_OPENSSL);

    /* pcaps/intolerant-rst.pcap with the real fingerprints: the 1.2 hello
     * is the 1.3 hello without the TLS 1.3 signals. */
    tlsneg_peer_key k = peer_n(1, "rst");
    ch_(t, 0, &k, 4, 0, &o13, &c);
    tlsneg_tracker_close(t, 0, S / 100, true);
    ch_(t, 1, &k, 10, S / 10, &o12, &c);
    ok(c.fallback && !c.probe, "intolerant-rst: frame 10 is a fallback retry");
    sh_(t, 1, 12, S / 5, &a12, &c);
    ok(c.intolerant && !c.other_cause &&
           strcmp(c.intolerant_of, "TLS 1.3 in supported_versions") == 0,
       "only the version signals changed: intolerant of %s", c.intolerant_of);

    /* The retry also changed its cipher list: another likely cause. */
    tlsneg_peer_key k2 = peer_n(2, "ciphers");
    tlsneg_offer other12 = legacy(TLSNEG_V_TLS12, SUITES_OTHER);
    ch_(t, 2, &k2, 20, S, &o13, &c);
    al_(t, 2, 22, S, 40, true, &c);
    ch_(t, 3, &k2, 30, 2 * S, &other12, &c);
    ok(!c.fallback && !c.same_retry,
       "a lower retry with other suites is another offer, not a fallback retry");
    sh_(t, 3, 32, 2 * S, &a12, &c);
    ok(!c.intolerant && c.other_cause && c.failed_frame == 20 &&
           strcmp(c.changed, "cipher suites") == 0,
       "handshake_failure then success with other suites: no intolerance, changed: %s", c.changed);
    tlsneg_findings fs = {0};
    fs_(&c, &fs);
    ok(fs.count == 1 && fs.item[0].rule == TLSNEG_RULE_FAILURE_OTHER_CAUSE,
       "reported as failure_other_cause: %s", fs.count ? fs.item[0].detail : "");
    tlsneg_offer groups12 = o12;
    groups12.fp_groups = GROUPS + 1;
    groups12.fp_sigalgs = SIGALGS + 1;
    tlsneg_peer_key k2b = peer_n(3, "groups");
    ch_(t, 30, &k2b, 25, 2 * S, &o13, &c);
    al_(t, 30, 26, 2 * S, 40, true, &c);
    ch_(t, 31, &k2b, 27, 2 * S, &groups12, &c);
    sh_(t, 31, 28, 2 * S, &a12, &c);
    ok(c.other_cause && strcmp(c.changed, "supported_groups, signature_algorithms") == 0,
       "other groups and signature algorithms are named: %s", c.changed);
}

/* evidence_for_intolerance, 2: below TLS 1.2; after alerts 86 and 70; a
 * server that completed as high before. */
static void intolerance_below_tls12_and_refusals(tlsneg_tracker *t)
{
    tlsneg_cross c;
    tlsneg_answer a12 = answer(TLSNEG_V_TLS12), a13 = answer(TLSNEG_V_TLS13);
    tlsneg_offer o13 = openssl13(), o12 = legacy(TLSNEG_V_TLS12, SUITES_OPENSSL);

    /* Below TLS 1.2 a client drops the suites that need 1.2: compared
     * without them (pcaps/fallback-chain.pcap, 1.1 -> 1.0). */
    tlsneg_peer_key k3 = peer_n(4, "chain");
    tlsneg_offer o11 = legacy(TLSNEG_V_TLS11, SUITES_OPENSSL),
                 o10 = legacy(TLSNEG_V_TLS10, SUITES_OPENSSL);
    o11.fp_suites = 77; /* the 1.2-only suites are gone, the rest is the same */
    ch_(t, 4, &k3, 24, 3 * S, &o11, &c);
    al_(t, 4, 26, 3 * S, 40, true, &c);
    ch_(t, 5, &k3, 34, 3 * S, &o10, &c);
    tlsneg_answer a10 = answer(TLSNEG_V_TLS10);
    sh_(t, 5, 36, 3 * S, &a10, &c);
    ok(c.intolerant && strcmp(c.intolerant_of, "a ClientHello offering TLS 1.1 or more") == 0,
       "TLS 1.1 failed, 1.0 with the same pre-1.2 suites went through: intolerant of %s",
       c.intolerant_of);

    /* Never after inappropriate_fallback. */
    tlsneg_peer_key k4 = peer_n(5, "86");
    tlsneg_offer s12 = o12;
    s12.fallback_scsv = true;
    ch_(t, 6, &k4, 40, 4 * S, &s12, &c);
    al_(t, 6, 42, 4 * S, 86, true, &c);
    tlsneg_offer s11 = legacy(TLSNEG_V_TLS11, SUITES_OPENSSL);
    s11.fp_suites = o12.fp_suites;
    ch_(t, 7, &k4, 50, 4 * S + 1, &s11, &c);
    sh_(t, 7, 52, 4 * S + 2, &a12, &c);
    ok(!c.intolerant && !c.other_cause, "after alert 86 to the failed hello: no intolerance");

    /* A hello offering only TLS 1.3, refused with protocol_version by a
     * TLS 1.2 server (testssl), then a TLS 1.2 hello: no common version,
     * not a fallback, not intolerance. */
    tlsneg_peer_key k5 = peer_n(6, "only13");
    tlsneg_offer o13only = only13(SUITES_NONE);
    ch_(t, 8, &k5, 60, 5 * S, &o13only, &c);
    al_(t, 8, 62, 5 * S, 70, true, &c);
    ok(!c.retry_refused && !c.fallback_rejected, "protocol_version on a first attempt: no verdict");
    ch_(t, 9, &k5, 70, 5 * S + 1, &o12, &c);
    ok(!c.fallback && !c.same_retry, "TLS 1.2 after a TLS 1.3-only offer is not its fallback");
    sh_(t, 9, 72, 5 * S + 2, &a12, &c);
    ok(!c.intolerant && !c.other_cause, "no common version: no intolerance");

    /* A server that completed an offer as high from this client before is
     * not intolerant of it. */
    tlsneg_peer_key k6 = peer_n(7, "before");
    ch_(t, 10, &k6, 80, 6 * S, &o13, &c);
    sh_(t, 10, 82, 6 * S, &a13, &c);
    ch_(t, 11, &k6, 90, 7 * S, &o13, &c);
    tlsneg_tracker_close(t, 11, 7 * S, true);
    ch_(t, 12, &k6, 100, 7 * S + 1, &o12, &c);
    ok(c.fallback, "a lower retry after a reset is a fallback retry");
    sh_(t, 12, 102, 7 * S + 2, &a12, &c);
    ok(!c.intolerant && !c.other_cause && !c.inconsistent,
       "but the server completed TLS 1.3 with this client in frame 82: not intolerant");
}

/* evidence_for_intolerance, 3: the server answered, or the handshake
 * went on unseen: no intolerance. */
static void no_intolerance_after_answer(tlsneg_tracker *t)
{
    tlsneg_cross c;
    tlsneg_answer a12 = answer(TLSNEG_V_TLS12);
    tlsneg_offer o13 = openssl13(), o12 = legacy(TLSNEG_V_TLS12, SUITES_OPENSSL);

    /* The client aborts after the ServerHello (it caught the sentinel),
     * then retries lower: the server answered, so no intolerance. */
    tlsneg_peer_key k7 = peer_n(8, "abort");
    tlsneg_answer sent = answer(TLSNEG_V_TLS12);
    sent.sentinel = true;
    ch_(t, 13, &k7, 110, 8 * S, &o13, &c);
    sh_(t, 13, 112, 8 * S, &sent, &c);
    al_(t, 13, 114, 8 * S, 47, false, &c);
    ok(c.client_abort && c.caught_sentinel && c.answer_frame == 112,
       "alert 47 from the client after a ServerHello with a sentinel: the protection worked");
    ch_(t, 14, &k7, 120, 8 * S + 1, &o12, &c);
    sh_(t, 14, 122, 8 * S + 2, &a12, &c);
    ok(!c.intolerant && !c.other_cause, "a retry after the client's own abort: no intolerance");
    /* RFC 8446 4.1.3: a client that checks the sentinel aborts with
     * illegal_parameter (47). Another alert after a sentinel (unknown_ca,
     * 48) does not show that the check made it abort. */
    tlsneg_peer_key k7b = peer_n(60, "abort48");
    ch_(t, 101, &k7b, 150, 11 * S, &o13, &c);
    sh_(t, 101, 152, 11 * S, &sent, &c);
    al_(t, 101, 154, 11 * S, 48, false, &c);
    ok(c.client_abort && !c.caught_sentinel && !strstr(c.abort_detail, "protection worked") &&
           strstr(c.abort_detail, "unknown_ca (48)") &&
           strstr(c.abort_detail, "downgrade sentinel") &&
           strstr(c.abort_detail, "illegal_parameter (47)"),
       "alert 48 from the client after a ServerHello with a sentinel: an abort, not the "
       "protection shown working: %s",
       c.abort_detail);
    tlsneg_peer_key k8 = peer_n(9, "abort2");
    ch_(t, 15, &k8, 130, 9 * S, &o12, &c);
    sh_(t, 15, 132, 9 * S, &a12, &c);
    al_(t, 15, 134, 9 * S, 0, false, &c);
    ok(!c.client_abort, "close_notify after a ServerHello is no abort");
    al_(t, 15, 135, 9 * S, 80, false, &c);
    ok(c.client_abort && !c.caught_sentinel,
       "internal_error from the client: an abort, no sentinel");

    /* The ServerHello is missing, but both sides went encrypted: done. */
    tlsneg_peer_key k9 = peer_n(10, "unseen");
    ch_(t, 16, &k9, 140, 10 * S, &o13, &c);
    tlsneg_tracker_progress(t, 16, true);
    tlsneg_tracker_progress(t, 16, false);
    ok(tlsneg_tracker_close(t, 16, 10 * S + 1, false) == 0,
       "a FIN after CCS and encrypted records from both sides ends no failed attempt");
    ch_(t, 17, &k9, 160, 10 * S + 2, &o12, &c);
    ok(!c.fallback, "so the next, lower hello is no fallback");
}

static void evidence_for_intolerance(void)
{
    tlsneg_tracker *t = tracker(1000, true);
    intolerance_or_other_cause(t);
    intolerance_below_tls12_and_refusals(t);
    no_intolerance_after_answer(t);
    tlsneg_tracker_free(t);
}

static void draft_era_fallback(void)
{
    /* A TLS 1.3 draft-era client: supported_versions draft-23, 1.2, 1.1,
     * 1.0; the server refuses it; the retry without supported_versions. */
    tlsneg_tracker *t = tracker(1000, true);
    tlsneg_cross c;
    tlsneg_peer_key k = peer(client1, "localhost");
    tlsneg_offer d = openssl13();
    d.offered_max = 0x7f17;
    d.offers_tls13 = false;
    d.versions =
        (uint8_t)(tlsneg_version_bit(0x7f17, false) | tlsneg_version_bit(TLSNEG_V_TLS12, false) |
                  tlsneg_version_bit(TLSNEG_V_TLS11, false) |
                  tlsneg_version_bit(TLSNEG_V_TLS10, false));
    tlsneg_offer o12 = legacy(TLSNEG_V_TLS12, SUITES_OPENSSL);
    ch_(t, 0, &k, 4, 0, &d, &c);
    al_(t, 0, 6, 1, 40, true, &c);
    ch_(t, 1, &k, 14, S / 5, &o12, &c);
    ok(c.fallback && c.from == 0x7f17 && c.to == TLSNEG_V_TLS12, "draft-23 -> TLS 1.2: a fallback");
    tlsneg_answer a12 = answer(TLSNEG_V_TLS12);
    sh_(t, 1, 16, S / 5, &a12, &c);
    ok(c.intolerant && strcmp(c.intolerant_of, "TLS 1.3 draft-23 in supported_versions") == 0,
       "intolerant of %s", c.intolerant_of);
    tlsneg_tracker_free(t);
}

static void same_version_retries(void)
{
    /* Chromium and Firefox retry TLS 1.3 after a reset and never fall
     * back: one chain, a note, no fallback. */
    tlsneg_tracker *t = tracker(1000, true);
    tlsneg_cross c;
    tlsneg_peer_key k = peer(client1, "localhost");
    tlsneg_offer o13 = openssl13();
    for (uint64_t i = 0; i < 3; i++) {
        ch_(t, i, &k, (uint32_t)(4 + 10 * i), i * S, &o13, &c);
        if (i < 2) {
            tlsneg_tracker_close(t, i, i * S, true);
        }
    }
    ok(!c.fallback && c.same_retry && c.chain_len == 3 && c.chain_frames[0] == 4 &&
           c.chain_frames[2] == 24 && c.prev_frame == 14,
       "three attempts at TLS 1.3: one chain of three, same_retry, no fallback");
    tlsneg_findings fs = {0};
    fs_(&c, &fs);
    ok(fs.count == 1 && fs.item[0].rule == TLSNEG_RULE_RETRY_SAME_VERSION &&
           strstr(fs.item[0].detail, "no fallback happened"),
       "noted: %s", fs.count ? fs.item[0].detail : "");
    tlsneg_answer a13 = answer(TLSNEG_V_TLS13);
    sh_(t, 2, 26, 2 * S, &a13, &c);
    ok(!c.intolerant && !c.other_cause && !c.inconsistent,
       "its success says nothing of intolerance");

    /* A retry refused too: no common version, not silence. */
    tlsneg_peer_key k2 = peer(client1, "refused");
    tlsneg_offer o12 = legacy(TLSNEG_V_TLS12, SUITES_OPENSSL);
    ch_(t, 3, &k2, 40, 3 * S, &o13, &c);
    tlsneg_tracker_close(t, 3, 3 * S, true);
    ch_(t, 4, &k2, 50, 3 * S + 1, &o12, &c);
    al_(t, 4, 52, 3 * S + 2, 70, true, &c);
    ok(c.retry_refused && c.prev_frame == 50 && c.chain_len == 2,
       "protocol_version on the fallback retry: the chain ends, no common version");
    fs.count = 0;
    fs_(&c, &fs);
    ok(fs.count == 1 && fs.item[0].rule == TLSNEG_RULE_NO_COMMON_VERSION, "%s",
       fs.count ? fs.item[0].detail : "");
    tlsneg_tracker_free(t);
}

/* scan feeds the first hellos of a scanner capture: (version offer, suites,
 * outcome) per attempt, each on its own connection, 1 ms apart. */
typedef struct {
    tlsneg_offer offer;
    int outcome; /* 0: ServerHello of answer_v, else an alert from the server */
    uint16_t answer_v;
} scan_step;

static void probe_sslscan(void)
{
    /* The first hellos of sslscan against s_server (TLS 1.2 + 1.3):
     * SSL 3.0 (alert 40), TLS 1.0 and 1.1 (alert 80), TLS 1.2 (1.2), a TLS
     * 1.3-only hello (1.3), the full hello (1.3), TLS 1.2 with SCSV (86),
     * TLS 1.0 (80), then a TLS 1.3-only hello with other suites (40) and a
     * TLS 1.2 hello (1.2). */
    tlsneg_offer scsv12 = legacy(TLSNEG_V_TLS12, 5);
    scsv12.fallback_scsv = true;
    scan_step steps[] = {
        {legacy(TLSNEG_V_SSL3, 3), 40, 0},
        {legacy(TLSNEG_V_TLS10, 4), 80, 0},
        {legacy(TLSNEG_V_TLS11, 4), 80, 0},
        {legacy(TLSNEG_V_TLS12, 4), 0, TLSNEG_V_TLS12},
        {only13(SUITES_NONE), 0, TLSNEG_V_TLS13},
        {openssl13(), 0, TLSNEG_V_TLS13},
        {scsv12, 86, 0},
        {legacy(TLSNEG_V_TLS10, 6), 80, 0},
        {only13(9), 40, 0},
        {legacy(TLSNEG_V_TLS12, 4), 0, TLSNEG_V_TLS12},
    };
    size_t n = sizeof steps / sizeof steps[0];
    for (int pass = 0; pass < 2; pass++) {
        tlsneg_tracker_config cfg = {1000, 30 * S, true, pass == 1, false};
        tlsneg_tracker *t = tlsneg_tracker_new(&cfg);
        int recognised = 0, in_probe = 0, verdicts = 0;
        tlsneg_probe last = {0};
        uint8_t earlier_len = 0;
        uint32_t earlier[TLSNEG_PROBE_EARLIER] = {0};
        for (size_t i = 0; i < n; i++) {
            tlsneg_cross c;
            /* sslscan sends SNI in most hellos, not in all: one probe. */
            tlsneg_peer_key k = peer(client1, i == 0 ? NULL : "127.0.0.1");
            uint32_t frame = (uint32_t)(22 + 10 * i);
            uint64_t now = i * S / 1000;
            ch_(t, i, &k, frame, now, &steps[i].offer, &c);
            recognised += c.probe_new;
            in_probe += c.probe;
            if (c.probe_new) {
                earlier_len = c.probe_earlier_len;
                memcpy(earlier, c.probe_earlier, sizeof earlier);
            }
            verdicts += c.fallback || c.same_retry;
            if (c.probe) {
                last = c.probe_info;
            }
            if (steps[i].outcome) {
                al_(t, i, frame + 2, now, (uint8_t)steps[i].outcome, true, &c);
                verdicts += c.fallback_rejected || c.retry_refused;
                if (c.probe) {
                    last = c.probe_info;
                }
            } else {
                tlsneg_answer a = answer(steps[i].answer_v);
                sh_(t, i, frame + 2, now, &a, &c);
                verdicts += c.intolerant || c.other_cause || c.inconsistent;
            }
        }
        if (pass == 0) {
            ok(recognised == 1 && in_probe == 6, "recognised once, at the fifth hello (%d, %d)",
               recognised, in_probe);
            ok(verdicts == 0, "no fallback, retry or intolerance verdict in the probe");
            ok(earlier_len == 4 && earlier[0] == 22 && earlier[1] == 32 && earlier[2] == 42 &&
                   earlier[3] == 52,
               "the hello that makes it a probe names the four before it (%u: %u %u %u %u)",
               earlier_len, earlier[0], earlier[1], earlier[2], earlier[3]);
            char text[200];
            ok(last.first_frame == 22 && last.hellos == 10 && last.scsv == 1 &&
                   last.scsv_refused == 1 && last.lowest == TLSNEG_V_SSL3 &&
                   last.highest == TLSNEG_V_TLS13,
               "the probe so far: %s", tlsneg_probe_text(&last, text, sizeof text));
            ok(strcmp(text, "probed with 10 hellos in 0.009 s, SSL 3.0 to TLS 1.3, SCSV probe "
                            "answered with 86") == 0,
               "its text");
        } else {
            ok(recognised == 0 && in_probe == 0, "with recognition off: no probe");
            ok(verdicts == 0,
               "judged one by one, no hello is a fallback or intolerance either: each changed "
               "more than its versions (%d verdicts)",
               verdicts);
        }
        tlsneg_tracker_free(t);
    }
}

/* An SCSV hello refused with 86 before the burst is recognised (it is the
 * first or second hello) is still counted as refused. */
static void probe_scsv_refused_early(void)
{
    tlsneg_offer scsv12 = legacy(TLSNEG_V_TLS12, 5);
    scsv12.fallback_scsv = true;
    for (int first = 0; first < 2; first++) {
        scan_step steps[] = {
            {legacy(TLSNEG_V_TLS10, 4), 80, 0}, {scsv12, 86, 0},
            {legacy(TLSNEG_V_TLS11, 4), 80, 0}, {only13(SUITES_NONE), 0, TLSNEG_V_TLS13},
            {openssl13(), 0, TLSNEG_V_TLS13},
        };
        if (first) { /* the SCSV hello first */
            scan_step tmp = steps[0];
            steps[0] = steps[1];
            steps[1] = tmp;
        }
        tlsneg_tracker *t = tracker(1000, true);
        tlsneg_peer_key k = peer(client1, "127.0.0.1");
        tlsneg_probe last = {0};
        for (size_t i = 0; i < 5; i++) {
            tlsneg_cross c;
            uint32_t frame = (uint32_t)(4 + 10 * i);
            uint64_t now = i * S / 10;
            ch_(t, i, &k, frame, now, &steps[i].offer, &c);
            if (c.probe) {
                last = c.probe_info;
            }
            if (steps[i].outcome) {
                al_(t, i, frame + 2, now, (uint8_t)steps[i].outcome, true, &c);
            } else {
                tlsneg_answer a = answer(steps[i].answer_v);
                sh_(t, i, frame + 2, now, &a, &c);
            }
        }
        ok(last.hellos == 5 && last.scsv == 1 && last.scsv_refused == 1,
           "the SCSV hello %s of the burst, refused before recognition: counted (%u of %u)",
           first ? "first" : "second", last.scsv_refused, last.scsv);
        tlsneg_tracker_free(t);
    }
}

/* nmap (scan-nmap-tls13.pcap, frames 6 to 26): TLS 1.2 with 6 suites
 * (alert 40), TLS 1.1 with 64 suites (alert 40), then TLS 1.0 with the
 * same 64 suites: a lower retry of the same hello, but its failed attempt
 * was no dance start (the client offered more before): no fallback. */
static void probe_nmap(void)
{
    tlsneg_tracker *t = tracker(1000, true);
    tlsneg_peer_key k = peer(client1, NULL);
    tlsneg_offer n12 = legacy(TLSNEG_V_TLS12, 40), n11 = legacy(TLSNEG_V_TLS11, 41),
                 n10 = legacy(TLSNEG_V_TLS10, 41);
    n10.fp_suites = n11.fp_suites;
    tlsneg_cross c;
    ch_(t, 1, &k, 6, 1000, &n12, &c);
    al_(t, 1, 7, 3000, 40, true, &c);
    ch_(t, 2, &k, 20, 12000, &n11, &c);
    ok(!c.fallback, "nmap: TLS 1.1 with other suites after TLS 1.2 is no fallback");
    al_(t, 2, 21, 12000, 40, true, &c);
    ch_(t, 3, &k, 23, 13000, &n10, &c);
    ok(!c.fallback && !c.same_retry,
       "nmap: TLS 1.0 after the failed TLS 1.1 probe is no fallback either");
    tlsneg_tracker_free(t);
}

/* no_probe: a fallback chain of five steps is not a probe (every step is a
 * retry); nor are many connections with one offer (a browser). */
static void no_probe(void)
{
    tlsneg_tracker *t = tracker(1000, true);
    tlsneg_peer_key k = peer(client1, "localhost");
    uint16_t vs[5] = {TLSNEG_V_TLS13, TLSNEG_V_TLS12, TLSNEG_V_TLS11, TLSNEG_V_TLS10,
                      TLSNEG_V_SSL3};
    int fallbacks = 0, probe = 0;
    for (uint64_t i = 0; i < 5; i++) {
        tlsneg_offer o = i ? legacy(vs[i], SUITES_OPENSSL) : openssl13();
        tlsneg_cross c;
        ch_(t, i, &k, (uint32_t)(4 + 10 * i), i * S / 10, &o, &c);
        fallbacks += c.fallback;
        probe += c.probe;
        al_(t, i, (uint32_t)(6 + 10 * i), i * S / 10, 40, true, &c);
    }
    ok(fallbacks == 4 && probe == 0, "a chain 1.3 -> SSL 3.0: four fallbacks, no probe");
    /* Nor are many connections with one offer (a browser). */
    tlsneg_peer_key kb = peer(client2, "browser");
    tlsneg_offer o13 = openssl13();
    tlsneg_answer a13 = answer(TLSNEG_V_TLS13);
    for (uint64_t i = 0; i < 20; i++) {
        tlsneg_cross c;
        ch_(t, 100 + i, &kb, (uint32_t)(100 + i), i * S / 100, &o13, &c);
        probe += c.probe;
        sh_(t, 100 + i, (uint32_t)(200 + i), i * S / 100, &a13, &c);
    }
    ok(probe == 0, "twenty connections with the same offer: no probe");
    /* Nor are hellos of several stacks to several sites behind one
     * address, from one address (a NAT to a CDN): five server names. */
    static const char *const sites[] = {"a.example", "b.example", "c.example",
                                        "d.example", "e.example", "f.example"};
    tlsneg_offer offers[] = {openssl13(), legacy(TLSNEG_V_TLS12, 4),
                             only13(9),   legacy(TLSNEG_V_TLS12, 5),
                             openssl13(), only13(SUITES_NONE)};
    for (uint64_t i = 0; i < 6; i++) {
        static const uint8_t nat[4] = {192, 0, 2, 7};
        tlsneg_peer_key ks = peer(nat, sites[i]);
        tlsneg_cross c;
        ch_(t, 300 + i, &ks, (uint32_t)(300 + i), i * S, &offers[i], &c);
        probe += c.probe;
        tlsneg_answer a = answer(offers[i].offers_tls13 ? TLSNEG_V_TLS13 : TLSNEG_V_TLS12);
        sh_(t, 300 + i, (uint32_t)(400 + i), i * S, &a, &c);
    }
    ok(probe == 0, "six stacks to six server names on one address: no probe");
    tlsneg_tracker_free(t);
}

/* transports_apart: a QUIC connection to UDP 443 and a TLS connection to
 * TCP 443 of one address reach two server stacks (QUIC carries the TLS 1.3
 * handshake in its own CRYPTO frames, RFC 9001 4), and a DTLS server on UDP
 * 443 is not the TLS server on TCP 443: what one of them did is no evidence
 * about the other, and a browser that goes from QUIC to TCP falls back from
 * no TLS version. Attempts over different transports are different peers. */
static void transports_apart(void)
{
    tlsneg_tracker *t = tracker(1000, true);
    tlsneg_cross c;
    tlsneg_answer a13 = answer(TLSNEG_V_TLS13), a12 = answer(TLSNEG_V_TLS12);

    /* QUIC puts TLS 1.3 in force (frames 1, 2); over TCP the server resets
     * the client's TLS 1.3 hello (frame 10) and completes its TLS 1.2 retry
     * with the SCSV (frames 20, 22) at TLS 1.2. */
    tlsneg_peer_key k = peer_n(70, "www.example");
    tlsneg_offer q = quic13(SUITES_OPENSSL), o13 = openssl13();
    tlsneg_offer o12 = legacy(TLSNEG_V_TLS12, SUITES_OPENSSL);
    o12.fallback_scsv = true;
    ch_(t, 1, &k, 1, 0, &q, &c);
    sh_(t, 1, 2, S / 100, &a13, &c);
    ch_(t, 2, &k, 10, S, &o13, &c);
    ok(c.vs.count == 0, "the TCP hello after the QUIC connection: nothing to compare");
    tlsneg_tracker_close(t, 2, S + S / 100, true);
    ch_(t, 3, &k, 20, 2 * S, &o12, &c);
    ok(c.fallback && c.prev_frame == 10 && c.chain_len == 2 && c.chain_frames[0] == 10,
       "the TCP retry falls back from the TCP attempt (frame %u), in a chain of %u", c.prev_frame,
       c.chain_len);
    sh_(t, 3, 22, 2 * S + S / 100, &a12, &c);
    ok(c.intolerant && strcmp(c.intolerant_of, "TLS 1.3 in supported_versions") == 0,
       "the TCP server does not tolerate TLS 1.3: the QUIC stack's TLS 1.3 (frame 2) does not "
       "say otherwise (%s)",
       c.intolerant_of);
    ok(!find(&c.vs, TLSNEG_VERDICT_IGNORED_SCSV) && !c.inconsistent,
       "nor does it make the TCP server ignore the SCSV, or negotiate lower than before");

    /* The QUIC server ends the client's attempt (frame 30: a CONNECTION_CLOSE
     * with handshake_failure); a TCP hello to the same address and port,
     * its offer the same but for its transport, retries nothing. */
    tlsneg_peer_key k2 = peer_n(71, "www.example");
    tlsneg_offer tcp13 = q;
    tcp13.datagram = false;
    ch_(t, 4, &k2, 28, 10 * S, &q, &c);
    al_(t, 4, 30, 10 * S + S / 100, 40, true, &c);
    ch_(t, 5, &k2, 40, 11 * S, &tcp13, &c);
    ok(c.vs.count == 0 && !c.same_retry && !c.fallback,
       "a TCP hello after a failed QUIC attempt is no retry of it: %zu verdicts", c.vs.count);
    sh_(t, 5, 42, 11 * S + S / 100, &a13, &c);
    ok(c.vs.count == 0, "its success says nothing of the QUIC server");

    /* TLS 1.3 over TCP (frames 50, 52); on UDP 443 a DTLS server fails the
     * client's DTLS 1.3 hello (frames 60, 62) and completes its DTLS 1.2
     * retry (frames 70, 72). */
    tlsneg_peer_key k3 = peer_n(72, "vpn.example");
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
    tlsneg_answer ad12 = answer(TLSNEG_V_DTLS12);
    ch_(t, 6, &k3, 50, 20 * S, &o13, &c);
    sh_(t, 6, 52, 20 * S + S / 100, &a13, &c);
    ch_(t, 7, &k3, 60, 21 * S, &d13, &c);
    al_(t, 7, 62, 21 * S + S / 100, 40, true, &c);
    ch_(t, 8, &k3, 70, 22 * S, &d12, &c);
    ok(c.fallback && c.prev_frame == 60, "the DTLS 1.2 hello falls back from the DTLS 1.3 one");
    sh_(t, 8, 72, 22 * S + S / 100, &ad12, &c);
    ok(c.intolerant && strcmp(c.intolerant_of, "DTLS 1.3 in supported_versions") == 0,
       "the DTLS server does not tolerate DTLS 1.3: the TLS server's TLS 1.3 (frame 52) does "
       "not say otherwise (%s)",
       c.intolerant_of);
    tlsneg_tracker_free(t);
}

/* Run last: every verdict the scenarios above read had its row's shape. */
static void verdicts_well_formed(void)
{
    ok(verdicts_seen >= 20 && verdicts_malformed == 0,
       "%zu verdicts made in the scenarios, each of its row's shape (%zu not)", verdicts_seen,
       verdicts_malformed);
}

int main(void)
{
    evidence_for_intolerance();
    draft_era_fallback();
    same_version_retries();
    probe_sslscan();
    probe_scsv_refused_early();
    probe_nmap();
    no_probe();
    transports_apart();
    verdicts_well_formed();
    return tap_done();
}
