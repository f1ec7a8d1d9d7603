/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-dump: run the core on handshake messages given as hex and print
 * what it parsed, one JSON object per line.
 *
 * Input, one message per line:  WIRE HEX
 *   WIRE is tls, dtls, quic or ssl2; HEX is the message from its type byte
 *   (for ssl2: from msg_type to the end of the record).
 * or, for a DTLS message reassembled from fragments:  dtls-body TYPE HEX
 * or a plaintext alert:  alert DESCRIPTION
 * Messages are judged as one connection: a ServerHello or alert against the
 * last ClientHello before it.
 *
 * tlsneg-dump --rules prints the rule table of docs/rules.md instead.
 *
 * tlsneg-dump --events replays a capture's sequence of events (the format of
 * lib/replay/events.h, written by tlsneg-pcap --events and by
 * tests/captures/extract_events.py) through the session layer and prints one
 * JSON object per hello, alert, and FIN or RST that ends an attempt: the
 * connection's view, the findings, the verdicts across connections with
 * their evidence by role, and the notes for earlier frames. With --jsonl,
 * --csv or --report after --events it writes those outputs instead, through
 * the writer tlsneg-pcap and the plugin use (report/output.h): from
 * tlsneg-pcap --events, what tlsneg-pcap itself writes. */
#define _POSIX_C_SOURCE 200809L /* getline */

#include "analysis/checks.h"
#include "core/facts.h"
#include "core/versions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "replay/events.h"
#include "replay/unhex.h"
#include "report/json.h"
#include "report/output.h"

/* The connection so far: the last ClientHello, and whether a
 * HelloRetryRequest came. */
static struct {
    bool has_client_hello;
    tlsneg_facts client_hello;
    tlsneg_facts_buf client_hello_buf;
    bool hrr_seen;
} conn;

static void print_findings(const tlsneg_findings *fs)
{
    printf(",\"findings\":[");
    for (size_t i = 0; i < fs->count; i++) {
        printf("%s{\"expert\":\"%s\",\"finding\":\"%s\",\"detail\":", i ? "," : "",
               tlsneg_rules[fs->item[i].rule].name, tlsneg_rules[fs->item[i].rule].finding);
        tlsneg_json_fput(stdout, fs->item[i].detail);
        putchar('}');
    }
    putchar(']');
}

static void dump_alert(uint8_t description)
{
    tlsneg_check_input in = {.client_hello = conn.has_client_hello ? &conn.client_hello : NULL,
                             .is_alert = true,
                             .alert_description = description};
    tlsneg_findings fs;
    tlsneg_check(&fs, &in);
    printf("{\"alert\":%u", description);
    print_findings(&fs);
    printf("}\n");
}

static void dump(const tlsneg_hello *h)
{
    tlsneg_facts f;
    tlsneg_facts_buf buf;
    char summary[512];
    tlsneg_facts_derive(&f, &buf, h, false, 0);
    bool client = h->msg_type == TLSNEG_HS_CLIENT_HELLO;
    tlsneg_check_input in = {.hello = h,
                             .facts = &f,
                             .client_hello =
                                 !client && conn.has_client_hello ? &conn.client_hello : NULL,
                             .after_hrr = client && conn.hrr_seen};
    tlsneg_findings fs;
    tlsneg_check(&fs, &in);

    printf("{\"msg_type\":%u,\"status\":\"%s\",\"error_offset\":%zu,\"legacy_version\":%u",
           h->msg_type, tlsneg_status_name(h->status), h->error_offset, h->legacy_version);
    printf(",\"hrr\":%s,\"extensions\":[", h->is_hrr ? "true" : "false");
    tlsneg_cur exts = h->extensions, body;
    uint16_t type;
    for (int i = 0; tlsneg_hello_next_extension(&exts, &type, &body); i++) {
        printf("%s%u", i ? "," : "", type);
    }
    printf("],\"supported_versions\":");
    if (f.has_supported_versions && h->msg_type == TLSNEG_HS_CLIENT_HELLO) {
        putchar('[');
        for (size_t i = 0; i < f.num_offered; i++) {
            printf("%s%u", i ? "," : "", f.offered[i]);
        }
        putchar(']');
    } else if (f.has_selected) {
        printf("[%u]", f.selected_version);
    } else {
        printf("null");
    }
    if (f.has_offered_max) {
        printf(",\"offered_max\":%u", f.offered_max);
    }
    if (f.has_negotiated) {
        printf(",\"negotiated_version\":%u", f.negotiated_version);
    }
    printf(",\"fallback_scsv\":%s,\"grease\":[", f.fallback_scsv ? "true" : "false");
    for (size_t i = 0; i < f.num_grease; i++) {
        printf("%s[%u,\"%s\"]", i ? "," : "", f.grease[i].value,
               tlsneg_grease_family_name((tlsneg_grease_family)f.grease[i].family));
    }
    printf("],\"grease_count\":%u", f.grease_count);
    if (f.sni) {
        printf(",\"sni\":");
        tlsneg_json_fput(stdout, f.sni);
    }
    if (f.has_sentinel) {
        printf(",\"downgrade_sentinel\":%u", f.sentinel);
    }
    printf(",\"hello_length\":%u,\"groups\":[", f.hello_length);
    for (size_t i = 0; i < f.num_groups; i++) {
        printf("%s%u", i ? "," : "", f.groups[i]);
    }
    printf("],\"key_shares\":[");
    for (size_t i = 0; i < f.num_key_shares; i++) {
        printf("%s[%u,%u]", i ? "," : "", f.key_shares[i].group, f.key_shares[i].length);
    }
    printf("]");
    if (f.has_group_selected) {
        printf(",\"group_selected\":%u", f.group_selected);
    }
    printf(",\"pq_offered\":%s,\"pq_key_share\":%s,\"pq_selected\":%s",
           f.pq_offered ? "true" : "false", f.pq_key_share ? "true" : "false",
           f.pq_selected ? "true" : "false");
    printf(",\"summary\":");
    tlsneg_json_fput(stdout, tlsneg_facts_summary(&f, summary, sizeof summary));
    print_findings(&fs);
    printf("}\n");

    if (client) {
        /* Keep a copy whose lists point into conn's own storage. */
        tlsneg_facts_copy(&conn.client_hello, &conn.client_hello_buf, &f);
        conn.has_client_hello = true;
    } else if (h->is_hrr) {
        conn.hrr_seen = true;
    }
}

static void print_verdicts(const tlsneg_verdicts *vs)
{
    printf(",\"verdicts\":[");
    for (size_t i = 0; i < vs->count; i++) {
        const tlsneg_verdict *v = &vs->item[i];
        printf("%s{\"kind\":\"%s\",\"expert\":\"%s\"", i ? "," : "",
               tlsneg_verdict_kind_name(v->kind), tlsneg_rules[v->rule].name);
        for (size_t k = 0; k < v->num_links; k++) {
            printf(",\"%s\":%u", tlsneg_link_role_name((tlsneg_link_role)v->link[k].role),
                   v->link[k].frame);
        }
        for (size_t k = 0; k < v->num_versions; k++) {
            printf(",\"%s\":%u", tlsneg_version_role_name((tlsneg_version_role)v->version[k].role),
                   v->version[k].version);
        }
        for (size_t k = 0; k < v->num_texts; k++) {
            printf(",\"%s\":", tlsneg_text_role_name((tlsneg_text_role)v->text[k].role));
            tlsneg_json_fput(stdout, v->text[k].text);
        }
        printf(",\"chain_frames\":[");
        for (size_t k = 0; k < v->chain_len; k++) {
            printf("%s%u", k ? "," : "", v->chain_frames[k]);
        }
        printf("]}");
    }
    putchar(']');
}

static void print_back_notes(const tlsneg_result *x)
{
    if (!x->num_back_notes) {
        return;
    }
    printf(",\"back_notes\":[");
    for (size_t i = 0; i < x->num_back_notes; i++) {
        const tlsneg_back_note *n = &x->back_notes[i];
        printf("%s{\"frame\":%u,\"kind\":\"%s\",\"%s\":%u", i ? "," : "", n->frame,
               tlsneg_note_kind_name(n->kind),
               tlsneg_link_role_name((tlsneg_link_role)n->link.role), n->link.frame);
        if (n->has_text) {
            printf(",\"%s\":", tlsneg_text_role_name((tlsneg_text_role)n->text.role));
            tlsneg_json_fput(stdout, n->text.text);
        }
        if (n->has_finding) {
            printf(",\"expert\":\"%s\",\"detail\":", tlsneg_rules[n->finding.rule].name);
            tlsneg_json_fput(stdout, n->finding.detail);
        }
        putchar('}');
    }
    putchar(']');
}

static void print_sni(bool has, const char *sni)
{
    if (has) {
        printf(",\"sni\":");
        tlsneg_json_fput(stdout, sni);
    }
}

/* print_event prints what the replay of ev gave as one JSON object
 * (tlsneg-dump --events without outputs). */
static void print_event(const tlsneg_ev *ev, const tlsneg_replay_out *out)
{
    if (out->has_close && out->close.ended_attempt_frame) {
        printf("{\"frame\":%u,\"event\":\"%s\",\"conn\":%llu,\"ends_attempt\":%u,"
               "\"from_client\":%s",
               ev->frame, ev->kind == TLSNEG_EV_RST ? "rst" : "fin", (unsigned long long)out->conn,
               out->close.ended_attempt_frame, out->close.from_client ? "true" : "false");
        print_sni(out->close.has_sni, out->close.sni);
        printf("}\n");
    }
    if (!out->has_result) {
        return;
    }
    const tlsneg_result *x = &out->result;
    printf("{\"frame\":%u,\"event\":\"%s\",\"conn\":%llu", ev->frame,
           x->is_alert ? "alert" : "hello", (unsigned long long)out->conn);
    if (x->is_alert) {
        printf(",\"alert\":%u,\"from_server\":%s", x->alert_description,
               x->alert_from_server ? "true" : "false");
    } else {
        printf(",\"msg\":\"%s\"", tlsneg_msg_name(&x->facts));
    }
    printf(",\"from_client\":%s", x->from_client ? "true" : "false");
    if (x->retransmission_of) {
        printf(",\"retransmission_of\":%u", x->retransmission_of);
    }
    if (x->client_hello_frame) {
        printf(",\"client_hello_frame\":%u", x->client_hello_frame);
    }
    if (x->held) {
        printf(",\"held\":true");
    }
    if (x->early_frame) {
        printf(",\"early_frame\":%u,\"early_cause\":\"%s\"", x->early_frame,
               x->early_cause == TLSNEG_CAUSE_ALERT   ? "alert"
               : x->early_cause == TLSNEG_CAUSE_RESET ? "reset"
                                                      : "close");
    }
    print_sni(x->has_sni, x->sni);
    print_findings(&x->findings);
    print_verdicts(&x->verdicts);
    print_back_notes(x);
    printf("}\n");
}

/* The outputs --events writes when asked (--jsonl, --csv, --report, in
 * that order), as tlsneg-pcap writes them. */
typedef struct {
    tlsneg_out *out[3];
    size_t n;
    tlsneg_out_msg_buf view_buf;
} outputs;

/* write_event hands what the replay of ev gave to the outputs, as
 * tlsneg-pcap does. */
static void write_event(outputs *o, const tlsneg_ev *ev, const tlsneg_replay_out *out)
{
    tlsneg_out_frame fr = {ev->frame,
                           (int64_t)(ev->time_us / 1000000u),
                           (uint32_t)(ev->time_us % 1000000u),
                           {ev->src, ev->addr_len, NULL, ev->sport},
                           {ev->dst, ev->addr_len, NULL, ev->dport}};
    if (out->has_close && out->close.ended_attempt_frame) {
        const tlsneg_close_result *cx = &out->close;
        for (size_t i = 0; i < o->n; i++) {
            tlsneg_out_close(o->out[i], &fr, cx->cause, cx->from_client, cx->ended_attempt_frame,
                             cx->has_sni ? cx->sni : NULL);
        }
    }
    if (out->has_result && out->result.analysed) {
        tlsneg_out_msg m;
        tlsneg_out_msg_view(&m, &o->view_buf, &out->result);
        for (size_t i = 0; i < o->n; i++) {
            tlsneg_out_message(o->out[i], &fr, &m);
        }
    }
}

/* replay_events is tlsneg-dump --events: o's outputs, or JSON objects if
 * it has none. */
static int replay_events(outputs *o)
{
    static tlsneg_replay_out out;
    static uint8_t msg[1 << 24]; /* a handshake message's length has 24 bits */
    tlsneg_tracker_config cfg = TLSNEG_TRACKER_DEFAULTS;
    tlsneg_replay *r = tlsneg_replay_new(&cfg, 65536);
    if (!r) {
        fprintf(stderr, "tlsneg-dump: out of memory\n");
        return 1;
    }
    char *line = NULL;
    size_t line_cap = 0;
    unsigned long n = 0;
    int status = 0;
    while (getline(&line, &line_cap, stdin) >= 0) {
        tlsneg_ev ev;
        n++;
        int got = tlsneg_ev_parse(line, &ev, msg, sizeof msg);
        if (got < 0) {
            fprintf(stderr, "tlsneg-dump: line %lu is no event\n", n);
            status = 2;
            break;
        }
        if (!got) {
            continue;
        }
        tlsneg_replay_event(r, &ev, &out);
        if (o->n) {
            write_event(o, &ev, &out);
        } else {
            print_event(&ev, &out);
        }
    }
    free(line);
    tlsneg_replay_free(r);
    return status;
}

/* events_main is tlsneg-dump --events [--jsonl] [--csv] [--report]. */
static int events_main(int argc, char **argv)
{
    bool want[3] = {false, false, false};
    static const char *const names[3] = {"--jsonl", "--csv", "--report"};
    for (int i = 2; i < argc; i++) {
        int f = 0;
        while (f < 3 && strcmp(argv[i], names[f]) != 0) {
            f++;
        }
        if (f == 3) {
            fprintf(stderr, "usage: tlsneg-dump --events [--jsonl] [--csv] [--report] < events\n");
            return 2;
        }
        want[f] = true;
    }
    static outputs o;
    for (int f = TLSNEG_OUT_JSONL; f <= TLSNEG_OUT_REPORT; f++) {
        if (want[f]) {
            if (!(o.out[o.n] = tlsneg_out_new((tlsneg_out_format)f, stdout))) {
                fprintf(stderr, "tlsneg-dump: out of memory\n");
                return 1;
            }
            tlsneg_out_header(o.out[o.n++]);
        }
    }
    int status = replay_events(&o);
    for (size_t i = 0; i < o.n; i++) {
        tlsneg_out_end(o.out[i]);
        tlsneg_out_free(o.out[i]);
    }
    return status;
}

/* print_rules writes the rule table of docs/rules.md from rules.def. */
static void print_rules(void)
{
    printf("| expert info = display filter | finding | group | severity | drafts | reference | "
           "meaning |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- |\n");
    for (size_t i = 0; i < TLSNEG_RULE_COUNT; i++) {
        const tlsneg_rule *r = &tlsneg_rules[i];
        printf("| `tlsneg.expert.%s` | `%s` | %s | %s | %s | %s%s%s | %s |\n", r->name, r->finding,
               tlsneg_group_name(r->group), tlsneg_severity_name(r->severity),
               r->drafts ? "yes" : "no", r->rfc, r->dtls_rfc ? "; DTLS: " : "",
               r->dtls_rfc ? r->dtls_rfc : "", r->text);
    }
}

int main(int argc, char **argv)
{
    static char line[1 << 20];
    static uint8_t msg[1 << 19];
    if (argc == 2 && strcmp(argv[1], "--rules") == 0) {
        print_rules();
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "--events") == 0) {
        return events_main(argc, argv);
    }
    if (argc != 1) {
        fprintf(stderr, "usage: tlsneg-dump [--rules | --events [--jsonl] [--csv] [--report]] < "
                        "messages\n");
        return 2;
    }
    while (fgets(line, sizeof line, stdin)) {
        char wire_name[16];
        int consumed = 0;
        if (sscanf(line, "%15s %n", wire_name, &consumed) != 1) {
            continue;
        }
        const char *rest = line + consumed;
        tlsneg_hello h;
        if (strcmp(wire_name, "alert") == 0) {
            unsigned description;
            if (sscanf(rest, "%u", &description) != 1 || description > 255) {
                fprintf(stderr, "tlsneg-dump: alert needs a description\n");
                return 2;
            }
            dump_alert((uint8_t)description);
            continue;
        }
        if (strcmp(wire_name, "dtls-body") == 0) {
            unsigned type;
            int used = 0;
            if (sscanf(rest, "%u %n", &type, &used) != 1) {
                fprintf(stderr, "tlsneg-dump: dtls-body needs a type\n");
                return 2;
            }
            size_t n = unhex(rest + used, msg, sizeof msg);
            (void)tlsneg_hello_parse_body(&h, TLSNEG_WIRE_DTLS, (uint8_t)type, msg, n);
        } else {
            static const char *const names[] = {"tls", "dtls", "quic", "ssl2"};
            int wire = -1;
            for (int i = 0; i < 4; i++) {
                if (strcmp(wire_name, names[i]) == 0) {
                    wire = i;
                }
            }
            if (wire < 0) {
                fprintf(stderr, "tlsneg-dump: unknown wire '%s'\n", wire_name);
                return 2;
            }
            size_t n = unhex(rest, msg, sizeof msg);
            (void)tlsneg_hello_parse(&h, (tlsneg_wire)wire, msg, n);
        }
        dump(&h);
    }
    return 0;
}
