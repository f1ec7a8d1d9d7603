/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hrr.c: the ClientHello after a HelloRetryRequest against the one before
 * it (hrr.h). */
#include "analysis/hrr.h"

#include <stdio.h>
#include <string.h>

#include "core/groups.h"
#include "core/util.h"
#include "core/versions.h"

/* ext_fold adds one extension to the fingerprint of "the other
 * extensions": its type, and its body where the body may not change (the
 * name, signature algorithms, ALPN); another extension may change its body
 * (RFC 8446 4.1.2: "other modifications that may be allowed by an
 * extension defined in the future", as ECH's). */
static uint64_t ext_fold(uint64_t h, uint16_t type, const tlsneg_cur *body)
{
    h = tlsneg_fnv64_step(h, type);
    if (type == TLSNEG_EXT_SERVER_NAME || type == TLSNEG_EXT_SIGNATURE_ALGORITHMS ||
        type == TLSNEG_EXT_ALPN) {
        h = tlsneg_hash_mix(h, tlsneg_hash_bytes(body->p, body->len));
    }
    return h;
}

static void walk_extensions(tlsneg_hrr_hello *out, const tlsneg_hello *h)
{
    uint64_t exts = TLSNEG_FNV64_BASIS;
    tlsneg_cur c = h->extensions, body;
    uint16_t type;
    for (size_t i = 0; i < h->num_extensions && tlsneg_hello_next_extension(&c, &type, &body);
         i++) {
        switch (type) {
        case TLSNEG_EXT_COOKIE:
        case TLSNEG_EXT_EARLY_DATA:
        case TLSNEG_EXT_PRE_SHARED_KEY:
        case TLSNEG_EXT_PADDING:
        case TLSNEG_EXT_KEY_SHARE:
        case TLSNEG_EXT_SUPPORTED_GROUPS:
        case TLSNEG_EXT_SUPPORTED_VERSIONS:
            break; /* the flags below; the facts, GREASE left out */
        default:
            exts = tlsneg_is_grease(type) ? exts : ext_fold(exts, type, &body);
        }
    }
    out->cookie = tlsneg_hello_has_extension(h, TLSNEG_EXT_COOKIE);
    out->early_data = tlsneg_hello_has_extension(h, TLSNEG_EXT_EARLY_DATA);
    out->psk = tlsneg_hello_has_extension(h, TLSNEG_EXT_PRE_SHARED_KEY);
    out->padding = tlsneg_hello_has_extension(h, TLSNEG_EXT_PADDING);
    out->fp_exts = tlsneg_fold32(exts);
}

void tlsneg_hrr_digest(tlsneg_hrr_hello *out, const tlsneg_hello *h, const tlsneg_facts *f)
{
    memset(out, 0, sizeof *out);
    out->has_digest = true;
    uint64_t s = TLSNEG_FNV64_BASIS;
    tlsneg_cur suites = h->cipher_suites;
    uint16_t v;
    while (tlsneg_cur_u16(&suites, &v)) {
        s = tlsneg_is_grease(v) ? s : tlsneg_fnv64_step(s, v);
    }
    out->fp_suites = tlsneg_fold32(s);
    uint64_t g = TLSNEG_FNV64_BASIS;
    for (size_t i = 0; i < f->num_groups; i++) {
        g = tlsneg_is_grease(f->groups[i]) ? g : tlsneg_fnv64_step(g, f->groups[i]);
    }
    out->fp_groups = tlsneg_fold32(tlsneg_fnv64_step(g, f->group_count));
    uint64_t vs = tlsneg_fnv64_step(TLSNEG_FNV64_BASIS, f->legacy_version);
    for (size_t i = 0; i < f->num_offered; i++) {
        vs = tlsneg_is_grease(f->offered[i]) ? vs : tlsneg_fnv64_step(vs, f->offered[i]);
    }
    out->fp_versions = tlsneg_fold32(vs);
    out->fp_session = tlsneg_fold32(tlsneg_hash_bytes(h->session_id.p, h->session_id.len));
    for (size_t i = 0; i < f->num_key_shares && out->num_shares < TLSNEG_HRR_SHARES; i++) {
        if (!tlsneg_is_grease(f->key_shares[i].group)) {
            out->shares[out->num_shares++] = f->key_shares[i].group;
        }
    }
    walk_extensions(out, h);
}

void tlsneg_hrr_ask_from(tlsneg_hrr_ask *out, const tlsneg_hello *h, const tlsneg_facts *f,
                         uint32_t frame)
{
    memset(out, 0, sizeof *out);
    out->frame = frame;
    out->has_group = f->has_group_selected;
    out->group = f->group_selected;
    out->cookie = tlsneg_hello_has_extension(h, TLSNEG_EXT_COOKIE);
}

/* A text being written: clauses joined by "; ". */
typedef struct {
    char *buf;
    size_t len, used;
} words;

static void say(words *w, const char *fmt, const char *a, const char *b)
{
    if (w->used >= w->len) {
        return;
    }
    int n = snprintf(w->buf + w->used, w->len - w->used, "%s", w->used ? "; " : "");
    w->used += n > 0 ? (size_t)n : 0;
    if (w->used < w->len) {
        n = snprintf(w->buf + w->used, w->len - w->used, fmt, a, b);
        w->used += n > 0 ? (size_t)n : 0;
    }
}

static void shares_text(const tlsneg_hrr_hello *x, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < x->num_shares && used < len; i++) {
        char code[16];
        int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                         tlsneg_named_group_text(x->shares[i], "", code, sizeof code));
        used += n > 0 ? (size_t)n : 0;
    }
    if (!x->num_shares) {
        snprintf(buf, len, "none");
    }
}

/* key_share_words says how the key shares changed; false if not as asked:
 * RFC 8446 4.1.2, a single share of the group asked for. */
static bool key_share_words(words *w, const tlsneg_hrr_hello *a, const tlsneg_hrr_hello *b,
                            const tlsneg_hrr_ask *ask)
{
    char was[96], now[96], code[16];
    shares_text(a, was, sizeof was);
    shares_text(b, now, sizeof now);
    bool same = a->num_shares == b->num_shares &&
                memcmp(a->shares, b->shares, a->num_shares * sizeof a->shares[0]) == 0;
    if (!ask->has_group) {
        if (!same) {
            say(w, "key share %s -> %s (no group was asked for)", was, now);
        }
        return same;
    }
    const char *asked = tlsneg_named_group_text(ask->group, "", code, sizeof code);
    bool as_asked = b->num_shares == 1 && b->shares[0] == ask->group;
    char tail[160];
    snprintf(tail, sizeof tail, "%s, %s%s", now,
             as_asked ? "the group asked for" : "not a single share of ", as_asked ? "" : asked);
    say(w, "key share %s -> %s", was, tail);
    return as_asked;
}

bool tlsneg_hrr_changes(const tlsneg_hrr_hello *a, const tlsneg_hrr_hello *b,
                        const tlsneg_hrr_ask *ask, char *buf, size_t buf_len)
{
    words w = {buf, buf_len, 0};
    buf[0] = '\0';
    bool bad = !key_share_words(&w, a, b, ask);
    if (ask->cookie) {
        say(&w, "%s%s", b->cookie ? "cookie sent back" : "no cookie, though one was sent", "");
        bad |= !b->cookie;
    } else if (b->cookie != a->cookie) {
        say(&w, "cookie %s%s", b->cookie ? "added unasked" : "dropped", "");
        bad = true;
    }
    if (a->early_data) {
        say(&w, "%s%s", b->early_data ? "early_data kept" : "early_data dropped", "");
        bad |= b->early_data;
    }
    if (a->psk || b->psk) {
        say(&w, "pre_shared_key %s%s", !b->psk ? "dropped" : a->psk ? "sent again" : "added", "");
        bad |= !a->psk;
    }
    if (a->padding != b->padding) {
        say(&w, "padding %s%s", b->padding ? "added" : "dropped", "");
    }
    char other[96] = "";
    const struct {
        bool changed;
        const char *name;
    } parts[] = {
        {a->fp_versions != b->fp_versions, "versions"},
        {a->fp_suites != b->fp_suites, "cipher suites"},
        {a->fp_groups != b->fp_groups, "supported_groups"},
        {a->fp_session != b->fp_session, "session ID"},
        {a->fp_exts != b->fp_exts, "other extensions"},
    };
    size_t n = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (parts[i].changed) {
            size_t used = strlen(other);
            snprintf(other + used, sizeof other - used, "%s%s", n++ ? ", " : "", parts[i].name);
        }
    }
    if (n) {
        say(&w, "also changed, which RFC 8446 4.1.2 does not allow: %s%s", other, "");
    }
    bad |= n > 0;
    if (!w.used) {
        snprintf(buf, buf_len, "nothing changed");
    }
    return bad;
}
