/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ladder.c: steps in one array, chained per lane (server, SNI, client);
 * lanes found through a small hash map on their key. */
#include "analysis/ladder.h"

#include "analysis/checks.h"
#include "core/versions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* Columns: frame numbers, then the space between client and server. */
#define FRAME_W  8
#define SPAN     66
#define WRAP     100
#define NOTE_PAD (FRAME_W + 4)

typedef struct {
    tlsneg_step s; /* finding and detail point into owned copies */
    uint32_t next; /* the lane's next step, or NONE */
} kept_step;

typedef struct {
    char *key; /* server \0 sni \0 client \0 */
    size_t key_len;
    uint32_t first, last;
} lane;

struct tlsneg_ladder {
    size_t max_steps, dropped;
    kept_step *steps;
    size_t num_steps, cap_steps;
    lane *lanes;
    size_t num_lanes, cap_lanes;
    uint32_t *map; /* lane indices, NONE: empty */
    size_t map_mask;
};

static uint64_t fnv(const char *p, size_t n)
{
    uint64_t h = 14695981039346656037u;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ (uint8_t)p[i]) * 1099511628211u;
    }
    return h;
}

static char *copy(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) {
        memcpy(c, s, n);
    }
    return c;
}

tlsneg_ladder *tlsneg_ladder_new(size_t max_steps)
{
    tlsneg_ladder *l = calloc(1, sizeof *l);
    if (!l) {
        return NULL;
    }
    l->max_steps = max_steps;
    l->map_mask = 63;
    l->map = malloc((l->map_mask + 1) * sizeof *l->map);
    if (!l->map) {
        free(l);
        return NULL;
    }
    memset(l->map, 0xff, (l->map_mask + 1) * sizeof *l->map);
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
    free(l->map);
    free(l);
}

static bool grow_map(tlsneg_ladder *l)
{
    size_t slots = (l->map_mask + 1) * 2;
    uint32_t *map = malloc(slots * sizeof *map);
    if (!map) {
        return false;
    }
    memset(map, 0xff, slots * sizeof *map);
    for (size_t i = 0; i < l->num_lanes; i++) {
        size_t j = fnv(l->lanes[i].key, l->lanes[i].key_len) & (slots - 1);
        while (map[j] != NONE) {
            j = (j + 1) & (slots - 1);
        }
        map[j] = (uint32_t)i;
    }
    free(l->map);
    l->map = map;
    l->map_mask = slots - 1;
    return true;
}

/* lane_of finds or makes the lane of key (key_len bytes), or returns NONE
 * when out of memory. */
static uint32_t lane_of(tlsneg_ladder *l, const char *key, size_t key_len)
{
    size_t j = fnv(key, key_len) & l->map_mask;
    for (; l->map[j] != NONE; j = (j + 1) & l->map_mask) {
        const lane *ln = &l->lanes[l->map[j]];
        if (ln->key_len == key_len && memcmp(ln->key, key, key_len) == 0) {
            return l->map[j];
        }
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
    ln->key_len = key_len;
    ln->first = ln->last = NONE;
    l->map[j] = (uint32_t)l->num_lanes++;
    if (2 * l->num_lanes > l->map_mask && !grow_map(l)) {
        return NONE;
    }
    return (uint32_t)(l->num_lanes - 1);
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
    uint32_t li = lane_of(l, key, key_len);
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
    k->s.finding = s->finding ? copy(s->finding) : NULL;
    k->s.detail = s->detail ? copy(s->detail) : NULL;
    k->next = NONE;
    lane *ln = &l->lanes[li];
    if (ln->last == NONE) {
        ln->first = (uint32_t)l->num_steps;
    } else {
        l->steps[ln->last].next = (uint32_t)l->num_steps;
    }
    ln->last = (uint32_t)l->num_steps++;
}

/* ---- writing ------------------------------------------------------------- */

typedef struct {
    void (*line)(const char *text, void *ctx);
    void *ctx;
} sink;

static const char *vname(bool has, uint16_t v, char *buf)
{
    return has ? tlsneg_version_name(v, buf, TLSNEG_VERSION_NAME_MAX) : "no known version";
}

/* arrow writes one message line: the frame, then text with an arrow towards
 * the other side. */
static void arrow(const sink *o, uint32_t frame, bool from_client, const char *text)
{
    char buf[FRAME_W + SPAN + 256];
    size_t len = strlen(text);
    size_t dashes = len + 6 < SPAN ? SPAN - len - 2 : 4;
    char line[SPAN + 1];
    memset(line, '-', dashes);
    line[dashes] = '\0';
    if (from_client) {
        snprintf(buf, sizeof buf, "%*u  %s %s>", FRAME_W, frame, text, line);
    } else {
        snprintf(buf, sizeof buf, "%*u  <%s %s", FRAME_W, frame, line, text);
    }
    o->line(buf, o->ctx);
}

/* note writes text indented under the rungs, wrapped at WRAP columns. */
static void note(const sink *o, const char *first, const char *text)
{
    char buf[WRAP + 8];
    size_t indent = NOTE_PAD, lead = strlen(first);
    const char *p = text;
    bool head = true;
    while (*p || head) {
        size_t room = WRAP - indent - (head ? lead : 2);
        size_t n = strlen(p);
        if (n > room) {
            n = room;
            while (n > room / 2 && p[n] != ' ') {
                n--;
            }
            if (p[n] != ' ') {
                n = room;
            }
        }
        snprintf(buf, sizeof buf, "%*s%s%.*s", (int)indent, "", head ? first : "  ", (int)n, p);
        o->line(buf, o->ctx);
        p += n;
        while (*p == ' ') {
            p++;
        }
        head = false;
    }
}

static void outcome_text(const tlsneg_step *s, char *out, size_t len)
{
    char v[TLSNEG_VERSION_NAME_MAX];
    const char *name;
    switch (s->kind) {
    case TLSNEG_STEP_SERVER_HELLO:
        snprintf(out, len, "ServerHello: %s in force", vname(s->has_version, s->version, v));
        break;
    case TLSNEG_STEP_HELLO_RETRY_REQUEST:
        snprintf(out, len, "HelloRetryRequest (%s)", vname(s->has_version, s->version, v));
        break;
    case TLSNEG_STEP_HELLO_VERIFY_REQUEST:
        snprintf(out, len, "HelloVerifyRequest");
        break;
    case TLSNEG_STEP_ALERT:
        name = tlsneg_alert_name(s->alert);
        snprintf(out, len, "alert %s (%u)", name ? name : "unknown", s->alert);
        break;
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

static void write_lane(const tlsneg_ladder *l, const lane *ln, const sink *o)
{
    const char *server = ln->key;
    const char *sni = server + strlen(server) + 1;
    const char *client = sni + strlen(sni) + 1;
    char buf[FRAME_W + SPAN + 256], text[192], out[224], v[TLSNEG_VERSION_NAME_MAX];
    unsigned attempts = 0;
    for (uint32_t i = ln->first; i != NONE; i = l->steps[i].next) {
        const tlsneg_step *s = &l->steps[i].s;
        attempts += s->kind == TLSNEG_STEP_CLIENT_HELLO && s->frame == s->attempt;
    }
    uint32_t *firsts = malloc((attempts ? attempts : 1) * sizeof *firsts);
    bool *answered = calloc(attempts ? attempts : 1, sizeof *answered);
    if (!firsts || !answered) {
        free(firsts);
        free(answered);
        return;
    }
    snprintf(buf, sizeof buf, "%s%s%s%s, client %s: %u attempt%s", server, *sni ? " (SNI " : "",
             sni, *sni ? ")" : "", client, attempts, attempts == 1 ? "" : "s");
    o->line(buf, o->ctx);
    snprintf(buf, sizeof buf, "%*s  %-*s%s", FRAME_W, "frame", SPAN - 6, "client", "server");
    o->line(buf, o->ctx);

    unsigned n = 0;
    uint32_t last = NONE; /* the attempt of the last line written */
    for (uint32_t i = ln->first; i != NONE; i = l->steps[i].next) {
        const tlsneg_step *s = &l->steps[i].s;
        unsigned k = number_of(firsts, n, s->attempt);
        if (s->kind == TLSNEG_STEP_CLIENT_HELLO && s->frame == s->attempt) {
            firsts[n++] = s->frame;
            snprintf(text, sizeof text, "#%u ClientHello, up to %s%s", n,
                     vname(s->has_version, s->version, v),
                     s->fallback_scsv ? ", TLS_FALLBACK_SCSV" : "");
            arrow(o, s->frame, true, text);
            last = s->attempt;
            continue;
        }
        if (s->kind == TLSNEG_STEP_VERDICT) {
            char first[64];
            snprintf(first, sizeof first, "* %s: ", s->finding ? s->finding : "?");
            note(o, first, s->detail ? s->detail : "");
            continue;
        }
        if (s->kind == TLSNEG_STEP_CLIENT_HELLO) {
            snprintf(text, sizeof text, "ClientHello again, up to %s",
                     vname(s->has_version, s->version, v));
        } else {
            outcome_text(s, text, sizeof text);
        }
        /* Say which attempt a line answers when attempts interleave. */
        if (k && s->attempt != last) {
            snprintf(out, sizeof out, "%s (#%u)", text, k);
        } else {
            snprintf(out, sizeof out, "%s", text);
        }
        arrow(o, s->frame, s->from_client, out);
        last = s->attempt;
        if (k && s->kind != TLSNEG_STEP_CLIENT_HELLO) {
            answered[k - 1] = true;
        }
    }
    for (unsigned k = 0; k < n; k++) {
        if (!answered[k]) {
            snprintf(text, sizeof text, "#%u (frame %u): no answer in the capture", k + 1,
                     firsts[k]);
            note(o, "", text);
        }
    }
    free(firsts);
    free(answered);
    o->line("", o->ctx);
}

void tlsneg_ladder_write(const tlsneg_ladder *l, void (*line)(const char *text, void *ctx),
                         void *ctx)
{
    sink o = {line, ctx};
    for (size_t i = 0; i < l->num_lanes; i++) {
        write_lane(l, &l->lanes[i], &o);
    }
    if (!l->num_lanes) {
        line("(no TLS, DTLS or QUIC hello in the capture)", ctx);
    }
    if (l->dropped) {
        char buf[96];
        snprintf(buf, sizeof buf, "(%zu more steps not shown: the ladder keeps %zu)", l->dropped,
                 l->max_steps);
        line(buf, ctx);
    }
}
