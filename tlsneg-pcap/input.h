/* SPDX-License-Identifier: GPL-2.0-or-later */
/* input.h: a capture file opened for reading, through gzip -dc when it is
 * gzip-compressed, with a large stdio buffer. Internal to tlsneg-pcap. */
#ifndef TLSNEG_PCAP_INPUT_H
#define TLSNEG_PCAP_INPUT_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* tlsneg_input_open opens path at its first byte: a gzip-compressed file
 * through a gzip -dc process (*out_child, else 0). NULL on failure, with
 * the reason in err. One input is open at a time (they share a buffer). */
FILE *tlsneg_input_open(const char *path, pid_t *out_child, char *err, size_t err_len);

/* tlsneg_input_close closes f and waits for the gzip process child (if
 * not 0); its wait status goes to *out_status (if not NULL). */
void tlsneg_input_close(FILE *f, pid_t child, int *out_status);

#endif
