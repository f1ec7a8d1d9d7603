/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run.h: tlsneg-pcap's drivers: a capture file read on one thread or two
 * (run.c), a live capture (live.c), and the signals that stop either.
 * Internal to tlsneg-pcap. */
#ifndef TLSNEG_PCAP_RUN_H
#define TLSNEG_PCAP_RUN_H

#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"
#include "packets.h"

/* What the command line asked of the drivers. */
typedef struct {
    tlsneg_pcap_config cfg;    /* the packet path's */
    bool events;               /* --events */
    bool stats;                /* --stats */
    bool show_progress;        /* the progress line */
    uint32_t threads;          /* --threads: 2 reads a file on two threads (evqueue.h) */
    uint32_t shard_k, shard_n; /* --shard K/N; N = 0: every client */
    const char *drop_user;     /* -Z */
} tlsneg_run_options;

/* tlsneg_run_file reads one capture, the file_no-th on the command line,
 * its frames numbered on from *frame_base (which it moves past them), into
 * a (or NULL); returns 0, 1 (read, but cut short or with a read error) or
 * 2 (not readable at all). */
int tlsneg_run_file(const char *path, uint32_t file_no, uint32_t *frame_base, tlsneg_analysis *a,
                    const tlsneg_run_options *o);

/* tlsneg_run_live captures on iface with the BPF filter (may be empty)
 * until SIGINT or SIGTERM; returns 0, 1 (the capture failed on the way) or
 * 2 (it could not start). */
int tlsneg_run_live(const char *iface, const char *filter, tlsneg_analysis *a,
                    const tlsneg_run_options *o);

/* tlsneg_run_catch_signals makes SIGINT and SIGTERM stop the run cleanly. */
void tlsneg_run_catch_signals(void);

/* tlsneg_run_stopped: a signal asked the run to stop. */
bool tlsneg_run_stopped(void);

/* tlsneg_run_set_live: the live capture a signal breaks out of, or NULL. */
void tlsneg_run_set_live(pcap_t *pc);

#endif
