/* SPDX-License-Identifier: GPL-2.0-or-later */
/* events.h: a capture's sequence of events as text, and its replay through
 * the session layer (analysis/session.h): what tlsneg-dump --events and the
 * session unit tests read. tests/captures/extract_events.py writes it from a capture
 * with tshark's own dissection.
 *
 * One event per line, fields separated by spaces; '#' starts a comment line:
 *   hello FRAME TIME_US tcp|udp SRC SPORT DST DPORT WIRE RECORD_VERSION HEX
 *   alert FRAME TIME_US tcp|udp SRC SPORT DST DPORT DESCRIPTION
 *   fin   FRAME TIME_US tcp SRC SPORT DST DPORT
 *   rst   FRAME TIME_US tcp SRC SPORT DST DPORT
 * FRAME is the frame number, TIME_US the capture time in microseconds, SRC
 * and DST IPv4 or IPv6 addresses, WIRE tls, dtls, quic or ssl2,
 * RECORD_VERSION the version of the record holding the message as 0x%04x, or
 * '-' when there is none (QUIC), HEX the message from its type byte (ssl2:
 * from msg_type to the end of the record). DESCRIPTION is the alert's
 * description in decimal. A connection is the transport and the pair of
 * endpoints, in either direction. */
#ifndef TLSNEG_TOOLS_EVENTS_H
#define TLSNEG_TOOLS_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/session.h"

typedef enum { TLSNEG_EV_HELLO, TLSNEG_EV_ALERT, TLSNEG_EV_FIN, TLSNEG_EV_RST } tlsneg_ev_kind;

typedef struct {
    tlsneg_ev_kind kind;
    bool udp;
    uint32_t frame;
    uint64_t time_us;
    uint8_t src[TLSNEG_ADDR_MAX], dst[TLSNEG_ADDR_MAX];
    size_t addr_len; /* 4 or 16, both ends */
    uint16_t sport, dport;
    tlsneg_wire wire;
    bool has_record;
    uint16_t record_version;
    uint8_t alert;
    uint8_t *bytes; /* the message, in the caller's buffer */
    size_t len;
} tlsneg_ev;

/* tlsneg_ev_parse reads one line into ev, the message bytes into buf (at
 * most cap). Returns 1 for an event, 0 for a blank or comment line, -1 for
 * a line it cannot read. */
int tlsneg_ev_parse(const char *line, tlsneg_ev *ev, uint8_t *buf, size_t cap);

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

/* tlsneg_replay_event feeds one event to the session layer. A hello that is
 * not complete in its bytes (a DTLS fragment) gives nothing. */
void tlsneg_replay_event(tlsneg_replay *r, const tlsneg_ev *ev, tlsneg_replay_out *out);

#endif
