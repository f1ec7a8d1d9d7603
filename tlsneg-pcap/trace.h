/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace.h: tlsneg-pcap --trace, what the session layer said of each event
 * as text (a debug format: docs/tlsneg-pcap.md). Internal to tlsneg-pcap. */
#ifndef TLSNEG_PCAP_TRACE_H
#define TLSNEG_PCAP_TRACE_H

#include <stdio.h>

#include "analysis/session.h"
#include "packets.h"

/* tlsneg_trace_progress: ev (TLSNEG_EV_PROGRESS). */
void tlsneg_trace_progress(FILE *o, const tlsneg_ev *ev);
/* tlsneg_trace_close: ev (TLSNEG_EV_FIN or TLSNEG_EV_RST) and what it ended. */
void tlsneg_trace_close(FILE *o, const tlsneg_ev *ev, const tlsneg_close_result *cx);
/* tlsneg_trace_alert: ev (TLSNEG_EV_ALERT) and its judgement x. */
void tlsneg_trace_alert(FILE *o, const tlsneg_ev *ev, const tlsneg_result *x);
/* tlsneg_trace_message: a hello and its judgement x. */
void tlsneg_trace_message(FILE *o, const tlsneg_ev *ev, const tlsneg_result *x);

#endif
