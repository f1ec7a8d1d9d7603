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

typedef struct {
    uint16_t value;
    uint8_t family; /* tlsneg_grease_family */
} tlsneg_grease;

/* Downgrade sentinels in the last 8 bytes of ServerHello.random. */
enum {
    TLSNEG_SENTINEL_TLS11 = 0, /* DOWNGRD\x00: TLS 1.1 or lower negotiated */
    TLSNEG_SENTINEL_TLS12 = 1, /* DOWNGRD\x01: TLS 1.2 negotiated */
    TLSNEG_SENTINEL_JDK11 = 2, /* the non-standard value JDK 11 sent */
};

typedef struct {
    uint8_t msg_type;
    uint8_t wire;   /* tlsneg_wire */
    uint8_t status; /* tlsneg_status of the parse */
    uint32_t error_offset;

    bool is_hrr;
    bool has_record_version;
    bool has_supported_versions; /* the extension is present (ClientHello or ServerHello) */
    const char *supported_versions_problem; /* what is wrong with it, in words; NULL if fine */
    bool has_offered_max;
    bool has_selected;
    bool has_negotiated;
    bool fallback_scsv;
    bool has_sentinel;
    uint8_t sentinel;

    uint16_t record_version;
    uint16_t legacy_version;
    uint16_t offered_max;
    uint16_t selected_version;
    uint16_t negotiated_version;

    uint8_t num_offered;
    const uint16_t *offered; /* supported_versions in wire order, GREASE included */
    uint8_t num_grease;      /* kept in grease[] */
    uint32_t grease_count;   /* found in all */
    const tlsneg_grease *grease;
    const char *sni; /* NUL-terminated, non-printable bytes escaped; NULL if absent */
} tlsneg_facts;

/* Storage for the lists a tlsneg_facts points into. */
typedef struct {
    uint16_t offered[TLSNEG_MAX_OFFERED];
    tlsneg_grease grease[TLSNEG_MAX_GREASE];
    char sni[TLSNEG_MAX_SNI + 1];
} tlsneg_facts_buf;

/* tlsneg_facts_derive fills out from a parsed hello; out's lists point into
 * buf. record_version is the version of the record that carried the message,
 * if has_record_version. Whatever the parse kept is used, even after a
 * break. */
void tlsneg_facts_derive(tlsneg_facts *out, tlsneg_facts_buf *buf, const tlsneg_hello *h,
                         bool has_record_version, uint16_t record_version);

/* tlsneg_facts_copy copies src into dst, its lists into buf (what src's
 * lists point to is not needed afterwards). */
void tlsneg_facts_copy(tlsneg_facts *dst, tlsneg_facts_buf *buf, const tlsneg_facts *src);

/* tlsneg_facts_is_dtls reports whether f's versions are in the DTLS family. */
bool tlsneg_facts_is_dtls(const tlsneg_facts *f);

/* tlsneg_msg_name names a message: "ClientHello", "HelloRetryRequest"... */
const char *tlsneg_msg_name(const tlsneg_facts *f);

/* tlsneg_facts_summary writes one plain sentence about f into buf and
 * returns buf. */
const char *tlsneg_facts_summary(const tlsneg_facts *f, char *buf, size_t buf_len);

#endif
