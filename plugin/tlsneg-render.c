/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-render.c: what every pass shows of the results the first pass
 * kept: the tlsneg item of each hello and alert with its facts, the verdicts
 * across connections and what later frames revealed, the findings as expert
 * infos, and the notes in the Info column. */
#include <string.h>

#include <epan/column-utils.h>
#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/proto.h>
#include <epan/tap.h>

#include "tlsneg-cache.h"
#include "tlsneg-fields.h"
#include "tlsneg-items.h"
#include "tlsneg-render.h"
#include "ws-compat.h"

#include "analysis/checks.h"
#include "analysis/rules.h"
#include "analysis/tracker.h"
#include "core/facts.h"
#include "core/hello.h"
#include "core/versions.h"

/* Repeated items shown at most, so that a hostile hello keeps the tree
 * usable. */
#define MAX_LISTED 32

/* Text that nobody sees is not formatted: in `tshark -r FILE` the tree is
 * hidden and no tlsneg field is asked for, and the summary sentence would be
 * most of tlsneg's cost there. A visible tree, a filter or column on a
 * tlsneg field, or -T fields marks the fields as referenced (a field marks
 * its protocol, proto_tlsneg, too). While the expert infos have a reader
 * (tlsneg_render_wanted), the items are added all the same (a filter on
 * _ws.expert needs the findings' items), except the groups and key shares,
 * which carry no expert info: a dozen items a hello, skipped while nothing
 * asks for tlsneg. */
static gboolean shown(proto_tree *tree, int hf)
{
    return proto_field_is_referenced(tree, hf);
}

/* Whether anybody reads the items and expert infos of this frame: besides
 * the tree and the tlsneg fields (shown), the expert infos are read by a
 * filter or column on _ws.expert, by the expert tap (-z expert, the Expert
 * Information dialog) and by the Expert column and the status bar, which
 * come with the packet list's columns. `tshark -q -z tlsneg,jsonl` has none
 * of these: its taps read the kept results, not the tree (bench/README.md,
 * "What made it cheaper"). */
gboolean tlsneg_render_wanted(proto_tree *tree, packet_info *pinfo)
{
    static int expert_tap = -2, proto_expert = -2;
    if (expert_tap == -2) {
        expert_tap = find_tap_id("expert");
        proto_expert = proto_get_id_by_filter_name("_ws.expert");
    }
    return shown(tree, proto_tlsneg) || pinfo->cinfo != NULL ||
           (expert_tap >= 0 && have_tap_listener(expert_tap)) ||
           (proto_expert >= 0 && shown(tree, proto_expert));
}

/* render_finding adds a tlsneg.finding carrying its expert info, so that a
 * click on the expert lands on the rule. The item itself stays short (the
 * rule name); its expert info carries the whole sentence, which the details
 * pane cuts off at its width, so the sentence is also shown below it,
 * wrapped. */
static void render_finding(proto_tree *tree, packet_info *pinfo, tlsneg_rule_id id,
                           const char *detail, gboolean dtls)
{
    const tlsneg_rule *rule = &tlsneg_rules[id];
    proto_item *it = tlsneg_item_string(tree, hf_finding, rule->finding);
    char text[TLSNEG_EXPERT_TEXT_MAX + 1];
    gboolean cut = tlsneg_rule_expert_text(id, dtls, detail, text, sizeof text);
    expert_add_info_format(pinfo, it, &ei_rules[id], "%s", text);
    /* The expert item says the sentence; one cut to fit a label has it
     * whole below, once. */
    if (cut && shown(tree, hf_finding)) {
        char *sentence =
            wmem_strdup_printf(pinfo->pool, "%s [%s]", detail, tlsneg_rule_rfc(id, dtls));
        tlsneg_item_wrapped(proto_item_add_subtree(it, ett_finding), pinfo, ett_finding, sentence);
    }
}

/* dtls: a DTLS message's findings cite DTLS's RFC where it has the rule. */
static void render_findings(proto_tree *tree, packet_info *pinfo, const msg_result *r,
                            gboolean dtls)
{
    for (guint i = 0; i < r->num_findings; i++) {
        render_finding(tree, pinfo, r->findings[i].rule, r->findings[i].detail, dtls);
    }
    if (r->findings_dropped) {
        proto_item *it = tlsneg_item_uint(tree, hf_findings_dropped, r->findings_dropped);
        proto_item_set_text(it, "... and %u more findings not shown (a message keeps %d)",
                            r->findings_dropped, TLSNEG_MAX_FINDINGS);
    }
}

/* Where each role of a verdict's evidence is shown: NULL, not as a field. */
static int *const verdict_hf[TLSNEG_VERDICT_KINDS] = {
    [TLSNEG_VERDICT_FALLBACK] = &hf_fallback,
};
static int *const link_hf[TLSNEG_LINK_ROLES] = {
    [TLSNEG_LINK_PREVIOUS_ATTEMPT] = &hf_fallback_prev_frame,
    [TLSNEG_LINK_RETRY] = &hf_fallback_retry_frame,
    [TLSNEG_LINK_SESSION_MADE_IN] = &hf_session_frame,
    [TLSNEG_LINK_HIGHER_VERSION_IN] = &hf_inconsistent_with,
    [TLSNEG_LINK_SAME_OFFER_AS] = &hf_retry_of,
    [TLSNEG_LINK_ABORTED_AFTER] = &hf_aborted_after,
    [TLSNEG_LINK_PROBE_START] = &hf_probe,
    [TLSNEG_LINK_FAILED_IN] = &hf_failed_in,
    [TLSNEG_LINK_HRR_RETRY] = &hf_hrr_retry_frame,
};
static int *const version_hf[TLSNEG_VERSION_ROLES] = {
    [TLSNEG_VERSION_OFFERED_BEFORE] = &hf_fallback_from,
    [TLSNEG_VERSION_OFFERED_NOW] = &hf_fallback_to,
};
static int *const text_hf[TLSNEG_TEXT_ROLES] = {
    [TLSNEG_TEXT_CAUSE] = &hf_fallback_cause,
    [TLSNEG_TEXT_CHAIN] = &hf_fallback_chain,
    [TLSNEG_TEXT_INTOLERANT_OF] = &hf_server_intolerant,
    [TLSNEG_TEXT_CHANGED] = &hf_other_cause,
    [TLSNEG_TEXT_ATTEMPTS] = &hf_attempts,
    [TLSNEG_TEXT_FAILURE] = &hf_failure,
};

static proto_item *render_link(proto_tree *tree, const tlsneg_link *l)
{
    if (l->role < TLSNEG_LINK_ROLES && link_hf[l->role]) {
        return tlsneg_item_uint(tree, *link_hf[l->role], l->frame);
    }
    return NULL;
}

static proto_item *render_text(proto_tree *tree, guint8 role, const char *text)
{
    if (role < TLSNEG_TEXT_ROLES && text_hf[role]) {
        return tlsneg_item_string(tree, *text_hf[role], text);
    }
    return NULL;
}

/* render_failed_in names, on a retry's Failure line, the frame where the
 * previous attempt failed, and links it below. */
static void render_failed_in(proto_item *cause, const kept_verdict *v)
{
    for (guint k = 0; k < v->num_links; k++) {
        if (v->link[k].role == TLSNEG_LINK_PREVIOUS_FAILED_IN) {
            proto_item_append_text(cause, ", frame %u", v->link[k].frame);
            tlsneg_item_uint(proto_item_add_subtree(cause, ett_fallback), hf_fallback_failed_in,
                             v->link[k].frame);
            return;
        }
    }
}

/* render_verdicts shows the verdicts across connections about this
 * message: each under its own item if it has one, its evidence by role. */
static void render_verdicts(proto_tree *tree, const msg_result *r)
{
    gboolean dtls = tlsneg_facts_is_dtls(&r->facts);
    for (guint i = 0; i < r->num_verdicts; i++) {
        const kept_verdict *v = &r->verdicts[i];
        proto_tree *vt = tree;
        if (v->kind < TLSNEG_VERDICT_KINDS && verdict_hf[v->kind]) {
            proto_item *vi = tlsneg_item_bool(tree, *verdict_hf[v->kind], TRUE);
            vt = proto_item_add_subtree(vi, ett_fallback);
        }
        for (guint k = 0; k < v->num_links; k++) {
            render_link(vt, &v->link[k]);
        }
        for (guint k = 0; k < v->num_versions; k++) {
            guint8 role = v->version[k].role;
            if (role < TLSNEG_VERSION_ROLES && version_hf[role]) {
                tlsneg_item_version(vt, *version_hf[role], v->version[k].version, dtls);
            }
        }
        for (guint k = 0; k < v->num_texts; k++) {
            proto_item *ti = render_text(vt, v->text[k].role, v->text[k].text);
            if (ti && v->text[k].role == TLSNEG_TEXT_CAUSE) {
                render_failed_in(ti, v);
            }
        }
    }
}

/* render_back_note shows, on a failed attempt's ClientHello, what later
 * frames revealed: once the capture has been read (GUI, tshark -2). */
static void render_back_note(proto_tree *tree, packet_info *pinfo, const msg_result *r)
{
    const back_note *b = tlsneg_cache_back_note(pinfo, r);
    if (!b) {
        return;
    }
    for (guint i = 0; i < TLSNEG_NOTE_KINDS; i++) {
        const kept_note *n = &b->note[i];
        if (!n->set) {
            continue;
        }
        proto_item *li = render_link(tree, &n->link);
        if (li && i == TLSNEG_NOTE_PROBE) {
            proto_item_append_text(li, " (known once a later hello made the burst a probe: "
                                       "not on a first pass)");
        }
        if (n->has_text) {
            render_text(tree, n->text_role, n->text);
        }
        if (n->has_finding) {
            render_finding(tree, pinfo, n->rule, n->detail, FALSE); /* verdicts: no DTLS RFC */
        }
    }
}

void tlsneg_render_alert(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const msg_result *r)
{
    char summary[256];
    proto_item *ti = proto_tree_add_item(tree, proto_tlsneg, tvb, 0, 0, ENC_NA);
    if (shown(tree, proto_tlsneg)) {
        const char *name = tlsneg_alert_name(r->alert_description);
        proto_item_append_text(
            ti, ": Alert %s%s", name ? name : "unknown",
            r->alert_level == TLSNEG_ALERT_WARNING && !r->alert_ends ? " (warning)" : "");
        const kept_verdict *aborted =
            tlsneg_kept_find(r->verdicts, r->num_verdicts, TLSNEG_VERDICT_CLIENT_ABORT);
        if (aborted) {
            proto_item_append_text(ti, ", %s", aborted->note);
        }
    }
    proto_tree *st = proto_item_add_subtree(ti, ett_tlsneg);
    if (shown(tree, hf_summary)) {
        tlsneg_item_string(st, hf_summary,
                           tlsneg_alert_summary(r->alert_level, r->alert_description, r->alert_ends,
                                                r->alert_from_server, r->client_hello_frame != 0,
                                                r->alert_after_close_cause, r->alert_after_close,
                                                summary, sizeof summary));
    }
    tlsneg_item_uint(st, hf_alert, r->alert_description);
    if (r->alert_level != TLSNEG_ALERT_NO_LEVEL) {
        tlsneg_item_uint(st, hf_alert_level, r->alert_level);
    }
    if (r->client_hello_frame) {
        tlsneg_item_uint(st, hf_client_hello_frame, r->client_hello_frame);
    }
    if (r->alert_after_close) {
        tlsneg_item_uint(st, hf_after_peer_frame, r->alert_after_close);
    }
    render_verdicts(st, r);
    render_findings(st, pinfo, r, FALSE); /* an alert's: verdicts, no DTLS RFC */
}

/* title_hello writes the item's title: the message and its version, what
 * the analysis says of it as a retry, and how its attempt failed. */
static void title_hello(proto_item *ti, const packet_info *pinfo, const msg_result *r)
{
    const back_note *b = tlsneg_cache_back_note(pinfo, r);
    const kept_note *retitle = b ? &b->note[TLSNEG_NOTE_TITLE] : NULL;
    const kept_note *failed = b ? &b->note[TLSNEG_NOTE_FAILED] : NULL;
    const tlsneg_facts *f = &r->facts;
    gboolean dtls = tlsneg_facts_is_dtls(f);
    char name[TLSNEG_VERSION_NAME_MAX];
    proto_item_append_text(ti, ": %s", tlsneg_msg_name(f));
    if (f->has_negotiated) {
        proto_item_append_text(
            ti, ", %s in force",
            tlsneg_version_name_in(f->negotiated_version, dtls, name, sizeof name));
    } else if (f->has_selected) {
        proto_item_append_text(
            ti, ", selects %s",
            tlsneg_version_name_in(f->selected_version, dtls, name, sizeof name));
    } else if (f->has_offered_max) {
        proto_item_append_text(ti, ", offers up to %s",
                               tlsneg_version_name_in(f->offered_max, dtls, name, sizeof name));
    }
    if (r->retransmission_of) {
        proto_item_append_text(ti, " (retransmission)");
    }
    if (retitle && retitle->set && retitle->has_text) {
        proto_item_append_text(ti, ", %s", retitle->text);
    } else if (r->title) {
        proto_item_append_text(ti, ", %s", r->title);
    }
    if (failed && failed->set && failed->has_text) {
        proto_item_append_text(ti, ", %s", failed->text);
    }
}

/* render_sentinel ties tlsneg.downgrade_sentinel to the last 8 bytes of
 * ServerHello.random when they hold it. */
static void render_sentinel(proto_tree *tree, const wire_bytes *b, const tlsneg_facts *f)
{
    static const guint8 downgrd[7] = {'D', 'O', 'W', 'N', 'G', 'R', 'D'};
    gint pos = tlsneg_item_pos(b, f->sentinel_at);
    gboolean holds = pos >= 0 && f->sentinel_at.len == 8 &&
                     (f->sentinel == TLSNEG_SENTINEL_JDK11
                          ? tlsneg_tvb_get_uint8(b->tvb, pos) == 0xed
                          : tvb_memeql(b->tvb, pos, downgrd, sizeof downgrd) == 0 &&
                                tlsneg_tvb_get_uint8(b->tvb, pos + 7) == f->sentinel);
    if (holds) {
        proto_tree_add_uint(tree, hf_downgrade_sentinel, b->tvb, pos, 8, f->sentinel);
    } else {
        tlsneg_item_uint(tree, hf_downgrade_sentinel, f->sentinel);
    }
}

/* render_hrr ties tlsneg.hrr to ServerHello.random (right after
 * legacy_version), whose value alone says whether the message is a
 * HelloRetryRequest (RFC 8446 4.1.3), when those bytes are there and read
 * as the item says. */
static void render_hrr(proto_tree *tree, const wire_bytes *b, const tlsneg_facts *f)
{
    tlsneg_span at = {f->legacy_version_at.offset + 2, sizeof tlsneg_hrr_random};
    gint pos = f->legacy_version_at.len == 2 ? tlsneg_item_pos(b, at) : -1;
    if (pos >= 0 &&
        (tvb_memeql(b->tvb, pos, tlsneg_hrr_random, sizeof tlsneg_hrr_random) == 0) == f->is_hrr) {
        proto_tree_add_boolean(tree, hf_hrr, b->tvb, pos, (gint)at.len, f->is_hrr ? 1u : 0u);
    } else {
        tlsneg_item_bool(tree, hf_hrr, f->is_hrr);
    }
}

/* render_sni ties tlsneg.sni to the host_name bytes when they read as the
 * shown name (not when bytes had to be escaped or the name was cut). */
static void render_sni(proto_tree *tree, const wire_bytes *b, const tlsneg_facts *f)
{
    gint pos = tlsneg_item_pos(b, f->sni_at);
    if (pos >= 0 && strlen(f->sni) == f->sni_at.len &&
        tvb_memeql(b->tvb, pos, (const guint8 *)f->sni, f->sni_at.len) == 0) {
        proto_tree_add_string(tree, hf_sni, b->tvb, pos, (gint)f->sni_at.len, f->sni);
    } else {
        tlsneg_item_string(tree, hf_sni, f->sni);
    }
}

/* render_short_name: a version's short name as a hidden item, for the
 * packet list's columns (the profile's "Highest offer" and "In force"). */
static void render_short_name(proto_tree *tree, int hf, guint16 v, gboolean dtls)
{
    char name[TLSNEG_VERSION_NAME_MAX];
    proto_item_set_hidden(
        tlsneg_item_string(tree, hf, tlsneg_version_short_name(v, dtls, name, sizeof name)));
}

/* render_scsv: TLS_FALLBACK_SCSV offered is tied to the cipher suite (or
 * SSLv2 cipher spec) that says so; its absence is derived. When offered,
 * tlsneg.scsv_offered rides along hidden on the same bytes: a column on it
 * is empty unless the SCSV is there. */
static void render_scsv(proto_tree *tree, const wire_bytes *b, const tlsneg_facts *f)
{
    guint32 scsv = f->fallback_scsv_at.len == 3 ? 0x005600u : TLSNEG_CS_FALLBACK_SCSV;
    proto_item *offered = NULL;
    if (f->fallback_scsv && tlsneg_item_holds(b, f->fallback_scsv_at, scsv)) {
        gint pos = tlsneg_item_pos(b, f->fallback_scsv_at);
        gint len = (gint)f->fallback_scsv_at.len;
        proto_tree_add_boolean(tree, hf_fallback_scsv, b->tvb, pos, len, 1u);
        offered = proto_tree_add_boolean(tree, hf_scsv_offered, b->tvb, pos, len, 1u);
    } else {
        tlsneg_item_bool(tree, hf_fallback_scsv, f->fallback_scsv);
        if (f->fallback_scsv) {
            offered = tlsneg_item_bool(tree, hf_scsv_offered, TRUE);
        }
    }
    proto_item_set_hidden(offered);
}

/* render_grease: one line per GREASE value, tied to its bytes, saying where
 * it sits; tlsneg.grease_family rides along as a hidden item on the same
 * bytes (for filters and columns). */
static void render_grease(proto_tree *tree, tvbuff_t *tvb, const wire_bytes *b,
                          const tlsneg_facts *f)
{
    proto_item *gi = tlsneg_item_uint(tree, hf_grease_count, f->grease_count);
    if (!f->num_grease) {
        return;
    }
    proto_tree *gt = proto_item_add_subtree(gi, ett_grease);
    for (guint i = 0; i < f->num_grease; i++) {
        const tlsneg_grease *g = &f->grease[i];
        const char *family = tlsneg_grease_family_name((tlsneg_grease_family)g->family);
        proto_item *vi = tlsneg_item_wire_uint(gt, hf_grease_value, b, g->at, g->value);
        proto_item_append_text(vi, " (%s)", family);
        proto_item *fi;
        if (tlsneg_item_holds(b, g->at, g->value)) {
            fi = proto_tree_add_string(gt, hf_grease_family, b->tvb, tlsneg_item_pos(b, g->at),
                                       (gint)g->at.len, family);
        } else {
            fi = tlsneg_item_string(gt, hf_grease_family, family);
        }
        proto_item_set_hidden(fi);
    }
    if (f->grease_count > f->num_grease) {
        proto_tree_add_subtree_format(gt, tvb, 0, 0, ett_grease, NULL, "... %u more",
                                      f->grease_count - f->num_grease);
    }
}

/* render_groups: supported_groups entry by entry, each tied to its bytes
 * (entry i sits 2 * i bytes after the first), the first MAX_LISTED. */
static void render_groups(proto_tree *tree, tvbuff_t *tvb, const wire_bytes *b,
                          const tlsneg_facts *f)
{
    guint listed = MIN(f->num_groups, MAX_LISTED);
    for (guint i = 0; i < listed; i++) {
        tlsneg_span at = {f->groups_at.offset + 2 * i, 2};
        tlsneg_item_wire_uint(tree, hf_group, b, at, f->groups[i]);
    }
    if (f->group_count > listed) {
        proto_tree_add_subtree_format(tree, tvb, 0, 0, ett_groups, NULL, "... %u more groups",
                                      f->group_count - listed);
    }
}

/* render_key_exchange: the groups, the key shares (group, and its length
 * under it), the group selected, the post-quantum flags, and what carried
 * the hello. */
static void render_key_exchange(proto_tree *tree, tvbuff_t *tvb, const wire_bytes *b,
                                const tlsneg_facts *f)
{
    gboolean client = f->msg_type == TLSNEG_HS_CLIENT_HELLO;
    if (client) {
        render_groups(tree, tvb, b, f);
    }
    if (client || !f->is_hrr) {
        for (guint i = 0; i < f->num_key_shares; i++) {
            const tlsneg_key_share *k = &f->key_shares[i];
            tlsneg_span at = {k->offset, 2};
            proto_item *ki = tlsneg_item_wire_uint(tree, hf_key_share_group, b, at, k->group);
            proto_tree *kt = proto_item_add_subtree(ki, ett_groups);
            tlsneg_span len_at = {k->offset + 2, 2};
            tlsneg_item_wire_uint(kt, hf_key_share_length, b, len_at, k->length);
        }
        if (f->key_share_count > f->num_key_shares) {
            proto_tree_add_subtree_format(tree, tvb, 0, 0, ett_groups, NULL,
                                          "... %u more key shares",
                                          f->key_share_count - f->num_key_shares);
        }
    }
    if (f->has_group_selected) {
        proto_item *gi = tlsneg_item_wire_uint(tree, hf_group_selected, b, f->group_selected_at,
                                               f->group_selected);
        if (f->is_hrr) {
            proto_item_append_text(gi, ": the group this HelloRetryRequest asks for");
        }
    }
    if (client) {
        tlsneg_item_bool(tree, hf_pq_offered, f->pq_offered);
        tlsneg_item_bool(tree, hf_pq_key_share, f->pq_key_share);
    } else if (f->msg_type == TLSNEG_HS_SERVER_HELLO && f->has_group_selected) {
        tlsneg_item_bool(tree, hf_pq_selected, f->pq_selected);
    }
    tlsneg_item_uint(tree, hf_hello_length, f->hello_length);
    if (f->hello_segments) {
        proto_item *si = tlsneg_item_uint(tree, hf_hello_segments, f->hello_segments);
        for (guint i = 0; i < f->num_segment_frames; i++) {
            const char *lead = f->hello_segments == 1 ? " (frame " : " (frames ";
            proto_item_append_text(si, "%s%u", i ? ", " : lead, f->segment_frames[i]);
        }
        if (f->num_segment_frames) {
            proto_item_append_text(si, f->hello_segments > f->num_segment_frames ? ", ...)" : ")");
        }
    }
}

void tlsneg_render_hello(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const msg_result *r,
                         const wire_place *place)
{
    const tlsneg_facts *f = &r->facts;
    gboolean dtls = tlsneg_facts_is_dtls(f);
    char summary[512];
    wire_bytes b = tlsneg_item_bytes(pinfo, place);

    proto_item *ti = proto_tree_add_item(tree, proto_tlsneg, tvb, 0, 0, ENC_NA);
    if (shown(tree, proto_tlsneg)) {
        title_hello(ti, pinfo, r);
    }
    proto_tree *st = proto_item_add_subtree(ti, ett_tlsneg);
    if (shown(tree, hf_summary)) {
        tlsneg_item_string(st, hf_summary, tlsneg_facts_summary(f, summary, sizeof summary));
    }
    if (r->retransmission_of) {
        tlsneg_item_uint(st, hf_retransmission_of, r->retransmission_of);
    }
    tlsneg_item_uint(st, hf_msg_type, f->msg_type);
    if (f->msg_type == TLSNEG_HS_SERVER_HELLO) {
        render_hrr(st, &b, f);
    }
    if (f->has_record_version) {
        /* Its record header, when it is in the message's data source. */
        wire_bytes rb = {place->has_record_at ? b.tvb : NULL, 0};
        tlsneg_span at = {place->record_at, 2};
        tlsneg_item_wire_version(st, hf_record_version, &rb, at, f->record_version, dtls);
    }
    tlsneg_item_wire_version(st, hf_legacy_version, &b, f->legacy_version_at, f->legacy_version,
                             dtls);
    /* A list of up to 127 versions: the first ones, then how many more. */
    for (guint i = 0; i < MIN(f->num_offered, MAX_LISTED); i++) {
        tlsneg_span none = {0, 0};
        tlsneg_item_wire_version(st, hf_offered_version, &b,
                                 i < TLSNEG_MAX_SPANS ? f->offered_at[i] : none, f->offered[i],
                                 dtls);
    }
    if (f->num_offered > MAX_LISTED) {
        proto_tree_add_subtree_format(st, tvb, 0, 0, ett_tlsneg, NULL,
                                      "... %u more offered versions", f->num_offered - MAX_LISTED);
    }
    if (f->has_offered_max) {
        tlsneg_item_version(st, hf_offered_max, f->offered_max, dtls);
        render_short_name(st, hf_offered_max_short, f->offered_max, dtls);
    }
    if (f->has_selected) {
        tlsneg_item_wire_version(st, hf_selected_version, &b, f->selected_version_at,
                                 f->selected_version, dtls);
    }
    if (f->has_negotiated) {
        tlsneg_item_version(st, hf_negotiated_version, f->negotiated_version, dtls);
        render_short_name(st, hf_negotiated_short, f->negotiated_version, dtls);
        tlsneg_item_bool(st, hf_below_tls13, tlsneg_version_below_13(f->negotiated_version, dtls));
    }
    if (f->sni) {
        render_sni(st, &b, f);
    }
    if (f->msg_type == TLSNEG_HS_CLIENT_HELLO) {
        render_scsv(st, &b, f);
    }
    if (f->has_sentinel) {
        render_sentinel(st, &b, f);
    }
    /* Groups and key shares carry no expert info (their findings come
     * below): in `tshark -r FILE`, where nothing asks for a tlsneg field,
     * they would be a dozen items a hello nobody reads. */
    if (shown(tree, proto_tlsneg)) {
        render_key_exchange(st, tvb, &b, f);
    }
    render_grease(st, tvb, &b, f);
    if (r->hrr_frame) {
        proto_item *hi = tlsneg_item_uint(st, hf_hrr_frame, r->hrr_frame);
        tlsneg_item_string(proto_item_add_subtree(hi, ett_fallback), hf_hrr_changes,
                           r->hrr_changes ? r->hrr_changes : "");
    }
    render_verdicts(st, r);
    render_back_note(st, pinfo, r);
    render_findings(st, pinfo, r, dtls);
}

/* The story in the packet list: one [note] per verdict across connections
 * (the words of tlsneg_verdict_tag), and [DOWNGRD] on a ServerHello with a
 * downgrade sentinel. */
void tlsneg_render_info_notes(packet_info *pinfo, const msg_result *r)
{
    for (guint i = 0; i < r->num_verdicts; i++) {
        col_append_sep_fstr(pinfo->cinfo, COL_INFO, " ", "[%s]", r->verdicts[i].note);
    }
    const back_note *b = r->is_alert ? NULL : tlsneg_cache_back_note(pinfo, r);
    if (b && b->note[TLSNEG_NOTE_PROBE].set) { /* a probe's first hellos, known later */
        col_append_sep_fstr(pinfo->cinfo, COL_INFO, " ", "[%s]",
                            tlsneg_verdict_tag(TLSNEG_VERDICT_PROBE));
    }
    if (!r->is_alert && !r->retransmission_of && r->facts.has_sentinel) {
        col_append_sep_str(pinfo->cinfo, COL_INFO, " ", "[DOWNGRD]");
    }
}
