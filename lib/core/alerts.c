/* SPDX-License-Identifier: GPL-2.0-or-later */
/* alerts.c: the TLS alerts as bytes (alerts.h). */
#include "core/alerts.h"

const char *tlsneg_alert_name(uint8_t description)
{
    /* The IANA TLS Alerts registry (RFC 8446 6, RFC 9147 for 52, the ECH
     * draft for 121); reserved values keep their old names. */
    static const char *const names[] = {
        [0] = "close_notify",
        [10] = "unexpected_message",
        [20] = "bad_record_mac",
        [21] = "decryption_failed",
        [22] = "record_overflow",
        [30] = "decompression_failure",
        [40] = "handshake_failure",
        [41] = "no_certificate",
        [42] = "bad_certificate",
        [43] = "unsupported_certificate",
        [44] = "certificate_revoked",
        [45] = "certificate_expired",
        [46] = "certificate_unknown",
        [47] = "illegal_parameter",
        [48] = "unknown_ca",
        [49] = "access_denied",
        [50] = "decode_error",
        [51] = "decrypt_error",
        [52] = "too_many_cids_requested",
        [60] = "export_restriction",
        [70] = "protocol_version",
        [71] = "insufficient_security",
        [80] = "internal_error",
        [86] = "inappropriate_fallback",
        [90] = "user_canceled",
        [100] = "no_renegotiation",
        [109] = "missing_extension",
        [110] = "unsupported_extension",
        [111] = "certificate_unobtainable",
        [112] = "unrecognized_name",
        [113] = "bad_certificate_status_response",
        [114] = "bad_certificate_hash_value",
        [115] = "unknown_psk_identity",
        [116] = "certificate_required",
        [120] = "no_application_protocol",
        [121] = "ech_required",
    };
    return description < sizeof names / sizeof names[0] ? names[description] : NULL;
}

bool tlsneg_epoch_plaintext(const tlsneg_epoch *e)
{
    return e->from_start && (!e->ccs || e->ccs_compat);
}

bool tlsneg_plaintext_alert(const tlsneg_epoch *e, const uint8_t *payload, size_t len,
                            uint8_t *level, uint8_t *description)
{
    /* RFC 8446 5.1: one alert per record, never fragmented; RFC 8446 6: an
     * alert is a level and a description. An encrypted alert is longer (its
     * MAC or tag). */
    if (!tlsneg_epoch_plaintext(e) || len != 2 || (payload[0] != 1 && payload[0] != 2) ||
        !tlsneg_alert_name(payload[1])) {
        return false;
    }
    *level = payload[0];
    *description = payload[1];
    return true;
}

bool tlsneg_quic_crypto_alert(uint64_t code, uint8_t *description)
{
    if (code < 0x100 || code > 0x1ff) {
        return false;
    }
    *description = (uint8_t)(code - 0x100);
    return true;
}

bool tlsneg_hello_record(const uint8_t *payload, size_t len)
{
    /* A hello may be cut into records of a byte or more: what is there
     * must fit. */
    return len >= 1 && (payload[0] == 1 || payload[0] == 2) && (len < 5 || payload[4] == 3);
}
