/* SPDX-License-Identifier: GPL-2.0-or-later */
/* emit.c: the packet path's events (flow.h): an event names its flow, its
 * sender and the packet that completed it; whole handshake messages are put
 * together from a byte stream (TLS record payloads, QUIC CRYPTO data). */
#include <stdlib.h>
#include <string.h>

#include "core/hello.h"
#include "flow.h"

static void deliver(tlsneg_pcap *p, flow *f, int d, tlsneg_ev *ev)
{
    if (f->client < 0) {
        /* No SYN and no hello: the sender of the flow's first packet. */
        f->client = 0;
        f->client_guessed = true;
    }
    ev->conn = f->conn;
    ev->udp = f->l4 == 17;
    ev->sender = f->client == d ? TLSNEG_SENDER_CLIENT : TLSNEG_SENDER_SERVER;
    ev->sender_guessed = f->client_guessed;
    ev->addr_len = f->addr_len;
    memcpy(ev->src, f->addr[d], 16);
    memcpy(ev->dst, f->addr[1 - d], 16);
    ev->sport = f->port[d];
    ev->dport = f->port[1 - d];
    ev->frame = p->frame;
    ev->time_us = p->time_us;
    /* As the plugin knows it from TCP (its conversation's first frame). */
    ev->opened_us = f->l4 == 6 ? f->first_us : 0;
    p->st.events++;
    p->fn(p->user, ev);
}

/* ev_start makes ev an event of kind on wire, all else zero, for deliver
 * to fill. */
static void ev_start(tlsneg_ev *ev, tlsneg_ev_kind kind, tlsneg_wire wire)
{
    memset(ev, 0, sizeof *ev);
    ev->kind = kind;
    ev->wire = wire;
}

void tlsneg_emit(tlsneg_pcap *p, flow *f, int d, tlsneg_wire wire, tlsneg_ev_kind kind)
{
    tlsneg_ev ev;
    ev_start(&ev, kind, wire);
    deliver(p, f, d, &ev);
}

void tlsneg_emit_alert(tlsneg_pcap *p, flow *f, int d, tlsneg_wire wire, uint8_t level,
                       uint8_t description)
{
    tlsneg_ev ev;
    ev_start(&ev, TLSNEG_EV_ALERT, wire);
    ev.alert_level = level;
    ev.alert = description;
    deliver(p, f, d, &ev);
}

void tlsneg_emit_message(tlsneg_pcap *p, flow *f, int d, tlsneg_wire wire, const uint8_t *msg,
                         size_t len, bool has_rv, uint16_t rv, const tlsneg_segments *segs)
{
    bool sslv2 = wire == TLSNEG_WIRE_SSL2;
    /* SSL 2.0: CLIENT-HELLO 1, SERVER-HELLO 4 (TLSNEG_SSL2_*). */
    uint8_t type = msg[0];
    /* The client is who sends a ClientHello, unless a SYN said otherwise. */
    if (f->client < 0 || f->client_guessed) {
        if (type == 1) {
            f->client = (int8_t)d;
            f->client_guessed = false;
        } else if (type == 2 || (sslv2 && type == TLSNEG_SSL2_SERVER_HELLO)) {
            f->client = (int8_t)(1 - d);
            f->client_guessed = false;
        }
    }
    if (type == 1) {
        f->client_hello_from[d] = true;
    }
    size_t random_at = wire == TLSNEG_WIRE_DTLS ? 14 : 6;
    if (!sslv2 && type == 2 && len >= random_at + 32 &&
        memcmp(msg + random_at, tlsneg_hrr_random, 32) == 0) {
        f->hrr = true;
    } else if ((type == 1 || type == 2) && f->hrr) {
        f->hello_after_hrr[d] = true;
    }
    tlsneg_ev ev;
    ev_start(&ev, TLSNEG_EV_HELLO, wire);
    ev.has_record = has_rv;
    ev.record_version = rv;
    ev.bytes = msg;
    ev.len = len;
    if (segs) {
        ev.segments = *segs;
    }
    deliver(p, f, d, &ev);
}

bool tlsneg_hs_keep_type(uint8_t type)
{
    return type == 1 || type == 2 || type == 3;
}

void tlsneg_seg_count(tlsneg_segments *out, const seg_map *map, uint64_t start, uint64_t end)
{
    if (map->n == 1) {
        /* A message in one segment (nearly always): no order to find. */
        if (map->segs[0].end > start && map->segs[0].start < end) {
            tlsneg_segments_add(out, map->segs[0].frame);
        }
        return;
    }
    /* Stream order: the next segment after the one counted last. */
    uint64_t from = start;
    for (;;) {
        const seg_span *next = NULL;
        for (size_t i = 0; i < map->n; i++) {
            const seg_span *s = &map->segs[i];
            if (s->end > from && s->start < end && (!next || s->start < next->start)) {
                next = s;
            }
        }
        if (!next) {
            return;
        }
        tlsneg_segments_add(out, next->frame);
        from = next->end;
    }
}

bool tlsneg_seg_count_distinct(tlsneg_segments *out, const seg_map *map, uint64_t start,
                               uint64_t end)
{
    for (size_t i = 0; i < map->n; i++) {
        const seg_span *s = &map->segs[i];
        if (s->end > start && s->start < end && !tlsneg_segments_add_distinct(out, s->frame)) {
            return false;
        }
    }
    return true;
}

/* hs_portion adds to h's segments those of a whole TLS record (its 5-byte
 * header before map->off, its n bytes of payload) that holds part of a
 * message read over several records. */
static void hs_portion(hs_msg *h, const seg_map *map, size_t n)
{
    if (!map || map->off < 5) {
        h->segs_lost = true;
    } else {
        tlsneg_seg_count(&h->segs, map, map->off - 5, map->off + n);
    }
}

/* hs_emit emits the message h holds, which ends at b's byte `at` (b's
 * first byte is at map->off; b holds n bytes). */
static void hs_emit(tlsneg_pcap *p, flow *f, int d, hs_msg *h, tlsneg_wire wire, const seg_map *map,
                    size_t at, size_t n)
{
    tlsneg_segments segs;
    memset(&segs, 0, sizeof segs);
    if (wire == TLSNEG_WIRE_QUIC) {
        /* The datagrams of every CRYPTO frame that held a byte of it, also
         * over several feeds (CRYPTO data that came in order, then more):
         * the map keeps the spans from the message's first byte on
         * (quicflow.c); not counted when a feed had no map. */
        if (map && !h->segs_lost &&
            !tlsneg_seg_count_distinct(&segs, map, h->start, map->off + at)) {
            memset(&segs, 0, sizeof segs);
        }
    } else if (map && h->one_feed) {
        tlsneg_seg_count(&segs, map, h->start, map->off + at);
    } else if (map) {
        /* Several records: the segments of every record that holds part
         * of the message, headers included, in stream order. */
        hs_portion(h, map, n);
        if (!h->segs_lost) {
            segs = h->segs;
        }
    }
    tlsneg_emit_message(p, f, d, wire, h->msg, (size_t)h->len + 4, h->has_record_version,
                        h->record_version, segs.count ? &segs : NULL);
}

bool tlsneg_hs_feed(tlsneg_pcap *p, flow *f, int d, hs_msg *h, tlsneg_wire wire, const uint8_t *b,
                    size_t n, bool has_rv, uint16_t rv, const seg_map *map)
{
    const uint8_t *b0 = b;
    size_t n0 = n;
    h->one_feed = false; /* a message carried on from an earlier feed */
    if (!map && wire == TLSNEG_WIRE_QUIC && h->hdr_got > 0) {
        h->segs_lost = true;
    }
    while (n > 0) {
        if (h->hdr_got < 4) {
            if (h->hdr_got == 0) {
                h->has_record_version = has_rv;
                h->record_version = rv;
                h->one_feed = true;
                h->start = map ? map->off + (uint64_t)(b - b0) : 0;
                h->segs_lost = !map && wire == TLSNEG_WIRE_QUIC;
            }
            h->hdr[h->hdr_got++] = *b++;
            n--;
            if (h->hdr_got < 4) {
                continue;
            }
            h->len = (uint32_t)h->hdr[1] << 16 | (uint32_t)h->hdr[2] << 8 | h->hdr[3];
            h->got = 0;
            h->keep = tlsneg_hs_keep_type(h->hdr[0]);
            if (h->keep) {
                if (h->len + 4 > p->cfg.max_buffer) {
                    return false;
                }
                h->msg = malloc((size_t)h->len + 4);
                if (!h->msg) {
                    return false;
                }
                memcpy(h->msg, h->hdr, 4);
            }
        }
        size_t take = h->len - h->got;
        if (take > n) {
            take = n;
        }
        if (h->keep) {
            memcpy(h->msg + 4 + h->got, b, take);
        }
        h->got += (uint32_t)take;
        b += take;
        n -= take;
        if (h->got == h->len) {
            if (h->keep) {
                hs_emit(p, f, d, h, wire, map, (size_t)(b - b0), n0);
            }
            free(h->msg);
            /* What the next message's first byte expects (the rest is
             * set as its header is read). */
            h->msg = NULL;
            h->hdr_got = 0;
            h->segs.count = 0;
            h->segs.num_frames = 0;
        }
    }
    if (h->hdr_got > 0 && (h->hdr_got < 4 || h->keep) && wire != TLSNEG_WIRE_QUIC) {
        /* carried on to the next record: this one's segments */
        hs_portion(h, map, n0);
    }
    return true;
}

void tlsneg_hs_free(hs_msg *h)
{
    free(h->msg);
    memset(h, 0, sizeof *h);
}
