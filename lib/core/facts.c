/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "facts.h"

#include "groups.h"
#include "util.h"
#include "versions.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *tlsneg_grease_family_name(tlsneg_grease_family f)
{
    static const char *const names[] = {
        [TLSNEG_GREASE_VERSION] = "version",
        [TLSNEG_GREASE_CIPHER_SUITE] = "cipher_suite",
        [TLSNEG_GREASE_EXTENSION] = "extension",
        [TLSNEG_GREASE_GROUP] = "group",
        [TLSNEG_GREASE_KEY_SHARE] = "key_share",
        [TLSNEG_GREASE_SIGNATURE_ALGORITHM] = "signature_algorithm",
        [TLSNEG_GREASE_PSK_MODE] = "psk_mode",
        [TLSNEG_GREASE_ALPN] = "alpn",
    };
    return (unsigned)f < sizeof names / sizeof names[0] ? names[f] : "?";
}

bool tlsneg_facts_is_dtls(const tlsneg_facts *f)
{
    return f->wire == TLSNEG_WIRE_DTLS;
}

const char *tlsneg_msg_name(const tlsneg_facts *f)
{
    switch (f->msg_type) {
    case TLSNEG_HS_CLIENT_HELLO:
        if (f->wire != TLSNEG_WIRE_SSL2) {
            return "ClientHello";
        }
        /* An SSL 2.0 client's own hello, or a later client's SSLv2-compatible
         * one (RFC 5246 E.2): the same layout, told apart by the version. */
        return f->legacy_version == TLSNEG_V_SSL2 ? "SSLv2 CLIENT-HELLO"
                                                  : "SSLv2-compatible ClientHello";
    case TLSNEG_HS_SERVER_HELLO:
        if (f->wire == TLSNEG_WIRE_SSL2) {
            return "SSLv2 SERVER-HELLO";
        }
        return f->is_hrr ? "HelloRetryRequest" : "ServerHello";
    case TLSNEG_HS_HELLO_VERIFY_REQUEST:
        return "HelloVerifyRequest";
    default:
        return "handshake message";
    }
}

const char *tlsneg_sentinel_name(uint8_t sentinel)
{
    switch (sentinel) {
    case TLSNEG_SENTINEL_TLS11:
        return "DOWNGRD\\x00";
    case TLSNEG_SENTINEL_TLS12:
        return "DOWNGRD\\x01";
    default:
        return "the JDK 11 value";
    }
}

uint16_t tlsneg_sentinel_proves(const tlsneg_facts *f)
{
    bool dtls = tlsneg_facts_is_dtls(f);
    if (!f->has_sentinel) {
        return 0;
    }
    /* RFC 8446 4.1.3: TLS 1.3 servers MUST, TLS 1.2 servers SHOULD, send
     * DOWNGRD\x00 below TLS 1.2; only a TLS 1.3 server sends DOWNGRD\x01
     * (and JDK 11 its own value in its place). */
    if (f->sentinel == TLSNEG_SENTINEL_TLS11) {
        return dtls ? TLSNEG_V_DTLS12 : TLSNEG_V_TLS12;
    }
    return dtls ? TLSNEG_V_DTLS13 : TLSNEG_V_TLS13;
}

/* span_before returns where the len bytes just read from c began. */
static tlsneg_span span_before(const tlsneg_cur *c, size_t len)
{
    tlsneg_span s = {(uint32_t)(tlsneg_cur_offset(c) - len), (uint32_t)len};
    return s;
}

static void add_grease_at(tlsneg_facts *out, tlsneg_facts_buf *buf, uint16_t v,
                          tlsneg_grease_family family, tlsneg_span at)
{
    if (out->num_grease < TLSNEG_MAX_GREASE) {
        buf->grease[out->num_grease].value = v;
        buf->grease[out->num_grease].family = (uint8_t)family;
        buf->grease[out->num_grease].at = at;
        out->num_grease++;
    }
    out->grease_count++;
}

/* add_grease records v, which was just read from c (len bytes). */
static void add_grease(tlsneg_facts *out, tlsneg_facts_buf *buf, uint16_t v,
                       tlsneg_grease_family family, const tlsneg_cur *c, size_t len)
{
    add_grease_at(out, buf, v, family, span_before(c, len));
}

/* grease_u16_list reports every GREASE value in a list of 2-byte code points. */
static void grease_u16_list(tlsneg_facts *out, tlsneg_facts_buf *buf, tlsneg_cur list,
                            tlsneg_grease_family family)
{
    uint16_t v;
    while (tlsneg_cur_u16(&list, &v)) {
        if (tlsneg_is_grease(v)) {
            add_grease(out, buf, v, family, &list, 2);
        }
    }
}

static void grease_key_shares(tlsneg_facts *out, tlsneg_facts_buf *buf, const tlsneg_hello *h,
                              tlsneg_cur body)
{
    uint16_t group;
    tlsneg_cur key;
    if (h->msg_type == TLSNEG_HS_SERVER_HELLO) {
        /* ServerHello: one entry; HelloRetryRequest: the group alone. */
        if (tlsneg_cur_u16(&body, &group) && tlsneg_is_grease(group)) {
            add_grease(out, buf, group, TLSNEG_GREASE_KEY_SHARE, &body, 2);
        }
        return;
    }
    tlsneg_cur shares;
    if (!tlsneg_cur_u16_prefixed(&body, &shares)) {
        return;
    }
    for (;;) {
        tlsneg_span at = {(uint32_t)tlsneg_cur_offset(&shares), 2};
        if (!tlsneg_hello_next_key_share(&shares, &group, &key)) {
            break;
        }
        if (tlsneg_is_grease(group)) {
            add_grease_at(out, buf, group, TLSNEG_GREASE_KEY_SHARE, at);
        }
    }
}

static void grease_alpn(tlsneg_facts *out, tlsneg_facts_buf *buf, tlsneg_cur body)
{
    tlsneg_cur names, name;
    if (!tlsneg_cur_u16_prefixed(&body, &names)) {
        return;
    }
    while (tlsneg_cur_u8_prefixed(&names, &name)) {
        uint16_t v;
        if (name.len == 2 && tlsneg_cur_u16(&name, &v) && tlsneg_is_grease(v)) {
            add_grease(out, buf, v, TLSNEG_GREASE_ALPN, &name, 2);
        }
    }
}

static void grease_psk_modes(tlsneg_facts *out, tlsneg_facts_buf *buf, tlsneg_cur body)
{
    tlsneg_cur modes;
    uint8_t m;
    if (!tlsneg_cur_u8_prefixed(&body, &modes)) {
        return;
    }
    while (tlsneg_cur_u8(&modes, &m)) {
        if (tlsneg_is_grease_psk_mode(m)) {
            add_grease(out, buf, m, TLSNEG_GREASE_PSK_MODE, &modes, 1);
        }
    }
}

static void grease_extension(tlsneg_facts *out, tlsneg_facts_buf *buf, const tlsneg_hello *h,
                             uint16_t type, tlsneg_span type_at, tlsneg_cur body)
{
    tlsneg_cur list;
    uint16_t v;
    if (tlsneg_is_grease(type)) {
        add_grease_at(out, buf, type, TLSNEG_GREASE_EXTENSION, type_at);
    }
    switch (type) {
    case TLSNEG_EXT_SUPPORTED_VERSIONS:
        if (h->msg_type == TLSNEG_HS_CLIENT_HELLO) {
            if (tlsneg_cur_u8_prefixed(&body, &list)) {
                grease_u16_list(out, buf, list, TLSNEG_GREASE_VERSION);
            }
        } else if (tlsneg_cur_u16(&body, &v) && tlsneg_is_grease(v)) {
            add_grease(out, buf, v, TLSNEG_GREASE_VERSION, &body, 2);
        }
        break;
    case TLSNEG_EXT_SUPPORTED_GROUPS:
        if (tlsneg_cur_u16_prefixed(&body, &list)) {
            grease_u16_list(out, buf, list, TLSNEG_GREASE_GROUP);
        }
        break;
    case TLSNEG_EXT_SIGNATURE_ALGORITHMS:
        if (tlsneg_cur_u16_prefixed(&body, &list)) {
            grease_u16_list(out, buf, list, TLSNEG_GREASE_SIGNATURE_ALGORITHM);
        }
        break;
    case TLSNEG_EXT_KEY_SHARE:
    case TLSNEG_EXT_KEY_SHARE_DRAFT:
        grease_key_shares(out, buf, h, body);
        break;
    case TLSNEG_EXT_PSK_KEY_EXCHANGE_MODES:
        grease_psk_modes(out, buf, body);
        break;
    case TLSNEG_EXT_ALPN:
        grease_alpn(out, buf, body);
        break;
    default:
        break;
    }
}

/* find_grease walks the message in wire order: cipher suites, then each
 * extension's type and contents. */
static void find_grease(tlsneg_facts *out, tlsneg_facts_buf *buf, const tlsneg_hello *h)
{
    if (h->wire != TLSNEG_WIRE_SSL2) {
        if (h->msg_type == TLSNEG_HS_CLIENT_HELLO) {
            grease_u16_list(out, buf, h->cipher_suites, TLSNEG_GREASE_CIPHER_SUITE);
        } else if (h->msg_type == TLSNEG_HS_SERVER_HELLO && tlsneg_is_grease(h->cipher_suite)) {
            tlsneg_span at = {(uint32_t)h->cipher_suite_offset, 2};
            add_grease_at(out, buf, h->cipher_suite, TLSNEG_GREASE_CIPHER_SUITE, at);
        }
    }
    tlsneg_cur exts = h->extensions;
    uint16_t type;
    tlsneg_cur body;
    for (;;) {
        tlsneg_span type_at = {(uint32_t)tlsneg_cur_offset(&exts), 2};
        if (!tlsneg_hello_next_extension(&exts, &type, &body)) {
            break;
        }
        grease_extension(out, buf, h, type, type_at, body);
    }
}

/* has_fallback_scsv finds TLS_FALLBACK_SCSV in the cipher list; *at says
 * where the first one sits. */
static bool has_fallback_scsv(const tlsneg_hello *h, tlsneg_span *at)
{
    tlsneg_cur suites = h->cipher_suites;
    if (h->wire == TLSNEG_WIRE_SSL2) {
        uint8_t hi;
        uint16_t lo;
        while (tlsneg_cur_u8(&suites, &hi) && tlsneg_cur_u16(&suites, &lo)) {
            if (hi == 0 && lo == TLSNEG_CS_FALLBACK_SCSV) {
                *at = span_before(&suites, 3);
                return true;
            }
        }
        return false;
    }
    uint16_t s;
    while (tlsneg_cur_u16(&suites, &s)) {
        if (s == TLSNEG_CS_FALLBACK_SCSV) {
            *at = span_before(&suites, 2);
            return true;
        }
    }
    return false;
}

/* copy_sni keeps the first host_name of server_name (RFC 6066 3), escaping
 * every byte that is not printable ASCII as \xNN. */
static const char *copy_sni(tlsneg_facts_buf *buf, const tlsneg_hello *h, tlsneg_span *at)
{
    tlsneg_cur body = h->server_name.body, list, name;
    uint8_t name_type;
    if (!h->server_name.present || !tlsneg_cur_u16_prefixed(&body, &list)) {
        return NULL;
    }
    while (tlsneg_cur_u8(&list, &name_type) && tlsneg_cur_u16_prefixed(&list, &name)) {
        if (name_type != 0) {
            continue;
        }
        at->offset = (uint32_t)tlsneg_cur_offset(&name);
        at->len = (uint32_t)name.len;
        size_t n = 0;
        for (size_t i = 0; i < name.len; i++) {
            uint8_t b = name.p[i];
            bool printable = b > 0x20 && b < 0x7f && b != '\\';
            size_t need = printable ? 1 : 4;
            if (n + need > TLSNEG_MAX_SNI) {
                break;
            }
            if (printable) {
                buf->sni[n] = (char)b;
            } else {
                static const char hex[] = "0123456789abcdef";
                buf->sni[n] = '\\';
                buf->sni[n + 1] = 'x';
                buf->sni[n + 2] = hex[b >> 4];
                buf->sni[n + 3] = hex[b & 15];
            }
            n += need;
        }
        buf->sni[n] = '\0';
        return buf->sni;
    }
    return NULL;
}

/* supported_versions_problem says what breaks the encoding RFC 8446 4.2.1
 * gives a client's list: ProtocolVersion versions<2..254>, 1 to 127 two-byte
 * versions, the list filling the extension. Nothing else: a version listed
 * twice, or only GREASE, is well-formed (checks.c judges those apart). */
static const char *supported_versions_problem(tlsneg_cur body, bool has_prefix, bool prefix_ok,
                                              tlsneg_cur list)
{
    if (!has_prefix) {
        return "the list length byte is missing";
    }
    if (!prefix_ok) {
        return "the list length byte counts more bytes than the extension holds";
    }
    if (body.len != 0) {
        return "bytes follow the list inside the extension";
    }
    if (list.len == 0) {
        return "the list is empty";
    }
    if (list.len % 2 != 0) {
        return "the list length is odd"; /* also a 255-byte list: <2..254> */
    }
    return NULL;
}

static void derive_supported_versions(tlsneg_facts *out, tlsneg_facts_buf *buf,
                                      const tlsneg_hello *h)
{
    tlsneg_cur body = h->supported_versions.body;
    out->has_supported_versions = h->supported_versions.present;
    if (!out->has_supported_versions) {
        return;
    }
    if (h->msg_type == TLSNEG_HS_SERVER_HELLO) {
        out->has_selected = body.len == 2 && tlsneg_cur_u16(&body, &out->selected_version);
        if (out->has_selected) {
            out->selected_version_at = span_before(&body, 2);
        }
        out->supported_versions_problem =
            out->has_selected ? NULL : "a server's extension must hold exactly one version";
    } else {
        /* Keep what parses, even from a broken list: after a length byte
         * that overruns, the versions that follow it. */
        tlsneg_cur list = body;
        uint8_t skipped;
        bool has_prefix = body.len > 0;
        bool prefix_ok = tlsneg_cur_u8_prefixed(&body, &list);
        if (!prefix_ok && tlsneg_cur_u8(&list, &skipped)) {
            body.len = 0;
        }
        tlsneg_cur walk = list;
        uint16_t v;
        while (out->num_offered < TLSNEG_MAX_OFFERED && tlsneg_cur_u16(&walk, &v)) {
            if (out->num_offered < TLSNEG_MAX_SPANS) {
                buf->offered_at[out->num_offered] = span_before(&walk, 2);
            }
            buf->offered[out->num_offered++] = v;
        }
        out->supported_versions_problem =
            supported_versions_problem(body, has_prefix, prefix_ok, list);
    }
}

/* derive_groups keeps supported_groups (ClientHello) and says whether it
 * names a post-quantum group. */
static void derive_groups(tlsneg_facts *out, tlsneg_facts_buf *buf, const tlsneg_hello *h)
{
    tlsneg_cur list;
    uint16_t g;
    out->has_supported_groups = h->supported_groups.present;
    if (!tlsneg_hello_groups(h, &list)) {
        out->groups_cut = out->has_supported_groups;
        return;
    }
    out->groups_at.offset = (uint32_t)tlsneg_cur_offset(&list);
    out->groups_at.len = 2;
    while (tlsneg_cur_u16(&list, &g)) {
        if (out->num_groups < TLSNEG_MAX_GROUPS) {
            buf->groups[out->num_groups++] = g;
        }
        if (out->group_count < UINT16_MAX) {
            out->group_count++;
        }
        out->pq_offered |= tlsneg_named_group_is_pq(g);
    }
    out->groups_cut = list.len != 0;
}

static void add_key_share(tlsneg_facts *out, tlsneg_facts_buf *buf, uint16_t group, size_t len,
                          uint32_t offset)
{
    if (out->num_key_shares < TLSNEG_MAX_KEY_SHARES) {
        tlsneg_key_share *k = &buf->key_shares[out->num_key_shares++];
        k->group = group;
        k->length = (uint16_t)len;
        k->offset = offset;
    }
    if (out->key_share_count < UINT16_MAX) {
        out->key_share_count++;
    }
    out->pq_key_share |= tlsneg_named_group_is_pq(group);
}

/* derive_key_share keeps a ClientHello's shares, a ServerHello's
 * server_share and group, a HelloRetryRequest's selected_group. */
static void derive_key_share(tlsneg_facts *out, tlsneg_facts_buf *buf, const tlsneg_hello *h)
{
    tlsneg_cur body = h->key_share.body, key;
    uint16_t group;
    out->has_key_share = h->key_share.present;
    if (!out->has_key_share) {
        return;
    }
    if (h->msg_type == TLSNEG_HS_CLIENT_HELLO) {
        tlsneg_cur list;
        if (!tlsneg_hello_key_shares(h, &list)) {
            out->key_shares_cut = true;
            return;
        }
        for (;;) {
            uint32_t at = (uint32_t)tlsneg_cur_offset(&list);
            if (!tlsneg_hello_next_key_share(&list, &group, &key)) {
                break;
            }
            add_key_share(out, buf, group, key.len, at);
        }
        out->key_shares_cut = list.len != 0;
        return;
    }
    uint32_t at = (uint32_t)tlsneg_cur_offset(&body);
    if (h->is_hrr) {
        out->has_group_selected = tlsneg_cur_u16(&body, &group);
    } else {
        out->has_group_selected = tlsneg_hello_next_key_share(&body, &group, &key);
        if (out->has_group_selected) {
            add_key_share(out, buf, group, key.len, at);
        }
    }
    if (out->has_group_selected) {
        out->group_selected = group;
        out->group_selected_at.offset = at;
        out->group_selected_at.len = 2;
        out->pq_selected = tlsneg_named_group_is_pq(group);
    }
}

void tlsneg_facts_set_segments(tlsneg_facts *out, tlsneg_facts_buf *buf, uint16_t n,
                               const uint32_t *frames, size_t num_frames)
{
    size_t kept = num_frames < TLSNEG_MAX_SEGMENT_FRAMES ? num_frames : TLSNEG_MAX_SEGMENT_FRAMES;
    out->hello_segments = n;
    if (kept && frames != buf->segment_frames) {
        memmove(buf->segment_frames, frames, kept * sizeof *frames);
    }
    out->num_segment_frames = (uint8_t)kept;
    out->segment_frames = kept ? buf->segment_frames : NULL;
}

static void derive_offered_max(tlsneg_facts *out)
{
    bool dtls = tlsneg_facts_is_dtls(out);
    unsigned best = 0;
    if (out->has_supported_versions) {
        for (size_t i = 0; i < out->num_offered; i++) {
            unsigned r = tlsneg_version_rank(out->offered[i], dtls);
            if (r > best) {
                best = r;
                out->offered_max = out->offered[i];
            }
        }
    } else if (tlsneg_version_rank(out->legacy_version, dtls) > 0) {
        best = 1;
        out->offered_max = out->legacy_version;
    }
    out->has_offered_max = best > 0;
}

static void derive_sentinel(tlsneg_facts *out, const tlsneg_hello *h)
{
    static const uint8_t downgrd[7] = {'D', 'O', 'W', 'N', 'G', 'R', 'D'};
    /* BoringSSL documents this value, sent by JDK 11 in place of DOWNGRD. */
    static const uint8_t jdk11[8] = {0xed, 0xbf, 0xb4, 0xa8, 0xc2, 0x47, 0x10, 0xff};
    if (h->random.len != 32) {
        return;
    }
    const uint8_t *tail = h->random.p + 24;
    if (memcmp(tail, downgrd, sizeof downgrd) == 0 && tail[7] <= 1) {
        out->has_sentinel = true;
        out->sentinel = tail[7];
    } else if (memcmp(tail, jdk11, sizeof jdk11) == 0) {
        out->has_sentinel = true;
        out->sentinel = TLSNEG_SENTINEL_JDK11;
    }
    if (out->has_sentinel) {
        out->sentinel_at.offset = (uint32_t)(tlsneg_cur_offset(&h->random) + 24);
        out->sentinel_at.len = 8;
    }
}

void tlsneg_facts_derive(tlsneg_facts *out, tlsneg_facts_buf *buf, const tlsneg_hello *h,
                         bool has_record_version, uint16_t record_version)
{
    memset(out, 0, sizeof *out);
    out->msg_type = h->msg_type;
    out->wire = (uint8_t)h->wire;
    out->status = (uint8_t)h->status;
    out->error_offset = (uint32_t)h->error_offset;
    out->is_hrr = h->is_hrr;
    out->has_record_version = has_record_version;
    out->record_version = has_record_version ? record_version : 0;
    out->legacy_version = h->legacy_version;
    if (h->has_legacy_version) {
        out->legacy_version_at.offset = (uint32_t)h->legacy_version_offset;
        out->legacy_version_at.len = 2;
    }
    out->offered = buf->offered;
    out->offered_at = buf->offered_at;
    out->grease = buf->grease;
    out->groups = buf->groups;
    out->key_shares = buf->key_shares;
    out->hello_length = h->message_length;

    switch (h->msg_type) {
    case TLSNEG_HS_CLIENT_HELLO:
        derive_supported_versions(out, buf, h);
        derive_offered_max(out);
        out->fallback_scsv = has_fallback_scsv(h, &out->fallback_scsv_at);
        out->sni = copy_sni(buf, h, &out->sni_at);
        derive_groups(out, buf, h);
        derive_key_share(out, buf, h);
        break;
    case TLSNEG_HS_SERVER_HELLO:
        derive_supported_versions(out, buf, h);
        if (!h->is_hrr) {
            out->has_negotiated = true;
            out->negotiated_version = out->has_selected ? out->selected_version : h->legacy_version;
            derive_sentinel(out, h);
        }
        derive_key_share(out, buf, h);
        break;
    default:
        break;
    }
    find_grease(out, buf, h);
}

/* A small appender: writes stop at the end of the buffer. */
typedef struct {
    char *buf;
    size_t len, used;
} text;

static void put(text *t, const char *fmt, ...) TLSNEG_PRINTF(2, 3);

static void put(text *t, const char *fmt, ...)
{
    if (t->used >= t->len) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->used, t->len - t->used, fmt, ap);
    va_end(ap);
    if (n > 0) {
        t->used += (size_t)n;
    }
}

static const char *vname(const tlsneg_facts *f, uint16_t v, char *buf)
{
    return tlsneg_version_name_in(v, tlsneg_facts_is_dtls(f), buf, TLSNEG_VERSION_NAME_MAX);
}

/* legacy_note: next to supported_versions, legacy_version is frozen at
 * TLS 1.2 (DTLS 1.2). Say so only where the extension goes beyond it: a
 * client that lists nothing above TLS 1.2 (Go capped at TLS 1.2 sends
 * [0x0303], capped at TLS 1.1 legacy 0x0302 and [0x0302, 0x0301]) means
 * its legacy_version; "too" only where the extension says the same. */
static void legacy_note(text *t, const tlsneg_facts *f)
{
    char a[TLSNEG_VERSION_NAME_MAX], b[TLSNEG_VERSION_NAME_MAX];
    bool dtls = tlsneg_facts_is_dtls(f);
    uint16_t frozen = dtls ? TLSNEG_V_DTLS12 : TLSNEG_V_TLS12;
    bool client = f->msg_type == TLSNEG_HS_CLIENT_HELLO;
    bool has_top =
        client ? f->has_offered_max : f->has_selected && !tlsneg_is_grease(f->selected_version);
    uint16_t top = client ? f->offered_max : f->selected_version;
    bool beyond = has_top && tlsneg_version_rank(top, dtls) > tlsneg_version_rank(frozen, dtls);
    if (beyond && f->legacy_version != frozen) {
        put(t, "; legacy_version says %s where %s belongs", vname(f, f->legacy_version, a),
            vname(f, frozen, b));
    } else if (beyond) {
        put(t, "; legacy_version says %s only for compatibility", vname(f, f->legacy_version, a));
    } else if (has_top && top == f->legacy_version) {
        put(t, "; legacy_version says %s too", vname(f, f->legacy_version, a));
    } else {
        put(t, "; legacy_version says %s", vname(f, f->legacy_version, a));
    }
}

static void summary_client(text *t, const tlsneg_facts *f)
{
    char a[TLSNEG_VERSION_NAME_MAX];
    if (f->has_supported_versions) {
        put(t, "The client offers ");
        size_t known = 0;
        for (size_t i = 0; i < f->num_offered; i++) {
            if (!tlsneg_is_grease(f->offered[i])) {
                put(t, "%s%s", known++ ? ", " : "", vname(f, f->offered[i], a));
            }
        }
        if (known == 0) {
            put(t, "no real version");
        }
        put(t, " in supported_versions");
        legacy_note(t, f);
    } else {
        put(t,
            "The client offers versions up to %s in legacy_version (no supported_versions "
            "extension%s)",
            vname(f, f->legacy_version, a), f->status == TLSNEG_OK ? "" : " before the break");
    }
    if (f->has_offered_max) {
        put(t, ". Highest offered: %s", vname(f, f->offered_max, a));
    }
    if (f->grease_count) {
        put(t, ". It sends %u GREASE value%s to keep servers tolerant", f->grease_count,
            f->grease_count == 1 ? "" : "s");
    }
}

static void summary_server(text *t, const tlsneg_facts *f)
{
    char a[TLSNEG_VERSION_NAME_MAX];
    if (f->is_hrr) {
        put(t, "The server asks the client to send a new ClientHello (HelloRetryRequest)");
        if (f->has_selected) {
            put(t, " and already picks %s in supported_versions", vname(f, f->selected_version, a));
        }
        if (f->has_group_selected) {
            char g[TLSNEG_NAMED_GROUP_TEXT_MAX];
            put(t, "; it asks for a key share of %s",
                tlsneg_named_group_describe(f->group_selected, g, sizeof g));
        }
    } else if (f->has_selected) {
        put(t, "The server picks %s in supported_versions", vname(f, f->selected_version, a));
        legacy_note(t, f);
    } else if (f->has_supported_versions) {
        /* There, but not one version (supported_versions_malformed): what it
         * picks is not known. */
        put(t,
            "The server's supported_versions extension does not hold exactly one version; "
            "legacy_version says %s",
            vname(f, f->legacy_version, a));
    } else {
        put(t, "The server picks %s in legacy_version (no supported_versions extension)",
            vname(f, f->legacy_version, a));
    }
    if (f->has_sentinel) {
        char b[TLSNEG_VERSION_NAME_MAX];
        put(t, ". Its random ends with the downgrade sentinel %s: the server supports %s%s",
            tlsneg_sentinel_name(f->sentinel),
            f->sentinel == TLSNEG_SENTINEL_TLS11 ? "at least " : "",
            vname(f, tlsneg_sentinel_proves(f), b));
    }
    if (f->grease_count) {
        put(t, ". It sends %u GREASE value%s, which a server's hello must never do",
            f->grease_count, f->grease_count == 1 ? "" : "s");
    }
}

const char *tlsneg_facts_summary(const tlsneg_facts *f, char *buf, size_t buf_len)
{
    char a[TLSNEG_VERSION_NAME_MAX];
    text t = {buf, buf_len, 0};
    if (buf_len) {
        buf[0] = '\0';
    }
    switch (f->msg_type) {
    case TLSNEG_HS_CLIENT_HELLO:
        if (f->wire == TLSNEG_WIRE_SSL2 && f->legacy_version == TLSNEG_V_SSL2) {
            put(&t, "The client sends an SSL 2.0 CLIENT-HELLO: it offers SSL 2.0 only");
        } else if (f->wire == TLSNEG_WIRE_SSL2) {
            put(&t,
                "The client sends an old SSLv2-compatible ClientHello offering versions up "
                "to %s",
                vname(f, f->legacy_version, a));
        } else {
            summary_client(&t, f);
        }
        if (f->fallback_scsv) {
            put(&t, ". TLS_FALLBACK_SCSV marks it as a retry at a lower version");
        }
        break;
    case TLSNEG_HS_SERVER_HELLO:
        if (f->wire == TLSNEG_WIRE_SSL2) {
            put(&t, "The server answers with an SSL 2.0 SERVER-HELLO: %s is in force",
                vname(f, f->negotiated_version, a));
        } else {
            summary_server(&t, f);
        }
        break;
    case TLSNEG_HS_HELLO_VERIFY_REQUEST:
        put(&t,
            "The DTLS server asks the client to repeat its ClientHello with a cookie "
            "(HelloVerifyRequest); its version field says %s",
            vname(f, f->legacy_version, a));
        break;
    default:
        put(&t, "Not a hello");
        break;
    }
    if (f->status != TLSNEG_OK) {
        put(&t, ". The message is broken (%s at byte %u): only what came before is shown",
            tlsneg_status_name((tlsneg_status)f->status), f->error_offset);
    }
    put(&t, ".");
    return buf;
}

/* The sizes of f's lists in the order tlsneg_facts_pack lays them out:
 * the 4-byte aligned ones first, then the 2-byte ones, then the name. */
typedef struct {
    size_t spans, grease, shares, frames, offered, groups, sni;
} packed_sizes;

static packed_sizes packed_sizes_of(const tlsneg_facts *f)
{
    size_t n_spans = f->num_offered < TLSNEG_MAX_SPANS ? f->num_offered : TLSNEG_MAX_SPANS;
    return (packed_sizes){
        f->offered_at ? n_spans * sizeof *f->offered_at : 0,
        f->grease ? f->num_grease * sizeof *f->grease : 0,
        f->key_shares ? f->num_key_shares * sizeof *f->key_shares : 0,
        f->segment_frames ? f->num_segment_frames * sizeof *f->segment_frames : 0,
        f->offered ? f->num_offered * sizeof *f->offered : 0,
        f->groups ? f->num_groups * sizeof *f->groups : 0,
        f->sni ? strlen(f->sni) + 1 : 0,
    };
}

size_t tlsneg_facts_packed_size(const tlsneg_facts *f)
{
    packed_sizes z = packed_sizes_of(f);
    return z.spans + z.grease + z.shares + z.frames + z.offered + z.groups + z.sni;
}

/* pack_part copies n bytes of src to *p and moves *p on; NULL when n is 0. */
static const void *pack_part(uint8_t **p, const void *src, size_t n)
{
    if (!n) {
        return NULL;
    }
    void *at = memcpy(*p, src, n);
    *p += n;
    return at;
}

void tlsneg_facts_pack(tlsneg_facts *dst, void *mem, const tlsneg_facts *f)
{
    packed_sizes z = packed_sizes_of(f);
    uint8_t *p = mem;
    *dst = *f;
    dst->offered_at = pack_part(&p, f->offered_at, z.spans);
    dst->grease = pack_part(&p, f->grease, z.grease);
    dst->key_shares = pack_part(&p, f->key_shares, z.shares);
    dst->segment_frames = pack_part(&p, f->segment_frames, z.frames);
    dst->offered = pack_part(&p, f->offered, z.offered);
    dst->groups = pack_part(&p, f->groups, z.groups);
    dst->sni = pack_part(&p, f->sni, z.sni);
}

void tlsneg_facts_copy(tlsneg_facts *dst, tlsneg_facts_buf *buf, const tlsneg_facts *src)
{
    *dst = *src;
    size_t n_off = src->num_offered <= TLSNEG_MAX_OFFERED ? src->num_offered : TLSNEG_MAX_OFFERED;
    size_t n_gr = src->num_grease <= TLSNEG_MAX_GREASE ? src->num_grease : TLSNEG_MAX_GREASE;
    if (n_off && src->offered != buf->offered) {
        memmove(buf->offered, src->offered, n_off * sizeof *src->offered);
    }
    size_t n_spans = src->offered_at ? (n_off < TLSNEG_MAX_SPANS ? n_off : TLSNEG_MAX_SPANS) : 0;
    if (n_spans && src->offered_at != buf->offered_at) {
        memmove(buf->offered_at, src->offered_at, n_spans * sizeof *src->offered_at);
    }
    dst->offered_at = n_spans ? buf->offered_at : NULL;
    if (n_gr && src->grease != buf->grease) {
        memmove(buf->grease, src->grease, n_gr * sizeof *src->grease);
    }
    size_t n_groups = src->num_groups <= TLSNEG_MAX_GROUPS ? src->num_groups : TLSNEG_MAX_GROUPS;
    size_t n_shares =
        src->num_key_shares <= TLSNEG_MAX_KEY_SHARES ? src->num_key_shares : TLSNEG_MAX_KEY_SHARES;
    if (n_groups && src->groups != buf->groups) {
        memmove(buf->groups, src->groups, n_groups * sizeof *src->groups);
    }
    if (n_shares && src->key_shares != buf->key_shares) {
        memmove(buf->key_shares, src->key_shares, n_shares * sizeof *src->key_shares);
    }
    dst->num_groups = (uint8_t)n_groups;
    dst->num_key_shares = (uint8_t)n_shares;
    dst->groups = n_groups ? buf->groups : NULL;
    dst->key_shares = n_shares ? buf->key_shares : NULL;
    tlsneg_facts_set_segments(dst, buf, src->hello_segments, src->segment_frames,
                              src->segment_frames ? src->num_segment_frames : 0);
    dst->num_offered = (uint8_t)n_off;
    dst->num_grease = (uint8_t)n_gr;
    dst->offered = n_off ? buf->offered : NULL;
    dst->grease = n_gr ? buf->grease : NULL;
    if (src->sni) {
        if (src->sni != buf->sni) {
            tlsneg_strlcpy(buf->sni, sizeof buf->sni, src->sni);
        }
        dst->sni = buf->sni;
    }
}
