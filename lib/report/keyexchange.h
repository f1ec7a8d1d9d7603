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
    /* HelloRetryRequests by what the analysis says of them (their findings,
     * rules.def): asking for another group than the one the client
     * predicted with a key share (hrr_lacks_predicted), moving a client that
     * shared only classical groups to post-quantum (hrr_moves_to_pq); the
     * rest (hrrs - both) ask for something else (a cookie, a group shared
     * or not listed) or answer a hello that predicted no group. */
    unsigned hrr_lacks_predicted, hrr_moves_to_pq;
    /* The groups they asked for (the first TLSNEG_KX_HRR_GROUPS distinct),
     * each with its count. */
    uint16_t hrr_group[4];
    unsigned hrr_group_count[4];
    unsigned num_hrr_groups;
} tlsneg_kx_counts;

#define TLSNEG_KX_HRR_GROUPS 4

/* tlsneg_kx_client_hello counts the ClientHello f; tlsneg_kx_server_hello
 * the ServerHello f (not a HelloRetryRequest), client_pq_offered telling
 * whether its connection's ClientHello offered a post-quantum group (the
 * session layer's tlsneg_result.client_pq_offered). */
void tlsneg_kx_client_hello(tlsneg_kx_counts *c, const tlsneg_facts *f);
void tlsneg_kx_server_hello(tlsneg_kx_counts *c, const tlsneg_facts *f, bool client_pq_offered);

/* tlsneg_kx_hrr counts the HelloRetryRequest f, whose findings include
 * hrr_lacks_predicted (lacks) or hrr_moves_to_pq (to_pq). */
void tlsneg_kx_hrr(tlsneg_kx_counts *c, const tlsneg_facts *f, bool lacks, bool to_pq);

/* tlsneg_kx_hrr_groups writes the groups the HelloRetryRequests asked for,
 * with their counts: "0x0017:1;0x11ec:2" for the CSV, else "secp256r1
 * x1, X25519MLKEM768 x2". */
void tlsneg_kx_hrr_groups(const tlsneg_kx_counts *c, bool csv, char *buf, size_t buf_len);

/* tlsneg_findings_named sums the counts of every rule (and variant) whose
 * finding is name: 0 when rules.def has no such rule. */
unsigned tlsneg_findings_named(const unsigned *findings, const char *name);

/* The rules of the cross-connection findings that say a server fails
 * post-quantum key exchange or a split ClientHello (rules.def), ended by
 * TLSNEG_RULE_COUNT; the readiness section lists each server with any of
 * them, by the rule's finding name. */
extern const tlsneg_rule_id tlsneg_pq_failure_rules[];

#endif
