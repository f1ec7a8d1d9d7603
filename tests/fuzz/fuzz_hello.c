/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_hello: libFuzzer target over the core's hello parser and what is
 * derived from it.
 *
 * Target functions: tlsneg_hello_parse, tlsneg_hello_parse_body,
 * tlsneg_hello_next_extension, tlsneg_facts_derive, tlsneg_facts_summary,
 * tlsneg_msg_name, tlsneg_grease_family_name, tlsneg_version_name,
 * tlsneg_version_rank, tlsneg_is_grease, and the rule checks: tlsneg_check
 * on the message and on an alert, tlsneg_alert_name, tlsneg_alert_ends_handshake,
 * tlsneg_alert_summary.
 *
 * Input layout (tests/fuzz/README.md):
 *   byte 0   selector: bits 0-2 pick the mode (taken modulo 5):
 *              0 TLS, 1 DTLS, 2 QUIC, 3 SSLv2-compatible ClientHello
 *                (message from msg_type to the end of the record),
 *              4 DTLS body: the next byte is the handshake type, the rest is
 *                the body of a message reassembled from fragments;
 *            bit 3 set: the next two bytes are the record version
 *              (has_record_version), as the glue passes it;
 *            bit 4 set: a ClientHello comes next, the connection's last one
 *              (2-byte length, then the message, same wire; DTLS-body mode:
 *              a whole DTLS message), what the checks judge a ServerHello
 *              and an alert against;
 *            bit 5 set: a HelloRetryRequest came before (a ClientHello is
 *              judged as the second one of its connection).
 *   rest     the handshake message, from its type byte. Its first byte is
 *            also judged as an alert description.
 *
 * Besides memory errors (ASan) and undefined behaviour (UBSan), the target
 * checks the promises of the headers and aborts when one is broken: every
 * view lies inside the input, error_offset does not pass the end, a message
 * that parses walks to exactly num_extensions extensions, lists stay within
 * their caps, and strings are terminated inside their buffers. */
#include "analysis/checks.h"
#include "analysis/verdict.h"
#include "core/facts.h"
#include "core/hello.h"
#include "core/versions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MODE_TLS, MODE_DTLS, MODE_QUIC, MODE_SSL2, MODE_DTLS_BODY, NUM_MODES };

#define SELECTOR_RECORD_VERSION 0x08
#define SELECTOR_CLIENT_HELLO   0x10
#define SELECTOR_AFTER_HRR      0x20

/* require aborts with a message: a broken promise is a bug like a crash. */
#define require(cond)                                                                              \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_hello: %s:%d: broken promise: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* The message under test, to check that every view points into it. */
typedef struct {
    const uint8_t *msg;
    size_t len;
} input;

static void require_inside(const input *in, const tlsneg_cur *c)
{
    if (c->len == 0) {
        return; /* an empty view may point anywhere, and is never read */
    }
    require(c->p >= in->msg && c->p <= in->msg + in->len);
    require(c->len <= (size_t)(in->msg + in->len - c->p));
    require(c->base == in->msg);
}

static void check_views(const input *in, const tlsneg_hello *h)
{
    const tlsneg_ext_view *exts[] = {
        &h->server_name,    &h->supported_groups,  &h->signature_algorithms,
        &h->alpn,           &h->key_share,         &h->psk_key_exchange_modes,
        &h->pre_shared_key, &h->supported_versions};
    require(h->error_offset <= in->len);
    require_inside(in, &h->random);
    require_inside(in, &h->session_id);
    require_inside(in, &h->cookie);
    require_inside(in, &h->cipher_suites);
    require_inside(in, &h->extensions);
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        if (exts[i]->present) {
            require_inside(in, &exts[i]->body);
        }
    }
    if (h->random.len != 0 && h->wire != TLSNEG_WIRE_SSL2) {
        require(h->random.len == 32);
    }
}

/* walk_extensions walks every extension with the public iterator, as the
 * glue and tlsneg-dump do, and checks it against the parse. */
static void walk_extensions(const input *in, const tlsneg_hello *h)
{
    tlsneg_cur exts = h->extensions, body;
    uint16_t type, last = 0;
    size_t n = 0;
    while (tlsneg_hello_next_extension(&exts, &type, &body)) {
        require_inside(in, &body);
        last = type;
        n++;
    }
    require(n >= h->num_extensions);
    if (h->status == TLSNEG_OK) {
        require(n == h->num_extensions);
        require(exts.len == 0);
        if (n) {
            require(last == h->last_extension);
        }
    }
}

static void check_version_names(uint16_t v, bool dtls)
{
    char name[TLSNEG_VERSION_NAME_MAX];
    const char *s = tlsneg_version_name(v, name, sizeof name);
    require(s && memchr(s, '\0', TLSNEG_VERSION_NAME_MAX) != NULL);
    unsigned rank = tlsneg_version_rank(v, dtls);
    if (tlsneg_is_grease(v)) {
        require(rank == 0);
    }
    (void)tlsneg_version_is_draft(v);
}

/* check_packed packs f into a block of exactly the size it asks for (ASan
 * sees a write past it) and reads every list back. */
static void check_packed(const tlsneg_facts *f)
{
    size_t size = tlsneg_facts_packed_size(f);
    void *block = size ? malloc(size) : NULL;
    require(!size || block);
    tlsneg_facts p;
    tlsneg_facts_pack(&p, block, f);
    require(p.num_offered == f->num_offered && p.num_grease == f->num_grease &&
            p.num_groups == f->num_groups && p.num_key_shares == f->num_key_shares);
    require(!p.offered || memcmp(p.offered, f->offered, p.num_offered * sizeof *p.offered) == 0);
    require(!p.grease || memcmp(p.grease, f->grease, p.num_grease * sizeof *p.grease) == 0);
    require(!p.groups || memcmp(p.groups, f->groups, p.num_groups * sizeof *p.groups) == 0);
    require(!p.key_shares ||
            memcmp(p.key_shares, f->key_shares, p.num_key_shares * sizeof *p.key_shares) == 0);
    require(!f->sni || (p.sni && strcmp(p.sni, f->sni) == 0));
    free(block);
}

static void check_facts(const tlsneg_facts *f, const tlsneg_facts_buf *buf)
{
    bool dtls = tlsneg_facts_is_dtls(f);
    require(f->num_offered <= TLSNEG_MAX_OFFERED);
    require(f->num_grease <= TLSNEG_MAX_GREASE);
    require(f->num_grease <= f->grease_count);
    check_version_names(f->legacy_version, dtls);
    check_version_names(f->record_version, dtls);
    for (size_t i = 0; i < f->num_offered; i++) {
        check_version_names(f->offered[i], dtls);
    }
    for (size_t i = 0; i < f->num_grease; i++) {
        require(tlsneg_grease_family_name((tlsneg_grease_family)f->grease[i].family) != NULL);
    }
    if (f->has_offered_max) {
        require(tlsneg_version_rank(f->offered_max, dtls) > 0);
    }
    if (f->sni) {
        require(f->sni == buf->sni);
        require(memchr(buf->sni, '\0', sizeof buf->sni) != NULL);
    }
    require(tlsneg_msg_name(f) != NULL);
}

/* summarise writes the summary into exactly sized heap buffers, small ones
 * included, so that ASan sees any write past the end. */
static void summarise(const tlsneg_facts *f)
{
    static const size_t sizes[] = {512, 1, 7, 64};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char *buf = malloc(sizes[i]);
        require(buf != NULL);
        const char *s = tlsneg_facts_summary(f, buf, sizes[i]);
        require(s == buf && memchr(buf, '\0', sizes[i]) != NULL);
        free(buf);
    }
    char *none = malloc(1);
    require(none != NULL);
    (void)tlsneg_facts_summary(f, none, 0);
    free(none);
}

/* A connection's state, as the glue keeps it for the checks. */
typedef struct {
    const tlsneg_facts *client_hello; /* the last ClientHello, or NULL */
    bool after_hrr;
} context;

static void check_findings(const tlsneg_findings *fs)
{
    require(fs->count <= TLSNEG_MAX_FINDINGS);
    for (size_t i = 0; i < fs->count; i++) {
        require((unsigned)fs->item[i].rule < TLSNEG_RULE_COUNT);
        require(memchr(fs->item[i].detail, '\0', sizeof fs->item[i].detail) != NULL);
        require(tlsneg_rules[fs->item[i].rule].name != NULL);
    }
}

/* check_rules judges the message as the glue does (a ServerHello against
 * the connection's last ClientHello, a ClientHello knowing whether a
 * HelloRetryRequest came before), then an alert whose description is the
 * message's first byte. */
static void check_rules(const tlsneg_hello *h, const tlsneg_facts *f, const context *ctx)
{
    bool client = f->msg_type == TLSNEG_HS_CLIENT_HELLO;
    tlsneg_check_input in = {.hello = h,
                             .facts = f,
                             .client_hello = client ? NULL : ctx->client_hello,
                             .after_hrr = client && ctx->after_hrr};
    tlsneg_findings fs;
    tlsneg_check(&fs, &in);
    check_findings(&fs);

    uint8_t description = h->msg_type;
    tlsneg_check_input alert = {.client_hello = ctx->client_hello,
                                .is_alert = true,
                                .alert_level = 2,
                                .alert_description = description};
    tlsneg_check(&fs, &alert);
    check_findings(&fs);
    (void)tlsneg_alert_name(description);
    static const size_t sizes[] = {256, 1, 9};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char *buf = malloc(sizes[i]);
        require(buf != NULL);
        uint8_t level = (uint8_t)(i % 3);
        bool ends = tlsneg_alert_ends_handshake(level, description, (description & 1) != 0);
        require(tlsneg_alert_summary(
                    level, description, ends, f->msg_type != TLSNEG_HS_CLIENT_HELLO,
                    ctx->client_hello != NULL, i == 1 ? TLSNEG_CAUSE_RESET : TLSNEG_CAUSE_CLOSE,
                    i == 2 ? description : 0, buf, sizes[i]) == buf);
        require(memchr(buf, '\0', sizes[i]) != NULL);
        free(buf);
    }
}

/* analyse is what the glue does with one message. */
static void analyse(const input *in, const tlsneg_hello *h, bool has_record_version,
                    uint16_t record_version, const context *ctx)
{
    check_views(in, h);
    walk_extensions(in, h);

    tlsneg_facts f;
    tlsneg_facts_buf *buf = malloc(sizeof *buf);
    require(buf != NULL);
    tlsneg_facts_derive(&f, buf, h, has_record_version, record_version);
    check_facts(&f, buf);
    check_packed(&f);
    summarise(&f);
    check_rules(h, &f, ctx);
    free(buf);
}

/* copy makes an exact-size heap copy, so that ASan sees a read one byte
 * past the end. */
static uint8_t *copy(const uint8_t *data, size_t size)
{
    uint8_t *out = malloc(size ? size : 1);
    require(out != NULL);
    if (size) {
        memcpy(out, data, size);
    }
    return out;
}

/* take splits n bytes off the front of the input. */
static bool take(const uint8_t **data, size_t *size, size_t n, const uint8_t **out)
{
    if (*size < n) {
        return false;
    }
    *out = *data;
    *data += n;
    *size -= n;
    return true;
}

/* The DTLS header's body, parsed alone, must agree with the whole message:
 * the glue takes the body path for reassembled messages. */
static void compare_dtls_body(const tlsneg_hello *whole, const uint8_t *msg, size_t len)
{
    if (whole->status != TLSNEG_OK || len < 12) {
        return;
    }
    /* The message is its header's length long: bytes after it are not its. */
    size_t body_len = (size_t)msg[1] << 16 | (size_t)msg[2] << 8 | msg[3];
    require(body_len <= len - 12);
    tlsneg_hello b;
    input in = {msg + 12, body_len};
    (void)tlsneg_hello_parse_body(&b, TLSNEG_WIRE_DTLS, msg[0], in.msg, in.len);
    require(b.status == TLSNEG_OK);
    require(b.legacy_version == whole->legacy_version);
    require(b.num_extensions == whole->num_extensions);
    require(b.is_hrr == whole->is_hrr);
    check_views(&in, &b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const tlsneg_wire wires[] = {TLSNEG_WIRE_TLS, TLSNEG_WIRE_DTLS, TLSNEG_WIRE_QUIC,
                                        TLSNEG_WIRE_SSL2, TLSNEG_WIRE_DTLS};
    const uint8_t *field;
    if (!take(&data, &size, 1, &field)) {
        return 0;
    }
    uint8_t selector = field[0];
    unsigned mode = (selector & 7u) % NUM_MODES;
    context ctx = {NULL, (selector & SELECTOR_AFTER_HRR) != 0};

    bool has_record_version = (selector & SELECTOR_RECORD_VERSION) != 0;
    uint16_t record_version = 0;
    if (has_record_version) {
        if (!take(&data, &size, 2, &field)) {
            return 0;
        }
        record_version = (uint16_t)(field[0] << 8 | field[1]);
    }

    /* The connection's last ClientHello, derived as the glue derives it. */
    uint8_t *ch_msg = NULL;
    tlsneg_hello ch;
    tlsneg_facts ch_facts;
    tlsneg_facts_buf *ch_buf = NULL;
    if (selector & SELECTOR_CLIENT_HELLO) {
        if (!take(&data, &size, 2, &field)) {
            return 0;
        }
        size_t ch_len = (size_t)field[0] << 8 | field[1];
        if (!take(&data, &size, ch_len, &field)) {
            return 0;
        }
        ch_msg = copy(field, ch_len);
        input ch_in = {ch_msg, ch_len};
        (void)tlsneg_hello_parse(&ch, wires[mode], ch_msg, ch_len);
        check_views(&ch_in, &ch);
        ch_buf = malloc(sizeof *ch_buf);
        require(ch_buf != NULL);
        tlsneg_facts_derive(&ch_facts, ch_buf, &ch, false, 0);
        ctx.client_hello = &ch_facts;
    }

    uint8_t *msg = copy(data, size);
    input in = {msg, size};
    tlsneg_hello h;
    if (mode == MODE_DTLS_BODY) {
        if (size >= 1) {
            input body = {msg + 1, size - 1};
            (void)tlsneg_hello_parse_body(&h, TLSNEG_WIRE_DTLS, msg[0], body.msg, body.len);
            analyse(&body, &h, has_record_version, record_version, &ctx);
        }
    } else {
        tlsneg_status s = tlsneg_hello_parse(&h, wires[mode], msg, size);
        require(s == h.status);
        analyse(&in, &h, has_record_version, record_version, &ctx);
        if (mode == MODE_DTLS) {
            compare_dtls_body(&h, msg, size);
        }
    }
    free(msg);
    free(ch_buf);
    free(ch_msg);
    return 0;
}
