/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.h: what tlsneg-pcap tells on standard error as it reads: the
 * progress line, the packet path's counters (--stats), the link types it
 * did not read. Internal to tlsneg-pcap. */
#ifndef TLSNEG_PCAP_STATS_H
#define TLSNEG_PCAP_STATS_H

#include <stdbool.h>
#include <stdio.h>

#include "packets.h"

/* The progress line of one file. */
typedef struct {
    bool enabled;
    double start, last;
    long long size; /* of the file, or -1 */
    FILE *file;     /* to ask the position, or NULL */
    long long pos;  /* the position when the file is read past stdio, or -1 */
} tlsneg_progress;

/* tlsneg_progress_start: the progress line of the file at path, read
 * through f (NULL: its position cannot be asked); shown if enabled. */
void tlsneg_progress_start(tlsneg_progress *pr, bool enabled, const char *path, FILE *f);

/* tlsneg_progress_show rewrites the line (at most twice a second, unless
 * final: then it ends it). */
void tlsneg_progress_show(tlsneg_progress *pr, const tlsneg_pcap_stats *st, bool final);

/* tlsneg_stats_print: the packet path's counters (--stats). */
void tlsneg_stats_print(const char *name, const tlsneg_pcap_stats *st);

/* tlsneg_stats_unknown_links names the link types not read, with their
 * frame counts. */
void tlsneg_stats_unknown_links(const char *name, const tlsneg_pcap_stats *st);

#endif
