/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_packets: the libpcap front end's packet path (tlsneg-pcap/).
 *
 * Target functions: tlsneg_pcap_packet (tlsneg_net_decode, the flow table,
 * TCP reassembly, TLS records, SSLv2-compatible hellos, DTLS fragments,
 * QUIC Initial parsing, decryption attempts and CRYPTO frames),
 * tlsneg_pcap_finish (an END for every flow still held), tlsneg_pcap_get_stats,
 * tlsneg_pcap_free; tlsneg_ev_write and tlsneg_ev_parse (lib/replay) on
 * every event.
 *
 * Input:
 *   byte 0      link type: an index into link_types below (modulo its size)
 *   byte 1      bit 0: a flow table of 4 (else 256) and a 1-second idle
 *               timeout, so that eviction runs
 *   then frames: a 2-byte big-endian length and that many bytes, until the
 *               input ends (a short last frame is cut to what is left)
 * Each frame is copied into a heap block of exactly its size (ASan sees any
 * read past it); frame n is stamped n * 0.4 s.
 *
 * Promises checked (abort on breach): every event names a frame already
 * given, frames never go back, a handshake event has a length of at least
 * 4 (DTLS 12, SSLv2 9) matching the message's own length field (SSLv2: its
 * type is CLIENT-HELLO or SERVER-HELLO), other events no bytes, TCP closes
 * and progress are over TCP, every event says its sender; every event's
 * line (tlsneg_ev_write, tlsneg-pcap --events) reads back
 * (tlsneg_ev_parse) as the same event; the counters add up (every packet is
 * counted once). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packets.h"

static const int link_types[] = {
    TLSNEG_LINK_ETHERNET, TLSNEG_LINK_RAW, TLSNEG_LINK_SLL,  TLSNEG_LINK_SLL2, TLSNEG_LINK_NULL,
    TLSNEG_LINK_LOOP,     TLSNEG_LINK_PPP, TLSNEG_LINK_IPV4, TLSNEG_LINK_IPV6, 147,
};

typedef struct {
    uint32_t frame;
    uint32_t last_event_frame;
} state;

/* check_hello: a handshake event's bytes are a whole message of its wire. */
static void check_hello(const tlsneg_ev *ev)
{
    bool ssl2 = ev->wire == TLSNEG_WIRE_SSL2;
    size_t header = ev->wire == TLSNEG_WIRE_DTLS ? 12 : 4;
    if (!ev->bytes || ev->len < (ssl2 ? 9 : header) ||
        (ssl2 && ev->bytes[0] != 1 && ev->bytes[0] != 4)) {
        abort();
    }
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < ev->len; i++) {
        sink ^= ev->bytes[i];
    }
    (void)sink;
    if (!ssl2) {
        size_t declared = (size_t)ev->bytes[1] << 16 | (size_t)ev->bytes[2] << 8 | ev->bytes[3];
        if (declared + header != ev->len) {
            abort();
        }
    }
}

/* round_trip: the event's line (tlsneg-pcap --events) reads back as the
 * same event. */
static void round_trip(const tlsneg_ev *ev)
{
    static uint8_t buf[1 << 17];
    char *line = NULL;
    size_t line_len = 0;
    FILE *f = open_memstream(&line, &line_len);
    if (!f) {
        return;
    }
    tlsneg_ev_write(f, ev);
    fclose(f);
    tlsneg_ev back;
    bool same = tlsneg_ev_parse(line, &back, buf, sizeof buf) == 1 && back.kind == ev->kind &&
                back.udp == ev->udp && back.conn == ev->conn && back.frame == ev->frame &&
                back.time_us == ev->time_us && back.addr_len == ev->addr_len &&
                memcmp(back.src, ev->src, ev->addr_len) == 0 &&
                memcmp(back.dst, ev->dst, ev->addr_len) == 0 && back.sport == ev->sport &&
                back.dport == ev->dport && back.sender == ev->sender &&
                back.sender_guessed == ev->sender_guessed && back.alert == ev->alert &&
                back.has_record == ev->has_record && back.record_version == ev->record_version &&
                back.len == ev->len &&
                (ev->len == 0 || memcmp(back.bytes, ev->bytes, ev->len) == 0) &&
                (back.wire == ev->wire || (!ev->udp && ev->kind != TLSNEG_EV_HELLO));
    free(line);
    if (!same) {
        abort();
    }
}

static void on_event(void *user, const tlsneg_ev *ev)
{
    state *s = user;
    if (ev->frame != s->frame || ev->frame < s->last_event_frame) {
        abort();
    }
    s->last_event_frame = ev->frame;
    switch (ev->kind) {
    case TLSNEG_EV_HELLO:
        check_hello(ev);
        break;
    case TLSNEG_EV_FIN:
    case TLSNEG_EV_RST:
    case TLSNEG_EV_PROGRESS:
        if (ev->udp || ev->wire != TLSNEG_WIRE_TLS) {
            abort();
        }
        break;
    case TLSNEG_EV_ALERT:
        /* a level off the wire, none for QUIC's CONNECTION_CLOSE */
        if (ev->wire == TLSNEG_WIRE_QUIC ? ev->alert_level != TLSNEG_ALERT_NO_LEVEL
                                         : ev->alert_level != TLSNEG_ALERT_WARNING &&
                                               ev->alert_level != TLSNEG_ALERT_FATAL) {
            abort();
        }
        break;
    case TLSNEG_EV_END:
        break;
    }
    if (ev->kind != TLSNEG_EV_HELLO && ev->len != 0) {
        abort();
    }
    if (ev->addr_len != 4 && ev->addr_len != 16) {
        abort();
    }
    if (ev->sender != TLSNEG_SENDER_CLIENT && ev->sender != TLSNEG_SENDER_SERVER) {
        abort();
    }
    round_trip(ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) {
        return 0;
    }
    int link = link_types[data[0] % (sizeof link_types / sizeof link_types[0])];
    /* A table of 256 flows at most: the default (a million) costs a 4 MB
     * bucket array per input. */
    tlsneg_pcap_config cfg = {256, 0, 0};
    if (data[1] & 1) {
        cfg.max_flows = 4;
        cfg.idle_timeout_s = 1;
    }
    state s = {0, 0};
    tlsneg_pcap *p = tlsneg_pcap_new(&cfg, on_event, &s);
    if (!p) {
        return 0;
    }
    size_t pos = 2;
    uint64_t given = 0;
    while (pos + 2 <= size) {
        size_t n = (size_t)data[pos] << 8 | data[pos + 1];
        pos += 2;
        if (n > size - pos) {
            n = size - pos;
        }
        uint8_t *frame = malloc(n ? n : 1);
        if (!frame) {
            break;
        }
        memcpy(frame, data + pos, n);
        pos += n;
        s.frame++;
        given++;
        tlsneg_pcap_packet(p, link, s.frame, 400000u * s.frame, frame, n, n + (s.frame & 1));
        free(frame);
    }
    tlsneg_pcap_finish(p);
    const tlsneg_pcap_stats *st = tlsneg_pcap_get_stats(p);
    uint64_t sorted =
        st->unknown_link + st->not_ip + st->malformed + st->fragments_skipped + st->ipv4 + st->ipv6;
    if (st->packets != given || sorted != given || st->tcp + st->udp > st->ipv4 + st->ipv6) {
        abort();
    }
    tlsneg_pcap_free(p);
    return 0;
}
