#include "cursor.h"

void tlsneg_cur_init(tlsneg_cur *c, const uint8_t *data, size_t len)
{
    c->base = data;
    c->p = data;
    c->len = data ? len : 0;
}

size_t tlsneg_cur_offset(const tlsneg_cur *c)
{
    return (size_t)(c->p - c->base);
}

/* get takes n bytes from the front of c, or nothing if fewer remain. */
static bool get(tlsneg_cur *c, const uint8_t **out, size_t n)
{
    if (c->len < n) {
        return false;
    }
    *out = c->p;
    c->p += n;
    c->len -= n;
    return true;
}

static bool get_uint(tlsneg_cur *c, uint32_t *out, size_t n)
{
    const uint8_t *b;
    if (!get(c, &b, n)) {
        return false;
    }
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) {
        v = (v << 8) | b[i];
    }
    *out = v;
    return true;
}

bool tlsneg_cur_u8(tlsneg_cur *c, uint8_t *out)
{
    uint32_t v;
    if (!get_uint(c, &v, 1)) {
        return false;
    }
    *out = (uint8_t)v;
    return true;
}

bool tlsneg_cur_u16(tlsneg_cur *c, uint16_t *out)
{
    uint32_t v;
    if (!get_uint(c, &v, 2)) {
        return false;
    }
    *out = (uint16_t)v;
    return true;
}

bool tlsneg_cur_u24(tlsneg_cur *c, uint32_t *out)
{
    return get_uint(c, out, 3);
}

bool tlsneg_cur_bytes(tlsneg_cur *c, size_t n, tlsneg_cur *out)
{
    const uint8_t *b;
    if (!get(c, &b, n)) {
        return false;
    }
    out->base = c->base;
    out->p = b;
    out->len = n;
    return true;
}

static bool prefixed(tlsneg_cur *c, size_t len_size, tlsneg_cur *out)
{
    tlsneg_cur copy = *c;
    uint32_t n;
    if (!get_uint(&copy, &n, len_size) || !tlsneg_cur_bytes(&copy, n, out)) {
        return false;
    }
    *c = copy;
    return true;
}

bool tlsneg_cur_u8_prefixed(tlsneg_cur *c, tlsneg_cur *out)
{
    return prefixed(c, 1, out);
}

bool tlsneg_cur_u16_prefixed(tlsneg_cur *c, tlsneg_cur *out)
{
    return prefixed(c, 2, out);
}

bool tlsneg_cur_u24_prefixed(tlsneg_cur *c, tlsneg_cur *out)
{
    return prefixed(c, 3, out);
}
