/* SPDX-License-Identifier: GPL-2.0-or-later */
/* packet-tlsneg.c: the Wireshark glue of tlsneg, its entry points.
 *
 * A postdissector: on the first pass it finds every plaintext ClientHello,
 * ServerHello, HelloRetryRequest and HelloVerifyRequest that the TLS, DTLS and
 * QUIC dissectors put in the tree, hands their bytes to the pure-C core, and
 * keeps the facts per frame; on every pass it renders them. The work is in
 * tlsneg-fields.c (what is registered), tlsneg-tree.c (what is read off the
 * tree), tlsneg-analyse.c (the first pass), tlsneg-cache.c (what is kept),
 * tlsneg-render.c and tlsneg-items.c (what is shown). */
#include <epan/packet.h>
#include <epan/tap.h>

#include "packet-tlsneg.h"
#include "tlsneg-analyse.h"
#include "tlsneg-cache.h"
#include "tlsneg-fields.h"
#include "tlsneg-render.h"
#include "tlsneg-tree.h"

static int tlsneg_tap = -1;
static dissector_handle_t tlsneg_handle;

static int dissect_tlsneg(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    frame_result *res;
#ifdef TLSNEG_BENCH_EMPTY
    /* bench/: the same wanted fields and tap, no work of tlsneg's own. */
    return 0;
#endif
    if (!PINFO_FD_VISITED(pinfo)) {
        res = tree ? tlsneg_analyse_frame(tree, pinfo) : NULL;
        if (res) {
            tlsneg_cache_put(pinfo, res);
        }
    } else {
        res = tlsneg_cache_get(pinfo);
    }
    if (!res) {
        return 0;
    }
    gboolean wanted = tlsneg_render_wanted(tree, pinfo);
    for (guint i = 0; i < res->num_msgs; i++) {
        if (!wanted) {
            /* The protocol item alone, which tshark keeps in any tree (an
             * item of the tree's root is never faked): -z io,phs counts it. */
            proto_tree_add_item(tree, proto_tlsneg, tvb, 0, 0, ENC_NA);
        } else if (res->msgs[i].is_alert) {
            tlsneg_render_alert(tree, tvb, pinfo, &res->msgs[i]);
        } else {
            tlsneg_render_hello(tree, tvb, pinfo, &res->msgs[i], &res->places[i]);
        }
        if (tlsneg_prefs.info_notes) {
            tlsneg_render_info_notes(pinfo, &res->msgs[i]);
        }
    }
    tap_queue_packet(tlsneg_tap, pinfo, res);
    return res->num_msgs ? (int)tvb_captured_length(tvb) : 0;
}

/* tshark -q and -w skip dissection unless a tap listener needs it. */
static tap_packet_status tlsneg_tap_packet(void *tapdata _U_, packet_info *pinfo _U_,
                                           epan_dissect_t *edt _U_, const void *data _U_,
                                           tap_flags_t flags _U_)
{
    return TAP_PACKET_DONT_REDRAW;
}

void proto_register_tlsneg(void)
{
    tlsneg_fields_register();
    tlsneg_tap = register_tap("tlsneg");
    tlsneg_register_ladder_menu();
    register_init_routine(tlsneg_analyse_init);
    register_cleanup_routine(tlsneg_analyse_cleanup);
    tlsneg_cache_register();
}

void proto_reg_handoff_tlsneg(void)
{
    tlsneg_handle = create_dissector_handle(dissect_tlsneg, proto_tlsneg);
    register_postdissector(tlsneg_handle);
    tlsneg_tree_watch(tlsneg_handle);

    GString *err = register_tap_listener("frame", &proto_tlsneg, NULL, TL_REQUIRES_NOTHING, NULL,
                                         tlsneg_tap_packet, NULL, NULL);
    if (err) {
        g_string_free(err, TRUE);
    }
}
