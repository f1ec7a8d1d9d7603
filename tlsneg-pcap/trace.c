/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace.c: tlsneg-pcap --trace (trace.h). */
#include "trace.h"

#include "analysis/checks.h"
#include "analysis/rules.h"
#include "core/facts.h"

static void trace_findings(FILE *o, const tlsneg_result *x)
{
    for (size_t i = 0; i < x->findings.count; i++) {
        const tlsneg_finding *f = &x->findings.item[i];
        fprintf(o, "    finding %s (%s): %s\n", tlsneg_rules[f->rule].finding,
                tlsneg_rules[f->rule].name, f->detail);
    }
    for (size_t i = 0; i < x->verdicts.count; i++) {
        fprintf(o, "    verdict %s\n", tlsneg_verdict_kind_name(x->verdicts.item[i].kind));
    }
    for (size_t i = 0; i < x->num_back_notes; i++) {
        fprintf(o, "    note for frame %u\n", x->back_notes[i].frame);
    }
}

/* side: who sent ev, as the packet path tells (or guesses). */
static const char *side(const tlsneg_ev *ev)
{
    return ev->sender == TLSNEG_SENDER_CLIENT ? "client" : "server";
}

void tlsneg_trace_progress(FILE *o, const tlsneg_ev *ev)
{
    fprintf(o, "frame %u conn %llu: ChangeCipherSpec or encrypted record from the %s\n", ev->frame,
            (unsigned long long)ev->conn, side(ev));
}

void tlsneg_trace_close(FILE *o, const tlsneg_ev *ev, const tlsneg_close_result *cx)
{
    fprintf(o, "frame %u conn %llu: %s from the %s", ev->frame, (unsigned long long)ev->conn,
            ev->kind == TLSNEG_EV_RST ? "RST" : "FIN", side(ev));
    if (cx->ended_attempt_frame) {
        fprintf(o, ", ends the attempt of frame %u before any ServerHello",
                cx->ended_attempt_frame);
    }
    fputc('\n', o);
}

void tlsneg_trace_alert(FILE *o, const tlsneg_ev *ev, const tlsneg_result *x)
{
    static const char *const levels[] = {"no level", "warning", "fatal"};
    char summary[256];
    const char *name = tlsneg_alert_name(ev->alert);
    fprintf(o, "frame %u conn %llu: alert %u (%s, %s) from the %s: %s\n", ev->frame,
            (unsigned long long)ev->conn, ev->alert, name ? name : "unknown",
            levels[x->alert_level < 3 ? x->alert_level : 0], side(ev),
            tlsneg_alert_summary(x->alert_level, x->alert_description, x->alert_ends,
                                 x->alert_from_server, x->client_hello_frame != 0,
                                 x->alert_after_close_cause, x->alert_after_close, summary,
                                 sizeof summary));
    trace_findings(o, x);
}

void tlsneg_trace_message(FILE *o, const tlsneg_ev *ev, const tlsneg_result *x)
{
    char summary[512];
    fprintf(o, "frame %u conn %llu: %s from the %s: %s", ev->frame, (unsigned long long)ev->conn,
            tlsneg_msg_name(&x->facts), x->from_client ? "client" : "server",
            tlsneg_facts_summary(&x->facts, summary, sizeof summary));
    if (x->retransmission_of) {
        fprintf(o, " (sent again: judged in frame %u)", x->retransmission_of);
    }
    fputc('\n', o);
    trace_findings(o, x);
}
