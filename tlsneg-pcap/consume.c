/* SPDX-License-Identifier: GPL-2.0-or-later */
/* consume.c: each event of the packet path, filtered, analysed, printed
 * (consume.h). */
#include "consume.h"

#include "heap.h"
#include "shard.h"

/* in_shard: ev's client is in this run's shard (--shard), or every client
 * is. */
static bool in_shard(const tlsneg_consumer *r, const tlsneg_ev *ev)
{
    const uint8_t *client = ev->sender == TLSNEG_SENDER_CLIENT ? ev->src : ev->dst;
    return !r->shard_n || tlsneg_shard_of(client, ev->addr_len, r->shard_n) == r->shard_k;
}

void tlsneg_consume_prepare(void *consumer, const tlsneg_ev *ev, void *prep)
{
    tlsneg_prepared *p = prep;
    if (!in_shard(consumer, ev)) {
        p->framed = false;
        return;
    }
    tlsneg_analysis_prepare(ev, p);
}

void tlsneg_consume(void *consumer, const tlsneg_ev *ev, void *prep)
{
    tlsneg_consumer *r = consumer;
    if ((++r->seen & 0xff) == 0) {
        tlsneg_heap_advise(); /* here: the thread whose heap holds the analysis */
    }
    if (!in_shard(r, ev)) {
        return;
    }
    if (r->analysis) {
        tlsneg_analysis_event(r->analysis, r->file_no, ev, prep);
    }
    if (r->events) {
        tlsneg_ev_write(r->out, ev);
    }
}

void tlsneg_consume_now(void *consumer, const tlsneg_ev *ev)
{
    tlsneg_consumer *r = consumer;
    tlsneg_prepared *p = NULL;
    if (ev->kind == TLSNEG_EV_HELLO && r->analysis) {
        p = &r->prep;
        tlsneg_consume_prepare(r, ev, p);
    }
    tlsneg_consume(r, ev, p);
}
