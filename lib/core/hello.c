/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "hello.h"

#include <string.h>

/* RFC 8446 4.1.3: a HelloRetryRequest is a ServerHello whose random is the
 * SHA-256 of "HelloRetryRequest". */
const uint8_t tlsneg_hrr_random[32] = {
    0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
    0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
};

const char *tlsneg_status_name(tlsneg_status s)
{
    switch (s) {
    case TLSNEG_OK:
        return "ok";
    case TLSNEG_TRUNCATED:
        return "truncated";
    case TLSNEG_BAD_LENGTH:
        return "inner length does not fit";
    case TLSNEG_TRAILING:
        return "trailing bytes";
    case TLSNEG_FRAGMENT:
        return "incomplete fragment";
    case TLSNEG_UNSUPPORTED:
        return "not a hello";
    }
    return "?";
}

/* A parse in progress: the body cursor and whether the message's own length
 * promised more bytes than we were given (then a failed read means
 * truncation, otherwise a bad inner length). */
typedef struct {
    tlsneg_hello *out;
    tlsneg_cur c;
    bool short_message;
} parser;

static tlsneg_status fail_at(parser *ps, const tlsneg_cur *where, tlsneg_status s)
{
    ps->out->status = s;
    ps->out->error_offset = tlsneg_cur_offset(where);
    return s;
}

static tlsneg_status fail(parser *ps, const tlsneg_cur *where)
{
    return fail_at(ps, where, ps->short_message ? TLSNEG_TRUNCATED : TLSNEG_BAD_LENGTH);
}

static tlsneg_ext_view *known_extension(tlsneg_hello *h, uint16_t type)
{
    switch (type) {
    case TLSNEG_EXT_SERVER_NAME:
        return &h->server_name;
    case TLSNEG_EXT_SUPPORTED_GROUPS:
        return &h->supported_groups;
    case TLSNEG_EXT_SIGNATURE_ALGORITHMS:
        return &h->signature_algorithms;
    case TLSNEG_EXT_ALPN:
        return &h->alpn;
    case TLSNEG_EXT_KEY_SHARE:
    case TLSNEG_EXT_KEY_SHARE_DRAFT:
        return &h->key_share;
    case TLSNEG_EXT_PSK_KEY_EXCHANGE_MODES:
        return &h->psk_key_exchange_modes;
    case TLSNEG_EXT_PRE_SHARED_KEY:
        return &h->pre_shared_key;
    case TLSNEG_EXT_SUPPORTED_VERSIONS:
        return &h->supported_versions;
    default:
        return NULL;
    }
}

bool tlsneg_hello_has_extension(const tlsneg_hello *h, uint16_t type)
{
    if (type < 64) {
        return (h->types_below_64 >> type) & 1u;
    }
    tlsneg_cur exts = h->extensions, body;
    uint16_t t;
    while (tlsneg_hello_next_extension(&exts, &t, &body)) {
        if (t == type) {
            return true;
        }
    }
    return false;
}

bool tlsneg_hello_groups(const tlsneg_hello *h, tlsneg_cur *out_list)
{
    tlsneg_cur body = h->supported_groups.body;
    return h->supported_groups.present && tlsneg_cur_u16_prefixed(&body, out_list);
}

bool tlsneg_hello_key_shares(const tlsneg_hello *h, tlsneg_cur *out_list)
{
    tlsneg_cur body = h->key_share.body;
    return h->key_share.present && h->msg_type == TLSNEG_HS_CLIENT_HELLO &&
           tlsneg_cur_u16_prefixed(&body, out_list);
}

bool tlsneg_hello_next_key_share(tlsneg_cur *list, uint16_t *out_group, tlsneg_cur *out_key)
{
    tlsneg_cur copy = *list;
    if (!tlsneg_cur_u16(&copy, out_group) || !tlsneg_cur_u16_prefixed(&copy, out_key)) {
        return false;
    }
    *list = copy;
    return true;
}

/* A set of extension types: one bit per type, in 1024 words of 64. Only
 * the words a hello's types fall in are cleared (live marks them): clearing
 * all 8 KB cost more than the rest of the walk. */
typedef struct {
    uint64_t live[65536 / 64 / 64];
    uint64_t word[65536 / 64]; /* word[w] is read only once live says so */
} type_set;

/* type_set_add adds t; false when t was there already. */
static bool type_set_add(type_set *s, uint16_t t)
{
    unsigned w = t / 64u;
    uint64_t live_bit = UINT64_C(1) << (w % 64u), bit = UINT64_C(1) << (t % 64u);
    if (!(s->live[w / 64u] & live_bit)) {
        s->live[w / 64u] |= live_bit;
        s->word[w] = 0;
    }
    if (s->word[w] & bit) {
        return false;
    }
    s->word[w] |= bit;
    return true;
}

/* parse_extensions walks extensions<..> once, recording the first occurrence
 * of each type tlsneg reads and the first repeated type. */
static tlsneg_status parse_extensions(parser *ps)
{
    tlsneg_hello *h = ps->out;
    type_set seen;
    memset(seen.live, 0, sizeof seen.live);

    if (ps->c.len == 0) {
        return TLSNEG_OK; /* the block is optional */
    }
    h->has_extensions_block = true;
    if (!tlsneg_cur_u16_prefixed(&ps->c, &h->extensions)) {
        return fail(ps, &ps->c);
    }
    tlsneg_cur exts = h->extensions;
    while (exts.len > 0) {
        uint16_t type;
        tlsneg_cur body;
        if (!tlsneg_hello_next_extension(&exts, &type, &body)) {
            return fail(ps, &exts);
        }
        h->num_extensions++;
        h->last_extension = type;
        if (type < 64) {
            h->types_below_64 |= UINT64_C(1) << type;
        }
        if (!type_set_add(&seen, type)) {
            if (!h->duplicate_extension) {
                h->duplicate_extension = true;
                h->duplicate_type = type;
            }
            continue;
        }
        tlsneg_ext_view *v = known_extension(h, type);
        if (v && !v->present) {
            v->present = true;
            v->body = body;
        }
    }
    if (ps->c.len != 0) {
        return fail_at(ps, &ps->c, TLSNEG_TRAILING);
    }
    return TLSNEG_OK;
}

static tlsneg_status parse_client_hello(parser *ps)
{
    tlsneg_hello *h = ps->out;
    tlsneg_cur compression;
    if (!tlsneg_cur_u16(&ps->c, &h->legacy_version) || !tlsneg_cur_bytes(&ps->c, 32, &h->random) ||
        !tlsneg_cur_u8_prefixed(&ps->c, &h->session_id)) {
        return fail(ps, &ps->c);
    }
    if (h->wire == TLSNEG_WIRE_DTLS && !tlsneg_cur_u8_prefixed(&ps->c, &h->cookie)) {
        return fail(ps, &ps->c);
    }
    if (!tlsneg_cur_u16_prefixed(&ps->c, &h->cipher_suites) ||
        !tlsneg_cur_u8_prefixed(&ps->c, &compression)) {
        return fail(ps, &ps->c);
    }
    return parse_extensions(ps);
}

/* TLS 1.3 drafts before 22 sent neither legacy_session_id_echo nor
 * legacy_compression_method in ServerHello. */
static bool draft_without_session_id(uint16_t v)
{
    return (v >> 8) == 0x7f && (v & 0xff) < 22;
}

static tlsneg_status parse_server_hello(parser *ps)
{
    tlsneg_hello *h = ps->out;
    if (!tlsneg_cur_u16(&ps->c, &h->legacy_version) || !tlsneg_cur_bytes(&ps->c, 32, &h->random)) {
        return fail(ps, &ps->c);
    }
    h->is_hrr = memcmp(h->random.p, tlsneg_hrr_random, sizeof tlsneg_hrr_random) == 0;
    bool draft = draft_without_session_id(h->legacy_version);
    uint8_t compression;
    if (!draft && !tlsneg_cur_u8_prefixed(&ps->c, &h->session_id)) {
        return fail(ps, &ps->c);
    }
    h->cipher_suite_offset = tlsneg_cur_offset(&ps->c);
    if (!tlsneg_cur_u16(&ps->c, &h->cipher_suite) ||
        (!draft && !tlsneg_cur_u8(&ps->c, &compression))) {
        return fail(ps, &ps->c);
    }
    return parse_extensions(ps);
}

static tlsneg_status parse_hello_verify_request(parser *ps)
{
    tlsneg_hello *h = ps->out;
    if (!tlsneg_cur_u16(&ps->c, &h->legacy_version) ||
        !tlsneg_cur_u8_prefixed(&ps->c, &h->cookie)) {
        return fail(ps, &ps->c);
    }
    if (ps->c.len != 0) {
        return fail_at(ps, &ps->c, TLSNEG_TRAILING);
    }
    return TLSNEG_OK;
}

/* RFC 5246 E.2: after msg_type come version, cipher_spec_length,
 * session_id_length, challenge_length, then the three vectors. */
static tlsneg_status parse_sslv2_client_hello(parser *ps)
{
    tlsneg_hello *h = ps->out;
    uint16_t specs_len, sid_len, challenge_len;
    if (!tlsneg_cur_u16(&ps->c, &h->legacy_version) || !tlsneg_cur_u16(&ps->c, &specs_len) ||
        !tlsneg_cur_u16(&ps->c, &sid_len) || !tlsneg_cur_u16(&ps->c, &challenge_len)) {
        return fail(ps, &ps->c);
    }
    if (!tlsneg_cur_bytes(&ps->c, specs_len, &h->cipher_suites) ||
        !tlsneg_cur_bytes(&ps->c, sid_len, &h->session_id) ||
        !tlsneg_cur_bytes(&ps->c, challenge_len, &h->random)) {
        return fail_at(ps, &ps->c, TLSNEG_BAD_LENGTH);
    }
    if (ps->c.len != 0) {
        return fail_at(ps, &ps->c, TLSNEG_TRAILING);
    }
    return TLSNEG_OK;
}

/* SSL 2.0 SERVER-HELLO (draft-hickman-netscape-ssl-00, 2.6): SESSION-ID-HIT,
 * CERTIFICATE-TYPE, SERVER-VERSION, the lengths of the certificate, the
 * cipher specs and the connection ID, then the three. */
static tlsneg_status parse_sslv2_server_hello(parser *ps)
{
    tlsneg_hello *h = ps->out;
    uint8_t session_id_hit, certificate_type;
    uint16_t cert_len, specs_len, conn_id_len;
    tlsneg_cur certificate, connection_id;
    if (!tlsneg_cur_u8(&ps->c, &session_id_hit) || !tlsneg_cur_u8(&ps->c, &certificate_type) ||
        !tlsneg_cur_u16(&ps->c, &h->legacy_version) || !tlsneg_cur_u16(&ps->c, &cert_len) ||
        !tlsneg_cur_u16(&ps->c, &specs_len) || !tlsneg_cur_u16(&ps->c, &conn_id_len)) {
        return fail(ps, &ps->c);
    }
    if (!tlsneg_cur_bytes(&ps->c, cert_len, &certificate) ||
        !tlsneg_cur_bytes(&ps->c, specs_len, &h->cipher_suites) ||
        !tlsneg_cur_bytes(&ps->c, conn_id_len, &connection_id)) {
        return fail_at(ps, &ps->c, TLSNEG_BAD_LENGTH);
    }
    if (ps->c.len != 0) {
        return fail_at(ps, &ps->c, TLSNEG_TRAILING);
    }
    return TLSNEG_OK;
}

static tlsneg_status parse(parser *ps)
{
    tlsneg_hello *h = ps->out;
    /* Every hello starts its body with its version. */
    h->legacy_version_offset = tlsneg_cur_offset(&ps->c);
    h->has_legacy_version = ps->c.len >= 2;
    switch (h->msg_type) {
    case TLSNEG_HS_CLIENT_HELLO:
        return h->wire == TLSNEG_WIRE_SSL2 ? parse_sslv2_client_hello(ps) : parse_client_hello(ps);
    case TLSNEG_HS_SERVER_HELLO:
        return h->wire == TLSNEG_WIRE_SSL2 ? parse_sslv2_server_hello(ps) : parse_server_hello(ps);
    case TLSNEG_HS_HELLO_VERIFY_REQUEST:
        if (h->wire == TLSNEG_WIRE_DTLS) {
            return parse_hello_verify_request(ps);
        }
        break;
    default:
        break;
    }
    return fail_at(ps, &ps->c, TLSNEG_UNSUPPORTED);
}

static void reset(tlsneg_hello *out, tlsneg_wire wire)
{
    memset(out, 0, sizeof *out);
    out->wire = wire;
}

tlsneg_status tlsneg_hello_parse_body(tlsneg_hello *out, tlsneg_wire wire, uint8_t msg_type,
                                      const uint8_t *body, size_t len)
{
    reset(out, wire);
    out->msg_type = msg_type;
    out->message_length = (uint32_t)len + (wire == TLSNEG_WIRE_DTLS ? 12u : 4u);
    parser ps = {out, {0}, false};
    tlsneg_cur_init(&ps.c, body, len);
    return parse(&ps);
}

tlsneg_status tlsneg_hello_parse(tlsneg_hello *out, tlsneg_wire wire, const uint8_t *msg,
                                 size_t len)
{
    reset(out, wire);
    parser ps = {out, {0}, false};
    tlsneg_cur c;
    tlsneg_cur_init(&c, msg, len);

    if (!tlsneg_cur_u8(&c, &out->msg_type)) {
        return fail_at(&ps, &c, TLSNEG_TRUNCATED);
    }
    if (wire == TLSNEG_WIRE_SSL2) {
        out->message_length = (uint32_t)len;
        ps.c = c; /* the record header, before msg, held the length */
        switch (out->msg_type) {
        case TLSNEG_SSL2_CLIENT_HELLO:
            break;
        case TLSNEG_SSL2_SERVER_HELLO:
            out->msg_type = TLSNEG_HS_SERVER_HELLO;
            break;
        default:
            out->msg_type = 0; /* CLIENT-MASTER-KEY and the rest: no hello */
            return fail_at(&ps, &c, TLSNEG_UNSUPPORTED);
        }
        return parse(&ps);
    }

    uint32_t body_len;
    if (!tlsneg_cur_u24(&c, &body_len)) {
        return fail_at(&ps, &c, TLSNEG_TRUNCATED);
    }
    out->message_length = body_len + (wire == TLSNEG_WIRE_DTLS ? 12u : 4u);
    if (wire == TLSNEG_WIRE_DTLS) {
        uint16_t seq;
        uint32_t frag_off, frag_len;
        if (!tlsneg_cur_u16(&c, &seq) || !tlsneg_cur_u24(&c, &frag_off) ||
            !tlsneg_cur_u24(&c, &frag_len)) {
            return fail_at(&ps, &c, TLSNEG_TRUNCATED);
        }
        if (frag_off != 0 || frag_len != body_len) {
            return fail_at(&ps, &c, TLSNEG_FRAGMENT);
        }
    }
    ps.short_message = c.len < body_len;
    if (!tlsneg_cur_bytes(&c, ps.short_message ? c.len : body_len, &ps.c)) {
        return fail_at(&ps, &c, TLSNEG_TRUNCATED);
    }
    tlsneg_status s = parse(&ps);
    if (s == TLSNEG_OK && ps.short_message) {
        return fail_at(&ps, &ps.c, TLSNEG_TRUNCATED);
    }
    return s;
}

static uint32_t get_u24(const uint8_t *p)
{
    return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

bool tlsneg_frame_message(tlsneg_message *out, tlsneg_wire wire, bool has_record,
                          uint16_t record_version, const uint8_t *buf, size_t buf_len, size_t start,
                          const uint8_t *reassembled, size_t reassembled_len)
{
    if (start >= buf_len) {
        return false;
    }
    const uint8_t *msg = buf + start;
    size_t avail = buf_len - start;
    memset(&out->segments, 0, sizeof out->segments);
    out->msg_type = msg[0];
    out->body_only = false;

    if (wire == TLSNEG_WIRE_DTLS && avail >= 12 &&
        (get_u24(msg + 6) != 0 || get_u24(msg + 9) != get_u24(msg + 1))) {
        /* A fragment: only the record that completes the message has the
         * reassembled body. */
        if (!reassembled || reassembled_len == 0) {
            return false;
        }
        out->wire = TLSNEG_WIRE_DTLS;
        out->body_only = true;
        out->bytes = reassembled;
        out->len = reassembled_len;
        return true;
    }

    size_t len;
    if (wire == TLSNEG_WIRE_TLS && has_record && record_version == 0x0002) {
        /* SSLv2 record: the 2-byte header before the message holds the
         * length with its top bit set (RFC 5246 E.2). */
        out->wire = TLSNEG_WIRE_SSL2;
        len = avail;
        if (start >= 2 && (buf[start - 2] & 0x80)) {
            size_t record_len = ((size_t)(buf[start - 2] & 0x7f) << 8) | buf[start - 1];
            len = record_len < avail ? record_len : avail;
        }
    } else {
        /* The handshake header: type and 3-byte length, then for DTLS the
         * message_seq and fragment fields. */
        out->wire = wire;
        size_t header_len = wire == TLSNEG_WIRE_DTLS ? 12 : 4;
        len = avail >= 4 ? header_len + get_u24(msg + 1) : avail;
        len = len < avail ? len : avail;
    }
    /* Only hellos: an SSL 2.0 record's CLIENT-HELLO or SERVER-HELLO (its
     * CLIENT-MASTER-KEY and the rest are none); ClientHello and ServerHello
     * elsewhere, and HelloVerifyRequest in DTLS. */
    bool hello;
    switch (out->wire) {
    case TLSNEG_WIRE_SSL2:
        hello =
            out->msg_type == TLSNEG_SSL2_CLIENT_HELLO || out->msg_type == TLSNEG_SSL2_SERVER_HELLO;
        break;
    case TLSNEG_WIRE_DTLS:
        hello = out->msg_type == TLSNEG_HS_CLIENT_HELLO ||
                out->msg_type == TLSNEG_HS_SERVER_HELLO ||
                out->msg_type == TLSNEG_HS_HELLO_VERIFY_REQUEST;
        break;
    default:
        hello = out->msg_type == TLSNEG_HS_CLIENT_HELLO || out->msg_type == TLSNEG_HS_SERVER_HELLO;
        break;
    }
    if (!hello) {
        return false;
    }
    out->bytes = msg;
    out->len = len;
    return true;
}

void tlsneg_segments_add(tlsneg_segments *s, uint32_t frame)
{
    if (frame && s->num_frames && s->frames[s->num_frames - 1] == frame) {
        return;
    }
    if (s->count < UINT16_MAX) {
        s->count++;
    }
    if (frame && s->num_frames < TLSNEG_MAX_SEGMENT_FRAMES) {
        s->frames[s->num_frames++] = frame;
    }
}

bool tlsneg_segments_add_distinct(tlsneg_segments *s, uint32_t frame)
{
    uint8_t i = 0;
    while (i < s->num_frames && s->frames[i] < frame) {
        i++;
    }
    if (i < s->num_frames && s->frames[i] == frame) {
        return true;
    }
    if (frame == 0 || s->num_frames == TLSNEG_MAX_SEGMENT_FRAMES) {
        return false;
    }
    memmove(&s->frames[i + 1], &s->frames[i], (size_t)(s->num_frames - i) * sizeof s->frames[0]);
    s->frames[i] = frame;
    s->count = ++s->num_frames;
    return true;
}

tlsneg_status tlsneg_message_parse(tlsneg_hello *out, const tlsneg_message *m)
{
    return m->body_only ? tlsneg_hello_parse_body(out, m->wire, m->msg_type, m->bytes, m->len)
                        : tlsneg_hello_parse(out, m->wire, m->bytes, m->len);
}
