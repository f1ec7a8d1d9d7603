/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hrr.c: the ClientHello after a HelloRetryRequest against the one before
 * it (hrr.h). */
#include "analysis/hrr.h"

#include <stdio.h>
#include <string.h>

#include "core/groups.h"
#include "core/util.h"
#include "core/versions.h"

void tlsneg_hrr_digest(tlsneg_hrr_hello *out, const tlsneg_hello *h, const tlsneg_facts *f,
                       const tlsneg_hello_prints *prints)
{
    memset(out, 0, sizeof *out);
    out->has_digest = true;
    out->fp_suites = prints->suites;
    out->fp_groups = prints->groups;
    out->fp_session = prints->session;
    uint64_t vs = tlsneg_fnv64_step(TLSNEG_FNV64_BASIS, f->legacy_version);
    for (size_t i = 0; i < f->num_offered; i++) {
        vs = tlsneg_is_grease(f->offered[i]) ? vs : tlsneg_fnv64_step(vs, f->offered[i]);
    }
    out->fp_versions = tlsneg_fold32(vs);
    for (size_t i = 0; i < f->num_key_shares && out->num_shares < TLSNEG_HRR_SHARES; i++) {
        if (!tlsneg_is_grease(f->key_shares[i].group)) {
            out->shares[out->num_shares++] = f->key_shares[i].group;
        }
    }
    out->fp_exts = prints->exts;
    out->cookie = tlsneg_hello_has_extension(h, TLSNEG_EXT_COOKIE);
    out->early_data = tlsneg_hello_has_extension(h, TLSNEG_EXT_EARLY_DATA);
    out->psk = tlsneg_hello_has_extension(h, TLSNEG_EXT_PRE_SHARED_KEY);
    out->padding = tlsneg_hello_has_extension(h, TLSNEG_EXT_PADDING);
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
