/* SPDX-License-Identifier: GPL-2.0-or-later */
/* facts.h: what one hello says about version negotiation, derived from a
 * parse: the versions on each field, the highest one offered, the one put in
 * force, SNI, GREASE, TLS_FALLBACK_SCSV and the downgrade sentinel. These are
 * the values tlsneg shows; the tree, the checks and the reports all read them
 * from here. */
#ifndef TLSNEG_FACTS_H
#define TLSNEG_FACTS_H

#include "hello.h"

/* supported_versions<2..254> holds at most 127 versions. */
#define TLSNEG_MAX_OFFERED 127
/* GREASE values kept per message; tlsneg_facts.grease_count counts them all. */
#define TLSNEG_MAX_GREASE 32
/* Longest server name kept, escaped, without the NUL. */
#define TLSNEG_MAX_SNI 255

typedef enum {
    TLSNEG_GREASE_VERSION,
    TLSNEG_GREASE_CIPHER_SUITE,
    TLSNEG_GREASE_EXTENSION,
    TLSNEG_GREASE_GROUP,
    TLSNEG_GREASE_KEY_SHARE,
    TLSNEG_GREASE_SIGNATURE_ALGORITHM,
    TLSNEG_GREASE_PSK_MODE,
    TLSNEG_GREASE_ALPN,
} tlsneg_grease_family;

/* tlsneg_grease_family_name returns the public name of f ("cipher_suite"). */
const char *tlsneg_grease_family_name(tlsneg_grease_family f);

/* Where a value read from the wire sits: its offset from the start of the
 * framed message (its type byte; for a DTLS message reassembled from
 * fragments, its body; for the SSLv2-compatible ClientHello, msg_type) and
 * its length in bytes. len 0: not read from the bytes. */
typedef struct {
    uint32_t offset;
    uint32_t len;
} tlsneg_span;

/* Positions kept of a repeated list (supported_versions entries): the
 * front end lists at most this many. */
#define TLSNEG_MAX_SPANS 32

typedef struct {
    uint16_t value;
    uint8_t family; /* tlsneg_grease_family */
    tlsneg_span at;
} tlsneg_grease;

/* supported_groups entries kept per hello (the list may hold 32,767);
 * tlsneg_facts.group_count counts them all. */
#define TLSNEG_MAX_GROUPS 64
/* Key shares kept per hello; tlsneg_facts.key_share_count counts them all. */
#define TLSNEG_MAX_KEY_SHARES 16
/* One key share: a ClientHello's KeyShareEntry or a ServerHello's
 * server_share (RFC 8446 4.2.8). */
typedef struct {
    uint16_t group;
    uint16_t length; /* of key_exchange, in bytes */
    uint32_t offset; /* where the entry (its group) sits, as tlsneg_span counts */
} tlsneg_key_share;

/* Downgrade sentinels in the last 8 bytes of ServerHello.random. */
enum {
    TLSNEG_SENTINEL_TLS11 = 0, /* DOWNGRD\x00: TLS 1.1 or lower negotiated by a server
                                  that supports at least TLS 1.2 */
    TLSNEG_SENTINEL_TLS12 = 1, /* DOWNGRD\x01: TLS 1.2 negotiated by a TLS 1.3 server */
    TLSNEG_SENTINEL_JDK11 = 2, /* the non-standard value JDK 11 sent */
};

typedef struct {
    /* Pointers, then spans, then the narrower fields (176 bytes on 64-bit;
     * the plugin keeps one per hello for the whole file). */
    const char *supported_versions_problem; /* how the extension breaks its encoding, in
                                               words; NULL if well-formed */
    const uint16_t *offered;                /* supported_versions in wire order, GREASE included */
    const tlsneg_grease *grease;
    const char *sni;               /* NUL-terminated, non-printable bytes escaped; NULL if absent */
    const tlsneg_span *offered_at; /* positions of the first min(num_offered, TLSNEG_MAX_SPANS) */
    const uint16_t *groups;        /* supported_groups in wire order, GREASE included */
    const tlsneg_key_share *key_shares; /* ClientHello: its shares in wire order; ServerHello:
                                           its server_share */
    const uint32_t *segment_frames;     /* the first min(hello_segments,
                                           TLSNEG_MAX_SEGMENT_FRAMES) frames, if known */

    /* Where the values below sit in the message (tlsneg_span). */
    tlsneg_span legacy_version_at;
    tlsneg_span selected_version_at;
    tlsneg_span fallback_scsv_at;  /* 0x5600, or 0x005600 in an SSLv2 cipher spec */
    tlsneg_span sentinel_at;       /* the last 8 bytes of ServerHello.random */
    tlsneg_span sni_at;            /* the host_name bytes */
    tlsneg_span groups_at;         /* the first supported_groups entry; entry i sits 2 * i
                                      bytes further */
    tlsneg_span group_selected_at; /* ServerHello's server_share group, HelloRetryRequest's
                                      selected_group */

    uint32_t error_offset;
    uint32_t grease_count; /* found in all */
    uint32_t hello_length; /* the handshake message, header included (tlsneg_hello) */

    uint16_t record_version;
    uint16_t legacy_version;
    uint16_t offered_max;
    uint16_t selected_version;
    uint16_t negotiated_version;
    uint16_t group_selected;  /* if has_group_selected */
    uint16_t group_count;     /* supported_groups entries in all */
    uint16_t key_share_count; /* key shares in all */
    uint16_t hello_segments;  /* segments, packets or fragments that carried the message, as
                                 the front end knows them; 0: not known */

    uint8_t msg_type;
    uint8_t wire;   /* tlsneg_wire */
    uint8_t status; /* tlsneg_status of the parse */
    bool is_hrr;
    bool has_record_version;
    bool has_supported_versions; /* the extension is present (ClientHello or ServerHello) */
    bool has_offered_max;
    bool has_selected;
    bool has_negotiated;
    bool fallback_scsv;
    bool has_sentinel;
    uint8_t sentinel;
    uint8_t num_offered;
    uint8_t num_grease;     /* kept in grease[] */
    uint8_t num_groups;     /* kept in groups[] */
    uint8_t num_key_shares; /* kept in key_shares[] */
    uint8_t num_segment_frames;
    bool has_supported_groups; /* the extension is present */
    bool has_key_share;        /* the key_share extension is present */
    /* ClientHello: the extension is present but its list does not read to
     * its end (a length that overruns, a byte left over): what was read of
     * it is kept, but it is not the whole list. */
    bool groups_cut, key_shares_cut;
    bool has_group_selected;
    bool pq_offered;   /* ClientHello: a post-quantum or hybrid group in supported_groups */
    bool pq_key_share; /* a post-quantum or hybrid key share sent */
    bool pq_selected;  /* ServerHello, HelloRetryRequest: the group chosen is one */
} tlsneg_facts;

/* Storage for the lists a tlsneg_facts points into. */
typedef struct {
    uint16_t offered[TLSNEG_MAX_OFFERED];
    tlsneg_span offered_at[TLSNEG_MAX_SPANS];
    tlsneg_grease grease[TLSNEG_MAX_GREASE];
    uint16_t groups[TLSNEG_MAX_GROUPS];
    tlsneg_key_share key_shares[TLSNEG_MAX_KEY_SHARES];
    uint32_t segment_frames[TLSNEG_MAX_SEGMENT_FRAMES];
    char sni[TLSNEG_MAX_SNI + 1];
} tlsneg_facts_buf;

/* tlsneg_facts_derive fills out from a parsed hello; out's lists point into
 * buf. record_version is the version of the record that carried the message,
 * if has_record_version. Whatever the parse kept is used, even after a
 * break. */
void tlsneg_facts_derive(tlsneg_facts *out, tlsneg_facts_buf *buf, const tlsneg_hello *h,
                         bool has_record_version, uint16_t record_version);

/* tlsneg_facts_set_segments records that n segments (TCP), packets (QUIC)
 * or fragments (DTLS) carried the message of out, in the frames given
 * (num_frames of them, 0 if the front end does not know them), into buf. */
void tlsneg_facts_set_segments(tlsneg_facts *out, tlsneg_facts_buf *buf, uint16_t n,
                               const uint32_t *frames, size_t num_frames);

/* tlsneg_facts_copy copies src into dst, its lists (the version spans
 * included) into buf (what src's lists point to is not needed afterwards). */
void tlsneg_facts_copy(tlsneg_facts *dst, tlsneg_facts_buf *buf, const tlsneg_facts *src);

/* tlsneg_facts_packed_size is the size of the block tlsneg_facts_pack
 * needs for f's lists (0: none). tlsneg_facts_pack copies f into dst and
 * its lists (the version spans included) into mem, a block of that size
 * aligned as malloc's are: a hello kept for long takes the bytes its lists
 * hold, not a whole tlsneg_facts_buf. */
size_t tlsneg_facts_packed_size(const tlsneg_facts *f);
void tlsneg_facts_pack(tlsneg_facts *dst, void *mem, const tlsneg_facts *f);

/* tlsneg_facts_is_dtls reports whether f's versions are in the DTLS family. */
bool tlsneg_facts_is_dtls(const tlsneg_facts *f);

/* tlsneg_msg_name names a message: "ClientHello", "HelloRetryRequest"... */
const char *tlsneg_msg_name(const tlsneg_facts *f);

/* tlsneg_sentinel_name names a downgrade sentinel ("DOWNGRD\x01"). */
const char *tlsneg_sentinel_name(uint8_t sentinel);

/* tlsneg_sentinel_proves returns the lowest version the server of f must
 * support, by its downgrade sentinel (RFC 8446 4.1.3): TLS 1.2 for
 * DOWNGRD\x00, which TLS 1.2 servers send too, TLS 1.3 for DOWNGRD\x01 and
 * the JDK 11 value; DTLS alike. 0 without a sentinel. */
uint16_t tlsneg_sentinel_proves(const tlsneg_facts *f);

/* tlsneg_facts_summary writes one plain sentence about f into buf and
 * returns buf. */
const char *tlsneg_facts_summary(const tlsneg_facts *f, char *buf, size_t buf_len);

#endif
