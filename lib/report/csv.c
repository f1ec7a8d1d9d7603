/* SPDX-License-Identifier: GPL-2.0-or-later */
/* csv.c: the CSV (docs/output-formats.md): one row per server (address,
 * port, SNI, transport), at the end, most attempts first. */
#include "report/writers.h"

#include <stdlib.h>
#include <string.h>

/* finding_counts writes "fallback_retry:2;grease_selected:1": each rule by
 * its finding name (tlsneg.finding), its variants counted in, in rules.def
 * order. Linear in the rules: a server's CSV row no longer compares every
 * rule's name with every other's. */
static void finding_counts(const unsigned *findings, tlsneg_buf *out)
{
    unsigned n[TLSNEG_RULE_COUNT] = {0};
    for (int r = 0; r < TLSNEG_RULE_COUNT; r++) {
        if (findings[r]) {
            n[tlsneg_rule_main((tlsneg_rule_id)r)] += findings[r];
        }
    }
    for (int r = 0; r < TLSNEG_RULE_COUNT; r++) {
        if (n[r]) {
            tlsneg_buf_printf(out, "%s%s:%u", out->len ? ";" : "", tlsneg_rules[r].finding, n[r]);
        }
    }
}

/* csv_quoted appends s as one RFC 4180 field: quoted, every quote doubled. */
static void csv_quoted(tlsneg_buf *out, const char *s)
{
    tlsneg_buf_addc(out, '"');
    for (; s && *s; s++) {
        if (*s == '"') {
            tlsneg_buf_addc(out, '"');
        }
        tlsneg_buf_addc(out, *s);
    }
    tlsneg_buf_addc(out, '"');
}

void tlsneg_csv_write(const tlsneg_totals *t, tlsneg_buf *row, FILE *f)
{
    tlsneg_server_totals **list = tlsneg_totals_servers(t);
    tlsneg_buf a = {0}, b = {0}, c = {0};
    fputs("server,port,sni,client_hellos,server_hellos,hello_retry_requests,alerts,resets,"
          "closes,fallbacks,intolerant_of,highest_offered,in_force,findings,key_exchange_pq,"
          "key_exchange_classical,pq_offered,classical_while_pq_offered,hrr_groups,"
          "hrr_lacks_predicted,hrr_moves_to_pq,transport\n",
          f);
    for (size_t i = 0; list && i < t->servers.used; i++) {
        const tlsneg_server_totals *s = list[i];
        tlsneg_buf_clear(&a);
        tlsneg_buf_clear(&b);
        tlsneg_buf_clear(&c);
        tlsneg_version_list(&s->offered, &a, true, s->dtls);
        tlsneg_version_list(&s->in_force, &b, true, s->dtls);
        finding_counts(s->findings, &c);
        tlsneg_buf_printf(row, "%s,%u,", s->server, s->port);
        csv_quoted(row, s->sni);
        tlsneg_buf_printf(row, ",%u,%u,%u,%u,%u,%u,%u,", s->client_hellos, s->server_hellos,
                          s->hrrs, s->alerts, s->resets, s->closes, s->fallbacks);
        csv_quoted(row, s->intolerant_of ? s->intolerant_of : "");
        char groups[128];
        tlsneg_kx_hrr_groups(&s->kx, true, groups, sizeof groups);
        tlsneg_buf_printf(row, ",%s,%s,%s,%u,%u,%u,%u,%s,%u,%u,%s\n", tlsneg_buf_str(&a),
                          tlsneg_buf_str(&b), tlsneg_buf_str(&c), s->kx.pq, s->kx.classical,
                          s->kx.pq_offers, s->kx.classical_while_pq, groups,
                          s->kx.hrr_lacks_predicted, s->kx.hrr_moves_to_pq,
                          tlsneg_out_transport_name((tlsneg_wire)s->transport));
        tlsneg_buf_flush(row, f);
    }
    tlsneg_buf_free(&a);
    tlsneg_buf_free(&b);
    tlsneg_buf_free(&c);
    free(list);
}
