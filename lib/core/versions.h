/* SPDX-License-Identifier: GPL-2.0-or-later */
/* versions.h: the one table of protocol version names and their order, and
 * the GREASE tests of RFC 8701. Every name tlsneg prints comes from here. */
#ifndef TLSNEG_VERSIONS_H
#define TLSNEG_VERSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TLSNEG_V_SSL2         0x0002
#define TLSNEG_V_SSL3         0x0300
#define TLSNEG_V_TLS10        0x0301
#define TLSNEG_V_TLS11        0x0302
#define TLSNEG_V_TLS12        0x0303
#define TLSNEG_V_TLS13        0x0304
#define TLSNEG_V_DTLS_OPENSSL 0x0100
#define TLSNEG_V_DTLS10       0xfeff
#define TLSNEG_V_DTLS12       0xfefd
#define TLSNEG_V_DTLS13       0xfefc

/* Longest name tlsneg_version_name() writes, with its NUL. */
#define TLSNEG_VERSION_NAME_MAX 48

/* tlsneg_is_grease reports whether v is one of the 16 GREASE values 0x?A?A of
 * RFC 8701 section 2 (both bytes equal, low nibbles 0xA). Inline: every list
 * of every hello is tested value by value. */
static inline bool tlsneg_is_grease(uint16_t v)
{
    return (v & 0x0f0f) == 0x0a0a && (v >> 8) == (v & 0xff);
}

/* tlsneg_is_grease_psk_mode reports whether m is a GREASE PSK key exchange
 * mode (0x0B, 0x2A, 0x49, ... 0xE4; RFC 8701 section 2). */
bool tlsneg_is_grease_psk_mode(uint8_t m);

/* tlsneg_version_name writes v's name ("TLS 1.3", "TLS 1.3 draft-23",
 * "GREASE", "unknown") into buf and returns buf, naming drafts as TLS
 * drafts. The name never includes the hex value: callers that want it append
 * it. */
const char *tlsneg_version_name(uint16_t v, char *buf, size_t buf_len);

/* tlsneg_version_name_in is tlsneg_version_name for a message of one family:
 * in DTLS (dtls true) 0x7f00 + n is DTLS 1.3 draft-n, the way
 * draft-ietf-tls-dtls13 numbered its versions and NSS sends them (0x7f2b:
 * draft-43); RFC 9147 5.3 then gave DTLS 1.3 0xfefc. Every other value has
 * the same name in both families. */
const char *tlsneg_version_name_in(uint16_t v, bool dtls, char *buf, size_t buf_len);

/* tlsneg_version_short_name writes the short name of v in a message of one
 * family (dtls), for the packet list's columns: the name for the versions of
 * the table ("TLS 1.3", "DTLS 1.2"), "DTLS 1.0-pre" for OpenSSL's
 * pre-standard DTLS, "TLS 1.3-d23" / "DTLS 1.3-d43" for drafts,
 * "TLS 1.3-exp2" and "TLS 1.3-fb23" for Google's and Facebook's
 * experiments, "GREASE", and the hex value ("0x1234") for an unknown one. */
const char *tlsneg_version_short_name(uint16_t v, bool dtls, char *buf, size_t buf_len);

/* tlsneg_version_name_or_none is tlsneg_version_name_in when has, else it
 * writes "no known version": the one way of naming a version that the
 * capture did not show (a hello without one, a chain step not known). */
const char *tlsneg_version_name_or_none(bool has, uint16_t v, bool dtls, char *buf, size_t buf_len);

/* tlsneg_version_rank orders versions of one family: higher is newer, 0 means
 * GREASE or unknown. dtls selects the DTLS family, where numbers run
 * backwards; the TLS family ranks SSL 2.0 < SSL 3.0 < TLS 1.0 < 1.1 < 1.2 <
 * drafts and experiments < TLS 1.3, the DTLS family OpenSSL's pre-standard
 * DTLS (0x0100) < DTLS 1.0 < DTLS 1.2 < DTLS 1.3 drafts (0x7fxx by draft
 * number) < DTLS 1.3. */
unsigned tlsneg_version_rank(uint16_t v, bool dtls);

/* tlsneg_version_below_13 reports whether v is a known version of the
 * family (dtls) below 1.3 by tlsneg_version_rank: SSL 2.0 to TLS 1.2,
 * or OpenSSL's pre-standard DTLS to DTLS 1.2. TLS 1.3, DTLS 1.3, their
 * drafts and experiments, GREASE and unknown values are not below. The
 * numbers cannot be compared: DTLS 1.0 (0xfeff) is numerically above TLS 1.3
 * (0x0304). */
bool tlsneg_version_below_13(uint16_t v, bool dtls);

/* tlsneg_version_is_draft reports whether v is a pre-RFC TLS 1.3 version
 * (draft 0x7fxx, Google experiment 0x7e01-0x7e03, Facebook 0xfbxx); in a
 * DTLS message 0x7fxx is a DTLS 1.3 draft. */
bool tlsneg_version_is_draft(uint16_t v);

#endif
