/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_checks.c: every rule of rules.def on bytes, but the key-exchange ones
 * (test_checks_kx.c). Real hellos (vectors.h) where a real stack shows the
 * case; otherwise hellos built field by field (checks_fixture.h), so that each
 * test changes one thing and names what it breaks. */
#include "analysis/verdict.h"
#include "checks_fixture.h"
#include "vectors.h"

/* ---- real hellos --------------------------------------------------------- */

static void real_hellos(void)
{
    new_connection();
    expect(judge_hex(TLSNEG_WIRE_TLS, openssl_client_hello_hex, 0x0301), "",
           "OpenSSL TLS 1.3 ClientHello in a 0x0301 record breaks nothing");
    expect(judge_hex(TLSNEG_WIRE_TLS, rfc8446_server_hello_hex, 0x0303), "",
           "TLS 1.3 ServerHello in a 0x0303 record after it breaks nothing");

    new_connection();
    expect(judge_hex(TLSNEG_WIRE_TLS, tls11_client_hello_hex, 0x0301), "deprecated_version",
           "TLS 1.1 ClientHello: TLS 1.1 is the highest offer");
    expect(judge_hex(TLSNEG_WIRE_TLS, tls11_server_hello_hex, 0x0302), "deprecated_version",
           "TLS 1.1 ServerHello in a 0x0302 record: TLS 1.1 in force");
    expect(judge_hex(TLSNEG_WIRE_TLS, tls11_server_hello_hex, 0x0301),
           "record_version_unusual deprecated_version",
           "TLS 1.1 ServerHello in a 0x0301 record: the record must say the version in force");

    new_connection();
    expect(judge_hex(TLSNEG_WIRE_TLS, chrome55_client_hello_hex, 0x0301), "draft_version",
           "Chrome 55 (draft-14, GREASE): only the draft note");
    expect(judge_hex(TLSNEG_WIRE_TLS, draft20_server_hello_hex, 0x0301), "draft_version",
           "draft-20 ServerHello with 0x7f14 in legacy_version: not too high, a draft");

    new_connection();
    expect(judge_hex(TLSNEG_WIRE_SSL2, sslv2_client_hello_hex, 0x0002),
           "fallback_scsv deprecated_version", "SSLv2-compatible ClientHello with SCSV");
    expect(judge_hex(TLSNEG_WIRE_QUIC, quic_client_hello_hex, 0), "", "quic-go ClientHello");
    /* RFC 6176: SSL 2.0 is forbidden; its SERVER-HELLO puts it in force. */
    new_connection();
    expect(judge_hex(TLSNEG_WIRE_SSL2, sslv2_ssl20_client_hello_hex, 0x0002), "deprecated_version",
           "SSL 2.0 CLIENT-HELLO");
    expect(judge_hex(TLSNEG_WIRE_SSL2, sslv2_server_hello_hex, 0x0002), "deprecated_version",
           "SSL 2.0 SERVER-HELLO: SSL 2.0 in force");
    expect(judge_hex(TLSNEG_WIRE_SSL2, sslv2_client_master_key_hex, 0x0002), "",
           "SSL 2.0 CLIENT-MASTER-KEY: nothing to judge");
    new_connection();
    expect(judge_hex(TLSNEG_WIRE_DTLS, dtls12_client_hello_hex, 0xfeff), "",
           "DTLS 1.2 ClientHello in a DTLS 1.0 record");
    expect(judge_hex(TLSNEG_WIRE_DTLS, dtls12_client_hello_hex, 0xfefc), "record_version_unusual",
           "DTLS ClientHello in a 0xfefc record");
    expect(judge_hex(TLSNEG_WIRE_DTLS, dtls12_hello_verify_request_hex, 0xfeff), "",
           "HelloVerifyRequest is not judged for its 0xfeff version");

    new_connection();
    expect(judge_hex(TLSNEG_WIRE_TLS, openssl_client_hello_hex, 0x0301), "", "first ClientHello");
    expect(judge_hex(TLSNEG_WIRE_TLS, hrr_hex, 0x0303), "hrr_lacks_predicted",
           "OpenSSL HelloRetryRequest (asks for secp256r1, the client shared x25519)");
    expect(judge_hex(TLSNEG_WIRE_TLS, openssl_client_hello_hex, 0x0303), "",
           "second ClientHello in a 0x0303 record");
    expect(judge_hex(TLSNEG_WIRE_TLS, openssl_client_hello_hex, 0x0301), "record_version_unusual",
           "a ClientHello after a HelloRetryRequest in a 0x0301 record");
}

/* ---- built hellos, one rule at a time ------------------------------------ */

static void legacy_version_rules(void)
{
    bytes exts = {.n = 0};
    ext_versions(&exts, v13_12, 2);
    ext_tls13_basics(&exts);
    bytes m = client_hello(0x0301, tls13_suite, 1, &exts);
    new_connection();
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "legacy_version_mismatch",
           "ClientHello offering TLS 1.3 with legacy_version 0x0301");
    m = client_hello(0x0304, tls13_suite, 1, &exts);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301),
           "legacy_version_mismatch legacy_version_too_high",
           "ClientHello offering TLS 1.3 with legacy_version 0x0304");

    bytes no_versions = {.n = 0};
    ext_tls13_basics(&no_versions);
    m = client_hello(0x0304, tls13_suite, 1, &no_versions);
    new_connection();
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301),
           "legacy_version_too_high missing_supported_versions",
           "TLS 1.3 in legacy_version, key_share, no supported_versions");

    new_connection();
    m = client_hello(0x0303, tls12_suite, 1, &(bytes){.n = 0});
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "", "plain TLS 1.2 ClientHello");
    m = server_hello(0x0304, 0x1301, NULL, &(bytes){.n = 0});
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303),
           "legacy_version_too_high missing_extension version_not_offered",
           "ServerHello putting 0x0304 in force through legacy_version after a TLS 1.2 offer");

    new_connection();
    m = client_hello(0x0303, tls13_suite, 1, &exts);
    (void)judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301);
    m = server_selects(0x0301, TLSNEG_V_TLS13, NULL);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "legacy_version_mismatch",
           "ServerHello selecting TLS 1.3 with legacy_version 0x0301");
}

static void record_version_rules(void)
{
    bytes exts = {.n = 0};
    ext_versions(&exts, v13_12, 2);
    ext_tls13_basics(&exts);
    bytes m = client_hello(0x0303, tls13_suite, 1, &exts);
    new_connection();
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0300), "", "ClientHello in an SSL 3.0 record");
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0304), "record_version_unusual",
           "ClientHello in a 0x0304 record");
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0200), "record_version_unusual",
           "ClientHello in a 0x0200 record");
    m = server_selects(0x0303, TLSNEG_V_TLS13, NULL);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0304), "record_version_unusual",
           "TLS 1.3 ServerHello in a 0x0304 record");
}

static void missing_extension_rules(void)
{
    bytes exts = {.n = 0};
    ext_versions(&exts, v13_12, 2);
    ext(&exts, TLSNEG_EXT_KEY_SHARE, key_share_x25519, sizeof key_share_x25519);
    bytes m = client_hello(0x0303, tls13_suite, 1, &exts);
    new_connection();
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "missing_extension",
           "key_share without supported_groups nor signature_algorithms: one finding");

    exts.n = 0;
    ext_versions(&exts, v13_12, 2);
    ext_tls13_basics(&exts);
    ext(&exts, TLSNEG_EXT_PRE_SHARED_KEY, psk, sizeof psk);
    ext(&exts, TLSNEG_EXT_PSK_KEY_EXCHANGE_MODES, psk_modes, sizeof psk_modes);
    m = client_hello(0x0303, tls13_suite, 1, &exts);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "missing_extension",
           "pre_shared_key not last");

    exts.n = 0;
    ext_versions(&exts, v13_12, 2);
    ext_tls13_basics(&exts);
    ext(&exts, TLSNEG_EXT_PRE_SHARED_KEY, psk, sizeof psk);
    m = client_hello(0x0303, tls13_suite, 1, &exts);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "missing_extension",
           "pre_shared_key without psk_key_exchange_modes");

    /* A HelloRetryRequest is a ServerHello with the SHA-256 of
     * "HelloRetryRequest" as its random: take OpenSSL's and drop its
     * extensions. */
    size_t n;
    uint8_t *hrr = unhex(hrr_hex, &n);
    bytes hrr_body = {.n = 0};
    memcpy(hrr_body.b, hrr + 4, 2 + 32 + 1 + 32 + 2 + 1); /* up to the extensions */
    hrr_body.n = 70;
    put16(&hrr_body, 0);
    bytes bare_hrr = message(TLSNEG_HS_SERVER_HELLO, &hrr_body);
    free(hrr);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &bare_hrr, 0x0303), "missing_extension",
           "HelloRetryRequest without supported_versions");

    bytes quic_exts = {.n = 0};
    ext_tls13_basics(&quic_exts);
    m = client_hello(0x0303, tls13_suite, 1, &quic_exts);
    new_connection();
    expect(judge_bytes(TLSNEG_WIRE_QUIC, &m, 0),
           "missing_supported_versions missing_extension quic_version_rule",
           "QUIC ClientHello offering TLS 1.2 only, without transport parameters");
}

static void supported_versions_rules(void)
{
    /* Encoding faults (RFC 8446 4.2.1: versions<2..254>, the list filling
     * the extension) are malformed; a repeat or a list of GREASE only is
     * well-formed and judged by its own rule; a broken list by none of
     * those. */
    static const struct {
        uint8_t body[12];
        size_t len;
        const char *want, *what;
    } cases[] = {
        {{3, 0x03, 0x04, 0x03}, 4, "supported_versions_malformed", "odd list length"},
        {{0}, 1, "supported_versions_malformed", "empty list"},
        {{4, 0x03, 0x04}, 3, "supported_versions_malformed", "list longer than the extension"},
        {{2, 0x03, 0x04, 0x00}, 4, "supported_versions_malformed", "a byte after the list"},
        {{5, 0x03, 0x04, 0x03, 0x04, 0x03},
         6,
         "supported_versions_malformed",
         "0x0304 twice in a list of odd length: only malformed"},
        {{4, 0x03, 0x04, 0x03, 0x04}, 5, "supported_versions_duplicate", "0x0304 twice"},
        {{10, 0x03, 0x04, 0x03, 0x03, 0x03, 0x04, 0x03, 0x03, 0x03, 0x03},
         11,
         "supported_versions_duplicate",
         "0x0304 twice, 0x0303 three times"},
        {{2, 0x7a, 0x7a}, 3, "supported_versions_only_grease", "only GREASE"},
        {{4, 0x7a, 0x7a, 0x7a, 0x7a},
         5,
         "supported_versions_only_grease",
         "0x7a7a twice, only: a GREASE value is no version listed twice"},
        {{4, 0x7a, 0x7a, 0x03, 0x04}, 5, "", "GREASE and TLS 1.3"},
    };
    static const char *const details[] = {
        [5] = "supported_versions lists TLS 1.3 (0x0304) 2 times: allowed, but one entry is "
              "enough",
        [6] = "supported_versions lists TLS 1.3 (0x0304) 2 times; TLS 1.2 (0x0303) 3 times: "
              "allowed, but one entry is enough",
        [7] = "supported_versions lists only GREASE (0x7a7a), no version: a server that "
              "implements TLS 1.3 (0x0304) must refuse the hello with protocol_version (70)",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bytes exts = {.n = 0};
        ext(&exts, TLSNEG_EXT_SUPPORTED_VERSIONS, cases[i].body, cases[i].len);
        ext_tls13_basics(&exts);
        bytes m = client_hello(0x0303, tls13_suite, 1, &exts);
        new_connection();
        expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), cases[i].want, cases[i].what);
        if (i < sizeof details / sizeof details[0] && details[i]) {
            ok(strcmp(last_detail, details[i]) == 0, "%s: %s", cases[i].what, last_detail);
        }
        if (i == 5) {
            /* A repeat still offers its versions, with all TLS 1.3 needs:
             * no other finding. */
            ok(client_facts.has_offered_max && client_facts.offered_max == TLSNEG_V_TLS13 &&
                   client_facts.num_offered == 2,
               "0x0304 twice: TLS 1.3 offered, both entries kept");
        }
    }
    bytes exts = {.n = 0};
    static const uint8_t three[] = {0x03, 0x04, 0x00};
    ext(&exts, TLSNEG_EXT_SUPPORTED_VERSIONS, three, sizeof three);
    bytes m = server_hello(0x0303, 0x1301, NULL, &exts);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "supported_versions_malformed",
           "ServerHello supported_versions of 3 bytes");
}

static void server_selection_rules(void)
{
    static const uint16_t only12[] = {TLSNEG_V_TLS12};
    bytes exts = {.n = 0};
    ext_versions(&exts, only12, 1);
    ext_tls13_basics(&exts);
    bytes ch12 = client_hello(0x0303, tls12_suite, 1, &exts);
    exts.n = 0;
    ext_versions(&exts, v13_12, 2);
    ext_tls13_basics(&exts);
    bytes ch13 = client_hello(0x0303, tls13_suite, 1, &exts);

    new_connection();
    (void)judge_bytes(TLSNEG_WIRE_TLS, &ch12, 0x0301);
    bytes m = server_selects(0x0303, TLSNEG_V_TLS13, NULL);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "version_not_offered",
           "ServerHello selecting TLS 1.3 after an offer of TLS 1.2 only");

    new_connection();
    (void)judge_bytes(TLSNEG_WIRE_TLS, &ch13, 0x0301);
    m = server_selects(0x0303, TLSNEG_V_TLS12, NULL);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "old_version_via_extension",
           "ServerHello selecting TLS 1.2 through supported_versions");
    m = server_selects(0x0303, 0x7a7a, NULL);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "version_not_offered grease_selected",
           "ServerHello selecting GREASE 0x7a7a");
    m = server_hello(0x0303, 0x0a0a, NULL, &(bytes){.n = 0});
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0303), "grease_selected",
           "TLS 1.2 ServerHello with the GREASE cipher suite 0x0a0a");
}

static void downgrade_sentinel_rules(void)
{
    bytes exts = {.n = 0};
    ext_versions(&exts, v13_12, 2);
    ext_tls13_basics(&exts);
    bytes ch13 = client_hello(0x0303, tls13_suite, 1, &exts);
    bytes ch12 = client_hello(0x0303, tls12_suite, 1, &(bytes){.n = 0});
    bytes sh12 = server_hello(0x0303, 0xc02f, downgrd1, &(bytes){.n = 0});

    new_connection();
    (void)judge_bytes(TLSNEG_WIRE_TLS, &ch13, 0x0301);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &sh12, 0x0303), "downgrade_sentinel",
           "DOWNGRD\\x01 after a TLS 1.3 offer");
    bytes sh13 = server_selects(0x0303, TLSNEG_V_TLS13, downgrd1);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &sh13, 0x0303), "downgrade_sentinel_tls13",
           "DOWNGRD\\x01 with TLS 1.3 in force");

    new_connection();
    (void)judge_bytes(TLSNEG_WIRE_TLS, &ch12, 0x0301);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &sh12, 0x0303), "downgrade_sentinel_no_higher_offer",
           "DOWNGRD\\x01 after a TLS 1.2 offer");
    new_connection();
    expect(judge_bytes(TLSNEG_WIRE_TLS, &sh12, 0x0303), "downgrade_sentinel_no_higher_offer",
           "DOWNGRD\\x01 with no ClientHello in sight");

    /* DOWNGRD\x00 proves TLS 1.2, not TLS 1.3 (RFC 8446 4.1.3: TLS 1.2
     * servers SHOULD send it too). */
    bytes sh11 = server_hello(0x0302, 0xc013, downgrd0, &(bytes){.n = 0});
    bytes ch11 = client_hello(0x0302, tls12_suite, 1, &(bytes){.n = 0});
    new_connection();
    (void)judge_bytes(TLSNEG_WIRE_TLS, &ch12, 0x0301);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &sh11, 0x0302), "downgrade_sentinel deprecated_version",
           "DOWNGRD\\x00 and TLS 1.1 after a TLS 1.2 offer: a downgrade");
    new_connection();
    (void)judge_bytes(TLSNEG_WIRE_TLS, &ch13, 0x0301);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &sh11, 0x0302), "downgrade_sentinel deprecated_version",
           "DOWNGRD\\x00 and TLS 1.1 after a TLS 1.3 offer: a downgrade");
    new_connection();
    (void)judge_bytes(TLSNEG_WIRE_TLS, &ch11, 0x0301);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &sh11, 0x0302),
           "downgrade_sentinel_no_higher_offer deprecated_version",
           "DOWNGRD\\x00 after a TLS 1.1 offer: the server can do at least TLS 1.2");

    /* A sentinel with the version it stands for in force is no downgrade:
     * DOWNGRD\x00 belongs below TLS 1.2 (RFC 8446 4.1.3). */
    bytes sh12_s0 = server_hello(0x0303, 0xc02f, downgrd0, &(bytes){.n = 0});
    new_connection();
    (void)judge_bytes(TLSNEG_WIRE_TLS, &ch13, 0x0301);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &sh12_s0, 0x0303), "downgrade_sentinel_not_lower",
           "DOWNGRD\\x00 with TLS 1.2 in force after a TLS 1.3 offer: a wrong sentinel, no "
           "downgrade");
    /* No higher offer: the sentence names what the client did offer. */
    new_connection();
    (void)judge_bytes(TLSNEG_WIRE_TLS, &ch11, 0x0301);
    (void)judge_bytes(TLSNEG_WIRE_TLS, &sh11, 0x0302);
    ok(strstr(last_detail, "the client offered only up to TLS 1.1 (0x0302)") != NULL,
       "DOWNGRD\\x00 after a TLS 1.1 offer names the offer: %s", last_detail);

    /* The summary says what the sentinel proves, no more. */
    tlsneg_hello h;
    tlsneg_facts f;
    tlsneg_facts_buf buf;
    char text[512];
    (void)tlsneg_hello_parse(&h, TLSNEG_WIRE_TLS, sh11.b, sh11.n);
    tlsneg_facts_derive(&f, &buf, &h, true, 0x0302);
    tlsneg_facts_summary(&f, text, sizeof text);
    ok(strstr(text, "supports at least TLS 1.2") && !strstr(text, "TLS 1.3"),
       "DOWNGRD\\x00 summary: at least TLS 1.2, no word of TLS 1.3: %s", text);
    ok(tlsneg_sentinel_proves(&f) == TLSNEG_V_TLS12, "DOWNGRD\\x00 proves TLS 1.2");
    (void)tlsneg_hello_parse(&h, TLSNEG_WIRE_TLS, sh12.b, sh12.n);
    tlsneg_facts_derive(&f, &buf, &h, true, 0x0303);
    ok(tlsneg_sentinel_proves(&f) == TLSNEG_V_TLS13, "DOWNGRD\\x01 proves TLS 1.3");
}

/* RFC 7507 3: a server that supports more than the SCSV hello offers must
 * refuse it; the ServerHello's own sentinel is the proof. */
static void ignored_fallback_scsv_rules(void)
{
    static const uint16_t scsv12[] = {0xc02f, TLSNEG_CS_FALLBACK_SCSV};
    bytes ch12_scsv = client_hello(0x0303, scsv12, 2, &(bytes){.n = 0});
    bytes ch11_scsv = client_hello(0x0302, scsv12, 2, &(bytes){.n = 0});
    bytes sh12_s1 = server_hello(0x0303, 0xc02f, downgrd1, &(bytes){.n = 0});
    bytes sh12_plain = server_hello(0x0303, 0xc02f, NULL, &(bytes){.n = 0});
    bytes sh11_s0 = server_hello(0x0302, 0xc02f, downgrd0, &(bytes){.n = 0});
    bytes sh11_s1 = server_hello(0x0302, 0xc02f, downgrd1, &(bytes){.n = 0});

    new_connection();
    (void)judge_bytes(TLSNEG_WIRE_TLS, &ch12_scsv, 0x0301);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &sh12_s1, 0x0303),
           "ignored_fallback_scsv downgrade_sentinel_no_higher_offer",
           "Java 17: TLS 1.2 with DOWNGRD\\x01 to a TLS 1.2 hello with the SCSV");
    new_connection();
    (void)judge_bytes(TLSNEG_WIRE_TLS, &ch12_scsv, 0x0301);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &sh12_plain, 0x0303), "",
           "TLS 1.2 without a sentinel to the same hello: nothing proves more");
    new_connection();
    (void)judge_bytes(TLSNEG_WIRE_TLS, &ch11_scsv, 0x0301);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &sh11_s0, 0x0302),
           "ignored_fallback_scsv downgrade_sentinel_no_higher_offer deprecated_version",
           "TLS 1.1 with DOWNGRD\\x00 to a TLS 1.1 hello with the SCSV");
    new_connection();
    (void)judge_bytes(TLSNEG_WIRE_TLS, &ch11_scsv, 0x0301);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &sh11_s1, 0x0302),
           "ignored_fallback_scsv downgrade_sentinel_no_higher_offer deprecated_version",
           "TLS 1.1 with DOWNGRD\\x01 to a TLS 1.1 hello with the SCSV");
    bytes ch12 = client_hello(0x0303, tls12_suite, 1, &(bytes){.n = 0});
    new_connection();
    (void)judge_bytes(TLSNEG_WIRE_TLS, &ch12, 0x0301);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &sh12_s1, 0x0303), "downgrade_sentinel_no_higher_offer",
           "the same ServerHello without the SCSV: no ignored SCSV");
}

static void fallback_and_alert_rules(void)
{
    static const uint16_t scsv_suites[] = {0x1301, 0xc02f, TLSNEG_CS_FALLBACK_SCSV};
    bytes exts = {.n = 0};
    ext_versions(&exts, v13_12, 2);
    ext_tls13_basics(&exts);
    bytes m = client_hello(0x0303, scsv_suites, 3, &exts);
    new_connection();
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "fallback_scsv_highest",
           "TLS_FALLBACK_SCSV in a hello offering TLS 1.3");
    m = client_hello(0x0302, scsv_suites + 1, 2, &(bytes){.n = 0});
    new_connection();
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "fallback_scsv deprecated_version",
           "TLS_FALLBACK_SCSV in a TLS 1.1 retry");
    expect(judge_alert(86), "inappropriate_fallback", "alert 86");
    expect(judge_alert(70), "protocol_version_alert", "alert 70");
    expect(judge_alert(40), "", "alert 40 is no negotiation rule");
}

static void malformed_rules(void)
{
    bytes exts = {.n = 0};
    ext_versions(&exts, v13_12, 2);
    ext_tls13_basics(&exts);
    ext(&exts, TLSNEG_EXT_SUPPORTED_GROUPS, groups_x25519, sizeof groups_x25519);
    bytes m = client_hello(0x0303, tls13_suite, 1, &exts);
    new_connection();
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "duplicate_extension",
           "supported_groups twice");

    exts.n = 0;
    ext_versions(&exts, v13_12, 2);
    ext_tls13_basics(&exts);
    m = client_hello(0x0303, tls13_suite, 1, &exts);
    m.n -= 3; /* the bytes end inside signature_algorithms */
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "malformed", "a truncated ClientHello");
}

static void dtls_rules(void)
{
    static const uint16_t dtls13[] = {TLSNEG_V_DTLS13, TLSNEG_V_DTLS12};
    bytes exts = {.n = 0};
    ext_versions(&exts, dtls13, 2);
    ext_tls13_basics(&exts);
    bytes tls = client_hello(0xfefc, tls13_suite, 1, &exts);
    /* The same body behind a 12-byte DTLS header, cookie added. */
    bytes body = {.n = 0};
    memcpy(body.b, tls.b + 4, 2 + 32 + 1);
    body.n = 35;
    put8(&body, 0); /* empty cookie */
    memcpy(body.b + body.n, tls.b + 4 + 35, tls.n - 4 - 35);
    body.n += tls.n - 4 - 35;
    bytes m = {.n = 0};
    put8(&m, TLSNEG_HS_CLIENT_HELLO);
    put8(&m, 0);
    put16(&m, (unsigned)body.n);
    put16(&m, 0); /* message_seq */
    put8(&m, 0);  /* fragment_offset */
    put16(&m, 0);
    put8(&m, 0); /* fragment_length */
    put16(&m, (unsigned)body.n);
    put_bytes(&m, &body);
    new_connection();
    expect(judge_bytes(TLSNEG_WIRE_DTLS, &m, 0xfefd),
           "legacy_version_mismatch legacy_version_too_high",
           "DTLS 1.3 offer with 0xfefc in legacy_version: the DTLS form of both rules");
}

/* A scanner lists every suite it knows: TLS 1.3 suites alone break no
 * rule; an extension only TLS 1.3 uses without supported_versions is a
 * note. */
static void missing_supported_versions_rules(void)
{
    static const uint16_t all_suites[] = {0x1301, 0x1302, 0x1303, 0xc02f, 0x009c};
    bytes m = client_hello(0x0303, all_suites, 5, &(bytes){.n = 0});
    new_connection();
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "",
           "TLS 1.2 ClientHello listing TLS 1.3 cipher suites, no TLS 1.3 extension");
    bytes exts = {.n = 0};
    ext(&exts, TLSNEG_EXT_PSK_KEY_EXCHANGE_MODES, psk_modes, sizeof psk_modes);
    m = client_hello(0x0303, all_suites, 5, &exts);
    new_connection();
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "missing_supported_versions",
           "psk_key_exchange_modes without supported_versions");
    ok(tlsneg_rules[TLSNEG_RULE_MISSING_SUPPORTED_VERSIONS].severity == TLSNEG_SEVERITY_NOTE,
       "missing_supported_versions is a note: no rule forbids the hello");
}

/* NSS's DTLS client offers DTLS 1.3 draft-43 as 0x7f2b (0x7f00 | draft). */
static void dtls_draft_rules(void)
{
    static const uint16_t nss[] = {0x7f2b, TLSNEG_V_DTLS12};
    bytes exts = {.n = 0};
    ext_versions(&exts, nss, 2);
    ext_tls13_basics(&exts);
    bytes tls = client_hello(0xfefd, tls13_suite, 1, &exts);
    bytes m = {.n = 0};
    put8(&m, TLSNEG_HS_CLIENT_HELLO);
    put8(&m, 0);
    put16(&m, (unsigned)(tls.n - 4 + 1));
    put16(&m, 0);
    put8(&m, 0);
    put16(&m, 0);
    put8(&m, 0);
    put16(&m, (unsigned)(tls.n - 4 + 1));
    memcpy(m.b + m.n, tls.b + 4, 35);
    m.n += 35;
    put8(&m, 0); /* empty cookie */
    memcpy(m.b + m.n, tls.b + 4 + 35, tls.n - 4 - 35);
    m.n += tls.n - 4 - 35;
    new_connection();
    expect(judge_bytes(TLSNEG_WIRE_DTLS, &m, 0xfeff), "draft_version",
           "NSS DTLS ClientHello offering 0x7f2b: a DTLS 1.3 draft");
    ok(client_facts.has_offered_max && client_facts.offered_max == 0x7f2b,
       "the highest DTLS offer is the draft 0x7f2b, above DTLS 1.2");
    char text[512];
    tlsneg_facts_summary(&client_facts, text, sizeof text);
    ok(strstr(text, "DTLS 1.3 draft-43, DTLS 1.2") &&
           strstr(text, "Highest offered: DTLS 1.3 draft-43") && !strstr(text, " TLS 1.3 draft"),
       "the summary names the draft within DTLS: %s", text);
}

/* Sentences that name only what the bytes show. */
static void sentences_say_what_is_known(void)
{
    char text[512];
    /* Go capped at TLS 1.1: legacy_version 0x0302 and [0x0302, 0x0301]; its
     * legacy_version is its maximum, not a value out of place. */
    static const uint16_t v11_10[] = {TLSNEG_V_TLS11, TLSNEG_V_TLS10};
    bytes exts = {.n = 0};
    ext_versions(&exts, v11_10, 2);
    bytes ch11 = client_hello(0x0302, tls12_suite, 1, &exts);
    new_connection();
    (void)judge_bytes(TLSNEG_WIRE_TLS, &ch11, 0x0301);
    tlsneg_facts_summary(&client_facts, text, sizeof text);
    ok(strstr(text, "legacy_version says TLS 1.1 too") && !strstr(text, "belongs"),
       "legacy 0x0302 with [0x0302, 0x0301]: nothing out of place: %s", text);

    /* RFC 8446 D: a TLS 1.2 ServerHello's record SHOULD carry TLS 1.2; 5.1:
     * TLS 1.3's MUST carry 0x0303. */
    bytes ch12 = client_hello(0x0303, tls12_suite, 1, &(bytes){.n = 0});
    bytes sh12 = server_hello(0x0303, 0xc02f, NULL, &(bytes){.n = 0});
    new_connection();
    (void)judge_bytes(TLSNEG_WIRE_TLS, &ch12, 0x0301);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &sh12, 0x0301), "record_version_unusual",
           "a TLS 1.2 ServerHello in a 0x0301 record");
    ok(strstr(last_detail, "it should be TLS 1.2") != NULL, "TLS 1.2: should: %s", last_detail);
}

/* A supported_versions length byte that overruns: the versions after it
 * are read in step, and the problem is named as it is. */
static void supported_versions_overrun(void)
{
    static const uint8_t overrun[] = {0x08, 0x03, 0x04, 0x03, 0x03}; /* says 8, holds 4 */
    bytes exts = {.n = 0};
    ext(&exts, TLSNEG_EXT_SUPPORTED_VERSIONS, overrun, sizeof overrun);
    ext_tls13_basics(&exts);
    bytes m = client_hello(0x0303, tls13_suite, 1, &exts);
    new_connection();
    expect(judge_bytes(TLSNEG_WIRE_TLS, &m, 0x0301), "supported_versions_malformed",
           "a supported_versions length byte of 8 before 4 bytes");
    ok(client_facts.num_offered == 2 && client_facts.offered[0] == TLSNEG_V_TLS13 &&
           client_facts.offered[1] == TLSNEG_V_TLS12 &&
           strstr(last_detail, "counts more bytes than the extension holds") != NULL,
       "the versions after the length byte: TLS 1.3, TLS 1.2: %s", last_detail);
}

/* A ClientHello cut short before its extensions (a snaplen) may have sent
 * supported_versions: nothing is said of what it did not offer. */
static void cut_client_hello(void)
{
    bytes exts = {.n = 0};
    ext_versions(&exts, v13_12, 2);
    ext_tls13_basics(&exts);
    bytes ch = client_hello(0x0303, tls13_suite, 1, &exts);
    ch.n -= exts.n + 2; /* the bytes end before the extensions block */
    new_connection();
    (void)judge_bytes(TLSNEG_WIRE_TLS, &ch, 0x0301);
    ok(client_facts.status != TLSNEG_OK && !client_facts.has_supported_versions,
       "a ClientHello cut before its extensions: not whole, no supported_versions seen");
    bytes sh = server_selects(0x0303, TLSNEG_V_TLS13, NULL);
    expect(judge_bytes(TLSNEG_WIRE_TLS, &sh, 0x0303), "",
           "TLS 1.3 selected after a ClientHello cut short: no version_not_offered");
}

static void every_rule_is_named(void)
{
    bool fine = true;
    for (size_t i = 0; i < TLSNEG_RULE_COUNT; i++) {
        const tlsneg_rule *r = &tlsneg_rules[i];
        size_t base = strlen(r->finding);
        fine &= r->text && r->rfc && strncmp(r->name, r->finding, base) == 0 &&
                (r->name[base] == '\0' || r->name[base] == '_');
        for (size_t k = 0; k < i; k++) {
            fine &= strcmp(tlsneg_rules[k].name, r->name) != 0;
        }
    }
    ok(fine, "every rule has a unique name, text and reference; variants are <finding>_<variant>");
    /* A variant's main row: the first row of its finding, named as it. */
    bool mains = true;
    for (size_t i = 0; i < TLSNEG_RULE_COUNT; i++) {
        size_t first = 0;
        while (strcmp(tlsneg_rules[first].finding, tlsneg_rules[i].finding) != 0) {
            first++;
        }
        tlsneg_rule_id m = tlsneg_rule_main((tlsneg_rule_id)i);
        mains &= m == first && strcmp(tlsneg_rules[m].name, tlsneg_rules[i].finding) == 0;
    }
    ok(mains, "tlsneg_rule_main: the first row of each rule's finding, named as the finding");
}

/* Expert texts fit Wireshark 4.0's label (ITEM_LABEL_LENGTH 240, less
 * "Expert Info (Warning/Malformed): "), cut where a clause ends. */
static void expert_texts(void)
{
    char buf[TLSNEG_EXPERT_TEXT_MAX + 1];
    ok(!tlsneg_rule_expert_text(TLSNEG_RULE_VERSION_NOT_OFFERED, false, "Short", buf, sizeof buf) &&
           strcmp(buf, "Short [RFC 8446 4.2.1]") == 0,
       "a short sentence: itself and its RFC (%s)", buf);
    const char *longer =
        "The ClientHello carries TLS_FALLBACK_SCSV and offers up to TLS 1.1 (0x0302); this "
        "ServerHello's DOWNGRD\\x00 proves the server supports at least TLS 1.2 (0x0303), yet it "
        "puts TLS 1.1 (0x0302) in force instead of refusing with inappropriate_fallback";
    ok(tlsneg_rule_expert_text(TLSNEG_RULE_IGNORED_FALLBACK_SCSV, false, longer, buf, sizeof buf) &&
           strcmp(buf, "The ClientHello carries TLS_FALLBACK_SCSV and offers up to TLS 1.1 "
                       "(0x0302) ... yet it puts TLS 1.1 (0x0302) in force instead of refusing "
                       "with inappropriate_fallback [RFC 7507 3]") == 0 &&
           strlen(buf) <= TLSNEG_EXPERT_TEXT_MAX,
       "a long one: its subject, its conclusion and its RFC (%s)", buf);
    char word[400];
    memset(word, 'x', sizeof word - 1);
    word[sizeof word - 1] = '\0';
    word[150] = ' ';
    ok(tlsneg_rule_expert_text(TLSNEG_RULE_MALFORMED, false, word, buf, sizeof buf) &&
           strlen(buf) <= TLSNEG_EXPERT_TEXT_MAX && strstr(buf, " ... [RFC 8446 4]"),
       "no clauses: the words that fit (%zu bytes)", strlen(buf));
    /* A DTLS message cites DTLS's RFC where it has the rule (RFC 9147 5.3:
     * legacy_version {254, 253}), RFC 8446 where DTLS takes it over. */
    ok(!tlsneg_rule_expert_text(TLSNEG_RULE_LEGACY_VERSION_MISMATCH, true, "Short", buf,
                                sizeof buf) &&
           strcmp(buf, "Short [RFC 9147 5.3, 5.4]") == 0,
       "DTLS: legacy_version's rule cites RFC 9147 (%s)", buf);
    ok(!tlsneg_rule_expert_text(TLSNEG_RULE_LEGACY_VERSION_MISMATCH, false, "Short", buf,
                                sizeof buf) &&
           strcmp(buf, "Short [RFC 8446 4.1.2, 4.1.3]") == 0,
       "TLS: the same rule cites RFC 8446 (%s)", buf);
    ok(strcmp(tlsneg_rule_rfc(TLSNEG_RULE_VERSION_NOT_OFFERED, true), "RFC 8446 4.2.1") == 0,
       "DTLS without a rule of its own: RFC 8446's");
}

/* alert_endings: which alerts end the handshake (RFC 5246 7.2, RFC 8446 6),
 * and the sentence of each. */
static void alert_endings(void)
{
    enum { W = TLSNEG_ALERT_WARNING, F = TLSNEG_ALERT_FATAL, N = TLSNEG_ALERT_NO_LEVEL };
    static const struct {
        uint8_t level, description;
        bool tls13, ends;
        const char *what;
    } cases[] = {
        {W, 112, false, false, "warning unrecognized_name before TLS 1.3 (OpenSSL, Apache)"},
        {F, 112, false, true, "fatal unrecognized_name (s_server -servername_fatal)"},
        {W, 112, true, true, "warning unrecognized_name once TLS 1.3 is chosen"},
        {F, 40, false, true, "fatal handshake_failure"},
        {W, 40, false, false, "warning handshake_failure before TLS 1.3: the sender goes on"},
        {N, 40, false, true, "handshake_failure without a level (QUIC)"},
        {W, 0, false, false, "warning close_notify"},
        {F, 0, false, false, "fatal close_notify: a closure alert, the close that follows tells"},
        {W, 0, true, false, "close_notify in TLS 1.3"},
        {W, 90, true, false, "user_canceled in TLS 1.3"},
        {N, 0, false, false, "close_notify without a level"},
        {W, 100, false, false, "warning no_renegotiation"},
        {F, 100, false, true, "fatal no_renegotiation"},
        {W, 41, false, false, "SSL 3.0's warning no_certificate"},
        {W, 47, true, true, "warning illegal_parameter after a TLS 1.3 HelloRetryRequest"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ok(tlsneg_alert_ends_handshake(cases[i].level, cases[i].description, cases[i].tls13) ==
               cases[i].ends,
           "%s: %s the handshake", cases[i].what, cases[i].ends ? "ends" : "does not end");
    }
    char buf[256];
    expect(tlsneg_alert_summary(W, 112, false, true, true, 0, 0, buf, sizeof buf),
           "The server sends alert unrecognized_name (112) as a warning: it does not end the "
           "handshake.",
           "a warning's sentence");
    expect(tlsneg_alert_summary(F, 112, true, true, true, 0, 0, buf, sizeof buf),
           "The server sends alert unrecognized_name (112): the handshake fails.",
           "a fatal alert's sentence");
    expect(tlsneg_alert_summary(W, 47, true, false, true, 0, 0, buf, sizeof buf),
           "The client sends alert illegal_parameter (47) as a warning, an error in TLS 1.3 "
           "whatever its level: the handshake fails.",
           "a warning in TLS 1.3");
    expect(tlsneg_alert_summary(W, 0, false, false, true, 0, 0, buf, sizeof buf),
           "The client sends alert close_notify (0).", "close_notify: neither warning nor failure");
    expect(tlsneg_alert_summary(N, 40, true, true, false, 0, 0, buf, sizeof buf),
           "A peer sends alert handshake_failure (40): the handshake fails.",
           "no level, no ClientHello yet");
    expect(tlsneg_alert_summary(W, 112, false, true, true, 0, 0, buf, 20), "The server sends al",
           "cut to the buffer");
    /* After the other side's FIN or RST (pcaps/scan-nmap-tls12.pcap frame
     * 83, after the client's FIN in frame 82): said, and not that the
     * alert makes the handshake fail. */
    expect(tlsneg_alert_summary(F, 50, true, true, true, TLSNEG_CAUSE_CLOSE, 82, buf, sizeof buf),
           "The server sends alert decode_error (50) after the client's FIN in frame 82.",
           "a fatal alert after the client's FIN");
    expect(tlsneg_alert_summary(F, 50, true, false, true, TLSNEG_CAUSE_RESET, 6, buf, sizeof buf),
           "The client sends alert decode_error (50) after the server's RST in frame 6.",
           "a client's alert after the server's RST");
    expect(tlsneg_alert_summary(F, 50, true, true, false, TLSNEG_CAUSE_CLOSE, 3, buf, sizeof buf),
           "The server sends alert decode_error (50) after the client's FIN in frame 3.",
           "no ClientHello: the sender the close tells");
    expect(tlsneg_alert_summary(W, 112, false, true, true, TLSNEG_CAUSE_CLOSE, 9, buf, sizeof buf),
           "The server sends alert unrecognized_name (112) as a warning after the client's FIN in "
           "frame 9.",
           "a warning after a close");
}

int main(void)
{
    real_hellos();
    alert_endings();
    legacy_version_rules();
    record_version_rules();
    missing_extension_rules();
    supported_versions_rules();
    server_selection_rules();
    downgrade_sentinel_rules();
    ignored_fallback_scsv_rules();
    fallback_and_alert_rules();
    malformed_rules();
    dtls_rules();
    expert_texts();
    missing_supported_versions_rules();
    dtls_draft_rules();
    sentences_say_what_is_known();
    supported_versions_overrun();
    cut_client_hello();
    every_rule_is_named();
    return tap_done();
}
