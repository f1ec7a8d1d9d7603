/* SPDX-License-Identifier: GPL-2.0-or-later */
/* addr.c: addresses and endpoints as text (addr.h). */
#define _POSIX_C_SOURCE 200809L

#include "report/addr.h"

#include <arpa/inet.h>
#include <stdio.h>

#include "core/util.h"

/* ipv4_text writes the four bytes b as inet_ntop does, without the
 * sprintf it calls: the JSON lines write two addresses a message, and
 * inet_ntop would cost them about a sixth of the run. */
static void ipv4_text(const uint8_t *b, char *p)
{
    for (int i = 0; i < 4; i++) {
        unsigned v = b[i];
        if (v >= 100) {
            *p++ = (char)('0' + v / 100);
        }
        if (v >= 10) {
            *p++ = (char)('0' + v / 10 % 10);
        }
        *p++ = (char)('0' + v % 10);
        *p++ = i < 3 ? '.' : '\0';
    }
}

const char *tlsneg_out_addr_text(const tlsneg_out_addr *a, char *buf)
{
    if (a->text) {
        tlsneg_strlcpy(buf, TLSNEG_ADDR_TEXT_MAX, a->text);
    } else if (a->len == 4) {
        ipv4_text(a->bytes, buf);
    } else if (a->len != 16 || !inet_ntop(AF_INET6, a->bytes, buf, TLSNEG_ADDR_TEXT_MAX)) {
        tlsneg_strlcpy(buf, TLSNEG_ADDR_TEXT_MAX, "?");
    }
    return buf;
}

const char *tlsneg_out_endpoint_text(const tlsneg_out_addr *a, char *buf, size_t len)
{
    char text[TLSNEG_ADDR_TEXT_MAX];
    tlsneg_out_addr_text(a, text);
    if (a->len == 16 && !a->text) {
        snprintf(buf, len, "[%s]:%u", text, a->port);
    } else {
        snprintf(buf, len, "%s:%u", text, a->port);
    }
    return buf;
}

/* Each transport's name (CSV, JSON lines) and label (after a server's
 * endpoint; none over TCP). */
static const struct {
    const char *name, *label;
} transports[] = {
    [TLSNEG_WIRE_TLS] = {"tcp", ""},
    [TLSNEG_WIRE_DTLS] = {"dtls", " udp/DTLS"},
    [TLSNEG_WIRE_QUIC] = {"quic", " udp/QUIC"},
};

static unsigned transport_of(tlsneg_wire w)
{
    tlsneg_wire t = tlsneg_wire_transport(w);
    return t == TLSNEG_WIRE_DTLS || t == TLSNEG_WIRE_QUIC ? (unsigned)t : TLSNEG_WIRE_TLS;
}

const char *tlsneg_out_transport_name(tlsneg_wire transport)
{
    return transports[transport_of(transport)].name;
}

const char *tlsneg_out_transport_label(tlsneg_wire transport)
{
    return transports[transport_of(transport)].label;
}

const char *tlsneg_out_server_label(const tlsneg_out_addr *a, tlsneg_wire transport, char *buf,
                                    size_t len)
{
    char endpoint[TLSNEG_ENDPOINT_TEXT_MAX];
    snprintf(buf, len, "%s%s", tlsneg_out_endpoint_text(a, endpoint, sizeof endpoint),
             tlsneg_out_transport_label(transport));
    return buf;
}
