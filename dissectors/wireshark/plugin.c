/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plugin.c - the entry points Wireshark looks for in an epan plugin.
 */
#include <epan/proto.h>
#include <ws_symbol_export.h>
#include <ws_version.h>

#include <roceshark/version.h>

#include "ws_compat.h"
#include "ws_plugin.h"

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = RS_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

#if RS_WS_PLUGIN_DESCRIBE
WS_DLL_PUBLIC uint32_t plugin_describe(void);

/* What the plugin is: a dissector (4.2 and later ask). */
uint32_t
plugin_describe(void)
{
    return WS_PLUGIN_DESC_DISSECTOR;
}
#endif

void
plugin_register(void)
{
    static proto_plugin plug;

    plug.register_protoinfo = proto_register_roceshark;
    plug.register_handoff = proto_reg_handoff_roceshark;
    proto_register_plugin(&plug);
}
