/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session.h: a handshake message within its connection and across
 * connections. Pure C, no Wireshark or GLib types: the front end (the
 * Wireshark postdissector, or a libpcap tool) finds messages, frames them with
 * the core (tlsneg_frame_message), and feeds them here in frame order, with
 * alerts and TCP closes; each event returns a self-contained result: the
 * message's facts, its findings, the verdicts across connections with their
 * frame links, and what later frames teach earlier ones (back notes).
 *
 * Endpoints are address bytes and a port, times are microseconds since any
 * fixed origin, frames are numbers (1 and up), connections are caller-chosen
 * 64-bit ids. */
#ifndef TLSNEG_SESSION_H
#define TLSNEG_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/checks.h"
#include "analysis/hrr.h"
#include "analysis/tracker.h"
#include "core/facts.h"
#include "core/hello.h"

/* Longest address kept (IPv6); longer addresses are compared on their first
 * 16 bytes. */
#define TLSNEG_ADDR_MAX 16

typedef struct {
    const uint8_t *addr;
    size_t addr_len;
    uint16_t port;
} tlsneg_endpoint;

/* Who sent an event, as the front end knows it from the transport (the
 * sender of the TCP SYN is the client), or unknown. */
typedef enum {
    TLSNEG_SENDER_UNKNOWN = 0,
    TLSNEG_SENDER_CLIENT,
    TLSNEG_SENDER_SERVER,
} tlsneg_sender;

/* Where and when an event happened. sender (zero: unknown) is used only
 * while the connection has shown no ClientHello, whose sender is otherwise
 * the client. opened_us: when the event's connection began, its first
 * frame (the TCP SYN), as the transport tells; 0: not known (a ClientHello
 * then counts as its connection's start). A ClientHello on a connection
 * opened before an earlier attempt failed retries nothing. */
typedef struct {
    uint32_t frame;
    uint64_t time_us;
    tlsneg_endpoint src, dst;
    tlsneg_sender sender;
    uint64_t opened_us;
} tlsneg_event;

/* What one connection (TCP stream, DTLS or QUIC flow) has shown so far.
 * The caller allocates it zeroed (zero = fresh), sets id, keeps it as long as
 * the connection, and passes it with every event of that connection. It
 * holds no pointer the session allocated, and may be copied. */
typedef struct {
    uint64_t id; /* unique per connection: the tracker's connection key */
    /* The last ClientHello: its facts, if the caller keeps them
     * (tlsneg_conn_keep_client_hello); a pointer into the caller's memory,
     * which must live as long as this conn. */
    const tlsneg_facts *client_hello;
    bool has_client_hello;
    bool hrr_seen; /* a HelloRetryRequest came */
    /* A ServerHello or HelloRetryRequest chose TLS 1.3 or DTLS 1.3 (a draft
     * of either included): a warning alert is an error from then on
     * (tlsneg_alert_ends_handshake). */
    bool tls13_chosen;
    /* A ServerHello (not a HelloRetryRequest) came since the last
     * ClientHello (on a connection that showed none, since it began): an
     * alert from here on comes after it (alert_after_server_hello). */
    bool server_hello_seen;
    uint8_t client_addr_len;
    uint16_t client_port; /* who sent the last ClientHello */
    uint32_t client_hello_frame;
    uint8_t client_addr[TLSNEG_ADDR_MAX];
    /* The last hello from each side (0 client, 1 server), to recognise a
     * DTLS or QUIC hello sent again unchanged. */
    uint64_t last_hash[2];
    uint32_t last_frame[2];
    /* The server's first ending (TCP RST or FIN, fatal alert) while the
     * connection had no complete ClientHello yet: held for the attempt of
     * the ClientHello that completes later (its failure), or 0. */
    uint32_t early_frame;
    uint64_t early_time_us;
    uint8_t early_cause; /* tlsneg_cause */
    uint8_t early_alert; /* the alert's description */
    /* The first TCP FIN or RST each side sent, [0] the client's and [1]
     * the server's (before any ClientHello, the sender the transport
     * tells), and which (TLSNEG_CAUSE_CLOSE, TLSNEG_CAUSE_RESET); only the
     * connection's first RST counts, as a reset ends it. 0: none yet. An
     * alert after the other side's says so (alert_after_close). */
    uint32_t closed_frame[2];
    uint8_t closed_cause[2];
    /* The connection's ClientHello offered a post-quantum group. */
    bool client_pq_offered;
    /* The connection's HelloRetryRequest (hrr.h): what it asked for (frame
     * 0: none yet), and what the ClientHello before it offered, to say what
     * the ClientHello after it changed; hrr_answered once that came. */
    bool hrr_answered;
    tlsneg_hrr_ask hrr_ask;
    tlsneg_hrr_hello hello_digest;
} tlsneg_conn;

/* A back note: what a later frame revealed about an earlier frame's
 * ClientHello (its kinds: verdicts.def, tlsneg_note_kind). */
typedef struct {
    uint32_t frame; /* the earlier frame the note is for */
    tlsneg_note_kind kind;
    tlsneg_link link;
    bool has_text;
    tlsneg_text text;
    bool has_finding;
    tlsneg_finding finding;
} tlsneg_back_note;

#define TLSNEG_MAX_BACK_NOTES (3 * TLSNEG_CHAIN_MAX)

/* A hello parsed, worked out apart from any session or connection
 * (tlsneg_session_parse: on another thread, say), to be judged in frame
 * order (tlsneg_session_judge). It points into the message's bytes: they
 * may not move or change until it has been judged. */
typedef struct {
    tlsneg_hello hello;
    uint64_t hash; /* a DTLS or QUIC hello's bytes, to recognise it sent again; else 0 */
    bool has_record;
    uint16_t record_version;  /* of the record that carried it, if has_record */
    tlsneg_segments segments; /* what carried it (tlsneg_message) */
} tlsneg_parsed;

/* The result of one event. */
typedef struct {
    bool analysed; /* a hello complete here, an alert: the rest is filled */
    bool is_alert;
    /* A hello: its facts; the lists point into facts_buf (copy them to
     * keep them). An alert: only the wire it came on (facts.wire), which
     * tells its server's transport (tlsneg_wire_transport). */
    tlsneg_facts facts;
    tlsneg_facts_buf facts_buf;
    uint8_t alert_level; /* TLSNEG_ALERT_WARNING, _FATAL or _NO_LEVEL (QUIC) */
    uint8_t alert_description;
    bool alert_from_server;
    /* The alert ends the handshake by itself (tlsneg_alert_ends_handshake):
     * false for a closure alert, and for a warning before TLS 1.3 was
     * chosen; only such an alert can make its attempt fail. */
    bool alert_ends;
    /* The alert came after a ServerHello (not a HelloRetryRequest) on its
     * connection since the last ClientHello, or, on a connection that
     * showed no ClientHello, since it began
     * (pcaps/synth-alerts-after-hello.pcap frame 22); false before any. */
    bool alert_after_server_hello;
    /* The alert came after the other side had closed (its first TCP FIN)
     * or reset the connection: that frame, and which (TLSNEG_CAUSE_CLOSE,
     * TLSNEG_CAUSE_RESET); 0 when it had not, or the alert's sender is not
     * known. The close came first in the capture: the outputs count the
     * alert apart from the failures (pcaps/scan-nmap-tls12.pcap frame 83,
     * after the client's FIN in 82). */
    uint32_t alert_after_close;
    uint8_t alert_after_close_cause;
    bool from_client; /* sent by the connection's client */
    /* A new ClientHello: the checks of later messages on the connection
     * need its facts; keep a copy and hand it over with
     * tlsneg_conn_keep_client_hello. */
    bool keep_facts;
    uint32_t retransmission_of;  /* a DTLS/QUIC hello sent again unchanged: judged there; or 0 */
    uint32_t client_hello_frame; /* the connection's last ClientHello (this one for a
                                    ClientHello), or 0 */
    bool has_sni;                /* the server name of the connection's ClientHello */
    char sni[TLSNEG_MAX_SNI + 1];
    tlsneg_findings findings; /* the message's own, then one per verdict */
    tlsneg_verdicts verdicts;
    /* A ClientHello that retries a failed attempt: what its own title says
     * ("fallback retry 2 (TLS 1.2 -> TLS 1.1, no SCSV)", "retry, same
     * version (TLS 1.3)"); empty otherwise. A TLSNEG_NOTE_TITLE back note
     * replaces it once the chain has ended. */
    char title[TLSNEG_VERDICT_TEXT_MAX];
    /* An alert that made its attempt fail: that attempt's ClientHello (a
     * TLSNEG_NOTE_FAILED back note tells it), and how; or 0. */
    uint32_t failed_attempt;
    uint8_t failure_cause; /* tlsneg_cause */
    /* An alert the server sent before the connection's ClientHello was
     * complete: held for that attempt, whose ClientHello tells it (early_*);
     * its outcome belongs there, not here. */
    bool held;
    /* A ClientHello whose attempt the server had already ended before it
     * was complete (a TCP RST or FIN, a fatal alert: held on the
     * connection): that ending's frame, time, cause and alert; the attempt
     * failed there (a TLSNEG_NOTE_FAILED back note for this very frame
     * says so). early_frame 0: none. */
    uint32_t early_frame;
    uint64_t early_time_us;
    uint8_t early_cause; /* tlsneg_cause */
    uint8_t early_alert;
    /* A ServerHello: its connection's ClientHello offered a post-quantum
     * group (the report counts a classical answer to it). */
    bool client_pq_offered;
    /* A ClientHello that answers its connection's HelloRetryRequest: that
     * HelloRetryRequest's frame (a TLSNEG_NOTE_HRR_RETRY back note tells it
     * this frame), what this ClientHello changed from the one before it
     * (tlsneg_hrr_changes), and whether that is more or less than RFC 8446
     * 4.1.2 allows; hrr_frame 0: none. */
    uint32_t hrr_frame;
    bool hrr_unexpected;
    char hrr_changes[TLSNEG_HRR_CHANGES_MAX];
    size_t num_back_notes;
    tlsneg_back_note back_notes[TLSNEG_MAX_BACK_NOTES];
} tlsneg_result;

/* The result of a TCP FIN or RST. */
typedef struct {
    /* The ClientHello whose attempt this ends before any ServerHello, or 0
     * (then nothing else is filled). */
    uint32_t ended_attempt_frame;
    uint8_t cause; /* TLSNEG_CAUSE_RESET or TLSNEG_CAUSE_CLOSE */
    bool from_client;
    bool has_sni; /* of the attempt it ends */
    char sni[TLSNEG_MAX_SNI + 1];
    tlsneg_back_note note; /* TLSNEG_NOTE_FAILED for ended_attempt_frame */
} tlsneg_close_result;

typedef struct tlsneg_session tlsneg_session;

/* tlsneg_session_new returns NULL when out of memory. A session whose
 * tracker could not be allocated still judges messages, without verdicts
 * across connections; so does a NULL session passed to the event
 * functions. */
tlsneg_session *tlsneg_session_new(const tlsneg_tracker_config *cfg);
void tlsneg_session_free(tlsneg_session *s);
/* The tracker the session owns, or NULL. */
const tlsneg_tracker *tlsneg_session_tracker(const tlsneg_session *s);

/* tlsneg_session_message judges one hello framed by the core, sent in ev on
 * connection c, carried in a record of version record_version if
 * has_record: tlsneg_session_parse, then tlsneg_session_judge. */
void tlsneg_session_message(tlsneg_session *s, tlsneg_conn *c, const tlsneg_event *ev,
                            const tlsneg_message *m, bool has_record, uint16_t record_version,
                            tlsneg_result *out);

/* tlsneg_session_parse parses a hello framed by the core (m), carried in a
 * record of version record_version if has_record, into p. It reads nothing
 * but m: it may run on any thread, ahead of the events before it. */
void tlsneg_session_parse(tlsneg_parsed *p, const tlsneg_message *m, bool has_record,
                          uint16_t record_version);

/* tlsneg_session_judge judges the hello parsed in p, sent in ev on
 * connection c, in frame order with the other events: as
 * tlsneg_session_message would. */
void tlsneg_session_judge(tlsneg_session *s, tlsneg_conn *c, const tlsneg_event *ev,
                          const tlsneg_parsed *p, tlsneg_result *out);

/* tlsneg_session_alert judges a plaintext alert (level: TLSNEG_ALERT_*,
 * description) on connection c, found on wire (TLSNEG_WIRE_TLS, _DTLS, or
 * _QUIC for a CONNECTION_CLOSE's TLS alert). */
void tlsneg_session_alert(tlsneg_session *s, tlsneg_conn *c, const tlsneg_event *ev,
                          tlsneg_wire wire, uint8_t level, uint8_t description, tlsneg_result *out);

/* tlsneg_session_close tells about a TCP RST (reset) or FIN on c (each
 * side's first is kept on c: the alerts after it say so). A server's
 * ending before c's ClientHello is complete (ev->sender tells the server
 * while c has none) ends no attempt yet: it is held on c, and is the
 * failure of the attempt whose ClientHello completes later on c
 * (tlsneg_result.early_frame); so is a server's fatal alert then
 * (tlsneg_result.held). Not once a ServerHello came on c, or the client
 * closed or reset it: no ClientHello can complete there any more. */
void tlsneg_session_close(tlsneg_session *s, tlsneg_conn *c, const tlsneg_event *ev, bool reset,
                          tlsneg_close_result *out);

/* tlsneg_session_progress tells that ev's source sent a ChangeCipherSpec or
 * an encrypted record on c: once both sides have, an attempt whose
 * ServerHello the capture misses is no failure. */
void tlsneg_session_progress(tlsneg_session *s, tlsneg_conn *c, const tlsneg_event *ev);

/* tlsneg_session_forget tells that the front end drops connection c (its
 * flow is over or idle): no event will name c again. The session layer lets
 * go of what it holds for c (today nothing beyond c itself) and clears c,
 * which the caller may then free. The tracker keeps c's attempts for the
 * verdicts of later connections, within its own cap (max_attempts). */
void tlsneg_session_forget(tlsneg_session *s, tlsneg_conn *c);

/* tlsneg_conn_keep_client_hello hands c the caller's lasting copy of the
 * facts of the ClientHello just analysed on c (out->facts, copied), for the
 * checks of the messages after it. Without it those checks run as if the
 * capture did not show the ClientHello. */
void tlsneg_conn_keep_client_hello(tlsneg_conn *c, const tlsneg_facts *kept);

/* tlsneg_session_from_client tells whether ev's source is the client of c
 * (the sender of its last ClientHello). */
bool tlsneg_session_from_client(const tlsneg_conn *c, const tlsneg_endpoint *src);

#endif
