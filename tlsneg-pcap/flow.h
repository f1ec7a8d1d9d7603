/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow.h: the packet path's own (packets.h): a flow and what it holds, the
 * packet path's state, and what its files call of each other: the flow
 * table (flows.c), the events (emit.c), TCP (tcp.c), DTLS (dtls.c) and
 * QUIC (quicflow.c). Internal to the packet path. */
#ifndef TLSNEG_PCAP_FLOW_H
#define TLSNEG_PCAP_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conntab.h"
#include "core/hello.h"
#include "net.h"
#include "packets.h"
#include "quic.h"
#include "starttls.h"

/* RFC 8446 5.2: a record carries at most 2^14 + 2048 bytes (ciphertext). */
#define TLSNEG_MAX_RECORD (16384 + 2048)

typedef enum { KIND_NONE, KIND_TCP, KIND_DTLS, KIND_QUIC } flow_kind;

/* A handshake message being put together from the payloads of several
 * records (TLS) or from a CRYPTO stream (QUIC). */
typedef struct {
    uint8_t hdr[4];
    uint8_t hdr_got;
    bool keep;               /* a type the front end emits: its bytes are collected */
    uint16_t record_version; /* of the record holding the first byte */
    bool has_record_version;
    uint32_t len, got; /* body length, body bytes seen */
    uint8_t *msg;      /* header + body while keep */
    uint64_t start;    /* stream offset of its type byte, if the feed has a seg_map */
    bool one_feed;     /* started in the feed that is reading it (one TLS record) */
    /* TLS: the segments of the records read so far, when it spans several
     * feeds; segs_lost (TLS and QUIC): a feed had no map. */
    tlsneg_segments segs;
    bool segs_lost;
} hs_msg;

/* One TCP segment's new bytes in its direction's stream: [start, end). */
typedef struct {
    uint32_t frame;
    uint64_t start, end;
} seg_span;

/* Which segments hold the bytes handed to tlsneg_hs_feed: off is the
 * stream offset of the first of them; segs (n of them, in any order) cover
 * at least those bytes. */
typedef struct {
    uint64_t off;
    const seg_span *segs;
    size_t n;
} seg_map;

/* The spans that brought a direction's bytes not yet read (TCP segments,
 * QUIC CRYPTO frames), grown as they come (seglog.c); lost: more came than
 * the caller's bound, and its counts stay unknown until the bytes they
 * brought are read (the caller clears it). */
typedef struct {
    seg_span *v;
    uint16_t n, cap;
    bool lost;
} seg_log;

/* tlsneg_seg_log_add remembers that frame brought the stream bytes
 * [start, end), up to max spans. */
void tlsneg_seg_log_add(seg_log *l, uint16_t max, uint32_t frame, uint64_t start, uint64_t end);
/* tlsneg_seg_log_trim forgets the spans that end at or before from. */
void tlsneg_seg_log_trim(seg_log *l, uint64_t from);
/* tlsneg_seg_log_map: the log as the map of the bytes from stream offset
 * off (out); NULL when spans were lost. */
const seg_map *tlsneg_seg_log_map(const seg_log *l, uint64_t off, seg_map *out);
void tlsneg_seg_log_free(seg_log *l);

/* tlsneg_seg_count counts into out the segments of map that hold any byte
 * of the stream range [start, end), in stream order. */
void tlsneg_seg_count(tlsneg_segments *out, const seg_map *map, uint64_t start, uint64_t end);
/* tlsneg_seg_count_distinct counts each frame of the spans of map that hold
 * any byte of [start, end) once (datagrams); false when it cannot tell. */
bool tlsneg_seg_count_distinct(tlsneg_segments *out, const seg_map *map, uint64_t start,
                               uint64_t end);

/* Each transport's state of a flow, in its own file. */
typedef struct tcp_dir tcp_dir;
typedef struct dtls_dir dtls_dir;
typedef struct quic_state quic_state;

typedef struct flow {
    tlsneg_conntab_node node; /* first: its place in the flow table */
    struct flow *prev, *next; /* by last packet */
    uint64_t conn;
    uint64_t first_us; /* its first packet (TCP: the SYN, if seen) */
    uint64_t last_us;
    uint8_t l4;
    uint8_t addr_len;
    uint8_t kind;
    int8_t client; /* endpoint index of the client, -1 unknown */
    bool client_guessed;
    bool hrr; /* a HelloRetryRequest was seen */
    bool hello_after_hrr[2];
    bool client_hello_from[2]; /* endpoint sent a ClientHello */
    bool rst;                  /* a TCP reset was seen (and reported) */
    int8_t rst_dir;            /* the endpoint that sent it */
    uint8_t addr[2][16];
    uint16_t port[2];
    tcp_dir *tcp[2];
    dtls_dir *dtls[2];
    quic_state *quic;
    tlsneg_starttls *starttls; /* a TCP stream that did not start with TLS */
} flow;

struct tlsneg_pcap {
    tlsneg_pcap_config cfg;
    tlsneg_pcap_event_fn fn;
    void *user;
    tlsneg_pcap_stats st;
    tlsneg_conntab flows;
    flow *oldest, *newest; /* by last packet */
    uint64_t next_conn;
    tlsneg_quic_crypto *crypto;
    uint8_t *scratch; /* a decrypted QUIC packet */
    size_t scratch_len;
    /* the packet being read */
    uint32_t frame;
    uint64_t time_us;
};

/* ---- the flow table (flows.c) ---- */

/* tlsneg_flows_init sizes the table for p->cfg.max_flows; false when out
 * of memory. */
bool tlsneg_flows_init(tlsneg_pcap *p);
/* tlsneg_flows_finish forgets every flow, each with its TLSNEG_EV_END,
 * the least recently seen first. */
void tlsneg_flows_finish(tlsneg_pcap *p);
/* tlsneg_flows_free forgets every flow, untold, and frees the table. */
void tlsneg_flows_free(tlsneg_pcap *p);
/* tlsneg_flows_expire forgets the flows idle for the timeout. */
void tlsneg_flows_expire(tlsneg_pcap *p);
/* tlsneg_flow_hash: the same for both directions of n's flow. */
uint32_t tlsneg_flow_hash(const tlsneg_net_packet *n);
/* tlsneg_flow_find returns n's flow (of hash h) and which endpoint sent n
 * (*out_dir), or NULL. */
flow *tlsneg_flow_find(tlsneg_pcap *p, const tlsneg_net_packet *n, uint32_t h, int *out_dir);
/* tlsneg_flow_new starts n's flow (its sender is endpoint 0), forgetting
 * the least recently seen one at the cap; NULL when out of memory. */
flow *tlsneg_flow_new(tlsneg_pcap *p, const tlsneg_net_packet *n, uint32_t h);
/* tlsneg_flow_seen: f had a packet now (the most recently seen). */
void tlsneg_flow_seen(tlsneg_pcap *p, flow *f);
/* tlsneg_flow_remove forgets f; tell: send its TLSNEG_EV_END first. */
void tlsneg_flow_remove(tlsneg_pcap *p, flow *f, bool tell);

/* ---- events (emit.c) ---- */

/* tlsneg_emit reports a TCP FIN or RST or progress, sent by endpoint d of
 * f over wire (TLS, DTLS, QUIC). */
void tlsneg_emit(tlsneg_pcap *p, flow *f, int d, tlsneg_wire wire, tlsneg_ev_kind kind);
/* tlsneg_emit_alert reports an alert (its level, TLSNEG_ALERT_NO_LEVEL for
 * QUIC's CONNECTION_CLOSE, and its description) sent by endpoint d of f
 * over wire. */
void tlsneg_emit_alert(tlsneg_pcap *p, flow *f, int d, tlsneg_wire wire, uint8_t level,
                       uint8_t description);
/* tlsneg_emit_message reports a whole handshake message sent by endpoint d
 * of f over wire (SSL2: an SSL 2.0 record's), carried in a record of
 * version rv if has_rv, by the segments (TCP) or the record (DTLS) segs
 * says (NULL: not known). */
void tlsneg_emit_message(tlsneg_pcap *p, flow *f, int d, tlsneg_wire wire, const uint8_t *msg,
                         size_t len, bool has_rv, uint16_t rv, const tlsneg_segments *segs);
/* tlsneg_hs_keep_type: a handshake message type the packet path reports. */
bool tlsneg_hs_keep_type(uint8_t type);
/* tlsneg_hs_feed adds n bytes of handshake data and emits every message
 * they complete; with a map (one TLS record's payload at a time), a
 * message wholly in these bytes is told with the segments that carried it,
 * one spread over several feeds (records) only when they all came in one
 * segment, as the plugin sees them. QUIC (the CRYPTO stream, its map the
 * frames of every CRYPTO frame): the datagrams that carried the message,
 * each once. Returns false when a message does not fit the buffer limit
 * (the rest of this direction is then not read). */
bool tlsneg_hs_feed(tlsneg_pcap *p, flow *f, int d, hs_msg *h, tlsneg_wire wire, const uint8_t *b,
                    size_t n, bool has_rv, uint16_t rv, const seg_map *map);
void tlsneg_hs_free(hs_msg *h);

/* ---- the transports (tcp.c, dtls.c, quicflow.c) ---- */

/* tlsneg_tcp_segment reads a TCP segment n (its flow's hash h) of flow f
 * (sent by its endpoint d), or of a new flow (f NULL); the flow is
 * forgotten once over. */
void tlsneg_tcp_segment(tlsneg_pcap *p, const tlsneg_net_packet *n, uint32_t h, flow *f, int d);
void tlsneg_tcp_dir_free(tcp_dir *t);

/* tlsneg_dtls_looks: a UDP payload that starts with a DTLS record. */
bool tlsneg_dtls_looks(const uint8_t *b, size_t n);
/* tlsneg_dtls_datagram reads the DTLS records of a datagram. */
void tlsneg_dtls_datagram(tlsneg_pcap *p, flow *f, int d, const uint8_t *b, size_t n);
void tlsneg_dtls_dir_free(dtls_dir *t);

/* tlsneg_quicflow_datagram reads the QUIC packets of a datagram. */
void tlsneg_quicflow_datagram(tlsneg_pcap *p, flow *f, int d, const uint8_t *b, size_t n);
void tlsneg_quicflow_free(quic_state *q);

#endif
