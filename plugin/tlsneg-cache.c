/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-cache.c: the per-frame cache. The first pass keeps what the
 * session layer found about each message in file scope, and every later pass
 * (the GUI, tshark -2, the taps) renders from it, so that all of them show
 * the same. What is kept is packed: peak memory is the plugin's main cost in
 * a large capture (docs/performance.md, "The per-frame results made
 * smaller": 1.106x -> 1.088x plain tshark at 100k connections). */
#include <string.h>

#include <epan/packet.h>
#include <epan/proto_data.h>
#include <epan/wmem_scopes.h>

#include "tlsneg-cache.h"
#include "tlsneg-fields.h"

#include "analysis/checks.h"
#include "analysis/session.h"
#include "core/facts.h"

static wmem_map_t *back_notes; /* frame -> back_note, for frames before the verdict */

/* Texts kept for the whole file, each once: finding details, verdict notes
 * and texts and titles repeat across connections. */
static wmem_map_t *kept_texts;

/* kept_text returns text in file scope, shared with every equal text kept
 * before. */
static const char *kept_text(const char *text)
{
    char *k = (char *)wmem_map_lookup(kept_texts, text);
    if (!k) {
        k = wmem_strdup(wmem_file_scope(), text);
        wmem_map_insert(kept_texts, k, k);
    }
    return k;
}

void tlsneg_cache_register(void)
{
    back_notes =
        wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_direct_hash, g_direct_equal);
    kept_texts =
        wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_str_hash, g_str_equal);
}

/* A frame with no hello or alert (a Certificate, a Finished) gets nothing;
 * else one allocation: the frame, its messages, their places. */
frame_result *tlsneg_cache_new_frame(guint num_msgs)
{
    if (!num_msgs) {
        return wmem_new0(wmem_file_scope(), frame_result);
    }
    guint8 *p = (guint8 *)wmem_alloc0(wmem_file_scope(), sizeof(frame_result) +
                                                             num_msgs * sizeof(msg_result) +
                                                             num_msgs * sizeof(wire_place));
    frame_result *res = (frame_result *)p;
    res->msgs = (msg_result *)(p + sizeof *res);
    res->places = (wire_place *)(p + sizeof *res + num_msgs * sizeof(msg_result));
    return res;
}

void tlsneg_cache_put(packet_info *pinfo, frame_result *res)
{
    p_add_proto_data(wmem_file_scope(), pinfo, proto_tlsneg, 0, res);
}

frame_result *tlsneg_cache_get(packet_info *pinfo)
{
    return (frame_result *)p_get_proto_data(wmem_file_scope(), pinfo, proto_tlsneg, 0);
}

/* pack_facts copies f into file scope, its lists in one allocation of their
 * exact size (tlsneg_facts_pack). */
static void pack_facts(tlsneg_facts *dst, const tlsneg_facts *f)
{
    gsize size = tlsneg_facts_packed_size(f);
    tlsneg_facts_pack(dst, size ? wmem_alloc(wmem_file_scope(), size) : NULL, f);
}

static void keep_findings(msg_result *r, const tlsneg_findings *fs)
{
    r->num_findings = (guint)fs->count;
    r->findings_dropped = (guint)fs->dropped;
    if (!fs->count) {
        return;
    }
    kept_finding *kf = wmem_alloc_array(wmem_file_scope(), kept_finding, fs->count);
    for (size_t i = 0; i < fs->count; i++) {
        kf[i].rule = fs->item[i].rule;
        kf[i].detail = kept_text(fs->item[i].detail);
    }
    r->findings = kf;
}

/* keep_text copies a verdict's text into file scope. */
static const char *keep_text(void *ctx, const char *text)
{
    (void)ctx;
    return kept_text(text);
}

static void keep_verdicts(msg_result *r, const tlsneg_verdicts *vs, gboolean dtls)
{
    r->num_verdicts = (guint)vs->count;
    if (!vs->count) {
        return;
    }
    kept_verdict *kv = wmem_alloc0_array(wmem_file_scope(), kept_verdict, vs->count);
    for (size_t i = 0; i < vs->count; i++) {
        char note[TLSNEG_VERDICT_TEXT_MAX];
        tlsneg_verdict_keep(&kv[i], &vs->item[i],
                            kept_text(tlsneg_verdict_note(&vs->item[i], dtls, note, sizeof note)),
                            keep_text, NULL);
    }
    r->verdicts = kv;
}

void tlsneg_cache_keep_back_note(const tlsneg_back_note *n)
{
    if (n->kind >= TLSNEG_NOTE_KINDS) {
        return;
    }
    back_note *b = (back_note *)wmem_map_lookup(back_notes, GUINT_TO_POINTER(n->frame));
    if (!b) {
        b = wmem_new0(wmem_file_scope(), back_note);
        wmem_map_insert(back_notes, GUINT_TO_POINTER(n->frame), b);
    }
    kept_note *k = &b->note[n->kind];
    k->set = TRUE;
    k->link = n->link;
    k->has_text = n->has_text;
    k->text_role = n->text.role;
    k->text = n->has_text ? kept_text(n->text.text) : NULL;
    k->has_finding = n->has_finding;
    k->rule = n->finding.rule;
    k->detail = n->has_finding ? kept_text(n->finding.detail) : NULL;
}

static void keep_back_notes(const tlsneg_result *x)
{
    for (size_t i = 0; i < x->num_back_notes; i++) {
        tlsneg_cache_keep_back_note(&x->back_notes[i]);
    }
}

/* The connection's kept ClientHello holds sni in nearly every case: shared
 * rather than copied, for the memory. */
const char *tlsneg_cache_sni(const tlsneg_conn *c, gboolean has_sni, const char *sni)
{
    if (!has_sni) {
        return NULL;
    }
    if (c->client_hello && c->client_hello->sni && strcmp(c->client_hello->sni, sni) == 0) {
        return c->client_hello->sni;
    }
    return wmem_strdup(wmem_file_scope(), sni);
}

void tlsneg_cache_keep_result(msg_result *r, const tlsneg_result *x, tlsneg_conn *c)
{
    r->is_alert = x->is_alert;
    r->alert_level = x->alert_level;
    r->alert_description = x->alert_description;
    r->alert_from_server = x->alert_from_server;
    r->alert_ends = x->alert_ends;
    r->alert_after_server_hello = x->alert_after_server_hello;
    r->alert_after_close = x->alert_after_close;
    r->alert_after_close_cause = x->alert_after_close_cause;
    r->from_client = x->from_client;
    r->client_hello_frame = x->client_hello_frame;
    r->retransmission_of = x->retransmission_of;
    if (!x->is_alert) {
        pack_facts(&r->facts, &x->facts);
    } else {
        r->facts.wire = x->facts.wire; /* an alert's facts: its wire alone */
    }
    if (x->keep_facts) {
        tlsneg_conn_keep_client_hello(c, &r->facts);
    }
    keep_findings(r, &x->findings);
    keep_verdicts(r, &x->verdicts, !x->is_alert && tlsneg_facts_is_dtls(&x->facts));
    keep_back_notes(x);
    r->sni = tlsneg_cache_sni(c, x->has_sni, x->sni);
    r->title = x->title[0] ? kept_text(x->title) : NULL;
    r->failed_attempt = x->failed_attempt;
    r->failure_cause = x->failure_cause;
    r->held = x->held;
    r->early_frame = x->early_frame;
    r->early_time_us = x->early_time_us;
    r->early_cause = x->early_cause;
    r->early_alert = x->early_alert;
    r->client_pq_offered = x->client_pq_offered;
    r->hrr_frame = x->hrr_frame;
    r->hrr_changes = x->hrr_frame ? kept_text(x->hrr_changes) : NULL;
}

const back_note *tlsneg_cache_back_note(const packet_info *pinfo, const msg_result *r)
{
    if (r->is_alert || r->retransmission_of ||
        (r->facts.msg_type != TLSNEG_HS_CLIENT_HELLO && !r->facts.is_hrr)) {
        return NULL;
    }
    return (const back_note *)wmem_map_lookup(back_notes, GUINT_TO_POINTER(pinfo->num));
}
