/* SPDX-License-Identifier: GPL-2.0-or-later */
/* events.h: a capture's events, the one record of them, their one text
 * format, and their replay through the session layer (analysis/session.h).
 * tlsneg-pcap's packet path finds them (tlsneg-pcap/packets.h) and
 * tlsneg-pcap --events writes them (tlsneg_ev_write);
 * tests/captures/extract_events.py writes them from a capture with
 * tshark's own dissection; tlsneg-dump --events and the session unit tests
 * read them (tlsneg_ev_parse) and replay them (tlsneg_replay_event).
 *
 * One event per line, fields separated by spaces; '#' starts a comment line:
 *   hello    FRAME TIME_US tcp|udp SRC SPORT DST DPORT [ATTR...] WIRE RECORD_VERSION HEX
 *   alert    FRAME TIME_US tcp|udp SRC SPORT DST DPORT [ATTR...] DESCRIPTION
 *   fin      FRAME TIME_US tcp SRC SPORT DST DPORT [ATTR...]
 *   rst      FRAME TIME_US tcp SRC SPORT DST DPORT [ATTR...]
 *   progress FRAME TIME_US tcp SRC SPORT DST DPORT [ATTR...]
 *   end      FRAME TIME_US tcp|udp CLIENT CPORT SERVER SPORT [ATTR...]
 * FRAME is the frame number, TIME_US the capture time in microseconds, SRC
 * and DST IPv4 or IPv6 addresses, WIRE tls, dtls, quic or ssl2,
 * RECORD_VERSION the version of the record holding the message as 0x%04x, or
 * '-' when there is none (QUIC), HEX the message from its type byte (ssl2:
 * from msg_type to the end of the record; dtls: with its 12-byte header).
 * DESCRIPTION is the alert's description in decimal. progress: the sender's
 * first ChangeCipherSpec or encrypted record; end: the front end forgets
 * the connection (no later event names it). The attributes, each
 * KEY=VALUE, any of them, in any order:
 *   conn=N                   the front end's connection id (1 and up)
 *   opened=TIME_US           when the connection began (its first frame, the
 *                            TCP SYN), as the transport tells
 *   from=client|server       who sent it, as the transport tells (the TCP SYN)
 *   guess=client|server      who sent it, guessed (the sender of the flow's
 *                            first packet is taken for the client): the
 *                            session layer is told it does not know
 *   wire=tls|dtls|quic       the connection's wire (hello lines say it as WIRE)
 *   level=1|2                an alert: its level, 1 warning, 2 fatal; absent
 *                            where the wire has none (QUIC's CONNECTION_CLOSE)
 *                            and in files written before it was kept (December
 *                            2026): such an alert is taken as fatal
 *   segments=N[:F,F...]      a hello: the N TCP segments (or the DTLS record)
 *                            that carried it, and the frames of the first 8
 * A connection is the transport, the pair of endpoints in either direction
 * and the conn attribute. */
#ifndef TLSNEG_TOOLS_EVENTS_H
#define TLSNEG_TOOLS_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/session.h"

typedef enum {
    TLSNEG_EV_HELLO, /* a handshake message (hello, or any type the front end keeps) */
    TLSNEG_EV_ALERT, /* a plaintext alert (QUIC: a CONNECTION_CLOSE's TLS alert) */
    TLSNEG_EV_FIN,
    TLSNEG_EV_RST,
    TLSNEG_EV_PROGRESS, /* a ChangeCipherSpec or encrypted record: the handshake went on */
    TLSNEG_EV_END,      /* the front end forgets the connection */
} tlsneg_ev_kind;

typedef struct {
    tlsneg_ev_kind kind;
    bool udp;
    /* A hello's wire (ssl2: an SSLv2-compatible ClientHello or an SSL 2.0
     * SERVER-HELLO); other events: their connection's, if said (tls, dtls,
     * quic). */
    tlsneg_wire wire;
    /* Who sent it (TLSNEG_SENDER_UNKNOWN: not said); sender_guessed: the
     * front end's guess, which the session layer is not told. */
    tlsneg_sender sender;
    bool sender_guessed;
    uint64_t conn; /* the front end's connection id, or 0 */
    uint32_t frame;
    uint64_t time_us;
    uint64_t opened_us; /* when the connection began (TCP: its first frame), or 0 */
    size_t addr_len;    /* 4 or 16, both ends */
    uint8_t src[TLSNEG_ADDR_MAX], dst[TLSNEG_ADDR_MAX];
    uint16_t sport, dport;
    bool has_record;
    uint16_t record_version;
    uint8_t alert;        /* an alert's description */
    uint8_t alert_level;  /* an alert's level (TLSNEG_ALERT_*): 0 when none is said */
    const uint8_t *bytes; /* a hello: the message, in the producer's buffer */
    size_t len;
    tlsneg_segments segments; /* a hello: what carried it (count 0: not known) */
} tlsneg_ev;

/* tlsneg_ev_parse reads one line into ev, the message bytes into buf (at
 * most cap). Returns 1 for an event, 0 for a blank or comment line, -1 for
 * a line it cannot read. */
int tlsneg_ev_parse(const char *line, tlsneg_ev *ev, uint8_t *buf, size_t cap);

/* tlsneg_ev_write writes ev as one line on out, with every attribute it
 * has (conn and opened if not 0, from or guess if the sender is said, wire
 * on the lines other than hello). */
void tlsneg_ev_write(FILE *out, const tlsneg_ev *ev);

/* tlsneg_ev_frame frames a hello event's message with the core
 * (tlsneg_frame_message); false when it is no hello the core reads (or a
 * DTLS fragment). */
bool tlsneg_ev_frame(tlsneg_message *m, const tlsneg_ev *ev);

/* tlsneg_ev_session_event: where and when ev happened, for the session
 * layer (pointing into ev). */
tlsneg_event tlsneg_ev_session_event(const tlsneg_ev *ev);

/* A replay: a session and a table of connections (the oldest is forgotten
 * when max_conns are held). */
typedef struct tlsneg_replay tlsneg_replay;

tlsneg_replay *tlsneg_replay_new(const tlsneg_tracker_config *cfg, size_t max_conns);
void tlsneg_replay_free(tlsneg_replay *r);

/* What one event gave. */
typedef struct {
    bool has_result; /* a hello or alert: result is filled */
    tlsneg_result result;
    bool has_close; /* a FIN or RST on a known connection: close is filled */
    tlsneg_close_result close;
    uint64_t conn; /* the connection's id */
} tlsneg_replay_out;

/* tlsneg_replay_event feeds one event to the session layer, as tlsneg-pcap
 * does: a hello that is not complete in its bytes (a DTLS fragment) gives
 * nothing, nor do progress (which counts only on a connection already
 * seen) and end (which forgets the connection). */
void tlsneg_replay_event(tlsneg_replay *r, const tlsneg_ev *ev, tlsneg_replay_out *out);

#endif
