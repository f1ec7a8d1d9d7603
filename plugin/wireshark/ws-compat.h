/* ws-compat.h: every difference between the Wireshark versions tlsneg builds
 * against sits here, keyed on ws_version.h. */
#ifndef TLSNEG_WS_COMPAT_H
#define TLSNEG_WS_COMPAT_H

#include <ws_version.h>
#include <epan/proto.h>
#include <epan/ftypes/ftypes.h>

#if WIRESHARK_VERSION_MAJOR > 4 || (WIRESHARK_VERSION_MAJOR == 4 && WIRESHARK_VERSION_MINOR >= 2)
/* 4.2 made field_info's value a pointer. */
#define TLSNEG_FI_VALUE(fi) ((fi)->value)
#else
#define TLSNEG_FI_VALUE(fi) (&(fi)->value)
#endif

/* tlsneg_fi_uint returns an unsigned integer field's value. */
static inline guint32 tlsneg_fi_uint(field_info *fi)
{
    return fvalue_get_uinteger(TLSNEG_FI_VALUE(fi));
}

#endif
