/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ladder.c: the ladder's steps, in one array chained per lane (server, SNI,
 * client), lanes found by their key; the first ClientHello of each
 * connection; and the layout of the lanes as rows (ladder_rows.h). */
#include "report/ladder_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/checks.h"
#include "analysis/tracker.h"
#include "core/groups.h"
#include "core/util.h"
#include "core/versions.h"
#include "report/map.h"

#define NONE UINT32_MAX

/* A lane's heading, cut to fit (the text writer's widest line). */
#define HEADING_MAX (8 + 66 + 256 + 64)

typedef struct {
    tlsneg_step s; /* finding and detail point into owned copies */
    uint32_t next; /* the lane's next step, or NONE */
} kept_step;

typedef struct {
    char *key; /* server \0 sni \0 client \0 */
    uint32_t first, last;
} lane;

struct tlsneg_ladder {
    size_t max_steps, dropped;
    kept_step *steps;
    size_t num_steps, cap_steps;
    lane *lanes; /* in the order they first appeared */
    size_t num_lanes, cap_lanes;
    tlsneg_map lane_of;     /* key -> lane index + 1 */
    tlsneg_map first_hello; /* connection (uint64_t) -> frame of its first ClientHello */
};

tlsneg_ladder *tlsneg_ladder_new(size_t max_steps)
{
    tlsneg_ladder *l = calloc(1, sizeof *l);
    if (l) {
        l->max_steps = max_steps;
    }
    return l;
}

void tlsneg_ladder_free(tlsneg_ladder *l)
{
    if (!l) {
        return;
    }
    for (size_t i = 0; i < l->num_steps; i++) {
        free((char *)l->steps[i].s.finding);
        free((char *)l->steps[i].s.detail);
    }
    for (size_t i = 0; i < l->num_lanes; i++) {
        free(l->lanes[i].key);
    }
    free(l->steps);
    free(l->lanes);
    tlsneg_map_clear(&l->lane_of, NULL);
    tlsneg_map_clear(&l->first_hello, NULL);
    free(l);
}

uint32_t tlsneg_ladder_attempt(tlsneg_ladder *l, uint64_t conn, bool hello, uint32_t frame)
{
    /* the frame itself is the value: no first ClientHello is frame 0 */
    uint32_t first = (uint32_t)(uintptr_t)tlsneg_map_get(&l->first_hello, &conn, sizeof conn);
    if (hello && !first) {
        first = frame;
        (void)tlsneg_map_put(&l->first_hello, &conn, sizeof conn, (void *)(uintptr_t)frame);
    }
    return first;
}

/* lane_index finds or makes the lane of key (key_len bytes), or returns
 * NONE when out of memory. */
static uint32_t lane_index(tlsneg_ladder *l, const char *key, size_t key_len)
{
    uintptr_t found = (uintptr_t)tlsneg_map_get(&l->lane_of, key, key_len);
    if (found) {
        return (uint32_t)(found - 1);
    }
    if (l->num_lanes == l->cap_lanes) {
        size_t cap = l->cap_lanes ? 2 * l->cap_lanes : 16;
        lane *lanes = realloc(l->lanes, cap * sizeof *lanes);
        if (!lanes) {
            return NONE;
        }
        l->lanes = lanes;
        l->cap_lanes = cap;
    }
    lane *ln = &l->lanes[l->num_lanes];
    ln->key = malloc(key_len);
    if (!ln->key) {
        return NONE;
    }
    memcpy(ln->key, key, key_len);
    ln->first = ln->last = NONE;
    if (!tlsneg_map_put(&l->lane_of, key, key_len, (void *)(uintptr_t)(l->num_lanes + 1))) {
        free(ln->key);
        return NONE;
    }
    return (uint32_t)l->num_lanes++;
}

void tlsneg_ladder_add(tlsneg_ladder *l, const char *server, const char *sni, const char *client,
                       const tlsneg_step *s)
{
    if (l->num_steps >= l->max_steps || l->num_steps >= NONE - 1) {
        l->dropped++;
        return;
    }
    char key[512];
    int n = snprintf(key, sizeof key, "%s%c%s%c%s", server, 0, sni ? sni : "", 0, client);
    size_t key_len = n < 0 ? 0 : (size_t)n >= sizeof key ? sizeof key : (size_t)n + 1;
    uint32_t li = lane_index(l, key, key_len);
    if (li == NONE) {
        l->dropped++;
        return;
    }
    if (l->num_steps == l->cap_steps) {
        size_t cap = l->cap_steps ? 2 * l->cap_steps : 64;
        kept_step *steps = realloc(l->steps, cap * sizeof *steps);
        if (!steps) {
            l->dropped++;
            return;
        }
        l->steps = steps;
        l->cap_steps = cap;
    }
    kept_step *k = &l->steps[l->num_steps];
    k->s = *s;
    k->s.finding = s->finding ? tlsneg_strdup(s->finding) : NULL;
    k->s.detail = s->detail ? tlsneg_strdup(s->detail) : NULL;
    k->next = NONE;
    lane *ln = &l->lanes[li];
    if (ln->last == NONE) {
        ln->first = (uint32_t)l->num_steps;
    } else {
        l->steps[ln->last].next = (uint32_t)l->num_steps;
    }
    ln->last = (uint32_t)l->num_steps++;
}

/* ---- layout ------------------------------------------------------------- */

/* vname names a step's version in its wire family (DTLS 1.3 draft-43, not
 * TLS 1.3 draft-43, for NSS's 0x7f2b in DTLS). */
static const char *vname(const tlsneg_step *s, char *buf)
{
    return tlsneg_version_name_or_none(s->has_version, s->version, s->dtls, buf,
                                       TLSNEG_VERSION_NAME_MAX);
}

/* group_text names a group ("X25519MLKEM768", "x25519", "0x1234"). */
static const char *group_text(uint16_t g, char *buf, size_t len)
{
    return tlsneg_named_group_text(g, "", buf, len);
}

/* shares_text writes a ClientHello's key share groups, "X25519MLKEM768+x25519",
 * or "none". */
static void shares_text(const tlsneg_step *s, char *out, size_t len)
{
    char g[8];
    size_t at = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < s->num_groups && at < len; i++) {
        int n = snprintf(out + at, len - at, "%s%s", i ? "+" : "",
                         group_text(s->groups[i], g, sizeof g));
        at += n > 0 ? (size_t)n : 0;
    }
    if (!s->num_groups) {
        snprintf(out, len, "none");
    }
}

static bool same_shares(const tlsneg_step *a, const tlsneg_step *b)
{
    return a->num_groups == b->num_groups &&
           memcmp(a->groups, b->groups, a->num_groups * sizeof a->groups[0]) == 0;
}

static void outcome_text(const tlsneg_step *s, char *out, size_t len)
{
    char v[TLSNEG_VERSION_NAME_MAX], g[8];
    const char *name;
    switch (s->kind) {
    case TLSNEG_STEP_SERVER_HELLO:
        snprintf(out, len, "ServerHello: %s in force%s%s", vname(s, v), s->num_groups ? ", " : "",
                 s->num_groups ? group_text(s->groups[0], g, sizeof g) : "");
        break;
    case TLSNEG_STEP_HELLO_RETRY_REQUEST:
        snprintf(out, len, "HelloRetryRequest (%s%s%s)", vname(s, v),
                 s->num_groups ? ", asks for " : "",
                 s->num_groups ? group_text(s->groups[0], g, sizeof g) : "");
        break;
    case TLSNEG_STEP_HELLO_VERIFY_REQUEST:
        snprintf(out, len, "HelloVerifyRequest");
        break;
    case TLSNEG_STEP_ALERT: {
        char after[96] = "";
        if (s->after_close) { /* the other side had closed or reset */
            after[0] = ',';
            after[1] = ' ';
            tlsneg_after_close_text(!s->from_client, s->after_close_cause, s->after_close,
                                    after + 2, sizeof after - 2);
        }
        name = tlsneg_alert_name(s->alert);
        snprintf(out, len, "alert %s (%u)%s%s", name ? name : "unknown", s->alert,
                 s->warning ? ", warning" : "", after);
        break;
    }
    case TLSNEG_STEP_RESET:
        snprintf(out, len, "TCP reset");
        break;
    case TLSNEG_STEP_CLOSE:
        snprintf(out, len, "TCP close (FIN)");
        break;
    case TLSNEG_STEP_CLIENT_HELLO:
    case TLSNEG_STEP_VERDICT:
        out[0] = '\0';
        break;
    }
}

/* number_of returns the number of the attempt whose first ClientHello is
 * frame, among the n first frames of attempts (ascending), or 0. */
static unsigned number_of(const uint32_t *firsts, unsigned n, uint32_t frame)
{
    unsigned lo = 0, hi = n;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (firsts[mid] < frame) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < n && firsts[lo] == frame ? lo + 1 : 0;
}

/* What a lane's heading says, and where its clock starts. */
typedef struct {
    unsigned attempts;
    uint32_t probe; /* the earliest start of a probe among its hellos, or 0 */
    int64_t t0;     /* the time of its first attempt (or of its first step) */
} lane_sum;

static lane_sum summary(const tlsneg_ladder *l, const lane *ln)
{
    lane_sum sum = {0, 0, l->steps[ln->first].s.time_us};
    for (uint32_t i = ln->first; i != NONE; i = l->steps[i].next) {
        const tlsneg_step *s = &l->steps[i].s;
        if (s->kind == TLSNEG_STEP_CLIENT_HELLO && s->frame == s->attempt) {
            if (!sum.attempts++) {
                sum.t0 = s->time_us;
            }
        }
        if (s->probe && (!sum.probe || s->probe < sum.probe)) {
            sum.probe = s->probe;
        }
    }
    return sum;
}

/* heading writes "SERVER (SNI name), client CLIENT: N attempts", and for a
 * probe "; scanner: probe since frame N, not a dance". */
static void heading(const char *server, const char *sni, const char *client, const lane_sum *sum,
                    char *buf, size_t len)
{
    char scanner[64] = "";
    if (sum->probe) {
        snprintf(scanner, sizeof scanner, "; scanner: probe since frame %u, not a dance",
                 sum->probe);
    }
    snprintf(buf, len, "%s%s%s%s, client %s: %u attempt%s%s", server, *sni ? " (SNI " : "", sni,
             *sni ? ")" : "", client, sum->attempts, sum->attempts == 1 ? "" : "s", scanner);
}

static void layout_lane(const tlsneg_ladder *l, const lane *ln, const tlsneg_ladder_renderer *o)
{
    const char *server = ln->key;
    const char *sni = server + strlen(server) + 1;
    const char *client = sni + strlen(sni) + 1;
    char buf[HEADING_MAX], text[192], out[224], v[TLSNEG_VERSION_NAME_MAX];
    lane_sum sum = summary(l, ln);
    unsigned attempts = sum.attempts;
    uint32_t *firsts = malloc((attempts ? attempts : 1) * sizeof *firsts);
    bool *answered = calloc(attempts ? attempts : 1, sizeof *answered);
    uint32_t *failed = calloc(attempts ? attempts : 1, sizeof *failed); /* the failing step + 1 */
    if (!firsts || !answered || !failed) {
        free(firsts);
        free(answered);
        free(failed);
        return;
    }
    heading(server, sni, client, &sum, buf, sizeof buf);
    o->head(o->ctx, buf, client, server);

    unsigned n = 0;
    uint32_t last = NONE;                 /* the attempt of the last line written */
    const tlsneg_step *prev_hello = NULL; /* the last attempt's first ClientHello */
    for (uint32_t i = ln->first; i != NONE; i = l->steps[i].next) {
        const tlsneg_step *s = &l->steps[i].s;
        unsigned k = number_of(firsts, n, s->attempt);
        if (s->kind == TLSNEG_STEP_CLIENT_HELLO && s->frame == s->attempt) {
            /* A retry after a failed attempt whose key shares differ: the
             * group move, "X25519MLKEM768 -> x25519". */
            char move[128] = "";
            if (prev_hello && n && failed[n - 1] && prev_hello->num_groups && s->num_groups &&
                !same_shares(prev_hello, s)) {
                char from[48], to[48];
                shares_text(prev_hello, from, sizeof from);
                shares_text(s, to, sizeof to);
                snprintf(move, sizeof move, ", key share %s -> %s", from, to);
            }
            firsts[n++] = s->frame;
            prev_hello = s;
            snprintf(text, sizeof text, "#%u ClientHello, up to %s%s%s", n, vname(s, v),
                     s->fallback_scsv ? ", TLS_FALLBACK_SCSV" : "", move);
            o->arrow(o->ctx, s->frame, s->time_us - sum.t0, true, text);
            last = s->attempt;
            continue;
        }
        if (s->kind == TLSNEG_STEP_VERDICT) {
            char first[64];
            snprintf(first, sizeof first, "* %s: ", s->finding ? s->finding : "?");
            o->note(o->ctx, first, s->detail ? s->detail : "");
            continue;
        }
        if (s->kind == TLSNEG_STEP_CLIENT_HELLO) {
            snprintf(text, sizeof text, "ClientHello again, up to %s", vname(s, v));
        } else {
            outcome_text(s, text, sizeof text);
            /* An ending in a frame before the one that completed the
             * attempt's ClientHello (a hello split over segments, reset
             * after its first): its seconds are below the hello's. */
            if (s->kind != TLSNEG_STEP_VERDICT && s->frame < s->attempt) {
                size_t used = strlen(text);
                snprintf(text + used, sizeof text - used, ", before the ClientHello was complete");
            }
        }
        /* Say which attempt a line answers when attempts interleave. */
        if (k && s->attempt != last) {
            snprintf(out, sizeof out, "%s (#%u)", text, k);
        } else {
            snprintf(out, sizeof out, "%s", text);
        }
        o->arrow(o->ctx, s->frame, s->time_us - sum.t0, s->from_client, out);
        last = s->attempt;
        if (k && s->kind != TLSNEG_STEP_CLIENT_HELLO) {
            answered[k - 1] = true;
        }
        if (k && s->failure && !failed[k - 1]) {
            failed[k - 1] = i + 1;
        }
    }
    /* How each attempt that failed failed, and which got no answer. */
    for (unsigned k = 0; k < n; k++) {
        if (failed[k]) {
            const tlsneg_step *s = &l->steps[failed[k] - 1].s;
            char how[128];
            tlsneg_failure_text(s->failure, s->alert, s->frame, how, sizeof how);
            snprintf(text, sizeof text, "#%u (frame %u) %s", k + 1, firsts[k], how);
            o->note(o->ctx, "", text);
        } else if (!answered[k]) {
            snprintf(text, sizeof text, "#%u (frame %u): no answer in the capture", k + 1,
                     firsts[k]);
            o->note(o->ctx, "", text);
        }
    }
    free(firsts);
    free(answered);
    free(failed);
    o->end(o->ctx);
}

void tlsneg_ladder_layout(const tlsneg_ladder *l, const tlsneg_ladder_renderer *o)
{
    for (size_t i = 0; i < l->num_lanes; i++) {
        layout_lane(l, &l->lanes[i], o);
    }
    if (!l->num_lanes) {
        o->plain(o->ctx, "(no TLS, DTLS or QUIC hello in the capture)");
    }
    if (l->dropped) {
        char buf[96];
        snprintf(buf, sizeof buf, "(%zu more steps not shown: the ladder keeps %zu)", l->dropped,
                 l->max_steps);
        o->plain(o->ctx, buf);
    }
}

static int by_frame(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a < b ? -1 : a > b;
}

size_t tlsneg_ladder_frames(const tlsneg_ladder *l, uint32_t *frames, size_t max)
{
    uint32_t *all = malloc((l->num_steps ? l->num_steps : 1) * sizeof *all);
    size_t n = 0, distinct = 0;
    if (!all) {
        return 0;
    }
    for (size_t i = 0; i < l->num_steps; i++) {
        if (l->steps[i].s.kind != TLSNEG_STEP_VERDICT) {
            all[n++] = l->steps[i].s.frame;
        }
    }
    qsort(all, n, sizeof *all, by_frame);
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || all[i] != all[i - 1]) {
            if (distinct < max) {
                frames[distinct] = all[i];
            }
            distinct++;
        }
    }
    free(all);
    return distinct;
}

const char *tlsneg_ladder_seconds(int64_t us, char *buf, size_t len)
{
    uint64_t mag = us < 0 ? (uint64_t)0 - (uint64_t)us : (uint64_t)us;
    uint64_t ms = mag / 1000 + (mag % 1000 >= 500);
    snprintf(buf, len, "%s%llu.%03llu", us < 0 && ms ? "-" : "", (unsigned long long)(ms / 1000),
             (unsigned long long)(ms % 1000));
    return buf;
}

void tlsneg_ladder_wrap(const char *text, size_t room_first, size_t room,
                        void (*each)(const char *p, size_t n, unsigned index, void *ctx), void *ctx)
{
    const char *p = text;
    unsigned index = 0;
    while (*p || index == 0) {
        size_t r = index == 0 ? room_first : room;
        size_t n = strlen(p);
        if (n > r) {
            n = r;
            while (n > r / 2 && p[n] != ' ') {
                n--;
            }
            if (p[n] != ' ') {
                n = r;
            }
        }
        each(p, n, index++, ctx);
        p += n;
        while (*p == ' ') {
            p++;
        }
    }
}
