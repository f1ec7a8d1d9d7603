/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_evqueue.c: tlsneg-pcap's two-thread hand-over (tlsneg-pcap/evqueue.h).
 * A producer thread pushes numbered events whose bytes are a function of
 * their number, of every size from none to more than the ring holds; the
 * consumer checks that each arrives once, in order, with its bytes, and that
 * each handshake event (and no other) has the prep area the producer's side
 * filled, pointing at the bytes the consumer gets. The ring is the smallest
 * (64 KB), so that it wraps and fills many times, and either side is made
 * the slow one in turn. */
#define _DEFAULT_SOURCE 1

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "evqueue.h"
#include "tap.h"

enum { EVENTS = 30000, PREP = 1001 };

/* What prep writes at the start of its area; its last byte is the
 * event's number too. */
typedef struct {
    const uint8_t *bytes;
    uint32_t number, sum;
} prep_head;

typedef struct {
    tlsneg_evqueue *q;
    uint32_t next;  /* the consumer: the number it waits for */
    uint32_t wrong; /* events out of order, or with other bytes */
    bool slow_consumer, slow_producer;
    uint8_t buf[40000];
} run;

static size_t len_of(uint32_t i)
{
    if (i % 997 == 0) {
        return 17000 + i % 20000; /* more than a quarter of the ring: a block of its own */
    }
    return i % 5 == 0 ? 0 : (size_t)(i * 37u) % 3000;
}

static uint8_t byte_of(uint32_t i, size_t j)
{
    return (uint8_t)(i * 131u + j * 7u + (j >> 8));
}

static void nap(void)
{
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
}

static tlsneg_ev_kind kind_of(uint32_t i)
{
    return i % 3 == 0 ? TLSNEG_EV_ALERT : TLSNEG_EV_HELLO;
}

static uint32_t sum_of(const uint8_t *b, size_t n)
{
    uint32_t x = 0;
    for (size_t j = 0; j < n; j++) {
        x = x * 31u + b[j];
    }
    return x;
}

/* prep runs on the producer's thread, as the event is queued. */
static void prep(void *user, const tlsneg_ev *ev, void *area)
{
    (void)user;
    prep_head h = {ev->bytes, (uint32_t)ev->conn, sum_of(ev->bytes, ev->len)};
    memcpy(area, &h, sizeof h);
    ((uint8_t *)area)[PREP - 1] = (uint8_t)ev->conn;
}

static void consume(void *user, const tlsneg_ev *ev, void *area)
{
    run *r = user;
    uint32_t i = (uint32_t)ev->conn;
    size_t n = len_of(i);
    bool good = i == r->next && ev->frame == i + 1 && ev->len == n && (n == 0 || ev->bytes);
    for (size_t j = 0; good && j < n; j++) {
        good = ev->bytes[j] == byte_of(i, j);
    }
    if (good && kind_of(i) == TLSNEG_EV_HELLO) {
        prep_head h;
        good = area && ((uintptr_t)area & 15) == 0;
        if (good) {
            memcpy(&h, area, sizeof h);
            good = h.bytes == ev->bytes && h.number == i && h.sum == sum_of(ev->bytes, n) &&
                   ((uint8_t *)area)[PREP - 1] == (uint8_t)i;
        }
    } else if (good) {
        good = area == NULL;
    }
    r->wrong += !good;
    r->next = i + 1;
    if (r->slow_consumer && i % 500 == 0) {
        nap();
    }
}

static void produce(void *arg)
{
    run *r = arg;
    for (uint32_t i = 0; i < EVENTS; i++) {
        tlsneg_ev ev;
        memset(&ev, 0, sizeof ev);
        ev.conn = i;
        ev.frame = i + 1;
        ev.kind = kind_of(i);
        ev.len = len_of(i);
        for (size_t j = 0; j < ev.len; j++) {
            r->buf[j] = byte_of(i, j);
        }
        ev.bytes = ev.len ? r->buf : NULL;
        tlsneg_evqueue_push(r->q, &ev);
        memset(r->buf, 0xee, ev.len); /* the queue must have taken its own copy */
        if (r->slow_producer && i % 500 == 0) {
            nap();
        }
    }
}

int main(void)
{
    static run r;
    r.q = tlsneg_evqueue_new(1, PREP, prep, consume, &r);
    ok(r.q != NULL, "a queue with the smallest ring");
    const struct {
        bool slow_consumer, slow_producer;
        const char *what;
    } cases[] = {
        {false, false, "both at full speed"},
        {true, false, "a slow consumer (the producer waits for room)"},
        {false, true, "a slow producer (the consumer waits for events)"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        r.next = 0;
        r.wrong = 0;
        r.slow_consumer = cases[c].slow_consumer;
        r.slow_producer = cases[c].slow_producer;
        tlsneg_evqueue_run(r.q, produce, &r);
        ok(r.next == EVENTS && r.wrong == 0,
           "%s: all %d events once, in order, with their bytes and prep areas (%u seen, %u wrong)",
           cases[c].what, EVENTS, r.next, r.wrong);
    }
    /* Outside a run, a push is the direct call. */
    r.next = 7;
    r.wrong = 0;
    tlsneg_ev ev;
    memset(&ev, 0, sizeof ev);
    ev.conn = 7;
    ev.frame = 8;
    ev.kind = kind_of(7);
    ev.len = len_of(7);
    for (size_t j = 0; j < ev.len; j++) {
        r.buf[j] = byte_of(7, j);
    }
    ev.bytes = r.buf;
    tlsneg_evqueue_push(r.q, &ev);
    ok(r.next == 8 && r.wrong == 0,
       "a push outside a run reaches the consumer at once, its prep area filled");
    tlsneg_evqueue_free(r.q);
    tlsneg_evqueue_free(NULL);
    return tap_done();
}
