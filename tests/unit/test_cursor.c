/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/cursor.h"

#include "tap.h"

static void reads_consume_and_check_lengths(void)
{
    static const uint8_t data[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06};
    tlsneg_cur c;
    uint8_t u8;
    uint16_t u16;
    uint32_t u24;
    tlsneg_cur_init(&c, data, sizeof data);
    ok(tlsneg_cur_u8(&c, &u8) && u8 == 0x01 && c.len == 5, "u8 reads one byte");
    ok(tlsneg_cur_u16(&c, &u16) && u16 == 0x0203 && c.len == 3, "u16 is big-endian");
    ok(tlsneg_cur_u24(&c, &u24) && u24 == 0x040506 && c.len == 0, "u24 is big-endian");
    ok(tlsneg_cur_offset(&c) == 6, "offset counts from the base");
    u8 = 0x77;
    ok(!tlsneg_cur_u8(&c, &u8) && u8 == 0x77, "a read past the end fails, output untouched");
}

static void failed_reads_leave_the_cursor_unchanged(void)
{
    static const uint8_t data[] = {0x00, 0x05, 0xaa, 0xbb};
    tlsneg_cur c, child;
    uint32_t u24;
    tlsneg_cur_init(&c, data, sizeof data);
    ok(!tlsneg_cur_u16_prefixed(&c, &child) && c.len == 4 && c.p == data,
       "a length prefix longer than the data fails and consumes nothing");
    tlsneg_cur_init(&c, data, 2);
    ok(!tlsneg_cur_u24(&c, &u24) && c.len == 2, "u24 on two bytes fails");
}

static void children_share_the_base(void)
{
    static const uint8_t data[] = {0xff, 0x02, 0xaa, 0xbb, 0xcc};
    tlsneg_cur c, child;
    uint8_t skip, v;
    tlsneg_cur_init(&c, data, sizeof data);
    ok(tlsneg_cur_u8(&c, &skip) && tlsneg_cur_u8_prefixed(&c, &child), "u8_prefixed splits");
    ok(child.len == 2 && tlsneg_cur_offset(&child) == 2, "child offset is relative to the message");
    ok(tlsneg_cur_u8(&child, &v) && v == 0xaa, "child reads its own bytes");
    ok(c.len == 1 && tlsneg_cur_offset(&c) == 4, "parent continues after the child");
    ok(tlsneg_cur_bytes(&c, 1, &child) && !tlsneg_cur_bytes(&c, 1, &child), "bytes is bounded");
}

static void empty_and_null(void)
{
    tlsneg_cur c;
    uint8_t v;
    tlsneg_cur_init(&c, NULL, 10);
    ok(c.len == 0 && !tlsneg_cur_u8(&c, &v), "a NULL buffer reads as empty");
}

int main(void)
{
    reads_consume_and_check_lengths();
    failed_reads_leave_the_cursor_unchanged();
    children_share_the_base();
    empty_and_null();
    return tap_done();
}
