/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hello.h: parse ClientHello, ServerHello (and HelloRetryRequest), DTLS
 * HelloVerifyRequest and the SSLv2-compatible ClientHello into views of the
 * original bytes. The parser judges nothing: it records what the bytes say,
 * keeps everything it read before a break, and says where and why it stopped. */
#ifndef TLSNEG_HELLO_H
#define TLSNEG_HELLO_H

#include "cursor.h"

#define TLSNEG_HS_CLIENT_HELLO         1
#define TLSNEG_HS_SERVER_HELLO         2
#define TLSNEG_HS_HELLO_VERIFY_REQUEST 3

/* SSL 2.0 message types (draft-hickman-netscape-ssl-00): a CLIENT-HELLO is
 * parsed as a ClientHello, a SERVER-HELLO as a ServerHello; the others
 * (CLIENT-MASTER-KEY 2, the encrypted ones) are no hellos. */
#define TLSNEG_SSL2_CLIENT_HELLO 1
#define TLSNEG_SSL2_SERVER_HELLO 4

/* Extension code points tlsneg looks at (IANA TLS ExtensionType registry). */
enum {
    TLSNEG_EXT_SERVER_NAME = 0,
    TLSNEG_EXT_SUPPORTED_GROUPS = 10,
    TLSNEG_EXT_SIGNATURE_ALGORITHMS = 13,
    TLSNEG_EXT_ALPN = 16,
    TLSNEG_EXT_PADDING = 21,
    TLSNEG_EXT_KEY_SHARE_DRAFT = 40, /* key_share before TLS 1.3 draft-23 */
    TLSNEG_EXT_PRE_SHARED_KEY = 41,
    TLSNEG_EXT_EARLY_DATA = 42,
    TLSNEG_EXT_SUPPORTED_VERSIONS = 43,
    TLSNEG_EXT_COOKIE = 44,
    TLSNEG_EXT_PSK_KEY_EXCHANGE_MODES = 45,
    TLSNEG_EXT_KEY_SHARE = 51,
    TLSNEG_EXT_QUIC_TRANSPORT_PARAMETERS = 57,
    TLSNEG_EXT_QUIC_TRANSPORT_PARAMETERS_DRAFT = 0xffa5,
};

#define TLSNEG_CS_FALLBACK_SCSV 0x5600

/* How the message reached us: it decides the header layout and the version
 * family. */
typedef enum {
    TLSNEG_WIRE_TLS,  /* TLS record layer over TCP */
    TLSNEG_WIRE_DTLS, /* DTLS over UDP: 12-byte handshake header */
    TLSNEG_WIRE_QUIC, /* QUIC CRYPTO frames: TLS handshake, no records */
    TLSNEG_WIRE_SSL2, /* SSL 2.0 record: SSLv2-compatible ClientHello (RFC 5246 E.2),
                         SSL 2.0 CLIENT-HELLO and SERVER-HELLO */
} tlsneg_wire;

/* tlsneg_wire_transport: the transport a message on wire w came over, named
 * by its wire: TLSNEG_WIRE_TLS for TLS and SSL 2.0 records (TCP),
 * TLSNEG_WIRE_DTLS or TLSNEG_WIRE_QUIC (UDP). A QUIC server on UDP 443 (TLS
 * 1.3 in QUIC's own CRYPTO frames, RFC 9001 4), a DTLS server on UDP 443 and
 * the TLS server on TCP 443 of one address are different server stacks:
 * attempts and servers are told apart by it. */
static inline tlsneg_wire tlsneg_wire_transport(tlsneg_wire w)
{
    return w == TLSNEG_WIRE_SSL2 ? TLSNEG_WIRE_TLS : w;
}

typedef enum {
    TLSNEG_OK = 0,
    TLSNEG_TRUNCATED,   /* the bytes end inside a field */
    TLSNEG_BAD_LENGTH,  /* an inner length does not fit its container */
    TLSNEG_TRAILING,    /* bytes left over after the last field */
    TLSNEG_FRAGMENT,    /* DTLS: only part of the message is here */
    TLSNEG_UNSUPPORTED, /* not a hello tlsneg analyses */
} tlsneg_status;

/* tlsneg_status_name returns a short lower-case description of s. */
const char *tlsneg_status_name(tlsneg_status s);

/* Where in the message the first extension of a type sits. */
/* RFC 8446 4.1.3: a HelloRetryRequest is a ServerHello whose random is the
 * SHA-256 of "HelloRetryRequest" (these 32 bytes). */
extern const uint8_t tlsneg_hrr_random[32];

typedef struct {
    bool present;
    tlsneg_cur body; /* the extension_data */
} tlsneg_ext_view;

typedef struct {
    uint8_t msg_type;
    tlsneg_wire wire;
    tlsneg_status status;
    size_t error_offset; /* offset from the message start where parsing stopped */

    uint16_t legacy_version;
    tlsneg_cur random;         /* 32 bytes; SSLv2: the challenge */
    tlsneg_cur session_id;     /* ClientHello, ServerHello */
    tlsneg_cur cookie;         /* DTLS ClientHello, HelloVerifyRequest */
    tlsneg_cur cipher_suites;  /* ClientHello: 2-byte suites; SSLv2: 3-byte specs */
    uint16_t cipher_suite;     /* ServerHello */
    bool has_extensions_block; /* the optional extensions<..> was present */
    tlsneg_cur extensions;     /* the whole block, for re-walking */
    size_t num_extensions;     /* extensions parsed before any break */
    uint64_t types_below_64;   /* bit t: an extension of type t (< 64) was parsed */
    bool is_hrr;               /* ServerHello with the HelloRetryRequest random */
    uint32_t message_length;   /* the whole message as its header declares it, header
                                  included (4 bytes TLS and QUIC, 12 DTLS); SSL 2.0: the
                                  bytes from msg_type to the end of the record */

    /* First occurrence of the extensions tlsneg reads. */
    tlsneg_ext_view server_name, supported_groups, signature_algorithms, alpn, key_share,
        psk_key_exchange_modes, pre_shared_key, supported_versions;
    uint16_t last_extension; /* type of the last extension parsed */
    bool duplicate_extension;
    uint16_t duplicate_type; /* the first repeated type */

    /* Where fields without a cursor sit (offsets count like error_offset). */
    bool has_legacy_version; /* legacy_version was read */
    size_t legacy_version_offset;
    size_t cipher_suite_offset; /* ServerHello */
} tlsneg_hello;

/* tlsneg_hello_next_extension reads one Extension (type, then a 2-byte
 * length-prefixed body) from the front of exts. On failure exts is
 * unchanged. Walk h->extensions with it to see every extension in order.
 * Inline, in one bounds check of the header and one of the body: the
 * parser, the facts, the offer and the HelloRetryRequest digest each walk
 * every extension of every hello. */
TLSNEG_MUST_CHECK static inline bool
tlsneg_hello_next_extension(tlsneg_cur *exts, uint16_t *out_type, tlsneg_cur *out_body)
{
    if (exts->len < 4) {
        return false;
    }
    const uint8_t *p = exts->p;
    size_t n = (size_t)p[2] << 8 | p[3];
    if (exts->len - 4 < n) {
        return false;
    }
    *out_type = (uint16_t)(p[0] << 8 | p[1]);
    out_body->base = exts->base;
    out_body->p = p + 4;
    out_body->len = n;
    exts->p = p + 4 + n;
    exts->len -= 4 + n;
    return true;
}

/* tlsneg_hello_groups opens h's supported_groups list (NamedGroup
 * named_group_list<2..2^16-1>, RFC 8446 4.2.7) into *out_list; false
 * without the extension or its length. Read the entries with
 * tlsneg_cur_u16. The one walker of supported_groups: the facts, the offer's
 * fingerprint and the GREASE search all use it. */
bool tlsneg_hello_groups(const tlsneg_hello *h, tlsneg_cur *out_list);

/* tlsneg_hello_key_shares opens a ClientHello's client_shares list
 * (KeyShareEntry client_shares<0..2^16-1>, RFC 8446 4.2.8) into *out_list;
 * false without the extension or its length. */
bool tlsneg_hello_key_shares(const tlsneg_hello *h, tlsneg_cur *out_list);

/* tlsneg_hello_next_key_share reads one KeyShareEntry (group, then
 * key_exchange<1..2^16-1>) from the front of list. On failure list is
 * unchanged. A ServerHello's key_share body is one such entry; a
 * HelloRetryRequest's is the selected_group alone (read it with
 * tlsneg_cur_u16). */
TLSNEG_MUST_CHECK bool tlsneg_hello_next_key_share(tlsneg_cur *list, uint16_t *out_group,
                                                   tlsneg_cur *out_key);

/* tlsneg_hello_has_extension tells whether h holds an extension of this
 * type (among those parsed before any break). */
bool tlsneg_hello_has_extension(const tlsneg_hello *h, uint16_t type);

/* tlsneg_hello_parse parses one handshake message of length len starting at
 * its type byte: the 4-byte TLS header (TLS, QUIC), the 12-byte DTLS header,
 * or, for TLSNEG_WIRE_SSL2, the bytes from msg_type to the end of the record.
 * out is always filled as far as the bytes allow; the return value is
 * out->status. An SSL 2.0 SERVER-HELLO comes out as msg_type
 * TLSNEG_HS_SERVER_HELLO with its SERVER-VERSION in legacy_version and its
 * cipher specs (3 bytes each) in cipher_suites; any other SSL 2.0 message but
 * the CLIENT-HELLO as msg_type 0, TLSNEG_UNSUPPORTED. */
tlsneg_status tlsneg_hello_parse(tlsneg_hello *out, tlsneg_wire wire, const uint8_t *msg,
                                 size_t len);

/* tlsneg_hello_parse_body is tlsneg_hello_parse for a message whose header has
 * already been read (a DTLS message reassembled from fragments): body is the
 * whole message body. Offsets count from body. */
tlsneg_status tlsneg_hello_parse_body(tlsneg_hello *out, tlsneg_wire wire, uint8_t msg_type,
                                      const uint8_t *body, size_t len);

/* Frames of the segments (TCP), packets (QUIC) or fragments (DTLS) that
 * carried a hello, kept per hello; the count covers them all. */
#define TLSNEG_MAX_SEGMENT_FRAMES 8

/* What carried a message: how many TCP segments, QUIC packets or DTLS
 * fragments (0: the front end does not know), and the frames of the first
 * ones where it knows them (num_frames 0 otherwise). */
typedef struct {
    uint16_t count;
    uint8_t num_frames;
    uint32_t frames[TLSNEG_MAX_SEGMENT_FRAMES];
} tlsneg_segments;

/* tlsneg_segments_add counts one more segment, in frame (0: not known); a
 * frame equal to the last one kept is the same segment (several records or
 * fragments in one packet) and is not counted again. */
void tlsneg_segments_add(tlsneg_segments *s, uint32_t frame);

/* tlsneg_segments_add_distinct counts frame once however often and in
 * whatever order it comes (the datagrams that carried a DTLS message's
 * fragments or a QUIC hello's CRYPTO frames), keeping the frames in
 * ascending order. Returns false when it cannot tell: frame 0, or more than
 * TLSNEG_MAX_SEGMENT_FRAMES distinct frames. */
bool tlsneg_segments_add_distinct(tlsneg_segments *s, uint32_t frame);

/* One handshake message as a front end found it, framed by
 * tlsneg_frame_message: the bytes to parse and how. */
typedef struct {
    tlsneg_wire wire;
    uint8_t msg_type;
    bool body_only;       /* bytes are the body (a DTLS message reassembled from fragments) */
    const uint8_t *bytes; /* from the type byte (or the body) to the message's end */
    size_t len;
    tlsneg_segments segments; /* zero from tlsneg_frame_message; the front end fills it */
} tlsneg_message;

/* tlsneg_frame_message finds where the handshake message whose type byte is
 * buf[start] ends: buf holds what was captured from up to two bytes before
 * the message (the SSLv2 record header) to the end of the data. wire is
 * TLSNEG_WIRE_TLS, _DTLS or _QUIC as the front end found the message; a TLS
 * message in a record of version 0x0002 is an SSL 2.0 message (wire SSL2).
 * For DTLS, reassembled is the body the completing record reassembled from
 * fragments (NULL if none). Returns false when the message is not complete
 * here (no bytes, or a DTLS fragment without its reassembled body) or is no
 * hello: in an SSL 2.0 record only the CLIENT-HELLO (1) and the SERVER-HELLO
 * (4) are, not the client's CLIENT-MASTER-KEY (2) nor the rest; elsewhere
 * ClientHello and ServerHello, and in DTLS HelloVerifyRequest. */
bool tlsneg_frame_message(tlsneg_message *out, tlsneg_wire wire, bool has_record,
                          uint16_t record_version, const uint8_t *buf, size_t buf_len, size_t start,
                          const uint8_t *reassembled, size_t reassembled_len);

/* tlsneg_message_parse parses a framed message (tlsneg_hello_parse or
 * tlsneg_hello_parse_body). */
tlsneg_status tlsneg_message_parse(tlsneg_hello *out, const tlsneg_message *m);

#endif
