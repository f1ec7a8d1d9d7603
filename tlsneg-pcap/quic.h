/* SPDX-License-Identifier: GPL-2.0-or-later */
/* quic.h: QUIC Initial packets: key derivation (RFC 9001 5.2, RFC 9369 3.3),
 * header protection removal and AEAD decryption with libgcrypt, and the
 * frames an Initial packet may carry. Internal to the libpcap front end. */
#ifndef TLSNEG_PCAP_QUIC_H
#define TLSNEG_PCAP_QUIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TLSNEG_QUIC_V1      0x00000001u
#define TLSNEG_QUIC_V2      0x6b3343cfu
#define TLSNEG_QUIC_DRAFT29 0xff00001du

typedef struct {
    uint8_t key[16], iv[12], hp[16];
} tlsneg_quic_keys;

/* tlsneg_quic_version_known tells whether tlsneg can derive Initial keys for
 * version v (1, 2, draft-29). */
bool tlsneg_quic_version_known(uint32_t v);

/* The libgcrypt handles every derivation and decryption reuses: opening
 * one costs an allocation, and closing it a wipe, more than the work done
 * with it. One per packet path: not to be shared between threads. */
typedef struct tlsneg_quic_crypto tlsneg_quic_crypto;

/* tlsneg_quic_crypto_new returns NULL when libgcrypt cannot be initialised
 * or memory is short. */
tlsneg_quic_crypto *tlsneg_quic_crypto_new(void);
void tlsneg_quic_crypto_free(tlsneg_quic_crypto *x);

/* tlsneg_quic_initial_secret writes the client's (server false) or server's
 * 32-byte Initial secret for a client's Destination Connection ID. */
bool tlsneg_quic_initial_secret(tlsneg_quic_crypto *x, uint32_t version, const uint8_t *dcid,
                                size_t dcid_len, bool server, uint8_t out[32]);

/* tlsneg_quic_initial_keys derives the key, iv and hp of both sides: the
 * client's in out[0], the server's in out[1]. */
bool tlsneg_quic_initial_keys(tlsneg_quic_crypto *x, uint32_t version, const uint8_t *dcid,
                              size_t dcid_len, tlsneg_quic_keys out[2]);

/* A long-header packet at the front of a datagram. */
typedef struct {
    uint32_t version;
    bool is_initial;
    const uint8_t *dcid, *scid;
    uint8_t dcid_len, scid_len;
    size_t pn_offset;  /* where the protected packet number starts */
    size_t packet_len; /* this packet's bytes (coalesced packets follow) */
} tlsneg_quic_long;

typedef enum {
    TLSNEG_QUIC_OK,
    TLSNEG_QUIC_NOT_LONG, /* a short header (1-RTT) packet: nothing more to read */
    TLSNEG_QUIC_BAD,      /* a long header that does not fit */
    TLSNEG_QUIC_OTHER,    /* version negotiation, Retry, an unknown version: ends the datagram */
} tlsneg_quic_status;

/* tlsneg_quic_parse_long reads the unprotected part of the long header at
 * the front of d. */
tlsneg_quic_status tlsneg_quic_parse_long(const uint8_t *d, size_t len, tlsneg_quic_long *out);

/* tlsneg_quic_looks_initial tells whether a datagram starts with a long
 * header Initial packet of a known version. */
bool tlsneg_quic_looks_initial(const uint8_t *d, size_t len);

/* tlsneg_quic_decrypt removes header protection from the packet pkt (of
 * h->packet_len bytes, parsed by tlsneg_quic_parse_long) and decrypts its
 * payload into out (at least h->packet_len bytes). expected_pn is the next
 * packet number expected (largest seen + 1, or 0) for the packet-number
 * decoding of RFC 9000 A.3. Returns false when the tag does not verify. */
bool tlsneg_quic_decrypt(tlsneg_quic_crypto *x, const tlsneg_quic_keys *k,
                         const tlsneg_quic_long *h, const uint8_t *pkt, uint64_t expected_pn,
                         uint8_t *out, size_t *out_len, uint64_t *out_pn);

/* What the frames of a decrypted Initial payload hold. */
typedef void (*tlsneg_quic_crypto_fn)(void *user, uint64_t offset, const uint8_t *data, size_t len);
typedef void (*tlsneg_quic_close_fn)(void *user, uint64_t error_code);

/* tlsneg_quic_frames walks PADDING, PING, ACK, CRYPTO and CONNECTION_CLOSE
 * frames; it stops at any other frame type (not allowed in an Initial) and
 * returns false then or when a frame does not fit. */
bool tlsneg_quic_frames(const uint8_t *p, size_t len, tlsneg_quic_crypto_fn on_crypto,
                        tlsneg_quic_close_fn on_close, void *user);

#endif
