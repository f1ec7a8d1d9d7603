/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keyexchange.c: the key-exchange counts of keyexchange.h. */
#include "report/keyexchange.h"

#include <string.h>

#include "core/groups.h"

const tlsneg_rule_id tlsneg_pq_failure_rules[] = {
    TLSNEG_RULE_KEY_SHARE_INTOLERANCE,
    TLSNEG_RULE_KEY_SHARE_FALLBACK,
    TLSNEG_RULE_KEY_EXCHANGE_INCONSISTENT,
    TLSNEG_RULE_COUNT,
};

void tlsneg_kx_client_hello(tlsneg_kx_counts *c, const tlsneg_facts *f)
{
    c->pq_offers += f->pq_offered ? 1u : 0u;
}

void tlsneg_kx_server_hello(tlsneg_kx_counts *c, const tlsneg_facts *f, bool client_pq_offered)
{
    if (!f->has_group_selected) {
        return;
    }
    if (f->pq_selected) {
        c->pq++;
        return;
    }
    tlsneg_gclass k = tlsneg_named_group_class(f->group_selected);
    if (k != TLSNEG_GCLASS_CLASSICAL && k != TLSNEG_GCLASS_FFDHE) {
        return;
    }
    c->classical++;
    c->classical_while_pq += client_pq_offered ? 1u : 0u;
}

void tlsneg_kx_hrr(tlsneg_kx_counts *c, const tlsneg_facts *f, bool lacks, bool to_pq)
{
    c->hrr_lacks_predicted += lacks ? 1u : 0u;
    c->hrr_moves_to_pq += to_pq ? 1u : 0u;
    if (!f->has_group_selected) {
        return;
    }
    for (unsigned i = 0; i < c->num_hrr_groups; i++) {
        if (c->hrr_group[i] == f->group_selected) {
            c->hrr_group_count[i]++;
            return;
        }
    }
    if (c->num_hrr_groups < TLSNEG_KX_HRR_GROUPS) {
        c->hrr_group[c->num_hrr_groups] = f->group_selected;
        c->hrr_group_count[c->num_hrr_groups++] = 1;
    }
}

void tlsneg_kx_hrr_groups(const tlsneg_kx_counts *c, bool csv, char *buf, size_t buf_len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < c->num_hrr_groups && used < buf_len; i++) {
        char name[TLSNEG_NAMED_GROUP_TEXT_MAX];
        int n = csv ? snprintf(buf + used, buf_len - used, "%s0x%04x:%u", i ? ";" : "",
                               c->hrr_group[i], c->hrr_group_count[i])
                    : snprintf(buf + used, buf_len - used, "%s%s x%u", i ? ", " : "",
                               tlsneg_named_group_text(c->hrr_group[i], "", name, sizeof name),
                               c->hrr_group_count[i]);
        used += n > 0 ? (size_t)n : 0;
    }
}

unsigned tlsneg_findings_named(const unsigned *findings, const char *name)
{
    unsigned n = 0;
    for (int r = 0; r < TLSNEG_RULE_COUNT; r++) {
        if (strcmp(tlsneg_rules[r].finding, name) == 0) {
            n += findings[r];
        }
    }
    return n;
}
