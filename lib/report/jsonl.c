/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jsonl.c: the JSON lines (docs/output-formats.md, schema 1): a hello record
 * per hello, an outcome record per answer, alert, TCP reset or close, as
 * messages pass; a probe record per probe at the end. */
#include "report/writers.h"

#include <stdlib.h>
#include <string.h>

#include "report/json.h"

#define JSONL_SCHEMA_VERSION 1

/* json_addr writes a as a JSON string: inet_ntop's text needs no escape. */
static void json_addr(tlsneg_buf *out, const tlsneg_out_addr *a)
{
    char buf[TLSNEG_ADDR_TEXT_MAX];
    if (a->text) {
        tlsneg_json_string(out, a->text);
        return;
    }
    tlsneg_buf_addc(out, '"');
    tlsneg_buf_add(out, tlsneg_out_addr_text(a, buf));
    tlsneg_buf_addc(out, '"');
}

/* JSON_KEY appends ,"key": for a string literal key, its length known
 * when compiled. */
#define JSON_KEY(out, key) tlsneg_buf_lit((out), ",\"" key "\":")

static void json_version_value(tlsneg_buf *out, bool has, uint16_t v)
{
    if (has) {
        tlsneg_buf_qvhex(out, v);
    } else {
        tlsneg_buf_lit(out, "null");
    }
}

/* json_version writes ,"key":"0x0304", or null without a value. */
#define json_version(out, key, has, v)                                                             \
    do {                                                                                           \
        JSON_KEY(out, key);                                                                        \
        json_version_value((out), (has), (v));                                                     \
    } while (0)

/* Where the common fields after a record's name lie in the line buffer:
 * a second record of the same message copies them (json_common_again). */
typedef struct {
    size_t from, len;
} common_fields;

static void json_record(tlsneg_buf *out, const char *record)
{
    tlsneg_buf_add(out, "{\"record\":\"");
    tlsneg_buf_add(out, record);
    tlsneg_buf_addc(out, '"');
}

/* ends_same: c holds the JSON of endpoints e and SNI sni. */
static bool ends_same(const tlsneg_jsonl_ends *c, tlsneg_out_ends e, const char *sni)
{
    return c->valid && !e.client->text && !e.server->text && e.client->len == c->client_len &&
           e.server->len == c->server_len && e.client->port == c->client_port &&
           e.server->port == c->server_port &&
           memcmp(e.client->bytes, c->client, c->client_len) == 0 &&
           memcmp(e.server->bytes, c->server, c->server_len) == 0 &&
           (sni ? c->has_sni && strcmp(sni, c->sni) == 0 : !c->has_sni);
}

/* ends_write writes the JSON of endpoints e and SNI sni into c's text, and
 * keeps them as its key when they fit (IP addresses, an SNI of at most
 * TLSNEG_MAX_SNI bytes). */
static void ends_write(tlsneg_jsonl_ends *c, tlsneg_out_ends e, const char *sni)
{
    tlsneg_buf *out = &c->text;
    tlsneg_buf_clear(out);
    tlsneg_buf_lit(out, ",\"client\":");
    json_addr(out, e.client);
    tlsneg_json_keyu(out, "client_port", e.client->port);
    tlsneg_buf_lit(out, ",\"server\":");
    json_addr(out, e.server);
    tlsneg_json_keyu(out, "port", e.server->port);
    tlsneg_buf_lit(out, ",\"sni\":");
    if (sni) {
        tlsneg_json_string(out, sni);
    } else {
        tlsneg_buf_lit(out, "null");
    }
    size_t sni_len = sni ? strlen(sni) : 0;
    c->valid = !out->failed && !e.client->text && !e.server->text &&
               e.client->len <= sizeof c->client && e.server->len <= sizeof c->server &&
               sni_len < sizeof c->sni;
    if (c->valid) {
        c->client_len = e.client->len;
        c->server_len = e.server->len;
        memcpy(c->client, e.client->bytes, c->client_len);
        memcpy(c->server, e.server->bytes, c->server_len);
        c->client_port = e.client->port;
        c->server_port = e.server->port;
        c->has_sni = sni != NULL;
        memcpy(c->sni, sni ? sni : "", sni_len + 1);
    }
}

void tlsneg_jsonl_ends_free(tlsneg_jsonl_ends *c)
{
    tlsneg_buf_free(&c->text);
    c->valid = false;
}

/* json_common writes a record's name and common fields: its frame, time,
 * ends and SNI, and, over UDP, its transport (wire: tlsneg_wire_transport;
 * over TCP the key is left out, as every record before it had). */
static common_fields json_common(tlsneg_buf *out, tlsneg_jsonl_ends *ends, const char *record,
                                 const tlsneg_out_frame *fr, tlsneg_out_ends e, const char *sni,
                                 tlsneg_wire wire)
{
    json_record(out, record);
    common_fields c = {out->len, 0};
    tlsneg_json_keyu(out, "frame", fr->frame);
    if (fr->secs >= 0 && fr->usecs < 1000000) {
        tlsneg_json_keyu(out, "time", (unsigned long long)fr->secs);
        tlsneg_buf_addc(out, '.');
        tlsneg_buf_digits(out, fr->usecs, 6);
    } else {
        tlsneg_buf_printf(out, ",\"time\":%ld.%06d", (long)fr->secs, (int)fr->usecs);
    }
    if (!ends_same(ends, e, sni)) {
        ends_write(ends, e, sni);
    }
    if (ends->text.len) { /* empty only when out of memory */
        tlsneg_buf_put(out, ends->text.s, ends->text.len);
    }
    if (tlsneg_wire_transport(wire) != TLSNEG_WIRE_TLS) {
        JSON_KEY(out, "transport");
        tlsneg_json_string(out, tlsneg_out_transport_name(wire));
    }
    c.len = out->len - c.from;
    return c;
}

/* json_common_again starts a second record of a message with the common
 * fields json_common wrote for its first (the same frame, ends and SNI). */
static void json_common_again(tlsneg_buf *out, const char *record, common_fields c)
{
    json_record(out, record);
    if (!tlsneg_buf_grow(out, c.len)) {
        return;
    }
    memcpy(out->s + out->len, out->s + c.from, c.len);
    out->len += c.len;
}

/* findings: the rule names (tlsneg.finding); experts: the expert info of
 * each, in the same order (tlsneg.expert.<name>, the variant);
 * findings_dropped: how many more the message broke, not kept. */
static void json_findings(tlsneg_buf *out, const tlsneg_out_msg *r)
{
    tlsneg_buf_add(out, ",\"findings\":[");
    for (unsigned i = 0; i < r->num_findings; i++) {
        tlsneg_buf_add(out, i ? ",\"" : "\"");
        tlsneg_buf_add(out, tlsneg_rules[r->findings[i].rule].finding);
        tlsneg_buf_addc(out, '"');
    }
    tlsneg_buf_add(out, "],\"experts\":[");
    for (unsigned i = 0; i < r->num_findings; i++) {
        tlsneg_buf_add(out, i ? ",\"" : "\"");
        tlsneg_buf_add(out, tlsneg_rules[r->findings[i].rule].name);
        tlsneg_buf_addc(out, '"');
    }
    tlsneg_buf_addc(out, ']');
    if (r->findings_dropped) {
        tlsneg_json_keyu(out, "findings_dropped", r->findings_dropped);
    }
}

#define json_bool(out, key, v)                                                                     \
    do {                                                                                           \
        JSON_KEY(out, key);                                                                        \
        if (v) {                                                                                   \
            tlsneg_buf_lit(out, "true");                                                           \
        } else {                                                                                   \
            tlsneg_buf_lit(out, "false");                                                          \
        }                                                                                          \
    } while (0)

/* json_code_list writes ["0x0304",...], or null without the extension (has
 * false): the versions offered, the groups; json_code_points with its key
 * before it. */
static void json_code_list(tlsneg_buf *out, bool has, const uint16_t *v, unsigned n)
{
    if (!has) {
        tlsneg_buf_lit(out, "null");
        return;
    }
    if (!tlsneg_buf_grow(out, 2 + 9 * (size_t)n)) {
        return;
    }
    char *p = out->s + out->len;
    *p++ = '[';
    for (unsigned i = 0; i < n; i++) {
        *p = ',';
        p += i > 0;
        p[0] = '"';
        tlsneg_vhex_at(p + 1, v[i]);
        p[7] = '"';
        p += 8;
    }
    *p++ = ']';
    out->len = (size_t)(p - out->s);
}

#define json_code_points(out, key, has, v, n)                                                      \
    do {                                                                                           \
        JSON_KEY(out, key);                                                                        \
        json_code_list((out), (has), (v), (n));                                                    \
    } while (0)

/* json_key_exchange writes the hello's groups and key shares: on a
 * ClientHello groups (supported_groups, null without it), key_shares
 * ({group, length} each, null without key_share), pq_offered and
 * pq_key_share; on a ServerHello or HelloRetryRequest group_selected,
 * key_shares (the server_share) and pq_selected; on every hello its
 * hello_length and hello_segments (null when the front end cannot tell). */
static void json_key_exchange(tlsneg_buf *out, const tlsneg_facts *f)
{
    bool client = f->msg_type == TLSNEG_HS_CLIENT_HELLO;
    if (client) {
        json_code_points(out, "groups", f->has_supported_groups, f->groups, f->num_groups);
    } else if (f->msg_type == TLSNEG_HS_SERVER_HELLO) {
        json_version(out, "group_selected", f->has_group_selected, f->group_selected);
    }
    if (client || f->msg_type == TLSNEG_HS_SERVER_HELLO) {
        tlsneg_buf_add(out, ",\"key_shares\":");
        if (f->has_key_share && (client || !f->is_hrr)) {
            tlsneg_buf_addc(out, '[');
            for (unsigned i = 0; i < f->num_key_shares; i++) {
                if (i) {
                    tlsneg_buf_addc(out, ',');
                }
                tlsneg_buf_lit(out, "{\"group\":");
                tlsneg_buf_qvhex(out, f->key_shares[i].group);
                tlsneg_buf_lit(out, ",\"length\":");
                tlsneg_buf_uint(out, f->key_shares[i].length);
                tlsneg_buf_addc(out, '}');
            }
            tlsneg_buf_addc(out, ']');
        } else {
            tlsneg_buf_add(out, "null");
        }
    }
    if (client) {
        json_bool(out, "pq_offered", f->pq_offered);
        json_bool(out, "pq_key_share", f->pq_key_share);
    } else if (f->msg_type == TLSNEG_HS_SERVER_HELLO) {
        json_bool(out, "pq_selected", f->pq_selected);
    }
    tlsneg_json_keyu(out, "hello_length", f->hello_length);
    if (f->hello_segments) {
        tlsneg_json_keyu(out, "hello_segments", f->hello_segments);
    } else {
        tlsneg_buf_add(out, ",\"hello_segments\":null");
    }
}

static common_fields jsonl_hello(tlsneg_buf *out, tlsneg_jsonl_ends *ends,
                                 const tlsneg_out_frame *fr, const tlsneg_out_msg *r)
{
    const tlsneg_facts *f = &r->facts;
    common_fields c = json_common(out, ends, "hello", fr, tlsneg_out_ends_of(fr, r->from_client),
                                  r->sni, (tlsneg_wire)f->wire);
    tlsneg_buf_add(out, ",\"msg\":");
    tlsneg_json_string(out, tlsneg_msg_name(f));
    json_version(out, "legacy_version", true, f->legacy_version);
    if (f->msg_type == TLSNEG_HS_CLIENT_HELLO) {
        json_code_points(out, "offered", f->has_supported_versions, f->offered, f->num_offered);
        json_version(out, "offered_max", f->has_offered_max, f->offered_max);
        tlsneg_buf_add(out,
                       f->fallback_scsv ? ",\"fallback_scsv\":true" : ",\"fallback_scsv\":false");
        tlsneg_json_keyu(out, "grease", (unsigned)f->grease_count);
    } else {
        json_version(out, "selected", f->has_selected, f->selected_version);
        json_version(out, "negotiated", f->has_negotiated, f->negotiated_version);
    }
    json_key_exchange(out, f);
    if (r->retransmission_of) {
        tlsneg_json_keyu(out, "retransmission_of", r->retransmission_of);
    }
    if (r->hrr_frame) {
        tlsneg_json_keyu(out, "hrr_frame", r->hrr_frame);
        tlsneg_buf_add(out, ",\"hrr_changes\":");
        tlsneg_json_string(out, r->hrr_changes ? r->hrr_changes : "");
    }
    const tlsneg_kept_verdict *fallback =
        tlsneg_kept_find(r->verdicts, r->num_verdicts, TLSNEG_VERDICT_FALLBACK);
    if (fallback) {
        tlsneg_json_keyu(out, "fallback_of",
                         tlsneg_kept_link(fallback, TLSNEG_LINK_PREVIOUS_ATTEMPT));
    }
    const tlsneg_kept_verdict *same =
        tlsneg_kept_find(r->verdicts, r->num_verdicts, TLSNEG_VERDICT_SAME_RETRY);
    if (same) {
        tlsneg_json_keyu(out, "retry_of", tlsneg_kept_link(same, TLSNEG_LINK_SAME_OFFER_AS));
    }
    const tlsneg_kept_verdict *probe =
        tlsneg_kept_find(r->verdicts, r->num_verdicts, TLSNEG_VERDICT_PROBE);
    if (probe) {
        tlsneg_json_keyu(out, "probe", probe->probe.first_frame);
    }
    json_findings(out, r);
    tlsneg_buf_add(out, "}\n");
    return c;
}

/* jsonl_outcome_fields writes what an outcome record adds to the common
 * fields. */
static void jsonl_outcome_fields(tlsneg_buf *out, uint32_t attempt_frame, const char *outcome)
{
    tlsneg_json_keyu(out, "attempt_frame", attempt_frame);
    tlsneg_buf_add(out, ",\"outcome\":\"");
    tlsneg_buf_add(out, outcome);
    tlsneg_buf_addc(out, '"');
}

static void jsonl_outcome(tlsneg_buf *out, tlsneg_jsonl_ends *ends, const tlsneg_out_frame *fr,
                          tlsneg_out_ends e, const char *sni, tlsneg_wire wire,
                          uint32_t attempt_frame, const char *outcome)
{
    json_common(out, ends, "outcome", fr, e, sni, wire);
    jsonl_outcome_fields(out, attempt_frame, outcome);
}

void tlsneg_jsonl_header(FILE *out)
{
    fprintf(out,
            "{\"record\":\"header\",\"schema\":\"tlsneg-jsonl\",\"version\":%d,"
            "\"records\":[\"hello\",\"outcome\",\"probe\"]}\n",
            JSONL_SCHEMA_VERSION);
}

void tlsneg_jsonl_message(tlsneg_buf *out, tlsneg_jsonl_ends *ends, const tlsneg_out_frame *fr,
                          const tlsneg_out_msg *r)
{
    tlsneg_out_ends e = tlsneg_out_ends_of(fr, r->from_client);
    if (r->is_alert) {
        jsonl_outcome(out, ends, fr, e, r->sni, (tlsneg_wire)r->facts.wire, r->client_hello_frame,
                      "alert");
        tlsneg_json_keyu(out, "alert", r->alert_description);
        if (r->alert_level == TLSNEG_ALERT_NO_LEVEL) {
            tlsneg_buf_add(out, ",\"level\":null");
        } else {
            tlsneg_json_keyu(out, "level", r->alert_level);
        }
        tlsneg_buf_add(out,
                       r->alert_ends ? ",\"ends_handshake\":true" : ",\"ends_handshake\":false");
        tlsneg_buf_add(out,
                       r->alert_from_server ? ",\"from_server\":true" : ",\"from_server\":false");
        if (r->alert_after_close) {
            /* The other side had closed or reset the connection before. */
            tlsneg_buf_add(out, r->alert_after_close_cause == TLSNEG_CAUSE_RESET
                                    ? ",\"after_peer\":\"reset\""
                                    : ",\"after_peer\":\"close\"");
            tlsneg_json_keyu(out, "after_peer_frame", r->alert_after_close);
        }
        json_findings(out, r);
        tlsneg_buf_add(out, "}\n");
        return;
    }
    common_fields c = jsonl_hello(out, ends, fr, r);
    if (r->facts.msg_type == TLSNEG_HS_SERVER_HELLO && !r->retransmission_of) {
        /* the outcome: the same frame, ends and SNI as the hello's record */
        json_common_again(out, "outcome", c);
        jsonl_outcome_fields(out, r->client_hello_frame,
                             r->facts.is_hrr ? "hello_retry_request" : "server_hello");
        json_version(out, "version", r->facts.has_negotiated, r->facts.negotiated_version);
        tlsneg_buf_add(out, "}\n");
    }
}

void tlsneg_jsonl_close(tlsneg_buf *out, tlsneg_jsonl_ends *ends, const tlsneg_out_frame *fr,
                        uint8_t cause, bool from_client, uint32_t attempt_frame, const char *sni)
{
    jsonl_outcome(out, ends, fr, tlsneg_out_ends_of(fr, from_client), sni, TLSNEG_WIRE_TLS,
                  attempt_frame, cause == TLSNEG_CAUSE_RESET ? "reset" : "close");
    tlsneg_buf_add(out, "}\n");
}

/* tlsneg_jsonl_end: one probe record per recognised probe, at the end, with
 * its totals (a probe is known complete only once the capture has been
 * read). */
void tlsneg_jsonl_end(const tlsneg_totals *t, tlsneg_buf *out, FILE *f)
{
    tlsneg_probe_seen **list = tlsneg_totals_probes(t);
    char lo[TLSNEG_VHEX_MAX], hi[TLSNEG_VHEX_MAX];
    for (size_t i = 0; list && i < t->probes.used; i++) {
        const tlsneg_probe_seen *ps = list[i];
        tlsneg_buf_printf(out, "{\"record\":\"probe\",\"frame\":%u,\"client\":", ps->p.first_frame);
        tlsneg_json_string(out, ps->client);
        tlsneg_buf_add(out, ",\"server\":");
        tlsneg_json_string(out, ps->server);
        tlsneg_json_keyu(out, "port", ps->port);
        if (ps->transport != TLSNEG_WIRE_TLS) {
            JSON_KEY(out, "transport");
            tlsneg_json_string(out, tlsneg_out_transport_name((tlsneg_wire)ps->transport));
        }
        tlsneg_buf_printf(out,
                          ",\"hellos\":%u,\"seconds\":%.3f,\"lowest\":\"%s\",\"highest\":"
                          "\"%s\",\"scsv\":%u,\"scsv_refused\":%u}\n",
                          ps->p.hellos, (double)(ps->p.last_us - ps->p.first_us) / 1e6,
                          tlsneg_vhex(ps->p.lowest, lo), tlsneg_vhex(ps->p.highest, hi), ps->p.scsv,
                          ps->p.scsv_refused);
        tlsneg_buf_flush(out, f);
    }
    free(list);
}
