/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench_core: the tlsneg core alone, in hellos per second.
 *
 * Reads handshake messages in tlsneg-dump's input format, one per line:
 *   WIRE HEX                 WIRE is tls, dtls, quic or ssl2
 *   dtls-body TYPE HEX       a DTLS message reassembled from fragments
 * keeps them in memory, and runs over them again and again for at least
 * --seconds per stage:
 *   parse         tlsneg_hello_parse
 *   parse+facts   + tlsneg_facts_derive (what the postdissector caches per hello)
 *   +summary      + tlsneg_facts_summary (the sentence rendered on every pass)
 * Prints one line per stage: hellos/s and ns per hello. */
#define _POSIX_C_SOURCE 199309L
#include "core/facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay/unhex.h"

typedef struct {
    int wire; /* tlsneg_wire, or -1 for a dtls-body line */
    uint8_t type;
    size_t len;
    uint8_t *bytes;
} message;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static tlsneg_status parse(const message *m, tlsneg_hello *h)
{
    if (m->wire < 0) {
        return tlsneg_hello_parse_body(h, TLSNEG_WIRE_DTLS, m->type, m->bytes, m->len);
    }
    return tlsneg_hello_parse(h, (tlsneg_wire)m->wire, m->bytes, m->len);
}

/* One pass over every message at the given stage (1 parse, 2 + facts, 3 +
 * summary); returns a value that depends on every result. */
static unsigned long pass(const message *msgs, size_t n, int stage)
{
    unsigned long sink = 0;
    for (size_t i = 0; i < n; i++) {
        tlsneg_hello h;
        sink += (unsigned long)parse(&msgs[i], &h) + h.legacy_version;
        if (stage >= 2) {
            tlsneg_facts f;
            tlsneg_facts_buf buf;
            tlsneg_facts_derive(&f, &buf, &h, true, 0x0301);
            sink += (unsigned long)f.offered_max + f.grease_count + f.num_offered;
            if (stage >= 3) {
                char summary[512];
                sink += strlen(tlsneg_facts_summary(&f, summary, sizeof summary));
            }
        }
    }
    return sink;
}

static int load(FILE *in, message **out, size_t *count)
{
    static char line[1 << 20];
    static uint8_t buf[1 << 19];
    static const char *const names[] = {"tls", "dtls", "quic", "ssl2"};
    size_t n = 0, cap = 0;
    message *msgs = NULL;
    while (fgets(line, sizeof line, in)) {
        char wire_name[16];
        int consumed = 0;
        if (line[0] == '#' || sscanf(line, "%15s %n", wire_name, &consumed) != 1) {
            continue;
        }
        const char *rest = line + consumed;
        message m = {-1, 0, 0, NULL};
        if (strcmp(wire_name, "dtls-body") == 0) {
            unsigned type;
            int used = 0;
            if (sscanf(rest, "%u %n", &type, &used) != 1) {
                fprintf(stderr, "bench_core: dtls-body needs a type\n");
                return -1;
            }
            m.type = (uint8_t)type;
            rest += used;
        } else {
            for (int i = 0; i < 4; i++) {
                if (strcmp(wire_name, names[i]) == 0) {
                    m.wire = i;
                }
            }
            if (m.wire < 0) {
                fprintf(stderr, "bench_core: unknown wire '%s'\n", wire_name);
                return -1;
            }
        }
        m.len = unhex(rest, buf, sizeof buf);
        m.bytes = malloc(m.len ? m.len : 1);
        if (!m.bytes) {
            return -1;
        }
        memcpy(m.bytes, buf, m.len);
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            message *grown = realloc(msgs, cap * sizeof *msgs);
            if (!grown) {
                return -1;
            }
            msgs = grown;
        }
        msgs[n++] = m;
    }
    *out = msgs;
    *count = n;
    return 0;
}

int main(int argc, char **argv)
{
    double seconds = 2.0;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            seconds = atof(argv[++i]);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "usage: bench_core [--seconds S] [FILE|-]\n");
            return 2;
        } else {
            path = argv[i];
        }
    }
    FILE *in = (!path || strcmp(path, "-") == 0) ? stdin : fopen(path, "r");
    if (!in) {
        perror(path);
        return 2;
    }
    message *msgs = NULL;
    size_t n = 0;
    if (load(in, &msgs, &n) != 0 || n == 0) {
        fprintf(stderr, "bench_core: no messages read\n");
        return 2;
    }
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        bytes += msgs[i].len;
    }
    printf("messages %zu, mean %.0f bytes\n", n, (double)bytes / (double)n);

    static const char *const stage_names[] = {"", "parse", "parse+facts", "parse+facts+summary"};
    unsigned long sink = 0;
    for (int stage = 1; stage <= 3; stage++) {
        sink += pass(msgs, n, stage); /* warm up */
        double t0 = now(), t;
        unsigned long hellos = 0;
        do {
            sink += pass(msgs, n, stage);
            hellos += n;
            t = now() - t0;
        } while (t < seconds);
        printf("%-20s %12.0f hellos/s %8.1f ns/hello\n", stage_names[stage], (double)hellos / t,
               t * 1e9 / (double)hellos);
    }
    fprintf(stderr, "(checksum %lu)\n", sink);
    for (size_t i = 0; i < n; i++) {
        free(msgs[i].bytes);
    }
    free(msgs);
    return 0;
}
