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

struct tlsneg_out {
    tlsneg_out_format format;
    FILE *out;
    tlsneg_buf line;      /* the records of one call */
    tlsneg_totals totals; /* the CSV and the report; the probes of the JSON lines */
};

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

void tlsneg_out_reset(tlsneg_out *o)
{
    tlsneg_totals_reset(&o->totals);
}

void tlsneg_out_free(tlsneg_out *o)
{
    if (!o) {
        return;
    }
    tlsneg_totals_free(&o->totals);
    tlsneg_buf_free(&o->line);
    free(o);
}

void tlsneg_out_header(tlsneg_out *o)
{
    if (o->format == TLSNEG_OUT_JSONL) {
        tlsneg_jsonl_header(o->out);
    }
}

void tlsneg_out_message(tlsneg_out *o, const tlsneg_out_frame *fr, const tlsneg_out_msg *m)
{
    if (o->format == TLSNEG_OUT_JSONL) {
        tlsneg_totals_probe(&o->totals, fr, m);
        tlsneg_jsonl_message(&o->line, fr, m);
        tlsneg_buf_flush(&o->line, o->out);
    } else {
        tlsneg_totals_message(&o->totals, fr, m);
    }
}

void tlsneg_out_close(tlsneg_out *o, const tlsneg_out_frame *fr, uint8_t cause, bool from_client,
                      uint32_t attempt_frame, const char *sni)
{
    if (o->format == TLSNEG_OUT_JSONL) {
        tlsneg_jsonl_close(&o->line, fr, cause, from_client, attempt_frame, sni);
        tlsneg_buf_flush(&o->line, o->out);
    } else {
        tlsneg_totals_close(&o->totals, fr, cause, from_client, sni);
    }
}

void tlsneg_out_end(tlsneg_out *o)
{
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
    out->alert_description = x->alert_description;
    out->alert_from_server = x->alert_from_server;
    if (!x->is_alert) {
        out->facts = x->facts;
    }
    out->client_hello_frame = x->client_hello_frame;
    out->retransmission_of = x->retransmission_of;
    out->from_client = x->from_client;
    out->sni = x->has_sni ? x->sni : NULL;
    out->title = x->title[0] ? x->title : NULL;
    out->failed_attempt = x->failed_attempt;
    out->failure_cause = x->failure_cause;
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
