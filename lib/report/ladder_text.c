/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ladder_text.c: the ladder as text (tshark -z tlsneg,ladder; narrower, the
 * GUI window): per lane a heading, each step a line with its frame number,
 * its seconds since the lane's first attempt and an arrow towards the other
 * side, the notes wrapped under the rungs. */
#include "report/ladder_rows.h"

#include <stdio.h>
#include <string.h>

/* The columns: frame numbers, the seconds, then the space between client
 * and server; notes wrapped at wrap columns, note_pad in. tshark's are wide;
 * a window's narrow (TLSNEG_LADDER_NARROW). */
typedef struct {
    int frame_w, secs_w;
    size_t span, wrap, note_pad;
} cols;

static const cols WIDE = {8, 7, 66, 100, 8 + 4};
static const cols NARROW = {6, 7, TLSNEG_LADDER_NARROW - 6 - 2 - 7 - 2, TLSNEG_LADDER_NARROW,
                            6 + 2};

typedef struct {
    void (*line)(const char *text, void *ctx);
    void *ctx;
    const cols *c;
    const char *first; /* the note being wrapped: its lead */
    uint32_t frame;    /* the rung being wrapped (narrow) */
    const char *secs;
    bool from_client;
} text_out;

/* head_line writes one line of a heading: the first as it is, the others
 * (narrow: the heading wrapped) two in. */
static void head_line(const char *p, size_t n, unsigned index, void *ctx)
{
    const text_out *o = ctx;
    char buf[512];
    snprintf(buf, sizeof buf, "%s%.*s", index ? "  " : "", (int)n, p);
    o->line(buf, o->ctx);
}

static void text_head(void *ctx, const char *text, const char *client, const char *server)
{
    text_out *o = ctx;
    const cols *c = o->c;
    char buf[256];
    (void)client;
    (void)server;
    if (c == &WIDE) {
        o->line(text, o->ctx);
    } else {
        /* A line for the server, one for the client and its attempts, one
         * for a scanner: each wrapped. */
        const char *client_at = strstr(text, ", client ");
        const char *scanner_at = strstr(text, "; scanner: ");
        char part[512];
        size_t n = client_at ? (size_t)(client_at - text) : strlen(text);
        snprintf(part, sizeof part, "%.*s", (int)n, text);
        tlsneg_ladder_wrap(part, c->wrap, c->wrap - 2, head_line, o);
        if (client_at) {
            const char *from = client_at + 2;
            n = scanner_at && scanner_at > from ? (size_t)(scanner_at - from) : strlen(from);
            snprintf(part, sizeof part, "%.*s", (int)n, from);
            tlsneg_ladder_wrap(part, c->wrap, c->wrap - 2, head_line, o);
        }
        if (scanner_at) {
            tlsneg_ladder_wrap(scanner_at + 2, c->wrap, c->wrap - 2, head_line, o);
        }
    }
    snprintf(buf, sizeof buf, "%*s  %*s  %-*s%s", c->frame_w, "frame", c->secs_w, "seconds",
             (int)c->span - 6, "client", "server");
    o->line(buf, o->ctx);
}

/* rung_line writes one line of a rung: the first with the frame, the
 * seconds and an arrow towards the other side, the others (the words
 * wrapped, narrow) under the words. */
static void rung_line(const char *p, size_t n, unsigned index, void *ctx)
{
    const text_out *o = ctx;
    const cols *c = o->c;
    char buf[512], dash[128];
    size_t dashes = n + 6 < c->span ? c->span - n - 2 : 4;
    memset(dash, '-', dashes);
    dash[dashes] = '\0';
    int lead = c->frame_w + 2 + c->secs_w + 2;
    if (index > 0) {
        snprintf(buf, sizeof buf, "%*s%s%.*s", lead, "", o->from_client ? "" : "   ", (int)n, p);
    } else if (o->from_client) {
        snprintf(buf, sizeof buf, "%*u  %*s  %.*s %s>", c->frame_w, o->frame, c->secs_w, o->secs,
                 (int)n, p, dash);
    } else {
        snprintf(buf, sizeof buf, "%*u  %*s  <%s %.*s", c->frame_w, o->frame, c->secs_w, o->secs,
                 dash, (int)n, p);
    }
    o->line(buf, o->ctx);
}

/* text_arrow writes one message: the frame, the seconds, then text with an
 * arrow towards the other side (narrow: text wrapped to leave room for
 * it). */
static void text_arrow(void *ctx, uint32_t frame, int64_t since_us, bool from_client,
                       const char *text)
{
    text_out *o = ctx;
    char secs[TLSNEG_LADDER_SECONDS_MAX];
    o->frame = frame;
    o->secs = tlsneg_ladder_seconds(since_us, secs, sizeof secs);
    o->from_client = from_client;
    size_t room = o->c == &WIDE ? strlen(text) + 1 : o->c->span - 6;
    tlsneg_ladder_wrap(text, room, room - 3, rung_line, o);
}

static void text_note_line(const char *p, size_t n, unsigned index, void *ctx)
{
    const text_out *o = ctx;
    char buf[256];
    snprintf(buf, sizeof buf, "%*s%s%.*s", (int)o->c->note_pad, "", index == 0 ? o->first : "  ",
             (int)n, p);
    o->line(buf, o->ctx);
}

/* text_note writes text indented under the rungs, wrapped at c->wrap
 * columns. */
static void text_note(void *ctx, const char *first, const char *text)
{
    text_out *o = ctx;
    size_t room = o->c->wrap - o->c->note_pad;
    o->first = first;
    tlsneg_ladder_wrap(text, room - strlen(first), room - 2, text_note_line, o);
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
    text_out o = {line, ctx, &WIDE, "", 0, "", false};
    tlsneg_ladder_renderer r = {text_head, text_arrow, text_note, text_end, text_plain, &o};
    tlsneg_ladder_layout(l, &r);
}

void tlsneg_ladder_write_narrow(const tlsneg_ladder *l, void (*line)(const char *text, void *ctx),
                                void *ctx)
{
    text_out o = {line, ctx, &NARROW, "", 0, "", false};
    tlsneg_ladder_renderer r = {text_head, text_arrow, text_note, text_end, text_plain, &o};
    tlsneg_ladder_layout(l, &r);
}

static void print_line(const char *text, void *ctx)
{
    fprintf(ctx, "%s\n", text);
}

void tlsneg_ladder_print(const tlsneg_ladder *l, FILE *out)
{
    fprintf(out, "=== tlsneg ladder ===\n");
    tlsneg_ladder_write(l, print_line, out);
    fprintf(out, "===\n");
}
