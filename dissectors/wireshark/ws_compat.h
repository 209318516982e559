/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ws_compat.h - every difference between the Wireshark versions the plugin
 * builds against (4.0, 4.4, 4.6), keyed on the version of the SDK, so that
 * the plugin's other files are written once.
 *
 *   - 4.2 added plugin_describe() and the plugin type flags of
 *     <wsutil/plugins.h>; 4.4 and later refuse a plugin without them.
 *   - 4.4 moved preferences to C99 bool (prefs_register_bool_preference()
 *     takes a bool *), and conversation filters' validity callbacks with them.
 *   - 4.2 gave conversation filters' callbacks a user_data argument.
 */
#ifndef ROCESHARK_WS_COMPAT_H
#define ROCESHARK_WS_COMPAT_H

#include <stdbool.h>

#include <glib.h>
#include <ws_version.h>

#define RS_WS_AT_LEAST(major, minor)                                                      \
    (WIRESHARK_VERSION_MAJOR > (major) ||                                                 \
     (WIRESHARK_VERSION_MAJOR == (major) && WIRESHARK_VERSION_MINOR >= (minor)))

#if RS_WS_AT_LEAST(4, 2)
#include <wsutil/plugins.h>
#define RS_WS_PLUGIN_DESCRIBE 1
#else
#define RS_WS_PLUGIN_DESCRIBE 0
#endif

/* The variable behind a boolean preference. */
#if RS_WS_AT_LEAST(4, 4)
typedef bool rs_ws_pref_bool;
#else
typedef gboolean rs_ws_pref_bool;
#endif

/* A conversation filter's callbacks (epan/conversation_filter.h) take these
 * parameters; RS_WS_CONV_FILTER_REGISTER registers them. */
#if RS_WS_AT_LEAST(4, 4)
typedef bool rs_ws_filter_valid;
#else
typedef gboolean rs_ws_filter_valid;
#endif
#if RS_WS_AT_LEAST(4, 2)
#define RS_WS_CONV_FILTER_PARAMS packet_info *pinfo, void *user_data _U_
#define RS_WS_CONV_FILTER_REGISTER(proto, name, valid, build)                             \
    register_conversation_filter(proto, name, valid, build, NULL)
#else
#define RS_WS_CONV_FILTER_PARAMS packet_info *pinfo
#define RS_WS_CONV_FILTER_REGISTER(proto, name, valid, build)                             \
    register_conversation_filter(proto, name, valid, build)
#endif

#endif /* ROCESHARK_WS_COMPAT_H */
