/* SPDX-License-Identifier: GPL-2.0-or-later */
/* events.c: the event lines of events.h, read and written; an event's
 * message framed, its place for the session layer. */
#include "replay/events.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "replay/unhex.h"

static const char *const kind_names[] = {"hello", "alert", "fin", "rst", "progress", "end"};
static const char *const wire_names[] = {"tls", "dtls", "quic", "ssl2"};
#define NUM_KINDS (sizeof kind_names / sizeof kind_names[0])
#define NUM_WIRES (sizeof wire_names / sizeof wire_names[0])

static bool parse_addr(const char *s, uint8_t *out, size_t *len)
{
    if (inet_pton(AF_INET, s, out) == 1) {
        *len = 4;
        return true;
    }
    if (inet_pton(AF_INET6, s, out) == 1) {
        *len = 16;
        return true;
    }
    return false;
}

/* lookup finds s among n names; -1 if it is none. */
static int lookup(const char *s, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(s, names[i]) == 0) {
            return (int)i;
        }
    }
    return -1;
}

static bool parse_sender(const char *s, bool guessed, tlsneg_ev *ev)
{
    if (strcmp(s, "client") == 0 || strcmp(s, "server") == 0) {
        ev->sender = s[0] == 'c' ? TLSNEG_SENDER_CLIENT : TLSNEG_SENDER_SERVER;
        ev->sender_guessed = guessed;
        return true;
    }
    return false;
}

/* parse_segments reads a hello's segments=N[:F,F...]. */
static bool parse_segments(const char *v, tlsneg_ev *ev)
{
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    if (end == v || *v < '0' || *v > '9' || n == 0 || n > UINT16_MAX) {
        return false;
    }
    tlsneg_segments *s = &ev->segments;
    memset(s, 0, sizeof *s);
    s->count = (uint16_t)n;
    if (*end == '\0') {
        return true;
    }
    if (*end != ':') {
        return false;
    }
    do {
        const char *f = end + 1;
        unsigned long frame = strtoul(f, &end, 10);
        if (end == f || *f < '0' || *f > '9' || frame == 0 || frame > UINT32_MAX ||
            s->num_frames == TLSNEG_MAX_SEGMENT_FRAMES || s->num_frames == s->count) {
            return false;
        }
        s->frames[s->num_frames++] = (uint32_t)frame;
    } while (*end == ',');
    return *end == '\0';
}

/* parse_attribute reads one KEY=VALUE of events.h into ev. */
static bool parse_attribute(const char *tok, tlsneg_ev *ev)
{
    const char *v = strchr(tok, '=') + 1;
    size_t key_len = (size_t)(v - 1 - tok);
    if (key_len == 4 && strncmp(tok, "conn", 4) == 0) {
        char *end;
        unsigned long long n = strtoull(v, &end, 10);
        ev->conn = n;
        return *v >= '0' && *v <= '9' && *end == '\0';
    }
    if (key_len == 6 && strncmp(tok, "opened", 6) == 0) {
        char *end;
        ev->opened_us = strtoull(v, &end, 10);
        return *v >= '0' && *v <= '9' && *end == '\0';
    }
    if (key_len == 4 && strncmp(tok, "from", 4) == 0) {
        return parse_sender(v, false, ev);
    }
    if (key_len == 5 && strncmp(tok, "guess", 5) == 0) {
        return parse_sender(v, true, ev);
    }
    if (key_len == 8 && strncmp(tok, "segments", 8) == 0) {
        return parse_segments(v, ev);
    }
    if (key_len == 5 && strncmp(tok, "level", 5) == 0) {
        /* An alert's level: 1 warning, 2 fatal (absent: none on the wire, or
         * a file written before levels were kept). */
        ev->alert_level = (uint8_t)(*v - '0');
        return (*v == '1' || *v == '2') && v[1] == '\0';
    }
    if (key_len == 4 && strncmp(tok, "wire", 4) == 0) {
        int w = lookup(v, wire_names, NUM_WIRES);
        ev->wire = (tlsneg_wire)(w < 0 ? 0 : w);
        return w >= 0;
    }
    return false;
}

/* parse_attributes reads the attributes at the start of s into ev;
 * returns what follows them, or NULL for an attribute it cannot read. */
static const char *parse_attributes(const char *s, tlsneg_ev *ev)
{
    for (;;) {
        while (*s == ' ' || *s == '\t') {
            s++;
        }
        size_t n = strcspn(s, " \t\r\n");
        const char *eq = memchr(s, '=', n);
        if (!eq) {
            return s;
        }
        char tok[128];
        if (n >= sizeof tok) {
            return NULL;
        }
        memcpy(tok, s, n);
        tok[n] = '\0';
        if (!parse_attribute(tok, ev)) {
            return NULL;
        }
        s += n;
    }
}

/* parse_hello reads a hello line's WIRE RECORD_VERSION HEX. */
static int parse_hello(const char *rest, tlsneg_ev *ev, uint8_t *buf, size_t cap)
{
    char wire[8], rv[8];
    int used = 0;
    if (sscanf(rest, "%7s %7s%n", wire, rv, &used) != 2) {
        return -1;
    }
    int w = lookup(wire, wire_names, NUM_WIRES);
    if (w < 0) {
        return -1;
    }
    ev->wire = (tlsneg_wire)w;
    if (strcmp(rv, "-") != 0) {
        unsigned long v;
        if (sscanf(rv, "%lx", &v) != 1 || v > 0xffff) {
            return -1;
        }
        ev->has_record = true;
        ev->record_version = (uint16_t)v;
    }
    ev->bytes = buf;
    ev->len = unhex(rest + used, buf, cap);
    return 1;
}

int tlsneg_ev_parse(const char *line, tlsneg_ev *ev, uint8_t *buf, size_t cap)
{
    char kind[10], proto[4], src[64], dst[64];
    unsigned long frame, sport, dport, alert;
    unsigned long long time_us;
    int used = 0;
    while (*line == ' ' || *line == '\t') {
        line++;
    }
    if (*line == '\0' || *line == '\n' || *line == '#') {
        return 0;
    }
    memset(ev, 0, sizeof *ev);
    if (sscanf(line, "%9s %lu %llu %3s %63s %lu %63s %lu%n", kind, &frame, &time_us, proto, src,
               &sport, dst, &dport, &used) != 8 ||
        frame > UINT32_MAX || sport > 65535 || dport > 65535) {
        return -1;
    }
    size_t dst_len;
    int k = lookup(kind, kind_names, NUM_KINDS);
    if (k < 0 || !parse_addr(src, ev->src, &ev->addr_len) || !parse_addr(dst, ev->dst, &dst_len) ||
        dst_len != ev->addr_len || (strcmp(proto, "tcp") != 0 && strcmp(proto, "udp") != 0)) {
        return -1;
    }
    ev->kind = (tlsneg_ev_kind)k;
    ev->udp = strcmp(proto, "udp") == 0;
    ev->frame = (uint32_t)frame;
    ev->time_us = time_us;
    ev->sport = (uint16_t)sport;
    ev->dport = (uint16_t)dport;
    const char *rest = parse_attributes(line + used, ev);
    if (!rest) {
        return -1;
    }
    if (ev->kind == TLSNEG_EV_HELLO) {
        return parse_hello(rest, ev, buf, cap);
    }
    if (ev->kind == TLSNEG_EV_ALERT) {
        if (sscanf(rest, "%lu", &alert) != 1 || alert > 255) {
            return -1;
        }
        ev->alert = (uint8_t)alert;
    }
    return 1;
}

static void put_addr(FILE *out, const uint8_t *a, size_t len)
{
    char s[INET6_ADDRSTRLEN];
    if (!inet_ntop(len == 4 ? AF_INET : AF_INET6, a, s, sizeof s)) {
        strcpy(s, "?");
    }
    fputs(s, out);
}

static void put_hex(FILE *out, const uint8_t *b, size_t len)
{
    static const char digits[] = "0123456789abcdef";
    char chunk[1024];
    for (size_t i = 0; i < len;) {
        size_t n = 0;
        for (; i < len && n < sizeof chunk; i++) {
            chunk[n++] = digits[b[i] >> 4];
            chunk[n++] = digits[b[i] & 15];
        }
        fwrite(chunk, 1, n, out);
    }
}

void tlsneg_ev_write(FILE *out, const tlsneg_ev *ev)
{
    fprintf(out, "%s %u %llu %s ", kind_names[ev->kind], ev->frame, (unsigned long long)ev->time_us,
            ev->udp ? "udp" : "tcp");
    put_addr(out, ev->src, ev->addr_len);
    fprintf(out, " %u ", ev->sport);
    put_addr(out, ev->dst, ev->addr_len);
    fprintf(out, " %u", ev->dport);
    if (ev->conn) {
        fprintf(out, " conn=%llu", (unsigned long long)ev->conn);
    }
    if (ev->opened_us) {
        fprintf(out, " opened=%llu", (unsigned long long)ev->opened_us);
    }
    if (ev->sender != TLSNEG_SENDER_UNKNOWN) {
        fprintf(out, " %s=%s", ev->sender_guessed ? "guess" : "from",
                ev->sender == TLSNEG_SENDER_CLIENT ? "client" : "server");
    }
    switch (ev->kind) {
    case TLSNEG_EV_HELLO:
        if (ev->segments.count) {
            fprintf(out, " segments=%u", ev->segments.count);
            for (unsigned i = 0; i < ev->segments.num_frames; i++) {
                fprintf(out, "%c%u", i ? ',' : ':', ev->segments.frames[i]);
            }
        }
        fprintf(out, " %s ", wire_names[ev->wire]);
        if (ev->has_record) {
            fprintf(out, "0x%04x ", ev->record_version);
        } else {
            fputs("- ", out);
        }
        put_hex(out, ev->bytes, ev->len);
        break;
    case TLSNEG_EV_ALERT:
        if (ev->udp && ev->wire != TLSNEG_WIRE_TLS) {
            fprintf(out, " wire=%s", wire_names[ev->wire]);
        }
        if (ev->alert_level != TLSNEG_ALERT_NO_LEVEL) {
            fprintf(out, " level=%u", ev->alert_level);
        }
        fprintf(out, " %u", ev->alert);
        break;
    default:
        if (ev->udp && ev->wire != TLSNEG_WIRE_TLS) {
            fprintf(out, " wire=%s", wire_names[ev->wire]);
        }
        break;
    }
    fputc('\n', out);
}

bool tlsneg_ev_frame(tlsneg_message *m, const tlsneg_ev *ev)
{
    if (ev->kind != TLSNEG_EV_HELLO) {
        return false;
    }
    /* An SSL 2.0 record's message is framed as the core reads it from a
     * TLS stream: record version 0x0002 (core/hello.h). */
    bool ssl2 = ev->wire == TLSNEG_WIRE_SSL2;
    if (!tlsneg_frame_message(m, ssl2 ? TLSNEG_WIRE_TLS : ev->wire, ssl2 || ev->has_record,
                              ssl2 ? 0x0002 : ev->record_version, ev->bytes, ev->len, 0, NULL, 0)) {
        return false;
    }
    m->segments = ev->segments;
    return true;
}

tlsneg_event tlsneg_ev_session_event(const tlsneg_ev *ev)
{
    tlsneg_event e = {ev->frame,
                      ev->time_us,
                      {ev->src, ev->addr_len, ev->sport},
                      {ev->dst, ev->addr_len, ev->dport},
                      ev->sender_guessed ? TLSNEG_SENDER_UNKNOWN : ev->sender,
                      ev->opened_us};
    return e;
}
