/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_session: libFuzzer target over the session layer (analysis/session.h)
 * and the core's framing (tlsneg_frame_message), driven by a byte-coded
 * event stream.
 *
 * Input layout: byte 0 is the tracker's cap (1..64 attempts), byte 1 the
 * window in seconds; then events of 4 bytes, a hello followed by a 2-byte
 * big-endian length and that many bytes (cut at the input's end):
 *   op   bits 0-1: 0 hello, 1 alert, 2 TCP FIN or RST, 3 DTLS hello as a
 *                  fragment with its reassembled body (the payload: type,
 *                  then the body)
 *        bit 2: sent by the server end (else by the client end)
 *        bits 3-4: hello wire: 0 TLS, 1 DTLS, 2 QUIC, 3 TLS in an SSLv2
 *                  record (version 0x0002; the payload's first 2 bytes are
 *                  the record header)
 *        bit 5: the message has a record (record version from x)
 *        bit 6: FIN/RST: a reset
 *        bit 7: the front end does not keep the ClientHello's facts
 *   conn bits 0-3: one of 16 connections; bit 4: the connection starts
 *        afresh (a new id, a new client port); bits 5-6: the client's
 *        address (4 clients); bit 7: IPv6 addresses
 *   dt   time step in 1/8 s; odd: the sender is known (the front end's
 *        TLSNEG_SENDER_SERVER or _CLIENT, by op bit 2), even: unknown
 *   x    alert description; hello: record version index (bits 0-2)
 *
 * The target checks the promises of session.h: results name only frames
 * given so far, back notes only earlier frames, retransmissions only
 * datagram hellos, texts end inside their buffers, findings and verdicts
 * stay within their caps, a framed message lies inside its input, and the
 * tracker stays under its cap. */
#include "analysis/session.h"
#include "core/versions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define require(cond)                                                                              \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_session: %s:%d: broken promise: %s\n", __FILE__, __LINE__,       \
                    #cond);                                                                        \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#define CONNS 16

static const uint16_t record_versions[8] = {
    TLSNEG_V_TLS10,  TLSNEG_V_TLS12,  TLSNEG_V_TLS11, TLSNEG_V_SSL3,
    TLSNEG_V_DTLS10, TLSNEG_V_DTLS12, TLSNEG_V_SSL2,  TLSNEG_V_TLS13,
};

typedef struct {
    tlsneg_conn conn;
    tlsneg_facts kept;
    tlsneg_facts_buf kept_buf;
    uint16_t client_port;
} slot;

static bool terminated(const char *s, size_t n)
{
    return memchr(s, '\0', n) != NULL;
}

static void check_findings(const tlsneg_findings *fs)
{
    require(fs->count <= TLSNEG_MAX_FINDINGS);
    for (size_t i = 0; i < fs->count; i++) {
        require(fs->item[i].rule < TLSNEG_RULE_COUNT);
        require(terminated(fs->item[i].detail, sizeof fs->item[i].detail));
    }
}

static void check_result(const tlsneg_result *x, const tlsneg_conn *c, uint32_t frame)
{
    require(x->analysed);
    check_findings(&x->findings);
    require(x->client_hello_frame <= frame);
    require(x->retransmission_of < frame);
    require(!x->retransmission_of ||
            (x->facts.wire == TLSNEG_WIRE_DTLS || x->facts.wire == TLSNEG_WIRE_QUIC));
    require(!x->retransmission_of || (x->findings.count == 0 && x->verdicts.count == 0));
    require(!x->has_sni || terminated(x->sni, sizeof x->sni));
    require(!x->keep_facts || (x->facts.msg_type == TLSNEG_HS_CLIENT_HELLO && x->from_client &&
                               c->client_hello_frame == frame));
    require(x->verdicts.count <= TLSNEG_MAX_VERDICTS);
    for (size_t k = 0; k < x->verdicts.count; k++) {
        const tlsneg_verdict *v = &x->verdicts.item[k];
        require(v->kind < TLSNEG_VERDICT_KINDS && v->rule < TLSNEG_RULE_COUNT);
        require(terminated(v->detail, sizeof v->detail));
        require(v->num_links <= TLSNEG_VERDICT_LINKS && v->num_texts <= TLSNEG_VERDICT_TEXTS &&
                v->num_versions <= TLSNEG_VERDICT_VERSIONS && v->chain_len <= TLSNEG_CHAIN_MAX);
        for (size_t i = 0; i < v->num_links; i++) {
            require(v->link[i].role < TLSNEG_LINK_ROLES && v->link[i].frame <= frame);
        }
        for (size_t i = 0; i < v->num_texts; i++) {
            require(terminated(v->text[i].text, sizeof v->text[i].text));
        }
        for (size_t i = 0; i < v->chain_len; i++) {
            require(v->chain_frames[i] <= frame);
        }
    }
    require(x->num_back_notes <= TLSNEG_MAX_BACK_NOTES);
    for (size_t i = 0; i < x->num_back_notes; i++) {
        const tlsneg_back_note *n = &x->back_notes[i];
        /* A probe's first hellos link its first hello; an early failure's
         * note is on this hello and links the server's earlier ending; the
         * others are on earlier frames and link this one. */
        bool early = n->kind == TLSNEG_NOTE_FAILED && n->frame == frame && n->link.frame < frame &&
                     x->early_frame == n->link.frame;
        require(n->kind < TLSNEG_NOTE_KINDS &&
                (early ||
                 (n->frame < frame && (n->kind == TLSNEG_NOTE_PROBE ? n->link.frame <= n->frame
                                                                    : n->link.frame == frame))));
        require(!n->has_text || terminated(n->text.text, sizeof n->text.text));
        require(!n->has_finding || terminated(n->finding.detail, sizeof n->finding.detail));
    }
    /* Every verdict but a silent one (a probe's later messages) is a finding
     * too (unless the findings were full). */
    size_t loud = 0;
    for (size_t i = 0; i < x->verdicts.count; i++) {
        loud += !x->verdicts.item[i].silent;
    }
    require(x->findings.count + x->findings.dropped >= loud);
}

/* hello_event: the hello of an event (op 0 or 3), its 2-byte length and
 * bytes at data + *at (*at moved past them; cut at the input's end),
 * framed as a front end frames it (the framing's promises checked), then
 * fed to the session (the result checked; its facts kept unless op bit 7). */
static void hello_event(tlsneg_session *s, slot *sl, const tlsneg_event *ev, uint8_t op, uint8_t xb,
                        const uint8_t *data, size_t size, size_t *at, uint32_t frame,
                        tlsneg_result *x)
{
    size_t len = 0;
    if (*at + 2 <= size) {
        len = (size_t)data[*at] << 8 | data[*at + 1];
        *at += 2;
    }
    len = len < size - *at ? len : size - *at;
    const uint8_t *p = data + *at;
    *at += len;
    tlsneg_wire wires[4] = {TLSNEG_WIRE_TLS, TLSNEG_WIRE_DTLS, TLSNEG_WIRE_QUIC, TLSNEG_WIRE_TLS};
    tlsneg_wire wire = (op & 3) == 3 ? TLSNEG_WIRE_DTLS : wires[(op >> 3) & 3];
    bool has_record = (op & 32) != 0 || ((op >> 3) & 3) == 3;
    uint16_t rv = ((op >> 3) & 3) == 3 ? TLSNEG_V_SSL2 : record_versions[xb & 7];
    tlsneg_message m;
    bool framed;
    if ((op & 3) == 3) {
        /* A fragment header (offset 1) and the reassembled body. */
        uint8_t frag[12] = {len ? p[0] : 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
        framed = tlsneg_frame_message(&m, wire, has_record, rv, frag, sizeof frag, 0,
                                      len > 1 ? p + 1 : NULL, len > 1 ? len - 1 : 0);
        require(!framed || (m.body_only && m.bytes == p + 1 && m.len == len - 1));
    } else {
        size_t start =
            wire == TLSNEG_WIRE_TLS && has_record && rv == TLSNEG_V_SSL2 ? (len < 2 ? len : 2) : 0;
        framed = tlsneg_frame_message(&m, wire, has_record, rv, p, len, start, NULL, 0);
        require(!framed || len > start);
        /* Only hellos are framed (SSL 2.0: CLIENT-HELLO and SERVER-HELLO). */
        uint8_t t = len > start ? p[start] : 0;
        bool ssl2 = wire == TLSNEG_WIRE_TLS && has_record && rv == TLSNEG_V_SSL2;
        bool hello = ssl2 ? t == 1 || t == 4 : t == 1 || t == 2;
        require(framed || len <= start || wire == TLSNEG_WIRE_DTLS || !hello);
        require(!framed || (m.bytes == p + start && m.len <= len - start &&
                            m.msg_type == p[start] && !m.body_only));
    }
    if (!framed) {
        return;
    }
    tlsneg_session_message(s, &sl->conn, ev, &m, has_record, rv, x);
    check_result(x, &sl->conn, frame);
    if (x->keep_facts && !(op & 128)) {
        tlsneg_facts_copy(&sl->kept, &sl->kept_buf, &x->facts);
        tlsneg_conn_keep_client_hello(&sl->conn, &sl->kept);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) {
        return 0;
    }
    tlsneg_tracker_config cfg = {(uint32_t)(data[0] % 64) + 1, (uint64_t)data[1] * 1000000u,
                                 (data[1] & 1) != 0, (data[1] & 2) != 0, (data[1] & 4) != 0};
    tlsneg_session *s = tlsneg_session_new(&cfg);
    require(s != NULL && tlsneg_session_tracker(s) != NULL);
    slot *slots = calloc(CONNS, sizeof *slots);
    tlsneg_result *x = malloc(sizeof *x);
    require(slots && x);
    uint64_t next_id = CONNS;
    for (size_t i = 0; i < CONNS; i++) {
        slots[i].conn.id = i;
        slots[i].client_port = (uint16_t)(40000 + i);
    }
    uint64_t now = 0;
    uint32_t frame = 0;
    size_t at = 2;
    while (at + 4 <= size) {
        uint8_t op = data[at], cb = data[at + 1], dt = data[at + 2], xb = data[at + 3];
        at += 4;
        slot *sl = &slots[cb & 15];
        if (cb & 16) {
            uint16_t port = (uint16_t)(sl->client_port + CONNS);
            memset(sl, 0, sizeof *sl);
            sl->conn.id = next_id++;
            sl->client_port = port;
        }
        now += (uint64_t)dt * 125000u;
        frame++;
        uint8_t client[16] = {10, 0, 0, (uint8_t)((cb >> 5) & 3)}, server[16] = {10, 0, 1, 1};
        size_t alen = cb & 128 ? 16 : 4;
        tlsneg_endpoint ce = {client, alen, sl->client_port}, se = {server, alen, 443};
        bool from_server = (op & 4) != 0;
        /* The front end knows the sender (dt's low bit): a server's alert
         * or close before the ClientHello is complete is that attempt's
         * early failure (session.c hold_early, early_failure). */
        tlsneg_sender sender = !(dt & 1)     ? TLSNEG_SENDER_UNKNOWN
                               : from_server ? TLSNEG_SENDER_SERVER
                                             : TLSNEG_SENDER_CLIENT;
        tlsneg_event ev = {frame, now, from_server ? se : ce, from_server ? ce : se, sender, 0};
        switch (op & 3) {
        case 0:
        case 3:
            hello_event(s, sl, &ev, op, xb, data, size, &at, frame, x);
            break;
        case 1:
            /* the level from the operation's bits: none, warning, fatal;
             * the wire from its top bits: TLS, DTLS, QUIC */
            tlsneg_session_alert(s, &sl->conn, &ev, (tlsneg_wire)((op >> 5) % 3),
                                 (uint8_t)((op >> 2) % 3), xb, x);
            check_result(x, &sl->conn, frame);
            require(x->is_alert && !(x->from_client && x->alert_from_server));
            break;
        default: {
            tlsneg_close_result cr;
            tlsneg_session_close(s, &sl->conn, &ev, (op & 64) != 0, &cr);
            require(cr.ended_attempt_frame < frame);
            require(!cr.has_sni || terminated(cr.sni, sizeof cr.sni));
            break;
        }
        }
        require(tlsneg_tracker_attempts(tlsneg_session_tracker(s)) <= cfg.max_attempts);
    }
    free(x);
    free(slots);
    tlsneg_session_free(s);
    return 0;
}
