/* SPDX-License-Identifier: GPL-2.0-or-later */
/* packet-tlsneg.h: what the postdissector keeps per frame, which is also
 * what it hands to the "tlsneg" tap (tlsneg-stats.c). */
#ifndef TLSNEG_PACKET_TLSNEG_H
#define TLSNEG_PACKET_TLSNEG_H

#include <epan/packet.h>

#include "analysis/session.h"
#include "core/facts.h"

/* A finding as kept per frame. */
typedef struct {
    tlsneg_rule_id rule;
    const char *detail;
} kept_finding;

/* A verdict across connections as kept per frame: its evidence by role
 * (analysis/tracker.h); its finding is kept with the others. */
typedef struct {
    tlsneg_verdict_kind kind;
    const char *note;   /* its words in the packet list (tlsneg_verdict_note) */
    tlsneg_probe probe; /* TLSNEG_VERDICT_PROBE */
    guint8 num_links, num_versions, num_texts;
    tlsneg_link link[TLSNEG_VERDICT_LINKS];
    tlsneg_version_ref version[TLSNEG_VERDICT_VERSIONS];
    struct {
        guint8 role; /* tlsneg_text_role */
        const char *text;
    } text[TLSNEG_VERDICT_TEXTS];
} kept_verdict;

/* Where a hello's bytes are, so that every pass can tie its wire items to
 * them: tvb pointers do not outlive a pass, data source numbers do. */
typedef struct {
    gint ds;      /* index in pinfo->data_src of the data source holding the message; -1 none */
    guint ds_len; /* its length, checked again on every pass */
    guint start;  /* where the framed message starts in it (offsets in facts count from here) */
    gboolean has_record_at;
    guint record_at; /* the record version, when its record header is in the same data source */
} wire_place;

/* One analysed hello or alert. */
typedef struct {
    gboolean is_alert;
    guint8 alert_description;
    gboolean alert_from_server;
    tlsneg_facts facts;         /* a hello */
    wire_place place;           /* a hello: where its bytes are */
    guint32 client_hello_frame; /* an alert: the ClientHello it answers, or 0 */
    guint32 retransmission_of;  /* a hello repeated unchanged (DTLS, QUIC), or 0 */
    guint num_findings;
    kept_finding *findings;
    guint num_verdicts;
    const kept_verdict *verdicts; /* across connections */
    gboolean from_client;
    const char *sni;        /* the server name of the connection's ClientHello */
    const char *title;      /* a retry: what its title says (tlsneg_result.title), or NULL */
    guint32 failed_attempt; /* an alert: the ClientHello whose attempt it made fail, or 0 */
    guint8 failure_cause;   /* then how (tlsneg_cause) */
} msg_result;

/* The analysed messages of one frame, in wire order. */
typedef struct {
    guint num_msgs;
    msg_result *msgs;
    /* A TCP RST or FIN that ends an attempt before any ServerHello: not
     * shown in the tree (the TCP tree has it), only told to the taps. */
    guint8 close; /* 0, TLSNEG_CAUSE_RESET or TLSNEG_CAUSE_CLOSE */
    gboolean close_from_client;
    guint32 close_attempt_frame;
    const char *close_sni; /* of the attempt it ends */
} frame_result;

/* kept_verdict_find returns r's verdict of kind k, or NULL; its link of
 * role l (0 if none) and its text of role t (NULL if none). */
const kept_verdict *kept_verdict_find(const msg_result *r, tlsneg_verdict_kind k);
guint32 kept_verdict_link(const kept_verdict *v, tlsneg_link_role l);
const char *kept_verdict_text(const kept_verdict *v, tlsneg_text_role t);

void proto_register_tlsneg(void);
void proto_reg_handoff_tlsneg(void);

/* tlsneg-stats.c: the -z reports and the Statistics menu. */
void tlsneg_register_stats(void);
/* tlsneg-ladder.c: -z tlsneg,ladder (with the taps) and Statistics > TLS
 * Negotiation Ladder (with the protocol). */
void tlsneg_register_ladder(void);
void tlsneg_register_ladder_menu(void);

#endif
