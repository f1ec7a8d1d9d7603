/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "groups.h"

#include "versions.h"

#include <stdio.h>

typedef struct {
    uint16_t code;
    uint16_t client_len; /* key_exchange length from the client, 0: not fixed here */
    uint16_t server_len; /* from the server */
    const char *name;
} group_row;

/* The IANA TLS Supported Groups registry, names as it spells them, in code
 * point order. Share lengths: ML-KEM (FIPS 203): encapsulation key from the
 * client (ML-KEM-512 800, -768 1,184, -1024 1,568 bytes), ciphertext from
 * the server (768, 1,088, 1,568); draft-ietf-tls-ecdhe-mlkem concatenates
 * them with the ECDHE share (X25519 32 bytes, P-256 uncompressed 65, P-384
 * 97): X25519MLKEM768 1,184 + 32 = 1,216 and 1,088 + 32 = 1,120,
 * SecP256r1MLKEM768 65 + 1,184 = 1,249 and 65 + 1,088 = 1,153,
 * SecP384r1MLKEM1024 97 + 1,568 = 1,665 both ways;
 * draft-tls-westerbaan-xyber768d00 (X25519Kyber768Draft00): 32 + 1,184 and
 * 32 + 1,088. */
static const group_row rows[] = {
    {0x0001, 0, 0, "sect163k1"},
    {0x0002, 0, 0, "sect163r1"},
    {0x0003, 0, 0, "sect163r2"},
    {0x0004, 0, 0, "sect193r1"},
    {0x0005, 0, 0, "sect193r2"},
    {0x0006, 0, 0, "sect233k1"},
    {0x0007, 0, 0, "sect233r1"},
    {0x0008, 0, 0, "sect239k1"},
    {0x0009, 0, 0, "sect283k1"},
    {0x000a, 0, 0, "sect283r1"},
    {0x000b, 0, 0, "sect409k1"},
    {0x000c, 0, 0, "sect409r1"},
    {0x000d, 0, 0, "sect571k1"},
    {0x000e, 0, 0, "sect571r1"},
    {0x000f, 0, 0, "secp160k1"},
    {0x0010, 0, 0, "secp160r1"},
    {0x0011, 0, 0, "secp160r2"},
    {0x0012, 0, 0, "secp192k1"},
    {0x0013, 0, 0, "secp192r1"},
    {0x0014, 0, 0, "secp224k1"},
    {0x0015, 0, 0, "secp224r1"},
    {0x0016, 0, 0, "secp256k1"},
    {0x0017, 0, 0, "secp256r1"},
    {0x0018, 0, 0, "secp384r1"},
    {0x0019, 0, 0, "secp521r1"},
    {0x001a, 0, 0, "brainpoolP256r1"},
    {0x001b, 0, 0, "brainpoolP384r1"},
    {0x001c, 0, 0, "brainpoolP512r1"},
    {0x001d, 0, 0, "x25519"},
    {0x001e, 0, 0, "x448"},
    {0x001f, 0, 0, "brainpoolP256r1tls13"},
    {0x0020, 0, 0, "brainpoolP384r1tls13"},
    {0x0021, 0, 0, "brainpoolP512r1tls13"},
    {0x0022, 0, 0, "GC256A"},
    {0x0023, 0, 0, "GC256B"},
    {0x0024, 0, 0, "GC256C"},
    {0x0025, 0, 0, "GC256D"},
    {0x0026, 0, 0, "GC512A"},
    {0x0027, 0, 0, "GC512B"},
    {0x0028, 0, 0, "GC512C"},
    {0x0029, 0, 0, "curveSM2"},
    {0x0100, 0, 0, "ffdhe2048"},
    {0x0101, 0, 0, "ffdhe3072"},
    {0x0102, 0, 0, "ffdhe4096"},
    {0x0103, 0, 0, "ffdhe6144"},
    {0x0104, 0, 0, "ffdhe8192"},
    {0x0200, 800, 768, "MLKEM512"},
    {0x0201, 1184, 1088, "MLKEM768"},
    {0x0202, 1568, 1568, "MLKEM1024"},
    {0x11eb, 1249, 1153, "SecP256r1MLKEM768"},
    {0x11ec, 1216, 1120, "X25519MLKEM768"},
    {0x11ed, 1665, 1665, "SecP384r1MLKEM1024"},
    {0x6399, 1216, 1120, "X25519Kyber768Draft00"},
    {0x639a, 0, 0, "SecP256r1Kyber768Draft00"},
    {0xff01, 0, 0, "arbitrary_explicit_prime_curves"},
    {0xff02, 0, 0, "arbitrary_explicit_char2_curves"},
};

/* find: a binary search of the rows, which are sorted. */
static const group_row *find(uint16_t g)
{
    size_t lo = 0, hi = sizeof rows / sizeof rows[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rows[mid].code == g) {
            return &rows[mid];
        }
        if (rows[mid].code < g) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return NULL;
}

const char *tlsneg_named_group_name(uint16_t g)
{
    if (tlsneg_is_grease(g)) {
        return "GREASE";
    }
    const group_row *r = find(g);
    return r ? r->name : NULL;
}

const char *tlsneg_gclass_name(tlsneg_gclass c)
{
    switch (c) {
    case TLSNEG_GCLASS_CLASSICAL:
        return "classical";
    case TLSNEG_GCLASS_FFDHE:
        return "FFDHE";
    case TLSNEG_GCLASS_PQ:
        return "post-quantum";
    case TLSNEG_GCLASS_PQ_HYBRID:
        return "post-quantum hybrid";
    case TLSNEG_GCLASS_GREASE:
        return "GREASE";
    case TLSNEG_GCLASS_UNKNOWN:
        break;
    }
    return "unknown";
}

unsigned tlsneg_named_group_share_length(uint16_t g, bool from_client)
{
    const group_row *r = tlsneg_is_grease(g) ? NULL : find(g);
    return r ? (from_client ? r->client_len : r->server_len) : 0;
}

const char *tlsneg_named_group_text(uint16_t g, const char *prefix, char *buf, size_t buf_len)
{
    const char *name = tlsneg_named_group_name(g);
    if (name) {
        return name;
    }
    snprintf(buf, buf_len, "%s0x%04x", prefix, g);
    return buf;
}

const char *tlsneg_named_group_describe(uint16_t g, char *buf, size_t buf_len)
{
    const char *name = tlsneg_named_group_name(g);
    tlsneg_gclass c = tlsneg_named_group_class(g);
    if (c == TLSNEG_GCLASS_UNKNOWN || c == TLSNEG_GCLASS_GREASE) {
        snprintf(buf, buf_len, "%s (0x%04x)", name ? name : "unknown", g);
    } else {
        snprintf(buf, buf_len, "%s (0x%04x, %s)", name, g, tlsneg_gclass_name(c));
    }
    return buf;
}

uint16_t tlsneg_named_group_bit(uint16_t g)
{
    switch (g) {
    case 0x001d:
        return 1u << 0;
    case 0x001e:
        return 1u << 1;
    case 0x0017:
        return 1u << 2;
    case 0x0018:
        return 1u << 3;
    case 0x0019:
        return 1u << 4;
    case 0x0100:
    case 0x0101:
    case 0x0102:
    case 0x0103:
    case 0x0104:
        return (uint16_t)(1u << (5 + (g & 7))); /* bits 5 to 9 */
    case 0x0201:
        return 1u << 10;
    case 0x0202:
        return 1u << 11;
    case 0x11eb:
    case 0x11ec:
    case 0x11ed:
        return (uint16_t)(1u << (12 + (g - 0x11eb))); /* bits 12 to 14 */
    case 0x6399:
        return 1u << 15;
    default:
        return 0;
    }
}
