/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_pcap_frontend.c: the libpcap front end's packet path (tlsneg-pcap/)
 * on real bytes, for TCP and what is below it: frames read from the
 * project's captures (pcaps/, first argument: the repository root),
 * rewrapped into the other link types, split into segments delivered out of
 * order or lost; the flows at the end of a file; the pcapng reader. DTLS and
 * QUIC: test_pcap_udp.c. */
#define _DEFAULT_SOURCE 1

#include <pcap/pcap.h>

#include "analysis/session.h"
#include "core/facts.h"
#include "core/hello.h"
#include "net.h"
#include "packets.h"
#include "pcap_capture.h"
#include "pcapng.h"
#include "stream.h"
#include "tap.h"

/* ---- link, IP, transport ---- */

/* test_link_types rewraps an Ethernet frame's IPv4 packet (ip) into the
 * other link types. */
static void test_link_types(const uint8_t *f, size_t len, const uint8_t *ip, size_t ip_len)
{
    tlsneg_net_packet q;
    /* 802.1Q, then QinQ (802.1ad outer tag) */
    uint8_t vlan[18];
    memcpy(vlan, f, 12);
    memcpy(vlan + 12, "\x81\x00\x00\x64\x08\x00", 6);
    uint8_t *v1 = join(vlan, 18, ip, ip_len);
    ok(tlsneg_net_decode(&q, TLSNEG_LINK_ETHERNET, v1, 18 + ip_len) == TLSNEG_NET_OK &&
           q.payload_len == 315 && q.sport == 37890,
       "one 802.1Q tag is skipped");
    uint8_t qinq[22];
    memcpy(qinq, f, 12);
    memcpy(qinq + 12, "\x88\xa8\x00\x0a\x81\x00\x00\x64\x08\x00", 10);
    uint8_t *v2 = join(qinq, 22, ip, ip_len);
    ok(tlsneg_net_decode(&q, TLSNEG_LINK_ETHERNET, v2, 22 + ip_len) == TLSNEG_NET_OK &&
           q.payload_len == 315,
       "QinQ (802.1ad + 802.1Q) tags are skipped");
    ok(every_prefix(TLSNEG_LINK_ETHERNET, v2, 22 + ip_len), "every prefix of the QinQ frame");

    /* Linux cooked v1: packet type, ARPHRD, address length, 8 address bytes, protocol */
    uint8_t sll[16] = {0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x00};
    uint8_t *s1 = join(sll, 16, ip, ip_len);
    ok(tlsneg_net_decode(&q, TLSNEG_LINK_SLL, s1, 16 + ip_len) == TLSNEG_NET_OK &&
           q.payload_len == 315,
       "Linux cooked v1");
    ok(every_prefix(TLSNEG_LINK_SLL, s1, 16 + ip_len), "every prefix of the SLL frame");
    /* Linux cooked v2: protocol, reserved, ifindex, ARPHRD, type, addr len, addr */
    uint8_t sll2[20] = {0x08, 0x00, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0};
    uint8_t *s2 = join(sll2, 20, ip, ip_len);
    ok(tlsneg_net_decode(&q, TLSNEG_LINK_SLL2, s2, 20 + ip_len) == TLSNEG_NET_OK &&
           q.payload_len == 315,
       "Linux cooked v2");
    ok(every_prefix(TLSNEG_LINK_SLL2, s2, 20 + ip_len), "every prefix of the SLL2 frame");
    /* raw IP, and LINKTYPE_IPV4 */
    ok(tlsneg_net_decode(&q, TLSNEG_LINK_RAW, ip, ip_len) == TLSNEG_NET_OK &&
           tlsneg_net_decode(&q, TLSNEG_LINK_IPV4, ip, ip_len) == TLSNEG_NET_OK &&
           tlsneg_net_decode(&q, TLSNEG_LINK_IPV6, ip, ip_len) == TLSNEG_NET_MALFORMED,
       "raw IP and LINKTYPE_IPV4; an IPv4 packet under LINKTYPE_IPV6 is malformed");
    /* BSD loopback: AF_INET in host order (either), in network order for DLT_LOOP */
    uint8_t null_le[4] = {2, 0, 0, 0}, null_be[4] = {0, 0, 0, 2}, null_v6[4] = {30, 0, 0, 0};
    uint8_t *n1 = join(null_le, 4, ip, ip_len), *n2 = join(null_be, 4, ip, ip_len),
            *n3 = join(null_v6, 4, ip, ip_len);
    ok(tlsneg_net_decode(&q, TLSNEG_LINK_NULL, n1, 4 + ip_len) == TLSNEG_NET_OK &&
           tlsneg_net_decode(&q, TLSNEG_LINK_NULL, n2, 4 + ip_len) == TLSNEG_NET_OK &&
           tlsneg_net_decode(&q, TLSNEG_LINK_LOOP, n2, 4 + ip_len) == TLSNEG_NET_OK &&
           q.payload_len == 315,
       "BSD loopback: AF_INET little- and big-endian (DLT_NULL), big-endian (DLT_LOOP)");
    ok(tlsneg_net_decode(&q, TLSNEG_LINK_NULL, n3, 4 + ip_len) == TLSNEG_NET_MALFORMED,
       "an IPv4 packet under the macOS AF_INET6 family is malformed");
    ok(tlsneg_net_decode(&q, 147, f, len) == TLSNEG_NET_UNKNOWN_LINK,
       "link type 147 (USER0) is unknown");

    free(v1);
    free(v2);
    free(s1);
    free(s2);
    free(n1);
    free(n2);
    free(n3);
}

/* test_ipv4_fragments: a later fragment is skipped, the first one read. */
static void test_ipv4_fragments(const uint8_t *ip, size_t ip_len)
{
    tlsneg_net_packet q;
    uint8_t *fr = malloc(ip_len);
    memcpy(fr, ip, ip_len);
    fr[6] = 0x00;
    fr[7] = 0x10; /* offset 16 * 8 */
    ok(tlsneg_net_decode_ip(&q, fr, ip_len) == TLSNEG_NET_FRAGMENT, "an IPv4 later fragment");
    fr[6] = 0x20;
    fr[7] = 0x00; /* MF, offset 0 */
    ok(tlsneg_net_decode_ip(&q, fr, ip_len) == TLSNEG_NET_OK && q.first_fragment,
       "an IPv4 first fragment is read and marked");
    free(fr);
}

/* test_ipv6: an IPv6 frame, and extension headers in front of UDP. */
static void test_ipv6(void)
{
    int link;
    size_t len;
    tlsneg_net_packet pk, q;
    /* quic-multiple-initial-fragmented-crypto.pcap frame 1: Ethernet, IPv6,
     * UDP 45945 -> 443, 1232 payload bytes (tshark: udp.length 1238). */
    uint8_t *f = read_frame("pcaps/public/zeek/quic-multiple-initial-fragmented-crypto.pcap", 1,
                            &link, &len);
    if (!f) {
        ok(0, "quic-multiple-initial frame 1 readable");
        return;
    }
    ok(tlsneg_net_decode(&pk, link, f, len) == TLSNEG_NET_OK && pk.ip_version == 6 && pk.l4 == 17 &&
           pk.dport == 443 && pk.payload_len == 1230,
       "Ethernet/IPv6/UDP frame decodes (1230 payload bytes)");
    ok(every_prefix(link, f, len), "every prefix of the IPv6 frame");
    /* Extension headers in front of UDP: hop-by-hop (8), destination options
     * (8), routing (type 0 header, 8), fragment (8, first fragment). */
    const uint8_t *ip6 = f + 14;
    size_t ip6_len = len - 14;
    uint8_t ext[32] = {
        60, 0, 1, 4, 0, 0, 0, 0,  /* hop-by-hop -> destination options, PadN */
        43, 0, 1, 4, 0, 0, 0, 0,  /* destination options -> routing */
        44, 0, 0, 0, 0, 0, 0, 0,  /* routing -> fragment, segments left 0 */
        17, 0, 0, 1, 0, 0, 0, 42, /* fragment -> UDP, offset 0, M=1 */
    };
    uint8_t *x = malloc(ip6_len + 32);
    memcpy(x, ip6, 40);
    memcpy(x + 40, ext, 32);
    memcpy(x + 72, ip6 + 40, ip6_len - 40);
    uint16_t plen = (uint16_t)(ip6[4] << 8 | ip6[5]);
    plen = (uint16_t)(plen + 32);
    x[4] = (uint8_t)(plen >> 8);
    x[5] = (uint8_t)plen;
    x[6] = 0; /* next header: hop-by-hop */
    ok(tlsneg_net_decode_ip(&q, x, ip6_len + 32) == TLSNEG_NET_OK && q.l4 == 17 && q.dport == 443 &&
           q.payload_len == 1230 && q.first_fragment,
       "IPv6 hop-by-hop, destination options, routing and first-fragment headers are walked");
    ok(every_prefix(TLSNEG_LINK_RAW, x, ip6_len + 32), "every prefix of the IPv6 chain");
    x[72 - 8 + 3] = 0x09; /* fragment offset 1 */
    ok(tlsneg_net_decode_ip(&q, x, ip6_len + 32) == TLSNEG_NET_FRAGMENT,
       "an IPv6 later fragment is skipped");
    free(x);
    free(f);
}

static void test_ppp(void)
{
    int link;
    size_t len;
    tlsneg_net_packet pk;
    /* quic-go-handshake.pcap: PPP without address and control, protocol
     * 0x0057 (IPv6, frame 1: ICMPv6) or 0x0021 (IPv4, frame 5: UDP) */
    uint8_t *f = read_frame("pcaps/public/zeek/quic-go-handshake.pcap", 1, &link, &len);
    ok(f && link == TLSNEG_LINK_PPP &&
           tlsneg_net_decode(&pk, link, f, len) == TLSNEG_NET_OTHER_L4 && pk.ip_version == 6,
       "PPP carrying IPv6 (ICMPv6)");
    free(f);
    f = read_frame("pcaps/public/zeek/quic-go-handshake.pcap", 5, &link, &len);
    ok(f && tlsneg_net_decode(&pk, link, f, len) == TLSNEG_NET_OK && pk.ip_version == 4 &&
           pk.l4 == 17 && pk.dport == 443,
       "PPP carrying IPv4/UDP to port 443");
    free(f);
}

static void test_net(void)
{
    int link;
    size_t len;
    /* tls13-openssl.pcap frame 4: Ethernet, IPv4 127.0.0.2:37890 -> 127.0.0.3:44301,
     * the ClientHello (tshark: tcp.len 315). */
    uint8_t *f = read_frame("pcaps/tls13-openssl.pcap", 4, &link, &len);
    if (!f) {
        ok(0, "tls13-openssl.pcap frame 4 readable");
        return;
    }
    tlsneg_net_packet pk;
    ok(link == TLSNEG_LINK_ETHERNET && tlsneg_net_decode(&pk, link, f, len) == TLSNEG_NET_OK,
       "Ethernet/IPv4/TCP frame decodes");
    ok(pk.ip_version == 4 && pk.l4 == 6 && pk.sport == 37890 && pk.dport == 44301 &&
           pk.payload_len == 315 && pk.payload[0] == 0x16,
       "ports 37890 -> 44301, 315 payload bytes starting with a handshake record");
    ok(every_prefix(link, f, len), "every prefix of the Ethernet frame decodes inside its bytes");
    const uint8_t *ip = f + 14;
    size_t ip_len = len - 14;

    test_link_types(f, len, ip, ip_len);
    test_ipv4_fragments(ip, ip_len);
    free(f);
    test_ipv6();
    test_ppp();
}

/* ---- the stream ---- */

static void test_stream(void)
{
    tlsneg_stream s;
    memset(&s, 0, sizeof s);
    uint64_t dropped = 0;
    const uint8_t *abc = (const uint8_t *)"abcdefghij";
    ok(tlsneg_stream_add(&s, 4, abc + 4, 3, 64, &dropped) == TLSNEG_STREAM_AHEAD && s.have == 0,
       "bytes after a gap wait");
    ok(tlsneg_stream_add(&s, 0, abc, 2, 64, &dropped) == TLSNEG_STREAM_IN_ORDER && s.have == 2,
       "in-order bytes extend the contiguous part");
    ok(tlsneg_stream_add(&s, 0, abc, 2, 64, &dropped) == TLSNEG_STREAM_OLD,
       "a retransmission is recognised");
    ok(tlsneg_stream_add(&s, 1, abc + 1, 3, 64, &dropped) == TLSNEG_STREAM_IN_ORDER &&
           s.have == 7 && memcmp(s.buf, abc, 7) == 0,
       "an overlapping segment fills the gap and the stored bytes join");
    tlsneg_stream_consume(&s, 5);
    ok(s.have == 2 && memcmp(s.buf, "fg", 2) == 0 && s.base == 5, "consume keeps the rest");
    tlsneg_stream_consume(&s, 2);
    ok(s.buf == NULL, "nothing pending: the buffer is freed");
    ok(tlsneg_stream_add(&s, 80, abc, 10, 64, &dropped) == TLSNEG_STREAM_DROPPED && dropped == 10,
       "bytes past the limit are dropped and counted");
    for (int i = 0; i < TLSNEG_STREAM_MAX_GAPS; i++) {
        (void)tlsneg_stream_add(&s, (uint64_t)(10 + 3 * i), abc, 1, 64, &dropped);
    }
    ok(tlsneg_stream_add(&s, 50, abc, 1, 64, &dropped) == TLSNEG_STREAM_DROPPED,
       "one gap too many is dropped");
    tlsneg_stream_free(&s);
}

/* ---- TCP: segments out of order, retransmitted ---- */

/* tcp_segment builds an IPv4/TCP packet (20 + 20 header bytes) of tmpl's
 * addresses and ports with seq and payload. */
static uint8_t *tcp_segment(const uint8_t *tmpl, uint32_t seq, uint8_t flags, const uint8_t *pl,
                            size_t n, size_t *out_len)
{
    uint8_t *b = calloc(1, 40 + n);
    memcpy(b, tmpl, 40);
    b[0] = 0x45;
    b[2] = (uint8_t)((40 + n) >> 8);
    b[3] = (uint8_t)(40 + n);
    b[6] = b[7] = 0;
    b[24] = (uint8_t)(seq >> 24);
    b[25] = (uint8_t)(seq >> 16);
    b[26] = (uint8_t)(seq >> 8);
    b[27] = (uint8_t)seq;
    b[32] = 0x50;
    b[33] = flags;
    if (n) {
        memcpy(b + 40, pl, n);
    }
    *out_len = 40 + n;
    return b;
}

/* test_tcp_out_of_order: the ClientHello of tls13-openssl.pcap frame 4
 * (hello) in segments out of order and sent again. */
static void test_tcp_out_of_order(const uint8_t *hello, size_t hello_len)
{
    int link;
    size_t len;
    uint8_t *f = read_frame("pcaps/tls13-openssl.pcap", 4, &link, &len);
    if (!f) {
        ok(0, "tls13-openssl.pcap frame 4 readable");
        return;
    }
    const uint8_t *ip = f + 14;
    uint32_t seq = (uint32_t)ip[24] << 24 | (uint32_t)ip[25] << 16 | (uint32_t)ip[26] << 8 | ip[27];
    /* The same ClientHello's TCP payload (one record) cut into 3 segments,
     * delivered 3, 1, 1 again, 2: one event, in the frame of segment 2. */
    const uint8_t *pl = ip + 20 + 32; /* 20 IP + 32 TCP (timestamps) */
    size_t pl_len = len - 14 - 52;
    size_t cut1 = 3, cut2 = 200; /* inside the record header; inside the body */
    size_t l1, l2, l3, lsyn;
    uint8_t *syn = tcp_segment(ip, seq - 1, TLSNEG_TCP_SYN, NULL, 0, &lsyn);
    uint8_t *s1 = tcp_segment(ip, seq, TLSNEG_TCP_ACK, pl, cut1, &l1);
    uint8_t *s2 =
        tcp_segment(ip, seq + (uint32_t)cut1, TLSNEG_TCP_ACK, pl + cut1, cut2 - cut1, &l2);
    uint8_t *s3 =
        tcp_segment(ip, seq + (uint32_t)cut2, TLSNEG_TCP_ACK, pl + cut2, pl_len - cut2, &l3);
    static events es;
    tlsneg_pcap *p = tlsneg_pcap_new(NULL, collect, &es);
    feed_raw(p, 1, syn, lsyn);
    feed_raw(p, 2, s3, l3);
    feed_raw(p, 3, s1, l1);
    feed_raw(p, 4, s1, l1);
    ok(es.n == 0, "nothing before the gap is filled");
    feed_raw(p, 5, s2, l2);
    ok(es.n == 1 && es.e[0].ev.frame == 5 && es.e[0].ev.len == hello_len &&
           memcmp(es.e[0].bytes, hello, hello_len) == 0 && from_client(&es.e[0].ev) &&
           !es.e[0].ev.sender_guessed,
       "out of order and retransmitted: the same ClientHello, in the frame that filled the gap");
    ok(tlsneg_pcap_get_stats(p)->tcp_out_of_order == 1 &&
           tlsneg_pcap_get_stats(p)->tcp_retransmitted == 1,
       "one segment counted out of order, one retransmitted");
    /* Segment 1 (frame 3) holds 3 bytes of the record header, none of the
     * message; its retransmission (frame 4) brings nothing new. */
    const tlsneg_segments *sg = es.n == 1 ? &es.e[0].ev.segments : NULL;
    ok(sg && sg->count == 2 && sg->num_frames == 2 && sg->frames[0] == 5 && sg->frames[1] == 2,
       "hello_segments 2, frames 5 and 2 in stream order (not the header-only segment, not the "
       "retransmission)");
    tlsneg_pcap_free(p);
    free(syn);
    free(s1);
    free(s2);
    free(s3);
    free(f);
}

/* test_tcp_records: the ClientHello (hello) over two records, then an
 * RST. */
static void test_tcp_records(const uint8_t *hello, size_t hello_len)
{
    int link;
    size_t len;
    uint8_t *f = read_frame("pcaps/tls13-openssl.pcap", 4, &link, &len);
    if (!f) {
        ok(0, "tls13-openssl.pcap frame 4 readable");
        return;
    }
    const uint8_t *ip = f + 14;
    uint32_t seq = (uint32_t)ip[24] << 24 | (uint32_t)ip[25] << 16 | (uint32_t)ip[26] << 8 | ip[27];
    /* The message split across two records, each in its own segment: the
     * record version is the first record's. */
    size_t body = hello_len; /* whole handshake message */
    size_t half = body / 2;
    uint8_t r1[5 + 4096], r2[5 + 4096];
    memcpy(r1, "\x16\x03\x01", 3);
    r1[3] = (uint8_t)(half >> 8);
    r1[4] = (uint8_t)half;
    memcpy(r1 + 5, hello, half);
    memcpy(r2, "\x16\x03\x03", 3);
    r2[3] = (uint8_t)((body - half) >> 8);
    r2[4] = (uint8_t)(body - half);
    memcpy(r2 + 5, hello + half, body - half);
    size_t la, lb;
    uint8_t *a = tcp_segment(ip, seq, TLSNEG_TCP_ACK, r1, 5 + half, &la);
    uint8_t *b =
        tcp_segment(ip, seq + (uint32_t)(5 + half), TLSNEG_TCP_ACK, r2, 5 + body - half, &lb);
    static events es;
    tlsneg_pcap *p = tlsneg_pcap_new(NULL, collect, &es);
    feed_raw(p, 1, a, la);
    feed_raw(p, 2, b, lb);
    ok(es.n == 1 && es.e[0].ev.frame == 2 && es.e[0].ev.record_version == 0x0301 &&
           es.e[0].ev.len == hello_len && memcmp(es.e[0].bytes, hello, hello_len) == 0,
       "a message over two records: whole, with the first record's version");
    ok(es.n == 1 && es.e[0].ev.segments.count == 2 && es.e[0].ev.segments.num_frames == 2 &&
           es.e[0].ev.segments.frames[0] == 1 && es.e[0].ev.segments.frames[1] == 2,
       "a message over two records, one in each segment: hello_segments 2, frames 1 and 2");
    ok(es.n == 1 && es.e[0].ev.sender_guessed == false && from_client(&es.e[0].ev),
       "without a SYN, the ClientHello's sender is the client");
    /* an RST from the server after it */
    uint8_t rev[40];
    memcpy(rev, ip, 40);
    memcpy(rev + 12, ip + 16, 4);
    memcpy(rev + 16, ip + 12, 4);
    memcpy(rev + 20, ip + 22, 2);
    memcpy(rev + 22, ip + 20, 2);
    size_t lr;
    uint8_t *rst = tcp_segment(rev, 777, TLSNEG_TCP_RST | TLSNEG_TCP_ACK, NULL, 0, &lr);
    feed_raw(p, 3, rst, lr);
    ok(es.n == 2 && es.e[1].ev.kind == TLSNEG_EV_RST && !from_client(&es.e[1].ev) &&
           es.e[1].ev.frame == 3,
       "an RST from the server is reported as the server's");
    tlsneg_pcap_free(p);
    free(a);
    free(b);
    free(rst);
    free(f);
}

/* test_tcp_captures: alerts, RSTs, hellos after a HelloRetryRequest, SSLv2,
 * a ClientHello in many segments, read off with tshark. */
static void test_tcp_captures(void)
{
    static events es;
    /* Captures read off with tshark (tls.alert_message.desc, tcp.flags) */
    run_capture("pcaps/intolerant-alert.pcap", &es, NULL);
    ok(es.n >= 2 && es.e[1].ev.kind == TLSNEG_EV_ALERT && es.e[1].ev.frame == 6 &&
           es.e[1].ev.alert == 40 && !from_client(&es.e[1].ev),
       "intolerant-alert.pcap: the server's fatal handshake_failure (40) alert in frame 6");
    run_capture("pcaps/intolerant-rst.pcap", &es, NULL);
    ok(es.n >= 2 && es.e[1].ev.kind == TLSNEG_EV_RST && es.e[1].ev.frame == 6 &&
           !from_client(&es.e[1].ev),
       "intolerant-rst.pcap: the server's RST in frame 6");
    run_capture("pcaps/tls13-hrr.pcap", &es, NULL);
    ok(es.n >= 4 && es.e[2].bytes[0] == 1 && es.e[2].ev.frame == 8 && es.e[3].bytes[0] == 2 &&
           es.e[3].ev.frame == 9,
       "tls13-hrr.pcap: the second ClientHello (frame 8) and ServerHello (frame 9) after the "
       "HelloRetryRequest and its ChangeCipherSpec");
    run_capture("pcaps/sslv2-client-hello.pcap", &es, NULL);
    ok(es.n >= 2 && es.e[0].ev.wire == TLSNEG_WIRE_SSL2 && es.e[0].ev.record_version == 0x0002 &&
           es.e[0].bytes[0] == 1 && es.e[0].ev.frame == 4,
       "sslv2-client-hello.pcap: the SSLv2-compatible ClientHello, record version 0x0002, "
       "from msg_type on");
    run_capture("pcaps/client-hello-many-segments.pcap", &es, NULL);
    ok(es.n >= 1 && es.e[0].bytes[0] == 1, "client-hello-many-segments.pcap: the ClientHello");
    /* tshark: tcp.segment.count 11, tcp.segment 4, 6, ..., 24 */
    const tlsneg_segments *sg = es.n >= 1 ? &es.e[0].ev.segments : NULL;
    ok(sg && sg->count == 11 && sg->num_frames == 8 && sg->frames[0] == 4 && sg->frames[7] == 18,
       "client-hello-many-segments.pcap: 11 segments, the first 8 frames 4 to 18");
    /* tests/captures/readoff/pq.json: the ClientHello in frames 4 and 6
     * (1,448 + 98 bytes), the ServerHello in frame 8. */
    run_capture("pcaps/pq-split-healthy.pcap", &es, NULL);
    ok(es.n >= 2 && es.e[0].ev.frame == 6 && es.e[0].ev.segments.count == 2 &&
           es.e[0].ev.segments.frames[0] == 4 && es.e[0].ev.segments.frames[1] == 6 &&
           es.e[1].ev.frame == 8 && es.e[1].ev.segments.count == 1 &&
           es.e[1].ev.segments.frames[0] == 8,
       "pq-split-healthy.pcap: the ClientHello in 2 segments (frames 4, 6), the ServerHello in 1");
    /* SSLv2-compatible ClientHello in one segment. */
    run_capture("pcaps/sslv2-client-hello.pcap", &es, NULL);
    ok(es.n >= 1 && es.e[0].ev.segments.count == 1 && es.e[0].ev.segments.frames[0] == 4,
       "sslv2-client-hello.pcap: one segment, frame 4");
    /* tshark's tcp.segment: the ClientHello of 1,546 bytes in frames 4
     * (1,448 bytes) and 7 (103); tcp.flags.reset: the server's RST in frame
     * 6, between them, and again in frame 8. */
    run_capture("pcaps/pq-split-rst-classical-retry.pcap", &es, NULL);
    ok(es.n >= 2 && es.e[0].ev.kind == TLSNEG_EV_RST && es.e[0].ev.frame == 6 &&
           !from_client(&es.e[0].ev) && es.e[1].ev.kind == TLSNEG_EV_HELLO &&
           es.e[1].ev.frame == 7 && es.e[1].ev.len == 1546 && es.e[1].bytes[0] == 1 &&
           from_client(&es.e[1].ev),
       "pq-split-rst-classical-retry.pcap: the server's RST (frame 6) between the ClientHello's "
       "segments does not take back the second: the ClientHello of 1,546 bytes in frame 7");
    ok(es.n >= 3 && es.e[2].ev.kind == TLSNEG_EV_HELLO && es.e[2].ev.frame == 12,
       "pq-split-rst-classical-retry.pcap: the connection is over once the ClientHello is "
       "complete (the second RST, frame 8, is no event); the retry's ClientHello, frame 12");
}

static void test_tcp(void)
{
    static events es;
    run_capture("pcaps/tls13-openssl.pcap", &es, NULL);
    /* tshark: frame 4 ClientHello (record 0x0301, 310 bytes with header),
     * frame 6 ServerHello (record 0x0303), FIN in frames 10 (client) and 14. */
    ok(es.n == 4, "tls13-openssl.pcap: 4 events (%zu)", es.n);
    ok(es.n >= 2 && es.e[0].ev.kind == TLSNEG_EV_HELLO && es.e[0].bytes[0] == 1 &&
           es.e[0].ev.frame == 4 && from_client(&es.e[0].ev) &&
           es.e[0].ev.record_version == 0x0301 && es.e[0].ev.len == 310 && es.e[1].bytes[0] == 2 &&
           es.e[1].ev.frame == 6 && !from_client(&es.e[1].ev) &&
           es.e[1].ev.record_version == 0x0303,
       "ClientHello in frame 4 from the client, ServerHello in frame 6 from the server");
    ok(es.n == 4 && es.e[2].ev.kind == TLSNEG_EV_FIN && es.e[2].ev.frame == 10 &&
           from_client(&es.e[2].ev) && es.e[3].ev.frame == 14 && !from_client(&es.e[3].ev),
       "FINs in frames 10 (client) and 14 (server)");
    if (es.n < 1) {
        return;
    }
    uint8_t hello[4096];
    size_t hello_len = es.e[0].ev.len;
    memcpy(hello, es.e[0].bytes, hello_len);

    test_tcp_out_of_order(hello, hello_len);
    test_tcp_records(hello, hello_len);
    test_tcp_captures();
}

/* first_progress: the frame of the first progress event from the client
 * (client) or the server, or 0. */
static uint32_t first_progress(const events *es, bool client)
{
    for (size_t i = 0; i < es->n; i++) {
        if (es->e[i].ev.kind == TLSNEG_EV_PROGRESS && from_client(&es->e[i].ev) == client) {
            return es->e[i].ev.frame;
        }
    }
    return 0;
}

/* session_replay feeds the events of one connection to a fresh session
 * layer, as tlsneg-pcap does (progress events only if progress); returns
 * the ClientHello frame that the last TCP close ended, or 0. */
static uint32_t session_replay(const events *es, bool progress)
{
    static tlsneg_result x;
    tlsneg_tracker_config cfg = TLSNEG_TRACKER_DEFAULTS;
    tlsneg_session *s = tlsneg_session_new(&cfg);
    tlsneg_conn c;
    tlsneg_facts kept;
    tlsneg_facts_buf kept_buf;
    memset(&c, 0, sizeof c);
    c.id = 1;
    uint32_t ended = 0;
    for (size_t i = 0; i < es->n; i++) {
        const tlsneg_ev *ev = &es->e[i].ev;
        tlsneg_event e = {ev->frame,
                          ev->time_us,
                          {ev->src, ev->addr_len, ev->sport},
                          {ev->dst, ev->addr_len, ev->dport},
                          ev->sender,
                          ev->opened_us};
        if (ev->kind == TLSNEG_EV_PROGRESS && progress) {
            tlsneg_session_progress(s, &c, &e);
        } else if (ev->kind == TLSNEG_EV_FIN || ev->kind == TLSNEG_EV_RST) {
            tlsneg_close_result cx;
            tlsneg_session_close(s, &c, &e, ev->kind == TLSNEG_EV_RST, &cx);
            ended = cx.ended_attempt_frame ? cx.ended_attempt_frame : ended;
        } else if (ev->kind == TLSNEG_EV_HELLO) {
            tlsneg_message m;
            if (tlsneg_frame_message(&m, TLSNEG_WIRE_TLS, ev->has_record, ev->record_version,
                                     ev->bytes, ev->len, 0, NULL, 0)) {
                tlsneg_session_message(s, &c, &e, &m, ev->has_record, ev->record_version, &x);
                if (x.keep_facts) {
                    tlsneg_facts_copy(&kept, &kept_buf, &x.facts);
                    tlsneg_conn_keep_client_hello(&c, &kept);
                }
            }
        } else if (ev->kind == TLSNEG_EV_END) {
            tlsneg_session_forget(s, &c);
        }
    }
    tlsneg_session_free(s);
    return ended;
}

/* The progress of a handshake (ChangeCipherSpec and application-data
 * records, by their content-type byte) and the end of a flow. */
static void test_progress(void)
{
    events es;
    static const uint32_t none[2] = {0, 0};
    /* tshark -e tcp.payload: frame 6 (server) holds the ServerHello record
     * (16 03 03 00 7a), then 14 03 03 00 01 01 (ChangeCipherSpec) at offset
     * 127, then application data (17 03 03); frame 8 (client) starts with
     * 14 03 03 00 01 01, then 17 03 03. FINs in frames 10 (client) and 14
     * (server). */
    run_capture_skip("pcaps/tls13-openssl.pcap", &es, NULL, true, none);
    size_t np = 0;
    for (size_t i = 0; i < es.n; i++) {
        np += es.e[i].ev.kind == TLSNEG_EV_PROGRESS;
    }
    ok(np == 2 && first_progress(&es, false) == 6 && first_progress(&es, true) == 8,
       "tls13-openssl.pcap: progress from the server in frame 6 (its ChangeCipherSpec; the "
       "application data after it tells nothing more), from the client in frame 8: one event "
       "per direction (%zu events)",
       np);
    ok(es.n > 0 && es.e[es.n - 1].ev.kind == TLSNEG_EV_END && es.e[es.n - 1].ev.frame == 14 &&
           es.e[es.n - 1].ev.conn == 1 && es.e[es.n - 1].ev.sport == 37890,
       "tls13-openssl.pcap: the flow ends (is forgotten) at the second FIN, frame 14, named "
       "by its client (port 37890)");
    /* go-client-tls12.pcap without frame 2 (SYN-ACK) and frame 6 (the
     * server's flight: ServerHello, Certificate, ServerKeyExchange,
     * ServerHelloDone): a capture that misses the ServerHello. tshark:
     * frame 8 (client) holds records 22, 20, 22, frame 9 (server) 20, 22
     * (tls.record.content_type), then the server's FIN in frame 11. With
     * both sides' progress the attempt of frame 4 is no failure; without
     * it, the FIN would end it. */
    static const uint32_t lost[2] = {2, 6};
    run_capture_skip("pcaps/go-client-tls12.pcap", &es, NULL, true, lost);
    ok(first_progress(&es, true) == 8 && first_progress(&es, false) == 9,
       "go-client-tls12.pcap without its ServerHello: progress from the client in frame 8, "
       "from the server in frame 9");
    ok(session_replay(&es, true) == 0,
       "... fed to the session layer, the FIN ends no attempt (the handshake went on)");
    ok(session_replay(&es, false) == 4,
       "... without the progress events, the FIN would end the attempt of frame 4");

    /* scan-testssl-tls12.pcap: SYN from port 53202 (frame 1), then in frame
     * 4 the server (port 44366) sends 15 03 03 00 02 02 32, a fatal
     * decode_error alert, before any ClientHello: the session layer takes
     * the sender from the packet path (the SYN's), not from a ClientHello. */
    run_capture("pcaps/scan-testssl-tls12.pcap", &es, NULL);
    bool from_server = false, from_client = true;
    if (es.n >= 2 && es.e[1].ev.kind == TLSNEG_EV_ALERT && es.e[1].ev.frame == 4) {
        const tlsneg_ev *ev = &es.e[1].ev;
        static tlsneg_result x;
        tlsneg_conn c;
        memset(&c, 0, sizeof c);
        c.id = 1;
        tlsneg_event e = {ev->frame,
                          ev->time_us,
                          {ev->src, ev->addr_len, ev->sport},
                          {ev->dst, ev->addr_len, ev->dport},
                          ev->sender,
                          ev->opened_us};
        tlsneg_session_alert(NULL, &c, &e, ev->wire, ev->alert_level, ev->alert, &x);
        from_server = x.alert_from_server && ev->sport == 44366;
        from_client = x.from_client;
    }
    ok(from_server && !from_client,
       "scan-testssl-tls12.pcap: the alert of frame 4, before any ClientHello, is the server's");
}

/* run_capture_order feeds frames order[0..n) of a capture (1-based, each
 * keeping its number) through p. */
static void run_capture_order(tlsneg_pcap *p, const char *rel, const uint32_t *order, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int link;
        size_t len;
        uint8_t *f = read_frame(rel, order[i], &link, &len);
        if (f) {
            tlsneg_pcap_packet(p, link, order[i], 1000000u * order[i], f, len, len);
            free(f);
        }
    }
}

/* count_kind counts the events of a kind from the client or the server, and
 * gives the frame of the first. */
static size_t count_kind(const events *es, tlsneg_ev_kind kind, bool client, uint32_t *first)
{
    size_t n = 0;
    *first = 0;
    for (size_t i = 0; i < es->n; i++) {
        if (es->e[i].ev.kind == kind && from_client(&es->e[i].ev) == client) {
            if (n++ == 0) {
                *first = es->e[i].ev.frame;
            }
        }
    }
    return n;
}

/* A segment lost for good (not a late start): the records after the gap
 * still tell that the handshake went on, as Wireshark shows them. */
static void test_gap(void)
{
    events es;
    uint32_t first;
    /* go-client-tls12.pcap, tshark -e tcp.seq -e tcp.len -e
     * tls.record.content_type: the SYN-ACK (frame 2) gives the server's
     * sequence numbers; frame 6 (server, seq 1, 645 bytes) holds the
     * server's flight, records 22 22 22 22 (ServerHello, Certificate,
     * ServerKeyExchange, ServerHelloDone); frame 9 (server, seq 646 = right
     * after it) starts with 14 03 03 00 01 01: records 20 (ChangeCipherSpec),
     * 22; frame 10 (seq 697) record 21, the server's FIN in frame 11. The
     * client's ChangeCipherSpec is in frame 8. Without frame 6 (tshark
     * without it: frame 9 "[TCP Previous segment not captured], Change
     * Cipher Spec, Encrypted Handshake Message"): */
    static const uint32_t lost6[2] = {6, 0};
    run_capture_skip("pcaps/go-client-tls12.pcap", &es, NULL, true, lost6);
    size_t np = count_kind(&es, TLSNEG_EV_PROGRESS, false, &first);
    ok(np == 1 && first == 9,
       "go-client-tls12.pcap without frame 6: the server's ChangeCipherSpec after the gap is "
       "progress in frame 9 (%zu server progress events, first in frame %u)",
       np, first);
    ok(count_kind(&es, TLSNEG_EV_HELLO, false, &first) == 0 &&
           count_kind(&es, TLSNEG_EV_ALERT, false, &first) == 0,
       "... and no handshake message or alert is built across the gap");
    ok(session_replay(&es, true) == 0,
       "... fed to the session layer, the server's FIN (frame 11) ends no attempt: the "
       "handshake went on");
    ok(session_replay(&es, false) == 4,
       "... without the progress events, it would end the attempt of frame 4");

    /* The same segment late rather than lost: frame 6 after frame 10. The
     * gap fills: the ServerHello in frame 6 (the packet path reports hellos,
     * not the Certificate and the rest), the ChangeCipherSpec reported
     * once. */
    static const uint32_t late6[] = {1, 2, 3, 4, 5, 7, 8, 9, 10, 6, 11, 12, 13, 14, 15, 16};
    memset(&es, 0, sizeof es);
    es.all = true;
    tlsneg_pcap *p = tlsneg_pcap_new(NULL, collect, &es);
    run_capture_order(p, "pcaps/go-client-tls12.pcap", late6, sizeof late6 / sizeof late6[0]);
    tlsneg_pcap_free(p);
    size_t nh = count_kind(&es, TLSNEG_EV_HELLO, false, &first);
    np = count_kind(&es, TLSNEG_EV_PROGRESS, false, &first);
    uint32_t sh = 0;
    for (size_t i = 0; i < es.n; i++) {
        if (es.e[i].ev.kind == TLSNEG_EV_HELLO && es.e[i].bytes[0] == 2) {
            sh = es.e[i].ev.frame;
        }
    }
    ok(nh == 1 && sh == 6 && np == 1 && first == 9,
       "go-client-tls12.pcap with frame 6 after frame 10: the ServerHello in frame 6, which "
       "filled the gap, the ChangeCipherSpec progress once, in frame 9 (%zu, %zu)",
       nh, np);

    /* tls13-openssl.pcap frame 6 (server, 778 bytes): records 22 of 122
     * bytes (ServerHello, payload offsets 0-127), 20 of 1 (127-133), then
     * application data 23 of 23 (133-161), 437, 96, 69 (tshark
     * tls.record.length). Cut into [0, 60), [60, 100) lost, [100, 133) (it
     * starts inside the ServerHello record: no record starts there),
     * [133, 778) (starts with the first application-data record). */
    int link;
    size_t len;
    uint8_t *f6 = read_frame("pcaps/tls13-openssl.pcap", 6, &link, &len);
    if (!f6) {
        ok(0, "tls13-openssl.pcap frame 6 readable");
        return;
    }
    const uint8_t *ip = f6 + 14;
    const uint8_t *pl = ip + 52;
    uint32_t seq = (uint32_t)ip[24] << 24 | (uint32_t)ip[25] << 16 | (uint32_t)ip[26] << 8 | ip[27];
    ok(len - 14 - 52 == 778 && pl[0] == 22 && pl[127] == 20 && pl[133] == 23,
       "tls13-openssl.pcap frame 6: 778 payload bytes, records at 0, 127, 133");
    size_t la, lc, ld;
    uint8_t *a = tcp_segment(ip, seq, TLSNEG_TCP_ACK, pl, 60, &la);
    uint8_t *c = tcp_segment(ip, seq + 100, TLSNEG_TCP_ACK, pl + 100, 33, &lc);
    uint8_t *d = tcp_segment(ip, seq + 133, TLSNEG_TCP_ACK, pl + 133, 778 - 133, &ld);
    memset(&es, 0, sizeof es);
    es.all = true;
    p = tlsneg_pcap_new(NULL, collect, &es);
    static const uint32_t first5[] = {1, 2, 3, 4, 5};
    run_capture_order(p, "pcaps/tls13-openssl.pcap", first5, 5);
    feed_raw(p, 6, a, la);
    feed_raw(p, 7, c, lc);
    np = count_kind(&es, TLSNEG_EV_PROGRESS, false, &first);
    ok(np == 0,
       "a segment past the gap that starts inside the record waited for starts no "
       "record (%zu progress events)",
       np);
    feed_raw(p, 8, d, ld);
    np = count_kind(&es, TLSNEG_EV_PROGRESS, false, &first);
    ok(np == 1 && first == 8 && count_kind(&es, TLSNEG_EV_HELLO, false, &first) == 0,
       "the next starts with an application-data record: progress in its frame, once, and no "
       "ServerHello (%zu)",
       np);
    tlsneg_pcap_free(p);
    free(a);
    free(c);
    free(d);
    free(f6);
}

/* The end of the input: tlsneg_pcap_finish ends every flow still held. */
typedef struct {
    size_t n, ends;
    uint16_t port[8]; /* the client ports of the ENDs after the capture */
    uint16_t dport[8];
    uint32_t frame[8];
    bool after; /* the capture has been read */
} end_count;

static void count_ends(void *user, const tlsneg_ev *ev)
{
    end_count *c = user;
    if (ev->kind != TLSNEG_EV_END) {
        return;
    }
    c->ends++;
    if (c->after && c->n < 8) {
        c->port[c->n] = ev->sport;
        c->dport[c->n] = ev->dport;
        c->frame[c->n++] = ev->frame;
    }
}

static void test_finish(void)
{
    /* scan-nmap-tls13.pcap (185 frames), tshark -e tcp.stream -e tcp.srcport
     * -e tcp.flags.str: of its 33 TCP streams, 28 end with an RST or a FIN
     * from both sides; five are still open when the capture ends: the
     * client ports (to 44363) 36714 (last packet frame 167), 36726 (173),
     * 36730 (SYN, SYN-ACK: 177), 36728 (178) and 36738 (SYN, SYN-ACK: 185). */
    end_count c;
    memset(&c, 0, sizeof c);
    char path[4096], err[PCAP_ERRBUF_SIZE];
    snprintf(path, sizeof path, "%s/pcaps/scan-nmap-tls13.pcap", root);
    pcap_t *pc = pcap_open_offline(path, err);
    if (!pc) {
        ok(0, "scan-nmap-tls13.pcap readable: %s", err);
        return;
    }
    tlsneg_pcap *p = tlsneg_pcap_new(NULL, count_ends, &c);
    struct pcap_pkthdr *h;
    const u_char *data;
    uint32_t frames = 0;
    for (uint32_t i = 1; pcap_next_ex(pc, &h, &data) == 1; i++) {
        tlsneg_pcap_packet(p, pcap_datalink(pc), i,
                           (uint64_t)h->ts.tv_sec * 1000000u + (uint64_t)h->ts.tv_usec, data,
                           h->caplen, h->len);
        frames = i;
    }
    pcap_close(pc);
    size_t ends_before = c.ends;
    c.after = true;
    tlsneg_pcap_finish(p);
    static const uint16_t open_ports[5] = {36714, 36726, 36730, 36728, 36738};
    bool order = c.n == 5 && frames == 185;
    for (size_t i = 0; order && i < 5; i++) {
        order = c.port[i] == open_ports[i] && c.dport[i] == 44363 && c.frame[i] == 185;
    }
    ok(order,
       "scan-nmap-tls13.pcap: tlsneg_pcap_finish ends the 5 flows still open, the least "
       "recently seen first (client ports 36714, 36726, 36730, 36728, 36738), in frame 185 "
       "(%zu ENDs)",
       c.n);
    ok(ends_before == 28,
       "... the other 28 streams ended at their RST or second FIN (%zu ENDs before)", ends_before);
    size_t n = c.n;
    tlsneg_pcap_finish(p);
    ok(c.n == n, "a second tlsneg_pcap_finish ends nothing");
    tlsneg_pcap_free(p);
}

/* ---- the pcapng reader ---- */

static void test_pcapng(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root,
             "pcaps/public/wireshark/quic_follow_multistream-first3.pcapng");
    FILE *f = fopen(path, "rb");
    if (!f) {
        ok(0, "quic_follow_multistream-first3.pcapng readable");
        return;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    uint8_t *all = malloc((size_t)size);
    size_t got = fread(all, 1, (size_t)size, f);
    fclose(f);
    /* tshark: 3 frames of 1392 bytes, Ethernet, the first at
     * 1623189046.572975957 (nanosecond resolution) */
    FILE *m = fmemopen(all, got, "rb");
    uint8_t magic[4];
    ok(fread(magic, 1, 4, m) == 4 && memcmp(magic, "\x0a\x0d\x0d\x0a", 4) == 0,
       "a Section Header Block first");
    tlsneg_pcapng r;
    tlsneg_pcapng_open(&r, m);
    int n = 0;
    bool right = true;
    tlsneg_pcapng_status st;
    while ((st = tlsneg_pcapng_next(&r)) == TLSNEG_PCAPNG_PACKET) {
        n++;
        right = right && r.linktype == TLSNEG_LINK_ETHERNET && r.caplen == 1392 && r.len == 1392;
        if (n == 1) {
            right = right && r.time_us == 1623189046572975u;
        }
    }
    ok(st == TLSNEG_PCAPNG_END && n == 3 && right,
       "pcapng: 3 Ethernet packets of 1392 bytes, the first at 1623189046.572975 s");
    tlsneg_pcapng_close(&r);
    fclose(m);
    /* Every cut of the file: packets before the cut, then the end (a cut
     * between blocks) or a truncation, never a crash. */
    bool clean = true;
    for (size_t cut = 4; cut < got; cut += 7) {
        uint8_t *part = malloc(cut);
        memcpy(part, all, cut);
        m = fmemopen(part, cut, "rb");
        if (fread(magic, 1, 4, m) != 4) {
            clean = false;
        }
        tlsneg_pcapng_open(&r, m);
        int k = 0;
        while ((st = tlsneg_pcapng_next(&r)) == TLSNEG_PCAPNG_PACKET) {
            k++;
        }
        clean =
            clean && k <= 3 &&
            (st == TLSNEG_PCAPNG_TRUNCATED || st == TLSNEG_PCAPNG_END || st == TLSNEG_PCAPNG_BAD);
        tlsneg_pcapng_close(&r);
        fclose(m);
        free(part);
    }
    ok(clean, "pcapng: every cut of the file reads the packets before it and stops cleanly");
    free(all);
}

static void test_unknown_link(void)
{
    events es;
    memset(&es, 0, sizeof es);
    tlsneg_pcap *p = tlsneg_pcap_new(NULL, collect, &es);
    uint8_t junk[3] = {1, 2, 3};
    tlsneg_pcap_packet(p, 147, 1, 0, junk, 3, 3);
    tlsneg_pcap_packet(p, 147, 2, 0, junk, 3, 3);
    tlsneg_pcap_packet(p, 105, 3, 0, junk, 0, 3);
    const tlsneg_pcap_stats *st = tlsneg_pcap_get_stats(p);
    ok(st->unknown_link == 3 && st->unknown_linktype[0] == 147 &&
           st->unknown_linktype_count[0] == 2 && st->unknown_linktype[1] == 105 &&
           st->unknown_linktype_count[1] == 1 && st->snapped == 1,
       "unknown link types are counted by number");
    tlsneg_pcap_free(p);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        root = argv[1];
    }
    test_net();
    test_stream();
    test_tcp();
    test_progress();
    test_gap();
    test_finish();
    test_pcapng();
    test_unknown_link();
    return tap_done();
}
