/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcp.c: TLS over TCP in the packet path (flow.h): each direction's first
 * flight put back in order, its records read (SSLv2-compatible hellos
 * too), until the handshake is encrypted; a plaintext prefix (STARTTLS)
 * handed to starttls.c until TLS starts; past a lost segment, the records
 * beyond the gap read for their content type alone. */
#include <stdlib.h>
#include <string.h>

#include "core/alerts.h"
#include "core/hello.h"
#include "flow.h"
#include "stream.h"
#include "heap.h"

struct tcp_dir {
    tlsneg_stream s;
    uint32_t isn; /* stream offset 0 is this sequence number */
    bool isn_known;
    bool started;    /* the first record (or SSLv2 hello) has been read */
    bool from_start; /* read from its first byte (tlsneg_epoch): its SYN was
                        seen, or its first record told (tcp_first_record) */
    bool done;       /* encrypted from here, or not TLS: nothing more to find */
    bool plain;      /* its first bytes were no TLS: read by the STARTTLS machine
                        (starttls.h) until its TLS starts */
    bool ccs;        /* a ChangeCipherSpec was sent */
    bool progressed; /* its TLSNEG_EV_PROGRESS was sent */
    bool fin;
    /* Past a gap not (yet) filled, a lost segment: the records stored
     * beyond it are read for their content type alone (tcp_resync), up to
     * resync_at. */
    bool resync;      /* resync_at is the start of a record beyond the gap */
    bool resync_over; /* an application-data record was read there */
    uint64_t resync_at;
    hs_msg hs;
    /* The segments that brought the bytes still pending in s, for the
     * messages they hold (hello_segments); once more came than TCP_LOG_MAX,
     * nothing is counted until s empties. */
    seg_log log;
};

/* Segments remembered per direction while a record waits for its end: a
 * ClientHello split over more is not counted (the plugin still counts
 * it: tlsneg-pcap's limit, docs/tlsneg-pcap.md). */
#define TCP_LOG_MAX 64

void tlsneg_tcp_dir_free(tcp_dir *t)
{
    if (t) {
        tlsneg_stream_free(&t->s);
        tlsneg_hs_free(&t->hs);
        tlsneg_seg_log_free(&t->log);
        free(t);
    }
}

static bool plausible_record(uint8_t type, uint16_t version, uint16_t len)
{
    /* tshark 4.0 reads handshakes in records of 0x0300 to 0x0303 and 0x0101
     * (GM/T); tlsneg also takes the rest of 0x03xx. */
    return type >= 20 && type <= 24 && ((version >> 8) == 3 || version == 0x0101) &&
           len <= TLSNEG_MAX_RECORD;
}

static void tcp_done(tcp_dir *t)
{
    t->done = true;
    tlsneg_stream_free(&t->s);
    tlsneg_hs_free(&t->hs);
    tlsneg_seg_log_free(&t->log);
}

/* log_trim forgets the segments whose bytes were all consumed. */
static void log_trim(tcp_dir *t)
{
    tlsneg_seg_log_trim(&t->log, t->s.base);
    if (t->log.n == 0 && t->s.have == 0 && t->s.num_ahead == 0) {
        t->log.lost = false;
    }
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
        tlsneg_emit(p, f, d, TLSNEG_WIRE_TLS, TLSNEG_EV_PROGRESS);
    }
}

/* sslv2_emit emits the SSL 2.0 record r of len bytes, r[0] at map->off. */
static void sslv2_emit(tlsneg_pcap *p, flow *f, int d, const uint8_t *r, size_t len,
                       const seg_map *map)
{
    tlsneg_segments segs;
    memset(&segs, 0, sizeof segs);
    if (map) {
        tlsneg_seg_count(&segs, map, map->off + 2, map->off + len);
    }
    tlsneg_emit_message(p, f, d, TLSNEG_WIRE_SSL2, r + 2, len - 2, true, 0x0002,
                        segs.count ? &segs : NULL);
}

/* tcp_sslv2 reads an SSLv2-compatible ClientHello or an SSL 2.0
 * SERVER-HELLO at the start of a direction's stream (r, left bytes).
 * Returns the bytes it took (*took), 0 when there is none (TLS records
 * follow), or -1 when reading stops here (more bytes are needed, or the
 * direction is done). */
static int tcp_sslv2(tlsneg_pcap *p, flow *f, int d, tcp_dir *t, const uint8_t *r, uint32_t left,
                     const seg_map *map, uint32_t *took)
{
    size_t v2 = sslv2_hello(r, left);
    if (v2 == SIZE_MAX) {
        return -1;
    }
    if (v2 > 0) {
        if (v2 > left) {
            if (v2 > p->cfg.max_buffer) {
                p->st.tcp_gave_up++;
                tcp_done(t);
            }
            return -1;
        }
        t->started = true;
        t->from_start = true;
        sslv2_emit(p, f, d, r, v2, map);
        *took = (uint32_t)v2;
        return 1;
    }
    size_t sh = sslv2_server_hello(r, left);
    if (sh == SIZE_MAX) {
        if (left >= 2 && (r[0] & 0x80) && left >= p->cfg.max_buffer) {
            p->st.tcp_gave_up++;
            tcp_done(t);
        }
        return -1;
    }
    if (sh == 0) {
        return 0;
    }
    /* What follows in SSL 2.0 is no TLS record, and nothing more to find:
     * the direction is done. */
    t->started = true;
    sslv2_emit(p, f, d, r, sh, map);
    tcp_done(t);
    *took = (uint32_t)sh;
    return 1;
}

/* tls_start_byte: b0 can start a TLS record (content type 20 to 24) or an
 * SSL 2.0 record (its top bit set). */
static bool tls_start_byte(uint8_t b0)
{
    return (b0 >= 20 && b0 <= 24) || (b0 & 0x80);
}

/* tcp_plain hands a direction whose first bytes are no TLS record to the
 * STARTTLS machine (starttls.h) until its TLS starts; once both ends agreed
 * on TLS, the other direction reads TLS from its next byte too. It reads
 * the n bytes at b from *pos on and moves *pos past what it took. Returns
 * true if TLS records follow them, false if reading stops here (all taken,
 * or the direction is done). */
static bool tcp_plain(tlsneg_pcap *p, flow *f, int d, tcp_dir *t, const uint8_t *b, uint32_t n,
                      uint32_t *pos)
{
    const uint8_t *r = b + *pos;
    uint32_t left = n - *pos;
    if (!f->starttls) {
        f->starttls = malloc(sizeof *f->starttls);
        if (!f->starttls) {
            p->st.tcp_gave_up++;
            tcp_done(t);
            return false;
        }
        tlsneg_starttls_init(f->starttls);
    }
    t->plain = true;
    size_t took = 0;
    int client = f->client_guessed ? -1 : f->client;
    tlsneg_starttls_result res = tlsneg_starttls_feed(f->starttls, d, client, r, left, &took);
    *pos += (uint32_t)took;
    tcp_dir *o = f->tcp[1 - d];
    switch (res) {
    case TLSNEG_STARTTLS_PLAIN:
        return false;
    case TLSNEG_STARTTLS_TLS:
        p->st.starttls++;
        t->plain = false;
        if (o) {
            o->plain = false;
        }
        return true;
    case TLSNEG_STARTTLS_TOO_LONG:
        p->st.starttls_too_long++;
        tcp_done(t);
        if (o && o->plain) {
            tcp_done(o);
        }
        return false;
    default:
        p->st.tcp_gave_up++;
        tcp_done(t);
        return false;
    }
}

/* epoch_of: what the direction d has shown, for the library's rule on
 * plaintext records (core/alerts.h). After ChangeCipherSpec the handshake
 * is encrypted, except for TLS 1.3's compatibility ChangeCipherSpec around
 * a HelloRetryRequest. */
static tlsneg_epoch epoch_of(const flow *f, int d, const tcp_dir *t)
{
    tlsneg_epoch e = {t->from_start, t->ccs, f->hrr && !f->hello_after_hrr[d]};
    return e;
}

/* tcp_first_record: a direction caught without its SYN is read from its
 * first byte if its first record holds a hello, or if the peer's
 * ClientHello came before it (the answer to it); else (a stream picked up
 * mid-way, a late duplicate after the connection was forgotten) nothing in
 * it is plaintext to us. */
static void tcp_first_record(flow *f, int d, tcp_dir *t, uint8_t type, const uint8_t *payload,
                             uint16_t len)
{
    if (!t->from_start) {
        t->from_start =
            (type == 22 && tlsneg_hello_record(payload, len)) || f->client_hello_from[1 - d];
    }
}

/* tcp_record reads one whole record (its type, version and payload): a
 * handshake record or an alert only where the epoch is plaintext, an alert
 * only as the library says one is (tlsneg_plaintext_alert); the others are
 * counted (not_plaintext), never read. */
static void tcp_record(tlsneg_pcap *p, flow *f, int d, tcp_dir *t, uint8_t type, uint16_t version,
                       const uint8_t *payload, uint16_t len, const seg_map *map)
{
    tlsneg_epoch e = epoch_of(f, d, t);
    uint8_t level, description;
    switch (type) {
    case 22:
        if (!tlsneg_epoch_plaintext(&e)) {
            p->st.not_plaintext++;
            tcp_done(t);
            break;
        }
        if (!tlsneg_hs_feed(p, f, d, &t->hs, TLSNEG_WIRE_TLS, payload, len, true, version, map)) {
            p->st.tcp_gave_up++;
            tcp_done(t);
        }
        break;
    case 21:
        if (tlsneg_plaintext_alert(&e, payload, len, &level, &description)) {
            tlsneg_emit_alert(p, f, d, TLSNEG_WIRE_TLS, level, description);
            break;
        }
        p->st.not_plaintext++;
        if (!tlsneg_epoch_plaintext(&e)) {
            tcp_done(t);
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

/* tcp_records reads every complete record in the contiguous bytes (b[0]
 * at map->off, if map); returns the bytes consumed. */
static uint32_t tcp_records(tlsneg_pcap *p, flow *f, int d, tcp_dir *t, const uint8_t *b,
                            uint32_t n, const seg_map *map)
{
    uint32_t pos = 0;
    while (!t->done) {
        const uint8_t *r = b + pos;
        uint32_t left = n - pos;
        seg_map here, *at = NULL;
        if (map) {
            here = *map;
            here.off += pos;
            at = &here;
        }
        if (!t->started && left > 0 && (t->plain || !tls_start_byte(r[0]))) {
            if (!tcp_plain(p, f, d, t, b, n, &pos)) {
                break;
            }
            continue;
        }
        if (!t->started) {
            uint32_t took = 0;
            int v2 = tcp_sslv2(p, f, d, t, r, left, at, &took);
            if (v2 < 0) {
                break;
            }
            if (v2 > 0) {
                pos += took;
                continue;
            }
        }
        if (left < 5) {
            break;
        }
        uint8_t type = r[0];
        uint16_t version = (uint16_t)(r[1] << 8 | r[2]);
        uint16_t len = (uint16_t)(r[3] << 8 | r[4]);
        if (!plausible_record(type, version, len)) {
            if (!t->started) {
                /* A first byte that could start a record, but no record
                 * (a MySQL greeting of 20 to 24 or 128 and more bytes):
                 * the STARTTLS machine's to tell. */
                if (!tcp_plain(p, f, d, t, b, n, &pos)) {
                    break;
                }
                continue;
            }
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
        if (!t->started) {
            tcp_first_record(f, d, t, type, r + 5, len);
        }
        t->started = true;
        pos += 5u + len;
        if (at) {
            here.off += 5;
        }
        tcp_record(p, f, d, t, type, version, r + 5, len, at);
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
        f->tcp[d] = tlsneg_zalloc(sizeof(tcp_dir));
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
            t->from_start = true;
        }
        if (f->client < 0 || f->client_guessed) {
            f->client = (int8_t)((fl & TLSNEG_TCP_ACK) ? 1 - d : d);
            f->client_guessed = false;
        }
    }
    /* After a reset, only the other side's bytes already in flight are read
     * (the reset does not take back what was sent before it). */
    bool reset_side = f->rst && f->rst_dir == d;
    if (n->payload_len > 0 && !t->done && !reset_side) {
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
            seg_span one = {p->frame, off, off + n->payload_len};
            seg_map map = {off, &one, 1};
            uint32_t used = tcp_records(p, f, d, t, n->payload, (uint32_t)n->payload_len, &map);
            if (!t->done) {
                t->s.base += used;
                if (tlsneg_stream_add(&t->s, t->s.base, n->payload + used, n->payload_len - used,
                                      p->cfg.max_buffer,
                                      &p->st.tcp_dropped) == TLSNEG_STREAM_IN_ORDER) {
                    tlsneg_seg_log_add(&t->log, TCP_LOG_MAX, p->frame, t->s.base,
                                       off + n->payload_len);
                }
            }
        } else {
            uint64_t next = t->s.base + t->s.have;
            tlsneg_stream_result r = tlsneg_stream_add(&t->s, off, n->payload, n->payload_len,
                                                       p->cfg.max_buffer, &p->st.tcp_dropped);
            if (r == TLSNEG_STREAM_AHEAD || r == TLSNEG_STREAM_IN_ORDER) {
                tlsneg_seg_log_add(&t->log, TCP_LOG_MAX, p->frame, off < next ? next : off,
                                   off + n->payload_len);
            }
            if (r == TLSNEG_STREAM_AHEAD) {
                p->st.tcp_out_of_order++;
                tcp_resync(p, f, d, t, off < t->s.base ? t->s.base : off);
            } else if (r == TLSNEG_STREAM_OLD) {
                p->st.tcp_retransmitted++;
            }
            if (r == TLSNEG_STREAM_IN_ORDER) {
                seg_map map;
                uint32_t used = tcp_records(p, f, d, t, t->s.buf, t->s.have,
                                            tlsneg_seg_log_map(&t->log, t->s.base, &map));
                if (!t->done) {
                    tlsneg_stream_consume(&t->s, used);
                    log_trim(t);
                }
            }
        }
    }
    if ((fl & TLSNEG_TCP_RST) && !f->rst) {
        f->rst = true;
        f->rst_dir = (int8_t)d;
        tlsneg_emit(p, f, d, TLSNEG_WIRE_TLS, TLSNEG_EV_RST);
    } else if ((fl & TLSNEG_TCP_FIN) && !t->fin) {
        t->fin = true;
        tlsneg_emit(p, f, d, TLSNEG_WIRE_TLS, TLSNEG_EV_FIN);
    }
}

/* in_flight: endpoint d of f has sent bytes that complete no record or
 * handshake message yet (a hello whose next segment is still to come). */
static bool in_flight(const flow *f, int d)
{
    const tcp_dir *t = f->tcp[d];
    return t && !t->done && (t->s.have > 0 || t->s.num_ahead > 0 || t->hs.hdr_got > 0);
}

/* over: nothing more to find in f. After a reset, the other side's bytes
 * in flight are still read (a server that resets between the two segments
 * of a ClientHello: the second was sent before the reset came), until
 * they are complete; no more than max_buffer of them, as any stream. */
static bool over(const flow *f)
{
    if (f->rst) {
        return !in_flight(f, 1 - f->rst_dir);
    }
    return f->tcp[0] && f->tcp[1] && f->tcp[0]->fin && f->tcp[1]->fin;
}

void tlsneg_tcp_segment(tlsneg_pcap *p, const tlsneg_net_packet *n, uint32_t h, flow *f, int d)
{
    p->st.tcp++;
    bool syn_only = (n->tcp_flags & (TLSNEG_TCP_SYN | TLSNEG_TCP_ACK)) == TLSNEG_TCP_SYN;
    if (f && syn_only && f->tcp[d] && f->tcp[d]->isn_known &&
        (f->tcp[d]->isn != n->seq + 1 || f->rst || f->tcp[d]->fin)) {
        /* A new connection on the same ports. */
        tlsneg_flow_remove(p, f, true);
        f = NULL;
    }
    if (!f) {
        /* A flow starts with any TCP packet but a lone RST or ACK. */
        if (n->payload_len == 0 && !(n->tcp_flags & (TLSNEG_TCP_SYN | TLSNEG_TCP_FIN))) {
            return;
        }
        f = tlsneg_flow_new(p, n, h);
        if (!f) {
            return;
        }
        f->kind = KIND_TCP;
        d = 0;
    }
    tlsneg_flow_seen(p, f);
    tcp_packet(p, f, d, n);
    if (over(f) || (f->rst && (n->tcp_flags & TLSNEG_TCP_RST) && f->rst_dir != d)) {
        /* Over: nothing more to find, and memory stays flat in the number
         * of connections. */
        p->st.flows_closed++;
        tlsneg_flow_remove(p, f, true);
    }
}
