/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replay: run a libFuzzer target over every file of its corpus, without
 * libFuzzer, so that any compiler (gcc in CI, with or without sanitizers)
 * runs the corpus as an ordinary test.
 *
 * Usage: replay DIR_OR_FILE...
 * Each directory is read one level deep (the corpus layout). A crash or a
 * broken promise aborts the process, naming the file in the line before; an
 * argument that holds no input at all is an error, so a corpus that went
 * missing cannot pass. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fprintf(stderr, "replay: out of memory on %s\n", path);
            fclose(f);
            return -1;
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) {
            break;
        }
        cap *= 2;
        uint8_t *bigger = realloc(buf, cap);
        if (!bigger) {
            free(buf);
        }
        buf = bigger;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(buf);
        return -1;
    }
    /* libFuzzer hands over an exact-size copy: do the same for ASan. */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, n);
    free(buf);
    fprintf(stderr, "replay: %s\n", path);
    (void)LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* run_dir runs every regular file of dir in name order; returns how many,
 * or -1 on an error. */
static long run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return -1;
    }
    char **names = NULL;
    size_t num_names = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') {
            continue;
        }
        if (num_names == cap) {
            cap = cap ? 2 * cap : 256;
            char **bigger = realloc(names, cap * sizeof *names);
            if (!bigger) {
                break;
            }
            names = bigger;
        }
        size_t len = strlen(dir) + 1 + strlen(e->d_name) + 1;
        names[num_names] = malloc(len);
        if (!names[num_names]) {
            break;
        }
        snprintf(names[num_names], len, "%s/%s", dir, e->d_name);
        num_names++;
    }
    closedir(d);
    qsort(names, num_names, sizeof *names, compare_names);
    long count = 0;
    for (size_t i = 0; i < num_names; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (run_file(names[i]) != 0) {
                count = -1;
            } else if (count >= 0) {
                count++;
            }
        }
        free(names[i]);
    }
    free(names);
    return count;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    long total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        long n;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 1;
        }
        n = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]) == 0 ? 1 : -1;
        if (n <= 0) {
            fprintf(stderr, "replay: no input run from %s\n", argv[i]);
            return 1;
        }
        total += n;
    }
    printf("replay: %ld inputs, no crash\n", total);
    return 0;
}
