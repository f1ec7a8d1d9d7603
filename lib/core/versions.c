/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "versions.h"

#include <stdio.h>

#include "util.h"

bool tlsneg_is_grease_psk_mode(uint8_t m)
{
    return m >= 0x0b && (m - 0x0b) % 0x1f == 0;
}

const char *tlsneg_grease_text(uint16_t v, char *buf, size_t buf_len)
{
    snprintf(buf, buf_len, v <= 0xff ? "0x%02x" : "0x%04x", v);
    return buf;
}

static bool is_google_experiment(uint16_t v)
{
    return v >= 0x7e01 && v <= 0x7e03;
}

bool tlsneg_version_is_draft(uint16_t v)
{
    return (v >> 8) == 0x7f || (v >> 8) == 0xfb || is_google_experiment(v);
}

/* The one version-name table: each version's name, and the short name the
 * packet list's columns show. */
static const struct {
    uint16_t v;
    const char *name;
    const char *short_name;
} fixed_names[] = {
    {TLSNEG_V_SSL2, "SSL 2.0", "SSL 2.0"},
    {TLSNEG_V_SSL3, "SSL 3.0", "SSL 3.0"},
    {TLSNEG_V_TLS10, "TLS 1.0", "TLS 1.0"},
    {TLSNEG_V_TLS11, "TLS 1.1", "TLS 1.1"},
    {TLSNEG_V_TLS12, "TLS 1.2", "TLS 1.2"},
    {TLSNEG_V_TLS13, "TLS 1.3", "TLS 1.3"},
    {TLSNEG_V_DTLS_OPENSSL, "DTLS 1.0 (OpenSSL pre-standard)", "DTLS 1.0-pre"},
    {TLSNEG_V_DTLS10, "DTLS 1.0", "DTLS 1.0"},
    {TLSNEG_V_DTLS12, "DTLS 1.2", "DTLS 1.2"},
    {TLSNEG_V_DTLS13, "DTLS 1.3", "DTLS 1.3"},
};

static const char *fixed_name(uint16_t v, bool short_name)
{
    for (size_t i = 0; i < sizeof fixed_names / sizeof fixed_names[0]; i++) {
        if (fixed_names[i].v == v) {
            return short_name ? fixed_names[i].short_name : fixed_names[i].name;
        }
    }
    return NULL;
}

const char *tlsneg_version_name(uint16_t v, char *buf, size_t buf_len)
{
    const char *name = fixed_name(v, false);
    if (name) {
        tlsneg_strlcpy(buf, buf_len, name);
        return buf;
    }
    if (tlsneg_is_grease(v)) {
        snprintf(buf, buf_len, "GREASE");
    } else if ((v >> 8) == 0x7f) {
        snprintf(buf, buf_len, "TLS 1.3 draft-%u", v & 0xffu);
    } else if (is_google_experiment(v)) {
        snprintf(buf, buf_len, "TLS 1.3 Google experiment %u", v & 0xffu);
    } else if ((v >> 8) == 0xfb) {
        snprintf(buf, buf_len, "TLS 1.3 draft-%u (Facebook)", v & 0xffu);
    } else {
        snprintf(buf, buf_len, "unknown");
    }
    return buf;
}

const char *tlsneg_version_name_in(uint16_t v, bool dtls, char *buf, size_t buf_len)
{
    if (dtls && (v >> 8) == 0x7f) {
        snprintf(buf, buf_len, "DTLS 1.3 draft-%u", v & 0xffu);
        return buf;
    }
    return tlsneg_version_name(v, buf, buf_len);
}

const char *tlsneg_version_short_name(uint16_t v, bool dtls, char *buf, size_t buf_len)
{
    const char *name = fixed_name(v, true);
    if (name) {
        tlsneg_strlcpy(buf, buf_len, name);
    } else if (tlsneg_is_grease(v)) {
        snprintf(buf, buf_len, "GREASE");
    } else if ((v >> 8) == 0x7f) {
        snprintf(buf, buf_len, "%s 1.3-d%u", dtls ? "DTLS" : "TLS", v & 0xffu);
    } else if (is_google_experiment(v)) {
        snprintf(buf, buf_len, "TLS 1.3-exp%u", v & 0xffu);
    } else if ((v >> 8) == 0xfb) {
        snprintf(buf, buf_len, "TLS 1.3-fb%u", v & 0xffu);
    } else {
        snprintf(buf, buf_len, "0x%04x", v);
    }
    return buf;
}

const char *tlsneg_version_name_or_none(bool has, uint16_t v, bool dtls, char *buf, size_t buf_len)
{
    if (!has) {
        tlsneg_strlcpy(buf, buf_len, "no known version");
        return buf;
    }
    return tlsneg_version_name_in(v, dtls, buf, buf_len);
}

unsigned tlsneg_version_rank(uint16_t v, bool dtls)
{
    if (dtls) {
        switch (v) {
        case TLSNEG_V_DTLS_OPENSSL:
            return 1;
        case TLSNEG_V_DTLS10:
            return 2;
        case TLSNEG_V_DTLS12:
            return 3;
        case TLSNEG_V_DTLS13:
            return 0x1000;
        default:
            /* DTLS 1.3 drafts by number (NSS: 0x7f00 | draft), below the
             * final DTLS 1.3 of RFC 9147. */
            return (v >> 8) == 0x7f ? 0x100 + (v & 0xffu) : 0;
        }
    }
    switch (v) {
    case TLSNEG_V_SSL2:
        return 1;
    case TLSNEG_V_SSL3:
        return 2;
    case TLSNEG_V_TLS10:
        return 3;
    case TLSNEG_V_TLS11:
        return 4;
    case TLSNEG_V_TLS12:
        return 5;
    case TLSNEG_V_TLS13:
        return 0x1000;
    default:
        break;
    }
    /* Drafts by number, Facebook's variants with the draft they carry
     * (0xfb1a is draft-26: neither is above the other), all below the final
     * TLS 1.3. Google's experiments name no draft: above every draft, for
     * want of a known place. */
    if ((v >> 8) == 0x7f || (v >> 8) == 0xfb) {
        return 0x100 + (v & 0xffu);
    }
    if (is_google_experiment(v)) {
        return 0x200 + (v & 0xffu);
    }
    return 0;
}

bool tlsneg_version_below_13(uint16_t v, bool dtls)
{
    unsigned rank = tlsneg_version_rank(v, dtls);
    return rank != 0 && rank <= tlsneg_version_rank(dtls ? TLSNEG_V_DTLS12 : TLSNEG_V_TLS12, dtls);
}
