/* SPDX-License-Identifier: GPL-2.0-or-later */
/* heap.h: malloc's heap tuned for a large capture (huge pages, never
 * trimmed). Internal to tlsneg-pcap. */
#ifndef TLSNEG_PCAP_HEAP_H
#define TLSNEG_PCAP_HEAP_H

/* tlsneg_heap_setup: once, before anything is allocated. */
void tlsneg_heap_setup(void);

/* tlsneg_heap_advise asks for huge pages on what the heap grew since the
 * last call: every few hundred events, on the thread that analyses them. */
void tlsneg_heap_advise(void);

#endif
