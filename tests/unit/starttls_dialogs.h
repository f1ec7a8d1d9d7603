/* SPDX-License-Identifier: GPL-2.0-or-later */
/* starttls_dialogs.h: the plaintext dialogs of the real STARTTLS captures
 * (pcaps/starttls-*.pcap, pcaps/README-starttls.md: postfix 3.7, dovecot 2.3,
 * PostgreSQL 15, vsftpd 3.0.3, prosody 0.12, slapd 2.5, MariaDB 10.11 with
 * swaks, curl, openssl s_client, psql, lftp, ldapsearch, mariadb), each TCP
 * payload as it was sent, up to the first 16 bytes of each side's first TLS
 * record, for unit.starttls. Taken with tshark -T fields -e tcp.payload. */
#ifndef TLSNEG_STARTTLS_DIALOGS_H
#define TLSNEG_STARTTLS_DIALOGS_H

#include <stddef.h>

enum { CLIENT = 0, SERVER = 1 };

typedef struct {
    int from;
    const char *b;
    size_t len;
} step;

/* starttls-smtp-swaks.pcap: frames 4, 6, 8, 9, 10, 11, 12 */
static const step smtp_swaks[] = {
    {SERVER, "220 mail.example.test ESMTP\r\n", 29},
    {CLIENT, "EHLO client.example.test\r\n", 26},
    {SERVER,
     "250-mail.example.test\r\n"
     "250-PIPELINING\r\n"
     "250-SIZE 10240000\r\n"
     "250-VRFY\r\n"
     "250-ETRN\r\n"
     "250-STARTTLS\r\n"
     "250-ENHANCEDSTATUSCODES\r\n"
     "250-8BITMIME\r\n"
     "250-DSN\r\n"
     "250-SMTPUTF8\r\n"
     "250 CHUNKING\r\n",
     168},
    {CLIENT, "STARTTLS\r\n", 10},
    {SERVER, "220 2.0.0 Ready to start TLS\r\n", 30},
    {CLIENT, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03P\x7f\xbc-Q", 16},
    {SERVER,
     "\x16\x03\x03\x00z\x02\x00\x00v\x03\x03"
     "3\xbc\xcd>\xe4",
     16},
};

/* starttls-smtp-refused.pcap: frames 4, 6, 8, 9, 10 */
static const step smtp_refused[] = {
    {SERVER, "220 mail.example.test ESMTP\r\n", 29},
    {CLIENT, "EHLO client.example.test\r\n", 26},
    {SERVER,
     "250-mail.example.test\r\n"
     "250-PIPELINING\r\n"
     "250-SIZE 10240000\r\n"
     "250-VRFY\r\n"
     "250-ETRN\r\n"
     "250-STARTTLS\r\n"
     "250-ENHANCEDSTATUSCODES\r\n"
     "250-8BITMIME\r\n"
     "250-DSN\r\n"
     "250-SMTPUTF8\r\n"
     "250 CHUNKING\r\n",
     168},
    {CLIENT, "STARTTLS\r\n", 10},
    {SERVER, "454 4.7.0 TLS not available due to local problem\r\n", 50},
};

/* starttls-imap-curl.pcap: frames 4, 6, 8, 9, 11, 12, 14 */
static const step imap_curl[] = {
    {SERVER,
     "* OK [CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE LITERAL+ STARTTLS "
     "LOGINDISABLED] Dovecot (Debian) ready.\r\n",
     124},
    {CLIENT, "A001 CAPABILITY\r\n", 17},
    {SERVER,
     "* CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE LITERAL+ STARTTLS "
     "LOGINDISABLED\r\n"
     "A001 OK Pre-login capabilities listed, post-login capabilities have more.\r\n",
     170},
    {CLIENT, "A002 STARTTLS\r\n", 15},
    {SERVER, "A002 OK Begin TLS negotiation now.\r\n", 36},
    {CLIENT, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\x10R\xaa\xbd]", 16},
    {SERVER, "\x16\x03\x03\x00z\x02\x00\x00v\x03\x03\x1a\x00\xadz2", 16},
};

/* starttls-imap-tls10-refused.pcap: frames 4, 6, 8, 9, 11, 12 */
static const step imap_openssl[] = {
    {SERVER,
     "* OK [CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE LITERAL+ STARTTLS "
     "LOGINDISABLED] Dovecot (Debian) ready.\r\n",
     124},
    {CLIENT, ". CAPABILITY\r\n", 14},
    {SERVER,
     "* CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE LITERAL+ STARTTLS "
     "LOGINDISABLED\r\n"
     ". OK Pre-login capabilities listed, post-login capabilities have more.\r\n",
     167},
    {CLIENT, ". STARTTLS\r\n", 12},
    {SERVER, ". OK Begin TLS negotiation now.\r\n", 33},
    {CLIENT,
     "\x16\x03\x01\x00}\x01\x00\x00y\x03\x01m\x05"
     "ed\xfd",
     16},
};

/* starttls-pop3-openssl.pcap: frames 4, 6, 8, 9, 11 */
static const step pop3_openssl[] = {
    {SERVER, "+OK Dovecot (Debian) ready.\r\n", 29},
    {CLIENT, "STLS\r\n", 6},
    {SERVER, "+OK Begin TLS negotiation now.\r\n", 32},
    {CLIENT, "\x16\x03\x01\x01>\x01\x00\x01:\x03\x03TC\x9d\xea\x94", 16},
    {SERVER, "\x16\x03\x03\x00z\x02\x00\x00v\x03\x03K\x5c\x9c\x05\xfc", 16},
};

/* starttls-postgres-psql.pcap: frames 4, 6, 8, 9 */
static const step pgsql_psql[] = {
    {CLIENT, "\x00\x00\x00\x08\x04\xd2\x16/", 8},
    {SERVER, "S", 1},
    {CLIENT, "\x16\x03\x01\x01 \x01\x00\x01\x1c\x03\x03Hy\xae\x1d\xac", 16},
    {SERVER, "\x16\x03\x03\x00X\x02\x00\x00T\x03\x03\xcf!\xadt\xe5", 16},
};

/* starttls-postgres-refused.pcap: frames 4, 6, 8, 9, 10, 11, 12 */
static const step pgsql_refused[] = {
    {CLIENT, "\x00\x00\x00\x08\x04\xd2\x16/", 8},
    {SERVER, "N", 1},
    {CLIENT,
     "\x00\x00\x00\x3f\x00\x03\x00\x00user\x00postgres\x00"
     "database\x00postgres\x00"
     "application_name\x00psql\x00\x00",
     63},
    {SERVER,
     "R\x00\x00\x00\x08\x00\x00\x00\x00S\x00\x00\x00\x1a"
     "application_name\x00psql\x00S\x00\x00\x00\x19"
     "client_encoding\x00UTF8\x00S\x00\x00\x00\x17"
     "DateStyle\x00ISO, "
     "MDY\x00S\x00\x00\x00&default_transaction_read_only\x00off\x00S\x00\x00\x00\x17in_hot_"
     "standby\x00off\x00S\x00\x00\x00\x19integer_"
     "datetimes\x00on\x00S\x00\x00\x00\x1bIntervalStyle\x00postgres\x00S\x00\x00\x00\x14is_"
     "superuser\x00on\x00S\x00\x00\x00\x19server_encoding\x00UTF8\x00S\x00\x00\x00"
     "2server_version\x00"
     "15.18 (Debian "
     "15.18-0+deb12u1)\x00S\x00\x00\x00#session_authorization\x00postgres\x00S\x00\x00\x00#"
     "standard_conforming_strings\x00on\x00S\x00\x00\x00\x15TimeZone\x00"
     "Etc/UTC\x00K\x00\x00\x00\x0c\x00\x00#)\xd0\x95\xcf\x22Z\x00\x00\x00\x05I",
     414},
    {CLIENT, "Q\x00\x00\x00\rselect 1\x00", 14},
    {SERVER,
     "T\x00\x00\x00!\x00\x01\x3f"
     "column\x3f\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x17\x00\x04\xff\xff\xff\xff\x00\x00"
     "D\x00\x00\x00\x0b\x00\x01\x00\x00\x00\x01"
     "1C\x00\x00\x00\rSELECT 1\x00Z\x00\x00\x00\x05I",
     66},
    {CLIENT, "X\x00\x00\x00\x04", 5},
};

/* starttls-xmpp-openssl.pcap: frames 4, 6, 8, 9, 10, 11 */
static const step xmpp_openssl[] = {
    {CLIENT,
     "<stream:stream xmlns:stream='http://etherx.jabber.org/streams' xmlns='jabber:client' "
     "to='example.test' version='1.0'>",
     117},
    {SERVER,
     "<\x3fxml version='1.0'\x3f><stream:stream xml:lang='en' "
     "id='4f140bcb-5ade-4b3b-8754-8269793bbb7d' from='example.test' "
     "xmlns:stream='http://etherx.jabber.org/streams' xmlns='jabber:client' "
     "version='1.0'><stream:features><starttls "
     "xmlns='urn:ietf:params:xml:ns:xmpp-tls'><required/></starttls></stream:features>",
     303},
    {CLIENT, "<starttls xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>", 51},
    {SERVER, "<proceed xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>", 50},
    {CLIENT,
     "\x16\x03\x01\x01"
     "9\x01\x00\x01"
     "5\x03\x03\xfe"
     "c\xd3rP",
     16},
    {SERVER,
     "\x16\x03\x03\x00z\x02\x00\x00v\x03\x03M\x9ai\x0f"
     "6",
     16},
};

/* starttls-ftp-curl.pcap: frames 4, 6, 8, 9, 10 */
static const step ftp_curl[] = {
    {SERVER, "220 (vsFTPd 3.0.3)\r\n", 20},
    {CLIENT, "AUTH SSL\r\n", 10},
    {SERVER, "234 Proceed with negotiation.\r\n", 31},
    {CLIENT, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03*\x09\xdd;\xec", 16},
    {SERVER, "\x16\x03\x03\x00X\x02\x00\x00T\x03\x03\xcf!\xadt\xe5", 16},
};

/* starttls-ftp-lftp.pcap: frames 4, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 23, 24, 26, 27, 29, 30
 */
static const step ftp_lftp[] = {
    {SERVER, "220 (vsFTPd 3.0.3)\r\n", 20},
    {CLIENT, "FEAT\r\n", 6},
    {SERVER, "211-Features:\r\n", 15},
    {SERVER, " AUTH TLS\r\n", 11},
    {SERVER, " EPRT\r\n", 7},
    {SERVER, " EPSV\r\n", 7},
    {SERVER, " MDTM\r\n", 7},
    {SERVER, " PASV\r\n", 7},
    {SERVER, " PBSZ\r\n", 7},
    {SERVER, " PROT\r\n", 7},
    {SERVER, " REST STREAM\r\n", 14},
    {SERVER, " SIZE\r\n", 7},
    {SERVER, " TVFS\r\n", 7},
    {SERVER, "211 End\r\n", 9},
    {CLIENT, "AUTH TLS\r\n", 10},
    {SERVER, "234 Proceed with negotiation.\r\n", 31},
    {CLIENT,
     "\x16\x03\x01\x01\x82\x01\x00\x01~\x03\x03\x9c"
     "bJ\x94\xc0",
     16},
    {SERVER,
     "\x16\x03\x03\x00\x9b\x02\x00\x00\x97\x03\x03\xdby \x22"
     "c",
     16},
};

/* starttls-ldap-ldapsearch.pcap: frames 4, 6, 8, 9 */
static const step ldap_ldapsearch[] = {
    {CLIENT,
     "0\x1d\x02\x01\x01w\x18\x80\x16"
     "1.3.6.1.4.1.1466.20037",
     31},
    {SERVER,
     "0\x0c\x02\x01\x01x\x07\n"
     "\x01\x00\x04\x00\x04\x00",
     14},
    {CLIENT,
     "\x16\x03\x01\x01p\x01\x00\x01l\x03\x03\x88"
     "5\xfdG\xc7",
     16},
    {SERVER, "\x16\x03\x03\x00\x9b\x02\x00\x00\x97\x03\x03\xde\xff\xba\x10\xf9", 16},
};

/* starttls-mysql-mariadb.pcap: frames 4, 6, 8, 10 */
static const step mysql_mariadb[] = {
    {SERVER,
     "d\x00\x00\x00\n"
     "5.5.5-10.11.19-MariaDB-0+deb12u1\x00\x03\x00\x00\x00R7[F,"
     "HeD\x00\xfe\xff\x08\x02\x00\xff\x81\x15\x00\x00\x00\x00\x00\x00\x1d\x00\x00\x00"
     "bA^5-!\x5c"
     "0u!@`\x00mysql_native_password\x00",
     104},
    {CLIENT,
     " \x00\x00\x01\x84\xaa\xbf\x00\x00\x00\x10\x00!"
     "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x1d\x00\x00\x00",
     36},
    {CLIENT, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\x0ei\x22\x1c\x8d", 16},
    {SERVER, "\x16\x03\x03\x00z\x02\x00\x00v\x03\x03n\xe1\x8c\x10\xaa", 16},
};

/* starttls-smtp-not-offered.pcap: frames 4, 6, 8, 9, 10, 11, 12 */
static const step smtp_not_offered[] = {
    {SERVER, "220 mail.example.test ESMTP\r\n", 29},
    {CLIENT, "EHLO client.example.test\r\n", 26},
    {SERVER,
     "250-mail.example.test\r\n"
     "250-PIPELINING\r\n"
     "250-SIZE 10240000\r\n"
     "250-VRFY\r\n"
     "250-ETRN\r\n"
     "250-ENHANCEDSTATUSCODES\r\n"
     "250-8BITMIME\r\n"
     "250-DSN\r\n"
     "250-SMTPUTF8\r\n"
     "250 CHUNKING\r\n",
     154},
    {CLIENT, "STARTTLS\r\n", 10},
    {SERVER, "502 5.5.1 Error: command not implemented\r\n", 42},
    {CLIENT,
     "\x16\x03\x01\x01>\x01\x00\x01:\x03\x03\x04U\xd8\xf3"
     "A",
     16},
    {SERVER,
     "500 5.5.2 Error: bad UTF-8 syntax\r\n"
     "500 5.5.2 Error: bad UTF-8 syntax\r\n"
     "500 5.5.2 Error: bad syntax\r\n"
     "500 5.5.2 Error: bad UTF-8 syntax\r\n",
     134},
};

/* starttls-mysql-mariadb's server (MariaDB 10.11.19) and client with
 * --skip-ssl, on loopback: its login request's first 32 bytes (188 bytes
 * of payload). */
static const step mysql_no_ssl[] = {
    {SERVER, NULL, 0}, /* mysql_mariadb's greeting, filled in by the test */
    {CLIENT,
     "\xbc\x00\x00\x01\x84\xa2\xbf\x00\x00\x00\x10\x00!\x00\x00\x00\x00\x00\x00\x00"
     "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
     32},
};

#endif
