/* SPDX-License-Identifier: GPL-2.0-or-later */
/* addr.h: the one address formatter of the outputs (and of any front end
 * that writes an address): IPv4 and IPv6 as inet_ntop writes them, which
 * is how Wireshark shows them; any other address as its front end names
 * it. */
#ifndef TLSNEG_ADDR_H
#define TLSNEG_ADDR_H

#include <stddef.h>
#include <stdint.h>

#include "core/hello.h"

/* An address and a port: 4 bytes IPv4, 16 bytes IPv6; any other, with its
 * text. */
typedef struct {
    const uint8_t *bytes;
    size_t len;
    const char *text; /* NULL for IPv4 and IPv6 */
    uint16_t port;
} tlsneg_out_addr;

/* Room for an address's text, its NUL included (longer texts are cut). */
#define TLSNEG_ADDR_TEXT_MAX 64
/* Room for an endpoint's text: the address in brackets, ':' and a port. */
#define TLSNEG_ENDPOINT_TEXT_MAX (TLSNEG_ADDR_TEXT_MAX + 8)
/* Room for a server's label: an endpoint and its transport (" udp/QUIC"). */
#define TLSNEG_SERVER_TEXT_MAX (TLSNEG_ENDPOINT_TEXT_MAX + 9)

/* tlsneg_out_addr_text writes a's address into buf (TLSNEG_ADDR_TEXT_MAX
 * bytes): "192.0.2.1", "2001:db8::1", the front end's text, or "?" for
 * bytes of no known length. Returns buf. */
const char *tlsneg_out_addr_text(const tlsneg_out_addr *a, char *buf);

/* tlsneg_out_endpoint_text writes a with its port into buf (len bytes):
 * "192.0.2.1:443", an IPv6 address in brackets "[2001:db8::1]:443".
 * Returns buf. */
const char *tlsneg_out_endpoint_text(const tlsneg_out_addr *a, char *buf, size_t len);

/* tlsneg_out_transport_name names a transport (tlsneg_wire_transport) as
 * the CSV's transport column and the JSON lines' transport key write it:
 * "tcp" (TLS and SSL 2.0 over TCP), "dtls" or "quic". */
const char *tlsneg_out_transport_name(tlsneg_wire transport);

/* tlsneg_out_transport_label: what a server's label (the report's, the
 * ladder's) adds after its address and port: "" over TCP, " udp/DTLS", "
 * udp/QUIC", so that a QUIC or DTLS server never reads as the TLS server on
 * the same TCP port. */
const char *tlsneg_out_transport_label(tlsneg_wire transport);

/* tlsneg_out_server_label writes a server's label into buf (len bytes): its
 * endpoint (tlsneg_out_endpoint_text) and its transport's label, as the
 * report names servers and probes: "[2001:db8::1]:443 udp/QUIC". Returns
 * buf. */
const char *tlsneg_out_server_label(const tlsneg_out_addr *a, tlsneg_wire transport, char *buf,
                                    size_t len);

#endif
