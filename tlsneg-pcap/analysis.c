/* SPDX-License-Identifier: GPL-2.0-or-later */
/* analysis.c: the packet path's events through the session layer to the
 * outputs (analysis.h). */
#include "analysis.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/facts.h"
#include "core/hello.h"
#include "report/output.h"
#include "trace.h"

/* What the session layer keeps per connection (--trace and the outputs),
 * found by the packet path's connection id: about 1 KB per connection, freed
 * when the packet path drops the flow (TLSNEG_PCAP_END), so that memory
 * stays flat in the number of connections. */
typedef struct {
    uint64_t id; /* 0: free slot */
    tlsneg_conn conn;
    tlsneg_facts kept;
    tlsneg_facts_buf kept_buf;
} trace_conn;

struct tlsneg_analysis {
    tlsneg_analysis_config cfg;
    FILE *out;
    tlsneg_session *session;
    trace_conn **slots;
    size_t cap, used;
    size_t peak;          /* the most entries held at once, for --stats */
    tlsneg_result result; /* large: one, reused */
    tlsneg_out_msg_buf view_buf;
    /* The outputs asked for (--jsonl, --csv, --report), in that order. */
    tlsneg_out *outs[3];
    size_t num_outs;
};

static size_t trace_home(uint64_t id, size_t cap)
{
    return (size_t)(id * 0x9e3779b97f4a7c15ull) & (cap - 1);
}

/* trace_slot returns where the entry of id is, or where it would go (an
 * empty slot); the table has slots (cap > 0). */
static size_t trace_slot(const tlsneg_analysis *t, uint64_t id)
{
    size_t j = trace_home(id, t->cap);
    while (t->slots[j] && t->slots[j]->id != id) {
        j = (j + 1) & (t->cap - 1);
    }
    return j;
}

/* trace_lookup returns the entry of id, or NULL. */
static trace_conn *trace_lookup(const tlsneg_analysis *t, uint64_t id)
{
    return t->cap ? t->slots[trace_slot(t, id)] : NULL;
}

/* trace_forget drops the entry of id (the packet path dropped its flow):
 * the session layer forgets it, and the entries after it in its probe run
 * move back into the hole (linear probing without tombstones). */
static void trace_forget(tlsneg_analysis *t, uint64_t id)
{
    if (!t->cap) {
        return;
    }
    size_t mask = t->cap - 1, j = trace_slot(t, id);
    if (!t->slots[j]) {
        return;
    }
    tlsneg_session_forget(t->session, &t->slots[j]->conn);
    free(t->slots[j]);
    t->slots[j] = NULL;
    t->used--;
    for (size_t k = (j + 1) & mask; t->slots[k]; k = (k + 1) & mask) {
        size_t h = trace_home(t->slots[k]->id, t->cap);
        /* The entry at k may fill the hole at j unless its home lies
         * cyclically in (j, k]. */
        bool home_between = j <= k ? (j < h && h <= k) : (j < h || h <= k);
        if (!home_between) {
            t->slots[j] = t->slots[k];
            t->slots[k] = NULL;
            j = k;
        }
    }
}

static trace_conn *trace_find(tlsneg_analysis *t, uint64_t id)
{
    if (t->used * 2 >= t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        trace_conn **slots = calloc(cap, sizeof *slots);
        if (!slots) {
            return NULL;
        }
        for (size_t i = 0; i < t->cap; i++) {
            if (t->slots[i]) {
                size_t j = trace_home(t->slots[i]->id, cap);
                while (slots[j]) {
                    j = (j + 1) & (cap - 1);
                }
                slots[j] = t->slots[i];
            }
        }
        free(t->slots);
        t->slots = slots;
        t->cap = cap;
    }
    size_t j = trace_slot(t, id);
    if (!t->slots[j]) {
        /* kept_buf is written before it is read (tlsneg_facts_copy): only
         * what comes before it starts zeroed. */
        trace_conn *c = malloc(sizeof *c);
        if (!c) {
            return NULL;
        }
        memset(c, 0, offsetof(trace_conn, kept_buf));
        c->id = id;
        c->conn.id = id;
        t->slots[j] = c;
        if (++t->used > t->peak) {
            t->peak = t->used;
        }
    }
    return t->slots[j];
}

static void trace_free(tlsneg_analysis *t)
{
    for (size_t i = 0; i < t->cap; i++) {
        free(t->slots[i]);
    }
    free(t->slots);
    t->slots = NULL;
    t->cap = t->used = 0;
    tlsneg_session_free(t->session);
    t->session = NULL;
}

/* out_frame_of describes ev's frame for the writer. */
static tlsneg_out_frame out_frame_of(const tlsneg_pcap_event *ev)
{
    tlsneg_out_frame fr = {ev->frame,
                           (int64_t)(ev->time_us / 1000000u),
                           (uint32_t)(ev->time_us % 1000000u),
                           {ev->src_addr, ev->addr_len, NULL, ev->src_port},
                           {ev->dst_addr, ev->addr_len, NULL, ev->dst_port}};
    return fr;
}

static void outs_message(const tlsneg_pcap_event *ev, tlsneg_analysis *t, const tlsneg_result *x)
{
    if (!t->num_outs) {
        return;
    }
    tlsneg_out_msg m;
    tlsneg_out_msg_view(&m, &t->view_buf, x);
    tlsneg_out_frame fr = out_frame_of(ev);
    for (size_t i = 0; i < t->num_outs; i++) {
        tlsneg_out_message(t->outs[i], &fr, &m);
    }
}

tlsneg_analysis *tlsneg_analysis_new(const tlsneg_analysis_config *cfg, FILE *out)
{
    tlsneg_analysis *t = calloc(1, sizeof *t);
    if (!t) {
        return NULL;
    }
    t->cfg = *cfg;
    t->out = out;
    for (int f = TLSNEG_OUT_JSONL; f <= TLSNEG_OUT_REPORT; f++) {
        if (cfg->want[f]) {
            t->outs[t->num_outs] = tlsneg_out_new((tlsneg_out_format)f, out);
            if (!t->outs[t->num_outs]) {
                tlsneg_analysis_end(t);
                return NULL;
            }
            tlsneg_out_header(t->outs[t->num_outs++]);
        }
    }
    tlsneg_tracker_config tc = TLSNEG_TRACKER_DEFAULTS;
    tc.max_attempts = cfg->max_attempts;
    t->session = tlsneg_session_new(&tc);
    if (!t->session) {
        tlsneg_analysis_end(t);
        return NULL;
    }
    return t;
}

void tlsneg_analysis_end(tlsneg_analysis *t)
{
    if (!t) {
        return;
    }
    trace_free(t);
    for (size_t i = 0; i < t->num_outs; i++) {
        tlsneg_out_end(t->outs[i]);
        tlsneg_out_free(t->outs[i]);
    }
    free(t);
}

void tlsneg_analysis_prepare(const tlsneg_pcap_event *ev, tlsneg_prepared *p)
{
    tlsneg_wire wire = ev->transport == TLSNEG_PCAP_DTLS   ? TLSNEG_WIRE_DTLS
                       : ev->transport == TLSNEG_PCAP_QUIC ? TLSNEG_WIRE_QUIC
                                                           : TLSNEG_WIRE_TLS;
    tlsneg_message m;
    p->framed = tlsneg_frame_message(&m, wire, ev->has_record_version, ev->record_version,
                                     ev->bytes, ev->len, 0, NULL, 0);
    if (p->framed) {
        tlsneg_session_parse(&p->parsed, &m, ev->has_record_version, ev->record_version);
    }
}

/* close_event: a TCP FIN or RST on tc. */
static void close_event(tlsneg_analysis *t, trace_conn *tc, const tlsneg_pcap_event *ev,
                        const tlsneg_event *e)
{
    tlsneg_close_result cx;
    tlsneg_session_close(t->session, &tc->conn, e, ev->reset, &cx);
    if (cx.ended_attempt_frame) {
        tlsneg_out_frame fr = out_frame_of(ev);
        for (size_t i = 0; i < t->num_outs; i++) {
            tlsneg_out_close(t->outs[i], &fr, cx.cause, cx.from_client, cx.ended_attempt_frame,
                             cx.has_sni ? cx.sni : NULL);
        }
    }
    if (t->cfg.trace) {
        tlsneg_trace_close(t->out, ev, &cx);
    }
}

/* hello_event: a hello on tc, framed and parsed in prep. */
static void hello_event(tlsneg_analysis *t, trace_conn *tc, const tlsneg_pcap_event *ev,
                        const tlsneg_event *e, const tlsneg_prepared *prep)
{
    tlsneg_result *x = &t->result;
    tlsneg_session_judge(t->session, &tc->conn, e, &prep->parsed, x);
    if (!x->analysed) {
        return;
    }
    if (x->keep_facts) {
        tlsneg_facts_copy(&tc->kept, &tc->kept_buf, &x->facts);
        tlsneg_conn_keep_client_hello(&tc->conn, &tc->kept);
    }
    outs_message(ev, t, x);
    if (t->cfg.trace) {
        tlsneg_trace_message(t->out, ev, x);
    }
}

void tlsneg_analysis_event(tlsneg_analysis *t, uint32_t file_no, const tlsneg_pcap_event *ev,
                           const tlsneg_prepared *prep)
{
    /* The packet path numbers connections per file; the session layer
     * sees all files as one capture. */
    uint64_t id = (uint64_t)file_no << 40 | ev->conn;
    if (ev->kind == TLSNEG_PCAP_END) {
        trace_forget(t, id);
        return;
    }
    tlsneg_event e = {ev->frame,
                      ev->time_us,
                      {ev->src_addr, ev->addr_len, ev->src_port},
                      {ev->dst_addr, ev->addr_len, ev->dst_port},
                      ev->client_guessed ? TLSNEG_SENDER_UNKNOWN
                      : ev->from_client  ? TLSNEG_SENDER_CLIENT
                                         : TLSNEG_SENDER_SERVER};
    if (ev->kind == TLSNEG_PCAP_PROGRESS) {
        /* As the plugin: only a connection that has shown something. */
        trace_conn *pc = trace_lookup(t, id);
        if (pc) {
            tlsneg_session_progress(t->session, &pc->conn, &e);
        }
        if (t->cfg.trace) {
            tlsneg_trace_progress(t->out, ev);
        }
        return;
    }
    trace_conn *tc = trace_find(t, id);
    if (!tc) {
        return;
    }
    if (ev->kind == TLSNEG_PCAP_CLOSE) {
        close_event(t, tc, ev, &e);
    } else if (ev->kind == TLSNEG_PCAP_ALERT) {
        tlsneg_session_alert(t->session, &tc->conn, &e, ev->bytes[1], &t->result);
        outs_message(ev, t, &t->result);
        if (t->cfg.trace) {
            tlsneg_trace_alert(t->out, ev, &t->result);
        }
    } else if (prep->framed) {
        hello_event(t, tc, ev, &e, prep);
    }
}

void tlsneg_analysis_print_stats(const tlsneg_analysis *t, const char *name)
{
    if (!t) {
        return;
    }
    const tlsneg_tracker *tk = tlsneg_session_tracker(t->session);
    fprintf(stderr,
            "tlsneg-pcap: %s: session: %zu connections kept now, %zu at most; tracker: %zu "
            "attempts, %zu bytes\n",
            name, t->used, t->peak, tk ? tlsneg_tracker_attempts(tk) : 0,
            tk ? tlsneg_tracker_bytes(tk) : 0);
}
