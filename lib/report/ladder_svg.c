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
#define SVG_TIME_X  (SVG_CLIENT - 10) /* right edge of the seconds */

/* How wide a character of the fonts named below can be, in thousandths
 * of the font size. DejaVu Sans (the widest of them) draws digits 0.636 em
 * wide (1303 of 2048 units), the widest characters of addresses and
 * frame numbers, and most lower case narrower; so labels are taken at 0.64
 * em (bold 0.72), and the notes, long lines of prose that average about
 * 0.55 em, at 0.60. The drawing is made as wide as its widest line needs
 * (tlsneg_ladder_write_svg). */
#define SVG_EM_PLAIN 640
#define SVG_EM_NOTE  600
#define SVG_EM_BOLD  720

typedef struct {
    void (*line)(const char *text, void *ctx);
    void *ctx;
    bool draw; /* false: only measure */
    unsigned y, lane_top;
    unsigned right; /* measuring: the rightmost any text reaches */
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

/* text_w is the widest text of n characters at font size px can be. */
static unsigned text_w(size_t n, unsigned px, unsigned em)
{
    return (unsigned)((n * px * em + 999) / 1000);
}

/* reach notes that a text of font size px (em: thousandths of it per
 * character) placed at x with anchor ("start", "middle", "end") ends at. */
static void reach(svg_out *o, unsigned x, const char *anchor, const char *text, unsigned px,
                  unsigned em)
{
    unsigned w = text_w(strlen(text), px, em);
    unsigned end = anchor[0] == 's' ? x + w : anchor[0] == 'm' ? x + (w + 1) / 2 : x;
    if (end > o->right) {
        o->right = end;
    }
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
    char a[1024], b[256], c[256], peer[320];
    o->lane_top = o->y;
    reach(o, 8, "start", text, 13, SVG_EM_BOLD);
    snprintf(peer, sizeof peer, "server %s", server);
    reach(o, SVG_SERVER, "middle", peer, 13, SVG_EM_PLAIN);
    /* The client's name under its lifeline, or from the left edge when
     * half of it would not fit left of the lifeline (IPv6). */
    bool centred = text_w(strlen(client) + 7, 13, SVG_EM_PLAIN) / 2 + 8 <= SVG_CLIENT;
    snprintf(peer, sizeof peer, "client %s", client);
    reach(o, centred ? SVG_CLIENT : 8, centred ? "middle" : "start", peer, 13, SVG_EM_PLAIN);
    svg_printf(o, "<g class=\"lane\">");
    svg_printf(o, "<text class=\"heading\" x=\"8\" y=\"%u\">%s</text>", o->y + 18,
               xml_escape(text, a, sizeof a));
    svg_printf(o,
               "<text class=\"peer\" x=\"%u\" y=\"%u\" text-anchor=\"%s\">client "
               "%s</text><text class=\"peer\" x=\"%u\" y=\"%u\" text-anchor=\"middle\">server "
               "%s</text>",
               centred ? SVG_CLIENT : 8, o->y + 44, centred ? "middle" : "start",
               xml_escape(client, b, sizeof b), SVG_SERVER, o->y + 44,
               xml_escape(server, c, sizeof c));
    o->y += SVG_HEAD_H;
}

static void svg_arrow(void *ctx, uint32_t frame, int64_t since_us, bool from_client,
                      const char *text)
{
    svg_out *o = ctx;
    char a[1024], secs[TLSNEG_LADDER_SECONDS_MAX];
    unsigned base = o->y + SVG_ARROW_H - 8;
    reach(o, (SVG_CLIENT + SVG_SERVER) / 2, "middle", text, 13, SVG_EM_PLAIN);
    svg_printf(o, "<text class=\"frame\" x=\"%u\" y=\"%u\" text-anchor=\"end\">%u</text>",
               SVG_FRAME_X, base + 4, frame);
    svg_printf(o, "<text class=\"time\" x=\"%u\" y=\"%u\" text-anchor=\"end\">%s</text>",
               SVG_TIME_X, base + 4, tlsneg_ladder_seconds(since_us, secs, sizeof secs));
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
    reach(o, SVG_CLIENT + 12, "start", piece, 12, SVG_EM_NOTE);
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
    reach(o, 8, "start", text, 12, SVG_EM_NOTE);
    svg_printf(o, "<text class=\"note\" x=\"8\" y=\"%u\">%s</text>", o->y + 14,
               xml_escape(text, a, sizeof a));
    o->y += SVG_NOTE_H + 4;
}

void tlsneg_ladder_write_svg(const tlsneg_ladder *l, void (*line)(const char *text, void *ctx),
                             void *ctx)
{
    svg_out o = {line, ctx, false, 8, 0, SVG_W - 8, ""};
    tlsneg_ladder_renderer r = {svg_head, svg_arrow, svg_note, svg_end, svg_plain, &o};
    tlsneg_ladder_layout(l, &r); /* measure */
    unsigned height = o.y + 8;
    unsigned width = o.right + 8; /* at least SVG_W: the widest text inside */
    o.draw = true;
    o.y = 8;
    svg_printf(&o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    svg_printf(&o,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
               "viewBox=\"0 0 %u %u\" font-family=\"DejaVu Sans, Arial, sans-serif\" "
               "font-size=\"13\">",
               width, height, width, height);
    svg_printf(&o, "<title>TLS version negotiation ladder</title>");
    svg_printf(&o, "<defs><marker id=\"head\" markerWidth=\"10\" markerHeight=\"8\" refX=\"9\" "
                   "refY=\"4\" orient=\"auto\"><path d=\"M0,0 L10,4 L0,8 z\" "
                   "fill=\"#333\"/></marker>");
    svg_printf(&o, "<style>.heading{font-weight:bold}.peer{fill:#333;font-style:italic}"
                   ".frame,.time{fill:#666;font-family:monospace}"
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
