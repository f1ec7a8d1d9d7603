/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-fields.h: the protocol, its fields, subtrees, expert infos and
 * preferences, as Wireshark knows them (tlsneg-fields.c registers them);
 * the rest of the postdissector adds items and reads settings through
 * these ids. */
#ifndef TLSNEG_FIELDS_H
#define TLSNEG_FIELDS_H

#include <epan/expert.h>
#include <epan/proto.h>

#include "ws-compat.h"

#include "analysis/rules.h"

extern int proto_tlsneg;

extern int hf_msg_type;
extern int hf_hrr;
extern int hf_record_version;
extern int hf_legacy_version;
extern int hf_offered_version;
extern int hf_offered_max;
extern int hf_selected_version;
extern int hf_negotiated_version;
extern int hf_offered_max_short;
extern int hf_negotiated_short;
extern int hf_below_tls13;
extern int hf_grease_value;
extern int hf_grease_family;
extern int hf_grease_count;
extern int hf_sni;
extern int hf_fallback_scsv;
extern int hf_scsv_offered;
extern int hf_group;
extern int hf_key_share_group;
extern int hf_key_share_length;
extern int hf_group_selected;
extern int hf_pq_offered;
extern int hf_pq_key_share;
extern int hf_pq_selected;
extern int hf_hello_length;
extern int hf_hello_segments;
extern int hf_downgrade_sentinel;
extern int hf_summary;
extern int hf_finding;
extern int hf_findings_dropped;
extern int hf_alert;
extern int hf_alert_level;
extern int hf_client_hello_frame;
extern int hf_after_peer_frame;
extern int hf_retransmission_of;
extern int hf_fallback;
extern int hf_fallback_prev_frame;
extern int hf_fallback_retry_frame;
extern int hf_fallback_from;
extern int hf_fallback_to;
extern int hf_fallback_cause;
extern int hf_fallback_chain;
extern int hf_server_intolerant;
extern int hf_inconsistent_with;
extern int hf_session_frame;
extern int hf_retry_of;
extern int hf_attempts;
extern int hf_other_cause;
extern int hf_aborted_after;
extern int hf_probe;
extern int hf_failed_in;
extern int hf_failure;
extern int hf_fallback_failed_in;
extern int hf_hrr_frame;
extern int hf_hrr_retry_frame;
extern int hf_hrr_changes;

extern gint ett_tlsneg;
extern gint ett_grease;
extern gint ett_groups;
extern gint ett_fallback;
extern gint ett_finding;

/* One expert info per row of rules.def. */
extern expert_field ei_rules[TLSNEG_RULE_COUNT];

/* The preferences (Edit > Preferences > Protocols > TLSNEG): the
 * cross-connection tracker's settings, read when a capture file opens, and
 * whether the Info column gets the notes. */
typedef struct {
    guint window_s;
    tlsneg_pref_bool key_sni;
    guint max_attempts;
    tlsneg_pref_bool probes;
    tlsneg_pref_bool info_notes;
} tlsneg_pref_values;

extern tlsneg_pref_values tlsneg_prefs;

/* tlsneg_fields_register registers the protocol, then its fields, subtrees,
 * expert infos and preferences. */
void tlsneg_fields_register(void);

/* tlsneg_fields_for_dtls returns the DTLS twin of a version field (the same
 * name and filter, its values named as DTLS numbers them), or hf itself. */
int tlsneg_fields_for_dtls(int hf);

#endif
