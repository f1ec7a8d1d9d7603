/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "analysis/rules.h"

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
    switch (r) {
    case TLSNEG_RULE_VERSION_INTOLERANCE:
    case TLSNEG_RULE_FALLBACK_RETRY:
    case TLSNEG_RULE_FALLBACK_RETRY_SCSV:
    case TLSNEG_RULE_FALLBACK_REJECTED:
    case TLSNEG_RULE_INAPPROPRIATE_FALLBACK:
    case TLSNEG_RULE_IGNORED_FALLBACK_SCSV:
    case TLSNEG_RULE_IGNORED_FALLBACK_SCSV_EARLIER:
    case TLSNEG_RULE_INCONSISTENT_SERVER:
    case TLSNEG_RULE_RESUMPTION_VERSION_CHANGE:
    case TLSNEG_RULE_DOWNGRADE_SENTINEL:
    case TLSNEG_RULE_DOWNGRADE_SENTINEL_TLS13:
    case TLSNEG_RULE_GREASE_SELECTED:
    case TLSNEG_RULE_VERSION_NOT_OFFERED:
    case TLSNEG_RULE_RETRY_SAME_VERSION:
    case TLSNEG_RULE_FAILURE_OTHER_CAUSE:
    case TLSNEG_RULE_NO_COMMON_VERSION:
    case TLSNEG_RULE_CLIENT_ABORTED:
        return true;
    default:
        return false;
    }
}
