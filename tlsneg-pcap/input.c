/* SPDX-License-Identifier: GPL-2.0-or-later */
/* input.c: capture files opened for reading, gzip-compressed ones through
 * gzip -dc (input.h). */
#define _DEFAULT_SOURCE 1

#include "input.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The input stream's buffer: glibc ignores setvbuf's size when it is given
 * no buffer (it keeps a block-sized one, 4 KB reads). One input is open at
 * a time, so one buffer serves them all. 64 KB: a pipe gives no more at a
 * time, and a plain pcap file is read past stdio (fast_open) once libpcap
 * has read its header, which filled a larger buffer for nothing. */
static char input_buf[1 << 16];

FILE *tlsneg_input_open(const char *path, pid_t *out_child, char *err, size_t err_len)
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

void tlsneg_input_close(FILE *f, pid_t child, int *out_status)
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
