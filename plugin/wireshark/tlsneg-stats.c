/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-stats.c: what tlsneg found, for a whole capture.
 *
 *   tshark -q -z tlsneg,report[,filter]   a report for people, at the end
 *   tshark -q -z tlsneg,jsonl[,filter]    JSON lines as frames pass (schema 1)
 *   tshark -q -z tlsneg,csv[,filter]      one CSV row per server, at the end
 *   Statistics > TLS Version Negotiation  (and -z tlsneg_tree,tree)
 *
 * Everything here reads the per-frame results the postdissector hands to the
 * "tlsneg" tap; nothing is computed twice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <epan/packet.h>
#include <epan/stat_tap_ui.h>
#include <epan/stats_tree.h>
#include <epan/tap.h>
#include <epan/to_str.h>

#include "packet-tlsneg.h"
#include "ws-compat.h"

#include "analysis/rules.h"
#include "core/versions.h"

#define JSONL_SCHEMA_VERSION 1

/* ---- one message, as the outputs see it --------------------------------- */

typedef struct {
    const char *client, *server; /* addresses, packet scope */
    guint32 client_port, server_port;
} endpoints;

static endpoints endpoints_of(packet_info *pinfo, gboolean from_client)
{
    endpoints e;
    const address *c = from_client ? &pinfo->src : &pinfo->dst;
    const address *s = from_client ? &pinfo->dst : &pinfo->src;
    e.client = address_to_str(pinfo->pool, c);
    e.server = address_to_str(pinfo->pool, s);
    e.client_port = from_client ? pinfo->srcport : pinfo->destport;
    e.server_port = from_client ? pinfo->destport : pinfo->srcport;
    return e;
}

/* vhex writes "0x0304" into buf (8 bytes); no printf: it runs per hello. */
static const char *vhex(guint16 v, char *buf)
{
    static const char digits[] = "0123456789abcdef";
    buf[0] = '0';
    buf[1] = 'x';
    for (int i = 0; i < 4; i++) {
        buf[2 + i] = digits[(v >> (12 - 4 * i)) & 0xf];
    }
    buf[6] = '\0';
    return buf;
}

/* A rule's public name is its finding, the value of tlsneg.finding; a
 * variant (a row whose expert name differs) is shown beside it as the
 * expert info's own filter, tlsneg.expert.<name>. Both work as filters
 * exactly as printed. */
static gboolean is_variant(tlsneg_rule_id id)
{
    return strcmp(tlsneg_rules[id].name, tlsneg_rules[id].finding) != 0;
}

/* rule_label writes "fallback_retry (tlsneg.expert.fallback_retry_scsv)" or
 * "fallback_retry" into buf. */
static const char *rule_label(tlsneg_rule_id id, char *buf, size_t len)
{
    if (is_variant(id)) {
        snprintf(buf, len, "%s (tlsneg.expert.%s)", tlsneg_rules[id].finding,
                 tlsneg_rules[id].name);
    } else {
        snprintf(buf, len, "%s", tlsneg_rules[id].finding);
    }
    return buf;
}

/* server_text writes a server as address:port, an IPv6 address in
 * brackets ([2001:db8::1]:443, RFC 5952 6). */
static char *server_text(const address *addr, const char *text, guint32 port)
{
    return addr->type == AT_IPv6 ? g_strdup_printf("[%s]:%u", text, port)
                                 : g_strdup_printf("%s:%u", text, port);
}

/* offer_pattern writes what a ClientHello offers, GREASE folded into one
 * token: "GREASE 0x0304 0x0303", or "legacy 0x0303" without the
 * extension. */
static void offer_pattern(const tlsneg_facts *f, GString *out)
{
    char h[8];
    g_string_truncate(out, 0);
    if (!f->has_supported_versions) {
        g_string_append(out, "legacy ");
        g_string_append(out, vhex(f->legacy_version, h));
        return;
    }
    gboolean grease = FALSE;
    for (guint i = 0; i < f->num_offered; i++) {
        if (tlsneg_is_grease(f->offered[i])) {
            if (!grease) {
                g_string_append(out, out->len ? " GREASE" : "GREASE");
            }
            grease = TRUE;
            continue;
        }
        if (out->len) {
            g_string_append_c(out, ' ');
        }
        g_string_append(out, vhex(f->offered[i], h));
    }
    if (!out->len) {
        g_string_append(out, "(empty)");
    }
}

/* ---- JSON lines ---------------------------------------------------------- */

static void json_string(GString *out, const char *s)
{
    g_string_append_c(out, '"');
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\') {
            g_string_append_c(out, '\\');
        }
        if ((unsigned char)*s < 0x20) {
            g_string_append_printf(out, "\\u%04x", (unsigned char)*s);
        } else {
            g_string_append_c(out, *s);
        }
    }
    g_string_append_c(out, '"');
}

static void json_version(GString *out, const char *key, gboolean has, guint16 v)
{
    char h[8];
    if (has) {
        g_string_append_printf(out, ",\"%s\":\"%s\"", key, vhex(v, h));
    } else {
        g_string_append_printf(out, ",\"%s\":null", key);
    }
}

static void json_common(GString *out, const char *record, packet_info *pinfo, const endpoints *e,
                        const char *sni)
{
    g_string_append_printf(out, "{\"record\":\"%s\",\"frame\":%u,\"time\":%ld.%06d", record,
                           pinfo->num, (long)pinfo->abs_ts.secs, pinfo->abs_ts.nsecs / 1000);
    g_string_append(out, ",\"client\":");
    json_string(out, e->client);
    g_string_append_printf(out, ",\"client_port\":%u,\"server\":", e->client_port);
    json_string(out, e->server);
    g_string_append_printf(out, ",\"port\":%u,\"sni\":", e->server_port);
    if (sni) {
        json_string(out, sni);
    } else {
        g_string_append(out, "null");
    }
}

/* findings: the rule names (tlsneg.finding); experts: the expert info of
 * each, in the same order (tlsneg.expert.<name>, the variant). */
static void json_findings(GString *out, const msg_result *r)
{
    g_string_append(out, ",\"findings\":[");
    for (guint i = 0; i < r->num_findings; i++) {
        g_string_append_printf(out, "%s\"%s\"", i ? "," : "",
                               tlsneg_rules[r->findings[i].rule].finding);
    }
    g_string_append(out, "],\"experts\":[");
    for (guint i = 0; i < r->num_findings; i++) {
        g_string_append_printf(out, "%s\"%s\"", i ? "," : "",
                               tlsneg_rules[r->findings[i].rule].name);
    }
    g_string_append_c(out, ']');
}

static void jsonl_hello(GString *out, packet_info *pinfo, const msg_result *r)
{
    const tlsneg_facts *f = &r->facts;
    char h[8];
    endpoints e = endpoints_of(pinfo, r->from_client);
    json_common(out, "hello", pinfo, &e, r->sni);
    g_string_append(out, ",\"msg\":");
    json_string(out, tlsneg_msg_name(f));
    json_version(out, "legacy_version", TRUE, f->legacy_version);
    if (f->msg_type == TLSNEG_HS_CLIENT_HELLO) {
        g_string_append(out, ",\"offered\":");
        if (f->has_supported_versions) {
            g_string_append_c(out, '[');
            for (guint i = 0; i < f->num_offered; i++) {
                g_string_append_printf(out, "%s\"%s\"", i ? "," : "", vhex(f->offered[i], h));
            }
            g_string_append_c(out, ']');
        } else {
            g_string_append(out, "null");
        }
        json_version(out, "offered_max", f->has_offered_max, f->offered_max);
        g_string_append_printf(out, ",\"fallback_scsv\":%s,\"grease\":%u",
                               f->fallback_scsv ? "true" : "false", f->grease_count);
    } else {
        json_version(out, "selected", f->has_selected, f->selected_version);
        json_version(out, "negotiated", f->has_negotiated, f->negotiated_version);
    }
    if (r->retransmission_of) {
        g_string_append_printf(out, ",\"retransmission_of\":%u", r->retransmission_of);
    }
    const kept_verdict *fallback = kept_verdict_find(r, TLSNEG_VERDICT_FALLBACK);
    if (fallback) {
        g_string_append_printf(out, ",\"fallback_of\":%u",
                               kept_verdict_link(fallback, TLSNEG_LINK_PREVIOUS_ATTEMPT));
    }
    const kept_verdict *same = kept_verdict_find(r, TLSNEG_VERDICT_SAME_RETRY);
    if (same) {
        g_string_append_printf(out, ",\"retry_of\":%u",
                               kept_verdict_link(same, TLSNEG_LINK_SAME_OFFER_AS));
    }
    const kept_verdict *probe = kept_verdict_find(r, TLSNEG_VERDICT_PROBE);
    if (probe) {
        g_string_append_printf(out, ",\"probe\":%u", probe->probe.first_frame);
    }
    json_findings(out, r);
    g_string_append(out, "}\n");
}

/* ---- probes: one line each, with what the last of its messages knew ------ */

typedef struct {
    tlsneg_probe p;
    char *client, *server;
    guint32 port;
} probe_seen;

static void probe_seen_free(gpointer v)
{
    probe_seen *ps = (probe_seen *)v;
    g_free(ps->client);
    g_free(ps->server);
    g_free(ps);
}

static GHashTable *probes_new(void)
{
    return g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, probe_seen_free);
}

/* probes_update keeps the newest state of every probe a message belongs to. */
static void probes_update(GHashTable *probes, packet_info *pinfo, const msg_result *r)
{
    const kept_verdict *v = kept_verdict_find(r, TLSNEG_VERDICT_PROBE);
    if (!v) {
        return;
    }
    const tlsneg_probe *p = &v->probe;
    gpointer k = GUINT_TO_POINTER(p->first_frame);
    probe_seen *ps = (probe_seen *)g_hash_table_lookup(probes, k);
    if (!ps) {
        endpoints e = endpoints_of(pinfo, r->from_client);
        ps = g_new0(probe_seen, 1);
        ps->client = g_strdup(e.client);
        ps->server = g_strdup(e.server);
        ps->port = e.server_port;
        g_hash_table_insert(probes, k, ps);
    }
    ps->p = *p;
}

static gint by_frame(gconstpointer a, gconstpointer b)
{
    guint fa = GPOINTER_TO_UINT(a), fb = GPOINTER_TO_UINT(b);
    return (fa > fb) - (fa < fb);
}

/* probes_sorted: the probes' first frames, in frame order. */
static GList *probes_sorted(GHashTable *probes)
{
    return g_list_sort(g_hash_table_get_keys(probes), by_frame);
}

/* probe_line writes "127.0.0.1 probed 127.0.0.1:4433 with 110 hellos in 12.0
 * s, SSL 3.0 to TLS 1.3, SCSV probe answered with 86: a scanner". */
static void probe_line(GString *out, const probe_seen *ps)
{
    char text[200];
    g_string_append_printf(out, "%s %s", ps->client, tlsneg_probe_text(&ps->p, text, sizeof text));
    /* "probed with ..." -> "probed SERVER:PORT with ..." */
    const char *with = strstr(out->str, "probed with");
    if (with) {
        gssize at = (gssize)(with - out->str) + 7;
        char where[128];
        snprintf(where, sizeof where, "%s:%u ", ps->server, ps->port);
        g_string_insert(out, at, where);
    }
    g_string_append_printf(out, " (from frame %u): a scanner", ps->p.first_frame);
}

static void jsonl_outcome(GString *out, packet_info *pinfo, const endpoints *e, const char *sni,
                          guint32 attempt_frame, const char *outcome)
{
    json_common(out, "outcome", pinfo, e, sni);
    g_string_append_printf(out, ",\"attempt_frame\":%u,\"outcome\":\"%s\"", attempt_frame, outcome);
}

typedef struct {
    GString *out;
    GHashTable *probes;
} jsonl_state;

static tap_packet_status jsonl_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt _U_,
                                      const void *data, tap_flags_t flags _U_)
{
    const frame_result *res = (const frame_result *)data;
    jsonl_state *js = (jsonl_state *)tapdata;
    GString *out = js->out;
    g_string_truncate(out, 0);
    for (guint i = 0; i < res->num_msgs; i++) {
        const msg_result *r = &res->msgs[i];
        probes_update(js->probes, pinfo, r);
        endpoints e = endpoints_of(pinfo, r->from_client);
        if (r->is_alert) {
            jsonl_outcome(out, pinfo, &e, r->sni, r->client_hello_frame, "alert");
            g_string_append_printf(out, ",\"alert\":%u,\"from_server\":%s", r->alert_description,
                                   r->alert_from_server ? "true" : "false");
            json_findings(out, r);
            g_string_append(out, "}\n");
            continue;
        }
        jsonl_hello(out, pinfo, r);
        if (r->facts.msg_type == TLSNEG_HS_SERVER_HELLO && !r->retransmission_of) {
            jsonl_outcome(out, pinfo, &e, r->sni, r->client_hello_frame,
                          r->facts.is_hrr ? "hello_retry_request" : "server_hello");
            json_version(out, "version", r->facts.has_negotiated, r->facts.negotiated_version);
            g_string_append(out, "}\n");
        }
    }
    if (res->close) {
        endpoints e = endpoints_of(pinfo, res->close_from_client);
        jsonl_outcome(out, pinfo, &e, res->close_sni, res->close_attempt_frame,
                      res->close == TLSNEG_CAUSE_RESET ? "reset" : "close");
        g_string_append(out, "}\n");
    }
    /* Streamed: every record leaves as its frame passes. */
    fputs(out->str, stdout);
    fflush(stdout);
    return TAP_PACKET_DONT_REDRAW;
}

/* ---- the report and the CSV: totals per server, per offer, per rule ------ */

/* One server: its own key in report.servers (address, port, SNI). */
typedef struct {
    address addr;
    guint32 port;
    char *sni;     /* "" without SNI */
    char *server;  /* addr as text */
    char *label;   /* address:port, [IPv6]:port */
    gboolean dtls; /* names versions as DTLS */
    guint client_hellos, server_hellos, hrrs, alerts, resets, closes, fallbacks;
    GHashTable *offered;  /* highest version offered -> count */
    GHashTable *in_force; /* version -> count */
    guint findings[TLSNEG_RULE_COUNT];
    char *intolerant_of;
    guint32 intolerant_frame;
} server_stats;

typedef struct {
    gboolean csv;
    GHashTable *servers; /* server_stats, keyed by themselves */
    GHashTable *offers;  /* offer pattern -> guint count */
    GString *pattern;    /* scratch for offer_pattern */
    guint findings[TLSNEG_RULE_COUNT];
    guint messages[4];   /* by msg_type; [0] alerts */
    GPtrArray *verdicts; /* the main findings, one line each, in frame order */
    guint verdicts_dropped;
    GHashTable *probes; /* first frame -> probe_seen */
} report;

#define MAX_VERDICT_LINES 1000

static void server_stats_free(gpointer p)
{
    server_stats *s = (server_stats *)p;
    free_address(&s->addr);
    g_free(s->server);
    g_free(s->label);
    g_free(s->sni);
    g_free(s->intolerant_of);
    g_hash_table_destroy(s->offered);
    g_hash_table_destroy(s->in_force);
    g_free(s);
}

static void report_reset(void *tapdata)
{
    report *rp = (report *)tapdata;
    g_hash_table_remove_all(rp->servers);
    g_hash_table_remove_all(rp->offers);
    g_ptr_array_set_size(rp->verdicts, 0);
    g_hash_table_remove_all(rp->probes);
    memset(rp->findings, 0, sizeof rp->findings);
    memset(rp->messages, 0, sizeof rp->messages);
    rp->verdicts_dropped = 0;
}

static guint server_hash(gconstpointer p)
{
    const server_stats *s = (const server_stats *)p;
    return add_address_to_hash(s->port, &s->addr) ^ g_str_hash(s->sni);
}

static gboolean server_equal(gconstpointer a, gconstpointer b)
{
    const server_stats *sa = (const server_stats *)a, *sb = (const server_stats *)b;
    return sa->port == sb->port && addresses_equal(&sa->addr, &sb->addr) &&
           strcmp(sa->sni, sb->sni) == 0;
}

/* server_of finds the server of a message by binary key: the address is
 * written out as text once per server, not once per message. */
static server_stats *server_of(report *rp, packet_info *pinfo, gboolean from_client,
                               const char *sni)
{
    server_stats probe;
    probe.addr = from_client ? pinfo->dst : pinfo->src;
    probe.port = from_client ? pinfo->destport : pinfo->srcport;
    probe.sni = (char *)(sni ? sni : "");
    server_stats *s = (server_stats *)g_hash_table_lookup(rp->servers, &probe);
    if (s) {
        return s;
    }
    s = g_new0(server_stats, 1);
    copy_address(&s->addr, &probe.addr);
    s->port = probe.port;
    s->sni = g_strdup(probe.sni);
    s->server = address_to_str(NULL, &s->addr);
    s->label = server_text(&s->addr, s->server, s->port);
    s->offered = g_hash_table_new(g_direct_hash, g_direct_equal);
    s->in_force = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_hash_table_add(rp->servers, s);
    return s;
}

static void count(GHashTable *t, guint v)
{
    gpointer k = GUINT_TO_POINTER(v);
    g_hash_table_insert(t, k, GUINT_TO_POINTER(GPOINTER_TO_UINT(g_hash_table_lookup(t, k)) + 1));
}

static void verdict(report *rp, char *line)
{
    if (rp->verdicts->len < MAX_VERDICT_LINES) {
        g_ptr_array_add(rp->verdicts, line);
    } else {
        rp->verdicts_dropped++;
        g_free(line);
    }
}

static gboolean has_finding(const msg_result *r, tlsneg_rule_id id)
{
    for (guint i = 0; i < r->num_findings; i++) {
        if (r->findings[i].rule == id) {
            return TRUE;
        }
    }
    return FALSE;
}

static void report_msg(report *rp, packet_info *pinfo, const msg_result *r)
{
    server_stats *s = server_of(rp, pinfo, r->from_client, r->sni);
    const tlsneg_facts *f = &r->facts;
    char label[128];
    probes_update(rp->probes, pinfo, r);
    rp->messages[r->is_alert ? 0 : MIN(f->msg_type, 3)]++;
    if (!r->is_alert && tlsneg_facts_is_dtls(f)) {
        s->dtls = TRUE;
    }
    for (guint i = 0; i < r->num_findings; i++) {
        tlsneg_rule_id id = r->findings[i].rule;
        rp->findings[id]++;
        s->findings[id]++;
        /* An alert 86 is a verdict by itself; when the tracker saw the
         * retry it answers, fallback_rejected says it with the link, and in
         * a probe the probe's line says it. */
        if (tlsneg_rule_is_verdict(id) && !(id == TLSNEG_RULE_INAPPROPRIATE_FALLBACK &&
                                            (has_finding(r, TLSNEG_RULE_FALLBACK_REJECTED) ||
                                             kept_verdict_find(r, TLSNEG_VERDICT_PROBE)))) {
            verdict(rp,
                    g_strdup_printf("frame %u  %s%s%s  %s: %s", pinfo->num, s->label,
                                    r->sni ? " " : "", r->sni ? r->sni : "",
                                    rule_label(id, label, sizeof label), r->findings[i].detail));
        }
    }
    if (r->is_alert) {
        s->alerts += r->alert_from_server ? 1u : 0u;
        return;
    }
    if (r->retransmission_of) {
        return;
    }
    if (f->msg_type == TLSNEG_HS_CLIENT_HELLO) {
        s->client_hellos++;
        if (f->has_offered_max) {
            count(s->offered, f->offered_max);
        }
        offer_pattern(f, rp->pattern);
        guint *n = (guint *)g_hash_table_lookup(rp->offers, rp->pattern->str);
        if (!n) {
            n = g_new0(guint, 1);
            g_hash_table_insert(rp->offers, g_strdup(rp->pattern->str), n);
        }
        (*n)++;
        s->fallbacks += kept_verdict_find(r, TLSNEG_VERDICT_FALLBACK) ? 1u : 0u;
    } else if (f->msg_type == TLSNEG_HS_SERVER_HELLO) {
        if (f->is_hrr) {
            s->hrrs++;
        } else {
            s->server_hellos++;
            count(s->in_force, f->negotiated_version);
        }
        const kept_verdict *intolerant = kept_verdict_find(r, TLSNEG_VERDICT_INTOLERANT);
        const char *what =
            intolerant ? kept_verdict_text(intolerant, TLSNEG_TEXT_INTOLERANT_OF) : NULL;
        if (what) {
            g_free(s->intolerant_of);
            s->intolerant_of = g_strdup(what);
            s->intolerant_frame = pinfo->num;
        }
    }
}

static tap_packet_status report_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt _U_,
                                       const void *data, tap_flags_t flags _U_)
{
    report *rp = (report *)tapdata;
    const frame_result *res = (const frame_result *)data;
    for (guint i = 0; i < res->num_msgs; i++) {
        report_msg(rp, pinfo, &res->msgs[i]);
    }
    if (res->close) {
        server_stats *s = server_of(rp, pinfo, res->close_from_client, res->close_sni);
        if (res->close == TLSNEG_CAUSE_RESET) {
            s->resets++;
        } else {
            s->closes++;
        }
    }
    return TAP_PACKET_REDRAW;
}

static gint by_version_rank(gconstpointer a, gconstpointer b)
{
    guint va = GPOINTER_TO_UINT(a), vb = GPOINTER_TO_UINT(b);
    /* DTLS numbers run backwards; rank both families the same way. */
    gboolean dtls = va >= 0xfe00 || vb >= 0xfe00;
    unsigned ra = tlsneg_version_rank((guint16)va, dtls),
             rb = tlsneg_version_rank((guint16)vb, dtls);
    return ra == rb ? (va > vb) - (va < vb) : (ra < rb) - (ra > rb);
}

/* version_counts writes "TLS 1.3 x3, TLS 1.2 x1" (sep " x") or
 * "0x0304:3;0x0303:1" for the CSV. */
static void version_counts(GHashTable *t, GString *out, gboolean csv, gboolean dtls)
{
    GList *keys = g_list_sort(g_hash_table_get_keys(t), by_version_rank);
    char buf[TLSNEG_VERSION_NAME_MAX];
    for (GList *k = keys; k; k = k->next) {
        guint v = GPOINTER_TO_UINT(k->data);
        guint n = GPOINTER_TO_UINT(g_hash_table_lookup(t, k->data));
        if (csv) {
            g_string_append_printf(out, "%s%s:%u", k == keys ? "" : ";", vhex((guint16)v, buf), n);
        } else {
            g_string_append_printf(out, "%s%s x%u", k == keys ? "" : ", ",
                                   tlsneg_version_name_in((guint16)v, dtls, buf, sizeof buf), n);
        }
    }
    g_list_free(keys);
}

static gint by_attempts(gconstpointer a, gconstpointer b)
{
    const server_stats *sa = *(const server_stats *const *)a, *sb = *(const server_stats *const *)b;
    if (sa->client_hellos != sb->client_hellos) {
        return sa->client_hellos < sb->client_hellos ? 1 : -1;
    }
    int c = strcmp(sa->server, sb->server);
    return c ? c : sa->port != sb->port ? (sa->port < sb->port ? -1 : 1) : strcmp(sa->sni, sb->sni);
}

/* by_count orders the keys of a pattern -> guint count table: most common
 * first, then by name. */
static gint by_count(gconstpointer a, gconstpointer b, gpointer table)
{
    guint na = *(const guint *)g_hash_table_lookup((GHashTable *)table, a);
    guint nb = *(const guint *)g_hash_table_lookup((GHashTable *)table, b);
    return na != nb ? (na < nb ? 1 : -1) : strcmp((const char *)a, (const char *)b);
}

static GPtrArray *sorted_servers(report *rp)
{
    GPtrArray *list = g_ptr_array_new();
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, rp->servers);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        g_ptr_array_add(list, v);
    }
    g_ptr_array_sort(list, by_attempts);
    return list;
}

/* finding_counts writes "fallback_retry:2;grease_selected:1": each rule by
 * its finding name (tlsneg.finding), its variants counted in, in rules.def
 * order. */
static void finding_counts(const guint *findings, GString *out)
{
    for (int r = 0; r < TLSNEG_RULE_COUNT; r++) {
        guint n = 0;
        gboolean first = TRUE;
        for (int v = 0; v < TLSNEG_RULE_COUNT; v++) {
            if (strcmp(tlsneg_rules[v].finding, tlsneg_rules[r].finding) == 0) {
                first = first && v >= r;
                n += findings[v];
            }
        }
        if (first && n) {
            g_string_append_printf(out, "%s%s:%u", out->len ? ";" : "", tlsneg_rules[r].finding, n);
        }
    }
}

static void print_csv(report *rp)
{
    GPtrArray *list = sorted_servers(rp);
    GString *a = g_string_new(NULL), *b = g_string_new(NULL), *c = g_string_new(NULL);
    printf("server,port,sni,client_hellos,server_hellos,hello_retry_requests,alerts,resets,"
           "closes,fallbacks,intolerant_of,highest_offered,in_force,findings\n");
    for (guint i = 0; i < list->len; i++) {
        const server_stats *s = (const server_stats *)g_ptr_array_index(list, i);
        g_string_truncate(a, 0);
        g_string_truncate(b, 0);
        g_string_truncate(c, 0);
        version_counts(s->offered, a, TRUE, s->dtls);
        version_counts(s->in_force, b, TRUE, s->dtls);
        finding_counts(s->findings, c);
        /* SNI and intolerant_of are quoted: escaped SNI never holds a quote
         * unescaped, but may hold a comma. */
        printf("%s,%u,\"%s\",%u,%u,%u,%u,%u,%u,%u,\"%s\",%s,%s,%s\n", s->server, s->port, s->sni,
               s->client_hellos, s->server_hellos, s->hrrs, s->alerts, s->resets, s->closes,
               s->fallbacks, s->intolerant_of ? s->intolerant_of : "", a->str, b->str, c->str);
    }
    g_string_free(a, TRUE);
    g_string_free(b, TRUE);
    g_string_free(c, TRUE);
    g_ptr_array_free(list, TRUE);
}

static void print_report(report *rp)
{
    GPtrArray *list = sorted_servers(rp);
    GString *a = g_string_new(NULL);
    guint intolerant = 0, fallbacks = 0;
    for (guint i = 0; i < list->len; i++) {
        const server_stats *s = (const server_stats *)g_ptr_array_index(list, i);
        intolerant += s->intolerant_of ? 1u : 0u;
        fallbacks += s->fallbacks;
    }
    printf("\n=== tlsneg report ===\n");
    printf("%u ClientHello, %u ServerHello/HelloRetryRequest, %u HelloVerifyRequest, %u "
           "plaintext alerts; %u servers; %u fallback retries; %u version-intolerant servers\n",
           rp->messages[1], rp->messages[2], rp->messages[3], rp->messages[0], list->len, fallbacks,
           intolerant);

    GList *probes = probes_sorted(rp->probes);
    if (probes) {
        printf("\n--- Probes (scanners: their attempts are not judged as fallbacks or "
               "intolerance) ---\n");
    }
    for (GList *k = probes; k; k = k->next) {
        g_string_truncate(a, 0);
        probe_line(a, (const probe_seen *)g_hash_table_lookup(rp->probes, k->data));
        printf("%s\n", a->str);
    }
    g_list_free(probes);

    printf("\n--- Verdicts (frame order) ---\n");
    if (!rp->verdicts->len) {
        printf("none: no fallback, intolerance, downgrade or bad server choice seen\n");
    }
    for (guint i = 0; i < rp->verdicts->len; i++) {
        printf("%s\n", (const char *)g_ptr_array_index(rp->verdicts, i));
    }
    if (rp->verdicts_dropped) {
        printf("... %u more\n", rp->verdicts_dropped);
    }

    printf("\n--- Servers (address:port SNI) ---\n");
    for (guint i = 0; i < list->len; i++) {
        const server_stats *s = (const server_stats *)g_ptr_array_index(list, i);
        printf("%s %s\n", s->label, *s->sni ? s->sni : "(no SNI)");
        g_string_truncate(a, 0);
        version_counts(s->offered, a, FALSE, s->dtls);
        printf("  offered (highest): %s\n", a->len ? a->str : "-");
        g_string_truncate(a, 0);
        version_counts(s->in_force, a, FALSE, s->dtls);
        printf("  in force:          %s\n", a->len ? a->str : "-");
        printf("  %u ClientHello, %u ServerHello, %u HelloRetryRequest; failures: %u alerts, %u "
               "resets, %u closes before any ServerHello; %u fallback retries\n",
               s->client_hellos, s->server_hellos, s->hrrs, s->alerts, s->resets, s->closes,
               s->fallbacks);
        if (s->intolerant_of) {
            printf("  VERSION-INTOLERANT: does not tolerate %s (verdict in frame %u)\n",
                   s->intolerant_of, s->intolerant_frame);
        }
        g_string_truncate(a, 0);
        for (int r = 0; r < TLSNEG_RULE_COUNT; r++) {
            if (s->findings[r]) {
                char label[128];
                g_string_append_printf(a, "%s%s x%u", a->len ? ", " : "",
                                       rule_label((tlsneg_rule_id)r, label, sizeof label),
                                       s->findings[r]);
            }
        }
        if (a->len) {
            printf("  findings: %s\n", a->str);
        }
    }

    printf("\n--- Client offers (supported_versions, GREASE folded) ---\n");
    GList *offers = g_list_sort_with_data(g_hash_table_get_keys(rp->offers), by_count, rp->offers);
    for (GList *o = offers; o; o = o->next) {
        printf("%8u  %s\n", *(const guint *)g_hash_table_lookup(rp->offers, o->data),
               (const char *)o->data);
    }
    g_list_free(offers);

    printf("\n--- Findings per rule (tlsneg.finding; a variant by its expert info) ---\n");
    for (int r = 0; r < TLSNEG_RULE_COUNT; r++) {
        if (rp->findings[r]) {
            const tlsneg_rule *rule = &tlsneg_rules[r];
            if (is_variant((tlsneg_rule_id)r)) {
                printf("%8u  %-28s %-14s %-5s  tlsneg.expert.%s\n", rp->findings[r], rule->finding,
                       tlsneg_group_name(rule->group), tlsneg_severity_name(rule->severity),
                       rule->name);
            } else {
                printf("%8u  %-28s %-14s %s\n", rp->findings[r], rule->finding,
                       tlsneg_group_name(rule->group), tlsneg_severity_name(rule->severity));
            }
        }
    }
    printf("===\n");
    g_string_free(a, TRUE);
    g_ptr_array_free(list, TRUE);
}

static void report_draw(void *tapdata)
{
    report *rp = (report *)tapdata;
    if (rp->csv) {
        print_csv(rp);
    } else {
        print_report(rp);
    }
}

static void report_finish(void *tapdata)
{
    report *rp = (report *)tapdata;
    g_hash_table_destroy(rp->servers);
    g_hash_table_destroy(rp->offers);
    g_string_free(rp->pattern, TRUE);
    g_ptr_array_free(rp->verdicts, TRUE);
    g_hash_table_destroy(rp->probes);
    g_free(rp);
}

/* ---- -z registration ------------------------------------------------------ */

/* filter_of returns what follows "tlsneg,<kind>," in the -z argument. */
static const char *filter_of(const char *opt_arg, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(opt_arg, prefix, n) == 0 && opt_arg[n] == ',' ? opt_arg + n + 1 : NULL;
}

/* listen registers the tap listener of -z name; on an error (a bad display
 * filter) it says so and returns FALSE: the statistic does not start, and the
 * caller frees tapdata. */
static gboolean listen(const char *name, void *tapdata, const char *filter, tap_reset_cb reset,
                       tap_packet_cb packet, tap_draw_cb draw, tap_finish_cb finish)
{
    GString *err = register_tap_listener("tlsneg", tapdata, filter, TL_REQUIRES_NOTHING, reset,
                                         packet, draw, finish);
    if (err) {
        fprintf(stderr, "tshark: -z %s: %s\n", name, err->str);
        g_string_free(err, TRUE);
        return FALSE;
    }
    return TRUE;
}

static tlsneg_stat_init_result report_init(const char *opt_arg, void *userdata)
{
    gboolean csv = GPOINTER_TO_INT(userdata);
    report *rp = g_new0(report, 1);
    rp->csv = csv;
    rp->servers = g_hash_table_new_full(server_hash, server_equal, server_stats_free, NULL);
    rp->offers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    rp->pattern = g_string_new(NULL);
    rp->verdicts = g_ptr_array_new_with_free_func(g_free);
    rp->probes = probes_new();
    const char *prefix = csv ? "tlsneg,csv" : "tlsneg,report";
    if (!listen(prefix, rp, filter_of(opt_arg, prefix), report_reset, report_packet, report_draw,
                report_finish)) {
        report_finish(rp);
        TLSNEG_STAT_INIT_FAILED;
    }
    TLSNEG_STAT_INIT_DONE;
}

/* jsonl_draw: one probe record per recognised probe, at the end, with its
 * totals (a probe is known complete only once the capture has been read). */
static void jsonl_draw(void *tapdata)
{
    jsonl_state *js = (jsonl_state *)tapdata;
    GList *keys = probes_sorted(js->probes);
    char lo[8], hi[8];
    for (GList *k = keys; k; k = k->next) {
        const probe_seen *ps = (const probe_seen *)g_hash_table_lookup(js->probes, k->data);
        GString *out = js->out;
        g_string_truncate(out, 0);
        g_string_append_printf(out,
                               "{\"record\":\"probe\",\"frame\":%u,\"client\":", ps->p.first_frame);
        json_string(out, ps->client);
        g_string_append(out, ",\"server\":");
        json_string(out, ps->server);
        g_string_append_printf(
            out,
            ",\"port\":%u,\"hellos\":%u,\"seconds\":%.3f,\"lowest\":\"%s\",\"highest\":\"%s\","
            "\"scsv\":%u,\"scsv_refused\":%u}\n",
            ps->port, ps->p.hellos, (double)(ps->p.last_us - ps->p.first_us) / 1e6,
            vhex(ps->p.lowest, lo), vhex(ps->p.highest, hi), ps->p.scsv, ps->p.scsv_refused);
        fputs(out->str, stdout);
    }
    g_list_free(keys);
    fflush(stdout);
}

static void jsonl_finish(void *tapdata)
{
    jsonl_state *js = (jsonl_state *)tapdata;
    g_string_free(js->out, TRUE);
    g_hash_table_destroy(js->probes);
    g_free(js);
}

static tlsneg_stat_init_result jsonl_init(const char *opt_arg, void *userdata _U_)
{
    printf("{\"record\":\"header\",\"schema\":\"tlsneg-jsonl\",\"version\":%d,"
           "\"records\":[\"hello\",\"outcome\",\"probe\"]}\n",
           JSONL_SCHEMA_VERSION);
    fflush(stdout);
    jsonl_state *js = g_new0(jsonl_state, 1);
    js->out = g_string_new(NULL);
    js->probes = probes_new();
    if (!listen("tlsneg,jsonl", js, filter_of(opt_arg, "tlsneg,jsonl"), NULL, jsonl_packet,
                jsonl_draw, jsonl_finish)) {
        jsonl_finish(js);
        TLSNEG_STAT_INIT_FAILED;
    }
    TLSNEG_STAT_INIT_DONE;
}

/* ---- Statistics menu: a stats tree ---------------------------------------- */

static int st_offered, st_in_force, st_findings, st_messages;

static void tree_init(stats_tree *st)
{
    st_messages = stats_tree_create_node(st, "Messages", 0, STAT_DT_INT, TRUE);
    st_offered = stats_tree_create_node(st, "Highest version offered", 0, STAT_DT_INT, TRUE);
    st_in_force = stats_tree_create_node(st, "Version in force", 0, STAT_DT_INT, TRUE);
    st_findings = stats_tree_create_node(st, "Findings", 0, STAT_DT_INT, TRUE);
}

static tap_packet_status tree_packet(stats_tree *st, packet_info *pinfo _U_,
                                     epan_dissect_t *edt _U_, const void *data,
                                     tap_flags_t flags _U_)
{
    const frame_result *res = (const frame_result *)data;
    char name[96], v[TLSNEG_VERSION_NAME_MAX];
    for (guint i = 0; i < res->num_msgs; i++) {
        const msg_result *r = &res->msgs[i];
        const tlsneg_facts *f = &r->facts;
        gboolean dtls = !r->is_alert && tlsneg_facts_is_dtls(f);
        tick_stat_node(st, "Messages", 0, TRUE);
        tick_stat_node(st, r->is_alert ? "Alert" : tlsneg_msg_name(f), st_messages, FALSE);
        if (!r->is_alert && !r->retransmission_of && f->msg_type == TLSNEG_HS_CLIENT_HELLO &&
            f->has_offered_max) {
            snprintf(name, sizeof name, "%s (0x%04x)",
                     tlsneg_version_name_in(f->offered_max, dtls, v, sizeof v), f->offered_max);
            tick_stat_node(st, "Highest version offered", 0, TRUE);
            tick_stat_node(st, name, st_offered, FALSE);
        }
        if (!r->is_alert && !r->retransmission_of && f->has_negotiated) {
            snprintf(name, sizeof name, "%s (0x%04x)",
                     tlsneg_version_name_in(f->negotiated_version, dtls, v, sizeof v),
                     f->negotiated_version);
            tick_stat_node(st, "Version in force", 0, TRUE);
            tick_stat_node(st, name, st_in_force, FALSE);
        }
        for (guint k = 0; k < r->num_findings; k++) {
            tlsneg_rule_id id = r->findings[k].rule;
            tick_stat_node(st, "Findings", 0, TRUE);
            int node = tick_stat_node(st, tlsneg_rules[id].finding, st_findings, TRUE);
            if (is_variant(id)) {
                snprintf(name, sizeof name, "tlsneg.expert.%s", tlsneg_rules[id].name);
                tick_stat_node(st, name, node, FALSE);
            }
        }
    }
    return TAP_PACKET_REDRAW;
}

void tlsneg_register_stats(void)
{
    static stat_tap_ui report_ui = {REGISTER_STAT_GROUP_GENERIC,
                                    "TLS version negotiation report",
                                    "tlsneg,report",
                                    report_init,
                                    0,
                                    NULL};
    static stat_tap_ui csv_ui = {REGISTER_STAT_GROUP_GENERIC,
                                 "TLS version negotiation CSV",
                                 "tlsneg,csv",
                                 report_init,
                                 0,
                                 NULL};
    static stat_tap_ui jsonl_ui = {REGISTER_STAT_GROUP_GENERIC,
                                   "TLS version negotiation JSON lines",
                                   "tlsneg,jsonl",
                                   jsonl_init,
                                   0,
                                   NULL};
    register_stat_tap_ui(&report_ui, GINT_TO_POINTER(FALSE));
    register_stat_tap_ui(&csv_ui, GINT_TO_POINTER(TRUE));
    register_stat_tap_ui(&jsonl_ui, NULL);
    stats_tree_register_plugin("tlsneg", "tlsneg_tree", "TLS Version Negotiation", 0, tree_packet,
                               tree_init, NULL);
    tlsneg_register_ladder();
}
