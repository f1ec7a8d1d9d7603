/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-ladder.c: the ladder picture (report/ladder.h) from the "tlsneg"
 * tap, as tshark's -z tlsneg,ladder[,filter] and -z tlsneg,ladder-svg
 * [,filter], and as a GUI window opened from Statistics > TLS Negotiation
 * Ladder (epan/funnel.h). The library makes the steps from the records the
 * other outputs take; here each frame's records are handed over with their
 * conversation. */
#include "packet-tlsneg.h"
#include "ws-compat.h"

#include "report/ladder.h"

#include <epan/conversation.h>
#include <epan/funnel.h>
#include <epan/stat_tap_ui.h>
#include <epan/tap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void ladder_reset(void *tapdata)
{
    tlsneg_ladder **l = (tlsneg_ladder **)tapdata;
    tlsneg_ladder_free(*l);
    *l = tlsneg_ladder_new(TLSNEG_LADDER_MAX_STEPS);
}

/* A tap's data: the ladder, remade on every reset. */
static tlsneg_ladder **ladder_tap_new(void)
{
    tlsneg_ladder **l = g_new0(tlsneg_ladder *, 1);
    ladder_reset(l);
    return l;
}

static void ladder_tap_free(void *tapdata)
{
    tlsneg_ladder **l = (tlsneg_ladder **)tapdata;
    tlsneg_ladder_free(*l);
    g_free(l);
}

static tap_packet_status ladder_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt _U_,
                                       const void *data, tap_flags_t flags _U_)
{
    tlsneg_ladder *l = *(tlsneg_ladder **)tapdata;
    const frame_result *res = (const frame_result *)data;
    if (!l) {
        return TAP_PACKET_DONT_REDRAW;
    }
    conversation_t *conv = find_conversation_pinfo(pinfo, 0);
    uint64_t conn = conv ? conv->conv_index : 0;
    tlsneg_out_frame fr = tlsneg_stats_frame(pinfo);
    for (guint i = 0; i < res->num_msgs; i++) {
        tlsneg_ladder_message(l, conn, &fr, &res->msgs[i]);
    }
    if (res->close) {
        tlsneg_ladder_close(l, conn, &fr, res->close, res->close_from_client,
                            res->close_attempt_frame, res->close_sni);
    }
    return TAP_PACKET_REDRAW;
}

/* ---- tshark: -z tlsneg,ladder[,filter], -z tlsneg,ladder-svg[,filter] ---- */

static void ladder_print(void *tapdata)
{
    tlsneg_ladder_print(*(tlsneg_ladder **)tapdata, stdout);
}

/* The SVG alone on stdout (with -q), so that "> ladder.svg" keeps it. */
static void ladder_print_svg(void *tapdata)
{
    tlsneg_ladder_print_svg(*(tlsneg_ladder **)tapdata, stdout);
}

/* filter_of returns what follows "prefix," in opt_arg, or NULL. */
static const char *filter_of(const char *opt_arg, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(opt_arg, prefix, n) == 0 && opt_arg[n] == ',' ? opt_arg + n + 1 : NULL;
}

static tlsneg_stat_init_result ladder_init(const char *opt_arg, void *userdata _U_)
{
    /* Whichever of the two registrations tshark matches, the argument
     * decides: "tlsneg,ladder" is a prefix of "tlsneg,ladder-svg". */
    static const char svg[] = "tlsneg,ladder-svg";
    gboolean is_svg = strncmp(opt_arg, svg, sizeof svg - 1) == 0 &&
                      (opt_arg[sizeof svg - 1] == ',' || opt_arg[sizeof svg - 1] == '\0');
    const char *prefix = is_svg ? svg : "tlsneg,ladder";
    const char *filter = filter_of(opt_arg, prefix);
    tlsneg_ladder **lt = ladder_tap_new();
    GString *err = register_tap_listener("tlsneg", lt, filter, TL_REQUIRES_NOTHING, ladder_reset,
                                         ladder_packet, is_svg ? ladder_print_svg : ladder_print,
                                         ladder_tap_free);
    if (err) {
        fprintf(stderr, "tshark: -z %s: %s\n", prefix, err->str);
        g_string_free(err, TRUE);
        ladder_tap_free(lt);
        TLSNEG_STAT_INIT_FAILED;
    }
    TLSNEG_STAT_INIT_DONE;
}

/* ---- the GUI: Statistics > TLS Negotiation Ladder ------------------------- */

/* Wireshark 4.0's text window (ui/qt/funnel_text_dialog.cpp) opens at the
 * size its form gives it, 620 x 450, unless recent_common (global, not the
 * profile's recent) holds a "Funnel TITLE" size; funnel.h can neither size
 * it nor link its text. So the ladder is written narrow
 * (TLSNEG_LADDER_NARROW columns, about 73 fit), and buttons do what a link
 * would: show only the ladder's frames in the packet list, and go to a
 * frame (funnel.h has no "go to packet": a display filter on that frame
 * selects it, then the filter before is put back). */

/* The most frames "Show the ladder's frames" lists in its filter; a longer
 * ladder gets the hellos, alerts and TCP endings instead. */
#define GUI_MAX_FRAMES 2000

static tlsneg_ladder **gui_tap;
static funnel_text_window_t *gui_window;

static void append_line(const char *text, void *ctx)
{
    g_string_append(ctx, text);
    g_string_append_c(ctx, '\n');
}

static void apply_filter(const char *filter)
{
    const funnel_ops_t *ops = funnel_get_funnel_ops();
    if (ops && ops->set_filter && ops->apply_filter) {
        ops->set_filter(ops->ops_id, filter);
        ops->apply_filter(ops->ops_id);
    }
}

static tlsneg_funnel_bool gui_show_frames(funnel_text_window_t *tw _U_, void *data _U_)
{
    uint32_t *frames = g_new(uint32_t, GUI_MAX_FRAMES);
    size_t n = gui_tap && *gui_tap ? tlsneg_ladder_frames(*gui_tap, frames, GUI_MAX_FRAMES) : 0;
    if (n && n <= GUI_MAX_FRAMES) {
        GString *f = g_string_new("frame.number in {");
        for (size_t i = 0; i < n; i++) {
            g_string_append_printf(f, "%s%u", i ? ", " : "", frames[i]);
        }
        g_string_append_c(f, '}');
        apply_filter(f->str);
        g_string_free(f, TRUE);
    } else {
        apply_filter("tlsneg || tcp.flags.reset == 1 || tcp.flags.fin == 1");
    }
    g_free(frames);
    return TRUE;
}

/* The display filter to put back once the filter on one frame has been
 * applied (gui_go_to), or NULL. */
static char *gui_restore;

/* gui_go_to takes the frame number typed into the dialog: a filter on that
 * frame alone makes Wireshark select it (the nearest frame shown); the
 * filter before is put back by the next draw of the ladder, which comes
 * after that filter has been applied (Wireshark 4.0 queues a filter and
 * redraws the taps it ran every few seconds): it keeps the frame selected
 * and in view if it shows it. */
static void gui_go_to(gchar **input, void *data _U_)
{
    const funnel_ops_t *ops = funnel_get_funnel_ops();
    char *end = NULL;
    unsigned long frame = input && input[0] ? strtoul(input[0], &end, 10) : 0;
    if (ops && ops->get_filter && frame && frame <= UINT32_MAX && end && !*end) {
        char filter[32];
        const char *before = ops->get_filter(ops->ops_id);
        g_free(gui_restore);
        gui_restore = g_strdup(before ? before : "");
        snprintf(filter, sizeof filter, "frame.number == %lu", frame);
        apply_filter(filter);
    }
    g_strfreev(input);
}

/* gui_window_closed: the window is gone; so is its tap, or the next
 * retap (a display filter applied) would draw the ladder, and open the
 * window, again. A filter waiting to be put back (gui_go_to) is put back
 * now. */
static void gui_window_closed(void *data _U_)
{
    gui_window = NULL;
    if (gui_tap) {
        remove_tap_listener(gui_tap);
        ladder_tap_free(gui_tap);
        gui_tap = NULL;
    }
    if (gui_restore) {
        char *f = gui_restore;
        gui_restore = NULL;
        apply_filter(f);
        g_free(f);
    }
}

static tlsneg_funnel_bool gui_ask_frame(funnel_text_window_t *tw _U_, void *data _U_)
{
    const funnel_ops_t *ops = funnel_get_funnel_ops();
    static const gchar *names[] = {"Frame number (a rung's first column)", NULL};
    static const gchar *values[] = {"", NULL};
    if (ops && ops->new_dialog) {
        ops->new_dialog(ops->ops_id, "Go to a rung's frame", names, values, gui_go_to, NULL, NULL);
    }
    return TRUE;
}

static void add_button(funnel_text_window_t *w, funnel_bt_cb_t func, const char *label)
{
    const funnel_ops_t *ops = funnel_get_funnel_ops();
    funnel_bt_t *bt = g_new0(funnel_bt_t, 1);
    bt->tw = w;
    bt->func = func;
    bt->free_fcn = g_free;
    ops->add_button(w, bt, label);
}

static void gui_draw(void *tapdata)
{
    const funnel_ops_t *ops = funnel_get_funnel_ops();
    if (!ops || !ops->new_text_window) {
        return;
    }
    GString *text = g_string_new("Each rung: its frame, its seconds since the lane's first\n"
                                 "attempt, the client's messages pointing right, the\n"
                                 "server's left. Buttons below: the ladder's frames alone in\n"
                                 "the packet list; go to a frame. Counts: Statistics > TLS\n"
                                 "Version Negotiation (the menu's last item).\n\n");
    tlsneg_ladder_write_narrow(*(tlsneg_ladder **)tapdata, append_line, text);
    if (!gui_window) {
        gui_window = ops->new_text_window(ops->ops_id, "TLS Negotiation Ladder");
        ops->set_close_cb(gui_window, gui_window_closed, NULL);
        add_button(gui_window, gui_show_frames, "Show the ladder's frames");
        add_button(gui_window, gui_ask_frame, "Go to frame...");
    }
    ops->set_text(gui_window, text->str);
    g_string_free(text, TRUE);
    if (gui_restore) {
        char *f = gui_restore;
        gui_restore = NULL;
        apply_filter(f);
        g_free(f);
    }
}

static void gui_menu(gpointer data _U_)
{
    /* Registered once, then filled by a retap of the capture. */
    const funnel_ops_t *ops = funnel_get_funnel_ops();
    if (!gui_tap) {
        gui_tap = ladder_tap_new();
        GString *err = register_tap_listener("tlsneg", gui_tap, NULL, TL_REQUIRES_NOTHING,
                                             ladder_reset, ladder_packet, gui_draw, NULL);
        if (err) {
            g_string_free(err, TRUE);
            ladder_tap_free(gui_tap);
            gui_tap = NULL;
            return;
        }
    }
    if (ops && ops->retap_packets) {
        ops->retap_packets(ops->ops_id);
    }
}

void tlsneg_register_ladder(void)
{
    static stat_tap_ui ladder_ui = {REGISTER_STAT_GROUP_GENERIC,
                                    "TLS version negotiation ladder",
                                    "tlsneg,ladder",
                                    ladder_init,
                                    0,
                                    NULL};
    static stat_tap_ui svg_ui = {REGISTER_STAT_GROUP_GENERIC,
                                 "TLS version negotiation ladder as SVG",
                                 "tlsneg,ladder-svg",
                                 ladder_init,
                                 0,
                                 NULL};
    register_stat_tap_ui(&ladder_ui, NULL);
    register_stat_tap_ui(&svg_ui, NULL);
}

void tlsneg_register_ladder_menu(void)
{
    /* Menus must exist before the GUI collects them, which it does among
     * the tap listeners: register with the protocol, as Lua plugins do. The
     * Qt GUI of 4.0 shows this group's items in the Statistics menu (not
     * those of REGISTER_STAT_GROUP_GENERIC). */
    funnel_register_menu("TLS Negotiation Ladder", REGISTER_PACKET_STAT_GROUP_UNSORTED, gui_menu,
                         NULL, NULL, FALSE);
}
