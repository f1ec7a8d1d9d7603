/* cursor.h: a bounded reader over bytes that also knows offsets.
 *
 * Modelled on BoringSSL's CBS: every read checks the remaining length before
 * touching memory, consumes from the front on success, and on failure returns
 * false and leaves both the cursor and the outputs untouched. A child cursor
 * keeps its parent's base so that tlsneg_cur_offset() stays relative to the
 * start of the whole message. */
#ifndef TLSNEG_CURSOR_H
#define TLSNEG_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define TLSNEG_MUST_CHECK __attribute__((warn_unused_result))
#else
#define TLSNEG_MUST_CHECK
#endif

typedef struct {
    const uint8_t *base; /* start of the whole message: offsets count from here */
    const uint8_t *p;    /* next unread byte */
    size_t len;          /* bytes left from p */
} tlsneg_cur;

/* tlsneg_cur_init points c at len bytes of data; data is also the base. */
void tlsneg_cur_init(tlsneg_cur *c, const uint8_t *data, size_t len);

/* tlsneg_cur_offset returns how far c's next byte is from its base. */
size_t tlsneg_cur_offset(const tlsneg_cur *c);

TLSNEG_MUST_CHECK bool tlsneg_cur_u8(tlsneg_cur *c, uint8_t *out);
TLSNEG_MUST_CHECK bool tlsneg_cur_u16(tlsneg_cur *c, uint16_t *out);
TLSNEG_MUST_CHECK bool tlsneg_cur_u24(tlsneg_cur *c, uint32_t *out);

/* tlsneg_cur_bytes splits the next n bytes off c into out. */
TLSNEG_MUST_CHECK bool tlsneg_cur_bytes(tlsneg_cur *c, size_t n, tlsneg_cur *out);

/* tlsneg_cur_u8_prefixed and friends read a length of 1, 2 or 3 bytes and split
 * that many bytes off into out; on failure c is unchanged. */
TLSNEG_MUST_CHECK bool tlsneg_cur_u8_prefixed(tlsneg_cur *c, tlsneg_cur *out);
TLSNEG_MUST_CHECK bool tlsneg_cur_u16_prefixed(tlsneg_cur *c, tlsneg_cur *out);
TLSNEG_MUST_CHECK bool tlsneg_cur_u24_prefixed(tlsneg_cur *c, tlsneg_cur *out);

#endif
