/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_ladder.c: the ladder text on step sequences shaped like the captures
 * in pcaps/ (frames as there): lanes, rungs, attempt numbers, notes, the cap;
 * and the steps made from the outputs' records, on the event sequences of
 * real captures (session_events.h) replayed through the session layer as a
 * front end would: the whole ladder as tshark -z tlsneg,ladder prints it for
 * those captures. */
#define _POSIX_C_SOURCE 200809L

#include "analysis/tracker.h"
#include "core/versions.h"
#include "replay/events.h"
#include "report/ladder.h"
#include "report/ladder_rows.h"

#include "session_events.h"
#include "tap.h"

typedef struct {
    char text[8192];
    size_t len;
    unsigned lines;
} out;

static void collect(const char *line, void *ctx)
{
    out *o = ctx;
    int n = snprintf(o->text + o->len, sizeof o->text - o->len, "%s\n", line);
    if (n > 0 && (size_t)n < sizeof o->text - o->len) {
        o->len += (size_t)n;
    }
    o->lines++;
}

static tlsneg_step hello(uint32_t frame, uint32_t attempt, uint16_t max, bool scsv)
{
    tlsneg_step s = {.kind = TLSNEG_STEP_CLIENT_HELLO,
                     .frame = frame,
                     .attempt = attempt,
                     .from_client = true,
                     .has_version = true,
                     .version = max,
                     .fallback_scsv = scsv};
    return s;
}

static tlsneg_step answer(tlsneg_step_kind kind, uint32_t frame, uint32_t attempt, uint16_t v)
{
    tlsneg_step s = {
        .kind = kind, .frame = frame, .attempt = attempt, .has_version = v != 0, .version = v};
    return s;
}

static tlsneg_step alert(uint32_t frame, uint32_t attempt, uint8_t desc)
{
    tlsneg_step s = {.kind = TLSNEG_STEP_ALERT, .frame = frame, .attempt = attempt, .alert = desc};
    return s;
}

/* line_of returns the line of o that starts with the frame number f (right
 * aligned in 8 columns), or NULL. */
static const char *line_of(const out *o, uint32_t f, char *buf, size_t len)
{
    char want[16];
    snprintf(want, sizeof want, "%8u  ", f);
    for (const char *p = o->text; *p;) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n >= strlen(want) && strncmp(p, want, strlen(want)) == 0) {
            snprintf(buf, len, "%.*s", (int)n, p);
            return buf;
        }
        p += n + (end ? 1 : 0);
    }
    return NULL;
}

static bool has(const char *line, const char *what)
{
    return line && strstr(line, what);
}

static bool ends_with(const char *line, const char *tail)
{
    size_t a = line ? strlen(line) : 0, b = strlen(tail);
    return line && a >= b && strcmp(line + a - b, tail) == 0;
}

/* pcaps/fallback-chain.pcap: four attempts, three refused with
 * handshake_failure, the last completed at TLS 1.0. */
static void fallback_chain(void)
{
    tlsneg_ladder *l = tlsneg_ladder_new(100);
    const char *srv = "127.0.0.1:44331", *cli = "127.0.0.1";
    tlsneg_step s;
    s = hello(4, 4, TLSNEG_V_TLS13, false);
    tlsneg_ladder_add(l, srv, "localhost", cli, &s);
    s = alert(6, 4, 40);
    tlsneg_ladder_add(l, srv, "localhost", cli, &s);
    s = hello(14, 14, TLSNEG_V_TLS12, false);
    tlsneg_ladder_add(l, srv, "localhost", cli, &s);
    s = (tlsneg_step){.kind = TLSNEG_STEP_VERDICT,
                      .frame = 14,
                      .attempt = 14,
                      .finding = "fallback_retry",
                      .detail = "A retry of the attempt in frame 4, offering less"};
    tlsneg_ladder_add(l, srv, "localhost", cli, &s);
    s = alert(16, 14, 40);
    tlsneg_ladder_add(l, srv, "localhost", cli, &s);
    s = hello(34, 34, TLSNEG_V_TLS10, false);
    tlsneg_ladder_add(l, srv, "localhost", cli, &s);
    s = answer(TLSNEG_STEP_SERVER_HELLO, 36, 34, TLSNEG_V_TLS10);
    tlsneg_ladder_add(l, srv, "localhost", cli, &s);

    out o = {0};
    char buf[256];
    tlsneg_ladder_write(l, collect, &o);
    const char *heading = "127.0.0.1:44331 (SNI localhost), client 127.0.0.1: 3 attempts\n";
    ok(strncmp(o.text, heading, strlen(heading)) == 0,
       "the lane's heading names server, SNI, client and 3 attempts");
    const char *ln = line_of(&o, 4, buf, sizeof buf);
    ok(has(ln, "#1 ClientHello, up to TLS 1.3") && ends_with(ln, "->"),
       "frame 4: attempt 1, pointing at the server: %s", ln ? ln : "(none)");
    ln = line_of(&o, 6, buf, sizeof buf);
    ok(has(ln, "  <--") && ends_with(ln, "alert handshake_failure (40)"),
       "frame 6: the alert points at the client: %s", ln ? ln : "(none)");
    ok(strstr(o.text, "* fallback_retry: A retry of the attempt in frame 4, offering less\n") !=
           NULL,
       "the verdict is a note under its rung");
    ln = line_of(&o, 36, buf, sizeof buf);
    ok(ends_with(ln, "ServerHello: TLS 1.0 in force"), "frame 36: the version in force");
    ok(!has(line_of(&o, 36, buf, sizeof buf), "(#"),
       "an answer right after its own attempt carries no attempt number");
    tlsneg_ladder_free(l);
}

/* pcaps/tls13-hrr.pcap: HelloRetryRequest, a second ClientHello on the same
 * connection is the same attempt. */
static void hrr(void)
{
    tlsneg_ladder *l = tlsneg_ladder_new(100);
    tlsneg_step s = hello(4, 4, TLSNEG_V_TLS13, false);
    tlsneg_ladder_add(l, "127.0.0.1:44304", NULL, "127.0.0.1", &s);
    s = answer(TLSNEG_STEP_HELLO_RETRY_REQUEST, 6, 4, TLSNEG_V_TLS13);
    tlsneg_ladder_add(l, "127.0.0.1:44304", NULL, "127.0.0.1", &s);
    s = hello(8, 4, TLSNEG_V_TLS13, false);
    tlsneg_ladder_add(l, "127.0.0.1:44304", NULL, "127.0.0.1", &s);
    s = answer(TLSNEG_STEP_SERVER_HELLO, 9, 4, TLSNEG_V_TLS13);
    tlsneg_ladder_add(l, "127.0.0.1:44304", NULL, "127.0.0.1", &s);
    out o = {0};
    char buf[256];
    tlsneg_ladder_write(l, collect, &o);
    ok(strstr(o.text, "127.0.0.1:44304, client 127.0.0.1: 1 attempt\n") != NULL,
       "one attempt, no SNI in the heading");
    ok(ends_with(line_of(&o, 6, buf, sizeof buf), "HelloRetryRequest (TLS 1.3)"),
       "the HelloRetryRequest names the version it selects");
    const char *ln = line_of(&o, 8, buf, sizeof buf);
    ok(has(ln, "ClientHello again, up to TLS 1.3") && !has(ln, "#2"),
       "the second ClientHello is the same attempt: %s", ln ? ln : "(none)");
    tlsneg_ladder_free(l);
}

/* Two connections interleaved (pcaps/nofallback-parallel.pcap's shape):
 * each answer says which attempt it answers. */
static void interleaved(void)
{
    tlsneg_ladder *l = tlsneg_ladder_new(100);
    tlsneg_step s = hello(4, 4, TLSNEG_V_TLS13, false);
    tlsneg_ladder_add(l, "192.0.2.1:443", "a", "198.51.100.7", &s);
    s = hello(5, 5, TLSNEG_V_TLS12, true);
    tlsneg_ladder_add(l, "192.0.2.1:443", "a", "198.51.100.7", &s);
    s = (tlsneg_step){.kind = TLSNEG_STEP_RESET, .frame = 7, .attempt = 4};
    tlsneg_ladder_add(l, "192.0.2.1:443", "a", "198.51.100.7", &s);
    s = answer(TLSNEG_STEP_SERVER_HELLO, 8, 5, TLSNEG_V_TLS12);
    tlsneg_ladder_add(l, "192.0.2.1:443", "a", "198.51.100.7", &s);
    /* Another client: another lane. */
    s = hello(9, 9, TLSNEG_V_TLS13, false);
    tlsneg_ladder_add(l, "192.0.2.1:443", "a", "198.51.100.8", &s);
    out o = {0};
    char buf[256];
    tlsneg_ladder_write(l, collect, &o);
    ok(has(line_of(&o, 5, buf, sizeof buf), "#2 ClientHello, up to TLS 1.2, TLS_FALLBACK_SCSV"),
       "the SCSV is named on its ClientHello");
    ok(ends_with(line_of(&o, 7, buf, sizeof buf), "TCP reset (#1)"),
       "the reset says it ends attempt 1");
    ok(ends_with(line_of(&o, 8, buf, sizeof buf), "ServerHello: TLS 1.2 in force (#2)"),
       "the ServerHello after the reset of attempt 1 says it answers attempt 2");
    ok(strstr(o.text, "client 198.51.100.8: 1 attempt") != NULL, "another client, another lane");
    ok(strstr(o.text, "#1 (frame 9): no answer in the capture") != NULL,
       "an attempt without an answer says so");
    ok(strstr(o.text, "#1 (frame 4): no answer") == NULL &&
           strstr(o.text, "#2 (frame 5): no answer") == NULL,
       "a reset and a ServerHello are answers");
    tlsneg_ladder_free(l);
}

static void cap_and_empty(void)
{
    tlsneg_ladder *l = tlsneg_ladder_new(2);
    out o = {0};
    tlsneg_ladder_write(l, collect, &o);
    ok(strstr(o.text, "(no TLS, DTLS or QUIC hello in the capture)") != NULL,
       "an empty ladder says why it is empty");
    for (uint32_t f = 1; f <= 5; f++) {
        tlsneg_step s = hello(f, f, TLSNEG_V_TLS12, false);
        tlsneg_ladder_add(l, "192.0.2.1:443", NULL, "198.51.100.7", &s);
    }
    o = (out){0};
    tlsneg_ladder_write(l, collect, &o);
    ok(strstr(o.text, "(3 more steps not shown: the ladder keeps 2)") != NULL,
       "steps past the cap are counted and said");
    ok(strstr(o.text, "#3 ClientHello") == NULL, "and not kept");
    tlsneg_ladder_free(l);
}

static unsigned count(const char *text, const char *what)
{
    unsigned n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) {
        n++;
    }
    return n;
}

/* pcaps/intolerant-rst.pcap, with a server name that needs escaping in
 * XML: the failure said once per failed attempt, in the text and in the
 * SVG, which draws the same rows. */
static void failures_and_svg(void)
{
    tlsneg_ladder *l = tlsneg_ladder_new(100);
    const char *srv = "127.0.0.1:44321", *cli = "127.0.0.1", *sni = "a&b<c>.localhost";
    tlsneg_step s = hello(4, 4, TLSNEG_V_TLS13, false);
    tlsneg_ladder_add(l, srv, sni, cli, &s);
    s = (tlsneg_step){
        .kind = TLSNEG_STEP_RESET, .frame = 6, .attempt = 4, .failure = TLSNEG_CAUSE_RESET};
    tlsneg_ladder_add(l, srv, sni, cli, &s);
    s = hello(10, 10, TLSNEG_V_TLS12, false);
    tlsneg_ladder_add(l, srv, sni, cli, &s);
    s = alert(12, 10, 40);
    s.failure = TLSNEG_CAUSE_ALERT;
    tlsneg_ladder_add(l, srv, sni, cli, &s);
    s = alert(13, 10, 40); /* a second alert: the attempt had already failed */
    s.failure = TLSNEG_CAUSE_ALERT;
    tlsneg_ladder_add(l, srv, sni, cli, &s);

    out o = {0};
    tlsneg_ladder_write(l, collect, &o);
    ok(strstr(o.text, "#1 (frame 4) failed: TCP reset, frame 6\n") != NULL,
       "the first attempt says how and where it failed");
    ok(strstr(o.text, "#2 (frame 10) failed: alert handshake_failure (40), frame 12\n") != NULL &&
           count(o.text, "failed:") == 2,
       "the second too, once, at its first failure");
    ok(strstr(o.text, "no answer") == NULL, "a failed attempt is no unanswered one");

    static out svg;
    svg = (out){0};
    tlsneg_ladder_write_svg(l, collect, &svg);
    ok(strncmp(svg.text, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44) == 0 &&
           strstr(svg.text, "</svg>\n") != NULL,
       "an SVG document");
    ok(count(svg.text, "class=\"frame\"") == 5 &&
           strstr(svg.text, ">#1 ClientHello, up to TLS 1.3</text>") != NULL &&
           strstr(svg.text, ">TCP reset</text>") != NULL,
       "one arrow per step, with the text's words");
    ok(strstr(svg.text, "#2 (frame 10) failed: alert handshake_failure (40), frame 12</text>") !=
           NULL,
       "the failure notes too");
    ok(strstr(svg.text, "a&amp;b&lt;c&gt;.localhost") != NULL && strstr(svg.text, "a&b") == NULL,
       "text is escaped for XML");
    tlsneg_ladder_free(l);

    tlsneg_ladder *e = tlsneg_ladder_new(10);
    svg = (out){0};
    tlsneg_ladder_write_svg(e, collect, &svg);
    ok(strstr(svg.text, "(no TLS, DTLS or QUIC hello in the capture)</text>") != NULL &&
           strstr(svg.text, "</svg>") != NULL,
       "an empty ladder is an SVG that says why");
    tlsneg_ladder_free(e);
}

/* pcaps/scan-nmap-tls12.pcap, tcp.stream 12: ClientHello 70, ServerHello
 * 81, the client's FIN 82 (no rung: a close after a ServerHello ends no
 * attempt), the server's fatal decode_error 83: its rung says it came
 * after the client's FIN. pcaps/intolerant-close.pcap: the client's alert
 * 7 after the server's FIN 6. */
static void alert_after_close(void)
{
    tlsneg_ladder *l = tlsneg_ladder_new(10);
    const char *srv = "127.0.0.3:44364", *cli = "127.0.0.2";
    tlsneg_step s = hello(70, 70, TLSNEG_V_TLS12, false);
    tlsneg_ladder_add(l, srv, NULL, cli, &s);
    s = answer(TLSNEG_STEP_SERVER_HELLO, 81, 70, TLSNEG_V_TLS10);
    tlsneg_ladder_add(l, srv, NULL, cli, &s);
    s = alert(83, 70, 50);
    s.after_close = 82;
    s.after_close_cause = TLSNEG_CAUSE_CLOSE;
    tlsneg_ladder_add(l, srv, NULL, cli, &s);
    s = alert(90, 70, 50);
    s.from_client = true;
    s.after_close = 89;
    s.after_close_cause = TLSNEG_CAUSE_RESET;
    tlsneg_ladder_add(l, srv, NULL, cli, &s);
    out o = {0};
    char buf[256];
    tlsneg_ladder_write(l, collect, &o);
    ok(ends_with(line_of(&o, 83, buf, sizeof buf),
                 "-- alert decode_error (50), after the client's FIN in frame 82"),
       "the server's alert after the client's FIN says so: %s", buf);
    ok(has(line_of(&o, 90, buf, sizeof buf),
           "alert decode_error (50), after the server's RST in frame 89 --"),
       "a client's alert after the server's RST too: %s", buf);
    ok(strstr(o.text, "failed:") == NULL, "no attempt failed by either");
    tlsneg_ladder_free(l);
}

/* widest returns the longest line of text. */
static size_t widest(const char *text)
{
    size_t w = 0;
    for (const char *p = text; *p;) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        w = n > w ? n : w;
        p += n + (end ? 1 : 0);
    }
    return w;
}

/* A lane whose hellos the analysis put in a probe (step.probe, the probe's
 * first hello) says so in its heading, with the earliest start; one whose
 * hellos carry none says nothing of a scanner. The seconds are counted from
 * the lane's first attempt, rounded to milliseconds. */
static void scanner_and_seconds(void)
{
    tlsneg_ladder *l = tlsneg_ladder_new(100);
    const char *srv = "127.0.0.3:44364", *cli = "127.0.0.2";
    tlsneg_step s = hello(6, 6, TLSNEG_V_TLS12, false);
    s.time_us = 1000000;
    tlsneg_ladder_add(l, srv, NULL, cli, &s);
    s = alert(7, 6, 40);
    s.time_us = 1000000 + 1499; /* 1.499 ms: 0.001 */
    tlsneg_ladder_add(l, srv, NULL, cli, &s);
    s = hello(20, 20, TLSNEG_V_SSL3, false);
    s.time_us = 1000000 + 29500; /* 29.5 ms: 0.030, half away from zero */
    s.probe = 20;
    tlsneg_ladder_add(l, srv, NULL, cli, &s);
    s = hello(23, 23, TLSNEG_V_TLS10, false);
    s.time_us = 1000000 + 2000000;
    s.probe = 6; /* the probe known since frame 6, told on a later hello */
    tlsneg_ladder_add(l, srv, NULL, cli, &s);
    s = hello(30, 30, TLSNEG_V_TLS13, false);
    s.time_us = 5;
    tlsneg_ladder_add(l, "192.0.2.1:443", NULL, cli, &s);

    out o = {0};
    char buf[256];
    tlsneg_ladder_write(l, collect, &o);
    ok(strstr(o.text, "127.0.0.3:44364, client 127.0.0.2: 3 attempts; scanner: probe since frame "
                      "6, not a dance\n") != NULL,
       "the probe's lane names a scanner, since the earliest start its hellos carry:\n%s", o.text);
    ok(strstr(o.text, "192.0.2.1:443, client 127.0.0.2: 1 attempt\n") != NULL,
       "a lane without a probe names none");
    ok(has(line_of(&o, 6, buf, sizeof buf), "       6    0.000  #1 ClientHello"),
       "the first attempt is second 0");
    ok(has(line_of(&o, 7, buf, sizeof buf), "    0.001  <--"), "1.499 ms is 0.001");
    ok(has(line_of(&o, 20, buf, sizeof buf), "    0.030  #2"), "29.5 ms is 0.030");
    ok(has(line_of(&o, 23, buf, sizeof buf), "    2.000  #3"), "2 s is 2.000");
    ok(has(line_of(&o, 30, buf, sizeof buf), "    0.000  #1"), "each lane has its own clock");
    char secs[32];
    ok(strcmp(tlsneg_ladder_seconds(-55730, secs, sizeof secs), "-0.056") == 0 &&
           strcmp(tlsneg_ladder_seconds(-400, secs, sizeof secs), "0.000") == 0 &&
           strcmp(tlsneg_ladder_seconds(60507123, secs, sizeof secs), "60.507") == 0,
       "a step before the first attempt (a reset before the hello was complete) is negative");

    uint32_t frames[8];
    size_t n = tlsneg_ladder_frames(l, frames, 8);
    ok(n == 5 && frames[0] == 6 && frames[1] == 7 && frames[2] == 20 && frames[4] == 30,
       "the ladder's frames, ascending, each once");
    ok(tlsneg_ladder_frames(l, frames, 2) == 5 && frames[1] == 7,
       "more frames than room: counted, the first written");

    o = (out){0};
    tlsneg_ladder_write_narrow(l, collect, &o);
    ok(widest(o.text) <= TLSNEG_LADDER_NARROW &&
           strstr(o.text, "\nscanner: probe since frame 6, not a dance\n") != NULL,
       "narrow: within %d columns, the scanner on a line of its own:\n%s", TLSNEG_LADDER_NARROW,
       o.text);
    tlsneg_ladder_free(l);
}

/* The SVG is as wide as its widest text: a long server name at the right
 * lifeline, centred on it, is not cut (the drawing's width grows). */
static void svg_width(void)
{
    tlsneg_ladder *l = tlsneg_ladder_new(10);
    const char *srv = "[2001:db8:1234:5678:9abc:def0:1234:5678]:44331";
    tlsneg_step s = hello(4, 4, TLSNEG_V_TLS13, false);
    tlsneg_ladder_add(l, srv, NULL, "2001:db8:1234:5678:9abc:def0:1234:5679", &s);
    static out svg;
    svg = (out){0};
    tlsneg_ladder_write_svg(l, collect, &svg);
    unsigned width = 0, x = 0;
    const char *w = strstr(svg.text, "<svg ");
    const char *peer = strstr(svg.text, "text-anchor=\"middle\">server ");
    /* the server's label is centred at x; "server " + its name, at 13 px, is
     * at most 0.64 em a character wide in DejaVu Sans (digits: 1303/2048) */
    const char *xs = peer ? strstr(peer - 40, "x=\"") : NULL;
    ok(w && sscanf(w, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\"", &width) == 1 &&
           xs && sscanf(xs, "x=\"%u\"", &x) == 1 &&
           width >= x + (unsigned)((strlen(srv) + 7) * 13 * 64 / 100 / 2),
       "the drawing (%u wide) holds the server's label centred at %u", width, x);
    ok(strstr(svg.text, "text-anchor=\"start\">client 2001:db8:") != NULL,
       "a client name too long to centre under its lifeline starts at the left edge");
    tlsneg_ladder_free(l);
}

/* ---- steps from the records, on real captures -------------------------- */

/* replayed replays the events of a capture (lines) and hands each result
 * and each close that ended an attempt to a new ladder as the outputs'
 * records. */
static tlsneg_ladder *replayed(const char *const *lines)
{
    static uint8_t bytes[1 << 16];
    static tlsneg_ev ev;
    static tlsneg_replay_out got;
    tlsneg_tracker_config cfg = {500000, 30 * 1000000u, true, false, false};
    tlsneg_replay *r = tlsneg_replay_new(&cfg, 64);
    tlsneg_ladder *l = tlsneg_ladder_new(TLSNEG_LADDER_MAX_STEPS);
    for (size_t i = 0; lines[i]; i++) {
        if (tlsneg_ev_parse(lines[i], &ev, bytes, sizeof bytes) <= 0) {
            continue;
        }
        tlsneg_replay_event(r, &ev, &got);
        tlsneg_out_frame fr = {ev.frame,
                               (int64_t)(ev.time_us / 1000000u),
                               (uint32_t)(ev.time_us % 1000000u),
                               {ev.src, ev.addr_len, NULL, ev.sport},
                               {ev.dst, ev.addr_len, NULL, ev.dport}};
        if (got.has_result) {
            tlsneg_out_msg_buf buf;
            tlsneg_out_msg m;
            tlsneg_out_msg_view(&m, &buf, &got.result);
            tlsneg_ladder_message(l, got.conn, &fr, &m);
        } else if (got.has_close && got.close.ended_attempt_frame) {
            tlsneg_ladder_close(l, got.conn, &fr, got.close.cause, got.close.from_client,
                                got.close.ended_attempt_frame,
                                got.close.has_sni ? got.close.sni : NULL);
        }
    }
    tlsneg_replay_free(r);
    return l;
}

/* ladder_of returns what tlsneg_ladder_print (svg: tlsneg_ladder_print_svg)
 * writes for the replayed capture. */
static char *ladder_of(const char *const *lines, bool svg)
{
    tlsneg_ladder *l = replayed(lines);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (svg) {
        tlsneg_ladder_print_svg(l, mem);
    } else {
        tlsneg_ladder_print(l, mem);
    }
    fclose(mem);
    tlsneg_ladder_free(l);
    return text;
}

/* The narrow ladder (the GUI window) of real captures keeps within
 * TLSNEG_LADDER_NARROW columns, long rungs and notes wrapped, and names
 * the same frames as the wide one. */
static void narrow_of(const char *const *lines, const char *name)
{
    tlsneg_ladder *l = replayed(lines);
    static out wide, narrow;
    wide = (out){0};
    narrow = (out){0};
    tlsneg_ladder_write(l, collect, &wide);
    tlsneg_ladder_write_narrow(l, collect, &narrow);
    uint32_t frames[64];
    size_t n = tlsneg_ladder_frames(l, frames, 64);
    bool same = n > 0 && n <= 64;
    char buf[256], want[16];
    for (size_t i = 0; same && i < n; i++) {
        snprintf(want, sizeof want, "\n%6u  ", frames[i]);
        same = line_of(&wide, frames[i], buf, sizeof buf) && strstr(narrow.text, want);
    }
    ok(widest(narrow.text) <= TLSNEG_LADDER_NARROW && same,
       "%s narrow: within %d columns (widest %zu), a rung for each of the %zu frames of the "
       "wide ladder:\n%s",
       name, TLSNEG_LADDER_NARROW, widest(narrow.text), n, narrow.text);
    tlsneg_ladder_free(l);
}

/* pcaps/intolerant-rst.pcap: the server resets the TLS 1.3 attempt, the
 * retry at TLS 1.2 goes through. */
static const char rst_ladder[] =
    "=== tlsneg ladder ===\n"
    "127.0.0.3:44323 (SNI localhost), client 127.0.0.2: 2 attempts\n"
    "   frame  seconds  client                                                      server\n"
    "       4    0.000  #1 ClientHello, up to TLS 1.3 ----------------------------------->\n"
    "       6    0.009  <------------------------------------------------------- TCP reset\n"
    "      10    0.189  #2 ClientHello, up to TLS 1.2 ----------------------------------->\n"
    "            * fallback_retry: A retry of the attempt in frame 4 (up to TLS 1.3, failed: TCP "
    "reset\n"
    "              before any ServerHello) offering a lower highest version, up to TLS 1.2, "
    "without\n"
    "              TLS_FALLBACK_SCSV: open to a downgrade attack\n"
    "      12    0.228  <----------------------------------- ServerHello: TLS 1.2 in force\n"
    "            * version_intolerance: The server failed the attempt in frame 4 and completes "
    "this one,\n"
    "              whose hello differs only in its versions: it does not tolerate TLS 1.3 in\n"
    "              supported_versions\n"
    "            #1 (frame 4) failed: TCP reset, frame 6\n"
    "\n"
    "===\n";

/* pcaps/intolerant-alert.pcap: the same with handshake_failure. */
static const char alert_ladder[] =
    "=== tlsneg ladder ===\n"
    "127.0.0.3:44325 (SNI localhost), client 127.0.0.2: 2 attempts\n"
    "   frame  seconds  client                                                      server\n"
    "       4    0.000  #1 ClientHello, up to TLS 1.3 ----------------------------------->\n"
    "       6    0.022  <------------------------------------ alert handshake_failure (40)\n"
    "      14    0.672  #2 ClientHello, up to TLS 1.2 ----------------------------------->\n"
    "            * fallback_retry: A retry of the attempt in frame 4 (up to TLS 1.3, failed: "
    "alert\n"
    "              handshake_failure (40)) offering a lower highest version, up to TLS 1.2, "
    "without\n"
    "              TLS_FALLBACK_SCSV: open to a downgrade attack\n"
    "      16    0.772  <----------------------------------- ServerHello: TLS 1.2 in force\n"
    "            * version_intolerance: The server failed the attempt in frame 4 and completes "
    "this one,\n"
    "              whose hello differs only in its versions: it does not tolerate TLS 1.3 in\n"
    "              supported_versions\n"
    "            #1 (frame 4) failed: alert handshake_failure (40), frame 6\n"
    "\n"
    "===\n";

/* pcaps/tls13-hrr.pcap: a second ClientHello after the HelloRetryRequest;
 * the HelloRetryRequest's selected_group and the ServerHello's key share are
 * both 0x0017 secp256r1 (its manifest, read off tshark's
 * tls.handshake.extensions_key_share_selected_group and _group). */
static const char hrr_ladder[] =
    "=== tlsneg ladder ===\n"
    "127.0.0.3:44304 (SNI localhost), client 127.0.0.2: 1 attempt\n"
    "   frame  seconds  client                                                      server\n"
    "       4    0.000  #1 ClientHello, up to TLS 1.3 ----------------------------------->\n"
    "       6    0.000  <----------------- HelloRetryRequest (TLS 1.3, asks for secp256r1)\n"
    "       8    0.001  ClientHello again, up to TLS 1.3 -------------------------------->\n"
    "       9    0.002  <------------------------ ServerHello: TLS 1.3 in force, secp256r1\n"
    "\n"
    "===\n";

/* pcaps/public/zeek/dtls13-cid.pcap: five DTLS 1.3 connections over UDP
 * (the server named with its transport), two with a HelloRetryRequest (a
 * cookie, no selected_group), hellos sent again unchanged; the
 * ServerHellos' key shares are 0x0017 secp256r1 (its manifest). */
static const char cid_ladder[] =
    "=== tlsneg ladder ===\n"
    "10.168.36.144:11111 udp/DTLS, client 10.168.36.147: 5 attempts\n"
    "   frame  seconds  client                                                      server\n"
    "       1    0.000  #1 ClientHello, up to DTLS 1.3 ---------------------------------->\n"
    "       4    8.741  #2 ClientHello, up to DTLS 1.3 ---------------------------------->\n"
    "       5    8.743  <------------------------------------ HelloRetryRequest (DTLS 1.3)\n"
    "       6    8.743  ClientHello again, up to DTLS 1.3 ------------------------------->\n"
    "       7    8.749  <----------------------- ServerHello: DTLS 1.3 in force, secp256r1\n"
    "      19   32.342  #3 ClientHello, up to DTLS 1.3 ---------------------------------->\n"
    "      23   51.151  #4 ClientHello, up to DTLS 1.3 ---------------------------------->\n"
    "      26   60.507  #5 ClientHello, up to DTLS 1.3 ---------------------------------->\n"
    "      27   60.508  <------------------------------------ HelloRetryRequest (DTLS 1.3)\n"
    "      28   60.508  ClientHello again, up to DTLS 1.3 ------------------------------->\n"
    "      29   60.513  <----------------------- ServerHello: DTLS 1.3 in force, secp256r1\n"
    "            #1 (frame 1): no answer in the capture\n"
    "            #3 (frame 19): no answer in the capture\n"
    "            #4 (frame 23): no answer in the capture\n"
    "\n"
    "===\n";

static void from_records(void)
{
    char *text = ladder_of(ev_intolerant_rst, false);
    ok(strcmp(text, rst_ladder) == 0,
       "intolerant-rst: a reset ends attempt 1, the retry's and the ServerHello's verdicts "
       "under their rungs, the failure under the lane:\n%s",
       text);
    free(text);
    text = ladder_of(ev_intolerant_alert, false);
    ok(strcmp(text, alert_ladder) == 0,
       "intolerant-alert: the alert that made attempt 1 fail says so under the lane:\n%s", text);
    free(text);
    text = ladder_of(ev_tls13_hrr, false);
    ok(strcmp(text, hrr_ladder) == 0,
       "tls13-hrr: the second ClientHello of the connection is its attempt again:\n%s", text);
    free(text);
    text = ladder_of(ev_dtls13_cid, false);
    ok(strcmp(text, cid_ladder) == 0,
       "dtls13-cid: one attempt per connection, hellos sent again left out, the unanswered "
       "ones said:\n%s",
       text);
    free(text);
    text = ladder_of(ev_intolerant_rst, true);
    ok(strncmp(text, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44) == 0 &&
           count(text, "class=\"frame\"") == 4 && strstr(text, ">TCP reset</text>") != NULL &&
           strstr(text, "#1 (frame 4) failed: TCP reset, frame 6</text>") != NULL,
       "intolerant-rst as SVG: an arrow per message, the reset and the failure note");
    free(text);
}

int main(void)
{
    failures_and_svg();
    alert_after_close();
    fallback_chain();
    hrr();
    interleaved();
    cap_and_empty();
    from_records();
    scanner_and_seconds();
    svg_width();
    narrow_of(ev_fallback_chain, "fallback-chain");
    narrow_of(ev_pq_split_rst_classical_retry, "pq-split-rst-classical-retry");
    narrow_of(ev_dtls13_cid, "dtls13-cid");
    return tap_done();
}
