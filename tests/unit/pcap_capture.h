/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pcap_capture.h: what the packet path's unit tests (test_pcap_frontend.c,
 * test_pcap_udp.c) share: frames read from the project's captures (pcaps/,
 * under root: the tests' first argument), a capture run through a fresh
 * packet path with its events kept, raw IP packets fed one by one. */
#ifndef TLSNEG_TEST_PCAP_CAPTURE_H
#define TLSNEG_TEST_PCAP_CAPTURE_H

#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"
#include "packets.h"

static const char *root = ".";

/* ---- captures ---- */

/* read_frame returns a malloc'd copy of frame n (1-based) of a capture
 * under the repository root, or NULL. */
static inline uint8_t *read_frame(const char *rel, uint32_t n, int *out_link, size_t *out_len)
{
    char path[4096], err[PCAP_ERRBUF_SIZE];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    pcap_t *pc = pcap_open_offline(path, err);
    if (!pc) {
        printf("# %s: %s\n", path, err);
        return NULL;
    }
    struct pcap_pkthdr *h;
    const u_char *data;
    uint8_t *copy = NULL;
    for (uint32_t i = 1; pcap_next_ex(pc, &h, &data) == 1; i++) {
        if (i == n) {
            copy = malloc(h->caplen ? h->caplen : 1);
            memcpy(copy, data, h->caplen);
            *out_len = h->caplen;
            *out_link = pcap_datalink(pc);
            break;
        }
    }
    pcap_close(pc);
    return copy;
}

/* from_client: the packet path says (or guesses) the client sent ev. */
static inline bool from_client(const tlsneg_ev *ev)
{
    return ev->sender == TLSNEG_SENDER_CLIENT;
}

#define MAX_EVENTS 64

typedef struct {
    tlsneg_ev ev;
    uint8_t bytes[4096];
} saved_event;

typedef struct {
    size_t n;
    saved_event e[MAX_EVENTS];
    bool all; /* keep TLSNEG_EV_PROGRESS and TLSNEG_EV_END too */
} events;

static inline void collect(void *user, const tlsneg_ev *ev)
{
    events *es = user;
    if (es->n == MAX_EVENTS ||
        (!es->all && (ev->kind == TLSNEG_EV_PROGRESS || ev->kind == TLSNEG_EV_END))) {
        return;
    }
    saved_event *s = &es->e[es->n++];
    s->ev = *ev;
    size_t n = ev->len < sizeof s->bytes ? ev->len : sizeof s->bytes;
    if (n) {
        memcpy(s->bytes, ev->bytes, n);
    }
    s->ev.bytes = s->bytes;
}

/* run_capture_skip feeds a capture through a fresh packet path, leaving out
 * frame skip[0] and skip[1] (0: none; the others keep their numbers);
 * all: every event kind. */
static inline void run_capture_skip(const char *rel, events *es, tlsneg_pcap_stats *out_stats,
                                    bool all, const uint32_t skip[2])
{
    char path[4096], err[PCAP_ERRBUF_SIZE];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    memset(es, 0, sizeof *es);
    es->all = all;
    pcap_t *pc = pcap_open_offline(path, err);
    if (!pc) {
        printf("# %s: %s\n", path, err);
        return;
    }
    tlsneg_pcap *p = tlsneg_pcap_new(NULL, collect, es);
    struct pcap_pkthdr *h;
    const u_char *data;
    for (uint32_t i = 1; pcap_next_ex(pc, &h, &data) == 1; i++) {
        if (i == skip[0] || i == skip[1]) {
            continue;
        }
        tlsneg_pcap_packet(p, pcap_datalink(pc), i,
                           (uint64_t)h->ts.tv_sec * 1000000u + (uint64_t)h->ts.tv_usec, data,
                           h->caplen, h->len);
    }
    if (out_stats) {
        *out_stats = *tlsneg_pcap_get_stats(p);
    }
    tlsneg_pcap_free(p);
    pcap_close(pc);
}

/* run_capture feeds a whole capture through a fresh packet path. */
static inline void run_capture(const char *rel, events *es, tlsneg_pcap_stats *out_stats)
{
    static const uint32_t none[2] = {0, 0};
    run_capture_skip(rel, es, out_stats, false, none);
}

static inline uint8_t *join(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    uint8_t *r = malloc(an + bn);
    memcpy(r, a, an);
    memcpy(r + an, b, bn);
    return r;
}

/* every_prefix decodes every truncated prefix of a frame (each in a buffer
 * of exactly its size, for ASan) and checks that a decoded payload lies
 * inside it. */
static inline bool every_prefix(int link, const uint8_t *f, size_t len)
{
    bool good = true;
    for (size_t n = 0; n < len; n++) {
        uint8_t *b = malloc(n ? n : 1);
        memcpy(b, f, n);
        tlsneg_net_packet pk;
        if (tlsneg_net_decode(&pk, link, b, n) == TLSNEG_NET_OK &&
            (pk.payload < b || pk.payload + pk.payload_len > b + n)) {
            good = false;
        }
        free(b);
    }
    return good;
}

/* feed_raw reads a raw IP packet as frame number frame, stamped frame
 * seconds. */
static inline void feed_raw(tlsneg_pcap *p, uint32_t frame, const uint8_t *ip, size_t len)
{
    tlsneg_pcap_packet(p, TLSNEG_LINK_RAW, frame, 1000000u * frame, ip, len, len);
}

#endif
