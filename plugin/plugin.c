/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plugin.c: the entry points Wireshark's plugin loader looks for
 * (ws-compat.h says which ones each version wants). */
#include <ws_symbol_export.h>
#include <ws_version.h>
#include <epan/proto.h>
#include <epan/tap.h>

#include "packet-tlsneg.h"
#include "ws-compat.h"

#ifndef TLSNEG_VERSION
#define TLSNEG_VERSION "0.0.0"
#endif

/* The loader refuses a plugin built for another major.minor. */
WS_DLL_PUBLIC_DEF const char plugin_version[] = TLSNEG_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

void plugin_register(void)
{
    static proto_plugin plug;
    plug.register_protoinfo = proto_register_tlsneg;
    plug.register_handoff = proto_reg_handoff_tlsneg;
    proto_register_plugin(&plug);
    /* The -z reports and the Statistics menu, with the other tap users. */
    static tap_plugin plug_tap;
    plug_tap.register_tap_listener = tlsneg_register_stats;
    tap_register_plugin(&plug_tap);
}

/* 4.2 and later: "dissector" in About Wireshark and tshark -G plugins. */
TLSNEG_PLUGIN_DESCRIBE(WS_PLUGIN_DESC_DISSECTOR)
