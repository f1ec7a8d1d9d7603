/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-ladder.c: the ladder picture (report/ladder.h) from the "tlsneg"
 * tap, as tshark's -z tlsneg,ladder[,filter] and as a GUI window opened
 * from Statistics > TLS Negotiation Ladder (epan/funnel.h). */
#include "packet-tlsneg.h"
#include "ws-compat.h"

#include "report/ladder.h"
#include "analysis/rules.h"

#include <epan/addr_resolv.h>
#include <epan/address_types.h>
#include <epan/conversation.h>
#include <epan/funnel.h>
#include <epan/stat_tap_ui.h>
#include <epan/tap.h>
#include <stdio.h>
#include <string.h>

/* Steps kept at most: about 100 bytes each. */
#define MAX_STEPS 1000000

typedef struct {
    tlsneg_ladder *ladder;
    GHashTable *first_hello; /* conversation index -> frame of its first ClientHello */
} ladder_tap;

static void ladder_reset(void *tapdata)
{
    ladder_tap *lt = (ladder_tap *)tapdata;
    tlsneg_ladder_free(lt->ladder);
    lt->ladder = tlsneg_ladder_new(MAX_STEPS);
    g_hash_table_remove_all(lt->first_hello);
}

static ladder_tap *ladder_tap_new(void)
{
    ladder_tap *lt = g_new0(ladder_tap, 1);
    lt->first_hello = g_hash_table_new(g_direct_hash, g_direct_equal);
    ladder_reset(lt);
    return lt;
}

static void ladder_tap_free(void *tapdata)
{
    ladder_tap *lt = (ladder_tap *)tapdata;
    tlsneg_ladder_free(lt->ladder);
    g_hash_table_destroy(lt->first_hello);
    g_free(lt);
}

/* endpoint writes "192.0.2.1:443" or "[2001:db8::1]:443" (port 0: the
 * address alone). */
static void endpoint(const address *a, guint32 port, char *out, size_t len)
{
    char *s = address_to_str(NULL, a);
    if (!port) {
        snprintf(out, len, "%s", s);
    } else if (a->type == AT_IPv6) {
        snprintf(out, len, "[%s]:%u", s, port);
    } else {
        snprintf(out, len, "%s:%u", s, port);
    }
    wmem_free(NULL, s);
}

typedef struct {
    char server[80], client[64];
    const char *sni;
    guint32 attempt;
} peers;

/* peers_of names the server and the client of a step sent by the client
 * (from_client) or the server, and the attempt it belongs to. */
static void peers_of(ladder_tap *lt, packet_info *pinfo, gboolean from_client, const char *sni,
                     gboolean new_hello, peers *p)
{
    endpoint(from_client ? &pinfo->dst : &pinfo->src,
             from_client ? pinfo->destport : pinfo->srcport, p->server, sizeof p->server);
    endpoint(from_client ? &pinfo->src : &pinfo->dst, 0, p->client, sizeof p->client);
    p->sni = sni;
    conversation_t *conv = find_conversation_pinfo(pinfo, 0);
    gpointer key = GUINT_TO_POINTER(conv ? conv->conv_index : 0);
    p->attempt = GPOINTER_TO_UINT(g_hash_table_lookup(lt->first_hello, key));
    if (new_hello && !p->attempt) {
        p->attempt = pinfo->num;
        g_hash_table_insert(lt->first_hello, key, GUINT_TO_POINTER(pinfo->num));
    }
}

static void add(ladder_tap *lt, const peers *p, const tlsneg_step *s)
{
    tlsneg_ladder_add(lt->ladder, p->server, p->sni, p->client, s);
}

static void ladder_msg(ladder_tap *lt, packet_info *pinfo, const msg_result *r)
{
    const tlsneg_facts *f = &r->facts;
    if (!r->is_alert && r->retransmission_of) {
        return;
    }
    gboolean client_hello = !r->is_alert && f->msg_type == TLSNEG_HS_CLIENT_HELLO;
    peers p;
    peers_of(lt, pinfo, r->from_client, r->sni, client_hello, &p);
    tlsneg_step s = {.frame = pinfo->num,
                     .attempt = p.attempt,
                     .from_client = r->from_client,
                     .dtls = f->wire == TLSNEG_WIRE_DTLS};
    if (r->is_alert) {
        s.kind = TLSNEG_STEP_ALERT;
        s.alert = r->alert_description;
        s.from_client = !r->alert_from_server;
        s.failure = r->failed_attempt ? r->failure_cause : 0;
    } else if (client_hello) {
        s.kind = TLSNEG_STEP_CLIENT_HELLO;
        s.has_version = f->has_offered_max;
        s.version = f->offered_max;
        s.fallback_scsv = f->fallback_scsv;
    } else if (f->msg_type == TLSNEG_HS_SERVER_HELLO) {
        s.kind = f->is_hrr ? TLSNEG_STEP_HELLO_RETRY_REQUEST : TLSNEG_STEP_SERVER_HELLO;
        s.has_version = f->is_hrr ? f->has_selected : f->has_negotiated;
        s.version = f->is_hrr ? f->selected_version : f->negotiated_version;
    } else {
        s.kind = TLSNEG_STEP_HELLO_VERIFY_REQUEST;
    }
    add(lt, &p, &s);
    for (guint i = 0; i < r->num_findings; i++) {
        tlsneg_rule_id id = r->findings[i].rule;
        if (tlsneg_rule_is_verdict(id)) {
            tlsneg_step v = {.kind = TLSNEG_STEP_VERDICT,
                             .frame = pinfo->num,
                             .attempt = p.attempt,
                             .finding = tlsneg_rules[id].finding,
                             .detail = r->findings[i].detail};
            add(lt, &p, &v);
        }
    }
}

static tap_packet_status ladder_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt _U_,
                                       const void *data, tap_flags_t flags _U_)
{
    ladder_tap *lt = (ladder_tap *)tapdata;
    const frame_result *res = (const frame_result *)data;
    for (guint i = 0; i < res->num_msgs; i++) {
        ladder_msg(lt, pinfo, &res->msgs[i]);
    }
    if (res->close) {
        peers p;
        peers_of(lt, pinfo, res->close_from_client, res->close_sni, FALSE, &p);
        tlsneg_step s = {.kind = res->close == TLSNEG_CAUSE_RESET ? TLSNEG_STEP_RESET
                                                                  : TLSNEG_STEP_CLOSE,
                         .frame = pinfo->num,
                         .attempt = p.attempt ? p.attempt : res->close_attempt_frame,
                         .from_client = res->close_from_client,
                         .failure = res->close};
        add(lt, &p, &s);
    }
    return TAP_PACKET_REDRAW;
}

/* ---- tshark: -z tlsneg,ladder[,filter], -z tlsneg,ladder-svg[,filter] ---- */

static void ladder_print(void *tapdata)
{
    tlsneg_ladder_print(((ladder_tap *)tapdata)->ladder, stdout);
}

/* The SVG alone on stdout (with -q), so that "> ladder.svg" keeps it. */
static void ladder_print_svg(void *tapdata)
{
    tlsneg_ladder_print_svg(((ladder_tap *)tapdata)->ladder, stdout);
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
    ladder_tap *lt = ladder_tap_new();
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

static ladder_tap *gui_tap;
static funnel_text_window_t *gui_window;

static void append_line(const char *text, void *ctx)
{
    g_string_append(ctx, text);
    g_string_append_c(ctx, '\n');
}

static void gui_window_closed(void *data _U_)
{
    gui_window = NULL;
}

static tlsneg_funnel_bool gui_filter_attempts(funnel_text_window_t *tw _U_, void *data _U_)
{
    const funnel_ops_t *ops = funnel_get_funnel_ops();
    if (ops && ops->set_filter && ops->apply_filter) {
        ops->set_filter(ops->ops_id, "tlsneg || tcp.flags.reset == 1");
        ops->apply_filter(ops->ops_id);
    }
    return TRUE;
}

static void gui_draw(void *tapdata)
{
    const funnel_ops_t *ops = funnel_get_funnel_ops();
    if (!ops || !ops->new_text_window) {
        return;
    }
    GString *text = g_string_new(
        "Each rung is one frame: the client's messages point right, the server's point left.\n"
        "Go > Go to Packet (Ctrl+G) takes you to a frame number.\n\n");
    tlsneg_ladder_write(((ladder_tap *)tapdata)->ladder, append_line, text);
    if (!gui_window) {
        gui_window = ops->new_text_window(ops->ops_id, "TLS Negotiation Ladder");
        ops->set_close_cb(gui_window, gui_window_closed, NULL);
        funnel_bt_t *bt = g_new0(funnel_bt_t, 1);
        bt->tw = gui_window;
        bt->func = gui_filter_attempts;
        bt->free_fcn = g_free;
        ops->add_button(gui_window, bt, "Show hellos, alerts and resets");
    }
    ops->set_text(gui_window, text->str);
    g_string_free(text, TRUE);
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
