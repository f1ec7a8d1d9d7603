/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/alerts.h"

#include "tap.h"

int main(void)
{
    /* RFC 9001 4.8: a TLS alert in a QUIC CONNECTION_CLOSE (type 0x1c) is
     * the crypto error 0x0100 + its description; RFC 9000 20.1: CRYPTO_ERROR
     * is the range 0x0100-0x01ff. */
    uint8_t d = 0xee;
    ok(tlsneg_quic_crypto_alert(0x146, &d) && d == 70, "0x146 is protocol_version (70)");
    d = 0xee;
    ok(tlsneg_quic_crypto_alert(0x100, &d) && d == 0, "0x100, the first crypto error: 0");
    ok(tlsneg_quic_crypto_alert(0x1ff, &d) && d == 255, "0x1ff, the last crypto error: 255");
    d = 0xee;
    ok(!tlsneg_quic_crypto_alert(0x0, &d) && !tlsneg_quic_crypto_alert(0xff, &d) && d == 0xee,
       "NO_ERROR (0) and 0xff, transport errors below the range: no alert, nothing set");
    ok(!tlsneg_quic_crypto_alert(0x200, &d) && !tlsneg_quic_crypto_alert(0x3fff, &d),
       "0x200 and above: no alert");
    ok(!tlsneg_quic_crypto_alert(0x100000146ull, &d) &&
           !tlsneg_quic_crypto_alert(0x3fffffffffffff46ull, &d),
       "a 62-bit code whose low bits look like a crypto error is none");
    return tap_done();
}
