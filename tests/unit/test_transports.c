/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_transports.c: one server address and port reached over two
 * transports, through the session layer, the tracker and every output. On
 * TCP 44323 a TLS server intolerant of TLS 1.3 (pcaps/intolerant-rst.pcap:
 * the client's TLS 1.3 hello of frame 4 reset in frame 6, its TLS 1.2
 * retry of frame 10 completed in frame 12); on UDP 44323 of the same
 * address a QUIC server that completes TLS 1.3 for the same client and
 * server name (pcaps/public/wireshark/quic-fragmented-handshakes.pcapng.gz,
 * its first connection: ClientHello 1, HelloRetryRequest 4, ClientHello 5,
 * ServerHello 6, as tests/captures/extract_events.py writes them from
 * tshark's dissection, moved to the same client and server, frames +20,
 * after the TCP connections). Two server stacks (QUIC carries TLS 1.3 in its
 * own CRYPTO frames, RFC 9001 4): the report, the CSV, the JSON lines and
 * the ladder name two servers, and the QUIC stack's TLS 1.3 puts the TCP
 * server's intolerance in no doubt. Expected values from the two captures'
 * manifests (tests/captures/expect/). */
#define _POSIX_C_SOURCE 200809L

#include "analysis/tracker.h"
#include "replay/events.h"
#include "report/ladder.h"
#include "report/output.h"

#include "session_events.h"
#include "tap.h"

static const char *const quic_moved[] = {
    "hello 21 1796388860000000 udp 127.0.0.2 36588 127.0.0.3 44323 quic - 0100012903031f548da67b"
    "8a914b4746ea77c5b3b385155756f98981aae7660ce9de83d5664c00000a130113021303130400ff010000f6"
    "0000000e000c0000096c6f63616c686f7374000b000403000102000a000a00080017001d0018001900230000"
    "0010000800060568332d32390016000000170000000d001e001c040305030603080708080809080a080b0804"
    "08050806040105010601002b0003020304002d000201010033004700450017004104417235836b3b19465316"
    "4a5d01efcdc37a03f2a81c214f9f3d24d00bc85074142f3da4f1c20ebcd0f73b676eab041859214d327ae042"
    "cff27b48f4c97a1f77d5ffa500380f1143944eda18beb7e548b38d375bf3c2a3bc0504800400000604800400"
    "00070480040000040480100000090240640104800075300e0107",
    "hello 24 1796388860005061 udp 127.0.0.3 44323 127.0.0.2 36588 quic - 020000340303cf21ad74e5"
    "9a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c00130300000c002b0002030400330002001d",
    "hello 25 1796388860006476 udp 127.0.0.2 36588 127.0.0.3 44323 quic - 0100010803031f548da67b"
    "8a914b4746ea77c5b3b385155756f98981aae7660ce9de83d5664c00000a130113021303130400ff010000d5"
    "0000000e000c0000096c6f63616c686f7374000b000403000102000a000a00080017001d0018001900230000"
    "0010000800060568332d32390016000000170000000d001e001c040305030603080708080809080a080b0804"
    "08050806040105010601002b0003020304002d00020101003300260024001d0020a66bfc3d8cd6859eb0bbee"
    "c1611f57c6501a3ea9f49136b400db84a39a84a873ffa500380f1143944eda18beb7e548b38d375bf3c2a3bc"
    "050480040000060480040000070480040000040480100000090240640104800075300e0107",
    "hello 26 1796388860013657 udp 127.0.0.3 44323 127.0.0.2 36588 quic - 020000560303f8a1a60f91"
    "c980cdae7816c70a84afc7d8c8807c7d1e73cb22ca382840d92dc400130300002e002b000203040033002400"
    "1d00204dc371d699bea568f66eb9f9eecbd5bbad777fc366f02ce3f6253af0cdbfbc76",
    NULL,
};

enum { REPORT, CSV, JSONL, LADDER, OUTPUTS };

typedef struct {
    char *text[OUTPUTS];
    size_t len[OUTPUTS];
    bool intolerant; /* a version_intolerance verdict on frame 12 */
} written;

/* feed replays lines through r and hands every result and every close that
 * ended an attempt to the outputs and the ladder, as tlsneg-pcap does. */
static void feed(tlsneg_replay *r, const char *const *lines, tlsneg_out *const *outs,
                 tlsneg_ladder *l, written *w)
{
    static uint8_t bytes[1 << 16];
    static tlsneg_ev ev;
    static tlsneg_replay_out got;
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
            for (int o = 0; o < LADDER; o++) {
                tlsneg_out_message(outs[o], &fr, &m);
            }
            tlsneg_ladder_message(l, got.conn, &fr, &m);
            w->intolerant |= ev.frame == 12 &&
                             tlsneg_verdict_find(&got.result.verdicts, TLSNEG_VERDICT_INTOLERANT);
        } else if (got.has_close && got.close.ended_attempt_frame) {
            const char *sni = got.close.has_sni ? got.close.sni : NULL;
            for (int o = 0; o < LADDER; o++) {
                tlsneg_out_close(outs[o], &fr, got.close.cause, got.close.from_client,
                                 got.close.ended_attempt_frame, sni);
            }
            tlsneg_ladder_close(l, got.conn, &fr, got.close.cause, got.close.from_client,
                                got.close.ended_attempt_frame, sni);
        }
    }
}

static written write_all(void)
{
    written w = {0};
    FILE *mem[OUTPUTS];
    tlsneg_out *outs[LADDER];
    static const tlsneg_out_format formats[LADDER] = {TLSNEG_OUT_REPORT, TLSNEG_OUT_CSV,
                                                      TLSNEG_OUT_JSONL};
    for (int o = 0; o < OUTPUTS; o++) {
        mem[o] = open_memstream(&w.text[o], &w.len[o]);
    }
    for (int o = 0; o < LADDER; o++) {
        outs[o] = tlsneg_out_new(formats[o], mem[o]);
        tlsneg_out_header(outs[o]);
    }
    tlsneg_tracker_config cfg = TLSNEG_TRACKER_DEFAULTS;
    tlsneg_replay *r = tlsneg_replay_new(&cfg, 64);
    tlsneg_ladder *l = tlsneg_ladder_new(TLSNEG_LADDER_MAX_STEPS);
    feed(r, ev_intolerant_rst, outs, l, &w);
    feed(r, quic_moved, outs, l, &w);
    for (int o = 0; o < LADDER; o++) {
        tlsneg_out_end(outs[o]);
        tlsneg_out_free(outs[o]);
    }
    tlsneg_ladder_print(l, mem[LADDER]);
    tlsneg_ladder_free(l);
    tlsneg_replay_free(r);
    for (int o = 0; o < OUTPUTS; o++) {
        fclose(mem[o]);
    }
    return w;
}

static unsigned count(const char *text, const char *what)
{
    unsigned n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what)) {
        n++;
    }
    return n;
}

int main(void)
{
    written w = write_all();
    const char *report = w.text[REPORT], *csv = w.text[CSV], *jsonl = w.text[JSONL];
    const char *ladder = w.text[LADDER];
    ok(w.intolerant, "the TCP retry's ServerHello (frame 12): version_intolerance");
    ok(strstr(report, "; 2 servers;") && strstr(report, "\n127.0.0.3:44323 localhost\n") &&
           strstr(report, "\n127.0.0.3:44323 udp/QUIC localhost\n"),
       "report: two servers, the QUIC one labelled udp/QUIC:\n%s", report);
    ok(strstr(report, "\n  VERSION-INTOLERANT: does not tolerate TLS 1.3 in supported_versions "
                      "(verdict in frame 12)\n") &&
           !strstr(report, "intolerance not consistent"),
       "report: the TCP server is version-intolerant; the QUIC server's TLS 1.3 (frame 26) does "
       "not make that inconsistent");
    ok(strstr(report, "\nframe 12  127.0.0.3:44323 localhost  version_intolerance: ") != NULL,
       "report: the verdict line names the TCP server");
    ok(strstr(csv, ",hrr_moves_to_pq,transport\n") &&
           count(csv, "\n127.0.0.3,44323,\"localhost\",") == 2 && count(csv, ",tcp\n") == 1 &&
           count(csv, ",quic\n") == 1,
       "CSV: a row per transport, told apart by the transport column:\n%s", csv);
    ok(strstr(csv,
              "\n127.0.0.3,44323,\"localhost\",2,1,0,0,1,0,1,\"TLS 1.3 in supported_versions\","
              "0x0304:1;0x0303:1,0x0303:1,") &&
           strstr(csv, "\n127.0.0.3,44323,\"localhost\",2,1,1,0,0,0,0,\"\",0x0304:2,0x0304:1,"),
       "CSV: the TCP row (2 ClientHellos, 1 reset, 1 fallback, intolerant of TLS 1.3, 1.2 in "
       "force) and the QUIC row (2 ClientHellos, 1 HelloRetryRequest, 1.3 in force)");
    ok(count(jsonl, "\"transport\":\"quic\"") == 6 && count(jsonl, "\"transport\"") == 6,
       "JSON lines: the 6 records of the QUIC connection (4 hellos, 2 outcomes) say "
       "\"transport\":\"quic\", the TCP ones none");
    ok(strstr(ladder, "\n127.0.0.3:44323 (SNI localhost), client 127.0.0.2: 2 attempts\n") &&
           strstr(ladder,
                  "\n127.0.0.3:44323 udp/QUIC (SNI localhost), client 127.0.0.2: 1 attempt\n"),
       "ladder: a lane per transport:\n%s", ladder);
    for (int o = 0; o < OUTPUTS; o++) {
        free(w.text[o]);
    }
    return tap_done();
}
