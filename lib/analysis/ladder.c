/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ladder.c: steps in one array, chained per lane (server, SNI, client);
 * lanes found through a small hash map on their key. */
#include "analysis/ladder.h"

#include "analysis/checks.h"
#include "analysis/tracker.h"
#include "core/versions.h"
#include "core/util.h"

#include <stdarg.h>
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
        size_t j =
            tlsneg_fnv64(TLSNEG_FNV64_BASIS, l->lanes[i].key, l->lanes[i].key_len) & (slots - 1);
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
    size_t j = tlsneg_fnv64(TLSNEG_FNV64_BASIS, key, key_len) & l->map_mask;
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

/* The ladder is laid out once (layout), as rows handed to a renderer: the
 * text writer and the SVG writer draw the same rows. */
typedef struct {
    void (*head)(void *ctx, const char *text, const char *client, const char *server);
    void (*arrow)(void *ctx, uint32_t frame, bool from_client, const char *text);
    void (*note)(void *ctx, const char *first, const char *text);
    void (*end)(void *ctx);                     /* after a lane */
    void (*plain)(void *ctx, const char *text); /* a line outside the lanes */
    void *ctx;
} renderer;

static const char *vname(bool has, uint16_t v, char *buf)
{
    return has ? tlsneg_version_name(v, buf, TLSNEG_VERSION_NAME_MAX) : "no known version";
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

static void layout_lane(const tlsneg_ladder *l, const lane *ln, const renderer *o)
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
    uint32_t *failed = calloc(attempts ? attempts : 1, sizeof *failed); /* the failing step + 1 */
    if (!firsts || !answered || !failed) {
        free(firsts);
        free(answered);
        free(failed);
        return;
    }
    snprintf(buf, sizeof buf, "%s%s%s%s, client %s: %u attempt%s", server, *sni ? " (SNI " : "",
             sni, *sni ? ")" : "", client, attempts, attempts == 1 ? "" : "s");
    o->head(o->ctx, buf, client, server);

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
            o->arrow(o->ctx, s->frame, true, text);
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
        o->arrow(o->ctx, s->frame, s->from_client, out);
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

static void layout(const tlsneg_ladder *l, const renderer *o)
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

/* wrap splits text into lines of at most room characters, broken at
 * spaces; calls each(piece, len, index, ctx). */
static void wrap(const char *text, size_t room_first, size_t room,
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

/* ---- text ---------------------------------------------------------------- */

typedef struct {
    void (*line)(const char *text, void *ctx);
    void *ctx;
    const char *first; /* the note being wrapped: its lead */
} text_out;

static void text_head(void *ctx, const char *text, const char *client, const char *server)
{
    const text_out *o = ctx;
    char buf[FRAME_W + SPAN + 16];
    (void)client;
    (void)server;
    o->line(text, o->ctx);
    snprintf(buf, sizeof buf, "%*s  %-*s%s", FRAME_W, "frame", SPAN - 6, "client", "server");
    o->line(buf, o->ctx);
}

/* text_arrow writes one message line: the frame, then text with an arrow
 * towards the other side. */
static void text_arrow(void *ctx, uint32_t frame, bool from_client, const char *text)
{
    const text_out *o = ctx;
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

static void text_note_line(const char *p, size_t n, unsigned index, void *ctx)
{
    const text_out *o = ctx;
    char buf[WRAP + 8];
    snprintf(buf, sizeof buf, "%*s%s%.*s", NOTE_PAD, "", index == 0 ? o->first : "  ", (int)n, p);
    o->line(buf, o->ctx);
}

/* text_note writes text indented under the rungs, wrapped at WRAP columns. */
static void text_note(void *ctx, const char *first, const char *text)
{
    text_out *o = ctx;
    o->first = first;
    wrap(text, WRAP - NOTE_PAD - strlen(first), WRAP - NOTE_PAD - 2, text_note_line, o);
}

static void text_end(void *ctx)
{
    const text_out *o = ctx;
    o->line("", o->ctx);
}

static void text_plain(void *ctx, const char *text)
{
    const text_out *o = ctx;
    o->line(text, o->ctx);
}

void tlsneg_ladder_write(const tlsneg_ladder *l, void (*line)(const char *text, void *ctx),
                         void *ctx)
{
    text_out o = {line, ctx, ""};
    renderer r = {text_head, text_arrow, text_note, text_end, text_plain, &o};
    layout(l, &r);
}

/* ---- SVG ----------------------------------------------------------------- */

/* Geometry, in SVG user units (pixels at 100 %). */
#define SVG_W       960
#define SVG_FRAME_X 48  /* right edge of the frame numbers */
#define SVG_CLIENT  130 /* the client's lifeline */
#define SVG_SERVER  890 /* the server's lifeline */
#define SVG_HEAD_H  58  /* a lane's heading and the two names */
#define SVG_ARROW_H 30
#define SVG_NOTE_H  17
#define SVG_GAP_H   24 /* after a lane */
#define SVG_WRAP    110

typedef struct {
    void (*line)(const char *text, void *ctx);
    void *ctx;
    bool draw; /* false: only measure */
    unsigned y, lane_top;
    const char *first;
} svg_out;

/* xml_escape copies text into out with &, <, > and " escaped. */
static const char *xml_escape(const char *text, char *out, size_t len)
{
    size_t j = 0;
    for (const char *p = text; *p && j + 7 < len; p++) {
        const char *e = *p == '&'   ? "&amp;"
                        : *p == '<' ? "&lt;"
                        : *p == '>' ? "&gt;"
                        : *p == '"' ? "&quot;"
                                    : NULL;
        if (e) {
            size_t n = strlen(e);
            memcpy(out + j, e, n);
            j += n;
        } else {
            out[j++] = *p;
        }
    }
    out[j] = '\0';
    return out;
}

static void svg_printf(const svg_out *o, const char *fmt, ...) TLSNEG_PRINTF(2, 3);
static void svg_printf(const svg_out *o, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    if (!o->draw) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    o->line(buf, o->ctx);
}

static void svg_head(void *ctx, const char *text, const char *client, const char *server)
{
    svg_out *o = ctx;
    char a[1024], b[256], c[256];
    o->lane_top = o->y;
    svg_printf(o, "<g class=\"lane\">");
    svg_printf(o, "<text class=\"heading\" x=\"8\" y=\"%u\">%s</text>", o->y + 18,
               xml_escape(text, a, sizeof a));
    svg_printf(o,
               "<text class=\"peer\" x=\"%u\" y=\"%u\" text-anchor=\"middle\">client "
               "%s</text><text class=\"peer\" x=\"%u\" y=\"%u\" text-anchor=\"middle\">server "
               "%s</text>",
               SVG_CLIENT, o->y + 44, xml_escape(client, b, sizeof b), SVG_SERVER, o->y + 44,
               xml_escape(server, c, sizeof c));
    o->y += SVG_HEAD_H;
}

static void svg_arrow(void *ctx, uint32_t frame, bool from_client, const char *text)
{
    svg_out *o = ctx;
    char a[1024];
    unsigned base = o->y + SVG_ARROW_H - 8;
    svg_printf(o, "<text class=\"frame\" x=\"%u\" y=\"%u\" text-anchor=\"end\">%u</text>",
               SVG_FRAME_X, base + 4, frame);
    svg_printf(o, "<text class=\"msg\" x=\"%u\" y=\"%u\" text-anchor=\"middle\">%s</text>",
               (SVG_CLIENT + SVG_SERVER) / 2, base - 5, xml_escape(text, a, sizeof a));
    svg_printf(o,
               "<line class=\"%s\" x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" "
               "marker-end=\"url(#head)\"/>",
               from_client ? "to-server" : "to-client", from_client ? SVG_CLIENT : SVG_SERVER, base,
               from_client ? SVG_SERVER - 2 : SVG_CLIENT + 2, base);
    o->y += SVG_ARROW_H;
}

static void svg_note_line(const char *p, size_t n, unsigned index, void *ctx)
{
    svg_out *o = ctx;
    char piece[256], a[1024];
    snprintf(piece, sizeof piece, "%s%.*s", index == 0 ? o->first : "  ", (int)n, p);
    svg_printf(o, "<text class=\"note\" x=\"%u\" y=\"%u\" xml:space=\"preserve\">%s</text>",
               SVG_CLIENT + 12, o->y + 12, xml_escape(piece, a, sizeof a));
    o->y += SVG_NOTE_H;
}

static void svg_note(void *ctx, const char *first, const char *text)
{
    svg_out *o = ctx;
    o->first = first;
    wrap(text, SVG_WRAP - strlen(first), SVG_WRAP - 2, svg_note_line, o);
}

static void svg_end(void *ctx)
{
    svg_out *o = ctx;
    unsigned top = o->lane_top + SVG_HEAD_H - 8;
    svg_printf(o,
               "<line class=\"lifeline\" x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\"/>"
               "<line class=\"lifeline\" x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\"/>",
               SVG_CLIENT, top, SVG_CLIENT, o->y + 4, SVG_SERVER, top, SVG_SERVER, o->y + 4);
    svg_printf(o, "</g>");
    o->y += SVG_GAP_H;
}

static void svg_plain(void *ctx, const char *text)
{
    svg_out *o = ctx;
    char a[1024];
    svg_printf(o, "<text class=\"note\" x=\"8\" y=\"%u\">%s</text>", o->y + 14,
               xml_escape(text, a, sizeof a));
    o->y += SVG_NOTE_H + 4;
}

void tlsneg_ladder_write_svg(const tlsneg_ladder *l, void (*line)(const char *text, void *ctx),
                             void *ctx)
{
    svg_out o = {line, ctx, false, 8, 0, ""};
    renderer r = {svg_head, svg_arrow, svg_note, svg_end, svg_plain, &o};
    layout(l, &r); /* measure */
    unsigned height = o.y + 8;
    o.draw = true;
    o.y = 8;
    svg_printf(&o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    svg_printf(&o,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
               "viewBox=\"0 0 %u %u\" font-family=\"DejaVu Sans, Arial, sans-serif\" "
               "font-size=\"13\">",
               SVG_W, height, SVG_W, height);
    svg_printf(&o, "<title>TLS version negotiation ladder</title>");
    svg_printf(&o, "<defs><marker id=\"head\" markerWidth=\"10\" markerHeight=\"8\" refX=\"9\" "
                   "refY=\"4\" orient=\"auto\"><path d=\"M0,0 L10,4 L0,8 z\" "
                   "fill=\"#333\"/></marker>");
    svg_printf(&o, "<style>.heading{font-weight:bold}.peer{fill:#333;font-style:italic}"
                   ".frame{fill:#666;font-family:monospace}"
                   ".lifeline{stroke:#999;stroke-width:2;stroke-dasharray:4 3}"
                   ".to-server{stroke:#1f5fa8;stroke-width:1.6}"
                   ".to-client{stroke:#a8321f;stroke-width:1.6}"
                   ".note{fill:#555;font-size:12px}</style></defs>");
    svg_printf(&o, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>");
    layout(l, &r);
    svg_printf(&o, "</svg>");
}
