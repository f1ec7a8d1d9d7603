/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pcapng.h: a reader for pcapng files whose interfaces differ in link type
 * or snapshot length (libpcap 1.10 refuses those: "an interface has a
 * snapshot length ... different from ... the first interface"). Reads
 * Section Header, Interface Description (with if_tsresol and if_tsoffset),
 * Enhanced, Simple and obsolete Packet blocks, in either byte order, and
 * skips every other block. */
#ifndef TLSNEG_PCAP_PCAPNG_H
#define TLSNEG_PCAP_PCAPNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TLSNEG_PCAPNG_MAGIC 0x0a0d0d0au

typedef struct {
    int linktype;
    uint32_t snaplen;
    uint64_t units_per_s; /* of its timestamps */
    int64_t offset_s;     /* if_tsoffset */
} tlsneg_pcapng_iface;

typedef struct {
    FILE *f;
    bool started;
    bool swap; /* the section is big-endian */
    size_t num_ifaces;
    tlsneg_pcapng_iface *ifaces;
    uint8_t *buf;
    size_t buf_cap;
    char err[160];
    /* the packet read last */
    int linktype;
    uint64_t time_us;
    const uint8_t *data;
    uint32_t caplen, len;
} tlsneg_pcapng;

typedef enum {
    TLSNEG_PCAPNG_PACKET,
    TLSNEG_PCAPNG_END,
    TLSNEG_PCAPNG_TRUNCATED, /* the file ends inside a block */
    TLSNEG_PCAPNG_BAD,       /* a block that makes no sense (err says why) */
} tlsneg_pcapng_status;

/* tlsneg_pcapng_open starts reading f, whose first 4 bytes (the block type
 * of the Section Header Block) have already been read. */
void tlsneg_pcapng_open(tlsneg_pcapng *r, FILE *f);

/* tlsneg_pcapng_next reads up to the next packet. */
tlsneg_pcapng_status tlsneg_pcapng_next(tlsneg_pcapng *r);

void tlsneg_pcapng_close(tlsneg_pcapng *r);

#endif
