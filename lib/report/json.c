/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.c: the JSON string escape (json.h). */
#include "report/json.h"

void tlsneg_json_string(tlsneg_buf *out, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    tlsneg_buf_addc(out, '"');
    for (;;) {
        /* the run that needs no escape, at once */
        const unsigned char *run = p;
        while (*p >= 0x20 && *p != '"' && *p != '\\') {
            p++;
        }
        tlsneg_buf_put(out, (const char *)run, (size_t)(p - run));
        if (!*p) {
            break;
        }
        if (*p < 0x20) {
            char u[6] = {'\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15]};
            tlsneg_buf_put(out, u, sizeof u);
        } else {
            char e[2] = {'\\', (char)*p};
            tlsneg_buf_put(out, e, sizeof e);
        }
        p++;
    }
    tlsneg_buf_addc(out, '"');
}

void tlsneg_json_fput(FILE *f, const char *s)
{
    tlsneg_buf b = {0};
    tlsneg_json_string(&b, s);
    tlsneg_buf_flush(&b, f);
    tlsneg_buf_free(&b);
}
