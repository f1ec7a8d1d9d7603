/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_packets: the libpcap front end's packet path (tlsneg-pcap/).
 *
 * Target functions: tlsneg_pcap_packet (tlsneg_net_decode, the flow table,
 * TCP reassembly, TLS records, SSLv2-compatible hellos, DTLS fragments,
 * QUIC Initial parsing, decryption attempts and CRYPTO frames),
 * tlsneg_pcap_finish (an END for every flow still held), tlsneg_pcap_get_stats,
 * tlsneg_pcap_free.
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
 * given, frames never go back, a handshake event has bytes whose first is
 * its msg_type (the SSLv2 form: 1) and a length of at least 4 (DTLS 12,
 * SSLv2 9) matching the message's own length field, an alert has 2 bytes, a
 * close none; the counters add up (every packet is counted once). */
#include <stdint.h>
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

static void on_event(void *user, const tlsneg_pcap_event *ev)
{
    state *s = user;
    if (ev->frame != s->frame || ev->frame < s->last_event_frame) {
        abort();
    }
    s->last_event_frame = ev->frame;
    switch (ev->kind) {
    case TLSNEG_PCAP_HANDSHAKE: {
        size_t min = ev->sslv2 ? 9 : ev->transport == TLSNEG_PCAP_DTLS ? 12 : 4;
        if (!ev->bytes || ev->len < min || ev->bytes[0] != ev->msg_type) {
            abort();
        }
        volatile uint8_t sink = 0;
        for (size_t i = 0; i < ev->len; i++) {
            sink ^= ev->bytes[i];
        }
        (void)sink;
        if (!ev->sslv2) {
            size_t declared = (size_t)ev->bytes[1] << 16 | (size_t)ev->bytes[2] << 8 | ev->bytes[3];
            if (declared + (ev->transport == TLSNEG_PCAP_DTLS ? 12 : 4) != ev->len) {
                abort();
            }
        }
        break;
    }
    case TLSNEG_PCAP_ALERT:
        if (!ev->bytes || ev->len != 2) {
            abort();
        }
        break;
    case TLSNEG_PCAP_CLOSE:
    case TLSNEG_PCAP_PROGRESS:
        if (ev->len != 0 || ev->transport != TLSNEG_PCAP_TCP) {
            abort();
        }
        break;
    case TLSNEG_PCAP_END:
        if (ev->len != 0) {
            abort();
        }
        break;
    }
    if (ev->addr_len != 4 && ev->addr_len != 16) {
        abort();
    }
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
