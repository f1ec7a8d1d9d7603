/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run.c: a capture file read, on one thread or two; the signals that stop
 * a run (run.h). */
#define _DEFAULT_SOURCE 1

#include "run.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>

#include "consume.h"
#include "evqueue.h"
#include "heap.h"
#include "reader.h"
#include "stats.h"

/* Set by SIGINT and SIGTERM; read by the thread that reads packets. */
static atomic_int stop_requested;
static pcap_t *live_handle;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
    if (live_handle) {
        pcap_breakloop(live_handle);
    }
}

void tlsneg_run_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

bool tlsneg_run_stopped(void)
{
    return stop_requested;
}

void tlsneg_run_set_live(pcap_t *pc)
{
    live_handle = pc;
}

/* What read_packets works on: one file's reader, packet path and progress
 * line; what it says when it stops. */
typedef struct {
    tlsneg_reader *rd;
    tlsneg_pcap *tp;
    tlsneg_progress *pr;
    uint32_t frame_base; /* the frames of the files before */
    uint32_t frames;     /* read */
    int result;          /* TLSNEG_READ_END, _CUT or _ERROR (rd->err) */
} read_job;

/* read_packets feeds the file's packets to the packet path until the end,
 * an error or a stop request, then ends the flows still open (their
 * TLSNEG_EV_END events); with two threads, on the second one. */
static void read_packets(void *arg)
{
    read_job *j = arg;
    int link;
    uint64_t t;
    const uint8_t *data;
    uint32_t caplen, len;
    while (!stop_requested && (j->result = tlsneg_reader_next(j->rd, &link, &t, &data, &caplen,
                                                              &len)) == TLSNEG_READ_PACKET) {
        j->frames++;
        tlsneg_pcap_packet(j->tp, link, j->frame_base + j->frames, t, data, caplen, len);
        if ((j->frames & 0xfff) == 0) {
            j->pr->pos = tlsneg_reader_pos(j->rd);
            tlsneg_progress_show(j->pr, tlsneg_pcap_get_stats(j->tp), false);
        }
    }
    tlsneg_pcap_finish(j->tp);
}

/* read_stopped says why the file was not read to its end, if it was not
 * and no signal asked it: returns 1 then, else 0. */
static int read_stopped(const char *path, const read_job *job)
{
    if (stop_requested || job->result == TLSNEG_READ_END) {
        return 0;
    }
    fflush(stdout);
    uint32_t frame = job->frames;
    if (job->result == TLSNEG_READ_CUT) {
        fprintf(stderr,
                "tlsneg-pcap: %s: the file is cut short in frame %u (%s); the events of the "
                "%u frames before the cut are kept\n",
                path, frame + 1, job->rd->err, frame);
    } else {
        fprintf(stderr,
                "tlsneg-pcap: %s: cannot read frame %u: %s; the events of the %u frames "
                "before are kept\n",
                path, frame + 1, job->rd->err, frame);
    }
    return 1;
}

/* read_file runs the packet path over job's reader into rc: with --threads
 * 2 and events to consume, the packet path on a second thread, the
 * analysis on this one (evqueue.h). false when out of memory. */
static bool read_file(read_job *job, tlsneg_consumer *rc, const tlsneg_run_options *o)
{
    tlsneg_evqueue *q =
        o->threads > 1 && (rc->events || rc->analysis)
            ? tlsneg_evqueue_new(1u << 22, sizeof(tlsneg_prepared),
                                 rc->analysis ? tlsneg_consume_prepare : NULL, tlsneg_consume, rc)
            : NULL;
    job->tp = q ? tlsneg_pcap_new(&o->cfg, tlsneg_evqueue_push, q)
                : tlsneg_pcap_new(&o->cfg, tlsneg_consume_now, rc);
    /* The ring and the reader's buffer, just allocated: huge pages before
     * the packet path's thread touches them. */
    tlsneg_heap_advise();
    if (!job->tp) {
        tlsneg_evqueue_free(q);
        fprintf(stderr, "tlsneg-pcap: out of memory (or libgcrypt failed to start)\n");
        return false;
    }
    if (q) {
        tlsneg_evqueue_run(q, read_packets, job);
        tlsneg_evqueue_free(q);
    } else {
        read_packets(job);
    }
    return true;
}

int tlsneg_run_file(const char *path, uint32_t file_no, uint32_t *frame_base, tlsneg_analysis *a,
                    const tlsneg_run_options *o)
{
    /* The packet path's thread writes rd and job once a packet, the
     * analysing thread rc once an event: each on cache lines of its own,
     * or every event moves a line between the two cores. */
    _Alignas(64) tlsneg_reader rd;
    if (!tlsneg_reader_open(&rd, path)) {
        return 2;
    }
    if (o->events) {
        fprintf(stdout, "# %s\n", path); /* where the events that follow come from */
    }
    _Alignas(64) tlsneg_consumer rc = {.file_no = file_no,
                                       .events = o->events,
                                       .shard_k = o->shard_k,
                                       .shard_n = o->shard_n,
                                       .out = stdout,
                                       .analysis = a};
    tlsneg_progress pr;
    tlsneg_progress_start(&pr, o->show_progress, path, rd.child ? NULL : rd.f);
    _Alignas(64) read_job job = {&rd, NULL, &pr, *frame_base, 0, TLSNEG_READ_END};
    if (!read_file(&job, &rc, o)) {
        tlsneg_reader_close(&rd, NULL);
        return 2;
    }
    int status = read_stopped(path, &job);
    bool read_all = !stop_requested && job.result == TLSNEG_READ_END;
    pr.pos = tlsneg_reader_pos(&rd);
    const tlsneg_pcap_stats *st = tlsneg_pcap_get_stats(job.tp);
    tlsneg_progress_show(&pr, st, true);
    tlsneg_stats_unknown_links(path, st);
    if (o->stats) {
        tlsneg_stats_print(path, st);
        tlsneg_analysis_print_stats(a, path);
    }
    tlsneg_pcap_free(job.tp);
    *frame_base += job.frames;
    int ws = 0;
    tlsneg_reader_close(&rd, &ws);
    if (rd.child && read_all && (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)) {
        fprintf(stderr, "tlsneg-pcap: %s: gzip -dc failed (a damaged compressed file?)\n", path);
        status = status ? status : 1;
    }
    return status;
}
