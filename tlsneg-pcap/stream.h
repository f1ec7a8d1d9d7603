/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stream.h: one direction's bytes put back in order (a TCP stream from its
 * initial sequence number, a QUIC CRYPTO stream from offset 0), bounded.
 * Internal to the libpcap front end. */
#ifndef TLSNEG_PCAP_STREAM_H
#define TLSNEG_PCAP_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TLSNEG_STREAM_MAX_GAPS 8

typedef struct {
    uint64_t start, end; /* absolute offsets, end exclusive */
} tlsneg_range;

typedef struct {
    uint64_t base; /* stream offset of buf[0]: everything before was consumed */
    uint8_t *buf;  /* NULL while nothing is pending */
    uint32_t cap;  /* allocated bytes of buf */
    uint32_t have; /* contiguous bytes from buf[0] */
    uint8_t num_ahead;
    tlsneg_range ahead[TLSNEG_STREAM_MAX_GAPS]; /* bytes stored beyond a gap */
} tlsneg_stream;

typedef enum {
    TLSNEG_STREAM_IN_ORDER, /* extended the contiguous bytes */
    TLSNEG_STREAM_AHEAD,    /* stored beyond a gap */
    TLSNEG_STREAM_OLD,      /* all of it was already there */
    TLSNEG_STREAM_DROPPED,  /* beyond the limit, or too many gaps, or no memory */
} tlsneg_stream_result;

/* tlsneg_stream_add puts len bytes at stream offset off. Bytes past
 * base + limit are dropped (*dropped counts them). */
tlsneg_stream_result tlsneg_stream_add(tlsneg_stream *s, uint64_t off, const uint8_t *data,
                                       size_t len, uint32_t limit, uint64_t *dropped);

/* tlsneg_stream_consume drops the first n contiguous bytes (n <= have); the
 * buffer is freed when nothing is pending. */
void tlsneg_stream_consume(tlsneg_stream *s, uint32_t n);

void tlsneg_stream_free(tlsneg_stream *s);

#endif
