/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-items.h: how one tlsneg item is added to the tree
 * (tlsneg-items.c): generated, or tied to the bytes of the message it was
 * read from when this pass's data source still holds them. */
#ifndef TLSNEG_ITEMS_H
#define TLSNEG_ITEMS_H

#include <epan/packet.h>
#include <epan/proto.h>

#include "packet-tlsneg.h"

#include "core/facts.h"

/* The bytes a hello's wire items are tied to on this pass: the data source
 * found again by its number (wire_place), if it still has the same length. */
typedef struct {
    tvbuff_t *tvb; /* NULL: the items stay generated */
    guint start;
} wire_bytes;

/* tlsneg_item_uint, tlsneg_item_bool and tlsneg_item_string add a
 * generated item (it covers no bytes). */
proto_item *tlsneg_item_uint(proto_tree *tree, int hf, guint32 v);
proto_item *tlsneg_item_bool(proto_tree *tree, int hf, gboolean v);
proto_item *tlsneg_item_string(proto_tree *tree, int hf, const char *s);

/* tlsneg_item_version adds a generated version field; dtls tells the hello
 * it is about. */
proto_item *tlsneg_item_version(proto_tree *tree, int hf, guint16 v, gboolean dtls);

/* tlsneg_item_bytes finds the bytes of the message at w again on this
 * pass. */
wire_bytes tlsneg_item_bytes(const packet_info *pinfo, const wire_place *w);

/* tlsneg_item_pos returns where at sits in b's data source, or -1 if it is
 * not there. */
gint tlsneg_item_pos(const wire_bytes *b, tlsneg_span at);

/* tlsneg_item_holds tells whether at holds v (big-endian, at.len bytes):
 * an item is tied to bytes only when they say what the item says. */
gboolean tlsneg_item_holds(const wire_bytes *b, tlsneg_span at, guint32 v);

/* tlsneg_item_wire_uint adds v tied to its bytes at, or generated if they
 * are not in this pass's data source; tlsneg_item_wire_version does the same
 * for a version. */
proto_item *tlsneg_item_wire_uint(proto_tree *tree, int hf, const wire_bytes *b, tlsneg_span at,
                                  guint32 v);
proto_item *tlsneg_item_wire_version(proto_tree *tree, int hf, const wire_bytes *b, tlsneg_span at,
                                     guint16 v, gboolean dtls);

/* tlsneg_item_wrapped adds text under tree as lines of subtree ett. */
void tlsneg_item_wrapped(proto_tree *tree, packet_info *pinfo, gint ett, const char *text);

#endif
