/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap.h: a tiny TAP producer for the unit tests (no framework needed).
 * ok(cond, "claim") prints one TAP line; tap_done() prints the plan and the
 * closing line and returns the exit status. */
#ifndef TLSNEG_TAP_H
#define TLSNEG_TAP_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_run, tap_failed;

#define ok(cond, ...) tap_ok((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)

__attribute__((format(printf, 4, 5))) static void tap_ok(int pass, const char *file, int line,
                                                         const char *fmt, ...)
{
    va_list ap;
    tap_run++;
    if (!pass) {
        tap_failed++;
    }
    printf("%sok %d - ", pass ? "" : "not ", tap_run);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!pass) {
        printf("#   failed at %s:%d\n", file, line);
    }
}

static int tap_done(void)
{
    printf("1..%d\n", tap_run);
    printf("%d passed, %d failed\n", tap_run - tap_failed, tap_failed);
    return tap_failed ? 1 : 0;
}

/* unhex decodes a hex string into a fresh malloc'd buffer of exactly the
 * decoded length, so that ASan catches any read past it. */
__attribute__((unused)) static uint8_t *unhex(const char *hex, size_t *out_len)
{
    size_t n = strlen(hex) / 2;
    uint8_t *b = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        b[i] = (uint8_t)v;
    }
    *out_len = n;
    return b;
}

#endif
