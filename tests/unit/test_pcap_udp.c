/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_pcap_udp.c: the libpcap front end's packet path (tlsneg-pcap/) over
 * UDP: a DTLS ClientHello cut into fragments delivered out of order; QUIC
 * Initial keys and packets from RFC 9001 Appendix A and RFC 9369 Appendix
 * A, and the public QUIC captures (pcaps/, first argument: the repository
 * root). */
#define _DEFAULT_SOURCE 1

#include <gcrypt.h>
#include <pcap/pcap.h>

#include "core/hello.h"
#include "net.h"
#include "packets.h"
#include "pcap_capture.h"
#include "quic.h"
#include "tap.h"

/* ---- DTLS: a ClientHello cut into fragments ---- */

static void test_dtls(void)
{
    events es;
    run_capture("pcaps/dtls12-openssl.pcap", &es, NULL);
    /* tshark: frame 1 ClientHello (record 0xfeff), 2 HelloVerifyRequest, 3
     * ClientHello with the cookie, 4 ServerHello (record 0xfefd) */
    ok(es.n == 4 && es.e[0].bytes[0] == 1 && es.e[1].bytes[0] == 3 && es.e[2].bytes[0] == 1 &&
           es.e[3].bytes[0] == 2 && es.e[3].ev.frame == 4 && es.e[0].ev.record_version == 0xfeff &&
           es.e[3].ev.record_version == 0xfefd,
       "dtls12-openssl.pcap: ClientHello, HelloVerifyRequest, ClientHello, ServerHello");
    int link;
    size_t len;
    uint8_t *f = read_frame("pcaps/dtls12-openssl.pcap", 1, &link, &len);
    if (!f || es.n < 1) {
        ok(0, "dtls12-openssl.pcap frame 1");
        free(f);
        return;
    }
    uint8_t whole[4096];
    size_t whole_len = es.e[0].ev.len;
    memcpy(whole, es.e[0].bytes, whole_len);
    /* Three fragments (offsets 0, 60, 120 of the 198-byte body), each in a
     * record of its own datagram, sent 3, 1, 2. */
    const uint8_t *ip = f + 14;
    const uint8_t *rec = ip + 28; /* 20 IP + 8 UDP */
    uint32_t body = 198;
    uint32_t cuts[4] = {0, 60, 120, body};
    uint8_t *dg[3];
    size_t dg_len[3];
    for (int i = 0; i < 3; i++) {
        uint32_t off = cuts[i], n = cuts[i + 1] - cuts[i];
        size_t rl = 12 + n;
        size_t tot = 28 + 13 + rl;
        uint8_t *d = calloc(1, tot);
        memcpy(d, ip, 28);
        d[2] = (uint8_t)(tot >> 8);
        d[3] = (uint8_t)tot;
        d[24] = (uint8_t)((tot - 20) >> 8);
        d[25] = (uint8_t)(tot - 20);
        memcpy(d + 28, rec, 11); /* type, version, epoch, sequence */
        d[28 + 11] = (uint8_t)(rl >> 8);
        d[28 + 12] = (uint8_t)rl;
        uint8_t *h = d + 28 + 13;
        memcpy(h, whole, 6); /* type, length, message_seq */
        h[6] = (uint8_t)(off >> 16);
        h[7] = (uint8_t)(off >> 8);
        h[8] = (uint8_t)off;
        h[9] = (uint8_t)(n >> 16);
        h[10] = (uint8_t)(n >> 8);
        h[11] = (uint8_t)n;
        memcpy(h + 12, whole + 12 + off, n);
        dg[i] = d;
        dg_len[i] = tot;
    }
    memset(&es, 0, sizeof es);
    tlsneg_pcap *p = tlsneg_pcap_new(NULL, collect, &es);
    feed_raw(p, 1, dg[2], dg_len[2]);
    feed_raw(p, 2, dg[0], dg_len[0]);
    ok(es.n == 0, "two of three fragments: nothing yet");
    feed_raw(p, 3, dg[1], dg_len[1]);
    ok(es.n == 1 && es.e[0].ev.frame == 3 && es.e[0].ev.len == whole_len &&
           memcmp(es.e[0].bytes, whole, whole_len) == 0 && es.e[0].ev.wire == TLSNEG_WIRE_DTLS,
       "three fragments out of order: the same message as sent whole, in the completing frame");
    tlsneg_pcap_free(p);
    for (int i = 0; i < 3; i++) {
        free(dg[i]);
    }
    free(f);
}

/* ---- QUIC ---- */

static bool hex_eq(const uint8_t *b, size_t n, const char *hex)
{
    size_t hl;
    uint8_t *h = unhex(hex, &hl);
    bool r = hl == n && memcmp(b, h, n) == 0;
    free(h);
    return r;
}

/* RFC 9001 A.2 / RFC 9369 A.2: the client Initial's payload (a CRYPTO frame
 * holding the ClientHello, then PADDING to 1162 bytes). */
static const char *rfc_client_crypto =
    "060040f1010000ed0303ebf8fa56f12939b9584a3896472ec40bb863cfd3e868"
    "04fe3a47f06a2b69484c00000413011302010000c000000010000e00000b6578"
    "616d706c652e636f6dff01000100000a00080006001d00170018001000070005"
    "04616c706e000500050100000000003300260024001d00209370b2c9caa47fba"
    "baf4559fedba753de171fa71f50f1ce15d43e994ec74d748002b000302030400"
    "0d0010000e0403050306030203080408050806002d00020101001c0002400100"
    "3900320408ffffffffffffffff05048000ffff07048000ffff08011001048000"
    "75300901100f088394c8f03e51570806048000ffff";
/* RFC 9001 A.3 / RFC 9369 A.3: the server Initial's payload (ACK, CRYPTO
 * with the ServerHello). */
static const char *rfc_server_payload =
    "02000000000600405a020000560303eefce7f7b37ba1d1632e96677825ddf739"
    "88cfc79825df566dc5430b9a045a1200130100002e00330024001d00209d3c94"
    "0d89690b84d08a60993c144eca684d1081287c834d5311bcf32bb9da1a002b00"
    "020304";

/* protect_client builds the RFC's 1200-byte client Initial from its
 * unprotected header and payload (AES-128-GCM, then header protection), as
 * a sender would; the test then checks its first and last bytes against
 * the RFC's text. */
static uint8_t *protect_client(const tlsneg_quic_keys *k, const char *header_hex, size_t *out_len)
{
    size_t hl, cl;
    uint8_t *hdr = unhex(header_hex, &hl);
    uint8_t *crypto = unhex(rfc_client_crypto, &cl);
    size_t pl = 1162, total = hl + pl + 16;
    uint8_t *pkt = calloc(1, total);
    uint8_t *plain = calloc(1, pl);
    memcpy(plain, crypto, cl);
    memcpy(pkt, hdr, hl);
    uint8_t nonce[12];
    memcpy(nonce, k->iv, 12);
    nonce[11] ^= 2; /* packet number 2 */
    gcry_cipher_hd_t c;
    gcry_cipher_open(&c, GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_GCM, 0);
    gcry_cipher_setkey(c, k->key, 16);
    gcry_cipher_setiv(c, nonce, 12);
    gcry_cipher_authenticate(c, hdr, hl);
    gcry_cipher_encrypt(c, pkt + hl, pl, plain, pl);
    gcry_cipher_gettag(c, pkt + hl + pl, 16);
    gcry_cipher_close(c);
    uint8_t mask[16];
    gcry_cipher_open(&c, GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_ECB, 0);
    gcry_cipher_setkey(c, k->hp, 16);
    gcry_cipher_encrypt(c, mask, 16, pkt + 18 + 4, 16);
    gcry_cipher_close(c);
    pkt[0] ^= mask[0] & 0x0f;
    for (int i = 0; i < 4; i++) {
        pkt[18 + i] ^= mask[1 + i];
    }
    free(hdr);
    free(crypto);
    free(plain);
    *out_len = total;
    return pkt;
}

typedef struct {
    int crypto_frames;
    uint8_t data[2048];
    size_t len;
} crypto_seen;

static void on_crypto(void *user, uint64_t offset, const uint8_t *d, size_t n)
{
    crypto_seen *c = user;
    c->crypto_frames++;
    if (offset + n <= sizeof c->data) {
        memcpy(c->data + offset, d, n);
        if (offset + n > c->len) {
            c->len = (size_t)(offset + n);
        }
    }
}

/* udp4 wraps a QUIC datagram in IPv4/UDP for the raw link type. */
static uint8_t *udp4(const uint8_t *pl, size_t n, bool to_server, size_t *out_len)
{
    size_t tot = 28 + n;
    uint8_t *d = calloc(1, tot);
    d[0] = 0x45;
    d[2] = (uint8_t)(tot >> 8);
    d[3] = (uint8_t)tot;
    d[8] = 64;
    d[9] = 17;
    uint8_t c[4] = {192, 0, 2, 1}, s[4] = {192, 0, 2, 2};
    memcpy(d + 12, to_server ? c : s, 4);
    memcpy(d + 16, to_server ? s : c, 4);
    uint16_t cp = 50000, sp = 443;
    uint16_t a = to_server ? cp : sp, b = to_server ? sp : cp;
    d[20] = (uint8_t)(a >> 8);
    d[21] = (uint8_t)a;
    d[22] = (uint8_t)(b >> 8);
    d[23] = (uint8_t)b;
    d[24] = (uint8_t)((n + 8) >> 8);
    d[25] = (uint8_t)(n + 8);
    memcpy(d + 28, pl, n);
    *out_len = tot;
    return d;
}

static void quic_rfc(const char *name, uint32_t version, const char *keys_hex[6],
                     const char *client_header, const char *client_prefix,
                     const char *client_suffix, const char *server_packet)
{
    static const uint8_t dcid[8] = {0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08};
    tlsneg_quic_keys keys[2];
    tlsneg_quic_crypto *x = tlsneg_quic_crypto_new();
    ok(x && tlsneg_quic_initial_keys(x, version, dcid, 8, keys), "%s: Initial keys derive", name);
    const tlsneg_quic_keys ck = keys[0], sk = keys[1];
    ok(hex_eq(ck.key, 16, keys_hex[0]) && hex_eq(ck.iv, 12, keys_hex[1]) &&
           hex_eq(ck.hp, 16, keys_hex[2]),
       "%s A.1: client key, iv, hp", name);
    ok(hex_eq(sk.key, 16, keys_hex[3]) && hex_eq(sk.iv, 12, keys_hex[4]) &&
           hex_eq(sk.hp, 16, keys_hex[5]),
       "%s A.1: server key, iv, hp", name);

    size_t cl;
    uint8_t *cpkt = protect_client(&ck, client_header, &cl);
    size_t pfx_len, sfx_len;
    uint8_t *pfx = unhex(client_prefix, &pfx_len), *sfx = unhex(client_suffix, &sfx_len);
    ok(cl == 1200 && memcmp(cpkt, pfx, pfx_len) == 0 &&
           memcmp(cpkt + cl - sfx_len, sfx, sfx_len) == 0,
       "%s A.2: the client Initial protected here begins and ends as the RFC's", name);
    free(pfx);
    free(sfx);
    tlsneg_quic_long h;
    ok(tlsneg_quic_parse_long(cpkt, cl, &h) == TLSNEG_QUIC_OK && h.is_initial &&
           h.version == version && h.dcid_len == 8 && h.pn_offset == 18 && h.packet_len == 1200,
       "%s A.2: the long header parses (packet number at 18, 1200 bytes)", name);
    uint8_t *out = malloc(cl);
    size_t out_len;
    uint64_t pn;
    ok(tlsneg_quic_decrypt(x, &ck, &h, cpkt, 0, out, &out_len, &pn) && pn == 2 && out_len == 1162,
       "%s A.2: the client Initial decrypts (packet number 2, 1162 bytes)", name);
    crypto_seen cs;
    memset(&cs, 0, sizeof cs);
    ok(tlsneg_quic_frames(out, out_len, on_crypto, NULL, &cs) && cs.crypto_frames == 1 &&
           cs.len == 241 && cs.data[0] == 1,
       "%s A.2: one CRYPTO frame with the 241-byte ClientHello, then PADDING", name);
    cpkt[100] ^= 1;
    ok(!tlsneg_quic_decrypt(x, &ck, &h, cpkt, 0, out, &out_len, &pn),
       "%s: one flipped bit and the tag does not verify", name);
    cpkt[100] ^= 1;
    ok(tlsneg_quic_decrypt(x, &ck, &h, cpkt, 0, out, &out_len, &pn) && pn == 2 && out_len == 1162,
       "%s: after the failed tag the same handles decrypt the packet again", name);
    free(out);

    size_t sl;
    uint8_t *spkt = unhex(server_packet, &sl);
    ok(tlsneg_quic_parse_long(spkt, sl, &h) == TLSNEG_QUIC_OK && h.is_initial && h.dcid_len == 0 &&
           h.scid_len == 8 && h.packet_len == sl,
       "%s A.3: the server Initial's long header parses", name);
    out = malloc(sl);
    size_t pl_len;
    uint8_t *payload = unhex(rfc_server_payload, &pl_len);
    ok(tlsneg_quic_decrypt(x, &sk, &h, spkt, 0, out, &out_len, &pn) && pn == 1 &&
           out_len == pl_len && memcmp(out, payload, pl_len) == 0,
       "%s A.3: the server Initial decrypts to the RFC's payload (packet number 1)", name);
    free(out);
    free(payload);

    /* The two packets through the whole packet path. */
    events es;
    memset(&es, 0, sizeof es);
    tlsneg_pcap *p = tlsneg_pcap_new(NULL, collect, &es);
    size_t l1, l2;
    uint8_t *d1 = udp4(cpkt, cl, true, &l1), *d2 = udp4(spkt, sl, false, &l2);
    feed_raw(p, 1, d1, l1);
    feed_raw(p, 2, d2, l2);
    ok(es.n == 2 && es.e[0].ev.wire == TLSNEG_WIRE_QUIC && es.e[0].bytes[0] == 1 &&
           es.e[0].ev.len == 241 && from_client(&es.e[0].ev) && !es.e[0].ev.has_record &&
           es.e[1].bytes[0] == 2 && es.e[1].ev.len == 90 && !from_client(&es.e[1].ev),
       "%s: the packet path finds the ClientHello (241 bytes) and ServerHello (90 bytes)", name);
    tlsneg_pcap_free(p);
    free(d1);
    free(d2);
    free(cpkt);
    free(spkt);
    tlsneg_quic_crypto_free(x);
}

static void test_quic(void)
{
    const char *v1_keys[6] = {
        "1f369613dd76d5467730efcbe3b1a22d", "fa044b2f42a3fd3b46fb255c",
        "9f50449e04a0e810283a1e9933adedd2", "cf3a5331653c364c88f0f379b6067e37",
        "0ac1493ca1905853b0bba03e",         "c206b8d9b9f0f37644430b490eeaa314"};
    quic_rfc("RFC 9001", TLSNEG_QUIC_V1, v1_keys, "c300000001088394c8f03e5157080000449e00000002",
             "c000000001088394c8f03e5157080000449e7b9aec34d1b1c98dd7689fb8ec11",
             "7e78bfe706ca4cf5e9c5453e9f7cfd2b8b4c8d169a44e55c88d4a9a7f9474241"
             "e221af44860018ab0856972e194cd934",
             "cf000000010008f067a5502a4262b5004075c0d95a482cd0991cd25b0aac406a"
             "5816b6394100f37a1c69797554780bb38cc5a99f5ede4cf73c3ec2493a1839b3"
             "dbcba3f6ea46c5b7684df3548e7ddeb9c3bf9c73cc3f3bded74b562bfb19fb84"
             "022f8ef4cdd93795d77d06edbb7aaf2f58891850abbdca3d20398c276456cbc4"
             "2158407dd074ee");
    const char *v2_keys[6] = {
        "8b1a0bc121284290a29e0971b5cd045d", "91f73e2351d8fa91660e909f",
        "45b95e15235d6f45a6b19cbcb0294ba9", "82db637861d55e1d011f19ea71d5d2a7",
        "dd13c276499c0249d3310652",         "edf6d05c83121201b436e16877593c3a"};
    quic_rfc("RFC 9369", TLSNEG_QUIC_V2, v2_keys, "d36b3343cf088394c8f03e5157080000449e00000002",
             "d76b3343cf088394c8f03e5157080000449ea0c95e82ffe67b6abcdb4298b485",
             "9a37ddec600545473cfb5a05e08d0b209973b2172b4d21fb69745a262ccde96b"
             "a18b2faa745b6fe189cf772a9f84cbfc",
             "dc6b3343cf0008f067a5502a4262b5004075d92faaf16f05d8a4398c47089698"
             "baeea26b91eb761d9b89237bbf87263017915358230035f7fd3945d88965cf17"
             "f9af6e16886c61bfc703106fbaf3cb4cfa52382dd16a393e42757507698075b2"
             "c984c707f0a0812d8cd5a6881eaf21ceda98f4bd23f6fe1a3e2c43edd9ce7ca8"
             "4bed8521e2e140");
    uint8_t secret[32];
    static const uint8_t dcid[8] = {0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08};
    tlsneg_quic_crypto *x = tlsneg_quic_crypto_new();
    ok(x && tlsneg_quic_initial_secret(x, TLSNEG_QUIC_V1, dcid, 8, false, secret) &&
           hex_eq(secret, 32, "c00cf151ca5be075ed0ebfb5c80323c42d6b7db67881289af4008f1f6c357aea"),
       "RFC 9001 A.1: client_initial_secret");
    ok(x && tlsneg_quic_initial_secret(x, TLSNEG_QUIC_V1, dcid, 8, true, secret) &&
           hex_eq(secret, 32, "3c199828fd139efd216c155ad844cc81fb82fa8d7446fa7d78be803acdda951b"),
       "RFC 9001 A.1: server_initial_secret");
    tlsneg_quic_keys keys[2];
    ok(x && !tlsneg_quic_initial_keys(x, 0xff00001c, dcid, 8, keys),
       "no keys for an unknown version (draft-28)");
    tlsneg_quic_crypto_free(x);

    /* The public captures (tshark: quic.frame_type, tls.handshake.type). */
    events es;
    tlsneg_pcap_stats st;
    run_capture("pcaps/public/zeek/quic-go-handshake.pcap", &es, &st);
    ok(es.n == 2 && es.e[0].bytes[0] == 1 && es.e[0].ev.frame == 5 && es.e[1].bytes[0] == 2 &&
           es.e[1].ev.frame == 6 && st.quic_failed == 0,
       "quic-go-handshake.pcap (v1 over PPP/IPv4): ClientHello frame 5, ServerHello frame 6");
    run_capture("pcaps/public/zeek/quicv2-http3-443.pcap", &es, &st);
    ok(es.n == 2 && es.e[0].bytes[0] == 1 && es.e[0].ev.frame == 1 && es.e[1].bytes[0] == 2 &&
           es.e[1].ev.frame == 2 && st.quic_failed == 0,
       "quicv2-http3-443.pcap (v2): ClientHello frame 1, ServerHello frame 2");
    run_capture("pcaps/public/zeek/quic-multiple-initial-fragmented-crypto.pcap", &es, &st);
    ok(es.n == 1 && es.e[0].bytes[0] == 1 && es.e[0].ev.frame == 3 && es.e[0].ev.len == 2246 &&
           st.quic_decrypted == 12 && st.quic_failed == 0,
       "quic-multiple-initial-fragmented-crypto.pcap: the 2246-byte ClientHello from the CRYPTO "
       "frames of three Initials, complete in frame 3; all 12 Initials decrypt");
    /* hello_segments over several feeds (CRYPTO offset 0 in order, then the
     * rest once the gaps are filled): the datagrams whose Initial CRYPTO
     * frames hold a byte of it (quic.crypto.offset, quic.crypto.length,
     * frame.number; tests/captures/readoff/quicdatagrams.py). */
    const tlsneg_segments *sg = es.n == 1 ? &es.e[0].ev.segments : NULL;
    ok(sg && sg->count == 3 && sg->num_frames == 3 && sg->frames[0] == 1 && sg->frames[1] == 2 &&
           sg->frames[2] == 3,
       "quic-multiple-initial-fragmented-crypto.pcap: the ClientHello in 3 datagrams, 1 to 3");
    run_capture("pcaps/quic-pq-curl-split-hello.pcap", &es, &st);
    sg = es.n == 2 ? &es.e[0].ev.segments : NULL;
    ok(sg && es.e[0].bytes[0] == 1 && es.e[0].ev.frame == 3 && es.e[0].ev.len == 1481 &&
           sg->count == 2 && sg->num_frames == 2 && sg->frames[0] == 1 && sg->frames[1] == 3 &&
           es.e[1].ev.segments.count == 1 && es.e[1].ev.segments.frames[0] == 4,
       "quic-pq-curl-split-hello.pcap: the 1481-byte ClientHello, CRYPTO in order over the "
       "Initials of frames 1 and 3 (2 datagrams); the ServerHello in frame 4 (1)");
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        root = argv[1];
    }
    test_dtls();
    test_quic();
    return tap_done();
}
