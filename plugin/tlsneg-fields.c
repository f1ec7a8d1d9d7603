/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-fields.c: what tlsneg registers with Wireshark before any packet:
 * the protocol, its fields (docs/fields.md lists them), subtrees, one
 * expert info per row of rules.def and the preferences. Version fields name
 * their value through the core's version names, so there is one name
 * table. */
#include <stdio.h>

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/proto.h>

#include "tlsneg-fields.h"

#include "analysis/checks.h"
#include "analysis/rules.h"
#include "analysis/tracker.h"
#include "core/facts.h"
#include "core/groups.h"
#include "core/hello.h"
#include "core/versions.h"

int proto_tlsneg = -1;

int hf_msg_type = -1;
int hf_hrr = -1;
int hf_record_version = -1;
int hf_legacy_version = -1;
int hf_offered_version = -1;
int hf_offered_max = -1;
int hf_selected_version = -1;
int hf_negotiated_version = -1;
int hf_offered_max_short = -1;
int hf_negotiated_short = -1;
int hf_below_tls13 = -1;
int hf_grease_value = -1;
int hf_grease_family = -1;
int hf_grease_count = -1;
int hf_sni = -1;
int hf_fallback_scsv = -1;
int hf_scsv_offered = -1;
int hf_downgrade_sentinel = -1;
int hf_group = -1;
int hf_key_share_group = -1;
int hf_key_share_length = -1;
int hf_group_selected = -1;
int hf_pq_offered = -1;
int hf_pq_key_share = -1;
int hf_pq_selected = -1;
int hf_hello_length = -1;
int hf_hello_segments = -1;
int hf_summary = -1;
int hf_finding = -1;
int hf_findings_dropped = -1;
int hf_alert = -1;
int hf_alert_level = -1;
int hf_client_hello_frame = -1;
int hf_after_peer_frame = -1;
int hf_retransmission_of = -1;
int hf_fallback = -1;
int hf_fallback_prev_frame = -1;
int hf_fallback_retry_frame = -1;
int hf_fallback_from = -1;
int hf_fallback_to = -1;
int hf_fallback_cause = -1;
int hf_fallback_chain = -1;
int hf_server_intolerant = -1;
int hf_inconsistent_with = -1;
int hf_session_frame = -1;
int hf_retry_of = -1;
int hf_attempts = -1;
int hf_other_cause = -1;
int hf_aborted_after = -1;
int hf_probe = -1;
int hf_failed_in = -1;
int hf_fallback_failed_in = -1;
int hf_hrr_frame = -1;
int hf_hrr_retry_frame = -1;
int hf_hrr_changes = -1;
int hf_failure = -1;

gint ett_tlsneg = -1;
gint ett_grease = -1;
gint ett_groups = -1;
gint ett_fallback = -1;
gint ett_finding = -1;

expert_field ei_rules[TLSNEG_RULE_COUNT];

tlsneg_pref_values tlsneg_prefs = {
    TLSNEG_DEFAULT_WINDOW_S, TRUE, TLSNEG_DEFAULT_MAX_ATTEMPTS, TRUE, TRUE,
};

static const value_string msg_type_vals[] = {
    {TLSNEG_HS_CLIENT_HELLO, "ClientHello"},
    {TLSNEG_HS_SERVER_HELLO, "ServerHello"},
    {TLSNEG_HS_HELLO_VERIFY_REQUEST, "HelloVerifyRequest"},
    {0, NULL},
};

static const value_string sentinel_vals[] = {
    {TLSNEG_SENTINEL_TLS11,
     "DOWNGRD\\x00: server supports at least TLS 1.2, negotiated TLS 1.1 or lower"},
    {TLSNEG_SENTINEL_TLS12, "DOWNGRD\\x01: server supports TLS 1.3, negotiated TLS 1.2"},
    {TLSNEG_SENTINEL_JDK11, "non-standard JDK 11 downgrade value"},
    {0, NULL},
};

static void format_version(gchar *s, guint32 v)
{
    char name[TLSNEG_VERSION_NAME_MAX];
    snprintf(s, ITEM_LABEL_LENGTH, "%s (0x%04x)",
             tlsneg_version_name((guint16)v, name, sizeof name), v);
}

/* A DTLS message's versions: 0x7f00 + n is DTLS 1.3 draft-n there. */
static void format_version_dtls(gchar *s, guint32 v)
{
    char name[TLSNEG_VERSION_NAME_MAX];
    snprintf(s, ITEM_LABEL_LENGTH, "%s (0x%04x)",
             tlsneg_version_name_in((guint16)v, TRUE, name, sizeof name), v);
}

/* BASE_CUSTOM names a value without its message, and a custom column shows
 * that name: each version field has a DTLS twin of the same name and
 * filter, registered with the DTLS names, which a DTLS message's items use
 * (tlsneg_fields_for_dtls). A twin takes its name, filter and width from
 * its field: one row here per version field. */
static struct {
    int *tls;
    int dtls;
} twins[] = {
    {&hf_record_version, -1}, {&hf_legacy_version, -1},   {&hf_offered_version, -1},
    {&hf_offered_max, -1},    {&hf_selected_version, -1}, {&hf_negotiated_version, -1},
    {&hf_fallback_from, -1},  {&hf_fallback_to, -1},
};

/* register_dtls_twins registers the twins, after their fields. */
static void register_dtls_twins(void)
{
    static hf_register_info hf[array_length(twins)];
    for (size_t i = 0; i < array_length(twins); i++) {
        const header_field_info *f = proto_registrar_get_nth((guint)*twins[i].tls);
        hf[i].p_id = &twins[i].dtls;
        hf[i].hfinfo = (header_field_info){f->name,
                                           f->abbrev,
                                           f->type,
                                           BASE_CUSTOM,
                                           CF_FUNC(format_version_dtls),
                                           0x0,
                                           "The same field, in a DTLS message",
                                           HFILL};
    }
    proto_register_field_array(proto_tlsneg, hf, array_length(hf));
}

int tlsneg_fields_for_dtls(int hf)
{
    for (size_t i = 0; i < array_length(twins); i++) {
        if (*twins[i].tls == hf) {
            return twins[i].dtls;
        }
    }
    return hf;
}

static void format_grease(gchar *s, guint32 v)
{
    tlsneg_grease_text((guint16)v, s, ITEM_LABEL_LENGTH);
}

static void format_group(gchar *s, guint32 v)
{
    tlsneg_named_group_describe((guint16)v, s, ITEM_LABEL_LENGTH);
}

static void format_alert(gchar *s, guint32 v)
{
    const char *name = tlsneg_alert_name((guint8)v);
    snprintf(s, ITEM_LABEL_LENGTH, "%s (%u)", name ? name : "unknown", v);
}

/* RFC 5246 7.2, RFC 8446 6: AlertLevel. */
static const value_string alert_levels[] = {
    {TLSNEG_ALERT_WARNING, "warning"},
    {TLSNEG_ALERT_FATAL, "fatal"},
    {0, NULL},
};

static int expert_group(tlsneg_group g)
{
    switch (g) {
    case TLSNEG_GROUP_MALFORMED:
        return PI_MALFORMED;
    case TLSNEG_GROUP_SECURITY:
        return PI_SECURITY;
    case TLSNEG_GROUP_DEPRECATED:
        return PI_DEPRECATED;
    case TLSNEG_GROUP_RESPONSE_CODE:
        return PI_RESPONSE_CODE;
    case TLSNEG_GROUP_PROTOCOL:
        break;
    }
    return PI_PROTOCOL;
}

static int expert_severity(tlsneg_severity s)
{
    switch (s) {
    case TLSNEG_SEVERITY_ERROR:
        return PI_ERROR;
    case TLSNEG_SEVERITY_WARN:
        return PI_WARN;
    case TLSNEG_SEVERITY_NOTE:
        break;
    }
    return PI_NOTE;
}

/* register_experts makes one expert info per row of rules.def. Wireshark
 * keeps the pointers: the array and the names are static. */
static void register_experts(void)
{
    static ei_register_info ei[TLSNEG_RULE_COUNT];
    static char names[TLSNEG_RULE_COUNT][64];
    for (int i = 0; i < TLSNEG_RULE_COUNT; i++) {
        const tlsneg_rule *r = &tlsneg_rules[i];
        snprintf(names[i], sizeof names[i], "tlsneg.expert.%s", r->name);
        ei_register_info e = {
            &ei_rules[i],
            {names[i], expert_group(r->group), expert_severity(r->severity), r->text, EXPFILL}};
        ei_rules[i] = (expert_field)EI_INIT;
        ei[i] = e;
    }
    expert_register_field_array(expert_register_protocol(proto_tlsneg), ei, TLSNEG_RULE_COUNT);
}

static void register_preferences(void)
{
    module_t *m = prefs_register_protocol(proto_tlsneg, NULL);
    prefs_register_uint_preference(
        m, "fallback_window", "Fallback window (seconds)",
        "A lower retry counts as a fallback only this soon after the failed attempt", 10,
        &tlsneg_prefs.window_s);
    prefs_register_bool_preference(
        m, "key_sni", "Tell servers apart by SNI",
        "Attempts to the same address and port with different server names are different peers",
        &tlsneg_prefs.key_sni);
    prefs_register_uint_preference(
        m, "max_attempts", "Attempts tracked at most",
        "Cap on the connection attempts remembered across connections (oldest forgotten first); "
        "each takes at most a few hundred bytes",
        10, &tlsneg_prefs.max_attempts);
    prefs_register_bool_preference(
        m, "recognise_probes", "Recognise scanners",
        "A client that makes many attempts to one server within the fallback window, changing "
        "versions, cipher lists or TLS_FALLBACK_SCSV on purpose, is reported once as a probe and "
        "its attempts from then on are not judged as fallbacks or intolerance",
        &tlsneg_prefs.probes);
    prefs_register_bool_preference(
        m, "info_notes", "Notes in the Info column",
        "Append the story to the packet list's Info column: [fallback: TLS 1.3 -> TLS 1.2, no "
        "SCSV], [intolerant server], [rejected fallback], [client caught the downgrade], "
        "[DOWNGRD], "
        "[probe] and the other verdicts",
        &tlsneg_prefs.info_notes);
}

/* The plugin's fields, registered by tlsneg_fields_register before their
 * DTLS twins (register_dtls_twins), which copy them. */
static hf_register_info fields_hf[] = {
    {&hf_summary,
     {"Summary", "tlsneg.summary", FT_STRING, BASE_NONE, NULL, 0x0,
      "The negotiation this message shows, in one plain sentence", HFILL}},
    {&hf_msg_type,
     {"Message", "tlsneg.msg_type", FT_UINT8, BASE_DEC, VALS(msg_type_vals), 0x0,
      "Handshake type of the message analysed", HFILL}},
    {&hf_hrr,
     {"HelloRetryRequest", "tlsneg.hrr", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
      "ServerHello whose random marks it as a HelloRetryRequest (RFC 8446 4.1.3)", HFILL}},
    {&hf_record_version,
     {"Record version", "tlsneg.record_version", FT_UINT16, BASE_CUSTOM, CF_FUNC(format_version),
      0x0, "Version of the record that carried the message; RFC 8446 5.1 freezes it", HFILL}},
    {&hf_legacy_version,
     {"legacy_version", "tlsneg.legacy_version", FT_UINT16, BASE_CUSTOM, CF_FUNC(format_version),
      0x0, "The hello's own version field; TLS 1.3 freezes it at TLS 1.2 (RFC 8446 4.1.2)", HFILL}},
    {&hf_offered_version,
     {"Offered version", "tlsneg.offered_version", FT_UINT16, BASE_CUSTOM, CF_FUNC(format_version),
      0x0, "A version in the client's supported_versions extension, in wire order", HFILL}},
    {&hf_offered_max,
     {"Highest version offered", "tlsneg.offered_max", FT_UINT16, BASE_CUSTOM,
      CF_FUNC(format_version), 0x0,
      "Highest known version the client offers (supported_versions if present, else "
      "legacy_version)",
      HFILL}},
    {&hf_offered_max_short,
     {"Highest offer", "tlsneg.offered_max_short", FT_STRING, BASE_NONE, NULL, 0x0,
      "The highest version offered, by its short name (a hidden item, for columns)", HFILL}},
    {&hf_selected_version,
     {"Selected version", "tlsneg.selected_version", FT_UINT16, BASE_CUSTOM,
      CF_FUNC(format_version), 0x0, "The version in the server's supported_versions extension",
      HFILL}},
    {&hf_negotiated_version,
     {"Version in force", "tlsneg.negotiated_version", FT_UINT16, BASE_CUSTOM,
      CF_FUNC(format_version), 0x0,
      "The version this ServerHello puts in force: selected_version if present, else "
      "legacy_version",
      HFILL}},
    {&hf_negotiated_short,
     {"In force", "tlsneg.negotiated_short", FT_STRING, BASE_NONE, NULL, 0x0,
      "The version in force, by its short name (a hidden item, for columns)", HFILL}},
    {&hf_below_tls13,
     {"Below 1.3", "tlsneg.below_tls13", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
      "The version in force is below TLS 1.3 (SSL 2.0 to TLS 1.2) or, in DTLS, below DTLS "
      "1.3 (DTLS 1.0, DTLS 1.2): ordered by version, not by number",
      HFILL}},
    {&hf_grease_count,
     {"GREASE values", "tlsneg.grease_count", FT_UINT32, BASE_DEC, NULL, 0x0,
      "How many GREASE code points (RFC 8701) the message carries", HFILL}},
    {&hf_grease_value,
     {"GREASE", "tlsneg.grease_value", FT_UINT16, BASE_CUSTOM, CF_FUNC(format_grease), 0x0,
      "A GREASE code point (RFC 8701): reserved, to be ignored by the peer", HFILL}},
    {&hf_grease_family,
     {"Found in", "tlsneg.grease_family", FT_STRING, BASE_NONE, NULL, 0x0,
      "Where the GREASE value sits: version, cipher_suite, extension, group, key_share, "
      "signature_algorithm, psk_mode or alpn",
      HFILL}},
    {&hf_sni,
     {"Server name", "tlsneg.sni", FT_STRING, BASE_NONE, NULL, 0x0,
      "The host name in the server_name extension", HFILL}},
    {&hf_fallback_scsv,
     {"TLS_FALLBACK_SCSV", "tlsneg.fallback_scsv", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
      "The client marks this hello as a retry at a lower version (RFC 7507)", HFILL}},
    {&hf_scsv_offered,
     {"SCSV", "tlsneg.scsv_offered", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
      "Only on a ClientHello that offers TLS_FALLBACK_SCSV (a hidden item, for columns)", HFILL}},
    {&hf_downgrade_sentinel,
     {"Downgrade sentinel", "tlsneg.downgrade_sentinel", FT_UINT8, BASE_DEC, VALS(sentinel_vals),
      0x0, "ServerHello.random ends with a downgrade marker (RFC 8446 4.1.3)", HFILL}},
    {&hf_group,
     {"Group", "tlsneg.group", FT_UINT16, BASE_CUSTOM, CF_FUNC(format_group), 0x0,
      "A group in the client's supported_groups, in wire order, named and classed "
      "(post-quantum hybrid, post-quantum, classical, FFDHE, GREASE)",
      HFILL}},
    {&hf_key_share_group,
     {"Key share", "tlsneg.key_share_group", FT_UINT16, BASE_CUSTOM, CF_FUNC(format_group), 0x0,
      "The group of a key share (the client's, or the ServerHello's server_share)", HFILL}},
    {&hf_key_share_length,
     {"Key share length", "tlsneg.key_share_length", FT_UINT16, BASE_DEC, NULL, 0x0,
      "Length of a key share's key_exchange, in bytes, same order as tlsneg.key_share_group",
      HFILL}},
    {&hf_group_selected,
     {"Group selected", "tlsneg.group_selected", FT_UINT16, BASE_CUSTOM, CF_FUNC(format_group), 0x0,
      "The group of the ServerHello's key share, or the group a HelloRetryRequest asks for",
      HFILL}},
    {&hf_pq_offered,
     {"Post-quantum offered", "tlsneg.pq_offered", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
      "supported_groups names a post-quantum or post-quantum hybrid group", HFILL}},
    {&hf_pq_key_share,
     {"Post-quantum key share", "tlsneg.pq_key_share", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
      "A key share of a post-quantum or post-quantum hybrid group is sent", HFILL}},
    {&hf_pq_selected,
     {"Post-quantum selected", "tlsneg.pq_selected", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
      "The server chose a post-quantum or post-quantum hybrid group (ServerHello or "
      "HelloRetryRequest)",
      HFILL}},
    {&hf_hello_length,
     {"Hello length", "tlsneg.hello_length", FT_UINT32, BASE_DEC, NULL, 0x0,
      "Length of the handshake message, its header included, in bytes", HFILL}},
    {&hf_hello_segments,
     {"Hello segments", "tlsneg.hello_segments", FT_UINT32, BASE_DEC, NULL, 0x0,
      "How many TCP segments (DTLS or QUIC datagrams) carried the message, with their "
      "frames",
      HFILL}},
    {&hf_finding,
     {"Finding", "tlsneg.finding", FT_STRING, BASE_NONE, NULL, 0x0,
      "A negotiation rule this message breaks (its expert info says how)", HFILL}},
    {&hf_findings_dropped,
     {"Findings not shown", "tlsneg.findings_dropped", FT_UINT32, BASE_DEC, NULL, 0x0,
      "How many more rules this message breaks than the 12 findings a message keeps "
      "(TLSNEG_MAX_FINDINGS); present only when some were not kept",
      HFILL}},
    {&hf_alert,
     {"Alert", "tlsneg.alert", FT_UINT8, BASE_CUSTOM, CF_FUNC(format_alert), 0x0,
      "Description of a plaintext alert", HFILL}},
    {&hf_alert_level,
     {"Alert level", "tlsneg.alert_level", FT_UINT8, BASE_DEC, VALS(alert_levels), 0x0,
      "Level of a plaintext alert: 1 warning, 2 fatal. A warning before TLS 1.3 was chosen does "
      "not end the handshake (RFC 5246 7.2); in TLS 1.3 every alert but close_notify and "
      "user_canceled does, whatever its level (RFC 8446 6)",
      HFILL}},
    {&hf_client_hello_frame,
     {"ClientHello in frame", "tlsneg.client_hello_frame", FT_FRAMENUM, BASE_NONE,
      FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0x0,
      "The last ClientHello of this connection, which the alert answers", HFILL}},
    {&hf_after_peer_frame,
     {"After the other side's close in frame", "tlsneg.after_peer_frame", FT_FRAMENUM, BASE_NONE,
      NULL, 0x0,
      "The other side's first TCP FIN, or the connection's RST, before this alert: the alert "
      "follows that close and is not counted as a failure of its own",
      HFILL}},
    {&hf_retransmission_of,
     {"Retransmission of frame", "tlsneg.retransmission_of", FT_FRAMENUM, BASE_NONE,
      FRAMENUM_TYPE(FT_FRAMENUM_DUP_ACK), 0x0,
      "The same hello sent again unchanged (DTLS, QUIC); judged once, in that frame", HFILL}},
    {&hf_fallback,
     {"Fallback retry", "tlsneg.fallback", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
      "This ClientHello retries a failed attempt to the same server offering less", HFILL}},
    {&hf_fallback_prev_frame,
     {"Failed attempt in frame", "tlsneg.fallback.prev_frame", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
      "The ClientHello of the failed attempt this one retries", HFILL}},
    {&hf_fallback_retry_frame,
     {"Retried in frame", "tlsneg.fallback.retry_frame", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
      "The ClientHello that retried this failed attempt offering less (shown once the capture "
      "has been read)",
      HFILL}},
    {&hf_fallback_from,
     {"Highest offered before", "tlsneg.fallback.from", FT_UINT16, BASE_CUSTOM,
      CF_FUNC(format_version), 0x0, "Highest version the failed attempt offered", HFILL}},
    {&hf_fallback_to,
     {"Highest offered now", "tlsneg.fallback.to", FT_UINT16, BASE_CUSTOM, CF_FUNC(format_version),
      0x0, "Highest version the retry offers", HFILL}},
    {&hf_fallback_cause,
     {"Failure", "tlsneg.fallback.cause", FT_STRING, BASE_NONE, NULL, 0x0,
      "What made the previous attempt fail", HFILL}},
    {&hf_fallback_failed_in,
     {"Failed in frame", "tlsneg.fallback.failed_in", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
      "The alert, TCP reset or close that made the previous attempt fail", HFILL}},
    {&hf_fallback_chain,
     {"Chain", "tlsneg.fallback.chain", FT_STRING, BASE_NONE, NULL, 0x0,
      "The attempts of this fallback chain, oldest first", HFILL}},
    {&hf_server_intolerant,
     {"Server intolerant of", "tlsneg.server_intolerant", FT_STRING, BASE_NONE, NULL, 0x0,
      "What the server failed on in a higher attempt and accepted to go without", HFILL}},
    {&hf_inconsistent_with,
     {"Higher version in frame", "tlsneg.inconsistent_with", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
      "An earlier ServerHello of this server that put a higher version in force for this "
      "client (inconsistent_server, ignored_fallback_scsv)",
      HFILL}},
    {&hf_session_frame,
     {"Session made in frame", "tlsneg.session_frame", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
      "The ServerHello that created the session resumed here, at another version", HFILL}},
    {&hf_retry_of,
     {"Retry of frame", "tlsneg.retry_of", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
      "The ClientHello of the failed attempt this one repeats with the same offer (no "
      "fallback)",
      HFILL}},
    {&hf_attempts,
     {"Attempts", "tlsneg.attempts", FT_STRING, BASE_NONE, NULL, 0x0,
      "The chain of attempts this retry or refusal belongs to, oldest first", HFILL}},
    {&hf_other_cause,
     {"Retry also changed", "tlsneg.failure_other_cause", FT_STRING, BASE_NONE, NULL, 0x0,
      "What else than the versions the successful retry changed: the failure likely has "
      "another cause than version intolerance",
      HFILL}},
    {&hf_aborted_after,
     {"Client aborted after frame", "tlsneg.aborted_after", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
      "The ServerHello after which the client ended the handshake with this alert", HFILL}},
    {&hf_failed_in,
     {"Failed in frame", "tlsneg.failed_in", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
      "The alert, TCP reset or close that made this attempt fail (shown once the capture has "
      "been read)",
      HFILL}},
    {&hf_failure,
     {"Outcome", "tlsneg.failure", FT_STRING, BASE_NONE, NULL, 0x0,
      "How and where this attempt failed: \"failed: TCP reset, frame 6\" (shown once the "
      "capture has been read)",
      HFILL}},
    {&hf_hrr_frame,
     {"Answers the HelloRetryRequest in frame", "tlsneg.hrr_frame", FT_FRAMENUM, BASE_NONE, NULL,
      0x0, "The HelloRetryRequest of this connection that this ClientHello answers", HFILL}},
    {&hf_hrr_retry_frame,
     {"Answered by the ClientHello in frame", "tlsneg.hrr_retry_frame", FT_FRAMENUM, BASE_NONE,
      NULL, 0x0,
      "The ClientHello of this connection that answered this HelloRetryRequest (shown once "
      "the capture has been read)",
      HFILL}},
    {&hf_hrr_changes,
     {"Changed after the HelloRetryRequest", "tlsneg.hrr_changes", FT_STRING, BASE_NONE, NULL, 0x0,
      "What this ClientHello changed from the one before the HelloRetryRequest: the key "
      "share, the cookie, early_data, pre_shared_key, padding (RFC 8446 4.1.2), and anything "
      "else",
      HFILL}},
    {&hf_probe,
     {"Probe since frame", "tlsneg.probe", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
      "The first hello of the probe (a scanner) this message belongs to", HFILL}},
};

void tlsneg_fields_register(void)
{
    static gint *ett[] = {&ett_tlsneg, &ett_grease, &ett_groups, &ett_fallback, &ett_finding};

    proto_tlsneg = proto_register_protocol("TLS Version Negotiation", "TLSNEG", "tlsneg");
    proto_register_field_array(proto_tlsneg, fields_hf, array_length(fields_hf));
    register_dtls_twins();
    proto_register_subtree_array(ett, array_length(ett));
    register_experts();
    register_preferences();
}
