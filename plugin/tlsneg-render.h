/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-render.h: what every pass shows of a frame's kept results
 * (tlsneg-render.c). */
#ifndef TLSNEG_RENDER_H
#define TLSNEG_RENDER_H

#include <epan/packet.h>

#include "packet-tlsneg.h"

/* tlsneg_render_alert and tlsneg_render_hello add the tlsneg item of one
 * kept alert or hello, with its findings as expert infos. */
void tlsneg_render_alert(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const msg_result *r);
void tlsneg_render_hello(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const msg_result *r,
                         const wire_place *place);

/* tlsneg_render_wanted: whether anybody reads what the two above add to
 * this frame's tree (its items or expert infos); the frame is analysed and
 * tapped all the same. */
gboolean tlsneg_render_wanted(proto_tree *tree, packet_info *pinfo);

/* tlsneg_render_info_notes appends r's notes to the Info column. */
void tlsneg_render_info_notes(packet_info *pinfo, const msg_result *r);

#endif
