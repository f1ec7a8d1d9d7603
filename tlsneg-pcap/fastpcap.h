/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fastpcap.h: a plain pcap file (not compressed) read past libpcap and stdio
 * once libpcap has opened it: large reads into one buffer, each record
 * handed on where it lies. Only records libpcap would hand on unchanged: a
 * version 2.4 file, a link type libpcap does not rewrite, a record no longer
 * than the snapshot length; at anything else (and at a cut record) the file
 * is positioned at that record and libpcap reads on, with its own messages.
 * What it buys: libpcap copies each record into its own buffer through
 * stdio's; this hands on the bytes where a 256 KB read put them (a buffer
 * that small is faulted in once and stays in the cache: 2 % less time than
 * 1 MB on bench 10k, one thread). Internal to tlsneg-pcap. */
#ifndef TLSNEG_PCAP_FASTPCAP_H
#define TLSNEG_PCAP_FASTPCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    bool on; /* reading past libpcap */
    bool swapped, nsec;
    bool eof;
    int fd;
    FILE *f; /* libpcap's stream, positioned at the record not read when it stops */
    int linktype;
    uint32_t snap;
    uint8_t *buf;
    size_t pos, end;
    long long off; /* of buf[0] in the file */
} tlsneg_fastpcap;

/* tlsneg_fastpcap_open starts reading f past libpcap if the file allows it
 * (fr->on tells); snap is libpcap's snapshot length, linktype its link
 * type. */
void tlsneg_fastpcap_open(tlsneg_fastpcap *fr, FILE *f, int snap, int linktype);

/* tlsneg_fastpcap_next reads the next record: its link type, time
 * (microseconds), bytes (valid until the next call), captured and wire
 * lengths. Returns 0 for a record, 1 at the end of the file, or -1 when
 * libpcap is to read on (from the record not read: fr->on is then false). */
int tlsneg_fastpcap_next(tlsneg_fastpcap *fr, int *link, uint64_t *t, const uint8_t **data,
                         uint32_t *caplen, uint32_t *len);

/* tlsneg_fastpcap_pos: the file position of the record not read yet, or -1
 * when libpcap reads. */
long long tlsneg_fastpcap_pos(const tlsneg_fastpcap *fr);

/* tlsneg_fastpcap_close frees the buffer. */
void tlsneg_fastpcap_close(tlsneg_fastpcap *fr);

#endif
