/* SPDX-License-Identifier: GPL-2.0-or-later */
/* packet-tlsneg.h: what the postdissector keeps per frame, which is also
 * what it hands to the "tlsneg" tap (tlsneg-stats.c). */
#ifndef TLSNEG_PACKET_TLSNEG_H
#define TLSNEG_PACKET_TLSNEG_H

#include <epan/packet.h>

#include "analysis/session.h"
#include "core/facts.h"
#include "report/output.h"

/* A finding, a verdict across connections and a message as kept per
 * frame: the shared outputs' types (report/output.h), which the taps hand
 * to the shared writer. */
typedef tlsneg_out_finding kept_finding;
typedef tlsneg_kept_verdict kept_verdict;
typedef tlsneg_out_msg msg_result;

/* Where a hello's bytes are, so that every pass can tie its wire items to
 * them: tvb pointers do not outlive a pass, data source numbers do. */
typedef struct {
    gint ds;      /* index in pinfo->data_src of the data source holding the message; -1 none */
    guint ds_len; /* its length, checked again on every pass */
    guint start;  /* where the framed message starts in it (offsets in facts count from here) */
    gboolean has_record_at;
    guint record_at; /* the record version, when its record header is in the same data source */
} wire_place;

/* The analysed messages of one frame, in wire order: the frame_result, its
 * messages and their places are one allocation (tlsneg-cache.c). */
typedef struct {
    guint num_msgs;
    msg_result *msgs;
    wire_place *places; /* where each message's bytes are (hellos) */
    /* A TCP RST or FIN that ends an attempt before any ServerHello: not
     * shown in the tree (the TCP tree has it), only told to the taps. */
    guint8 close; /* 0, TLSNEG_CAUSE_RESET or TLSNEG_CAUSE_CLOSE */
    gboolean close_from_client;
    guint32 close_attempt_frame;
    const char *close_sni; /* of the attempt it ends */
} frame_result;

void proto_register_tlsneg(void);
void proto_reg_handoff_tlsneg(void);

/* tlsneg-stats.c: the -z reports and the Statistics menu; a frame as the
 * shared outputs take it (report/output.h). */
void tlsneg_register_stats(void);
tlsneg_out_frame tlsneg_stats_frame(packet_info *pinfo);
/* tlsneg-ladder.c: -z tlsneg,ladder (with the taps) and Statistics > TLS
 * Negotiation Ladder (with the protocol). */
void tlsneg_register_ladder(void);
void tlsneg_register_ladder_menu(void);

#endif
