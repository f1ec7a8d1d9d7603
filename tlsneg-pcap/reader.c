/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reader.c: capture files read packet by packet (reader.h). */
#define _DEFAULT_SOURCE 1

#include "reader.h"

#include <string.h>
#include <sys/wait.h>

#include "input.h"
#include "packets.h"

/* open_pcap hands r->f, at its start, to libpcap. */
static bool open_pcap(tlsneg_reader *r, const char *path)
{
    char perr[PCAP_ERRBUF_SIZE];
    r->pc = pcap_fopen_offline_with_tstamp_precision(r->f, PCAP_TSTAMP_PRECISION_MICRO, perr);
    if (!r->pc) {
        fprintf(stderr, "tlsneg-pcap: %s: not a capture tlsneg-pcap can read: %s\n", path, perr);
        tlsneg_input_close(r->f, r->child, NULL);
        return false;
    }
    r->linktype = pcap_datalink(r->pc);
    if (!r->child) {
        tlsneg_fastpcap_open(&r->fast, r->f, pcap_snapshot(r->pc), r->linktype);
    }
    if (!tlsneg_pcap_link_supported(r->linktype)) {
        const char *ln = pcap_datalink_val_to_name(r->linktype);
        fprintf(stderr, "tlsneg-pcap: %s: link type %d (%s) is not one tlsneg-pcap reads\n", path,
                r->linktype, ln ? ln : "unknown");
    }
    return true;
}

bool tlsneg_reader_open(tlsneg_reader *r, const char *path)
{
    memset(r, 0, sizeof *r);
    char err[PCAP_ERRBUF_SIZE + 64];
    r->f = tlsneg_input_open(path, &r->child, err, sizeof err);
    if (!r->f) {
        fprintf(stderr, "tlsneg-pcap: %s: cannot open: %s\n", path, err);
        return false;
    }
    uint8_t magic[4];
    if (fread(magic, 1, 4, r->f) == 4 && memcmp(magic, "\x0a\x0d\x0d\x0a", 4) == 0) {
        r->is_ng = true;
        tlsneg_pcapng_open(&r->ng, r->f);
        return true;
    }
    /* libpcap reads from the start: rewind, or decompress again. */
    if (r->child) {
        tlsneg_input_close(r->f, r->child, NULL);
        r->f = tlsneg_input_open(path, &r->child, err, sizeof err);
        if (!r->f) {
            fprintf(stderr, "tlsneg-pcap: %s: cannot open: %s\n", path, err);
            return false;
        }
    } else {
        rewind(r->f);
    }
    return open_pcap(r, path);
}

static int next_pcapng(tlsneg_reader *r, int *link, uint64_t *t, const uint8_t **data,
                       uint32_t *caplen, uint32_t *len)
{
    switch (tlsneg_pcapng_next(&r->ng)) {
    case TLSNEG_PCAPNG_PACKET:
        *link = r->ng.linktype;
        *t = r->ng.time_us;
        *data = r->ng.data;
        *caplen = r->ng.caplen;
        *len = r->ng.len;
        return TLSNEG_READ_PACKET;
    case TLSNEG_PCAPNG_END:
        return TLSNEG_READ_END;
    case TLSNEG_PCAPNG_TRUNCATED:
        snprintf(r->err, sizeof r->err, "the file ends inside a block");
        return TLSNEG_READ_CUT;
    case TLSNEG_PCAPNG_BAD:
        snprintf(r->err, sizeof r->err, "%s", r->ng.err);
        return TLSNEG_READ_ERROR;
    }
    return TLSNEG_READ_ERROR;
}

int tlsneg_reader_next(tlsneg_reader *r, int *link, uint64_t *t, const uint8_t **data,
                       uint32_t *caplen, uint32_t *len)
{
    if (r->is_ng) {
        return next_pcapng(r, link, t, data, caplen, len);
    }
    if (r->fast.on) {
        int x = tlsneg_fastpcap_next(&r->fast, link, t, data, caplen, len);
        if (x >= 0) {
            return x == 0 ? TLSNEG_READ_PACKET : TLSNEG_READ_END;
        }
    }
    struct pcap_pkthdr *h;
    const u_char *d;
    int x = pcap_next_ex(r->pc, &h, &d);
    if (x == 1) {
        *link = r->linktype;
        *t = (uint64_t)h->ts.tv_sec * 1000000u + (uint64_t)h->ts.tv_usec;
        *data = d;
        *caplen = h->caplen;
        *len = h->len;
        return TLSNEG_READ_PACKET;
    }
    if (x == PCAP_ERROR_BREAK) {
        return TLSNEG_READ_END;
    }
    snprintf(r->err, sizeof r->err, "%s", pcap_geterr(r->pc));
    return strstr(r->err, "truncated") ? TLSNEG_READ_CUT : TLSNEG_READ_ERROR;
}

long long tlsneg_reader_pos(const tlsneg_reader *r)
{
    return tlsneg_fastpcap_pos(&r->fast);
}

void tlsneg_reader_close(tlsneg_reader *r, int *out_status)
{
    int ws = 0;
    if (r->is_ng) {
        tlsneg_pcapng_close(&r->ng);
        tlsneg_input_close(r->f, r->child, &ws);
    } else {
        tlsneg_fastpcap_close(&r->fast);
        pcap_close(r->pc); /* closes f */
        if (r->child) {
            waitpid(r->child, &ws, 0);
        }
    }
    if (out_status) {
        *out_status = ws;
    }
}
