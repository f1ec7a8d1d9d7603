/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-items.c: adding one tlsneg item. Every item tlsneg adds is
 * derived, so it is generated, unless it is a value read from the wire and
 * this pass's data source still holds those bytes: then a click on it shows
 * them. */
#include <string.h>

#include <epan/packet.h>
#include <epan/proto.h>

#include "tlsneg-items.h"
#include "ws-compat.h"

#include "core/versions.h"

/* The data source a generated item names: its parent's (the tlsneg item is
 * added on the frame's tvb), at offset 0 with length 0, as Wireshark's own
 * generated items are (packet-tcp.c's analysis items). Wireshark 4.0's
 * byte view then clears the highlight when the item is clicked; an item
 * with no data source (tvb NULL) leaves the previous one lit. */
static tvbuff_t *parent_tvb(proto_tree *tree)
{
    field_info *fi = tree ? PNODE_FINFO(tree) : NULL;
    return fi ? fi->ds_tvb : NULL;
}

proto_item *tlsneg_item_uint(proto_tree *tree, int hf, guint32 v)
{
    proto_item *it = proto_tree_add_uint(tree, hf, parent_tvb(tree), 0, 0, v);
    proto_item_set_generated(it);
    return it;
}

/* BASE_CUSTOM names a value without its message, so a DTLS 1.3 draft
 * (0x7fxx in a DTLS hello) gets its DTLS name here; the filter value is the
 * wire value either way. */
proto_item *tlsneg_item_version(proto_tree *tree, int hf, guint16 v, gboolean dtls)
{
    char name[TLSNEG_VERSION_NAME_MAX];
    if (!dtls || (v >> 8) != 0x7f) {
        return tlsneg_item_uint(tree, hf, v);
    }
    proto_item *it =
        proto_tree_add_uint_format_value(tree, hf, parent_tvb(tree), 0, 0, v, "%s (0x%04x)",
                                         tlsneg_version_name_in(v, TRUE, name, sizeof name), v);
    proto_item_set_generated(it);
    return it;
}

proto_item *tlsneg_item_bool(proto_tree *tree, int hf, gboolean v)
{
    proto_item *it = proto_tree_add_boolean(tree, hf, parent_tvb(tree), 0, 0, v ? 1u : 0u);
    proto_item_set_generated(it);
    return it;
}

proto_item *tlsneg_item_string(proto_tree *tree, int hf, const char *s)
{
    proto_item *it = proto_tree_add_string(tree, hf, parent_tvb(tree), 0, 0, s);
    proto_item_set_generated(it);
    return it;
}

wire_bytes tlsneg_item_bytes(const packet_info *pinfo, const wire_place *w)
{
    wire_bytes b = {NULL, w->start};
    GSList *l = w->ds >= 0 ? g_slist_nth(pinfo->data_src, (guint)w->ds) : NULL;
    tvbuff_t *tvb = l ? get_data_source_tvb((const struct data_source *)l->data) : NULL;
    if (tvb && tvb_captured_length(tvb) == w->ds_len) {
        b.tvb = tvb;
    }
    return b;
}

gint tlsneg_item_pos(const wire_bytes *b, tlsneg_span at)
{
    guint64 pos = (guint64)b->start + at.offset;
    if (!b->tvb || at.len == 0 || pos + at.len > tvb_captured_length(b->tvb)) {
        return -1;
    }
    return (gint)pos;
}

gboolean tlsneg_item_holds(const wire_bytes *b, tlsneg_span at, guint32 v)
{
    gint pos = tlsneg_item_pos(b, at);
    if (pos < 0 || at.len > 4) {
        return FALSE;
    }
    guint32 got = 0;
    for (guint i = 0; i < at.len; i++) {
        got = got << 8 | tlsneg_tvb_get_uint8(b->tvb, pos + (gint)i);
    }
    return got == v;
}

proto_item *tlsneg_item_wire_uint(proto_tree *tree, int hf, const wire_bytes *b, tlsneg_span at,
                                  guint32 v)
{
    if (!tlsneg_item_holds(b, at, v)) {
        return tlsneg_item_uint(tree, hf, v);
    }
    return proto_tree_add_uint(tree, hf, b->tvb, tlsneg_item_pos(b, at), (gint)at.len, v);
}

/* A DTLS 1.3 draft (0x7fxx in a DTLS hello) gets its DTLS name, which
 * the field's name function, blind to the hello, cannot give. */
proto_item *tlsneg_item_wire_version(proto_tree *tree, int hf, const wire_bytes *b, tlsneg_span at,
                                     guint16 v, gboolean dtls)
{
    if (!dtls || (v >> 8) != 0x7f) {
        return tlsneg_item_wire_uint(tree, hf, b, at, v);
    }
    char name[TLSNEG_VERSION_NAME_MAX];
    gboolean tied = tlsneg_item_holds(b, at, v);
    proto_item *it = proto_tree_add_uint_format_value(
        tree, hf, tied ? b->tvb : parent_tvb(tree), tied ? tlsneg_item_pos(b, at) : 0,
        tied ? (gint)at.len : 0, v, "%s (0x%04x)",
        tlsneg_version_name_in(v, TRUE, name, sizeof name), v);
    if (!tied) {
        proto_item_set_generated(it);
    }
    return it;
}

/* Width of the lines a finding's sentence is wrapped to in the tree. */
#define WRAP_WIDTH 100

/* Lines of at most WRAP_WIDTH characters, broken at spaces (a longer word
 * gets a line of its own). */
void tlsneg_item_wrapped(proto_tree *tree, packet_info *pinfo, gint ett, const char *text)
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
        proto_tree_add_subtree_format(tree, tvb, 0, 0, ett, NULL, "%.*s", (int)n, p);
        p += n;
        while (*p == ' ') {
            p++;
        }
    }
}
