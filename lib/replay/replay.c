/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replay.c: a capture's events replayed through the session layer
 * (events.h), as tlsneg-pcap feeds them: a table of connections, found by
 * transport, endpoints and connection id. */
#include "replay/events.h"

#include <stdlib.h>
#include <string.h>

#include "core/table.h"
#include "core/util.h"

typedef struct {
    bool used;
    bool udp;
    uint64_t hash;
    uint64_t conn_no; /* the event's conn attribute, or 0 */
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
    tlsneg_table index; /* hash -> flow number plus one */
};

tlsneg_replay *tlsneg_replay_new(const tlsneg_tracker_config *cfg, size_t max_conns)
{
    tlsneg_replay *r = calloc(1, sizeof *r);
    if (!r) {
        return NULL;
    }
    r->max = max_conns ? max_conns : 1;
    if (r->max > UINT32_MAX - 1) {
        r->max = UINT32_MAX - 1;
    }
    r->flows = calloc(r->max, sizeof *r->flows);
    r->session = tlsneg_session_new(cfg);
    if (!r->flows || !r->session || !tlsneg_table_init(&r->index, TLSNEG_TABLE_MIN)) {
        tlsneg_replay_free(r);
        return NULL;
    }
    return r;
}

void tlsneg_replay_free(tlsneg_replay *r)
{
    if (r) {
        tlsneg_session_free(r->session);
        tlsneg_table_free(&r->index);
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
    key->conn_no = ev->conn;
    key->addr_len = ev->addr_len;
    memcpy(key->a, src_first ? ev->src : ev->dst, ev->addr_len);
    memcpy(key->b, src_first ? ev->dst : ev->src, ev->addr_len);
    key->a_port = src_first ? ev->sport : ev->dport;
    key->b_port = src_first ? ev->dport : ev->sport;
    uint8_t tail[13] = {key->udp, (uint8_t)(key->a_port >> 8), (uint8_t)key->a_port,
                        (uint8_t)(key->b_port >> 8), (uint8_t)key->b_port};
    for (int i = 0; i < 8; i++) {
        tail[5 + i] = (uint8_t)(ev->conn >> (8 * i));
    }
    uint64_t h = tlsneg_fnv64(TLSNEG_FNV64_BASIS, key->a, key->addr_len);
    h = tlsneg_fnv64(h, key->b, key->addr_len);
    key->hash = tlsneg_fnv64(h, tail, sizeof tail);
}

static bool same_flow(const flow *f, const flow *k)
{
    return f->used && f->udp == k->udp && f->conn_no == k->conn_no && f->addr_len == k->addr_len &&
           f->a_port == k->a_port && f->b_port == k->b_port &&
           memcmp(f->a, k->a, k->addr_len) == 0 && memcmp(f->b, k->b, k->addr_len) == 0;
}

typedef struct {
    const tlsneg_replay *r;
    const flow *key;
} lookup;

static bool is_key(const void *ctx, uint32_t ref)
{
    const lookup *l = ctx;
    const flow *f = &l->r->flows[ref - 1];
    return f->hash == l->key->hash && same_flow(f, l->key);
}

/* find returns ev's connection, made if create and not known yet; a new
 * connection takes the place of the oldest once max are held. */
static flow *find(tlsneg_replay *r, const tlsneg_ev *ev, bool create)
{
    flow key;
    endpoints(ev, &key);
    lookup l = {r, &key};
    uint32_t ref = tlsneg_table_find(&r->index, key.hash, is_key, &l);
    if (ref) {
        return &r->flows[ref - 1];
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
        (void)tlsneg_table_remove(&r->index, f->hash, (uint32_t)slot + 1); /* forget the oldest */
    }
    *f = key;
    f->used = true;
    f->conn.id = r->next_id++;
    /* Out of memory, the flow serves this event and is not found again. */
    (void)tlsneg_table_add(&r->index, f->hash, (uint32_t)slot + 1);
    return f;
}

/* hello judges a hello event on its connection. */
static void hello(tlsneg_replay *r, const tlsneg_ev *ev, const tlsneg_event *e,
                  tlsneg_replay_out *out)
{
    tlsneg_message m;
    if (!tlsneg_ev_frame(&m, ev)) {
        return;
    }
    flow *f = find(r, ev, true);
    tlsneg_session_message(r->session, &f->conn, e, &m, ev->has_record, ev->record_version,
                           &out->result);
    if (out->result.keep_facts) {
        tlsneg_facts_copy(&f->client_hello, &f->client_hello_buf, &out->result.facts);
        tlsneg_conn_keep_client_hello(&f->conn, &f->client_hello);
    }
    out->has_result = true;
    out->conn = f->conn.id;
}

void tlsneg_replay_event(tlsneg_replay *r, const tlsneg_ev *ev, tlsneg_replay_out *out)
{
    out->has_result = false;
    out->has_close = false;
    tlsneg_event e = tlsneg_ev_session_event(ev);
    flow *f = NULL;
    switch (ev->kind) {
    case TLSNEG_EV_HELLO:
        hello(r, ev, &e, out);
        return;
    case TLSNEG_EV_ALERT:
        f = find(r, ev, true);
        tlsneg_session_alert(r->session, &f->conn, &e, ev->wire, ev->alert_level, ev->alert,
                             &out->result);
        out->has_result = true;
        out->conn = f->conn.id;
        return;
    case TLSNEG_EV_FIN:
    case TLSNEG_EV_RST:
        /* Every connection's, as tlsneg-pcap: the server's ending of one
         * whose ClientHello may be in flight (the session layer holds it
         * for that attempt), the client's close of one that has shown
         * nothing yet (a server's alert after it says so; the plugin keeps
         * that close until the connection shows something). */
        f = find(r, ev, e.sender != TLSNEG_SENDER_UNKNOWN);
        if (f) {
            tlsneg_session_close(r->session, &f->conn, &e, ev->kind == TLSNEG_EV_RST, &out->close);
            out->has_close = true;
            out->conn = f->conn.id;
        }
        return;
    case TLSNEG_EV_PROGRESS:
        /* As the plugin: only a connection that has shown something. */
        f = find(r, ev, false);
        if (f) {
            tlsneg_session_progress(r->session, &f->conn, &e);
        }
        return;
    case TLSNEG_EV_END:
        f = find(r, ev, false);
        if (f) {
            tlsneg_session_forget(r->session, &f->conn);
            (void)tlsneg_table_remove(&r->index, f->hash, (uint32_t)(f - r->flows) + 1);
            f->used = false;
        }
        return;
    }
}
