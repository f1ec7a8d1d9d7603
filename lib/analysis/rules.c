/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "analysis/rules.h"

#include "analysis/verdict.h"

const tlsneg_rule tlsneg_rules[TLSNEG_RULE_COUNT] = {
#define TLSNEG_RULE(id, name, finding, group, severity, drafts, check, rfc, text)                  \
    [TLSNEG_RULE_##id] = {name, finding, TLSNEG_GROUP_##group, TLSNEG_SEVERITY_##severity, drafts, \
                          rfc,  text},
#include "rules.def"
#undef TLSNEG_RULE
};

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
    case TLSNEG_RULE_GREASE_SELECTED:
    case TLSNEG_RULE_VERSION_NOT_OFFERED:
        return true;
    default:
        return false;
    }
}
