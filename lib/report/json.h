/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.h: the one JSON string escape of the outputs (and of any front end
 * that writes JSON), and a key with a number. */
#ifndef TLSNEG_JSON_H
#define TLSNEG_JSON_H

#include <stdio.h>

#include "report/buf.h"

/* tlsneg_json_string appends s (NULL: "") as a JSON string: in quotes, a
 * quote and a backslash escaped with a backslash, a control character
 * (below 0x20) as \u00XX (lowercase hex); every other byte as it is (the
 * texts are UTF-8 already). */
void tlsneg_json_string(tlsneg_buf *out, const char *s);

/* tlsneg_json_fput writes s as tlsneg_json_string does, to f. */
void tlsneg_json_fput(FILE *f, const char *s);

/* tlsneg_json_keyu appends ,"key":v. */
static inline void tlsneg_json_keyu(tlsneg_buf *b, const char *key, unsigned long long v)
{
    tlsneg_buf_add(b, ",\"");
    tlsneg_buf_add(b, key);
    tlsneg_buf_add(b, "\":");
    tlsneg_buf_uint(b, v);
}

#endif
