/* SPDX-License-Identifier: GPL-2.0-or-later */
/* offer.h: what the tracker needs from a hello, taken from its parse and its
 * facts: the versions offered, and a fingerprint of everything else, so that
 * a retry that changed only how it signals versions can be told from one
 * that changed more. Pure C. */
#ifndef TLSNEG_OFFER_H
#define TLSNEG_OFFER_H

#include "analysis/tracker.h"
#include "core/facts.h"

/* tlsneg_offer_from_hello fills out from a ClientHello. */
void tlsneg_offer_from_hello(tlsneg_offer *out, const tlsneg_hello *h, const tlsneg_facts *f);

/* tlsneg_answer_from_hello fills out from a ServerHello. */
void tlsneg_answer_from_hello(tlsneg_answer *out, const tlsneg_hello *h, const tlsneg_facts *f);

/* tlsneg_suite_needs_tls12: an AEAD or SHA-256/384 cipher suite, defined
 * for TLS 1.2 and not usable below it (RFC 5246, 5288, 5289, 7905 and the
 * IANA registry); TLS 1.3 suites (0x13xx) are not counted here. */
bool tlsneg_suite_needs_tls12(uint16_t suite);

/* tlsneg_extension_signals_version: an extension that only a client
 * offering TLS 1.3 sends (supported_versions, key_share, its draft number,
 * psk_key_exchange_modes, pre_shared_key, early_data, cookie,
 * post_handshake_auth, signature_algorithms_cert, compress_certificate,
 * encrypted_client_hello), or padding: what a
 * fallback retry drops without changing anything else. */
bool tlsneg_extension_signals_version(uint16_t type);

#endif
