/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/facts.h"
#include "core/groups.h"
#include "core/versions.h"

#include "tap.h"
#include "vectors.h"

static tlsneg_facts_buf buf;

static tlsneg_facts derive(const char *hex, tlsneg_wire wire)
{
    tlsneg_hello h;
    tlsneg_facts f;
    size_t n;
    uint8_t *b = unhex(hex, &n);
    (void)tlsneg_hello_parse(&h, wire, b, n);
    tlsneg_facts_derive(&f, &buf, &h, true, 0x0301);
    free(b);
    return f;
}

static void chrome55_grease_in_wire_order(void)
{
    tlsneg_facts f = derive(chrome55_client_hello_hex, TLSNEG_WIRE_TLS);
    /* Read off tshark -V: "Reserved (GREASE)" entries, in wire order. */
    static const tlsneg_grease want[] = {
        {0x2a2a, TLSNEG_GREASE_CIPHER_SUITE, {0, 0}}, {0x2a2a, TLSNEG_GREASE_EXTENSION, {0, 0}},
        {0x6a6a, TLSNEG_GREASE_KEY_SHARE, {0, 0}},    {0x5a5a, TLSNEG_GREASE_VERSION, {0, 0}},
        {0x6a6a, TLSNEG_GREASE_GROUP, {0, 0}},        {0x0a0a, TLSNEG_GREASE_EXTENSION, {0, 0}},
    };
    int same = f.num_grease == 6 && f.grease_count == 6;
    for (size_t i = 0; same && i < 6; i++) {
        same = f.grease[i].value == want[i].value && f.grease[i].family == want[i].family;
    }
    ok(same, "Chrome 55: 6 GREASE values with their families in wire order");
    ok(f.num_offered == 5 && f.offered[0] == 0x5a5a && f.offered[1] == 0x7f0e &&
           f.offered[4] == 0x0301,
       "Chrome 55: supported_versions in wire order, GREASE included");
    ok(f.has_offered_max && f.offered_max == 0x7f0e, "Chrome 55: highest offered is draft-14");
    ok(f.sni && strcmp(f.sni, "tls13.crypto.mozilla.org") == 0, "Chrome 55: SNI");
    ok(!f.fallback_scsv && f.has_record_version && f.record_version == 0x0301,
       "Chrome 55: no SCSV; record version passed through");
}

/* span_holds tells whether the bytes at a span read as v (big-endian). */
static int span_holds(const uint8_t *b, size_t n, tlsneg_span at, uint32_t v)
{
    if (at.len == 0 || at.len > 4 || (size_t)at.offset + at.len > n) {
        return 0;
    }
    uint32_t got = 0;
    for (uint32_t i = 0; i < at.len; i++) {
        got = got << 8 | b[at.offset + i];
    }
    return got == v;
}

/* Every position facts records points at bytes of the message that hold
 * the value (offsets from the type byte). */
static void positions_hold_their_values(void)
{
    size_t n;
    uint8_t *b = unhex(chrome55_client_hello_hex, &n);
    tlsneg_facts f = derive(chrome55_client_hello_hex, TLSNEG_WIRE_TLS);
    ok(f.legacy_version_at.offset == 4 && span_holds(b, n, f.legacy_version_at, 0x0303),
       "legacy_version sits after the 4-byte header");
    int all = f.num_grease == 6;
    for (size_t i = 0; all && i < f.num_grease; i++) {
        all = span_holds(b, n, f.grease[i].at, f.grease[i].value) && f.grease[i].at.len == 2;
    }
    ok(all, "every GREASE value's position holds it");
    all = f.num_offered == 5;
    for (size_t i = 0; all && i < f.num_offered; i++) {
        all = span_holds(b, n, f.offered_at[i], f.offered[i]);
    }
    ok(all, "every supported_versions entry's position holds it");
    ok(f.sni_at.len == strlen(f.sni) && memcmp(b + f.sni_at.offset, f.sni, f.sni_at.len) == 0,
       "the SNI position holds the host name");
    ok(f.fallback_scsv_at.len == 0, "no SCSV, no position");
    free(b);
}

static void offered_max_without_the_extension(void)
{
    tlsneg_facts f = derive(tls11_client_hello_hex, TLSNEG_WIRE_TLS);
    ok(!f.has_supported_versions && f.has_offered_max && f.offered_max == 0x0302,
       "no supported_versions: highest offered is legacy_version");
    f = derive(tls11_server_hello_hex, TLSNEG_WIRE_TLS);
    ok(f.has_negotiated && f.negotiated_version == 0x0302 && !f.has_selected,
       "TLS 1.1 ServerHello: legacy_version is in force");
}

static void server_side(void)
{
    tlsneg_facts f = derive(rfc8446_server_hello_hex, TLSNEG_WIRE_TLS);
    ok(f.has_selected && f.selected_version == 0x0304 && f.negotiated_version == 0x0304,
       "RFC 8446 ServerHello: TLS 1.3 selected and in force");
    ok(!f.has_sentinel, "RFC 8446 ServerHello: no downgrade sentinel");
    f = derive(draft20_server_hello_hex, TLSNEG_WIRE_TLS);
    ok(!f.has_selected && f.negotiated_version == 0x7f14, "draft-20: version in legacy_version");
    f = derive(hrr_hex, TLSNEG_WIRE_TLS);
    ok(f.is_hrr && f.has_selected && f.selected_version == 0x0304 && !f.has_negotiated,
       "HelloRetryRequest: selects TLS 1.3, puts nothing in force");
    ok(strcmp(tlsneg_msg_name(&f), "HelloRetryRequest") == 0, "HelloRetryRequest is named");
}

static void dtls_and_sslv2(void)
{
    tlsneg_facts f = derive(dtls12_client_hello_hex, TLSNEG_WIRE_DTLS);
    ok(f.has_offered_max && f.offered_max == 0xfefd, "DTLS 1.2 ClientHello offers DTLS 1.2");
    f = derive(sslv2_client_hello_hex, TLSNEG_WIRE_SSL2);
    ok(f.fallback_scsv && f.offered_max == 0x0301, "SSLv2 hello: 0x005600 spec is the SCSV");
}

/* A minimal TLS 1.2 ServerHello whose random ends with tail. */
static tlsneg_facts server_hello_with_random_tail(const uint8_t tail[8])
{
    uint8_t msg[4 + 38] = {0x02, 0x00, 0x00, 38, 0x03, 0x03};
    memcpy(msg + 6 + 24, tail, 8);
    msg[4 + 35] = 0x2f; /* session id length 0, cipher suite 0x002f, compression 0 */
    tlsneg_hello h;
    tlsneg_facts f;
    (void)tlsneg_hello_parse(&h, TLSNEG_WIRE_TLS, msg, sizeof msg);
    tlsneg_facts_derive(&f, &buf, &h, false, 0);
    return f;
}

static void downgrade_sentinels(void)
{
    static const uint8_t tls12[8] = {'D', 'O', 'W', 'N', 'G', 'R', 'D', 1};
    static const uint8_t tls11[8] = {'D', 'O', 'W', 'N', 'G', 'R', 'D', 0};
    static const uint8_t jdk11[8] = {0xed, 0xbf, 0xb4, 0xa8, 0xc2, 0x47, 0x10, 0xff};
    static const uint8_t other[8] = {'D', 'O', 'W', 'N', 'G', 'R', 'D', 2};
    tlsneg_facts f = server_hello_with_random_tail(tls12);
    ok(f.status == TLSNEG_OK && f.has_sentinel && f.sentinel == 1, "DOWNGRD\\x01 is 1");
    f = server_hello_with_random_tail(tls11);
    ok(f.has_sentinel && f.sentinel == 0, "DOWNGRD\\x00 is 0");
    f = server_hello_with_random_tail(jdk11);
    ok(f.has_sentinel && f.sentinel == 2, "the JDK 11 value is 2");
    f = server_hello_with_random_tail(other);
    ok(!f.has_sentinel, "DOWNGRD\\x02 is no sentinel");
}

static void summaries_speak_plainly(void)
{
    char s[512];
    tlsneg_facts f = derive(chrome55_client_hello_hex, TLSNEG_WIRE_TLS);
    tlsneg_facts_summary(&f, s, sizeof s);
    ok(strstr(s, "TLS 1.3 draft-14, TLS 1.2, TLS 1.1, TLS 1.0 in supported_versions") != NULL &&
           strstr(s, "6 GREASE values") != NULL,
       "ClientHello summary names the offer and the GREASE: %s", s);
    f = derive(hrr_hex, TLSNEG_WIRE_TLS);
    tlsneg_facts_summary(&f, s, sizeof s);
    ok(strstr(s, "HelloRetryRequest") != NULL, "HRR summary: %s", s);
    /* Go capped at TLS 1.2 lists only 0x0303: TLS 1.2 is its maximum, not a
     * value kept for compatibility. */
    f = derive(go_tls12_client_hello_hex, TLSNEG_WIRE_TLS);
    tlsneg_facts_summary(&f, s, sizeof s);
    ok(strstr(s, "offers TLS 1.2 in supported_versions; legacy_version says TLS 1.2 too") &&
           !strstr(s, "compatibility"),
       "Go's [0x0303]: no word of compatibility: %s", s);
    f = derive(sslv2_server_hello_hex, TLSNEG_WIRE_SSL2);
    tlsneg_facts_summary(&f, s, sizeof s);
    ok(f.has_negotiated && f.negotiated_version == 0x0002 && !f.has_sentinel &&
           strcmp(tlsneg_msg_name(&f), "SSLv2 SERVER-HELLO") == 0 &&
           strstr(s, "SSL 2.0 SERVER-HELLO: SSL 2.0 is in force") != NULL,
       "SSL 2.0 SERVER-HELLO: SSL 2.0 in force: %s", s);
    /* pcaps/synth-supported-versions-malformed.pcap frame 56 (tshark -V:
     * legacy_version 0x0303, supported_versions of length 3: TLS 1.3
     * (0x0304) and 1 trailing byte): the extension is there, broken; no
     * version is picked in it, and it is not absent. */
    f = derive("0200007703036cb374afce8ea66fdc42dcd56253c4f5bb61ca5ebebf8afb81f3c4c12628faeb"
               "20b097b047b587a41a17e9bf54f4905575de83c55bdbaa2282d54a553843873614130200002f0"
               "02b000303040000330024001d0020d5ee6dc683ce64714b6013e0774218aa9a44bdd745c4e896"
               "1d52ab336d38609a",
               TLSNEG_WIRE_TLS);
    tlsneg_facts_summary(&f, s, sizeof s);
    ok(f.supported_versions_problem && !f.has_selected &&
           strcmp(s, "The server's supported_versions extension does not hold exactly one "
                     "version; legacy_version says TLS 1.2.") == 0,
       "a server's malformed supported_versions: not called absent: %s", s);
    f = derive(openssl_client_hello_hex, TLSNEG_WIRE_TLS);
    tlsneg_facts_summary(&f, s, sizeof s);
    ok(strstr(s, "legacy_version says TLS 1.2 only for compatibility") != NULL,
       "OpenSSL's TLS 1.3 offer: legacy_version only for compatibility: %s", s);
    tlsneg_facts_summary(&f, s, 20);
    ok(strlen(s) == 19, "a short buffer truncates the summary safely");
}

static void hostile_sni_is_escaped(void)
{
    /* ClientHello with server_name "a\0b\\" */
    static const uint8_t msg[] = {
        0x01, 0x00, 0x00, 0x38, 0x03, 0x03, /* header, legacy_version */
        0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0, 0, 0,
        0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0, 0, 0,
        0,    0,    0,    0,    0x00, 0x00, 0x02, 0x00, 0x2f, 0x01, 0x00, /* sid, suites,
                                                                             compression */
        0x00, 0x0d, 0x00, 0x00, 0x00, 0x09, 0x00, 0x07, /* extensions, server_name */
        0x00, 0x00, 0x04, 'a',  0x00, 'b',  '\\'};
    tlsneg_hello h;
    tlsneg_facts f;
    ok(tlsneg_hello_parse(&h, TLSNEG_WIRE_TLS, msg, sizeof msg) == TLSNEG_OK, "SNI vector parses");
    tlsneg_facts_derive(&f, &buf, &h, false, 0);
    ok(f.sni && strcmp(f.sni, "a\\x00b\\x5c") == 0, "non-printable SNI bytes are escaped: %s",
       f.sni ? f.sni : "(none)");
}

/* Groups and key shares, read off tshark's tls.handshake.extensions_supported_group,
 * _key_share_group, _key_share_key_exchange_length, _key_share_selected_group and
 * tls.handshake.length (+ 4 for the header) on the vectors' frames. */
static void key_exchange(void)
{
    size_t n;
    uint8_t *b = unhex(openssl35_client_hello_hex, &n);
    tlsneg_facts f = derive(openssl35_client_hello_hex, TLSNEG_WIRE_TLS);
    static const uint16_t groups[] = {0x11ec, 0x001d, 0x0017, 0x001e,
                                      0x0018, 0x0019, 0x0100, 0x0101};
    int same = f.has_supported_groups && f.num_groups == 8 && f.group_count == 8;
    for (size_t i = 0; same && i < 8; i++) {
        tlsneg_span at = {f.groups_at.offset + 2 * (uint32_t)i, 2};
        same = f.groups[i] == groups[i] && span_holds(b, n, at, groups[i]);
    }
    ok(same, "OpenSSL 3.5: supported_groups in wire order, each where the bytes hold it");
    ok(f.num_key_shares == 2 && f.key_share_count == 2 && f.key_shares[0].group == 0x11ec &&
           f.key_shares[0].length == 1216 && f.key_shares[1].group == 0x001d &&
           f.key_shares[1].length == 32,
       "OpenSSL 3.5: key shares X25519MLKEM768 (1,216 bytes) and x25519 (32)");
    tlsneg_span s0 = {f.key_shares[0].offset, 2}, l0 = {f.key_shares[0].offset + 2, 2};
    tlsneg_span s1 = {f.key_shares[1].offset, 2};
    ok(span_holds(b, n, s0, 0x11ec) && span_holds(b, n, l0, 1216) && span_holds(b, n, s1, 0x001d),
       "OpenSSL 3.5: each key share's group and length sit where the facts say");
    ok(f.pq_offered && f.pq_key_share && !f.pq_selected && !f.has_group_selected,
       "OpenSSL 3.5: post-quantum offered and shared");
    ok(f.hello_length == 1546 && f.hello_length == n, "OpenSSL 3.5: hello_length 1,542 + 4");
    free(b);

    f = derive(openssl_client_hello_hex, TLSNEG_WIRE_TLS);
    ok(f.num_groups == 10 && f.groups[0] == 0x001d && f.groups[9] == 0x0104 && !f.pq_offered &&
           !f.pq_key_share && f.num_key_shares == 1 && f.key_shares[0].length == 32 &&
           f.hello_length == 310,
       "OpenSSL 3.0: ten classical and FFDHE groups, one x25519 share, 306 + 4 bytes");

    f = derive(chrome55_client_hello_hex, TLSNEG_WIRE_TLS);
    ok(f.num_groups == 4 && f.groups[0] == 0x6a6a && f.num_key_shares == 2 &&
           f.key_shares[0].group == 0x6a6a && f.key_shares[0].length == 1 &&
           f.key_shares[1].group == 0x001d && !f.pq_offered && f.hello_length == 512,
       "Chrome 55: a GREASE group and a 1-byte GREASE key share, then x25519");

    f = derive(hrr_hex, TLSNEG_WIRE_TLS);
    ok(f.has_key_share && f.has_group_selected && f.group_selected == 0x0017 &&
           f.num_key_shares == 0 && !f.pq_selected && f.hello_length == 88,
       "HelloRetryRequest: asks for secp256r1, sends no share, 84 + 4 bytes");

    f = derive(rfc8446_server_hello_hex, TLSNEG_WIRE_TLS);
    ok(f.has_group_selected && f.group_selected == 0x001d && f.num_key_shares == 1 &&
           f.key_shares[0].length == 32 && !f.pq_selected && f.hello_length == 122,
       "RFC 8446 ServerHello: x25519 share of 32 bytes, 118 + 4 bytes");

    f = derive(tls11_client_hello_hex, TLSNEG_WIRE_TLS);
    ok(!f.has_key_share && f.num_key_shares == 0 && !f.pq_key_share,
       "TLS 1.1 ClientHello: no key share");
}

/* The one group table: names as IANA's registry spells them, and classes. */
static void group_names(void)
{
    char t[TLSNEG_NAMED_GROUP_TEXT_MAX];
    ok(strcmp(tlsneg_named_group_describe(0x11ec, t, sizeof t),
              "X25519MLKEM768 (0x11ec, post-quantum hybrid)") == 0,
       "0x11ec is X25519MLKEM768, a post-quantum hybrid");
    ok(strcmp(tlsneg_named_group_describe(0x0201, t, sizeof t),
              "MLKEM768 (0x0201, post-quantum)") == 0,
       "0x0201 is MLKEM768, post-quantum");
    ok(strcmp(tlsneg_named_group_describe(0x001d, t, sizeof t), "x25519 (0x001d, classical)") == 0,
       "0x001d is x25519, classical");
    ok(strcmp(tlsneg_named_group_describe(0x0100, t, sizeof t), "ffdhe2048 (0x0100, FFDHE)") == 0,
       "0x0100 is ffdhe2048");
    ok(strcmp(tlsneg_named_group_describe(0x6a6a, t, sizeof t), "GREASE (0x6a6a)") == 0 &&
           tlsneg_named_group_class(0x6a6a) == TLSNEG_GCLASS_GREASE,
       "0x6a6a is GREASE (the GREASE test of versions.h)");
    ok(strcmp(tlsneg_named_group_describe(0x1234, t, sizeof t), "unknown (0x1234)") == 0,
       "an unassigned code point is unknown");
    ok(tlsneg_named_group_is_pq(0x11eb) && tlsneg_named_group_is_pq(0x11ed) &&
           tlsneg_named_group_is_pq(0x6399) && tlsneg_named_group_is_pq(0x0202) &&
           !tlsneg_named_group_is_pq(0x0018) && !tlsneg_named_group_is_pq(0x0104),
       "the hybrids and ML-KEM are post-quantum; secp384r1 and ffdhe8192 are not");
    ok(tlsneg_named_group_share_length(0x11ec, true) == 1216 &&
           tlsneg_named_group_share_length(0x11ec, false) == 1120 &&
           tlsneg_named_group_share_length(0x11eb, true) == 1249 &&
           tlsneg_named_group_share_length(0x11eb, false) == 1153 &&
           tlsneg_named_group_share_length(0x11ed, true) == 1665 &&
           tlsneg_named_group_share_length(0x11ed, false) == 1665 &&
           tlsneg_named_group_share_length(0x0201, true) == 1184 &&
           tlsneg_named_group_share_length(0x0201, false) == 1088 &&
           tlsneg_named_group_share_length(0x0202, true) == 1568 &&
           tlsneg_named_group_share_length(0x001d, true) == 0,
       "share lengths: ML-KEM sizes of FIPS 203 plus the ECDHE share of the hybrid");
    /* The class comes from ranges (no search), the name from the rows:
     * a code point has a class if and only if it has a row or is GREASE. */
    unsigned bad = 0, named = 0;
    for (uint32_t g = 0; g <= 0xffff; g++) {
        tlsneg_gclass c = tlsneg_named_group_class((uint16_t)g);
        const char *n = tlsneg_named_group_name((uint16_t)g);
        bool grease = tlsneg_is_grease((uint16_t)g);
        named += n && !grease;
        bad += (c == TLSNEG_GCLASS_GREASE) != grease ||
               (!grease && (c == TLSNEG_GCLASS_UNKNOWN) != (n == NULL));
    }
    ok(bad == 0 && named == 56,
       "every code point: a class exactly for the 56 rows and GREASE (%u disagree, %u rows)", bad,
       named);
    /* The 16 groups with a bit (groups.h), each its own bit, in the order
     * the header lists them; no other code point has one. */
    static const uint16_t tracked[16] = {0x001d, 0x001e, 0x0017, 0x0018, 0x0019, 0x0100,
                                         0x0101, 0x0102, 0x0103, 0x0104, 0x0201, 0x0202,
                                         0x11eb, 0x11ec, 0x11ed, 0x6399};
    unsigned wrong = 0, with_bit = 0;
    for (uint32_t g = 0; g <= 0xffff; g++) {
        uint16_t bit = tlsneg_named_group_bit((uint16_t)g);
        with_bit += bit != 0;
        for (unsigned i = 0; i < 16; i++) {
            wrong += tracked[i] == g && bit != (1u << i);
        }
    }
    ok(wrong == 0 && with_bit == 16,
       "group bits: one each for the 16 groups (%u wrong, %u with a bit)", wrong, with_bit);
}

/* in_block tells whether n bytes at p lie inside [block, block + size). */
static int in_block(const void *p, size_t n, const void *block, size_t size)
{
    const uint8_t *b = block, *q = p;
    return n == 0 ? p == NULL : q >= b && q + n <= b + size;
}

/* A hello packed into a block of its lists' exact size (ASan would see a
 * write past it) reads the same as the hello it came from, after the
 * storage it came from is overwritten. */
static void packed_copy(void)
{
    static const uint32_t frames[] = {7, 9};
    tlsneg_facts f = derive(chrome55_client_hello_hex, TLSNEG_WIRE_TLS);
    tlsneg_facts_set_segments(&f, &buf, 2, frames, 2);
    tlsneg_facts_buf was = buf;
    size_t size = tlsneg_facts_packed_size(&f);
    void *block = malloc(size);
    tlsneg_facts p;
    tlsneg_facts_pack(&p, block, &f);
    memset(&buf, 0xa5, sizeof buf);
    size_t n_spans = p.num_offered < TLSNEG_MAX_SPANS ? p.num_offered : TLSNEG_MAX_SPANS;
    ok(p.num_offered == 5 && p.num_grease == 6 && p.num_groups == f.num_groups &&
           p.num_groups > 0 && p.num_key_shares == 2 && p.num_segment_frames == 2,
       "packed: the counts of the hello (Chrome 55, two segments)");
    ok(memcmp(p.offered, was.offered, p.num_offered * sizeof *p.offered) == 0 &&
           memcmp(p.offered_at, was.offered_at, n_spans * sizeof *p.offered_at) == 0 &&
           memcmp(p.grease, was.grease, p.num_grease * sizeof *p.grease) == 0 &&
           memcmp(p.groups, was.groups, p.num_groups * sizeof *p.groups) == 0 &&
           memcmp(p.key_shares, was.key_shares, p.num_key_shares * sizeof *p.key_shares) == 0 &&
           p.segment_frames[0] == 7 && p.segment_frames[1] == 9 &&
           strcmp(p.sni, "tls13.crypto.mozilla.org") == 0,
       "packed: every list and the server name as derived, the source overwritten");
    ok(in_block(p.offered, p.num_offered * sizeof *p.offered, block, size) &&
           in_block(p.offered_at, n_spans * sizeof *p.offered_at, block, size) &&
           in_block(p.grease, p.num_grease * sizeof *p.grease, block, size) &&
           in_block(p.groups, p.num_groups * sizeof *p.groups, block, size) &&
           in_block(p.key_shares, p.num_key_shares * sizeof *p.key_shares, block, size) &&
           in_block(p.segment_frames, 2 * sizeof *p.segment_frames, block, size) &&
           in_block(p.sni, strlen(p.sni) + 1, block, size),
       "packed: every list inside the one block");
    free(block);
    static tlsneg_facts_buf copy_buf;
    tlsneg_facts c;
    f = derive(chrome55_client_hello_hex, TLSNEG_WIRE_TLS);
    was = buf;
    tlsneg_facts_copy(&c, &copy_buf, &f);
    memset(&buf, 0xa5, sizeof buf);
    ok(c.offered_at == copy_buf.offered_at &&
           memcmp(c.offered_at, was.offered_at, n_spans * sizeof *c.offered_at) == 0 &&
           memcmp(c.offered, was.offered, c.num_offered * sizeof *c.offered) == 0,
       "copied: the versions and their positions in the copy's buffer");
    tlsneg_facts none;
    memset(&none, 0, sizeof none);
    tlsneg_facts_pack(&p, NULL, &none);
    ok(tlsneg_facts_packed_size(&none) == 0 && !p.offered && !p.offered_at && !p.grease &&
           !p.groups && !p.key_shares && !p.segment_frames && !p.sni,
       "packed: a hello without lists needs no block");
}

int main(void)
{
    key_exchange();
    group_names();
    chrome55_grease_in_wire_order();
    positions_hold_their_values();
    offered_max_without_the_extension();
    server_side();
    dtls_and_sslv2();
    downgrade_sentinels();
    summaries_speak_plainly();
    hostile_sni_is_escaped();
    packed_copy();
    return tap_done();
}
