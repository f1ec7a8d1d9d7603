/* SPDX-License-Identifier: GPL-2.0-or-later */
/* alerts.h: the TLS alerts as bytes: their names (the IANA TLS Alerts
 * registry), and when the bytes of an alert record are a plaintext alert.
 *
 * A record is read as plaintext only where its direction's state says the
 * epoch is still plaintext (tlsneg_epoch): read from its first byte, no
 * ChangeCipherSpec sent (but TLS 1.3's compatibility one around a
 * HelloRetryRequest). Encrypted bytes after ChangeCipherSpec, a stream
 * picked up mid-way, a late duplicate of an encrypted record: never a
 * handshake message or an alert. Both front ends use this rule: the libpcap
 * front end on the records it reads itself, the plugin on the alerts
 * Wireshark's TLS and DTLS dissectors show it. */
#ifndef TLSNEG_ALERTS_H
#define TLSNEG_ALERTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* tlsneg_alert_name names a TLS alert description ("protocol_version"), or
 * returns NULL for a value the IANA TLS Alerts registry does not hold. */
const char *tlsneg_alert_name(uint8_t description);

/* What a direction of a connection has shown, as far as the plaintext of
 * its records goes. */
typedef struct {
    bool from_start; /* read from its first byte: its SYN was seen, its first
                        record held a hello, or the peer's ClientHello came
                        before its first byte */
    bool ccs;        /* it sent a ChangeCipherSpec: the records after it are
                        encrypted... */
    bool ccs_compat; /* ...unless that was TLS 1.3's compatibility
                        ChangeCipherSpec around a HelloRetryRequest (no hello
                        sent since) */
} tlsneg_epoch;

/* tlsneg_epoch_plaintext: the direction's next record may be read as
 * plaintext (a handshake message or an alert). */
bool tlsneg_epoch_plaintext(const tlsneg_epoch *e);

/* An alert's level (RFC 5246 7.2, RFC 8446 6: AlertLevel): the first byte
 * of an alert record. TLSNEG_ALERT_NO_LEVEL where the wire carries none (a
 * QUIC CONNECTION_CLOSE's TLS alert, RFC 9001 4.8; an event file written
 * before levels were kept). */
enum { TLSNEG_ALERT_NO_LEVEL = 0, TLSNEG_ALERT_WARNING = 1, TLSNEG_ALERT_FATAL = 2 };

/* tlsneg_plaintext_alert: the payload of an alert record (content type 21,
 * len bytes) is a plaintext alert in epoch e: exactly 2 bytes, level 1
 * (warning) or 2 (fatal), a description the registry holds. Sets *level
 * and *description then. Anything else is no alert: encrypted bytes, or
 * bytes no TLS stack sends. */
bool tlsneg_plaintext_alert(const tlsneg_epoch *e, const uint8_t *payload, size_t len,
                            uint8_t *level, uint8_t *description);

/* tlsneg_quic_crypto_alert: the error code of a QUIC CONNECTION_CLOSE of
 * type 0x1c is a TLS alert: a crypto error, 0x0100 + the alert description
 * (RFC 9001 4.8; the range 0x0100-0x01ff, RFC 9000 20.1). Sets
 * *description then. Any other transport error is no alert, and neither is
 * an application close (type 0x1d), whose code is the application's. */
bool tlsneg_quic_crypto_alert(uint64_t code, uint8_t *description);

/* tlsneg_hello_record: the payload of a handshake record (content type 22)
 * starts with a plaintext ClientHello or ServerHello (msg_type 1 or 2, then
 * a legacy_version of 3.x after the 3-byte length, as far as the record
 * holds them): where a stream picked up mid-way may be read from. */
bool tlsneg_hello_record(const uint8_t *payload, size_t len);

#endif
