/* SPDX-License-Identifier: GPL-2.0-or-later */
/* checks_fixture.h: what the unit tests of rules.def share (test_checks.c,
 * test_checks_kx.c): a small hello builder, and judging a message in the
 * connection so far. */
#ifndef TLSNEG_CHECKS_FIXTURE_H
#define TLSNEG_CHECKS_FIXTURE_H

#include "analysis/checks.h"
#include "core/versions.h"

#include "tap.h"

/* ---- a small hello builder ---------------------------------------------- */

typedef struct {
    uint8_t b[4096];
    size_t n;
} bytes;

static inline void put8(bytes *o, unsigned v)
{
    o->b[o->n++] = (uint8_t)v;
}

static inline void put16(bytes *o, unsigned v)
{
    put8(o, v >> 8);
    put8(o, v & 0xff);
}

static inline void put_bytes(bytes *o, const bytes *in)
{
    memcpy(o->b + o->n, in->b, in->n);
    o->n += in->n;
}

/* Extensions are written as a list of (type, body) with the body given as
 * 16-bit words or raw bytes. */
static inline void ext(bytes *exts, unsigned type, const uint8_t *body, size_t len)
{
    put16(exts, type);
    put16(exts, (unsigned)len);
    memcpy(exts->b + exts->n, body, len);
    exts->n += len;
}

/* supported_versions for a ClientHello: a 1-byte length, then versions. */
static inline void ext_versions(bytes *exts, const uint16_t *v, size_t n)
{
    uint8_t body[256];
    body[0] = (uint8_t)(2 * n);
    for (size_t i = 0; i < n; i++) {
        body[1 + 2 * i] = (uint8_t)(v[i] >> 8);
        body[2 + 2 * i] = (uint8_t)v[i];
    }
    ext(exts, TLSNEG_EXT_SUPPORTED_VERSIONS, body, 1 + 2 * n);
}

static const uint8_t groups_x25519[] = {0x00, 0x02, 0x00, 0x1d};
static const uint8_t key_share_x25519[] = {0x00, 0x06, 0x00, 0x1d, 0x00, 0x02, 0xaa, 0xbb};
static const uint8_t sig_algs[] = {0x00, 0x02, 0x04, 0x03};
static const uint8_t psk_modes[] = {0x01, 0x01};
static const uint8_t psk[] = {0x00, 0x00, 0x00, 0x00}; /* empty lists: enough to be present */
static const uint16_t v13_12[] = {TLSNEG_V_TLS13, TLSNEG_V_TLS12};
static const uint16_t tls13_suite[] = {0x1301};
static const uint16_t tls12_suite[] = {0xc02f};

/* The TLS 1.3 essentials: supported_groups, key_share, signature_algorithms. */
static inline void ext_tls13_basics(bytes *exts)
{
    ext(exts, TLSNEG_EXT_SUPPORTED_GROUPS, groups_x25519, sizeof groups_x25519);
    ext(exts, TLSNEG_EXT_KEY_SHARE, key_share_x25519, sizeof key_share_x25519);
    ext(exts, TLSNEG_EXT_SIGNATURE_ALGORITHMS, sig_algs, sizeof sig_algs);
}

/* A handshake message with a 4-byte TLS header around body. */
static inline bytes message(unsigned type, const bytes *body)
{
    bytes m = {.n = 0};
    put8(&m, type);
    put8(&m, 0);
    put16(&m, (unsigned)body->n);
    put_bytes(&m, body);
    return m;
}

static inline bytes client_hello(unsigned legacy, const uint16_t *suites, size_t num_suites,
                                 const bytes *exts)
{
    bytes body = {.n = 0};
    put16(&body, legacy);
    body.n += 32; /* random: zeros */
    put8(&body, 0);
    put16(&body, (unsigned)(2 * num_suites));
    for (size_t i = 0; i < num_suites; i++) {
        put16(&body, suites[i]);
    }
    put8(&body, 1);
    put8(&body, 0);
    put16(&body, (unsigned)exts->n);
    put_bytes(&body, exts);
    return message(TLSNEG_HS_CLIENT_HELLO, &body);
}

static const char downgrd1[8] = {'D', 'O', 'W', 'N', 'G', 'R', 'D', 1};
static const char downgrd0[8] = {'D', 'O', 'W', 'N', 'G', 'R', 'D', 0};

static inline bytes server_hello(unsigned legacy, unsigned suite, const char *random_tail,
                                 const bytes *exts)
{
    bytes body = {.n = 0};
    put16(&body, legacy);
    if (random_tail) {
        memcpy(body.b + body.n + 24, random_tail, 8);
    }
    body.n += 32;
    put8(&body, 0);
    put16(&body, suite);
    put8(&body, 0);
    put16(&body, (unsigned)exts->n);
    put_bytes(&body, exts);
    return message(TLSNEG_HS_SERVER_HELLO, &body);
}

static inline bytes server_selects(unsigned legacy, unsigned version, const char *random_tail)
{
    bytes exts = {.n = 0};
    uint8_t v[2] = {(uint8_t)(version >> 8), (uint8_t)version};
    ext(&exts, TLSNEG_EXT_SUPPORTED_VERSIONS, v, 2);
    return server_hello(legacy, 0x1301, random_tail, &exts);
}

/* ---- judging ------------------------------------------------------------ */

/* A connection: the last ClientHello, kept for the ServerHello after it. */
static tlsneg_facts client_facts;
static tlsneg_facts_buf client_buf;
static bool have_client, hrr_seen;
/* The sentence of the last judged message's first finding. */
static char last_detail[TLSNEG_DETAIL_MAX];

static inline void new_connection(void)
{
    have_client = false;
    hrr_seen = false;
}

/* judge parses msg, checks it in the connection so far and returns the
 * expert names found, space-separated. */
static inline const char *judge_msg(tlsneg_wire wire, const uint8_t *msg, size_t len,
                                    bool has_record, uint16_t record_version)
{
    static char names[512];
    tlsneg_hello h;
    tlsneg_facts f;
    tlsneg_facts_buf buf;
    tlsneg_findings fs;
    (void)tlsneg_hello_parse(&h, wire, msg, len);
    tlsneg_facts_derive(&f, &buf, &h, has_record, record_version);
    bool client = f.msg_type == TLSNEG_HS_CLIENT_HELLO;
    tlsneg_check_input in = {.hello = &h,
                             .facts = &f,
                             .client_hello = !client && have_client ? &client_facts : NULL,
                             .after_hrr = client && hrr_seen};
    tlsneg_check(&fs, &in);
    names[0] = '\0';
    snprintf(last_detail, sizeof last_detail, "%s", fs.count ? fs.item[0].detail : "");
    for (size_t i = 0; i < fs.count; i++) {
        if (i) {
            strcat(names, " ");
        }
        strcat(names, tlsneg_rules[fs.item[i].rule].name);
    }
    if (client) {
        tlsneg_facts_copy(&client_facts, &client_buf, &f);
        have_client = true;
    } else if (f.is_hrr) {
        hrr_seen = true;
    }
    return names;
}

static inline const char *judge_bytes(tlsneg_wire wire, const bytes *m, uint16_t record_version)
{
    return judge_msg(wire, m->b, m->n, record_version != 0, record_version);
}

static inline const char *judge_hex(tlsneg_wire wire, const char *hex, uint16_t record_version)
{
    size_t n;
    uint8_t *b = unhex(hex, &n);
    const char *names = judge_msg(wire, b, n, record_version != 0, record_version);
    free(b);
    return names;
}

static inline const char *judge_alert(uint8_t description)
{
    static char names[256];
    tlsneg_findings fs;
    tlsneg_check_input in = {.client_hello = have_client ? &client_facts : NULL,
                             .is_alert = true,
                             .alert_description = description};
    tlsneg_check(&fs, &in);
    names[0] = '\0';
    for (size_t i = 0; i < fs.count; i++) {
        strcat(names, tlsneg_rules[fs.item[i].rule].name);
    }
    return names;
}

#define expect(got, want, what)                                                                    \
    do {                                                                                           \
        const char *g_ = (got);                                                                    \
        ok(strcmp(g_, want) == 0, "%s: [%s] (want [%s])", what, g_, want);                         \
    } while (0)

#endif
