/* SPDX-License-Identifier: GPL-2.0-or-later */
/* packets.h: the libpcap front end's packet path. Captured frames go in (a
 * link type number and the bytes as captured); what tlsneg analyses comes
 * out as events: each complete plaintext handshake message of the first
 * flight of each direction (TLS over TCP, DTLS over UDP, QUIC Initial
 * packets), each plaintext alert, each TCP FIN and RST.
 *
 * Pure C11 plus libgcrypt (QUIC Initial decryption): no libpcap, Wireshark
 * or GLib types, so unit tests and the fuzz target drive it with bytes. The
 * events are lib/replay's record (replay/events.h); the session layer
 * (lib/analysis/session.h) consumes them; nothing here judges a message. */
#ifndef TLSNEG_PCAP_PACKETS_H
#define TLSNEG_PCAP_PACKETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/events.h"

/* Link types (LINKTYPE_ and Linux DLT_ numbers, as pcap_datalink() returns
 * them) the front end reads. */
enum {
    TLSNEG_LINK_NULL = 0,     /* BSD loopback, host byte order family */
    TLSNEG_LINK_ETHERNET = 1, /* with 802.1Q / 802.1ad (QinQ) tags */
    TLSNEG_LINK_PPP = 9,      /* PPP, address/control and protocol compression */
    TLSNEG_LINK_RAW = 12,     /* DLT_RAW on Linux: IPv4 or IPv6 by version */
    TLSNEG_LINK_RAW_LT = 101, /* LINKTYPE_RAW as stored in files */
    TLSNEG_LINK_LOOP = 108,   /* OpenBSD loopback, network byte order family */
    TLSNEG_LINK_SLL = 113,    /* Linux cooked v1 */
    TLSNEG_LINK_IPV4 = 228,
    TLSNEG_LINK_IPV6 = 229,
    TLSNEG_LINK_SLL2 = 276, /* Linux cooked v2 */
};

/* The events (replay/events.h: the one record of them, which tlsneg-pcap
 * --events writes), as the packet path fills them:
 *   TLSNEG_EV_HELLO: a whole handshake message of a type it keeps
 *     (ClientHello, ServerHello, HelloVerifyRequest), from its type byte.
 *     wire TLS, QUIC: type, 3-byte length, body.
 *     DTLS: type, length, message_seq, fragment_offset 0, fragment_length =
 *       length, body: a DTLS message as if sent unfragmented (the front end
 *       put the fragments together).
 *     SSL2 (over TCP): an SSLv2-compatible ClientHello or an SSL 2.0
 *       SERVER-HELLO from msg_type to the end of its record (the 2-byte
 *       record header is not part of it; record_version is 0x0002).
 *     has_record and record_version: of the record that holds the
 *     message's first byte (TCP, DTLS); none for QUIC. The bytes are valid
 *     only during the callback.
 *   TLSNEG_EV_ALERT: a plaintext alert (QUIC: a CONNECTION_CLOSE with a
 *     crypto error, 0x100 + the alert's description).
 *   TLSNEG_EV_FIN, TLSNEG_EV_RST: a TCP FIN or RST.
 *   TLSNEG_EV_PROGRESS: the first ChangeCipherSpec (20) or application-data
 *     (23) record of a direction over TCP, read off the record's
 *     content-type byte, as the plugin does: the sender's handshake is
 *     making progress (tlsneg_session_progress, which keeps a flag per
 *     side: later such records would tell it nothing). Once per direction,
 *     in the frame that completes that record, whether read in order or,
 *     past a lost segment, beyond the gap that a segment starting with a
 *     record header leads to.
 *   TLSNEG_EV_END: the packet path forgets the flow (after an RST or both
 *     FINs, idle for the timeout, or the oldest at the table's cap): no
 *     later event names this conn; the consumer drops what it keeps for it
 *     (tlsneg_session_forget). frame and time are those of the packet being
 *     read; src is the client (sender CLIENT, guessed if the flow never
 *     told); not counted in stats.events. tlsneg_pcap_finish sends it for
 *     every flow still held (at the end of a file); not sent by
 *     tlsneg_pcap_free.
 * Every event: conn, the flow's id (1 and up, stable while the flow is
 * tracked); udp; wire, the flow's (TLS over TCP, DTLS or QUIC over UDP)
 * where no hello says SSL2; frame, the 1-based index of the packet that
 * completed it, and time_us, that packet's time (microseconds since the
 * epoch); the sender: the client is the sender of the first SYN (without
 * ACK), else of the first ClientHello, else of the first QUIC Initial seen;
 * failing all that the sender of the flow's first packet (sender_guessed). */
typedef void (*tlsneg_pcap_event_fn)(void *user, const tlsneg_ev *ev);

typedef struct {
    uint32_t max_flows;      /* flow table cap (0: default 1,000,000) */
    uint32_t idle_timeout_s; /* a flow unseen this long is dropped (0: default 300) */
    uint32_t max_buffer;     /* reassembly bytes per direction (0: default 65536) */
} tlsneg_pcap_config;

#define TLSNEG_PCAP_MAX_LINKTYPES 8

/* Counters, for the end-of-run summary and the tests. */
typedef struct {
    uint64_t packets, bytes;
    uint64_t snapped;      /* captured shorter than on the wire */
    uint64_t unknown_link; /* frames of a link type not read */
    int unknown_linktype[TLSNEG_PCAP_MAX_LINKTYPES];
    uint64_t unknown_linktype_count[TLSNEG_PCAP_MAX_LINKTYPES];
    uint64_t not_ip; /* link payload neither IPv4 nor IPv6 (ARP, ...) */
    uint64_t ipv4, ipv6, tcp, udp;
    uint64_t malformed;         /* a header that does not fit its bytes */
    uint64_t fragments_skipped; /* IP fragments after the first */
    uint64_t flows, flows_evicted_idle, flows_evicted_cap;
    uint64_t flows_closed;      /* TCP flows dropped after an RST or both FINs */
    uint64_t tcp_out_of_order;  /* segments stored ahead of a gap */
    uint64_t tcp_retransmitted; /* segments (or parts) already seen */
    uint64_t tcp_dropped;       /* bytes beyond the per-direction buffer */
    uint64_t tcp_gave_up;       /* directions whose stream is not TLS records */
    uint64_t starttls;          /* TCP flows read as TLS after a plaintext prefix */
    uint64_t starttls_too_long; /* ... given up: over 8 KB of plaintext in a direction */
    uint64_t not_plaintext;     /* handshake and alert records not read: encrypted, in a
                                       stream picked up mid-way, or no alert (core/alerts.h) */
    uint64_t dtls_records;
    uint64_t quic_initials, quic_decrypted, quic_failed;
    uint64_t events;
} tlsneg_pcap_stats;

typedef struct tlsneg_pcap tlsneg_pcap;

/* tlsneg_pcap_new returns NULL when out of memory or when libgcrypt cannot
 * be initialised. cfg may be NULL (defaults). fn is called for every event,
 * in packet order. */
tlsneg_pcap *tlsneg_pcap_new(const tlsneg_pcap_config *cfg, tlsneg_pcap_event_fn fn, void *user);
void tlsneg_pcap_free(tlsneg_pcap *p);

/* tlsneg_pcap_finish ends every flow still held (the input is over): a
 * TLSNEG_PCAP_END for each, the least recently seen first (the order of the
 * flows' last packets), with the frame and time of the last packet read;
 * the flows are forgotten, as by an idle timeout. Packets read after it start
 * new flows with new connection ids. */
void tlsneg_pcap_finish(tlsneg_pcap *p);

/* tlsneg_pcap_packet reads one frame of link type linktype: caplen bytes as
 * captured, wirelen on the wire. Frames must come in capture order, numbered
 * from 1. Never fails: what it cannot read it counts. */
void tlsneg_pcap_packet(tlsneg_pcap *p, int linktype, uint32_t frame, uint64_t time_us,
                        const uint8_t *data, size_t caplen, size_t wirelen);

const tlsneg_pcap_stats *tlsneg_pcap_get_stats(const tlsneg_pcap *p);

/* tlsneg_pcap_link_supported tells whether linktype is one of the above. */
bool tlsneg_pcap_link_supported(int linktype);

#endif
