/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output.c: the writer of output.h: hands each message to the JSON lines
 * as it passes, or to the totals the CSV and the report write at the end;
 * and the view of a session result as a message. */
#include "report/output.h"

#include <stdlib.h>
#include <string.h>

#include "report/buf.h"
#include "report/totals.h"
#include "report/writers.h"

#include "core/util.h"

/* An alert held for the attempt whose ClientHello is not complete yet: the
 * message and its frame, with everything they point to copied. */
#define HELD_MAX 64

typedef struct {
    tlsneg_out_msg m;
    tlsneg_out_frame fr;
    tlsneg_out_finding findings[TLSNEG_MAX_FINDINGS];
    char *details[TLSNEG_MAX_FINDINGS];
    uint8_t addr[2][TLSNEG_ADDR_MAX];
    char text[2][TLSNEG_ADDR_TEXT_MAX];
} held_alert;

struct tlsneg_out {
    tlsneg_out_format format;
    FILE *out;
    tlsneg_buf line;            /* the records of one call */
    tlsneg_jsonl_ends ends;     /* the last JSON line's endpoints and SNI */
    tlsneg_totals totals;       /* the CSV and the report; the probes of the JSON lines */
    held_alert *held[HELD_MAX]; /* oldest first */
    size_t num_held;
};

bool tlsneg_out_writes_details(tlsneg_out_format format)
{
    return format == TLSNEG_OUT_REPORT;
}

tlsneg_out *tlsneg_out_new(tlsneg_out_format format, FILE *out)
{
    tlsneg_out *o = calloc(1, sizeof *o);
    if (!o) {
        return NULL;
    }
    o->format = format;
    o->out = out;
    if (!tlsneg_totals_init(&o->totals, format == TLSNEG_OUT_REPORT)) {
        free(o);
        return NULL;
    }
    return o;
}

static void held_free(held_alert *h)
{
    if (h) {
        for (unsigned i = 0; i < h->m.num_findings; i++) {
            free(h->details[i]);
        }
        free(h);
    }
}

static void held_clear(tlsneg_out *o)
{
    for (size_t i = 0; i < o->num_held; i++) {
        held_free(o->held[i]);
    }
    o->num_held = 0;
}

void tlsneg_out_reset(tlsneg_out *o)
{
    held_clear(o);
    tlsneg_totals_reset(&o->totals);
}

void tlsneg_out_free(tlsneg_out *o)
{
    if (!o) {
        return;
    }
    held_clear(o);
    tlsneg_totals_free(&o->totals);
    tlsneg_buf_free(&o->line);
    tlsneg_jsonl_ends_free(&o->ends);
    free(o);
}

void tlsneg_out_header(tlsneg_out *o)
{
    if (o->format == TLSNEG_OUT_JSONL) {
        tlsneg_jsonl_header(o->out);
    }
}

/* write_message writes (or counts) m of frame fr now. */
static void write_message(tlsneg_out *o, const tlsneg_out_frame *fr, const tlsneg_out_msg *m)
{
    if (o->format == TLSNEG_OUT_JSONL) {
        tlsneg_totals_probe(&o->totals, fr, m);
        tlsneg_jsonl_message(&o->line, &o->ends, fr, m);
        tlsneg_buf_flush(&o->line, o->out);
    } else {
        tlsneg_totals_message(&o->totals, fr, m);
    }
}

static void write_close(tlsneg_out *o, const tlsneg_out_frame *fr, uint8_t cause, bool from_client,
                        uint32_t attempt_frame, const char *sni)
{
    if (o->format == TLSNEG_OUT_JSONL) {
        tlsneg_jsonl_close(&o->line, &o->ends, fr, cause, from_client, attempt_frame, sni);
        tlsneg_buf_flush(&o->line, o->out);
    } else {
        tlsneg_totals_close(&o->totals, fr, cause, from_client, sni);
    }
}

/* held_take removes the held alert at index i and returns it. */
static held_alert *held_take(tlsneg_out *o, size_t i)
{
    held_alert *h = o->held[i];
    memmove(&o->held[i], &o->held[i + 1], (o->num_held - i - 1) * sizeof o->held[0]);
    o->num_held--;
    return h;
}

static void copy_addr(tlsneg_out_addr *a, uint8_t *bytes, char *text)
{
    size_t n = a->len < TLSNEG_ADDR_MAX ? a->len : TLSNEG_ADDR_MAX;
    if (n) {
        memcpy(bytes, a->bytes, n);
    }
    a->bytes = bytes;
    a->len = n;
    if (a->text) {
        tlsneg_strlcpy(text, TLSNEG_ADDR_TEXT_MAX, a->text);
        a->text = text;
    }
}

/* hold keeps the held alert m of frame fr (the oldest is written as it
 * came when there is no more room). */
static void hold(tlsneg_out *o, const tlsneg_out_frame *fr, const tlsneg_out_msg *m)
{
    held_alert *h = calloc(1, sizeof *h);
    if (!h) {
        write_message(o, fr, m);
        return;
    }
    if (o->num_held == HELD_MAX) {
        held_alert *old = held_take(o, 0);
        write_message(o, &old->fr, &old->m);
        held_free(old);
    }
    h->m = *m;
    h->fr = *fr;
    copy_addr(&h->fr.src, h->addr[0], h->text[0]);
    copy_addr(&h->fr.dst, h->addr[1], h->text[1]);
    unsigned n = m->num_findings < TLSNEG_MAX_FINDINGS ? m->num_findings : TLSNEG_MAX_FINDINGS;
    for (unsigned i = 0; i < n; i++) {
        h->findings[i].rule = m->findings[i].rule;
        h->details[i] = tlsneg_strdup(m->findings[i].detail ? m->findings[i].detail : "");
        h->findings[i].detail = h->details[i] ? h->details[i] : "";
    }
    h->m.num_findings = n;
    h->m.findings = h->findings;
    h->m.verdicts = NULL;
    h->m.num_verdicts = 0;
    h->m.sni = NULL;
    h->m.title = NULL;
    h->m.held = false;
    o->held[o->num_held++] = h;
}

/* write_early writes the server's ending that made the attempt of
 * ClientHello m (frame fr) fail before it was complete: the held alert,
 * now with its attempt, or the reset or close. */
static void write_early(tlsneg_out *o, const tlsneg_out_frame *fr, const tlsneg_out_msg *m)
{
    if (m->early_cause == TLSNEG_CAUSE_ALERT) {
        for (size_t i = 0; i < o->num_held; i++) {
            if (o->held[i]->fr.frame == m->early_frame) {
                held_alert *h = held_take(o, i);
                h->m.sni = m->sni;
                h->m.client_hello_frame = fr->frame;
                h->m.failed_attempt = fr->frame;
                h->m.failure_cause = TLSNEG_CAUSE_ALERT;
                write_message(o, &h->fr, &h->m);
                held_free(h);
                return;
            }
        }
        return;
    }
    /* Sent by the server: the ClientHello's ends the other way round. */
    tlsneg_out_frame e = {m->early_frame, (int64_t)(m->early_time_us / 1000000u),
                          (uint32_t)(m->early_time_us % 1000000u), fr->dst, fr->src};
    write_close(o, &e, m->early_cause, false, fr->frame, m->sni);
}

void tlsneg_out_message(tlsneg_out *o, const tlsneg_out_frame *fr, const tlsneg_out_msg *m)
{
    if (m->held) {
        hold(o, fr, m);
        return;
    }
    write_message(o, fr, m);
    if (m->early_frame) {
        write_early(o, fr, m);
    }
}

void tlsneg_out_close(tlsneg_out *o, const tlsneg_out_frame *fr, uint8_t cause, bool from_client,
                      uint32_t attempt_frame, const char *sni)
{
    write_close(o, fr, cause, from_client, attempt_frame, sni);
}

void tlsneg_out_end(tlsneg_out *o)
{
    /* Held alerts whose ClientHello never came: as they came. */
    while (o->num_held) {
        held_alert *h = held_take(o, 0);
        write_message(o, &h->fr, &h->m);
        held_free(h);
    }
    switch (o->format) {
    case TLSNEG_OUT_JSONL:
        tlsneg_jsonl_end(&o->totals, &o->line, o->out);
        break;
    case TLSNEG_OUT_CSV:
        tlsneg_csv_write(&o->totals, &o->line, o->out);
        break;
    case TLSNEG_OUT_REPORT:
        tlsneg_report_write(&o->totals, o->out);
        break;
    }
}

/* same_text keeps a text where it is: a view lives no longer than its result. */
static const char *same_text(void *ctx, const char *text)
{
    (void)ctx;
    return text;
}

void tlsneg_out_msg_view(tlsneg_out_msg *out, tlsneg_out_msg_buf *buf, const tlsneg_result *x)
{
    memset(out, 0, sizeof *out);
    out->is_alert = x->is_alert;
    out->alert_level = x->alert_level;
    out->alert_description = x->alert_description;
    out->alert_from_server = x->alert_from_server;
    out->alert_ends = x->alert_ends;
    out->alert_after_server_hello = x->alert_after_server_hello;
    out->alert_after_close = x->alert_after_close;
    out->alert_after_close_cause = x->alert_after_close_cause;
    if (!x->is_alert) {
        out->facts = x->facts;
    } else {
        out->facts.wire = x->facts.wire; /* an alert's facts: its wire alone */
    }
    out->client_hello_frame = x->client_hello_frame;
    out->retransmission_of = x->retransmission_of;
    out->from_client = x->from_client;
    out->sni = x->has_sni ? x->sni : NULL;
    out->title = x->title[0] ? x->title : NULL;
    out->failed_attempt = x->failed_attempt;
    out->failure_cause = x->failure_cause;
    out->held = x->held;
    out->early_frame = x->early_frame;
    out->early_time_us = x->early_time_us;
    out->early_cause = x->early_cause;
    out->early_alert = x->early_alert;
    out->client_pq_offered = x->client_pq_offered;
    out->hrr_frame = x->hrr_frame;
    out->hrr_changes = x->hrr_frame ? x->hrr_changes : NULL;
    size_t nf = x->findings.count < TLSNEG_MAX_FINDINGS ? x->findings.count : TLSNEG_MAX_FINDINGS;
    for (size_t i = 0; i < nf; i++) {
        buf->findings[i].rule = x->findings.item[i].rule;
        buf->findings[i].detail = x->findings.item[i].detail;
    }
    out->num_findings = (unsigned)nf;
    out->findings_dropped = (unsigned)(x->findings.dropped + (x->findings.count - nf));
    out->findings = buf->findings;
    size_t nv = x->verdicts.count < TLSNEG_MAX_VERDICTS ? x->verdicts.count : TLSNEG_MAX_VERDICTS;
    for (size_t i = 0; i < nv; i++) {
        tlsneg_verdict_keep(&buf->verdicts[i], &x->verdicts.item[i], NULL, same_text, NULL);
    }
    out->num_verdicts = (unsigned)nv;
    out->verdicts = buf->verdicts;
}

bool tlsneg_rule_is_variant(tlsneg_rule_id id)
{
    return strcmp(tlsneg_rules[id].name, tlsneg_rules[id].finding) != 0;
}
