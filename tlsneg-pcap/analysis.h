/* SPDX-License-Identifier: GPL-2.0-or-later */
/* analysis.h: what tlsneg-pcap does with the packet path's events: one
 * session layer for the run (the files read as one capture, in the order
 * given, as mergecap -a would join them, their frames numbered on), with
 * the plugin's default preferences (500,000 attempts, a 30-second window,
 * SNI in the key); a table of what it keeps per connection; the outputs
 * (--jsonl, --csv, --report, through report/output.h); the ladder
 * (--ladder, --ladder-svg, through report/ladder.h); and --trace's text
 * (trace.h). Internal to tlsneg-pcap. */
#ifndef TLSNEG_PCAP_ANALYSIS_H
#define TLSNEG_PCAP_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/session.h"
#include "packets.h"

/* The ladder asked for: none, text (--ladder, as tshark -z tlsneg,ladder)
 * or SVG (--ladder-svg, as -z tlsneg,ladder-svg). */
typedef enum {
    TLSNEG_PCAP_LADDER_NONE,
    TLSNEG_PCAP_LADDER_TEXT,
    TLSNEG_PCAP_LADDER_SVG,
} tlsneg_pcap_ladder;

typedef struct {
    bool trace;                /* --trace */
    tlsneg_pcap_ladder ladder; /* --ladder, --ladder-svg */
    uint32_t max_attempts;     /* --max-attempts: the tracker's cap */
    bool want[3];              /* the outputs, by tlsneg_out_format */
} tlsneg_analysis_config;

/* What a handshake event's bytes alone tell: worked out by
 * tlsneg_analysis_prepare (with two threads, on the packet path's). */
typedef struct {
    bool framed; /* a hello, framed by the core: parsed is filled */
    tlsneg_parsed parsed;
} tlsneg_prepared;

typedef struct tlsneg_analysis tlsneg_analysis;

/* tlsneg_analysis_new starts the analysis and writes the outputs' headers
 * on out (where everything goes). NULL when out of memory. */
tlsneg_analysis *tlsneg_analysis_new(const tlsneg_analysis_config *cfg, FILE *out);

/* tlsneg_analysis_end writes what the outputs know only at the end (the
 * probes of the JSON lines, the CSV, the report, then the ladder), also
 * after Ctrl-C, and frees a. */
void tlsneg_analysis_end(tlsneg_analysis *a);

/* tlsneg_analysis_prepare frames and parses a handshake event's hello: it
 * reads nothing but ev, so it may run on the packet path's thread. */
void tlsneg_analysis_prepare(const tlsneg_ev *ev, tlsneg_prepared *p);

/* tlsneg_analysis_event feeds one event of the file_no-th file to the
 * session layer and hands what it says to the outputs (and --trace).
 * prep: a handshake event's prepared parse. */
void tlsneg_analysis_event(tlsneg_analysis *a, uint32_t file_no, const tlsneg_ev *ev,
                           const tlsneg_prepared *prep);

/* tlsneg_analysis_print_stats says on standard error how many connections
 * a keeps now and kept at most, and the tracker's attempts and bytes
 * (--stats); nothing if a is NULL. */
void tlsneg_analysis_print_stats(const tlsneg_analysis *a, const char *name);

#endif
