/* SPDX-License-Identifier: GPL-2.0-or-later */
/* evqueue.h: the packet path's events handed to a second thread.
 *
 * tlsneg-pcap reads a file on two threads: the packet path (reading,
 * decoding, reassembly, QUIC decryption: packets.h) on a thread the queue
 * starts, and what consumes its events (the session layer, the tracker, the
 * outputs) on the calling thread. Each event is copied, with its bytes, into
 * a ring; the consumer gets them one by one, in the order they were pushed,
 * as the direct call would have given them. The bytes of an event too large
 * for the ring (a handshake message of more than a quarter of it) travel in
 * a block of their own. A handshake event can also take some of the
 * consumer's work along (what its bytes alone tell: the hello's parse),
 * done on the producer's thread into an area of its entry.
 *
 * Single producer, single consumer; the threads sleep (no spinning) when the
 * ring is full or nearly empty, and wake in batches. */
#ifndef TLSNEG_PCAP_EVQUEUE_H
#define TLSNEG_PCAP_EVQUEUE_H

#include <stddef.h>

#include "packets.h"

typedef struct tlsneg_evqueue tlsneg_evqueue;

/* What the consumer calls for each event: prep is the event's own area,
 * filled by the queue's prep function, or NULL (an event of another kind,
 * or a queue without one). */
typedef void (*tlsneg_evqueue_fn)(void *user, const tlsneg_ev *ev, void *prep);

/* The producer's share of the consumer's work, done on its thread as it
 * pushes a handshake event: it fills prep (the queue's prep_size bytes,
 * 16-byte aligned) from ev, whose bytes are already the copy the consumer
 * gets. prep may point into those bytes and into itself: neither moves
 * before the consumer's call has returned. */
typedef void (*tlsneg_evqueue_prep_fn)(void *user, const tlsneg_ev *ev, void *prep);

/* tlsneg_evqueue_new makes a queue whose consumer calls fn(user, ev, prep)
 * for every event pushed; every TLSNEG_EV_HELLO event gets prep_size
 * bytes filled by prep (if not NULL) first. ring_bytes: the ring's size
 * (rounded up to a power of two, at least 64 KB). NULL when out of
 * memory. */
tlsneg_evqueue *tlsneg_evqueue_new(size_t ring_bytes, size_t prep_size, tlsneg_evqueue_prep_fn prep,
                                   tlsneg_evqueue_fn fn, void *user);

/* tlsneg_evqueue_push is a tlsneg_pcap_event_fn: pass it to tlsneg_pcap_new
 * with the queue as user. Call it from produce only. */
void tlsneg_evqueue_push(void *queue, const tlsneg_ev *ev);

/* tlsneg_evqueue_run runs produce(arg) on a new thread (with every signal
 * blocked: they reach the caller's thread) and consumes its events on the
 * calling thread, so that what the consumer allocates stays in the calling
 * thread's heap. It returns once produce has returned and every event it
 * pushed has been handled. When no thread can be started, produce runs on
 * the calling thread and each push calls prep and fn at once. The queue can
 * run again. */
void tlsneg_evqueue_run(tlsneg_evqueue *q, void (*produce)(void *arg), void *arg);

void tlsneg_evqueue_free(tlsneg_evqueue *q);

#endif
