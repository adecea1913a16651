/* itab.h - indirection tables (internal, not installed).
 *
 * A bidirectional map used by value-graph encoding and decoding: object ->
 * offset on output, offset -> object on input, and the same for repository
 * IDs and codebase URLs.  Entries live in insertion order in parallel arrays
 * (key, value, key hash); two open-addressing indexes hold entry numbers
 * (from 1; 0 is an empty slot), one by key and one by value.
 *
 * Semantics (docs/wire-notes.md, "Indirection tables"): a key may be stored with
 * several values and a value under several keys; a look-up either way finds
 * the newest entry.  Putting a pair that is already present (as any entry,
 * not only the newest) is a no-op.
 *
 * The first CDR_ITAB_INLINE entries live inside the struct and are scanned
 * linearly with no hashing and no allocation.  The 9th distinct pair moves
 * the table to a block (entries plus indexes, one allocation): the newest
 * one of the calling thread's pool, else one from the shared pool, else a
 * new one.  A full block is replaced by one twice as large (four times past
 * the pool's entry cap, where every block is allocated per message): the
 * smallest pooled one that is large enough, else a new one; the outgrown
 * block goes to the pool (or is freed past its caps).  Index load factor is
 * at most 0.5.  Both indexes are brought up to date lazily: the index by
 * value by the first look-up by value (encoders and decoders look up by key
 * only and should not pay for it), the index by key by the first search
 * after cdr_itab_append() (a decoder records every value it reads but
 * searches only to resolve an indirection).
 *
 * A cdr_itab is owned by one thread at a time (its stream's); const
 * operations (cdr_itab_get, cdr_itab_count) may run concurrently with each
 * other.  It holds no pointer to
 * itself, so it may be moved (memcpy) while it is not in use.
 */
#ifndef CDR_ITAB_H
#define CDR_ITAB_H

#include "internal.h"
#include <cdr/tables.h>

#define CDR_ITAB_INLINE 8

typedef enum cdr_itab_kind {
  CDR_ITAB_PTR = 0, /* keys compared as integers/pointers */
  CDR_ITAB_STR = 1  /* keys are NUL-terminated strings compared by content;
                       the table does not own them */
} cdr_itab_kind;

struct cdr_itab_block; /* itab.c */

typedef struct cdr_itab {
  uint32_t n;       /* entries */
  uint32_t ilim;    /* CDR_ITAB_INLINE; 0 once released (put then fails) */
  uint32_t mask;    /* index slots - 1 when hashed; 0 while inline */
  uint32_t shift;   /* 32 - log2(index slots): slot = hash >> shift */
  uint32_t cap;     /* entry capacity of the block */
  uint32_t kind;    /* cdr_itab_kind */
  uint32_t kn;      /* entries indexed in kidx (appends leave it behind) */
  uint32_t vn;      /* entries indexed in vidx (built lazily by value look-ups) */
  uint32_t kz;      /* kidx is known empty but for entries 1..kn: when kn == 0,
                     * entries go in without emptying it first */
  /* The block's arrays (valid when block != NULL; used when mask != 0). */
  uintptr_t *keys, *vals;
  uint32_t *hash;   /* key hashes */
  uint32_t *kprev;  /* previous entry with the same key (0: none) */
  uint32_t *kidx, *vidx;
  struct cdr_itab_block *block; /* kept across cdr_itab_clear() */
  const cdr_allocator *a;       /* resolved: never NULL after init */
  uintptr_t ikeys[CDR_ITAB_INLINE];
  uintptr_t ivals[CDR_ITAB_INLINE];
} cdr_itab;

/* Initialise T (fresh or released memory; a table that holds a block must be
 * released first).  A: allocator for its blocks, NULL for the global one.
 * Inline: a stream initialises four tables per message.  The array pointers
 * are set when a block is bound. */
static inline void cdr_itab_init(cdr_itab *t, cdr_itab_kind kind, const cdr_allocator *a)
{
  t->n = 0;
  t->ilim = CDR_ITAB_INLINE;
  t->mask = 0;
  t->shift = 0;
  t->cap = 0;
  t->kind = kind;
  t->kn = 0;
  t->vn = 0;
  t->kz = 0;
  t->block = NULL;
  t->a = cdr__alloc_or_global(a);
}

/* Add the pair KEY -> VAL.  A no-op if the pair is present.  Returns CDR_OK;
 * CDR_E_NOMEM when a block could not be allocated (T unchanged); CDR_E_STATE
 * after cdr_itab_release() until cdr_itab_init(). */
CDR_HIDDEN int cdr_itab_put(cdr_itab *t, uintptr_t key, uintptr_t val) CDR_NONNULL(1);

/* Look KEY up and, when it has no entry, add the pair KEY -> VAL in the same
 * probe (what an encoder does for each value: find it or record it).
 * Returns 1 and *FOUND (if FOUND is not NULL) = the value of KEY's newest
 * entry; 0 when the pair was added; CDR_E_NOMEM or CDR_E_STATE as
 * cdr_itab_put() (T unchanged).  Inline for pointer tables (the value walk
 * calls it once per value); everything else goes out of line. */
static inline int cdr_itab_get_or_add(cdr_itab *t, uintptr_t key, uintptr_t val,
                                      uintptr_t *found) CDR_NONNULL(1);

/* Not for direct use: the out-of-line part of cdr_itab_get_or_add(). */
CDR_HIDDEN int cdr_itab__get_or_add_slow(cdr_itab *t, uintptr_t key, uintptr_t val,
                                         uintptr_t *found) CDR_NONNULL(1);

/* Fibonacci hashing of integers and pointers: the product of the key's
 * low 32 bits (after the 3 low ones) and the 32-bit golden-ratio constant,
 * modulo 2^32; an index slot is its top log2(slots) bits.  The 3 low bits
 * go first: keys are 8-aligned pointers and 4-aligned stream positions, and
 * a multiple of 8 times the constant loses its spread (lists of nodes 24
 * octets apart averaged 3 probes a look-up instead of 1.04).  32 bits: a
 * multiply by an immediate (a 64-bit constant takes a register or a load
 * in the encoder's walk loop); keys 32 GiB apart share a hash. */
#define CDR_ITAB_MUL 0x9E3779B9u
static inline uint32_t cdr_itab_hash_ptr(uintptr_t x)
{
  return (uint32_t)(x >> 3) * CDR_ITAB_MUL;
}


/* 1 and *VAL (if VAL is not NULL) = the value of the newest entry for KEY;
 * 0 (and *VAL untouched) if there is none.  Entries appended since the key
 * index was last brought up to date are scanned (cdr_itab_find() indexes
 * them instead). */
CDR_HIDDEN int cdr_itab_get(const cdr_itab *t, uintptr_t key, uintptr_t *val) CDR_NONNULL(1);

/* cdr_itab_get(), after indexing the entries appended since the last
 * search: what a decoder calls to resolve an indirection. */
CDR_HIDDEN int cdr_itab_find(cdr_itab *t, uintptr_t key, uintptr_t *val) CDR_NONNULL(1);

/* Add the pair KEY -> VAL as the newest entry without searching: the caller
 * knows the pair is not present (a decoder recording the value tag at a
 * position it reads for the first time).  KEY may have older entries (the
 * new one wins).  Errors as cdr_itab_put().  Inline: two stores in the
 * common case; the key index catches up at the next search. */
static inline int cdr_itab_append(cdr_itab *t, uintptr_t key, uintptr_t val) CDR_NONNULL(1);

/* Not for direct use: the out-of-line part of cdr_itab_append(). */
CDR_HIDDEN int cdr_itab__append_slow(cdr_itab *t, uintptr_t key, uintptr_t val) CDR_NONNULL(1);


/* A pointer table's state held in locals by a walk loop, so that the
 * loop's stores into buffers and objects (which may alias anything) do not
 * force the table's fields to be reloaded after each one.  Protocol:
 * cdr_itab__cur_load(); while C.lim > C.n, cdr_itab__cur_get_or_add() or
 * cdr_itab__cur_append() (never both on one cursor); otherwise, and before
 * anything else touches the table, cdr_itab__cur_store() and go through the
 * table's functions, then load again.  An inline table is worked on in
 * place (C.mask == 0, C.lim its inline entries: 0 once released); a hashed
 * one has C.lim == 0 while its key index lags (SEARCH: the cursor will
 * search). */
typedef struct cdr_itab_cur {
  uintptr_t *keys, *vals;
  uint32_t *kprev, *kidx;
  uint32_t n, lim, mask, shift;
} cdr_itab_cur;

static inline __attribute__((always_inline)) void
cdr_itab__cur_load(cdr_itab *t, cdr_itab_cur *c, int search)
{
  c->n = t->n;
  c->mask = t->mask;
  c->shift = t->shift;
  if (t->mask == 0) {
    c->lim = t->ilim;
    c->keys = t->ikeys;
    c->vals = t->ivals;
    c->kprev = NULL;
    c->kidx = NULL;
  } else {
    c->lim = !search || (t->kn == t->n && (t->kn != 0 || t->kz)) ? t->cap : 0;
    c->keys = t->keys;
    c->vals = t->vals;
    c->kprev = t->kprev;
    c->kidx = t->kidx;
  }
}

/* Give C's entries back to T (SEARCH: C searched, so a hashed table's
 * entries are indexed by key).  Nothing to do when C.lim is 0. */
static inline __attribute__((always_inline)) void
cdr_itab__cur_store(cdr_itab *t, const cdr_itab_cur *c, int search)
{
  if (c->lim) {
    t->n = c->n;
    if (search && c->mask)
      t->kn = c->n;
  }
}

/* cdr_itab_get_or_add() through C (C.lim > C.n): 1 and *FOUND = KEY's
 * newest value, or 0 after adding KEY -> VAL.  HASHED (a constant): the
 * caller knows C's table is hashed (C.mask != 0; a hashed table stays so
 * until it is cleared or reused). */
static inline __attribute__((always_inline)) int
cdr_itab__cur_get_or_add_h(cdr_itab_cur *c, uintptr_t key, uintptr_t val, uintptr_t *found,
                           const int hashed)
{
  uint32_t n = c->n;
  if (!hashed && CDR_UNLIKELY(c->mask == 0)) {
    for (uint32_t i = n; i-- > 0;)
      if (c->keys[i] == key) {
        *found = c->vals[i];
        return 1;
      }
    c->keys[n] = key;
    c->vals[n] = val;
    c->n = n + 1;
    return 0;
  }
  uint32_t s = cdr_itab_hash_ptr(key) >> c->shift, e;
  while ((e = c->kidx[s]) != 0) {
    if (c->keys[e - 1] == key) {
      *found = c->vals[e - 1];
      return 1;
    }
    s = (s + 1) & c->mask;
  }
  c->keys[n] = key;
  c->vals[n] = val;
  c->kprev[n] = 0;
  c->kidx[s] = n + 1;
  c->n = n + 1;
  return 0;
}

static inline __attribute__((always_inline)) int
cdr_itab__cur_get_or_add(cdr_itab_cur *c, uintptr_t key, uintptr_t val, uintptr_t *found)
{
  return cdr_itab__cur_get_or_add_h(c, key, val, found, 0);
}

/* cdr_itab_append() through C (C.lim > C.n): the same in both shapes. */
static inline __attribute__((always_inline)) void
cdr_itab__cur_append(cdr_itab_cur *c, uintptr_t key, uintptr_t val)
{
  c->keys[c->n] = key;
  c->vals[c->n] = val;
  c->n++;
}

/* The inline table operations, through a cursor (one probe and one append
 * for both): for a table of kind KIND, where the value walk passes the
 * constant CDR_ITAB_PTR and skips the kind test.  A full inline table, a
 * lagging or full index, string tables and a released table go out of
 * line. */
static inline __attribute__((always_inline)) int
cdr_itab__get_or_add_k(cdr_itab *t, uintptr_t key, uintptr_t val, uintptr_t *found,
                       uint32_t kind)
{
  if (CDR_LIKELY(kind == CDR_ITAB_PTR)) {
    cdr_itab_cur c;
    cdr_itab__cur_load(t, &c, 1);
    if (CDR_LIKELY(c.n < c.lim)) {
      uintptr_t v;
      if (cdr_itab__cur_get_or_add(&c, key, val, &v)) {
        if (found)
          *found = v;
        return 1;
      }
      cdr_itab__cur_store(t, &c, 1);
      return 0;
    }
  }
  return cdr_itab__get_or_add_slow(t, key, val, found);
}

static inline int cdr_itab_get_or_add(cdr_itab *t, uintptr_t key, uintptr_t val,
                                      uintptr_t *found)
{
  return cdr_itab__get_or_add_k(t, key, val, found, t->kind);
}

static inline __attribute__((always_inline)) int
cdr_itab__append_k(cdr_itab *t, uintptr_t key, uintptr_t val, uint32_t kind)
{
  if (CDR_LIKELY(kind == CDR_ITAB_PTR)) {
    cdr_itab_cur c;
    cdr_itab__cur_load(t, &c, 0);
    if (CDR_LIKELY(c.n < c.lim)) {
      cdr_itab__cur_append(&c, key, val);
      cdr_itab__cur_store(t, &c, 0);
      return CDR_OK;
    }
  }
  return cdr_itab__append_slow(t, key, val);
}

static inline int cdr_itab_append(cdr_itab *t, uintptr_t key, uintptr_t val)
{
  return cdr_itab__append_k(t, key, val, t->kind);
}

/* 1 and *KEY (if KEY is not NULL) = the key of the newest entry whose value
 * is VAL; 0 (and *KEY untouched) if there is none.  Not const: it brings
 * the lazily built value index up to date. */
CDR_HIDDEN int cdr_itab_find_value(cdr_itab *t, uintptr_t val, uintptr_t *key)
  CDR_NONNULL(1);

/* Entries in T (duplicates of a key or value each count). */
CDR_HIDDEN uint32_t cdr_itab_count(const cdr_itab *t) CDR_NONNULL(1);

/* Empty T and keep its block for its next growth (stream reset).  No-op on a
 * released table. */
CDR_HIDDEN void cdr_itab_clear(cdr_itab *t) CDR_NONNULL(1);

/* Empty T for its next user, keeping its block (if any) hashed from the
 * first entry: a table that is reused message after message (a pooled
 * stream's value table) neither starts inline nor moves to a block at its
 * 9th entry.  SEARCH: the next user searches from its first entry (an
 * encoder), and the key index is emptied now; otherwise only when a few
 * entries held it (a decoder appends, and its first search, if any,
 * empties the index).  Without a block: as cdr_itab_clear().  A released
 * table stays released. */
CDR_HIDDEN void cdr_itab_reuse(cdr_itab *t, int search) CDR_NONNULL(1);

/* T's block's capacity in entries (0: none). */
static inline uint32_t cdr_itab_block_cap(const cdr_itab *t)
{
  return t->block ? t->cap : 0;
}

/* Empty T and free its block (not pooled): for a table kept with a pooled
 * owner that is destroyed now.  T is then released (cdr_itab_release()). */
CDR_HIDDEN void cdr_itab_drop(cdr_itab *t) CDR_NONNULL(1);

/* Empty T and give its block to the calling thread's pool (stream close; the
 * thread need not be the one that initialised T).  Idempotent: a second call
 * gives nothing back.  T is then unusable (put: CDR_E_STATE; look-ups find
 * nothing) until cdr_itab_init(). */
CDR_HIDDEN void cdr_itab_release(cdr_itab *t) CDR_NONNULL(1);

#endif
