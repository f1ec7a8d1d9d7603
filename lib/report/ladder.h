/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ladder.h: the negotiation at a glance. Per server (address, port, SNI;
 * over UDP its transport too, "192.0.2.1:443 udp/QUIC") and client, every
 * attempt as a rung: the ClientHello with its highest offer, what answered
 * it (ServerHello and the version in force, HelloRetryRequest, an alert, a
 * TCP reset or close), and the verdicts that concern it, in frame order,
 * each rung with its seconds since the lane's first attempt, as plain text
 * for a terminal, a slide or a GUI window, or as SVG. A lane whose hellos
 * the analysis found to be a probe (a scanner's burst) says so in its
 * heading ("scanner: probe since frame N, not a dance").
 *
 * Pure C. A front end feeds the messages and closes it hands to the other
 * outputs (output.h), in frame order, each with its connection
 * (tlsneg_ladder_message, tlsneg_ladder_close), and at the end prints the
 * ladder (tlsneg_ladder_print, tlsneg_ladder_print_svg) or writes it line by
 * line. Below that, the steps themselves (tlsneg_ladder_add). The ladder
 * keeps a bounded number of steps (more are counted). */
#ifndef TLSNEG_LADDER_H
#define TLSNEG_LADDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/output.h"

/* The cap both front ends use: a step costs about 100 bytes. */
#define TLSNEG_LADDER_MAX_STEPS 1000000

typedef struct tlsneg_ladder tlsneg_ladder;

/* tlsneg_ladder_new keeps at most max_steps steps; NULL when out of memory. */
tlsneg_ladder *tlsneg_ladder_new(size_t max_steps);
void tlsneg_ladder_free(tlsneg_ladder *l);

/* ---- from the outputs' records ------------------------------------------ */

/* tlsneg_ladder_message adds the steps of message m of frame fr (as handed
 * to tlsneg_out_message) on the connection conn: any number that tells the
 * front end's connections apart (TCP streams, DTLS and QUIC flows), the same
 * for every message and close of one connection. A ClientHello is attempt
 * number n of its lane if it is the first of its connection; the later
 * ones, and every answer, belong to the attempt of their connection's
 * first. A message sent again unchanged adds nothing. */
void tlsneg_ladder_message(tlsneg_ladder *l, uint64_t conn, const tlsneg_out_frame *fr,
                           const tlsneg_out_msg *m);

/* tlsneg_ladder_close adds the TCP reset or close of frame fr on conn that
 * ended the attempt of ClientHello attempt_frame (as handed to
 * tlsneg_out_close). */
void tlsneg_ladder_close(tlsneg_ladder *l, uint64_t conn, const tlsneg_out_frame *fr, uint8_t cause,
                         bool from_client, uint32_t attempt_frame, const char *sni);

/* tlsneg_ladder_print writes the text ladder to out between the lines
 * "=== tlsneg ladder ===" and "===", as tshark -z tlsneg,ladder prints it;
 * tlsneg_ladder_print_svg the SVG document alone, as -z tlsneg,ladder-svg. */
void tlsneg_ladder_print(const tlsneg_ladder *l, FILE *out);
void tlsneg_ladder_print_svg(const tlsneg_ladder *l, FILE *out);

/* tlsneg_ladder_write writes the ladders, one line per call of line (no
 * newline), servers in the order they first appeared. */
void tlsneg_ladder_write(const tlsneg_ladder *l, void (*line)(const char *text, void *ctx),
                         void *ctx);

/* The columns of tlsneg_ladder_write_narrow: what a window of Wireshark's
 * default text dialog size (620 px wide, about 73 columns of its monospace
 * font) shows without wrapping, with room to spare. */
#define TLSNEG_LADDER_NARROW 60

/* tlsneg_ladder_write_narrow writes the same ladders in at most
 * TLSNEG_LADDER_NARROW columns (a rung's words longer than that are wrapped
 * under it): the frame, the seconds, and an arrow with the words. */
void tlsneg_ladder_write_narrow(const tlsneg_ladder *l, void (*line)(const char *text, void *ctx),
                                void *ctx);

/* tlsneg_ladder_frames writes the frames of the ladder's rungs (every step
 * but the verdicts), ascending, each once, the first max of them into
 * frames, and returns how many there are (more than max: not all
 * written). */
size_t tlsneg_ladder_frames(const tlsneg_ladder *l, uint32_t *frames, size_t max);

/* tlsneg_ladder_write_svg writes the same ladders, laid out by the same
 * code, as one SVG document (for handouts), line by line: per lane a
 * heading, the client's and the server's lifelines, each step an arrow
 * with its frame number and text, the notes under it. */
void tlsneg_ladder_write_svg(const tlsneg_ladder *l, void (*line)(const char *text, void *ctx),
                             void *ctx);

/* ---- steps ------------------------------------------------------------- */

typedef enum {
    TLSNEG_STEP_CLIENT_HELLO,
    TLSNEG_STEP_SERVER_HELLO,
    TLSNEG_STEP_HELLO_RETRY_REQUEST,
    TLSNEG_STEP_HELLO_VERIFY_REQUEST,
    TLSNEG_STEP_ALERT,
    TLSNEG_STEP_RESET,
    TLSNEG_STEP_CLOSE,
    TLSNEG_STEP_VERDICT, /* a finding across connections, or about a downgrade */
} tlsneg_step_kind;

#define TLSNEG_LADDER_GROUPS 4

typedef struct {
    tlsneg_step_kind kind;
    uint32_t frame;
    int64_t time_us;  /* the frame's capture time, in microseconds */
    uint32_t probe;   /* the first hello of the probe (a scanner's burst) this step's
                         hello belongs to, as the analysis judged it; 0: none known */
    uint32_t attempt; /* the frame of the first ClientHello of the step's connection
                         (a ClientHello with frame != attempt follows a
                         HelloRetryRequest or HelloVerifyRequest); 0: unknown */
    bool from_client;
    bool dtls;
    bool has_version; /* ClientHello: the highest offer; ServerHello: in force */
    uint16_t version;
    bool fallback_scsv;        /* ClientHello */
    uint8_t alert;             /* ALERT: its description */
    bool warning;              /* ALERT: a warning that does not end the handshake */
    uint8_t failure;           /* ALERT, RESET, CLOSE: this step made its attempt fail, and how
                                  (a tlsneg_cause, as the session layer judged it); 0: it did not */
    uint8_t after_close_cause; /* ALERT after the other side's TCP FIN or RST: which
                                  (TLSNEG_CAUSE_CLOSE or _RESET), in frame after_close */
    uint32_t after_close;      /* that frame; 0: none */
    uint8_t num_groups;        /* ClientHello: its key shares' groups (the first
                                  TLSNEG_LADDER_GROUPS, GREASE left out); ServerHello,
                                  HelloRetryRequest: 1 if it names a group */
    uint16_t groups[4];        /* TLSNEG_LADDER_GROUPS */
    const char *finding;       /* VERDICT: the rule's finding name (copied) */
    const char *detail;        /* VERDICT: its sentence (copied) */
} tlsneg_step;

/* tlsneg_ladder_add adds step s between server (e.g. "192.0.2.1:443",
 * "192.0.2.1:443 udp/QUIC": a lane of its own) with server name sni (NULL:
 * none) and client ("198.51.100.7"); the strings are copied. A step past
 * the cap is counted, not kept. */
void tlsneg_ladder_add(tlsneg_ladder *l, const char *server, const char *sni, const char *client,
                       const tlsneg_step *s);

#endif
