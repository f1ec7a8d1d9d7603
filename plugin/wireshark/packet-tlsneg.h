/* packet-tlsneg.h: what the postdissector keeps per frame, which is also
 * what it hands to the "tlsneg" tap (tlsneg-stats.c). */
#ifndef TLSNEG_PACKET_TLSNEG_H
#define TLSNEG_PACKET_TLSNEG_H

#include <epan/packet.h>

#include "analysis/tracker.h"
#include "core/facts.h"

/* A finding as kept per frame. */
typedef struct {
    tlsneg_rule_id rule;
    const char *detail;
} kept_finding;

/* What the tracker found about a message, to show as fields. */
typedef struct {
    tlsneg_cross cross;
    const char *cause; /* of the failed attempt a fallback retries */
    const char *chain;
} cross_fields;

/* What became known about an earlier frame's ClientHello later on: shown
 * once the capture has been read (the GUI, tshark -2). */
typedef struct {
    guint32 retry_frame;
    const char *intolerant_of;
    guint32 completed_frame; /* the ServerHello of the attempt that went through */
} back_note;

/* One analysed hello or alert. */
typedef struct {
    gboolean is_alert;
    guint8 alert_description;
    gboolean alert_from_server;
    tlsneg_facts facts;         /* a hello */
    guint32 client_hello_frame; /* an alert: the ClientHello it answers, or 0 */
    guint32 retransmission_of;  /* a hello repeated unchanged (DTLS, QUIC), or 0 */
    guint num_findings;
    kept_finding *findings;
    const cross_fields *cross; /* NULL: nothing across connections */
    gboolean from_client;
    const char *sni; /* the server name of the connection's ClientHello */
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

void proto_register_tlsneg(void);
void proto_reg_handoff_tlsneg(void);

/* tlsneg-stats.c: the -z reports and the Statistics menu. */
void tlsneg_register_stats(void);

#endif
