/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reader.h: a capture file read packet by packet: pcap files through
 * libpcap (and past it, fastpcap.h), pcapng files through tlsneg's own
 * reader (pcapng.h: libpcap 1.10 refuses pcapng files whose interfaces
 * differ in link type or snapshot length), either gzip-compressed
 * (input.h). Internal to tlsneg-pcap. */
#ifndef TLSNEG_PCAP_READER_H
#define TLSNEG_PCAP_READER_H

#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "fastpcap.h"
#include "pcapng.h"

typedef struct {
    pcap_t *pc;
    FILE *f;
    pid_t child; /* the gzip -dc process, or 0 */
    bool is_ng;
    tlsneg_pcapng ng;
    int linktype;
    tlsneg_fastpcap fast;
    char err[PCAP_ERRBUF_SIZE + 160];
} tlsneg_reader;

/* What tlsneg_reader_next says. */
enum { TLSNEG_READ_PACKET, TLSNEG_READ_END, TLSNEG_READ_CUT, TLSNEG_READ_ERROR };

/* tlsneg_reader_open opens the capture at path into r (zeroed by it);
 * false when it cannot be read at all, said on standard error. A link type
 * the packet path does not read is said there too. */
bool tlsneg_reader_open(tlsneg_reader *r, const char *path);

/* tlsneg_reader_next reads the next packet: its link type, time
 * (microseconds), bytes (valid until the next call), captured and wire
 * lengths. TLSNEG_READ_PACKET, or at the end TLSNEG_READ_END, TLSNEG_READ_CUT
 * (the file is cut short) or TLSNEG_READ_ERROR, with the reason in r->err. */
int tlsneg_reader_next(tlsneg_reader *r, int *link, uint64_t *t, const uint8_t **data,
                       uint32_t *caplen, uint32_t *len);

/* tlsneg_reader_pos: the position in the file of the packet not read yet,
 * -1 when it cannot be told past stdio (ask ftell on r->f then). */
long long tlsneg_reader_pos(const tlsneg_reader *r);

/* tlsneg_reader_close closes the capture; the gzip process's wait status
 * goes to *out_status (0 without one). */
void tlsneg_reader_close(tlsneg_reader *r, int *out_status);

#endif
