/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verdict.c: verdicts.def as data (the names of kinds, roles and back
 * notes, each verdict's row), its wiring to rules.def, checked by the
 * compiler, and the verdict list: built where each verdict is decided,
 * read by kind and role, kept past its frame. */
#include "analysis/verdict.h"

#include "core/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- the names --------------------------------------------------------- */

static const char *const kind_names[] = {
#define TLSNEG_VERDICT(kind, name, ...) [TLSNEG_VERDICT_##kind] = name,
#include "verdicts.def"
};
static const char *const link_names[] = {
#define TLSNEG_LINK_ROLE(role, name) [TLSNEG_LINK_##role] = name,
#include "verdicts.def"
};
static const char *const version_names[] = {
#define TLSNEG_VERSION_ROLE(role, name) [TLSNEG_VERSION_##role] = name,
#include "verdicts.def"
};
static const char *const text_names[] = {
#define TLSNEG_TEXT_ROLE(role, name) [TLSNEG_TEXT_##role] = name,
#include "verdicts.def"
};
static const char *const note_names[] = {
#define TLSNEG_BACK_NOTE(kind, name) [TLSNEG_NOTE_##kind] = name,
#include "verdicts.def"
};

#define COUNT(table) (sizeof table / sizeof table[0])
_Static_assert(COUNT(kind_names) == TLSNEG_VERDICT_KINDS, "a name per verdict kind");
_Static_assert(COUNT(link_names) == TLSNEG_LINK_ROLES, "a name per link role");
_Static_assert(COUNT(version_names) == TLSNEG_VERSION_ROLES, "a name per version role");
_Static_assert(COUNT(text_names) == TLSNEG_TEXT_ROLES, "a name per text role");
_Static_assert(COUNT(note_names) == TLSNEG_NOTE_KINDS, "a name per back note kind");
/* Roles are kept in a byte and declared per verdict in 32-bit masks. */
_Static_assert(TLSNEG_LINK_ROLES <= 32 && TLSNEG_VERSION_ROLES <= 32 && TLSNEG_TEXT_ROLES <= 32,
               "every role has a bit in tlsneg_verdict_row");

#define NAME_OF(table, i) ((size_t)(i) < COUNT(table) ? table[i] : "unknown")

const char *tlsneg_verdict_kind_name(tlsneg_verdict_kind k)
{
    return NAME_OF(kind_names, k);
}

const char *tlsneg_link_role_name(tlsneg_link_role r)
{
    return NAME_OF(link_names, r);
}

const char *tlsneg_version_role_name(tlsneg_version_role r)
{
    return NAME_OF(version_names, r);
}

const char *tlsneg_text_role_name(tlsneg_text_role r)
{
    return NAME_OF(text_names, r);
}

const char *tlsneg_note_kind_name(tlsneg_note_kind k)
{
    return NAME_OF(note_names, k);
}

/* ---- the rows ---------------------------------------------------------- */

#define L(role) (1u << TLSNEG_LINK_##role)
#define V(role) (1u << TLSNEG_VERSION_##role)
#define T(role) (1u << TLSNEG_TEXT_##role)
const tlsneg_verdict_row tlsneg_verdict_rows[TLSNEG_VERDICT_KINDS] = {
#define TLSNEG_VERDICT(kind, name, tag, rule, variant, headline, chain, note, links, versions,     \
                       texts)                                                                      \
    [TLSNEG_VERDICT_##kind] = {name,                                                               \
                               tag,                                                                \
                               TLSNEG_RULE_##rule,                                                 \
                               (tlsneg_rule_id)TLSNEG_RULE_##variant,                              \
                               headline,                                                           \
                               TLSNEG_CHAIN_##chain,                                               \
                               (tlsneg_note_kind)TLSNEG_NOTE_##note,                               \
                               links,                                                              \
                               versions,                                                           \
                               texts},
#include "verdicts.def"
};
#undef L
#undef V
#undef T

const char *tlsneg_verdict_tag(tlsneg_verdict_kind k)
{
    return (size_t)k < TLSNEG_VERDICT_KINDS ? tlsneg_verdict_rows[k].tag : "unknown";
}

/* ---- the wiring to rules.def -------------------------------------------
 *
 * A row of rules.def that a verdict reports says TLSNEG_BY_VERDICT(kind)
 * in its check column. Here that reads as the kind's name (NO_VERDICT for
 * any other check), and the compiler holds the two tables together:
 *   - a row of verdicts.def names a rule rules.def lacks: TLSNEG_RULE_x
 *     is undeclared;
 *   - a row of rules.def names a verdict verdicts.def lacks: ROW_x is
 *     undeclared;
 *   - a rule that names a verdict is that verdict's rule or variant, and
 *     as many rules name a verdict as verdicts.def lists: the
 *     _Static_asserts below. */
#undef TLSNEG_BY_VERDICT
#define TLSNEG_BY_VERDICT(kind) ~, kind
#define SECOND(...)             SECOND_(__VA_ARGS__)
#define SECOND_(a, b, ...)      b
#define VERDICT_OF(...)         SECOND(__VA_ARGS__, NO_VERDICT, ~)

/* Per verdict: ROW_kind (its kind plus one), RULE_OF_kind, VARIANT_OF_kind. */
enum {
    ROW_NO_VERDICT = 0,
    RULE_OF_NO_VERDICT = -1,
    VARIANT_OF_NO_VERDICT = -1,
#define TLSNEG_VERDICT(kind, name, tag, rule, variant, ...)                                        \
    ROW_##kind = TLSNEG_VERDICT_##kind + 1, RULE_OF_##kind = TLSNEG_RULE_##rule,                   \
    VARIANT_OF_##kind = TLSNEG_RULE_##variant,
#include "verdicts.def"
};

#define ROW(kind)              ROW_(kind)
#define ROW_(kind)             ROW_##kind
#define RULE_MATCHES(id, kind) RULE_MATCHES_(id, kind)
#define RULE_MATCHES_(id, kind)                                                                    \
    (ROW_##kind == 0 || (int)TLSNEG_RULE_##id == RULE_OF_##kind ||                                 \
     (int)TLSNEG_RULE_##id == VARIANT_OF_##kind)

/* The verdict of each rule, plus one; 0: none. */
static const uint8_t verdict_of_rule[TLSNEG_RULE_COUNT] = {
#define TLSNEG_RULE(id, name, finding, group, severity, drafts, check, ...)                        \
    [TLSNEG_RULE_##id] = ROW(VERDICT_OF(check)),
#include "rules.def"
#undef TLSNEG_RULE
};

#define TLSNEG_RULE(id, name, finding, group, severity, drafts, check, ...)                        \
    _Static_assert(RULE_MATCHES(id, VERDICT_OF(check)),                                            \
                   "rules.def: " name                                                              \
                   " is neither the rule nor the variant of the verdict it names");
#include "rules.def"
#undef TLSNEG_RULE

enum {
    RULES_NAMING_A_VERDICT = 0
#define TLSNEG_RULE(id, name, finding, group, severity, drafts, check, ...)                        \
    +(ROW(VERDICT_OF(check)) != 0)
#include "rules.def"
#undef TLSNEG_RULE
    ,
    RULES_OF_VERDICTS = 0
#define TLSNEG_VERDICT(kind, name, tag, rule, variant, ...)                                        \
    +1 + ((int)TLSNEG_RULE_##variant != (int)TLSNEG_RULE_NO_VARIANT)
#include "verdicts.def"
};
_Static_assert(RULES_NAMING_A_VERDICT == RULES_OF_VERDICTS,
               "every rule and variant of verdicts.def says TLSNEG_BY_VERDICT(kind) in rules.def");
_Static_assert(TLSNEG_VERDICT_KINDS < UINT8_MAX, "verdict_of_rule holds a kind in a byte");

bool tlsneg_verdict_of_rule(tlsneg_rule_id r, tlsneg_verdict_kind *out)
{
    if ((size_t)r >= TLSNEG_RULE_COUNT || !verdict_of_rule[r]) {
        return false;
    }
    *out = (tlsneg_verdict_kind)(verdict_of_rule[r] - 1);
    return true;
}

/* ---- building a list --------------------------------------------------- */

tlsneg_verdict *tlsneg_verdict_add(tlsneg_verdicts *out, tlsneg_verdict_kind k, bool variant)
{
    if (out->count == TLSNEG_MAX_VERDICTS) {
        out->dropped++;
        return NULL;
    }
    const tlsneg_verdict_row *row = &tlsneg_verdict_rows[k];
    tlsneg_verdict *v = &out->item[out->count++];
    memset(v, 0, sizeof *v);
    v->no_detail = out->no_details;
    v->kind = k;
    v->rule = variant && row->variant != (tlsneg_rule_id)TLSNEG_RULE_NO_VARIANT ? row->variant
                                                                                : row->rule;
    return v;
}

void tlsneg_verdict_add_link(tlsneg_verdict *v, tlsneg_link_role r, uint32_t frame)
{
    if (v->num_links < TLSNEG_VERDICT_LINKS) {
        v->link[v->num_links].role = (uint8_t)r;
        v->link[v->num_links++].frame = frame;
    }
}

void tlsneg_verdict_add_version(tlsneg_verdict *v, tlsneg_version_role r, uint16_t version)
{
    if (v->num_versions < TLSNEG_VERDICT_VERSIONS) {
        v->version[v->num_versions].role = (uint8_t)r;
        v->version[v->num_versions++].version = version;
    }
}

void tlsneg_verdict_add_text(tlsneg_verdict *v, tlsneg_text_role r, const char *text)
{
    if (v->num_texts < TLSNEG_VERDICT_TEXTS) {
        tlsneg_text *t = &v->text[v->num_texts++];
        t->role = (uint8_t)r;
        tlsneg_strlcpy(t->text, sizeof t->text, text);
    }
}

void tlsneg_verdict_sentence(tlsneg_verdict *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->detail, sizeof v->detail, fmt, ap);
    va_end(ap);
}

/* in_mask: each of the n roles is declared in mask, once. */
static bool in_mask(uint32_t mask, const uint8_t *roles, size_t stride, size_t n)
{
    uint32_t seen = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t r = roles[i * stride];
        if (r >= 32 || !(mask & (1u << r)) || (seen & (1u << r))) {
            return false;
        }
        seen |= 1u << r;
    }
    return true;
}

bool tlsneg_verdict_well_formed(const tlsneg_verdict *v)
{
    if ((size_t)v->kind >= TLSNEG_VERDICT_KINDS) {
        return false;
    }
    const tlsneg_verdict_row *row = &tlsneg_verdict_rows[v->kind];
    return (v->rule == row->rule || v->rule == row->variant) &&
           v->num_links <= TLSNEG_VERDICT_LINKS && v->num_versions <= TLSNEG_VERDICT_VERSIONS &&
           v->num_texts <= TLSNEG_VERDICT_TEXTS &&
           in_mask(row->links, &v->link[0].role, sizeof v->link[0], v->num_links) &&
           in_mask(row->versions, &v->version[0].role, sizeof v->version[0], v->num_versions) &&
           in_mask(row->texts, &v->text[0].role, sizeof v->text[0], v->num_texts) &&
           (row->chain != TLSNEG_CHAIN_NO_CHAIN || v->chain_len == 0);
}

/* ---- reading a list ---------------------------------------------------- */

const tlsneg_verdict *tlsneg_verdict_find(const tlsneg_verdicts *vs, tlsneg_verdict_kind k)
{
    for (size_t i = 0; i < vs->count; i++) {
        if (vs->item[i].kind == k) {
            return &vs->item[i];
        }
    }
    return NULL;
}

/* link_frame returns the frame of the n links l in role r, or 0: for a
 * verdict and a kept one. */
static uint32_t link_frame(const tlsneg_link *l, size_t n, tlsneg_link_role r)
{
    for (size_t i = 0; i < n; i++) {
        if (l[i].role == r) {
            return l[i].frame;
        }
    }
    return 0;
}

uint32_t tlsneg_verdict_link(const tlsneg_verdict *v, tlsneg_link_role r)
{
    return link_frame(v->link, v->num_links, r);
}

bool tlsneg_verdict_version(const tlsneg_verdict *v, tlsneg_version_role r, uint16_t *out)
{
    for (size_t i = 0; i < v->num_versions; i++) {
        if (v->version[i].role == r) {
            *out = v->version[i].version;
            return true;
        }
    }
    return false;
}

const char *tlsneg_verdict_text(const tlsneg_verdict *v, tlsneg_text_role r)
{
    for (size_t i = 0; i < v->num_texts; i++) {
        if (v->text[i].role == r) {
            return v->text[i].text;
        }
    }
    return NULL;
}

void tlsneg_verdict_keep(tlsneg_kept_verdict *dst, const tlsneg_verdict *v, const char *note,
                         const char *(*keep_text)(void *ctx, const char *text), void *ctx)
{
    memset(dst, 0, sizeof *dst);
    dst->kind = v->kind;
    dst->note = note;
    dst->probe = v->probe;
    dst->num_links = v->num_links;
    dst->num_versions = v->num_versions;
    dst->num_texts = v->num_texts;
    memcpy(dst->link, v->link, sizeof v->link);
    memcpy(dst->version, v->version, sizeof v->version);
    for (unsigned t = 0; t < v->num_texts && t < TLSNEG_VERDICT_TEXTS; t++) {
        dst->text[t].role = v->text[t].role;
        dst->text[t].text = keep_text(ctx, v->text[t].text);
    }
}

const tlsneg_kept_verdict *tlsneg_kept_find(const tlsneg_kept_verdict *vs, size_t n,
                                            tlsneg_verdict_kind k)
{
    for (size_t i = 0; i < n; i++) {
        if (vs[i].kind == k) {
            return &vs[i];
        }
    }
    return NULL;
}

uint32_t tlsneg_kept_link(const tlsneg_kept_verdict *v, tlsneg_link_role r)
{
    return link_frame(v->link, v->num_links, r);
}

const char *tlsneg_kept_text(const tlsneg_kept_verdict *v, tlsneg_text_role r)
{
    for (size_t i = 0; i < v->num_texts; i++) {
        if (v->text[i].role == r) {
            return v->text[i].text;
        }
    }
    return NULL;
}

void tlsneg_verdict_findings(const tlsneg_verdicts *vs, tlsneg_findings *out)
{
    for (size_t i = 0; i < vs->count; i++) {
        if (!vs->item[i].silent) {
            tlsneg_finding_add(out, vs->item[i].rule, "%s", vs->item[i].detail);
        }
    }
}
