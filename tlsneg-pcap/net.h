/* SPDX-License-Identifier: GPL-2.0-or-later */
/* net.h: link, IP and transport headers, bounds-checked with the core's
 * cursor (lib/core/cursor.h). Internal to the libpcap front end; the unit
 * tests call it directly. */
#ifndef TLSNEG_PCAP_NET_H
#define TLSNEG_PCAP_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    TLSNEG_NET_OK,
    TLSNEG_NET_UNKNOWN_LINK, /* a link type the front end does not read */
    TLSNEG_NET_NOT_IP,       /* ARP, LLDP, an unknown loopback family, ... */
    TLSNEG_NET_MALFORMED,    /* a header that does not fit the bytes */
    TLSNEG_NET_FRAGMENT,     /* an IP fragment after the first */
    TLSNEG_NET_OTHER_L4,     /* IP, but neither TCP nor UDP (ICMP, ESP, ...) */
} tlsneg_net_status;

#define TLSNEG_TCP_FIN 0x01
#define TLSNEG_TCP_SYN 0x02
#define TLSNEG_TCP_RST 0x04
#define TLSNEG_TCP_ACK 0x10

/* What one frame carries, as far as tlsneg cares. */
typedef struct {
    uint8_t ip_version; /* 4 or 6 */
    uint8_t addr_len;   /* 4 or 16 */
    uint8_t src[16], dst[16];
    uint8_t l4;          /* 6 TCP, 17 UDP */
    bool first_fragment; /* more fragments follow: the payload is incomplete */
    uint16_t sport, dport;
    uint32_t seq; /* TCP */
    uint8_t tcp_flags;
    const uint8_t *payload;  /* transport payload, as captured */
    size_t payload_len;      /* captured bytes of it */
    size_t payload_wire_len; /* bytes of it the IP header promises */
} tlsneg_net_packet;

/* tlsneg_net_decode reads a frame of link type linktype. */
tlsneg_net_status tlsneg_net_decode(tlsneg_net_packet *out, int linktype, const uint8_t *data,
                                    size_t caplen);

/* tlsneg_net_decode_ip reads an IPv4 or IPv6 packet (by its version nibble). */
tlsneg_net_status tlsneg_net_decode_ip(tlsneg_net_packet *out, const uint8_t *data, size_t len);

#endif
