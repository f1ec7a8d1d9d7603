/* SPDX-License-Identifier: GPL-2.0-or-later */
/* events.c: the event lines of events.h and their replay. */
#include "replay/events.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/unhex.h"

static bool parse_addr(const char *s, uint8_t *out, size_t *len)
{
    if (inet_pton(AF_INET, s, out) == 1) {
        *len = 4;
        return true;
    }
    if (inet_pton(AF_INET6, s, out) == 1) {
        *len = 16;
        return true;
    }
    return false;
}

static bool parse_wire(const char *s, tlsneg_wire *w)
{
    static const struct {
        const char *name;
        tlsneg_wire wire;
    } wires[] = {{"tls", TLSNEG_WIRE_TLS},
                 {"dtls", TLSNEG_WIRE_DTLS},
                 {"quic", TLSNEG_WIRE_QUIC},
                 {"ssl2", TLSNEG_WIRE_SSL2}};
    for (size_t i = 0; i < sizeof wires / sizeof wires[0]; i++) {
        if (strcmp(s, wires[i].name) == 0) {
            *w = wires[i].wire;
            return true;
        }
    }
    return false;
}

int tlsneg_ev_parse(const char *line, tlsneg_ev *ev, uint8_t *buf, size_t cap)
{
    char kind[8], proto[4], src[64], dst[64], wire[8], rv[8];
    unsigned long frame, sport, dport, alert;
    unsigned long long time_us;
    int used = 0;
    while (*line == ' ' || *line == '\t') {
        line++;
    }
    if (*line == '\0' || *line == '\n' || *line == '#') {
        return 0;
    }
    memset(ev, 0, sizeof *ev);
    if (sscanf(line, "%7s %lu %llu %3s %63s %lu %63s %lu%n", kind, &frame, &time_us, proto, src,
               &sport, dst, &dport, &used) != 8 ||
        frame > UINT32_MAX || sport > 65535 || dport > 65535) {
        return -1;
    }
    size_t dst_len;
    if (!parse_addr(src, ev->src, &ev->addr_len) || !parse_addr(dst, ev->dst, &dst_len) ||
        dst_len != ev->addr_len || (strcmp(proto, "tcp") != 0 && strcmp(proto, "udp") != 0)) {
        return -1;
    }
    ev->udp = strcmp(proto, "udp") == 0;
    ev->frame = (uint32_t)frame;
    ev->time_us = time_us;
    ev->sport = (uint16_t)sport;
    ev->dport = (uint16_t)dport;
    const char *rest = line + used;
    if (strcmp(kind, "fin") == 0 || strcmp(kind, "rst") == 0) {
        ev->kind = kind[0] == 'f' ? TLSNEG_EV_FIN : TLSNEG_EV_RST;
        return 1;
    }
    if (strcmp(kind, "alert") == 0) {
        if (sscanf(rest, "%lu", &alert) != 1 || alert > 255) {
            return -1;
        }
        ev->kind = TLSNEG_EV_ALERT;
        ev->alert = (uint8_t)alert;
        return 1;
    }
    if (strcmp(kind, "hello") != 0 || sscanf(rest, "%7s %7s%n", wire, rv, &used) != 2 ||
        !parse_wire(wire, &ev->wire)) {
        return -1;
    }
    ev->kind = TLSNEG_EV_HELLO;
    if (strcmp(rv, "-") != 0) {
        unsigned long v;
        if (sscanf(rv, "%lx", &v) != 1 || v > 0xffff) {
            return -1;
        }
        ev->has_record = true;
        ev->record_version = (uint16_t)v;
    }
    ev->bytes = buf;
    ev->len = unhex(rest + used, buf, cap);
    return 1;
}

#define NO_FLOW UINT32_MAX

typedef struct {
    bool used;
    bool udp;
    uint32_t next; /* the next flow of the same hash bucket, or NO_FLOW */
    uint64_t hash;
    size_t addr_len;
    uint8_t a[TLSNEG_ADDR_MAX], b[TLSNEG_ADDR_MAX]; /* the endpoints, the lower first */
    uint16_t a_port, b_port;
    tlsneg_conn conn;
    tlsneg_facts client_hello; /* the copy conn.client_hello points to */
    tlsneg_facts_buf client_hello_buf;
} flow;

struct tlsneg_replay {
    tlsneg_session *session;
    flow *flows;
    size_t max, used, next;
    uint64_t next_id;
    uint32_t *buckets; /* hash -> first flow, chained through flow.next */
    size_t mask;
};

tlsneg_replay *tlsneg_replay_new(const tlsneg_tracker_config *cfg, size_t max_conns)
{
    tlsneg_replay *r = calloc(1, sizeof *r);
    if (!r) {
        return NULL;
    }
    r->max = max_conns ? max_conns : 1;
    if (r->max > NO_FLOW - 1) {
        r->max = NO_FLOW - 1;
    }
    size_t nb = 16;
    while (nb < r->max) {
        nb *= 2;
    }
    r->mask = nb - 1;
    r->buckets = malloc(nb * sizeof *r->buckets);
    r->flows = calloc(r->max, sizeof *r->flows);
    r->session = tlsneg_session_new(cfg);
    if (!r->flows || !r->session || !r->buckets) {
        tlsneg_replay_free(r);
        return NULL;
    }
    for (size_t i = 0; i < nb; i++) {
        r->buckets[i] = NO_FLOW;
    }
    return r;
}

void tlsneg_replay_free(tlsneg_replay *r)
{
    if (r) {
        tlsneg_session_free(r->session);
        free(r->buckets);
        free(r->flows);
        free(r);
    }
}

/* endpoints orders ev's two ends, so that both directions find one flow. */
static void endpoints(const tlsneg_ev *ev, flow *key)
{
    int c = memcmp(ev->src, ev->dst, ev->addr_len);
    bool src_first = c < 0 || (c == 0 && ev->sport <= ev->dport);
    memset(key, 0, sizeof *key);
    key->udp = ev->udp;
    key->addr_len = ev->addr_len;
    memcpy(key->a, src_first ? ev->src : ev->dst, ev->addr_len);
    memcpy(key->b, src_first ? ev->dst : ev->src, ev->addr_len);
    key->a_port = src_first ? ev->sport : ev->dport;
    key->b_port = src_first ? ev->dport : ev->sport;
    uint64_t h = 14695981039346656037u;
    uint8_t tail[5] = {key->udp, (uint8_t)(key->a_port >> 8), (uint8_t)key->a_port,
                       (uint8_t)(key->b_port >> 8), (uint8_t)key->b_port};
    const uint8_t *parts[3] = {key->a, key->b, tail};
    size_t lens[3] = {key->addr_len, key->addr_len, sizeof tail};
    for (size_t k = 0; k < 3; k++) {
        for (size_t i = 0; i < lens[k]; i++) {
            h = (h ^ parts[k][i]) * 1099511628211u;
        }
    }
    key->hash = h;
}

static bool same_flow(const flow *f, const flow *k)
{
    return f->used && f->udp == k->udp && f->addr_len == k->addr_len && f->a_port == k->a_port &&
           f->b_port == k->b_port && memcmp(f->a, k->a, k->addr_len) == 0 &&
           memcmp(f->b, k->b, k->addr_len) == 0;
}

/* find returns ev's connection, made if create and not known yet; a new
 * connection takes the place of the oldest once max are held. */
static flow *find(tlsneg_replay *r, const tlsneg_ev *ev, bool create)
{
    flow key;
    endpoints(ev, &key);
    uint32_t *bucket = &r->buckets[key.hash & r->mask];
    for (uint32_t i = *bucket; i != NO_FLOW; i = r->flows[i].next) {
        if (r->flows[i].hash == key.hash && same_flow(&r->flows[i], &key)) {
            return &r->flows[i];
        }
    }
    if (!create) {
        return NULL;
    }
    size_t slot = r->used < r->max ? r->used++ : r->next;
    if (r->used == r->max) {
        r->next = (slot + 1) % r->max;
    }
    flow *f = &r->flows[slot];
    if (f->used) {
        /* Forget the oldest: unlink it from its bucket. */
        uint32_t *link = &r->buckets[f->hash & r->mask];
        while (*link != (uint32_t)slot) {
            link = &r->flows[*link].next;
        }
        *link = f->next;
    }
    *f = key;
    f->used = true;
    f->conn.id = r->next_id++;
    f->next = *bucket;
    *bucket = (uint32_t)slot;
    return f;
}

void tlsneg_replay_event(tlsneg_replay *r, const tlsneg_ev *ev, tlsneg_replay_out *out)
{
    out->has_result = false;
    out->has_close = false;
    tlsneg_event e = {ev->frame,
                      ev->time_us,
                      {ev->src, ev->addr_len, ev->sport},
                      {ev->dst, ev->addr_len, ev->dport},
                      TLSNEG_SENDER_UNKNOWN};
    flow *f = NULL;
    switch (ev->kind) {
    case TLSNEG_EV_HELLO: {
        tlsneg_message m;
        bool framed;
        if (ev->wire == TLSNEG_WIRE_SSL2) {
            m.wire = TLSNEG_WIRE_SSL2;
            m.msg_type = ev->len ? ev->bytes[0] : 0;
            m.body_only = false;
            m.bytes = ev->bytes;
            m.len = ev->len;
            framed = ev->len > 0;
        } else {
            framed = tlsneg_frame_message(&m, ev->wire, ev->has_record, ev->record_version,
                                          ev->bytes, ev->len, 0, NULL, 0);
        }
        if (!framed) {
            return;
        }
        f = find(r, ev, true);
        tlsneg_session_message(r->session, &f->conn, &e, &m, ev->has_record, ev->record_version,
                               &out->result);
        if (out->result.keep_facts) {
            tlsneg_facts_copy(&f->client_hello, &f->client_hello_buf, &out->result.facts);
            tlsneg_conn_keep_client_hello(&f->conn, &f->client_hello);
        }
        break;
    }
    case TLSNEG_EV_ALERT:
        f = find(r, ev, true);
        tlsneg_session_alert(r->session, &f->conn, &e, ev->alert, &out->result);
        break;
    case TLSNEG_EV_FIN:
    case TLSNEG_EV_RST:
        f = find(r, ev, false);
        if (f) {
            tlsneg_session_close(r->session, &f->conn, &e, ev->kind == TLSNEG_EV_RST, &out->close);
            out->has_close = true;
            out->conn = f->conn.id;
        }
        return;
    }
    out->has_result = true;
    out->conn = f->conn.id;
}
