/* SPDX-License-Identifier: GPL-2.0-or-later */
/* quic.c: QUIC Initial packets (quic.h). */
#include "quic.h"

#include <gcrypt.h>
#include <stdlib.h>
#include <string.h>

#include "core/cursor.h"

/* RFC 9001 5.2 */
static const uint8_t salt_v1[20] = {0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17,
                                    0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a};
/* RFC 9369 3.3.1 */
static const uint8_t salt_v2[20] = {0x0d, 0xed, 0xe3, 0xde, 0xf7, 0x00, 0xa6, 0xdb, 0x81, 0x93,
                                    0x81, 0xbe, 0x6e, 0x26, 0x9d, 0xcb, 0xf9, 0xbd, 0x2e, 0xd9};
/* draft-ietf-quic-tls-29 5.2 */
static const uint8_t salt_d29[20] = {0xaf, 0xbf, 0xec, 0x28, 0x99, 0x93, 0xd2, 0x4c, 0x9e, 0x97,
                                     0x86, 0xf1, 0x9c, 0x61, 0x11, 0xe0, 0x43, 0x90, 0xa8, 0x99};

/* gcrypt_ready initialises libgcrypt once; false if it cannot. */
static bool gcrypt_ready(void)
{
    static int state; /* 0 not yet, 1 ready, -1 failed */
    if (state == 0) {
        if (!gcry_check_version(GCRYPT_VERSION)) {
            state = -1;
        } else {
            gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
            gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
            state = 1;
        }
    }
    return state == 1;
}

bool tlsneg_quic_version_known(uint32_t v)
{
    return v == TLSNEG_QUIC_V1 || v == TLSNEG_QUIC_V2 || v == TLSNEG_QUIC_DRAFT29;
}

struct tlsneg_quic_crypto {
    gcry_md_hd_t hmac;     /* HMAC-SHA-256, keyed anew for each secret */
    gcry_cipher_hd_t hp;   /* AES-128-ECB: header protection */
    gcry_cipher_hd_t aead; /* AES-128-GCM: the payload */
};

tlsneg_quic_crypto *tlsneg_quic_crypto_new(void)
{
    if (!gcrypt_ready()) {
        return NULL;
    }
    tlsneg_quic_crypto *x = calloc(1, sizeof *x);
    if (x && (gcry_md_open(&x->hmac, GCRY_MD_SHA256, GCRY_MD_FLAG_HMAC) != 0 ||
              gcry_cipher_open(&x->hp, GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_ECB, 0) != 0 ||
              gcry_cipher_open(&x->aead, GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_GCM, 0) != 0)) {
        tlsneg_quic_crypto_free(x);
        return NULL;
    }
    return x;
}

void tlsneg_quic_crypto_free(tlsneg_quic_crypto *x)
{
    if (x) {
        gcry_md_close(x->hmac); /* each accepts NULL */
        gcry_cipher_close(x->hp);
        gcry_cipher_close(x->aead);
        free(x);
    }
}

/* hmac_sha256 writes HMAC(key, msg); key NULL: the key set last. */
static bool hmac_sha256(tlsneg_quic_crypto *x, const uint8_t *key, size_t key_len,
                        const uint8_t *msg, size_t msg_len, uint8_t out[32])
{
    if (key) {
        if (gcry_md_setkey(x->hmac, key, key_len) != 0) {
            return false;
        }
    } else {
        gcry_md_reset(x->hmac); /* the key stays */
    }
    gcry_md_write(x->hmac, msg, msg_len);
    const unsigned char *d = gcry_md_read(x->hmac, GCRY_MD_SHA256);
    if (!d) {
        return false;
    }
    memcpy(out, d, 32);
    return true;
}

/* RFC 8446 7.1 HKDF-Expand-Label with an empty context, for outputs of up to
 * one SHA-256 block (all QUIC Initial secrets and keys are); secret NULL:
 * the secret of the call before. */
static bool expand_label(tlsneg_quic_crypto *x, const uint8_t *secret, const char *label,
                         uint8_t *out, size_t out_len)
{
    uint8_t info[2 + 1 + 6 + 32 + 1 + 1];
    size_t label_len = strlen(label);
    if (out_len > 32 || label_len > 32) {
        return false;
    }
    size_t n = 0;
    info[n++] = 0;
    info[n++] = (uint8_t)out_len;
    info[n++] = (uint8_t)(6 + label_len);
    memcpy(info + n, "tls13 ", 6);
    n += 6;
    memcpy(info + n, label, label_len);
    n += label_len;
    info[n++] = 0;    /* context length */
    info[n++] = 0x01; /* HKDF-Expand's block counter T(1) */
    uint8_t t[32];
    if (!hmac_sha256(x, secret, 32, info, n, t)) {
        return false;
    }
    memcpy(out, t, out_len);
    return true;
}

/* initial_secret: HKDF-Extract(salt, dcid) of the version's salt (RFC 9001
 * 5.2); false for a version whose salt tlsneg does not know. */
static bool initial_secret(tlsneg_quic_crypto *x, uint32_t version, const uint8_t *dcid,
                           size_t dcid_len, uint8_t out[32])
{
    const uint8_t *salt = version == TLSNEG_QUIC_V2        ? salt_v2
                          : version == TLSNEG_QUIC_V1      ? salt_v1
                          : version == TLSNEG_QUIC_DRAFT29 ? salt_d29
                                                           : NULL;
    return salt && hmac_sha256(x, salt, 20, dcid, dcid_len, out);
}

bool tlsneg_quic_initial_secret(tlsneg_quic_crypto *x, uint32_t version, const uint8_t *dcid,
                                size_t dcid_len, bool server, uint8_t out[32])
{
    uint8_t initial[32];
    return initial_secret(x, version, dcid, dcid_len, initial) &&
           expand_label(x, initial, server ? "server in" : "client in", out, 32);
}

bool tlsneg_quic_initial_keys(tlsneg_quic_crypto *x, uint32_t version, const uint8_t *dcid,
                              size_t dcid_len, tlsneg_quic_keys out[2])
{
    uint8_t initial[32], secret[2][32];
    if (!initial_secret(x, version, dcid, dcid_len, initial) ||
        !expand_label(x, initial, "client in", secret[0], 32) ||
        !expand_label(x, NULL, "server in", secret[1], 32)) {
        return false;
    }
    bool v2 = version == TLSNEG_QUIC_V2;
    for (int i = 0; i < 2; i++) {
        if (!expand_label(x, secret[i], v2 ? "quicv2 key" : "quic key", out[i].key, 16) ||
            !expand_label(x, NULL, v2 ? "quicv2 iv" : "quic iv", out[i].iv, 12) ||
            !expand_label(x, NULL, v2 ? "quicv2 hp" : "quic hp", out[i].hp, 16)) {
            return false;
        }
    }
    return true;
}

static bool varint(tlsneg_cur *c, uint64_t *out)
{
    uint8_t first;
    if (c->len < 1) {
        return false;
    }
    first = c->p[0];
    size_t n = (size_t)1 << (first >> 6);
    if (c->len < n) {
        return false;
    }
    uint64_t v = first & 0x3f;
    for (size_t i = 1; i < n; i++) {
        v = (v << 8) | c->p[i];
    }
    c->p += n;
    c->len -= n;
    *out = v;
    return true;
}

tlsneg_quic_status tlsneg_quic_parse_long(const uint8_t *d, size_t len, tlsneg_quic_long *out)
{
    tlsneg_cur c;
    tlsneg_cur_init(&c, d, len);
    uint8_t first;
    uint32_t version;
    tlsneg_cur dcid, scid;
    if (!tlsneg_cur_u8(&c, &first)) {
        return TLSNEG_QUIC_BAD;
    }
    if (!(first & 0x80)) {
        return TLSNEG_QUIC_NOT_LONG;
    }
    if (!tlsneg_cur_uint(&c, 4, &version) || !tlsneg_cur_u8_prefixed(&c, &dcid) ||
        !tlsneg_cur_u8_prefixed(&c, &scid) || dcid.len > 20 || scid.len > 20) {
        return TLSNEG_QUIC_BAD;
    }
    out->version = version;
    out->dcid = dcid.p;
    out->dcid_len = (uint8_t)dcid.len;
    out->scid = scid.p;
    out->scid_len = (uint8_t)scid.len;
    if (!tlsneg_quic_version_known(version)) {
        return TLSNEG_QUIC_OTHER;
    }
    /* RFC 9000 17.2 / RFC 9369 3.2: the type bits, and the Retry has no
     * length (it ends the datagram). */
    unsigned type = (first >> 4) & 3;
    unsigned initial = version == TLSNEG_QUIC_V2 ? 1 : 0;
    unsigned retry = version == TLSNEG_QUIC_V2 ? 0 : 3;
    if (type == retry) {
        return TLSNEG_QUIC_OTHER;
    }
    out->is_initial = type == initial;
    if (out->is_initial) {
        uint64_t token_len;
        tlsneg_cur token;
        if (!varint(&c, &token_len) || token_len > c.len ||
            !tlsneg_cur_bytes(&c, (size_t)token_len, &token)) {
            return TLSNEG_QUIC_BAD;
        }
    }
    uint64_t length;
    if (!varint(&c, &length) || length > c.len || length < 1) {
        return TLSNEG_QUIC_BAD;
    }
    out->pn_offset = tlsneg_cur_offset(&c);
    out->packet_len = out->pn_offset + (size_t)length;
    return TLSNEG_QUIC_OK;
}

bool tlsneg_quic_looks_initial(const uint8_t *d, size_t len)
{
    tlsneg_quic_long h;
    return tlsneg_quic_parse_long(d, len, &h) == TLSNEG_QUIC_OK && h.is_initial;
}

static bool aes_ecb(tlsneg_quic_crypto *x, const uint8_t key[16], const uint8_t in[16],
                    uint8_t out[16])
{
    return gcry_cipher_setkey(x->hp, key, 16) == 0 &&
           gcry_cipher_encrypt(x->hp, out, 16, in, 16) == 0;
}

/* RFC 9000 A.3 */
static uint64_t decode_pn(uint64_t expected, uint64_t truncated, unsigned pn_nbits)
{
    uint64_t win = (uint64_t)1 << pn_nbits;
    uint64_t hwin = win / 2;
    uint64_t mask = win - 1;
    uint64_t candidate = (expected & ~mask) | truncated;
    if (expected >= hwin && candidate + hwin <= expected && candidate < ((uint64_t)1 << 62) - win) {
        return candidate + win;
    }
    if (candidate > expected + hwin && candidate >= win) {
        return candidate - win;
    }
    return candidate;
}

bool tlsneg_quic_decrypt(tlsneg_quic_crypto *x, const tlsneg_quic_keys *k,
                         const tlsneg_quic_long *h, const uint8_t *pkt, uint64_t expected_pn,
                         uint8_t *out, size_t *out_len, uint64_t *out_pn)
{
    /* RFC 9001 5.4.2: the sample starts 4 bytes after the packet number's
     * start, whatever its length. */
    if (h->packet_len < h->pn_offset + 4 + 16) {
        return false;
    }
    uint8_t mask[16];
    if (!aes_ecb(x, k->hp, pkt + h->pn_offset + 4, mask)) {
        return false;
    }
    uint8_t first = (uint8_t)(pkt[0] ^ (mask[0] & 0x0f));
    size_t pn_len = (size_t)(first & 3) + 1;
    size_t header_len = h->pn_offset + pn_len;
    if (h->packet_len < header_len + 16) {
        return false;
    }
    /* The header as associated data, with the protection removed. */
    uint8_t *aad = out; /* out is packet_len bytes: the header fits, the
                           payload is written after it and moved down */
    memcpy(aad, pkt, header_len);
    aad[0] = first;
    uint64_t truncated = 0;
    for (size_t i = 0; i < pn_len; i++) {
        aad[h->pn_offset + i] = (uint8_t)(pkt[h->pn_offset + i] ^ mask[1 + i]);
        truncated = (truncated << 8) | aad[h->pn_offset + i];
    }
    uint64_t pn = decode_pn(expected_pn, truncated, (unsigned)(pn_len * 8));
    uint8_t nonce[12];
    memcpy(nonce, k->iv, 12);
    for (size_t i = 0; i < 8; i++) {
        nonce[11 - i] ^= (uint8_t)(pn >> (8 * i));
    }
    size_t ct_len = h->packet_len - header_len - 16;
    gcry_cipher_hd_t c = x->aead;
    bool ok = gcry_cipher_setkey(c, k->key, 16) == 0 && gcry_cipher_setiv(c, nonce, 12) == 0 &&
              gcry_cipher_authenticate(c, aad, header_len) == 0 &&
              gcry_cipher_decrypt(c, out + header_len, ct_len, pkt + header_len, ct_len) == 0 &&
              gcry_cipher_checktag(c, pkt + header_len + ct_len, 16) == 0;
    if (!ok) {
        return false;
    }
    memmove(out, out + header_len, ct_len);
    *out_len = ct_len;
    *out_pn = pn;
    return true;
}

/* zero_run counts the zero bytes p starts with, eight at a time: an Initial
 * is padded to 1200 bytes, often with hundreds of PADDING frames. */
static size_t zero_run(const uint8_t *p, size_t len)
{
    size_t n = 0;
    uint64_t w;
    while (len - n >= sizeof w) {
        memcpy(&w, p + n, sizeof w);
        if (w != 0) {
            break;
        }
        n += sizeof w;
    }
    while (n < len && p[n] == 0) {
        n++;
    }
    return n;
}

bool tlsneg_quic_frames(const uint8_t *p, size_t len, tlsneg_quic_crypto_fn on_crypto,
                        tlsneg_quic_close_fn on_close, void *user)
{
    tlsneg_cur c;
    tlsneg_cur_init(&c, p, len);
    while (c.len > 0) {
        uint64_t type;
        if (!varint(&c, &type)) {
            return false;
        }
        switch (type) {
        case 0x00: { /* PADDING: the run of them at once */
            size_t n = zero_run(c.p, c.len);
            c.p += n;
            c.len -= n;
            break;
        }
        case 0x01: /* PING */
            break;
        case 0x02: /* ACK */
        case 0x03: {
            uint64_t largest, delay, count, first_range, v;
            if (!varint(&c, &largest) || !varint(&c, &delay) || !varint(&c, &count) ||
                !varint(&c, &first_range)) {
                return false;
            }
            for (uint64_t i = 0; i < count; i++) {
                if (!varint(&c, &v) || !varint(&c, &v)) { /* gap, range length */
                    return false;
                }
            }
            if (type == 0x03 && (!varint(&c, &v) || !varint(&c, &v) || !varint(&c, &v))) {
                return false;
            }
            break;
        }
        case 0x06: { /* CRYPTO */
            uint64_t offset, n;
            tlsneg_cur data;
            if (!varint(&c, &offset) || !varint(&c, &n) || n > c.len ||
                !tlsneg_cur_bytes(&c, (size_t)n, &data)) {
                return false;
            }
            if (on_crypto) {
                on_crypto(user, offset, data.p, data.len);
            }
            break;
        }
        case 0x1c: /* CONNECTION_CLOSE (transport) */
        case 0x1d: {
            uint64_t code, frame_type = 0, reason_len;
            tlsneg_cur reason;
            if (!varint(&c, &code) || (type == 0x1c && !varint(&c, &frame_type)) ||
                !varint(&c, &reason_len) || reason_len > c.len ||
                !tlsneg_cur_bytes(&c, (size_t)reason_len, &reason)) {
                return false;
            }
            if (on_close && type == 0x1c) {
                on_close(user, code);
            }
            break;
        }
        default:
            return false;
        }
    }
    return true;
}
