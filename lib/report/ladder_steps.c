/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ladder_steps.c: the ladder's steps from the records every front end hands
 * to the outputs (output.h): a hello or an alert, its verdicts as notes, a
 * TCP reset or close; each on the lane of its server, SNI and client, with
 * the attempt of its connection. */
#include "report/ladder_rows.h"

#include "analysis/rules.h"
#include "analysis/tracker.h"
#include "core/versions.h"

#include <stdio.h>

/* The ends of a step, as its lane names them. */
typedef struct {
    char server[TLSNEG_SERVER_TEXT_MAX]; /* "192.0.2.1:443", "[2001:db8::1]:443",
                                            "192.0.2.1:443 udp/QUIC" */
    char client[TLSNEG_ADDR_TEXT_MAX];   /* "198.51.100.7" */
    const char *sni;
} peers;

/* peers_of names the server and the client of a step sent by the client
 * (from_client) or the server over wire: a QUIC or DTLS server is named
 * with its transport, a lane of its own beside the TLS server on the same
 * TCP port. */
static void peers_of(const tlsneg_out_frame *fr, bool from_client, tlsneg_wire wire,
                     const char *sni, peers *p)
{
    const tlsneg_out_addr *server = from_client ? &fr->dst : &fr->src;
    char endpoint[TLSNEG_ENDPOINT_TEXT_MAX];
    if (server->port) {
        tlsneg_out_endpoint_text(server, endpoint, sizeof endpoint);
    } else {
        tlsneg_out_addr_text(server, endpoint);
    }
    snprintf(p->server, sizeof p->server, "%s%s", endpoint, tlsneg_out_transport_label(wire));
    tlsneg_out_addr_text(from_client ? &fr->src : &fr->dst, p->client);
    p->sni = sni;
}

static int64_t frame_time_us(const tlsneg_out_frame *fr)
{
    return fr->secs * 1000000 + (int64_t)fr->usecs;
}

/* hello_step fills s (frame, attempt and direction set) for the hello m. */
static void hello_step(tlsneg_step *s, const tlsneg_out_msg *m)
{
    const tlsneg_facts *f = &m->facts;
    if (f->msg_type == TLSNEG_HS_CLIENT_HELLO) {
        for (unsigned i = 0; i < f->num_key_shares && s->num_groups < TLSNEG_LADDER_GROUPS; i++) {
            if (!tlsneg_is_grease(f->key_shares[i].group)) {
                s->groups[s->num_groups++] = f->key_shares[i].group;
            }
        }
        s->kind = TLSNEG_STEP_CLIENT_HELLO;
        s->has_version = f->has_offered_max;
        s->version = f->offered_max;
        s->fallback_scsv = f->fallback_scsv;
    } else if (f->msg_type == TLSNEG_HS_SERVER_HELLO) {
        s->kind = f->is_hrr ? TLSNEG_STEP_HELLO_RETRY_REQUEST : TLSNEG_STEP_SERVER_HELLO;
        s->has_version = f->is_hrr ? f->has_selected : f->has_negotiated;
        s->version = f->is_hrr ? f->selected_version : f->negotiated_version;
        if (f->has_group_selected) {
            s->groups[s->num_groups++] = f->group_selected;
        }
    } else {
        s->kind = TLSNEG_STEP_HELLO_VERIFY_REQUEST;
    }
}

void tlsneg_ladder_message(tlsneg_ladder *l, uint64_t conn, const tlsneg_out_frame *fr,
                           const tlsneg_out_msg *m)
{
    const tlsneg_facts *f = &m->facts;
    if ((!m->is_alert && m->retransmission_of) || m->held) {
        return; /* a held alert: a step of the ClientHello it made fail */
    }
    bool client_hello = !m->is_alert && f->msg_type == TLSNEG_HS_CLIENT_HELLO;
    peers p;
    peers_of(fr, m->from_client, (tlsneg_wire)f->wire, m->sni, &p);
    uint32_t attempt = tlsneg_ladder_attempt(l, conn, client_hello, fr->frame);
    /* The probe decision the report names is the analysis' (a verdict
     * across connections on the hello): taken over, not made again. */
    const tlsneg_kept_verdict *probe =
        tlsneg_kept_find(m->verdicts, m->num_verdicts, TLSNEG_VERDICT_PROBE);
    tlsneg_step s = {.frame = fr->frame,
                     .time_us = frame_time_us(fr),
                     .probe = probe ? probe->probe.first_frame : 0,
                     .attempt = attempt,
                     .from_client = m->from_client,
                     .dtls = f->wire == TLSNEG_WIRE_DTLS};
    if (m->is_alert) {
        s.kind = TLSNEG_STEP_ALERT;
        s.alert = m->alert_description;
        s.warning = m->alert_level == TLSNEG_ALERT_WARNING && !m->alert_ends;
        s.from_client = !m->alert_from_server;
        s.failure = m->failed_attempt ? m->failure_cause : 0;
        s.after_close = m->alert_after_close;
        s.after_close_cause = m->alert_after_close_cause;
    } else {
        hello_step(&s, m);
    }
    tlsneg_ladder_add(l, p.server, p.sni, p.client, &s);
    if (client_hello && m->early_frame) {
        /* The server ended the attempt before its ClientHello was complete. */
        tlsneg_step e = {.kind = m->early_cause == TLSNEG_CAUSE_ALERT   ? TLSNEG_STEP_ALERT
                                 : m->early_cause == TLSNEG_CAUSE_RESET ? TLSNEG_STEP_RESET
                                                                        : TLSNEG_STEP_CLOSE,
                         .frame = m->early_frame,
                         .time_us = (int64_t)m->early_time_us,
                         .attempt = attempt,
                         .alert = m->early_alert,
                         .failure = m->early_cause};
        tlsneg_ladder_add(l, p.server, p.sni, p.client, &e);
    }
    for (unsigned i = 0; i < m->num_findings; i++) {
        tlsneg_rule_id id = m->findings[i].rule;
        if (tlsneg_rule_is_verdict(id)) {
            tlsneg_step v = {.kind = TLSNEG_STEP_VERDICT,
                             .frame = fr->frame,
                             .time_us = s.time_us,
                             .attempt = attempt,
                             .finding = tlsneg_rules[id].finding,
                             .detail = m->findings[i].detail};
            tlsneg_ladder_add(l, p.server, p.sni, p.client, &v);
        }
    }
}

void tlsneg_ladder_close(tlsneg_ladder *l, uint64_t conn, const tlsneg_out_frame *fr, uint8_t cause,
                         bool from_client, uint32_t attempt_frame, const char *sni)
{
    peers p;
    peers_of(fr, from_client, TLSNEG_WIRE_TLS, sni, &p); /* TCP's */
    uint32_t attempt = tlsneg_ladder_attempt(l, conn, false, fr->frame);
    tlsneg_step s = {.kind = cause == TLSNEG_CAUSE_RESET ? TLSNEG_STEP_RESET : TLSNEG_STEP_CLOSE,
                     .frame = fr->frame,
                     .time_us = frame_time_us(fr),
                     .attempt = attempt ? attempt : attempt_frame,
                     .from_client = from_client,
                     .failure = cause};
    tlsneg_ladder_add(l, p.server, p.sni, p.client, &s);
}
