/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-analyse.h: the first pass over a frame (tlsneg-analyse.c). */
#ifndef TLSNEG_ANALYSE_H
#define TLSNEG_ANALYSE_H

#include <epan/packet.h>

#include "packet-tlsneg.h"

/* tlsneg_analyse_init starts the session layer for a capture file, with
 * the preferences then in force; tlsneg_analyse_cleanup ends it. */
void tlsneg_analyse_init(void);
void tlsneg_analyse_cleanup(void);

/* tlsneg_analyse_frame hands every hello and alert of this frame's tree to
 * the session layer, and tells it of TCP closes and encrypted records.
 * Returns what is kept for the frame (file scope), or NULL if nothing is. */
frame_result *tlsneg_analyse_frame(proto_tree *tree, packet_info *pinfo);

#endif
