/* SPDX-License-Identifier: GPL-2.0-or-later */
/* checks.c: one function per rule of rules.def. Each looks at the hello (or
 * alert) in front of it and reports the rule, or one of its variants, with
 * a sentence about this very message. */
#include "analysis/checks.h"

#include "core/groups.h"
#include "core/versions.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const tlsneg_check_input *in;
    const tlsneg_hello *h; /* NULL for an alert */
    const tlsneg_facts *f; /* NULL for an alert */
    bool dtls;
    uint16_t v12, v13; /* TLS 1.2 and 1.3 in this message's family */
    tlsneg_findings *out;
} judge;

typedef void (*check_fn)(const judge *j);

/* slot appends a finding of rule with an empty detail, or counts it
 * dropped and returns NULL. */
static tlsneg_finding *slot(tlsneg_findings *out, tlsneg_rule_id rule) TLSNEG_COLD;

static tlsneg_finding *slot(tlsneg_findings *out, tlsneg_rule_id rule)
{
    if (out->count == TLSNEG_MAX_FINDINGS) {
        out->dropped++;
        return NULL;
    }
    tlsneg_finding *f = &out->item[out->count++];
    f->rule = rule;
    f->detail[0] = '\0';
    return f;
}

static void add(tlsneg_findings *out, tlsneg_rule_id rule, const char *fmt, va_list ap)
    TLSNEG_PRINTF(3, 0) TLSNEG_COLD;

static void add(tlsneg_findings *out, tlsneg_rule_id rule, const char *fmt, va_list ap)
{
    tlsneg_finding *f = slot(out, rule);
    if (f && !out->no_details) {
        vsnprintf(f->detail, sizeof f->detail, fmt, ap);
    }
}

void tlsneg_finding_add(tlsneg_findings *out, tlsneg_rule_id rule, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(out, rule, fmt, ap);
    va_end(ap);
}

static void report_sentence(const judge *j, tlsneg_rule_id rule, const char *fmt, ...)
    TLSNEG_PRINTF(3, 4) TLSNEG_COLD;

static void report_sentence(const judge *j, tlsneg_rule_id rule, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(j->out, rule, fmt, ap);
    va_end(ap);
}

/* report adds a finding of rule, with its sentence unless no output reads
 * it (no_details): only then are the sentence's arguments worked out (the
 * version and group names cost more than the rule's check). */
#define report(j, rule, ...)                                                                       \
    ((j)->out->no_details ? (void)slot((j)->out, (rule))                                           \
                          : report_sentence((j), (rule), __VA_ARGS__))

/* A small appender for details that list several problems. */
typedef struct {
    char buf[TLSNEG_DETAIL_MAX];
    size_t used;
    int items;
} list;

/* list_init empties l; only the first byte of its text is written (the
 * checks run per message). */
static void list_init(list *l)
{
    l->buf[0] = '\0';
    l->used = 0;
    l->items = 0;
}

static void list_add(list *l, const char *item)
{
    int n =
        snprintf(l->buf + l->used, sizeof l->buf - l->used, "%s%s", l->items++ ? "; " : "", item);
    if (n > 0) {
        l->used += (size_t)n;
        if (l->used >= sizeof l->buf) {
            l->used = sizeof l->buf - 1;
        }
    }
}

/* name writes "TLS 1.2 (0x0303)". */
typedef struct {
    char s[TLSNEG_VERSION_NAME_MAX + 10];
} vname;

static vname name(const judge *j, uint16_t v)
{
    vname n;
    char base[TLSNEG_VERSION_NAME_MAX];
    snprintf(n.s, sizeof n.s, "%s (0x%04x)", tlsneg_version_name_in(v, j->dtls, base, sizeof base),
             v);
    return n;
}

static unsigned rank(const judge *j, uint16_t v)
{
    return tlsneg_version_rank(v, j->dtls);
}

static bool is_client_hello(const judge *j)
{
    return j->f && j->f->msg_type == TLSNEG_HS_CLIENT_HELLO;
}

static bool is_server_hello(const judge *j)
{
    return j->f && j->f->msg_type == TLSNEG_HS_SERVER_HELLO;
}

static bool offers(const tlsneg_facts *f, uint16_t v)
{
    for (size_t i = 0; f->has_supported_versions && i < f->num_offered; i++) {
        if (f->offered[i] == v) {
            return true;
        }
    }
    return false;
}

static bool tls13_in_force(const judge *j)
{
    return j->f->has_negotiated && j->f->negotiated_version == j->v13;
}

/* is_deprecated: SSL 2.0/3.0, TLS 1.0/1.1 (RFC 7568, RFC 8996); DTLS 1.0
 * and OpenSSL's pre-standard DTLS (RFC 8996). */
static bool is_deprecated(const judge *j, uint16_t v)
{
    if (j->dtls) {
        return v == TLSNEG_V_DTLS10 || v == TLSNEG_V_DTLS_OPENSSL;
    }
    return v == TLSNEG_V_SSL2 || v == TLSNEG_V_SSL3 || v == TLSNEG_V_TLS10 || v == TLSNEG_V_TLS11;
}

/* draft_version returns the draft or experiment a hello stands on, or 0:
 * the highest version a client offers, the version a server puts in force
 * or (HelloRetryRequest) selects. */
static uint16_t draft_version(const judge *j)
{
    const tlsneg_facts *f = j->f;
    uint16_t v = 0;
    if (!f) {
        return 0;
    }
    if (f->msg_type == TLSNEG_HS_CLIENT_HELLO && f->has_offered_max) {
        v = f->offered_max;
    } else if (f->has_negotiated) {
        v = f->negotiated_version;
    } else if (f->has_selected) {
        v = f->selected_version;
    }
    return tlsneg_version_is_draft(v) ? v : 0;
}

/* complete: the whole hello parsed. Rules about what is absent judge only
 * complete hellos; a broken one is reported as malformed. */
static bool complete(const judge *j)
{
    return j->f && j->f->status == TLSNEG_OK;
}

static void check_malformed(const judge *j)
{
    if (!j->f) {
        return;
    }
    switch ((tlsneg_status)j->f->status) {
    case TLSNEG_TRUNCATED:
    case TLSNEG_BAD_LENGTH:
    case TLSNEG_TRAILING:
        report(j, TLSNEG_RULE_MALFORMED, "The %s is broken: %s at byte %u of the message",
               tlsneg_msg_name(j->f), tlsneg_status_name((tlsneg_status)j->f->status),
               j->f->error_offset);
        break;
    default:
        break;
    }
}

static void check_duplicate_extension(const judge *j)
{
    if (j->h && j->h->duplicate_extension) {
        report(j, TLSNEG_RULE_DUPLICATE_EXTENSION, "Extension %u (0x%04x) appears more than once",
               j->h->duplicate_type, j->h->duplicate_type);
    }
}

static void check_supported_versions_malformed(const judge *j)
{
    if (j->f && j->f->supported_versions_problem) {
        report(j, TLSNEG_RULE_SUPPORTED_VERSIONS_MALFORMED, "supported_versions is malformed: %s",
               j->f->supported_versions_problem);
    }
}

/* well_formed_versions: a ClientHello's supported_versions whose list is
 * whole and well-formed: what it offers can be judged entry by entry. */
static bool well_formed_versions(const judge *j)
{
    return is_client_hello(j) && j->f->has_supported_versions && !j->f->supported_versions_problem;
}

/* RFC 8446 4.2.1 gives the list's encoding and the client's order of
 * preference; it forbids no repeat. Each value listed more than once is
 * named once, with its count. */
static void check_supported_versions_duplicate(const judge *j)
{
    if (!well_formed_versions(j)) {
        return;
    }
    const tlsneg_facts *f = j->f;
    list l;
    list_init(&l);
    for (size_t i = 0; i < f->num_offered; i++) {
        unsigned seen = 0, count = 0;
        if (tlsneg_is_grease(f->offered[i])) {
            continue; /* no version: RFC 8701 reserves it to be ignored */
        }
        for (size_t k = 0; k < f->num_offered; k++) {
            seen += k < i && f->offered[k] == f->offered[i];
            count += f->offered[k] == f->offered[i];
        }
        if (!seen && count > 1) {
            char item[TLSNEG_VERSION_NAME_MAX + 32];
            snprintf(item, sizeof item, "%s %u times", name(j, f->offered[i]).s, count);
            list_add(&l, item);
        }
    }
    if (l.items) {
        report(j, TLSNEG_RULE_SUPPORTED_VERSIONS_DUPLICATE,
               "supported_versions lists %s: allowed, but one entry is enough", l.buf);
    }
}

/* RFC 8701 3.2: a server treats GREASE as unknown values and ignores them;
 * RFC 8446 4.2.1: a server uses only supported_versions when it is there,
 * and aborts with protocol_version when it finds no version it supports.
 * A server without TLS 1.3 does not read the extension: nothing is said of
 * it. */
static void check_supported_versions_only_grease(const judge *j)
{
    if (!well_formed_versions(j)) {
        return;
    }
    const tlsneg_facts *f = j->f;
    for (size_t i = 0; i < f->num_offered; i++) {
        if (!tlsneg_is_grease(f->offered[i])) {
            return;
        }
    }
    char values[8 * 8 + 8] = ""; /* the first 8 values, ", ..." after them */
    size_t used = 0;
    for (size_t i = 0; i < f->num_offered && i < 8; i++) {
        used += (size_t)snprintf(values + used, sizeof values - used, "%s0x%04x", i ? ", " : "",
                                 f->offered[i]);
    }
    if (f->num_offered > 8) {
        snprintf(values + used, sizeof values - used, ", ...");
    }
    report(j, TLSNEG_RULE_SUPPORTED_VERSIONS_ONLY_GREASE,
           "supported_versions lists only GREASE (%s), no version: a server that implements %s "
           "must refuse the hello with protocol_version (70)",
           values, name(j, j->v13).s);
}

static void check_draft_version(const judge *j)
{
    uint16_t v = draft_version(j);
    if (v) {
        report(j, TLSNEG_RULE_DRAFT_VERSION,
               "%s is a pre-standard %s version: the rules of %s are not applied", name(j, v).s,
               j->dtls ? "DTLS 1.3" : "TLS 1.3", j->dtls ? "RFC 9147" : "RFC 8446");
    }
}

static void check_legacy_version_mismatch(const judge *j)
{
    const tlsneg_facts *f = j->f;
    if (!f || f->legacy_version == j->v12) {
        return;
    }
    if (is_client_hello(j) && offers(f, j->v13)) {
        report(j, TLSNEG_RULE_LEGACY_VERSION_MISMATCH,
               "legacy_version is %s, but a ClientHello that offers %s must send %s",
               name(j, f->legacy_version).s, name(j, j->v13).s, name(j, j->v12).s);
    } else if (is_server_hello(j) && f->has_selected && f->selected_version == j->v13) {
        report(j, TLSNEG_RULE_LEGACY_VERSION_MISMATCH,
               "legacy_version is %s, but a %s that selects %s must send %s",
               name(j, f->legacy_version).s, tlsneg_msg_name(f), name(j, j->v13).s,
               name(j, j->v12).s);
    }
}

static void check_legacy_version_too_high(const judge *j)
{
    const tlsneg_facts *f = j->f;
    if (!f || f->msg_type == TLSNEG_HS_HELLO_VERIFY_REQUEST) {
        return;
    }
    /* DTLS: only DTLS 1.3 is newer than DTLS 1.2; TLS: every value above. */
    bool high =
        j->dtls ? rank(j, f->legacy_version) > rank(j, j->v12) : f->legacy_version > TLSNEG_V_TLS12;
    if (high) {
        report(j, TLSNEG_RULE_LEGACY_VERSION_TOO_HIGH,
               "legacy_version is %s, above %s: version-intolerant peers break on it",
               name(j, f->legacy_version).s, name(j, j->v12).s);
    }
}

/* dtls_client_record_ok: DTLS 1.0 or 1.2 records (RFC 9147 5.1), or
 * OpenSSL's pre-standard DTLS, which used 0x0100 for everything. */
static bool dtls_client_record_ok(const tlsneg_facts *f)
{
    uint16_t rec = f->record_version;
    return rec == TLSNEG_V_DTLS10 || rec == TLSNEG_V_DTLS12 ||
           (rec == TLSNEG_V_DTLS_OPENSSL && f->legacy_version == TLSNEG_V_DTLS_OPENSSL);
}

static void check_record_version_unusual(const judge *j)
{
    const tlsneg_facts *f = j->f;
    if (!f || !f->has_record_version || f->wire == TLSNEG_WIRE_SSL2 ||
        f->msg_type == TLSNEG_HS_HELLO_VERIFY_REQUEST) {
        return;
    }
    uint16_t rec = f->record_version;
    if (is_client_hello(j)) {
        if (j->in->after_hrr && rec != j->v12) {
            report(
                j, TLSNEG_RULE_RECORD_VERSION_UNUSUAL,
                "The ClientHello after a HelloRetryRequest travels in a %s record; it must be %s",
                name(j, rec).s, name(j, j->v12).s);
        } else if (j->dtls ? !dtls_client_record_ok(f)
                           : rec < TLSNEG_V_SSL3 || rec > TLSNEG_V_TLS12) {
            report(j, TLSNEG_RULE_RECORD_VERSION_UNUSUAL,
                   "The ClientHello travels in a %s record; %s", name(j, rec).s,
                   j->dtls ? "DTLS allows only 0xfeff or 0xfefd"
                           : "the record layer allows 0x0300 to 0x0303");
        }
        return;
    }
    uint16_t want;
    if (f->is_hrr || tls13_in_force(j)) {
        want = j->v12;
    } else if (f->has_negotiated && rank(j, f->negotiated_version) > 0 &&
               rank(j, f->negotiated_version) <= rank(j, j->v12)) {
        want = f->negotiated_version;
    } else {
        return;
    }
    if (rec != want) {
        /* RFC 8446 5.1: MUST for TLS 1.3's records; D: SHOULD below. */
        report(j, TLSNEG_RULE_RECORD_VERSION_UNUSUAL, "The %s travels in a %s record; it %s be %s",
               tlsneg_msg_name(f), name(j, rec).s,
               want == j->v12 && (f->is_hrr || tls13_in_force(j)) ? "must" : "should",
               name(j, want).s);
    }
}

/* Listing TLS 1.3 cipher suites is not enough: scanners and some clients
 * enumerate every suite they know, and no rule forbids it. The extensions
 * below exist only for TLS 1.3. */
static void check_missing_supported_versions(const judge *j)
{
    const tlsneg_hello *h = j->h;
    if (!is_client_hello(j) || !complete(j) || j->f->has_supported_versions ||
        h->wire == TLSNEG_WIRE_SSL2) {
        return;
    }
    list l;
    list_init(&l);
    if (h->key_share.present && tlsneg_hello_has_extension(h, TLSNEG_EXT_KEY_SHARE)) {
        list_add(&l, "key_share");
    }
    if (h->psk_key_exchange_modes.present) {
        list_add(&l, "psk_key_exchange_modes");
    }
    if (tlsneg_hello_has_extension(h, TLSNEG_EXT_EARLY_DATA)) {
        list_add(&l, "early_data");
    }
    if (l.items) {
        report(j, TLSNEG_RULE_MISSING_SUPPORTED_VERSIONS,
               "No supported_versions, yet the ClientHello carries %s, which only %s uses: it "
               "cannot get %s, and a server must treat it as %s or lower",
               l.buf, name(j, j->v13).s, name(j, j->v13).s, name(j, j->v12).s);
    }
}

static void check_missing_extension(const judge *j)
{
    const tlsneg_hello *h = j->h;
    const tlsneg_facts *f = j->f;
    if (!complete(j)) {
        return;
    }
    list l;
    list_init(&l);
    if (is_client_hello(j) && offers(f, j->v13)) {
        bool key_share =
            h->key_share.present && tlsneg_hello_has_extension(h, TLSNEG_EXT_KEY_SHARE);
        if (key_share && !h->supported_groups.present) {
            list_add(&l, "key_share without supported_groups");
        }
        if (!key_share && h->supported_groups.present) {
            list_add(&l, "supported_groups without key_share");
        }
        if (!h->pre_shared_key.present && !h->signature_algorithms.present) {
            list_add(&l, "no signature_algorithms and no pre_shared_key");
        }
        if (h->pre_shared_key.present && !h->psk_key_exchange_modes.present) {
            list_add(&l, "pre_shared_key without psk_key_exchange_modes");
        }
        if (h->pre_shared_key.present && h->last_extension != TLSNEG_EXT_PRE_SHARED_KEY) {
            list_add(&l, "pre_shared_key is not the last extension");
        }
    }
    if (is_server_hello(j) && !f->has_supported_versions &&
        (f->is_hrr || f->legacy_version == j->v13)) {
        list_add(&l, f->is_hrr ? "a HelloRetryRequest without supported_versions"
                     : j->dtls ? "DTLS 1.3 in legacy_version without supported_versions"
                               : "TLS 1.3 in legacy_version without supported_versions");
    }
    if (is_client_hello(j) && h->wire == TLSNEG_WIRE_QUIC &&
        !tlsneg_hello_has_extension(h, TLSNEG_EXT_QUIC_TRANSPORT_PARAMETERS) &&
        !tlsneg_hello_has_extension(h, TLSNEG_EXT_QUIC_TRANSPORT_PARAMETERS_DRAFT)) {
        list_add(&l, "a QUIC ClientHello without quic_transport_parameters");
    }
    if (l.items) {
        report(j, TLSNEG_RULE_MISSING_EXTENSION, "%s", l.buf);
    }
}

/* whole_client: the connection's ClientHello, if it parsed to its end. A
 * hello cut short (a snaplen, a broken field) may lack what it did send:
 * nothing is said of what it did not offer. */
static const tlsneg_facts *whole_client(const judge *j)
{
    const tlsneg_facts *client = j->in->client_hello;
    return client && client->status == TLSNEG_OK ? client : NULL;
}

static void check_version_not_offered(const judge *j)
{
    const tlsneg_facts *f = j->f, *client = whole_client(j);
    if (!is_server_hello(j) || !client) {
        return;
    }
    if (f->has_selected) {
        if (!client->has_supported_versions) {
            report(j, TLSNEG_RULE_VERSION_NOT_OFFERED,
                   "The %s selects %s in supported_versions, but the ClientHello sent no "
                   "supported_versions",
                   tlsneg_msg_name(f), name(j, f->selected_version).s);
        } else if (!offers(client, f->selected_version)) {
            report(j, TLSNEG_RULE_VERSION_NOT_OFFERED,
                   "The %s selects %s, which the ClientHello did not offer", tlsneg_msg_name(f),
                   name(j, f->selected_version).s);
        }
    } else if (f->has_negotiated && client->has_offered_max &&
               rank(j, f->negotiated_version) > rank(j, client->offered_max)) {
        report(j, TLSNEG_RULE_VERSION_NOT_OFFERED,
               "The ServerHello puts %s in force, above the client's highest offer %s",
               name(j, f->negotiated_version).s, name(j, client->offered_max).s);
    }
}

static void check_old_version_via_extension(const judge *j)
{
    const tlsneg_facts *f = j->f;
    if (is_server_hello(j) && f->has_selected && rank(j, f->selected_version) > 0 &&
        rank(j, f->selected_version) <= rank(j, j->v12)) {
        report(j, TLSNEG_RULE_OLD_VERSION_VIA_EXTENSION,
               "The %s selects %s in supported_versions; below %s the version belongs in "
               "legacy_version",
               tlsneg_msg_name(f), name(j, f->selected_version).s, name(j, j->v13).s);
    }
}

static void check_grease_selected(const judge *j)
{
    const tlsneg_facts *f = j->f;
    if (!is_server_hello(j) || f->grease_count == 0) {
        return;
    }
    list l;
    list_init(&l);
    for (size_t i = 0; i < f->num_grease; i++) {
        char item[48];
        snprintf(item, sizeof item, "0x%04x as %s", f->grease[i].value,
                 tlsneg_grease_family_name((tlsneg_grease_family)f->grease[i].family));
        list_add(&l, item);
    }
    report(j, TLSNEG_RULE_GREASE_SELECTED, "The %s sends GREASE: %s", tlsneg_msg_name(f), l.buf);
}

static void check_fallback_scsv(const judge *j)
{
    const tlsneg_facts *f = j->f;
    if (!is_client_hello(j) || !f->fallback_scsv) {
        return;
    }
    if (offers(f, j->v13)) {
        report(j, TLSNEG_RULE_FALLBACK_SCSV_HIGHEST,
               "TLS_FALLBACK_SCSV, yet the ClientHello offers %s, the highest version there is",
               name(j, j->v13).s);
    } else {
        /* The SCSV is the client's own word; whether a failed attempt came
         * before is the tracker's to show (tlsneg.fallback.prev_frame). */
        report(j, TLSNEG_RULE_FALLBACK_SCSV,
               "TLS_FALLBACK_SCSV: the client marks this hello, offering up to %s, as a retry "
               "at a lower version",
               f->has_offered_max ? name(j, f->offered_max).s : "no known version");
    }
}

/* RFC 7507 3: "If TLS_FALLBACK_SCSV appears in ClientHello.cipher_suites
 * and the highest protocol version supported by the server is higher than
 * the version indicated in ClientHello.client_version, the server MUST
 * respond with a fatal inappropriate_fallback alert". The ServerHello's own
 * sentinel is the proof of the server's highest version here; the tracker
 * judges the proof from earlier connections. */
static void check_ignored_fallback_scsv(const judge *j)
{
    const tlsneg_facts *f = j->f, *client = whole_client(j);
    if (!is_server_hello(j) || !f->has_sentinel || !client || !client->fallback_scsv ||
        !client->has_offered_max || tls13_in_force(j)) {
        return;
    }
    uint16_t proven = tlsneg_sentinel_proves(f);
    if (rank(j, proven) > rank(j, client->offered_max)) {
        report(j, TLSNEG_RULE_IGNORED_FALLBACK_SCSV,
               "The ClientHello carries TLS_FALLBACK_SCSV and offers up to %s; this ServerHello's "
               "%s proves the server supports %s%s, yet it puts %s in force instead of refusing "
               "with inappropriate_fallback",
               name(j, client->offered_max).s, tlsneg_sentinel_name(f->sentinel),
               f->sentinel == TLSNEG_SENTINEL_TLS11 ? "at least " : "", name(j, proven).s,
               name(j, f->negotiated_version).s);
    }
}

/* RFC 8446 4.1.3: a TLS 1.3 server sends DOWNGRD\x01 when it negotiates
 * TLS 1.2, and TLS 1.3 servers MUST, TLS 1.2 servers SHOULD, send
 * DOWNGRD\x00 when they negotiate TLS 1.1 or lower. A client that offered
 * the version the sentinel proves is being downgraded (TLS 1.3 clients MUST,
 * TLS 1.2 clients SHOULD check); one that offered less only learns what the
 * server could do. */
static void check_downgrade_sentinel(const judge *j)
{
    const tlsneg_facts *f = j->f, *client = whole_client(j);
    if (!is_server_hello(j) || !f->has_sentinel) {
        return;
    }
    const char *sentinel = tlsneg_sentinel_name(f->sentinel);
    uint16_t proven = tlsneg_sentinel_proves(f);
    const char *at_least = f->sentinel == TLSNEG_SENTINEL_TLS11 ? "at least " : "";
    bool offered =
        client && (proven == j->v13 ? offers(client, j->v13)
                                    : client->has_offered_max &&
                                          rank(j, client->offered_max) >= rank(j, proven));
    if (tls13_in_force(j)) {
        report(j, TLSNEG_RULE_DOWNGRADE_SENTINEL_TLS13,
               "ServerHello.random ends with %s although the ServerHello puts %s in force",
               sentinel, name(j, j->v13).s);
    } else if (f->has_negotiated && rank(j, f->negotiated_version) >= rank(j, proven)) {
        /* DOWNGRD\x00 with TLS 1.2 in force: no downgrade, a wrong sentinel. */
        report(j, TLSNEG_RULE_DOWNGRADE_SENTINEL_NOT_LOWER,
               "ServerHello.random ends with %s although the ServerHello puts %s in force: that "
               "sentinel belongs only below %s",
               sentinel, name(j, f->negotiated_version).s, name(j, proven).s);
    } else if (offered) {
        report(j, TLSNEG_RULE_DOWNGRADE_SENTINEL,
               "ServerHello.random ends with %s: the server supports %s%s, the client offered up "
               "to %s, yet %s is in force",
               sentinel, at_least, name(j, proven).s, name(j, client->offered_max).s,
               name(j, f->negotiated_version).s);
    } else if (client && client->has_offered_max) {
        report(j, TLSNEG_RULE_DOWNGRADE_SENTINEL_NO_HIGHER_OFFER,
               "ServerHello.random ends with %s: the server supports %s%s; the client offered "
               "only up to %s",
               sentinel, at_least, name(j, proven).s, name(j, client->offered_max).s);
    } else {
        report(j, TLSNEG_RULE_DOWNGRADE_SENTINEL_NO_HIGHER_OFFER,
               "ServerHello.random ends with %s: the server supports %s%s; %s", sentinel, at_least,
               name(j, proven).s,
               client                ? "the ClientHello offered no real version"
               : j->in->client_hello ? "the ClientHello is cut short"
                                     : "the ClientHello is not in the capture");
    }
}

static void check_alert(const judge *j, uint8_t description, tlsneg_rule_id rule,
                        const char *meaning)
{
    const tlsneg_check_input *in = j->in;
    if (!in->is_alert || in->alert_description != description) {
        return;
    }
    const tlsneg_facts *client = whole_client(j);
    if (client && client->has_offered_max) {
        report(j, rule, "Alert %s (%u): %s; the ClientHello offered up to %s",
               tlsneg_alert_name(description), description, meaning,
               name(j, client->offered_max).s);
    } else {
        report(j, rule, "Alert %s (%u): %s", tlsneg_alert_name(description), description, meaning);
    }
}

static void check_inappropriate_fallback(const judge *j)
{
    check_alert(j, 86, TLSNEG_RULE_INAPPROPRIATE_FALLBACK,
                "the server refuses a fallback retry because it supports a higher version");
}

static void check_protocol_version_alert(const judge *j)
{
    check_alert(j, 70, TLSNEG_RULE_PROTOCOL_VERSION_ALERT,
                "the sender does not support the version being negotiated (a version-intolerant "
                "server sends it too)");
}

static void check_deprecated_version(const judge *j)
{
    const tlsneg_facts *f = j->f;
    if (!f) {
        return;
    }
    if (f->wire == TLSNEG_WIRE_SSL2 && f->msg_type == TLSNEG_HS_CLIENT_HELLO &&
        f->legacy_version == TLSNEG_V_SSL2) {
        report(j, TLSNEG_RULE_DEPRECATED_VERSION,
               "An SSL 2.0 CLIENT-HELLO offering only %s, which RFC 6176 forbids",
               name(j, f->legacy_version).s);
    } else if (f->wire == TLSNEG_WIRE_SSL2 && f->msg_type == TLSNEG_HS_CLIENT_HELLO) {
        report(j, TLSNEG_RULE_DEPRECATED_VERSION,
               "An SSLv2-compatible ClientHello, offering up to %s: no client may send one any "
               "more",
               name(j, f->legacy_version).s);
    } else if (is_client_hello(j) && f->has_offered_max && is_deprecated(j, f->offered_max)) {
        report(j, TLSNEG_RULE_DEPRECATED_VERSION,
               "The client offers at most %s, a deprecated version", name(j, f->offered_max).s);
    } else if (is_server_hello(j) && f->has_negotiated && is_deprecated(j, f->negotiated_version)) {
        report(j, TLSNEG_RULE_DEPRECATED_VERSION, "The %s puts %s in force, a deprecated version",
               tlsneg_msg_name(f), name(j, f->negotiated_version).s);
    }
}

static void check_quic_version_rule(const judge *j)
{
    const tlsneg_facts *f = j->f;
    if (!f || f->wire != TLSNEG_WIRE_QUIC) {
        return;
    }
    uint16_t v;
    if (is_client_hello(j) && f->has_offered_max) {
        v = f->offered_max;
    } else if (is_server_hello(j) && f->has_negotiated) {
        v = f->negotiated_version;
    } else {
        return;
    }
    if (rank(j, v) > 0 && rank(j, v) <= rank(j, TLSNEG_V_TLS12)) {
        report(j, TLSNEG_RULE_QUIC_VERSION_RULE, "QUIC with %s: QUIC requires %s", name(j, v).s,
               name(j, TLSNEG_V_TLS13).s);
    }
}

/* Key exchange (RFC 8446 4.2.7, 4.2.8): judged only on lists the facts keep
 * whole, so that "not listed" is never said of a list cut short. */

typedef struct {
    char s[TLSNEG_NAMED_GROUP_TEXT_MAX];
} gname;

static gname group_text(uint16_t g)
{
    gname n;
    tlsneg_named_group_describe(g, n.s, sizeof n.s);
    return n;
}

static bool groups_whole(const tlsneg_facts *f)
{
    return f->has_supported_groups && !f->groups_cut && f->num_groups == f->group_count;
}

static bool shares_whole(const tlsneg_facts *f)
{
    return f->has_key_share && !f->key_shares_cut && f->num_key_shares == f->key_share_count;
}

static bool lists_group(const tlsneg_facts *f, uint16_t g)
{
    for (size_t i = 0; i < f->num_groups; i++) {
        if (f->groups[i] == g) {
            return true;
        }
    }
    return false;
}

/* shares_group_before: one of the first n key shares is for g. */
static bool shares_group_before(const tlsneg_facts *f, uint16_t g, size_t n)
{
    for (size_t i = 0; i < n && i < f->num_key_shares; i++) {
        if (f->key_shares[i].group == g) {
            return true;
        }
    }
    return false;
}

static bool shares_group(const tlsneg_facts *f, uint16_t g)
{
    return shares_group_before(f, g, f->num_key_shares);
}

static void check_key_share_not_offered(const judge *j)
{
    const tlsneg_facts *f = j->f;
    if (!is_client_hello(j) || !complete(j) || !groups_whole(f) || !shares_whole(f)) {
        return;
    }
    for (size_t i = 0; i < f->num_key_shares; i++) {
        uint16_t g = f->key_shares[i].group;
        if (!lists_group(f, g)) {
            report(j, TLSNEG_RULE_KEY_SHARE_NOT_OFFERED,
                   "The ClientHello sends a key share for %s, which its supported_groups does "
                   "not list",
                   group_text(g).s);
            return;
        }
    }
}

static void check_key_share_duplicate(const judge *j)
{
    const tlsneg_facts *f = j->f;
    if (!is_client_hello(j) || !complete(j) || !shares_whole(f)) {
        return;
    }
    for (size_t i = 1; i < f->num_key_shares; i++) {
        for (size_t k = 0; k < i; k++) {
            if (f->key_shares[k].group == f->key_shares[i].group) {
                report(j, TLSNEG_RULE_KEY_SHARE_DUPLICATE,
                       "The ClientHello sends more than one key share for %s (shares %zu and %zu)",
                       group_text(f->key_shares[i].group).s, k + 1, i + 1);
                return;
            }
        }
    }
}

/* hrr_judged: a HelloRetryRequest naming a group, after a whole ClientHello
 * of the same connection. */
static bool hrr_judged(const judge *j)
{
    return is_server_hello(j) && j->f->is_hrr && j->f->has_group_selected && whole_client(j);
}

static void check_hrr_group_already_shared(const judge *j)
{
    const tlsneg_facts *client = j->in->client_hello;
    if (hrr_judged(j) && shares_group(client, j->f->group_selected)) {
        report(j, TLSNEG_RULE_HRR_GROUP_ALREADY_SHARED,
               "The HelloRetryRequest asks for %s, for which the ClientHello already sent a key "
               "share",
               group_text(j->f->group_selected).s);
    }
}

static void check_hrr_group_not_offered(const judge *j)
{
    const tlsneg_facts *client = j->in->client_hello;
    if (hrr_judged(j) && groups_whole(client) && !lists_group(client, j->f->group_selected)) {
        report(j, TLSNEG_RULE_HRR_GROUP_NOT_OFFERED,
               "The HelloRetryRequest asks for %s, which the ClientHello's supported_groups does "
               "not list",
               group_text(j->f->group_selected).s);
    }
}

/* hrr_for_unshared: a well-formed HelloRetryRequest: it asks for a group the
 * whole ClientHello listed and sent no share for (else the rules above
 * judge it). */
static bool hrr_for_unshared(const judge *j)
{
    const tlsneg_facts *client = j->in->client_hello;
    return hrr_judged(j) && groups_whole(client) && shares_whole(client) &&
           lists_group(client, j->f->group_selected) && !shares_group(client, j->f->group_selected);
}

/* predicted: how many groups the ClientHello sent key shares for, each
 * counted once (GREASE shares predict nothing, RFC 8701), the first of them
 * in *first; *classical: every one of them is a classical or FFDHE group. */
static unsigned predicted(const tlsneg_facts *client, uint16_t *first, bool *classical)
{
    unsigned n = 0;
    *classical = true;
    for (size_t i = 0; i < client->num_key_shares; i++) {
        uint16_t g = client->key_shares[i].group;
        if (tlsneg_is_grease(g) || shares_group_before(client, g, i)) {
            continue;
        }
        if (!n++) {
            *first = g;
        }
        tlsneg_gclass c = tlsneg_named_group_class(g);
        *classical = *classical && (c == TLSNEG_GCLASS_CLASSICAL || c == TLSNEG_GCLASS_FFDHE);
    }
    return n;
}

/* moves_to_pq: the HelloRetryRequest asks a client that predicted n
 * groups, all classical (classical), for a post-quantum one. */
static bool moves_to_pq(const judge *j, unsigned n, bool classical)
{
    return tlsneg_named_group_is_pq(j->f->group_selected) && n && classical;
}

/* The two notes explain a well-formed HelloRetryRequest against the groups
 * the client predicted; a client that predicted none (no share, or GREASE
 * only) asked for the round trip itself, and neither note applies. */
static void check_hrr_lacks_predicted(const judge *j)
{
    uint16_t first = 0;
    bool classical;
    unsigned n;
    if (!hrr_for_unshared(j) || !(n = predicted(j->in->client_hello, &first, &classical)) ||
        moves_to_pq(j, n, classical)) {
        return;
    }
    if (n == 1) {
        report(j, TLSNEG_RULE_HRR_LACKS_PREDICTED,
               "The HelloRetryRequest asks for %s instead of the group the client predicted with "
               "a key share, %s: the server lacks (or does not prefer) it; a round trip more",
               group_text(j->f->group_selected).s, group_text(first).s);
    } else {
        report(j, TLSNEG_RULE_HRR_LACKS_PREDICTED,
               "The HelloRetryRequest asks for %s instead of the %u groups the client predicted "
               "with key shares, %s first: the server lacks (or does not prefer) them; a round "
               "trip more",
               group_text(j->f->group_selected).s, n, group_text(first).s);
    }
}

static void check_hrr_moves_to_pq(const judge *j)
{
    uint16_t first;
    bool classical;
    if (!hrr_for_unshared(j)) {
        return;
    }
    unsigned n = predicted(j->in->client_hello, &first, &classical);
    if (moves_to_pq(j, n, classical)) {
        report(j, TLSNEG_RULE_HRR_MOVES_TO_PQ,
               "The HelloRetryRequest asks for %s, which the client offered without a key share "
               "(it predicted only classical groups): the server moves it to post-quantum key "
               "exchange, for a round trip more",
               group_text(j->f->group_selected).s);
    }
}

static void check_hrr_retry_changed(const judge *j)
{
    const tlsneg_check_input *in = j->in;
    if (is_client_hello(j) && in->hrr_frame && in->hrr_unexpected) {
        report(j, TLSNEG_RULE_HRR_RETRY_CHANGED,
               "The ClientHello after the HelloRetryRequest in frame %u changes what it must send "
               "again unchanged, or not what was asked: %s",
               in->hrr_frame, in->hrr_changes ? in->hrr_changes : "");
    }
}

/* server_share_judged: a ServerHello (not a HelloRetryRequest) with a key
 * share, after a whole ClientHello of the same connection. */
static bool server_share_judged(const judge *j)
{
    return is_server_hello(j) && !j->f->is_hrr && j->f->has_group_selected && whole_client(j);
}

static void check_server_group_not_offered(const judge *j)
{
    const tlsneg_facts *client = j->in->client_hello;
    if (server_share_judged(j) && groups_whole(client) &&
        !lists_group(client, j->f->group_selected)) {
        report(j, TLSNEG_RULE_SERVER_GROUP_NOT_OFFERED,
               "The ServerHello's key share is for %s, which the ClientHello's supported_groups "
               "does not list",
               group_text(j->f->group_selected).s);
    }
}

static void check_server_group_no_client_share(const judge *j)
{
    const tlsneg_facts *client = j->in->client_hello;
    if (!server_share_judged(j)) {
        return;
    }
    uint16_t g = j->f->group_selected;
    /* A group the client did not even list is server_group_not_offered. */
    if (shares_whole(client) && !shares_group(client, g) &&
        (!groups_whole(client) || lists_group(client, g))) {
        report(j, TLSNEG_RULE_SERVER_GROUP_NO_CLIENT_SHARE,
               "The ServerHello's key share is for %s, but the ClientHello sent no key share for "
               "it",
               group_text(j->f->group_selected).s);
    }
}

static void check_key_share_length(const judge *j)
{
    const tlsneg_facts *f = j->f;
    if (!f || (!is_client_hello(j) && !(is_server_hello(j) && !f->is_hrr))) {
        return;
    }
    bool client = is_client_hello(j);
    for (size_t i = 0; i < f->num_key_shares; i++) {
        const tlsneg_key_share *k = &f->key_shares[i];
        unsigned want = tlsneg_named_group_share_length(k->group, client);
        if (want && k->length != want) {
            report(j, TLSNEG_RULE_KEY_SHARE_LENGTH_WRONG,
                   "The %s key share for %s is %u bytes long; a %s sends %u",
                   client ? "client's" : "server's", group_text(k->group).s, k->length,
                   client ? "client" : "server", want);
            return;
        }
    }
}

/* run calls a row's check, if it has one (a variant's row and a verdict's
 * have none) and the hello is judged by it. tlsneg_check runs it once per
 * row of rules.def with the row's constants: a run of direct calls, which
 * the compiler inlines, where a table of function pointers made an
 * indirect call to a function of its own for every rule on every message
 * (bench 10k, tlsneg-pcap --jsonl: 6 % of the run's time). */
static inline void run(check_fn check, bool for_drafts, const judge *j, bool draft)
{
    if (check && (!draft || for_drafts)) {
        check(j);
    }
}

void tlsneg_check(tlsneg_findings *out, const tlsneg_check_input *in)
{
    judge j = {in,
               in->is_alert ? NULL : in->hello,
               in->is_alert ? NULL : in->facts,
               false,
               TLSNEG_V_TLS12,
               TLSNEG_V_TLS13,
               out};
    const tlsneg_facts *family = j.f ? j.f : in->client_hello;
    if (family && tlsneg_facts_is_dtls(family)) {
        j.dtls = true;
        j.v12 = TLSNEG_V_DTLS12;
        j.v13 = TLSNEG_V_DTLS13;
    }
    out->count = 0;
    out->dropped = 0;
    out->no_details = in->no_details;
    if (j.f && (j.f->status == TLSNEG_UNSUPPORTED || j.f->status == TLSNEG_FRAGMENT)) {
        return;
    }
    bool draft = draft_version(&j) != 0;
#define TLSNEG_RULE(id, name, finding, group, severity, drafts, check, ...)                        \
    run(check, drafts, &j, draft);
#include "rules.def"
#undef TLSNEG_RULE
}
