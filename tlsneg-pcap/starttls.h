/* SPDX-License-Identifier: GPL-2.0-or-later */
/* starttls.h: TLS after a plaintext prefix in a TCP flow, found as
 * Wireshark's dissectors find it: SMTP (STARTTLS, 220), IMAP (tag
 * STARTTLS, tag OK), POP3 (STLS, +OK), FTP (AUTH TLS or AUTH SSL, 234),
 * XMPP (<starttls/>, <proceed/>), LDAP (the StartTLS ExtendedRequest,
 * OID 1.3.6.1.4.1.1466.20037, and its ExtendedResponse with resultCode
 * success), PostgreSQL (SSLRequest, 'S') and MySQL (the client's SSL
 * request, after its server's greeting). A small state machine per flow,
 * fed each direction's in-order bytes before its first TLS record; which
 * protocol is told by the first bytes (a server's greeting, a client's
 * first request), not by the port. It keeps no more of a direction than the
 * start of one line or one PDU (TLSNEG_STARTTLS_KEEP bytes). Internal to
 * the libpcap front end; tcp.c feeds it. */
#ifndef TLSNEG_PCAP_STARTTLS_H
#define TLSNEG_PCAP_STARTTLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The plaintext read per direction before its TLS; past it the flow is
 * given up (TLSNEG_STARTTLS_TOO_LONG). */
#define TLSNEG_STARTTLS_MAX_PREFIX 8192
/* The first bytes kept of a line, an XML tag name or an LDAP message:
 * enough for every command and reply looked for. */
#define TLSNEG_STARTTLS_KEEP 64

typedef enum {
    TLSNEG_STARTTLS_PLAIN,    /* every byte taken, the direction still plaintext */
    TLSNEG_STARTTLS_TLS,      /* TLS starts after the *took bytes taken */
    TLSNEG_STARTTLS_NOT,      /* no protocol with STARTTLS, or nothing more can switch */
    TLSNEG_STARTTLS_TOO_LONG, /* over TLSNEG_STARTTLS_MAX_PREFIX bytes of plaintext */
} tlsneg_starttls_result;

typedef enum {
    TLSNEG_STARTTLS_UNKNOWN,
    TLSNEG_STARTTLS_LINES220, /* SMTP or FTP: a 220 greeting */
    TLSNEG_STARTTLS_IMAP,
    TLSNEG_STARTTLS_POP3,
    TLSNEG_STARTTLS_XMPP,
    TLSNEG_STARTTLS_LDAP,
    TLSNEG_STARTTLS_PGSQL,
    TLSNEG_STARTTLS_MYSQL, /* a server greeting of protocol 10 */
} tlsneg_starttls_proto;

/* One direction: the start of its current line, tag name or PDU. */
typedef struct {
    uint8_t keep[TLSNEG_STARTTLS_KEEP];
    uint32_t kept;  /* bytes of the current unit seen (keep holds the first of them) */
    uint32_t total; /* LDAP: the current PDU's length, 0 while its header is read */
    uint32_t seen;  /* plaintext bytes taken */
    uint8_t xml;    /* XMPP: where the scanner is (starttls.c) */
    uint8_t quote;  /* XMPP: the quote of an attribute value being read, or 0 */
    bool slash;     /* XMPP: the last byte of the tag so far was '/' */
    bool read;      /* its bytes go to the protocol's reader (the protocol is known) */
} tlsneg_starttls_dir;

typedef struct {
    uint8_t proto;   /* tlsneg_starttls_proto */
    int8_t server;   /* endpoint index of the server, -1 while unknown */
    uint8_t pending; /* the command that waits for its reply (starttls.c), or 0 */
    bool over;       /* given up: nothing more is read */
    bool tls[2];     /* each endpoint's bytes are TLS from its next byte */
    uint8_t tag_len; /* IMAP: the tag of the STARTTLS command */
    char tag[32];
    tlsneg_starttls_dir dir[2];
} tlsneg_starttls;

/* tlsneg_starttls_init starts s for a new flow. */
void tlsneg_starttls_init(tlsneg_starttls *s);

/* tlsneg_starttls_feed takes n in-order bytes sent by endpoint d (client:
 * the endpoint known to be the client, -1 if not known). *took says how
 * many were plaintext: all of them unless TLSNEG_STARTTLS_TLS, where the
 * rest are TLS. When a server's positive reply completes, the client's
 * bytes are TLS from its next byte too (tlsneg_starttls_is_tls). */
tlsneg_starttls_result tlsneg_starttls_feed(tlsneg_starttls *s, int d, int client, const uint8_t *b,
                                            size_t n, size_t *took);

/* tlsneg_starttls_is_tls: endpoint d's bytes are TLS from its next byte. */
static inline bool tlsneg_starttls_is_tls(const tlsneg_starttls *s, int d)
{
    return s->tls[d];
}

#endif
