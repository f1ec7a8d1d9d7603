/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hrr.h: a HelloRetryRequest and the ClientHello that answers it, on one
 * connection: what the client had to change (RFC 8446 4.1.2: the key share
 * for the group asked for, the cookie sent back, early_data dropped,
 * pre_shared_key updated, padding) and what else it changed. The session
 * layer keeps a digest of each ClientHello on its connection and compares
 * the one after a HelloRetryRequest with it; the front ends only show the
 * words. Pure C. */
#ifndef TLSNEG_HRR_H
#define TLSNEG_HRR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/facts.h"
#include "core/hello.h"
#include "analysis/offer.h"

#define TLSNEG_HRR_SHARES 4

/* What of a ClientHello a HelloRetryRequest may or may not change: 36
 * bytes, kept per connection. */
typedef struct {
    uint32_t fp_suites;   /* cipher suites in order, GREASE and the fallback SCSV left out */
    uint32_t fp_groups;   /* supported_groups in order, GREASE left out */
    uint32_t fp_versions; /* supported_versions in order and legacy_version, GREASE left out */
    uint32_t fp_exts;     /* the other extensions, in order, as the offer hashes them
                             (tlsneg_hello_prints.exts) */
    uint32_t fp_session;  /* legacy_session_id */
    uint16_t shares[TLSNEG_HRR_SHARES]; /* key share groups in order, GREASE left out */
    uint8_t num_shares;
    bool has_digest; /* filled (a ClientHello was seen) */
    bool cookie, early_data, psk, padding;
} tlsneg_hrr_hello;

/* tlsneg_hrr_digest fills out from a ClientHello (h, its facts f, the
 * hashes its offer made on its way: tlsneg_offer_from_hello). */
void tlsneg_hrr_digest(tlsneg_hrr_hello *out, const tlsneg_hello *h, const tlsneg_facts *f,
                       const tlsneg_hello_prints *prints);

/* What a HelloRetryRequest asked for. */
typedef struct {
    uint32_t frame;
    bool has_group;
    uint16_t group; /* selected_group of its key_share */
    bool cookie;    /* it carried a cookie */
} tlsneg_hrr_ask;

/* tlsneg_hrr_ask_from fills out from a HelloRetryRequest in frame. */
void tlsneg_hrr_ask_from(tlsneg_hrr_ask *out, const tlsneg_hello *h, const tlsneg_facts *f,
                         uint32_t frame);

/* Longest text tlsneg_hrr_changes writes, with its NUL. */
#define TLSNEG_HRR_CHANGES_MAX 240

/* tlsneg_hrr_changes writes what the ClientHello after the HelloRetryRequest
 * ask (after) changed from the one before it (before), in words, the
 * changes RFC 8446 4.1.2 asks for first: "key share x25519 -> secp256r1
 * (the group asked for); cookie sent back", then anything else it changed
 * ("also changed: cipher suites"); "nothing changed" if nothing did.
 * Returns true when the ClientHello changed what RFC 8446 4.1.2 does not
 * allow, or did not do what the HelloRetryRequest asked. */
bool tlsneg_hrr_changes(const tlsneg_hrr_hello *before, const tlsneg_hrr_hello *after,
                        const tlsneg_hrr_ask *ask, char *buf, size_t buf_len);

#endif
