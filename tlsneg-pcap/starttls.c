/* SPDX-License-Identifier: GPL-2.0-or-later */
/* starttls.c: TLS after a plaintext prefix (starttls.h). Each protocol's
 * command and reply as Wireshark 4.0's dissectors take them
 * (ssl_starttls_ack: TLS from the bytes after the positive reply). */
#include "starttls.h"

#include <string.h>

/* The command waiting for its reply. */
enum {
    PEND_NONE,
    PEND_SMTP,      /* STARTTLS: 220 */
    PEND_FTP,       /* AUTH TLS, AUTH SSL: 234 */
    PEND_IMAP,      /* tag STARTTLS: tag OK */
    PEND_POP3,      /* STLS: +OK */
    PEND_XMPP,      /* <starttls/>: <proceed/> */
    PEND_LDAP,      /* the StartTLS ExtendedRequest: resultCode success */
    PEND_PGSQL_SSL, /* SSLRequest: 'S' */
    PEND_PGSQL_GSS, /* GSSENCRequest: 'N' lets an SSLRequest follow */
};

/* What a unit of bytes (a line, a tag, a PDU) did. */
typedef enum { UNIT_ON, UNIT_TLS, UNIT_NOT } unit_result;

void tlsneg_starttls_init(tlsneg_starttls *s)
{
    memset(s, 0, sizeof *s);
    s->server = -1;
}

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* word_is: the n bytes at b are word (lower case), case aside. */
static bool word_is(const uint8_t *b, size_t n, const char *word)
{
    size_t w = strlen(word);
    if (n != w) {
        return false;
    }
    for (size_t i = 0; i < w; i++) {
        if (lower(b[i]) != word[i]) {
            return false;
        }
    }
    return true;
}

/* starts_with: b (n bytes) starts with word, case aside. */
static bool starts_with(const uint8_t *b, size_t n, const char *word)
{
    size_t w = strlen(word);
    return n >= w && word_is(b, w, word);
}

/* line_end: the length of the line in b (n bytes kept) without its CR LF
 * and trailing spaces. */
static size_t line_end(const uint8_t *b, size_t n)
{
    while (n > 0 && (b[n - 1] == '\n' || b[n - 1] == '\r' || b[n - 1] == ' ')) {
        n--;
    }
    return n;
}

/* ---- which protocol: the first bytes of a direction ---- */

typedef enum { DETECT_MORE, DETECT_NO, DETECT_YES } detect_result;

/* prefix_of: b (n bytes) starts with pat (m bytes), or is a start of it. */
static detect_result prefix_of(const uint8_t *b, size_t n, const char *pat, size_t m)
{
    size_t k = n < m ? n : m;
    if (memcmp(b, pat, k) != 0) {
        return DETECT_NO;
    }
    return n >= m ? DETECT_YES : DETECT_MORE;
}

static const struct {
    const char *bytes;
    uint8_t len;
    uint8_t proto;
    bool server; /* the greeting of a server, else the first request of a client */
} first_bytes[] = {
    {"220 ", 4, TLSNEG_STARTTLS_LINES220, true},
    {"220-", 4, TLSNEG_STARTTLS_LINES220, true},
    {"* OK", 4, TLSNEG_STARTTLS_IMAP, true},
    {"* PREAUTH", 9, TLSNEG_STARTTLS_IMAP, true},
    {"+OK", 3, TLSNEG_STARTTLS_POP3, true},
    {"<?xml", 5, TLSNEG_STARTTLS_XMPP, false},
    {"<stream:stream", 14, TLSNEG_STARTTLS_XMPP, false},
    /* SSLRequest and GSSENCRequest: length 8, code 80877103 or 80877104. */
    {"\x00\x00\x00\x08\x04\xd2\x16\x2f", 8, TLSNEG_STARTTLS_PGSQL, false},
    {"\x00\x00\x00\x08\x04\xd2\x16\x30", 8, TLSNEG_STARTTLS_PGSQL, false},
};

/* ldap_start: b starts an LDAPMessage: SEQUENCE, a definite length, then
 * the messageID INTEGER (RFC 4511 4.1.1). */
static detect_result ldap_start(const uint8_t *b, size_t n)
{
    if (b[0] != 0x30) {
        return DETECT_NO;
    }
    if (n < 2) {
        return DETECT_MORE;
    }
    size_t at = 2;
    if (b[1] & 0x80) {
        size_t k = b[1] & 0x7f;
        if (k == 0 || k > 4) {
            return DETECT_NO;
        }
        at += k;
    }
    if (n < at + 2) {
        return DETECT_MORE;
    }
    return b[at] == 0x02 && b[at + 1] >= 1 && b[at + 1] <= 4 ? DETECT_YES : DETECT_NO;
}

/* mysql_start: b starts a MySQL or MariaDB server greeting: a packet of
 * sequence number 0 whose payload is the protocol version 10 then the
 * server's version, a digit first. */
static detect_result mysql_start(const uint8_t *b, size_t n)
{
    if ((n > 3 && b[3] != 0) || (n > 4 && b[4] != 0x0a) || (n > 5 && (b[5] < '0' || b[5] > '9'))) {
        return DETECT_NO;
    }
    if (n < 6) {
        return DETECT_MORE;
    }
    size_t len = (size_t)b[0] | (size_t)b[1] << 8 | (size_t)b[2] << 16;
    return len >= 32 && len <= 4096 ? DETECT_YES : DETECT_NO;
}

/* detect: which protocol the first bytes of endpoint d (b, n) start. */
static detect_result detect(tlsneg_starttls *s, int d, int client, const uint8_t *b, size_t n)
{
    detect_result best = DETECT_NO;
    for (size_t i = 0; i < sizeof first_bytes / sizeof first_bytes[0]; i++) {
        detect_result r = prefix_of(b, n, first_bytes[i].bytes, first_bytes[i].len);
        if (r == DETECT_YES) {
            s->proto = first_bytes[i].proto;
            if (first_bytes[i].server) {
                s->server = (int8_t)d;
            } else if (client >= 0) {
                s->server = (int8_t)(1 - client);
            } else {
                s->server = (int8_t)(1 - d); /* the first to speak is the client */
            }
            return DETECT_YES;
        }
        if (r == DETECT_MORE) {
            best = DETECT_MORE;
        }
    }
    detect_result r = ldap_start(b, n);
    if (r == DETECT_YES) {
        s->proto = TLSNEG_STARTTLS_LDAP;
        s->server = (int8_t)(1 - d);
        return r;
    }
    best = r == DETECT_MORE ? r : best;
    r = mysql_start(b, n);
    if (r == DETECT_YES) {
        s->proto = TLSNEG_STARTTLS_MYSQL;
        s->server = (int8_t)d;
    }
    return r == DETECT_NO ? best : r;
}

/* ---- line protocols: SMTP, FTP, IMAP, POP3 ---- */

/* command: a client's line (b, n bytes of it kept, CR LF included). */
static void command(tlsneg_starttls *s, const uint8_t *b, size_t n)
{
    size_t len = line_end(b, n);
    switch (s->proto) {
    case TLSNEG_STARTTLS_LINES220:
        if (word_is(b, len, "starttls")) {
            s->pending = PEND_SMTP;
        } else if (word_is(b, len, "auth tls") || word_is(b, len, "auth ssl")) {
            s->pending = PEND_FTP;
        }
        break;
    case TLSNEG_STARTTLS_POP3:
        if (word_is(b, len, "stls")) {
            s->pending = PEND_POP3;
        }
        break;
    case TLSNEG_STARTTLS_IMAP: {
        /* tag SP "STARTTLS" (RFC 3501 6.2.1) */
        size_t sp = 0;
        while (sp < len && b[sp] != ' ') {
            sp++;
        }
        if (sp > 0 && sp <= sizeof s->tag &&
            word_is(b + sp + (sp < len), len - sp - (sp < len), "starttls")) {
            memcpy(s->tag, b, sp);
            s->tag_len = (uint8_t)sp;
            s->pending = PEND_IMAP;
        }
        break;
    }
    default:
        break;
    }
}

/* reply: a server's line while a command waits (b, n bytes of it kept). */
static unit_result reply(tlsneg_starttls *s, const uint8_t *b, size_t n)
{
    size_t len = line_end(b, n);
    bool yes = false, final = true;
    switch (s->pending) {
    case PEND_SMTP:
    case PEND_FTP:
        /* A reply is three digits; "xyz-" lines go on, "xyz " ends it. */
        if (len < 3 || b[0] < '0' || b[0] > '9' || b[1] < '0' || b[1] > '9' || b[2] < '0' ||
            b[2] > '9') {
            return UNIT_ON;
        }
        final = len == 3 || b[3] != '-';
        yes = memcmp(b, s->pending == PEND_SMTP ? "220" : "234", 3) == 0;
        break;
    case PEND_POP3:
        yes = starts_with(b, len, "+ok");
        final = yes || starts_with(b, len, "-err");
        break;
    case PEND_IMAP:
        /* Untagged ("* ...") and continuation lines go on; the tagged one
         * ends the command. */
        final = len > s->tag_len && b[s->tag_len] == ' ' && memcmp(b, s->tag, s->tag_len) == 0;
        yes = final && starts_with(b + s->tag_len + 1, len - s->tag_len - 1, "ok");
        break;
    default:
        return UNIT_ON;
    }
    if (!final) {
        return UNIT_ON;
    }
    s->pending = PEND_NONE; /* refused, or TLS now */
    return yes ? UNIT_TLS : UNIT_ON;
}

/* lines reads b (n bytes) as lines; *took stops after the reply that
 * starts TLS. */
static unit_result lines(tlsneg_starttls *s, int d, const uint8_t *b, size_t n, size_t *took)
{
    tlsneg_starttls_dir *x = &s->dir[d];
    size_t pos = 0;
    while (pos < n) {
        const uint8_t *nl = memchr(b + pos, '\n', n - pos);
        size_t end = nl ? (size_t)(nl - b) + 1 : n;
        size_t room = TLSNEG_STARTTLS_KEEP -
                      (x->kept < TLSNEG_STARTTLS_KEEP ? x->kept : TLSNEG_STARTTLS_KEEP);
        size_t part = end - pos < room ? end - pos : room;
        memcpy(x->keep + x->kept, b + pos, part);
        x->kept += (uint32_t)part;
        if (end - pos > part) {
            x->kept = TLSNEG_STARTTLS_KEEP; /* a long line: its start is kept */
        }
        pos = end;
        if (!nl) {
            break;
        }
        size_t kept = x->kept;
        x->kept = 0;
        if (d != s->server) {
            command(s, x->keep, kept);
        } else if (s->pending && reply(s, x->keep, kept) == UNIT_TLS) {
            *took = pos;
            return UNIT_TLS;
        }
    }
    *took = n;
    return UNIT_ON;
}

/* ---- XMPP: the <starttls/> element and its <proceed/> (RFC 6120 5.4) ---- */

enum { XML_TEXT, XML_NAME, XML_TAG };

/* tag_end: a tag whose name starts x->keep (x->kept bytes) ends here. */
static unit_result tag_end(tlsneg_starttls *s, int d, tlsneg_starttls_dir *x)
{
    const uint8_t *name = x->keep;
    size_t len = x->kept < TLSNEG_STARTTLS_KEEP ? x->kept : TLSNEG_STARTTLS_KEEP + 1;
    if (d != s->server) {
        if (word_is(name, len, "starttls")) {
            s->pending = PEND_XMPP;
        }
        return UNIT_ON;
    }
    if (s->pending != PEND_XMPP) {
        return UNIT_ON;
    }
    if ((word_is(name, len, "proceed") && x->slash) || word_is(name, len, "/proceed")) {
        s->pending = PEND_NONE;
        return UNIT_TLS;
    }
    if (word_is(name, len, "failure")) {
        s->pending = PEND_NONE;
    }
    return UNIT_ON;
}

/* xml scans b (n bytes) for the tags, an attribute value's quotes aside;
 * *took stops after the '>' of a <proceed/> (or </proceed>). */
static unit_result xml(tlsneg_starttls *s, int d, const uint8_t *b, size_t n, size_t *took)
{
    tlsneg_starttls_dir *x = &s->dir[d];
    for (size_t i = 0; i < n; i++) {
        uint8_t c = b[i];
        bool end = false;
        switch (x->xml) {
        case XML_TEXT:
            if (c == '<') {
                x->xml = XML_NAME;
                x->kept = 0;
                x->slash = false;
            }
            break;
        case XML_NAME:
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '>' ||
                (c == '/' && x->kept > 0)) {
                x->xml = XML_TAG;
                x->quote = 0;
                x->slash = c == '/';
                end = c == '>';
            } else if (x->kept < TLSNEG_STARTTLS_KEEP) {
                x->keep[x->kept++] = c;
            } else {
                x->kept = TLSNEG_STARTTLS_KEEP + 1; /* too long to be one we look for */
            }
            break;
        default:
            if (x->quote) {
                x->quote = c == x->quote ? 0 : x->quote;
            } else if (c == '\'' || c == '"') {
                x->quote = c;
            } else if (c == '>') {
                end = true;
            } else {
                x->slash = c == '/';
            }
            break;
        }
        if (end) {
            x->xml = XML_TEXT;
            if (tag_end(s, d, x) == UNIT_TLS) {
                *took = i + 1;
                return UNIT_TLS;
            }
        }
    }
    *took = n;
    return UNIT_ON;
}

/* ---- LDAP: the StartTLS extended operation (RFC 4511 4.14) ---- */

static const uint8_t starttls_oid[] = "1.3.6.1.4.1.1466.20037";

/* ber: reads a tag and a definite length at b[*at] (n bytes); false if
 * they do not fit. */
static bool ber(const uint8_t *b, size_t n, size_t *at, uint8_t *tag, size_t *len)
{
    if (*at + 2 > n) {
        return false;
    }
    *tag = b[*at];
    size_t l = b[*at + 1];
    *at += 2;
    if (l & 0x80) {
        size_t k = l & 0x7f;
        if (k == 0 || k > 4 || *at + k > n) {
            return false;
        }
        l = 0;
        for (size_t i = 0; i < k; i++) {
            l = l << 8 | b[(*at)++];
        }
    }
    *len = l;
    return true;
}

/* ldap_message: an LDAPMessage whose first bytes are b (n of them). */
static unit_result ldap_message(tlsneg_starttls *s, int d, const uint8_t *b, size_t n)
{
    size_t at = 0, len;
    uint8_t tag;
    if (!ber(b, n, &at, &tag, &len) || !ber(b, n, &at, &tag, &len) || tag != 0x02) {
        return UNIT_ON;
    }
    at += len; /* messageID */
    if (!ber(b, n, &at, &tag, &len)) {
        return UNIT_ON;
    }
    if (d != s->server) {
        /* ExtendedRequest ([APPLICATION 23]), requestName [0] */
        size_t olen;
        if (tag == 0x77 && ber(b, n, &at, &tag, &olen) && tag == 0x80 &&
            olen == sizeof starttls_oid - 1 && at + olen <= n &&
            memcmp(b + at, starttls_oid, olen) == 0) {
            s->pending = PEND_LDAP;
        }
        return UNIT_ON;
    }
    /* ExtendedResponse ([APPLICATION 24]): resultCode ENUMERATED first */
    if (s->pending != PEND_LDAP || tag != 0x78 || !ber(b, n, &at, &tag, &len) || tag != 0x0a ||
        len != 1 || at >= n) {
        return UNIT_ON;
    }
    s->pending = PEND_NONE;
    return b[at] == 0 ? UNIT_TLS : UNIT_ON;
}

/* ldap reads b (n bytes) as LDAPMessages, keeping the first bytes of each;
 * *took stops after the response that starts TLS. */
static unit_result ldap(tlsneg_starttls *s, int d, const uint8_t *b, size_t n, size_t *took)
{
    tlsneg_starttls_dir *x = &s->dir[d];
    size_t pos = 0;
    while (pos < n) {
        if (x->total == 0) {
            /* the header: SEQUENCE and a definite length (RFC 4511 5.1) */
            x->keep[x->kept++] = b[pos++];
            if (x->keep[0] != 0x30 || (x->kept >= 2 && x->keep[1] & 0x80 &&
                                       ((x->keep[1] & 0x7f) == 0 || (x->keep[1] & 0x7f) > 4))) {
                return UNIT_NOT;
            }
            size_t at = 0, len;
            uint8_t tag;
            if (ber(x->keep, x->kept, &at, &tag, &len)) {
                if (len > TLSNEG_STARTTLS_MAX_PREFIX) {
                    return UNIT_NOT; /* past the bound anyway */
                }
                x->total = (uint32_t)(at + len);
            }
            continue;
        }
        size_t want = x->total - x->kept;
        size_t part = n - pos < want ? n - pos : want;
        if (x->kept < TLSNEG_STARTTLS_KEEP) {
            size_t copy =
                TLSNEG_STARTTLS_KEEP - x->kept < part ? TLSNEG_STARTTLS_KEEP - x->kept : part;
            memcpy(x->keep + x->kept, b + pos, copy);
        }
        x->kept += (uint32_t)part;
        pos += part;
        if (x->kept == x->total) {
            size_t kept = x->kept < TLSNEG_STARTTLS_KEEP ? x->kept : TLSNEG_STARTTLS_KEEP;
            x->kept = x->total = 0;
            if (ldap_message(s, d, x->keep, kept) == UNIT_TLS) {
                *took = pos;
                return UNIT_TLS;
            }
        }
    }
    *took = n;
    return UNIT_ON;
}

/* ---- PostgreSQL: SSLRequest and its one-byte answer (protocol 53.2.10) ---- */

static unit_result pgsql(tlsneg_starttls *s, int d, const uint8_t *b, size_t n, size_t *took)
{
    tlsneg_starttls_dir *x = &s->dir[d];
    *took = 0;
    if (n == 0) {
        return UNIT_ON;
    }
    if (d == s->server) {
        /* 'S': TLS from the next byte; 'N': refused, and after a refused
         * GSSENCRequest the client may ask for TLS; anything else: the
         * server speaks the protocol (or GSSAPI) from here. */
        if (!s->pending) {
            *took = 0;
            return UNIT_NOT;
        }
        *took = n;
        uint8_t pending = s->pending;
        s->pending = PEND_NONE;
        if (b[0] == 'S' && pending == PEND_PGSQL_SSL) {
            *took = 1;
            return UNIT_TLS;
        }
        /* 'N' alone: refused, the client asks again or goes on in plaintext */
        return b[0] == 'N' && n == 1 ? UNIT_ON : UNIT_NOT;
    }
    /* The client: 8-byte requests, until anything else (its startup
     * message, after which nothing switches). */
    size_t pos = 0;
    while (pos < n) {
        x->keep[x->kept++] = b[pos++];
        if (x->kept < 8) {
            continue;
        }
        x->kept = 0;
        if (memcmp(x->keep, "\x00\x00\x00\x08\x04\xd2\x16", 7) != 0 || s->pending) {
            return UNIT_NOT;
        }
        if (x->keep[7] == 0x2f) {
            s->pending = PEND_PGSQL_SSL;
        } else if (x->keep[7] == 0x30) {
            s->pending = PEND_PGSQL_GSS;
        } else {
            return UNIT_NOT;
        }
    }
    *took = n;
    return UNIT_ON;
}

/* ---- MySQL: the client's SSL request (a 32-byte login packet with
 * CLIENT_SSL, 0x0800), after which both sides speak TLS at once ---- */

static unit_result mysql(tlsneg_starttls *s, int d, const uint8_t *b, size_t n, size_t *took)
{
    tlsneg_starttls_dir *x = &s->dir[d];
    *took = n;
    if (d == s->server) {
        return UNIT_ON; /* its greeting: nothing to find */
    }
    size_t pos = 0;
    while (pos < n) {
        if (x->total == 0) {
            x->keep[x->kept++] = b[pos++];
            if (x->kept < 8) {
                continue;
            }
            size_t len = (size_t)x->keep[0] | (size_t)x->keep[1] << 8 | (size_t)x->keep[2] << 16;
            if (x->keep[3] != 1 || len != 32 || !(x->keep[5] & 0x08)) {
                return UNIT_NOT; /* a login without TLS: nothing switches after it */
            }
            x->total = 4 + 32;
            continue;
        }
        size_t part = n - pos < x->total - x->kept ? n - pos : x->total - x->kept;
        x->kept += (uint32_t)part;
        pos += part;
        if (x->kept == x->total) {
            *took = pos;
            return UNIT_TLS;
        }
    }
    return UNIT_ON;
}

/* ---- the machine ---- */

/* unit: the bytes of endpoint d after its first ones told the protocol. */
static unit_result unit(tlsneg_starttls *s, int d, const uint8_t *b, size_t n, size_t *took)
{
    switch (s->proto) {
    case TLSNEG_STARTTLS_LINES220:
    case TLSNEG_STARTTLS_IMAP:
    case TLSNEG_STARTTLS_POP3:
        return lines(s, d, b, n, took);
    case TLSNEG_STARTTLS_XMPP:
        return xml(s, d, b, n, took);
    case TLSNEG_STARTTLS_LDAP:
        return ldap(s, d, b, n, took);
    case TLSNEG_STARTTLS_PGSQL:
        return pgsql(s, d, b, n, took);
    case TLSNEG_STARTTLS_MYSQL:
        return mysql(s, d, b, n, took);
    default:
        return UNIT_NOT;
    }
}

/* first: endpoint d's first bytes while the protocol is unknown, kept
 * until they tell it (then they are read again, as its). */
static detect_result first(tlsneg_starttls *s, int d, int client, const uint8_t *b, size_t n)
{
    tlsneg_starttls_dir *x = &s->dir[d];
    size_t part = TLSNEG_STARTTLS_KEEP - x->kept < n ? TLSNEG_STARTTLS_KEEP - x->kept : n;
    memcpy(x->keep + x->kept, b, part);
    detect_result r = detect(s, d, client, x->keep, x->kept + part);
    if (r == DETECT_MORE) {
        x->kept += (uint32_t)part;
        return part < n ? DETECT_NO : DETECT_MORE;
    }
    return r;
}

tlsneg_starttls_result tlsneg_starttls_feed(tlsneg_starttls *s, int d, int client, const uint8_t *b,
                                            size_t n, size_t *took)
{
    tlsneg_starttls_dir *x = &s->dir[d];
    *took = 0;
    if (s->over) {
        return TLSNEG_STARTTLS_NOT;
    }
    if (n == 0) {
        return TLSNEG_STARTTLS_PLAIN;
    }
    size_t room = TLSNEG_STARTTLS_MAX_PREFIX - x->seen;
    size_t m = n < room ? n : room;
    unit_result r = UNIT_ON;
    if (s->proto == TLSNEG_STARTTLS_UNKNOWN) {
        detect_result dr = first(s, d, client, b, m);
        if (dr == DETECT_NO) {
            s->over = true;
            return TLSNEG_STARTTLS_NOT;
        }
        if (dr == DETECT_MORE) {
            x->seen += (uint32_t)m;
            *took = m;
            s->over = m < n;
            return m < n ? TLSNEG_STARTTLS_TOO_LONG : TLSNEG_STARTTLS_PLAIN;
        }
    }
    if (!x->read) {
        /* The bytes kept while the protocol was not known (this side's or
         * the other's first bytes told it), then the rest, as its. */
        x->read = true;
        uint8_t head[TLSNEG_STARTTLS_KEEP];
        size_t k = x->kept < TLSNEG_STARTTLS_KEEP ? x->kept : TLSNEG_STARTTLS_KEEP, t = 0;
        memcpy(head, x->keep, k);
        x->kept = 0;
        r = unit(s, d, head, k, &t);
        if ((r == UNIT_TLS && t < k) || r == UNIT_NOT) {
            s->over = true; /* TLS inside bytes already taken: not ours to read */
            return TLSNEG_STARTTLS_NOT;
        }
    }
    size_t t = 0;
    if (r == UNIT_ON) {
        r = unit(s, d, b, m, &t);
    }
    if (r == UNIT_NOT) {
        s->over = true;
        return TLSNEG_STARTTLS_NOT;
    }
    x->seen += (uint32_t)t;
    *took = t;
    if (r == UNIT_TLS) {
        s->tls[d] = true;
        s->tls[1 - d] = true;
        s->over = true; /* nothing more is plaintext */
        return TLSNEG_STARTTLS_TLS;
    }
    if (m < n) {
        s->over = true;
        return TLSNEG_STARTTLS_TOO_LONG;
    }
    return TLSNEG_STARTTLS_PLAIN;
}
