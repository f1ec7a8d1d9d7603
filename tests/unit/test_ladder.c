/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_ladder.c: the ladder text on step sequences shaped like the captures
 * in pcaps/ (frames as there): lanes, rungs, attempt numbers, notes, the cap. */
#include "report/ladder.h"
#include "analysis/tracker.h"
#include "core/versions.h"

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

int main(void)
{
    failures_and_svg();
    fallback_chain();
    hrr();
    interleaved();
    cap_and_empty();
    return tap_done();
}
