/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "analysis/rules.h"

#include "analysis/verdict.h"

#include <stdio.h>
#include <string.h>

const tlsneg_rule tlsneg_rules[TLSNEG_RULE_COUNT] = {
#define TLSNEG_RULE(id, name, finding, group, severity, drafts, check, rfc, dtls_rfc, text)        \
    [TLSNEG_RULE_##                                                                                \
        id] = {name,     finding, TLSNEG_GROUP_##group, TLSNEG_SEVERITY_##severity, drafts, rfc,   \
               dtls_rfc, text},
#include "rules.def"
#undef TLSNEG_RULE
};

/* clause_ends lists in out (at most max) where the clauses of text end:
 * before ", ", "; " or ": " outside parentheses. */
static size_t clause_ends(const char *text, size_t len, size_t *out, size_t max)
{
    size_t n = 0;
    int depth = 0;
    for (size_t i = 1; i + 1 < len && n < max; i++) {
        depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
        if (!depth && strchr(",;:", text[i]) && text[i + 1] == ' ') {
            out[n++] = i;
        }
    }
    return n;
}

tlsneg_rule_id tlsneg_rule_main(tlsneg_rule_id r)
{
    for (int v = (int)r; v >= 0; v--) {
        if (strcmp(tlsneg_rules[v].name, tlsneg_rules[r].finding) == 0) {
            return (tlsneg_rule_id)v;
        }
    }
    return r;
}

const char *tlsneg_rule_rfc(tlsneg_rule_id r, bool dtls)
{
    const tlsneg_rule *rule = &tlsneg_rules[r];
    return dtls && rule->dtls_rfc ? rule->dtls_rfc : rule->rfc;
}

bool tlsneg_rule_expert_text(tlsneg_rule_id r, bool dtls, const char *detail, char *buf,
                             size_t size)
{
    const char *rfc = tlsneg_rule_rfc(r, dtls);
    size_t limit = size - 1 < TLSNEG_EXPERT_TEXT_MAX ? size - 1 : TLSNEG_EXPERT_TEXT_MAX;
    size_t len = strlen(detail), tail = strlen(rfc) + 3; /* " [" rfc "]" */
    if (len + tail <= limit) {
        snprintf(buf, size, "%s [%s]", detail, rfc);
        return false;
    }
    /* The first clause or more, " ... ", and the longest run of last
     * clauses that fits: the sentence's subject and its conclusion. */
    size_t ends[32], n = clause_ends(detail, len, ends, 32);
    size_t room = limit > tail + 5 ? limit - tail - 5 : 0;
    for (size_t t = 0; t < n; t++) {
        size_t from = ends[t] + 2, keep = len - from, head = 0;
        for (size_t h = 0; h < t && ends[h] + keep <= room; h++) {
            head = ends[h];
        }
        if (head) {
            snprintf(buf, size, "%.*s ... %s [%s]", (int)head, detail, detail + from, rfc);
            return true;
        }
    }
    size_t cut = 0; /* no clauses to keep: the words that fit */
    for (size_t i = 1; i < len && i <= room; i++) {
        cut = detail[i] == ' ' ? i : cut;
    }
    snprintf(buf, size, "%.*s ... [%s]", (int)cut, detail, rfc);
    return true;
}

const char *tlsneg_group_name(tlsneg_group g)
{
    static const char *const names[] = {
        [TLSNEG_GROUP_MALFORMED] = "malformed",         [TLSNEG_GROUP_PROTOCOL] = "protocol",
        [TLSNEG_GROUP_SECURITY] = "security",           [TLSNEG_GROUP_DEPRECATED] = "deprecated",
        [TLSNEG_GROUP_RESPONSE_CODE] = "response code",
    };
    return (unsigned)g < sizeof names / sizeof names[0] ? names[g] : "?";
}

const char *tlsneg_severity_name(tlsneg_severity s)
{
    static const char *const names[] = {
        [TLSNEG_SEVERITY_NOTE] = "note",
        [TLSNEG_SEVERITY_WARN] = "warn",
        [TLSNEG_SEVERITY_ERROR] = "error",
    };
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

bool tlsneg_rule_is_verdict(tlsneg_rule_id r)
{
    tlsneg_verdict_kind k;
    if (tlsneg_verdict_of_rule(r, &k)) {
        return tlsneg_verdict_rows[k].headline;
    }
    /* The checks whose findings are verdicts by themselves. */
    switch (r) {
    case TLSNEG_RULE_INAPPROPRIATE_FALLBACK:
    case TLSNEG_RULE_IGNORED_FALLBACK_SCSV:
    case TLSNEG_RULE_DOWNGRADE_SENTINEL:
    case TLSNEG_RULE_DOWNGRADE_SENTINEL_TLS13:
    case TLSNEG_RULE_DOWNGRADE_SENTINEL_NOT_LOWER:
    case TLSNEG_RULE_GREASE_SELECTED:
    case TLSNEG_RULE_VERSION_NOT_OFFERED:
        return true;
    default:
        return false;
    }
}
