/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pcapng.c: a pcapng reader (pcapng.h). Block layouts from the pcapng
 * specification (draft-ietf-opsawg-pcapng). */
#include "pcapng.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK_SHB 0x0a0d0d0au
#define BLOCK_IDB 1u
#define BLOCK_OPB 2u /* obsolete Packet Block */
#define BLOCK_SPB 3u
#define BLOCK_EPB 6u
#define MAX_BLOCK (16u * 1024 * 1024)

void tlsneg_pcapng_open(tlsneg_pcapng *r, FILE *f)
{
    memset(r, 0, sizeof *r);
    r->f = f;
}

void tlsneg_pcapng_close(tlsneg_pcapng *r)
{
    free(r->ifaces);
    free(r->buf);
    r->ifaces = NULL;
    r->buf = NULL;
}

static uint32_t u32(const tlsneg_pcapng *r, const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    if (r->swap) {
        v = (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
    }
    return v;
}

static uint16_t u16(const tlsneg_pcapng *r, const uint8_t *p)
{
    unsigned hi = r->swap ? p[0] : p[1], lo = r->swap ? p[1] : p[0];
    return (uint16_t)(hi << 8 | lo);
}

static tlsneg_pcapng_status bad(tlsneg_pcapng *r, const char *why)
{
    snprintf(r->err, sizeof r->err, "%s", why);
    return TLSNEG_PCAPNG_BAD;
}

/* The host is little-endian in u32()'s view: "swap" means the section is
 * big-endian. */
static bool read_exact(tlsneg_pcapng *r, uint8_t *p, size_t n)
{
    return fread(p, 1, n, r->f) == n;
}

static tlsneg_pcapng_status interface(tlsneg_pcapng *r, const uint8_t *b, size_t n)
{
    if (n < 8) {
        return bad(r, "an Interface Description Block is too short");
    }
    tlsneg_pcapng_iface *grown =
        realloc(r->ifaces, (r->num_ifaces + 1) * sizeof(tlsneg_pcapng_iface));
    if (!grown) {
        return bad(r, "out of memory");
    }
    r->ifaces = grown;
    tlsneg_pcapng_iface *i = &r->ifaces[r->num_ifaces++];
    i->linktype = u16(r, b);
    i->snaplen = u32(r, b + 4);
    i->units_per_s = 1000000;
    i->offset_s = 0;
    size_t pos = 8;
    while (pos + 4 <= n) {
        uint16_t code = u16(r, b + pos), len = u16(r, b + pos + 2);
        pos += 4;
        if (code == 0 || pos + len > n) {
            break;
        }
        if (code == 9 && len >= 1) { /* if_tsresol */
            uint8_t v = b[pos];
            uint64_t units = 1;
            for (unsigned k = 0; k < (v & 0x7fu) && units < (1ull << 60); k++) {
                units *= (v & 0x80) ? 2 : 10;
            }
            i->units_per_s = units;
        } else if (code == 14 && len >= 8) { /* if_tsoffset */
            uint64_t lo = u32(r, b + pos), hi = u32(r, b + pos + 4);
            i->offset_s = r->swap ? (int64_t)(lo << 32 | hi) : (int64_t)(hi << 32 | lo);
        }
        pos += ((size_t)len + 3) & ~(size_t)3;
    }
    return TLSNEG_PCAPNG_END; /* "no packet": the caller reads on */
}

static uint64_t to_us(const tlsneg_pcapng_iface *i, uint64_t ts)
{
    uint64_t u = i->units_per_s ? i->units_per_s : 1000000;
    uint64_t s = ts / u, frac = ts % u;
    uint64_t us = s * 1000000u + (u >= 1000000 ? frac / (u / 1000000) : frac * (1000000 / u));
    return us + (uint64_t)(i->offset_s * 1000000);
}

/* section reads the rest of a Section Header Block (head: its type and
 * length as read): TLSNEG_PCAPNG_END to go on, or what stops the reading. */
static tlsneg_pcapng_status section(tlsneg_pcapng *r, const uint8_t head[8])
{
    /* A new section: its byte order from the magic after the length. */
    uint8_t magic[4];
    if (!read_exact(r, magic, 4)) {
        return TLSNEG_PCAPNG_TRUNCATED;
    }
    if (memcmp(magic, "\x4d\x3c\x2b\x1a", 4) == 0) {
        r->swap = false;
    } else if (memcmp(magic, "\x1a\x2b\x3c\x4d", 4) == 0) {
        r->swap = true;
    } else {
        return bad(r, "a Section Header Block without the byte-order magic");
    }
    uint32_t total = u32(r, head + 4);
    if (total < 28 || total % 4 || total > MAX_BLOCK) {
        return bad(r, "a Section Header Block of impossible length");
    }
    r->num_ifaces = 0;
    /* skip the rest: version, section length, options, length */
    size_t rest = total - 12;
    uint8_t skip[256];
    while (rest > 0) {
        size_t n = rest < sizeof skip ? rest : sizeof skip;
        if (!read_exact(r, skip, n)) {
            return TLSNEG_PCAPNG_TRUNCATED;
        }
        rest -= n;
    }
    return TLSNEG_PCAPNG_END;
}

/* packet reads a packet block of type (its body b, n bytes without the
 * trailing length) into r: TLSNEG_PCAPNG_PACKET, TLSNEG_PCAPNG_END for a
 * block of another type (to go on), or TLSNEG_PCAPNG_BAD. */
static tlsneg_pcapng_status packet(tlsneg_pcapng *r, uint32_t type, const uint8_t *b, size_t n)
{
    uint32_t iface, caplen, len;
    uint64_t ts;
    size_t data_at;
    if (type == BLOCK_EPB || type == BLOCK_OPB) {
        if (n < 20) {
            return bad(r, "a packet block is too short");
        }
        iface = type == BLOCK_EPB ? u32(r, b) : u16(r, b);
        ts = (uint64_t)u32(r, b + 4) << 32 | u32(r, b + 8);
        caplen = u32(r, b + 12);
        len = u32(r, b + 16);
        data_at = 20;
    } else if (type == BLOCK_SPB) {
        if (n < 4 || r->num_ifaces == 0) {
            return bad(r, "a Simple Packet Block without an interface");
        }
        iface = 0;
        ts = 0;
        len = u32(r, b);
        caplen = (uint32_t)(n - 4);
        if (len < caplen) {
            caplen = len;
        }
        if (r->ifaces[0].snaplen && caplen > r->ifaces[0].snaplen) {
            caplen = r->ifaces[0].snaplen;
        }
        data_at = 4;
    } else {
        return TLSNEG_PCAPNG_END;
    }
    if (iface >= r->num_ifaces) {
        return bad(r, "a packet of an interface not described");
    }
    if (caplen > n - data_at) {
        return bad(r, "a packet longer than its block");
    }
    r->linktype = r->ifaces[iface].linktype;
    r->time_us = to_us(&r->ifaces[iface], ts);
    r->data = b + data_at;
    r->caplen = caplen;
    r->len = len < caplen ? caplen : len;
    return TLSNEG_PCAPNG_PACKET;
}

tlsneg_pcapng_status tlsneg_pcapng_next(tlsneg_pcapng *r)
{
    for (;;) {
        uint8_t head[8];
        size_t got;
        uint32_t type;
        if (!r->started) {
            /* The caller read the first block type already. */
            r->started = true;
            type = BLOCK_SHB;
            if (!read_exact(r, head + 4, 4)) {
                return TLSNEG_PCAPNG_TRUNCATED;
            }
        } else {
            got = fread(head, 1, 8, r->f);
            if (got == 0) {
                return TLSNEG_PCAPNG_END;
            }
            if (got < 8) {
                return TLSNEG_PCAPNG_TRUNCATED;
            }
            type = u32(r, head);
        }
        tlsneg_pcapng_status s;
        if (type == BLOCK_SHB) {
            s = section(r, head);
            if (s != TLSNEG_PCAPNG_END) {
                return s;
            }
            continue;
        }
        uint32_t total = u32(r, head + 4);
        if (total < 12 || total % 4 || total > MAX_BLOCK) {
            return bad(r, "a block of impossible length");
        }
        size_t body = total - 8;
        if (body > r->buf_cap) {
            uint8_t *b = realloc(r->buf, body);
            if (!b) {
                return bad(r, "out of memory");
            }
            r->buf = b;
            r->buf_cap = body;
        }
        if (!read_exact(r, r->buf, body)) {
            return TLSNEG_PCAPNG_TRUNCATED;
        }
        /* without the trailing length */
        s = type == BLOCK_IDB ? interface(r, r->buf, body - 4) : packet(r, type, r->buf, body - 4);
        if (s != TLSNEG_PCAPNG_END) {
            return s;
        }
    }
}
