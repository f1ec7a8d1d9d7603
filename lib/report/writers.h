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

/* jsonl.c. The endpoints and SNI of the last record, as JSON: most records
 * follow one of the same connection, and copy them instead of writing them
 * again (an address's text, two ports and the SNI's escape are most of a
 * record's common fields). Zeroed: empty; tlsneg_jsonl_ends_free lets go. */
typedef struct {
    tlsneg_buf text; /* ,"client":"10.0.0.1","client_port":N,...,"sni":... */
    bool valid;      /* text holds the values below */
    uint8_t client[16], server[16];
    size_t client_len, server_len;
    uint16_t client_port, server_port;
    bool has_sni;
    char sni[TLSNEG_MAX_SNI + 1];
} tlsneg_jsonl_ends;

void tlsneg_jsonl_ends_free(tlsneg_jsonl_ends *c);
void tlsneg_jsonl_header(FILE *out);
void tlsneg_jsonl_message(tlsneg_buf *out, tlsneg_jsonl_ends *ends, const tlsneg_out_frame *fr,
                          const tlsneg_out_msg *m);
void tlsneg_jsonl_close(tlsneg_buf *out, tlsneg_jsonl_ends *ends, const tlsneg_out_frame *fr,
                        uint8_t cause, bool from_client, uint32_t attempt_frame, const char *sni);
/* tlsneg_jsonl_end writes the probe records, line by line through out. */
void tlsneg_jsonl_end(const tlsneg_totals *t, tlsneg_buf *out, FILE *f);

/* csv.c: the CSV table, one row per server, rows built in row. */
void tlsneg_csv_write(const tlsneg_totals *t, tlsneg_buf *row, FILE *f);

/* report.c: the report for people. */
void tlsneg_report_write(const tlsneg_totals *t, FILE *f);

#endif
