/* SPDX-License-Identifier: GPL-2.0-or-later */
/* derandom: LD_PRELOADed into tshark by bench/bench.py for the callgrind runs
 * only. Wireshark seeds its wmem hash maps with g_random_int() (wsutil
 * wmem_init_hashing), so how often keys collide, and with it the instruction
 * count, changes from run to run by up to a few per cent of the per-packet
 * cost. A fixed sequence here makes callgrind counts repeatable. The
 * sequence is xorshift64 from a fixed seed; nothing else changes. */
#include <stdint.h>

uint32_t g_random_int(void);
int32_t g_random_int_range(int32_t begin, int32_t end);
double g_random_double(void);
double g_random_double_range(double begin, double end);

static uint64_t state = 0x9E3779B97F4A7C15u;

static uint32_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (uint32_t)(state >> 32);
}

uint32_t g_random_int(void)
{
    return next();
}

int32_t g_random_int_range(int32_t begin, int32_t end)
{
    uint32_t span = (uint32_t)end - (uint32_t)begin;
    return span ? (int32_t)((uint32_t)begin + next() % span) : begin;
}

double g_random_double(void)
{
    return (double)next() / 4294967296.0;
}

double g_random_double_range(double begin, double end)
{
    return begin + (end - begin) * g_random_double();
}
