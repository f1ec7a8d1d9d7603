/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_tracker: libFuzzer target over the cross-connection tracker, driven
 * by event sequences.
 *
 * Input layout: byte 0 is the cap (1..64 attempts, small so that eviction
 * happens all the time), byte 1 the window in seconds; then events of 6
 * bytes each:
 *   op   bits 0-1: 0 ClientHello, 1 ServerHello, 2 alert, 3 RST/FIN
 *        (with bit 6: CCS or encrypted data instead, bit 5 its side);
 *        bit 7: the ClientHello carries a fingerprint; byte 1's bit 1 turns
 *        probe recognition off
 *        bit 2: DTLS family, bit 3: datagram, bit 4: SNI in the key,
 *        bit 5: TLS_FALLBACK_SCSV / reset / HelloRetryRequest
 *   conn the connection (0..255: connections collide on purpose)
 *   peer client (low nibble) and SNI (high nibble): few peers, many retries
 *   v    version index into a table of real and odd versions
 *   x    extension bits / session ID / alert description
 *   dt   time step in 1/8 s
 *
 * The target checks the tracker's promises: attempts and bytes never pass
 * the cap's bound, every frame it reports is one it was given, chains run
 * oldest first and fit their array, texts are terminated, every verdict has
 * the shape of its row of verdicts.def. */
#include "analysis/checks.h"
#include "analysis/tracker.h"
#include "core/versions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define require(cond)                                                                              \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_tracker: %s:%d: broken promise: %s\n", __FILE__, __LINE__,       \
                    #cond);                                                                        \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static const uint16_t versions[16] = {
    TLSNEG_V_TLS13,
    TLSNEG_V_TLS12,
    TLSNEG_V_TLS11,
    TLSNEG_V_TLS10,
    TLSNEG_V_SSL3,
    TLSNEG_V_SSL2,
    0x7f17,
    0x7e02,
    0xfb1a,
    TLSNEG_V_DTLS13,
    TLSNEG_V_DTLS12,
    TLSNEG_V_DTLS10,
    TLSNEG_V_DTLS_OPENSSL,
    0x0a0a,
    0x0305,
    0,
};

static void check_verdicts(const tlsneg_verdicts *vs, uint32_t frame)
{
    char buf[512];
    require(vs->count <= TLSNEG_MAX_VERDICTS);
    for (size_t k = 0; k < vs->count; k++) {
        const tlsneg_verdict *c = &vs->item[k];
        require(c->kind < TLSNEG_VERDICT_KINDS && c->rule < TLSNEG_RULE_COUNT);
        /* evidence only in the roles its row of verdicts.def gives it */
        require(tlsneg_verdict_well_formed(c));
        require(memchr(c->detail, '\0', sizeof c->detail) != NULL);
        require(c->chain_len <= TLSNEG_CHAIN_MAX);
        require(c->num_links <= TLSNEG_VERDICT_LINKS &&
                c->num_versions <= TLSNEG_VERDICT_VERSIONS && c->num_texts <= TLSNEG_VERDICT_TEXTS);
        for (size_t i = 0; i < c->chain_len; i++) {
            require(c->chain_frames[i] <= frame);
            require(i == 0 || c->chain_frames[i - 1] < c->chain_frames[i]);
        }
        for (size_t i = 0; i < c->num_links; i++) {
            require(c->link[i].role < TLSNEG_LINK_ROLES && c->link[i].frame <= frame);
        }
        for (size_t i = 0; i < c->num_texts; i++) {
            require(c->text[i].role < TLSNEG_TEXT_ROLES);
            require(memchr(c->text[i].text, '\0', sizeof c->text[i].text) != NULL);
        }
        if (c->kind == TLSNEG_VERDICT_FALLBACK) {
            require(tlsneg_verdict_link(c, TLSNEG_LINK_PREVIOUS_ATTEMPT) < frame &&
                    c->chain_len >= 2);
            require(c->chain_frames[c->chain_len - 1] == frame);
            require(tlsneg_verdict_text(c, TLSNEG_TEXT_LESS) != NULL);
        }
        if (c->kind == TLSNEG_VERDICT_PROBE) {
            require(c->probe.first_frame <= frame && c->probe.hellos >= 1 &&
                    c->probe.scsv_refused <= c->probe.scsv);
            require(tlsneg_probe_text(&c->probe, buf, 16) == buf && memchr(buf, '\0', 16));
            /* a probe's attempts are not judged */
            require(!tlsneg_verdict_find(vs, TLSNEG_VERDICT_FALLBACK) &&
                    !tlsneg_verdict_find(vs, TLSNEG_VERDICT_SAME_RETRY) &&
                    !tlsneg_verdict_find(vs, TLSNEG_VERDICT_INTOLERANT) &&
                    !tlsneg_verdict_find(vs, TLSNEG_VERDICT_OTHER_CAUSE) &&
                    !tlsneg_verdict_find(vs, TLSNEG_VERDICT_NO_COMMON_VERSION));
        }
        if (c->kind == TLSNEG_VERDICT_CLIENT_ABORT) {
            require(tlsneg_verdict_link(c, TLSNEG_LINK_ABORTED_AFTER) < frame);
        }
        if (c->kind == TLSNEG_VERDICT_INCONSISTENT) {
            require(tlsneg_verdict_link(c, TLSNEG_LINK_HIGHER_VERSION_IN) < frame);
        }
        if (c->kind == TLSNEG_VERDICT_RESUMPTION_CHANGE) {
            require(tlsneg_verdict_link(c, TLSNEG_LINK_SESSION_MADE_IN) < frame);
        }
        require(tlsneg_chain_text(c, buf, sizeof buf) == buf && memchr(buf, '\0', sizeof buf));
    }
    tlsneg_findings fs = {0};
    tlsneg_verdict_findings(vs, &fs);
    require(fs.count <= TLSNEG_MAX_FINDINGS);
    for (size_t i = 0; i < fs.count; i++) {
        require(memchr(fs.item[i].detail, '\0', sizeof fs.item[i].detail) != NULL);
    }
    require(tlsneg_cause_text((uint8_t)frame, (uint8_t)frame, buf, 8) == buf &&
            memchr(buf, '\0', 8));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) {
        return 0;
    }
    tlsneg_tracker_config cfg = {(uint32_t)(data[0] % 64) + 1, (uint64_t)data[1] * 1000000u,
                                 (data[1] & 1) != 0, (data[1] & 2) != 0, (data[1] & 4) != 0};
    tlsneg_tracker *t = tlsneg_tracker_new(&cfg);
    require(t != NULL);
    size_t bound = 4096 + cfg.max_attempts * tlsneg_tracker_bytes_per_attempt();
    uint64_t now = 0;
    uint32_t frame = 0;
    static const char *const snis[4] = {NULL, "a", "b", "localhost"};
    for (size_t at = 2; at + 6 <= size; at += 6) {
        const uint8_t *e = data + at;
        uint8_t op = e[0], peer = e[2], x = e[4];
        uint64_t conn = e[1];
        uint16_t v = versions[e[3] & 15];
        now += (uint64_t)e[5] * 125000u;
        frame++;
        uint8_t client[4] = {10, 0, 0, (uint8_t)(peer & 15)}, server[4] = {10, 0, 1, 1};
        tlsneg_peer_key key = {client, 4, server, 4, 443, snis[(peer >> 4) & 3]};
        tlsneg_verdicts c;
        switch (op & 3) {
        case 0: {
            tlsneg_offer o = {.dtls = (op & 4) != 0,
                              .datagram = (op & 8) != 0,
                              .has_offered_max = v != 0,
                              .offered_max = v,
                              .has_supported_versions = (x & 1) != 0,
                              .offers_tls13 = (x & 2) != 0,
                              .tls13_extensions = (uint8_t)(x >> 4),
                              .fallback_scsv = (op & 32) != 0,
                              .session_id = x & 4 ? 0 : (uint64_t)(x >> 3) + 1,
                              .versions = (uint8_t)(x ^ peer),
                              .drafts = (uint32_t)(x & 0x30) << 20,
                              .has_fingerprint = (op & 128) != 0,
                              .fp_suites = x & 3u,
                              .fp_suites_pre12 = x & 1u,
                              .fp_groups = (x >> 2) & 1u,
                              .fp_sigalgs = (x >> 3) & 1u,
                              .fp_exts = (x >> 4) & 3u,
                              .fp_exts_pre12 = (x >> 4) & 1u,
                              .fp_all = x};
            /* When the connection was opened: not known, or up to 0.15 s
             * before its hello (a connection opened before an earlier
             * attempt failed retries nothing). */
            uint64_t opened = (x & 8) ? now - (uint64_t)(x >> 4) * 10000u : 0;
            tlsneg_tracker_client_hello(t, conn, &key, frame, now, opened, &o, &c);
            check_verdicts(&c, frame);
            break;
        }
        case 1: {
            tlsneg_answer a = {.is_hrr = (op & 32) != 0,
                               .version = v,
                               .session_id = x & 4 ? 0 : (uint64_t)(x >> 3) + 1,
                               .sentinel = (op & 32) != 0};
            tlsneg_tracker_server_hello(t, conn, frame, now, &a, &c);
            check_verdicts(&c, frame);
            break;
        }
        case 2:
            /* bit 64: a warning that does not end the handshake; else as fatal */
            tlsneg_tracker_alert(t, conn, now, x,
                                 !(op & 64) &&
                                     tlsneg_alert_ends_handshake(TLSNEG_ALERT_FATAL, x, false),
                                 (op & 32) != 0, &c);
            check_verdicts(&c, frame);
            break;
        default: {
            if (op & 64) {
                tlsneg_tracker_progress(t, conn, (op & 32) != 0);
                break;
            }
            uint32_t ended = tlsneg_tracker_close(t, conn, now, (op & 32) != 0);
            require(ended < frame);
            break;
        }
        }
        require(tlsneg_tracker_attempts(t) <= cfg.max_attempts);
        require(tlsneg_tracker_bytes(t) <= bound);
    }
    tlsneg_tracker_free(t);
    return 0;
}
