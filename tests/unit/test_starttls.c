/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_starttls.c: the STARTTLS machine of tlsneg-pcap (tlsneg-pcap/
 * starttls.c) on the dialogs of real captures (starttls_dialogs.h), each
 * fed whole, byte by byte and in 7-byte pieces (a command or reply that
 * straddles segments), with the client as endpoint 0 or 1, known or not:
 * where each side's TLS starts, that a refused command leaves the stream
 * plaintext, the 8 KB bound, and that a stream of another protocol is
 * given up at once. */
#include <stdbool.h>
#include <string.h>

#include "starttls.h"
#include "starttls_dialogs.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
/* A step of text written here (a string literal). */
#define TEXT(from, s) ((step){from, s, sizeof(s) - 1})

typedef struct {
    int tls_step;        /* the server's step where TLS starts, -1 none */
    size_t tls_at;       /* the offset in it of TLS's first byte */
    int client_tls_step; /* the client's first step after the switch, -1 none */
    int end;             /* the first result other than PLAIN, or PLAIN */
    int end_step;
    bool tls_plain; /* a step after the switch was fed (never) */
} outcome;

/* run feeds the steps in pieces of chunk bytes (0: whole) with the client
 * as endpoint swap (0 or 1), told to the machine if hint. */
static outcome run(const step *st, size_t n, size_t chunk, int swap, bool hint)
{
    tlsneg_starttls s;
    tlsneg_starttls_init(&s);
    outcome o = {-1, 0, -1, TLSNEG_STARTTLS_PLAIN, -1, false};
    bool stop[2] = {false, false};
    for (size_t i = 0; i < n; i++) {
        int d = st[i].from ^ swap;
        if (tlsneg_starttls_is_tls(&s, d)) {
            if (st[i].from == CLIENT && o.client_tls_step < 0) {
                o.client_tls_step = (int)i;
            }
            continue;
        }
        if (stop[d]) {
            continue;
        }
        size_t pos = 0;
        while (pos < st[i].len) {
            size_t k = chunk && chunk < st[i].len - pos ? chunk : st[i].len - pos, took = 0;
            tlsneg_starttls_result r = tlsneg_starttls_feed(
                &s, d, hint ? swap : -1, (const uint8_t *)st[i].b + pos, k, &took);
            if (r == TLSNEG_STARTTLS_TLS) {
                o.tls_step = (int)i;
                o.tls_at = pos + took;
                break;
            }
            if (r != TLSNEG_STARTTLS_PLAIN) {
                if (o.end == TLSNEG_STARTTLS_PLAIN) {
                    o.end = r;
                    o.end_step = (int)i;
                }
                stop[d] = true;
                break;
            }
            if (took != k) {
                o.tls_plain = true;
            }
            pos += k;
        }
    }
    return o;
}

static bool eq(const outcome *a, const outcome *b)
{
    return a->tls_step == b->tls_step && a->tls_at == b->tls_at &&
           a->client_tls_step == b->client_tls_step && a->end == b->end &&
           a->end_step == b->end_step && a->tls_plain == b->tls_plain;
}

/* same: the outcome does not depend on how the bytes are cut, on which
 * endpoint is the client, or on whether the machine is told. */
static bool same(const step *st, size_t n, outcome *out)
{
    outcome first = run(st, n, 0, 0, false);
    static const size_t chunks[] = {0, 1, 7};
    bool all = true;
    for (size_t c = 0; c < N(chunks); c++) {
        for (int swap = 0; swap < 2; swap++) {
            for (int hint = 0; hint < 2; hint++) {
                outcome o = run(st, n, chunks[c], swap, hint);
                all = all && eq(&o, &first);
            }
        }
    }
    *out = first;
    return all;
}

static bool tls_record(const step *s)
{
    return s->len >= 3 && s->b[0] == 0x16 && s->b[1] == 0x03;
}

/* switched: TLS starts right after the server's reply of step reply (the
 * whole step), and the client's next step is its ClientHello. */
static void switched(const char *name, const step *st, size_t n, int reply)
{
    outcome o;
    bool stable = same(st, n, &o);
    ok(stable,
       "%s: the same outcome whole, byte by byte, in 7-byte pieces, either endpoint the "
       "client, told or not",
       name);
    ok(o.tls_step == reply && o.tls_at == st[reply].len,
       "%s: TLS starts right after step %d, the positive reply (MySQL: the SSL request; got "
       "step %d, byte %zu)",
       name, reply, o.tls_step, o.tls_at);
    ok(o.client_tls_step > reply && tls_record(&st[o.client_tls_step]) &&
           st[o.client_tls_step].b[5] == 1,
       "%s: the client's next bytes, a ClientHello, are TLS (step %d)", name, o.client_tls_step);
    ok(reply + 1 < (int)n && tls_record(&st[reply + 1]) == (st[reply + 1].from == CLIENT),
       "%s: the bytes read as plaintext are none of TLS's", name);
    ok(!o.tls_plain && o.end == TLSNEG_STARTTLS_PLAIN, "%s: nothing else ends the plaintext", name);
}

static void dialogs(void)
{
    switched("SMTP, postfix and swaks", smtp_swaks, N(smtp_swaks), 4);
    switched("IMAP, dovecot and curl", imap_curl, N(imap_curl), 4);
    switched("IMAP, dovecot and openssl s_client (tag '.')", imap_openssl, N(imap_openssl), 4);
    switched("POP3, dovecot and openssl s_client", pop3_openssl, N(pop3_openssl), 2);
    switched("PostgreSQL, psql", pgsql_psql, N(pgsql_psql), 1);
    switched("XMPP, prosody and openssl s_client", xmpp_openssl, N(xmpp_openssl), 3);
    switched("FTP, vsftpd and curl (AUTH SSL)", ftp_curl, N(ftp_curl), 2);
    switched("FTP, vsftpd and lftp (AUTH TLS after FEAT)", ftp_lftp, N(ftp_lftp), 15);
    switched("LDAP, slapd and ldapsearch -ZZ", ldap_ldapsearch, N(ldap_ldapsearch), 1);
    /* MySQL: the client's SSL request itself, after the greeting */
    switched("MySQL, MariaDB and its client", mysql_mariadb, N(mysql_mariadb), 1);

    outcome o;
    bool stable = same(smtp_refused, N(smtp_refused), &o);
    ok(stable && o.tls_step < 0 && o.end == TLSNEG_STARTTLS_PLAIN,
       "SMTP, STARTTLS refused by postfix (454, no key): plaintext to the end");
    stable = same(smtp_not_offered, N(smtp_not_offered), &o);
    ok(stable && o.tls_step < 0 && o.client_tls_step < 0 && o.end == TLSNEG_STARTTLS_PLAIN,
       "SMTP, STARTTLS answered 502 and a ClientHello sent anyway (s_client): the session "
       "stays plaintext, the ClientHello's bytes are not TLS to it");
    stable = same(pgsql_refused, N(pgsql_refused), &o);
    ok(stable && o.tls_step < 0 && o.end == TLSNEG_STARTTLS_NOT && o.end_step == 2,
       "PostgreSQL, SSLRequest answered 'N': plaintext; given up at the startup message "
       "(step 2, nothing switches after it), got step %d",
       o.end_step);
    step my[N(mysql_no_ssl)];
    memcpy(my, mysql_no_ssl, sizeof my);
    my[0] = mysql_mariadb[0];
    stable = same(my, N(my), &o);
    ok(stable && o.tls_step < 0 && o.end == TLSNEG_STARTTLS_NOT && o.end_step == 1,
       "MySQL, a login request without CLIENT_SSL: given up there (nothing switches after it)");
}

/* A refused command leaves the stream plaintext, and a retry may still
 * succeed: the swaks dialog with postfix's real 454 (starttls-smtp-refused)
 * before the 220. */
static void refused_then_retry(void)
{
    step st[N(smtp_swaks) + 2];
    memcpy(st, smtp_swaks, 4 * sizeof st[0]);
    st[4] = smtp_refused[4];
    st[5] = smtp_swaks[3];
    memcpy(st + 6, smtp_swaks + 4, (N(smtp_swaks) - 4) * sizeof st[0]);
    switched("SMTP, STARTTLS refused (454), then again and 220", st, N(st), 6);

    /* IMAP: tagged NO, untagged lines and another tag's reply in between */
    step im[N(imap_curl) + 2];
    memcpy(im, imap_curl, 4 * sizeof im[0]);
    im[4] = TEXT(SERVER, "* BYE not now\r\nA001 OK old\r\nA002 NO [UNAVAILABLE] later\r\n");
    im[5] = TEXT(CLIENT, "A003 STARTTLS\r\n");
    im[6] = TEXT(SERVER, "* OK still here\r\nA003 OK Begin TLS negotiation now.\r\n");
    memcpy(im + 7, imap_curl + 5, (N(imap_curl) - 5) * sizeof im[0]);
    switched("IMAP, STARTTLS refused (NO), untagged lines, then again and OK", im, N(im), 6);

    /* XMPP: <failure/> leaves it plaintext; a <proceed> with an end tag */
    step xm[N(xmpp_openssl) + 2];
    memcpy(xm, xmpp_openssl, 3 * sizeof xm[0]);
    xm[3] = TEXT(SERVER, "<failure xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>");
    xm[4] = xmpp_openssl[2];
    xm[5] = TEXT(SERVER, "<proceed xmlns=\"urn:ietf:params:xml:ns:xmpp-tls\" a='>'></proceed>");
    memcpy(xm + 6, xmpp_openssl + 4, 2 * sizeof xm[0]);
    switched("XMPP, <failure/>, then <starttls/> again and <proceed></proceed>", xm, N(xm), 5);

    /* LDAP: resultCode protocolError (2), then the request again and success */
    uint8_t no[14];
    memcpy(no, ldap_ldapsearch[1].b, sizeof no);
    no[9] = 2;
    step ld[N(ldap_ldapsearch) + 2];
    ld[0] = ldap_ldapsearch[0];
    ld[1] = (step){SERVER, (const char *)no, sizeof no};
    memcpy(ld + 2, ldap_ldapsearch, N(ldap_ldapsearch) * sizeof ld[0]);
    switched("LDAP, StartTLS refused (resultCode 2), then again and success", ld, N(ld), 3);

    /* A multi-line 220 reply: TLS after its last line. */
    step ml[N(smtp_swaks)];
    memcpy(ml, smtp_swaks, sizeof ml);
    ml[4] = TEXT(SERVER, "220-2.0.0 Ready\r\n220 2.0.0 to start TLS\r\n");
    switched("SMTP, a two-line 220 reply", ml, N(ml), 4);
}

/* Over 8 KB of plaintext in a direction: given up; and a stream of
 * another protocol is given up at its first bytes. */
static void bounds(void)
{
    static char lines[9000];
    for (size_t i = 0; i < sizeof lines; i += 10) {
        memcpy(lines + i, "NOOP    \r\n", 10);
    }
    step st[] = {smtp_swaks[0], {CLIENT, lines, sizeof lines}};
    outcome o;
    bool stable = same(st, N(st), &o);
    ok(stable && o.end == TLSNEG_STARTTLS_TOO_LONG && o.end_step == 1,
       "9,000 bytes of SMTP commands: given up past %d bytes", TLSNEG_STARTTLS_MAX_PREFIX);
    step http[] = {TEXT(CLIENT, "GET / HTTP/1.1\r\nHost: example.test\r\n\r\n")};
    stable = same(http, N(http), &o);
    ok(stable && o.end == TLSNEG_STARTTLS_NOT && o.end_step == 0,
       "an HTTP request: no protocol with STARTTLS, given up at once");
    /* After the switch nothing is plaintext: the machine reads no more. */
    tlsneg_starttls s;
    tlsneg_starttls_init(&s);
    size_t took;
    tlsneg_starttls_feed(&s, 1, -1, (const uint8_t *)pop3_openssl[0].b, pop3_openssl[0].len, &took);
    tlsneg_starttls_feed(&s, 0, -1, (const uint8_t *)"STLS\r\n", 6, &took);
    tlsneg_starttls_result r =
        tlsneg_starttls_feed(&s, 1, -1, (const uint8_t *)"+OK go\r\n+OK", 11, &took);
    ok(r == TLSNEG_STARTTLS_TLS && took == 8 && tlsneg_starttls_is_tls(&s, 0) &&
           tlsneg_starttls_feed(&s, 1, -1, (const uint8_t *)"+OK", 3, &took) == TLSNEG_STARTTLS_NOT,
       "POP3: TLS right after the +OK line, in the same segment; nothing read after");
}

/* mutated: every dialog with each of its plaintext bytes replaced by
 * bytes that mean something to one of the readers (run under ASan and
 * UBSan in the sanitizer build): the machine stays inside its bytes, and
 * never says TLS starts beyond what it was given. */
static void mutated(void)
{
    static const struct {
        const step *st;
        size_t n;
    } all[] = {
        {smtp_swaks, N(smtp_swaks)},
        {smtp_refused, N(smtp_refused)},
        {imap_curl, N(imap_curl)},
        {pop3_openssl, N(pop3_openssl)},
        {pgsql_psql, N(pgsql_psql)},
        {pgsql_refused, N(pgsql_refused)},
        {xmpp_openssl, N(xmpp_openssl)},
        {ftp_lftp, N(ftp_lftp)},
        {ldap_ldapsearch, N(ldap_ldapsearch)},
        {mysql_mariadb, N(mysql_mariadb)},
    };
    static const uint8_t with[] = {0x00, 0x80, 0xff, 0x30, '\n', '<', '>', '/', ' ', 'S', 0x16};
    size_t runs = 0;
    bool inside = true;
    for (size_t a = 0; a < N(all); a++) {
        for (size_t i = 0; i < all[a].n && !tls_record(&all[a].st[i]); i++) {
            uint8_t buf[512];
            size_t len = all[a].st[i].len < sizeof buf ? all[a].st[i].len : sizeof buf;
            for (size_t at = 0; at < len; at++) {
                for (size_t w = 0; w < N(with); w++) {
                    step st[32];
                    memcpy(st, all[a].st, all[a].n * sizeof st[0]);
                    memcpy(buf, all[a].st[i].b, len);
                    buf[at] = with[w];
                    st[i] = (step){all[a].st[i].from, (const char *)buf, len};
                    for (size_t chunk = 0; chunk < 2; chunk++) {
                        outcome o = run(st, all[a].n, chunk, 0, false);
                        runs++;
                        inside = inside && (o.tls_step < 0 || o.tls_at <= st[o.tls_step].len);
                    }
                }
            }
        }
    }
    ok(inside, "%zu runs of mutated dialogs: TLS never starts beyond the bytes given", runs);
}

int main(void)
{
    dialogs();
    refused_then_retry();
    bounds();
    mutated();
    return tap_done();
}
