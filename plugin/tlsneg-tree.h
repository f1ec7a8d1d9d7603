/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-tree.h: what the first pass reads off the tree the other
 * dissectors built (tlsneg-tree.c): the fields it watches, the hellos and
 * alerts in a frame with the record around each, their bytes, the TCP flags,
 * the records that show a handshake went on, and who sent a TCP segment. */
#ifndef TLSNEG_TREE_H
#define TLSNEG_TREE_H

#include <epan/conversation.h>
#include <epan/packet.h>
#include <epan/proto.h>
#include <epan/wmem_scopes.h>

#include "packet-tlsneg.h"

#include "analysis/session.h"
#include "core/hello.h"

/* The protocols in a frame that matter here (pinfo->layers). */
enum { LAYER_TLS = 1, LAYER_DTLS = 2, LAYER_QUIC = 4 };

/* A hello or alert found in this frame's tree. */
typedef struct {
    field_info *anchor;    /* the handshake type, alert description or QUIC error code */
    field_info *fragments; /* DTLS: the reassembled body, if this record completes it */
    gboolean is_alert;
    gboolean dtls;
    gboolean has_record;
    guint16 record_version;
    field_info *record; /* the record version field, NULL for QUIC */
    guint8 alert_level; /* an alert: its level byte, as tls.alert_message.level shows it;
                           TLSNEG_ALERT_NO_LEVEL for a QUIC CONNECTION_CLOSE's */
    guint8 alert_description;
    gboolean quic_close; /* an alert: a QUIC CONNECTION_CLOSE's crypto error, not a record */
} found_msg;

/* tlsneg_tree_watch looks up the fields and protocols the walk reads and
 * asks Wireshark to build them for handle even in a hidden tree. */
void tlsneg_tree_watch(dissector_handle_t handle);

/* tlsneg_tree_layers tells which of LAYER_TLS, LAYER_DTLS and LAYER_QUIC
 * this frame holds. */
guint tlsneg_tree_layers(const packet_info *pinfo);

/* tlsneg_tree_has_anchor tells whether tree may hold a hello or an alert of
 * the protocols in layers: the cheap test before tlsneg_tree_find. */
gboolean tlsneg_tree_has_anchor(proto_tree *tree, guint layers);

/* tlsneg_tree_find appends to found (an array of found_msg) every hello and
 * alert in tree, in wire order. */
void tlsneg_tree_find(proto_tree *tree, wmem_array_t *found);

/* tlsneg_tree_frame_message hands the core the bytes around m to frame.
 * Returns FALSE when the message is not complete in this frame. */
gboolean tlsneg_tree_frame_message(const found_msg *m, gboolean quic, tlsneg_message *out);

/* tlsneg_tree_segments counts, into msg->segments, the TCP segments (or
 * the DTLS record) that carried the message framed as msg, found as m in
 * tree; it leaves the count 0 where it cannot tell. */
void tlsneg_tree_segments(proto_tree *tree, const packet_info *pinfo, const found_msg *m,
                          tlsneg_message *msg);

/* tlsneg_tree_quic_datagrams keeps, for this frame, the datagrams whose
 * CRYPTO data QUIC put back in order in its Initial packets, if any: a
 * later frame's hello that TLS put together from a piece of this frame
 * came in them too. First pass, every QUIC frame, before its hellos are
 * counted (tlsneg_tree_segments). */
void tlsneg_tree_quic_datagrams(proto_tree *tree, const packet_info *pinfo);

/* tlsneg_tree_tcp_records keeps, for this frame if TCP put a PDU together
 * in it, its last TLS records with the segments of each: a later frame's
 * message that TLS put together from records of this frame came in them.
 * First pass, every TLS frame, before its hellos are counted. */
void tlsneg_tree_tcp_records(proto_tree *tree, const packet_info *pinfo);

/* tlsneg_tree_place_of says where the framed message msg, found as m,
 * sits. */
wire_place tlsneg_tree_place_of(const packet_info *pinfo, const found_msg *m,
                                const tlsneg_message *msg);

/* tlsneg_tree_tcp_flags returns the flags of this frame's first TCP header
 * (0 if none); *syn tells whether any TCP header in the frame has SYN
 * set. */
guint32 tlsneg_tree_tcp_flags(proto_tree *tree, gboolean *syn);

/* tlsneg_tree_has_progress_record tells whether a TLS record in this frame
 * is a ChangeCipherSpec or application data. */
gboolean tlsneg_tree_has_progress_record(proto_tree *tree);

/* tlsneg_tree_tcp_sender tells who sent this frame's TCP segment, as TCP
 * knows it. conv is the frame's conversation when the caller has it, else
 * NULL: it is looked up (here and below). */
tlsneg_sender tlsneg_tree_tcp_sender(packet_info *pinfo, conversation_t *conv);

/* tlsneg_tree_tcp_opened_us: when this frame's TCP connection began (its
 * first frame, in microseconds since the epoch), or 0 if not TCP. */
guint64 tlsneg_tree_tcp_opened_us(packet_info *pinfo, conversation_t *conv);

/* tlsneg_tree_tls_begun tells whether the TLS dissector has state on the
 * conversation conv: it has read bytes of it (the first segment of a
 * ClientHello still to be completed, say). */
gboolean tlsneg_tree_tls_begun(conversation_t *conv);

#endif
