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
#include "report/output.h"

/* One server's counts. */
typedef struct {
    unsigned pq;                 /* ServerHellos that selected a post-quantum or hybrid group */
    unsigned classical;          /* ServerHellos that selected a classical (EC or FFDHE) group */
    unsigned pq_offers;          /* ClientHellos whose supported_groups list a post-quantum group */
    unsigned classical_while_pq; /* ServerHellos (of pq + classical) that selected a classical
                                    group although their connection's ClientHello offered a
                                    post-quantum one */
} tlsneg_kx_counts;

/* Which recent connections' ClientHellos offered a post-quantum group, to
 * tell it to their ServerHello: a fixed table (a connection pushed out by
 * another one of the same slot is not told, and its ServerHello not
 * counted as classical_while_pq). */
#define TLSNEG_KX_SLOTS 1024
typedef struct {
    uint8_t client[16], server[16];
    uint16_t client_port, server_port;
    uint8_t len; /* 4 or 16; 0: empty */
    bool pq_offered;
} tlsneg_kx_slot;

typedef struct {
    tlsneg_kx_slot *slot; /* TLSNEG_KX_SLOTS of them, or NULL until the first ClientHello */
} tlsneg_kx_links;

void tlsneg_kx_links_free(tlsneg_kx_links *l);

/* tlsneg_kx_client_hello counts the ClientHello f sent from client to
 * server; tlsneg_kx_server_hello the ServerHello f sent from server to
 * client (not a HelloRetryRequest). */
void tlsneg_kx_client_hello(tlsneg_kx_links *l, tlsneg_kx_counts *c, const tlsneg_out_addr *client,
                            const tlsneg_out_addr *server, const tlsneg_facts *f);
void tlsneg_kx_server_hello(tlsneg_kx_links *l, tlsneg_kx_counts *c, const tlsneg_out_addr *client,
                            const tlsneg_out_addr *server, const tlsneg_facts *f);

/* tlsneg_findings_named sums the counts of every rule (and variant) whose
 * finding is name: 0 when rules.def has no such rule. */
unsigned tlsneg_findings_named(const unsigned *findings, const char *name);

/* The rules of the cross-connection findings that say a server fails
 * post-quantum key exchange or a split ClientHello (rules.def), ended by
 * TLSNEG_RULE_COUNT; the readiness section lists each server with any of
 * them, by the rule's finding name. */
extern const tlsneg_rule_id tlsneg_pq_failure_rules[];

#endif
