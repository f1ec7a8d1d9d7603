/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-cache.h: what the first pass keeps for the later ones, in file
 * scope (tlsneg-cache.c): each frame's results, and what later frames
 * revealed about an earlier ClientHello. */
#ifndef TLSNEG_CACHE_H
#define TLSNEG_CACHE_H

#include <epan/packet.h>

#include "packet-tlsneg.h"

#include "analysis/session.h"

/* What became known about an earlier frame's ClientHello later on: shown
 * once the capture has been read (the GUI, tshark -2). The latest note of
 * each kind. */
typedef struct {
    const char *text;
    const char *detail;
    tlsneg_link link;
    tlsneg_rule_id rule;
    guint8 set;
    guint8 has_text;
    guint8 text_role;
    guint8 has_finding;
} kept_note;

typedef struct {
    kept_note note[TLSNEG_NOTE_KINDS];
} back_note;

/* tlsneg_cache_register makes the maps that reset with every capture
 * file. */
void tlsneg_cache_register(void);

/* tlsneg_cache_new_frame returns a zeroed frame_result in file scope with
 * room for num_msgs messages and their places. */
frame_result *tlsneg_cache_new_frame(guint num_msgs);

/* tlsneg_cache_put keeps res as this frame's results; tlsneg_cache_get
 * returns them on a later pass, or NULL. */
void tlsneg_cache_put(packet_info *pinfo, frame_result *res);
frame_result *tlsneg_cache_get(packet_info *pinfo);

/* tlsneg_cache_keep_result keeps in r what the session layer found about a
 * message of connection c. */
void tlsneg_cache_keep_result(msg_result *r, const tlsneg_result *x, tlsneg_conn *c);

/* tlsneg_cache_sni returns sni in file scope, or NULL without has_sni. */
const char *tlsneg_cache_sni(const tlsneg_conn *c, gboolean has_sni, const char *sni);

/* tlsneg_cache_keep_back_note stores what this frame revealed about an
 * earlier frame; the latest note of each kind wins. */
void tlsneg_cache_keep_back_note(const tlsneg_back_note *n);

/* tlsneg_cache_back_note returns what later frames revealed about the
 * ClientHello r in this frame, or NULL. */
const back_note *tlsneg_cache_back_note(const packet_info *pinfo, const msg_result *r);

#endif
