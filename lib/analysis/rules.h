/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rules.h: tlsneg's conformance rules (rules.def), without Wireshark types. */
#ifndef TLSNEG_RULES_H
#define TLSNEG_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The check column of a row that a verdict across connections reports
 * (verdicts.def): no check function. verdict.c reads it as the kind. */
#define TLSNEG_BY_VERDICT(kind) NULL

typedef enum {
#define TLSNEG_RULE(id, ...) TLSNEG_RULE_##id,
#include "rules.def"
#undef TLSNEG_RULE
    TLSNEG_RULE_COUNT
} tlsneg_rule_id;

/* Expert info groups and severities, mapped to Wireshark's by the glue. */
typedef enum {
    TLSNEG_GROUP_MALFORMED,
    TLSNEG_GROUP_PROTOCOL,
    TLSNEG_GROUP_SECURITY,
    TLSNEG_GROUP_DEPRECATED,
    TLSNEG_GROUP_RESPONSE_CODE,
} tlsneg_group;

typedef enum {
    TLSNEG_SEVERITY_NOTE,
    TLSNEG_SEVERITY_WARN,
    TLSNEG_SEVERITY_ERROR,
} tlsneg_severity;

typedef struct {
    const char *name;    /* expert info name, after "tlsneg.expert." */
    const char *finding; /* the rule name shared by its variants */
    tlsneg_group group;
    tlsneg_severity severity;
    bool drafts; /* judged for TLS 1.3 drafts and experiments too */
    const char *rfc;
    const char *dtls_rfc; /* where DTLS has the rule, if another RFC; else NULL */
    const char *text;
} tlsneg_rule;

extern const tlsneg_rule tlsneg_rules[TLSNEG_RULE_COUNT];

/* tlsneg_rule_is_verdict: the findings that answer the questions people
 * bring (who is intolerant, where clients fell back, where downgrades show,
 * where a fallback was refused or its SCSV ignored): the report's verdicts
 * and the ladder's notes. Those of the verdicts across connections are the
 * headline rows of verdicts.def; a few checks' findings are too. */
bool tlsneg_rule_is_verdict(tlsneg_rule_id r);

/* tlsneg_rule_main returns the row of r's finding: the row named as the
 * finding, which comes first among the finding's rows (r itself unless r is
 * a variant). A few string compares: variants follow their main row. */
tlsneg_rule_id tlsneg_rule_main(tlsneg_rule_id r);

/* The longest expert text: Wireshark 4.0 cuts an item's label at
 * ITEM_LABEL_LENGTH (240) bytes, and the expert item's label is
 * "Expert Info (Warning/Malformed): " (33 bytes) and the text. */
#define TLSNEG_EXPERT_TEXT_MAX 200

/* tlsneg_rule_rfc: where rule r is written for a message of one family:
 * for a DTLS message (dtls true) its DTLS citation (RFC 9147, RFC 6347)
 * where rules.def gives one, else its own. */
const char *tlsneg_rule_rfc(tlsneg_rule_id r, bool dtls);

/* tlsneg_rule_expert_text writes the expert text of a finding of rule r
 * on a message of one family (dtls: tlsneg_rule_rfc) whose sentence is
 * detail: "detail [rfc]" if that fits
 * TLSNEG_EXPERT_TEXT_MAX bytes; else its first clauses, " ... " and its
 * last clauses, cut where a clause ends (", ", "; ", ": " outside
 * parentheses), or failing that its first words, then " [rfc]". buf holds
 * at least TLSNEG_EXPERT_TEXT_MAX + 1 bytes. Returns true if the sentence
 * was cut: then it belongs whole beside the expert text. */
bool tlsneg_rule_expert_text(tlsneg_rule_id r, bool dtls, const char *detail, char *buf,
                             size_t size);

/* Public names of groups and severities ("protocol", "warn"). */
const char *tlsneg_group_name(tlsneg_group g);
const char *tlsneg_severity_name(tlsneg_severity s);

#endif
