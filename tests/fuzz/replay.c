/* tests/fuzz/replay.c - the corpus replay driver: runs a fuzz target's
 * LLVMFuzzerTestOneInput() over files, without libFuzzer.
 *
 *   replay_giop [FILE|DIR]...
 *
 * With no argument it replays the target's own corpus,
 * $srcdir/tests/fuzz/corpus/<target> (srcdir from the environment, "."
 * without), which is what `make check` runs.  Each file is one input; a
 * directory is read one level deep.  A finding aborts (the target's
 * FUZZ_CHECK or a sanitizer), so the test fails with the file's name on
 * stderr.  Exit status 0 when every input ran, 99 (a hard error for the
 * test harness) when the corpus cannot be read or is empty.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include "fuzz.h"

#ifndef FUZZ_TARGET
#error "FUZZ_TARGET (the corpus directory's name) must be defined"
#endif

static unsigned long n_inputs;

static int run_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
    return -1;
  }
  size_t cap = 4096, len = 0;
  uint8_t *buf = malloc(cap);
  size_t r;
  while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
    len += r;
    if (len == cap) {
      uint8_t *nb = realloc(buf, cap *= 2);
      if (!nb)
        free(buf);
      buf = nb;
    }
  }
  fclose(f);
  if (!buf) {
    fprintf(stderr, "replay: %s: out of memory\n", path);
    return -1;
  }
  /* An exact-size copy, so that ASan sees a read past the input's end. */
  uint8_t *in = malloc(len ? len : 1);
  if (!in) {
    free(buf);
    return -1;
  }
  memcpy(in, buf, len);
  free(buf);
  fprintf(stderr, "replay: %s (%zu octets)\n", path, len);
  LLVMFuzzerTestOneInput(in, len);
  free(in);
  n_inputs++;
  return 0;
}

static int cmp_names(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path)
{
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(st.st_mode))
    return run_file(path);
  DIR *d = opendir(path);
  if (!d) {
    fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
    return -1;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    if (n == cap) {
      char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
      if (!nn) {
        rc = -1;
        break;
      }
      names = nn;
    }
    if (asprintf(&names[n], "%s/%s", path, e->d_name) < 0) {
      rc = -1;
      break;
    }
    n++;
  }
  closedir(d);
  qsort(names, n, sizeof *names, cmp_names); /* the same order every run */
  for (size_t k = 0; k < n; k++) {
    if (rc == 0 && run_file(names[k]) != 0)
      rc = -1;
    free(names[k]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv)
{
  int rc = 0;
  if (argc > 1) {
    for (int k = 1; k < argc; k++)
      if (run_path(argv[k]) != 0)
        rc = -1;
  } else {
    const char *srcdir = getenv("srcdir");
    char *dir;
    if (asprintf(&dir, "%s/tests/fuzz/corpus/%s", srcdir ? srcdir : ".", FUZZ_TARGET) < 0)
      return 99;
    rc = run_path(dir);
    free(dir);
  }
  if (rc != 0 || n_inputs == 0) {
    fprintf(stderr, "replay %s: %s\n", FUZZ_TARGET, n_inputs ? "unreadable input" : "no input");
    return 99;
  }
  printf("replay %s: %lu inputs, no finding\n", FUZZ_TARGET, n_inputs);
  return 0;
}
