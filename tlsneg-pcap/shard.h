/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shard.h: tlsneg-pcap --shard K/N, the share of the clients one run
 * analyses. Internal to tlsneg-pcap. */
#ifndef TLSNEG_PCAP_SHARD_H
#define TLSNEG_PCAP_SHARD_H

#include <stddef.h>
#include <stdint.h>

/* tlsneg_shard_of: the shard of a client address, FNV-1a (64-bit) over its
 * 4 or 16 bytes, modulo n (docs/tlsneg-pcap.md). Stable across runs,
 * machines and byte orders: a client keeps its shard. */
uint32_t tlsneg_shard_of(const uint8_t *addr, size_t len, uint32_t n);

#endif
