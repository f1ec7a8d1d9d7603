/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_checks_kx.c: the key-exchange rules of rules.def on bytes (key_share,
 * supported_groups, HelloRetryRequest groups). Real hellos (vectors.h,
 * pq_vectors.h) where a real stack shows the case; otherwise hellos built field
 * by field (checks_fixture.h), so that each test changes one thing and names
 * what it breaks. */
#include "checks_fixture.h"
#include "pq_vectors.h"
#include "vectors.h"

/* ---- key exchange (RFC 8446 4.2.7, 4.2.8; the ECDHE-MLKEM draft) ------ */

/* RFC 8446 4.1.3: the HelloRetryRequest random, SHA-256("HelloRetryRequest"). */
static const char hrr_random[32] = {'\xcf', '\x21', '\xad', '\x74', '\xe5', '\x9a', '\x61', '\x11',
                                    '\xbe', '\x1d', '\x8c', '\x02', '\x1e', '\x65', '\xb8', '\x91',
                                    '\xc2', '\xa2', '\x11', '\x16', '\x7a', '\xbb', '\x8c', '\x5e',
                                    '\x07', '\x9e', '\x09', '\xe2', '\xc8', '\xa8', '\x33', '\x9c'};

/* A TLS 1.3 ClientHello with these groups and key shares (group, length;
 * key bytes 0x11). */
static bytes kx_client_hello(const uint16_t *groups, size_t num_groups, const uint16_t *shares,
                             const uint16_t *lengths, size_t num_shares)
{
    static const uint16_t v13[] = {0x0304}, suites[] = {0x1301};
    bytes exts = {.n = 0}, g = {.n = 0}, ks = {.n = 0};
    put16(&g, (unsigned)(2 * num_groups));
    for (size_t i = 0; i < num_groups; i++) {
        put16(&g, groups[i]);
    }
    size_t total = 0;
    for (size_t i = 0; i < num_shares; i++) {
        total += 4 + lengths[i];
    }
    put16(&ks, (unsigned)total);
    for (size_t i = 0; i < num_shares; i++) {
        put16(&ks, shares[i]);
        put16(&ks, lengths[i]);
        memset(ks.b + ks.n, 0x11, lengths[i]);
        ks.n += lengths[i];
    }
    ext_versions(&exts, v13, 1);
    ext(&exts, TLSNEG_EXT_SUPPORTED_GROUPS, g.b, g.n);
    ext(&exts, TLSNEG_EXT_KEY_SHARE, ks.b, ks.n);
    ext(&exts, TLSNEG_EXT_SIGNATURE_ALGORITHMS, sig_algs, sizeof sig_algs);
    return client_hello(0x0303, suites, 1, &exts);
}

/* A TLS 1.3 ServerHello with a key share (group, length), or a
 * HelloRetryRequest asking for group (length ignored). */
static bytes kx_server_hello(bool hrr, uint16_t group, uint16_t length)
{
    bytes exts = {.n = 0}, ks = {.n = 0};
    uint8_t v[2] = {0x03, 0x04};
    ext(&exts, TLSNEG_EXT_SUPPORTED_VERSIONS, v, 2);
    put16(&ks, group);
    if (!hrr) {
        put16(&ks, length);
        memset(ks.b + ks.n, 0x22, length);
        ks.n += length;
    }
    ext(&exts, TLSNEG_EXT_KEY_SHARE, ks.b, ks.n);
    bytes m = server_hello(0x0303, 0x1301, NULL, &exts);
    if (hrr) {
        memcpy(m.b + 6, hrr_random, sizeof hrr_random);
    }
    return m;
}

static void key_exchange_rules(void)
{
    static const uint16_t pq[] = {0x11ec, 0x001d, 0x0017}, pq_len[] = {1216, 32};
    static const uint16_t x25519[] = {0x001d}, x_len[] = {32};
    bytes m;

    /* Real bytes: OpenSSL 3.5's X25519MLKEM768 hello breaks nothing; an
     * OpenSSL HelloRetryRequest asks for secp256r1, listed and not shared. */
    new_connection();
    expect(judge_hex(TLSNEG_WIRE_TLS, openssl35_client_hello_hex, 0x0301), "",
           "OpenSSL 3.5 ClientHello: X25519MLKEM768 and x25519 shares, both listed, right lengths");
    new_connection();
    expect(judge_hex(TLSNEG_WIRE_TLS, openssl_client_hello_hex, 0x0301), "", "ClientHello");
    expect(judge_hex(TLSNEG_WIRE_TLS, hrr_hex, 0x0303), "hrr_lacks_predicted",
           "HelloRetryRequest for secp256r1, listed by the client and not shared: only the note "
           "that the client's prediction (x25519) missed");

    /* pcaps/pq-hrr-lacks-predicted.pcap: the client predicts X25519MLKEM768
     * only, the OpenSSL 3.0 server asks for x25519 (frames 6, 8). */
    new_connection();
    expect(judge_hex(TLSNEG_WIRE_TLS, pq_predicts_mlkem_hex, 0x0301), "",
           "ClientHello predicting X25519MLKEM768 only");
    expect(judge_hex(TLSNEG_WIRE_TLS, hrr_to_x25519_hex, 0x0303), "hrr_lacks_predicted",
           "HelloRetryRequest for x25519 after an X25519MLKEM768 prediction: lacks the predicted "
           "group, not moves to post-quantum");
    /* pcaps/pq-hrr-moves-to-pq.pcap: the client shares x25519 and lists
     * X25519MLKEM768; the OpenSSL 3.5 server asks for it (frames 4, 6). */
    new_connection();
    expect(judge_hex(TLSNEG_WIRE_TLS, pq_predicts_x25519_hex, 0x0301), "",
           "ClientHello predicting x25519, listing X25519MLKEM768");
    expect(judge_hex(TLSNEG_WIRE_TLS, hrr_to_mlkem_hex, 0x0303), "hrr_moves_to_pq",
           "HelloRetryRequest for X25519MLKEM768 after an x25519-only prediction: moves the "
           "client to post-quantum");
    /* The same HelloRetryRequest without the ClientHello: nothing to explain. */
    new_connection();
    expect(judge_hex(TLSNEG_WIRE_TLS, hrr_to_mlkem_hex, 0x0303), "",
           "HelloRetryRequest without its ClientHello: no note");

    new_connection();
    static const uint16_t two[] = {0x001d, 0x0017}, two_len[] = {32, 65};
    m = kx_client_hello(x25519, 1, two, two_len, 2);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "key_share_not_offered",
           "a secp256r1 share although supported_groups lists only x25519");
    static const uint16_t dup[] = {0x001d, 0x001d}, dup_len[] = {32, 32};
    m = kx_client_hello(two, 2, dup, dup_len, 2);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "key_share_duplicate", "two x25519 shares");
    static const uint16_t short_len[] = {1215, 32};
    m = kx_client_hello(pq, 3, pq, short_len, 2);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "key_share_length_wrong",
           "an X25519MLKEM768 client share of 1,215 bytes (1,216 belong)");

    new_connection();
    m = kx_client_hello(two, 2, x25519, x_len, 1);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "", "x25519 and secp256r1, x25519 shared");
    m = kx_server_hello(true, 0x001d, 0);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "hrr_group_already_shared",
           "a HelloRetryRequest asking for x25519, already shared");
    m = kx_server_hello(true, 0x0018, 0);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "hrr_group_not_offered",
           "a HelloRetryRequest asking for secp384r1, not listed");
    m = kx_server_hello(false, 0x0018, 97);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "server_group_not_offered",
           "a ServerHello sharing secp384r1, not listed");
    m = kx_server_hello(false, 0x0017, 65);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "server_group_no_client_share",
           "a ServerHello sharing secp256r1, listed but not shared by the client");
    m = kx_server_hello(false, 0x001d, 32);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "", "a ServerHello sharing x25519");

    /* The prediction is the real shares: a GREASE share (Chromium sends one
     * first) predicts nothing, and a client that sent only GREASE predicted
     * no group, so no note explains its HelloRetryRequest. */
    static const uint16_t grease_pq[] = {0xdada, 0x11ec, 0x001d, 0x0017},
                          grease_pq_len[] = {1, 1216, 32};
    new_connection();
    m = kx_client_hello(grease_pq, 4, grease_pq, grease_pq_len, 3);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "", "GREASE, X25519MLKEM768, x25519 shares");
    m = kx_server_hello(true, 0x0017, 0);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "hrr_lacks_predicted",
           "a HelloRetryRequest for secp256r1 after GREASE, X25519MLKEM768, x25519 shares");
    ok(strstr(last_detail, "the 2 groups the client predicted with key shares, X25519MLKEM768") &&
           !strstr(last_detail, "GREASE"),
       "the predicted groups are the 2 real shares, X25519MLKEM768 first: %s", last_detail);
    new_connection();
    m = kx_client_hello(grease_pq, 4, grease_pq, grease_pq_len, 1);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "", "a GREASE share only");
    m = kx_server_hello(true, 0x0017, 0);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "",
           "a HelloRetryRequest for secp256r1 after a GREASE share only: nothing was predicted");
    m = kx_server_hello(true, 0x11ec, 0);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "",
           "a HelloRetryRequest for X25519MLKEM768 after a GREASE share only: not a move from "
           "classical groups");
    new_connection();
    m = kx_client_hello(two, 2, x25519, x_len, 1);
    judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301);
    m = kx_server_hello(true, 0x0017, 0);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "hrr_lacks_predicted",
           "a HelloRetryRequest for secp256r1 after an x25519 share");
    ok(strstr(last_detail, "the group the client predicted with a key share, x25519 (0x001d"),
       "one real share is the predicted group: %s", last_detail);

    new_connection();
    m = kx_client_hello(pq, 3, pq, pq_len, 2);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "", "X25519MLKEM768 of 1,216 bytes");
    m = kx_server_hello(false, 0x11ec, 1120);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "",
           "a ServerHello's X25519MLKEM768 share of 1,120 bytes");
    m = kx_server_hello(false, 0x11ec, 1216);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "key_share_length_wrong",
           "a ServerHello's X25519MLKEM768 share of 1,216 bytes (the client's size)");
}

/* Sentences that name only what the bytes show: the key shares. */
static void sentences_say_what_is_known_of_shares(void)
{
    /* Three shares for one group are not "two"; two shares for x25519
     * predict one group. */
    static const uint16_t two[] = {0x001d, 0x0017}, three[] = {0x001d, 0x001d, 0x001d},
                          three_len[] = {32, 32, 32};
    new_connection();
    bytes m = kx_client_hello(two, 2, three, three_len, 3);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "key_share_duplicate", "three x25519 shares");
    ok(strstr(last_detail, "more than one key share for x25519") != NULL,
       "three shares for a group: more than one: %s", last_detail);
    m = kx_server_hello(true, 0x0017, 0);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "hrr_lacks_predicted",
           "a HelloRetryRequest for secp256r1 after three x25519 shares");
    ok(strstr(last_detail, "the group the client predicted with a key share, x25519") != NULL,
       "three x25519 shares predict one group: %s", last_detail);

    /* A share for a group of no known class (0xfe31, an early hybrid) is
     * not a classical prediction: no "moves to post-quantum". */
    static const uint16_t odd[] = {0xfe31, 0x11ec}, odd_share[] = {0xfe31}, odd_len[] = {1000};
    new_connection();
    m = kx_client_hello(odd, 2, odd_share, odd_len, 1);
    (void)judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301);
    m = kx_server_hello(true, 0x11ec, 0);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "hrr_lacks_predicted",
           "a HelloRetryRequest for X25519MLKEM768 after a share of unknown class");
}

/* A list that does not read to its end is not the whole list: nothing is
 * said of what it lacks. */
static void cut_lists(void)
{
    static const uint16_t v13[] = {TLSNEG_V_TLS13};
    static const uint8_t groups_overrun[] = {0x00, 0x06, 0x00, 0x1d}; /* says 6, holds 2 */
    /* x25519 whole, then secp256r1 with a 65-byte key of which 10 are there */
    uint8_t shares_cut[2 + 4 + 32 + 4 + 10] = {0, sizeof shares_cut - 2, 0x00, 0x1d, 0, 32};
    memcpy(shares_cut + 38, (const uint8_t[]){0x00, 0x17, 0x00, 65}, 4);
    bytes exts = {.n = 0};
    ext_versions(&exts, v13, 1);
    ext(&exts, TLSNEG_EXT_SUPPORTED_GROUPS, groups_overrun, sizeof groups_overrun);
    ext(&exts, TLSNEG_EXT_KEY_SHARE, key_share_x25519, sizeof key_share_x25519);
    ext(&exts, TLSNEG_EXT_SIGNATURE_ALGORITHMS, sig_algs, sizeof sig_algs);
    bytes m = client_hello(0x0303, tls13_suite, 1, &exts);
    new_connection();
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "",
           "supported_groups whose length overruns: no key_share_not_offered for x25519");
    exts.n = 0;
    ext_versions(&exts, v13, 1);
    ext(&exts, TLSNEG_EXT_SUPPORTED_GROUPS, (const uint8_t[]){0x00, 0x04, 0x00, 0x1d, 0x00, 0x17},
        6);
    ext(&exts, TLSNEG_EXT_KEY_SHARE, shares_cut, sizeof shares_cut);
    ext(&exts, TLSNEG_EXT_SIGNATURE_ALGORITHMS, sig_algs, sizeof sig_algs);
    m = client_hello(0x0303, tls13_suite, 1, &exts);
    new_connection();
    (void)judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301);
    ok(client_facts.key_shares_cut && client_facts.num_key_shares == 1,
       "a key share cut short: the list is marked cut, the whole share before it kept");
    m = kx_server_hello(false, 0x0017, 65);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "",
           "a ServerHello sharing secp256r1, whose client share was cut short: no "
           "server_group_no_client_share");
}

int main(void)
{
    key_exchange_rules();
    sentences_say_what_is_known_of_shares();
    cut_lists();
    return tap_done();
}
