/* SPDX-License-Identifier: GPL-2.0-or-later */
/* consume.h: what tlsneg-pcap does with each event the packet path finds,
 * on one thread or on the analysing one of two (evqueue.h): the --shard
 * filter, the analysis (analysis.h), --events (each event as a line of
 * replay/events.h). Internal to tlsneg-pcap. */
#ifndef TLSNEG_PCAP_CONSUME_H
#define TLSNEG_PCAP_CONSUME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis.h"
#include "packets.h"

/* The consumer of one file's (or one live capture's) events. */
typedef struct {
    uint32_t file_no; /* the file's place on the command line: keeps connection ids apart */
    bool events;      /* --events */
    uint32_t shard_k, shard_n; /* --shard K/N; N = 0: every client */
    FILE *out;
    tlsneg_analysis *analysis; /* or NULL: nothing to analyse */
    tlsneg_prepared prep;      /* with one thread: the event's prepared parse */
    /* Written once an event, by the analysing thread: away from what the
     * packet path's reads (the shard), past prep. */
    uint32_t seen; /* events */
} tlsneg_consumer;

/* tlsneg_consume_prepare frames and parses a handshake event's hello for
 * the analysis: a tlsneg_evqueue_prep_fn, with two threads on the packet
 * path's. It reads nothing the analysing thread writes. */
void tlsneg_consume_prepare(void *consumer, const tlsneg_ev *ev, void *prep);

/* tlsneg_consume handles an event on the analysing thread: a
 * tlsneg_evqueue_fn; prep is a handshake event's prepared parse. */
void tlsneg_consume(void *consumer, const tlsneg_ev *ev, void *prep);

/* tlsneg_consume_now is both on one thread: a tlsneg_pcap_event_fn. */
void tlsneg_consume_now(void *consumer, const tlsneg_ev *ev);

#endif
