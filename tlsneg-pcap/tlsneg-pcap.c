/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlsneg-pcap: tlsneg's libpcap front end on the command line.
 *
 * It finds what tlsneg analyses (handshake messages, plaintext alerts, TCP
 * closes) in pcap and pcapng files or on a live interface, feeds them to the
 * session layer the plugin uses, and writes the plugin's outputs through the
 * same writer (report/output.h): --jsonl, --csv, --report. --events and
 * --trace are debug formats (docs/tlsneg-pcap.md). */
#define _DEFAULT_SOURCE 1

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <malloc.h>
#include <pwd.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis/rules.h"
#include "analysis/session.h"
#include "core/facts.h"
#include "core/hello.h"
#include "core/util.h"
#include "evqueue.h"
#include "packets.h"
#include "pcapng.h"
#include "report/output.h"

/* What the session layer keeps per connection (--trace and the outputs),
 * found by the packet path's connection id: about 1 KB per connection, freed
 * when the packet path drops the flow (TLSNEG_PCAP_END), so that memory
 * stays flat in the number of connections. */
typedef struct {
    uint64_t id; /* 0: free slot */
    tlsneg_conn conn;
    tlsneg_facts kept;
    tlsneg_facts_buf kept_buf;
} trace_conn;

/* What a handshake event's bytes alone tell, for trace_event: worked out
 * by prepare (with two threads, on the packet path's). */
typedef struct {
    bool framed; /* a hello, framed by the core: parsed is filled */
    tlsneg_parsed parsed;
} prepared;

typedef struct {
    tlsneg_session *session;
    trace_conn **slots;
    size_t cap, used;
    size_t peak;          /* the most entries held at once, for --stats */
    tlsneg_result result; /* large: one, reused */
    prepared prep;        /* with one thread: the event's prepared parse */
    tlsneg_out_msg_buf view_buf;
} trace_state;

typedef struct {
    const char *name; /* the file (or interface) shown in events */
    uint32_t file_no; /* the file's place on the command line: keeps connection ids apart */
    bool events;
    FILE *out;
    trace_state *trace;
    uint32_t seen; /* events */
} run_ctx;

/* Set by SIGINT and SIGTERM; read by the thread that reads packets. */
static atomic_int stop_requested;
static const char *drop_user; /* -Z */
static bool opt_trace;
/* The outputs asked for (--jsonl, --csv, --report), in that order. */
static tlsneg_out *outs[3];
static size_t num_outs;
/* --shard K/N: only the clients whose address hashes to K (0 <= K < N). */
static uint32_t shard_k, shard_n;
/* --max-attempts: the tracker's cap (the plugin's tlsneg.max_attempts). */
static uint32_t opt_max_attempts = TLSNEG_DEFAULT_MAX_ATTEMPTS;
/* --threads: 2 reads a file on two threads (evqueue.h), 1 on one. */
static uint32_t opt_threads;
static void trace_free(trace_state *t);
static bool drop_root(const char *user);
static void heap_advise(void);

/* trace_start makes the session layer for --trace and the outputs, with the
 * plugin's default preferences (500,000 attempts, a 30-second window, SNI
 * in the key): one per run, the files read as one capture, in the order
 * given (as mergecap -a would join them), their frames numbered on. */
static trace_state *trace_start(void)
{
    if (!opt_trace && !num_outs) {
        return NULL;
    }
    trace_state *t = calloc(1, sizeof *t);
    if (!t) {
        return NULL;
    }
    tlsneg_tracker_config cfg = TLSNEG_TRACKER_DEFAULTS;
    cfg.max_attempts = opt_max_attempts;
    t->session = tlsneg_session_new(&cfg);
    if (!t->session) {
        free(t);
        return NULL;
    }
    return t;
}

static void trace_end(trace_state *t)
{
    if (t) {
        trace_free(t);
        free(t);
    }
}
static pcap_t *live_handle;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
    if (live_handle) {
        pcap_breakloop(live_handle);
    }
}

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
               "  --shard K/N       only the clients whose address hashes to K (0..N-1)\n"
               "  --events          print each event as one JSON line (debug/trace format:\n"
               "                    docs/tlsneg-pcap.md; not tshark's -z tlsneg,jsonl schema)\n"
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

static void put_addr(FILE *o, const uint8_t *a, uint8_t len)
{
    char s[INET6_ADDRSTRLEN];
    if (!inet_ntop(len == 4 ? AF_INET : AF_INET6, a, s, sizeof s)) {
        strcpy(s, "?");
    }
    fputs(s, o);
}

static void put_json_string(FILE *o, const char *s)
{
    fputc('"', o);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            fputc('\\', o);
            fputc(ch, o);
        } else if (ch < 0x20) {
            fprintf(o, "\\u%04x", ch);
        } else {
            fputc(ch, o);
        }
    }
    fputc('"', o);
}

static const char *transport_name(tlsneg_pcap_transport t)
{
    switch (t) {
    case TLSNEG_PCAP_TCP:
        return "tcp";
    case TLSNEG_PCAP_DTLS:
        return "dtls";
    case TLSNEG_PCAP_QUIC:
        return "quic";
    }
    return "?";
}

static size_t trace_home(uint64_t id, size_t cap)
{
    return (size_t)(id * 0x9e3779b97f4a7c15ull) & (cap - 1);
}

/* trace_slot returns where the entry of id is, or where it would go (an
 * empty slot); the table has slots (cap > 0). */
static size_t trace_slot(const trace_state *t, uint64_t id)
{
    size_t j = trace_home(id, t->cap);
    while (t->slots[j] && t->slots[j]->id != id) {
        j = (j + 1) & (t->cap - 1);
    }
    return j;
}

/* trace_lookup returns the entry of id, or NULL. */
static trace_conn *trace_lookup(const trace_state *t, uint64_t id)
{
    return t->cap ? t->slots[trace_slot(t, id)] : NULL;
}

/* trace_forget drops the entry of id (the packet path dropped its flow):
 * the session layer forgets it, and the entries after it in its probe run
 * move back into the hole (linear probing without tombstones). */
static void trace_forget(trace_state *t, uint64_t id)
{
    if (!t->cap) {
        return;
    }
    size_t mask = t->cap - 1, j = trace_slot(t, id);
    if (!t->slots[j]) {
        return;
    }
    tlsneg_session_forget(t->session, &t->slots[j]->conn);
    free(t->slots[j]);
    t->slots[j] = NULL;
    t->used--;
    for (size_t k = (j + 1) & mask; t->slots[k]; k = (k + 1) & mask) {
        size_t h = trace_home(t->slots[k]->id, t->cap);
        /* The entry at k may fill the hole at j unless its home lies
         * cyclically in (j, k]. */
        bool home_between = j <= k ? (j < h && h <= k) : (j < h || h <= k);
        if (!home_between) {
            t->slots[j] = t->slots[k];
            t->slots[k] = NULL;
            j = k;
        }
    }
}

static trace_conn *trace_find(trace_state *t, uint64_t id)
{
    if (t->used * 2 >= t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        trace_conn **slots = calloc(cap, sizeof *slots);
        if (!slots) {
            return NULL;
        }
        for (size_t i = 0; i < t->cap; i++) {
            if (t->slots[i]) {
                size_t j = trace_home(t->slots[i]->id, cap);
                while (slots[j]) {
                    j = (j + 1) & (cap - 1);
                }
                slots[j] = t->slots[i];
            }
        }
        free(t->slots);
        t->slots = slots;
        t->cap = cap;
    }
    size_t j = trace_slot(t, id);
    if (!t->slots[j]) {
        /* kept_buf is written before it is read (tlsneg_facts_copy): only
         * what comes before it starts zeroed. */
        trace_conn *c = malloc(sizeof *c);
        if (!c) {
            return NULL;
        }
        memset(c, 0, offsetof(trace_conn, kept_buf));
        c->id = id;
        c->conn.id = id;
        t->slots[j] = c;
        if (++t->used > t->peak) {
            t->peak = t->used;
        }
    }
    return t->slots[j];
}

static void trace_free(trace_state *t)
{
    for (size_t i = 0; i < t->cap; i++) {
        free(t->slots[i]);
    }
    free(t->slots);
    t->slots = NULL;
    t->cap = t->used = 0;
    tlsneg_session_free(t->session);
    t->session = NULL;
}

static void trace_findings(FILE *o, const tlsneg_result *x)
{
    for (size_t i = 0; i < x->findings.count; i++) {
        const tlsneg_finding *f = &x->findings.item[i];
        fprintf(o, "    finding %s (%s): %s\n", tlsneg_rules[f->rule].finding,
                tlsneg_rules[f->rule].name, f->detail);
    }
    for (size_t i = 0; i < x->verdicts.count; i++) {
        fprintf(o, "    verdict %s\n", tlsneg_verdict_kind_name(x->verdicts.item[i].kind));
    }
    for (size_t i = 0; i < x->num_back_notes; i++) {
        fprintf(o, "    note for frame %u\n", x->back_notes[i].frame);
    }
}

/* out_frame_of describes ev's frame for the writer. */
static tlsneg_out_frame out_frame_of(const tlsneg_pcap_event *ev)
{
    tlsneg_out_frame fr = {ev->frame,
                           (int64_t)(ev->time_us / 1000000u),
                           (uint32_t)(ev->time_us % 1000000u),
                           {ev->src_addr, ev->addr_len, NULL, ev->src_port},
                           {ev->dst_addr, ev->addr_len, NULL, ev->dst_port}};
    return fr;
}

static void outs_message(const tlsneg_pcap_event *ev, trace_state *t, const tlsneg_result *x)
{
    if (!num_outs) {
        return;
    }
    tlsneg_out_msg m;
    tlsneg_out_msg_view(&m, &t->view_buf, x);
    tlsneg_out_frame fr = out_frame_of(ev);
    for (size_t i = 0; i < num_outs; i++) {
        tlsneg_out_message(outs[i], &fr, &m);
    }
}

/* trace_event feeds one event to the session layer, hands what it says to
 * the outputs and, with --trace, prints it as text (a debug format).
 * prep: a handshake event's prepared parse. */
static void trace_event(run_ctx *r, const tlsneg_pcap_event *ev, const prepared *prep)
{
    trace_state *t = r->trace;
    /* The packet path numbers connections per file; the session layer
     * sees all files as one capture. */
    uint64_t id = (uint64_t)r->file_no << 40 | ev->conn;
    FILE *o = r->out;
    if (ev->kind == TLSNEG_PCAP_END) {
        trace_forget(t, id);
        return;
    }
    tlsneg_event e = {ev->frame,
                      ev->time_us,
                      {ev->src_addr, ev->addr_len, ev->src_port},
                      {ev->dst_addr, ev->addr_len, ev->dst_port},
                      ev->client_guessed ? TLSNEG_SENDER_UNKNOWN
                      : ev->from_client  ? TLSNEG_SENDER_CLIENT
                                         : TLSNEG_SENDER_SERVER};
    if (ev->kind == TLSNEG_PCAP_PROGRESS) {
        /* As the plugin: only a connection that has shown something. */
        trace_conn *pc = trace_lookup(t, id);
        if (pc) {
            tlsneg_session_progress(t->session, &pc->conn, &e);
        }
        if (opt_trace) {
            fprintf(o, "frame %u conn %llu: ChangeCipherSpec or encrypted record from the %s\n",
                    ev->frame, (unsigned long long)ev->conn, ev->from_client ? "client" : "server");
        }
        return;
    }
    trace_conn *tc = trace_find(t, id);
    if (!tc) {
        return;
    }
    tlsneg_result *x = &t->result;
    if (ev->kind == TLSNEG_PCAP_CLOSE) {
        tlsneg_close_result cx;
        tlsneg_session_close(t->session, &tc->conn, &e, ev->reset, &cx);
        if (cx.ended_attempt_frame) {
            tlsneg_out_frame fr = out_frame_of(ev);
            for (size_t i = 0; i < num_outs; i++) {
                tlsneg_out_close(outs[i], &fr, cx.cause, cx.from_client, cx.ended_attempt_frame,
                                 cx.has_sni ? cx.sni : NULL);
            }
        }
        if (!opt_trace) {
            return;
        }
        fprintf(o, "frame %u conn %llu: %s from the %s", ev->frame, (unsigned long long)ev->conn,
                ev->reset ? "RST" : "FIN", ev->from_client ? "client" : "server");
        if (cx.ended_attempt_frame) {
            fprintf(o, ", ends the attempt of frame %u before any ServerHello",
                    cx.ended_attempt_frame);
        }
        fputc('\n', o);
        return;
    }
    if (ev->kind == TLSNEG_PCAP_ALERT) {
        tlsneg_session_alert(t->session, &tc->conn, &e, ev->bytes[1], x);
        outs_message(ev, t, x);
        if (!opt_trace) {
            return;
        }
        fprintf(o, "frame %u conn %llu: alert %u (%s) from the %s\n", ev->frame,
                (unsigned long long)ev->conn, ev->bytes[1], tlsneg_alert_name(ev->bytes[1]),
                ev->from_client ? "client" : "server");
        trace_findings(o, x);
        return;
    }
    if (!prep->framed) {
        return;
    }
    tlsneg_session_judge(t->session, &tc->conn, &e, &prep->parsed, x);
    if (!x->analysed) {
        return;
    }
    if (x->keep_facts) {
        tlsneg_facts_copy(&tc->kept, &tc->kept_buf, &x->facts);
        tlsneg_conn_keep_client_hello(&tc->conn, &tc->kept);
    }
    outs_message(ev, t, x);
    if (!opt_trace) {
        return;
    }
    char summary[512];
    fprintf(o, "frame %u conn %llu: %s from the %s: %s", ev->frame, (unsigned long long)ev->conn,
            tlsneg_msg_name(&x->facts), x->from_client ? "client" : "server",
            tlsneg_facts_summary(&x->facts, summary, sizeof summary));
    if (x->retransmission_of) {
        fprintf(o, " (sent again: judged in frame %u)", x->retransmission_of);
    }
    fputc('\n', o);
    trace_findings(o, x);
}

/* shard_of: the shard of a client address, FNV-1a (64-bit) over its 4 or
 * 16 bytes, modulo N (docs/tlsneg-pcap.md). Stable across runs, machines
 * and byte orders. */
static uint32_t shard_of(const uint8_t *addr, size_t len, uint32_t n)
{
    return (uint32_t)(tlsneg_fnv64(TLSNEG_FNV64_BASIS, addr, len) % n);
}

/* in_shard: ev's client is in this run's shard (--shard), or every
 * client is. */
static bool in_shard(const tlsneg_pcap_event *ev)
{
    return !shard_n || shard_of(ev->from_client ? ev->src_addr : ev->dst_addr, ev->addr_len,
                                shard_n) == shard_k;
}

/* prepare frames and parses a handshake event's hello for trace_event:
 * a tlsneg_evqueue_prep_fn, with two threads on the packet path's. It
 * reads nothing the analysing thread writes. */
static void prepare(void *user, const tlsneg_pcap_event *ev, void *area)
{
    (void)user;
    prepared *p = area;
    tlsneg_wire wire = ev->transport == TLSNEG_PCAP_DTLS   ? TLSNEG_WIRE_DTLS
                       : ev->transport == TLSNEG_PCAP_QUIC ? TLSNEG_WIRE_QUIC
                                                           : TLSNEG_WIRE_TLS;
    tlsneg_message m;
    p->framed =
        in_shard(ev) && tlsneg_frame_message(&m, wire, ev->has_record_version, ev->record_version,
                                             ev->bytes, ev->len, 0, NULL, 0);
    if (p->framed) {
        tlsneg_session_parse(&p->parsed, &m, ev->has_record_version, ev->record_version);
    }
}

/* consume handles an event on the analysing thread: a tlsneg_evqueue_fn;
 * prep is a handshake event's prepared parse. */
static void consume(void *user, const tlsneg_pcap_event *ev, void *prep)
{
    run_ctx *r = user;
    if ((++r->seen & 0xff) == 0) {
        heap_advise(); /* here: the thread whose heap holds the analysis */
    }
    if (!in_shard(ev)) {
        return;
    }
    if (r->trace) {
        trace_event(r, ev, prep);
    }
    if (!r->events) {
        return;
    }
    static const char hexd[] = "0123456789abcdef";
    FILE *o = r->out;
    if (ev->kind == TLSNEG_PCAP_END) {
        return; /* not a packet's event */
    }
    const char *kind = ev->kind == TLSNEG_PCAP_HANDSHAKE ? "handshake"
                       : ev->kind == TLSNEG_PCAP_ALERT   ? "alert"
                       : ev->kind == TLSNEG_PCAP_CLOSE   ? "close"
                                                         : "progress";
    fputs("{\"event\":\"", o);
    fputs(kind, o);
    fputs("\",\"capture\":", o);
    put_json_string(o, r->name);
    fprintf(o, ",\"frame\":%u,\"time_us\":%llu,\"conn\":%llu,\"transport\":\"%s\",\"from\":\"%s\"",
            ev->frame, (unsigned long long)ev->time_us, (unsigned long long)ev->conn,
            transport_name(ev->transport), ev->from_client ? "client" : "server");
    if (ev->client_guessed) {
        fputs(",\"client_guessed\":true", o);
    }
    fputs(",\"src\":\"", o);
    put_addr(o, ev->src_addr, ev->addr_len);
    fprintf(o, "\",\"sport\":%u,\"dst\":\"", ev->src_port);
    put_addr(o, ev->dst_addr, ev->addr_len);
    fprintf(o, "\",\"dport\":%u", ev->dst_port);
    switch (ev->kind) {
    case TLSNEG_PCAP_HANDSHAKE:
        if (ev->has_record_version) {
            fprintf(o, ",\"record_version\":\"0x%04x\"", ev->record_version);
        }
        fprintf(o, ",\"msg_type\":%u", ev->msg_type);
        if (ev->sslv2) {
            fputs(",\"sslv2\":true", o);
        }
        fprintf(o, ",\"len\":%zu,\"hex\":\"", ev->len);
        char chunk[1024];
        for (size_t i = 0; i < ev->len;) {
            size_t n = 0;
            for (; i < ev->len && n < sizeof chunk; i++) {
                chunk[n++] = hexd[ev->bytes[i] >> 4];
                chunk[n++] = hexd[ev->bytes[i] & 15];
            }
            fwrite(chunk, 1, n, o);
        }
        fputc('"', o);
        break;
    case TLSNEG_PCAP_ALERT:
        fprintf(o, ",\"level\":%u,\"description\":%u", ev->bytes[0], ev->bytes[1]);
        break;
    case TLSNEG_PCAP_CLOSE:
        fprintf(o, ",\"reset\":%s", ev->reset ? "true" : "false");
        break;
    case TLSNEG_PCAP_PROGRESS:
    case TLSNEG_PCAP_END:
        break;
    }
    fputs("}\n", o);
}

/* on_event is consume on one thread: the packet path's callback. */
static void on_event(void *user, const tlsneg_pcap_event *ev)
{
    run_ctx *r = user;
    prepared *p = NULL;
    if (ev->kind == TLSNEG_PCAP_HANDSHAKE && r->trace) {
        p = &r->trace->prep;
        prepare(r, ev, p);
    }
    consume(r, ev, p);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct {
    bool enabled;
    double start, last;
    long long size; /* of the file, or -1 */
    FILE *file;     /* to ask the position, or NULL */
    long long pos;  /* the position when the file is read past stdio, or -1 */
} progress;

static void progress_show(progress *pr, const tlsneg_pcap_stats *st, bool final)
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

static void print_stats(const char *name, const tlsneg_pcap_stats *st)
{
    fprintf(
        stderr,
        "tlsneg-pcap: %s: %llu packets (%llu bytes, %llu snapped), %llu IPv4, %llu IPv6, "
        "%llu TCP, %llu UDP, %llu not IP, %llu malformed, %llu later IP fragments skipped\n"
        "tlsneg-pcap: %s: %llu flows (%llu closed, %llu dropped idle, %llu at the cap), TCP: %llu "
        "out-of-order and %llu retransmitted segments, %llu bytes over the buffer, %llu "
        "directions not TLS; %llu DTLS records; QUIC: %llu Initial packets, %llu decrypted, "
        "%llu not; %llu events\n",
        name, (unsigned long long)st->packets, (unsigned long long)st->bytes,
        (unsigned long long)st->snapped, (unsigned long long)st->ipv4, (unsigned long long)st->ipv6,
        (unsigned long long)st->tcp, (unsigned long long)st->udp, (unsigned long long)st->not_ip,
        (unsigned long long)st->malformed, (unsigned long long)st->fragments_skipped, name,
        (unsigned long long)st->flows, (unsigned long long)st->flows_closed,
        (unsigned long long)st->flows_evicted_idle, (unsigned long long)st->flows_evicted_cap,
        (unsigned long long)st->tcp_out_of_order, (unsigned long long)st->tcp_retransmitted,
        (unsigned long long)st->tcp_dropped, (unsigned long long)st->tcp_gave_up,
        (unsigned long long)st->dtls_records, (unsigned long long)st->quic_initials,
        (unsigned long long)st->quic_decrypted, (unsigned long long)st->quic_failed,
        (unsigned long long)st->events);
}

/* print_session_stats: what the session layer holds (--stats), if it
 * runs. */
static void print_session_stats(const char *name, const trace_state *trace)
{
    if (!trace) {
        return;
    }
    const tlsneg_tracker *tk = tlsneg_session_tracker(trace->session);
    fprintf(stderr,
            "tlsneg-pcap: %s: session: %zu connections kept now, %zu at most; tracker: %zu "
            "attempts, %zu bytes\n",
            name, trace->used, trace->peak, tk ? tlsneg_tracker_attempts(tk) : 0,
            tk ? tlsneg_tracker_bytes(tk) : 0);
}

static void report_unknown_links(const char *name, const tlsneg_pcap_stats *st)
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

/* open_input opens path for libpcap; a gzip-compressed file is read through
 * gzip -dc. *out_child is the gzip process or 0. */
/* ---- memory ---- */

/* A capture's flows, connections and tracker live in malloc's heap, touched
 * a page at a time as they grow: on a virtual machine a page fault costs
 * several microseconds, the largest single cost of a big capture. The heap is
 * kept (no trimming, no separate mappings for large blocks, grown 32 MB at a
 * time) and asked for transparent huge pages (where the system grants them
 * on request: "madvise" mode), a fault per 2 MB. heap_advise runs every few
 * hundred events, on the thread that analyses them, and covers what the
 * heap grew since. */
static uintptr_t heap_advised;

static void heap_setup(void)
{
#ifdef MADV_HUGEPAGE
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    mallopt(M_TOP_PAD, 32 << 20);
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    heap_advised = ((uintptr_t)sbrk(0) + page - 1) & ~(page - 1);
#endif
}

static void heap_advise(void)
{
#ifdef MADV_HUGEPAGE
    uintptr_t end = (uintptr_t)sbrk(0);
    if (heap_advised && end > heap_advised) {
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        end &= ~(page - 1);
        if (end > heap_advised) {
            (void)madvise((void *)heap_advised, end - heap_advised, MADV_HUGEPAGE);
            heap_advised = end;
        }
    }
#endif
}

/* The input stream's buffer: glibc ignores setvbuf's size when it is given
 * no buffer (it keeps a block-sized one, 4 KB reads). One input is open at
 * a time, so one buffer serves them all. 64 KB: a pipe gives no more at a
 * time, and a plain pcap file is read past stdio (fast_open) once libpcap
 * has read its header, which filled a larger buffer for nothing. */
static char input_buf[1 << 16];

static FILE *open_input(const char *path, pid_t *out_child, char *err, size_t err_len)
{
    *out_child = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_len, "%s", strerror(errno));
        return NULL;
    }
    /* Large reads: the readers take a record at a time through stdio. */
    setvbuf(f, input_buf, _IOFBF, sizeof input_buf);
    unsigned char magic[2];
    size_t got = fread(magic, 1, 2, f);
    if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        int fds[2];
        if (pipe(fds) != 0) {
            snprintf(err, err_len, "pipe: %s", strerror(errno));
            fclose(f);
            return NULL;
        }
        pid_t pid = fork();
        if (pid < 0) {
            snprintf(err, err_len, "fork: %s", strerror(errno));
            close(fds[0]);
            close(fds[1]);
            fclose(f);
            return NULL;
        }
        if (pid == 0) {
            rewind(f);
            dup2(fileno(f), 0);
            dup2(fds[1], 1);
            close(fds[0]);
            close(fds[1]);
            execlp("gzip", "gzip", "-dc", (char *)NULL);
            _exit(127);
        }
        close(fds[1]);
        fclose(f);
        *out_child = pid;
        FILE *in = fdopen(fds[0], "rb");
        if (in) {
            setvbuf(in, input_buf, _IOFBF, sizeof input_buf);
        }
        return in;
    }
    rewind(f);
    return f;
}

static void close_input(FILE *f, pid_t child, int *out_status)
{
    fclose(f);
    if (child) {
        int ws = 0;
        waitpid(child, &ws, 0);
        if (out_status) {
            *out_status = ws;
        }
    }
}

/* A capture being read: pcap files through libpcap, pcapng files through
 * tlsneg's own reader (libpcap 1.10 refuses pcapng files whose interfaces
 * differ in link type or snapshot length). */
/* A plain pcap file (not compressed) is read past libpcap and stdio once
 * libpcap has opened it: large reads into one buffer, each record handed on
 * where it lies. Only records libpcap would hand on unchanged: a version 2.4
 * file, a link type libpcap does not rewrite, a record no longer than the
 * snapshot length; at anything else (and at a cut record) the file is
 * positioned at that record and libpcap reads on, with its own messages. */
#define FAST_BUF (1u << 20)

typedef struct {
    bool on;
    bool swapped, nsec;
    bool eof;
    int fd;
    uint32_t snap;
    uint8_t *buf;
    size_t pos, end;
    long long off; /* of buf[0] in the file */
} fast_reader;

typedef struct {
    pcap_t *pc;
    FILE *f;
    bool is_ng;
    tlsneg_pcapng ng;
    int linktype;
    fast_reader fast;
    char err[PCAP_ERRBUF_SIZE + 160];
} reader;

enum { READ_PACKET, READ_END, READ_CUT, READ_ERROR };

static uint32_t get32(const uint8_t *p, bool swapped)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return swapped ? __builtin_bswap32(v) : v;
}

static bool fast_link(int dlt, bool swapped)
{
    switch (dlt) {
    case DLT_EN10MB:
    case DLT_PPP:
    case DLT_RAW:
    case DLT_NULL:
    case DLT_LOOP:
#ifdef DLT_IPV4
    case DLT_IPV4:
#endif
#ifdef DLT_IPV6
    case DLT_IPV6:
#endif
        return true;
    case DLT_LINUX_SLL:
#ifdef DLT_LINUX_SLL2
    case DLT_LINUX_SLL2:
#endif
        return !swapped; /* libpcap swaps CAN headers in a swapped file */
    default:
        return false;
    }
}

/* fast_open starts reading past libpcap if the file allows it. */
static void fast_open(reader *r)
{
    fast_reader *fr = &r->fast;
    memset(fr, 0, sizeof *fr);
    fr->fd = fileno(r->f);
    uint8_t h[24];
    if (fr->fd < 0 || pread(fr->fd, h, sizeof h, 0) != (ssize_t)sizeof h) {
        return;
    }
    uint32_t magic;
    memcpy(&magic, h, 4);
    if (magic == 0xa1b2c3d4u || magic == 0xa1b23c4du) {
        fr->swapped = false;
    } else if (magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u) {
        fr->swapped = true;
        magic = __builtin_bswap32(magic);
    } else {
        return;
    }
    fr->nsec = magic == 0xa1b23c4du;
    uint16_t major, minor;
    memcpy(&major, h + 4, 2);
    memcpy(&minor, h + 6, 2);
    if (fr->swapped) {
        major = __builtin_bswap16(major);
        minor = __builtin_bswap16(minor);
    }
    int snap = pcap_snapshot(r->pc);
    if (major != 2 || minor != 4 || snap <= 0 || !fast_link(r->linktype, fr->swapped)) {
        return;
    }
    fr->buf = malloc(FAST_BUF);
    if (!fr->buf) {
        return;
    }
    fr->snap = (uint32_t)snap;
    fr->off = 24;
    fr->on = true;
}

/* fast_stop hands the file to libpcap at the record not yet read. */
static void fast_stop(reader *r)
{
    fast_reader *fr = &r->fast;
    fr->on = false;
    if (fseeko(r->f, (off_t)(fr->off + (long long)fr->pos), SEEK_SET) != 0) {
        /* libpcap reads on from wherever stdio is: it reports what it finds */
    }
    free(fr->buf);
    fr->buf = NULL;
}

static int fast_next(reader *r, int *link, uint64_t *t, const uint8_t **data, uint32_t *caplen,
                     uint32_t *len)
{
    fast_reader *fr = &r->fast;
    for (;;) {
        size_t avail = fr->end - fr->pos;
        if (avail >= 16) {
            const uint8_t *h = fr->buf + fr->pos;
            uint32_t cap = get32(h + 8, fr->swapped);
            if (cap > fr->snap) {
                fast_stop(r);
                return -1;
            }
            if (avail >= 16 + (size_t)cap) {
                /* as libpcap: the seconds and the fraction are signed 32 bits */
                int32_t sec = (int32_t)get32(h, fr->swapped);
                int32_t frac = (int32_t)get32(h + 4, fr->swapped);
                if (fr->nsec) {
                    frac /= 1000;
                }
                *link = r->linktype;
                *t = (uint64_t)(int64_t)sec * 1000000u + (uint64_t)(int64_t)frac;
                *data = h + 16;
                *caplen = cap;
                *len = get32(h + 12, fr->swapped);
                fr->pos += 16 + (size_t)cap;
                return READ_PACKET;
            }
        }
        if (fr->eof) {
            if (avail == 0) {
                return READ_END;
            }
            fast_stop(r); /* a cut record: libpcap says so */
            return -1;
        }
        memmove(fr->buf, fr->buf + fr->pos, avail);
        fr->off += (long long)fr->pos;
        fr->pos = 0;
        fr->end = avail;
        ssize_t n;
        do {
            n = pread(fr->fd, fr->buf + fr->end, FAST_BUF - fr->end,
                      (off_t)(fr->off + (long long)fr->end));
        } while (n < 0 && errno == EINTR);
        if (n < 0) {
            fast_stop(r);
            return -1;
        }
        if (n == 0) {
            fr->eof = true;
        }
        fr->end += (size_t)n;
    }
}

static int reader_next(reader *r, int *link, uint64_t *t, const uint8_t **data, uint32_t *caplen,
                       uint32_t *len)
{
    if (r->is_ng) {
        switch (tlsneg_pcapng_next(&r->ng)) {
        case TLSNEG_PCAPNG_PACKET:
            *link = r->ng.linktype;
            *t = r->ng.time_us;
            *data = r->ng.data;
            *caplen = r->ng.caplen;
            *len = r->ng.len;
            return READ_PACKET;
        case TLSNEG_PCAPNG_END:
            return READ_END;
        case TLSNEG_PCAPNG_TRUNCATED:
            snprintf(r->err, sizeof r->err, "the file ends inside a block");
            return READ_CUT;
        case TLSNEG_PCAPNG_BAD:
            snprintf(r->err, sizeof r->err, "%s", r->ng.err);
            return READ_ERROR;
        }
        return READ_ERROR;
    }
    if (r->fast.on) {
        int x = fast_next(r, link, t, data, caplen, len);
        if (x >= 0) {
            return x;
        }
    }
    struct pcap_pkthdr *h;
    const u_char *d;
    int x = pcap_next_ex(r->pc, &h, &d);
    if (x == 1) {
        *link = r->linktype;
        *t = (uint64_t)h->ts.tv_sec * 1000000u + (uint64_t)h->ts.tv_usec;
        *data = d;
        *caplen = h->caplen;
        *len = h->len;
        return READ_PACKET;
    }
    if (x == PCAP_ERROR_BREAK) {
        return READ_END;
    }
    snprintf(r->err, sizeof r->err, "%s", pcap_geterr(r->pc));
    return strstr(r->err, "truncated") ? READ_CUT : READ_ERROR;
}

/* What read_packets works on: one file's reader, packet path and progress
 * line; what it says when it stops. */
typedef struct {
    reader *rd;
    tlsneg_pcap *tp;
    progress *pr;
    uint32_t frame_base; /* the frames of the files before */
    uint32_t frames;     /* read */
    int result;          /* READ_END, READ_CUT or READ_ERROR (rd->err) */
} read_job;

/* read_packets feeds the file's packets to the packet path until the end,
 * an error or a stop request, then ends the flows still open (their
 * TLSNEG_PCAP_END events); with two threads, on the second one. */
static void read_packets(void *arg)
{
    read_job *j = arg;
    int link;
    uint64_t t;
    const uint8_t *data;
    uint32_t caplen, len;
    while (!stop_requested &&
           (j->result = reader_next(j->rd, &link, &t, &data, &caplen, &len)) == READ_PACKET) {
        j->frames++;
        tlsneg_pcap_packet(j->tp, link, j->frame_base + j->frames, t, data, caplen, len);
        if ((j->frames & 0xfff) == 0) {
            j->pr->pos = j->rd->fast.on ? j->rd->fast.off + (long long)j->rd->fast.pos : -1;
            progress_show(j->pr, tlsneg_pcap_get_stats(j->tp), false);
        }
    }
    tlsneg_pcap_finish(j->tp);
}

/* run_file reads one capture; returns 0, 1 (read, but cut short or with a
 * read error) or 2 (not readable at all). */
static int run_file(const char *path, uint32_t file_no, uint32_t *frame_base, trace_state *trace,
                    const tlsneg_pcap_config *cfg, bool events, bool stats, bool show_progress)
{
    char err[PCAP_ERRBUF_SIZE + 64];
    pid_t child;
    FILE *f = open_input(path, &child, err, sizeof err);
    if (!f) {
        fprintf(stderr, "tlsneg-pcap: %s: cannot open: %s\n", path, err);
        return 2;
    }
    /* The packet path's thread writes rd and job once a packet, the
     * analysing thread rc once an event: each on cache lines of its own,
     * or every event moves a line between the two cores. */
    _Alignas(64) reader rd;
    memset(&rd, 0, sizeof rd);
    uint8_t magic[4];
    if (fread(magic, 1, 4, f) == 4 && memcmp(magic, "\x0a\x0d\x0d\x0a", 4) == 0) {
        rd.is_ng = true;
        tlsneg_pcapng_open(&rd.ng, f);
    } else {
        /* libpcap reads from the start: rewind, or decompress again. */
        if (child) {
            close_input(f, child, NULL);
            f = open_input(path, &child, err, sizeof err);
            if (!f) {
                fprintf(stderr, "tlsneg-pcap: %s: cannot open: %s\n", path, err);
                return 2;
            }
        } else {
            rewind(f);
        }
        char perr[PCAP_ERRBUF_SIZE];
        rd.pc = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_MICRO, perr);
        if (!rd.pc) {
            fprintf(stderr, "tlsneg-pcap: %s: not a capture tlsneg-pcap can read: %s\n", path,
                    perr);
            close_input(f, child, NULL);
            return 2;
        }
        rd.linktype = pcap_datalink(rd.pc);
        rd.f = f;
        if (!child) {
            fast_open(&rd);
        }
        if (!tlsneg_pcap_link_supported(rd.linktype)) {
            const char *ln = pcap_datalink_val_to_name(rd.linktype);
            fprintf(stderr, "tlsneg-pcap: %s: link type %d (%s) is not one tlsneg-pcap reads\n",
                    path, rd.linktype, ln ? ln : "unknown");
        }
    }
    _Alignas(64) run_ctx rc = {path, file_no, events, stdout, trace, 0};
    /* With --threads 2 and events to consume: the packet path on a second
     * thread, the analysis on this one (evqueue.h). */
    tlsneg_evqueue *q =
        opt_threads > 1 && (events || trace)
            ? tlsneg_evqueue_new(1u << 22, sizeof(prepared), trace ? prepare : NULL, consume, &rc)
            : NULL;
    tlsneg_pcap *tp =
        q ? tlsneg_pcap_new(cfg, tlsneg_evqueue_push, q) : tlsneg_pcap_new(cfg, on_event, &rc);
    /* The ring and the reader's buffer, just allocated: huge pages before
     * the packet path's thread touches them. */
    heap_advise();
    if (!tp) {
        tlsneg_evqueue_free(q);
        fprintf(stderr, "tlsneg-pcap: out of memory (or libgcrypt failed to start)\n");
        if (rd.pc) {
            pcap_close(rd.pc);
            f = NULL;
        }
        return 2;
    }
    progress pr = {show_progress, now_s(), 0, -1, child ? NULL : f, -1};
    struct stat sb;
    if (!child && stat(path, &sb) == 0) {
        pr.size = (long long)sb.st_size;
    }
    _Alignas(64) read_job job = {&rd, tp, &pr, *frame_base, 0, READ_END};
    if (q) {
        tlsneg_evqueue_run(q, read_packets, &job);
        tlsneg_evqueue_free(q);
    } else {
        read_packets(&job);
    }
    int status = 0, r = job.result;
    uint32_t frame = job.frames;
    bool read_all = !stop_requested && r == READ_END;
    if (!stop_requested && r != READ_END) {
        fflush(stdout);
        if (r == READ_CUT) {
            fprintf(stderr,
                    "tlsneg-pcap: %s: the file is cut short in frame %u (%s); the events of the "
                    "%u frames before the cut are kept\n",
                    path, frame + 1, rd.err, frame);
        } else {
            fprintf(stderr,
                    "tlsneg-pcap: %s: cannot read frame %u: %s; the events of the %u frames "
                    "before are kept\n",
                    path, frame + 1, rd.err, frame);
        }
        status = 1;
    }
    pr.pos = rd.fast.on ? rd.fast.off + (long long)rd.fast.pos : -1;
    progress_show(&pr, tlsneg_pcap_get_stats(tp), true);
    report_unknown_links(path, tlsneg_pcap_get_stats(tp));
    if (stats) {
        print_stats(path, tlsneg_pcap_get_stats(tp));
        print_session_stats(path, trace);
    }
    tlsneg_pcap_free(tp);
    *frame_base += frame;
    int ws = 0;
    if (rd.is_ng) {
        tlsneg_pcapng_close(&rd.ng);
        close_input(f, child, &ws);
    } else {
        free(rd.fast.buf);
        pcap_close(rd.pc); /* closes f */
        if (child) {
            waitpid(child, &ws, 0);
        }
    }
    if (child && read_all && (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)) {
        fprintf(stderr, "tlsneg-pcap: %s: gzip -dc failed (a damaged compressed file?)\n", path);
        status = status ? status : 1;
    }
    return status;
}

typedef struct {
    tlsneg_pcap *tp;
    int linktype;
    uint32_t frame;
    progress *pr;
} live_ctx;

static void on_live_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
    live_ctx *lc = (live_ctx *)user;
    lc->frame++;
    uint64_t t = (uint64_t)h->ts.tv_sec * 1000000u + (uint64_t)h->ts.tv_usec;
    tlsneg_pcap_packet(lc->tp, lc->linktype, lc->frame, t, data, h->caplen, h->len);
}

static int run_live(const char *iface, const char *filter, const tlsneg_pcap_config *cfg,
                    bool events, bool stats)
{
    char perr[PCAP_ERRBUF_SIZE];
    pcap_t *pc = pcap_create(iface, perr);
    if (!pc) {
        fprintf(stderr, "tlsneg-pcap: %s: %s\n", iface, perr);
        return 2;
    }
    /* These fail only on an activated handle, which pc is not yet. */
    if (pcap_set_snaplen(pc, 262144) != 0 || pcap_set_immediate_mode(pc, 1) != 0 ||
        pcap_set_timeout(pc, 100) != 0) {
        fprintf(stderr, "tlsneg-pcap: %s: cannot set up the capture\n", iface);
        pcap_close(pc);
        return 2;
    }
    int a = pcap_activate(pc);
    if (a < 0) {
        fprintf(stderr, "tlsneg-pcap: %s: %s\n", iface, pcap_geterr(pc));
        pcap_close(pc);
        return 2;
    }
    if (filter && *filter) {
        struct bpf_program prog;
        if (pcap_compile(pc, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0 ||
            pcap_setfilter(pc, &prog) != 0) {
            fprintf(stderr, "tlsneg-pcap: filter \"%s\": %s\n", filter, pcap_geterr(pc));
            pcap_close(pc);
            return 2;
        }
        pcap_freecode(&prog);
    }
    if (drop_user && !drop_root(drop_user)) {
        pcap_close(pc);
        return 2;
    }
    run_ctx rc = {iface, 0, events, stdout, trace_start(), 0};
    tlsneg_pcap *tp = tlsneg_pcap_new(cfg, on_event, &rc);
    if (!tp) {
        fprintf(stderr, "tlsneg-pcap: out of memory (or libgcrypt failed to start)\n");
        pcap_close(pc);
        return 2;
    }
    live_ctx lc = {tp, pcap_datalink(pc), 0, NULL};
    if (!tlsneg_pcap_link_supported(lc.linktype)) {
        const char *ln = pcap_datalink_val_to_name(lc.linktype);
        fprintf(stderr, "tlsneg-pcap: %s: link type %d (%s) is not one tlsneg-pcap reads\n", iface,
                lc.linktype, ln ? ln : "unknown");
    }
    live_handle = pc;
    /* As tcpdump says it: the capture runs from here. */
    fprintf(stderr, "tlsneg-pcap: listening on %s, link type %s\n", iface,
            pcap_datalink_val_to_name(lc.linktype) ? pcap_datalink_val_to_name(lc.linktype)
                                                   : "unknown");
    int r = 0;
    while (!stop_requested && (r = pcap_dispatch(pc, -1, on_live_packet, (u_char *)&lc)) >= 0) {
    }
    live_handle = NULL;
    /* The capture is over, as a file's end is: the flows still open end
     * (their TLSNEG_PCAP_END events), so that the session layer sees the
     * same sequence from a live capture as from the file it was saved
     * to. */
    tlsneg_pcap_finish(tp);
    int status = 0;
    if (r == PCAP_ERROR) {
        fprintf(stderr, "tlsneg-pcap: %s: %s\n", iface, pcap_geterr(pc));
        status = 1;
    }
    report_unknown_links(iface, tlsneg_pcap_get_stats(tp));
    if (stats) {
        print_stats(iface, tlsneg_pcap_get_stats(tp));
        print_session_stats(iface, rc.trace);
    }
    tlsneg_pcap_free(tp);
    trace_end(rc.trace);
    pcap_close(pc);
    return status;
}

/* finish writes what the outputs know only at the end (the probes of the
 * JSON lines, the CSV, the report), also after Ctrl-C. */
static int finish(int status)
{
    for (size_t i = 0; i < num_outs; i++) {
        tlsneg_out_end(outs[i]);
        tlsneg_out_free(outs[i]);
        outs[i] = NULL;
    }
    num_outs = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "tlsneg-pcap: writing the output failed\n");
        return 2;
    }
    return status;
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

int main(int argc, char **argv)
{
    tlsneg_pcap_config cfg = {0, 0, 0};
    bool events = false, stats = false, quiet = false;
    heap_setup();
    bool want[3] = {false, false, false};
    const char *iface = NULL;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--events") == 0) {
            events = true;
        } else if (strcmp(a, "--jsonl") == 0) {
            want[TLSNEG_OUT_JSONL] = true;
        } else if (strcmp(a, "--csv") == 0) {
            want[TLSNEG_OUT_CSV] = true;
        } else if (strcmp(a, "--report") == 0) {
            want[TLSNEG_OUT_REPORT] = true;
        } else if (strcmp(a, "--shard") == 0 && i + 1 < argc) {
            if (!parse_shard(argv[++i], &shard_k, &shard_n)) {
                fprintf(stderr, "tlsneg-pcap: --shard wants K/N with 0 <= K < N\n");
                return 2;
            }
        } else if (strcmp(a, "-Z") == 0 && i + 1 < argc) {
            drop_user = argv[++i];
        } else if (strcmp(a, "--trace") == 0) {
            opt_trace = true;
        } else if (strcmp(a, "--stats") == 0) {
            stats = true;
        } else if (strcmp(a, "-q") == 0) {
            quiet = true;
        } else if (strcmp(a, "--threads") == 0 && i + 1 < argc) {
            if (!parse_u32(argv[++i], &opt_threads) || opt_threads < 1 || opt_threads > 2) {
                fprintf(stderr, "tlsneg-pcap: --threads wants 1 or 2\n");
                return 2;
            }
        } else if ((strcmp(a, "--max-flows") == 0 || strcmp(a, "--idle-timeout") == 0 ||
                    strcmp(a, "--buffer") == 0 || strcmp(a, "--max-attempts") == 0) &&
                   i + 1 < argc) {
            uint32_t v;
            if (!parse_u32(argv[++i], &v) || v == 0) {
                fprintf(stderr, "tlsneg-pcap: %s wants a positive number\n", a);
                return 2;
            }
            if (strcmp(a, "--max-flows") == 0) {
                cfg.max_flows = v;
            } else if (strcmp(a, "--idle-timeout") == 0) {
                cfg.idle_timeout_s = v;
            } else if (strcmp(a, "--max-attempts") == 0) {
                opt_max_attempts = v;
            } else {
                cfg.max_buffer = v;
            }
        } else if (strcmp(a, "-i") == 0 && i + 1 < argc) {
            iface = argv[++i];
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "tlsneg-pcap: unknown option %s\n", a);
            usage(stderr);
            return 2;
        } else {
            break;
        }
    }
    if (drop_user && !iface) {
        fprintf(stderr, "tlsneg-pcap: -Z is for live capture (-i)\n");
        return 2;
    }
    if (iface) {
        /* Live: every line leaves as it is written. */
        setvbuf(stdout, NULL, _IOLBF, 0);
    } else if (!isatty(STDOUT_FILENO)) {
        /* Into a file or a pipe: large writes (glibc keeps a block-sized
         * buffer otherwise). */
        static char out_buf[1 << 18];
        setvbuf(stdout, out_buf, _IOFBF, sizeof out_buf);
    }
    for (int f = TLSNEG_OUT_JSONL; f <= TLSNEG_OUT_REPORT; f++) {
        if (want[f]) {
            outs[num_outs] = tlsneg_out_new((tlsneg_out_format)f, stdout);
            if (!outs[num_outs]) {
                fprintf(stderr, "tlsneg-pcap: out of memory\n");
                return 2;
            }
            tlsneg_out_header(outs[num_outs++]);
        }
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (iface) {
        /* The rest of the command line is the filter, as tcpdump takes it. */
        size_t n = 1;
        for (int j = i; j < argc; j++) {
            n += strlen(argv[j]) + 1;
        }
        char *filter = calloc(n, 1);
        if (!filter) {
            return 2;
        }
        for (int j = i; j < argc; j++) {
            if (j > i) {
                strcat(filter, " ");
            }
            strcat(filter, argv[j]);
        }
        int s = run_live(iface, filter, &cfg, events, stats);
        free(filter);
        return finish(s);
    }
    if (i >= argc) {
        usage(stderr);
        return 2;
    }
    if (!opt_threads) {
        opt_threads = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
    }
    int worst = 0;
    bool show_progress = !quiet && isatty(2);
    trace_state *trace = trace_start();
    uint32_t frame_base = 0;
    for (uint32_t file_no = 0; i < argc && !stop_requested; i++, file_no++) {
        int s = run_file(argv[i], file_no, &frame_base, trace, &cfg, events, stats, show_progress);
        if (s > worst) {
            worst = s;
        }
    }
    trace_end(trace);
    return finish(worst);
}
