/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.c: the report for people (docs/output-formats.md), at the end:
 * the totals, the probes, the verdicts in frame order, each server, the
 * client offers, the findings per rule. */
#include "report/writers.h"

#include "core/versions.h"

#include <stdlib.h>
#include <string.h>

/* probe_line writes "127.0.0.1 probed 127.0.0.1:4433 with 110 hellos in 12.0
 * s, SSL 3.0 to TLS 1.3, SCSV probe answered with 86 (from frame 4): a
 * scanner"; over UDP the server's port with its transport
 * ("127.0.0.1:4433 udp/DTLS with ..."). */
static void probe_line(tlsneg_buf *out, const tlsneg_probe_seen *ps)
{
    char text[200];
    tlsneg_buf_clear(out);
    tlsneg_probe_text(&ps->p, text, sizeof text);
    const char *with = strstr(text, "probed with");
    if (with) {
        /* "probed with ..." -> "probed SERVER:PORT with ...", the server
         * labelled as in its block ([IPv6]:port, udp/QUIC) */
        size_t at = (size_t)(with - text) + 7;
        tlsneg_buf_printf(out, "%s %.*s%s %s", ps->client, (int)at, text, ps->label, text + at);
    } else {
        tlsneg_buf_printf(out, "%s %s", ps->client, text);
    }
    tlsneg_buf_printf(out, " (from frame %u): a scanner", ps->p.first_frame);
}

typedef struct {
    const char *pattern;
    unsigned count;
} offer_count;

static int by_count(const void *pa, const void *pb)
{
    const offer_count *a = pa, *b = pb;
    return a->count != b->count ? (a->count < b->count ? 1 : -1) : strcmp(a->pattern, b->pattern);
}

static void print_offers(const tlsneg_totals *t, FILE *out)
{
    offer_count *list = malloc((t->offers.used ? t->offers.used : 1) * sizeof *list);
    if (!list) {
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < t->offers.used; i++) {
        const tlsneg_map_entry *e = &t->offers.entries[i];
        list[n].pattern = e->key; /* stored with its NUL */
        list[n].count = *(const unsigned *)e->value;
        n++;
    }
    qsort(list, n, sizeof *list, by_count);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%8u  %s\n", list[i].count, list[i].pattern);
    }
    free(list);
}

/* print_probes writes one line per probe, in frame order. */
static void print_probes(const tlsneg_totals *t, FILE *out)
{
    tlsneg_probe_seen **probes = tlsneg_totals_probes(t);
    tlsneg_buf a = {0};
    if (probes && t->probes.used) {
        fprintf(out, "\n--- Probes (scanners: once recognised, their attempts are not judged "
                     "as fallbacks or intolerance) ---\n");
    }
    for (size_t i = 0; probes && i < t->probes.used; i++) {
        probe_line(&a, probes[i]);
        fprintf(out, "%s\n", tlsneg_buf_str(&a));
    }
    free(probes);
    tlsneg_buf_free(&a);
}

static void print_verdicts(const tlsneg_totals *t, FILE *out)
{
    fprintf(out, "\n--- Verdicts (frame order) ---\n");
    if (!t->num_verdicts) {
        fprintf(out, "none: no fallback, intolerance, downgrade or bad server choice seen\n");
    }
    for (size_t i = 0; i < t->num_verdicts; i++) {
        fprintf(out, "%s\n", t->verdicts[i]);
    }
    if (t->verdicts_dropped) {
        fprintf(out, "... %u more\n", t->verdicts_dropped);
    }
}

/* print_hrrs explains a server's HelloRetryRequests by what the analysis
 * said of each (keyexchange.h): the groups asked for, how many lack the
 * client's predicted group, how many move the client to post-quantum. */
static void print_hrrs(const tlsneg_server_totals *s, FILE *out)
{
    const tlsneg_kx_counts *kx = &s->kx;
    char groups[160];
    tlsneg_kx_hrr_groups(kx, false, groups, sizeof groups);
    unsigned other = s->hrrs - kx->hrr_lacks_predicted - kx->hrr_moves_to_pq;
    fprintf(out, "  HelloRetryRequests: %u%s%s\n", s->hrrs, groups[0] ? ", asking for " : "",
            groups);
    fprintf(out,
            "    %u lack the group the client predicted with a key share (the server lacks or "
            "does not prefer it: a round trip more)\n",
            kx->hrr_lacks_predicted);
    fprintf(out,
            "    %u move the client to post-quantum (it shared only classical groups; the "
            "server prefers a post-quantum one it listed)\n",
            kx->hrr_moves_to_pq);
    if (other) {
        fprintf(out,
                "    %u ask for something else (a cookie, a group already shared or not listed), "
                "or answer a ClientHello that predicted no group\n",
                other);
    }
}

/* print_server writes what one server saw; a is scratch. */
static void print_server(const tlsneg_server_totals *s, tlsneg_buf *a, FILE *out)
{
    fprintf(out, "%s %s\n", s->label, *s->sni ? s->sni : "(no SNI)");
    tlsneg_buf_clear(a);
    tlsneg_version_list(&s->offered, a, false, s->dtls);
    fprintf(out, "  offered (highest): %s\n", a->len ? tlsneg_buf_str(a) : "-");
    tlsneg_buf_clear(a);
    tlsneg_version_list(&s->in_force, a, false, s->dtls);
    fprintf(out, "  in force:          %s\n", a->len ? tlsneg_buf_str(a) : "-");
    fprintf(out,
            "  %u ClientHello, %u ServerHello, %u HelloRetryRequest; failures: %u alerts, %u "
            "resets, %u closes before any ServerHello",
            s->client_hellos, s->server_hellos, s->hrrs, s->alert_failures, s->resets, s->closes);
    if (s->alert_failures_after) {
        /* Alerts only: a reset or close after a ServerHello fails no attempt
         * (tlsneg_tracker_close). */
        fprintf(out, ", %u alerts after a ServerHello", s->alert_failures_after);
    }
    fprintf(out, "; %u fallback retries", s->fallbacks);
    if (s->alerts_after_close) {
        /* The client's FIN or RST came first (tlsneg_result.alert_after_close):
         * a close before any ServerHello is counted among the closes above,
         * one after it ends no attempt; the alert is no failure of its own. */
        fprintf(out, "; %u alerts after the client's close or reset", s->alerts_after_close);
    }
    if (s->alert_warnings) {
        /* A warning does not end the handshake (tlsneg_alert_ends_handshake). */
        fprintf(out, "; %u warning alerts, no failure", s->alert_warnings);
    }
    fputc('\n', out);
    const tlsneg_kx_counts *kx = &s->kx;
    if (kx->pq || kx->classical || kx->pq_offers) {
        fprintf(out,
                "  key exchange:      post-quantum x%u, classical x%u (ServerHellos); %u "
                "ClientHello offered post-quantum, %u answered with a classical group\n",
                kx->pq, kx->classical, kx->pq_offers, kx->classical_while_pq);
    }
    if (s->hrrs) {
        print_hrrs(s, out);
    }
    if (tlsneg_server_intolerant(s)) {
        fprintf(out, "  VERSION-INTOLERANT: does not tolerate %s (verdict in frame %u)\n",
                s->intolerant_of, s->intolerant_frame);
    } else if (s->intolerant_of) {
        char v[TLSNEG_VERSION_NAME_MAX];
        fprintf(out,
                "  intolerance not consistent: the verdict in frame %u says it does not tolerate "
                "%s, yet it puts %s in force in frame %u: the version alone does not make it "
                "fail\n",
                s->intolerant_frame, s->intolerant_of,
                tlsneg_version_name_in(s->top_version, s->dtls, v, sizeof v), s->top_frame);
    }
    tlsneg_buf_clear(a);
    for (int r = 0; r < TLSNEG_RULE_COUNT; r++) {
        if (s->findings[r]) {
            char label[128];
            if (a->len) {
                tlsneg_buf_add(a, ", ");
            }
            tlsneg_buf_add(a, tlsneg_rule_label((tlsneg_rule_id)r, label, sizeof label));
            tlsneg_buf_add(a, " x");
            tlsneg_buf_uint(a, s->findings[r]);
        }
    }
    if (a->len) {
        fprintf(out, "  findings: %s\n", tlsneg_buf_str(a));
    }
}

static void print_rules(const tlsneg_totals *t, FILE *out)
{
    fprintf(out, "\n--- Findings per rule (tlsneg.finding; a variant by its expert info) ---\n");
    int width = 28; /* the name column: wider when a longer name is counted */
    for (int r = 0; r < TLSNEG_RULE_COUNT; r++) {
        int len = (int)strlen(tlsneg_rules[r].finding);
        width = t->findings[r] && len > width ? len : width;
    }
    for (int r = 0; r < TLSNEG_RULE_COUNT; r++) {
        if (t->findings[r]) {
            const tlsneg_rule *rule = &tlsneg_rules[r];
            if (tlsneg_rule_is_variant((tlsneg_rule_id)r)) {
                fprintf(out, "%8u  %-*s %-14s %-5s  tlsneg.expert.%s\n", t->findings[r], width,
                        rule->finding, tlsneg_group_name(rule->group),
                        tlsneg_severity_name(rule->severity), rule->name);
            } else {
                fprintf(out, "%8u  %-*s %-14s %s\n", t->findings[r], width, rule->finding,
                        tlsneg_group_name(rule->group), tlsneg_severity_name(rule->severity));
            }
        }
    }
    if (t->findings_dropped) {
        fprintf(out, "... and %u more findings not shown (a message keeps %d)\n",
                t->findings_dropped, TLSNEG_MAX_FINDINGS);
    }
}

/* pq_failures appends each finding of tlsneg_pq_failure_rules that s has
 * ("key_share_intolerance x1"); returns whether there are such rules. */
static bool pq_failures(const tlsneg_server_totals *s, tlsneg_buf *a)
{
    const tlsneg_rule_id *r = tlsneg_pq_failure_rules;
    for (; *r != TLSNEG_RULE_COUNT; r++) {
        const char *name = tlsneg_rules[*r].finding;
        unsigned n = tlsneg_findings_named(s->findings, name);
        if (n) {
            tlsneg_buf_printf(a, "%s%s x%u", a->len ? ", " : "", name, n);
        }
    }
    return r != tlsneg_pq_failure_rules;
}

/* print_readiness writes the post-quantum readiness section: the servers
 * that negotiate post-quantum key exchange, those that answered a
 * ClientHello offering it with a classical group only, and (once rules.def
 * has the verdicts) those that fail it or a split ClientHello. Nothing
 * when no ClientHello offered post-quantum and no server selected it. */
static void print_readiness(tlsneg_server_totals **list, size_t num, tlsneg_buf *a, FILE *out)
{
    unsigned offers = 0, pq = 0;
    for (size_t i = 0; i < num; i++) {
        offers += list[i]->kx.pq_offers;
        pq += list[i]->kx.pq;
    }
    if (!offers && !pq) {
        return;
    }
    fprintf(out, "\n--- Post-quantum readiness (the group each ServerHello selected) ---\n");
    static const char *const heads[] = {
        "negotiate post-quantum",
        "classical only, although the ClientHello offered post-quantum",
        "fail post-quantum or a split ClientHello, or mix post-quantum and classical",
    };
    bool known = false;
    for (int part = 0; part < 3; part++) {
        unsigned n = 0;
        for (size_t i = 0; i < num; i++) {
            const tlsneg_server_totals *s = list[i];
            tlsneg_buf_clear(a);
            known = pq_failures(s, a);
            bool in = part == 0   ? s->kx.pq > 0
                      : part == 1 ? s->kx.pq == 0 && s->kx.classical_while_pq > 0
                                  : a->len > 0;
            if (!in) {
                continue;
            }
            if (n++ == 0) {
                fprintf(out, "%s:\n", heads[part]);
            }
            fprintf(out, "  %s %s: ", s->label, *s->sni ? s->sni : "(no SNI)");
            if (part == 2) {
                fprintf(out, "%s\n", tlsneg_buf_str(a));
            } else {
                fprintf(out,
                        "post-quantum x%u, classical x%u (%u after a ClientHello offering "
                        "post-quantum)\n",
                        s->kx.pq, s->kx.classical, s->kx.classical_while_pq);
            }
        }
        if (n == 0 && (part < 2 || known)) {
            fprintf(out, "%s: none\n", heads[part]);
        }
    }
}

void tlsneg_report_write(const tlsneg_totals *t, FILE *out)
{
    tlsneg_server_totals **list = tlsneg_totals_servers(t);
    size_t num = list ? t->servers.used : 0;
    unsigned intolerant = 0, fallbacks = 0;
    for (size_t i = 0; i < num; i++) {
        intolerant += list[i]->intolerant_of ? 1u : 0u;
        fallbacks += list[i]->fallbacks;
    }
    fprintf(out, "\n=== tlsneg report ===\n");
    fprintf(out,
            "%u ClientHello, %u ServerHello/HelloRetryRequest, %u HelloVerifyRequest, %u "
            "plaintext alerts; %zu servers; %u fallback retries; %u servers with a "
            "version_intolerance verdict\n",
            t->messages[1], t->messages[2], t->messages[3], t->messages[0], num, fallbacks,
            intolerant);
    print_probes(t, out);
    print_verdicts(t, out);
    fprintf(out, "\n--- Servers (address:port, the transport over UDP, SNI) ---\n");
    tlsneg_buf a = {0};
    for (size_t i = 0; i < num; i++) {
        print_server(list[i], &a, out);
    }
    print_readiness(list, num, &a, out);
    tlsneg_buf_free(&a);
    fprintf(out, "\n--- Client offers (supported_versions, GREASE folded) ---\n");
    print_offers(t, out);
    print_rules(t, out);
    fprintf(out, "===\n");
    free(list);
}
