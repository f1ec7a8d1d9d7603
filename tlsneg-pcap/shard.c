/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shard.c: a client's shard (shard.h). */
#include "shard.h"

#include "core/util.h"

uint32_t tlsneg_shard_of(const uint8_t *addr, size_t len, uint32_t n)
{
    return (uint32_t)(tlsneg_fnv64(TLSNEG_FNV64_BASIS, addr, len) % n);
}
