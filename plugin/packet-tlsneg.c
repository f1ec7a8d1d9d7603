/* SPDX-License-Identifier: GPL-2.0-or-later */
/* packet-tlsneg.c: the Wireshark glue of tlsneg.
 *
 * A postdissector: on the first pass it finds every plaintext ClientHello,
 * ServerHello, HelloRetryRequest and HelloVerifyRequest that the TLS, DTLS and
 * QUIC dissectors put in the tree, hands their bytes to the pure-C core, and
 * keeps the facts per frame; on every pass it renders them. */
#include <string.h>

#include <epan/conversation.h>
#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/proto.h>
#include <epan/tap.h>
#include <epan/wmem_scopes.h>

#include "packet-tlsneg.h"
#include "tlsneg-cache.h"
#include "tlsneg-fields.h"
#include "tlsneg-tree.h"
#include "ws-compat.h"

#include "analysis/checks.h"
#include "analysis/session.h"
#include "core/facts.h"
#include "core/versions.h"

static int tlsneg_tap = -1;
static dissector_handle_t tlsneg_handle;

/* Across connections: reset with every capture file. */
static tlsneg_session *session;

/* Repeated items shown at most, so that a hostile hello keeps the tree
 * usable. */
#define MAX_LISTED 32

/* The connection of the last TCP frame whose conversation was looked up:
 * find_conversation costs about 1,100 instructions, and the next lookups
 * (ServerHello, ChangeCipherSpec, encrypted records, FIN) are mostly for
 * the same connection. Only a SYN makes TCP start a new conversation on the
 * same addresses and ports (port reuse), so any SYN forgets it; kept only
 * while the tracker runs, since only then are every TCP frame's flags
 * read. */
typedef struct {
    int type;
    guint len;
    guint8 addr[16];
    guint32 port;
} conn_end;

static struct {
    gboolean valid;
    conn_end a, b;
    tlsneg_conn *c;
} last_conn;

static gboolean conn_cacheable(const packet_info *pinfo)
{
    return tlsneg_session_tracker(session) && pinfo->ptype == PT_TCP &&
           !pinfo->use_conv_addr_port_endpoints && !pinfo->conv_elements && pinfo->src.len > 0 &&
           pinfo->src.len <= 16 && pinfo->dst.len > 0 && pinfo->dst.len <= 16;
}

static gboolean end_is(const conn_end *e, const address *addr, guint32 port)
{
    return e->port == port && e->type == addr->type && e->len == (guint)addr->len &&
           memcmp(e->addr, addr->data, e->len) == 0;
}

static tlsneg_conn *cached_conn(const packet_info *pinfo)
{
    if (!last_conn.valid || !conn_cacheable(pinfo)) {
        return NULL;
    }
    if ((end_is(&last_conn.a, &pinfo->src, pinfo->srcport) &&
         end_is(&last_conn.b, &pinfo->dst, pinfo->destport)) ||
        (end_is(&last_conn.a, &pinfo->dst, pinfo->destport) &&
         end_is(&last_conn.b, &pinfo->src, pinfo->srcport))) {
        return last_conn.c;
    }
    return NULL;
}

static void set_end(conn_end *e, const address *addr, guint32 port)
{
    e->type = addr->type;
    e->len = (guint)addr->len;
    memcpy(e->addr, addr->data, e->len);
    e->port = port;
}

static void remember_conn(const packet_info *pinfo, tlsneg_conn *c)
{
    if (!c || !conn_cacheable(pinfo)) {
        return;
    }
    set_end(&last_conn.a, &pinfo->src, pinfo->srcport);
    set_end(&last_conn.b, &pinfo->dst, pinfo->destport);
    last_conn.c = c;
    last_conn.valid = TRUE;
}

/* connection returns the session layer's state of this frame's
 * conversation, made on first use. */
static tlsneg_conn *connection(packet_info *pinfo)
{
    tlsneg_conn *c = cached_conn(pinfo);
    if (c) {
        return c;
    }
    conversation_t *conv = find_or_create_conversation(pinfo);
    c = (tlsneg_conn *)conversation_get_proto_data(conv, proto_tlsneg);
    if (!c) {
        c = wmem_new0(wmem_file_scope(), tlsneg_conn);
        c->id = conv->conv_index;
        conversation_add_proto_data(conv, proto_tlsneg, c);
    }
    remember_conn(pinfo, c);
    return c;
}

/* existing_connection returns the session layer's state of this frame's
 * conversation, or NULL if it has none. */
static tlsneg_conn *existing_connection(packet_info *pinfo)
{
    tlsneg_conn *c = cached_conn(pinfo);
    if (c) {
        return c;
    }
    conversation_t *conv = find_conversation_pinfo(pinfo, 0);
    c = conv ? (tlsneg_conn *)conversation_get_proto_data(conv, proto_tlsneg) : NULL;
    remember_conn(pinfo, c);
    return c;
}

static tlsneg_event event_of(const packet_info *pinfo)
{
    tlsneg_event ev = {
        pinfo->num,
        (guint64)pinfo->abs_ts.secs * 1000000u + (guint64)pinfo->abs_ts.nsecs / 1000u,
        {(const guint8 *)pinfo->src.data, (size_t)pinfo->src.len, (guint16)pinfo->srcport},
        {(const guint8 *)pinfo->dst.data, (size_t)pinfo->dst.len, (guint16)pinfo->destport},
        TLSNEG_SENDER_UNKNOWN}; /* the session layer's rule: the sender of the ClientHello */
    return ev;
}

/* analyse_message returns FALSE when the message is not complete here. */
static gboolean analyse_message(msg_result *r, wire_place *place, const found_msg *m,
                                packet_info *pinfo, gboolean quic, tlsneg_result *x)
{
    tlsneg_event ev = event_of(pinfo);
    if (m->is_alert) {
        tlsneg_conn *c = connection(pinfo);
        /* Used while the connection has shown no ClientHello. */
        ev.sender = tlsneg_tree_tcp_sender(pinfo);
        tlsneg_session_alert(session, c, &ev, (guint8)tlsneg_fi_uint(m->anchor), x);
        tlsneg_cache_keep_result(r, x, c);
        return TRUE;
    }
    tlsneg_message msg;
    if (!tlsneg_tree_frame_message(m, quic && !m->has_record, &msg)) {
        return FALSE;
    }
    tlsneg_conn *c = connection(pinfo);
    tlsneg_session_message(session, c, &ev, &msg, m->has_record, m->record_version, x);
    tlsneg_cache_keep_result(r, x, c);
    *place = tlsneg_tree_place_of(pinfo, m, &msg);
    return TRUE;
}

/* track_close tells the session layer about a TCP RST or FIN in a
 * connection that has shown a hello or alert; res keeps it if it ended an
 * attempt. */
static frame_result *track_close(guint32 flags, packet_info *pinfo, frame_result *res)
{
    if (!(flags & 0x005)) { /* FIN 0x001, RST 0x004 */
        return res;
    }
    tlsneg_conn *c = existing_connection(pinfo);
    if (!c) {
        return res;
    }
    tlsneg_event ev = event_of(pinfo);
    tlsneg_close_result x;
    tlsneg_session_close(session, c, &ev, (flags & 0x004) != 0, &x);
    if (x.ended_attempt_frame) {
        if (!res) {
            res = tlsneg_cache_new_frame(0);
        }
        res->close = x.cause;
        res->close_attempt_frame = x.ended_attempt_frame;
        res->close_from_client = x.from_client;
        res->close_sni = tlsneg_cache_sni(c, x.has_sni, x.sni);
        tlsneg_cache_keep_back_note(&x.note);
    }
    return res;
}

/* track_progress tells the session layer that a side of a connection sent
 * a ChangeCipherSpec or an encrypted record: a handshake whose ServerHello
 * the capture misses is no failure. */
static void track_progress(proto_tree *tree, packet_info *pinfo, guint layers)
{
    if (!tlsneg_session_tracker(session) || !(layers & LAYER_TLS) ||
        !tlsneg_tree_has_progress_record(tree)) {
        return;
    }
    tlsneg_conn *c = existing_connection(pinfo);
    if (c) {
        tlsneg_event ev = event_of(pinfo);
        tlsneg_session_progress(session, c, &ev);
    }
}

static frame_result *analyse_frame(proto_tree *tree, packet_info *pinfo)
{
    frame_result *res = NULL;
    guint layers = tlsneg_tree_layers(pinfo);
    gboolean syn = FALSE;
    guint32 flags = 0;
    /* The tracker alone needs the TCP flags. */
    if (tlsneg_session_tracker(session) && pinfo->ptype == PT_TCP) {
        flags = tlsneg_tree_tcp_flags(tree, &syn);
    }
    if (syn) { /* TCP may start a new conversation here */
        last_conn.valid = FALSE;
    }
    if (tlsneg_tree_has_anchor(tree, layers)) {
        wmem_array_t *found = wmem_array_new(pinfo->pool, sizeof(found_msg));
        tlsneg_tree_find(tree, found);
        guint n = wmem_array_get_count(found);
        gboolean quic = (layers & LAYER_QUIC) != 0;
        /* Large: one per frame, from the packet scope, not the stack. */
        tlsneg_result *x = n ? wmem_new(pinfo->pool, tlsneg_result) : NULL;
        if (n) {
            res = tlsneg_cache_new_frame(n);
        }
        for (guint i = 0; i < n; i++) {
            const found_msg *m = (const found_msg *)wmem_array_index(found, i);
            if (analyse_message(&res->msgs[res->num_msgs], &res->places[res->num_msgs], m, pinfo,
                                quic, x)) {
                res->num_msgs++;
            }
        }
    }
    if (res && !res->num_msgs) {
        res = NULL;
    }
    track_progress(tree, pinfo, layers);
    return track_close(flags, pinfo, res);
}

static proto_item *add_generated_uint(proto_tree *tree, int hf, guint32 v)
{
    proto_item *it = proto_tree_add_uint(tree, hf, NULL, 0, 0, v);
    proto_item_set_generated(it);
    return it;
}

/* add_version adds a version field. BASE_CUSTOM names a value without its
 * message, so a DTLS 1.3 draft (0x7fxx in a DTLS hello) gets its DTLS name
 * here; the filter value is the wire value either way. */
static proto_item *add_version(proto_tree *tree, int hf, guint16 v, gboolean dtls)
{
    char name[TLSNEG_VERSION_NAME_MAX];
    if (!dtls || (v >> 8) != 0x7f) {
        return add_generated_uint(tree, hf, v);
    }
    proto_item *it =
        proto_tree_add_uint_format_value(tree, hf, NULL, 0, 0, v, "%s (0x%04x)",
                                         tlsneg_version_name_in(v, TRUE, name, sizeof name), v);
    proto_item_set_generated(it);
    return it;
}

static proto_item *add_generated_bool(proto_tree *tree, int hf, gboolean v)
{
    proto_item *it = proto_tree_add_boolean(tree, hf, NULL, 0, 0, v ? 1u : 0u);
    proto_item_set_generated(it);
    return it;
}

static proto_item *add_generated_string(proto_tree *tree, int hf, const char *s)
{
    proto_item *it = proto_tree_add_string(tree, hf, NULL, 0, 0, s);
    proto_item_set_generated(it);
    return it;
}

static gboolean shown(proto_tree *tree, int hf);

/* The bytes a hello's wire items are tied to on this pass: the data source
 * found again by its number (wire_place), if it still has the same length. */
typedef struct {
    tvbuff_t *tvb; /* NULL: the items stay generated */
    guint start;
} wire_bytes;

static wire_bytes wire_bytes_of(const packet_info *pinfo, const wire_place *w)
{
    wire_bytes b = {NULL, w->start};
    GSList *l = w->ds >= 0 ? g_slist_nth(pinfo->data_src, (guint)w->ds) : NULL;
    tvbuff_t *tvb = l ? get_data_source_tvb((const struct data_source *)l->data) : NULL;
    if (tvb && tvb_captured_length(tvb) == w->ds_len) {
        b.tvb = tvb;
    }
    return b;
}

/* wire_pos returns where at sits in b's data source, or -1 if it is not
 * there. */
static gint wire_pos(const wire_bytes *b, tlsneg_span at)
{
    guint64 pos = (guint64)b->start + at.offset;
    if (!b->tvb || at.len == 0 || pos + at.len > tvb_captured_length(b->tvb)) {
        return -1;
    }
    return (gint)pos;
}

/* wire_holds tells whether at holds v (big-endian, at.len bytes): an item
 * is tied to bytes only when they say what the item says. */
static gboolean wire_holds(const wire_bytes *b, tlsneg_span at, guint32 v)
{
    gint pos = wire_pos(b, at);
    if (pos < 0 || at.len > 4) {
        return FALSE;
    }
    guint32 got = 0;
    for (guint i = 0; i < at.len; i++) {
        got = got << 8 | tlsneg_tvb_get_uint8(b->tvb, pos + (gint)i);
    }
    return got == v;
}

/* add_wire_uint adds v tied to its bytes at, or generated if they are not
 * in this pass's data source. */
static proto_item *add_wire_uint(proto_tree *tree, int hf, const wire_bytes *b, tlsneg_span at,
                                 guint32 v)
{
    if (!wire_holds(b, at, v)) {
        return add_generated_uint(tree, hf, v);
    }
    return proto_tree_add_uint(tree, hf, b->tvb, wire_pos(b, at), (gint)at.len, v);
}

/* add_wire_version adds a version read from the wire as add_wire_uint
 * does; a DTLS 1.3 draft (0x7fxx in a DTLS hello) gets its DTLS name, which
 * the field's name function, blind to the hello, cannot give. */
static proto_item *add_wire_version(proto_tree *tree, int hf, const wire_bytes *b, tlsneg_span at,
                                    guint16 v, gboolean dtls)
{
    if (!dtls || (v >> 8) != 0x7f) {
        return add_wire_uint(tree, hf, b, at, v);
    }
    char name[TLSNEG_VERSION_NAME_MAX];
    gboolean tied = wire_holds(b, at, v);
    proto_item *it = proto_tree_add_uint_format_value(
        tree, hf, tied ? b->tvb : NULL, tied ? wire_pos(b, at) : 0, tied ? (gint)at.len : 0, v,
        "%s (0x%04x)", tlsneg_version_name_in(v, TRUE, name, sizeof name), v);
    if (!tied) {
        proto_item_set_generated(it);
    }
    return it;
}

/* Width of the lines a finding's sentence is wrapped to in the tree. */
#define WRAP_WIDTH 100

/* add_wrapped adds text under tree as lines of at most WRAP_WIDTH
 * characters, broken at spaces (a longer word gets a line of its own). */
static void add_wrapped(proto_tree *tree, packet_info *pinfo, const char *text)
{
    /* Text items need a tvb even when they cover no bytes: the frame's. */
    tvbuff_t *tvb = pinfo->data_src
                        ? get_data_source_tvb((const struct data_source *)pinfo->data_src->data)
                        : NULL;
    const char *p = text;
    if (!tvb) {
        return;
    }
    while (*p) {
        size_t left = strlen(p), n = left;
        if (left > WRAP_WIDTH) {
            n = WRAP_WIDTH;
            while (n > 0 && p[n] != ' ') {
                n--;
            }
            if (n == 0) { /* one long word */
                n = strcspn(p, " ");
            }
        }
        proto_tree_add_subtree_format(tree, tvb, 0, 0, ett_finding, NULL, "%.*s", (int)n, p);
        p += n;
        while (*p == ' ') {
            p++;
        }
    }
}

/* render_finding adds a tlsneg.finding carrying its expert info, so that a
 * click on the expert lands on the rule. The item itself stays short (the
 * rule name); its expert info carries the whole sentence, which the details
 * pane cuts off at its width, so the sentence is also shown below it,
 * wrapped. */
static void render_finding(proto_tree *tree, packet_info *pinfo, tlsneg_rule_id id,
                           const char *detail)
{
    const tlsneg_rule *rule = &tlsneg_rules[id];
    proto_item *it = add_generated_string(tree, hf_finding, rule->finding);
    expert_add_info_format(pinfo, it, &ei_rules[id], "%s [%s]", detail, rule->rfc);
    if (shown(tree, hf_finding)) {
        char *sentence = wmem_strdup_printf(pinfo->pool, "%s [%s]", detail, rule->rfc);
        add_wrapped(proto_item_add_subtree(it, ett_finding), pinfo, sentence);
    }
}

static void render_findings(proto_tree *tree, packet_info *pinfo, const msg_result *r)
{
    for (guint i = 0; i < r->num_findings; i++) {
        render_finding(tree, pinfo, r->findings[i].rule, r->findings[i].detail);
    }
    if (r->findings_dropped) {
        proto_item *it = add_generated_uint(tree, hf_findings_dropped, r->findings_dropped);
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

static void render_link(proto_tree *tree, const tlsneg_link *l)
{
    if (l->role < TLSNEG_LINK_ROLES && link_hf[l->role]) {
        add_generated_uint(tree, *link_hf[l->role], l->frame);
    }
}

static void render_text(proto_tree *tree, guint8 role, const char *text)
{
    if (role < TLSNEG_TEXT_ROLES && text_hf[role]) {
        add_generated_string(tree, *text_hf[role], text);
    }
}

/* render_verdicts shows the verdicts across connections about this
 * message: each under its own item if it has one, its evidence by role. */
static void render_verdicts(proto_tree *tree, const msg_result *r)
{
    for (guint i = 0; i < r->num_verdicts; i++) {
        const kept_verdict *v = &r->verdicts[i];
        proto_tree *vt = tree;
        if (v->kind < TLSNEG_VERDICT_KINDS && verdict_hf[v->kind]) {
            proto_item *vi = add_generated_bool(tree, *verdict_hf[v->kind], TRUE);
            vt = proto_item_add_subtree(vi, ett_fallback);
        }
        for (guint k = 0; k < v->num_links; k++) {
            render_link(vt, &v->link[k]);
        }
        for (guint k = 0; k < v->num_versions; k++) {
            guint8 role = v->version[k].role;
            if (role < TLSNEG_VERSION_ROLES && version_hf[role]) {
                add_generated_uint(vt, *version_hf[role], v->version[k].version);
            }
        }
        for (guint k = 0; k < v->num_texts; k++) {
            render_text(vt, v->text[k].role, v->text[k].text);
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
        render_link(tree, &n->link);
        if (n->has_text) {
            render_text(tree, n->text_role, n->text);
        }
        if (n->has_finding) {
            render_finding(tree, pinfo, n->rule, n->detail);
        }
    }
}

/* Text that nobody sees is not formatted: in `tshark -r FILE` the tree is
 * hidden and no tlsneg field is asked for, and the summary sentence would be
 * most of tlsneg's cost there. A visible tree, a filter or column on a
 * tlsneg field, or -T fields marks the fields as referenced. The items
 * themselves and the expert infos are always added: they cost little in a
 * hidden tree, and -z expert and the taps need them. */
static gboolean shown(proto_tree *tree, int hf)
{
    return proto_field_is_referenced(tree, hf);
}

static void render_alert(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const msg_result *r)
{
    char summary[256];
    proto_item *ti = proto_tree_add_item(tree, proto_tlsneg, tvb, 0, 0, ENC_NA);
    if (shown(tree, proto_tlsneg)) {
        const char *name = tlsneg_alert_name(r->alert_description);
        proto_item_append_text(ti, ": Alert %s", name ? name : "unknown");
        const kept_verdict *aborted =
            tlsneg_kept_find(r->verdicts, r->num_verdicts, TLSNEG_VERDICT_CLIENT_ABORT);
        if (aborted) {
            proto_item_append_text(ti, ", %s", aborted->note);
        }
    }
    proto_tree *st = proto_item_add_subtree(ti, ett_tlsneg);
    if (shown(tree, hf_summary)) {
        add_generated_string(st, hf_summary,
                             tlsneg_alert_summary(r->alert_description, r->alert_from_server,
                                                  r->client_hello_frame != 0, summary,
                                                  sizeof summary));
    }
    add_generated_uint(st, hf_alert, r->alert_description);
    if (r->client_hello_frame) {
        add_generated_uint(st, hf_client_hello_frame, r->client_hello_frame);
    }
    render_verdicts(st, r);
    render_findings(st, pinfo, r);
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
    gint pos = wire_pos(b, f->sentinel_at);
    gboolean holds = pos >= 0 && f->sentinel_at.len == 8 &&
                     (f->sentinel == TLSNEG_SENTINEL_JDK11
                          ? tlsneg_tvb_get_uint8(b->tvb, pos) == 0xed
                          : tvb_memeql(b->tvb, pos, downgrd, sizeof downgrd) == 0 &&
                                tlsneg_tvb_get_uint8(b->tvb, pos + 7) == f->sentinel);
    if (holds) {
        proto_tree_add_uint(tree, hf_downgrade_sentinel, b->tvb, pos, 8, f->sentinel);
    } else {
        add_generated_uint(tree, hf_downgrade_sentinel, f->sentinel);
    }
}

/* render_sni ties tlsneg.sni to the host_name bytes when they read as the
 * shown name (not when bytes had to be escaped or the name was cut). */
static void render_sni(proto_tree *tree, const wire_bytes *b, const tlsneg_facts *f)
{
    gint pos = wire_pos(b, f->sni_at);
    if (pos >= 0 && strlen(f->sni) == f->sni_at.len &&
        tvb_memeql(b->tvb, pos, (const guint8 *)f->sni, f->sni_at.len) == 0) {
        proto_tree_add_string(tree, hf_sni, b->tvb, pos, (gint)f->sni_at.len, f->sni);
    } else {
        add_generated_string(tree, hf_sni, f->sni);
    }
}

/* render_scsv: TLS_FALLBACK_SCSV offered is tied to the cipher suite (or
 * SSLv2 cipher spec) that says so; its absence is derived. */
static void render_scsv(proto_tree *tree, const wire_bytes *b, const tlsneg_facts *f)
{
    guint32 scsv = f->fallback_scsv_at.len == 3 ? 0x005600u : TLSNEG_CS_FALLBACK_SCSV;
    if (f->fallback_scsv && wire_holds(b, f->fallback_scsv_at, scsv)) {
        proto_tree_add_boolean(tree, hf_fallback_scsv, b->tvb, wire_pos(b, f->fallback_scsv_at),
                               (gint)f->fallback_scsv_at.len, 1u);
    } else {
        add_generated_bool(tree, hf_fallback_scsv, f->fallback_scsv);
    }
}

/* render_grease: one line per GREASE value, tied to its bytes, saying where
 * it sits; tlsneg.grease_family rides along as a hidden item on the same
 * bytes (for filters and columns). */
static void render_grease(proto_tree *tree, tvbuff_t *tvb, const wire_bytes *b,
                          const tlsneg_facts *f)
{
    proto_item *gi = add_generated_uint(tree, hf_grease_count, f->grease_count);
    if (!f->num_grease) {
        return;
    }
    proto_tree *gt = proto_item_add_subtree(gi, ett_grease);
    for (guint i = 0; i < f->num_grease; i++) {
        const tlsneg_grease *g = &f->grease[i];
        const char *family = tlsneg_grease_family_name((tlsneg_grease_family)g->family);
        proto_item *vi = add_wire_uint(gt, hf_grease_value, b, g->at, g->value);
        proto_item_append_text(vi, " (%s)", family);
        proto_item *fi;
        if (wire_holds(b, g->at, g->value)) {
            fi = proto_tree_add_string(gt, hf_grease_family, b->tvb, wire_pos(b, g->at),
                                       (gint)g->at.len, family);
        } else {
            fi = add_generated_string(gt, hf_grease_family, family);
        }
        proto_item_set_hidden(fi);
    }
    if (f->grease_count > f->num_grease) {
        proto_tree_add_subtree_format(gt, tvb, 0, 0, ett_grease, NULL, "... %u more",
                                      f->grease_count - f->num_grease);
    }
}

static void render_hello(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const msg_result *r,
                         const wire_place *place)
{
    const tlsneg_facts *f = &r->facts;
    gboolean dtls = tlsneg_facts_is_dtls(f);
    char summary[512];
    wire_bytes b = wire_bytes_of(pinfo, place);

    proto_item *ti = proto_tree_add_item(tree, proto_tlsneg, tvb, 0, 0, ENC_NA);
    if (shown(tree, proto_tlsneg)) {
        title_hello(ti, pinfo, r);
    }
    proto_tree *st = proto_item_add_subtree(ti, ett_tlsneg);
    if (shown(tree, hf_summary)) {
        add_generated_string(st, hf_summary, tlsneg_facts_summary(f, summary, sizeof summary));
    }
    if (r->retransmission_of) {
        add_generated_uint(st, hf_retransmission_of, r->retransmission_of);
    }
    add_generated_uint(st, hf_msg_type, f->msg_type);
    if (f->msg_type == TLSNEG_HS_SERVER_HELLO) {
        add_generated_bool(st, hf_hrr, f->is_hrr);
    }
    if (f->has_record_version) {
        /* Its record header, when it is in the message's data source. */
        wire_bytes rb = {place->has_record_at ? b.tvb : NULL, 0};
        tlsneg_span at = {place->record_at, 2};
        add_wire_version(st, hf_record_version, &rb, at, f->record_version, dtls);
    }
    add_wire_version(st, hf_legacy_version, &b, f->legacy_version_at, f->legacy_version, dtls);
    /* A list of up to 127 versions: the first ones, then how many more. */
    for (guint i = 0; i < MIN(f->num_offered, MAX_LISTED); i++) {
        tlsneg_span none = {0, 0};
        add_wire_version(st, hf_offered_version, &b, i < TLSNEG_MAX_SPANS ? f->offered_at[i] : none,
                         f->offered[i], dtls);
    }
    if (f->num_offered > MAX_LISTED) {
        proto_tree_add_subtree_format(st, tvb, 0, 0, ett_tlsneg, NULL,
                                      "... %u more offered versions", f->num_offered - MAX_LISTED);
    }
    if (f->has_offered_max) {
        add_version(st, hf_offered_max, f->offered_max, dtls);
    }
    if (f->has_selected) {
        add_wire_version(st, hf_selected_version, &b, f->selected_version_at, f->selected_version,
                         dtls);
    }
    if (f->has_negotiated) {
        add_version(st, hf_negotiated_version, f->negotiated_version, dtls);
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
    render_grease(st, tvb, &b, f);
    render_verdicts(st, r);
    render_back_note(st, pinfo, r);
    render_findings(st, pinfo, r);
}

/* info_notes tells the story in the packet list: one [note] per verdict
 * across connections (the words of tlsneg_verdict_tag), and [DOWNGRD] on a
 * ServerHello with a downgrade sentinel. */
static void info_notes(packet_info *pinfo, const msg_result *r)
{
    for (guint i = 0; i < r->num_verdicts; i++) {
        col_append_sep_fstr(pinfo->cinfo, COL_INFO, " ", "[%s]", r->verdicts[i].note);
    }
    if (!r->is_alert && !r->retransmission_of && r->facts.has_sentinel) {
        col_append_sep_str(pinfo->cinfo, COL_INFO, " ", "[DOWNGRD]");
    }
}

static int dissect_tlsneg(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    frame_result *res;
#ifdef TLSNEG_BENCH_EMPTY
    /* bench/: the same wanted fields and tap, no work of tlsneg's own. */
    return 0;
#endif
    if (!PINFO_FD_VISITED(pinfo)) {
        res = tree ? analyse_frame(tree, pinfo) : NULL;
        if (res) {
            tlsneg_cache_put(pinfo, res);
        }
    } else {
        res = tlsneg_cache_get(pinfo);
    }
    if (!res) {
        return 0;
    }
    for (guint i = 0; i < res->num_msgs; i++) {
        if (res->msgs[i].is_alert) {
            render_alert(tree, tvb, pinfo, &res->msgs[i]);
        } else {
            render_hello(tree, tvb, pinfo, &res->msgs[i], &res->places[i]);
        }
        if (tlsneg_prefs.info_notes) {
            info_notes(pinfo, &res->msgs[i]);
        }
    }
    tap_queue_packet(tlsneg_tap, pinfo, res);
    return res->num_msgs ? (int)tvb_captured_length(tvb) : 0;
}

/* tshark -q and -w skip dissection unless a tap listener needs it. */
static tap_packet_status tlsneg_tap_packet(void *tapdata _U_, packet_info *pinfo _U_,
                                           epan_dissect_t *edt _U_, const void *data _U_,
                                           tap_flags_t flags _U_)
{
    return TAP_PACKET_DONT_REDRAW;
}

static void session_init(void)
{
    tlsneg_tracker_config cfg = {tlsneg_prefs.max_attempts,
                                 (guint64)tlsneg_prefs.window_s * 1000000u, tlsneg_prefs.key_sni,
                                 !tlsneg_prefs.probes};
    session = tlsneg_session_new(&cfg);
    last_conn.valid = FALSE;
}

static void session_cleanup(void)
{
    tlsneg_session_free(session);
    session = NULL;
    last_conn.valid = FALSE;
}

void proto_register_tlsneg(void)
{
    tlsneg_fields_register();
    tlsneg_tap = register_tap("tlsneg");
    tlsneg_register_ladder_menu();
    register_init_routine(session_init);
    register_cleanup_routine(session_cleanup);
    tlsneg_cache_register();
}

void proto_reg_handoff_tlsneg(void)
{
    tlsneg_handle = create_dissector_handle(dissect_tlsneg, proto_tlsneg);
    register_postdissector(tlsneg_handle);
    tlsneg_tree_watch(tlsneg_handle);

    GString *err = register_tap_listener("frame", &proto_tlsneg, NULL, TL_REQUIRES_NOTHING, NULL,
                                         tlsneg_tap_packet, NULL, NULL);
    if (err) {
        g_string_free(err, TRUE);
    }
}
