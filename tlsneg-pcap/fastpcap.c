/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fastpcap.c: plain pcap files read past libpcap (fastpcap.h). */
#define _DEFAULT_SOURCE 1

#include "fastpcap.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define FAST_BUF (256u << 10)

static uint32_t get32(const uint8_t *p, bool swapped)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return swapped ? __builtin_bswap32(v) : v;
}

static bool fast_link(int dlt, bool swapped)
{
    switch (dlt) {
    case DLT_EN10MB:
    case DLT_PPP:
    case DLT_RAW:
    case DLT_NULL:
    case DLT_LOOP:
#ifdef DLT_IPV4
    case DLT_IPV4:
#endif
#ifdef DLT_IPV6
    case DLT_IPV6:
#endif
        return true;
    case DLT_LINUX_SLL:
#ifdef DLT_LINUX_SLL2
    case DLT_LINUX_SLL2:
#endif
        return !swapped; /* libpcap swaps CAN headers in a swapped file */
    default:
        return false;
    }
}

void tlsneg_fastpcap_open(tlsneg_fastpcap *fr, FILE *f, int snap, int linktype)
{
    memset(fr, 0, sizeof *fr);
    fr->f = f;
    fr->linktype = linktype;
    fr->fd = fileno(f);
    uint8_t h[24];
    if (fr->fd < 0 || pread(fr->fd, h, sizeof h, 0) != (ssize_t)sizeof h) {
        return;
    }
    uint32_t magic;
    memcpy(&magic, h, 4);
    if (magic == 0xa1b2c3d4u || magic == 0xa1b23c4du) {
        fr->swapped = false;
    } else if (magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u) {
        fr->swapped = true;
        magic = __builtin_bswap32(magic);
    } else {
        return;
    }
    fr->nsec = magic == 0xa1b23c4du;
    uint16_t major, minor;
    memcpy(&major, h + 4, 2);
    memcpy(&minor, h + 6, 2);
    if (fr->swapped) {
        major = __builtin_bswap16(major);
        minor = __builtin_bswap16(minor);
    }
    if (major != 2 || minor != 4 || snap <= 0 || !fast_link(linktype, fr->swapped)) {
        return;
    }
    fr->buf = malloc(FAST_BUF);
    if (!fr->buf) {
        return;
    }
    fr->snap = (uint32_t)snap;
    fr->off = 24;
    fr->on = true;
}

/* fast_stop hands the file to libpcap at the record not yet read. */
static void fast_stop(tlsneg_fastpcap *fr)
{
    fr->on = false;
    if (fseeko(fr->f, (off_t)(fr->off + (long long)fr->pos), SEEK_SET) != 0) {
        /* libpcap reads on from wherever stdio is: it reports what it finds */
    }
    free(fr->buf);
    fr->buf = NULL;
}

/* fill moves the bytes not read to the buffer's start and reads more;
 * false when reading failed (libpcap is to read on). */
static bool fill(tlsneg_fastpcap *fr)
{
    size_t avail = fr->end - fr->pos;
    memmove(fr->buf, fr->buf + fr->pos, avail);
    fr->off += (long long)fr->pos;
    fr->pos = 0;
    fr->end = avail;
    ssize_t n;
    do {
        n = pread(fr->fd, fr->buf + fr->end, FAST_BUF - fr->end,
                  (off_t)(fr->off + (long long)fr->end));
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        return false;
    }
    if (n == 0) {
        fr->eof = true;
    }
    fr->end += (size_t)n;
    return true;
}

int tlsneg_fastpcap_next(tlsneg_fastpcap *fr, int *link, uint64_t *t, const uint8_t **data,
                         uint32_t *caplen, uint32_t *len)
{
    for (;;) {
        size_t avail = fr->end - fr->pos;
        if (avail >= 16) {
            const uint8_t *h = fr->buf + fr->pos;
            uint32_t cap = get32(h + 8, fr->swapped);
            if (cap > fr->snap) {
                fast_stop(fr);
                return -1;
            }
            if (avail >= 16 + (size_t)cap) {
                /* as libpcap: the seconds and the fraction are signed 32 bits */
                int32_t sec = (int32_t)get32(h, fr->swapped);
                int32_t frac = (int32_t)get32(h + 4, fr->swapped);
                if (fr->nsec) {
                    frac /= 1000;
                }
                *link = fr->linktype;
                *t = (uint64_t)(int64_t)sec * 1000000u + (uint64_t)(int64_t)frac;
                *data = h + 16;
                *caplen = cap;
                *len = get32(h + 12, fr->swapped);
                fr->pos += 16 + (size_t)cap;
                return 0;
            }
        }
        if (fr->eof) {
            if (avail == 0) {
                return 1;
            }
            fast_stop(fr); /* a cut record: libpcap says so */
            return -1;
        }
        if (!fill(fr)) {
            fast_stop(fr);
            return -1;
        }
    }
}

long long tlsneg_fastpcap_pos(const tlsneg_fastpcap *fr)
{
    return fr->on ? fr->off + (long long)fr->pos : -1;
}

void tlsneg_fastpcap_close(tlsneg_fastpcap *fr)
{
    free(fr->buf);
    fr->buf = NULL;
}
