/* SPDX-License-Identifier: GPL-2.0-or-later */
/* field_probe: a postdissector that asks for the fields named in the
 * environment variable TLSNEG_PROBE_FIELDS (comma-separated filter names,
 * every field of each name) and does nothing else. tshark with it, minus
 * plain tshark, is the price of those wanted fields alone: bench/field_cost.py
 * runs it with growing field lists. Registers a tap listener like tlsneg, so
 * that -q and -w runs behave the same. Not part of tlsneg. */
#include <stdlib.h>
#include <string.h>

#include <ws_symbol_export.h>
#include <ws_version.h>
#include <epan/packet.h>
#include <epan/proto.h>
#include <epan/tap.h>

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = "0.0.0";
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

static int proto_probe = -1;
static dissector_handle_t probe_handle;

static int dissect_probe(tvbuff_t *tvb _U_, packet_info *pinfo _U_, proto_tree *tree _U_,
                         void *data _U_)
{
    return 0;
}

static tap_packet_status probe_tap_packet(void *tapdata _U_, packet_info *pinfo _U_,
                                          epan_dissect_t *edt _U_, const void *data _U_,
                                          tap_flags_t flags _U_)
{
    return TAP_PACKET_DONT_REDRAW;
}

static void probe_register(void)
{
    proto_probe = proto_register_protocol("tlsneg field-cost probe", "TLSNEGPROBE", "tlsnegprobe");
}

static void probe_handoff(void)
{
    probe_handle = create_dissector_handle(dissect_probe, proto_probe);
    register_postdissector(probe_handle);

    const char *env = getenv("TLSNEG_PROBE_FIELDS");
    GArray *wanted = g_array_new(FALSE, FALSE, (guint)sizeof(int));
    gchar **names = g_strsplit(env ? env : "", ",", -1);
    for (gchar **name = names; *name; name++) {
        if (!**name) {
            continue;
        }
        /* every field of that name in its protocol: several share one name */
        gchar *proto_name = g_strndup(*name, strcspn(*name, "."));
        int proto_id = proto_get_id_by_filter_name(proto_name);
        g_free(proto_name);
        if (proto_id < 0) {
            continue;
        }
        if (!strchr(*name, '.')) {
            g_array_append_val(wanted, proto_id);
            continue;
        }
        void *cookie = NULL;
        for (header_field_info *hfi = proto_get_first_protocol_field(proto_id, &cookie); hfi;
             hfi = proto_get_next_protocol_field(proto_id, &cookie)) {
            if (strcmp(hfi->abbrev, *name) == 0) {
                g_array_append_val(wanted, hfi->id);
            }
        }
    }
    g_strfreev(names);
    if (wanted->len) {
        set_postdissector_wanted_hfids(probe_handle, wanted);
    } else {
        g_array_free(wanted, TRUE);
    }

    GString *err = register_tap_listener("frame", &proto_probe, NULL, TL_REQUIRES_NOTHING, NULL,
                                         probe_tap_packet, NULL, NULL);
    if (err) {
        g_string_free(err, TRUE);
    }
}

void plugin_register(void)
{
    static proto_plugin plug;
    plug.register_protoinfo = probe_register;
    plug.register_handoff = probe_handoff;
    proto_register_plugin(&plug);
}
