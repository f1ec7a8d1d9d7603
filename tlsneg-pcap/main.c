/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-pcap: tlsneg's libpcap front end on the command line.
 *
 * It finds what tlsneg analyses (handshake messages, plaintext alerts, TCP
 * closes) in pcap and pcapng files or on a live interface, feeds them to the
 * session layer the plugin uses, and writes the plugin's outputs through the
 * same writer (report/output.h): --jsonl, --csv, --report; and the same
 * ladder (report/ladder.h): --ladder, --ladder-svg. --events and
 * --trace are debug formats (docs/tlsneg-pcap.md).
 *
 * main.c reads the command line; the rest is one idea a file: the packet
 * path (packets.h), reading captures (reader.h) and live (live.c), the
 * drivers (run.h), each event's consumer (consume.h), the analysis
 * (analysis.h), --trace (trace.h), the counters (stats.h), --shard
 * (shard.h), malloc's heap (heap.h). */
#define _DEFAULT_SOURCE 1

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "heap.h"
#include "report/output.h"
#include "run.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: tlsneg-pcap [options] FILE...\n"
               "       tlsneg-pcap [options] -i IFACE [BPF filter...]\n"
               "tlsneg's analysis of TLS, DTLS and QUIC version negotiation, as the Wireshark\n"
               "plugin makes it, without tshark: pcap/pcapng files (gzip-compressed too, several\n"
               "read as one capture) or a live interface.\n"
               "  --jsonl           JSON lines, as tshark -z tlsneg,jsonl writes them\n"
               "  --csv             one CSV row per server at the end (-z tlsneg,csv)\n"
               "  --report          the report for people at the end (-z tlsneg,report)\n"
               "  --ladder          the ladder as text at the end (-z tlsneg,ladder)\n"
               "  --ladder-svg      the ladder as an SVG document at the end\n"
               "                    (-z tlsneg,ladder-svg)\n"
               "  --shard K/N       only the clients whose address hashes to K (0..N-1)\n"
               "  --events          print each event as a line of the replay format\n"
               "                    (docs/tlsneg-pcap.md): tlsneg-dump --events reads it\n"
               "  --trace           feed the events to the session layer and print each\n"
               "                    message's facts and findings as text (debug format)\n"
               "  --stats           print the packet path's counters on stderr at the end\n"
               "  --max-flows N     flows tracked at once (default 1000000)\n"
               "  --max-attempts N  attempts the tracker keeps across connections (500000)\n"
               "  --idle-timeout S  drop a flow unseen for S seconds of capture time (300)\n"
               "  --buffer BYTES    reassembly bytes per direction (65536)\n"
               "  --threads N       files: 2 reads packets and analyses them on two threads\n"
               "                    (the default with two or more CPUs), 1 on one\n"
               "  -i IFACE          capture live (Ctrl-C or SIGTERM ends, with the report);\n"
               "                    the rest is a BPF filter\n"
               "  -Z USER           with -i: drop root for USER once the device is open\n"
               "  -q                no progress line\n"
               "  -h, --help\n");
}

static bool parse_u32(const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || end == s || v > 0xffffffffUL) {
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

/* parse_shard reads "K/N", 0 <= K < N. */
static bool parse_shard(const char *s, uint32_t *k, uint32_t *n)
{
    char buf[32];
    const char *slash = strchr(s, '/');
    if (!slash || (size_t)(slash - s) >= sizeof buf) {
        return false;
    }
    memcpy(buf, s, (size_t)(slash - s));
    buf[slash - s] = '\0';
    return parse_u32(buf, k) && parse_u32(slash + 1, n) && *n > 0 && *k < *n;
}

/* What the command line asks. */
typedef struct {
    tlsneg_run_options run;
    tlsneg_analysis_config analysis;
    bool quiet;
    const char *iface; /* -i */
} options;

/* parse_number reads the value of an option that takes a positive number
 * (--max-flows, --idle-timeout, --buffer, --max-attempts). */
static bool parse_number(const char *a, const char *v, options *o)
{
    uint32_t n;
    if (!parse_u32(v, &n) || n == 0) {
        fprintf(stderr, "tlsneg-pcap: %s wants a positive number\n", a);
        return false;
    }
    if (strcmp(a, "--max-flows") == 0) {
        o->run.cfg.max_flows = n;
    } else if (strcmp(a, "--idle-timeout") == 0) {
        o->run.cfg.idle_timeout_s = n;
    } else if (strcmp(a, "--max-attempts") == 0) {
        o->analysis.max_attempts = n;
    } else {
        o->run.cfg.max_buffer = n;
    }
    return true;
}

static bool takes_number(const char *a)
{
    return strcmp(a, "--max-flows") == 0 || strcmp(a, "--idle-timeout") == 0 ||
           strcmp(a, "--buffer") == 0 || strcmp(a, "--max-attempts") == 0;
}

/* parse_option reads the option at argv[*i] (and its value, moving *i past
 * it). Returns -1 to go on, else the exit status (0: --help). */
static int parse_option(int argc, char **argv, int *i, options *o)
{
    const char *a = argv[*i];
    bool has_value = *i + 1 < argc;
    if (strcmp(a, "--events") == 0) {
        o->run.events = true;
    } else if (strcmp(a, "--jsonl") == 0) {
        o->analysis.want[TLSNEG_OUT_JSONL] = true;
    } else if (strcmp(a, "--csv") == 0) {
        o->analysis.want[TLSNEG_OUT_CSV] = true;
    } else if (strcmp(a, "--report") == 0) {
        o->analysis.want[TLSNEG_OUT_REPORT] = true;
    } else if (strcmp(a, "--ladder") == 0 || strcmp(a, "--ladder-svg") == 0) {
        tlsneg_pcap_ladder l =
            strcmp(a, "--ladder-svg") == 0 ? TLSNEG_PCAP_LADDER_SVG : TLSNEG_PCAP_LADDER_TEXT;
        if (o->analysis.ladder != TLSNEG_PCAP_LADDER_NONE && o->analysis.ladder != l) {
            fprintf(stderr, "tlsneg-pcap: --ladder and --ladder-svg: one or the other\n");
            return 2;
        }
        o->analysis.ladder = l;
    } else if (strcmp(a, "--shard") == 0 && has_value) {
        if (!parse_shard(argv[++*i], &o->run.shard_k, &o->run.shard_n)) {
            fprintf(stderr, "tlsneg-pcap: --shard wants K/N with 0 <= K < N\n");
            return 2;
        }
    } else if (strcmp(a, "-Z") == 0 && has_value) {
        o->run.drop_user = argv[++*i];
    } else if (strcmp(a, "--trace") == 0) {
        o->analysis.trace = true;
    } else if (strcmp(a, "--stats") == 0) {
        o->run.stats = true;
    } else if (strcmp(a, "-q") == 0) {
        o->quiet = true;
    } else if (strcmp(a, "--threads") == 0 && has_value) {
        if (!parse_u32(argv[++*i], &o->run.threads) || o->run.threads < 1 || o->run.threads > 2) {
            fprintf(stderr, "tlsneg-pcap: --threads wants 1 or 2\n");
            return 2;
        }
    } else if (takes_number(a) && has_value) {
        if (!parse_number(a, argv[++*i], o)) {
            return 2;
        }
    } else if (strcmp(a, "-i") == 0 && has_value) {
        o->iface = argv[++*i];
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
        usage(stdout);
        return 0;
    } else {
        fprintf(stderr, "tlsneg-pcap: unknown option %s\n", a);
        usage(stderr);
        return 2;
    }
    return -1;
}

/* parse_options reads the options; *first is then the first argument that
 * is none (a file, or the filter's first word). Returns -1 to go on, else
 * the exit status. */
static int parse_options(int argc, char **argv, options *o, int *first)
{
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0') {
            break;
        }
        int s = parse_option(argc, argv, &i, o);
        if (s >= 0) {
            return s;
        }
    }
    *first = i;
    if (o->run.drop_user && !o->iface) {
        fprintf(stderr, "tlsneg-pcap: -Z is for live capture (-i)\n");
        return 2;
    }
    return -1;
}

/* join_filter: the rest of the command line is the filter, as tcpdump
 * takes it. NULL when out of memory. */
static char *join_filter(int argc, char **argv, int first)
{
    size_t n = 1;
    for (int j = first; j < argc; j++) {
        n += strlen(argv[j]) + 1;
    }
    char *filter = calloc(n, 1);
    if (!filter) {
        return NULL;
    }
    for (int j = first; j < argc; j++) {
        if (j > first) {
            strcat(filter, " ");
        }
        strcat(filter, argv[j]);
    }
    return filter;
}

/* finish ends the analysis (what the outputs know only at the end: the
 * probes of the JSON lines, the CSV, the report), also after Ctrl-C. */
static int finish(tlsneg_analysis *a, int status)
{
    tlsneg_analysis_end(a);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "tlsneg-pcap: writing the output failed\n");
        return 2;
    }
    return status;
}

/* run_files reads the files, in the order given, as one capture. */
static int run_files(char **files, int n, tlsneg_analysis *a, options *o)
{
    if (!o->run.threads) {
        o->run.threads = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
    }
    o->run.show_progress = !o->quiet && isatty(2);
    int worst = 0;
    uint32_t frame_base = 0;
    for (uint32_t file_no = 0; (int)file_no < n && !tlsneg_run_stopped(); file_no++) {
        int s = tlsneg_run_file(files[file_no], file_no, &frame_base, a, &o->run);
        if (s > worst) {
            worst = s;
        }
    }
    return worst;
}

int main(int argc, char **argv)
{
    tlsneg_heap_setup();
    options o;
    memset(&o, 0, sizeof o);
    o.analysis.max_attempts = TLSNEG_DEFAULT_MAX_ATTEMPTS;
    int first;
    int s = parse_options(argc, argv, &o, &first);
    if (s >= 0) {
        return s;
    }
    if (o.iface) {
        /* Live: every line leaves as it is written. */
        setvbuf(stdout, NULL, _IOLBF, 0);
    } else if (!isatty(STDOUT_FILENO)) {
        /* Into a file or a pipe: large writes (glibc keeps a block-sized
         * buffer otherwise). */
        static char out_buf[1 << 18];
        setvbuf(stdout, out_buf, _IOFBF, sizeof out_buf);
    }
    const bool *w = o.analysis.want;
    tlsneg_analysis *a = NULL;
    if (o.analysis.trace || w[0] || w[1] || w[2] || o.analysis.ladder != TLSNEG_PCAP_LADDER_NONE) {
        a = tlsneg_analysis_new(&o.analysis, stdout);
        if (!a) {
            fprintf(stderr, "tlsneg-pcap: out of memory\n");
            return 2;
        }
    }
    tlsneg_run_catch_signals();
    if (o.iface) {
        char *filter = join_filter(argc, argv, first);
        if (!filter) {
            return 2;
        }
        s = tlsneg_run_live(o.iface, filter, a, &o.run);
        free(filter);
        return finish(a, s);
    }
    if (first >= argc) {
        usage(stderr);
        return 2;
    }
    return finish(a, run_files(argv + first, argc - first, a, &o));
}
