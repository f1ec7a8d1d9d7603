/* SPDX-License-Identifier: GPL-2.0-or-later */
/* writers.h: the three writers behind output.h. The JSON lines write each
 * message's records into a line buffer as it passes (the caller writes the
 * buffer out); the CSV and the report write the totals at the end. */
#ifndef TLSNEG_WRITERS_H
#define TLSNEG_WRITERS_H

#include <stdio.h>

#include "report/buf.h"
#include "report/output.h"
#include "report/totals.h"

/* jsonl.c */
void tlsneg_jsonl_header(FILE *out);
void tlsneg_jsonl_message(tlsneg_buf *out, const tlsneg_out_frame *fr, const tlsneg_out_msg *m);
void tlsneg_jsonl_close(tlsneg_buf *out, const tlsneg_out_frame *fr, uint8_t cause,
                        bool from_client, uint32_t attempt_frame, const char *sni);
/* tlsneg_jsonl_end writes the probe records, line by line through out. */
void tlsneg_jsonl_end(const tlsneg_totals *t, tlsneg_buf *out, FILE *f);

/* csv.c: the CSV table, one row per server, rows built in row. */
void tlsneg_csv_write(const tlsneg_totals *t, tlsneg_buf *row, FILE *f);

/* report.c: the report for people. */
void tlsneg_report_write(const tlsneg_totals *t, FILE *f);

#endif
