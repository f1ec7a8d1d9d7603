/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.c: the progress line and the counters on standard error (stats.h). */
#define _DEFAULT_SOURCE 1

#include "stats.h"

#include "starttls.h"

#include <pcap/pcap.h>
#include <sys/stat.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void tlsneg_progress_start(tlsneg_progress *pr, bool enabled, const char *path, FILE *f)
{
    tlsneg_progress p = {enabled, now_s(), 0, -1, f, -1};
    struct stat sb;
    if (f && stat(path, &sb) == 0) {
        p.size = (long long)sb.st_size;
    }
    *pr = p;
}

void tlsneg_progress_show(tlsneg_progress *pr, const tlsneg_pcap_stats *st, bool final)
{
    double t = now_s();
    if (!pr->enabled || (!final && t - pr->last < 0.5)) {
        return;
    }
    pr->last = t;
    double el = t - pr->start > 1e-6 ? t - pr->start : 1e-6;
    fprintf(stderr, "\rtlsneg-pcap: %llu packets, %.1f MB", (unsigned long long)st->packets,
            (double)st->bytes / 1e6);
    if (pr->file && pr->size > 0) {
        long long pos = pr->pos >= 0 ? pr->pos : ftell(pr->file);
        if (pos >= 0) {
            fprintf(stderr, ", %.0f%%", 100.0 * (double)pos / (double)pr->size);
        }
    }
    fprintf(stderr, ", %.0f packets/s, %llu events   ", (double)st->packets / el,
            (unsigned long long)st->events);
    if (final) {
        fputc('\n', stderr);
    }
}

void tlsneg_stats_print(const char *name, const tlsneg_pcap_stats *st)
{
    fprintf(
        stderr,
        "tlsneg-pcap: %s: %llu packets (%llu bytes, %llu snapped), %llu IPv4, %llu IPv6, "
        "%llu TCP, %llu UDP, %llu not IP, %llu malformed, %llu later IP fragments skipped\n"
        "tlsneg-pcap: %s: %llu flows (%llu closed, %llu dropped idle, %llu at the cap), TCP: %llu "
        "out-of-order and %llu retransmitted segments, %llu bytes over the buffer, %llu "
        "directions not TLS, %llu flows TLS after a plaintext prefix (STARTTLS), %llu given up "
        "after %d bytes of plaintext; %llu DTLS records; %llu TLS/DTLS handshake or alert records "
        "not read as plaintext (encrypted, picked up mid-stream, or no alert); QUIC: %llu Initial "
        "packets, %llu decrypted, "
        "%llu not; %llu events\n",
        name, (unsigned long long)st->packets, (unsigned long long)st->bytes,
        (unsigned long long)st->snapped, (unsigned long long)st->ipv4, (unsigned long long)st->ipv6,
        (unsigned long long)st->tcp, (unsigned long long)st->udp, (unsigned long long)st->not_ip,
        (unsigned long long)st->malformed, (unsigned long long)st->fragments_skipped, name,
        (unsigned long long)st->flows, (unsigned long long)st->flows_closed,
        (unsigned long long)st->flows_evicted_idle, (unsigned long long)st->flows_evicted_cap,
        (unsigned long long)st->tcp_out_of_order, (unsigned long long)st->tcp_retransmitted,
        (unsigned long long)st->tcp_dropped, (unsigned long long)st->tcp_gave_up,
        (unsigned long long)st->starttls, (unsigned long long)st->starttls_too_long,
        TLSNEG_STARTTLS_MAX_PREFIX, (unsigned long long)st->dtls_records,
        (unsigned long long)st->not_plaintext, (unsigned long long)st->quic_initials,
        (unsigned long long)st->quic_decrypted, (unsigned long long)st->quic_failed,
        (unsigned long long)st->events);
}

void tlsneg_stats_unknown_links(const char *name, const tlsneg_pcap_stats *st)
{
    for (int i = 0; i < TLSNEG_PCAP_MAX_LINKTYPES; i++) {
        if (st->unknown_linktype_count[i] == 0) {
            continue;
        }
        const char *ln = pcap_datalink_val_to_name(st->unknown_linktype[i]);
        fprintf(stderr, "tlsneg-pcap: %s: %llu frames of link type %d (%s) not read\n", name,
                (unsigned long long)st->unknown_linktype_count[i], st->unknown_linktype[i],
                ln ? ln : "unknown");
    }
}
