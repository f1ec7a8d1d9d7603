/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flows.c: the packet path's flow table (flow.h): a flow per transport and
 * pair of endpoints, in either direction, found by a hash of both; the
 * flows in the order of their last packets, for the idle timeout and the
 * cap. */
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "flow.h"
#include "heap.h"

static uint64_t be64_at(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}

/* addr_cmp orders two addresses of n bytes (4 or 16) as memcmp does, and
 * addr_eq compares them, in registers: a call to memcmp per packet cost
 * more than the flow's hash. */
static int addr_cmp(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (n == 4) {
        uint32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        x = __builtin_bswap32(x);
        y = __builtin_bswap32(y);
        return (x > y) - (x < y);
    }
    if (n == 16) {
        uint64_t x = be64_at(a), y = be64_at(b);
        if (x == y) {
            x = be64_at(a + 8);
            y = be64_at(b + 8);
        }
        return (x > y) - (x < y);
    }
    return memcmp(a, b, n);
}

static bool addr_eq(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (n == 4) {
        return memcmp(a, b, 4) == 0;
    }
    if (n == 16) {
        return memcmp(a, b, 16) == 0;
    }
    return memcmp(a, b, n) == 0;
}

/* The same hash for both directions: the two endpoints in a fixed order.
 * Eight bytes at a time (a byte at a time cost a tenth of the packet
 * path): the two addresses, then the ports and the protocol. */
uint32_t tlsneg_flow_hash(const tlsneg_net_packet *n)
{
    int c = addr_cmp(n->src, n->dst, n->addr_len);
    bool swap = c > 0 || (c == 0 && n->sport > n->dport);
    const uint8_t *a = swap ? n->dst : n->src, *b = swap ? n->src : n->dst;
    uint16_t pa = swap ? n->dport : n->sport, pb = swap ? n->sport : n->dport;
    uint64_t h = 0x2545f4914f6cdd1dull;
    if (n->addr_len == 4) {
        uint32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        h = tlsneg_hash_mix(h, (uint64_t)x << 32 | y);
    } else {
        for (size_t i = 0; i + 8 <= n->addr_len; i += 8) {
            uint64_t x, y;
            memcpy(&x, a + i, 8);
            memcpy(&y, b + i, 8);
            h = tlsneg_hash_mix(tlsneg_hash_mix(h, x), y);
        }
    }
    h = tlsneg_hash_mix(h, (uint64_t)pa << 24 | (uint64_t)pb << 8 | n->l4);
    return (uint32_t)tlsneg_hash_mix(h, 0);
}

/* flow_dir tells which endpoint sent n: 0, 1, or -1 if n is not on f. */
static int flow_dir(const flow *f, const tlsneg_net_packet *n)
{
    if (f->l4 != n->l4 || f->addr_len != n->addr_len) {
        return -1;
    }
    for (int d = 0; d < 2; d++) {
        if (f->port[d] == n->sport && f->port[1 - d] == n->dport &&
            addr_eq(f->addr[d], n->src, n->addr_len) &&
            addr_eq(f->addr[1 - d], n->dst, n->addr_len)) {
            return d;
        }
    }
    return -1;
}

static void flow_release(flow *f)
{
    for (int d = 0; d < 2; d++) {
        tlsneg_tcp_dir_free(f->tcp[d]);
        tlsneg_dtls_dir_free(f->dtls[d]);
        f->tcp[d] = NULL;
        f->dtls[d] = NULL;
    }
    tlsneg_quicflow_free(f->quic);
    f->quic = NULL;
    free(f->starttls);
    f->starttls = NULL;
}

static void lru_unlink(tlsneg_pcap *p, flow *f)
{
    if (f->prev) {
        f->prev->next = f->next;
    } else {
        p->oldest = f->next;
    }
    if (f->next) {
        f->next->prev = f->prev;
    } else {
        p->newest = f->prev;
    }
    f->prev = f->next = NULL;
}

static void lru_append(tlsneg_pcap *p, flow *f)
{
    f->prev = p->newest;
    f->next = NULL;
    if (p->newest) {
        p->newest->next = f;
    } else {
        p->oldest = f;
    }
    p->newest = f;
}

void tlsneg_flow_remove(tlsneg_pcap *p, flow *f, bool tell)
{
    if (tell) {
        tlsneg_ev ev;
        memset(&ev, 0, sizeof ev);
        ev.conn = f->conn;
        ev.udp = f->l4 == 17;
        ev.wire = f->kind == KIND_TCP    ? TLSNEG_WIRE_TLS
                  : f->kind == KIND_QUIC ? TLSNEG_WIRE_QUIC
                                         : TLSNEG_WIRE_DTLS;
        ev.kind = TLSNEG_EV_END;
        int c = f->client < 0 ? 0 : f->client;
        ev.sender = TLSNEG_SENDER_CLIENT;
        ev.sender_guessed = f->client < 0 || f->client_guessed;
        ev.addr_len = f->addr_len;
        memcpy(ev.src, f->addr[c], 16);
        memcpy(ev.dst, f->addr[1 - c], 16);
        ev.sport = f->port[c];
        ev.dport = f->port[1 - c];
        ev.frame = p->frame;
        ev.time_us = p->time_us;
        p->fn(p->user, &ev);
    }
    tlsneg_conntab_remove(&p->flows, &f->node);
    lru_unlink(p, f);
    flow_release(f);
    free(f);
}

void tlsneg_flows_expire(tlsneg_pcap *p)
{
    uint64_t idle = (uint64_t)p->cfg.idle_timeout_s * 1000000u;
    while (p->oldest && p->oldest->last_us + idle < p->time_us) {
        p->st.flows_evicted_idle++;
        tlsneg_flow_remove(p, p->oldest, true);
    }
}

flow *tlsneg_flow_find(tlsneg_pcap *p, const tlsneg_net_packet *n, uint32_t h, int *out_dir)
{
    for (tlsneg_conntab_node *c = tlsneg_conntab_chain(&p->flows, h); c; c = c->next) {
        if (c->hash == h) {
            flow *f = (flow *)c;
            int d = flow_dir(f, n);
            if (d >= 0) {
                *out_dir = d;
                return f;
            }
        }
    }
    return NULL;
}

flow *tlsneg_flow_new(tlsneg_pcap *p, const tlsneg_net_packet *n, uint32_t h)
{
    if (p->flows.count >= p->cfg.max_flows && p->oldest) {
        p->st.flows_evicted_cap++;
        tlsneg_flow_remove(p, p->oldest, true);
    }
    flow *f = tlsneg_zalloc(sizeof *f);
    if (!f) {
        return NULL;
    }
    f->conn = ++p->next_conn;
    f->first_us = p->time_us;
    f->l4 = n->l4;
    f->addr_len = n->addr_len;
    f->client = -1;
    memcpy(f->addr[0], n->src, 16);
    memcpy(f->addr[1], n->dst, 16);
    f->port[0] = n->sport;
    f->port[1] = n->dport;
    tlsneg_conntab_add(&p->flows, &f->node, h);
    lru_append(p, f);
    p->st.flows++;
    return f;
}

void tlsneg_flow_seen(tlsneg_pcap *p, flow *f)
{
    f->last_us = p->time_us;
    lru_unlink(p, f);
    lru_append(p, f);
}

bool tlsneg_flows_init(tlsneg_pcap *p)
{
    uint32_t nb = 1024;
    while (nb < p->cfg.max_flows / 2 && nb < (1u << 22)) {
        nb *= 2;
    }
    return tlsneg_conntab_init(&p->flows, nb);
}

void tlsneg_flows_finish(tlsneg_pcap *p)
{
    while (p->oldest) {
        tlsneg_flow_remove(p, p->oldest, true);
    }
}

void tlsneg_flows_free(tlsneg_pcap *p)
{
    while (p->oldest) {
        tlsneg_flow_remove(p, p->oldest, false);
    }
    tlsneg_conntab_free(&p->flows);
}
