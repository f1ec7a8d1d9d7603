/* SPDX-License-Identifier: GPL-2.0-or-later */
/* quicflow.c: QUIC in the packet path (flow.h): each side's Initial
 * packets decrypted (quic.h) with the keys of the client's first
 * Destination Connection ID, their CRYPTO frames put back in order into
 * handshake messages, a CONNECTION_CLOSE's TLS alert. */
#include <stdlib.h>
#include <string.h>

#include "core/alerts.h"
#include "flow.h"
#include "stream.h"
#include "heap.h"

/* CRYPTO frames remembered per side for hello_segments, those not yet
 * read: an Initial's ClientHello or ServerHello comes in a few (8 in
 * quic-multiple-initial-fragmented-crypto.pcap); past this many the
 * datagrams are not counted. */
#define QUIC_LOG_MAX 32

typedef struct {
    tlsneg_stream s;
    hs_msg hs;
    uint64_t next_pn;
    seg_log log; /* the frame of each CRYPTO frame's new bytes */
} quic_side;

struct quic_state {
    uint32_t version; /* of the keys */
    bool have_dcid;
    uint8_t dcid_len;
    uint8_t dcid[20];
    tlsneg_quic_keys keys[2]; /* client, server */
    quic_side side[2];        /* client, server */
};

void tlsneg_quicflow_free(quic_state *q)
{
    if (q) {
        for (int i = 0; i < 2; i++) {
            tlsneg_stream_free(&q->side[i].s);
            tlsneg_hs_free(&q->side[i].hs);
            tlsneg_seg_log_free(&q->side[i].log);
        }
        free(q);
    }
}

typedef struct {
    tlsneg_pcap *p;
    flow *f;
    int d;    /* sender's endpoint index */
    int role; /* 0 client, 1 server */
} quic_ctx;

/* log_trim forgets the CRYPTO frames whose bytes were all read, except
 * those of a message still being read over several feeds (from its first
 * byte on: its datagrams are counted when it completes); what was lost is
 * forgotten once nothing is pending (the message knows, hs_msg.segs_lost). */
static void log_trim(quic_side *s)
{
    tlsneg_seg_log_trim(&s->log, s->hs.hdr_got > 0 && !s->hs.segs_lost ? s->hs.start : s->s.base);
    if (s->s.have == 0 && s->s.num_ahead == 0) {
        s->log.lost = false;
    }
}

static void quic_crypto(void *user, uint64_t offset, const uint8_t *data, size_t len)
{
    quic_ctx *c = user;
    quic_side *s = &c->f->quic->side[c->role];
    tlsneg_stream_result r =
        tlsneg_stream_add(&s->s, offset, data, len, c->p->cfg.max_buffer, &c->p->st.tcp_dropped);
    if (r == TLSNEG_STREAM_IN_ORDER || r == TLSNEG_STREAM_AHEAD) {
        tlsneg_seg_log_add(&s->log, QUIC_LOG_MAX, c->p->frame, offset, offset + len);
    }
    if (r != TLSNEG_STREAM_IN_ORDER) {
        return;
    }
    uint32_t n = s->s.have;
    seg_map map;
    if (tlsneg_hs_feed(c->p, c->f, c->d, &s->hs, TLSNEG_WIRE_QUIC, s->s.buf, n, false, 0,
                       tlsneg_seg_log_map(&s->log, s->s.base, &map))) {
        tlsneg_stream_consume(&s->s, n);
        log_trim(s);
    } else {
        tlsneg_stream_free(&s->s);
        tlsneg_hs_free(&s->hs);
    }
}

static void quic_close(void *user, uint64_t code)
{
    quic_ctx *c = user;
    /* RFC 9001 4.8: a TLS alert travels as the crypto error 0x100 + its
     * description, without its level: the connection is closed, so the
     * analysis takes it as fatal (TLSNEG_ALERT_NO_LEVEL). */
    uint8_t description;
    if (tlsneg_quic_crypto_alert(code, &description)) {
        tlsneg_emit_alert(c->p, c->f, c->d, TLSNEG_WIRE_QUIC, TLSNEG_ALERT_NO_LEVEL, description);
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
        f->quic = tlsneg_zalloc(sizeof(quic_state));
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
                    tlsneg_hs_free(&q->side[i].hs);
                    tlsneg_seg_log_free(&q->side[i].log);
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

void tlsneg_quicflow_datagram(tlsneg_pcap *p, flow *f, int d, const uint8_t *b, size_t n)
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
