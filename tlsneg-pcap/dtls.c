/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dtls.c: DTLS over UDP in the packet path (flow.h): the plaintext records
 * of each datagram, handshake fragments put together into whole messages,
 * alerts. */
#include <stdlib.h>
#include <string.h>

#include "core/alerts.h"
#include "flow.h"
#include "heap.h"

/* A DTLS message being put together from fragments. */
typedef struct {
    bool used;
    uint16_t seq;
    uint8_t type;
    uint16_t record_version;
    uint32_t len, covered;
    uint8_t *msg;         /* 12-byte header + body */
    uint8_t *bits;        /* one bit per body byte received */
    tlsneg_segments segs; /* the datagrams of its fragments, each once */
    bool segs_lost;       /* more of them than can be told apart */
} dtls_slot;

#define DTLS_SLOTS 2

struct dtls_dir {
    dtls_slot slot[DTLS_SLOTS];
};

void tlsneg_dtls_dir_free(dtls_dir *t)
{
    if (t) {
        for (int i = 0; i < DTLS_SLOTS; i++) {
            free(t->slot[i].msg);
            free(t->slot[i].bits);
        }
        free(t);
    }
}

static bool dtls_version(uint16_t v)
{
    return v == 0xfeff || v == 0xfefd || v == 0xfefc || v == 0x0100;
}

bool tlsneg_dtls_looks(const uint8_t *b, size_t n)
{
    return n >= 13 && b[0] >= 20 && b[0] <= 26 && dtls_version((uint16_t)(b[1] << 8 | b[2]));
}

static dtls_dir *dtls_get(flow *f, int d)
{
    if (!f->dtls[d]) {
        f->dtls[d] = tlsneg_zalloc(sizeof(dtls_dir));
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
    if (!tlsneg_hs_keep_type(type) || off > len || flen > len - off) {
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
        /* One fragment in one record: this datagram. */
        tlsneg_segments one;
        memset(&one, 0, sizeof one);
        tlsneg_segments_add(&one, p->frame);
        tlsneg_emit_message(p, f, d, TLSNEG_WIRE_DTLS, m, (size_t)len + 12, true, rv, &one);
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
    if (!tlsneg_segments_add_distinct(&s->segs, p->frame)) {
        s->segs_lost = true;
    }
    for (uint32_t i = off; i < off + flen; i++) {
        if (!(s->bits[i / 8] & (1u << (i % 8)))) {
            s->bits[i / 8] = (uint8_t)(s->bits[i / 8] | (1u << (i % 8)));
            s->covered++;
        }
    }
    memcpy(s->msg + 12 + off, data, flen);
    if (s->covered == len) {
        tlsneg_emit_message(p, f, d, TLSNEG_WIRE_DTLS, s->msg, (size_t)len + 12, true,
                            s->record_version, s->segs_lost ? NULL : &s->segs);
        slot_clear(s);
    }
}

void tlsneg_dtls_datagram(tlsneg_pcap *p, flow *f, int d, const uint8_t *b, size_t n)
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
        if (n < 13 || !tlsneg_dtls_looks(b, n)) {
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
        } else if (type == 21) {
            /* A DTLS record names its epoch: 0 is plaintext, any other
             * was reached through a ChangeCipherSpec (RFC 9147 4.2.1). */
            tlsneg_epoch e = {.from_start = true, .ccs = epoch != 0};
            uint8_t level, description;
            if (tlsneg_plaintext_alert(&e, r, len, &level, &description)) {
                tlsneg_emit_alert(p, f, d, TLSNEG_WIRE_DTLS, level, description);
            } else {
                p->st.not_plaintext++;
            }
        }
        b += 13 + len;
        n -= 13 + len;
    }
}
