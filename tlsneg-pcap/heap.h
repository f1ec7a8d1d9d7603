/* SPDX-License-Identifier: GPL-2.0-or-later */
/* heap.h: malloc's heap tuned for a large capture (huge pages, never
 * trimmed). Internal to tlsneg-pcap. */
#ifndef TLSNEG_PCAP_HEAP_H
#define TLSNEG_PCAP_HEAP_H

#include <stdlib.h>
#include <string.h>

/* tlsneg_heap_setup: once, before anything is allocated. */
void tlsneg_heap_setup(void);

/* tlsneg_heap_advise asks for huge pages on what the heap grew since the
 * last call: every few hundred events, on the thread that analyses them. */
void tlsneg_heap_advise(void);

/* tlsneg_zalloc: n zeroed bytes, for what the packet path allocates per
 * flow and frees soon after. glibc 2.36's calloc takes no block from the
 * thread's cache of freed ones (tcache) and costs about 250 instructions;
 * malloc takes one there, and clearing a few hundred bytes costs a few
 * dozen. The empty asm keeps GCC from turning the pair back into calloc. */
static inline void *tlsneg_zalloc(size_t n)
{
    void *v = malloc(n);
    if (v) {
        __asm__ volatile("" : : "r"(v) : "memory");
        memset(v, 0, n);
    }
    return v;
}

#endif
