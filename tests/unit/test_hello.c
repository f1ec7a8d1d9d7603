/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/hello.h"

#include "tap.h"
#include "vectors.h"

typedef struct {
    const char *name;
    const char *hex;
    tlsneg_wire wire;
} vector;

static const vector vectors[] = {
    {"tls11_client_hello", tls11_client_hello_hex, TLSNEG_WIRE_TLS},
    {"tls11_server_hello", tls11_server_hello_hex, TLSNEG_WIRE_TLS},
    {"chrome55_client_hello", chrome55_client_hello_hex, TLSNEG_WIRE_TLS},
    {"rfc8446_server_hello", rfc8446_server_hello_hex, TLSNEG_WIRE_TLS},
    {"draft20_server_hello", draft20_server_hello_hex, TLSNEG_WIRE_TLS},
    {"hrr", hrr_hex, TLSNEG_WIRE_TLS},
    {"dtls12_hello_verify_request", dtls12_hello_verify_request_hex, TLSNEG_WIRE_DTLS},
    {"dtls12_client_hello", dtls12_client_hello_hex, TLSNEG_WIRE_DTLS},
    {"sslv2_client_hello", sslv2_client_hello_hex, TLSNEG_WIRE_SSL2},
    {"sslv2_ssl20_client_hello", sslv2_ssl20_client_hello_hex, TLSNEG_WIRE_SSL2},
    {"sslv2_server_hello", sslv2_server_hello_hex, TLSNEG_WIRE_SSL2},
    {"quic_client_hello", quic_client_hello_hex, TLSNEG_WIRE_QUIC},
};

static tlsneg_status parse_hex(tlsneg_hello *h, const char *hex, tlsneg_wire wire)
{
    size_t n;
    uint8_t *b = unhex(hex, &n);
    tlsneg_status s = tlsneg_hello_parse(h, wire, b, n);
    free(b);
    return s;
}

static void every_vector_parses_and_every_prefix_fails(void)
{
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        tlsneg_hello h;
        size_t n;
        uint8_t *full = unhex(vectors[i].hex, &n);
        ok(tlsneg_hello_parse(&h, vectors[i].wire, full, n) == TLSNEG_OK, "%s parses",
           vectors[i].name);
        size_t bad = 0;
        for (size_t cut = 0; cut < n; cut++) {
            /* An exact-size copy: ASan flags any read past the prefix. */
            uint8_t *prefix = malloc(cut ? cut : 1);
            memcpy(prefix, full, cut);
            tlsneg_status s = tlsneg_hello_parse(&h, vectors[i].wire, prefix, cut);
            if (s == TLSNEG_OK || h.error_offset > cut) {
                bad++;
            }
            free(prefix);
        }
        ok(bad == 0, "%s: all %zu truncated prefixes fail inside the bytes", vectors[i].name, n);
        free(full);
    }
}

static void client_hello_fields(void)
{
    tlsneg_hello h;
    parse_hex(&h, tls11_client_hello_hex, TLSNEG_WIRE_TLS);
    /* tshark: Version 0x0302, 0x64 bytes of suites, 49 bytes of extensions. */
    ok(h.msg_type == 1 && h.legacy_version == 0x0302, "TLS 1.1 ClientHello: legacy_version");
    ok(h.cipher_suites.len == 0x64 && h.session_id.len == 0, "TLS 1.1 ClientHello: suites");
    ok(!h.supported_versions.present && h.has_extensions_block && h.extensions.len == 0x31,
       "TLS 1.1 ClientHello: no supported_versions");

    parse_hex(&h, chrome55_client_hello_hex, TLSNEG_WIRE_TLS);
    /* tshark: 17 extensions, key_share as code point 40, SNI tls13.crypto.mozilla.org. */
    ok(h.num_extensions == 17 && h.key_share.present && h.supported_versions.present,
       "Chrome 55: 17 extensions, draft key_share found");
    ok(h.supported_versions.body.len == 11, "Chrome 55: supported_versions holds 5 versions");
    ok(h.last_extension == 0x0015 && !h.duplicate_extension, "Chrome 55: padding is last");
    /* Its extension types, read off the bytes: 2a2a ff01 0000 0017 0023 000d 0005 0012
     * 0010 7550 000b 0028 002b 000a 0018 0a0a 0015. Types from 64 up are looked
     * for in the bytes, which must stay alive. */
    size_t n;
    uint8_t *b = unhex(chrome55_client_hello_hex, &n);
    (void)tlsneg_hello_parse(&h, TLSNEG_WIRE_TLS, b, n);
    ok(tlsneg_hello_has_extension(&h, 0x0000) && tlsneg_hello_has_extension(&h, 0x0028) &&
           tlsneg_hello_has_extension(&h, 0x002b) && tlsneg_hello_has_extension(&h, 0x0018),
       "Chrome 55: has_extension finds types below 64");
    ok(tlsneg_hello_has_extension(&h, 0xff01) && tlsneg_hello_has_extension(&h, 0x7550) &&
           tlsneg_hello_has_extension(&h, 0x0a0a),
       "Chrome 55: has_extension finds types from 64 up");
    ok(!tlsneg_hello_has_extension(&h, 0x0033) && !tlsneg_hello_has_extension(&h, 0x002a) &&
           !tlsneg_hello_has_extension(&h, 0x0039) && !tlsneg_hello_has_extension(&h, 0xffa5),
       "Chrome 55: no key_share (51), early_data, QUIC transport parameters");
    free(b);
}

static void server_hello_fields(void)
{
    tlsneg_hello h;
    parse_hex(&h, rfc8446_server_hello_hex, TLSNEG_WIRE_TLS);
    ok(h.legacy_version == 0x0303 && h.cipher_suite == 0x1301 && h.session_id.len == 32,
       "RFC 8446 ServerHello: 0x0303, TLS_AES_128_GCM_SHA256, 32-byte session id echo");
    ok(!h.is_hrr && h.supported_versions.present && h.key_share.present, "RFC 8446: extensions");

    parse_hex(&h, draft20_server_hello_hex, TLSNEG_WIRE_TLS);
    ok(h.status == TLSNEG_OK && h.legacy_version == 0x7f14 && h.cipher_suite == 0x1303 &&
           h.session_id.len == 0,
       "draft-20 ServerHello: no session id, suite right after the random");
    ok(h.key_share.present && h.num_extensions == 1, "draft-20: key_share (40) only");

    parse_hex(&h, hrr_hex, TLSNEG_WIRE_TLS);
    ok(h.is_hrr && h.cipher_suite == 0x1302, "HelloRetryRequest recognised by its random");
}

static void other_wires(void)
{
    tlsneg_hello h;
    parse_hex(&h, dtls12_hello_verify_request_hex, TLSNEG_WIRE_DTLS);
    ok(h.msg_type == 3 && h.legacy_version == 0xfeff && h.cookie.len == 20,
       "HelloVerifyRequest: DTLS 1.0 version, 20-byte cookie");
    parse_hex(&h, dtls12_client_hello_hex, TLSNEG_WIRE_DTLS);
    ok(h.legacy_version == 0xfefd && h.cookie.len == 0, "DTLS ClientHello: empty first cookie");
    parse_hex(&h, sslv2_client_hello_hex, TLSNEG_WIRE_SSL2);
    ok(h.legacy_version == 0x0301 && h.cipher_suites.len == 15 && h.random.len == 16,
       "SSLv2 ClientHello: 5 cipher specs, 16-byte challenge");
    /* SSL 2.0 (draft-hickman-netscape-ssl-00): the SERVER-HELLO is the
     * server's hello; CLIENT-MASTER-KEY (type 2) is no ServerHello. */
    ok(parse_hex(&h, sslv2_server_hello_hex, TLSNEG_WIRE_SSL2) == TLSNEG_OK &&
           h.msg_type == TLSNEG_HS_SERVER_HELLO && h.legacy_version == 0x0002 &&
           h.cipher_suites.len == 3 && !h.has_extensions_block,
       "SSL 2.0 SERVER-HELLO: a ServerHello with version 0x0002, one 3-byte cipher spec");
    ok(parse_hex(&h, sslv2_client_master_key_hex, TLSNEG_WIRE_SSL2) == TLSNEG_UNSUPPORTED &&
           h.msg_type == 0,
       "SSL 2.0 CLIENT-MASTER-KEY: not a hello, not a ServerHello");
    ok(parse_hex(&h, sslv2_ssl20_client_hello_hex, TLSNEG_WIRE_SSL2) == TLSNEG_OK &&
           h.msg_type == TLSNEG_HS_CLIENT_HELLO && h.legacy_version == 0x0002 &&
           h.cipher_suites.len == 6,
       "SSL 2.0 CLIENT-HELLO: version 0x0002, two cipher kinds");
    parse_hex(&h, quic_client_hello_hex, TLSNEG_WIRE_QUIC);
    ok(h.num_extensions == 11 && h.last_extension == 57, "QUIC: transport parameters last");
}

/* tlsneg_frame_message frames only hellos: in an SSL 2.0 record the
 * CLIENT-HELLO and the SERVER-HELLO, not the client's CLIENT-MASTER-KEY. buf
 * starts with the 2-byte SSLv2 record header, as the front end hands it. */
static bool frame_ssl2(const char *hex, tlsneg_message *m, tlsneg_hello *h)
{
    size_t n;
    uint8_t *msg = unhex(hex, &n);
    uint8_t *buf = malloc(n + 2);
    buf[0] = (uint8_t)(0x80 | (n >> 8));
    buf[1] = (uint8_t)n;
    memcpy(buf + 2, msg, n);
    bool framed = tlsneg_frame_message(m, TLSNEG_WIRE_TLS, true, 0x0002, buf, n + 2, 2, NULL, 0);
    bool parsed = framed && m->len == n && tlsneg_message_parse(h, m) == TLSNEG_OK;
    free(buf);
    free(msg);
    return framed && parsed;
}

static void framing(void)
{
    tlsneg_message m;
    tlsneg_hello h;
    ok(frame_ssl2(sslv2_ssl20_client_hello_hex, &m, &h) && m.wire == TLSNEG_WIRE_SSL2 &&
           h.msg_type == TLSNEG_HS_CLIENT_HELLO,
       "framing: an SSL 2.0 CLIENT-HELLO is a hello");
    ok(frame_ssl2(sslv2_server_hello_hex, &m, &h) && m.wire == TLSNEG_WIRE_SSL2 &&
           h.msg_type == TLSNEG_HS_SERVER_HELLO && h.legacy_version == 0x0002,
       "framing: an SSL 2.0 SERVER-HELLO is the server's hello, SSL 2.0");
    ok(!frame_ssl2(sslv2_client_master_key_hex, &m, &h),
       "framing: an SSL 2.0 CLIENT-MASTER-KEY is no hello (not a ServerHello)");
    /* Type 4 outside SSL 2.0 is a NewSessionTicket: no hello. */
    static const uint8_t nst[] = {0x04, 0x00, 0x00, 0x02, 0x00, 0x00};
    ok(!tlsneg_frame_message(&m, TLSNEG_WIRE_TLS, true, 0x0303, nst, sizeof nst, 0, NULL, 0),
       "framing: a TLS NewSessionTicket is no hello");
}

static void broken_messages(void)
{
    tlsneg_hello h;
    /* A ClientHello whose session_id length runs past a complete message. */
    static const uint8_t bad_len[] = {0x01, 0x00, 0x00, 0x23, 0x03, 0x03, /* random */
                                      0,    0,    0,    0,    0,    0,    0, 0, 0, 0, 0,
                                      0,    0,    0,    0,    0,    0,    0, 0, 0, 0, 0,
                                      0,    0,    0,    0,    0,    0,    0, 0, 0, 0, 0x20};
    ok(tlsneg_hello_parse(&h, TLSNEG_WIRE_TLS, bad_len, sizeof bad_len) == TLSNEG_BAD_LENGTH &&
           h.legacy_version == 0x0303 && h.error_offset == 38,
       "an inner length past the message is a bad length; fields before it are kept");

    /* Extension type 43 twice. */
    static const uint8_t dup[] = {0x02, 0x00, 0x00, 0x34, 0x03, 0x03, /* random */
                                  1,    1,    1,    1,    1,    1,    1,    1,    1,    1,
                                  1,    1,    1,    1,    1,    1,    1,    1,    1,    1,
                                  1,    1,    1,    1,    1,    1,    1,    1,    1,    1,
                                  1,    1,    0x00, 0x13, 0x01, 0x00, 0x00, 0x0c, 0x00, 0x2b,
                                  0x00, 0x02, 0x03, 0x04, 0x00, 0x2b, 0x00, 0x02, 0x03, 0x03};
    ok(tlsneg_hello_parse(&h, TLSNEG_WIRE_TLS, dup, sizeof dup) == TLSNEG_OK &&
           h.duplicate_extension && h.duplicate_type == 43 && h.num_extensions == 2,
       "a repeated extension is flagged and the first one kept");
    ok(h.supported_versions.body.p[1] == 0x04, "the first supported_versions wins");

    static const uint8_t trailing[] = {0x03, 0x00, 0x00, 0x04, /* type, length */
                                       0x00, 0x00,             /* message_seq */
                                       0x00, 0x00, 0x00,       /* fragment_offset */
                                       0x00, 0x00, 0x04,       /* fragment_length */
                                       0xfe, 0xff, 0x00, 0xaa};
    ok(tlsneg_hello_parse(&h, TLSNEG_WIRE_DTLS, trailing, sizeof trailing) == TLSNEG_TRAILING,
       "HelloVerifyRequest with a byte after the cookie: trailing");

    static const uint8_t frag[] = {0x01, 0x00, 0x01, 0x00, 0x00, 0x00,
                                   0x00, 0x00, 0x10, 0x00, 0x00, 0x10};
    ok(tlsneg_hello_parse(&h, TLSNEG_WIRE_DTLS, frag, sizeof frag) == TLSNEG_FRAGMENT,
       "a DTLS fragment is reported, not parsed");

    static const uint8_t finished[] = {0x14, 0x00, 0x00, 0x00};
    ok(tlsneg_hello_parse(&h, TLSNEG_WIRE_TLS, finished, sizeof finished) == TLSNEG_UNSUPPORTED,
       "a Finished message is not a hello");
}

/* What carried a message: TCP segments in stream order (a repeat of the
 * last frame is the same segment), datagrams of DTLS fragments or QUIC
 * CRYPTO frames counted once each in any order. */
static void segments(void)
{
    tlsneg_segments s;
    memset(&s, 0, sizeof s);
    tlsneg_segments_add(&s, 4);
    tlsneg_segments_add(&s, 4);
    tlsneg_segments_add(&s, 7);
    ok(s.count == 2 && s.num_frames == 2 && s.frames[1] == 7,
       "two records in segment 4, the rest in 7: 2 segments (4, 7)");
    memset(&s, 0, sizeof s);
    bool all = tlsneg_segments_add_distinct(&s, 9) && tlsneg_segments_add_distinct(&s, 5) &&
               tlsneg_segments_add_distinct(&s, 9) && tlsneg_segments_add_distinct(&s, 7);
    ok(all && s.count == 3 && s.frames[0] == 5 && s.frames[1] == 7 && s.frames[2] == 9,
       "fragments in datagrams 9, 5, 9, 7: 3 datagrams, kept as 5 7 9");
    memset(&s, 0, sizeof s);
    for (uint32_t f = 1; f <= TLSNEG_MAX_SEGMENT_FRAMES; f++) {
        all &= tlsneg_segments_add_distinct(&s, f * 10);
    }
    ok(all && tlsneg_segments_add_distinct(&s, 10) && !tlsneg_segments_add_distinct(&s, 15) &&
           !tlsneg_segments_add_distinct(&s, 0),
       "a ninth distinct datagram, or an unknown frame (0): cannot tell");
}

int main(void)
{
    segments();
    every_vector_parses_and_every_prefix_fails();
    framing();
    client_hello_fields();
    server_hello_fields();
    other_wires();
    broken_messages();
    return tap_done();
}
