/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_session.c: the session layer on the event sequences of real captures
 * (session_events.h, lib/replay/events.h format), replayed as a front end would
 * feed them: per connection, in frame order. Expected values are read off
 * the captures (tshark -V, and each capture's entry in pcaps/README-*.md). */
#include "analysis/session.h"
#include "core/util.h"
#include "core/versions.h"
#include "replay/events.h"

#include "session_events.h"
#include "tap.h"

/* One event's output, by frame. */
typedef struct {
    tlsneg_ev ev;
    tlsneg_replay_out out;
} step;

typedef struct {
    step *steps;
    size_t n;
} run;

static uint8_t msg_buf[1 << 16];

static run replay_with(const char *const *lines, tlsneg_replay *r)
{
    run rn = {NULL, 0};
    size_t cap = 0;
    while (lines[cap]) {
        cap++;
    }
    rn.steps = calloc(cap ? cap : 1, sizeof *rn.steps);
    for (size_t i = 0; i < cap; i++) {
        step *s = &rn.steps[rn.n];
        int got = tlsneg_ev_parse(lines[i], &s->ev, msg_buf, sizeof msg_buf);
        if (got <= 0) {
            ok(got == 0, "event line %zu reads", i);
            continue;
        }
        tlsneg_replay_event(r, &s->ev, &s->out);
        s->ev.bytes = NULL; /* the buffer is reused */
        rn.n++;
    }
    return rn;
}

static tlsneg_tracker_config default_cfg(void)
{
    tlsneg_tracker_config cfg = {500000, 30 * 1000000u, true, false, false};
    return cfg;
}

static run replay(const char *const *lines)
{
    tlsneg_tracker_config cfg = default_cfg();
    tlsneg_replay *r = tlsneg_replay_new(&cfg, 64);
    run rn = replay_with(lines, r);
    tlsneg_replay_free(r);
    return rn;
}

/* result returns the hello or alert of frame (the first if several). */
static const tlsneg_result *result(const run *rn, uint32_t frame)
{
    for (size_t i = 0; i < rn->n; i++) {
        if (rn->steps[i].ev.frame == frame && rn->steps[i].out.has_result) {
            return &rn->steps[i].out.result;
        }
    }
    return NULL;
}

static const tlsneg_close_result *closed(const run *rn, uint32_t frame)
{
    for (size_t i = 0; i < rn->n; i++) {
        if (rn->steps[i].ev.frame == frame && rn->steps[i].out.has_close) {
            return &rn->steps[i].out.close;
        }
    }
    return NULL;
}

static uint64_t conn_of(const run *rn, uint32_t frame)
{
    for (size_t i = 0; i < rn->n; i++) {
        if (rn->steps[i].ev.frame == frame) {
            return rn->steps[i].out.conn;
        }
    }
    return UINT64_MAX;
}

static bool has_finding(const tlsneg_result *x, tlsneg_rule_id rule)
{
    for (size_t i = 0; x && i < x->findings.count; i++) {
        if (x->findings.item[i].rule == rule) {
            return true;
        }
    }
    return false;
}

static const tlsneg_verdict *verdict(const tlsneg_result *x, tlsneg_verdict_kind k)
{
    return x ? tlsneg_verdict_find(&x->verdicts, k) : NULL;
}

/* note returns the back note of kind k for frame earlier that the result
 * of frame carries. */
static const tlsneg_back_note *note(const tlsneg_result *x, uint32_t earlier, tlsneg_note_kind k)
{
    for (size_t i = 0; x && i < x->num_back_notes; i++) {
        if (x->back_notes[i].frame == earlier && x->back_notes[i].kind == k) {
            return &x->back_notes[i];
        }
    }
    return NULL;
}

static const char *text(const tlsneg_verdict *v, tlsneg_text_role r)
{
    const char *t = v ? tlsneg_verdict_text(v, r) : NULL;
    return t ? t : "";
}

static void done(run *rn)
{
    free(rn->steps);
}

static void dtls_retransmission_and_hrr(void)
{
    /* shared/captures/zeek/dtls13-cid.pcap: frames 1-3 one ClientHello sent
     * three times unanswered; 4 ClientHello, 5 HelloRetryRequest, 6 second
     * ClientHello (message_seq 1, cookie), 7 ServerHello; 19-22 and 23-25
     * more unanswered repeats. */
    run rn = replay(ev_dtls13_cid);
    const tlsneg_result *f1 = result(&rn, 1), *f2 = result(&rn, 2), *f3 = result(&rn, 3);
    ok(f1 && !f1->retransmission_of && f1->from_client && f1->client_hello_frame == 1,
       "DTLS: frame 1 is a ClientHello judged in full");
    ok(f2 && f2->retransmission_of == 1 && f3 && f3->retransmission_of == 1,
       "DTLS: frames 2 and 3 repeat frame 1 byte for byte: retransmissions of frame 1");
    ok(f2 && f2->findings.count == 0 && f2->verdicts.count == 0 && f2->client_hello_frame == 0 &&
           f2->facts.msg_type == TLSNEG_HS_CLIENT_HELLO,
       "DTLS: a retransmission keeps its facts and is judged once (no findings, no verdicts)");
    /* The HelloRetryRequest of frame 5 has supported_versions and a cookie
     * only (tshark: extensions 43, 44); frame 6 adds the cookie. */
    ok(result(&rn, 6) && result(&rn, 6)->hrr_frame == 5 && !result(&rn, 6)->hrr_unexpected &&
           strcmp(result(&rn, 6)->hrr_changes, "cookie sent back") == 0,
       "DTLS: frame 6 answers the HelloRetryRequest of frame 5 with its cookie");
    ok(conn_of(&rn, 2) == conn_of(&rn, 1) && conn_of(&rn, 4) != conn_of(&rn, 1),
       "DTLS: one flow per client port");
    int judged = 0;
    for (uint32_t fr = 19; fr <= 25; fr++) {
        const tlsneg_result *x = result(&rn, fr);
        judged += x && !x->retransmission_of;
    }
    ok(judged == 2 && result(&rn, 22)->retransmission_of == 19 &&
           result(&rn, 25)->retransmission_of == 23,
       "DTLS: frames 19-22 and 23-25 are two ClientHellos, each recognised once (%d)", judged);

    const tlsneg_result *hrr = result(&rn, 5), *ch2 = result(&rn, 6), *sh = result(&rn, 7);
    ok(hrr && hrr->facts.is_hrr && !hrr->from_client && hrr->client_hello_frame == 4,
       "DTLS: frame 5 is a HelloRetryRequest from the server answering frame 4");
    ok(ch2 && !ch2->retransmission_of && ch2->from_client && ch2->client_hello_frame == 6 &&
           ch2->verdicts.count == 0,
       "DTLS: the second ClientHello after the HelloRetryRequest is new, no retry verdict");
    ok(sh && sh->facts.has_negotiated && sh->facts.negotiated_version == TLSNEG_V_DTLS13 &&
           sh->client_hello_frame == 6 && !sh->from_client && sh->findings.count == 0,
       "DTLS: the ServerHello puts DTLS 1.3 in force, answering the ClientHello of frame 6");
    ok(result(&rn, 28) && result(&rn, 28)->client_hello_frame == 28 &&
           result(&rn, 29)->client_hello_frame == 28,
       "DTLS: the second HelloRetryRequest exchange links the same way (26-29)");
    bool verdicts = false;
    for (size_t i = 0; i < rn.n; i++) {
        verdicts |= rn.steps[i].out.has_result && rn.steps[i].out.result.verdicts.count > 0;
    }
    ok(!verdicts, "DTLS: unanswered retries at the same version are no fallback");
    done(&rn);
}

static void tls_hrr(void)
{
    /* pcaps/tls13-hrr.pcap: 4 ClientHello, 6 HelloRetryRequest, 8 second
     * ClientHello, 9 ServerHello. */
    run rn = replay(ev_tls13_hrr);
    const tlsneg_result *ch2 = result(&rn, 8), *sh = result(&rn, 9);
    ok(result(&rn, 6) && result(&rn, 6)->facts.is_hrr, "TLS: frame 6 is a HelloRetryRequest");
    ok(ch2 && ch2->findings.count == 0 && ch2->verdicts.count == 0 &&
           ch2->client_hello_frame == 8 && conn_of(&rn, 8) == conn_of(&rn, 4),
       "TLS: the ClientHello after the HelloRetryRequest: same connection, no finding, no verdict");
    ok(sh && sh->client_hello_frame == 8 && sh->findings.count == 0 && sh->has_sni &&
           strcmp(sh->sni, "localhost") == 0,
       "TLS: the ServerHello answers frame 8 (SNI localhost from the ClientHello)");
    ok(closed(&rn, 12) && closed(&rn, 12)->ended_attempt_frame == 0,
       "TLS: a FIN after the ServerHello ends no attempt");
    /* Issue 26, item 9: read off tshark's fields (the manifest): frame 4
     * shares x25519 (29), the HelloRetryRequest asks for secp256r1 (23),
     * frame 8 shares 23 and changes nothing else. */
    const tlsneg_back_note *n = ch2 && ch2->num_back_notes ? &ch2->back_notes[0] : NULL;
    ok(ch2 && ch2->hrr_frame == 6 && !ch2->hrr_unexpected &&
           strcmp(ch2->hrr_changes, "key share x25519 -> secp256r1, the group asked for") == 0,
       "TLS: frame 8 answers the HelloRetryRequest of frame 6: %s", ch2 ? ch2->hrr_changes : "");
    ok(n && n->frame == 6 && n->kind == TLSNEG_NOTE_HRR_RETRY &&
           n->link.role == TLSNEG_LINK_HRR_RETRY && n->link.frame == 8,
       "TLS: the HelloRetryRequest of frame 6 is told it was answered in frame 8");
    ok(result(&rn, 4) && result(&rn, 4)->hrr_frame == 0 && sh && sh->hrr_frame == 0,
       "TLS: the first ClientHello and the ServerHello answer no HelloRetryRequest");
    done(&rn);
}

/* Issue 26, item 10: pcaps/nofallback-preconnect.pcap: the connection of
 * frame 10 was opened (SYN 4) before the attempt of frame 7 failed (RST 9). */
static void preconnect(void)
{
    run rn = replay(ev_nofallback_preconnect);
    const tlsneg_result *ch1 = result(&rn, 7), *ch2 = result(&rn, 10);
    ok(closed(&rn, 9) && closed(&rn, 9)->ended_attempt_frame == 7,
       "preconnect: the reset of frame 9 ends the attempt of frame 7");
    ok(ch1 && ch2 && ch2->verdicts.count == 0 && ch2->findings.count == 0 && !ch2->title[0],
       "preconnect: frame 10, on a connection opened before that reset, retries nothing");
    done(&rn);
}

static void alert_ends_attempt(void)
{
    /* pcaps/intolerant-alert.pcap: 4 ClientHello (TLS 1.3), 6 alert 40 from
     * the server, 8/9 FIN; 14 ClientHello (TLS 1.2), 16 ServerHello. */
    run rn = replay(ev_intolerant_alert);
    const tlsneg_result *a = result(&rn, 6);
    ok(a && a->is_alert && a->alert_description == 40 && a->alert_from_server && !a->from_client &&
           a->client_hello_frame == 4,
       "the alert of frame 6 is the server's answer to the ClientHello of frame 4");
    ok(a && a->alert_ends && !a->alert_after_server_hello,
       "it ends the handshake before any ServerHello");
    ok(closed(&rn, 8) && closed(&rn, 8)->ended_attempt_frame == 0,
       "the FIN after the alert ends nothing more: the alert ended the attempt");
    const tlsneg_verdict *fb = verdict(result(&rn, 14), TLSNEG_VERDICT_FALLBACK);
    ok(fb && tlsneg_verdict_link(fb, TLSNEG_LINK_PREVIOUS_ATTEMPT) == 4 &&
           strcmp(text(fb, TLSNEG_TEXT_CAUSE), "alert handshake_failure (40)") == 0 &&
           fb->rule == TLSNEG_RULE_FALLBACK_RETRY,
       "the TLS 1.2 retry of frame 14 is a fallback of frame 4, failed by alert 40, no SCSV");
    ok(has_finding(result(&rn, 14), TLSNEG_RULE_FALLBACK_RETRY),
       "the fallback verdict is also a finding of frame 14");
    done(&rn);
}

/* pcaps/sni-mismatch-warning.pcap: 4 ClientHello (TLS 1.2, SNI
 * other.example), 6 the server's WARNING unrecognized_name (15 03 03 00 02
 * 01 70), 8 ServerHello TLS 1.2, 13 FIN from the server, 15 from the
 * client. The warning does not end the handshake (RFC 5246 7.2); the
 * variants below change one event of it by hand. */
static void warning_alert(void)
{
    run rn = replay(ev_sni_mismatch_warning);
    const tlsneg_result *a = result(&rn, 6);
    ok(a && a->is_alert && a->alert_level == TLSNEG_ALERT_WARNING && a->alert_description == 112 &&
           a->alert_from_server && a->client_hello_frame == 4 && !a->alert_ends,
       "warning: the server's warning unrecognized_name of frame 6 does not end the handshake");
    ok(a && a->failed_attempt == 0 && a->failure_cause == TLSNEG_CAUSE_NONE &&
           a->verdicts.count == 0 && a->num_back_notes == 0 && !a->held,
       "warning: it makes no attempt fail and leaves no note");
    const tlsneg_result *sh = result(&rn, 8);
    ok(sh && sh->facts.negotiated_version == 0x0303 && sh->verdicts.count == 0,
       "warning: the ServerHello of frame 8 answers the attempt, TLS 1.2");
    ok(closed(&rn, 13) && closed(&rn, 13)->ended_attempt_frame == 0,
       "warning: the server's FIN after the ServerHello ends nothing");
    ok(a && !a->alert_after_server_hello,
       "warning: it comes before the connection's ServerHello (frame 8)");
    done(&rn);

    /* A fatal alert from the server after its ServerHello (frame 8), by
     * hand (as scan-sslscan-tls12.pcap's unexpected_message in frame 82):
     * it ends the handshake after the ServerHello, and no attempt fails by
     * it (the ServerHello answered the attempt); a new ClientHello on the
     * same connection starts over. */
    static const char head[] = "hello 4 1796542764209071 ";
    const char *hello = ev_sni_mismatch_warning[0];
    static char again[2048]; /* the same ClientHello as frame 11 */
    ok(strncmp(hello, head, sizeof head - 1) == 0 &&
           (size_t)snprintf(again, sizeof again, "hello 11 1796542764215500 %s",
                            hello + sizeof head - 1) < sizeof again,
       "the ClientHello's event line, once more as frame 11");
    const char *const after[] = {
        hello,
        ev_sni_mismatch_warning[2],
        "alert 9 1796542764214900 tcp 127.0.0.3 44415 127.0.0.2 51384 from=server level=2 10",
        again,
        "alert 12 1796542764215600 tcp 127.0.0.3 44415 127.0.0.2 51384 from=server level=2 40",
        NULL};
    rn = replay(after);
    a = result(&rn, 9);
    ok(a && a->alert_ends && a->alert_after_server_hello && a->failed_attempt == 0 &&
           a->failure_cause == TLSNEG_CAUSE_NONE,
       "fatal after the ServerHello: it ends the handshake after the ServerHello, failing no "
       "attempt");
    a = result(&rn, 12);
    ok(a && a->alert_ends && !a->alert_after_server_hello && a->client_hello_frame == 11,
       "fatal after a new ClientHello on the same connection: before any ServerHello again");
    done(&rn);

    /* Without the ServerHello: the server's FIN is the failure. */
    const char *const no_answer[] = {ev_sni_mismatch_warning[0], ev_sni_mismatch_warning[1],
                                     ev_sni_mismatch_warning[3], ev_sni_mismatch_warning[4], NULL};
    rn = replay(no_answer);
    ok(result(&rn, 6) && result(&rn, 6)->failed_attempt == 0 && closed(&rn, 13) &&
           closed(&rn, 13)->ended_attempt_frame == 4,
       "warning, no ServerHello: the FIN of frame 13, not the warning, ends the attempt of "
       "frame 4");
    done(&rn);

    /* As -servername_fatal sends it, and as an event file without levels
     * (written before December 2026) says it: fatal. */
    static const char *const levels[] = {"level=2 112", "112"};
    for (size_t i = 0; i < 2; i++) {
        char alert[256];
        snprintf(alert, sizeof alert,
                 "alert 6 1796542764214360 tcp 127.0.0.3 44415 127.0.0.2 51384 from=server %s",
                 levels[i]);
        const char *const fatal[] = {ev_sni_mismatch_warning[0], alert, ev_sni_mismatch_warning[3],
                                     NULL};
        rn = replay(fatal);
        a = result(&rn, 6);
        ok(a && a->alert_ends && a->failed_attempt == 4 && a->failure_cause == TLSNEG_CAUSE_ALERT &&
               closed(&rn, 13) && closed(&rn, 13)->ended_attempt_frame == 0,
           "%s: unrecognized_name ends the attempt of frame 4; the FIN after it ends nothing more",
           i ? "no level" : "fatal");
        done(&rn);
    }

    /* pcaps/tls13-hrr.pcap's ClientHello (4) and HelloRetryRequest (6), then
     * a client's plaintext warning by hand: TLS 1.3 is chosen, and in TLS
     * 1.3 a warning is an error alert (RFC 8446 6). */
    const char *const hrr[] = {
        ev_tls13_hrr[0], ev_tls13_hrr[1],
        "alert 7 1796387568587300 tcp 127.0.0.2 40748 127.0.0.3 44304 from=client level=1 47",
        NULL};
    rn = replay(hrr);
    a = result(&rn, 7);
    ok(a && a->alert_level == TLSNEG_ALERT_WARNING && !a->alert_from_server && a->alert_ends,
       "warning after a HelloRetryRequest that chose TLS 1.3: an error, it ends the handshake");
    done(&rn);
}

static void reset_and_close_end_attempts(void)
{
    /* pcaps/intolerant-rst.pcap: 4 ClientHello, 6 RST from the server; 10
     * ClientHello, 12 ServerHello, 16/19 FIN. */
    run rn = replay(ev_intolerant_rst);
    const tlsneg_close_result *c = closed(&rn, 6);
    ok(c && c->ended_attempt_frame == 4 && c->cause == TLSNEG_CAUSE_RESET && !c->from_client &&
           c->has_sni && strcmp(c->sni, "localhost") == 0,
       "RST: frame 6 ends the attempt of frame 4, sent by the server, SNI localhost");
    ok(c && c->note.kind == TLSNEG_NOTE_FAILED && c->note.frame == 4 &&
           c->note.link.role == TLSNEG_LINK_FAILED_IN && c->note.link.frame == 6 &&
           strcmp(c->note.text.text, "failed: TCP reset, frame 6") == 0,
       "RST: frame 4 learns how and where it failed: %s", c ? c->note.text.text : "(none)");
    const tlsneg_verdict *fb = verdict(result(&rn, 10), TLSNEG_VERDICT_FALLBACK);
    ok(fb && strcmp(text(fb, TLSNEG_TEXT_CAUSE), "TCP reset before any ServerHello") == 0,
       "RST: the retry names the reset as the failure");
    ok(closed(&rn, 16) && closed(&rn, 16)->ended_attempt_frame == 0 && closed(&rn, 19) &&
           closed(&rn, 19)->ended_attempt_frame == 0,
       "RST: the FINs after the ServerHello end nothing");
    done(&rn);

    /* pcaps/intolerant-close.pcap: 4 ClientHello, 6 FIN from the server, 7
     * alert, 9 FIN; 14 ClientHello, 16 ServerHello. */
    rn = replay(ev_intolerant_close);
    c = closed(&rn, 6);
    ok(c && c->ended_attempt_frame == 4 && c->cause == TLSNEG_CAUSE_CLOSE && !c->from_client,
       "FIN: frame 6 ends the attempt of frame 4 before any ServerHello");
    ok(c && strcmp(c->note.text.text, "failed: connection closed (FIN), frame 6") == 0, "FIN: %s",
       c ? c->note.text.text : "(none)");
    ok(result(&rn, 7) && result(&rn, 7)->verdicts.count == 0,
       "FIN: the alert after the close adds no verdict");
    fb = verdict(result(&rn, 14), TLSNEG_VERDICT_FALLBACK);
    ok(fb && strcmp(text(fb, TLSNEG_TEXT_CAUSE), "connection closed before any ServerHello") == 0 &&
           tlsneg_verdict_link(fb, TLSNEG_LINK_PREVIOUS_ATTEMPT) == 4,
       "FIN: the retry of frame 14 follows frame 4, failed by the close");
    done(&rn);
}

/* early_ending: the result of the ClientHello of frame hello carries the
 * server's ending of frame at (cause, alert) as its attempt's failure, and a
 * failure note for itself saying text. */
static bool early_ending(const run *rn, uint32_t hello, uint32_t at, uint8_t cause, uint8_t alert,
                         const char *text)
{
    const tlsneg_result *x = result(rn, hello);
    const tlsneg_back_note *n = note(x, hello, TLSNEG_NOTE_FAILED);
    return x && x->early_frame == at && x->early_cause == cause && x->early_alert == alert && n &&
           n->link.role == TLSNEG_LINK_FAILED_IN && n->link.frame == at &&
           strcmp(n->text.text, text) == 0;
}

static void endings_before_the_hello_is_complete(void)
{
    /* pcaps/pq-split-rst-classical-retry.pcap: the ClientHello's segments
     * are frames 4 and 7 (tshark's tcp.segment), the front resets in frame 6
     * (between them), the server's kernel resets again in frame 8 on the
     * second segment; the retry (12) is answered (14). */
    run rn = replay(ev_pq_split_rst_classical_retry);
    ok(closed(&rn, 6) && closed(&rn, 6)->ended_attempt_frame == 0,
       "split RST: the reset of frame 6 ends no attempt yet (no ClientHello complete)");
    ok(early_ending(&rn, 7, 6, TLSNEG_CAUSE_RESET, 0, "failed: TCP reset, frame 6"),
       "split RST: the ClientHello of frame 7 failed by the first reset, frame 6");
    ok(closed(&rn, 8) && closed(&rn, 8)->ended_attempt_frame == 0,
       "split RST: the kernel's second reset (frame 8) ends nothing more");
    ok(result(&rn, 12) && result(&rn, 12)->early_frame == 0 &&
           note(result(&rn, 12), 12, TLSNEG_NOTE_FAILED) == NULL,
       "split RST: the retry in a new connection carries no early ending");
    done(&rn);

    /* pcaps/pq-split-alert-classical-retry.pcap: segments 4 and 9; the
     * front's fatal decode_error (50) in frame 6, its FIN in 7 (again in
     * 8), the client's FIN in 11. */
    rn = replay(ev_pq_split_alert_classical_retry);
    const tlsneg_result *a = result(&rn, 6);
    ok(a && a->is_alert && a->alert_description == 50 && a->alert_from_server && a->held &&
           a->client_hello_frame == 0 && a->failed_attempt == 0,
       "split alert: the server's alert of frame 6 is held for the ClientHello in flight");
    ok(early_ending(&rn, 9, 6, TLSNEG_CAUSE_ALERT, 50, "failed: alert decode_error (50), frame 6"),
       "split alert: the ClientHello of frame 9 failed by the alert of frame 6");
    ok(closed(&rn, 7) && closed(&rn, 7)->ended_attempt_frame == 0 && closed(&rn, 11) &&
           closed(&rn, 11)->ended_attempt_frame == 0,
       "split alert: neither the server's FIN (7) nor the client's (11) is the failure");
    done(&rn);

    /* pcaps/pq-split-close-classical-retry.pcap: segments 4 and 7; the
     * front's FIN in frame 6; OpenSSL's own decode_error alert (50) from the
     * client in frame 9. */
    rn = replay(ev_pq_split_close_classical_retry);
    ok(closed(&rn, 6) && closed(&rn, 6)->ended_attempt_frame == 0,
       "split close: the server's FIN of frame 6 ends no attempt yet");
    ok(early_ending(&rn, 7, 6, TLSNEG_CAUSE_CLOSE, 0, "failed: connection closed (FIN), frame 6"),
       "split close: the ClientHello of frame 7 failed by the server's FIN, frame 6");
    a = result(&rn, 9);
    ok(a && a->is_alert && !a->alert_from_server && !a->held && a->client_hello_frame == 7 &&
           a->failed_attempt == 0,
       "split close: the client's alert of frame 9 answers frame 7 but is not its failure");
    done(&rn);
}

static void fallback_without_tls13_only_offers(void)
{
    /* pcaps/fallback-openssl35.pcap: OpenSSL 3.5's 1.3 offer in frame 4
     * (X25519MLKEM768, FFDHE, ML-DSA and brainpool TLS 1.3 schemes,
     * compress_certificate), reset in frame 6; its -tls1_2 retry in frame 10
     * drops them all; ServerHello TLS 1.2 in frame 12. Dropping what only a
     * TLS 1.3 offer carries is still a fallback that changed nothing else;
     * but the retry also dropped the X25519MLKEM768 share and 1,300 bytes,
     * so its success does not show which one the server failed on (issue
     * 28): no version intolerance. */
    run rn = replay(ev_fallback_openssl35);
    const tlsneg_verdict *fb = verdict(result(&rn, 10), TLSNEG_VERDICT_FALLBACK);
    ok(fb && tlsneg_verdict_link(fb, TLSNEG_LINK_PREVIOUS_ATTEMPT) == 4,
       "OpenSSL 3.5: the -tls1_2 retry of frame 10 is a fallback of frame 4");
    const tlsneg_verdict *un = verdict(result(&rn, 12), TLSNEG_VERDICT_UNRESOLVED);
    const char *what = un ? text(un, TLSNEG_TEXT_CANDIDATES) : NULL;
    ok(un && !verdict(result(&rn, 12), TLSNEG_VERDICT_INTOLERANT) &&
           !verdict(result(&rn, 12), TLSNEG_VERDICT_OTHER_CAUSE) &&
           !has_finding(result(&rn, 12), TLSNEG_RULE_VERSION_INTOLERANCE) && what &&
           strncmp(what, "TLS 1.3 in supported_versions, the X25519MLKEM768 key share and its size",
                   72) == 0,
       "OpenSSL 3.5: its ServerHello leaves unresolved what the server failed on: %s",
       what ? what : "(none)");
    done(&rn);
}

static void fallback_linked_and_back_noted(void)
{
    /* pcaps/intolerant-rst.pcap again: the links between frames 4, 10, 12. */
    run rn = replay(ev_intolerant_rst);
    const tlsneg_result *retry = result(&rn, 10), *sh = result(&rn, 12);
    const tlsneg_verdict *fb = verdict(retry, TLSNEG_VERDICT_FALLBACK);
    uint16_t from = 0, to = 0;
    ok(fb && tlsneg_verdict_version(fb, TLSNEG_VERSION_OFFERED_BEFORE, &from) &&
           tlsneg_verdict_version(fb, TLSNEG_VERSION_OFFERED_NOW, &to) && from == TLSNEG_V_TLS13 &&
           to == TLSNEG_V_TLS12 && fb->chain_len == 2 && fb->chain_frames[0] == 4 &&
           fb->chain_frames[1] == 10,
       "the retry offers up to TLS 1.2 after TLS 1.3; chain 4 -> 10");
    const tlsneg_back_note *n = note(retry, 4, TLSNEG_NOTE_RETRIED_IN);
    ok(n && n->link.role == TLSNEG_LINK_RETRY && n->link.frame == 10 && !n->has_finding,
       "back note: frame 4 learns it was retried in frame 10");
    const tlsneg_verdict *in = verdict(sh, TLSNEG_VERDICT_INTOLERANT);
    ok(in && strcmp(text(in, TLSNEG_TEXT_INTOLERANT_OF), "TLS 1.3 in supported_versions") == 0 &&
           has_finding(sh, TLSNEG_RULE_VERSION_INTOLERANCE),
       "the ServerHello of frame 12 completes the retry: intolerant of TLS 1.3");
    n = note(sh, 4, TLSNEG_NOTE_INTOLERANT);
    ok(n && n->link.role == TLSNEG_LINK_COMPLETED_BY && n->link.frame == 12 && n->has_text &&
           strcmp(n->text.text, "TLS 1.3 in supported_versions") == 0 && n->has_finding &&
           n->finding.rule == TLSNEG_RULE_VERSION_INTOLERANCE &&
           strstr(n->finding.detail, "frame 12") != NULL,
       "back note: frame 4 learns the server completed frame 12 and does not tolerate TLS 1.3");
    n = note(sh, 10, TLSNEG_NOTE_TITLE);
    ok(n && n->link.frame == 12 && n->has_text && n->text.role == TLSNEG_TEXT_TITLE &&
           strcmp(n->text.text, "fallback retry 1/1 (TLS 1.3 -> TLS 1.2, no SCSV)") == 0,
       "back note: the retry in frame 10 learns its chain ended with it: %s",
       n ? n->text.text : "(none)");
    ok(strcmp(retry->title, "fallback retry 1 (TLS 1.3 -> TLS 1.2, no SCSV)") == 0,
       "the retry's own title, before the chain's end is known: %s", retry->title);
    ok(sh->num_back_notes == 2 && retry->num_back_notes == 1,
       "back notes: frame 4 learns of the retry and the intolerance, frame 10 its title");
    done(&rn);

    /* pcaps/fallback-chain.pcap: alerts on 1.3 (4), 1.2 (14), 1.1 (24); 1.0
     * (34) completes (36). */
    rn = replay(ev_fallback_chain);
    in = verdict(result(&rn, 36), TLSNEG_VERDICT_INTOLERANT);
    ok(in && in->chain_len == 4 && in->chain_frames[0] == 4 && in->chain_frames[3] == 34,
       "chain: the TLS 1.0 ServerHello closes the chain 4 -> 14 -> 24 -> 34");
    ok(note(result(&rn, 36), 4, TLSNEG_NOTE_INTOLERANT) &&
           note(result(&rn, 36), 14, TLSNEG_NOTE_INTOLERANT) &&
           note(result(&rn, 36), 24, TLSNEG_NOTE_INTOLERANT) &&
           !note(result(&rn, 36), 34, TLSNEG_NOTE_INTOLERANT),
       "chain: every failed attempt is told, the completing one is not");
    ok(note(result(&rn, 34), 24, TLSNEG_NOTE_RETRIED_IN) &&
           !note(result(&rn, 34), 14, TLSNEG_NOTE_RETRIED_IN),
       "chain: only the attempt just before learns its retry");
    fb = verdict(result(&rn, 34), TLSNEG_VERDICT_FALLBACK);
    ok(fb && strcmp(text(fb, TLSNEG_TEXT_CHAIN),
                    "TLS 1.3 (frame 4) -> TLS 1.2 (frame 14) -> TLS 1.1 (frame 24) -> TLS 1.0 "
                    "(frame 34)") == 0,
       "chain text: %s", text(fb, TLSNEG_TEXT_CHAIN));
    ok(strcmp(result(&rn, 24)->title, "fallback retry 2 (TLS 1.2 -> TLS 1.1, no SCSV)") == 0,
       "frame 24's own title: %s", result(&rn, 24)->title);
    n = note(result(&rn, 36), 24, TLSNEG_NOTE_TITLE);
    ok(n && strcmp(n->text.text, "fallback retry 2/3 (TLS 1.2 -> TLS 1.1, no SCSV)") == 0 &&
           note(result(&rn, 36), 14, TLSNEG_NOTE_TITLE) &&
           note(result(&rn, 36), 34, TLSNEG_NOTE_TITLE) &&
           !note(result(&rn, 36), 4, TLSNEG_NOTE_TITLE),
       "chain: once completed, every retry learns its number among three: %s",
       n ? n->text.text : "(none)");
    n = note(result(&rn, 16), 14, TLSNEG_NOTE_FAILED);
    ok(n && n->link.role == TLSNEG_LINK_FAILED_IN && n->link.frame == 16 &&
           strcmp(n->text.text, "failed: alert handshake_failure (40), frame 16") == 0 &&
           result(&rn, 16)->failed_attempt == 14 &&
           result(&rn, 16)->failure_cause == TLSNEG_CAUSE_ALERT,
       "the alert of frame 16 tells frame 14 how and where its attempt failed: %s",
       n ? n->text.text : "(none)");
    ok(!note(result(&rn, 36), 34, TLSNEG_NOTE_FAILED) && !result(&rn, 36)->failed_attempt,
       "the completed attempt is told no failure");
    done(&rn);

    /* pcaps/fallback-rejected-retry.pcap: RST, then an SCSV retry (10) that
     * the server refuses with alert 86 (12). */
    rn = replay(ev_fallback_rejected_retry);
    fb = verdict(result(&rn, 10), TLSNEG_VERDICT_FALLBACK);
    ok(fb && fb->rule == TLSNEG_RULE_FALLBACK_RETRY_SCSV, "the retry carries TLS_FALLBACK_SCSV");
    const tlsneg_verdict *rj = verdict(result(&rn, 12), TLSNEG_VERDICT_FALLBACK_REJECTED);
    ok(rj && tlsneg_verdict_link(rj, TLSNEG_LINK_REFUSED_RETRY) == 10 &&
           has_finding(result(&rn, 12), TLSNEG_RULE_FALLBACK_REJECTED) &&
           result(&rn, 12)->num_back_notes == 1 && note(result(&rn, 12), 10, TLSNEG_NOTE_FAILED),
       "alert 86 refuses the retry of frame 10: the protection worked; frame 10 learns it failed");
    ok(strcmp(result(&rn, 10)->title, "fallback retry 1 (TLS 1.3 -> TLS 1.2, SCSV)") == 0,
       "the SCSV retry's title: %s", result(&rn, 10)->title);
    done(&rn);
}

/* A HelloRetryRequest that selected TLS 1.3 shows the server tolerates it:
 * a later failure of that attempt is no version intolerance. The events are
 * pcaps/intolerant-alert.pcap's (ClientHello 4, TLS 1.2 retry 14, its
 * ServerHello 16) with made-up ones between: frame 5, the HelloRetryRequest
 * of pcaps/tls13-hrr.pcap (frame 6: supported_versions 0x0304, key share
 * secp256r1) echoing frame 4's session ID; frame 6, frame 4's ClientHello
 * again with its key share replaced by tls13-hrr.pcap frame 8's secp256r1
 * share (lengths adjusted); frame 7, the server's alert 40 in place of the
 * capture's frame 6. */
static void hrr_then_failure_is_no_version_intolerance(void)
{
    const char *lines[] = {
        ev_intolerant_alert[0],
        "hello 5 1796389327320000 tcp 127.0.0.3 44325 127.0.0.2 33468 from=server opened=1796"
        "389327259775 tls 0x0303 020000540303cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e"
        "079e09e2c8a8339c2026e77aa0e9862348ec0d6a7b49b4d72d1e859f632e3a8eea881a3e69ba96a52f13"
        "0200000c002b00020304003300020017",
        "hello 6 1796389327325000 tcp 127.0.0.2 33468 127.0.0.3 44325 from=client opened=1796"
        "389327259775 tls 0x0303 010001530303c7cb76fa3c6e5dd05c30bcde0558f7325332985bf993d3dd"
        "194843b039512e412026e77aa0e9862348ec0d6a7b49b4d72d1e859f632e3a8eea881a3e69ba96a52f00"
        "3e130213031301c02cc030009fcca9cca8ccaac02bc02f009ec024c028006bc023c0270067c00ac01400"
        "39c009c0130033009d009c003d003c0035002f00ff010000cc0000000e000c0000096c6f63616c686f73"
        "74000b000403000102000a00160014001d0017001e001900180100010101020103010400230000001600"
        "0000170000000d002a0028040305030603080708080809080a080b080408050806040105010601030303"
        "010302040205020602002b0009080304030303020301002d000201010033004700450017004104e0eb06"
        "361e5e854e480f5fb3b48a4720565d999c94ac9f7245ff10b20ed0cb4740dadd7f792b91f718419872d2"
        "6fd88cb15d190cc600f2f57a80222e14639166",
        "alert 7 1796389327338824 tcp 127.0.0.3 44325 127.0.0.2 33468 from=server opened=1796"
        "389327259775 40",
        ev_intolerant_alert[4],
        ev_intolerant_alert[5],
        NULL};
    run rn = replay(lines);
    ok(result(&rn, 5) && result(&rn, 5)->facts.is_hrr && result(&rn, 6) &&
           result(&rn, 6)->hrr_frame == 5,
       "HRR then failure: frame 5 is a HelloRetryRequest, frame 6 answers it");
    const tlsneg_verdict *fb = verdict(result(&rn, 14), TLSNEG_VERDICT_FALLBACK);
    ok(fb && tlsneg_verdict_link(fb, TLSNEG_LINK_PREVIOUS_ATTEMPT) == 4 &&
           strcmp(text(fb, TLSNEG_TEXT_CAUSE), "alert handshake_failure (40)") == 0,
       "HRR then failure: the TLS 1.2 retry of frame 14 is still a fallback of frame 4");
    const tlsneg_result *sh = result(&rn, 16);
    ok(sh && !verdict(sh, TLSNEG_VERDICT_INTOLERANT) &&
           !has_finding(sh, TLSNEG_RULE_VERSION_INTOLERANCE) &&
           !note(sh, 4, TLSNEG_NOTE_INTOLERANT),
       "HRR then failure: the server selected TLS 1.3 in frame 5, so its ServerHello of frame 16 "
       "calls it intolerant of nothing");
    done(&rn);
}

/* A resumption hello that fails, then a full one: dropping pre_shared_key
 * (or early_data) is no fallback, and its success no intolerance. The
 * hellos are lftp's (GnuTLS 3.7.9) of pcaps/starttls-ftp-lftp.pcap: frame
 * 59 (the data connection, with pre_shared_key) and frame 29 (the control
 * connection: the same extensions but pre_shared_key, tshark's
 * tls.handshake.extension.type), with frame 30's ServerHello (TLS 1.3);
 * made up: all on the data connection's port, the server's reset (60) of
 * the first, the second on a new connection (62, 63). */
static void resumption_dropped_is_no_fallback(void)
{
    const char *lines[] = {
        "hello 59 1796515568300546 tcp 127.0.0.2 34656 127.0.0.3 40000 from=client opened=179"
        "6515568299000 tls 0x0301 0100028d0303693e7390c951bfe5cba6340251e5b70b1a569b212feee2c"
        "688d66f129708c7372002b3dc285074c5c067d9ae391884a603acc18dccfcde7adc025ea49bbb6955100"
        "03a1302130313011304c02ccca9c0adc00ac02bc0acc009c030cca8c014c02fc013009dc09d0035009cc"
        "09c002f009fccaac09f0039009ec09e00330100020a000500050100000000000a0016001400170018001"
        "9001d001e01000101010201030104000b00020100000d00220020040108090804040308070501080a080"
        "5050308080601080b08060603020102030016000000170000002300000033006b00690017004104d4ea4"
        "8b1804b7ea010cb2c8788484eb50db78e4262c8a93ab96b7333c30f1d0e250e1eabfa7ea46b5fdaec674"
        "952521f8bdbcc1233fbb17284d2a5017073dc24001d0020f56d35c9344eb37bee7d8cc022d5793268c2e"
        "d5b524b5f0cb957ea77c9e22173002b0009080304030303020301ff010001000000000e000c000009313"
        "2372e302e302e33002d0003020100001c000240010029010b00d600d0d96a12ac2fee0ef66f2c8859e2c"
        "f7f59f748ef70bc713d639a979aa364d5adf2c855817c1a64529bb1879826acc8ae05b459d8742854949"
        "53bbc7f2eaac4240b1cdf62399791afb5112e9f5d9eff17ba1d6e3309a6f7fceb650aa9f15e15216a020"
        "f5f8b8caa6f494fbda93919f494b32db4c6c7c80e1b5c3ae4f75f04cde617aeae3d41a97f328796d17c9"
        "79b3bf690542a16286a859fcbcdb035c5692c682ec5bb1927353f400d70fbd095e086b921910a4949cfd"
        "fea2c0c5bcb85fbc9e30a8a88cdb9e08d4c6800c1d29147e0f5756f0eb967003130ed3af914aae5ed15c"
        "59a526d929eb6973a7e62add91a790ff20b7f61c8a9d69d3eb7a333b79715617780de1c4e5226c5",
        "rst 60 1796515568300573 tcp 127.0.0.3 40000 127.0.0.2 34656 from=server opened=17965"
        "15568299000",
        "hello 62 1796515568500500 tcp 127.0.0.2 34658 127.0.0.3 40000 from=client opened=179"
        "6515568500000 tls 0x0301 0100017e03039c624a94c025f72e676dbe729492597ece5ab3bfdd2473d"
        "6704eca45bda979652002b3dc285074c5c067d9ae391884a603acc18dccfcde7adc025ea49bbb6955100"
        "03a1302130313011304c02ccca9c0adc00ac02bc0acc009c030cca8c014c02fc013009dc09d0035009cc"
        "09c002f009fccaac09f0039009ec09e0033010000fb000500050100000000000a0016001400170018001"
        "9001d001e01000101010201030104000b00020100000d00220020040108090804040308070501080a080"
        "5050308080601080b08060603020102030016000000170000002300000033006b006900170041044bbcf"
        "f019c1654f70dc47f91663c231af09bb82b50144199b44699a76108a0d2156c4b13932cb84976f07088d"
        "986148341bbfdf2695d68975e72f0bb7b2841a8001d002032f3c0e4b34d6b36b96e0c4e98706e7d6aab9"
        "3a87ec911c86c3479ec322aa75e002b0009080304030303020301ff010001000000000e000c000009313"
        "2372e302e302e33002d0003020100001c00024001",
        "hello 63 1796515568501000 tcp 127.0.0.3 40000 127.0.0.2 34658 from=server opened=179"
        "6515568500000 tls 0x0303 020000970303db792022637263c76c3a1ce6b5bd1505c30830eb3922f18"
        "74a3fb699b2c0411d2002b3dc285074c5c067d9ae391884a603acc18dccfcde7adc025ea49bbb6955101"
        "30200004f002b00020304003300450017004104a973e4e2f96816cf0c771410db82b3ed0dc7917f68d88"
        "8d6e78d7309c3a55f44dc40ed338b22031d2a458eb1998141ef1a997d722e74f7b355363da75f132b1b",
        NULL};
    run rn = replay(lines);
    const tlsneg_result *retry = result(&rn, 62), *sh = result(&rn, 63);
    ok(retry && !verdict(retry, TLSNEG_VERDICT_FALLBACK) &&
           !has_finding(retry, TLSNEG_RULE_FALLBACK_RETRY) &&
           !note(retry, 59, TLSNEG_NOTE_RETRIED_IN),
       "resumption dropped: the full hello of frame 62 after the failed PSK hello of frame 59 is "
       "no fallback retry");
    const tlsneg_verdict *same = verdict(retry, TLSNEG_VERDICT_SAME_RETRY);
    ok(same && tlsneg_verdict_link(same, TLSNEG_LINK_SAME_OFFER_AS) == 59 &&
           strstr(same->detail, "pre_shared_key") != NULL,
       "resumption dropped: a retry of the same offer, saying it left out its pre_shared_key: %s",
       same ? same->detail : "(none)");
    ok(sh && sh->verdicts.count == 0 && !has_finding(sh, TLSNEG_RULE_VERSION_INTOLERANCE),
       "resumption dropped: its ServerHello (frame 63) calls the server intolerant of nothing");
    done(&rn);
}

/* protocol_version (70) on the last retry of a chain speaks of that
 * retry's versions only. pcaps/fallback-chain.pcap's events up to its TLS
 * 1.1 retry (frame 24): frames 4 (TLS 1.3) and 14 (TLS 1.2) failed with
 * alert 40 there; the server's alert on frame 24 is made 70 here (frame 26,
 * 40 in the capture), and the TLS 1.0 attempt is left out. */
static void protocol_version_ends_chain(void)
{
    const char *mixed[] = {ev_fallback_chain[0],
                           ev_fallback_chain[1],
                           ev_fallback_chain[2],
                           ev_fallback_chain[3],
                           ev_fallback_chain[4],
                           ev_fallback_chain[5],
                           ev_fallback_chain[6],
                           ev_fallback_chain[7],
                           ev_fallback_chain[8],
                           "alert 26 1796388655228900 tcp 127.0.0.3 44331 127.0.0.2 49536 "
                           "from=server opened=1796388655223247 70",
                           NULL};
    run rn = replay(mixed);
    const tlsneg_verdict *v = verdict(result(&rn, 26), TLSNEG_VERDICT_NO_COMMON_VERSION);
    ok(v && tlsneg_verdict_link(v, TLSNEG_LINK_REFUSED_RETRY) == 24 &&
           !strstr(v->detail, "no attempt of the chain") && strstr(v->detail, "up to TLS 1.1") &&
           strstr(v->detail, "frame 4 by alert handshake_failure (40), frame 14 by alert "
                             "handshake_failure (40)"),
       "70 after two 40s: it names the TLS 1.1 retry's versions and how frames 4 and 14 failed, "
       "not that no attempt offered a version the server supports: %s",
       v ? v->detail : "(none)");
    done(&rn);

    /* The TLS 1.2 attempt (14) refused with 70 too (16, made 70), then the
     * TLS 1.1 retry (24) with 70 (26): every attempt of the chain 14 -> 24
     * was refused so. */
    const char *all[] = {ev_fallback_chain[4],
                         "alert 16 1796388654976398 tcp 127.0.0.3 44331 127.0.0.2 49530 "
                         "from=server opened=1796388654967503 70",
                         ev_fallback_chain[6],
                         ev_fallback_chain[7],
                         ev_fallback_chain[8],
                         "alert 26 1796388655228900 tcp 127.0.0.3 44331 127.0.0.2 49536 "
                         "from=server opened=1796388655223247 70",
                         NULL};
    rn = replay(all);
    v = verdict(result(&rn, 26), TLSNEG_VERDICT_NO_COMMON_VERSION);
    ok(v && strstr(v->detail, "no attempt of the chain TLS 1.2 (frame 14) -> TLS 1.1 (frame 24) "
                              "offered a version it supports"),
       "70 on every attempt: no attempt of the chain offered a version it supports: %s",
       v ? v->detail : "(none)");
    done(&rn);
}

static void who_is_the_client(void)
{
    /* Loopback: both ends are 127.0.0.1; the port tells them apart. The
     * first two lines are pcaps/public/wireshark/tls12-aes128ccm.pcap's
     * ClientHello and ServerHello (frames 1 and 2); the alerts after them
     * are made up (the same connection, one from each end). */
    const char *lo[] = {ev_tls12_aes128ccm[0], ev_tls12_aes128ccm[1],
                        "alert 3 1485725723743700 tcp 127.0.0.1 50586 127.0.0.1 443 48",
                        "alert 4 1485725723743800 tcp 127.0.0.1 443 127.0.0.1 50586 48", NULL};
    run rn = replay(lo);
    ok(result(&rn, 1)->from_client && !result(&rn, 2)->from_client,
       "the ClientHello is from the client, the ServerHello not");
    const tlsneg_result *a = result(&rn, 3), *b = result(&rn, 4);
    ok(a && a->from_client && !a->alert_from_server,
       "an alert from the ClientHello's address and port is the client's");
    ok(b && !b->from_client && b->alert_from_server,
       "an alert from the other port of the same address is the server's");
    done(&rn);

    /* A capture that starts after the ClientHello: nobody is known to be the
     * client. */
    const char *late[] = {ev_intolerant_rst[3],
                          "alert 14 1796298734474000 tcp 127.0.0.1 44323 127.0.0.1 36696 48", NULL};
    rn = replay(late);
    const tlsneg_result *sh = result(&rn, 12);
    ok(sh && !sh->from_client && sh->client_hello_frame == 0 && !sh->has_sni,
       "a ServerHello without its ClientHello: no ClientHello frame, no SNI");
    ok(result(&rn, 14) && !result(&rn, 14)->from_client && !result(&rn, 14)->alert_from_server,
       "an alert on a connection without a ClientHello: neither side is named");
    done(&rn);
}

/* The segments attribute of a hello line (events.h) read, written and
 * carried to the facts. */
static void segments_attribute(void)
{
    /* pq-split-healthy.pcap frame 6 (tests/captures/readoff/pq.json): 2
     * segments, frames 4 and 6; the message is this test's own 4 bytes. */
    static const char line[] =
        "hello 6 1000 tcp 10.0.0.1 40000 10.0.0.2 443 conn=1 from=client segments=2:4,6 tls "
        "0x0301 01000000";
    tlsneg_ev ev;
    ok(tlsneg_ev_parse(line, &ev, msg_buf, sizeof msg_buf) == 1 && ev.segments.count == 2 &&
           ev.segments.num_frames == 2 && ev.segments.frames[0] == 4 && ev.segments.frames[1] == 6,
       "segments=2:4,6 reads as 2 segments in frames 4 and 6");
    char out[512] = "";
    FILE *mem = tmpfile();
    if (mem) {
        tlsneg_ev_write(mem, &ev);
        rewind(mem);
        if (!fgets(out, sizeof out, mem)) {
            out[0] = '\0';
        }
        fclose(mem);
    }
    ok(strncmp(out, line, strlen(line)) == 0, "and is written back the same: %s", out);
    tlsneg_message m;
    ok(tlsneg_ev_frame(&m, &ev) && m.segments.count == 2 && m.segments.frames[1] == 6,
       "the framed message carries them");
    static const char *const bad[] = {
        "hello 6 1000 tcp 10.0.0.1 1 10.0.0.2 2 segments=0 tls 0x0301 01000000",
        "hello 6 1000 tcp 10.0.0.1 1 10.0.0.2 2 segments=1:4,6 tls 0x0301 01000000",
        "hello 6 1000 tcp 10.0.0.1 1 10.0.0.2 2 segments=2:4, tls 0x0301 01000000",
        "hello 6 1000 tcp 10.0.0.1 1 10.0.0.2 2 segments=2;4 tls 0x0301 01000000",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ok(tlsneg_ev_parse(bad[i], &ev, msg_buf, sizeof msg_buf) == -1, "rejected: %s", bad[i]);
    }
}

static void without_tracker(void)
{
    /* A NULL session judges messages, without verdicts across connections. */
    tlsneg_conn c;
    memset(&c, 0, sizeof c);
    tlsneg_ev ev;
    static tlsneg_result x;
    ok(tlsneg_ev_parse(ev_intolerant_rst[2], &ev, msg_buf, sizeof msg_buf) == 1,
       "frame 10 of intolerant-rst reads");
    tlsneg_message m;
    ok(tlsneg_frame_message(&m, ev.wire, ev.has_record, ev.record_version, ev.bytes, ev.len, 0,
                            NULL, 0) &&
           m.len == ev.len,
       "the core frames the whole message");
    tlsneg_event e = {
        ev.frame, ev.time_us, {ev.src, 4, ev.sport}, {ev.dst, 4, ev.dport}, TLSNEG_SENDER_UNKNOWN,
        0};
    tlsneg_session_message(NULL, &c, &e, &m, true, ev.record_version, &x);
    ok(x.analysed && x.keep_facts && x.verdicts.count == 0 && c.has_client_hello &&
           c.client_hello_frame == 10 && c.client_hello == NULL,
       "no session: the ClientHello is judged, the conn remembers it, no verdicts");
    /* A DTLS fragment without its reassembled body is not complete here. */
    static const uint8_t frag[] = {1, 0, 0, 0x40, 0, 0, 0, 0, 0x10, 0, 0, 0x10, 0};
    ok(!tlsneg_frame_message(&m, TLSNEG_WIRE_DTLS, true, TLSNEG_V_DTLS12, frag, sizeof frag, 0,
                             NULL, 0),
       "a DTLS fragment without its reassembled body is not framed");
    static const uint8_t body[] = {0xfe, 0xfd};
    ok(tlsneg_frame_message(&m, TLSNEG_WIRE_DTLS, true, TLSNEG_V_DTLS12, frag, sizeof frag, 0, body,
                            sizeof body) &&
           m.body_only && m.bytes == body && m.msg_type == 1,
       "with its reassembled body it is framed as a body");
    /* SSLv2: the record header before the message holds the length. */
    static const uint8_t ssl2[] = {0x80, 0x03, 1, 0, 2, 9, 9, 9};
    ok(tlsneg_frame_message(&m, TLSNEG_WIRE_TLS, true, TLSNEG_V_SSL2, ssl2, sizeof ssl2, 2, NULL,
                            0) &&
           m.wire == TLSNEG_WIRE_SSL2 && m.len == 3,
       "SSLv2: the 2-byte record header gives the length (3 of 6 bytes)");
}

static void parsed_ahead(void)
{
    /* tlsneg_session_parse reads nothing but the message: hellos parsed
     * ahead of the events before them (as tlsneg-pcap's packet thread
     * does), then judged in frame order, come out as tlsneg_session_message
     * has them. dtls13-cid frames 1-3: one ClientHello sent three times. */
    enum { N = 3 };
    static uint8_t bytes[N][1 << 14];
    static tlsneg_parsed p[N];
    static tlsneg_result ahead, direct;
    tlsneg_ev ev[N];
    tlsneg_message m[N];
    for (int i = 0; i < N; i++) {
        ok(tlsneg_ev_parse(ev_dtls13_cid[i], &ev[i], bytes[i], sizeof bytes[i]) == 1 &&
               tlsneg_frame_message(&m[i], ev[i].wire, ev[i].has_record, ev[i].record_version,
                                    ev[i].bytes, ev[i].len, 0, NULL, 0),
           "dtls13-cid frame %d reads and frames", i + 1);
        tlsneg_session_parse(&p[i], &m[i], ev[i].has_record, ev[i].record_version);
    }
    tlsneg_tracker_config cfg = default_cfg();
    tlsneg_session *sa = tlsneg_session_new(&cfg), *sd = tlsneg_session_new(&cfg);
    tlsneg_conn ca, cd;
    memset(&ca, 0, sizeof ca);
    memset(&cd, 0, sizeof cd);
    ca.id = cd.id = 1;
    int same = 0;
    for (int i = 0; i < N; i++) {
        tlsneg_event e = {ev[i].frame,
                          ev[i].time_us,
                          {ev[i].src, 4, ev[i].sport},
                          {ev[i].dst, 4, ev[i].dport},
                          TLSNEG_SENDER_UNKNOWN,
                          ev[i].opened_us};
        tlsneg_session_judge(sa, &ca, &e, &p[i], &ahead);
        tlsneg_session_message(sd, &cd, &e, &m[i], ev[i].has_record, ev[i].record_version, &direct);
        const tlsneg_facts *fa = &ahead.facts, *fd = &direct.facts;
        same += ahead.analysed && direct.analysed &&
                ahead.retransmission_of == direct.retransmission_of &&
                ahead.findings.count == direct.findings.count &&
                ahead.verdicts.count == direct.verdicts.count && fa->msg_type == fd->msg_type &&
                fa->legacy_version == fd->legacy_version &&
                fa->record_version == fd->record_version && fa->num_offered == fd->num_offered &&
                fa->offered_max == fd->offered_max && fa->grease_count == fd->grease_count;
    }
    ok(same == N && ahead.retransmission_of == 1 && ca.last_frame[0] == 1,
       "hellos parsed ahead and judged in order: as judged directly, the repeats recognised (%d "
       "of %d alike)",
       same, N);
    tlsneg_session_free(sa);
    tlsneg_session_free(sd);
}

static void replay_table_bounded(void)
{
    /* A table of one connection: each new flow forgets the one before. */
    tlsneg_tracker_config cfg = default_cfg();
    tlsneg_replay *r = tlsneg_replay_new(&cfg, 1);
    run rn = replay_with(ev_intolerant_rst, r);
    ok(conn_of(&rn, 4) == 0 && conn_of(&rn, 10) == 1 && conn_of(&rn, 12) == 1,
       "replay table of one: the second flow gets a new id and keeps it");
    ok(closed(&rn, 6) && closed(&rn, 6)->ended_attempt_frame == 4 && closed(&rn, 16) != NULL,
       "replay table of one: events of the flow held are still seen");
    ok(verdict(result(&rn, 10), TLSNEG_VERDICT_FALLBACK) != NULL,
       "replay table of one: the tracker, not the table, links the attempts");
    done(&rn);
    /* The forgotten flow comes back as a new connection. */
    const char *again[] = {ev_intolerant_rst[0], ev_intolerant_rst[2], ev_intolerant_rst[1], NULL};
    rn = replay_with(again, r);
    ok(closed(&rn, 6) && closed(&rn, 6)->ended_attempt_frame == 0 && result(&rn, 4) &&
           result(&rn, 10),
       "replay table of one: a RST on a forgotten flow ends no attempt (the server's ending "
       "of a new connection, held for a ClientHello that does not come)");
    done(&rn);
    tlsneg_replay_free(r);
}

/* hrr.c on digests made by hand: what no capture here shows (a client
 * that ignores the group asked for, drops the cookie, changes its suites). */
static void hrr_changes_by_hand(void)
{
    tlsneg_hrr_hello a = {.has_digest = true, .num_shares = 1, .shares = {0x001d}};
    tlsneg_hrr_hello b = a;
    tlsneg_hrr_ask ask = {.frame = 6, .has_group = true, .group = 0x0017, .cookie = true};
    char buf[TLSNEG_HRR_CHANGES_MAX];
    b.shares[0] = 0x0017;
    b.cookie = true;
    ok(!tlsneg_hrr_changes(&a, &b, &ask, buf, sizeof buf) &&
           strcmp(buf, "key share x25519 -> secp256r1, the group asked for; cookie sent back") == 0,
       "as asked: %s", buf);
    b.cookie = false;
    b.fp_suites = 1;
    b.shares[0] = 0x0018;
    ok(tlsneg_hrr_changes(&a, &b, &ask, buf, sizeof buf) &&
           strcmp(buf, "key share x25519 -> secp384r1, not a single share of secp256r1; no "
                       "cookie, though one was sent; also changed, which RFC 8446 4.1.2 does "
                       "not allow: cipher suites") == 0,
       "not as asked: %s", buf);
    tlsneg_hrr_ask none = {.frame = 6};
    ok(!tlsneg_hrr_changes(&a, &a, &none, buf, sizeof buf) && strcmp(buf, "nothing changed") == 0,
       "nothing asked, nothing changed: %s", buf);
}

/* pcaps/tls13-hrr.pcap with its second ClientHello's first two cipher
 * suites swapped (frame 8: 0x1302 0x1303 becomes 0x1303 0x1302): a change
 * RFC 8446 4.1.2 does not allow after a HelloRetryRequest, which no stack
 * here makes. */
static void hrr_retry_changed(void)
{
    const char *const *src = ev_tls13_hrr;
    size_t n = 0;
    while (src[n]) {
        n++;
    }
    char **lines = calloc(n + 1, sizeof *lines);
    for (size_t i = 0; i < n; i++) {
        lines[i] = tlsneg_strdup(src[i]);
    }
    char *ch2 = strstr(lines[2], "003e130213031301");
    ok(strncmp(lines[2], "hello 8 ", 8) == 0 && ch2, "the second ClientHello's suites are found");
    if (ch2) {
        memcpy(ch2, "003e130313021301", 16);
    }
    run rn = replay((const char *const *)lines);
    const tlsneg_result *r = result(&rn, 8);
    ok(r && r->hrr_frame == 6 && r->hrr_unexpected && r->findings.count == 1 &&
           r->findings.item[0].rule == TLSNEG_RULE_HRR_RETRY_CHANGED &&
           strstr(r->findings.item[0].detail, "HelloRetryRequest in frame 6") &&
           strstr(r->findings.item[0].detail, "does not allow: cipher suites"),
       "a second ClientHello with its suites reordered: hrr_retry_changed, saying what changed "
       "(%s)",
       r && r->findings.count ? r->findings.item[0].detail : "no finding");
    ok(result(&rn, 4) && result(&rn, 4)->findings.count == 0, "the first ClientHello: none");
    done(&rn);
    for (size_t i = 0; i < n; i++) {
        free(lines[i]);
    }
    free(lines);
}

int main(void)
{
    dtls_retransmission_and_hrr();
    hrr_retry_changed();
    tls_hrr();
    preconnect();
    hrr_changes_by_hand();
    alert_ends_attempt();
    warning_alert();
    reset_and_close_end_attempts();
    endings_before_the_hello_is_complete();
    fallback_without_tls13_only_offers();
    fallback_linked_and_back_noted();
    hrr_then_failure_is_no_version_intolerance();
    resumption_dropped_is_no_fallback();
    protocol_version_ends_chain();
    who_is_the_client();
    without_tracker();
    segments_attribute();
    parsed_ahead();
    replay_table_bounded();
    return tap_done();
}
