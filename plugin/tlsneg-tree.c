/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-tree.c: the first pass's view of the tree the TLS, DTLS, QUIC and
 * TCP dissectors built. The fields tlsneg reads are wanted from every
 * dissection (set_postdissector_wanted_hfids) and indexed by what they mean
 * to the walk; the walk finds each plaintext hello and alert with the record
 * around it, and hands the core the bytes Wireshark reassembled. */
#include <string.h>

#include <epan/conversation.h>
#include <epan/dissectors/packet-tcp.h>
#include <epan/packet.h>
#include <epan/proto.h>

#include "core/alerts.h"
#include "tlsneg-tree.h"
#include "ws-compat.h"

/* The fields of other dissectors tlsneg reads, and what each one means to
 * the tree walk. */
typedef enum {
    ROLE_NONE,
    ROLE_TLS_RECORD_VERSION,
    ROLE_TLS_HANDSHAKE_TYPE,
    ROLE_DTLS_RECORD_VERSION,
    ROLE_DTLS_HANDSHAKE_TYPE,
    ROLE_DTLS_FRAGMENTS,
    ROLE_TLS_ALERT_DESCRIPTION,
    ROLE_DTLS_ALERT_DESCRIPTION,
    ROLE_TCP_FLAGS,
    ROLE_TCP_SEGMENT,
    ROLE_TLS_HS_FRAGMENT,
    ROLE_DTLS_FRAGMENT,
    ROLE_QUIC_CRYPTO_FRAGMENT,
    ROLE_QUIC_HEADER_FORM,
    ROLE_QUIC_PACKET_TYPE,
    ROLE_QUIC_PACKET_TYPE_V2,
    ROLE_QUIC_CC_ERROR_CODE,
    ROLE_COUNT
} field_role;

static const struct {
    const char *abbrev;
    field_role role;
} watched_fields[] = {
    {"tls.record.version", ROLE_TLS_RECORD_VERSION},
    {"tls.handshake.type", ROLE_TLS_HANDSHAKE_TYPE},
    {TLSNEG_FIELD_SSL2_HANDSHAKE_TYPE, ROLE_TLS_HANDSHAKE_TYPE},
    {"dtls.record.version", ROLE_DTLS_RECORD_VERSION},
    {"dtls.handshake.type", ROLE_DTLS_HANDSHAKE_TYPE},
    {"dtls.fragments", ROLE_DTLS_FRAGMENTS},
    {"tls.alert_message.desc", ROLE_TLS_ALERT_DESCRIPTION},
    {"dtls.alert_message.desc", ROLE_DTLS_ALERT_DESCRIPTION},
    {"tcp.flags", ROLE_TCP_FLAGS},
    /* Only in the frame that completes a reassembled PDU, one per segment
     * (docs/performance.md: wanting it costs nothing measurable). */
    {"tcp.segment", ROLE_TCP_SEGMENT},
    /* The same for a message put together from several TLS records, DTLS
     * fragments or QUIC CRYPTO frames: one item per piece, its frame as
     * value, on the reassembled bytes (hello_segments). */
    {"tls.handshake.fragment", ROLE_TLS_HS_FRAGMENT},
    {"dtls.fragment", ROLE_DTLS_FRAGMENT},
    {"quic.crypto.fragment", ROLE_QUIC_CRYPTO_FRAGMENT},
    /* Which QUIC packet a CRYPTO fragment came in: an Initial (version 1
     * and drafts: type 0; version 2: type 1) or another. */
    {"quic.header_form", ROLE_QUIC_HEADER_FORM},
    {"quic.long.packet_type", ROLE_QUIC_PACKET_TYPE},
    {"quic.long.packet_type_v2", ROLE_QUIC_PACKET_TYPE_V2},
    /* The error code of a CONNECTION_CLOSE of type 0x1c (0x1d's is
     * quic.cc.error_code.app): an item only in the frames that carry one;
     * tshark primes it before every frame, about 31 instructions
     * (docs/performance.md). */
    {"quic.cc.error_code", ROLE_QUIC_CC_ERROR_CODE},
};

/* Every hfid of every watched name (several fields can share one name),
 * and the same hfids by role. */
#define MAX_WATCHED  32
#define MAX_PER_ROLE 8
static struct {
    int hfid;
    field_role role;
} watched[MAX_WATCHED];
static guint num_watched;
static struct {
    int hfid[MAX_PER_ROLE];
    guint n;
} by_role[ROLE_COUNT];

static int proto_tls = -1, proto_dtls = -1, proto_quic = -1, proto_tcp = -1;

static field_role role_of(int hfid)
{
    for (guint i = 0; i < num_watched; i++) {
        if (watched[i].hfid == hfid) {
            return watched[i].role;
        }
    }
    return ROLE_NONE;
}

/* is_hello_type: the handshake types worth framing. In 4.0 an SSL 2.0
 * message's type is a tls.handshake.type too; type 4 is its SERVER-HELLO
 * there (a NewSessionTicket elsewhere): the core's framing keeps only the
 * hellos of each wire (tlsneg_frame_message). */
static gboolean is_hello_type(guint32 t, gboolean dtls)
{
    return t == TLSNEG_HS_CLIENT_HELLO || t == TLSNEG_HS_SERVER_HELLO ||
           (dtls && t == TLSNEG_HS_HELLO_VERIFY_REQUEST) ||
           (!dtls && t == TLSNEG_SSL2_SERVER_HELLO);
}

/* plaintext_alert: the alert whose description is fi, in the record whose
 * version is record, is a plaintext alert by the library's rule
 * (tlsneg_plaintext_alert): a record of 2 bytes, a known level and
 * description, in a plaintext epoch: read where Wireshark read the record,
 * not in bytes it decrypted, and, DTLS, in epoch 0 (the record header:
 * version, then epoch and sequence number, then the length; TLS: version,
 * length). Sets *level to its level then: the byte before the description,
 * which Wireshark shows as tls.alert_message.level (dtls.), and
 * *description. */
static gboolean plaintext_alert(field_info *fi, field_info *record, gboolean dtls, guint8 *level,
                                guint8 *description)
{
    gint length_at = dtls ? 10 : 2;
    if (!record || !fi->ds_tvb || !record->ds_tvb || fi->start < 1 ||
        tvb_captured_length_remaining(record->ds_tvb, record->start + length_at) < 2 ||
        tvb_captured_length_remaining(fi->ds_tvb, fi->start - 1) < 2) {
        return FALSE;
    }
    gboolean keys = fi->ds_tvb != record->ds_tvb ||
                    (dtls && tvb_get_ntohs(record->ds_tvb, record->start + 2) != 0);
    tlsneg_epoch e = {.from_start = TRUE, .ccs = keys};
    guint16 len = tvb_get_ntohs(record->ds_tvb, record->start + length_at);
    const guint8 *bytes = tvb_get_ptr(fi->ds_tvb, fi->start - 1, 2);
    return tlsneg_plaintext_alert(&e, bytes, len, level, description);
}

/* quic_crypto_alert: the error code fi of a CONNECTION_CLOSE of type 0x1c
 * (quic.cc.error_code; 0x1d's is quic.cc.error_code.app) is a TLS alert by
 * the library's rule (tlsneg_quic_crypto_alert: a crypto error), sets
 * *description then. Read in Initial packets only, the ones anyone can
 * decrypt (RFC 9001 5.2), as tlsneg-pcap reads them: with a key file
 * Wireshark decrypts Handshake and 1-RTT packets too, and an endpoint that
 * closes during the handshake may send the same CONNECTION_CLOSE in an
 * Initial and a Handshake packet (RFC 9000 10.2.3). */
static gboolean quic_crypto_alert(field_info *fi, gboolean initial, guint8 *description)
{
    return initial && tlsneg_quic_crypto_alert(tlsneg_fi_uint64(fi), description);
}

/* find_messages walks the tree in order. A record's version field comes
 * before the messages it carries, so the last version seen on the way down
 * belongs to the record around the message; it is passed by value so that it
 * never leaks out of that record. The QUIC packets of a datagram come one
 * after the other, each starting with its header form: *initial tells
 * whether the packet the walk is in is an Initial (as initial_fragments). */
static void find_messages(proto_node *node, wmem_array_t *found, gboolean has_record,
                          guint16 record_version, field_info *record, gboolean *initial)
{
    for (proto_node *child = node->first_child; child; child = child->next) {
        field_info *fi = PNODE_FINFO(child);
        if (fi) {
            field_role role = role_of(fi->hfinfo->id);
            switch (role) {
            case ROLE_TLS_RECORD_VERSION:
            case ROLE_DTLS_RECORD_VERSION:
                has_record = TRUE;
                record_version = (guint16)tlsneg_fi_uint(fi);
                record = fi;
                break;
            case ROLE_TLS_HANDSHAKE_TYPE:
            case ROLE_DTLS_HANDSHAKE_TYPE: {
                gboolean dtls = role == ROLE_DTLS_HANDSHAKE_TYPE;
                if (is_hello_type(tlsneg_fi_uint(fi), dtls)) {
                    found_msg m = {.anchor = fi,
                                   .dtls = dtls,
                                   .has_record = has_record,
                                   .record_version = record_version,
                                   .record = record};
                    wmem_array_append_one(found, m);
                }
                break;
            }
            case ROLE_TLS_ALERT_DESCRIPTION:
            case ROLE_DTLS_ALERT_DESCRIPTION: {
                guint8 level, description;
                gboolean dtls = role == ROLE_DTLS_ALERT_DESCRIPTION;
                if (plaintext_alert(fi, record, dtls, &level, &description)) {
                    found_msg m = {.anchor = fi,
                                   .is_alert = TRUE,
                                   .dtls = dtls,
                                   .has_record = has_record,
                                   .record_version = record_version,
                                   .record = record,
                                   .alert_level = level,
                                   .alert_description = description};
                    wmem_array_append_one(found, m);
                }
                break;
            }
            case ROLE_QUIC_CC_ERROR_CODE: {
                guint8 description;
                if (quic_crypto_alert(fi, *initial, &description)) {
                    found_msg m = {.anchor = fi,
                                   .is_alert = TRUE,
                                   .alert_level = TLSNEG_ALERT_NO_LEVEL,
                                   .alert_description = description,
                                   .quic_close = TRUE};
                    wmem_array_append_one(found, m);
                }
                break;
            }
            case ROLE_DTLS_FRAGMENTS: {
                guint n = wmem_array_get_count(found);
                found_msg *last = n ? (found_msg *)wmem_array_index(found, n - 1) : NULL;
                if (last && last->dtls && !last->fragments) {
                    last->fragments = fi;
                }
                break;
            }
            case ROLE_QUIC_HEADER_FORM:
                *initial = FALSE;
                break;
            case ROLE_QUIC_PACKET_TYPE:
                *initial = tlsneg_fi_uint(fi) == 0;
                break;
            case ROLE_QUIC_PACKET_TYPE_V2:
                *initial = tlsneg_fi_uint(fi) == 1;
                break;
            case ROLE_TCP_FLAGS:
            case ROLE_TCP_SEGMENT:
            case ROLE_TLS_HS_FRAGMENT:
            case ROLE_DTLS_FRAGMENT:
            case ROLE_QUIC_CRYPTO_FRAGMENT:
            case ROLE_NONE:
            case ROLE_COUNT:
                break;
            }
        }
        find_messages(child, found, has_record, record_version, record, initial);
    }
}

void tlsneg_tree_find(proto_tree *tree, wmem_array_t *found)
{
    gboolean initial = FALSE;
    find_messages(tree, found, FALSE, 0, NULL, &initial);
}

gboolean tlsneg_tree_frame_message(const found_msg *m, gboolean quic, tlsneg_message *out)
{
    tvbuff_t *tvb = m->anchor->ds_tvb;
    gint start = m->anchor->start;
    gint avail = tvb_captured_length_remaining(tvb, start);
    if (avail <= 0) {
        return FALSE;
    }
    /* Up to two bytes before the message: the SSLv2 record header. */
    gint pre = MIN(start, 2);
    const guint8 *p = tvb_get_ptr(tvb, start - pre, avail + pre);
    const guint8 *body = NULL;
    gint body_len = 0;
    if (m->fragments) {
        body_len = tvb_captured_length_remaining(m->fragments->ds_tvb, m->fragments->start);
        body =
            body_len > 0 ? tvb_get_ptr(m->fragments->ds_tvb, m->fragments->start, body_len) : NULL;
    }
    tlsneg_wire wire = m->dtls ? TLSNEG_WIRE_DTLS : quic ? TLSNEG_WIRE_QUIC : TLSNEG_WIRE_TLS;
    return tlsneg_frame_message(out, wire, m->has_record, m->record_version, p,
                                (size_t)(avail + pre), (size_t)pre, body,
                                body_len > 0 ? (size_t)body_len : 0);
}

static GPtrArray *watched_items(proto_tree *tree, field_role role)
{
    for (guint i = 0; i < by_role[role].n; i++) {
        GPtrArray *found = proto_get_finfo_ptr_array(tree, by_role[role].hfid[i]);
        if (found && found->len > 0) {
            return found;
        }
    }
    return NULL;
}

/* An integer walk of a few list entries. */
guint tlsneg_tree_layers(const packet_info *pinfo)
{
    guint layers = 0;
    for (wmem_list_frame_t *f = wmem_list_head(pinfo->layers); f; f = wmem_list_frame_next(f)) {
        int id = GPOINTER_TO_INT(wmem_list_frame_data(f));
        layers |= id == proto_tls    ? LAYER_TLS
                  : id == proto_dtls ? LAYER_DTLS
                  : id == proto_quic ? LAYER_QUIC
                                     : 0;
    }
    return layers;
}

/* The cheap test that spares most frames the tree walk: the wanted fields
 * are indexed by role, and only the protocols the frame holds are asked
 * (bench/README.md, "What made it cheaper": about 9,000 instructions per
 * connection). */
gboolean tlsneg_tree_has_anchor(proto_tree *tree, guint layers)
{
    return ((layers & LAYER_TLS) && (watched_items(tree, ROLE_TLS_HANDSHAKE_TYPE) ||
                                     watched_items(tree, ROLE_TLS_ALERT_DESCRIPTION))) ||
           ((layers & LAYER_DTLS) && (watched_items(tree, ROLE_DTLS_HANDSHAKE_TYPE) ||
                                      watched_items(tree, ROLE_DTLS_ALERT_DESCRIPTION))) ||
           ((layers & LAYER_QUIC) && watched_items(tree, ROLE_QUIC_CC_ERROR_CODE));
}

/* data_source_index returns the number of tvb's data source in pinfo's
 * list, or -1. */
static gint data_source_index(const packet_info *pinfo, tvbuff_t *tvb)
{
    gint i = 0;
    for (GSList *l = pinfo->data_src; l; l = l->next, i++) {
        if (get_data_source_tvb((const struct data_source *)l->data) == tvb) {
            return i;
        }
    }
    return -1;
}

/* The data source that holds the message's bytes (for a DTLS message
 * reassembled from fragments, the one that holds the reassembled body) and,
 * when the record header is in that same data source, the record
 * version. */
wire_place tlsneg_tree_place_of(const packet_info *pinfo, const found_msg *m,
                                const tlsneg_message *msg)
{
    wire_place w = {-1, 0, 0, FALSE, 0};
    const field_info *fi = msg->body_only ? m->fragments : m->anchor;
    if (!fi || !fi->ds_tvb || fi->start < 0) {
        return w;
    }
    w.ds = data_source_index(pinfo, fi->ds_tvb);
    w.ds_len = tvb_captured_length(fi->ds_tvb);
    w.start = (guint)fi->start;
    if (m->record && m->record->ds_tvb == fi->ds_tvb && m->record->start >= 0 &&
        m->record->length == 2) {
        w.has_record_at = TRUE;
        w.record_at = (guint)m->record->start;
    }
    return w;
}

/* frame_tvb returns the frame's own bytes: the first data source. */
static tvbuff_t *frame_tvb(const packet_info *pinfo)
{
    return pinfo->data_src ? get_data_source_tvb((const struct data_source *)pinfo->data_src->data)
                           : NULL;
}

/* A walk over the pieces of a reassembled message: the items of one role
 * (fragments or segments: frame numbers) that sit on ds over any byte of
 * [start, end), in the order tshark lists them. Zeroed: at the start. */
typedef struct {
    guint i, j;       /* the role's hfid, the item in its list */
    GPtrArray *items; /* that hfid's items, once looked up (j > 0) */
} piece_walk;

static field_info *next_piece(proto_tree *tree, field_role role, tvbuff_t *ds, gint start, gint end,
                              piece_walk *w)
{
    for (; w->i < by_role[role].n; w->i++, w->j = 0) {
        GPtrArray *items =
            w->j ? w->items
                 : (w->items = proto_get_finfo_ptr_array(tree, by_role[role].hfid[w->i]));
        while (items && w->j < items->len) {
            field_info *fi = (field_info *)g_ptr_array_index(items, w->j++);
            if (fi->ds_tvb == ds && fi->start < end && fi->start + fi->length > start) {
                return fi;
            }
        }
    }
    return NULL;
}

/* pieces counts the pieces of role on ds over [start, end); add_distinct
 * (when out is given) counts each one's frame into out and clears *exact
 * when it cannot. */
static guint pieces(proto_tree *tree, field_role role, tvbuff_t *ds, gint start, gint end,
                    tlsneg_segments *out, gboolean *exact)
{
    guint n = 0;
    piece_walk w = {0, 0, NULL};
    for (field_info *fi; (fi = next_piece(tree, role, ds, start, end, &w)) != NULL; n++) {
        if (out && !tlsneg_segments_add_distinct(out, tlsneg_fi_uint(fi))) {
            *exact = FALSE;
        }
    }
    return n;
}

/* The datagrams (frames) of the CRYPTO data QUIC put back in order in a
 * frame's Initial packets, kept on the first pass for every frame where it
 * did (quic.crypto.fragment), by frame number: tshark's TLS may put a hello
 * together on top of QUIC from pieces of several frames, and names only
 * each piece's frame (tls.handshake.fragment). */
static wmem_map_t *quic_initial_datagrams;

/* initial_fragments walks node in order, the QUIC packets of a datagram
 * one after the other, each starting with its header form, and counts
 * into out the frames of the CRYPTO fragments of its Initial packets. */
static void initial_fragments(proto_node *node, gboolean *initial, tlsneg_segments *out,
                              gboolean *exact)
{
    for (proto_node *child = node->first_child; child; child = child->next) {
        field_info *fi = PNODE_FINFO(child);
        if (fi) {
            switch (role_of(fi->hfinfo->id)) {
            case ROLE_QUIC_HEADER_FORM:
                *initial = FALSE;
                break;
            case ROLE_QUIC_PACKET_TYPE:
                *initial = tlsneg_fi_uint(fi) == 0;
                break;
            case ROLE_QUIC_PACKET_TYPE_V2:
                *initial = tlsneg_fi_uint(fi) == 1;
                break;
            case ROLE_QUIC_CRYPTO_FRAGMENT:
                if (*initial && !tlsneg_segments_add_distinct(out, tlsneg_fi_uint(fi))) {
                    *exact = FALSE;
                }
                break;
            default:
                break;
            }
        }
        initial_fragments(child, initial, out, exact);
    }
}

void tlsneg_tree_quic_datagrams(proto_tree *tree, const packet_info *pinfo)
{
    if (!watched_items(tree, ROLE_QUIC_CRYPTO_FRAGMENT)) {
        return;
    }
    tlsneg_segments *d = wmem_new0(wmem_file_scope(), tlsneg_segments);
    gboolean initial = FALSE, exact = TRUE;
    initial_fragments(tree, &initial, d, &exact);
    if (!exact) {
        d->count = 0; /* more than TLSNEG_MAX_SEGMENT_FRAMES: not known */
    }
    if (d->num_frames || !exact) {
        wmem_map_insert(quic_initial_datagrams, GUINT_TO_POINTER(pinfo->num), d);
    }
}

/* quic_tls_pieces counts into out the datagrams of the pieces TLS put the
 * message on ds, [start, end), together from: each piece's frame
 * (tls.handshake.fragment), and the datagrams whose CRYPTO data QUIC put
 * back in order in that frame's Initial packets. Returns how many pieces. */
static guint quic_tls_pieces(proto_tree *tree, tvbuff_t *ds, gint start, gint end,
                             tlsneg_segments *out, gboolean *exact)
{
    guint n = 0;
    piece_walk w = {0, 0, NULL};
    for (field_info *fi; (fi = next_piece(tree, ROLE_TLS_HS_FRAGMENT, ds, start, end, &w)) != NULL;
         n++) {
        guint32 frame = tlsneg_fi_uint(fi);
        const tlsneg_segments *d = (const tlsneg_segments *)wmem_map_lookup(
            quic_initial_datagrams, GUINT_TO_POINTER(frame));
        if (!tlsneg_segments_add_distinct(out, frame) || (d && !d->count)) {
            *exact = FALSE;
        }
        for (guint k = 0; d && k < d->num_frames; k++) {
            if (!tlsneg_segments_add_distinct(out, d->frames[k])) {
                *exact = FALSE;
            }
        }
    }
    return n;
}

/* The TLS records of a frame where TCP put a PDU together (tcp.segment)
 * and that holds a handshake record, the last MAX_KEPT_RECORDS of them,
 * each with its content type and the segments that hold its bytes, header
 * included; kept on the first pass by frame number: a message TLS
 * completes later from several records names only each record's frame
 * (tls.handshake.fragment). Frames of application data alone (a bulk
 * transfer's) keep nothing. */
#define MAX_KEPT_RECORDS 64
typedef struct {
    guint8 content_type;
    tlsneg_segments segs; /* count 0: not known */
} record_segs;
typedef struct {
    guint n;
    record_segs recs[];
} frame_records;
static wmem_map_t *tcp_frame_records;

/* record_segments adds to out the segments that hold the bytes of the TLS
 * record whose version is rec (its 5-byte header and its payload), in
 * stream order: this frame's when it lies in the frame's own bytes (own),
 * else the tcp.segment items over it; *type is its content type. FALSE
 * when it cannot tell. */
static gboolean record_segments(proto_tree *tree, tvbuff_t *own, guint32 frame,
                                const field_info *rec, guint8 *type, tlsneg_segments *out)
{
    if (!rec->ds_tvb || rec->start < 1 || rec->length != 2 ||
        tvb_captured_length_remaining(rec->ds_tvb, rec->start + 2) < 2) {
        return FALSE;
    }
    *type = tlsneg_tvb_get_uint8(rec->ds_tvb, rec->start - 1);
    if (rec->ds_tvb == own) {
        tlsneg_segments_add(out, frame);
        return TRUE;
    }
    gint from = rec->start - 1;
    gint to = rec->start + 4 + (gint)tvb_get_ntohs(rec->ds_tvb, rec->start + 2);
    gboolean found = FALSE;
    piece_walk w = {0, 0, NULL};
    for (field_info *fi; (fi = next_piece(tree, ROLE_TCP_SEGMENT, rec->ds_tvb, from, to, &w));) {
        tlsneg_segments_add(out, tlsneg_fi_uint(fi));
        found = TRUE;
    }
    return found;
}

void tlsneg_tree_tcp_records(proto_tree *tree, const packet_info *pinfo)
{
    if (pinfo->ptype != PT_TCP || !watched_items(tree, ROLE_TCP_SEGMENT)) {
        return;
    }
    GPtrArray *recs = watched_items(tree, ROLE_TLS_RECORD_VERSION);
    gboolean handshake = FALSE;
    for (guint i = 0; recs && i < recs->len && !handshake; i++) {
        const field_info *rec = (const field_info *)g_ptr_array_index(recs, i);
        handshake = rec->ds_tvb && rec->start >= 1 &&
                    tlsneg_tvb_get_uint8(rec->ds_tvb, rec->start - 1) == 22;
    }
    if (!handshake) {
        return;
    }
    guint n = MIN(recs->len, MAX_KEPT_RECORDS);
    frame_records *fr =
        (frame_records *)wmem_alloc0(wmem_file_scope(), sizeof *fr + n * sizeof(record_segs));
    fr->n = n;
    tvbuff_t *own = frame_tvb(pinfo);
    for (guint i = 0; i < fr->n; i++) {
        record_segs *r = &fr->recs[i];
        const field_info *rec = (const field_info *)g_ptr_array_index(recs, recs->len - fr->n + i);
        if (!record_segments(tree, own, pinfo->num, rec, &r->content_type, &r->segs)) {
            memset(&r->segs, 0, sizeof r->segs);
        }
    }
    wmem_map_insert(tcp_frame_records, GUINT_TO_POINTER(pinfo->num), fr);
}

/* add_kept adds the segments kept for one record to out, in order. */
static gboolean add_kept(const record_segs *r, tlsneg_segments *out)
{
    if (r->content_type != 22 || !r->segs.count) {
        return FALSE;
    }
    for (guint i = 0; i < r->segs.num_frames; i++) {
        tlsneg_segments_add(out, r->segs.frames[i]);
    }
    for (guint i = r->segs.num_frames; i < r->segs.count; i++) {
        tlsneg_segments_add(out, 0); /* past the frames kept: counted */
    }
    return TRUE;
}

/* records_of_run adds to out the segments of the k records that carried a
 * message's k pieces from frame (tls.handshake.fragment): in this frame,
 * the k records that end with last (the one that completes the message);
 * in an earlier frame, its last k records (the message went on past
 * them), kept by tlsneg_tree_tcp_records where TCP put a PDU together
 * there, else all in that frame's own bytes: that one segment (a frame
 * with a PDU of application data alone cannot hold a piece). Handshake
 * records only (RFC 8446 5.1: handshake messages are not interleaved with
 * other records); FALSE when it cannot tell. */
static gboolean records_of_run(proto_tree *tree, const packet_info *pinfo, const field_info *last,
                               guint32 frame, guint k, tlsneg_segments *out)
{
    if (frame != pinfo->num) {
        const frame_records *fr =
            (const frame_records *)wmem_map_lookup(tcp_frame_records, GUINT_TO_POINTER(frame));
        if (!fr) {
            tlsneg_segments_add(out, frame);
            return TRUE;
        }
        if (k > fr->n) {
            return FALSE;
        }
        for (guint i = fr->n - k; i < fr->n; i++) {
            if (!add_kept(&fr->recs[i], out)) {
                return FALSE;
            }
        }
        return TRUE;
    }
    GPtrArray *recs = last ? watched_items(tree, ROLE_TLS_RECORD_VERSION) : NULL;
    guint j = 0;
    while (recs && j < recs->len && g_ptr_array_index(recs, j) != last) {
        j++;
    }
    if (!recs || j == recs->len || j + 1 < k) {
        return FALSE;
    }
    for (guint x = j + 1 - k; x <= j; x++) {
        guint8 type = 0;
        if (!record_segments(tree, frame_tvb(pinfo), pinfo->num,
                             (const field_info *)g_ptr_array_index(recs, x), &type, out) ||
            type != 22) {
            return FALSE;
        }
    }
    return TRUE;
}

/* tls_record_pieces counts into out the segments of the records that
 * carried a message TLS put together on ds, [start, end): its pieces
 * (tls.handshake.fragment, in message order) grouped by frame, each run
 * of pieces from one frame the records of that run (records_of_run).
 * Returns how many pieces. */
static guint tls_record_pieces(proto_tree *tree, const packet_info *pinfo, const found_msg *m,
                               tvbuff_t *ds, gint start, gint end, tlsneg_segments *out,
                               gboolean *exact)
{
    guint n = 0, run = 0;
    guint32 run_frame = 0;
    piece_walk w = {0, 0, NULL};
    for (field_info *fi; (fi = next_piece(tree, ROLE_TLS_HS_FRAGMENT, ds, start, end, &w)) != NULL;
         n++) {
        guint32 frame = tlsneg_fi_uint(fi);
        if (run && frame == run_frame) {
            run++;
            continue;
        }
        if (run &&
            (frame < run_frame || !records_of_run(tree, pinfo, m->record, run_frame, run, out))) {
            *exact = FALSE;
        }
        run_frame = frame;
        run = 1;
    }
    if (run && !records_of_run(tree, pinfo, m->record, run_frame, run, out)) {
        *exact = FALSE;
    }
    return n;
}

/* A message in the frame's own bytes came in this frame's one segment
 * (TCP) or record (DTLS); one in the bytes TCP reassembled came in the
 * segments of that PDU that hold any of its bytes: tshark lists them as
 * tcp.segment items on the reassembled bytes, in stream order, each with
 * its place there. A DTLS message reassembled from fragments and a QUIC
 * hello came in the datagrams (frames) of its fragments or CRYPTO frames,
 * each counted once (a QUIC hello in one CRYPTO frame: this frame; one
 * that TLS put together on top of QUIC: the datagrams of its pieces). A
 * message put together from several TLS records came in the segments of
 * those records, headers included, in stream order (docs/fields.md). */
void tlsneg_tree_segments(proto_tree *tree, const packet_info *pinfo, const found_msg *m,
                          tlsneg_message *msg)
{
    tvbuff_t *ds = m->anchor->ds_tvb;
    gboolean exact = TRUE;
    if (!ds) {
        return;
    }
    gint start = m->anchor->start;
    gint end = start + (gint)msg->len;
    if (msg->wire == TLSNEG_WIRE_QUIC) {
        /* QUIC's own reassembly (CRYPTO frames out of order) lists its
         * pieces; TLS's on top of it (data that came in order, then more)
         * lists its pieces' frames, each with the datagrams QUIC put
         * together there (kept by tlsneg_tree_quic_datagrams). */
        if (!pieces(tree, ROLE_QUIC_CRYPTO_FRAGMENT, ds, start, end, &msg->segments, &exact) &&
            !quic_tls_pieces(tree, ds, start, end, &msg->segments, &exact)) {
            tlsneg_segments_add(&msg->segments, pinfo->num);
        }
    } else if (msg->body_only) {
        if (m->fragments) {
            pieces(tree, ROLE_DTLS_FRAGMENT, m->fragments->ds_tvb, 0, G_MAXINT, &msg->segments,
                   &exact);
        }
    } else if (ds == frame_tvb(pinfo)) {
        tlsneg_segments_add(&msg->segments, pinfo->num);
    } else if (!m->dtls) {
        for (guint i = 0; i < by_role[ROLE_TCP_SEGMENT].n; i++) {
            GPtrArray *segs = proto_get_finfo_ptr_array(tree, by_role[ROLE_TCP_SEGMENT].hfid[i]);
            for (guint j = 0; segs && j < segs->len; j++) {
                field_info *fi = (field_info *)g_ptr_array_index(segs, j);
                if (fi->ds_tvb == ds && fi->start < end && fi->start + fi->length > start) {
                    tlsneg_segments_add(&msg->segments, tlsneg_fi_uint(fi));
                }
            }
        }
        if (!msg->segments.count) {
            tls_record_pieces(tree, pinfo, m, ds, start, end, &msg->segments, &exact);
        }
    }
    if (!exact) {
        memset(&msg->segments, 0, sizeof msg->segments);
    }
}

guint32 tlsneg_tree_tcp_flags(proto_tree *tree, gboolean *syn)
{
    GPtrArray *items = watched_items(tree, ROLE_TCP_FLAGS);
    *syn = FALSE;
    for (guint i = 0; items && i < items->len; i++) {
        *syn |= (tlsneg_fi_uint((field_info *)g_ptr_array_index(items, i)) & 0x002) != 0;
    }
    return items ? tlsneg_fi_uint((field_info *)g_ptr_array_index(items, 0)) : 0;
}

/* ChangeCipherSpec (20) and application data (23) are the encrypted
 * records of either version. Wanting tls.change_cipher_spec and tls.app_data
 * for this would make tshark build an item for every such record
 * (bench/README.md, "What made it cheaper": 16,400 instructions per
 * connection); the content type is the byte before the record version,
 * which is wanted anyway and which tshark adds to every record it
 * dissects. */
gboolean tlsneg_tree_has_progress_record(proto_tree *tree)
{
    for (guint i = 0; i < by_role[ROLE_TLS_RECORD_VERSION].n; i++) {
        GPtrArray *recs = proto_get_finfo_ptr_array(tree, by_role[ROLE_TLS_RECORD_VERSION].hfid[i]);
        for (guint j = 0; recs && j < recs->len; j++) {
            const field_info *fi = (const field_info *)g_ptr_array_index(recs, j);
            if (fi->ds_tvb && fi->start > 0 && fi->length == 2) {
                guint8 type = tlsneg_tvb_get_uint8(fi->ds_tvb, fi->start - 1);
                if (type == 20 || type == 23) {
                    return TRUE;
                }
            }
        }
    }
    return FALSE;
}

/* Once the TCP dissector has seen the connection's SYN or SYN-ACK it keeps
 * the server's port in its conversation data (struct tcp_analysis,
 * packet-tcp.h; 0 until then), and the sender of the SYN is the client, as
 * for tlsneg-pcap. Read where TCP keeps it: get_tcp_conversation_data()
 * would also move the data's per-packet direction pointers. */
tlsneg_sender tlsneg_tree_tcp_sender(packet_info *pinfo, conversation_t *conv)
{
    if (pinfo->ptype != PT_TCP || proto_tcp < 0 || pinfo->srcport == pinfo->destport) {
        return TLSNEG_SENDER_UNKNOWN;
    }
    conv = conv ? conv : find_conversation_pinfo(pinfo, 0);
    const struct tcp_analysis *tcpd =
        conv ? (const struct tcp_analysis *)conversation_get_proto_data(conv, proto_tcp) : NULL;
    if (!tcpd || tcpd->server_port == 0) {
        return TLSNEG_SENDER_UNKNOWN;
    }
    return pinfo->srcport == tcpd->server_port    ? TLSNEG_SENDER_SERVER
           : pinfo->destport == tcpd->server_port ? TLSNEG_SENDER_CLIENT
                                                  : TLSNEG_SENDER_UNKNOWN;
}

/* TCP keeps the time of its conversation's first frame (ts_first, the SYN
 * when the capture has it) in the same data; tlsneg-pcap takes its flow's
 * first packet. */
guint64 tlsneg_tree_tcp_opened_us(packet_info *pinfo, conversation_t *conv)
{
    if (pinfo->ptype != PT_TCP || proto_tcp < 0) {
        return 0;
    }
    conv = conv ? conv : find_conversation_pinfo(pinfo, 0);
    const struct tcp_analysis *tcpd =
        conv ? (const struct tcp_analysis *)conversation_get_proto_data(conv, proto_tcp) : NULL;
    if (!tcpd || tcpd->ts_first.secs < 0) {
        return 0;
    }
    return (guint64)tcpd->ts_first.secs * 1000000u + (guint64)tcpd->ts_first.nsecs / 1000u;
}

gboolean tlsneg_tree_tls_begun(conversation_t *conv)
{
    return proto_tls >= 0 && conv && conversation_get_proto_data(conv, proto_tls) != NULL;
}

/* watch_protocol_fields adds every field of protocol proto_name whose name
 * is watched: several fields share one name (the SSLv2 handshake type is
 * tls.handshake.type too), and 4.0 does not chain them all through
 * same_name_next. */
static void watch_protocol_fields(const char *proto_name, GArray *wanted)
{
    int proto_id = proto_get_id_by_filter_name(proto_name);
    void *cookie = NULL;
    if (proto_id < 0) {
        return;
    }
    for (header_field_info *hfi = proto_get_first_protocol_field(proto_id, &cookie); hfi;
         hfi = proto_get_next_protocol_field(proto_id, &cookie)) {
        for (size_t i = 0; i < G_N_ELEMENTS(watched_fields); i++) {
            field_role role = watched_fields[i].role;
            if (strcmp(hfi->abbrev, watched_fields[i].abbrev) != 0 || num_watched == MAX_WATCHED ||
                by_role[role].n == MAX_PER_ROLE) {
                continue;
            }
            watched[num_watched].hfid = hfi->id;
            watched[num_watched++].role = role;
            by_role[role].hfid[by_role[role].n++] = hfi->id;
            g_array_append_val(wanted, hfi->id);
        }
    }
}

void tlsneg_tree_watch(dissector_handle_t handle)
{
    GArray *wanted = g_array_new(FALSE, FALSE, (guint)sizeof(int));
    proto_tls = proto_get_id_by_filter_name("tls");
    proto_dtls = proto_get_id_by_filter_name("dtls");
    proto_quic = proto_get_id_by_filter_name("quic");
    proto_tcp = proto_get_id_by_filter_name("tcp");
    watch_protocol_fields("tls", wanted);
    watch_protocol_fields("dtls", wanted);
    watch_protocol_fields("tcp", wanted);
    watch_protocol_fields("quic", wanted);
    set_postdissector_wanted_hfids(handle, wanted);
    quic_initial_datagrams =
        wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_direct_hash, g_direct_equal);
    tcp_frame_records =
        wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_direct_hash, g_direct_equal);
}
