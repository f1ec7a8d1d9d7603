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

/* tlsneg_json_keyu appends ,"key":v; key is a string literal. */
#define tlsneg_json_keyu(b, key, v)                                                                \
    do {                                                                                           \
        tlsneg_buf_lit((b), ",\"" key "\":");                                                      \
        tlsneg_buf_uint((b), (v));                                                                 \
    } while (0)

#endif
