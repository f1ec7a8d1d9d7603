/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verdict.h: what the tracker says about the frame in hand: a list of
 * verdicts, each a kind (a row of verdicts.def), the finding it makes, and
 * its evidence as typed links to other frames, versions and texts. The
 * kinds, the roles of the evidence and the back notes' kinds, with their
 * names, all come from verdicts.def. Pure C. */
#ifndef TLSNEG_VERDICT_H
#define TLSNEG_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/checks.h"
#include "analysis/rules.h"

#define TLSNEG_CHAIN_MAX 8

typedef enum {
#define TLSNEG_VERDICT(kind, ...) TLSNEG_VERDICT_##kind,
#include "verdicts.def"
    TLSNEG_VERDICT_KINDS
} tlsneg_verdict_kind;

/* How another frame takes part in a verdict. */
typedef enum {
#define TLSNEG_LINK_ROLE(role, name) TLSNEG_LINK_##role,
#include "verdicts.def"
    TLSNEG_LINK_ROLES
} tlsneg_link_role;

/* What a version in a verdict is. */
typedef enum {
#define TLSNEG_VERSION_ROLE(role, name) TLSNEG_VERSION_##role,
#include "verdicts.def"
    TLSNEG_VERSION_ROLES
} tlsneg_version_role;

/* What a text in a verdict says. */
typedef enum {
#define TLSNEG_TEXT_ROLE(role, name) TLSNEG_TEXT_##role,
#include "verdicts.def"
    TLSNEG_TEXT_ROLES
} tlsneg_text_role;

/* What a later frame revealed about an earlier frame's ClientHello: to be
 * shown there once the capture has been read (the GUI, tshark -2). */
typedef enum {
#define TLSNEG_BACK_NOTE(kind, name) TLSNEG_NOTE_##kind,
#include "verdicts.def"
    TLSNEG_NOTE_KINDS
} tlsneg_note_kind;

/* A verdict that leaves no back note (verdicts.def: NO_NOTE). */
enum { TLSNEG_NOTE_NO_NOTE = TLSNEG_NOTE_KINDS };

/* How a verdict uses the chain of attempts (verdicts.def: chain). */
typedef enum {
    TLSNEG_CHAIN_NO_CHAIN,
    TLSNEG_CHAIN_ATTEMPTS, /* it carries the chain of the attempts it is about */
    TLSNEG_CHAIN_RETRY,    /* the frame's hello is the chain's last retry */
    TLSNEG_CHAIN_END,      /* the chain ends here: its retries' titles are final */
} tlsneg_chain_use;

/* A verdict that makes one rule only (verdicts.def: NO_VARIANT). */
enum { TLSNEG_RULE_NO_VARIANT = TLSNEG_RULE_COUNT };

/* A row of verdicts.def, as data. links, versions and texts hold one bit
 * per role (1u << role) the verdict's evidence may have. */
typedef struct {
    const char *name;
    const char *tag;
    tlsneg_rule_id rule;
    tlsneg_rule_id variant; /* TLSNEG_RULE_NO_VARIANT: none */
    bool headline;
    tlsneg_chain_use chain;
    tlsneg_note_kind note; /* TLSNEG_NOTE_NO_NOTE: none */
    uint32_t links, versions, texts;
} tlsneg_verdict_row;

extern const tlsneg_verdict_row tlsneg_verdict_rows[TLSNEG_VERDICT_KINDS];

/* How an attempt failed. */
typedef enum {
    TLSNEG_CAUSE_NONE,
    TLSNEG_CAUSE_ALERT,        /* a fatal alert before any ServerHello */
    TLSNEG_CAUSE_RESET,        /* TCP RST before any ServerHello */
    TLSNEG_CAUSE_CLOSE,        /* FIN before any ServerHello */
    TLSNEG_CAUSE_NO_ANSWER,    /* a datagram attempt that got nothing back */
    TLSNEG_CAUSE_CLIENT_ABORT, /* the client's fatal alert after the ServerHello */
} tlsneg_cause;

/* A recognised probe, as far as it has gone. */
typedef struct {
    uint32_t first_frame; /* the first hello of the burst: names the probe */
    uint32_t hellos;
    uint64_t first_us, last_us;
    uint16_t lowest, highest; /* highest versions offered: the least and the most */
    uint16_t scsv;            /* hellos with TLS_FALLBACK_SCSV */
    uint16_t scsv_refused;    /* of them, answered with inappropriate_fallback (86) */
    bool dtls;
} tlsneg_probe;

/* The most ClientHellos of a burst before the one that makes it a probe
 * that are told so afterwards (TLSNEG_NOTE_PROBE); a burst needs at least
 * TLSNEG_PROBE_HELLOS - 1 (probe.h). */
#define TLSNEG_PROBE_EARLIER 12

#define TLSNEG_VERDICT_LINKS    4
#define TLSNEG_VERDICT_VERSIONS 4
#define TLSNEG_VERDICT_TEXTS    4
#define TLSNEG_VERDICT_TEXT_MAX 256
#define TLSNEG_MAX_VERDICTS     8

typedef struct {
    uint8_t role; /* tlsneg_link_role */
    uint32_t frame;
} tlsneg_link;

typedef struct {
    uint8_t role; /* tlsneg_version_role */
    uint16_t version;
} tlsneg_version_ref;

typedef struct {
    uint8_t role; /* tlsneg_text_role */
    char text[TLSNEG_VERDICT_TEXT_MAX];
} tlsneg_text;

typedef struct {
    tlsneg_verdict_kind kind;
    tlsneg_rule_id rule;            /* the finding it makes */
    bool silent;                    /* evidence only, no finding (a probe's later messages) */
    bool no_detail;                 /* its list's no_details: detail stays "" */
    char detail[TLSNEG_DETAIL_MAX]; /* the finding's sentence */
    uint8_t num_links, num_versions, num_texts;
    tlsneg_link link[TLSNEG_VERDICT_LINKS];
    tlsneg_version_ref version[TLSNEG_VERDICT_VERSIONS];
    tlsneg_text text[TLSNEG_VERDICT_TEXTS];
    /* The chain of attempts the verdict is about, oldest first, the frame's
     * own attempt last (verdicts.def: chain; empty for NO_CHAIN). */
    uint8_t chain_len;
    uint32_t chain_frames[TLSNEG_CHAIN_MAX];
    uint16_t chain_versions[TLSNEG_CHAIN_MAX]; /* highest offered; 0 unknown */
    uint8_t chain_scsv;                        /* bit i: attempt i carried TLS_FALLBACK_SCSV */
    uint8_t chain_same;    /* bit i: attempt i retried at the same versions (the same offer, or
                              other key shares: keyshare.c) */
    uint8_t chain_changed; /* bit i: attempt i changed more than its versions: another offer,
                              no fallback (retry.c) */
    bool chain_dtls;       /* the chain's versions are DTLS versions */
    /* TLSNEG_VERDICT_CLIENT_ABORT: the ServerHello carried a downgrade
     * sentinel, the client had offered TLS 1.3 and aborted with
     * illegal_parameter (47): it caught the downgrade. */
    bool downgrade_caught;
    /* TLSNEG_VERDICT_PROBE: the probe as far as it has gone; on the hello
     * that made it recognised, the burst's ClientHellos before it (a back
     * note each: the first pass could not know them as a probe's). */
    tlsneg_probe probe;
    uint8_t probe_earlier_len;
    uint32_t probe_earlier[TLSNEG_PROBE_EARLIER];
} tlsneg_verdict;

typedef struct {
    size_t count;
    size_t dropped;
    bool no_details; /* tlsneg_tracker_config's: every detail stays "" */
    tlsneg_verdict item[TLSNEG_MAX_VERDICTS];
} tlsneg_verdicts;

/* tlsneg_verdicts_clear empties out for one message's verdicts. */
static inline void tlsneg_verdicts_clear(tlsneg_verdicts *out, bool no_details)
{
    out->count = out->dropped = 0;
    out->no_details = no_details;
}

/* A verdict kept past its frame, as the front ends keep one per message
 * and the outputs read it (report/output.h): its evidence by role, its
 * texts by pointer; no chain and no detail (its finding has those). */
typedef struct {
    tlsneg_verdict_kind kind;
    const char *note;   /* its words in the packet list (tlsneg_verdict_note), or NULL */
    tlsneg_probe probe; /* TLSNEG_VERDICT_PROBE */
    uint8_t num_links, num_versions, num_texts;
    tlsneg_link link[TLSNEG_VERDICT_LINKS];
    tlsneg_version_ref version[TLSNEG_VERDICT_VERSIONS];
    struct {
        uint8_t role; /* tlsneg_text_role */
        const char *text;
    } text[TLSNEG_VERDICT_TEXTS];
} tlsneg_kept_verdict;

/* Names of kinds, roles and back notes, for machine-readable output
 * ("fallback", "previous_attempt", "retried_in"); "unknown" out of range. */
const char *tlsneg_verdict_kind_name(tlsneg_verdict_kind k);
const char *tlsneg_link_role_name(tlsneg_link_role r);
const char *tlsneg_version_role_name(tlsneg_version_role r);
const char *tlsneg_text_role_name(tlsneg_text_role r);
const char *tlsneg_note_kind_name(tlsneg_note_kind k);
/* tlsneg_verdict_tag: a few words for a packet list ("intolerant server"). */
const char *tlsneg_verdict_tag(tlsneg_verdict_kind k);

/* tlsneg_verdict_of_rule tells whether a verdict makes finding r (rules.def:
 * TLSNEG_BY_VERDICT), and which, in *out. */
bool tlsneg_verdict_of_rule(tlsneg_rule_id r, tlsneg_verdict_kind *out);

/* tlsneg_verdict_add appends a verdict of kind k to out, making its row's
 * rule (its variant with variant), and returns it to be filled; when the
 * list is full it counts it in dropped and returns NULL. */
tlsneg_verdict *tlsneg_verdict_add(tlsneg_verdicts *out, tlsneg_verdict_kind k, bool variant);
/* The evidence of v, in the roles its row of verdicts.def gives it. A
 * list that is full takes no more. */
void tlsneg_verdict_add_link(tlsneg_verdict *v, tlsneg_link_role r, uint32_t frame);
void tlsneg_verdict_add_version(tlsneg_verdict *v, tlsneg_version_role r, uint16_t version);
void tlsneg_verdict_add_text(tlsneg_verdict *v, tlsneg_text_role r, const char *text);
/* tlsneg_verdict_detail writes v's finding sentence, unless v has
 * no_detail: then its arguments are not even worked out. */
void tlsneg_verdict_sentence(tlsneg_verdict *v, const char *fmt, ...)
    TLSNEG_PRINTF(2, 3) TLSNEG_COLD;
#define tlsneg_verdict_detail(v, ...)                                                              \
    ((v)->no_detail ? (void)0 : tlsneg_verdict_sentence((v), __VA_ARGS__))

/* tlsneg_verdict_well_formed: v is of a kind of verdicts.def, makes its
 * row's rule or variant, carries evidence only in its row's roles and a
 * chain only if its row uses one (the fuzz target's promise). */
bool tlsneg_verdict_well_formed(const tlsneg_verdict *v);

/* tlsneg_verdict_find returns the first verdict of kind k in vs, or NULL. */
const tlsneg_verdict *tlsneg_verdict_find(const tlsneg_verdicts *vs, tlsneg_verdict_kind k);
/* tlsneg_verdict_link returns the frame v links in role r, or 0. */
uint32_t tlsneg_verdict_link(const tlsneg_verdict *v, tlsneg_link_role r);
/* tlsneg_verdict_version tells whether v names a version in role r, in *out. */
bool tlsneg_verdict_version(const tlsneg_verdict *v, tlsneg_version_role r, uint16_t *out);
/* tlsneg_verdict_text returns v's text in role r, or NULL. */
const char *tlsneg_verdict_text(const tlsneg_verdict *v, tlsneg_text_role r);

/* tlsneg_verdict_keep fills dst from v, with note as its note: each text is
 * keep_text(ctx, text), a copy that lives as long as dst (or text itself
 * while v lives). */
void tlsneg_verdict_keep(tlsneg_kept_verdict *dst, const tlsneg_verdict *v, const char *note,
                         const char *(*keep_text)(void *ctx, const char *text), void *ctx);
/* tlsneg_kept_find returns the first of the n verdicts vs of kind k, or
 * NULL; tlsneg_kept_link and tlsneg_kept_text are tlsneg_verdict_link and
 * tlsneg_verdict_text of a kept verdict. */
const tlsneg_kept_verdict *tlsneg_kept_find(const tlsneg_kept_verdict *vs, size_t n,
                                            tlsneg_verdict_kind k);
uint32_t tlsneg_kept_link(const tlsneg_kept_verdict *v, tlsneg_link_role r);
const char *tlsneg_kept_text(const tlsneg_kept_verdict *v, tlsneg_text_role r);

/* tlsneg_verdict_findings appends to out the finding of every verdict in vs,
 * in order, but of silent ones. */
void tlsneg_verdict_findings(const tlsneg_verdicts *vs, tlsneg_findings *out);

#endif
