/* SPDX-License-Identifier: GPL-2.0-or-later */
/* totals.c: the counts of totals.h, message by message. */
#include "report/totals.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "core/versions.h"

bool tlsneg_totals_init(tlsneg_totals *t, bool verdict_lines)
{
    memset(t, 0, sizeof *t);
    t->verdict_lines = verdict_lines;
    if (verdict_lines) {
        t->verdicts = calloc(TLSNEG_MAX_VERDICT_LINES, sizeof *t->verdicts);
        if (!t->verdicts) {
            return false;
        }
    }
    return true;
}

static void server_free(void *p)
{
    tlsneg_server_totals *s = p;
    free(s->sni);
    free(s->intolerant_of);
    free(s->offered.v);
    free(s->in_force.v);
    free(s);
}

void tlsneg_totals_reset(tlsneg_totals *t)
{
    tlsneg_map_clear(&t->probes, free);
    tlsneg_map_clear(&t->servers, server_free);
    tlsneg_map_clear(&t->offers, free);
    for (size_t i = 0; i < t->num_verdicts; i++) {
        free(t->verdicts[i]);
    }
    t->num_verdicts = 0;
    t->verdicts_dropped = 0;
    t->findings_dropped = 0;
    memset(t->findings, 0, sizeof t->findings);
    memset(t->messages, 0, sizeof t->messages);
}

void tlsneg_totals_free(tlsneg_totals *t)
{
    tlsneg_totals_reset(t);
    free(t->verdicts);
    tlsneg_buf_free(&t->scratch);
}

const char *tlsneg_rule_label(tlsneg_rule_id id, char *buf, size_t len)
{
    if (tlsneg_rule_is_variant(id)) {
        snprintf(buf, len, "%s (tlsneg.expert.%s)", tlsneg_rules[id].finding,
                 tlsneg_rules[id].name);
    } else {
        snprintf(buf, len, "%s", tlsneg_rules[id].finding);
    }
    return buf;
}

/* offer_pattern writes what a ClientHello offers, GREASE folded into one
 * token: "GREASE 0x0304 0x0303", or "legacy 0x0303" without the
 * extension. */
static void offer_pattern(const tlsneg_facts *f, tlsneg_buf *out)
{
    tlsneg_buf_clear(out);
    if (!f->has_supported_versions) {
        tlsneg_buf_add(out, "legacy ");
        tlsneg_buf_vhex(out, f->legacy_version);
        return;
    }
    bool grease = false;
    for (unsigned i = 0; i < f->num_offered; i++) {
        if (tlsneg_is_grease(f->offered[i])) {
            if (!grease) {
                tlsneg_buf_add(out, out->len ? " GREASE" : "GREASE");
            }
            grease = true;
            continue;
        }
        if (out->len) {
            tlsneg_buf_addc(out, ' ');
        }
        tlsneg_buf_vhex(out, f->offered[i]);
    }
    if (!out->len) {
        tlsneg_buf_add(out, "(empty)");
    }
}

void tlsneg_totals_probe(tlsneg_totals *t, const tlsneg_out_frame *fr, const tlsneg_out_msg *m)
{
    const tlsneg_kept_verdict *v =
        tlsneg_kept_find(m->verdicts, m->num_verdicts, TLSNEG_VERDICT_PROBE);
    if (!v) {
        return;
    }
    uint32_t k = v->probe.first_frame;
    tlsneg_probe_seen *ps = tlsneg_map_get(&t->probes, &k, sizeof k);
    if (!ps) {
        tlsneg_out_ends e = tlsneg_out_ends_of(fr, m->from_client);
        ps = calloc(1, sizeof *ps);
        if (!ps) {
            return;
        }
        tlsneg_out_addr_text(e.client, ps->client);
        tlsneg_out_addr_text(e.server, ps->server);
        ps->port = e.server->port;
        ps->transport = (uint8_t)tlsneg_wire_transport((tlsneg_wire)m->facts.wire);
        tlsneg_out_server_label(e.server, (tlsneg_wire)ps->transport, ps->label, sizeof ps->label);
        if (!tlsneg_map_put(&t->probes, &k, sizeof k, ps)) {
            free(ps);
            return;
        }
    }
    ps->p = v->probe;
}

/* server_key writes the key of a server (address length, address or its
 * text, port, transport, SNI) into key and returns its length: the address
 * is written out as text once per server, not once per message. */
static size_t server_key(uint8_t *key, const tlsneg_out_addr *a, tlsneg_wire transport,
                         const char *sni)
{
    size_t n = 0;
    const uint8_t *ab = a->text ? (const uint8_t *)a->text : a->bytes;
    size_t al = a->text ? strlen(a->text) : a->len;
    if (al > TLSNEG_ADDR_TEXT_MAX) {
        al = TLSNEG_ADDR_TEXT_MAX;
    }
    key[n++] = (uint8_t)(a->text ? 0xff : al);
    if (al) { /* an address of no known kind may have no bytes */
        memcpy(key + n, ab, al);
        n += al;
    }
    key[n++] = (uint8_t)(a->port >> 8);
    key[n++] = (uint8_t)a->port;
    key[n++] = (uint8_t)transport;
    size_t sl = strlen(sni);
    if (sl > TLSNEG_MAX_SNI) {
        sl = TLSNEG_MAX_SNI;
    }
    memcpy(key + n, sni, sl);
    return n + sl;
}

/* server_of finds or makes the server of a message that came over wire
 * (NULL when out of memory). */
static tlsneg_server_totals *server_of(tlsneg_totals *t, const tlsneg_out_frame *fr,
                                       bool from_client, tlsneg_wire wire, const char *sni)
{
    const tlsneg_out_addr *a = from_client ? &fr->dst : &fr->src;
    tlsneg_wire transport = tlsneg_wire_transport(wire);
    if (!sni) {
        sni = "";
    }
    uint8_t key[1 + TLSNEG_ADDR_TEXT_MAX + 3 + TLSNEG_MAX_SNI + 1];
    size_t n = server_key(key, a, transport, sni);
    tlsneg_server_totals *s = tlsneg_map_get(&t->servers, key, n);
    if (s) {
        return s;
    }
    s = calloc(1, sizeof *s);
    if (!s) {
        return NULL;
    }
    s->port = a->port;
    s->transport = (uint8_t)transport;
    s->dtls = transport == TLSNEG_WIRE_DTLS;
    s->sni = tlsneg_strdup(sni);
    tlsneg_out_addr_text(a, s->server);
    tlsneg_out_server_label(a, transport, s->label, sizeof s->label);
    if (!s->sni || !tlsneg_map_put(&t->servers, key, n, s)) {
        server_free(s);
        return NULL;
    }
    return s;
}

static void count(tlsneg_version_counts *c, uint16_t v)
{
    for (size_t i = 0; i < c->n; i++) {
        if (c->v[i].version == v) {
            c->v[i].count++;
            return;
        }
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 4;
        tlsneg_version_count *nv = realloc(c->v, cap * sizeof *nv);
        if (!nv) {
            return;
        }
        c->v = nv;
        c->cap = cap;
    }
    c->v[c->n].version = v;
    c->v[c->n].count = 1;
    c->n++;
}

static void verdict_line(tlsneg_totals *t, const char *line)
{
    if (t->num_verdicts < TLSNEG_MAX_VERDICT_LINES) {
        char *d = tlsneg_strdup(line);
        if (d) {
            t->verdicts[t->num_verdicts++] = d;
        }
    } else {
        t->verdicts_dropped++;
    }
}

static bool has_finding(const tlsneg_out_msg *m, tlsneg_rule_id id)
{
    for (unsigned i = 0; i < m->num_findings; i++) {
        if (m->findings[i].rule == id) {
            return true;
        }
    }
    return false;
}

/* count_findings counts m's findings, and keeps a verdict line for each
 * main one. */
static void count_findings(tlsneg_totals *t, const tlsneg_out_frame *fr, tlsneg_server_totals *s,
                           const tlsneg_out_msg *m)
{
    char label[128];
    t->findings_dropped += m->findings_dropped;
    for (unsigned i = 0; i < m->num_findings; i++) {
        tlsneg_rule_id id = m->findings[i].rule;
        t->findings[id]++;
        s->findings[id]++;
        /* An alert 86 is a verdict by itself; when the tracker saw the
         * retry it answers, fallback_rejected says it with the link, and in
         * a probe the probe's line says it. */
        if (t->verdict_lines && tlsneg_rule_is_verdict(id) &&
            !(id == TLSNEG_RULE_INAPPROPRIATE_FALLBACK &&
              (has_finding(m, TLSNEG_RULE_FALLBACK_REJECTED) ||
               tlsneg_kept_find(m->verdicts, m->num_verdicts, TLSNEG_VERDICT_PROBE)))) {
            tlsneg_buf_clear(&t->scratch);
            tlsneg_buf_printf(&t->scratch, "frame %u  %s%s%s  %s: %s", fr->frame, s->label,
                              m->sni ? " " : "", m->sni ? m->sni : "",
                              tlsneg_rule_label(id, label, sizeof label), m->findings[i].detail);
            verdict_line(t, tlsneg_buf_str(&t->scratch));
        }
    }
}

/* count_offer counts the offer of ClientHello f. */
static void count_offer(tlsneg_totals *t, const tlsneg_facts *f)
{
    offer_pattern(f, &t->scratch);
    const char *p = tlsneg_buf_str(&t->scratch);
    size_t plen = t->scratch.len + 1; /* with its NUL, as the key */
    unsigned *n = tlsneg_map_get(&t->offers, p, plen);
    if (!n) {
        n = calloc(1, sizeof *n);
        if (!n || !tlsneg_map_put(&t->offers, p, plen, n)) {
            free(n);
            n = NULL;
        }
    }
    if (n) {
        (*n)++;
    }
}

static void count_server_hello(tlsneg_server_totals *s, const tlsneg_out_frame *fr,
                               const tlsneg_out_msg *m)
{
    const tlsneg_facts *f = &m->facts;
    bool dtls = tlsneg_facts_is_dtls(f);
    if (f->is_hrr) {
        s->hrrs++;
    } else {
        s->server_hellos++;
        count(&s->in_force, f->negotiated_version);
        if (f->has_negotiated && tlsneg_version_rank(f->negotiated_version, dtls) >
                                     tlsneg_version_rank(s->top_version, dtls)) {
            s->top_version = f->negotiated_version;
            s->top_frame = fr->frame;
        }
    }
    const tlsneg_kept_verdict *intolerant =
        tlsneg_kept_find(m->verdicts, m->num_verdicts, TLSNEG_VERDICT_INTOLERANT);
    const char *what = intolerant ? tlsneg_kept_text(intolerant, TLSNEG_TEXT_INTOLERANT_OF) : NULL;
    if (what) {
        free(s->intolerant_of);
        s->intolerant_of = tlsneg_strdup(what);
        s->intolerant_frame = fr->frame;
        s->intolerant_below = f->negotiated_version;
    }
}

bool tlsneg_server_intolerant(const tlsneg_server_totals *s)
{
    return s->intolerant_of && tlsneg_version_rank(s->top_version, s->dtls) <=
                                   tlsneg_version_rank(s->intolerant_below, s->dtls);
}

void tlsneg_totals_message(tlsneg_totals *t, const tlsneg_out_frame *fr, const tlsneg_out_msg *m)
{
    const tlsneg_facts *f = &m->facts;
    tlsneg_server_totals *s = server_of(t, fr, m->from_client, (tlsneg_wire)f->wire, m->sni);
    if (!s) {
        return;
    }
    tlsneg_totals_probe(t, fr, m);
    t->messages[m->is_alert ? 0 : f->msg_type < 3 ? f->msg_type : 3]++;
    count_findings(t, fr, s, m);
    if (m->is_alert) {
        s->alerts += m->alert_from_server ? 1u : 0u;
        bool ends = m->alert_from_server && m->alert_ends;
        /* After the client's close or reset: counted apart, no failure. */
        s->alerts_after_close += ends && m->alert_after_close ? 1u : 0u;
        bool failure = ends && !m->alert_after_close;
        s->alert_failures += failure && !m->alert_after_server_hello ? 1u : 0u;
        s->alert_failures_after += failure && m->alert_after_server_hello ? 1u : 0u;
        s->alert_warnings +=
            m->alert_from_server && !m->alert_ends && m->alert_level == TLSNEG_ALERT_WARNING ? 1u
                                                                                             : 0u;
        return;
    }
    if (m->retransmission_of) {
        return;
    }
    if (f->msg_type == TLSNEG_HS_CLIENT_HELLO) {
        tlsneg_kx_client_hello(&s->kx, f);
        s->client_hellos++;
        if (f->has_offered_max) {
            count(&s->offered, f->offered_max);
        }
        count_offer(t, f);
        s->fallbacks +=
            tlsneg_kept_find(m->verdicts, m->num_verdicts, TLSNEG_VERDICT_FALLBACK) ? 1u : 0u;
    } else if (f->msg_type == TLSNEG_HS_SERVER_HELLO) {
        count_server_hello(s, fr, m);
        if (!f->is_hrr) {
            tlsneg_kx_server_hello(&s->kx, f, m->client_pq_offered);
        } else {
            bool lacks = false, to_pq = false;
            for (unsigned i = 0; i < m->num_findings; i++) {
                lacks |= m->findings[i].rule == TLSNEG_RULE_HRR_LACKS_PREDICTED;
                to_pq |= m->findings[i].rule == TLSNEG_RULE_HRR_MOVES_TO_PQ;
            }
            tlsneg_kx_hrr(&s->kx, f, lacks, to_pq);
        }
    }
}

void tlsneg_totals_close(tlsneg_totals *t, const tlsneg_out_frame *fr, uint8_t cause,
                         bool from_client, const char *sni)
{
    /* TCP's: a reset or a close (FIN) ends no DTLS or QUIC attempt. */
    tlsneg_server_totals *s = server_of(t, fr, from_client, TLSNEG_WIRE_TLS, sni);
    if (!s) {
        return;
    }
    if (cause == TLSNEG_CAUSE_RESET) {
        s->resets++;
    } else {
        s->closes++;
    }
}

static int by_first_frame(const void *a, const void *b)
{
    uint32_t fa = (*(tlsneg_probe_seen *const *)a)->p.first_frame;
    uint32_t fb = (*(tlsneg_probe_seen *const *)b)->p.first_frame;
    return (fa > fb) - (fa < fb);
}

tlsneg_probe_seen **tlsneg_totals_probes(const tlsneg_totals *t)
{
    tlsneg_probe_seen **list = (tlsneg_probe_seen **)tlsneg_map_values(&t->probes);
    if (list) {
        qsort(list, t->probes.used, sizeof *list, by_first_frame);
    }
    return list;
}

static int by_attempts(const void *a, const void *b)
{
    const tlsneg_server_totals *sa = *(tlsneg_server_totals *const *)a;
    const tlsneg_server_totals *sb = *(tlsneg_server_totals *const *)b;
    if (sa->client_hellos != sb->client_hellos) {
        return sa->client_hellos < sb->client_hellos ? 1 : -1;
    }
    int c = strcmp(sa->server, sb->server);
    if (c || sa->port != sb->port) {
        return c ? c : sa->port < sb->port ? -1 : 1;
    }
    c = strcmp(sa->sni, sb->sni);
    return c ? c : (sa->transport > sb->transport) - (sa->transport < sb->transport);
}

tlsneg_server_totals **tlsneg_totals_servers(const tlsneg_totals *t)
{
    tlsneg_server_totals **list = (tlsneg_server_totals **)tlsneg_map_values(&t->servers);
    if (list) {
        qsort(list, t->servers.used, sizeof *list, by_attempts);
    }
    return list;
}

static bool dtls_pair(uint16_t a, uint16_t b)
{
    return a >= 0xfe00 || b >= 0xfe00;
}

static int by_version_rank(const void *pa, const void *pb)
{
    uint16_t va = ((const tlsneg_version_count *)pa)->version;
    uint16_t vb = ((const tlsneg_version_count *)pb)->version;
    /* DTLS numbers run backwards; rank both families the same way. */
    bool dtls = dtls_pair(va, vb);
    unsigned ra = tlsneg_version_rank(va, dtls), rb = tlsneg_version_rank(vb, dtls);
    return ra == rb ? (va > vb) - (va < vb) : (ra < rb) - (ra > rb);
}

void tlsneg_version_list(const tlsneg_version_counts *c, tlsneg_buf *out, bool csv, bool dtls)
{
    tlsneg_version_count *sorted = malloc((c->n ? c->n : 1) * sizeof *sorted);
    if (!sorted) {
        return;
    }
    if (c->n) { /* c->v is NULL while nothing was counted */
        memcpy(sorted, c->v, c->n * sizeof *sorted);
        qsort(sorted, c->n, sizeof *sorted, by_version_rank);
    }
    char buf[TLSNEG_VERSION_NAME_MAX];
    for (size_t i = 0; i < c->n; i++) {
        if (i) {
            tlsneg_buf_add(out, csv ? ";" : ", ");
        }
        if (csv) {
            tlsneg_buf_vhex(out, sorted[i].version);
            tlsneg_buf_addc(out, ':');
        } else {
            tlsneg_buf_add(out, tlsneg_version_name_in(sorted[i].version, dtls, buf, sizeof buf));
            tlsneg_buf_add(out, " x");
        }
        tlsneg_buf_uint(out, sorted[i].count);
    }
    free(sorted);
}
