/* SPDX-License-Identifier: GPL-2.0-or-later */
/* packets.c: flows, first-flight reassembly and message finding (packets.h). */
#include "packets.h"

#include <stdlib.h>
#include <string.h>

#include "core/hello.h"
#include "core/util.h"
#include "net.h"
#include "quic.h"
#include "stream.h"

#define DEFAULT_MAX_FLOWS 1000000u
#define DEFAULT_IDLE_S    300u
#define DEFAULT_BUFFER    65536u
/* RFC 8446 5.2: a record carries at most 2^14 + 2048 bytes (ciphertext). */
#define MAX_RECORD (16384 + 2048)

/* RFC 8446 4.1.3: a HelloRetryRequest is a ServerHello with this random. */
static const uint8_t hrr_random[32] = {
    0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
    0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
};

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
} hs_msg;

typedef struct {
    tlsneg_stream s;
    uint32_t isn; /* stream offset 0 is this sequence number */
    bool isn_known;
    bool started;    /* the first record (or SSLv2 hello) has been read */
    bool done;       /* encrypted from here, or not TLS: nothing more to find */
    bool ccs;        /* a ChangeCipherSpec was sent */
    bool progressed; /* its TLSNEG_PCAP_PROGRESS was sent */
    bool fin;
    /* Past a gap not (yet) filled, a lost segment: the records stored
     * beyond it are read for their content type alone (tcp_resync), up to
     * resync_at. */
    bool resync;      /* resync_at is the start of a record beyond the gap */
    bool resync_over; /* an application-data record was read there */
    uint64_t resync_at;
    hs_msg hs;
} tcp_dir;

/* A DTLS message being put together from fragments. */
typedef struct {
    bool used;
    uint16_t seq;
    uint8_t type;
    uint16_t record_version;
    uint32_t len, covered;
    uint8_t *msg;  /* 12-byte header + body */
    uint8_t *bits; /* one bit per body byte received */
} dtls_slot;

#define DTLS_SLOTS 2

typedef struct {
    dtls_slot slot[DTLS_SLOTS];
} dtls_dir;

typedef struct {
    tlsneg_stream s;
    hs_msg hs;
    uint64_t next_pn;
} quic_side;

typedef struct {
    uint32_t version; /* of the keys */
    bool have_dcid;
    uint8_t dcid_len;
    uint8_t dcid[20];
    tlsneg_quic_keys keys[2]; /* client, server */
    quic_side side[2];        /* client, server */
} quic_state;

typedef struct flow {
    struct flow *hnext, *prev, *next;
    uint64_t conn;
    uint64_t last_us;
    uint32_t hash;
    uint8_t l4;
    uint8_t addr_len;
    uint8_t kind;
    int8_t client; /* endpoint index of the client, -1 unknown */
    bool client_guessed;
    bool hrr; /* a HelloRetryRequest was seen */
    bool hello_after_hrr[2];
    bool rst;
    uint8_t addr[2][16];
    uint16_t port[2];
    tcp_dir *tcp[2];
    dtls_dir *dtls[2];
    quic_state *quic;
} flow;

struct tlsneg_pcap {
    tlsneg_pcap_config cfg;
    tlsneg_pcap_event_fn fn;
    void *user;
    tlsneg_pcap_stats st;
    flow **buckets;
    uint32_t nbuckets;    /* a power of two */
    uint32_t max_buckets; /* grown up to this as flows arrive */
    uint32_t nflows;
    flow *oldest, *newest; /* by last packet */
    uint64_t next_conn;
    tlsneg_quic_crypto *crypto;
    uint8_t *scratch; /* a decrypted QUIC packet */
    size_t scratch_len;
    /* the packet being read */
    uint32_t frame;
    uint64_t time_us;
};

/* ---- events ---- */

static void deliver(tlsneg_pcap *p, flow *f, int d, tlsneg_pcap_event *ev)
{
    if (f->client < 0) {
        /* No SYN and no hello: the sender of the flow's first packet. */
        f->client = 0;
        f->client_guessed = true;
    }
    ev->conn = f->conn;
    ev->from_client = f->client == d;
    ev->client_guessed = f->client_guessed;
    ev->addr_len = f->addr_len;
    memcpy(ev->src_addr, f->addr[d], 16);
    memcpy(ev->dst_addr, f->addr[1 - d], 16);
    ev->src_port = f->port[d];
    ev->dst_port = f->port[1 - d];
    ev->frame = p->frame;
    ev->time_us = p->time_us;
    p->st.events++;
    p->fn(p->user, ev);
}

/* emit reports an alert (bytes, 2) or a TCP close (reset or FIN). */
static void emit(tlsneg_pcap *p, flow *f, int d, tlsneg_pcap_transport t, tlsneg_pcap_kind kind,
                 const uint8_t *bytes, size_t len, bool reset)
{
    tlsneg_pcap_event ev;
    memset(&ev, 0, sizeof ev);
    ev.transport = t;
    ev.kind = kind;
    ev.bytes = bytes;
    ev.len = len;
    ev.reset = reset;
    deliver(p, f, d, &ev);
}

static void emit_message(tlsneg_pcap *p, flow *f, int d, tlsneg_pcap_transport t,
                         const uint8_t *msg, size_t len, bool has_rv, uint16_t rv, bool sslv2)
{
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
    size_t random_at = t == TLSNEG_PCAP_DTLS ? 14 : 6;
    if (!sslv2 && type == 2 && len >= random_at + 32 &&
        memcmp(msg + random_at, hrr_random, 32) == 0) {
        f->hrr = true;
    } else if ((type == 1 || type == 2) && f->hrr) {
        f->hello_after_hrr[d] = true;
    }
    tlsneg_pcap_event ev;
    memset(&ev, 0, sizeof ev);
    ev.transport = t;
    ev.kind = TLSNEG_PCAP_HANDSHAKE;
    ev.has_record_version = has_rv;
    ev.record_version = rv;
    ev.sslv2 = sslv2;
    ev.msg_type = type;
    ev.bytes = msg;
    ev.len = len;
    deliver(p, f, d, &ev);
}

/* ---- the flow table ---- */

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
static uint32_t flow_hash(const tlsneg_net_packet *n)
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

static void hs_free(hs_msg *h)
{
    free(h->msg);
    memset(h, 0, sizeof *h);
}

static void tcp_dir_free(tcp_dir *t)
{
    if (t) {
        tlsneg_stream_free(&t->s);
        hs_free(&t->hs);
        free(t);
    }
}

static void dtls_dir_free(dtls_dir *t)
{
    if (t) {
        for (int i = 0; i < DTLS_SLOTS; i++) {
            free(t->slot[i].msg);
            free(t->slot[i].bits);
        }
        free(t);
    }
}

static void quic_free(quic_state *q)
{
    if (q) {
        for (int i = 0; i < 2; i++) {
            tlsneg_stream_free(&q->side[i].s);
            hs_free(&q->side[i].hs);
        }
        free(q);
    }
}

static void flow_release(flow *f)
{
    for (int d = 0; d < 2; d++) {
        tcp_dir_free(f->tcp[d]);
        dtls_dir_free(f->dtls[d]);
        f->tcp[d] = NULL;
        f->dtls[d] = NULL;
    }
    quic_free(f->quic);
    f->quic = NULL;
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

/* flow_remove forgets f; tell: send TLSNEG_PCAP_END first. */
static void flow_remove(tlsneg_pcap *p, flow *f, bool tell)
{
    if (tell) {
        tlsneg_pcap_event ev;
        memset(&ev, 0, sizeof ev);
        ev.conn = f->conn;
        ev.transport = f->kind == KIND_TCP    ? TLSNEG_PCAP_TCP
                       : f->kind == KIND_QUIC ? TLSNEG_PCAP_QUIC
                                              : TLSNEG_PCAP_DTLS;
        ev.kind = TLSNEG_PCAP_END;
        int c = f->client < 0 ? 0 : f->client;
        ev.from_client = true;
        ev.client_guessed = f->client < 0 || f->client_guessed;
        ev.addr_len = f->addr_len;
        memcpy(ev.src_addr, f->addr[c], 16);
        memcpy(ev.dst_addr, f->addr[1 - c], 16);
        ev.src_port = f->port[c];
        ev.dst_port = f->port[1 - c];
        ev.frame = p->frame;
        ev.time_us = p->time_us;
        p->fn(p->user, &ev);
    }
    flow **pp = &p->buckets[f->hash & (p->nbuckets - 1)];
    while (*pp && *pp != f) {
        pp = &(*pp)->hnext;
    }
    if (*pp) {
        *pp = f->hnext;
    }
    lru_unlink(p, f);
    flow_release(f);
    free(f);
    p->nflows--;
}

static void expire(tlsneg_pcap *p)
{
    uint64_t idle = (uint64_t)p->cfg.idle_timeout_s * 1000000u;
    while (p->oldest && p->oldest->last_us + idle < p->time_us) {
        p->st.flows_evicted_idle++;
        flow_remove(p, p->oldest, true);
    }
}

static flow *flow_find(tlsneg_pcap *p, const tlsneg_net_packet *n, uint32_t h, int *out_dir)
{
    for (flow *f = p->buckets[h & (p->nbuckets - 1)]; f; f = f->hnext) {
        if (f->hash == h) {
            int d = flow_dir(f, n);
            if (d >= 0) {
                *out_dir = d;
                return f;
            }
        }
    }
    return NULL;
}

/* buckets_grow doubles the bucket array (as many buckets as flows): a table
 * sized for max_flows up front would touch megabytes of pages at random. The
 * flows keep their order within a chain. */
static void buckets_grow(tlsneg_pcap *p)
{
    uint32_t nb = p->nbuckets * 2;
    flow **b = calloc(nb, sizeof *b);
    if (!b) {
        return; /* longer chains, still right */
    }
    flow **tail[2];
    for (uint32_t i = 0; i < p->nbuckets; i++) {
        /* bucket i splits into i and i + nbuckets */
        tail[0] = &b[i];
        tail[1] = &b[i + p->nbuckets];
        for (flow *f = p->buckets[i], *next; f; f = next) {
            next = f->hnext;
            flow ***t = &tail[(f->hash & p->nbuckets) ? 1 : 0];
            f->hnext = NULL;
            **t = f;
            *t = &f->hnext;
        }
    }
    free(p->buckets);
    p->buckets = b;
    p->nbuckets = nb;
}

static flow *flow_new(tlsneg_pcap *p, const tlsneg_net_packet *n, uint32_t h)
{
    if (p->nflows >= p->cfg.max_flows && p->oldest) {
        p->st.flows_evicted_cap++;
        flow_remove(p, p->oldest, true);
    }
    if (p->nflows >= p->nbuckets && p->nbuckets < p->max_buckets) {
        buckets_grow(p);
    }
    flow *f = calloc(1, sizeof *f);
    if (!f) {
        return NULL;
    }
    f->conn = ++p->next_conn;
    f->hash = h;
    f->l4 = n->l4;
    f->addr_len = n->addr_len;
    f->client = -1;
    memcpy(f->addr[0], n->src, 16);
    memcpy(f->addr[1], n->dst, 16);
    f->port[0] = n->sport;
    f->port[1] = n->dport;
    flow **b = &p->buckets[h & (p->nbuckets - 1)];
    f->hnext = *b;
    *b = f;
    lru_append(p, f);
    p->nflows++;
    p->st.flows++;
    return f;
}

/* ---- handshake messages from a byte stream (TLS record payloads, QUIC
 * CRYPTO data) ---- */

static bool keep_type(uint8_t type)
{
    return type == 1 || type == 2 || type == 3;
}

/* hs_feed adds n bytes of handshake data and emits every message they
 * complete. Returns false when a message does not fit the buffer limit (the
 * rest of this direction is then not read). */
static bool hs_feed(tlsneg_pcap *p, flow *f, int d, hs_msg *h, tlsneg_pcap_transport t,
                    const uint8_t *b, size_t n, bool has_rv, uint16_t rv)
{
    while (n > 0) {
        if (h->hdr_got < 4) {
            if (h->hdr_got == 0) {
                h->has_record_version = has_rv;
                h->record_version = rv;
            }
            h->hdr[h->hdr_got++] = *b++;
            n--;
            if (h->hdr_got < 4) {
                continue;
            }
            h->len = (uint32_t)h->hdr[1] << 16 | (uint32_t)h->hdr[2] << 8 | h->hdr[3];
            h->got = 0;
            h->keep = keep_type(h->hdr[0]);
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
                emit_message(p, f, d, t, h->msg, (size_t)h->len + 4, h->has_record_version,
                             h->record_version, false);
            }
            free(h->msg);
            memset(h, 0, sizeof *h);
        }
    }
    return true;
}

/* ---- TCP ---- */

static bool plausible_record(uint8_t type, uint16_t version, uint16_t len)
{
    /* tshark 4.0 reads handshakes in records of 0x0300 to 0x0303 and 0x0101
     * (GM/T); tlsneg also takes the rest of 0x03xx. */
    return type >= 20 && type <= 24 && ((version >> 8) == 3 || version == 0x0101) &&
           len <= MAX_RECORD;
}

static void tcp_done(tcp_dir *t)
{
    t->done = true;
    tlsneg_stream_free(&t->s);
    hs_free(&t->hs);
}

/* sslv2_hello tells how long the SSLv2-compatible ClientHello record at the
 * front of b is (RFC 5246 E.2: 2-byte header with the top bit set,
 * msg_type 1, a version of SSL 2.0 or 3.x), 0 if it is not one, or
 * SIZE_MAX if more bytes are needed to tell. */
static size_t sslv2_hello(const uint8_t *b, size_t n)
{
    if (n < 5) {
        return SIZE_MAX;
    }
    if (!(b[0] & 0x80) || b[2] != 1 || !((b[3] == 0 && b[4] == 2) || b[3] == 3)) {
        return 0;
    }
    size_t len = (size_t)(b[0] & 0x7f) << 8 | b[1];
    if (len < 9) {
        return 0;
    }
    if (n < 11) {
        return SIZE_MAX;
    }
    /* msg_type, version, then three lengths that must fill the record. */
    size_t specs = (size_t)(b[5] << 8 | b[6]), sid = (size_t)(b[7] << 8 | b[8]),
           challenge = (size_t)(b[9] << 8 | b[10]);
    if (specs % 3 != 0 || 9 + specs + sid + challenge != len) {
        return 0;
    }
    return 2 + len;
}

/* sslv2_server_hello tells how long the SSL 2.0 SERVER-HELLO record at the
 * front of b is (a 2-byte header with the top bit set, msg_type 4), 0 if it
 * is not one, or SIZE_MAX if more bytes are needed. Whether the record is a
 * SERVER-HELLO is the core's to say: its framing and its parser, as for the
 * plugin (tlsneg_frame_message, tlsneg_message_parse). */
static size_t sslv2_server_hello(const uint8_t *b, size_t n)
{
    if (n < 3) {
        return SIZE_MAX;
    }
    if (!(b[0] & 0x80) || b[2] != TLSNEG_SSL2_SERVER_HELLO) {
        return 0;
    }
    size_t len = (size_t)(b[0] & 0x7f) << 8 | b[1];
    if (n < 2 + len) {
        return SIZE_MAX;
    }
    tlsneg_message m;
    tlsneg_hello h;
    if (!tlsneg_frame_message(&m, TLSNEG_WIRE_TLS, true, 0x0002, b, 2 + len, 2, NULL, 0) ||
        tlsneg_message_parse(&h, &m) != TLSNEG_OK || h.msg_type != TLSNEG_HS_SERVER_HELLO) {
        return 0;
    }
    return 2 + len;
}

/* progress tells the consumer that the sender's handshake went on (its
 * first ChangeCipherSpec or application-data record, read in order or
 * beyond a gap): once per direction, all the session layer asks
 * (tlsneg_session_progress sets a flag per side). */
static void progress(tlsneg_pcap *p, flow *f, int d, tcp_dir *t)
{
    if (!t->progressed) {
        t->progressed = true;
        emit(p, f, d, TLSNEG_PCAP_TCP, TLSNEG_PCAP_PROGRESS, NULL, 0, false);
    }
}

/* tcp_records reads every complete record in the contiguous bytes; returns
 * the bytes consumed. */
static uint32_t tcp_records(tlsneg_pcap *p, flow *f, int d, tcp_dir *t, const uint8_t *b,
                            uint32_t n)
{
    uint32_t pos = 0;
    while (!t->done) {
        const uint8_t *r = b + pos;
        uint32_t left = n - pos;
        if (!t->started) {
            size_t v2 = sslv2_hello(r, left);
            if (v2 == SIZE_MAX) {
                break;
            }
            if (v2 > 0) {
                if (v2 > left) {
                    if (v2 > p->cfg.max_buffer) {
                        p->st.tcp_gave_up++;
                        tcp_done(t);
                    }
                    break;
                }
                t->started = true;
                emit_message(p, f, d, TLSNEG_PCAP_TCP, r + 2, v2 - 2, true, 0x0002, true);
                pos += (uint32_t)v2;
                continue;
            }
            size_t sh = sslv2_server_hello(r, left);
            if (sh == SIZE_MAX) {
                if (left >= 2 && (r[0] & 0x80) && left >= p->cfg.max_buffer) {
                    p->st.tcp_gave_up++;
                    tcp_done(t);
                }
                break;
            }
            if (sh > 0) {
                /* What follows in SSL 2.0 is no TLS record, and nothing
                 * more to find: the direction is done. */
                t->started = true;
                emit_message(p, f, d, TLSNEG_PCAP_TCP, r + 2, sh - 2, true, 0x0002, true);
                pos += (uint32_t)sh;
                tcp_done(t);
                break;
            }
        }
        if (left < 5) {
            break;
        }
        uint8_t type = r[0];
        uint16_t version = (uint16_t)(r[1] << 8 | r[2]);
        uint16_t len = (uint16_t)(r[3] << 8 | r[4]);
        if (!plausible_record(type, version, len)) {
            p->st.tcp_gave_up++;
            tcp_done(t);
            break;
        }
        if (left < 5u + len) {
            if (5u + len > p->cfg.max_buffer) {
                p->st.tcp_gave_up++;
                tcp_done(t);
            }
            break;
        }
        t->started = true;
        const uint8_t *payload = r + 5;
        pos += 5u + len;
        switch (type) {
        case 22:
            if (t->ccs && !(f->hrr && !f->hello_after_hrr[d])) {
                /* After ChangeCipherSpec the handshake is encrypted, except
                 * for TLS 1.3's compatibility ChangeCipherSpec around a
                 * HelloRetryRequest. */
                tcp_done(t);
                break;
            }
            if (!hs_feed(p, f, d, &t->hs, TLSNEG_PCAP_TCP, payload, len, true, version)) {
                p->st.tcp_gave_up++;
                tcp_done(t);
            }
            break;
        case 21:
            if (t->ccs && !(f->hrr && !f->hello_after_hrr[d])) {
                tcp_done(t);
                break;
            }
            for (uint16_t i = 0; i + 1 < len; i += 2) {
                emit(p, f, d, TLSNEG_PCAP_TCP, TLSNEG_PCAP_ALERT, payload + i, 2, false);
            }
            break;
        case 20:
            t->ccs = true;
            progress(p, f, d, t);
            break;
        case 23:
            progress(p, f, d, t);
            tcp_done(t);
            break;
        default:
            break;
        }
    }
    return t->done ? 0 : pos;
}

/* tcp_resync reads, for progress alone, the records stored beyond a gap
 * once a segment at stream offset off has been stored there: as Wireshark
 * does when a segment is not captured, a later segment that starts with a
 * record header (outside the record being waited for) starts a record, and
 * a ChangeCipherSpec or application-data record completed beyond the gap
 * is the direction's progress (if it had none yet), in the frame that
 * completes it; reading stops at the first application-data record.
 * Nothing beyond a gap builds a handshake message or reports an alert:
 * that waits for the gap to be filled. */
static void tcp_resync(tlsneg_pcap *p, flow *f, int d, tcp_dir *t, uint64_t off)
{
    const tlsneg_stream *s = &t->s;
    if (t->resync_over) {
        return;
    }
    /* The stored range that now holds off. */
    const tlsneg_range *r = NULL;
    for (unsigned i = 0; i < s->num_ahead; i++) {
        if (s->ahead[i].start <= off && off < s->ahead[i].end) {
            r = &s->ahead[i];
        }
    }
    if (!r) {
        return;
    }
    if (!t->resync || t->resync_at < r->start || t->resync_at > r->end) {
        /* No record start known in this range: this segment may be one, if
         * it lies past the end of the record the stream waits for. */
        uint64_t waited = s->base + s->have;
        if (s->have >= 5 && plausible_record(s->buf[0], (uint16_t)(s->buf[1] << 8 | s->buf[2]),
                                             (uint16_t)(s->buf[3] << 8 | s->buf[4]))) {
            waited = s->base + 5u + (uint16_t)(s->buf[3] << 8 | s->buf[4]);
        }
        if (off < waited || r->end - off < 5) {
            return;
        }
        const uint8_t *h = s->buf + (off - s->base);
        if (!plausible_record(h[0], (uint16_t)(h[1] << 8 | h[2]), (uint16_t)(h[3] << 8 | h[4]))) {
            return;
        }
        t->resync = true;
        t->resync_at = off;
    }
    while (r->end - t->resync_at >= 5) {
        const uint8_t *h = s->buf + (t->resync_at - s->base);
        uint16_t len = (uint16_t)(h[3] << 8 | h[4]);
        if (!plausible_record(h[0], (uint16_t)(h[1] << 8 | h[2]), len)) {
            t->resync = false; /* not records after all: wait for another start */
            return;
        }
        if (r->end - t->resync_at < 5u + len) {
            return; /* the rest of the record is to come */
        }
        t->resync_at += 5u + len;
        if (h[0] == 20 || h[0] == 23) {
            progress(p, f, d, t);
        }
        if (h[0] == 23) {
            t->resync_over = true;
            return;
        }
    }
}

static tcp_dir *tcp_get(flow *f, int d)
{
    if (!f->tcp[d]) {
        f->tcp[d] = calloc(1, sizeof(tcp_dir));
    }
    return f->tcp[d];
}

static void tcp_packet(tlsneg_pcap *p, flow *f, int d, const tlsneg_net_packet *n)
{
    tcp_dir *t = tcp_get(f, d);
    if (!t) {
        return;
    }
    uint8_t fl = n->tcp_flags;
    if (fl & TLSNEG_TCP_SYN) {
        if (!t->isn_known) {
            t->isn = n->seq + 1;
            t->isn_known = true;
        }
        if (f->client < 0 || f->client_guessed) {
            f->client = (int8_t)((fl & TLSNEG_TCP_ACK) ? 1 - d : d);
            f->client_guessed = false;
        }
    }
    if (n->payload_len > 0 && !t->done && !f->rst) {
        if (!t->isn_known) {
            /* Caught mid-stream: the stream starts here. */
            t->isn = n->seq;
            t->isn_known = true;
        }
        /* Data on a SYN (TCP Fast Open) starts after the SYN's number. */
        uint32_t seq = n->seq + ((fl & TLSNEG_TCP_SYN) ? 1u : 0u);
        uint64_t off = (uint32_t)(seq - t->isn);
        if (!t->s.buf && t->s.num_ahead == 0 && off == t->s.base &&
            n->payload_len <= p->cfg.max_buffer) {
            /* Nothing pending and this segment is next (nearly always): read
             * its records where they lie, keep only an incomplete tail. */
            uint32_t used = tcp_records(p, f, d, t, n->payload, (uint32_t)n->payload_len);
            if (!t->done) {
                t->s.base += used;
                (void)tlsneg_stream_add(&t->s, t->s.base, n->payload + used, n->payload_len - used,
                                        p->cfg.max_buffer, &p->st.tcp_dropped);
            }
        } else {
            tlsneg_stream_result r = tlsneg_stream_add(&t->s, off, n->payload, n->payload_len,
                                                       p->cfg.max_buffer, &p->st.tcp_dropped);
            if (r == TLSNEG_STREAM_AHEAD) {
                p->st.tcp_out_of_order++;
                tcp_resync(p, f, d, t, off < t->s.base ? t->s.base : off);
            } else if (r == TLSNEG_STREAM_OLD) {
                p->st.tcp_retransmitted++;
            }
            if (r == TLSNEG_STREAM_IN_ORDER) {
                uint32_t used = tcp_records(p, f, d, t, t->s.buf, t->s.have);
                if (!t->done) {
                    tlsneg_stream_consume(&t->s, used);
                }
            }
        }
    }
    if ((fl & TLSNEG_TCP_RST) && !f->rst) {
        f->rst = true;
        emit(p, f, d, TLSNEG_PCAP_TCP, TLSNEG_PCAP_CLOSE, NULL, 0, true);
    } else if ((fl & TLSNEG_TCP_FIN) && !t->fin) {
        t->fin = true;
        emit(p, f, d, TLSNEG_PCAP_TCP, TLSNEG_PCAP_CLOSE, NULL, 0, false);
    }
}

/* ---- DTLS ---- */

static bool dtls_version(uint16_t v)
{
    return v == 0xfeff || v == 0xfefd || v == 0xfefc || v == 0x0100;
}

static bool dtls_looks(const uint8_t *b, size_t n)
{
    return n >= 13 && b[0] >= 20 && b[0] <= 26 && dtls_version((uint16_t)(b[1] << 8 | b[2]));
}

static dtls_dir *dtls_get(flow *f, int d)
{
    if (!f->dtls[d]) {
        f->dtls[d] = calloc(1, sizeof(dtls_dir));
    }
    return f->dtls[d];
}

static void slot_clear(dtls_slot *s)
{
    free(s->msg);
    free(s->bits);
    memset(s, 0, sizeof *s);
}

/* dtls_fragment handles one handshake fragment (12-byte header + data). */
static void dtls_fragment(tlsneg_pcap *p, flow *f, int d, uint16_t rv, const uint8_t *h,
                          const uint8_t *data)
{
    uint8_t type = h[0];
    uint32_t len = (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
    uint16_t seq = (uint16_t)(h[4] << 8 | h[5]);
    uint32_t off = (uint32_t)h[6] << 16 | (uint32_t)h[7] << 8 | h[8];
    uint32_t flen = (uint32_t)h[9] << 16 | (uint32_t)h[10] << 8 | h[11];
    if (!keep_type(type) || off > len || flen > len - off) {
        return;
    }
    if (off == 0 && flen == len) {
        /* Whole: emit as it is. */
        uint8_t *m = malloc((size_t)len + 12);
        if (!m) {
            return;
        }
        memcpy(m, h, 12);
        memcpy(m + 12, data, len);
        emit_message(p, f, d, TLSNEG_PCAP_DTLS, m, (size_t)len + 12, true, rv, false);
        free(m);
        return;
    }
    if ((size_t)len + 12 > p->cfg.max_buffer) {
        return;
    }
    dtls_dir *t = dtls_get(f, d);
    if (!t) {
        return;
    }
    dtls_slot *s = NULL;
    for (int i = 0; i < DTLS_SLOTS; i++) {
        if (t->slot[i].used && t->slot[i].seq == seq && t->slot[i].type == type &&
            t->slot[i].len == len) {
            s = &t->slot[i];
        }
    }
    if (!s) {
        /* A free slot, else the one with the lower message_seq. */
        s = &t->slot[0];
        for (int i = 0; i < DTLS_SLOTS; i++) {
            if (!t->slot[i].used) {
                s = &t->slot[i];
                break;
            }
            if (t->slot[i].seq < s->seq) {
                s = &t->slot[i];
            }
        }
        slot_clear(s);
        s->msg = malloc((size_t)len + 12);
        s->bits = calloc((size_t)len / 8 + 1, 1);
        if (!s->msg || !s->bits) {
            slot_clear(s);
            return;
        }
        s->used = true;
        s->seq = seq;
        s->type = type;
        s->len = len;
        s->record_version = rv;
        memcpy(s->msg, h, 12);
        /* as if sent whole: fragment_offset 0, fragment_length = length */
        memset(s->msg + 6, 0, 3);
        memcpy(s->msg + 9, h + 1, 3);
    }
    if (off == 0) {
        s->record_version = rv;
    }
    for (uint32_t i = off; i < off + flen; i++) {
        if (!(s->bits[i / 8] & (1u << (i % 8)))) {
            s->bits[i / 8] = (uint8_t)(s->bits[i / 8] | (1u << (i % 8)));
            s->covered++;
        }
    }
    memcpy(s->msg + 12 + off, data, flen);
    if (s->covered == len) {
        emit_message(p, f, d, TLSNEG_PCAP_DTLS, s->msg, (size_t)len + 12, true, s->record_version,
                     false);
        slot_clear(s);
    }
}

static void dtls_datagram(tlsneg_pcap *p, flow *f, int d, const uint8_t *b, size_t n)
{
    while (n > 0) {
        if ((b[0] & 0xe0) == 0x20) {
            /* DTLS 1.3 unified header: encrypted; its length is present only
             * with the L bit, and a connection ID's length is not written. */
            if (b[0] & 0x10) {
                return;
            }
            if (!(b[0] & 0x04)) {
                return;
            }
            size_t hl = 1 + ((b[0] & 0x08) ? 2 : 1);
            if (n < hl + 2) {
                return;
            }
            size_t rl = (size_t)(b[hl] << 8 | b[hl + 1]);
            if (n < hl + 2 + rl) {
                return;
            }
            b += hl + 2 + rl;
            n -= hl + 2 + rl;
            continue;
        }
        if (n < 13 || !dtls_looks(b, n)) {
            return;
        }
        uint8_t type = b[0];
        uint16_t version = (uint16_t)(b[1] << 8 | b[2]);
        uint16_t epoch = (uint16_t)(b[3] << 8 | b[4]);
        size_t len = (size_t)(b[11] << 8 | b[12]);
        if (type == 25 || n < 13 + len) {
            return; /* a connection ID record, or cut short */
        }
        p->st.dtls_records++;
        const uint8_t *r = b + 13;
        if (epoch == 0 && type == 22) {
            size_t pos = 0;
            while (len - pos >= 12) {
                const uint8_t *h = r + pos;
                size_t flen = (size_t)h[9] << 16 | (size_t)h[10] << 8 | h[11];
                if (flen > len - pos - 12) {
                    break;
                }
                dtls_fragment(p, f, d, version, h, h + 12);
                pos += 12 + flen;
            }
        } else if (epoch == 0 && type == 21) {
            for (size_t i = 0; i + 1 < len; i += 2) {
                emit(p, f, d, TLSNEG_PCAP_DTLS, TLSNEG_PCAP_ALERT, r + i, 2, false);
            }
        }
        b += 13 + len;
        n -= 13 + len;
    }
}

/* ---- QUIC ---- */

typedef struct {
    tlsneg_pcap *p;
    flow *f;
    int d;    /* sender's endpoint index */
    int role; /* 0 client, 1 server */
} quic_ctx;

static void quic_crypto(void *user, uint64_t offset, const uint8_t *data, size_t len)
{
    quic_ctx *c = user;
    quic_side *s = &c->f->quic->side[c->role];
    if (tlsneg_stream_add(&s->s, offset, data, len, c->p->cfg.max_buffer, &c->p->st.tcp_dropped) !=
        TLSNEG_STREAM_IN_ORDER) {
        return;
    }
    uint32_t n = s->s.have;
    if (hs_feed(c->p, c->f, c->d, &s->hs, TLSNEG_PCAP_QUIC, s->s.buf, n, false, 0)) {
        tlsneg_stream_consume(&s->s, n);
    } else {
        tlsneg_stream_free(&s->s);
        hs_free(&s->hs);
    }
}

static void quic_close(void *user, uint64_t code)
{
    quic_ctx *c = user;
    /* RFC 9001 4.8: a TLS alert travels as the crypto error 0x100 + its
     * description. */
    if (code >= 0x100 && code <= 0x1ff) {
        uint8_t alert[2] = {2, (uint8_t)(code - 0x100)};
        emit(c->p, c->f, c->d, TLSNEG_PCAP_QUIC, TLSNEG_PCAP_ALERT, alert, 2, false);
    }
}

static bool quic_keys_for(tlsneg_pcap *p, quic_state *q, uint32_t version, const uint8_t *dcid,
                          uint8_t dcid_len)
{
    if (!tlsneg_quic_initial_keys(p->crypto, version, dcid, dcid_len, q->keys)) {
        return false;
    }
    q->version = version;
    q->have_dcid = true;
    q->dcid_len = dcid_len;
    memcpy(q->dcid, dcid, dcid_len);
    return true;
}

static bool scratch(tlsneg_pcap *p, size_t n)
{
    if (p->scratch_len >= n) {
        return true;
    }
    uint8_t *b = realloc(p->scratch, n);
    if (!b) {
        return false;
    }
    p->scratch = b;
    p->scratch_len = n;
    return true;
}

static void quic_initial(tlsneg_pcap *p, flow *f, int d, const tlsneg_quic_long *h,
                         const uint8_t *pkt)
{
    p->st.quic_initials++;
    if (!f->quic) {
        f->quic = calloc(1, sizeof(quic_state));
        if (!f->quic) {
            return;
        }
    }
    quic_state *q = f->quic;
    if (f->client < 0 || f->client_guessed) {
        /* The first Initial comes from the client. */
        f->client = (int8_t)d;
        f->client_guessed = false;
    }
    int role = f->client == d ? 0 : 1;
    if (!scratch(p, h->packet_len)) {
        return;
    }
    size_t out_len;
    uint64_t pn;
    bool ok = false;
    if (q->have_dcid && q->version != h->version) {
        /* Compatible version negotiation: same connection ID, other keys. */
        uint8_t dcid[20];
        memcpy(dcid, q->dcid, q->dcid_len);
        ok = quic_keys_for(p, q, h->version, dcid, q->dcid_len);
    }
    if (q->have_dcid) {
        ok = tlsneg_quic_decrypt(p->crypto, &q->keys[role], h, pkt, q->side[role].next_pn,
                                 p->scratch, &out_len, &pn);
    }
    if (!ok && role == 0) {
        /* A new connection on the flow, or the client's Initial after a
         * Retry: keys from this packet's Destination Connection ID. */
        quic_state saved = *q;
        if (quic_keys_for(p, q, h->version, h->dcid, h->dcid_len) &&
            tlsneg_quic_decrypt(p->crypto, &q->keys[0], h, pkt, 0, p->scratch, &out_len, &pn)) {
            ok = true;
            if (saved.have_dcid) {
                for (int i = 0; i < 2; i++) {
                    tlsneg_stream_free(&q->side[i].s);
                    hs_free(&q->side[i].hs);
                    memset(&q->side[i], 0, sizeof q->side[i]);
                }
            }
        } else {
            *q = saved;
        }
    }
    if (!ok) {
        p->st.quic_failed++;
        return;
    }
    p->st.quic_decrypted++;
    if (pn + 1 > q->side[role].next_pn) {
        q->side[role].next_pn = pn + 1;
    }
    quic_ctx c = {p, f, d, role};
    tlsneg_quic_frames(p->scratch, out_len, quic_crypto, quic_close, &c);
}

static void quic_datagram(tlsneg_pcap *p, flow *f, int d, const uint8_t *b, size_t n)
{
    while (n > 0) {
        tlsneg_quic_long h;
        if (tlsneg_quic_parse_long(b, n, &h) != TLSNEG_QUIC_OK) {
            return;
        }
        if (h.is_initial) {
            quic_initial(p, f, d, &h, b);
        }
        b += h.packet_len;
        n -= h.packet_len;
    }
}

/* ---- the packet path ---- */

static void count_unknown_link(tlsneg_pcap *p, int linktype)
{
    p->st.unknown_link++;
    for (int i = 0; i < TLSNEG_PCAP_MAX_LINKTYPES; i++) {
        if (p->st.unknown_linktype_count[i] == 0) {
            p->st.unknown_linktype[i] = linktype;
        }
        if (p->st.unknown_linktype[i] == linktype) {
            p->st.unknown_linktype_count[i]++;
            return;
        }
    }
}

void tlsneg_pcap_packet(tlsneg_pcap *p, int linktype, uint32_t frame, uint64_t time_us,
                        const uint8_t *data, size_t caplen, size_t wirelen)
{
    p->frame = frame;
    p->time_us = time_us;
    p->st.packets++;
    p->st.bytes += wirelen;
    if (caplen < wirelen) {
        p->st.snapped++;
    }
    tlsneg_net_packet n;
    tlsneg_net_status s = tlsneg_net_decode(&n, linktype, data, caplen);
    switch (s) {
    case TLSNEG_NET_OK:
        break;
    case TLSNEG_NET_UNKNOWN_LINK:
        count_unknown_link(p, linktype);
        return;
    case TLSNEG_NET_NOT_IP:
        p->st.not_ip++;
        return;
    case TLSNEG_NET_MALFORMED:
        p->st.malformed++;
        return;
    case TLSNEG_NET_FRAGMENT:
        p->st.fragments_skipped++;
        return;
    case TLSNEG_NET_OTHER_L4:
        if (n.ip_version == 4) {
            p->st.ipv4++;
        } else {
            p->st.ipv6++;
        }
        return;
    }
    if (n.ip_version == 4) {
        p->st.ipv4++;
    } else {
        p->st.ipv6++;
    }
    expire(p);
    uint32_t h = flow_hash(&n);
    int d = 0;
    flow *f = flow_find(p, &n, h, &d);
    if (n.l4 == 6) {
        p->st.tcp++;
        bool syn_only = (n.tcp_flags & (TLSNEG_TCP_SYN | TLSNEG_TCP_ACK)) == TLSNEG_TCP_SYN;
        if (f && syn_only && f->tcp[d] && f->tcp[d]->isn_known &&
            (f->tcp[d]->isn != n.seq + 1 || f->rst || f->tcp[d]->fin)) {
            /* A new connection on the same ports. */
            flow_remove(p, f, true);
            f = NULL;
        }
        if (!f) {
            /* A flow starts with any TCP packet but a lone RST or ACK. */
            if (n.payload_len == 0 && !(n.tcp_flags & (TLSNEG_TCP_SYN | TLSNEG_TCP_FIN))) {
                return;
            }
            f = flow_new(p, &n, h);
            if (!f) {
                return;
            }
            f->kind = KIND_TCP;
            d = 0;
        }
        f->last_us = time_us;
        lru_unlink(p, f);
        lru_append(p, f);
        tcp_packet(p, f, d, &n);
        if (f->rst || (f->tcp[0] && f->tcp[1] && f->tcp[0]->fin && f->tcp[1]->fin)) {
            /* Over: nothing more to find, and memory stays flat in the
             * number of connections. */
            p->st.flows_closed++;
            flow_remove(p, f, true);
        }
        return;
    }
    p->st.udp++;
    if (n.payload_len == 0) {
        return;
    }
    if (!f) {
        bool dtls = dtls_looks(n.payload, n.payload_len);
        bool quic = !dtls && tlsneg_quic_looks_initial(n.payload, n.payload_len);
        if (!dtls && !quic) {
            return;
        }
        f = flow_new(p, &n, h);
        if (!f) {
            return;
        }
        f->kind = dtls ? KIND_DTLS : KIND_QUIC;
        d = 0;
    }
    f->last_us = time_us;
    lru_unlink(p, f);
    lru_append(p, f);
    if (f->kind == KIND_DTLS) {
        dtls_datagram(p, f, d, n.payload, n.payload_len);
    } else {
        quic_datagram(p, f, d, n.payload, n.payload_len);
    }
}

tlsneg_pcap *tlsneg_pcap_new(const tlsneg_pcap_config *cfg, tlsneg_pcap_event_fn fn, void *user)
{
    tlsneg_pcap *p = calloc(1, sizeof *p);
    if (!p || !(p->crypto = tlsneg_quic_crypto_new())) {
        free(p);
        return NULL;
    }
    if (cfg) {
        p->cfg = *cfg;
    }
    if (p->cfg.max_flows == 0) {
        p->cfg.max_flows = DEFAULT_MAX_FLOWS;
    }
    if (p->cfg.idle_timeout_s == 0) {
        p->cfg.idle_timeout_s = DEFAULT_IDLE_S;
    }
    if (p->cfg.max_buffer == 0) {
        p->cfg.max_buffer = DEFAULT_BUFFER;
    }
    if (p->cfg.max_buffer < MAX_RECORD + 5) {
        p->cfg.max_buffer = MAX_RECORD + 5;
    }
    uint32_t nb = 1024;
    while (nb < p->cfg.max_flows / 2 && nb < (1u << 22)) {
        nb *= 2;
    }
    p->max_buckets = nb;
    p->nbuckets = nb < 1024 ? nb : 1024;
    p->buckets = calloc(p->nbuckets, sizeof *p->buckets);
    if (!p->buckets) {
        tlsneg_pcap_free(p);
        return NULL;
    }
    p->fn = fn;
    p->user = user;
    return p;
}

void tlsneg_pcap_finish(tlsneg_pcap *p)
{
    while (p->oldest) {
        flow_remove(p, p->oldest, true);
    }
}

void tlsneg_pcap_free(tlsneg_pcap *p)
{
    if (!p) {
        return;
    }
    while (p->oldest) {
        flow_remove(p, p->oldest, false);
    }
    free(p->buckets);
    free(p->scratch);
    tlsneg_quic_crypto_free(p->crypto);
    free(p);
}

const tlsneg_pcap_stats *tlsneg_pcap_get_stats(const tlsneg_pcap *p)
{
    return &p->st;
}
