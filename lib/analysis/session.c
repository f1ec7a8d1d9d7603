/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session.c: the per-connection context, the tracker's input, and the links
 * back to earlier frames. */
#include "analysis/session.h"

#include "analysis/offer.h"

#include "core/util.h"
#include "core/versions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tlsneg_session {
    tlsneg_tracker *tracker; /* NULL: no verdicts across connections */
    bool no_details;         /* tlsneg_tracker_config's */
};

tlsneg_session *tlsneg_session_new(const tlsneg_tracker_config *cfg)
{
    tlsneg_session *s = calloc(1, sizeof *s);
    if (s) {
        s->tracker = tlsneg_tracker_new(cfg);
        s->no_details = cfg->no_details;
    }
    return s;
}

void tlsneg_session_free(tlsneg_session *s)
{
    if (s) {
        tlsneg_tracker_free(s->tracker);
        free(s);
    }
}

const tlsneg_tracker *tlsneg_session_tracker(const tlsneg_session *s)
{
    return s ? s->tracker : NULL;
}

static tlsneg_tracker *tracker_of(tlsneg_session *s)
{
    return s ? s->tracker : NULL;
}

static size_t addr_len(const tlsneg_endpoint *e)
{
    return e->addr_len < TLSNEG_ADDR_MAX ? e->addr_len : TLSNEG_ADDR_MAX;
}

bool tlsneg_session_from_client(const tlsneg_conn *c, const tlsneg_endpoint *src)
{
    size_t n = addr_len(src);
    return c->has_client_hello && src->port == c->client_port && n == c->client_addr_len &&
           (n == 0 || memcmp(src->addr, c->client_addr, n) == 0);
}

void tlsneg_conn_keep_client_hello(tlsneg_conn *c, const tlsneg_facts *kept)
{
    c->client_hello = kept;
}

static void set_sni(bool *has, char *dst, const char *sni)
{
    *has = sni != NULL;
    if (sni) {
        tlsneg_strlcpy(dst, TLSNEG_MAX_SNI + 1, sni);
    }
}

static void conn_sni(tlsneg_result *out, const tlsneg_conn *c)
{
    set_sni(&out->has_sni, out->sni, c->client_hello ? c->client_hello->sni : NULL);
}

/* no_details: no output reads the sentences (a NULL session writes them). */
static bool no_details(const tlsneg_session *s)
{
    return s && s->no_details;
}

static void result_init(const tlsneg_session *s, tlsneg_result *out)
{
    out->analysed = false;
    out->is_alert = false;
    out->alert_level = TLSNEG_ALERT_NO_LEVEL;
    out->alert_description = 0;
    out->alert_from_server = false;
    out->alert_ends = false;
    out->alert_after_server_hello = false;
    out->alert_after_close = 0;
    out->alert_after_close_cause = TLSNEG_CAUSE_NONE;
    out->from_client = false;
    out->keep_facts = false;
    out->retransmission_of = 0;
    out->client_hello_frame = 0;
    out->has_sni = false;
    out->sni[0] = '\0';
    out->findings.count = 0;
    out->findings.dropped = 0;
    tlsneg_verdicts_clear(&out->verdicts, no_details(s));
    out->num_back_notes = 0;
    out->title[0] = '\0';
    out->failed_attempt = 0;
    out->failure_cause = TLSNEG_CAUSE_NONE;
    out->held = false;
    out->early_frame = 0;
    out->early_time_us = 0;
    out->early_cause = TLSNEG_CAUSE_NONE;
    out->early_alert = 0;
    out->client_pq_offered = false;
    out->hrr_frame = 0;
    out->hrr_unexpected = false;
    out->hrr_changes[0] = '\0';
    memset(&out->facts, 0, sizeof out->facts);
}

static tlsneg_back_note *add_note(tlsneg_result *out, uint32_t frame, tlsneg_note_kind kind)
{
    if (out->num_back_notes == TLSNEG_MAX_BACK_NOTES) {
        return NULL;
    }
    tlsneg_back_note *n = &out->back_notes[out->num_back_notes++];
    memset(n, 0, sizeof *n);
    n->frame = frame;
    n->kind = kind;
    return n;
}

/* fill_failed makes n the note that the attempt of ClientHello frame
 * hello failed (cause, alert) in frame. */
static void fill_failed(tlsneg_back_note *n, uint32_t hello, uint32_t frame, uint8_t cause,
                        uint8_t alert)
{
    memset(n, 0, sizeof *n);
    n->frame = hello;
    n->kind = TLSNEG_NOTE_FAILED;
    n->link.role = TLSNEG_LINK_FAILED_IN;
    n->link.frame = frame;
    n->has_text = true;
    n->text.role = TLSNEG_TEXT_FAILURE;
    tlsneg_failure_text(cause, alert, frame, n->text.text, sizeof n->text.text);
}

/* own_title: a retry's title, from its fallback or same-offer verdict. */
static void own_title(tlsneg_result *out)
{
    for (size_t k = 0; k < out->verdicts.count; k++) {
        const tlsneg_verdict *v = &out->verdicts.item[k];
        tlsneg_retry r;
        if (tlsneg_verdict_rows[v->kind].chain == TLSNEG_CHAIN_RETRY &&
            tlsneg_verdict_retry(v, (size_t)v->chain_len - 1, 0, &r)) {
            tlsneg_retry_text(&r, out->title, sizeof out->title);
            return;
        }
    }
}

/* back_notes tells the earlier attempts of a chain what this frame
 * revealed: the last failed attempt that it retried it, every failed attempt
 * what the server did not tolerate, every retry of a chain that ended here
 * its number among all of them; the first hellos of a probe recognised
 * here that they belong to it. */
static void back_notes(tlsneg_result *out, uint32_t frame)
{
    for (size_t k = 0; k < out->verdicts.count; k++) {
        const tlsneg_verdict *v = &out->verdicts.item[k];
        const tlsneg_verdict_row *row = &tlsneg_verdict_rows[v->kind];
        bool fallback = row->note == TLSNEG_NOTE_RETRIED_IN;
        bool intolerant = row->note == TLSNEG_NOTE_INTOLERANT;
        bool ended = row->chain == TLSNEG_CHAIN_END;
        for (size_t i = 1; ended && i < v->chain_len; i++) {
            tlsneg_retry r;
            tlsneg_back_note *n;
            if (tlsneg_verdict_retry(v, i, (uint8_t)(v->chain_len - 1), &r) && r.retries &&
                (n = add_note(out, v->chain_frames[i], TLSNEG_NOTE_TITLE))) {
                n->link.role = TLSNEG_LINK_COMPLETED_BY;
                n->link.frame = frame;
                n->has_text = true;
                n->text.role = TLSNEG_TEXT_TITLE;
                tlsneg_retry_text(&r, n->text.text, sizeof n->text.text);
            }
        }
        for (size_t i = 0; row->note == TLSNEG_NOTE_PROBE && i < v->probe_earlier_len; i++) {
            tlsneg_back_note *n = add_note(out, v->probe_earlier[i], TLSNEG_NOTE_PROBE);
            if (n) {
                n->link.role = TLSNEG_LINK_PROBE_START;
                n->link.frame = v->probe.first_frame;
            }
        }
        const char *what = tlsneg_verdict_text(v, TLSNEG_TEXT_INTOLERANT_OF);
        for (size_t i = 0; i + 1 < v->chain_len; i++) {
            uint32_t earlier = v->chain_frames[i];
            tlsneg_back_note *n;
            if (fallback && i + 2 == v->chain_len &&
                (n = add_note(out, earlier, TLSNEG_NOTE_RETRIED_IN))) {
                n->link.role = TLSNEG_LINK_RETRY;
                n->link.frame = frame;
            }
            if (intolerant && what && (n = add_note(out, earlier, TLSNEG_NOTE_INTOLERANT))) {
                n->link.role = TLSNEG_LINK_COMPLETED_BY;
                n->link.frame = frame;
                n->has_text = true;
                n->text.role = TLSNEG_TEXT_INTOLERANT_OF;
                snprintf(n->text.text, sizeof n->text.text, "%s", what);
                n->has_finding = true;
                n->finding.rule = TLSNEG_RULE_VERSION_INTOLERANCE;
                snprintf(
                    n->finding.detail, sizeof n->finding.detail,
                    "The server fails this attempt and completes a retry that offers less (its "
                    "ServerHello is frame %u): it does not tolerate %s",
                    frame, what);
            }
        }
    }
}

/* add_verdicts appends the findings of the verdicts and the back notes. */
static void add_verdicts(tlsneg_result *out, uint32_t frame)
{
    if (!out->verdicts.count) {
        return;
    }
    tlsneg_verdict_findings(&out->verdicts, &out->findings);
    own_title(out);
    back_notes(out, frame);
}

static void track_client_hello(tlsneg_tracker *t, const tlsneg_conn *c, const tlsneg_event *ev,
                               const tlsneg_facts *f, const tlsneg_offer *offer, tlsneg_result *out)
{
    tlsneg_peer_key key = {ev->src.addr,     ev->src.addr_len, ev->dst.addr,
                           ev->dst.addr_len, ev->dst.port,     f->sni};
    tlsneg_tracker_client_hello(t, c->id, &key, ev->frame, ev->time_us, ev->opened_us, offer,
                                &out->verdicts);
}

/* hold_early: the server ended c (cause, alert) before its ClientHello
 * was complete; the first such ending is kept for that attempt. Not after
 * a ServerHello on c (it answered a ClientHello the capture lacks), nor
 * once the client has closed or reset c: no ClientHello can complete on c
 * then, and the ending is told as it comes. */
static bool hold_early(tlsneg_conn *c, const tlsneg_event *ev, uint8_t cause, uint8_t alert)
{
    if (c->has_client_hello || ev->sender != TLSNEG_SENDER_SERVER || c->early_frame ||
        c->server_hello_seen || c->closed_frame[0]) {
        return false;
    }
    c->early_frame = ev->frame;
    c->early_time_us = ev->time_us;
    c->early_cause = cause;
    c->early_alert = alert;
    return true;
}

/* early_failure: the ClientHello just tracked completes on a connection
 * the server had already ended: its attempt failed there, in that frame,
 * and the result says so (early_*, a failure note for this frame). */
static void early_failure(tlsneg_tracker *t, tlsneg_conn *c, const tlsneg_event *ev,
                          tlsneg_result *out)
{
    if (!c->early_frame ||
        !tlsneg_tracker_early_end(t, c->id, c->early_time_us, c->early_cause, c->early_alert)) {
        return;
    }
    tlsneg_tracker_failed_in(t, c->id, c->early_frame);
    out->early_frame = c->early_frame;
    out->early_time_us = c->early_time_us;
    out->early_cause = c->early_cause;
    out->early_alert = c->early_alert;
    tlsneg_back_note *n = add_note(out, ev->frame, TLSNEG_NOTE_FAILED);
    if (n) {
        fill_failed(n, ev->frame, c->early_frame, c->early_cause, c->early_alert);
    }
}

static void track_server_hello(tlsneg_tracker *t, const tlsneg_conn *c, const tlsneg_event *ev,
                               const tlsneg_hello *h, const tlsneg_facts *f, tlsneg_result *out)
{
    tlsneg_answer answer;
    tlsneg_answer_from_hello(&answer, h, f);
    tlsneg_tracker_server_hello(t, c->id, ev->frame, ev->time_us, &answer, &out->verdicts);
}

/* hrr_answer: a ClientHello (h, facts f, its offer's prints) on c. The
 * first one after c's HelloRetryRequest answers it: what it changed from the
 * one before (out's hrr_frame, hrr_unexpected, hrr_changes). Any other is
 * digested, to be compared with the one after a HelloRetryRequest to come.
 * Only a hello that can offer TLS 1.3 (the only version with
 * HelloRetryRequests) counts. */
static void hrr_answer(tlsneg_conn *c, const tlsneg_hello *h, const tlsneg_facts *f,
                       const tlsneg_hello_prints *prints, tlsneg_result *out)
{
    if (!f->has_supported_versions && !f->has_key_share) {
        return;
    }
    if (!c->hrr_ask.frame) {
        tlsneg_hrr_digest(&c->hello_digest, h, f, prints);
        return;
    }
    if (c->hrr_answered || !c->hello_digest.has_digest) {
        return;
    }
    tlsneg_hrr_hello now;
    tlsneg_hrr_digest(&now, h, f, prints);
    c->hrr_answered = true;
    out->hrr_frame = c->hrr_ask.frame;
    out->hrr_unexpected = tlsneg_hrr_changes(&c->hello_digest, &now, &c->hrr_ask, out->hrr_changes,
                                             sizeof out->hrr_changes);
}

/* hrr_note tells c's HelloRetryRequest that the ClientHello in frame
 * answered it (a back note). */
static void hrr_note(const tlsneg_conn *c, uint32_t frame, tlsneg_result *out)
{
    if (!out->hrr_frame) {
        return;
    }
    tlsneg_back_note *n = add_note(out, c->hrr_ask.frame, TLSNEG_NOTE_HRR_RETRY);
    if (n) {
        n->link.role = TLSNEG_LINK_HRR_RETRY;
        n->link.frame = frame;
    }
}

/* chose_tls13: the ServerHello or HelloRetryRequest f puts TLS 1.3 or DTLS
 * 1.3 (or a draft of either) in force, or asks for it. */
static bool chose_tls13(const tlsneg_facts *f)
{
    bool dtls = tlsneg_facts_is_dtls(f);
    uint16_t v = f->has_negotiated ? f->negotiated_version
                 : f->has_selected ? f->selected_version
                                   : 0;
    return tlsneg_version_rank(v, dtls) >
           tlsneg_version_rank(dtls ? TLSNEG_V_DTLS12 : TLSNEG_V_TLS12, dtls);
}

void tlsneg_session_parse(tlsneg_parsed *p, const tlsneg_message *m, bool has_record,
                          uint16_t record_version)
{
    (void)tlsneg_message_parse(&p->hello, m);
    p->has_record = has_record;
    p->record_version = record_version;
    p->segments = m->segments;
    /* A datagram protocol repeats a hello unchanged when it gets no answer:
     * its hash finds the repeat, judged once. TCP retransmissions never
     * reach the TLS layer, so only a datagram's hello is hashed (a
     * connection's wire never changes). */
    bool datagram = m->wire == TLSNEG_WIRE_DTLS || m->wire == TLSNEG_WIRE_QUIC;
    p->hash = datagram ? tlsneg_hash_bytes(m->bytes, m->len) : 0;
}

void tlsneg_session_message(tlsneg_session *s, tlsneg_conn *c, const tlsneg_event *ev,
                            const tlsneg_message *m, bool has_record, uint16_t record_version,
                            tlsneg_result *out)
{
    tlsneg_parsed p;
    tlsneg_session_parse(&p, m, has_record, record_version);
    tlsneg_session_judge(s, c, ev, &p, out);
}

void tlsneg_session_judge(tlsneg_session *s, tlsneg_conn *c, const tlsneg_event *ev,
                          const tlsneg_parsed *p, tlsneg_result *out)
{
    const tlsneg_hello *h = &p->hello;
    result_init(s, out);
    tlsneg_facts *f = &out->facts;
    tlsneg_facts_derive(f, &out->facts_buf, h, p->has_record, p->record_version);
    tlsneg_facts_set_segments(f, &out->facts_buf, p->segments.count, p->segments.frames,
                              p->segments.num_frames);
    out->analysed = true;

    bool client = f->msg_type == TLSNEG_HS_CLIENT_HELLO;
    size_t side = client ? 0 : 1;
    out->from_client = client;
    bool datagram = f->wire == TLSNEG_WIRE_DTLS || f->wire == TLSNEG_WIRE_QUIC;
    if (datagram && c->last_frame[side] && c->last_hash[side] == p->hash) {
        out->retransmission_of = c->last_frame[side];
        conn_sni(out, c);
        return;
    }
    c->last_hash[side] = p->hash;
    c->last_frame[side] = ev->frame;

    tlsneg_offer offer;
    tlsneg_hello_prints prints;
    if (client) {
        tlsneg_offer_from_hello(&offer, &prints, h, f);
        hrr_answer(c, h, f, &prints, out);
    }
    tlsneg_check_input in = {.hello = h,
                             .facts = f,
                             .client_hello = client ? NULL : c->client_hello,
                             .after_hrr = client && c->hrr_seen,
                             .hrr_frame = out->hrr_frame,
                             .hrr_unexpected = out->hrr_unexpected,
                             .hrr_changes = out->hrr_changes,
                             .no_details = no_details(s)};
    tlsneg_check(&out->findings, &in);
    tlsneg_tracker *t = tracker_of(s);
    if (t && client) {
        track_client_hello(t, c, ev, f, &offer, out);
        if (!c->has_client_hello) {
            early_failure(t, c, ev, out);
        }
    } else if (t && f->msg_type == TLSNEG_HS_SERVER_HELLO) {
        track_server_hello(t, c, ev, h, f, out);
    }
    add_verdicts(out, ev->frame);

    if (client) {
        hrr_note(c, ev->frame, out);
        size_t n = addr_len(&ev->src);
        c->has_client_hello = true;
        c->client_hello = NULL; /* until the caller keeps this one */
        c->client_hello_frame = ev->frame;
        c->server_hello_seen = false; /* none has answered this one yet */
        c->client_addr_len = (uint8_t)n;
        if (n) {
            memcpy(c->client_addr, ev->src.addr, n);
        }
        c->client_port = ev->src.port;
        c->client_pq_offered = f->pq_offered;
        out->keep_facts = true;
        set_sni(&out->has_sni, out->sni, f->sni);
    } else {
        if (f->msg_type == TLSNEG_HS_SERVER_HELLO && chose_tls13(f)) {
            c->tls13_chosen = true;
        }
        if (f->msg_type == TLSNEG_HS_SERVER_HELLO && !f->is_hrr) {
            c->server_hello_seen = true;
        }
        if (f->is_hrr) {
            c->hrr_seen = true;
            if (!c->hrr_ask.frame) {
                tlsneg_hrr_ask_from(&c->hrr_ask, h, f, ev->frame);
            }
        }
        out->client_pq_offered = c->client_pq_offered;
        conn_sni(out, c);
    }
    out->client_hello_frame = c->client_hello_frame;
}

void tlsneg_session_alert(tlsneg_session *s, tlsneg_conn *c, const tlsneg_event *ev,
                          tlsneg_wire wire, uint8_t level, uint8_t description, tlsneg_result *out)
{
    result_init(s, out);
    out->analysed = true;
    out->is_alert = true;
    out->facts.wire = (uint8_t)wire;
    out->alert_level = level;
    out->alert_description = description;
    out->alert_ends = tlsneg_alert_ends_handshake(level, description, c->tls13_chosen);
    out->alert_after_server_hello = c->server_hello_seen;
    if (c->has_client_hello) {
        out->alert_from_server = !tlsneg_session_from_client(c, &ev->src);
        out->from_client = !out->alert_from_server;
    } else {
        /* No ClientHello yet: who sent it, if the transport tells. */
        out->alert_from_server = ev->sender == TLSNEG_SENDER_SERVER;
        out->from_client = ev->sender == TLSNEG_SENDER_CLIENT;
    }
    /* The other side's close or reset before it: [0] the client's. */
    int peer = out->alert_from_server ? 0 : out->from_client ? 1 : -1;
    if (peer >= 0 && c->closed_frame[peer]) {
        out->alert_after_close = c->closed_frame[peer];
        out->alert_after_close_cause = c->closed_cause[peer];
    }
    conn_sni(out, c);
    out->client_hello_frame = c->client_hello_frame;
    tlsneg_check_input in = {.client_hello = c->client_hello,
                             .is_alert = true,
                             .alert_level = level,
                             .alert_description = description,
                             .no_details = no_details(s)};
    tlsneg_check(&out->findings, &in);
    tlsneg_tracker *t = tracker_of(s);
    if (t && out->alert_ends && hold_early(c, ev, TLSNEG_CAUSE_ALERT, description)) {
        out->held = true; /* told with the ClientHello it makes fail */
        return;
    }
    if (t) {
        uint32_t failed = tlsneg_tracker_alert(t, c->id, ev->time_us, description, out->alert_ends,
                                               out->alert_from_server, &out->verdicts);
        add_verdicts(out, ev->frame);
        uint8_t alert;
        uint8_t cause = failed ? tlsneg_tracker_cause(t, c->id, &alert) : TLSNEG_CAUSE_NONE;
        if (cause != TLSNEG_CAUSE_NONE && cause != TLSNEG_CAUSE_CLIENT_ABORT) {
            tlsneg_tracker_failed_in(t, c->id, ev->frame);
        }
        if (cause != TLSNEG_CAUSE_NONE && failed < ev->frame &&
            out->num_back_notes < TLSNEG_MAX_BACK_NOTES) {
            out->failed_attempt = failed;
            out->failure_cause = cause;
            fill_failed(&out->back_notes[out->num_back_notes++], failed, ev->frame, cause, alert);
        }
    }
}

/* keep_close keeps on c the first FIN or RST of ev's sender (its side:
 * the ClientHello's sender is the client, before any the transport tells),
 * unless the connection was reset already (tlsneg-pcap reports a
 * connection's first RST only). */
static void keep_close(tlsneg_conn *c, const tlsneg_event *ev, bool reset)
{
    int side = c->has_client_hello                  ? !tlsneg_session_from_client(c, &ev->src)
               : ev->sender == TLSNEG_SENDER_CLIENT ? 0
               : ev->sender == TLSNEG_SENDER_SERVER ? 1
                                                    : -1;
    bool was_reset =
        c->closed_cause[0] == TLSNEG_CAUSE_RESET || c->closed_cause[1] == TLSNEG_CAUSE_RESET;
    if (side < 0 || c->closed_frame[side] || (reset && was_reset)) {
        return;
    }
    c->closed_frame[side] = ev->frame;
    c->closed_cause[side] = reset ? TLSNEG_CAUSE_RESET : TLSNEG_CAUSE_CLOSE;
}

void tlsneg_session_close(tlsneg_session *s, tlsneg_conn *c, const tlsneg_event *ev, bool reset,
                          tlsneg_close_result *out)
{
    memset(out, 0, sizeof *out);
    keep_close(c, ev, reset);
    tlsneg_tracker *t = tracker_of(s);
    if (!t || hold_early(c, ev, reset ? TLSNEG_CAUSE_RESET : TLSNEG_CAUSE_CLOSE, 0)) {
        return;
    }
    out->ended_attempt_frame = tlsneg_tracker_close(t, c->id, ev->time_us, reset);
    if (out->ended_attempt_frame) {
        out->cause = reset ? TLSNEG_CAUSE_RESET : TLSNEG_CAUSE_CLOSE;
        tlsneg_tracker_failed_in(t, c->id, ev->frame);
        out->from_client = tlsneg_session_from_client(c, &ev->src);
        set_sni(&out->has_sni, out->sni, c->client_hello ? c->client_hello->sni : NULL);
        fill_failed(&out->note, out->ended_attempt_frame, ev->frame, out->cause, 0);
    }
}

void tlsneg_session_forget(tlsneg_session *s, tlsneg_conn *c)
{
    (void)s;
    memset(c, 0, sizeof *c);
}

void tlsneg_session_progress(tlsneg_session *s, tlsneg_conn *c, const tlsneg_event *ev)
{
    tlsneg_tracker *t = tracker_of(s);
    if (t && c->has_client_hello) {
        tlsneg_tracker_progress(t, c->id, !tlsneg_session_from_client(c, &ev->src));
    }
}
