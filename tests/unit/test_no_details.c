/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_no_details.c: a session told that no output reads the sentences
 * (tlsneg_tracker_config.no_details, tlsneg-pcap with only --jsonl or --csv)
 * judges every message of the real event sequences of session_events.h as
 * one that writes them: the same findings in the same order, the same
 * verdicts with the same evidence; only every detail is empty. */
#include "analysis/session.h"
#include "replay/events.h"

#include "session_events.h"
#include "tap.h"

#define MAX_STEPS 64

typedef struct {
    size_t steps;
    tlsneg_replay_out out[MAX_STEPS];
} run;

static uint8_t msg_buf[1 << 16];
static run with, without;

static void replay(const char *const *lines, bool no_details, run *to)
{
    tlsneg_tracker_config cfg = {500000, 30 * 1000000u, true, false, no_details};
    tlsneg_replay *r = tlsneg_replay_new(&cfg, 64);
    to->steps = 0;
    for (size_t i = 0; lines[i] && to->steps < MAX_STEPS; i++) {
        tlsneg_ev ev;
        if (tlsneg_ev_parse(lines[i], &ev, msg_buf, sizeof msg_buf) <= 0) {
            ok(0, "event line %zu reads", i);
            continue;
        }
        tlsneg_replay_event(r, &ev, &to->out[to->steps++]);
    }
    tlsneg_replay_free(r);
}

/* same_verdict: kind, rule and every piece of evidence but the sentence. */
static bool same_verdict(const tlsneg_verdict *a, const tlsneg_verdict *b)
{
    return a->kind == b->kind && a->rule == b->rule && a->silent == b->silent &&
           a->num_links == b->num_links &&
           memcmp(a->link, b->link, a->num_links * sizeof a->link[0]) == 0 &&
           a->num_versions == b->num_versions &&
           memcmp(a->version, b->version, a->num_versions * sizeof a->version[0]) == 0 &&
           a->num_texts == b->num_texts && a->chain_len == b->chain_len &&
           memcmp(a->chain_frames, b->chain_frames, a->chain_len * sizeof a->chain_frames[0]) == 0;
}

/* compare checks the two runs of one sequence, message by message; it
 * returns how many findings the sequence made. */
static size_t compare(const char *name)
{
    size_t findings = 0;
    bool same = with.steps == without.steps, empty = true, said = true;
    for (size_t i = 0; same && i < with.steps; i++) {
        const tlsneg_replay_out *a = &with.out[i], *b = &without.out[i];
        same = a->has_result == b->has_result;
        if (!same || !a->has_result) {
            continue;
        }
        const tlsneg_result *x = &a->result, *y = &b->result;
        same = x->findings.count == y->findings.count &&
               x->findings.dropped == y->findings.dropped &&
               x->verdicts.count == y->verdicts.count && x->held == y->held;
        for (size_t k = 0; same && k < x->findings.count; k++) {
            same = x->findings.item[k].rule == y->findings.item[k].rule;
            said &= x->findings.item[k].detail[0] != '\0';
            empty &= y->findings.item[k].detail[0] == '\0';
            findings++;
        }
        for (size_t k = 0; same && k < x->verdicts.count; k++) {
            same = same_verdict(&x->verdicts.item[k], &y->verdicts.item[k]);
            said &= x->verdicts.item[k].detail[0] != '\0' || x->verdicts.item[k].silent;
            empty &= y->verdicts.item[k].detail[0] == '\0';
        }
    }
    ok(same, "%s: the same %zu findings and the same verdicts without the sentences", name,
       findings);
    ok(said && empty, "%s: every sentence written with them, none without", name);
    return findings;
}

int main(void)
{
    static const struct {
        const char *name;
        const char *const *lines;
    } seqs[] = {
        {"intolerant-rst", ev_intolerant_rst},
        {"fallback-openssl35", ev_fallback_openssl35},
        {"intolerant-close", ev_intolerant_close},
        {"intolerant-alert", ev_intolerant_alert},
        {"fallback-chain", ev_fallback_chain},
        {"fallback-rejected-retry", ev_fallback_rejected_retry},
        {"tls13-hrr", ev_tls13_hrr},
        {"nofallback-preconnect", ev_nofallback_preconnect},
        {"dtls13-cid", ev_dtls13_cid},
        {"tls12-aes128ccm", ev_tls12_aes128ccm},
        {"pq-split-rst-classical-retry", ev_pq_split_rst_classical_retry},
        {"pq-split-alert-classical-retry", ev_pq_split_alert_classical_retry},
        {"pq-split-close-classical-retry", ev_pq_split_close_classical_retry},
        {"sni-mismatch-warning", ev_sni_mismatch_warning},
    };
    size_t findings = 0;
    for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++) {
        replay(seqs[i].lines, false, &with);
        replay(seqs[i].lines, true, &without);
        findings += compare(seqs[i].name);
    }
    ok(findings >= 20, "%zu findings compared in all", findings);
    return tap_done();
}
