/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_session_close.c: alerts after the other side's TCP FIN or RST, in the
 * session layer, on event sequences read off real captures with tshark's own
 * dissection (tests/captures/extract_events.py; lib/replay/events.h format)
 * or, where tshark does not dissect the connection, off its bytes by hand:
 * the alert says the close came first (alert_after_close), and a server's
 * alert on a connection where no ClientHello can complete any more is not
 * held for one. */
#include "analysis/session.h"
#include "replay/events.h"

#include "session_events.h"
#include "tap.h"

typedef struct {
    tlsneg_ev ev;
    tlsneg_replay_out out;
} step;

static uint8_t msg_buf[1 << 16];
static step steps[16];
static size_t num_steps;

/* replay feeds lines to a fresh replay (a front end's session). */
static void replay(const char *const *lines)
{
    tlsneg_tracker_config cfg = {500000, 30 * 1000000u, true, false, false};
    tlsneg_replay *r = tlsneg_replay_new(&cfg, 64);
    num_steps = 0;
    for (size_t i = 0; lines[i] && num_steps < sizeof steps / sizeof steps[0]; i++) {
        step *s = &steps[num_steps];
        if (tlsneg_ev_parse(lines[i], &s->ev, msg_buf, sizeof msg_buf) <= 0) {
            ok(0, "event line %zu reads", i);
            continue;
        }
        tlsneg_replay_event(r, &s->ev, &s->out);
        s->ev.bytes = NULL; /* the buffer is reused */
        num_steps++;
    }
    tlsneg_replay_free(r);
}

/* alert returns the result of the alert in frame, or NULL. */
static const tlsneg_result *alert(uint32_t frame)
{
    for (size_t i = 0; i < num_steps; i++) {
        if (steps[i].ev.frame == frame && steps[i].out.has_result && steps[i].out.result.is_alert) {
            return &steps[i].out.result;
        }
    }
    return NULL;
}

/* pcaps/scan-nmap-tls12.pcap, tcp.stream 12: ClientHello 70, the server's
 * ServerHello 81 (TLS 1.0), the client's FIN 82 (nmap hangs up once it has
 * read the ServerHello), the server's fatal decode_error 83, the client's
 * RST 84. */
static const char *const nmap_tls12[] = {
    "hello 70 1796390084024831 tcp 127.0.0.2 51256 127.0.0.3 44364 from=client opened=1796390"
    "083970902 tls 0x0301 010000bf03016b12bcc4ecb5687da79a6be3a1410f1b290f987574e13e13cb43775"
    "dcba95883000080006d00a7c046c05ac047c05b004600bfc084008900c5c085001a0018009bc0b2c0b0c0b3c"
    "0b1c008c009c023c0acc0aec02bc00ac024c0adc0afc02cc048c05cc049c05dc072c086c073c087cca9cc14c"
    "006c007c034c035c037d003d005d001c036c038d002c070c071c09ac09bccacc039c03ac03bc033c012c013c"
    "027c02f01000016000a000c000a001700180019001d0100000b00020100",
    "hello 81 1796390084126154 tcp 127.0.0.3 44364 127.0.0.2 51256 from=server opened=1796390"
    "083970902 tls 0x0301 0200005003018e7bc11e39e70b3f909391a0b342ade25227e57850b1ceee444f574"
    "e4752440020076ec6183ddb935b822b7586cb6eb369e37392b90522173fd7d2da1c4611f075c009000008000"
    "b000403000102",
    "fin 82 1796390084180286 tcp 127.0.0.2 51256 127.0.0.3 44364 from=client "
    "opened=1796390083970902",
    "alert 83 1796390084180407 tcp 127.0.0.3 44364 127.0.0.2 51256 from=server "
    "opened=1796390083970902 level=2 50",
    "rst 84 1796390084180435 tcp 127.0.0.2 51256 127.0.0.3 44364 from=client "
    "opened=1796390083970902",
    NULL};

/* pcaps/scan-nmap-tls13.pcap, tcp.stream 6: ClientHello 26, the server's
 * HelloRetryRequest 48, the client's FIN 49, the server's fatal
 * decode_error 50, the client's RST 52. */
static const char *const nmap_tls13[] = {
    "hello 26 1796388948008362 tcp 127.0.0.2 36484 127.0.0.3 44363 from=client opened=1796388"
    "947928999 tls 0x0303 0100008803036b12b853530780071ee0ba392e08931cedbe356893bf691e1930db9"
    "deb1654de00001a13051304130113021303c0b4c0b500c700c6c0b2c0b0c0b3c0b101000045002b000302030"
    "4000a000e000c001700180019001d01000029000b00020100000d001c001a040106010403060308040806080"
    "708080809080b020102030708003300020000",
    "hello 48 1796388948220437 tcp 127.0.0.3 44363 127.0.0.2 36484 from=server opened=1796388"
    "947928999 tls 0x0303 020000340303cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e"
    "2c8a8339c00130100000c002b0002030400330002001d",
    "fin 49 1796388948264303 tcp 127.0.0.2 36484 127.0.0.3 44363 from=client "
    "opened=1796388947928999",
    "alert 50 1796388948264479 tcp 127.0.0.3 44363 127.0.0.2 36484 from=server "
    "opened=1796388947928999 level=2 50",
    "rst 52 1796388948264516 tcp 127.0.0.2 36484 127.0.0.3 44363 from=client "
    "opened=1796388947928999",
    NULL};

/* pcaps/scan-testssl-tls12.pcap, tcp.stream 0 (tshark's tcp.flags.str and
 * tcp.payload; tshark dissects no TLS there without Decode As): SYN 1 to
 * port 44366, SYN-ACK 2, the client's FIN 3 with no byte sent, the
 * server's 15 03 03 00 02 02 32 in frame 4 (a fatal decode_error), the
 * client's RST 5. No ClientHello on the connection. */
static const char *const testssl_port_check[] = {
    "fin 3 1796389900769591 tcp 127.0.0.2 38538 127.0.0.3 44366 from=client "
    "opened=1796389900769106",
    "alert 4 1796389900785426 tcp 127.0.0.3 44366 127.0.0.2 38538 from=server "
    "opened=1796389900769106 level=2 50",
    "rst 5 1796389900785446 tcp 127.0.0.2 38538 127.0.0.3 44366 from=client "
    "opened=1796389900769106",
    NULL};

static void after_server_hello(void)
{
    replay(nmap_tls12);
    const tlsneg_result *a = alert(83);
    ok(a && a->alert_from_server && a->alert_ends && a->alert_after_server_hello &&
           a->client_hello_frame == 70,
       "nmap tls12: the server's decode_error of frame 83 answers the ClientHello of frame 70, "
       "after its ServerHello");
    ok(a && a->alert_after_close == 82 && a->alert_after_close_cause == TLSNEG_CAUSE_CLOSE,
       "... and comes after the client's FIN of frame 82 (%u)", a ? a->alert_after_close : 0);
    ok(a && a->failed_attempt == 0, "... and makes no attempt fail");
}

static void after_hello_retry_request(void)
{
    replay(nmap_tls13);
    const tlsneg_result *a = alert(50);
    const tlsneg_close_result *fin = NULL;
    for (size_t i = 0; i < num_steps; i++) {
        if (steps[i].ev.frame == 49 && steps[i].out.has_close) {
            fin = &steps[i].out.close;
        }
    }
    ok(fin && fin->ended_attempt_frame == 26 && fin->cause == TLSNEG_CAUSE_CLOSE &&
           fin->from_client,
       "nmap tls13: the client's FIN of frame 49, before any ServerHello, ends the attempt of "
       "frame 26");
    ok(a && a->alert_ends && !a->alert_after_server_hello && a->alert_after_close == 49 &&
           a->alert_after_close_cause == TLSNEG_CAUSE_CLOSE && a->failed_attempt == 0,
       "... and the server's alert of frame 50 comes after that FIN, failing nothing more (%u)",
       a ? a->alert_after_close : 0);
}

static void port_check(void)
{
    replay(testssl_port_check);
    const tlsneg_result *a = alert(4);
    ok(a && a->alert_from_server && a->client_hello_frame == 0 && !a->held,
       "testssl port check: the server's alert of frame 4, with no ClientHello on its "
       "connection, is not held for one: the client had closed");
    ok(a && a->alert_after_close == 3 && a->alert_after_close_cause == TLSNEG_CAUSE_CLOSE,
       "... it comes after the client's FIN of frame 3 (%u)", a ? a->alert_after_close : 0);
}

/* pcaps/intolerant-close.pcap: the server's FIN (frame 6) ends the attempt
 * of frame 4, then the client's fatal decode_error (frame 7). */
static void client_alert_after_server_close(void)
{
    replay(ev_intolerant_close);
    const tlsneg_result *a = alert(7);
    ok(a && !a->alert_from_server && a->alert_after_close == 6 &&
           a->alert_after_close_cause == TLSNEG_CAUSE_CLOSE,
       "intolerant-close: the client's alert of frame 7 comes after the server's FIN of frame 6");
}

/* By hand, from pcaps/sni-mismatch-warning.pcap's first events
 * (ClientHello 4, the server's warning 6, its ServerHello 8): variants of
 * what comes before an alert. */
static void by_hand(void)
{
    const char *hello = ev_sni_mismatch_warning[0];
    const char *const no_close[] = {
        hello,
        "alert 9 1796542764214900 tcp 127.0.0.3 44415 127.0.0.2 51384 from=server level=2 40",
        NULL};
    replay(no_close);
    ok(alert(9) && alert(9)->alert_after_close == 0 && alert(9)->failed_attempt == 4,
       "no close before it: the alert makes the attempt fail, after nothing");
    const char *const server_fin[] = {
        hello, "fin 8 1796542764214800 tcp 127.0.0.3 44415 127.0.0.2 51384 from=server",
        "alert 9 1796542764214900 tcp 127.0.0.3 44415 127.0.0.2 51384 from=server level=2 40",
        NULL};
    replay(server_fin);
    ok(alert(9) && alert(9)->alert_after_close == 0,
       "the server's own FIN before its alert: not the other side's close");
    const char *const resets[] = {
        hello, "rst 7 1796542764214700 tcp 127.0.0.3 44415 127.0.0.2 51384 from=server",
        "rst 8 1796542764214800 tcp 127.0.0.2 51384 127.0.0.3 44415 from=client",
        "alert 9 1796542764214900 tcp 127.0.0.3 44415 127.0.0.2 51384 from=server level=2 40",
        NULL};
    replay(resets);
    ok(alert(9) && alert(9)->alert_after_close == 0,
       "a client's RST after the server's: not kept (a connection has one reset, as "
       "tlsneg-pcap reports it)");
    const char *const client_rst[] = {
        hello, "rst 8 1796542764214800 tcp 127.0.0.2 51384 127.0.0.3 44415 from=client",
        "alert 9 1796542764214900 tcp 127.0.0.3 44415 127.0.0.2 51384 from=server level=2 40",
        NULL};
    replay(client_rst);
    ok(alert(9) && alert(9)->alert_after_close == 8 &&
           alert(9)->alert_after_close_cause == TLSNEG_CAUSE_RESET,
       "after the client's RST: said, as a reset");
}

/* pcaps/synth-alerts-after-hello.pcap, tcp.stream 1: a ServerHello (frame
 * 18) on a connection whose ClientHello the capture lost, then the
 * server's fatal unexpected_message (22). */
static void lost_client_hello(void)
{
    const char *const lost_hello[] = {
        "hello 18 1704067201001500 tcp 192.0.2.20 443 192.0.2.101 49153 from=server opened=170406"
        "7201000000 tls 0x0303 0200003d0303c3edb93de58c1d635ff47d3562eb3beb48d24cbb0e0ba8e6c13652"
        "6ba764a38100c02c000015ff01000100000b0004030001020023000000170000",
        "alert 22 1704067201003500 tcp 192.0.2.20 443 192.0.2.101 49153 from=server "
        "opened=1704067201000000 level=2 10",
        NULL};
    replay(lost_hello);
    ok(alert(22) && !alert(22)->held && alert(22)->alert_after_server_hello &&
           alert(22)->alert_after_close == 0,
       "synth-alerts-after-hello: the alert after a ServerHello, with no ClientHello, is not "
       "held for one: the ServerHello answered it");
    replay(lost_hello + 1); /* the alert alone: nothing before it on its connection */
    ok(alert(22) && alert(22)->held,
       "... while on a connection that showed nothing yet, it is held for a ClientHello that "
       "may be in flight");
}

int main(void)
{
    after_server_hello();
    after_hello_retry_request();
    port_check();
    client_alert_after_server_close();
    by_hand();
    lost_client_hello();
    return tap_done();
}
