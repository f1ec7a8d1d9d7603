/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ladder_svg.c: the ladder as one SVG document (tshark -z
 * tlsneg,ladder-svg), drawn from the rows the text has: laid out once to
 * measure its height, once to draw. */
#include "report/ladder_rows.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

/* Geometry, in SVG user units (pixels at 100 %). */
#define SVG_W       960
#define SVG_FRAME_X 48  /* right edge of the frame numbers */
#define SVG_CLIENT  130 /* the client's lifeline */
#define SVG_SERVER  890 /* the server's lifeline */
#define SVG_HEAD_H  58  /* a lane's heading and the two names */
#define SVG_ARROW_H 30
#define SVG_NOTE_H  17
#define SVG_GAP_H   24 /* after a lane */
#define SVG_WRAP    110

typedef struct {
    void (*line)(const char *text, void *ctx);
    void *ctx;
    bool draw; /* false: only measure */
    unsigned y, lane_top;
    const char *first;
} svg_out;

/* xml_escape copies text into out with &, <, > and " escaped. */
static const char *xml_escape(const char *text, char *out, size_t len)
{
    size_t j = 0;
    for (const char *p = text; *p && j + 7 < len; p++) {
        const char *e = *p == '&'   ? "&amp;"
                        : *p == '<' ? "&lt;"
                        : *p == '>' ? "&gt;"
                        : *p == '"' ? "&quot;"
                                    : NULL;
        if (e) {
            size_t n = strlen(e);
            memcpy(out + j, e, n);
            j += n;
        } else {
            out[j++] = *p;
        }
    }
    out[j] = '\0';
    return out;
}

static void svg_printf(const svg_out *o, const char *fmt, ...) TLSNEG_PRINTF(2, 3);
static void svg_printf(const svg_out *o, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    if (!o->draw) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    o->line(buf, o->ctx);
}

static void svg_head(void *ctx, const char *text, const char *client, const char *server)
{
    svg_out *o = ctx;
    char a[1024], b[256], c[256];
    o->lane_top = o->y;
    svg_printf(o, "<g class=\"lane\">");
    svg_printf(o, "<text class=\"heading\" x=\"8\" y=\"%u\">%s</text>", o->y + 18,
               xml_escape(text, a, sizeof a));
    svg_printf(o,
               "<text class=\"peer\" x=\"%u\" y=\"%u\" text-anchor=\"middle\">client "
               "%s</text><text class=\"peer\" x=\"%u\" y=\"%u\" text-anchor=\"middle\">server "
               "%s</text>",
               SVG_CLIENT, o->y + 44, xml_escape(client, b, sizeof b), SVG_SERVER, o->y + 44,
               xml_escape(server, c, sizeof c));
    o->y += SVG_HEAD_H;
}

static void svg_arrow(void *ctx, uint32_t frame, bool from_client, const char *text)
{
    svg_out *o = ctx;
    char a[1024];
    unsigned base = o->y + SVG_ARROW_H - 8;
    svg_printf(o, "<text class=\"frame\" x=\"%u\" y=\"%u\" text-anchor=\"end\">%u</text>",
               SVG_FRAME_X, base + 4, frame);
    svg_printf(o, "<text class=\"msg\" x=\"%u\" y=\"%u\" text-anchor=\"middle\">%s</text>",
               (SVG_CLIENT + SVG_SERVER) / 2, base - 5, xml_escape(text, a, sizeof a));
    svg_printf(o,
               "<line class=\"%s\" x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" "
               "marker-end=\"url(#head)\"/>",
               from_client ? "to-server" : "to-client", from_client ? SVG_CLIENT : SVG_SERVER, base,
               from_client ? SVG_SERVER - 2 : SVG_CLIENT + 2, base);
    o->y += SVG_ARROW_H;
}

static void svg_note_line(const char *p, size_t n, unsigned index, void *ctx)
{
    svg_out *o = ctx;
    char piece[256], a[1024];
    snprintf(piece, sizeof piece, "%s%.*s", index == 0 ? o->first : "  ", (int)n, p);
    svg_printf(o, "<text class=\"note\" x=\"%u\" y=\"%u\" xml:space=\"preserve\">%s</text>",
               SVG_CLIENT + 12, o->y + 12, xml_escape(piece, a, sizeof a));
    o->y += SVG_NOTE_H;
}

static void svg_note(void *ctx, const char *first, const char *text)
{
    svg_out *o = ctx;
    o->first = first;
    tlsneg_ladder_wrap(text, SVG_WRAP - strlen(first), SVG_WRAP - 2, svg_note_line, o);
}

static void svg_end(void *ctx)
{
    svg_out *o = ctx;
    unsigned top = o->lane_top + SVG_HEAD_H - 8;
    svg_printf(o,
               "<line class=\"lifeline\" x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\"/>"
               "<line class=\"lifeline\" x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\"/>",
               SVG_CLIENT, top, SVG_CLIENT, o->y + 4, SVG_SERVER, top, SVG_SERVER, o->y + 4);
    svg_printf(o, "</g>");
    o->y += SVG_GAP_H;
}

static void svg_plain(void *ctx, const char *text)
{
    svg_out *o = ctx;
    char a[1024];
    svg_printf(o, "<text class=\"note\" x=\"8\" y=\"%u\">%s</text>", o->y + 14,
               xml_escape(text, a, sizeof a));
    o->y += SVG_NOTE_H + 4;
}

void tlsneg_ladder_write_svg(const tlsneg_ladder *l, void (*line)(const char *text, void *ctx),
                             void *ctx)
{
    svg_out o = {line, ctx, false, 8, 0, ""};
    tlsneg_ladder_renderer r = {svg_head, svg_arrow, svg_note, svg_end, svg_plain, &o};
    tlsneg_ladder_layout(l, &r); /* measure */
    unsigned height = o.y + 8;
    o.draw = true;
    o.y = 8;
    svg_printf(&o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    svg_printf(&o,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
               "viewBox=\"0 0 %u %u\" font-family=\"DejaVu Sans, Arial, sans-serif\" "
               "font-size=\"13\">",
               SVG_W, height, SVG_W, height);
    svg_printf(&o, "<title>TLS version negotiation ladder</title>");
    svg_printf(&o, "<defs><marker id=\"head\" markerWidth=\"10\" markerHeight=\"8\" refX=\"9\" "
                   "refY=\"4\" orient=\"auto\"><path d=\"M0,0 L10,4 L0,8 z\" "
                   "fill=\"#333\"/></marker>");
    svg_printf(&o, "<style>.heading{font-weight:bold}.peer{fill:#333;font-style:italic}"
                   ".frame{fill:#666;font-family:monospace}"
                   ".lifeline{stroke:#999;stroke-width:2;stroke-dasharray:4 3}"
                   ".to-server{stroke:#1f5fa8;stroke-width:1.6}"
                   ".to-client{stroke:#a8321f;stroke-width:1.6}"
                   ".note{fill:#555;font-size:12px}</style></defs>");
    svg_printf(&o, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>");
    tlsneg_ladder_layout(l, &r);
    svg_printf(&o, "</svg>");
}

static void print_line(const char *text, void *ctx)
{
    fprintf(ctx, "%s\n", text);
}

void tlsneg_ladder_print_svg(const tlsneg_ladder *l, FILE *out)
{
    tlsneg_ladder_write_svg(l, print_line, out);
}
