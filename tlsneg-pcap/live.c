/* SPDX-License-Identifier: GPL-2.0-or-later */
/* live.c: tlsneg-pcap -i, a live capture until SIGINT or SIGTERM (run.h). */
#define _DEFAULT_SOURCE 1

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "consume.h"
#include "run.h"
#include "stats.h"

/* drop_root gives up root for user once the capture device is open, as
 * tcpdump -Z does: its groups, its group, then its user; and checks that
 * root cannot be had back. */
static bool drop_root(const char *user)
{
    struct passwd *pw = getpwnam(user);
    if (!pw) {
        fprintf(stderr, "tlsneg-pcap: -Z %s: no such user\n", user);
        return false;
    }
    if (initgroups(pw->pw_name, pw->pw_gid) != 0 || setgid(pw->pw_gid) != 0 ||
        setuid(pw->pw_uid) != 0) {
        fprintf(stderr, "tlsneg-pcap: -Z %s: cannot become %s: %s\n", user, user, strerror(errno));
        return false;
    }
    if (pw->pw_uid != 0 && (setuid(0) == 0 || seteuid(0) == 0)) {
        fprintf(stderr, "tlsneg-pcap: -Z %s: root could be had back\n", user);
        return false;
    }
    return true;
}

/* open_live opens iface for capture with filter, then drops root if asked;
 * NULL (said on standard error) when it cannot. */
static pcap_t *open_live(const char *iface, const char *filter, const char *drop_user)
{
    char perr[PCAP_ERRBUF_SIZE];
    pcap_t *pc = pcap_create(iface, perr);
    if (!pc) {
        fprintf(stderr, "tlsneg-pcap: %s: %s\n", iface, perr);
        return NULL;
    }
    /* These fail only on an activated handle, which pc is not yet. */
    if (pcap_set_snaplen(pc, 262144) != 0 || pcap_set_immediate_mode(pc, 1) != 0 ||
        pcap_set_timeout(pc, 100) != 0) {
        fprintf(stderr, "tlsneg-pcap: %s: cannot set up the capture\n", iface);
        pcap_close(pc);
        return NULL;
    }
    if (pcap_activate(pc) < 0) {
        fprintf(stderr, "tlsneg-pcap: %s: %s\n", iface, pcap_geterr(pc));
        pcap_close(pc);
        return NULL;
    }
    if (filter && *filter) {
        struct bpf_program prog;
        if (pcap_compile(pc, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0 ||
            pcap_setfilter(pc, &prog) != 0) {
            fprintf(stderr, "tlsneg-pcap: filter \"%s\": %s\n", filter, pcap_geterr(pc));
            pcap_close(pc);
            return NULL;
        }
        pcap_freecode(&prog);
    }
    if (drop_user && !drop_root(drop_user)) {
        pcap_close(pc);
        return NULL;
    }
    return pc;
}

typedef struct {
    tlsneg_pcap *tp;
    int linktype;
    uint32_t frame;
} live_ctx;

static void on_live_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
    live_ctx *lc = (live_ctx *)user;
    lc->frame++;
    uint64_t t = (uint64_t)h->ts.tv_sec * 1000000u + (uint64_t)h->ts.tv_usec;
    tlsneg_pcap_packet(lc->tp, lc->linktype, lc->frame, t, data, h->caplen, h->len);
}

int tlsneg_run_live(const char *iface, const char *filter, tlsneg_analysis *a,
                    const tlsneg_run_options *o)
{
    pcap_t *pc = open_live(iface, filter, o->drop_user);
    if (!pc) {
        return 2;
    }
    tlsneg_consumer rc = {.events = o->events,
                          .shard_k = o->shard_k,
                          .shard_n = o->shard_n,
                          .out = stdout,
                          .analysis = a};
    tlsneg_pcap *tp = tlsneg_pcap_new(&o->cfg, tlsneg_consume_now, &rc);
    if (!tp) {
        fprintf(stderr, "tlsneg-pcap: out of memory (or libgcrypt failed to start)\n");
        pcap_close(pc);
        return 2;
    }
    live_ctx lc = {tp, pcap_datalink(pc), 0};
    const char *ln = pcap_datalink_val_to_name(lc.linktype);
    if (!tlsneg_pcap_link_supported(lc.linktype)) {
        fprintf(stderr, "tlsneg-pcap: %s: link type %d (%s) is not one tlsneg-pcap reads\n", iface,
                lc.linktype, ln ? ln : "unknown");
    }
    tlsneg_run_set_live(pc);
    /* As tcpdump says it: the capture runs from here. */
    fprintf(stderr, "tlsneg-pcap: listening on %s, link type %s\n", iface, ln ? ln : "unknown");
    if (o->events) {
        fprintf(stdout, "# %s\n", iface);
    }
    int r = 0;
    while (!tlsneg_run_stopped() &&
           (r = pcap_dispatch(pc, -1, on_live_packet, (u_char *)&lc)) >= 0) {
    }
    tlsneg_run_set_live(NULL);
    /* The capture is over, as a file's end is: the flows still open end
     * (their TLSNEG_EV_END events), so that the session layer sees the
     * same sequence from a live capture as from the file it was saved
     * to. */
    tlsneg_pcap_finish(tp);
    int status = 0;
    if (r == PCAP_ERROR) {
        fprintf(stderr, "tlsneg-pcap: %s: %s\n", iface, pcap_geterr(pc));
        status = 1;
    }
    const tlsneg_pcap_stats *st = tlsneg_pcap_get_stats(tp);
    tlsneg_stats_unknown_links(iface, st);
    if (o->stats) {
        tlsneg_stats_print(iface, st);
        tlsneg_analysis_print_stats(a, iface);
    }
    tlsneg_pcap_free(tp);
    pcap_close(pc);
    return status;
}
