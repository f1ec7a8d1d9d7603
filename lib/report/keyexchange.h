/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keyexchange.h: the key exchange the CSV and the report count per server
 * (docs/output-formats.md): the ServerHellos by the class of the group they
 * selected, the ClientHellos that offered a post-quantum group, and the
 * ServerHellos that selected a classical group on a connection whose
 * ClientHello offered a post-quantum one; and the report's "post-quantum
 * readiness" section built from them. */
#ifndef TLSNEG_KEYEXCHANGE_H
#define TLSNEG_KEYEXCHANGE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/rules.h"
#include "core/facts.h"

/* One server's counts. */
typedef struct {
    unsigned pq;                 /* ServerHellos that selected a post-quantum or hybrid group */
    unsigned classical;          /* ServerHellos that selected a classical (EC or FFDHE) group */
    unsigned pq_offers;          /* ClientHellos whose supported_groups list a post-quantum group */
    unsigned classical_while_pq; /* ServerHellos (of pq + classical) that selected a classical
                                    group although their connection's ClientHello offered a
                                    post-quantum one */
} tlsneg_kx_counts;

/* tlsneg_kx_client_hello counts the ClientHello f; tlsneg_kx_server_hello
 * the ServerHello f (not a HelloRetryRequest), client_pq_offered telling
 * whether its connection's ClientHello offered a post-quantum group (the
 * session layer's tlsneg_result.client_pq_offered). */
void tlsneg_kx_client_hello(tlsneg_kx_counts *c, const tlsneg_facts *f);
void tlsneg_kx_server_hello(tlsneg_kx_counts *c, const tlsneg_facts *f, bool client_pq_offered);

/* tlsneg_findings_named sums the counts of every rule (and variant) whose
 * finding is name: 0 when rules.def has no such rule. */
unsigned tlsneg_findings_named(const unsigned *findings, const char *name);

/* The rules of the cross-connection findings that say a server fails
 * post-quantum key exchange or a split ClientHello (rules.def), ended by
 * TLSNEG_RULE_COUNT; the readiness section lists each server with any of
 * them, by the rule's finding name. */
extern const tlsneg_rule_id tlsneg_pq_failure_rules[];

#endif
