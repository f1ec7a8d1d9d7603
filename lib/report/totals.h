/* SPDX-License-Identifier: GPL-2.0-or-later */
/* totals.h: what the CSV and the report count over a whole capture (and
 * the probes the JSON lines write at its end): per server (address, port,
 * transport, SNI) its messages, failures and versions, per client offer how often it
 * was made, per rule its findings, the verdict lines in frame order. */
#ifndef TLSNEG_TOTALS_H
#define TLSNEG_TOTALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/buf.h"
#include "report/keyexchange.h"
#include "report/map.h"
#include "report/output.h"

/* A probe: its newest state, and where it went. */
typedef struct {
    tlsneg_probe p;
    char client[TLSNEG_ADDR_TEXT_MAX], server[TLSNEG_ADDR_TEXT_MAX];
    uint16_t port;
    uint8_t transport;                  /* tlsneg_wire_transport of its hellos */
    char label[TLSNEG_SERVER_TEXT_MAX]; /* its server as the report names it */
} tlsneg_probe_seen;

typedef struct {
    uint16_t version;
    unsigned count;
} tlsneg_version_count;

/* How often each version was seen, in the order first seen. */
typedef struct {
    tlsneg_version_count *v;
    size_t n, cap;
} tlsneg_version_counts;

/* One server: an address, a port, a transport and an SNI. A QUIC or DTLS
 * server on a UDP port and the TLS server on the same TCP port are two
 * server stacks, two servers: nothing one shows counts for the other. */
typedef struct {
    uint16_t port;
    uint8_t transport;                  /* tlsneg_wire_transport: TLS (TCP), DTLS or QUIC */
    char *sni;                          /* "" without SNI */
    char server[TLSNEG_ADDR_TEXT_MAX];  /* the address as text */
    char label[TLSNEG_SERVER_TEXT_MAX]; /* address:port, [IPv6]:port; over UDP with its
                                           transport (tlsneg_out_transport_label) */
    bool dtls;                          /* names versions as DTLS */
    unsigned client_hellos, server_hellos, hrrs, alerts, resets, closes, fallbacks;
    /* Of its alerts: those that ended a handshake (analysis:
     * tlsneg_alert_ends_handshake) before any ServerHello on their
     * connection since its last ClientHello, and after one
     * (tlsneg_result.alert_after_server_hello); and the warnings that did
     * not end it. An alert that would end it but came after the client
     * had closed or reset the connection (tlsneg_result.alert_after_close)
     * is none of those failures: counted apart, in alerts_after_close. */
    unsigned alert_failures, alert_failures_after, alert_warnings, alerts_after_close;
    tlsneg_version_counts offered;  /* highest version offered */
    tlsneg_version_counts in_force; /* version put in force */
    tlsneg_kx_counts kx;            /* key exchange (keyexchange.h) */
    unsigned findings[TLSNEG_RULE_COUNT];
    char *intolerant_of;
    uint32_t intolerant_frame;
    uint16_t intolerant_below; /* the version the intolerance verdict's ServerHello put in force */
    /* The highest version any ServerHello put in force, and the first frame
     * that did: above intolerant_below, the version alone does not make the
     * server fail (tlsneg_server_intolerant). */
    uint16_t top_version;
    uint32_t top_frame;
} tlsneg_server_totals;

/* tlsneg_server_intolerant: s has an intolerance verdict that no
 * ServerHello contradicts (none put a version above the verdict's in
 * force). */
bool tlsneg_server_intolerant(const tlsneg_server_totals *s);

typedef struct {
    bool verdict_lines; /* keep the verdict lines (the report) */
    tlsneg_buf scratch;
    tlsneg_map probes;  /* first frame -> tlsneg_probe_seen */
    tlsneg_map servers; /* key -> tlsneg_server_totals */
    tlsneg_map offers;  /* offer pattern (with its NUL) -> unsigned count */
    unsigned findings[TLSNEG_RULE_COUNT];
    unsigned messages[4]; /* [0] alerts, then by msg_type: ClientHello, ServerHello, other */
    char **verdicts;      /* the main findings, one line each, in frame order */
    size_t num_verdicts;
    unsigned verdicts_dropped; /* beyond TLSNEG_MAX_VERDICT_LINES */
    unsigned findings_dropped; /* beyond a message's TLSNEG_MAX_FINDINGS */
} tlsneg_totals;

#define TLSNEG_MAX_VERDICT_LINES 1000

/* tlsneg_totals_init starts t empty; false when out of memory. */
bool tlsneg_totals_init(tlsneg_totals *t, bool verdict_lines);
/* tlsneg_totals_reset forgets what was counted; tlsneg_totals_free also
 * what t holds. */
void tlsneg_totals_reset(tlsneg_totals *t);
void tlsneg_totals_free(tlsneg_totals *t);

/* tlsneg_totals_probe keeps the newest state of the probe message m of
 * frame fr belongs to, if any. */
void tlsneg_totals_probe(tlsneg_totals *t, const tlsneg_out_frame *fr, const tlsneg_out_msg *m);
/* tlsneg_totals_message counts m (its probe included). */
void tlsneg_totals_message(tlsneg_totals *t, const tlsneg_out_frame *fr, const tlsneg_out_msg *m);
/* tlsneg_totals_close counts a TCP reset or close that ended an attempt. */
void tlsneg_totals_close(tlsneg_totals *t, const tlsneg_out_frame *fr, uint8_t cause,
                         bool from_client, const char *sni);

/* tlsneg_totals_probes returns the probes in frame order, and
 * tlsneg_totals_servers the servers by attempts (most first), in new
 * arrays of probes.used and servers.used, or NULL. */
tlsneg_probe_seen **tlsneg_totals_probes(const tlsneg_totals *t);
tlsneg_server_totals **tlsneg_totals_servers(const tlsneg_totals *t);

/* tlsneg_version_list appends "TLS 1.3 x3, TLS 1.2 x1", or for the CSV
 * "0x0304:3;0x0303:1": highest version first. */
void tlsneg_version_list(const tlsneg_version_counts *c, tlsneg_buf *out, bool csv, bool dtls);

/* tlsneg_rule_label writes "fallback_retry (tlsneg.expert.fallback_retry_scsv)"
 * or "fallback_retry" into buf. A rule's public name is its finding, the
 * value of tlsneg.finding; a variant is shown beside it as the expert
 * info's own filter. Both work as filters exactly as printed. */
const char *tlsneg_rule_label(tlsneg_rule_id id, char *buf, size_t len);

/* The client and the server of a message sent by the client or not. */
typedef struct {
    const tlsneg_out_addr *client, *server;
} tlsneg_out_ends;

static inline tlsneg_out_ends tlsneg_out_ends_of(const tlsneg_out_frame *fr, bool from_client)
{
    tlsneg_out_ends e = {from_client ? &fr->src : &fr->dst, from_client ? &fr->dst : &fr->src};
    return e;
}

#endif
