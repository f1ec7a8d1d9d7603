/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ladder_rows.h: inside the ladder. ladder.c keeps the steps and lays them
 * out once, as rows handed to a renderer; the text (ladder_text.c) and the
 * SVG (ladder_svg.c) draw the same rows. ladder_steps.c makes the steps
 * from the outputs' records, with the connections' first ClientHellos kept
 * here. */
#ifndef TLSNEG_LADDER_ROWS_H
#define TLSNEG_LADDER_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/ladder.h"

/* A renderer: what each row becomes. */
typedef struct {
    /* a lane's heading: text, and the names of its two ends */
    void (*head)(void *ctx, const char *text, const char *client, const char *server);
    /* a message: its frame, its time since the lane's first attempt (in
     * microseconds), its direction, its text */
    void (*arrow)(void *ctx, uint32_t frame, int64_t since_us, bool from_client, const char *text);
    /* a note under the rungs: its lead (first) and its text, to be wrapped */
    void (*note)(void *ctx, const char *first, const char *text);
    void (*end)(void *ctx);                     /* after a lane */
    void (*plain)(void *ctx, const char *text); /* a line outside the lanes */
    void *ctx;
} tlsneg_ladder_renderer;

/* tlsneg_ladder_layout hands l's rows to r, lane by lane. */
void tlsneg_ladder_layout(const tlsneg_ladder *l, const tlsneg_ladder_renderer *r);

/* tlsneg_ladder_wrap splits text into lines of at most room_first, then
 * room characters, broken at spaces; calls each(piece, len, index, ctx). */
void tlsneg_ladder_wrap(const char *text, size_t room_first, size_t room,
                        void (*each)(const char *p, size_t n, unsigned index, void *ctx),
                        void *ctx);

/* The widest "seconds" text: "-123456789.123". */
#define TLSNEG_LADDER_SECONDS_MAX 24

/* tlsneg_ladder_seconds writes us microseconds as seconds with three
 * decimals, rounded half away from zero ("0.000", "1.235", "-0.002"). */
const char *tlsneg_ladder_seconds(int64_t us, char *buf, size_t len);

/* tlsneg_ladder_attempt returns the frame of the first ClientHello seen on
 * connection conn, or 0; with hello (a ClientHello in frame, the first on
 * conn if none is known) it becomes that frame. */
uint32_t tlsneg_ladder_attempt(tlsneg_ladder *l, uint64_t conn, bool hello, uint32_t frame);

#endif
