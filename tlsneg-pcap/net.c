/* SPDX-License-Identifier: GPL-2.0-or-later */
/* net.c: link, IP and transport headers (net.h). */
#include "net.h"

#include <string.h>

#include "core/cursor.h"
#include "packets.h"

#define ETHERTYPE_IPV4     0x0800
#define ETHERTYPE_IPV6     0x86dd
#define ETHERTYPE_VLAN     0x8100 /* 802.1Q */
#define ETHERTYPE_QINQ     0x88a8 /* 802.1ad */
#define ETHERTYPE_QINQ_OLD 0x9100

bool tlsneg_pcap_link_supported(int linktype)
{
    switch (linktype) {
    case TLSNEG_LINK_NULL:
    case TLSNEG_LINK_ETHERNET:
    case TLSNEG_LINK_RAW:
    case TLSNEG_LINK_RAW_LT:
    case TLSNEG_LINK_LOOP:
    case TLSNEG_LINK_SLL:
    case TLSNEG_LINK_IPV4:
    case TLSNEG_LINK_IPV6:
    case TLSNEG_LINK_SLL2:
    case TLSNEG_LINK_PPP:
        return true;
    default:
        return false;
    }
}

static tlsneg_net_status by_ethertype(tlsneg_net_packet *out, uint16_t type, tlsneg_cur *c)
{
    if (type != ETHERTYPE_IPV4 && type != ETHERTYPE_IPV6) {
        return TLSNEG_NET_NOT_IP;
    }
    tlsneg_net_status s = tlsneg_net_decode_ip(out, c->p, c->len);
    if (s == TLSNEG_NET_OK && (out->ip_version == 4) != (type == ETHERTYPE_IPV4)) {
        return TLSNEG_NET_MALFORMED;
    }
    return s;
}

static tlsneg_net_status ethernet(tlsneg_net_packet *out, tlsneg_cur *c)
{
    tlsneg_cur macs;
    uint16_t type;
    if (!tlsneg_cur_bytes(c, 12, &macs) || !tlsneg_cur_u16(c, &type)) {
        return TLSNEG_NET_MALFORMED;
    }
    /* Any number of VLAN tags (QinQ stacks two); each is TCI, then the next type. */
    while (type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ || type == ETHERTYPE_QINQ_OLD) {
        uint16_t tci;
        if (!tlsneg_cur_u16(c, &tci) || !tlsneg_cur_u16(c, &type)) {
            return TLSNEG_NET_MALFORMED;
        }
    }
    return by_ethertype(out, type, c);
}

/* BSD loopback: a 4-byte address family, in host order (DLT_NULL, written on
 * a machine of either byte order) or network order (DLT_LOOP). The IPv6
 * value differs by system: 10 Linux, 24 NetBSD/OpenBSD, 28 FreeBSD, 30 macOS. */
static tlsneg_net_status loopback(tlsneg_net_packet *out, tlsneg_cur *c, bool network_order)
{
    uint8_t b[4];
    if (c->len < 4) {
        return TLSNEG_NET_MALFORMED;
    }
    memcpy(b, c->p, 4);
    c->p += 4;
    c->len -= 4;
    uint32_t be = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    uint32_t le = (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
    uint32_t family = network_order ? be : (le < 256 ? le : be);
    uint8_t want;
    switch (family) {
    case 2:
        want = 4;
        break;
    case 10:
    case 24:
    case 28:
    case 30:
        want = 6;
        break;
    default:
        return TLSNEG_NET_NOT_IP;
    }
    tlsneg_net_status s = tlsneg_net_decode_ip(out, c->p, c->len);
    if (s == TLSNEG_NET_OK && out->ip_version != want) {
        return TLSNEG_NET_MALFORMED;
    }
    return s;
}

/* PPP (RFC 1661): address 0xff and control 0x03 unless compressed away, then
 * a protocol of 1 byte (odd: compressed, RFC 1661 6.5) or 2. */
static tlsneg_net_status ppp(tlsneg_net_packet *out, tlsneg_cur *c)
{
    if (c->len >= 2 && c->p[0] == 0xff && c->p[1] == 0x03) {
        c->p += 2;
        c->len -= 2;
    }
    uint16_t proto;
    if (c->len >= 1 && (c->p[0] & 1)) {
        uint8_t b;
        if (!tlsneg_cur_u8(c, &b)) {
            return TLSNEG_NET_MALFORMED;
        }
        proto = b;
    } else if (!tlsneg_cur_u16(c, &proto)) {
        return TLSNEG_NET_MALFORMED;
    }
    if (proto != 0x21 && proto != 0x57) {
        return TLSNEG_NET_NOT_IP;
    }
    tlsneg_net_status s = tlsneg_net_decode_ip(out, c->p, c->len);
    if (s == TLSNEG_NET_OK && out->ip_version != (proto == 0x21 ? 4 : 6)) {
        return TLSNEG_NET_MALFORMED;
    }
    return s;
}

tlsneg_net_status tlsneg_net_decode(tlsneg_net_packet *out, int linktype, const uint8_t *data,
                                    size_t caplen)
{
    tlsneg_cur c;
    tlsneg_cur_init(&c, data, caplen);
    tlsneg_cur skip;
    uint16_t type;
    switch (linktype) {
    case TLSNEG_LINK_ETHERNET:
        return ethernet(out, &c);
    case TLSNEG_LINK_SLL:
        /* packet type, ARPHRD type, address length, 8 address bytes, protocol */
        if (!tlsneg_cur_bytes(&c, 14, &skip) || !tlsneg_cur_u16(&c, &type)) {
            return TLSNEG_NET_MALFORMED;
        }
        return by_ethertype(out, type, &c);
    case TLSNEG_LINK_SLL2:
        /* protocol, reserved, interface index, ARPHRD type, packet type,
         * address length, 8 address bytes */
        if (!tlsneg_cur_u16(&c, &type) || !tlsneg_cur_bytes(&c, 18, &skip)) {
            return TLSNEG_NET_MALFORMED;
        }
        return by_ethertype(out, type, &c);
    case TLSNEG_LINK_RAW:
    case TLSNEG_LINK_RAW_LT:
        return tlsneg_net_decode_ip(out, data, caplen);
    case TLSNEG_LINK_IPV4:
    case TLSNEG_LINK_IPV6: {
        tlsneg_net_status s = tlsneg_net_decode_ip(out, data, caplen);
        if (s == TLSNEG_NET_OK && out->ip_version != (linktype == TLSNEG_LINK_IPV4 ? 4 : 6)) {
            return TLSNEG_NET_MALFORMED;
        }
        return s;
    }
    case TLSNEG_LINK_PPP:
        return ppp(out, &c);
    case TLSNEG_LINK_NULL:
        return loopback(out, &c, false);
    case TLSNEG_LINK_LOOP:
        return loopback(out, &c, true);
    default:
        return TLSNEG_NET_UNKNOWN_LINK;
    }
}

/* transport reads the TCP or UDP header at the front of c (the IP payload as
 * captured); wire_len is the payload length the IP header promises. */
static tlsneg_net_status transport(tlsneg_net_packet *out, uint8_t proto, tlsneg_cur *c,
                                   size_t wire_len)
{
    out->l4 = proto;
    if (proto == 6) {
        uint16_t sport, dport, flags_word;
        uint32_t seq, ack;
        if (!tlsneg_cur_u16(c, &sport) || !tlsneg_cur_u16(c, &dport) ||
            !tlsneg_cur_uint(c, 4, &seq) || !tlsneg_cur_uint(c, 4, &ack) ||
            !tlsneg_cur_u16(c, &flags_word)) {
            return TLSNEG_NET_MALFORMED;
        }
        size_t hdr_len = (size_t)(flags_word >> 12) * 4;
        tlsneg_cur rest;
        if (hdr_len < 20 || !tlsneg_cur_bytes(c, hdr_len - 14, &rest) || wire_len < hdr_len) {
            return TLSNEG_NET_MALFORMED;
        }
        out->sport = sport;
        out->dport = dport;
        out->seq = seq;
        out->tcp_flags = (uint8_t)(flags_word & 0xff);
        out->payload = c->p;
        out->payload_wire_len = wire_len - hdr_len;
        out->payload_len = c->len < out->payload_wire_len ? c->len : out->payload_wire_len;
        return TLSNEG_NET_OK;
    }
    if (proto == 17) {
        uint16_t sport, dport, len, sum;
        if (!tlsneg_cur_u16(c, &sport) || !tlsneg_cur_u16(c, &dport) || !tlsneg_cur_u16(c, &len) ||
            !tlsneg_cur_u16(c, &sum)) {
            return TLSNEG_NET_MALFORMED;
        }
        /* The UDP length names the datagram; a length of 0 (IPv6 jumbograms)
         * or one past the IP payload falls back to the IP payload. */
        size_t ulen = len;
        if (ulen < 8 || ulen > wire_len) {
            if (ulen != 0 && ulen < 8) {
                return TLSNEG_NET_MALFORMED;
            }
            ulen = wire_len;
        }
        out->sport = sport;
        out->dport = dport;
        out->seq = 0;
        out->tcp_flags = 0;
        out->payload = c->p;
        out->payload_wire_len = ulen - 8;
        out->payload_len = c->len < out->payload_wire_len ? c->len : out->payload_wire_len;
        return TLSNEG_NET_OK;
    }
    return TLSNEG_NET_OTHER_L4;
}

static tlsneg_net_status ipv4(tlsneg_net_packet *out, tlsneg_cur *c)
{
    uint8_t vihl, tos, ttl, proto;
    uint16_t total, id, frag, sum;
    tlsneg_cur src, dst, opts;
    if (!tlsneg_cur_u8(c, &vihl) || !tlsneg_cur_u8(c, &tos) || !tlsneg_cur_u16(c, &total) ||
        !tlsneg_cur_u16(c, &id) || !tlsneg_cur_u16(c, &frag) || !tlsneg_cur_u8(c, &ttl) ||
        !tlsneg_cur_u8(c, &proto) || !tlsneg_cur_u16(c, &sum) || !tlsneg_cur_bytes(c, 4, &src) ||
        !tlsneg_cur_bytes(c, 4, &dst)) {
        return TLSNEG_NET_MALFORMED;
    }
    size_t ihl = (size_t)(vihl & 0x0f) * 4;
    if (ihl < 20 || !tlsneg_cur_bytes(c, ihl - 20, &opts)) {
        return TLSNEG_NET_MALFORMED;
    }
    /* TSO captures show a total length of 0: take what was captured. */
    size_t wire_len = total == 0 ? c->len : (total >= ihl ? total - ihl : 0);
    if (total != 0 && total < ihl) {
        return TLSNEG_NET_MALFORMED;
    }
    out->ip_version = 4;
    out->addr_len = 4;
    memset(out->src, 0, sizeof out->src);
    memset(out->dst, 0, sizeof out->dst);
    memcpy(out->src, src.p, 4);
    memcpy(out->dst, dst.p, 4);
    if ((frag & 0x1fff) != 0) {
        return TLSNEG_NET_FRAGMENT;
    }
    out->first_fragment = (frag & 0x2000) != 0;
    return transport(out, proto, c, wire_len);
}

static tlsneg_net_status ipv6(tlsneg_net_packet *out, tlsneg_cur *c)
{
    uint32_t vtcfl;
    uint16_t plen;
    uint8_t next, hops;
    tlsneg_cur src, dst;
    if (!tlsneg_cur_uint(c, 4, &vtcfl) || !tlsneg_cur_u16(c, &plen) || !tlsneg_cur_u8(c, &next) ||
        !tlsneg_cur_u8(c, &hops) || !tlsneg_cur_bytes(c, 16, &src) ||
        !tlsneg_cur_bytes(c, 16, &dst)) {
        return TLSNEG_NET_MALFORMED;
    }
    out->ip_version = 6;
    out->addr_len = 16;
    memcpy(out->src, src.p, 16);
    memcpy(out->dst, dst.p, 16);
    out->first_fragment = false;
    /* A payload length of 0 is a jumbogram (hop-by-hop option): take what
     * was captured. */
    size_t wire_len = plen == 0 ? c->len : plen;
    for (int i = 0; i < 16; i++) {
        size_t ext_len;
        switch (next) {
        case 0:  /* hop-by-hop options */
        case 43: /* routing */
        case 60: /* destination options */
        case 51: /* authentication header: length in 4-byte units, minus 2 */
        case 44: /* fragment: 8 bytes */
        {
            if (c->len < 8 || wire_len < 8) {
                return TLSNEG_NET_MALFORMED;
            }
            uint8_t nh = c->p[0];
            if (next == 44) {
                uint16_t off_flags = (uint16_t)(c->p[2] << 8 | c->p[3]);
                if ((off_flags & 0xfff8) != 0) {
                    return TLSNEG_NET_FRAGMENT;
                }
                out->first_fragment = (off_flags & 1) != 0;
                ext_len = 8;
            } else if (next == 51) {
                ext_len = ((size_t)c->p[1] + 2) * 4;
            } else {
                ext_len = ((size_t)c->p[1] + 1) * 8;
            }
            tlsneg_cur ext;
            if (!tlsneg_cur_bytes(c, ext_len, &ext) || wire_len < ext_len) {
                return TLSNEG_NET_MALFORMED;
            }
            wire_len -= ext_len;
            next = nh;
            break;
        }
        default:
            return transport(out, next, c, wire_len);
        }
    }
    return TLSNEG_NET_MALFORMED;
}

tlsneg_net_status tlsneg_net_decode_ip(tlsneg_net_packet *out, const uint8_t *data, size_t len)
{
    tlsneg_cur c;
    tlsneg_cur_init(&c, data, len);
    if (len < 1) {
        return TLSNEG_NET_MALFORMED;
    }
    switch (data[0] >> 4) {
    case 4:
        return ipv4(out, &c);
    case 6:
        return ipv6(out, &c);
    default:
        return TLSNEG_NET_NOT_IP;
    }
}
