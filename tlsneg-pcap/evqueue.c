/* SPDX-License-Identifier: GPL-2.0-or-later */
/* evqueue.c: a single-producer, single-consumer ring of events (evqueue.h).
 *
 * head and tail count the bytes pushed and consumed since the start; an
 * entry never wraps around the ring's end (a zero size marks the rest of
 * the ring unused). Each side publishes its count with a sequentially
 * consistent store and then reads the other side's "asleep" flag; a
 * sleeping side set its flag before reading the count again under the
 * mutex. So either the sleeper sees the new count or the other side sees the
 * flag and signals it: no wake-up is lost. The consumer sleeps until a
 * thirty-second of the ring is full (or the producer has ended), the
 * producer until half of it is free: each wake-up moves a batch of events.
 * (An eighth made the consumer start later and end later: bench 10k, median
 * 27.0 -> 26.5 ms over 60 alternating runs; a hundred-and-twenty-eighth was
 * no better.)
 *
 * The counts are published a sixty-fourth of the ring at a time (and before
 * either side sleeps or ends), and the producer reads tail again only when
 * the tail it saw last leaves no room: the two cache lines do not travel
 * between the cores once per event. */
#define _DEFAULT_SOURCE 1

#include "evqueue.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An entry: this header, then the prep area (handshake events, when the
 * queue has a prep function), then the bytes (unless in a block of their
 * own), each part starting on 16 bytes. */
typedef struct {
    uint32_t size;  /* of the whole entry, a multiple of 16; 0: skip to the ring's start */
    bool own_block; /* ev.bytes is a block of its own (malloc) for the consumer to free */
    bool has_prep;
    tlsneg_ev ev;
} entry;

#define HEAD_SIZE ((sizeof(entry) + 15) & ~(size_t)15)

struct tlsneg_evqueue {
    tlsneg_evqueue_fn fn;
    tlsneg_evqueue_prep_fn prep;
    void *user;
    uint8_t *ring;
    uint64_t cap;       /* a power of two */
    size_t prep_size;   /* rounded up to 16 */
    void *prep_scratch; /* the prep area of a push outside a run */
    bool threaded;      /* a run's producer thread is on: push queues (else it calls fn) */
    void (*produce)(void *arg);
    void *arg;
    pthread_mutex_t mu;
    pthread_cond_t wake_consumer, wake_producer;
    /* The producer's own, written once an event: on a line of their own,
     * away from what the consumer reads once an event (fn, user, ring). */
    _Alignas(64) uint64_t pushed; /* bytes pushed (head is what it published) */
    uint64_t tail_seen;           /* tail as it read it last */
    _Alignas(64) _Atomic uint64_t head;
    _Alignas(64) _Atomic uint64_t tail;
    _Alignas(64) atomic_bool consumer_asleep;
    atomic_bool producer_asleep;
    atomic_bool done; /* the producer has returned: the consumer ends once the ring is empty */
};

static size_t entry_size(size_t prep, size_t bytes)
{
    return HEAD_SIZE + prep + ((bytes + 15) & ~(size_t)15);
}

/* wants_prep: ev gets a prep area. */
static bool wants_prep(const struct tlsneg_evqueue *q, const tlsneg_ev *ev)
{
    return q->prep && ev->kind == TLSNEG_EV_HELLO;
}

/* consumer_may_go: the condition the consumer sleeps on. */
static bool consumer_may_go(struct tlsneg_evqueue *q)
{
    uint64_t n = atomic_load(&q->head) - atomic_load(&q->tail);
    return n >= q->cap / 32 || atomic_load(&q->done);
}

/* producer_may_go: the condition the producer sleeps on: half the ring free. */
static bool producer_may_go(struct tlsneg_evqueue *q)
{
    return atomic_load(&q->head) - atomic_load(&q->tail) <= q->cap / 2;
}

static void wake(struct tlsneg_evqueue *q, pthread_cond_t *c)
{
    pthread_mutex_lock(&q->mu);
    pthread_cond_signal(c);
    pthread_mutex_unlock(&q->mu);
}

static void sleep_until(struct tlsneg_evqueue *q, atomic_bool *asleep, pthread_cond_t *c,
                        bool (*may_go)(struct tlsneg_evqueue *))
{
    atomic_store(asleep, true);
    pthread_mutex_lock(&q->mu);
    while (!may_go(q)) {
        pthread_cond_wait(c, &q->mu);
    }
    pthread_mutex_unlock(&q->mu);
    atomic_store(asleep, false);
}

/* publish_tail tells the producer how far the consumer has read. */
static void publish_tail(struct tlsneg_evqueue *q, uint64_t t)
{
    atomic_store(&q->tail, t);
    if (atomic_load(&q->producer_asleep) && producer_may_go(q)) {
        wake(q, &q->wake_producer);
    }
}

/* publish_head tells the consumer how far the producer has written. */
static void publish_head(struct tlsneg_evqueue *q)
{
    atomic_store(&q->head, q->pushed);
    if (atomic_load(&q->consumer_asleep) && consumer_may_go(q)) {
        wake(q, &q->wake_consumer);
    }
}

/* consume handles the events until the producer is done and the ring empty. */
static void consume(struct tlsneg_evqueue *q)
{
    uint64_t t = atomic_load(&q->tail), told = t;
    for (;;) {
        uint64_t h = atomic_load_explicit(&q->head, memory_order_acquire);
        if (t == h) {
            publish_tail(q, told = t);
            if (atomic_load(&q->done) && t == atomic_load(&q->head)) {
                return;
            }
            sleep_until(q, &q->consumer_asleep, &q->wake_consumer, consumer_may_go);
            continue;
        }
        while (t != h) {
            entry *e = (entry *)(q->ring + (t & (q->cap - 1)));
            uint64_t size = e->size ? e->size : q->cap - (t & (q->cap - 1));
            if (e->size) {
                uint8_t *prep = (uint8_t *)e + HEAD_SIZE;
                q->fn(q->user, &e->ev, e->has_prep ? prep : NULL);
                if (e->own_block) {
                    free((void *)e->ev.bytes);
                }
            }
            t += size;
            if (t - told >= q->cap / 64) {
                publish_tail(q, told = t);
            }
        }
    }
}

static void *producer_thread(void *arg)
{
    struct tlsneg_evqueue *q = arg;
    q->produce(q->arg);
    publish_head(q);
    atomic_store(&q->done, true);
    if (atomic_load(&q->consumer_asleep)) {
        wake(q, &q->wake_consumer);
    }
    return NULL;
}

tlsneg_evqueue *tlsneg_evqueue_new(size_t ring_bytes, size_t prep_size, tlsneg_evqueue_prep_fn prep,
                                   tlsneg_evqueue_fn fn, void *user)
{
    struct tlsneg_evqueue *q = calloc(1, sizeof *q);
    if (!q) {
        return NULL;
    }
    q->cap = 1u << 16;
    while (q->cap < ring_bytes && q->cap < (1ull << 40)) {
        q->cap <<= 1;
    }
    q->ring = malloc(q->cap);
    q->fn = fn;
    q->prep = prep;
    q->user = user;
    q->prep_size = prep ? (prep_size + 15) & ~(size_t)15 : 0;
    q->prep_scratch = q->prep_size ? aligned_alloc(16, q->prep_size) : NULL;
    if (!q->ring || (q->prep_size && !q->prep_scratch) || pthread_mutex_init(&q->mu, NULL) != 0) {
        free(q->prep_scratch);
        free(q->ring);
        free(q);
        return NULL;
    }
    pthread_cond_init(&q->wake_consumer, NULL);
    pthread_cond_init(&q->wake_producer, NULL);
    return q;
}

void tlsneg_evqueue_push(void *queue, const tlsneg_ev *ev)
{
    struct tlsneg_evqueue *q = queue;
    bool has_prep = wants_prep(q, ev);
    if (!q->threaded) {
        if (has_prep) {
            q->prep(q->user, ev, q->prep_scratch);
        }
        q->fn(q->user, ev, has_prep ? q->prep_scratch : NULL);
        return;
    }
    size_t len = ev->bytes ? ev->len : 0;
    size_t prep = has_prep ? q->prep_size : 0;
    bool own_block = entry_size(prep, len) > q->cap / 4;
    uint8_t *block = NULL;
    if (own_block && !(block = malloc(len))) {
        return; /* out of memory: the event is lost, as anything else would be */
    }
    uint64_t need = entry_size(prep, own_block ? 0 : len);
    uint64_t at = q->pushed & (q->cap - 1);
    uint64_t skip = q->cap - at < need ? q->cap - at : 0;
    if (q->cap - (q->pushed - q->tail_seen) < skip + need) {
        q->tail_seen = atomic_load(&q->tail);
        if (q->cap - (q->pushed - q->tail_seen) < skip + need) {
            publish_head(q); /* what the consumer must read to make room */
            sleep_until(q, &q->producer_asleep, &q->wake_producer, producer_may_go);
            q->tail_seen = atomic_load(&q->tail);
        }
    }
    if (skip) {
        ((entry *)(q->ring + at))->size = 0;
        at = 0;
    }
    entry *e = (entry *)(q->ring + at);
    e->size = (uint32_t)need;
    e->own_block = own_block;
    e->has_prep = has_prep;
    e->ev = *ev;
    if (own_block) {
        memcpy(block, ev->bytes, len);
        e->ev.bytes = block;
    } else if (ev->bytes) {
        uint8_t *bytes = (uint8_t *)e + HEAD_SIZE + prep;
        memcpy(bytes, ev->bytes, len);
        e->ev.bytes = bytes;
    }
    if (has_prep) {
        q->prep(q->user, &e->ev, (uint8_t *)e + HEAD_SIZE);
    }
    q->pushed += skip + need;
    if (q->pushed - atomic_load_explicit(&q->head, memory_order_relaxed) >= q->cap / 64) {
        publish_head(q);
    }
}

void tlsneg_evqueue_run(tlsneg_evqueue *q, void (*produce)(void *arg), void *arg)
{
    q->produce = produce;
    q->arg = arg;
    atomic_store(&q->done, false);
    q->threaded = true;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t thread;
    int r = pthread_create(&thread, NULL, producer_thread, q);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (r != 0) {
        q->threaded = false;
        produce(arg);
        return;
    }
    consume(q);
    pthread_join(thread, NULL);
    q->threaded = false;
}

void tlsneg_evqueue_free(tlsneg_evqueue *q)
{
    if (!q) {
        return;
    }
    pthread_cond_destroy(&q->wake_consumer);
    pthread_cond_destroy(&q->wake_producer);
    pthread_mutex_destroy(&q->mu);
    free(q->prep_scratch);
    free(q->ring);
    free(q);
}
