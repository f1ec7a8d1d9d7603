/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-stats.c: what tlsneg found, for a whole capture.
 *
 *   tshark -q -z tlsneg,report[,filter]   a report for people, at the end
 *   tshark -q -z tlsneg,jsonl[,filter]    JSON lines as frames pass (schema 1)
 *   tshark -q -z tlsneg,csv[,filter]      one CSV row per server, at the end
 *   Statistics > TLS Version Negotiation  (and -z tlsneg_tree,tree)
 *
 * Everything here reads the per-frame results the postdissector hands to the
 * "tlsneg" tap and passes them to the writer both front ends share
 * (report/output.h); nothing is computed or formatted twice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <epan/packet.h>
#include <epan/stat_tap_ui.h>
#include <epan/stats_tree.h>
#include <epan/tap.h>
#include <epan/to_str.h>

#include "packet-tlsneg.h"
#include "ws-compat.h"

#include "analysis/rules.h"
#include "core/versions.h"
#include "report/output.h"

/* ---- a frame, as the writer sees it ----------------------------------------- */

/* out_addr describes a: IPv4 and IPv6 by their bytes (the writer writes them
 * as Wireshark does), any other address by its text, in packet scope. */
static tlsneg_out_addr out_addr(packet_info *pinfo, const address *a, guint32 port)
{
    tlsneg_out_addr o;
    o.bytes = (const uint8_t *)a->data;
    o.len = a->len > 0 ? (size_t)a->len : 0;
    o.text = a->type == AT_IPv4 || a->type == AT_IPv6 ? NULL : address_to_str(pinfo->pool, a);
    o.port = (uint16_t)port;
    return o;
}

tlsneg_out_frame tlsneg_stats_frame(packet_info *pinfo)
{
    tlsneg_out_frame fr;
    fr.frame = pinfo->num;
    fr.secs = (int64_t)pinfo->abs_ts.secs;
    fr.usecs = (uint32_t)(pinfo->abs_ts.nsecs / 1000);
    fr.src = out_addr(pinfo, &pinfo->src, pinfo->srcport);
    fr.dst = out_addr(pinfo, &pinfo->dst, pinfo->destport);
    return fr;
}

/* out_frame_results hands one frame's results to the writer. */
static void out_frame_results(void *tapdata, packet_info *pinfo, const void *data)
{
    tlsneg_out *o = (tlsneg_out *)tapdata;
    const frame_result *res = (const frame_result *)data;
    tlsneg_out_frame fr = tlsneg_stats_frame(pinfo);
    for (guint i = 0; i < res->num_msgs; i++) {
        tlsneg_out_message(o, &fr, &res->msgs[i]);
    }
    if (res->close) {
        tlsneg_out_close(o, &fr, res->close, res->close_from_client, res->close_attempt_frame,
                         res->close_sni);
    }
}

/* The JSON lines: streamed, every record leaves as its frame passes. */
static tap_packet_status jsonl_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt _U_,
                                      const void *data, tap_flags_t flags _U_)
{
    out_frame_results(tapdata, pinfo, data);
    fflush(stdout);
    return TAP_PACKET_DONT_REDRAW;
}

/* The report and the CSV: counted, written at the end. */
static tap_packet_status report_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt _U_,
                                       const void *data, tap_flags_t flags _U_)
{
    out_frame_results(tapdata, pinfo, data);
    return TAP_PACKET_REDRAW;
}

static void out_reset(void *tapdata)
{
    tlsneg_out_reset((tlsneg_out *)tapdata);
}

static void out_draw(void *tapdata)
{
    tlsneg_out_end((tlsneg_out *)tapdata);
    fflush(stdout);
}

static void out_finish(void *tapdata)
{
    tlsneg_out_free((tlsneg_out *)tapdata);
}

/* ---- -z registration ------------------------------------------------------ */

/* filter_of returns what follows "tlsneg,<kind>," in the -z argument. */
static const char *filter_of(const char *opt_arg, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(opt_arg, prefix, n) == 0 && opt_arg[n] == ',' ? opt_arg + n + 1 : NULL;
}

/* out_init starts -z tlsneg,jsonl|csv|report; on an error (a bad display
 * filter) it says so, and the statistic does not start. */
static tlsneg_stat_init_result out_init(const char *opt_arg, void *userdata)
{
    tlsneg_out_format format = (tlsneg_out_format)GPOINTER_TO_INT(userdata);
    const char *name = format == TLSNEG_OUT_JSONL ? "tlsneg,jsonl"
                       : format == TLSNEG_OUT_CSV ? "tlsneg,csv"
                                                  : "tlsneg,report";
    tlsneg_out *o = tlsneg_out_new(format, stdout);
    if (!o) {
        fprintf(stderr, "tshark: -z %s: out of memory\n", name);
        TLSNEG_STAT_INIT_FAILED;
    }
    tlsneg_out_header(o);
    fflush(stdout);
    /* The JSON lines never reset: a record once written stays written. */
    GString *err = register_tap_listener("tlsneg", o, filter_of(opt_arg, name), TL_REQUIRES_NOTHING,
                                         format == TLSNEG_OUT_JSONL ? NULL : out_reset,
                                         format == TLSNEG_OUT_JSONL ? jsonl_packet : report_packet,
                                         out_draw, out_finish);
    if (err) {
        fprintf(stderr, "tshark: -z %s: %s\n", name, err->str);
        g_string_free(err, TRUE);
        tlsneg_out_free(o);
        TLSNEG_STAT_INIT_FAILED;
    }
    TLSNEG_STAT_INIT_DONE;
}

/* ---- Statistics menu: a stats tree ---------------------------------------- */

static int st_offered, st_in_force, st_findings, st_messages;

static void tree_init(stats_tree *st)
{
    st_messages = stats_tree_create_node(st, "Messages", 0, STAT_DT_INT, TRUE);
    st_offered = stats_tree_create_node(st, "Highest version offered", 0, STAT_DT_INT, TRUE);
    st_in_force = stats_tree_create_node(st, "Version in force", 0, STAT_DT_INT, TRUE);
    st_findings = stats_tree_create_node(st, "Findings", 0, STAT_DT_INT, TRUE);
}

static tap_packet_status tree_packet(stats_tree *st, packet_info *pinfo _U_,
                                     epan_dissect_t *edt _U_, const void *data,
                                     tap_flags_t flags _U_)
{
    const frame_result *res = (const frame_result *)data;
    char name[96], v[TLSNEG_VERSION_NAME_MAX];
    for (guint i = 0; i < res->num_msgs; i++) {
        const msg_result *r = &res->msgs[i];
        const tlsneg_facts *f = &r->facts;
        gboolean dtls = !r->is_alert && tlsneg_facts_is_dtls(f);
        tick_stat_node(st, "Messages", 0, TRUE);
        tick_stat_node(st, r->is_alert ? "Alert" : tlsneg_msg_name(f), st_messages, FALSE);
        if (!r->is_alert && !r->retransmission_of && f->msg_type == TLSNEG_HS_CLIENT_HELLO &&
            f->has_offered_max) {
            snprintf(name, sizeof name, "%s (0x%04x)",
                     tlsneg_version_name_in(f->offered_max, dtls, v, sizeof v), f->offered_max);
            tick_stat_node(st, "Highest version offered", 0, TRUE);
            tick_stat_node(st, name, st_offered, FALSE);
        }
        if (!r->is_alert && !r->retransmission_of && f->has_negotiated) {
            snprintf(name, sizeof name, "%s (0x%04x)",
                     tlsneg_version_name_in(f->negotiated_version, dtls, v, sizeof v),
                     f->negotiated_version);
            tick_stat_node(st, "Version in force", 0, TRUE);
            tick_stat_node(st, name, st_in_force, FALSE);
        }
        for (guint k = 0; k < r->num_findings; k++) {
            tlsneg_rule_id id = r->findings[k].rule;
            tick_stat_node(st, "Findings", 0, TRUE);
            int node = tick_stat_node(st, tlsneg_rules[id].finding, st_findings, TRUE);
            if (tlsneg_rule_is_variant(id)) {
                snprintf(name, sizeof name, "tlsneg.expert.%s", tlsneg_rules[id].name);
                tick_stat_node(st, name, node, FALSE);
            }
        }
    }
    return TAP_PACKET_REDRAW;
}

void tlsneg_register_stats(void)
{
    static stat_tap_ui report_ui = {REGISTER_STAT_GROUP_GENERIC,
                                    "TLS version negotiation report",
                                    "tlsneg,report",
                                    out_init,
                                    0,
                                    NULL};
    static stat_tap_ui csv_ui = {REGISTER_STAT_GROUP_GENERIC,
                                 "TLS version negotiation CSV",
                                 "tlsneg,csv",
                                 out_init,
                                 0,
                                 NULL};
    static stat_tap_ui jsonl_ui = {REGISTER_STAT_GROUP_GENERIC,
                                   "TLS version negotiation JSON lines",
                                   "tlsneg,jsonl",
                                   out_init,
                                   0,
                                   NULL};
    register_stat_tap_ui(&report_ui, GINT_TO_POINTER(TLSNEG_OUT_REPORT));
    register_stat_tap_ui(&csv_ui, GINT_TO_POINTER(TLSNEG_OUT_CSV));
    register_stat_tap_ui(&jsonl_ui, GINT_TO_POINTER(TLSNEG_OUT_JSONL));
    stats_tree_register_plugin("tlsneg", "tlsneg_tree", "TLS Version Negotiation", 0, tree_packet,
                               tree_init, NULL);
    tlsneg_register_ladder();
}
