/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/versions.h"

#include "tap.h"

static int name_is(uint16_t v, const char *want)
{
    char buf[TLSNEG_VERSION_NAME_MAX];
    return strcmp(tlsneg_version_name(v, buf, sizeof buf), want) == 0;
}

int main(void)
{
    /* RFC 8701 section 2: the 16 GREASE values 0x0A0A, 0x1A1A, ... 0xFAFA. */
    int grease = 0;
    for (uint32_t v = 0; v <= 0xffff; v++) {
        grease += tlsneg_is_grease((uint16_t)v);
    }
    ok(grease == 16, "exactly 16 GREASE values in 16 bits");
    for (unsigned i = 0; i < 16; i++) {
        uint16_t v = (uint16_t)(i << 12 | 0x0a00 | i << 4 | 0x0a);
        ok(tlsneg_is_grease(v) && name_is(v, "GREASE"), "0x%04x is GREASE", v);
    }
    ok(!tlsneg_is_grease(0x0a1a) && !tlsneg_is_grease(0x1a0a), "both bytes must be equal");
    int modes = 0;
    for (unsigned m = 0; m <= 0xff; m++) {
        modes += tlsneg_is_grease_psk_mode((uint8_t)m);
    }
    ok(modes == 8 && tlsneg_is_grease_psk_mode(0x0b) && tlsneg_is_grease_psk_mode(0xe4),
       "8 GREASE PSK modes, 0x0B to 0xE4");
    char g[8];
    ok(strcmp(tlsneg_grease_text(0x0b, g, sizeof g), "0x0b") == 0 &&
           strcmp(tlsneg_grease_text(0x0a0a, g, sizeof g), "0x0a0a") == 0,
       "a GREASE PSK mode is written in one byte (0x0b), the others in two (0x0a0a)");

    ok(name_is(0x0002, "SSL 2.0") && name_is(0x0300, "SSL 3.0"), "SSL names");
    ok(name_is(0x0301, "TLS 1.0") && name_is(0x0302, "TLS 1.1") && name_is(0x0303, "TLS 1.2") &&
           name_is(0x0304, "TLS 1.3"),
       "TLS names");
    ok(name_is(0xfeff, "DTLS 1.0") && name_is(0xfefd, "DTLS 1.2") && name_is(0xfefc, "DTLS 1.3"),
       "DTLS names");
    ok(name_is(0x0100, "DTLS 1.0 (OpenSSL pre-standard)"), "OpenSSL's pre-standard DTLS");
    ok(name_is(0x7f0e, "TLS 1.3 draft-14") && name_is(0x7f17, "TLS 1.3 draft-23"), "drafts");
    ok(name_is(0x7e02, "TLS 1.3 Google experiment 2"), "Google experiments");
    ok(name_is(0xfb17, "TLS 1.3 draft-23 (Facebook)"), "Facebook variants");
    ok(name_is(0x1234, "unknown") && name_is(0x7e04, "unknown"), "unknown values");

    ok(tlsneg_version_rank(0x0304, false) > tlsneg_version_rank(0x7f1c, false) &&
           tlsneg_version_rank(0x7f1c, false) > tlsneg_version_rank(0x7f0e, false) &&
           tlsneg_version_rank(0x7f0e, false) > tlsneg_version_rank(0x0303, false) &&
           tlsneg_version_rank(0x0303, false) > tlsneg_version_rank(0x0300, false) &&
           tlsneg_version_rank(0x0300, false) > tlsneg_version_rank(0x0002, false),
       "TLS order: SSL 2 < SSL 3 < 1.2 < drafts < 1.3");
    ok(tlsneg_version_rank(0xfefc, true) > tlsneg_version_rank(0xfefd, true) &&
           tlsneg_version_rank(0xfefd, true) > tlsneg_version_rank(0xfeff, true) &&
           tlsneg_version_rank(0xfeff, true) > tlsneg_version_rank(0x0100, true),
       "DTLS order runs backwards: 1.3 (0xfefc) is newest");
    ok(tlsneg_version_rank(0x2a2a, false) == 0 && tlsneg_version_rank(0xfefd, false) == 0 &&
           tlsneg_version_rank(0x0303, true) == 0,
       "GREASE and other families rank 0");
    /* DTLS 1.3 drafts: NSS sends 0x7f00 | draft in DTLS (0x7f2b, draft-43),
     * below the final DTLS 1.3 (0xfefc, RFC 9147 5.3), above DTLS 1.2. */
    char buf[TLSNEG_VERSION_NAME_MAX];
    ok(strcmp(tlsneg_version_name_in(0x7f2b, true, buf, sizeof buf), "DTLS 1.3 draft-43") == 0,
       "0x7f2b in DTLS is DTLS 1.3 draft-43");
    ok(strcmp(tlsneg_version_name_in(0x7f2b, false, buf, sizeof buf), "TLS 1.3 draft-43") == 0 &&
           strcmp(tlsneg_version_name_in(0xfefd, true, buf, sizeof buf), "DTLS 1.2") == 0,
       "in TLS it stays a TLS 1.3 draft; other DTLS names unchanged");
    ok(tlsneg_version_rank(0xfefc, true) > tlsneg_version_rank(0x7f2b, true) &&
           tlsneg_version_rank(0x7f2b, true) > tlsneg_version_rank(0x7f1c, true) &&
           tlsneg_version_rank(0x7f1c, true) > tlsneg_version_rank(0xfefd, true),
       "DTLS order: 1.2 < DTLS 1.3 drafts by number < DTLS 1.3");
    ok(tlsneg_version_rank(0xfb1a, false) == tlsneg_version_rank(0x7f1a, false) &&
           tlsneg_version_rank(0x7f1c, false) > tlsneg_version_rank(0xfb1a, false) &&
           tlsneg_version_rank(0xfb17, false) < tlsneg_version_rank(0x7f1a, false),
       "a Facebook variant ranks with the draft it carries: fb26 = draft-26 < draft-28");
    ok(tlsneg_version_is_draft(0x7f14) && tlsneg_version_is_draft(0xfb1a) &&
           !tlsneg_version_is_draft(0x0304),
       "drafts are recognised");
    /* Short names for the packet list's columns: from the same table. */
    ok(strcmp(tlsneg_version_short_name(0x0304, false, buf, sizeof buf), "TLS 1.3") == 0 &&
           strcmp(tlsneg_version_short_name(0x0300, false, buf, sizeof buf), "SSL 3.0") == 0 &&
           strcmp(tlsneg_version_short_name(0xfefd, true, buf, sizeof buf), "DTLS 1.2") == 0,
       "short names of the table's versions are their names");
    ok(strcmp(tlsneg_version_short_name(0x0100, true, buf, sizeof buf), "DTLS 1.0-pre") == 0 &&
           strcmp(tlsneg_version_short_name(0x7f17, false, buf, sizeof buf), "TLS 1.3-d23") == 0 &&
           strcmp(tlsneg_version_short_name(0x7f2b, true, buf, sizeof buf), "DTLS 1.3-d43") == 0 &&
           strcmp(tlsneg_version_short_name(0x7e02, false, buf, sizeof buf), "TLS 1.3-exp2") == 0 &&
           strcmp(tlsneg_version_short_name(0xfb17, false, buf, sizeof buf), "TLS 1.3-fb23") == 0,
       "short names of pre-standard DTLS, drafts and experiments");
    ok(strcmp(tlsneg_version_short_name(0x3a3a, false, buf, sizeof buf), "GREASE") == 0 &&
           strcmp(tlsneg_version_short_name(0x1234, false, buf, sizeof buf), "0x1234") == 0,
       "GREASE, and an unknown value by its number");
    /* Below 1.3, by rank in each family: DTLS 1.0 (0xfeff) and DTLS 1.2
     * (0xfefd) are numerically above TLS 1.3 (0x0304). */
    ok(tlsneg_version_below_13(0x0002, false) && tlsneg_version_below_13(0x0301, false) &&
           tlsneg_version_below_13(0x0303, false) && !tlsneg_version_below_13(0x0304, false) &&
           !tlsneg_version_below_13(0x7f17, false),
       "TLS: SSL 2.0 to TLS 1.2 below 1.3; TLS 1.3 and its drafts not");
    ok(tlsneg_version_below_13(0xfeff, true) && tlsneg_version_below_13(0xfefd, true) &&
           tlsneg_version_below_13(0x0100, true) && !tlsneg_version_below_13(0xfefc, true) &&
           !tlsneg_version_below_13(0x7f2b, true),
       "DTLS: 1.0 and 1.2 below 1.3; DTLS 1.3 and its drafts not");
    ok(!tlsneg_version_below_13(0x2a2a, false) && !tlsneg_version_below_13(0x1234, false) &&
           !tlsneg_version_below_13(0x0303, true) && !tlsneg_version_below_13(0xfefd, false),
       "GREASE, unknown values and the other family's versions are not below");
    return tap_done();
}
