/* SPDX-License-Identifier: GPL-2.0-or-later */
/* analysis.c: the packet path's events through the session layer to the
 * outputs (analysis.h). */
#include "analysis.h"

#include <stdlib.h>
#include <string.h>

#include "core/facts.h"
#include "core/hello.h"
#include "conntab.h"
#include "report/ladder.h"
#include "report/output.h"
#include "trace.h"
#include "heap.h"

/* What the session layer keeps per connection (--trace and the outputs),
 * found by the packet path's connection id: about 350 bytes per connection
 * and its ClientHello's lists (kept_lists, tlsneg_facts_pack), freed when
 * the packet path drops the flow (TLSNEG_EV_END), so that memory stays flat
 * in the number of connections. */
typedef struct {
    tlsneg_conntab_node node; /* first: its place in the table */
    uint64_t id;
    tlsneg_conn conn;
    tlsneg_facts kept;
    void *kept_lists;
} kept_conn;

struct tlsneg_analysis {
    tlsneg_analysis_config cfg;
    FILE *out;
    tlsneg_session *session;
    tlsneg_conntab conns; /* kept_conn by id */
    size_t peak;          /* the most connections kept at once, for --stats */
    tlsneg_result result; /* large: one, reused */
    tlsneg_out_msg_buf view_buf;
    /* The outputs asked for (--jsonl, --csv, --report), in that order. */
    tlsneg_out *outs[3];
    size_t num_outs;
    tlsneg_ladder *ladder; /* --ladder, --ladder-svg; NULL: none asked */
};

/* conn_hash: the packet path numbers connections one after the other; a
 * multiplicative hash spreads them over the buckets. */
static uint32_t conn_hash(uint64_t id)
{
    return (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 32);
}

/* conn_lookup returns the connection of id, or NULL. */
static kept_conn *conn_lookup(const tlsneg_analysis *t, uint64_t id)
{
    uint32_t h = conn_hash(id);
    for (tlsneg_conntab_node *n = tlsneg_conntab_chain(&t->conns, h); n; n = n->next) {
        if (n->hash == h && ((kept_conn *)n)->id == id) {
            return (kept_conn *)n;
        }
    }
    return NULL;
}

/* conn_forget drops the connection of id (the packet path dropped its
 * flow): the session layer forgets it. */
static void conn_forget(tlsneg_analysis *t, uint64_t id)
{
    kept_conn *c = conn_lookup(t, id);
    if (c) {
        tlsneg_session_forget(t->session, &c->conn);
        tlsneg_conntab_remove(&t->conns, &c->node);
        free(c->kept_lists);
        free(c);
    }
}

/* conn_find returns the connection of id, a fresh one if it is not kept
 * yet; NULL when out of memory. */
static kept_conn *conn_find(tlsneg_analysis *t, uint64_t id)
{
    kept_conn *c = conn_lookup(t, id);
    if (c) {
        return c;
    }
    c = tlsneg_zalloc(sizeof *c);
    if (!c) {
        return NULL;
    }
    c->id = id;
    c->conn.id = id;
    tlsneg_conntab_add(&t->conns, &c->node, conn_hash(id));
    if (t->conns.count > t->peak) {
        t->peak = t->conns.count;
    }
    return c;
}

/* keep_client_hello keeps f, the ClientHello the session layer judges the
 * connection's later messages by, its lists in a block of their size; out
 * of memory, none is kept (what needs it is not judged, as before a
 * connection's first hello). */
static void keep_client_hello(kept_conn *c, const tlsneg_facts *f)
{
    size_t size = tlsneg_facts_packed_size(f);
    free(c->kept_lists);
    c->kept_lists = size ? malloc(size) : NULL;
    if (size && !c->kept_lists) {
        tlsneg_conn_keep_client_hello(&c->conn, NULL);
        return;
    }
    tlsneg_facts_pack(&c->kept, c->kept_lists, f);
    tlsneg_conn_keep_client_hello(&c->conn, &c->kept);
}

static void conn_free(tlsneg_conntab_node *n)
{
    free(((kept_conn *)n)->kept_lists);
    free(n);
}

static void conns_free(tlsneg_analysis *t)
{
    if (t->conns.buckets) {
        tlsneg_conntab_clear(&t->conns, conn_free);
    }
    tlsneg_conntab_free(&t->conns);
    tlsneg_session_free(t->session);
    t->session = NULL;
}

/* out_frame_of describes ev's frame for the writer. */
static tlsneg_out_frame out_frame_of(const tlsneg_ev *ev)
{
    tlsneg_out_frame fr = {ev->frame,
                           (int64_t)(ev->time_us / 1000000u),
                           (uint32_t)(ev->time_us % 1000000u),
                           {ev->src, ev->addr_len, NULL, ev->sport},
                           {ev->dst, ev->addr_len, NULL, ev->dport}};
    return fr;
}

/* outs_message hands the message record x of connection id to the outputs
 * and the ladder. */
static void outs_message(const tlsneg_ev *ev, uint64_t id, tlsneg_analysis *t,
                         const tlsneg_result *x)
{
    if (!t->num_outs && !t->ladder) {
        return;
    }
    tlsneg_out_msg m;
    tlsneg_out_msg_view(&m, &t->view_buf, x);
    tlsneg_out_frame fr = out_frame_of(ev);
    for (size_t i = 0; i < t->num_outs; i++) {
        tlsneg_out_message(t->outs[i], &fr, &m);
    }
    if (t->ladder) {
        tlsneg_ladder_message(t->ladder, id, &fr, &m);
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
    if (cfg->ladder != TLSNEG_PCAP_LADDER_NONE) {
        t->ladder = tlsneg_ladder_new(TLSNEG_LADDER_MAX_STEPS);
        if (!t->ladder) {
            tlsneg_analysis_end(t);
            return NULL;
        }
    }
    tlsneg_tracker_config tc = TLSNEG_TRACKER_DEFAULTS;
    tc.max_attempts = cfg->max_attempts;
    /* The ladder and --trace write the sentences too. */
    tc.no_details = cfg->ladder == TLSNEG_PCAP_LADDER_NONE && !cfg->trace;
    for (int f = TLSNEG_OUT_JSONL; f <= TLSNEG_OUT_REPORT; f++) {
        tc.no_details &= !(cfg->want[f] && tlsneg_out_writes_details((tlsneg_out_format)f));
    }
    t->session = tlsneg_session_new(&tc);
    /* As many buckets as connections kept, up to 4 million. */
    if (!t->session || !tlsneg_conntab_init(&t->conns, 1u << 22)) {
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
    conns_free(t);
    for (size_t i = 0; i < t->num_outs; i++) {
        tlsneg_out_end(t->outs[i]);
        tlsneg_out_free(t->outs[i]);
    }
    if (t->ladder) {
        if (t->cfg.ladder == TLSNEG_PCAP_LADDER_SVG) {
            tlsneg_ladder_print_svg(t->ladder, t->out);
        } else {
            tlsneg_ladder_print(t->ladder, t->out);
        }
        tlsneg_ladder_free(t->ladder);
    }
    free(t);
}

void tlsneg_analysis_prepare(const tlsneg_ev *ev, tlsneg_prepared *p)
{
    tlsneg_message m;
    p->framed = tlsneg_ev_frame(&m, ev);
    if (p->framed) {
        tlsneg_session_parse(&p->parsed, &m, ev->has_record, ev->record_version);
    }
}

/* close_event: a TCP FIN or RST on tc. */
static void close_event(tlsneg_analysis *t, kept_conn *tc, const tlsneg_ev *ev,
                        const tlsneg_event *e)
{
    tlsneg_close_result cx;
    tlsneg_session_close(t->session, &tc->conn, e, ev->kind == TLSNEG_EV_RST, &cx);
    if (cx.ended_attempt_frame) {
        tlsneg_out_frame fr = out_frame_of(ev);
        const char *sni = cx.has_sni ? cx.sni : NULL;
        for (size_t i = 0; i < t->num_outs; i++) {
            tlsneg_out_close(t->outs[i], &fr, cx.cause, cx.from_client, cx.ended_attempt_frame,
                             sni);
        }
        if (t->ladder) {
            tlsneg_ladder_close(t->ladder, tc->id, &fr, cx.cause, cx.from_client,
                                cx.ended_attempt_frame, sni);
        }
    }
    if (t->cfg.trace) {
        tlsneg_trace_close(t->out, ev, &cx);
    }
}

/* hello_event: a hello on tc, framed and parsed in prep. */
static void hello_event(tlsneg_analysis *t, kept_conn *tc, const tlsneg_ev *ev,
                        const tlsneg_event *e, const tlsneg_prepared *prep)
{
    tlsneg_result *x = &t->result;
    tlsneg_session_judge(t->session, &tc->conn, e, &prep->parsed, x);
    if (!x->analysed) {
        return;
    }
    if (x->keep_facts) {
        keep_client_hello(tc, &x->facts);
    }
    outs_message(ev, tc->id, t, x);
    if (t->cfg.trace) {
        tlsneg_trace_message(t->out, ev, x);
    }
}

void tlsneg_analysis_event(tlsneg_analysis *t, uint32_t file_no, const tlsneg_ev *ev,
                           const tlsneg_prepared *prep)
{
    /* The packet path numbers connections per file; the session layer
     * sees all files as one capture. */
    uint64_t id = (uint64_t)file_no << 40 | ev->conn;
    if (ev->kind == TLSNEG_EV_END) {
        conn_forget(t, id);
        return;
    }
    tlsneg_event e = tlsneg_ev_session_event(ev);
    if (ev->kind == TLSNEG_EV_PROGRESS) {
        /* As the plugin: only a connection that has shown something. */
        kept_conn *pc = conn_lookup(t, id);
        if (pc) {
            tlsneg_session_progress(t->session, &pc->conn, &e);
        }
        if (t->cfg.trace) {
            tlsneg_trace_progress(t->out, ev);
        }
        return;
    }
    kept_conn *tc = conn_find(t, id);
    if (!tc) {
        return;
    }
    if (ev->kind == TLSNEG_EV_FIN || ev->kind == TLSNEG_EV_RST) {
        close_event(t, tc, ev, &e);
    } else if (ev->kind == TLSNEG_EV_ALERT) {
        tlsneg_session_alert(t->session, &tc->conn, &e, ev->wire, ev->alert_level, ev->alert,
                             &t->result);
        outs_message(ev, tc->id, t, &t->result);
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
            name, t->conns.count, t->peak, tk ? tlsneg_tracker_attempts(tk) : 0,
            tk ? tlsneg_tracker_bytes(tk) : 0);
}
