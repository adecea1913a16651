/* tests/fuzz/fuzz.h - what the fuzz targets share.
 *
 * Each fuzz_*.c defines LLVMFuzzerTestOneInput() and nothing else with
 * external linkage.  It is linked either with libFuzzer (clang
 * -fsanitize=fuzzer: `make fuzz`) or with replay.c, a plain driver that runs
 * it over the target's corpus under tests/fuzz/corpus/ (`make check`).
 * A target reports a finding by aborting (FUZZ_CHECK), so that libFuzzer
 * saves the input and the replay driver fails; a decoding error is never a
 * finding, only a crash, a sanitizer report, a hang or a broken round trip.
 * Only the public headers (<cdr/...>, <iiop/...>) are used.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                              \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      fprintf(stderr, "%s:%d: round-trip check failed: %s\n", __FILE__, __LINE__, #cond); \
      abort();                                                                        \
    }                                                                                 \
  } while (0)

/* Equal octet strings (lengths and contents). */
#define FUZZ_SAME(a, alen, b, blen)                                                   \
  FUZZ_CHECK((alen) == (blen) && ((alen) == 0 || memcmp((a), (b), (alen)) == 0))

/* A reader of the input's leading configuration octets: past the end it
 * gives zeros, so every input is valid. */
typedef struct fuzz_in {
  const uint8_t *p;
  size_t n;
} fuzz_in;

static inline uint8_t fuzz_byte(fuzz_in *f)
{
  if (f->n == 0)
    return 0;
  f->n--;
  return *f->p++;
}

/* A deterministic PRNG seeded from the input (chunk sizes, choices). */
static inline uint32_t fuzz_rand(uint64_t *s)
{
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (uint32_t)((z ^ (z >> 31)) >> 16);
}

#endif
