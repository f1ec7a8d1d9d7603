/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_output.c: the shared writer of the JSON lines, the CSV and the report
 * (lib/report/) on hand-made messages: quoting and escaping of a server
 * name, IPv6 servers, a close; the address formatter and the JSON escape
 * front ends may use. The captures tests check the rest. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/addr.h"
#include "report/json.h"
#include "report/output.h"
#include "tap.h"

static const uint8_t client4[4] = {192, 0, 2, 1}, server4[4] = {192, 0, 2, 20};
static const uint8_t client6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
static const uint8_t server6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};

static tlsneg_out_frame frame(uint32_t n, bool v6)
{
    tlsneg_out_frame fr = {n,
                           1700000000,
                           42,
                           {v6 ? client6 : client4, v6 ? 16u : 4u, NULL, 50000},
                           {v6 ? server6 : server4, v6 ? 16u : 4u, NULL, 443}};
    return fr;
}

static tlsneg_out_msg client_hello(const char *sni)
{
    tlsneg_out_msg m;
    memset(&m, 0, sizeof m);
    m.facts.msg_type = TLSNEG_HS_CLIENT_HELLO;
    m.facts.legacy_version = 0x0303;
    m.facts.has_offered_max = true;
    m.facts.offered_max = 0x0303;
    m.facts.sni = sni;
    m.from_client = true;
    m.sni = sni;
    return m;
}

/* run writes the messages in the given format and returns the text. */
static char *run(tlsneg_out_format f, const char *sni, bool v6)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    tlsneg_out *o = tlsneg_out_new(f, mem);
    tlsneg_out_header(o);
    tlsneg_out_frame fr = frame(4, v6);
    tlsneg_out_msg m = client_hello(sni);
    tlsneg_out_message(o, &fr, &m);
    fr = frame(6, v6);
    tlsneg_out_close(o, &fr, TLSNEG_CAUSE_RESET, true, 4, sni); /* the client resets */
    tlsneg_out_end(o);
    tlsneg_out_free(o);
    fclose(mem);
    return text;
}

/* dropped writes, in format f, a ClientHello whose result broke 15 rules
 * (through the checks' own tlsneg_finding_add) where a message keeps
 * TLSNEG_MAX_FINDINGS, then a plain one; it returns the text. */
static char *dropped(tlsneg_out_format f)
{
    static tlsneg_result x;
    memset(&x, 0, sizeof x);
    x.facts.msg_type = TLSNEG_HS_CLIENT_HELLO;
    x.facts.legacy_version = 0x0301;
    x.from_client = true;
    for (int i = 0; i < TLSNEG_MAX_FINDINGS + 3; i++) {
        tlsneg_finding_add(&x.findings, TLSNEG_RULE_DEPRECATED_VERSION, "finding %d", i);
    }
    tlsneg_out_msg_buf buf;
    tlsneg_out_msg m;
    tlsneg_out_msg_view(&m, &buf, &x);
    ok(m.num_findings == TLSNEG_MAX_FINDINGS && m.findings_dropped == 3,
       "the view keeps %d findings and counts 3 more: %u, %u", TLSNEG_MAX_FINDINGS, m.num_findings,
       m.findings_dropped);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    tlsneg_out *o = tlsneg_out_new(f, mem);
    tlsneg_out_header(o);
    tlsneg_out_frame fr = frame(4, false);
    tlsneg_out_message(o, &fr, &m);
    fr = frame(5, false);
    tlsneg_out_msg plain = client_hello(NULL);
    tlsneg_out_message(o, &fr, &plain);
    tlsneg_out_end(o);
    tlsneg_out_free(o);
    fclose(mem);
    return text;
}

/* held writes, in format f, what the session layer gives for
 * pcaps/pq-split-alert-classical-retry.pcap's first connection (the
 * server's alert of frame 6, held; the ClientHello of frame 9 that it made
 * fail) and, on another connection, an alert held for a ClientHello that
 * never comes (frame 20); with early_reset, frame 9's attempt was reset in
 * frame 6 instead. */
static char *held(tlsneg_out_format f, bool early_reset)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    tlsneg_out *o = tlsneg_out_new(f, mem);
    tlsneg_out_header(o);
    tlsneg_out_frame fr = frame(6, false);
    fr.src = frame(6, false).dst; /* from the server */
    fr.dst = frame(6, false).src;
    tlsneg_out_msg a;
    memset(&a, 0, sizeof a);
    a.is_alert = true;
    a.alert_level = TLSNEG_ALERT_FATAL;
    a.alert_description = 50;
    a.alert_from_server = true;
    a.alert_ends = true;
    a.held = true;
    if (!early_reset) {
        tlsneg_out_message(o, &fr, &a);
    }
    tlsneg_out_frame orphan = fr;
    orphan.frame = 20;
    orphan.dst.port = 50001;
    tlsneg_out_message(o, &orphan, &a);
    tlsneg_out_frame hf = frame(9, false);
    tlsneg_out_msg m = client_hello("localhost");
    m.early_frame = 6;
    m.early_time_us = 1700000000000007u;
    m.early_cause = early_reset ? TLSNEG_CAUSE_RESET : TLSNEG_CAUSE_ALERT;
    m.early_alert = early_reset ? 0 : 50;
    tlsneg_out_message(o, &hf, &m);
    tlsneg_out_end(o);
    tlsneg_out_free(o);
    fclose(mem);
    return text;
}

static void held_endings(void)
{
    char *j = held(TLSNEG_OUT_JSONL, false);
    const char *hello = strstr(j, "{\"record\":\"hello\",\"frame\":9,");
    const char *alert = strstr(j, "{\"record\":\"outcome\",\"frame\":6,");
    const char *orphan = strstr(j, "{\"record\":\"outcome\",\"frame\":20,");
    ok(hello && alert && orphan && hello < alert && alert < orphan,
       "JSON lines: the held alert follows the ClientHello it made fail; the one whose "
       "ClientHello never came is written at the end: %s",
       j);
    static const char want[] =
        "{\"record\":\"outcome\",\"frame\":6,\"time\":1700000000.000042,"
        "\"client\":\"192.0.2.1\",\"client_port\":50000,\"server\":\"192.0.2.20\","
        "\"port\":443,\"sni\":\"localhost\",\"attempt_frame\":9,\"outcome\":"
        "\"alert\",\"alert\":50,\"level\":2,\"ends_handshake\":true,\"from_server\":true,";
    ok(alert && strncmp(alert, want, strlen(want)) == 0,
       "JSON lines: the held alert with its own frame and time, the attempt's frame and SNI");
    ok(orphan && strstr(orphan, "\"client_port\":50001,") &&
           strstr(orphan, "\"sni\":null,\"attempt_frame\":0,\"outcome\":\"alert\""),
       "JSON lines: the alert whose ClientHello never came, as it came");
    free(j);
    j = held(TLSNEG_OUT_JSONL, true);
    hello = strstr(j, "{\"record\":\"hello\",\"frame\":9,");
    const char *reset = strstr(j, "{\"record\":\"outcome\",\"frame\":6,\"time\":1700000000.000007,"
                                  "\"client\":\"192.0.2.1\",\"client_port\":50000,\"server\":"
                                  "\"192.0.2.20\",\"port\":443,\"sni\":\"localhost\","
                                  "\"attempt_frame\":9,\"outcome\":\"reset\"}\n");
    ok(hello && reset && hello < reset,
       "JSON lines: the server's reset before the ClientHello was complete follows it, with "
       "its own frame and time: %s",
       j);
    free(j);
    j = held(TLSNEG_OUT_REPORT, false);
    ok(strstr(j, "\n192.0.2.20:443 localhost\n") &&
           strstr(j, "1 ClientHello, 0 ServerHello, 0 HelloRetryRequest; failures: 1 alerts, 0 "
                     "resets, 0 closes") &&
           strstr(j, "\n192.0.2.20:443 (no SNI)\n"),
       "report: the held alert counts for the attempt's server and SNI, the other one alone: %s",
       j);
    free(j);
}

/* alert_levels writes a ClientHello and, from the server, a warning
 * unrecognized_name that does not end the handshake, a fatal
 * handshake_failure that does and an alert with no level (a QUIC
 * CONNECTION_CLOSE), each on its own connection, as f. */
static char *alert_levels(tlsneg_out_format f)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    tlsneg_out *o = tlsneg_out_new(f, mem);
    tlsneg_out_header(o);
    static const struct {
        uint8_t level, description;
        bool ends;
    } alerts[] = {{TLSNEG_ALERT_WARNING, 112, false},
                  {TLSNEG_ALERT_FATAL, 40, true},
                  {TLSNEG_ALERT_NO_LEVEL, 120, true}};
    for (unsigned i = 0; i < 3; i++) {
        tlsneg_out_frame hf = frame(4 + 10 * i, false);
        hf.src.port = (uint16_t)(50000 + i);
        tlsneg_out_msg m = client_hello("localhost");
        tlsneg_out_message(o, &hf, &m);
        tlsneg_out_frame fr = frame(6 + 10 * i, false);
        fr.src = hf.dst; /* from the server */
        fr.dst = hf.src;
        tlsneg_out_msg a;
        memset(&a, 0, sizeof a);
        a.is_alert = true;
        a.alert_level = alerts[i].level;
        a.alert_description = alerts[i].description;
        a.alert_ends = alerts[i].ends;
        a.alert_from_server = true;
        a.client_hello_frame = hf.frame;
        a.sni = "localhost";
        tlsneg_out_message(o, &fr, &a);
    }
    tlsneg_out_end(o);
    tlsneg_out_free(o);
    fclose(mem);
    return text;
}

static void alert_level_outputs(void)
{
    char *j = alert_levels(TLSNEG_OUT_JSONL);
    ok(strstr(j, "\"outcome\":\"alert\",\"alert\":112,\"level\":1,\"ends_handshake\":false,"
                 "\"from_server\":true,") &&
           strstr(j, "\"outcome\":\"alert\",\"alert\":40,\"level\":2,\"ends_handshake\":true,") &&
           strstr(j, "\"outcome\":\"alert\",\"alert\":120,\"level\":null,\"ends_handshake\":true,"),
       "JSON lines: an alert's level (null where the wire has none) and whether it ends the "
       "handshake: %s",
       j);
    free(j);
    j = alert_levels(TLSNEG_OUT_REPORT);
    ok(strstr(j, "3 ClientHello, 0 ServerHello, 0 HelloRetryRequest; failures: 2 alerts, 0 "
                 "resets, 0 closes before any ServerHello; 0 fallback retries; 1 warning alerts, "
                 "no failure\n"),
       "report: the warning is no failure, and is said apart: %s", j);
    free(j);
    j = alert_levels(TLSNEG_OUT_CSV);
    ok(strstr(j, "\n192.0.2.20,443,\"localhost\",3,0,0,3,"),
       "CSV: the alerts column still counts every plaintext alert the server sent: %s", j);
    free(j);
}

/* transports writes, as f, a TLS ClientHello over TCP and a QUIC one to the
 * same address and port (192.0.2.20:443), and the QUIC server's alert (a
 * CONNECTION_CLOSE's handshake_failure, no level: RFC 9001 4.8) as the
 * session layer gives it for a QUIC connection. */
static char *transports(tlsneg_out_format f)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    tlsneg_out *o = tlsneg_out_new(f, mem);
    tlsneg_out_header(o);
    tlsneg_out_frame tf = frame(4, false);
    tlsneg_out_msg m = client_hello("localhost");
    tlsneg_out_message(o, &tf, &m);
    tlsneg_out_frame qf = frame(10, false);
    qf.src.port = 50001;
    m.facts.wire = TLSNEG_WIRE_QUIC;
    tlsneg_out_message(o, &qf, &m);
    /* The server's alert, judged by the session layer (no tracker). */
    static const uint8_t a4[4] = {192, 0, 2, 20}, c4[4] = {192, 0, 2, 1};
    tlsneg_conn c;
    memset(&c, 0, sizeof c);
    tlsneg_event ev = {12, 1700000000000042u, {a4, 4, 443}, {c4, 4, 50001}, TLSNEG_SENDER_SERVER,
                       0};
    static tlsneg_result x;
    tlsneg_session_alert(NULL, &c, &ev, TLSNEG_WIRE_QUIC, TLSNEG_ALERT_NO_LEVEL, 40, &x);
    tlsneg_out_msg_buf buf;
    tlsneg_out_msg a;
    tlsneg_out_msg_view(&a, &buf, &x);
    a.sni = "localhost";
    tlsneg_out_frame af = frame(12, false);
    af.src = qf.dst;
    af.dst = qf.src;
    tlsneg_out_message(o, &af, &a);
    tlsneg_out_end(o);
    tlsneg_out_free(o);
    fclose(mem);
    return text;
}

/* row_is: text has a line that starts with head and ends with tail. */
static bool row_is(const char *text, const char *head, const char *tail)
{
    for (const char *p = strstr(text, head); p; p = strstr(p + 1, head)) {
        const char *end = strchr(p + 1, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n >= strlen(tail) && strncmp(p + n - strlen(tail), tail, strlen(tail)) == 0) {
            return true;
        }
    }
    return false;
}

static void transport_outputs(void)
{
    char *j = transports(TLSNEG_OUT_CSV);
    ok(row_is(j, "\n192.0.2.20,443,\"localhost\",1,0,0,0,", ",tcp") &&
           row_is(j, "\n192.0.2.20,443,\"localhost\",1,0,0,1,", ",quic"),
       "CSV: a row per transport, the QUIC alert on the QUIC row: %s", j);
    free(j);
    j = transports(TLSNEG_OUT_REPORT);
    ok(strstr(j, "; 2 servers;") && strstr(j, "\n192.0.2.20:443 localhost\n") &&
           strstr(j, "\n192.0.2.20:443 udp/QUIC localhost\n"),
       "report: two servers, the QUIC one said so: %s", j);
    free(j);
    j = transports(TLSNEG_OUT_JSONL);
    const char *tcp = strstr(j, "{\"record\":\"hello\",\"frame\":4,");
    const char *quic = strstr(j, "{\"record\":\"hello\",\"frame\":10,");
    const char *said = strstr(j, "\"transport\"");
    ok(tcp && quic && tcp < quic && said && said > quic &&
           strstr(j, "\"port\":443,\"sni\":\"localhost\",\"transport\":\"quic\",\"msg\":"
                     "\"ClientHello\"") &&
           strstr(j, "\"sni\":\"localhost\",\"transport\":\"quic\",\"attempt_frame\":0,"
                     "\"outcome\":\"alert\",\"alert\":40,\"level\":null,"),
       "JSON lines: the QUIC hello and alert say \"transport\":\"quic\", the TCP hello "
       "nothing: %s",
       j);
    free(j);
}

/* alerts_around_server_hello writes, as f, three connections to one
 * server: a ClientHello answered by the server's fatal handshake_failure; a
 * ClientHello, a ServerHello and then the server's fatal
 * unexpected_message (as the session layer says it: after the
 * ServerHello); and the same, but the server's fatal decode_error comes
 * after the client's FIN (as pcaps/scan-nmap-tls12.pcap frames 81-83). */
static char *alerts_around_server_hello(tlsneg_out_format f)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    tlsneg_out *o = tlsneg_out_new(f, mem);
    tlsneg_out_header(o);
    for (unsigned i = 0; i < 3; i++) {
        tlsneg_out_frame hf = frame(4 + 10 * i, false);
        hf.src.port = (uint16_t)(50000 + i);
        tlsneg_out_msg m = client_hello("localhost");
        tlsneg_out_message(o, &hf, &m);
        tlsneg_out_frame fr = frame(6 + 10 * i, false);
        fr.src = hf.dst; /* from the server */
        fr.dst = hf.src;
        if (i >= 1) {
            tlsneg_out_msg sh;
            memset(&sh, 0, sizeof sh);
            sh.facts.msg_type = TLSNEG_HS_SERVER_HELLO;
            sh.facts.legacy_version = 0x0303;
            sh.facts.has_negotiated = true;
            sh.facts.negotiated_version = 0x0303;
            sh.client_hello_frame = hf.frame;
            sh.sni = "localhost";
            tlsneg_out_message(o, &fr, &sh);
            fr.frame++;
        }
        tlsneg_out_msg a;
        memset(&a, 0, sizeof a);
        a.is_alert = true;
        a.alert_level = TLSNEG_ALERT_FATAL;
        a.alert_description = i == 2 ? 50 : i ? 10 : 40;
        a.alert_ends = true;
        a.alert_after_server_hello = i >= 1;
        if (i == 2) { /* the client's FIN came in the frame before */
            fr.frame++;
            a.alert_after_close = fr.frame - 1;
            a.alert_after_close_cause = TLSNEG_CAUSE_CLOSE;
        }
        a.alert_from_server = true;
        a.client_hello_frame = hf.frame;
        a.sni = "localhost";
        tlsneg_out_message(o, &fr, &a);
    }
    tlsneg_out_end(o);
    tlsneg_out_free(o);
    fclose(mem);
    return text;
}

static void alerts_after_server_hello(void)
{
    char *j = alerts_around_server_hello(TLSNEG_OUT_REPORT);
    ok(strstr(j, "3 ClientHello, 2 ServerHello, 0 HelloRetryRequest; failures: 1 alerts, 0 "
                 "resets, 0 closes before any ServerHello, 1 alerts after a ServerHello; "
                 "0 fallback retries; 1 alerts after the client's close or reset\n"),
       "report: the fatal alert after the ServerHello is not counted before it, the one after "
       "the client's FIN is no failure, counted apart: %s",
       j);
    free(j);
    j = alerts_around_server_hello(TLSNEG_OUT_CSV);
    ok(strstr(j, "\n192.0.2.20,443,\"localhost\",3,2,0,3,"),
       "CSV: the alerts column counts all three: %s", j);
    free(j);
    j = alerts_around_server_hello(TLSNEG_OUT_JSONL);
    ok(strstr(j, "\"outcome\":\"alert\",\"alert\":50,\"level\":2,\"ends_handshake\":true,"
                 "\"from_server\":true,\"after_peer\":\"close\",\"after_peer_frame\":27,"
                 "\"findings\":[]") &&
           strstr(j, "\"alert\":10,\"level\":2,\"ends_handshake\":true,\"from_server\":true,"
                     "\"findings\":[]"),
       "JSON lines: the alert after the client's FIN says so and where, the others do not: %s", j);
    free(j);
}

/* addresses: the one formatter, as inet_ntop and Wireshark write them. */
static void addresses(void)
{
    char buf[TLSNEG_ADDR_TEXT_MAX], ep[TLSNEG_ENDPOINT_TEXT_MAX];
    static const uint8_t v4[4] = {10, 0, 200, 255},
                         mapped[16] = {[10] = 0xff, [11] = 0xff, 192, 0, 2, 1};
    tlsneg_out_addr a = {v4, 4, NULL, 443};
    ok(strcmp(tlsneg_out_addr_text(&a, buf), "10.0.200.255") == 0 &&
           strcmp(tlsneg_out_endpoint_text(&a, ep, sizeof ep), "10.0.200.255:443") == 0,
       "IPv4, and with its port: %s, %s", buf, ep);
    a = (tlsneg_out_addr){server6, 16, NULL, 8443};
    ok(strcmp(tlsneg_out_addr_text(&a, buf), "2001:db8::2") == 0 &&
           strcmp(tlsneg_out_endpoint_text(&a, ep, sizeof ep), "[2001:db8::2]:8443") == 0,
       "IPv6 as RFC 5952 text, in brackets with its port: %s, %s", buf, ep);
    a = (tlsneg_out_addr){mapped, 16, NULL, 1};
    ok(strcmp(tlsneg_out_addr_text(&a, buf), "::ffff:192.0.2.1") == 0,
       "an IPv4-mapped IPv6 address: %s", buf);
    a = (tlsneg_out_addr){v4, 3, NULL, 0};
    ok(strcmp(tlsneg_out_addr_text(&a, buf), "?") == 0, "bytes of no known length: %s", buf);
    a = (tlsneg_out_addr){NULL, 0, "00:11:22:33:44:55", 7};
    ok(strcmp(tlsneg_out_addr_text(&a, buf), "00:11:22:33:44:55") == 0 &&
           strcmp(tlsneg_out_endpoint_text(&a, ep, sizeof ep), "00:11:22:33:44:55:7") == 0,
       "another kind of address: the front end's text: %s", ep);
}

static void json_escape(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    tlsneg_json_fput(mem, "a\"b\\c\x01\x1f\xc3\xa9");
    tlsneg_json_fput(mem, "");
    fclose(mem);
    ok(strcmp(text, "\"a\\\"b\\\\c\\u0001\\u001f\xc3\xa9\"\"\"") == 0,
       "JSON: quote and backslash escaped, control characters as \\u00xx, UTF-8 as it is: %s",
       text);
    free(text);
}

/* repeated_ends writes ClientHellos whose endpoints and SNI change one at a
 * time from line to line, and checks each line's: the JSON lines copy the
 * last line's endpoints when they are the same, and must notice every
 * change (jsonl.c, tlsneg_jsonl_ends). */
static void repeated_ends(void)
{
    static const uint8_t other4[4] = {192, 0, 2, 2};
    char longer[300];
    memset(longer, 'n', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0'; /* longer than TLSNEG_MAX_SNI: not kept as a key */
    struct {
        bool v6, other_client;
        uint16_t client_port;
        const char *sni;
        const char *want;
    } lines[] = {
        {false, false, 50000, "a",
         "\"client\":\"192.0.2.1\",\"client_port\":50000,"
         "\"server\":\"192.0.2.20\",\"port\":443,\"sni\":\"a\""},
        {false, false, 50000, "a",
         "\"client\":\"192.0.2.1\",\"client_port\":50000,"
         "\"server\":\"192.0.2.20\",\"port\":443,\"sni\":\"a\""},
        {false, false, 50001, "a", "\"client_port\":50001,"},
        {false, true, 50001, "a", "\"client\":\"192.0.2.2\",\"client_port\":50001,"},
        {false, true, 50001, "b", "\"port\":443,\"sni\":\"b\""},
        {false, true, 50001, NULL, "\"port\":443,\"sni\":null"},
        {true, false, 50001, NULL,
         "\"client\":\"2001:db8::1\",\"client_port\":50001,"
         "\"server\":\"2001:db8::2\",\"port\":443,\"sni\":null"},
        {true, false, 50001, longer, "\"sni\":\"nnnn"},
        {true, false, 50001, "c", "\"sni\":\"c\""},
    };
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    tlsneg_out *o = tlsneg_out_new(TLSNEG_OUT_JSONL, mem);
    size_t n = sizeof lines / sizeof lines[0];
    for (size_t i = 0; i < n; i++) {
        tlsneg_out_frame fr = frame((uint32_t)i + 1, lines[i].v6);
        fr.src.port = lines[i].client_port;
        if (lines[i].other_client) {
            fr.src.bytes = other4;
        }
        tlsneg_out_msg m = client_hello(lines[i].sni);
        tlsneg_out_message(o, &fr, &m);
    }
    tlsneg_out_free(o);
    fclose(mem);
    char *line = text;
    for (size_t i = 0; i < n; i++) {
        char *end = line ? strchr(line, '\n') : NULL;
        if (end) {
            *end = '\0';
        }
        ok(line && strstr(line, lines[i].want) != NULL &&
               (lines[i].sni != longer || strstr(line, longer) != NULL),
           "JSON lines: line %zu's endpoints and SNI, after the line before: %s", i + 1,
           line ? line : "(none)");
        line = end ? end + 1 : NULL;
    }
    free(text);
}

/* probe_ipv6: a probe's report line names an IPv6 server in brackets, as
 * the server blocks do ("2001:db8::2:443" reads as an address alone). */
static void probe_ipv6(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    tlsneg_out *o = tlsneg_out_new(TLSNEG_OUT_REPORT, mem);
    tlsneg_out_header(o);
    tlsneg_out_frame fr = frame(4, true);
    tlsneg_out_msg m = client_hello(NULL);
    tlsneg_kept_verdict v;
    memset(&v, 0, sizeof v);
    v.kind = TLSNEG_VERDICT_PROBE;
    v.probe = (tlsneg_probe){.first_frame = 4,
                             .hellos = 3,
                             .first_us = 1700000000000042u,
                             .last_us = 1700000000500042u,
                             .lowest = 0x0301,
                             .highest = 0x0304};
    m.verdicts = &v;
    m.num_verdicts = 1;
    tlsneg_out_message(o, &fr, &m);
    tlsneg_out_end(o);
    tlsneg_out_free(o);
    fclose(mem);
    ok(strstr(text, "2001:db8::1 probed [2001:db8::2]:443 with 3 hellos") != NULL,
       "report: a probe of an IPv6 server names it in brackets: %s", text);
    free(text);
}

int main(void)
{
    probe_ipv6();
    repeated_ends();
    addresses();
    json_escape();
    char *csv = run(TLSNEG_OUT_CSV, "a\"b,c", false);
    ok(strstr(csv,
              "\n192.0.2.20,443,\"a\"\"b,c\",1,0,0,0,1,0,0,\"\",0x0303:1,,,0,0,0,0,,0,0,tcp\n") !=
           NULL,
       "CSV: a quote in the server name is doubled (RFC 4180 2.7), the field quoted: %s", csv);
    ok(strncmp(csv, "server,port,sni,client_hellos,", 30) == 0, "CSV: the header comes first");
    free(csv);

    csv = run(TLSNEG_OUT_CSV, NULL, false);
    ok(strstr(csv, "\n192.0.2.20,443,\"\",1,") != NULL, "CSV: no server name is \"\": %s", csv);
    free(csv);

    char *jsonl = run(TLSNEG_OUT_JSONL, "a\"b\\c", false);
    ok(strstr(jsonl, "\"sni\":\"a\\\"b\\\\c\"") != NULL,
       "JSON lines: a quote and a backslash in the server name are escaped: %s", jsonl);
    ok(strstr(jsonl,
              "{\"record\":\"hello\",\"frame\":4,\"time\":1700000000.000042,\"client\":"
              "\"192.0.2.1\",\"client_port\":50000,\"server\":\"192.0.2.20\",\"port\":443") != NULL,
       "JSON lines: frame, time with microseconds, both ends");
    ok(strstr(jsonl, "{\"record\":\"outcome\",\"frame\":6,") != NULL &&
           strstr(jsonl, "\"attempt_frame\":4,\"outcome\":\"reset\"}\n") != NULL,
       "JSON lines: a reset that ends the attempt is an outcome");
    free(jsonl);

    jsonl = run(TLSNEG_OUT_JSONL, "x", true);
    ok(strstr(jsonl, "\"client\":\"2001:db8::1\"") != NULL &&
           strstr(jsonl, "\"server\":\"2001:db8::2\"") != NULL,
       "JSON lines: IPv6 addresses as RFC 5952 text");
    free(jsonl);

    char *report = run(TLSNEG_OUT_REPORT, "x", true);
    ok(strstr(report, "\n[2001:db8::2]:443 x\n") != NULL,
       "report: an IPv6 server in brackets, with its port: %s", report);
    ok(strstr(report, "1 ClientHello, 0 ServerHello, 0 HelloRetryRequest; failures: 0 alerts, 1 "
                      "resets, 0 closes") != NULL,
       "report: the reset counted for the server");
    free(report);
    char *many = dropped(TLSNEG_OUT_JSONL);
    char *second = many ? strstr(many, "\"frame\":5,") : NULL;
    ok(second && strstr(many, "\"experts\":[\"deprecated_version\",") &&
           strstr(many, "],\"findings_dropped\":3}\n") != NULL &&
           strstr(second, "findings_dropped") == NULL,
       "JSON lines: findings_dropped counts the findings not kept, only where there are some: %s",
       many);
    free(many);
    many = dropped(TLSNEG_OUT_REPORT);
    ok(strstr(many, "\n      12  deprecated_version") != NULL &&
           strstr(many, "\n... and 3 more findings not shown (a message keeps 12)\n===\n") != NULL,
       "report: 12 findings counted, 3 more said not shown: %s", many);
    free(many);
    many = dropped(TLSNEG_OUT_CSV);
    ok(strstr(many, "deprecated_version:12,0,0,0,0,,0,0,tcp\n") != NULL,
       "CSV: the 12 kept are counted: %s", many);
    free(many);
    held_endings();
    transport_outputs();
    alert_level_outputs();
    alerts_after_server_hello();

    return tap_done();
}
