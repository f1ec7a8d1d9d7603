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
