/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-analyse.c: the first pass. Each hello and alert found in a
 * frame's tree goes to the session layer with the state of its
 * conversation; TCP resets and closes and the records that show a handshake
 * went on go there too, as the tracker across connections needs them. What
 * the session layer says is kept per frame (tlsneg-cache.c). */
#include <string.h>

#include <epan/conversation.h>
#include <epan/packet.h>
#include <epan/wmem_scopes.h>

#include "tlsneg-analyse.h"
#include "tlsneg-cache.h"
#include "tlsneg-fields.h"
#include "tlsneg-tree.h"
#include "ws-compat.h"

#include "analysis/session.h"

/* Across connections: reset with every capture file. */
static tlsneg_session *session;

/* The connection of the last TCP frame whose conversation was looked up:
 * find_conversation costs about 1,100 instructions, and the next lookups
 * (ServerHello, ChangeCipherSpec, encrypted records, FIN) are mostly for
 * the same connection. Only a SYN makes TCP start a new conversation on the
 * same addresses and ports (port reuse), so any SYN forgets it; kept only
 * while the tracker runs, since only then are every TCP frame's flags
 * read. It saves about 7,100 instructions per connection
 * (bench/README.md, "What made it cheaper"). */
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
    conversation_t *conv; /* c's conversation */
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

static gboolean cache_hit(const packet_info *pinfo)
{
    return last_conn.valid && conn_cacheable(pinfo) &&
           ((end_is(&last_conn.a, &pinfo->src, pinfo->srcport) &&
             end_is(&last_conn.b, &pinfo->dst, pinfo->destport)) ||
            (end_is(&last_conn.a, &pinfo->dst, pinfo->destport) &&
             end_is(&last_conn.b, &pinfo->src, pinfo->srcport)));
}

static tlsneg_conn *cached_conn(const packet_info *pinfo)
{
    return cache_hit(pinfo) ? last_conn.c : NULL;
}

/* cached_conversation: this frame's conversation when the cache holds it,
 * else NULL (the tree's TCP questions then look it up themselves). */
static conversation_t *cached_conversation(const packet_info *pinfo)
{
    return cache_hit(pinfo) ? last_conn.conv : NULL;
}

static void set_end(conn_end *e, const address *addr, guint32 port)
{
    e->type = addr->type;
    e->len = (guint)addr->len;
    memcpy(e->addr, addr->data, e->len);
    e->port = port;
}

static void remember_conn(const packet_info *pinfo, tlsneg_conn *c, conversation_t *conv)
{
    if (!c || !conn_cacheable(pinfo)) {
        return;
    }
    set_end(&last_conn.a, &pinfo->src, pinfo->srcport);
    set_end(&last_conn.b, &pinfo->dst, pinfo->destport);
    last_conn.c = c;
    last_conn.conv = conv;
    last_conn.valid = TRUE;
}

/* A client's TCP FIN or RST on a conversation tlsneg keeps no state for
 * yet (no hello or alert there so far): its frame, time and kind, by
 * conversation, told to the session layer once the conversation's state is
 * made, so that a server's alert there says it came after the client's
 * close (as tlsneg-pcap, which sees every FIN, says). Reset with every
 * capture file. */
typedef struct {
    guint64 time_us;
    guint32 frame;
    gboolean reset;
} client_close;

static wmem_map_t *client_closes;

static void keep_client_close(const conversation_t *conv, const tlsneg_event *ev, gboolean reset)
{
    gpointer key = GUINT_TO_POINTER(conv->conv_index);
    if (!client_closes || wmem_map_contains(client_closes, key)) {
        return; /* the first one is the client's close */
    }
    client_close *cc = wmem_new(wmem_file_scope(), client_close);
    cc->time_us = ev->time_us;
    cc->frame = ev->frame;
    cc->reset = reset;
    wmem_map_insert(client_closes, key, cc);
}

/* tell_client_close tells the session layer about the client's close kept
 * for conv, whose state c has just been made. */
static void tell_client_close(const conversation_t *conv, tlsneg_conn *c)
{
    const client_close *cc = client_closes ? (const client_close *)wmem_map_lookup(
                                                 client_closes, GUINT_TO_POINTER(conv->conv_index))
                                           : NULL;
    if (cc) {
        tlsneg_event ev = {cc->frame,    cc->time_us,          {NULL, 0, 0},
                           {NULL, 0, 0}, TLSNEG_SENDER_CLIENT, 0};
        tlsneg_close_result x; /* ends no attempt: c has none yet */
        tlsneg_session_close(session, c, &ev, cc->reset, &x);
    }
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
        tell_client_close(conv, c);
    }
    remember_conn(pinfo, c, conv);
    return c;
}

/* existing_connection returns the session layer's state of this frame's
 * conversation, or NULL if it has none; *conv, the conversation (NULL if
 * none). */
static tlsneg_conn *existing_connection(packet_info *pinfo, conversation_t **conv)
{
    if (cache_hit(pinfo)) {
        *conv = last_conn.conv;
        return last_conn.c;
    }
    *conv = find_conversation_pinfo(pinfo, 0);
    tlsneg_conn *c = *conv ? (tlsneg_conn *)conversation_get_proto_data(*conv, proto_tlsneg) : NULL;
    remember_conn(pinfo, c, *conv);
    return c;
}

static tlsneg_event event_of(const packet_info *pinfo)
{
    tlsneg_event ev = {
        pinfo->num,
        (guint64)pinfo->abs_ts.secs * 1000000u + (guint64)pinfo->abs_ts.nsecs / 1000u,
        {(const guint8 *)pinfo->src.data, (size_t)pinfo->src.len, (guint16)pinfo->srcport},
        {(const guint8 *)pinfo->dst.data, (size_t)pinfo->dst.len, (guint16)pinfo->destport},
        TLSNEG_SENDER_UNKNOWN, /* the session layer's rule: the sender of the ClientHello */
        0};                    /* opened_us: asked for hellos only (analyse_message) */
    return ev;
}

/* analyse_message returns FALSE when the message is not complete here. */
static gboolean analyse_message(msg_result *r, wire_place *place, proto_tree *tree,
                                const found_msg *m, packet_info *pinfo, gboolean quic,
                                tlsneg_result *x)
{
    tlsneg_event ev = event_of(pinfo);
    if (m->is_alert) {
        tlsneg_conn *c = connection(pinfo);
        /* Used while the connection has shown no ClientHello. */
        ev.sender = tlsneg_tree_tcp_sender(pinfo, cached_conversation(pinfo));
        /* Found in a TLS or DTLS record, or a QUIC CONNECTION_CLOSE's
         * crypto error, which carries no level (tlsneg_tree_find). */
        tlsneg_wire wire = m->quic_close ? TLSNEG_WIRE_QUIC
                           : m->dtls     ? TLSNEG_WIRE_DTLS
                                         : TLSNEG_WIRE_TLS;
        tlsneg_session_alert(session, c, &ev, wire, m->alert_level, m->alert_description, x);
        tlsneg_cache_keep_result(r, x, c);
        return TRUE;
    }
    tlsneg_message msg;
    if (!tlsneg_tree_frame_message(m, quic && !m->has_record, &msg)) {
        return FALSE;
    }
    tlsneg_tree_segments(tree, pinfo, m, &msg);
    tlsneg_conn *c = connection(pinfo);
    ev.opened_us = tlsneg_tree_tcp_opened_us(pinfo, cached_conversation(pinfo));
    tlsneg_session_message(session, c, &ev, &msg, m->has_record, m->record_version, x);
    tlsneg_cache_keep_result(r, x, c);
    *place = tlsneg_tree_place_of(pinfo, m, &msg);
    return TRUE;
}

/* track_close tells the session layer about a TCP RST or FIN in a
 * connection that has shown a hello or alert, or, from the server, in one
 * where TLS has begun (a ClientHello may be in flight: the session layer
 * holds the ending for it); from the client in any other, it is kept until
 * the connection shows one (keep_client_close); res keeps it if it ended
 * an attempt. */
static frame_result *track_close(guint32 flags, packet_info *pinfo, frame_result *res)
{
    if (!(flags & 0x005)) { /* FIN 0x001, RST 0x004 */
        return res;
    }
    conversation_t *conv;
    tlsneg_conn *c = existing_connection(pinfo, &conv);
    if (!conv) {
        return res; /* no conversation: nothing began here */
    }
    tlsneg_event ev = event_of(pinfo);
    if (!c || !c->has_client_hello) {
        /* Used while the connection has shown no ClientHello. */
        ev.sender = tlsneg_tree_tcp_sender(pinfo, conv);
    }
    if (!c) {
        if (ev.sender == TLSNEG_SENDER_CLIENT) {
            keep_client_close(conv, &ev, (flags & 0x004) != 0);
            return res;
        }
        if (ev.sender != TLSNEG_SENDER_SERVER || !tlsneg_tree_tls_begun(conv)) {
            return res;
        }
        c = connection(pinfo);
    }
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
    conversation_t *conv;
    tlsneg_conn *c = existing_connection(pinfo, &conv);
    if (c) {
        tlsneg_event ev = event_of(pinfo);
        tlsneg_session_progress(session, c, &ev);
    }
}

/* analyse_messages analyses the hellos and alerts in this frame's tree.
 * Nothing is kept for a frame with none complete in it. */
static frame_result *analyse_messages(proto_tree *tree, packet_info *pinfo, guint layers)
{
    wmem_array_t *found = wmem_array_new(pinfo->pool, sizeof(found_msg));
    tlsneg_tree_find(tree, found);
    guint n = wmem_array_get_count(found);
    if (!n) {
        return NULL;
    }
    gboolean quic = (layers & LAYER_QUIC) != 0;
    /* Large: one per frame, from the packet scope, not the stack. */
    tlsneg_result *x = wmem_new(pinfo->pool, tlsneg_result);
    frame_result *res = tlsneg_cache_new_frame(n);
    for (guint i = 0; i < n; i++) {
        const found_msg *m = (const found_msg *)wmem_array_index(found, i);
        if (analyse_message(&res->msgs[res->num_msgs], &res->places[res->num_msgs], tree, m, pinfo,
                            quic, x)) {
            res->num_msgs++;
        }
    }
    return res->num_msgs ? res : NULL;
}

frame_result *tlsneg_analyse_frame(proto_tree *tree, packet_info *pinfo)
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
    if (layers & LAYER_QUIC) {
        tlsneg_tree_quic_datagrams(tree, pinfo);
    } else if (layers & LAYER_TLS) {
        tlsneg_tree_tcp_records(tree, pinfo);
    }
    if (tlsneg_tree_has_anchor(tree, layers)) {
        res = analyse_messages(tree, pinfo, layers);
    }
    track_progress(tree, pinfo, layers);
    return track_close(flags, pinfo, res);
}

void tlsneg_analyse_init(void)
{
    /* The tree and the expert infos say the sentences (no_details false). */
    tlsneg_tracker_config cfg = {.max_attempts = tlsneg_prefs.max_attempts,
                                 .window_us = (guint64)tlsneg_prefs.window_s * 1000000u,
                                 .key_includes_sni = tlsneg_prefs.key_sni,
                                 .no_probes = !tlsneg_prefs.probes,
                                 .no_details = FALSE};
    session = tlsneg_session_new(&cfg);
    last_conn.valid = FALSE;
    if (!client_closes) {
        client_closes = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_direct_hash,
                                               g_direct_equal);
    }
}

void tlsneg_analyse_cleanup(void)
{
    tlsneg_session_free(session);
    session = NULL;
    last_conn.valid = FALSE;
}
