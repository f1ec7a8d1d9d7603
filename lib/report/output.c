/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output.c: the JSON lines, the CSV and the report (output.h), for both
 * front ends. */
#define _POSIX_C_SOURCE 200809L

#include "report/output.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/versions.h"
#include "core/util.h"

#define JSONL_SCHEMA_VERSION 1
#define MAX_VERDICT_LINES    1000

/* ---- a growing string ----------------------------------------------------- */

typedef struct {
    char *s; /* len bytes, and room for a NUL that sbuf_str writes */
    size_t len, cap;
    bool failed; /* out of memory: the text is cut */
} sbuf;

static bool sbuf_grow_slow(sbuf *b, size_t more)
{
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more + 1) {
        cap *= 2;
    }
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = true;
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

static inline bool sbuf_grow(sbuf *b, size_t more)
{
    return b->len + more + 1 <= b->cap || sbuf_grow_slow(b, more);
}

/* sbuf_put appends n bytes of s. The text is ended by a NUL only when read
 * as a string (sbuf_str). */
static inline void sbuf_put(sbuf *b, const char *s, size_t n)
{
    if (!sbuf_grow(b, n)) {
        return;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
}

static inline void sbuf_add(sbuf *b, const char *s)
{
    sbuf_put(b, s, strlen(s));
}

static inline void sbuf_addc(sbuf *b, char c)
{
    sbuf_put(b, &c, 1);
}

static void sbuf_printf(sbuf *b, const char *fmt, ...) TLSNEG_PRINTF(2, 3);
static void sbuf_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return;
    }
    if ((size_t)n < sizeof small) {
        sbuf_put(b, small, (size_t)n);
        return;
    }
    if (!sbuf_grow(b, (size_t)n)) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* sbuf_uint writes v in decimal, as printf's %llu does: without printf,
 * which the JSON lines would call a dozen times a message. */
static void sbuf_uint(sbuf *b, unsigned long long v)
{
    char d[20];
    size_t i = sizeof d;
    do {
        d[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    sbuf_put(b, d + i, sizeof d - i);
}

/* sbuf_digits writes the last n digits of v (n <= 20), zeros first: as
 * printf's %0*llu with width n, for a v of at most n digits. */
static void sbuf_digits(sbuf *b, unsigned long long v, size_t n)
{
    char d[20];
    for (size_t i = n; i > 0; i--) {
        d[i - 1] = (char)('0' + v % 10);
        v /= 10;
    }
    sbuf_put(b, d, n);
}

/* sbuf_keyu writes ,"key":v. */
static inline void sbuf_keyu(sbuf *b, const char *key, unsigned long long v)
{
    sbuf_add(b, ",\"");
    sbuf_add(b, key);
    sbuf_add(b, "\":");
    sbuf_uint(b, v);
}

static void sbuf_clear(sbuf *b)
{
    b->len = 0;
    if (b->s) {
        b->s[0] = '\0';
    }
}

/* sbuf_str returns the text, ended by a NUL (sbuf_grow keeps room for it). */
static const char *sbuf_str(sbuf *b)
{
    if (!b->s) {
        return "";
    }
    b->s[b->len] = '\0';
    return b->s;
}

/* ---- a hash map from byte strings to pointers ------------------------------ */

typedef struct {
    char *key; /* malloc'd, key_len bytes */
    size_t key_len;
    uint64_t hash;
    void *value;
} slot;

typedef struct {
    slot *slots;
    size_t cap, used;
} map;

static slot *map_find(map *m, const void *key, size_t key_len, uint64_t h)
{
    if (!m->cap) {
        return NULL;
    }
    for (size_t i = (size_t)h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        slot *s = &m->slots[i];
        if (!s->key) {
            return s;
        }
        if (s->hash == h && s->key_len == key_len && memcmp(s->key, key, key_len) == 0) {
            return s;
        }
    }
}

static void *map_get(map *m, const void *key, size_t key_len)
{
    slot *s = map_find(m, key, key_len, tlsneg_fnv64(TLSNEG_FNV64_BASIS, key, key_len));
    return s && s->key ? s->value : NULL;
}

/* map_put adds key (not there yet); false when out of memory. */
static bool map_put(map *m, const void *key, size_t key_len, void *value)
{
    if ((m->used + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        slot *slots = calloc(cap, sizeof *slots);
        if (!slots) {
            return false;
        }
        map old = *m;
        m->slots = slots;
        m->cap = cap;
        for (size_t i = 0; i < old.cap; i++) {
            if (old.slots[i].key) {
                *map_find(m, old.slots[i].key, old.slots[i].key_len, old.slots[i].hash) =
                    old.slots[i];
            }
        }
        free(old.slots);
    }
    uint64_t h = tlsneg_fnv64(TLSNEG_FNV64_BASIS, key, key_len);
    slot *s = map_find(m, key, key_len, h);
    s->key = malloc(key_len ? key_len : 1);
    if (!s->key) {
        return false;
    }
    memcpy(s->key, key, key_len);
    s->key_len = key_len;
    s->hash = h;
    s->value = value;
    m->used++;
    return true;
}

static void map_clear(map *m, void (*free_value)(void *))
{
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slots[i].key) {
            free(m->slots[i].key);
            if (free_value) {
                free_value(m->slots[i].value);
            }
        }
    }
    free(m->slots);
    m->slots = NULL;
    m->cap = m->used = 0;
}

/* map_values returns the values in a new array of m->used, or NULL. */
static void **map_values(const map *m)
{
    void **v = malloc((m->used ? m->used : 1) * sizeof *v);
    if (!v) {
        return NULL;
    }
    size_t n = 0;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slots[i].key) {
            v[n++] = m->slots[i].value;
        }
    }
    return v;
}

/* ---- messages -------------------------------------------------------------- */

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

/* ---- text pieces ------------------------------------------------------------ */

/* vhex writes "0x0304" into buf (8 bytes), as printf's "0x%04x" does:
 * without printf, which the JSON lines call for every version. */
static const char *vhex(uint16_t v, char *buf)
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

/* sbuf_vhex writes "0x0304": vhex's text, its 6 bytes known. */
static void sbuf_vhex(sbuf *out, uint16_t v)
{
    char h[8];
    sbuf_put(out, vhex(v, h), 6);
}

#define ADDR_TEXT_MAX 64

/* addr_text writes a as text: IPv4 and IPv6 as inet_ntop writes them (as
 * Wireshark does), any other as its front end gave it. */
static const char *addr_text(const tlsneg_out_addr *a, char *buf)
{
    if (a->text) {
        tlsneg_strlcpy(buf, ADDR_TEXT_MAX, a->text);
    } else if (a->len == 4) {
        /* as inet_ntop writes it, without the sprintf it calls (twice a
         * JSON line) */
        char *p = buf;
        for (int i = 0; i < 4; i++) {
            unsigned v = a->bytes[i];
            if (v >= 100) {
                *p++ = (char)('0' + v / 100);
            }
            if (v >= 10) {
                *p++ = (char)('0' + v / 10 % 10);
            }
            *p++ = (char)('0' + v % 10);
            *p++ = i < 3 ? '.' : '\0';
        }
    } else if (!inet_ntop(a->len == 16 ? AF_INET6 : AF_INET, a->bytes, buf, ADDR_TEXT_MAX)) {
        snprintf(buf, ADDR_TEXT_MAX, "?");
    }
    return buf;
}

/* rule_label writes "fallback_retry (tlsneg.expert.fallback_retry_scsv)" or
 * "fallback_retry" into buf. A rule's public name is its finding, the value
 * of tlsneg.finding; a variant is shown beside it as the expert info's own
 * filter. Both work as filters exactly as printed. */
static const char *rule_label(tlsneg_rule_id id, char *buf, size_t len)
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
static void offer_pattern(const tlsneg_facts *f, sbuf *out)
{
    sbuf_clear(out);
    if (!f->has_supported_versions) {
        sbuf_add(out, "legacy ");
        sbuf_vhex(out, f->legacy_version);
        return;
    }
    bool grease = false;
    for (unsigned i = 0; i < f->num_offered; i++) {
        if (tlsneg_is_grease(f->offered[i])) {
            if (!grease) {
                sbuf_add(out, out->len ? " GREASE" : "GREASE");
            }
            grease = true;
            continue;
        }
        if (out->len) {
            sbuf_addc(out, ' ');
        }
        sbuf_vhex(out, f->offered[i]);
    }
    if (!out->len) {
        sbuf_add(out, "(empty)");
    }
}

/* ---- the writer's state ------------------------------------------------------ */

/* A probe: its newest state, and where it went. */
typedef struct {
    tlsneg_probe p;
    char client[ADDR_TEXT_MAX], server[ADDR_TEXT_MAX];
    uint16_t port;
} probe_seen;

typedef struct {
    uint16_t version;
    unsigned count;
} version_count;

typedef struct {
    version_count *v;
    size_t n, cap;
} version_counts;

/* One server: an (address, port, SNI) triple. */
typedef struct {
    uint16_t port;
    char *sni;                     /* "" without SNI */
    char server[ADDR_TEXT_MAX];    /* the address as text */
    char label[ADDR_TEXT_MAX + 8]; /* address:port, [IPv6]:port */
    bool dtls;                     /* names versions as DTLS */
    unsigned client_hellos, server_hellos, hrrs, alerts, resets, closes, fallbacks;
    version_counts offered;  /* highest version offered */
    version_counts in_force; /* version put in force */
    unsigned findings[TLSNEG_RULE_COUNT];
    char *intolerant_of;
    uint32_t intolerant_frame;
} server_stats;

struct tlsneg_out {
    tlsneg_out_format format;
    FILE *out;
    sbuf line;    /* the records of one call */
    sbuf pattern; /* scratch */
    map probes;   /* first frame -> probe_seen */
    map servers;  /* key -> server_stats */
    map offers;   /* pattern -> unsigned count */
    unsigned findings[TLSNEG_RULE_COUNT];
    unsigned messages[4]; /* by msg_type; [0] alerts */
    char **verdicts;      /* the main findings, one line each, in frame order */
    size_t num_verdicts;
    unsigned verdicts_dropped;
    unsigned findings_dropped; /* beyond a message's TLSNEG_MAX_FINDINGS */
};

static void server_free(void *p)
{
    server_stats *s = p;
    free(s->sni);
    free(s->intolerant_of);
    free(s->offered.v);
    free(s->in_force.v);
    free(s);
}

tlsneg_out *tlsneg_out_new(tlsneg_out_format format, FILE *out)
{
    tlsneg_out *o = calloc(1, sizeof *o);
    if (!o) {
        return NULL;
    }
    o->format = format;
    o->out = out;
    if (format == TLSNEG_OUT_REPORT) {
        o->verdicts = calloc(MAX_VERDICT_LINES, sizeof *o->verdicts);
        if (!o->verdicts) {
            free(o);
            return NULL;
        }
    }
    return o;
}

void tlsneg_out_reset(tlsneg_out *o)
{
    map_clear(&o->probes, free);
    map_clear(&o->servers, server_free);
    map_clear(&o->offers, free);
    for (size_t i = 0; i < o->num_verdicts; i++) {
        free(o->verdicts[i]);
    }
    o->num_verdicts = 0;
    o->verdicts_dropped = 0;
    o->findings_dropped = 0;
    memset(o->findings, 0, sizeof o->findings);
    memset(o->messages, 0, sizeof o->messages);
}

void tlsneg_out_free(tlsneg_out *o)
{
    if (!o) {
        return;
    }
    tlsneg_out_reset(o);
    free(o->verdicts);
    free(o->line.s);
    free(o->pattern.s);
    free(o);
}

static void flush_line(tlsneg_out *o)
{
    if (o->line.len) {
        fwrite(o->line.s, 1, o->line.len, o->out);
    }
    sbuf_clear(&o->line);
}

/* ---- JSON lines ---------------------------------------------------------------- */

static void json_string(sbuf *out, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    sbuf_addc(out, '"');
    for (;;) {
        /* the run that needs no escape, at once */
        const unsigned char *run = p;
        while (*p >= 0x20 && *p != '"' && *p != '\\') {
            p++;
        }
        sbuf_put(out, (const char *)run, (size_t)(p - run));
        if (!*p) {
            break;
        }
        if (*p < 0x20) {
            char u[6] = {'\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15]};
            sbuf_put(out, u, sizeof u);
        } else {
            char e[2] = {'\\', (char)*p};
            sbuf_put(out, e, sizeof e);
        }
        p++;
    }
    sbuf_addc(out, '"');
}

/* json_addr writes a as a JSON string: inet_ntop's text needs no escape. */
static void json_addr(sbuf *out, const tlsneg_out_addr *a)
{
    char buf[ADDR_TEXT_MAX];
    if (a->text) {
        json_string(out, a->text);
        return;
    }
    sbuf_addc(out, '"');
    sbuf_add(out, addr_text(a, buf));
    sbuf_addc(out, '"');
}

static inline void json_version(sbuf *out, const char *key, bool has, uint16_t v)
{
    sbuf_add(out, ",\"");
    sbuf_add(out, key);
    if (has) {
        sbuf_add(out, "\":\"");
        sbuf_vhex(out, v);
        sbuf_addc(out, '"');
    } else {
        sbuf_add(out, "\":null");
    }
}

/* The client and the server of a message sent by the client or not. */
typedef struct {
    const tlsneg_out_addr *client, *server;
} ends;

static ends ends_of(const tlsneg_out_frame *fr, bool from_client)
{
    ends e = {from_client ? &fr->src : &fr->dst, from_client ? &fr->dst : &fr->src};
    return e;
}

/* Where the common fields after a record's name lie in the line buffer:
 * a second record of the same message copies them (json_common_again). */
typedef struct {
    size_t from, len;
} common_fields;

static void json_record(sbuf *out, const char *record)
{
    sbuf_add(out, "{\"record\":\"");
    sbuf_add(out, record);
    sbuf_addc(out, '"');
}

static common_fields json_common(sbuf *out, const char *record, const tlsneg_out_frame *fr, ends e,
                                 const char *sni)
{
    json_record(out, record);
    common_fields c = {out->len, 0};
    sbuf_keyu(out, "frame", fr->frame);
    if (fr->secs >= 0 && fr->usecs < 1000000) {
        sbuf_keyu(out, "time", (unsigned long long)fr->secs);
        sbuf_addc(out, '.');
        sbuf_digits(out, fr->usecs, 6);
    } else {
        sbuf_printf(out, ",\"time\":%ld.%06d", (long)fr->secs, (int)fr->usecs);
    }
    sbuf_add(out, ",\"client\":");
    json_addr(out, e.client);
    sbuf_keyu(out, "client_port", e.client->port);
    sbuf_add(out, ",\"server\":");
    json_addr(out, e.server);
    sbuf_keyu(out, "port", e.server->port);
    sbuf_add(out, ",\"sni\":");
    if (sni) {
        json_string(out, sni);
    } else {
        sbuf_add(out, "null");
    }
    c.len = out->len - c.from;
    return c;
}

/* json_common_again starts a second record of a message with the common
 * fields json_common wrote for its first (the same frame, ends and SNI). */
static void json_common_again(sbuf *out, const char *record, common_fields c)
{
    json_record(out, record);
    if (!sbuf_grow(out, c.len)) {
        return;
    }
    memcpy(out->s + out->len, out->s + c.from, c.len);
    out->len += c.len;
}

/* findings: the rule names (tlsneg.finding); experts: the expert info of
 * each, in the same order (tlsneg.expert.<name>, the variant);
 * findings_dropped: how many more the message broke, not kept. */
static void json_findings(sbuf *out, const tlsneg_out_msg *r)
{
    sbuf_add(out, ",\"findings\":[");
    for (unsigned i = 0; i < r->num_findings; i++) {
        sbuf_add(out, i ? ",\"" : "\"");
        sbuf_add(out, tlsneg_rules[r->findings[i].rule].finding);
        sbuf_addc(out, '"');
    }
    sbuf_add(out, "],\"experts\":[");
    for (unsigned i = 0; i < r->num_findings; i++) {
        sbuf_add(out, i ? ",\"" : "\"");
        sbuf_add(out, tlsneg_rules[r->findings[i].rule].name);
        sbuf_addc(out, '"');
    }
    sbuf_addc(out, ']');
    if (r->findings_dropped) {
        sbuf_keyu(out, "findings_dropped", r->findings_dropped);
    }
}

static common_fields jsonl_hello(sbuf *out, const tlsneg_out_frame *fr, const tlsneg_out_msg *r)
{
    const tlsneg_facts *f = &r->facts;
    common_fields c = json_common(out, "hello", fr, ends_of(fr, r->from_client), r->sni);
    sbuf_add(out, ",\"msg\":");
    json_string(out, tlsneg_msg_name(f));
    json_version(out, "legacy_version", true, f->legacy_version);
    if (f->msg_type == TLSNEG_HS_CLIENT_HELLO) {
        sbuf_add(out, ",\"offered\":");
        if (f->has_supported_versions) {
            sbuf_addc(out, '[');
            for (unsigned i = 0; i < f->num_offered; i++) {
                sbuf_add(out, i ? ",\"" : "\"");
                sbuf_vhex(out, f->offered[i]);
                sbuf_addc(out, '"');
            }
            sbuf_addc(out, ']');
        } else {
            sbuf_add(out, "null");
        }
        json_version(out, "offered_max", f->has_offered_max, f->offered_max);
        sbuf_add(out, f->fallback_scsv ? ",\"fallback_scsv\":true" : ",\"fallback_scsv\":false");
        sbuf_keyu(out, "grease", (unsigned)f->grease_count);
    } else {
        json_version(out, "selected", f->has_selected, f->selected_version);
        json_version(out, "negotiated", f->has_negotiated, f->negotiated_version);
    }
    if (r->retransmission_of) {
        sbuf_keyu(out, "retransmission_of", r->retransmission_of);
    }
    const tlsneg_kept_verdict *fallback =
        tlsneg_kept_find(r->verdicts, r->num_verdicts, TLSNEG_VERDICT_FALLBACK);
    if (fallback) {
        sbuf_keyu(out, "fallback_of", tlsneg_kept_link(fallback, TLSNEG_LINK_PREVIOUS_ATTEMPT));
    }
    const tlsneg_kept_verdict *same =
        tlsneg_kept_find(r->verdicts, r->num_verdicts, TLSNEG_VERDICT_SAME_RETRY);
    if (same) {
        sbuf_keyu(out, "retry_of", tlsneg_kept_link(same, TLSNEG_LINK_SAME_OFFER_AS));
    }
    const tlsneg_kept_verdict *probe =
        tlsneg_kept_find(r->verdicts, r->num_verdicts, TLSNEG_VERDICT_PROBE);
    if (probe) {
        sbuf_keyu(out, "probe", probe->probe.first_frame);
    }
    json_findings(out, r);
    sbuf_add(out, "}\n");
    return c;
}

/* jsonl_outcome_fields writes what an outcome record adds to the common
 * fields. */
static void jsonl_outcome_fields(sbuf *out, uint32_t attempt_frame, const char *outcome)
{
    sbuf_keyu(out, "attempt_frame", attempt_frame);
    sbuf_add(out, ",\"outcome\":\"");
    sbuf_add(out, outcome);
    sbuf_addc(out, '"');
}

static void jsonl_outcome(sbuf *out, const tlsneg_out_frame *fr, ends e, const char *sni,
                          uint32_t attempt_frame, const char *outcome)
{
    json_common(out, "outcome", fr, e, sni);
    jsonl_outcome_fields(out, attempt_frame, outcome);
}

void tlsneg_out_header(tlsneg_out *o)
{
    if (o->format == TLSNEG_OUT_JSONL) {
        fprintf(o->out,
                "{\"record\":\"header\",\"schema\":\"tlsneg-jsonl\",\"version\":%d,"
                "\"records\":[\"hello\",\"outcome\",\"probe\"]}\n",
                JSONL_SCHEMA_VERSION);
    }
}

/* probes_update keeps the newest state of every probe a message belongs to. */
static void probes_update(tlsneg_out *o, const tlsneg_out_frame *fr, const tlsneg_out_msg *r)
{
    const tlsneg_kept_verdict *v =
        tlsneg_kept_find(r->verdicts, r->num_verdicts, TLSNEG_VERDICT_PROBE);
    if (!v) {
        return;
    }
    uint32_t k = v->probe.first_frame;
    probe_seen *ps = map_get(&o->probes, &k, sizeof k);
    if (!ps) {
        ends e = ends_of(fr, r->from_client);
        ps = calloc(1, sizeof *ps);
        if (!ps) {
            return;
        }
        addr_text(e.client, ps->client);
        addr_text(e.server, ps->server);
        ps->port = e.server->port;
        if (!map_put(&o->probes, &k, sizeof k, ps)) {
            free(ps);
            return;
        }
    }
    ps->p = v->probe;
}

static void jsonl_message(tlsneg_out *o, const tlsneg_out_frame *fr, const tlsneg_out_msg *r)
{
    sbuf *out = &o->line;
    ends e = ends_of(fr, r->from_client);
    if (r->is_alert) {
        jsonl_outcome(out, fr, e, r->sni, r->client_hello_frame, "alert");
        sbuf_keyu(out, "alert", r->alert_description);
        sbuf_add(out, r->alert_from_server ? ",\"from_server\":true" : ",\"from_server\":false");
        json_findings(out, r);
        sbuf_add(out, "}\n");
        return;
    }
    common_fields c = jsonl_hello(out, fr, r);
    if (r->facts.msg_type == TLSNEG_HS_SERVER_HELLO && !r->retransmission_of) {
        /* the outcome: the same frame, ends and SNI as the hello's record */
        json_common_again(out, "outcome", c);
        jsonl_outcome_fields(out, r->client_hello_frame,
                             r->facts.is_hrr ? "hello_retry_request" : "server_hello");
        json_version(out, "version", r->facts.has_negotiated, r->facts.negotiated_version);
        sbuf_add(out, "}\n");
    }
}

/* probes_sorted returns the probes in frame order (new array), or NULL. */
static int by_first_frame(const void *a, const void *b)
{
    uint32_t fa = (*(probe_seen *const *)a)->p.first_frame;
    uint32_t fb = (*(probe_seen *const *)b)->p.first_frame;
    return (fa > fb) - (fa < fb);
}

static probe_seen **probes_sorted(tlsneg_out *o)
{
    probe_seen **list = (probe_seen **)map_values(&o->probes);
    if (list) {
        qsort(list, o->probes.used, sizeof *list, by_first_frame);
    }
    return list;
}

/* jsonl_end: one probe record per recognised probe, at the end, with its
 * totals (a probe is known complete only once the capture has been read). */
static void jsonl_end(tlsneg_out *o)
{
    probe_seen **list = probes_sorted(o);
    char lo[8], hi[8];
    for (size_t i = 0; list && i < o->probes.used; i++) {
        const probe_seen *ps = list[i];
        sbuf *out = &o->line;
        sbuf_printf(out, "{\"record\":\"probe\",\"frame\":%u,\"client\":", ps->p.first_frame);
        json_string(out, ps->client);
        sbuf_add(out, ",\"server\":");
        json_string(out, ps->server);
        sbuf_printf(out,
                    ",\"port\":%u,\"hellos\":%u,\"seconds\":%.3f,\"lowest\":\"%s\",\"highest\":"
                    "\"%s\",\"scsv\":%u,\"scsv_refused\":%u}\n",
                    ps->port, ps->p.hellos, (double)(ps->p.last_us - ps->p.first_us) / 1e6,
                    vhex(ps->p.lowest, lo), vhex(ps->p.highest, hi), ps->p.scsv,
                    ps->p.scsv_refused);
        flush_line(o);
    }
    free(list);
}

/* ---- the report and the CSV: totals per server, per offer, per rule ------------- */

/* server_of finds the server of a message by binary key: the address is
 * written out as text once per server, not once per message. */
static server_stats *server_of(tlsneg_out *o, const tlsneg_out_frame *fr, bool from_client,
                               const char *sni)
{
    const tlsneg_out_addr *a = from_client ? &fr->dst : &fr->src;
    if (!sni) {
        sni = "";
    }
    /* key: address length, address (or its text), port, SNI */
    uint8_t key[1 + ADDR_TEXT_MAX + 2 + TLSNEG_MAX_SNI + 1];
    size_t n = 0;
    const uint8_t *ab = a->text ? (const uint8_t *)a->text : a->bytes;
    size_t al = a->text ? strlen(a->text) : a->len;
    if (al > ADDR_TEXT_MAX) {
        al = ADDR_TEXT_MAX;
    }
    key[n++] = (uint8_t)(a->text ? 0xff : al);
    if (al) { /* an address of no known kind may have no bytes */
        memcpy(key + n, ab, al);
        n += al;
    }
    key[n++] = (uint8_t)(a->port >> 8);
    key[n++] = (uint8_t)a->port;
    size_t sl = strlen(sni);
    if (sl > TLSNEG_MAX_SNI) {
        sl = TLSNEG_MAX_SNI;
    }
    memcpy(key + n, sni, sl);
    n += sl;
    server_stats *s = map_get(&o->servers, key, n);
    if (s) {
        return s;
    }
    s = calloc(1, sizeof *s);
    if (!s) {
        return NULL;
    }
    s->port = a->port;
    s->sni = tlsneg_strdup(sni);
    addr_text(a, s->server);
    if (a->len == 16 && !a->text) {
        snprintf(s->label, sizeof s->label, "[%s]:%u", s->server, s->port);
    } else {
        snprintf(s->label, sizeof s->label, "%s:%u", s->server, s->port);
    }
    if (!s->sni || !map_put(&o->servers, key, n, s)) {
        server_free(s);
        return NULL;
    }
    return s;
}

static void count(version_counts *t, uint16_t v)
{
    for (size_t i = 0; i < t->n; i++) {
        if (t->v[i].version == v) {
            t->v[i].count++;
            return;
        }
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 4;
        version_count *nv = realloc(t->v, cap * sizeof *nv);
        if (!nv) {
            return;
        }
        t->v = nv;
        t->cap = cap;
    }
    t->v[t->n].version = v;
    t->v[t->n].count = 1;
    t->n++;
}

static void verdict_line(tlsneg_out *o, const char *line)
{
    if (o->num_verdicts < MAX_VERDICT_LINES) {
        char *d = tlsneg_strdup(line);
        if (d) {
            o->verdicts[o->num_verdicts++] = d;
        }
    } else {
        o->verdicts_dropped++;
    }
}

static bool has_finding(const tlsneg_out_msg *r, tlsneg_rule_id id)
{
    for (unsigned i = 0; i < r->num_findings; i++) {
        if (r->findings[i].rule == id) {
            return true;
        }
    }
    return false;
}

static void report_message(tlsneg_out *o, const tlsneg_out_frame *fr, const tlsneg_out_msg *r)
{
    server_stats *s = server_of(o, fr, r->from_client, r->sni);
    if (!s) {
        return;
    }
    const tlsneg_facts *f = &r->facts;
    char label[128];
    probes_update(o, fr, r);
    o->messages[r->is_alert ? 0 : f->msg_type < 3 ? f->msg_type : 3]++;
    if (!r->is_alert && tlsneg_facts_is_dtls(f)) {
        s->dtls = true;
    }
    o->findings_dropped += r->findings_dropped;
    for (unsigned i = 0; i < r->num_findings; i++) {
        tlsneg_rule_id id = r->findings[i].rule;
        o->findings[id]++;
        s->findings[id]++;
        /* An alert 86 is a verdict by itself; when the tracker saw the
         * retry it answers, fallback_rejected says it with the link, and in
         * a probe the probe's line says it. */
        if (o->format == TLSNEG_OUT_REPORT && tlsneg_rule_is_verdict(id) &&
            !(id == TLSNEG_RULE_INAPPROPRIATE_FALLBACK &&
              (has_finding(r, TLSNEG_RULE_FALLBACK_REJECTED) ||
               tlsneg_kept_find(r->verdicts, r->num_verdicts, TLSNEG_VERDICT_PROBE)))) {
            sbuf_clear(&o->pattern);
            sbuf_printf(&o->pattern, "frame %u  %s%s%s  %s: %s", fr->frame, s->label,
                        r->sni ? " " : "", r->sni ? r->sni : "",
                        rule_label(id, label, sizeof label), r->findings[i].detail);
            verdict_line(o, sbuf_str(&o->pattern));
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
            count(&s->offered, f->offered_max);
        }
        offer_pattern(f, &o->pattern);
        const char *p = sbuf_str(&o->pattern);
        size_t plen = o->pattern.len + 1; /* with its NUL, as the key */
        unsigned *n = map_get(&o->offers, p, plen);
        if (!n) {
            n = calloc(1, sizeof *n);
            if (!n || !map_put(&o->offers, p, plen, n)) {
                free(n);
                n = NULL;
            }
        }
        if (n) {
            (*n)++;
        }
        s->fallbacks +=
            tlsneg_kept_find(r->verdicts, r->num_verdicts, TLSNEG_VERDICT_FALLBACK) ? 1u : 0u;
    } else if (f->msg_type == TLSNEG_HS_SERVER_HELLO) {
        if (f->is_hrr) {
            s->hrrs++;
        } else {
            s->server_hellos++;
            count(&s->in_force, f->negotiated_version);
        }
        const tlsneg_kept_verdict *intolerant =
            tlsneg_kept_find(r->verdicts, r->num_verdicts, TLSNEG_VERDICT_INTOLERANT);
        const char *what =
            intolerant ? tlsneg_kept_text(intolerant, TLSNEG_TEXT_INTOLERANT_OF) : NULL;
        if (what) {
            free(s->intolerant_of);
            s->intolerant_of = tlsneg_strdup(what);
            s->intolerant_frame = fr->frame;
        }
    }
}

void tlsneg_out_message(tlsneg_out *o, const tlsneg_out_frame *fr, const tlsneg_out_msg *m)
{
    if (o->format == TLSNEG_OUT_JSONL) {
        probes_update(o, fr, m);
        jsonl_message(o, fr, m);
        flush_line(o);
    } else {
        report_message(o, fr, m);
    }
}

void tlsneg_out_close(tlsneg_out *o, const tlsneg_out_frame *fr, uint8_t cause, bool from_client,
                      uint32_t attempt_frame, const char *sni)
{
    if (o->format == TLSNEG_OUT_JSONL) {
        jsonl_outcome(&o->line, fr, ends_of(fr, from_client), sni, attempt_frame,
                      cause == TLSNEG_CAUSE_RESET ? "reset" : "close");
        sbuf_add(&o->line, "}\n");
        flush_line(o);
        return;
    }
    server_stats *s = server_of(o, fr, from_client, sni);
    if (!s) {
        return;
    }
    if (cause == TLSNEG_CAUSE_RESET) {
        s->resets++;
    } else {
        s->closes++;
    }
}

static bool dtls_pair(uint16_t a, uint16_t b)
{
    return a >= 0xfe00 || b >= 0xfe00;
}

static int by_version_rank(const void *pa, const void *pb)
{
    uint16_t va = ((const version_count *)pa)->version, vb = ((const version_count *)pb)->version;
    /* DTLS numbers run backwards; rank both families the same way. */
    bool dtls = dtls_pair(va, vb);
    unsigned ra = tlsneg_version_rank(va, dtls), rb = tlsneg_version_rank(vb, dtls);
    return ra == rb ? (va > vb) - (va < vb) : (ra < rb) - (ra > rb);
}

/* version_list writes "TLS 1.3 x3, TLS 1.2 x1" or "0x0304:3;0x0303:1" for
 * the CSV. */
static void version_list(const version_counts *t, sbuf *out, bool csv, bool dtls)
{
    version_count *sorted = malloc((t->n ? t->n : 1) * sizeof *sorted);
    if (!sorted) {
        return;
    }
    if (t->n) { /* t->v is NULL while nothing was counted */
        memcpy(sorted, t->v, t->n * sizeof *sorted);
        qsort(sorted, t->n, sizeof *sorted, by_version_rank);
    }
    char buf[TLSNEG_VERSION_NAME_MAX];
    for (size_t i = 0; i < t->n; i++) {
        /* "0x0304:3;0x0303:1" (CSV) or "TLS 1.3 x3, TLS 1.2 x1" */
        if (i) {
            sbuf_add(out, csv ? ";" : ", ");
        }
        if (csv) {
            sbuf_vhex(out, sorted[i].version);
            sbuf_addc(out, ':');
        } else {
            sbuf_add(out, tlsneg_version_name_in(sorted[i].version, dtls, buf, sizeof buf));
            sbuf_add(out, " x");
        }
        sbuf_uint(out, sorted[i].count);
    }
    free(sorted);
}

static int by_attempts(const void *a, const void *b)
{
    const server_stats *sa = *(server_stats *const *)a, *sb = *(server_stats *const *)b;
    if (sa->client_hellos != sb->client_hellos) {
        return sa->client_hellos < sb->client_hellos ? 1 : -1;
    }
    int c = strcmp(sa->server, sb->server);
    return c ? c : sa->port != sb->port ? (sa->port < sb->port ? -1 : 1) : strcmp(sa->sni, sb->sni);
}

static server_stats **sorted_servers(tlsneg_out *o)
{
    server_stats **list = (server_stats **)map_values(&o->servers);
    if (list) {
        qsort(list, o->servers.used, sizeof *list, by_attempts);
    }
    return list;
}

/* finding_counts writes "fallback_retry:2;grease_selected:1": each rule by
 * its finding name (tlsneg.finding), its variants counted in, in rules.def
 * order. */
static void finding_counts(const unsigned *findings, sbuf *out)
{
    for (int r = 0; r < TLSNEG_RULE_COUNT; r++) {
        unsigned n = 0;
        bool first = true;
        for (int v = 0; v < TLSNEG_RULE_COUNT; v++) {
            if (strcmp(tlsneg_rules[v].finding, tlsneg_rules[r].finding) == 0) {
                first = first && v >= r;
                n += findings[v];
            }
        }
        if (first && n) {
            sbuf_printf(out, "%s%s:%u", out->len ? ";" : "", tlsneg_rules[r].finding, n);
        }
    }
}

/* csv_quoted appends s as one RFC 4180 field: quoted, every quote doubled. */
static void csv_quoted(sbuf *out, const char *s)
{
    sbuf_addc(out, '"');
    for (; s && *s; s++) {
        if (*s == '"') {
            sbuf_addc(out, '"');
        }
        sbuf_addc(out, *s);
    }
    sbuf_addc(out, '"');
}

static void print_csv(tlsneg_out *o)
{
    server_stats **list = sorted_servers(o);
    sbuf a = {0}, b = {0}, c = {0};
    sbuf *row = &o->line;
    fputs("server,port,sni,client_hellos,server_hellos,hello_retry_requests,alerts,resets,"
          "closes,fallbacks,intolerant_of,highest_offered,in_force,findings\n",
          o->out);
    for (size_t i = 0; list && i < o->servers.used; i++) {
        const server_stats *s = list[i];
        sbuf_clear(&a);
        sbuf_clear(&b);
        sbuf_clear(&c);
        version_list(&s->offered, &a, true, s->dtls);
        version_list(&s->in_force, &b, true, s->dtls);
        finding_counts(s->findings, &c);
        sbuf_printf(row, "%s,%u,", s->server, s->port);
        csv_quoted(row, s->sni);
        sbuf_printf(row, ",%u,%u,%u,%u,%u,%u,%u,", s->client_hellos, s->server_hellos, s->hrrs,
                    s->alerts, s->resets, s->closes, s->fallbacks);
        csv_quoted(row, s->intolerant_of ? s->intolerant_of : "");
        sbuf_printf(row, ",%s,%s,%s\n", sbuf_str(&a), sbuf_str(&b), sbuf_str(&c));
        flush_line(o);
    }
    free(a.s);
    free(b.s);
    free(c.s);
    free(list);
}

/* probe_line writes "127.0.0.1 probed 127.0.0.1:4433 with 110 hellos in 12.0
 * s, SSL 3.0 to TLS 1.3, SCSV probe answered with 86 (from frame 4): a
 * scanner". */
static void probe_line(sbuf *out, const probe_seen *ps)
{
    char text[200];
    sbuf_clear(out);
    tlsneg_probe_text(&ps->p, text, sizeof text);
    const char *with = strstr(text, "probed with");
    if (with) {
        /* "probed with ..." -> "probed SERVER:PORT with ..." */
        size_t at = (size_t)(with - text) + 7;
        sbuf_printf(out, "%s %.*s%s:%u %s", ps->client, (int)at, text, ps->server, ps->port,
                    text + at);
    } else {
        sbuf_printf(out, "%s %s", ps->client, text);
    }
    sbuf_printf(out, " (from frame %u): a scanner", ps->p.first_frame);
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

static void print_offers(tlsneg_out *o)
{
    offer_count *list = malloc((o->offers.used ? o->offers.used : 1) * sizeof *list);
    if (!list) {
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < o->offers.cap; i++) {
        const slot *s = &o->offers.slots[i];
        if (s->key) {
            list[n].pattern = s->key; /* stored with its NUL */
            list[n].count = *(const unsigned *)s->value;
            n++;
        }
    }
    qsort(list, n, sizeof *list, by_count);
    for (size_t i = 0; i < n; i++) {
        fprintf(o->out, "%8u  %s\n", list[i].count, list[i].pattern);
    }
    free(list);
}

static void print_report(tlsneg_out *o)
{
    server_stats **list = sorted_servers(o);
    size_t num = list ? o->servers.used : 0;
    FILE *out = o->out;
    sbuf a = {0};
    unsigned intolerant = 0, fallbacks = 0;
    for (size_t i = 0; i < num; i++) {
        intolerant += list[i]->intolerant_of ? 1u : 0u;
        fallbacks += list[i]->fallbacks;
    }
    fprintf(out, "\n=== tlsneg report ===\n");
    fprintf(out,
            "%u ClientHello, %u ServerHello/HelloRetryRequest, %u HelloVerifyRequest, %u "
            "plaintext alerts; %zu servers; %u fallback retries; %u version-intolerant servers\n",
            o->messages[1], o->messages[2], o->messages[3], o->messages[0], num, fallbacks,
            intolerant);

    probe_seen **probes = probes_sorted(o);
    if (probes && o->probes.used) {
        fprintf(out, "\n--- Probes (scanners: their attempts are not judged as fallbacks or "
                     "intolerance) ---\n");
    }
    for (size_t i = 0; probes && i < o->probes.used; i++) {
        probe_line(&a, probes[i]);
        fprintf(out, "%s\n", sbuf_str(&a));
    }
    free(probes);

    fprintf(out, "\n--- Verdicts (frame order) ---\n");
    if (!o->num_verdicts) {
        fprintf(out, "none: no fallback, intolerance, downgrade or bad server choice seen\n");
    }
    for (size_t i = 0; i < o->num_verdicts; i++) {
        fprintf(out, "%s\n", o->verdicts[i]);
    }
    if (o->verdicts_dropped) {
        fprintf(out, "... %u more\n", o->verdicts_dropped);
    }

    fprintf(out, "\n--- Servers (address:port SNI) ---\n");
    for (size_t i = 0; i < num; i++) {
        const server_stats *s = list[i];
        fprintf(out, "%s %s\n", s->label, *s->sni ? s->sni : "(no SNI)");
        sbuf_clear(&a);
        version_list(&s->offered, &a, false, s->dtls);
        fprintf(out, "  offered (highest): %s\n", a.len ? sbuf_str(&a) : "-");
        sbuf_clear(&a);
        version_list(&s->in_force, &a, false, s->dtls);
        fprintf(out, "  in force:          %s\n", a.len ? sbuf_str(&a) : "-");
        fprintf(out,
                "  %u ClientHello, %u ServerHello, %u HelloRetryRequest; failures: %u alerts, %u "
                "resets, %u closes before any ServerHello; %u fallback retries\n",
                s->client_hellos, s->server_hellos, s->hrrs, s->alerts, s->resets, s->closes,
                s->fallbacks);
        if (s->intolerant_of) {
            fprintf(out, "  VERSION-INTOLERANT: does not tolerate %s (verdict in frame %u)\n",
                    s->intolerant_of, s->intolerant_frame);
        }
        sbuf_clear(&a);
        for (int r = 0; r < TLSNEG_RULE_COUNT; r++) {
            if (s->findings[r]) {
                char label[128];
                if (a.len) {
                    sbuf_add(&a, ", ");
                }
                sbuf_add(&a, rule_label((tlsneg_rule_id)r, label, sizeof label));
                sbuf_add(&a, " x");
                sbuf_uint(&a, s->findings[r]);
            }
        }
        if (a.len) {
            fprintf(out, "  findings: %s\n", sbuf_str(&a));
        }
    }

    fprintf(out, "\n--- Client offers (supported_versions, GREASE folded) ---\n");
    print_offers(o);

    fprintf(out, "\n--- Findings per rule (tlsneg.finding; a variant by its expert info) ---\n");
    for (int r = 0; r < TLSNEG_RULE_COUNT; r++) {
        if (o->findings[r]) {
            const tlsneg_rule *rule = &tlsneg_rules[r];
            if (tlsneg_rule_is_variant((tlsneg_rule_id)r)) {
                fprintf(out, "%8u  %-28s %-14s %-5s  tlsneg.expert.%s\n", o->findings[r],
                        rule->finding, tlsneg_group_name(rule->group),
                        tlsneg_severity_name(rule->severity), rule->name);
            } else {
                fprintf(out, "%8u  %-28s %-14s %s\n", o->findings[r], rule->finding,
                        tlsneg_group_name(rule->group), tlsneg_severity_name(rule->severity));
            }
        }
    }
    if (o->findings_dropped) {
        fprintf(out, "... and %u more findings not shown (a message keeps %d)\n",
                o->findings_dropped, TLSNEG_MAX_FINDINGS);
    }
    fprintf(out, "===\n");
    free(a.s);
    free(list);
}

void tlsneg_out_end(tlsneg_out *o)
{
    switch (o->format) {
    case TLSNEG_OUT_JSONL:
        jsonl_end(o);
        break;
    case TLSNEG_OUT_CSV:
        print_csv(o);
        break;
    case TLSNEG_OUT_REPORT:
        print_report(o);
        break;
    }
}
