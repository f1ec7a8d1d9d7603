/* SPDX-License-Identifier: GPL-2.0-or-later */
/* offer.c: a ClientHello reduced to what attempts across connections
 * compare (its versions and fingerprints), and the comparisons. */
#include "analysis/offer.h"

#include "core/groups.h"
#include "core/util.h"
#include "core/versions.h"

#include <stdio.h>
#include <string.h>

/* A list's fingerprint: tlsneg_hash_mix over its 16-bit code points, in
 * order, from FP_SEED, its 64 bits folded to the 32 an offer keeps
 * (fp_fold: the mix already folds the high half into the low one). Only
 * compared within a run, never shown. */
#define FP_SEED 0x9e3779b97f4a7c15u

static uint32_t fp_fold(uint64_t h)
{
    return (uint32_t)h;
}

/* set_member spreads one value over 32 bits; summed, the members hash a
 * set whatever its order (Chrome shuffles its extensions). */
static uint32_t set_member(uint16_t v)
{
    return fp_fold(tlsneg_hash_mix(FP_SEED, v));
}

bool tlsneg_extension_signals_version(uint16_t t)
{
    switch (t) {
    case TLSNEG_EXT_PADDING: /* its length follows the rest of the hello */
    case TLSNEG_EXT_KEY_SHARE_DRAFT:
    case TLSNEG_EXT_PRE_SHARED_KEY:
    case TLSNEG_EXT_EARLY_DATA:
    case TLSNEG_EXT_SUPPORTED_VERSIONS:
    case 27: /* compress_certificate: TLS 1.3 only (RFC 8879 section 3) */
    case TLSNEG_EXT_COOKIE:
    case TLSNEG_EXT_PSK_KEY_EXCHANGE_MODES:
    case 49: /* post_handshake_auth */
    case 50: /* signature_algorithms_cert */
    case TLSNEG_EXT_KEY_SHARE:
    case 0xfe0d: /* encrypted_client_hello: offered only with TLS 1.3 */
        return true;
    default:
        return false;
    }
}

/* skip_group leaves out the groups a client offers only with TLS 1.3, which
 * a fallback retry drops without changing anything else: by their class in
 * core/groups.c, the FFDHE groups (RFC 7919), which OpenSSL 3.0 offers only
 * with TLS 1.3 (measured, pcaps/: a -tls1_2 hello lacks 0x0100-0x0104),
 * ML-KEM and the hybrids with ML-KEM and its Kyber drafts, all defined for
 * TLS 1.3 only (OpenSSL 3.5's -tls1_2 hello lacks its default 0x11ec:
 * measured, pcaps/fallback-openssl35.pcap); and the brainpool groups of RFC
 * 8734 (0x001f-0x0021), classical but for TLS 1.3 only. */
static bool skip_group(uint16_t v)
{
    tlsneg_gclass c = tlsneg_named_group_class(v);
    return c == TLSNEG_GCLASS_FFDHE || c == TLSNEG_GCLASS_PQ || c == TLSNEG_GCLASS_PQ_HYBRID ||
           (v >= 0x001f && v <= 0x0021);
}

/* skip_sigalg leaves out the signature schemes defined for TLS 1.3 only: the
 * brainpool ECDSA schemes of RFC 8734 (0x081a-0x081c) and ML-DSA
 * (0x0904-0x0906), which OpenSSL 3.5's -tls1_2 hello drops (measured,
 * pcaps/fallback-openssl35.pcap). */
static bool skip_sigalg(uint16_t v)
{
    return (v >= 0x081a && v <= 0x081c) || (v >= 0x0904 && v <= 0x0906);
}

/* list_of hashes a list of 2-byte code points in order, in one walk, twice:
 * without GREASE (*no_grease), and also without the groups skip_group
 * leaves out (groups) or the schemes skip_sigalg does (*kept). Both are 0
 * without the list. */
static void list_of(bool present, tlsneg_cur list, bool groups, uint32_t *kept, uint32_t *no_grease)
{
    *kept = *no_grease = 0;
    if (!present) {
        return;
    }
    uint64_t k = FP_SEED, g = FP_SEED;
    uint16_t v;
    while (tlsneg_cur_u16(&list, &v)) {
        if (tlsneg_is_grease(v)) {
            continue;
        }
        g = tlsneg_hash_mix(g, v);
        if (!(groups ? skip_group(v) : skip_sigalg(v))) {
            k = tlsneg_hash_mix(k, v);
        }
    }
    *kept = fp_fold(k);
    *no_grease = fp_fold(g);
}

/* The cipher suites hashed in order, in one walk: all but GREASE and the
 * SCSV (all); also without the signalling ones (suites); also without the
 * ones that need TLS 1.2 (pre12). */
typedef struct {
    uint64_t suites, pre12, all;
} suite_hashes;

static inline void add_suite(suite_hashes *s, uint16_t v)
{
    if (tlsneg_is_grease(v) || v == TLSNEG_CS_FALLBACK_SCSV) {
        return;
    }
    s->all = tlsneg_hash_mix(s->all, v);
    if (v == 0x00ff || (v >> 8) == 0x13) {
        return; /* the renegotiation SCSV, a TLS 1.3 suite */
    }
    s->suites = tlsneg_hash_mix(s->suites, v);
    if (!tlsneg_suite_needs_tls12(v)) {
        s->pre12 = tlsneg_hash_mix(s->pre12, v);
    }
}

/* suites hashes the cipher suites; SSLv2 cipher specs count by their low two
 * bytes when the high byte is zero (the TLS suites among them). */
static suite_hashes suites(const tlsneg_hello *h)
{
    suite_hashes s = {FP_SEED, FP_SEED, FP_SEED};
    tlsneg_cur list = h->cipher_suites;
    if (h->wire != TLSNEG_WIRE_SSL2) {
        uint16_t v;
        while (tlsneg_cur_u16(&list, &v)) {
            add_suite(&s, v);
        }
        return s;
    }
    uint8_t hi;
    uint16_t lo;
    while (tlsneg_cur_u8(&list, &hi) && tlsneg_cur_u16(&list, &lo)) {
        if (hi == 0) {
            add_suite(&s, lo);
        }
    }
    return s;
}

uint8_t tlsneg_version_bit(uint16_t v, bool dtls)
{
    unsigned r = tlsneg_version_rank(v, dtls);
    if (dtls) {
        return (uint8_t)(r >= 1 && r <= 4 ? 1u << (r - 1) : 0u);
    }
    if (r >= 1 && r <= 5) {
        return (uint8_t)(1u << (r - 1)); /* SSL 2.0 .. TLS 1.2 */
    }
    if (tlsneg_version_is_draft(v)) {
        return 1u << 5;
    }
    return v == TLSNEG_V_TLS13 ? 1u << 6 : 0;
}

uint32_t tlsneg_draft_bit(uint16_t v)
{
    return tlsneg_version_is_draft(v) ? 1u << ((v ^ (v >> 8)) & 31u) : 0;
}

static uint8_t versions_offered(const tlsneg_facts *f, bool dtls)
{
    uint8_t bits = 0;
    if (f->has_supported_versions) {
        for (size_t i = 0; i < f->num_offered; i++) {
            bits |= tlsneg_version_bit(f->offered[i], dtls);
        }
        return bits;
    }
    /* Without the extension a client offers every version up to
     * legacy_version (RFC 5246 E.1); SSL 2.0 only in an SSLv2 hello. */
    static const uint16_t tls[] = {TLSNEG_V_SSL3, TLSNEG_V_TLS10, TLSNEG_V_TLS11, TLSNEG_V_TLS12};
    static const uint16_t dtls_versions[] = {TLSNEG_V_DTLS_OPENSSL, TLSNEG_V_DTLS10,
                                             TLSNEG_V_DTLS12};
    const uint16_t *list = dtls ? dtls_versions : tls;
    size_t n = dtls ? 3 : 4;
    unsigned top = tlsneg_version_rank(f->legacy_version, dtls);
    for (size_t i = 0; i < n; i++) {
        if (tlsneg_version_rank(list[i], dtls) <= top) {
            bits |= tlsneg_version_bit(list[i], dtls);
        }
    }
    if (f->wire == TLSNEG_WIRE_SSL2) {
        bits |= tlsneg_version_bit(TLSNEG_V_SSL2, false);
    }
    return bits;
}

/* session_hash: 32 bits, as an attempt keeps it (attempts.h). */
static uint32_t session_hash(const tlsneg_hello *h)
{
    return h->session_id.len
               ? tlsneg_fold32(tlsneg_hash_bytes(h->session_id.p, h->session_id.len)) | 1u
               : 0;
}

static uint8_t tls13_extensions(const tlsneg_hello *h)
{
    return (uint8_t)((tlsneg_hello_has_extension(h, TLSNEG_EXT_KEY_SHARE) ? TLSNEG_OFFER_KEY_SHARE
                                                                          : 0) |
                     (tlsneg_hello_has_extension(h, TLSNEG_EXT_PSK_KEY_EXCHANGE_MODES)
                          ? TLSNEG_OFFER_PSK_MODES
                          : 0) |
                     (tlsneg_hello_has_extension(h, TLSNEG_EXT_EARLY_DATA) ? TLSNEG_OFFER_EARLY_DATA
                                                                           : 0) |
                     (tlsneg_hello_has_extension(h, TLSNEG_EXT_PRE_SHARED_KEY)
                          ? TLSNEG_OFFER_PRE_SHARED_KEY
                          : 0));
}

/* hrr_fold adds one extension to what a ClientHello after a
 * HelloRetryRequest must not change (RFC 8446 4.1.2): its type, in order,
 * and its body where the body may not change (the name, signature
 * algorithms, ALPN; another extension may change its body: "other
 * modifications that may be allowed by an extension defined in the
 * future", as ECH's). key_share, early_data, cookie and pre_shared_key may
 * change, padding follows the rest; supported_groups and
 * supported_versions are compared from the facts. */
static uint64_t hrr_fold(uint64_t h, uint16_t type, const tlsneg_cur *body)
{
    switch (type) {
    case TLSNEG_EXT_COOKIE:
    case TLSNEG_EXT_EARLY_DATA:
    case TLSNEG_EXT_PRE_SHARED_KEY:
    case TLSNEG_EXT_KEY_SHARE:
    case TLSNEG_EXT_SUPPORTED_GROUPS:
    case TLSNEG_EXT_SUPPORTED_VERSIONS:
        return h;
    case TLSNEG_EXT_SERVER_NAME:
    case TLSNEG_EXT_SIGNATURE_ALGORITHMS:
    case TLSNEG_EXT_ALPN:
        return tlsneg_hash_mix(tlsneg_hash_mix(h, type), tlsneg_hash_bytes(body->p, body->len));
    default:
        return tlsneg_hash_mix(h, type);
    }
}

/* extension_sets hashes the extension types as sets: without the version
 * signals (exts), and also without signature_algorithms (pre12); all holds
 * every type but GREASE, padding, pre_shared_key, early_data and cookie.
 * On the same walk, in order, what a HelloRetryRequest may not change
 * (hrr_fold). */
static void extension_sets(const tlsneg_hello *h, uint32_t *exts, uint32_t *pre12, uint32_t *all,
                           uint64_t *hrr)
{
    tlsneg_cur walk = h->extensions;
    uint16_t type;
    tlsneg_cur body;
    *exts = *pre12 = *all = 0;
    *hrr = FP_SEED;
    for (size_t i = 0; i < h->num_extensions && tlsneg_hello_next_extension(&walk, &type, &body);
         i++) {
        if (tlsneg_is_grease(type) || type == TLSNEG_EXT_PADDING) {
            continue;
        }
        *hrr = hrr_fold(*hrr, type, &body);
        uint32_t m = set_member(type);
        /* Resumption and a cookie come and go between two connections of
         * one client that change nothing else. */
        if (type != TLSNEG_EXT_PRE_SHARED_KEY && type != TLSNEG_EXT_EARLY_DATA &&
            type != TLSNEG_EXT_COOKIE) {
            *all += m;
        }
        if (tlsneg_extension_signals_version(type)) {
            continue;
        }
        *exts += m;
        if (type != TLSNEG_EXT_SIGNATURE_ALGORITHMS) {
            *pre12 += m;
        }
    }
}

/* key_exchange notes the offer's post-quantum groups and shares and its
 * size, from the facts. */
static void key_exchange(tlsneg_offer *out, const tlsneg_facts *f)
{
    out->pq_offered = f->pq_offered;
    out->pq_key_share = f->pq_key_share;
    /* The facts' pq_key_share and pq_offered cover every share and group
     * kept: without them there is no post-quantum group to look for. */
    for (size_t i = 0; f->pq_key_share && i < f->num_key_shares && !out->pq_group; i++) {
        if (tlsneg_named_group_is_pq(f->key_shares[i].group)) {
            out->pq_group = f->key_shares[i].group;
        }
    }
    for (size_t i = 0; i < f->num_groups; i++) {
        uint16_t g = f->groups[i];
        out->group_bits |= tlsneg_named_group_bit(g);
        if (f->pq_offered && !out->pq_group && tlsneg_named_group_is_pq(g)) {
            out->pq_group = g;
        }
    }
    out->hello_length = (uint16_t)(f->hello_length < UINT16_MAX ? f->hello_length : UINT16_MAX);
    out->hello_segments = (uint8_t)(f->hello_segments < UINT8_MAX ? f->hello_segments : UINT8_MAX);
}

void tlsneg_offer_from_hello(tlsneg_offer *out, tlsneg_hello_prints *prints, const tlsneg_hello *h,
                             const tlsneg_facts *f)
{
    bool dtls = f->wire == TLSNEG_WIRE_DTLS;
    memset(out, 0, sizeof *out);
    out->dtls = dtls;
    out->datagram = dtls || f->wire == TLSNEG_WIRE_QUIC;
    out->has_offered_max = f->has_offered_max;
    out->offered_max = f->offered_max;
    out->has_supported_versions = f->has_supported_versions;
    out->tls13_extensions = tls13_extensions(h);
    out->fallback_scsv = f->fallback_scsv;
    out->session_id = session_hash(h);
    uint16_t v13 = dtls ? TLSNEG_V_DTLS13 : TLSNEG_V_TLS13;
    for (size_t i = 0; i < f->num_offered; i++) {
        out->offers_tls13 |= f->offered[i] == v13;
    }
    out->versions = versions_offered(f, dtls);
    for (size_t i = 0; i < f->num_offered && !dtls; i++) {
        out->drafts |= tlsneg_draft_bit(f->offered[i]);
    }

    out->has_fingerprint = true;
    suite_hashes sh = suites(h);
    out->fp_suites = fp_fold(sh.suites);
    out->fp_suites_pre12 = fp_fold(sh.pre12);
    uint32_t all_groups, all_sigalgs;
    tlsneg_cur groups = {0}, sigalgs = {0}, sigalgs_body = h->signature_algorithms.body;
    bool has_groups = tlsneg_hello_groups(h, &groups);
    bool has_sigalgs =
        h->signature_algorithms.present && tlsneg_cur_u16_prefixed(&sigalgs_body, &sigalgs);
    list_of(has_groups, groups, true, &out->fp_groups, &all_groups);
    list_of(has_sigalgs, sigalgs, false, &out->fp_sigalgs, &all_sigalgs);
    uint32_t all_exts;
    uint64_t hrr_exts;
    extension_sets(h, &out->fp_exts, &out->fp_exts_pre12, &all_exts, &hrr_exts);
    uint64_t all = tlsneg_hash_mix(sh.all, out->versions);
    all = tlsneg_hash_mix(all ^ all_groups, 0);
    all = tlsneg_hash_mix(all ^ all_sigalgs, 1);
    all = tlsneg_hash_mix(all ^ all_exts, 2);
    out->fp_all = fp_fold(all);
    key_exchange(out, f);
    if (prints) {
        prints->suites = fp_fold(sh.all);
        prints->groups = all_groups;
        prints->session = out->session_id;
        prints->exts = fp_fold(hrr_exts);
    }
}

void tlsneg_answer_from_hello(tlsneg_answer *out, const tlsneg_hello *h, const tlsneg_facts *f)
{
    memset(out, 0, sizeof *out);
    out->is_hrr = f->is_hrr;
    out->version = f->has_negotiated ? f->negotiated_version : 0;
    out->session_id = session_hash(h);
    out->sentinel = f->has_sentinel;
    out->has_group = f->has_group_selected;
    out->group = f->group_selected;
}

static unsigned rank(const tlsneg_offer *o, uint16_t v)
{
    return tlsneg_version_rank(v, o->dtls);
}

unsigned tlsneg_offer_rank(const tlsneg_offer *o)
{
    return o->has_offered_max ? rank(o, o->offered_max) : 0;
}

bool tlsneg_offer_offers(const tlsneg_offer *o, uint16_t v)
{
    if (o->drafts && tlsneg_draft_bit(v)) {
        return (o->drafts & tlsneg_draft_bit(v)) != 0;
    }
    return !o->versions || (o->versions & tlsneg_version_bit(v, o->dtls));
}

bool tlsneg_offer_still_offers(const tlsneg_offer *o, uint16_t v)
{
    if (v == (o->dtls ? TLSNEG_V_DTLS13 : TLSNEG_V_TLS13)) {
        return o->offers_tls13;
    }
    return tlsneg_offer_rank(o) >= rank(o, v);
}

bool tlsneg_offer_same(const tlsneg_offer *a, const tlsneg_offer *b)
{
    return a->has_offered_max == b->has_offered_max && a->offered_max == b->offered_max &&
           a->has_supported_versions == b->has_supported_versions && a->versions == b->versions &&
           a->pq_offered == b->pq_offered && a->pq_key_share == b->pq_key_share &&
           (!a->has_fingerprint || !b->has_fingerprint || a->fp_all == b->fp_all);
}

const char *tlsneg_offer_less(const tlsneg_offer *a, const tlsneg_offer *b)
{
    if (tlsneg_offer_rank(b) < tlsneg_offer_rank(a)) {
        return "a lower highest version";
    }
    if (a->has_supported_versions && !b->has_supported_versions) {
        return "no supported_versions";
    }
    /* pre_shared_key and early_data come and go with resumption between two
     * connections of one client (the fingerprints leave them out too): a
     * retry without them offers the same versions, not less. */
    unsigned signals = TLSNEG_OFFER_KEY_SHARE | TLSNEG_OFFER_PSK_MODES;
    if (tlsneg_offer_rank(b) == tlsneg_offer_rank(a) &&
        (a->tls13_extensions & ~b->tls13_extensions & signals)) {
        return "fewer TLS 1.3 extensions";
    }
    return NULL;
}

/* join writes the n words what into buf, separated by commas. */
static void join(const char *const *what, size_t n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", what[i]);
        used += w > 0 ? (size_t)w : 0;
    }
}

/* Below TLS 1.2 a client drops the suites and the extension that need TLS
 * 1.2; SSL 3.0 hellos often carry no extensions at all. */
const char *tlsneg_offer_changed(const tlsneg_offer *f, const tlsneg_offer *r, char *buf,
                                 size_t len)
{
    if (!f->has_fingerprint || !r->has_fingerprint) {
        return NULL;
    }
    unsigned low =
        tlsneg_offer_rank(f) < tlsneg_offer_rank(r) ? tlsneg_offer_rank(f) : tlsneg_offer_rank(r);
    bool pre12 = !f->dtls && low < rank(f, TLSNEG_V_TLS12);
    bool ssl3 = !f->dtls && low <= rank(f, TLSNEG_V_SSL3);
    const char *what[4];
    size_t n = 0;
    if (pre12 ? f->fp_suites_pre12 != r->fp_suites_pre12 : f->fp_suites != r->fp_suites) {
        what[n++] = "cipher suites";
    }
    if (!ssl3 && f->fp_groups != r->fp_groups) {
        what[n++] = "supported_groups";
    }
    if (!pre12 && f->fp_sigalgs != r->fp_sigalgs) {
        what[n++] = "signature_algorithms";
    }
    if (!ssl3 && (pre12 ? f->fp_exts_pre12 != r->fp_exts_pre12 : f->fp_exts != r->fp_exts)) {
        what[n++] = "other extensions";
    }
    if (!n) {
        return NULL;
    }
    join(what, n, buf, len);
    return buf;
}

void tlsneg_offer_refused(const tlsneg_offer *f, const tlsneg_offer *ok, char *buf, size_t len)
{
    char name[TLSNEG_VERSION_NAME_MAX];
    if (f->offers_tls13 && !ok->offers_tls13) {
        snprintf(buf, len, "%s in supported_versions", f->dtls ? "DTLS 1.3" : "TLS 1.3");
    } else if (f->has_offered_max && tlsneg_version_is_draft(f->offered_max) &&
               tlsneg_offer_rank(f) > tlsneg_offer_rank(ok)) {
        snprintf(buf, len, "%s in supported_versions",
                 tlsneg_version_name_in(f->offered_max, f->dtls, name, sizeof name));
    } else if (f->has_supported_versions && !ok->has_supported_versions) {
        snprintf(buf, len, "the supported_versions extension");
    } else if (tlsneg_offer_rank(f) > tlsneg_offer_rank(ok)) {
        snprintf(buf, len, "a ClientHello offering %s or more",
                 tlsneg_version_name_in(f->offered_max, f->dtls, name, sizeof name));
    } else {
        static const char *const names[] = {"key_share", "psk_key_exchange_modes", "early_data",
                                            "pre_shared_key"};
        const char *what[4];
        size_t n = 0;
        unsigned dropped = f->tls13_extensions & ~ok->tls13_extensions;
        for (unsigned i = 0; i < 4; i++) {
            if (dropped & (1u << i)) {
                what[n++] = names[i];
            }
        }
        join(what, n, buf, len);
    }
}
