/* SPDX-License-Identifier: GPL-2.0-or-later */
/* alerts.c: what a plaintext alert means for the handshake (checks.h):
 * whether it ends it, and one sentence about it. The rules an alert is
 * judged by are checks.c's, as for a hello. */
#include "analysis/checks.h"

#include "analysis/words.h"
#include "core/alerts.h"

#include <stdio.h>

/* closure_alert: close_notify (0) and user_canceled (90), the closure
 * alerts of RFC 8446 6.1 (RFC 5246 7.2.1). */
static bool closure_alert(uint8_t description)
{
    return description == 0 || description == 90;
}

const char *tlsneg_alert_summary(uint8_t level, uint8_t description, bool ends, bool from_server,
                                 bool after_client_hello, uint8_t after_cause, uint32_t after_frame,
                                 char *buf, size_t buf_len)
{
    const char *name = tlsneg_alert_name(description);
    /* A sender known to have closed after the other side: named. */
    const char *who = !after_client_hello && !after_frame ? "A peer"
                      : from_server                       ? "The server"
                                                          : "The client";
    const char *what = "";
    char after[128];
    if (after_frame) {
        /* The other side had closed or reset the connection before: the
         * alert follows that, whatever it would have ended. */
        char closed[96];
        snprintf(
            after, sizeof after, "%s %s", level == TLSNEG_ALERT_WARNING ? " as a warning" : "",
            tlsneg_after_close_text(from_server, after_cause, after_frame, closed, sizeof closed));
        what = after;
    } else if (ends && level == TLSNEG_ALERT_WARNING) {
        what = " as a warning, an error in TLS 1.3 whatever its level: the handshake fails";
    } else if (ends) {
        what = ": the handshake fails";
    } else if (level == TLSNEG_ALERT_WARNING && !closure_alert(description)) {
        what = " as a warning: it does not end the handshake";
    }
    snprintf(buf, buf_len, "%s sends alert %s (%u)%s.", who, name ? name : "unknown", description,
             what);
    return buf;
}

bool tlsneg_alert_ends_handshake(uint8_t level, uint8_t description, bool tls13)
{
    /* The closure alerts, close_notify and user_canceled, report no error:
     * the sender closes or cancels, and the TCP close or reset that
     * follows is what ends the attempt (RFC 8446 6.1: "closure alerts",
     * whatever their level; RFC 5246 7.2.1). A fatal-level one in TLS 1.2
     * terminates the connection at once (RFC 5246 7.2), and that close is
     * seen as well. */
    if (closure_alert(description)) {
        return false;
    }
    /* RFC 5246 7.2: "Messages with an alert level of fatal result in the
     * immediate termination of the connection"; RFC 8446 6: a fatal alert
     * is an error alert. No level (a QUIC CONNECTION_CLOSE, RFC 9001 4.8:
     * the connection is closed) counts as fatal. */
    if (level != TLSNEG_ALERT_WARNING) {
        return true;
    }
    /* A warning. RFC 8446 6: TLS 1.3 has no warnings but the closure
     * alerts; the others "MUST be treated as error alerts when received
     * regardless of the AlertLevel in the message" (DTLS 1.3 likewise,
     * RFC 9147). That holds once the server has chosen 1.3 (its ServerHello
     * or HelloRetryRequest says so): after that, a plaintext warning (the
     * client's, the server's after a HelloRetryRequest) ends the handshake.
     *
     * Before the server has chosen 1.3, a plaintext warning comes from a
     * TLS 1.2 or earlier stack, or from a server that is answering with
     * 1.2 or earlier: a server that chose 1.3 sends no warning (OpenSSL
     * drops its unrecognized_name warning in TLS 1.3), and its alerts after
     * its ServerHello are encrypted. RFC 5246 7.2: "If an alert with a level
     * of warning is sent and received, generally the connection can
     * continue normally"; 7.2.2: "If the implementation chooses to send an
     * alert but intends to close the connection immediately afterwards, it
     * MUST send that alert at the fatal alert level." So the sender of a warning means to go on (as
     * OpenSSL's and Apache's unrecognized_name warning when no certificate
     * matches the SNI, RFC 6066 3); if either side then stops, its fatal
     * alert, close or reset is the failure. */
    return tls13;
}
