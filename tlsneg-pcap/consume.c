/* SPDX-License-Identifier: GPL-2.0-or-later */
/* consume.c: each event of the packet path, filtered, analysed, printed
 * (consume.h). */
#include "consume.h"

#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

#include "heap.h"
#include "shard.h"

/* in_shard: ev's client is in this run's shard (--shard), or every client
 * is. */
static bool in_shard(const tlsneg_consumer *r, const tlsneg_pcap_event *ev)
{
    return !r->shard_n || tlsneg_shard_of(ev->from_client ? ev->src_addr : ev->dst_addr,
                                          ev->addr_len, r->shard_n) == r->shard_k;
}

void tlsneg_consume_prepare(void *consumer, const tlsneg_pcap_event *ev, void *prep)
{
    tlsneg_prepared *p = prep;
    if (!in_shard(consumer, ev)) {
        p->framed = false;
        return;
    }
    tlsneg_analysis_prepare(ev, p);
}

static void put_addr(FILE *o, const uint8_t *a, uint8_t len)
{
    char s[INET6_ADDRSTRLEN];
    if (!inet_ntop(len == 4 ? AF_INET : AF_INET6, a, s, sizeof s)) {
        strcpy(s, "?");
    }
    fputs(s, o);
}

static void put_json_string(FILE *o, const char *s)
{
    fputc('"', o);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            fputc('\\', o);
            fputc(ch, o);
        } else if (ch < 0x20) {
            fprintf(o, "\\u%04x", ch);
        } else {
            fputc(ch, o);
        }
    }
    fputc('"', o);
}

static const char *transport_name(tlsneg_pcap_transport t)
{
    switch (t) {
    case TLSNEG_PCAP_TCP:
        return "tcp";
    case TLSNEG_PCAP_DTLS:
        return "dtls";
    case TLSNEG_PCAP_QUIC:
        return "quic";
    }
    return "?";
}

static void put_hex(FILE *o, const uint8_t *b, size_t len)
{
    static const char hexd[] = "0123456789abcdef";
    char chunk[1024];
    for (size_t i = 0; i < len;) {
        size_t n = 0;
        for (; i < len && n < sizeof chunk; i++) {
            chunk[n++] = hexd[b[i] >> 4];
            chunk[n++] = hexd[b[i] & 15];
        }
        fwrite(chunk, 1, n, o);
    }
}

/* put_event prints ev as one JSON line (--events). */
static void put_event(const tlsneg_consumer *r, const tlsneg_pcap_event *ev)
{
    FILE *o = r->out;
    const char *kind = ev->kind == TLSNEG_PCAP_HANDSHAKE ? "handshake"
                       : ev->kind == TLSNEG_PCAP_ALERT   ? "alert"
                       : ev->kind == TLSNEG_PCAP_CLOSE   ? "close"
                                                         : "progress";
    fputs("{\"event\":\"", o);
    fputs(kind, o);
    fputs("\",\"capture\":", o);
    put_json_string(o, r->name);
    fprintf(o, ",\"frame\":%u,\"time_us\":%llu,\"conn\":%llu,\"transport\":\"%s\",\"from\":\"%s\"",
            ev->frame, (unsigned long long)ev->time_us, (unsigned long long)ev->conn,
            transport_name(ev->transport), ev->from_client ? "client" : "server");
    if (ev->client_guessed) {
        fputs(",\"client_guessed\":true", o);
    }
    fputs(",\"src\":\"", o);
    put_addr(o, ev->src_addr, ev->addr_len);
    fprintf(o, "\",\"sport\":%u,\"dst\":\"", ev->src_port);
    put_addr(o, ev->dst_addr, ev->addr_len);
    fprintf(o, "\",\"dport\":%u", ev->dst_port);
    switch (ev->kind) {
    case TLSNEG_PCAP_HANDSHAKE:
        if (ev->has_record_version) {
            fprintf(o, ",\"record_version\":\"0x%04x\"", ev->record_version);
        }
        fprintf(o, ",\"msg_type\":%u", ev->msg_type);
        if (ev->sslv2) {
            fputs(",\"sslv2\":true", o);
        }
        fprintf(o, ",\"len\":%zu,\"hex\":\"", ev->len);
        put_hex(o, ev->bytes, ev->len);
        fputc('"', o);
        break;
    case TLSNEG_PCAP_ALERT:
        fprintf(o, ",\"level\":%u,\"description\":%u", ev->bytes[0], ev->bytes[1]);
        break;
    case TLSNEG_PCAP_CLOSE:
        fprintf(o, ",\"reset\":%s", ev->reset ? "true" : "false");
        break;
    case TLSNEG_PCAP_PROGRESS:
    case TLSNEG_PCAP_END:
        break;
    }
    fputs("}\n", o);
}

void tlsneg_consume(void *consumer, const tlsneg_pcap_event *ev, void *prep)
{
    tlsneg_consumer *r = consumer;
    if ((++r->seen & 0xff) == 0) {
        tlsneg_heap_advise(); /* here: the thread whose heap holds the analysis */
    }
    if (!in_shard(r, ev)) {
        return;
    }
    if (r->analysis) {
        tlsneg_analysis_event(r->analysis, r->file_no, ev, prep);
    }
    if (r->events && ev->kind != TLSNEG_PCAP_END) { /* an END is not a packet's event */
        put_event(r, ev);
    }
}

void tlsneg_consume_now(void *consumer, const tlsneg_pcap_event *ev)
{
    tlsneg_consumer *r = consumer;
    tlsneg_prepared *p = NULL;
    if (ev->kind == TLSNEG_PCAP_HANDSHAKE && r->analysis) {
        p = &r->prep;
        tlsneg_consume_prepare(r, ev, p);
    }
    tlsneg_consume(r, ev, p);
}
