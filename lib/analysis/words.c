/* SPDX-License-Identifier: GPL-2.0-or-later */
/* words.c: the words of the verdicts across connections (words.h). */
#include "analysis/words.h"

#include "analysis/checks.h"
#include "core/util.h"
#include "core/versions.h"

#include <stdio.h>
#include <string.h>

/* vname names v (of DTLS if dtls), or says "no known version" for 0. */
static const char *vname(uint16_t v, bool dtls, char *buf)
{
    return tlsneg_version_name_or_none(v != 0, v, dtls, buf, TLSNEG_VERSION_NAME_MAX);
}

const char *tlsneg_probe_text(const tlsneg_probe *p, char *buf, size_t buf_len)
{
    char lo[TLSNEG_VERSION_NAME_MAX], hi[TLSNEG_VERSION_NAME_MAX], scsv[96] = "";
    uint64_t span = p->last_us - p->first_us;
    if (p->scsv == 1) {
        snprintf(scsv, sizeof scsv, ", SCSV probe %s",
                 p->scsv_refused ? "answered with 86" : "not refused");
    } else if (p->scsv > 1) {
        snprintf(scsv, sizeof scsv, ", %u SCSV probes, %u answered with 86", p->scsv,
                 p->scsv_refused);
    }
    if (p->lowest == p->highest) {
        snprintf(buf, buf_len, "probed with %u hellos in %.*f s, all up to %s%s", p->hellos,
                 span < 1000000 ? 3 : 1, (double)span / 1e6, vname(p->highest, p->dtls, hi), scsv);
    } else {
        snprintf(buf, buf_len, "probed with %u hellos in %.*f s, %s to %s%s", p->hellos,
                 span < 1000000 ? 3 : 1, (double)span / 1e6, vname(p->lowest, p->dtls, lo),
                 vname(p->highest, p->dtls, hi), scsv);
    }
    return buf;
}

const char *tlsneg_cause_text(uint8_t cause, uint8_t alert, char *buf, size_t buf_len)
{
    const char *name = tlsneg_alert_name(alert);
    switch ((tlsneg_cause)cause) {
    case TLSNEG_CAUSE_ALERT:
        snprintf(buf, buf_len, "alert %s (%u)", name ? name : "unknown", alert);
        break;
    case TLSNEG_CAUSE_RESET:
        snprintf(buf, buf_len, "TCP reset before any ServerHello");
        break;
    case TLSNEG_CAUSE_CLOSE:
        snprintf(buf, buf_len, "connection closed before any ServerHello");
        break;
    case TLSNEG_CAUSE_NO_ANSWER:
        snprintf(buf, buf_len, "no answer");
        break;
    case TLSNEG_CAUSE_CLIENT_ABORT:
        snprintf(buf, buf_len, "the client aborted after the ServerHello: alert %s (%u)",
                 name ? name : "unknown", alert);
        break;
    case TLSNEG_CAUSE_NONE:
    default:
        snprintf(buf, buf_len, "unknown");
        break;
    }
    return buf;
}

const char *tlsneg_failure_text(uint8_t cause, uint8_t alert, uint32_t frame, char *buf,
                                size_t buf_len)
{
    const char *name = tlsneg_alert_name(alert);
    switch ((tlsneg_cause)cause) {
    case TLSNEG_CAUSE_ALERT:
        snprintf(buf, buf_len, "failed: alert %s (%u), frame %u", name ? name : "unknown", alert,
                 frame);
        break;
    case TLSNEG_CAUSE_RESET:
        snprintf(buf, buf_len, "failed: TCP reset, frame %u", frame);
        break;
    case TLSNEG_CAUSE_CLOSE:
        snprintf(buf, buf_len, "failed: connection closed (FIN), frame %u", frame);
        break;
    case TLSNEG_CAUSE_CLIENT_ABORT:
        snprintf(buf, buf_len, "failed: the client aborted with alert %s (%u), frame %u",
                 name ? name : "unknown", alert, frame);
        break;
    case TLSNEG_CAUSE_NO_ANSWER:
        snprintf(buf, buf_len, "failed: no answer");
        break;
    case TLSNEG_CAUSE_NONE:
    default:
        buf[0] = '\0';
        break;
    }
    return buf;
}

const char *tlsneg_after_close_text(bool by_client, uint8_t cause, uint32_t frame, char *buf,
                                    size_t buf_len)
{
    snprintf(buf, buf_len, "after the %s's %s in frame %u", by_client ? "client" : "server",
             cause == TLSNEG_CAUSE_RESET ? "RST" : "FIN", frame);
    return buf;
}

const char *tlsneg_attempts_text(size_t n, const uint32_t *frames, const uint16_t *versions,
                                 bool dtls, char *buf, size_t buf_len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < buf_len; i++) {
        char name[TLSNEG_VERSION_NAME_MAX];
        int w = snprintf(buf + used, buf_len - used, "%s%s (frame %u)", i ? " -> " : "",
                         vname(versions[i], dtls, name), frames[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

const char *tlsneg_chain_text(const tlsneg_verdict *v, char *buf, size_t buf_len)
{
    return tlsneg_attempts_text(v->chain_len, v->chain_frames, v->chain_versions, v->chain_dtls,
                                buf, buf_len);
}

bool tlsneg_verdict_retry(const tlsneg_verdict *v, size_t step, uint8_t retries, tlsneg_retry *out)
{
    if ((size_t)v->kind >= TLSNEG_VERDICT_KINDS) {
        return false;
    }
    tlsneg_chain_use chain = tlsneg_verdict_rows[v->kind].chain;
    bool retries_chain = chain == TLSNEG_CHAIN_RETRY || chain == TLSNEG_CHAIN_END;
    if (!retries_chain || step < 1 || step >= v->chain_len || step >= TLSNEG_CHAIN_MAX) {
        return false;
    }
    memset(out, 0, sizeof *out);
    out->same = (v->chain_same >> step) & 1u;
    out->changed = (v->chain_changed >> step) & 1u;
    out->scsv = (v->chain_scsv >> step) & 1u;
    out->dtls = v->chain_dtls;
    /* A chain as long as the tracker keeps may have lost its oldest
     * attempts: then the numbers are not known. */
    bool whole = v->chain_len < TLSNEG_CHAIN_MAX;
    out->retry = whole ? (uint8_t)step : 0;
    out->retries = whole && retries >= step ? retries : 0;
    out->from = v->chain_versions[step - 1];
    out->to = v->chain_versions[step];
    out->has_from = out->from != 0;
    out->has_to = out->to != 0;
    return true;
}

static const char *rname(bool has, uint16_t v, bool dtls, char *buf)
{
    return tlsneg_version_name_or_none(has, v, dtls, buf, TLSNEG_VERSION_NAME_MAX);
}

const char *tlsneg_retry_text(const tlsneg_retry *r, char *buf, size_t buf_len)
{
    char a[TLSNEG_VERSION_NAME_MAX], b[TLSNEG_VERSION_NAME_MAX], num[16] = "";
    if (r->same) {
        snprintf(buf, buf_len, "retry, same version (%s)", rname(r->has_to, r->to, r->dtls, b));
        return buf;
    }
    if (r->changed) {
        snprintf(buf, buf_len, "retry with another offer (%s -> %s)",
                 rname(r->has_from, r->from, r->dtls, a), rname(r->has_to, r->to, r->dtls, b));
        return buf;
    }
    if (r->retry && r->retries) {
        snprintf(num, sizeof num, " %u/%u", r->retry, r->retries);
    } else if (r->retry) {
        snprintf(num, sizeof num, " %u", r->retry);
    }
    snprintf(buf, buf_len, "fallback retry%s (%s -> %s, %s)", num,
             rname(r->has_from, r->from, r->dtls, a), rname(r->has_to, r->to, r->dtls, b),
             r->scsv ? "SCSV" : "no SCSV");
    return buf;
}

const char *tlsneg_retry_info(const tlsneg_retry *r, char *buf, size_t buf_len)
{
    char a[TLSNEG_VERSION_NAME_MAX], b[TLSNEG_VERSION_NAME_MAX];
    if (r->same) {
        snprintf(buf, buf_len, "%s", tlsneg_verdict_tag(TLSNEG_VERDICT_SAME_RETRY));
        return buf;
    }
    snprintf(buf, buf_len, "fallback: %s -> %s, %s", rname(r->has_from, r->from, r->dtls, a),
             rname(r->has_to, r->to, r->dtls, b), r->scsv ? "SCSV" : "no SCSV");
    return buf;
}

const char *tlsneg_verdict_note(const tlsneg_verdict *v, bool dtls, char *buf, size_t buf_len)
{
    uint16_t from, to;
    if (v->kind == TLSNEG_VERDICT_FALLBACK &&
        tlsneg_verdict_version(v, TLSNEG_VERSION_OFFERED_BEFORE, &from) &&
        tlsneg_verdict_version(v, TLSNEG_VERSION_OFFERED_NOW, &to)) {
        /* The retry's own hello, the chain's last step: a retry that keeps
         * its highest version may carry the SCSV without the marked rule. */
        tlsneg_retry r = {.scsv = v->chain_len && (v->chain_scsv >> (v->chain_len - 1)) & 1u,
                          .dtls = dtls,
                          .has_from = true,
                          .has_to = true,
                          .from = from,
                          .to = to};
        return tlsneg_retry_info(&r, buf, buf_len);
    }
    if (v->kind == TLSNEG_VERDICT_CLIENT_ABORT && v->downgrade_caught) {
        snprintf(buf, buf_len, "client caught the downgrade");
        return buf;
    }
    snprintf(buf, buf_len, "%s", tlsneg_verdict_tag(v->kind));
    return buf;
}
