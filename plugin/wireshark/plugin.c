/* plugin.c: the entry points Wireshark's plugin loader looks for. */
#include <ws_symbol_export.h>
#include <ws_version.h>
#include <epan/proto.h>

#include "packet-tlsneg.h"

#ifndef TLSNEG_VERSION
#define TLSNEG_VERSION "0.0.0"
#endif

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = TLSNEG_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

void plugin_register(void)
{
    static proto_plugin plug;
    plug.register_protoinfo = proto_register_tlsneg;
    plug.register_handoff = proto_reg_handoff_tlsneg;
    proto_register_plugin(&plug);
}
