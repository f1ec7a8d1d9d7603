/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ladder_text.c: the ladder as text (tshark -z tlsneg,ladder, the GUI
 * window): per lane a heading, each step a line with its frame number and
 * an arrow towards the other side, the notes wrapped under the rungs. */
#include "report/ladder_rows.h"

#include <stdio.h>
#include <string.h>

/* Columns: frame numbers, then the space between client and server. */
#define FRAME_W  8
#define SPAN     66
#define WRAP     100
#define NOTE_PAD (FRAME_W + 4)

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
    tlsneg_ladder_wrap(text, WRAP - NOTE_PAD - strlen(first), WRAP - NOTE_PAD - 2, text_note_line,
                       o);
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
