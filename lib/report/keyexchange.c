/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keyexchange.c: the key-exchange counts of keyexchange.h. */
#include "report/keyexchange.h"

#include <stdlib.h>
#include <string.h>

#include "core/groups.h"

const tlsneg_rule_id tlsneg_pq_failure_rules[] = {
    TLSNEG_RULE_KEY_SHARE_INTOLERANCE,
    TLSNEG_RULE_KEY_SHARE_FALLBACK,
    TLSNEG_RULE_KEY_EXCHANGE_INCONSISTENT,
    TLSNEG_RULE_COUNT,
};

void tlsneg_kx_links_free(tlsneg_kx_links *l)
{
    free(l->slot);
    l->slot = NULL;
}

static uint32_t hash_bytes(uint32_t h, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 16777619u;
    }
    return h;
}

/* slot_of returns the slot of the connection client-server, or NULL for
 * an address that is neither IPv4 nor IPv6. */
static tlsneg_kx_slot *slot_of(tlsneg_kx_links *l, const tlsneg_out_addr *client,
                               const tlsneg_out_addr *server)
{
    if (!l->slot || client->text || server->text || (client->len != 4 && client->len != 16) ||
        client->len != server->len) {
        return NULL;
    }
    uint32_t h = hash_bytes(2166136261u, client->bytes, client->len);
    h = hash_bytes(h, server->bytes, server->len);
    h ^= (uint32_t)client->port << 16 | server->port;
    h *= 16777619u;
    return &l->slot[h % TLSNEG_KX_SLOTS];
}

static bool slot_is(const tlsneg_kx_slot *s, const tlsneg_out_addr *client,
                    const tlsneg_out_addr *server)
{
    return s->len == client->len && s->client_port == client->port &&
           s->server_port == server->port && memcmp(s->client, client->bytes, s->len) == 0 &&
           memcmp(s->server, server->bytes, s->len) == 0;
}

void tlsneg_kx_client_hello(tlsneg_kx_links *l, tlsneg_kx_counts *c, const tlsneg_out_addr *client,
                            const tlsneg_out_addr *server, const tlsneg_facts *f)
{
    c->pq_offers += f->pq_offered ? 1u : 0u;
    if (!l->slot) {
        l->slot = calloc(TLSNEG_KX_SLOTS, sizeof *l->slot);
    }
    tlsneg_kx_slot *s = slot_of(l, client, server);
    if (!s) {
        return;
    }
    s->len = (uint8_t)client->len;
    memcpy(s->client, client->bytes, client->len);
    memcpy(s->server, server->bytes, server->len);
    s->client_port = client->port;
    s->server_port = server->port;
    s->pq_offered = f->pq_offered;
}

void tlsneg_kx_server_hello(tlsneg_kx_links *l, tlsneg_kx_counts *c, const tlsneg_out_addr *client,
                            const tlsneg_out_addr *server, const tlsneg_facts *f)
{
    if (!f->has_group_selected) {
        return;
    }
    tlsneg_gclass k = tlsneg_named_group_class(f->group_selected);
    if (f->pq_selected) {
        c->pq++;
        return;
    }
    if (k != TLSNEG_GCLASS_CLASSICAL && k != TLSNEG_GCLASS_FFDHE) {
        return;
    }
    c->classical++;
    const tlsneg_kx_slot *s = slot_of(l, client, server);
    if (s && slot_is(s, client, server) && s->pq_offered) {
        c->classical_while_pq++;
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
