/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ws-compat.h: every difference between the Wireshark versions tlsneg builds
 * against sits here, keyed on ws_version.h. Built and tested: 4.0 (Debian 12),
 * 4.4 (Debian 13) and 4.6 (Debian unstable), see
 * tests/wireshark-versions.sh. 4.2 is keyed from the release notes but
 * not tested. The rest of the plugin calls only what this header names, and
 * has no #if of its own on the Wireshark version. */
#ifndef TLSNEG_WS_COMPAT_H
#define TLSNEG_WS_COMPAT_H

#include <ws_version.h>
#include <epan/proto.h>
#include <epan/tvbuff.h>
#include <epan/ftypes/ftypes.h>

/* TLSNEG_WS_AT_LEAST is true when building against Wireshark major.minor or
 * later. */
#define TLSNEG_WS_AT_LEAST(major, minor)                                                           \
    (WIRESHARK_VERSION_MAJOR > (major) ||                                                          \
     (WIRESHARK_VERSION_MAJOR == (major) && WIRESHARK_VERSION_MINOR >= (minor)))

#if TLSNEG_WS_AT_LEAST(4, 2)
/* 4.2 made field_info's value a pointer. */
#define TLSNEG_FI_VALUE(fi) ((fi)->value)
#else
#define TLSNEG_FI_VALUE(fi) (&(fi)->value)
#endif

/* tlsneg_fi_uint returns the value of an unsigned integer field of up to 32
 * bits. */
static inline guint32 tlsneg_fi_uint(field_info *fi)
{
    return fvalue_get_uinteger(TLSNEG_FI_VALUE(fi));
}

/* tlsneg_fi_uint64 returns the value of an unsigned integer field of 40 to
 * 64 bits (fvalue_get_uinteger asserts on them), such as QUIC's varints. */
static inline guint64 tlsneg_fi_uint64(field_info *fi)
{
    return fvalue_get_uinteger64(TLSNEG_FI_VALUE(fi));
}

/* tlsneg_tvb_get_uint8 reads one byte. 4.4 renamed the GLib-typed accessors
 * after the C99 types and deprecated the old names (tvb_get_guint8 is an
 * error under -Werror there); 4.0 has only the old ones. */
#if TLSNEG_WS_AT_LEAST(4, 4)
#define tlsneg_tvb_get_uint8(tvb, offset) tvb_get_uint8((tvb), (offset))
#else
#define tlsneg_tvb_get_uint8(tvb, offset) tvb_get_guint8((tvb), (offset))
#endif

/* TLSNEG_FIELD_SSL2_HANDSHAKE_TYPE: the handshake type of an SSLv2-compatible
 * ClientHello. 4.0 names it tls.handshake.type, a second field of the TLS
 * handshake type's name; 4.4 renamed it tls.ssl2.handshake.type. The
 * postdissector watches both names (a name no field has matches nothing), so
 * this needs no version test. */
#define TLSNEG_FIELD_SSL2_HANDSHAKE_TYPE "tls.ssl2.handshake.type"

/* tlsneg_pref_bool is the type of a variable given to
 * prefs_register_bool_preference(): gboolean (an int) in 4.0, C99 bool (one
 * byte) in 4.4 and later. Passing the other one does not compile. */
#if TLSNEG_WS_AT_LEAST(4, 4)
typedef bool tlsneg_pref_bool;
#else
typedef gboolean tlsneg_pref_bool;
#endif

/* tlsneg_funnel_bool is what a funnel button callback (funnel_bt_cb_t,
 * epan/funnel.h) returns: gboolean in 4.0, C99 bool from 4.4 on. */
#if TLSNEG_WS_AT_LEAST(4, 4)
typedef bool tlsneg_funnel_bool;
#else
typedef gboolean tlsneg_funnel_bool;
#endif

/* tlsneg_stat_init_result is the return type of a -z init callback
 * (stat_tap_ui.tap_init_cb, register_stat_tap_ui()): void up to 4.4, bool
 * from 4.6 (false: the statistic could not start). End such a callback with
 * TLSNEG_STAT_INIT_DONE, or TLSNEG_STAT_INIT_FAILED when it could not start
 * (a plugin never exits the program). */
#if TLSNEG_WS_AT_LEAST(4, 6)
typedef bool tlsneg_stat_init_result;
#define TLSNEG_STAT_INIT_DONE   return true
#define TLSNEG_STAT_INIT_FAILED return false
#else
typedef void tlsneg_stat_init_result;
#define TLSNEG_STAT_INIT_DONE   return
#define TLSNEG_STAT_INIT_FAILED return
#endif

/* Plugin registration (plugin.c). Every version from 4.0 to 4.6 loads a
 * plugin through plugin_version, plugin_want_major and plugin_want_minor
 * (which must equal the loader's own major.minor, or it refuses the plugin:
 * "The plugin 'tlsneg.so' was compiled for Wireshark version X.Y") and
 * plugin_register. From 4.2 the loader also calls the optional
 * plugin_describe(), whose flags name the plugin's kind in About Wireshark
 * and in tshark -G plugins ("dissector"; "unknown" without it).
 * TLSNEG_PLUGIN_DESCRIBE(flags) defines it where it exists and expands to
 * nothing on 4.0, whose headers have no WS_PLUGIN_DESC_* flags (the argument
 * is then never expanded). */
#if TLSNEG_WS_AT_LEAST(4, 2)
#include <wsutil/plugins.h>
#define TLSNEG_PLUGIN_DESCRIBE(flags)                                                              \
    WS_DLL_PUBLIC uint32_t plugin_describe(void);                                                  \
    uint32_t plugin_describe(void)                                                                 \
    {                                                                                              \
        return (flags);                                                                            \
    }
#else
#define TLSNEG_PLUGIN_DESCRIBE(flags)
#endif

#endif
