/* SPDX-License-Identifier: GPL-2.0-or-later */
/* packets.c: the packet path (packets.h): each frame decoded (net.h), found
 * in its flow (flows.c) and handed to its transport (tcp.c, dtls.c,
 * quicflow.c). */
#include "packets.h"

#include <stdlib.h>
#include <string.h>

#include "flow.h"

#define DEFAULT_MAX_FLOWS 1000000u
#define DEFAULT_IDLE_S    300u
#define DEFAULT_BUFFER    65536u

static void count_unknown_link(tlsneg_pcap *p, int linktype)
{
    p->st.unknown_link++;
    for (int i = 0; i < TLSNEG_PCAP_MAX_LINKTYPES; i++) {
        if (p->st.unknown_linktype_count[i] == 0) {
            p->st.unknown_linktype[i] = linktype;
        }
        if (p->st.unknown_linktype[i] == linktype) {
            p->st.unknown_linktype_count[i]++;
            return;
        }
    }
}

/* decoded counts a frame tlsneg_net_decode read as s; tells whether it is
 * a TCP or UDP packet to read on. */
static bool decoded(tlsneg_pcap *p, int linktype, tlsneg_net_status s, const tlsneg_net_packet *n)
{
    switch (s) {
    case TLSNEG_NET_OK:
        break;
    case TLSNEG_NET_UNKNOWN_LINK:
        count_unknown_link(p, linktype);
        return false;
    case TLSNEG_NET_NOT_IP:
        p->st.not_ip++;
        return false;
    case TLSNEG_NET_MALFORMED:
        p->st.malformed++;
        return false;
    case TLSNEG_NET_FRAGMENT:
        p->st.fragments_skipped++;
        return false;
    case TLSNEG_NET_OTHER_L4:
        break;
    }
    if (n->ip_version == 4) {
        p->st.ipv4++;
    } else {
        p->st.ipv6++;
    }
    return s == TLSNEG_NET_OK;
}

/* udp_datagram reads a UDP datagram n of flow f (sent by its endpoint d),
 * or of a new one (f NULL) if it starts with a DTLS record or a QUIC
 * Initial packet. */
static void udp_datagram(tlsneg_pcap *p, const tlsneg_net_packet *n, uint32_t h, flow *f, int d)
{
    p->st.udp++;
    if (n->payload_len == 0) {
        return;
    }
    if (!f) {
        bool dtls = tlsneg_dtls_looks(n->payload, n->payload_len);
        bool quic = !dtls && tlsneg_quic_looks_initial(n->payload, n->payload_len);
        if (!dtls && !quic) {
            return;
        }
        f = tlsneg_flow_new(p, n, h);
        if (!f) {
            return;
        }
        f->kind = dtls ? KIND_DTLS : KIND_QUIC;
        d = 0;
    }
    tlsneg_flow_seen(p, f);
    if (f->kind == KIND_DTLS) {
        tlsneg_dtls_datagram(p, f, d, n->payload, n->payload_len);
    } else {
        tlsneg_quicflow_datagram(p, f, d, n->payload, n->payload_len);
    }
}

void tlsneg_pcap_packet(tlsneg_pcap *p, int linktype, uint32_t frame, uint64_t time_us,
                        const uint8_t *data, size_t caplen, size_t wirelen)
{
    p->frame = frame;
    p->time_us = time_us;
    p->st.packets++;
    p->st.bytes += wirelen;
    if (caplen < wirelen) {
        p->st.snapped++;
    }
    tlsneg_net_packet n;
    if (!decoded(p, linktype, tlsneg_net_decode(&n, linktype, data, caplen), &n)) {
        return;
    }
    tlsneg_flows_expire(p);
    uint32_t h = tlsneg_flow_hash(&n);
    int d = 0;
    flow *f = tlsneg_flow_find(p, &n, h, &d);
    if (n.l4 == 6) {
        tlsneg_tcp_segment(p, &n, h, f, d);
    } else {
        udp_datagram(p, &n, h, f, d);
    }
}

tlsneg_pcap *tlsneg_pcap_new(const tlsneg_pcap_config *cfg, tlsneg_pcap_event_fn fn, void *user)
{
    tlsneg_pcap *p = calloc(1, sizeof *p);
    if (!p || !(p->crypto = tlsneg_quic_crypto_new())) {
        free(p);
        return NULL;
    }
    if (cfg) {
        p->cfg = *cfg;
    }
    if (p->cfg.max_flows == 0) {
        p->cfg.max_flows = DEFAULT_MAX_FLOWS;
    }
    if (p->cfg.idle_timeout_s == 0) {
        p->cfg.idle_timeout_s = DEFAULT_IDLE_S;
    }
    if (p->cfg.max_buffer == 0) {
        p->cfg.max_buffer = DEFAULT_BUFFER;
    }
    if (p->cfg.max_buffer < TLSNEG_MAX_RECORD + 5) {
        p->cfg.max_buffer = TLSNEG_MAX_RECORD + 5;
    }
    if (!tlsneg_flows_init(p)) {
        tlsneg_pcap_free(p);
        return NULL;
    }
    p->fn = fn;
    p->user = user;
    return p;
}

void tlsneg_pcap_finish(tlsneg_pcap *p)
{
    tlsneg_flows_finish(p);
}

void tlsneg_pcap_free(tlsneg_pcap *p)
{
    if (!p) {
        return;
    }
    tlsneg_flows_free(p);
    free(p->scratch);
    tlsneg_quic_crypto_free(p->crypto);
    free(p);
}

const tlsneg_pcap_stats *tlsneg_pcap_get_stats(const tlsneg_pcap *p)
{
    return &p->st;
}
